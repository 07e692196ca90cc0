//! URL normalisation for crawl deduplication, URL hashing, and crawl scope checks.
//!
//! ```
//! use kerai_core::site::url_norm::{normalize, NormalizeOptions};
//! let n = normalize("HTTP://Example.COM:80/a/./b/../%7ec?utm_source=x&b=2&a=1#top", &NormalizeOptions::default());
//! assert_eq!(n.unwrap(), "http://example.com/a/~c?a=1&b=2");
//! ```

mod percent;
mod query;
mod scope;

use sha2::{Digest, Sha256};
use url::{Host, Url};

use crate::error::ResourceError;

pub use percent::normalize_percent;
pub use query::{is_tracking, DEFAULT_TRACKING_PARAMS};
pub use scope::{glob_matches, host_allowed, matches_patterns, same_site};

/// What to do with a trailing `/` in the path (the root path `/` always stays).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrailingSlash {
    /// Leave the path as it is.
    #[default]
    Keep,
    /// Add `/` when the last segment has no dot (`/docs` -> `/docs/`, `/a.html` unchanged).
    AddForDirectories,
    /// Remove trailing slashes (`/docs/` -> `/docs`).
    Strip,
}

/// What to do with a leading `www.` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WwwPolicy {
    #[default]
    Keep,
    /// `www.example.org` -> `example.org` (only when something is left after `www.` that has a dot).
    Strip,
    /// `example.org` -> `www.example.org`, only for two-label domain names (without a
    /// public-suffix list kerai cannot tell `example.co.uk` from `blog.example.org`).
    Add,
}

/// Normalisation choices. The default keeps the path's slash and `www.`, sorts query
/// parameters, removes [`DEFAULT_TRACKING_PARAMS`] and drops the fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalizeOptions {
    pub trailing_slash: TrailingSlash,
    /// Sort query parameters by name (stable: repeated names keep their order).
    pub sort_query: bool,
    pub www: WwwPolicy,
    /// Remove the parameters in `tracking_params`.
    pub strip_tracking: bool,
    /// Parameter names (case-insensitive; a trailing `*` makes a prefix).
    pub tracking_params: Vec<String>,
    /// Keep the `#fragment` (for sites that route by hash); dropped by default.
    pub keep_fragment: bool,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            trailing_slash: TrailingSlash::Keep,
            sort_query: true,
            www: WwwPolicy::Keep,
            strip_tracking: true,
            tracking_params: DEFAULT_TRACKING_PARAMS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            keep_fragment: false,
        }
    }
}

/// The canonical form of an absolute http(s) URL: scheme and host lower-cased, host in IDNA
/// (punycode) form without a trailing dot, default port removed, dot segments resolved,
/// percent-escapes normalised (unreserved decoded, hex upper-cased), empty query and the
/// fragment dropped, plus the optional steps of `opts`. Errors name the URL and say why.
pub fn normalize(url: &str, opts: &NormalizeOptions) -> Result<String, ResourceError> {
    let input = url.trim();
    let mut u = Url::parse(input).map_err(|e| {
        ResourceError::corrupt(
            input,
            format!("not an absolute URL ({e}); give a full http:// or https:// URL"),
        )
    })?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(ResourceError::corrupt(
            input,
            format!(
                "scheme {}: is not crawlable; only http and https URLs are",
                u.scheme()
            ),
        ));
    }
    let Some(host) = u.host() else {
        return Err(ResourceError::corrupt(
            input,
            "URL has no host; give a full http:// or https:// URL",
        ));
    };
    if let Host::Domain(d) = host {
        let new_host = adjust_host(d, opts.www);
        if new_host != d {
            u.set_host(Some(&new_host)).map_err(|e| {
                ResourceError::corrupt(input, format!("host cannot be normalised ({e})"))
            })?;
        }
    }
    if !opts.keep_fragment {
        u.set_fragment(None);
    }
    let path = adjust_path(&normalize_percent(u.path()), opts.trailing_slash);
    u.set_path(&path);
    let tracking = opts
        .strip_tracking
        .then_some(opts.tracking_params.as_slice());
    let q = u
        .query()
        .and_then(|q| query::clean_query(q, tracking, opts.sort_query));
    u.set_query(q.as_deref());
    if let Some(f) = u.fragment().map(normalize_percent) {
        u.set_fragment(Some(&f));
    }
    Ok(u.into())
}

fn adjust_host(host: &str, www: WwwPolicy) -> String {
    let h = host.trim_end_matches('.').to_string();
    match www {
        WwwPolicy::Keep => h,
        WwwPolicy::Strip => match h.strip_prefix("www.") {
            Some(rest) if rest.contains('.') => rest.to_string(),
            _ => h,
        },
        WwwPolicy::Add => {
            if !h.starts_with("www.") && h.split('.').count() == 2 {
                format!("www.{h}")
            } else {
                h
            }
        }
    }
}

fn adjust_path(path: &str, policy: TrailingSlash) -> String {
    match policy {
        TrailingSlash::Keep => path.to_string(),
        TrailingSlash::Strip => {
            let t = path.trim_end_matches('/');
            if t.is_empty() {
                "/".to_string()
            } else {
                t.to_string()
            }
        }
        TrailingSlash::AddForDirectories => {
            let last = path.rsplit('/').next().unwrap_or("");
            if path.ends_with('/') || last.contains('.') {
                path.to_string()
            } else {
                format!("{path}/")
            }
        }
    }
}

/// Hex SHA-256 of a (normalised) URL: a fixed-size key for deduplication.
pub fn url_hash(normalized: &str) -> String {
    let digest = Sha256::digest(normalized.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
