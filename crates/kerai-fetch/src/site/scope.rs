//! What a target may crawl: allowed domains (subdomains included), include / exclude URL
//! patterns, file types and depth; and the normalised form of every URL (one page, one row).

use crate::target::config::{domain_allowed, TargetConfig};
use kerai_core::site::url_norm::{self, NormalizeOptions};
use std::fmt;

/// A URL the crawl may visit, normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopedUrl {
    pub url: String,
    pub url_hash: String,
    pub host: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutOfScope {
    NotHttp,
    Domain(String),
    Excluded(String),
    NotIncluded,
    FileType(String),
    TooDeep(u32),
}

impl fmt::Display for OutOfScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutOfScope::NotHttp => write!(f, "not an http(s) URL"),
            OutOfScope::Domain(h) => write!(f, "host {h} is outside allowed_domains"),
            OutOfScope::Excluded(p) => write!(f, "matches exclude pattern \"{p}\""),
            OutOfScope::NotIncluded => write!(f, "matches no include pattern"),
            OutOfScope::FileType(t) => write!(f, "file type {t} is not in file_types"),
            OutOfScope::TooDeep(d) => write!(f, "depth {d} is beyond max_depth"),
        }
    }
}

pub struct Scope {
    domains: Vec<String>,
    include: Vec<String>,
    exclude: Vec<String>,
    file_types: Vec<String>,
    max_depth: u32,
    norm: NormalizeOptions,
}

impl Scope {
    pub fn new(cfg: &TargetConfig) -> Scope {
        Scope {
            domains: cfg.allowed_domains.clone(),
            include: cfg.include.clone(),
            exclude: cfg.exclude.clone(),
            file_types: cfg.file_types.clone(),
            max_depth: cfg.max_depth,
            norm: normalize_options(cfg),
        }
    }

    /// The normalised form of `url`, whatever the scope says.
    pub fn normalize(&self, url: &str) -> Option<ScopedUrl> {
        let n = url_norm::normalize(url, &self.norm).ok()?;
        let host = url::Url::parse(&n).ok()?.host_str()?.to_ascii_lowercase();
        Some(ScopedUrl {
            url_hash: url_norm::url_hash(&n),
            url: n,
            host,
        })
    }

    /// May the crawl visit `url`, found at link depth `depth`?
    pub fn check(&self, url: &str, depth: u32) -> Result<ScopedUrl, OutOfScope> {
        let s = self.normalize(url).ok_or(OutOfScope::NotHttp)?;
        if !s.url.starts_with("http://") && !s.url.starts_with("https://") {
            return Err(OutOfScope::NotHttp);
        }
        if !domain_allowed(&s.host, &self.domains) {
            return Err(OutOfScope::Domain(s.host));
        }
        let none: &[String] = &[];
        if let Some(p) = self
            .exclude
            .iter()
            .find(|p| !url_norm::matches_patterns(&s.url, none, std::slice::from_ref(*p)))
        {
            return Err(OutOfScope::Excluded(p.clone()));
        }
        if !url_norm::matches_patterns(&s.url, &self.include, none) {
            return Err(OutOfScope::NotIncluded);
        }
        if let Some(t) = type_from_path(&s.url) {
            if !self.file_types.contains(&t) {
                return Err(OutOfScope::FileType(t));
            }
        }
        if depth > self.max_depth {
            return Err(OutOfScope::TooDeep(depth));
        }
        Ok(s)
    }
}

pub fn normalize_options(cfg: &TargetConfig) -> NormalizeOptions {
    NormalizeOptions {
        www: match cfg.www.as_str() {
            "strip" => url_norm::WwwPolicy::Strip,
            "add" => url_norm::WwwPolicy::Add,
            _ => url_norm::WwwPolicy::Keep,
        },
        trailing_slash: match cfg.trailing_slash.as_str() {
            "strip" => url_norm::TrailingSlash::Strip,
            "add" => url_norm::TrailingSlash::AddForDirectories,
            _ => url_norm::TrailingSlash::Keep,
        },
        strip_tracking: true,
        tracking_params: cfg.tracking_params.clone(),
        ..NormalizeOptions::default()
    }
}

/// The document type a URL's path names by its extension (`.pdf` → pdf), if any.
pub fn type_from_path(url: &str) -> Option<String> {
    let path = url::Url::parse(url).ok()?.path().to_ascii_lowercase();
    let ext = path.rsplit('/').next()?.rsplit_once('.')?.1.to_string();
    Some(match ext.as_str() {
        "htm" | "html" | "xhtml" | "php" | "asp" | "aspx" | "jsp" | "shtml" => "html".into(),
        "pdf" | "docx" | "xlsx" | "epub" | "txt" | "md" => ext,
        "markdown" => "md".into(),
        "doc" | "xls" | "ppt" | "pptx" | "odt" | "ods" | "zip" | "gz" | "tar" | "exe" | "dmg"
        | "iso" | "jpg" | "jpeg" | "png" | "gif" | "svg" | "webp" | "mp3" | "mp4" | "avi"
        | "mov" | "css" | "js" | "woff" | "woff2" | "ico" => ext,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(f: impl FnOnce(&mut TargetConfig)) -> Scope {
        let mut c = TargetConfig::default();
        f(&mut c);
        Scope::new(&c.complete("https://example.org/"))
    }

    #[test]
    fn domains_patterns_types_depth() {
        let s = scope(|c| {
            c.exclude = vec!["/private/*".into(), "*print=*".into()];
            c.file_types = vec!["html".into(), "pdf".into()];
            c.max_depth = 2;
        });
        assert!(s.check("https://example.org/a", 0).is_ok());
        assert!(s.check("https://docs.example.org/a", 0).is_ok());
        assert_eq!(
            s.check("https://other.org/a", 0),
            Err(OutOfScope::Domain("other.org".into()))
        );
        assert_eq!(
            s.check("https://example.org/private/x", 0),
            Err(OutOfScope::Excluded("/private/*".into()))
        );
        assert_eq!(
            s.check("https://example.org/a?print=1", 0),
            Err(OutOfScope::Excluded("*print=*".into()))
        );
        assert_eq!(
            s.check("https://example.org/f.docx", 0),
            Err(OutOfScope::FileType("docx".into()))
        );
        assert!(s.check("https://example.org/f.pdf", 0).is_ok());
        assert_eq!(
            s.check("https://example.org/a", 3),
            Err(OutOfScope::TooDeep(3))
        );
        assert_eq!(s.check("mailto:x@example.org", 0), Err(OutOfScope::NotHttp));
    }

    #[test]
    fn include_patterns_restrict() {
        let s = scope(|c| c.include = vec!["https://example.org/docs/*".into()]);
        assert!(s.check("https://example.org/docs/a", 0).is_ok());
        assert_eq!(
            s.check("https://example.org/blog/a", 0),
            Err(OutOfScope::NotIncluded)
        );
    }

    #[test]
    fn one_page_one_url() {
        let s = scope(|_| {});
        let a = s
            .check("HTTPS://Example.org:443/a?utm_source=x#top", 0)
            .unwrap();
        let b = s.check("https://example.org/a", 0).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn trailing_slash_per_config() {
        let url = |policy: &str, u: &str| {
            scope(|c| c.trailing_slash = policy.into())
                .check(u, 0)
                .unwrap()
                .url
        };
        // keep (the default): two pages.
        assert_eq!(
            url("keep", "https://example.org/docs/"),
            "https://example.org/docs/"
        );
        assert_eq!(
            url("keep", "https://example.org/docs"),
            "https://example.org/docs"
        );
        // strip: one page, without the slash; the root stays.
        assert_eq!(
            url("strip", "https://example.org/docs/"),
            "https://example.org/docs"
        );
        assert_eq!(
            url("strip", "https://example.org/docs//?b=1"),
            "https://example.org/docs?b=1"
        );
        assert_eq!(url("strip", "https://example.org/"), "https://example.org/");
        // add: one page, with the slash, for directory-like paths only.
        assert_eq!(
            url("add", "https://example.org/docs"),
            "https://example.org/docs/"
        );
        assert_eq!(
            url("add", "https://example.org/docs/"),
            "https://example.org/docs/"
        );
        assert_eq!(
            url("add", "https://example.org/a.html"),
            "https://example.org/a.html"
        );
        let s = scope(|c| c.trailing_slash = "strip".into());
        assert_eq!(
            s.check("https://example.org/docs/", 0).unwrap().url_hash,
            s.check("https://example.org/docs", 0).unwrap().url_hash
        );
    }
}
