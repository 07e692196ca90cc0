//! Crawl decisions in SQL: robots.txt matching, URL normalisation and near-duplicate
//! signatures.

use kerai_core::site::{near_duplicates, robots, url_norm};
use pgrx::prelude::*;

/// `kerai.robots_allowed(robots_txt, user_agent, url)`: may `user_agent` fetch `url` under
/// `robots_txt`, with Google's semantics (RFC 9309 and Google's extensions)? A full
/// User-Agent header is reduced to its product token (`kerai/0.1 (…)` is matched as `kerai`);
/// a bare name is matched as it is.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn robots_allowed(robots_txt: &str, user_agent: &str, url: &str) -> bool {
    // A whole User-Agent header (`kerai/0.3 (knowledge crawler)`) is matched by its product
    // token; a bare name (`Foo Bar`) as it is, as Google's matcher does.
    let agent = if user_agent.contains('/') {
        robots::product_token(user_agent)
    } else {
        user_agent
    };
    robots::allowed(robots_txt, agent, url)
}

/// `kerai.normalize_url(url)`: the form kerai stores (lower-case scheme and host, no default
/// port, no fragment, dot segments resolved, sorted query, tracking parameters removed).
/// NULL for what is not an absolute http(s) URL.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn normalize_url(url: &str) -> Option<String> {
    url_norm::normalize(url, &url_norm::NormalizeOptions::default()).ok()
}

/// `kerai.url_hash(url)`: hex SHA-256 of the normalised URL (pages.url_hash).
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn url_hash(url: &str) -> Option<String> {
    normalize_url(url).map(|u| url_norm::url_hash(&u))
}

/// `kerai.family_key(name)`: a person's family name as a key (`Friston, K. J.` → `friston`).
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn family_key(name: &str) -> String {
    kerai_core::names::family_key(name)
}

/// `kerai._minhash_similarity(a, b)`: the estimated Jaccard similarity of two page signatures
/// (`page_versions.minhash`), 0 when their lengths differ.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn _minhash_similarity(a: Vec<Option<i64>>, b: Vec<Option<i64>>) -> f32 {
    let a: Vec<i64> = a.into_iter().map(|v| v.unwrap_or(0)).collect();
    let b: Vec<i64> = b.into_iter().map(|v| v.unwrap_or(0)).collect();
    near_duplicates::similarity(&a, &b) as f32
}
