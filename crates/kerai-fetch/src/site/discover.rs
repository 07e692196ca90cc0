//! Discovery at the start of a job: the seeds, and every page the sites' sitemaps list
//! (robots.txt `Sitemap:` lines, /sitemap.xml, /sitemap_index.xml and the other well-known
//! paths, nested indexes, gzip, text and RSS/Atom sitemaps), filtered by the scope.

use super::scope::Scope;
use crate::http::{Fetch, Http, Request};
use crate::target::TargetConfig;
use chrono::{DateTime, Utc};
use kerai_core::site::sitemap::{FetchResult, SitemapWalk, WalkOptions};
use std::collections::{BTreeMap, HashSet};

/// A URL to add to a job.
pub use kerai_core::wire::site::NewUrl;
use kerai_core::wire::site::SitemapEntry;

#[derive(Debug, Default)]
pub struct Discovered {
    pub urls: Vec<NewUrl>,
    /// URLs left out, with the reason.
    pub excluded: Vec<(String, String)>,
    /// Sitemap documents read, and what each was.
    pub sitemaps: Vec<(String, String)>,
    /// Sitemap entries skipped because their lastmod is older than --since.
    pub older_than_since: usize,
}

/// Seeds first (depth 0), then sitemap entries (depth 0, with lastmod / changefreq / priority).
pub async fn discover(
    http: &Http,
    cfg: &TargetConfig,
    scope: &Scope,
    since: Option<DateTime<Utc>>,
) -> Discovered {
    let mut out = Discovered::default();
    let mut seen: HashSet<String> = HashSet::new();
    for seed in &cfg.seeds {
        match scope.check(seed, 0) {
            Ok(s) => {
                if seen.insert(s.url_hash.clone()) {
                    out.urls.push(NewUrl {
                        url: s.url,
                        url_hash: s.url_hash,
                        host: s.host,
                        depth: 0,
                        via: "seed".into(),
                        discovered_from: None,
                        sitemap: None,
                    });
                }
            }
            Err(why) => out.excluded.push((seed.clone(), why.to_string())),
        }
    }
    if !cfg.use_sitemaps {
        return out;
    }
    let mut sites: BTreeMap<String, String> = BTreeMap::new();
    for seed in &cfg.seeds {
        if let Ok(u) = url::Url::parse(seed) {
            sites
                .entry(u.origin().ascii_serialization())
                .or_insert_with(|| format!("{}/", u.origin().ascii_serialization()));
        }
    }
    for homepage in sites.values() {
        let Ok(mut walk) = SitemapWalk::new(homepage, WalkOptions::default()) else {
            continue;
        };
        while let Some(url) = walk.next_fetch() {
            let fetched = http
                .fetch(&Request::get_without_login(&url), &|_| Ok(()))
                .await;
            match &fetched {
                Fetch::Ok(r) => {
                    walk.feed(
                        &url,
                        FetchResult::Response {
                            final_url: &r.final_url,
                            status: r.status,
                            content_type: r.content_type.as_deref(),
                            content_encoding: None,
                            body: &r.body,
                        },
                    );
                }
                Fetch::NotModified(r) => {
                    walk.feed(
                        &url,
                        FetchResult::Response {
                            final_url: &r.final_url,
                            status: 304,
                            content_type: None,
                            content_encoding: None,
                            body: &[],
                        },
                    );
                }
                Fetch::Retry {
                    status, final_url, ..
                } => {
                    walk.feed(
                        &url,
                        FetchResult::Response {
                            final_url,
                            status: *status,
                            content_type: None,
                            content_encoding: None,
                            body: &[],
                        },
                    );
                }
                Fetch::Failed { error, status } => match status {
                    Some(s) => {
                        walk.feed(
                            &url,
                            FetchResult::Response {
                                final_url: &url,
                                status: *s,
                                content_type: None,
                                content_encoding: None,
                                body: &[],
                            },
                        );
                    }
                    None => {
                        walk.feed(&url, FetchResult::Failed(&error.to_string()));
                    }
                },
            }
        }
        collect_tree(&walk.tree(), &mut out.sitemaps);
        for page in walk.pages() {
            if let (Some(since), Some(lm)) = (since, page.lastmod) {
                if lm.with_timezone(&Utc) < since {
                    out.older_than_since += 1;
                    continue;
                }
            }
            match scope.check(&page.url, 0) {
                Ok(s) => {
                    if seen.insert(s.url_hash.clone()) {
                        let sm = SitemapEntry {
                            lastmod: page.lastmod.map(|lm| lm.to_rfc3339()),
                            changefreq: page.changefreq.map(|cf| cf.as_str().to_string()),
                            priority: Some(page.priority),
                        };
                        out.urls.push(NewUrl {
                            url: s.url,
                            url_hash: s.url_hash,
                            host: s.host,
                            depth: 0,
                            via: "sitemap".into(),
                            discovered_from: None,
                            sitemap: Some(sm),
                        });
                    }
                }
                Err(why) => out.excluded.push((page.url.clone(), why.to_string())),
            }
        }
    }
    out
}

fn collect_tree(node: &kerai_core::site::sitemap::WalkNode, out: &mut Vec<(String, String)>) {
    if let Some(kind) = &node.kind {
        out.push((node.url.clone(), kind.name().to_string()));
    }
    for c in &node.children {
        collect_tree(c, out);
    }
}
