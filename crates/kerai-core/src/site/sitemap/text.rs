//! The non-XML documents: plain-text sitemaps and robots.txt.

use std::collections::HashSet;

use super::fields::is_http_url;
use super::types::{Limits, Page, ParseNotes};
use crate::site::robots::Robots;

/// A plain-text sitemap: each trimmed line that is an absolute http(s) URL is a page
/// (duplicates dropped, other lines skipped).
pub fn text_pages(text: &str, limits: &Limits, notes: &mut ParseNotes) -> Vec<Page> {
    let mut seen = HashSet::new();
    let mut pages = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !is_http_url(line) {
            notes.skipped_urls += 1;
            continue;
        }
        if seen.insert(line) {
            if pages.len() >= limits.max_urls {
                notes.truncated = Some(format!(
                    "more than {} URLs; the rest were ignored",
                    limits.max_urls
                ));
                break;
            }
            pages.push(Page::new(line));
        }
    }
    pages
}

/// The sitemaps a robots.txt lists (`Sitemap:` and Google's tolerated `Site-map:`), resolved
/// against the robots.txt URL, kept when http(s), deduplicated in order.
pub fn robots_sitemaps(
    robots_url: &str,
    body: &[u8],
    limits: &Limits,
    notes: &mut ParseNotes,
) -> Vec<String> {
    let base = url::Url::parse(robots_url).ok();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for value in Robots::parse(body).sitemaps() {
        if value.trim().is_empty() {
            continue;
        }
        let resolved = match &base {
            Some(b) => b.join(value.trim()).ok(),
            None => url::Url::parse(value.trim()).ok(),
        };
        match resolved.map(String::from).filter(|u| is_http_url(u)) {
            Some(u) => {
                if seen.insert(u.clone()) && out.len() < limits.max_urls {
                    out.push(u);
                }
            }
            None => notes.skipped_urls += 1,
        }
    }
    out
}

/// Whether `url` names a robots.txt (its path ends in `/robots.txt`).
pub fn is_robots_url(url: &str) -> bool {
    match url::Url::parse(url) {
        Ok(u) => u.path().ends_with("/robots.txt"),
        Err(_) => url
            .split(['?', '#'])
            .next()
            .is_some_and(|p| p.ends_with("/robots.txt")),
    }
}
