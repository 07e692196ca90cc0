//! A target's scrape config, its defaults and its validation.

use super::auth::AuthConfig;
use super::size;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The file types kerai can convert.
pub const SUPPORTED_TYPES: &[&str] = &["html", "pdf", "docx", "xlsx", "epub", "txt", "md"];

/// The scrape config of one target. Every field has a default, so a config file only says
/// what differs; the stored config always has every field (the version is complete).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TargetConfig {
    /// Where the crawl starts (default: the base URL).
    pub seeds: Vec<String>,
    /// Hosts the crawl may visit; subdomains included (default: the base URL's host).
    pub allowed_domains: Vec<String>,
    /// URL patterns (`*` matches anything) a URL must match, when any are given.
    pub include: Vec<String>,
    /// URL patterns that exclude a URL.
    pub exclude: Vec<String>,
    /// Link hops from a seed (sitemap entries count as depth 0).
    pub max_depth: u32,
    /// URLs per job at most.
    pub max_pages: u32,
    /// Wall-clock budget of a job.
    #[serde(with = "size::duration")]
    pub max_runtime: Duration,
    /// Requests per second to one host (0: no limit). robots.txt Crawl-delay can only slow it.
    pub rate_limit_rps: f64,
    /// Requests in flight in all.
    pub concurrency: u32,
    /// Requests in flight to one host.
    pub per_host_concurrency: u32,
    /// The User-Agent header, also the name robots.txt rules are matched against.
    pub user_agent: String,
    /// Which documents to fetch and convert.
    pub file_types: Vec<String>,
    /// Render HTML pages in headless Chromium (for pages that build their content in JavaScript).
    pub render: bool,
    /// Rendering: wait until this CSS selector matches an element (none: do not wait for one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub render_wait_for: Option<String>,
    /// Rendering: `load` (the load event) or `networkidle` (the network quiet for a moment).
    pub render_wait_until: String,
    /// Rendering: the longest wait for the page; past it the DOM so far is kept, flagged partial.
    #[serde(with = "size::duration")]
    pub render_timeout: Duration,
    /// Rendering: pages rendered at once (one browser each).
    pub render_concurrency: u32,
    /// Largest body accepted (after decompression); larger ones are aborted and recorded.
    #[serde(with = "size::bytes")]
    pub max_size: u64,
    #[serde(with = "size::duration")]
    pub connect_timeout: Duration,
    /// Whole request, body included.
    #[serde(with = "size::duration")]
    pub timeout: Duration,
    pub max_redirects: u32,
    pub respect_robots: bool,
    /// Longest robots.txt Crawl-delay honoured.
    #[serde(with = "size::duration")]
    pub crawl_delay_cap: Duration,
    pub use_sitemaps: bool,
    pub follow_links: bool,
    /// Skip a page whose sitemap lastmod is not newer than its last successful scrape.
    pub trust_sitemap_lastmod: bool,
    /// Attempts per URL on 429 / 503 / network errors before it is recorded as failed.
    pub retries: u32,
    /// Consecutive failures after which a host is suspended for the rest of the job.
    pub host_failure_limit: u32,
    /// URLs of one shape (digits masked: /calendar/#/#) followed per job before the crawl
    /// treats them as a crawler trap and stops following them.
    pub trap_limit: u32,
    /// `keep`, `strip` or `add` the `www.` of hosts when normalising URLs.
    pub www: String,
    /// `keep`, `strip` or `add` a trailing `/` of paths when normalising URLs (`add` only for
    /// a last segment without a dot: `/docs` -> `/docs/`, `/a.html` stays). The root `/` stays.
    pub trailing_slash: String,
    /// Query parameters dropped when normalising URLs (`utm_*` style prefixes allowed).
    pub tracking_params: Vec<String>,
    /// Chunking of ingested documents, in tokens (cl100k): the most a chunk holds, and about
    /// how much of the previous chunk it repeats (at most half the size).
    pub chunk_size: u32,
    pub chunk_overlap: u32,
    /// `section` (keep sections whole when they fit), `paragraph` or `length`.
    pub chunk_strategy: String,
    /// Labels copied onto every chunk.
    pub tags: Vec<String>,
    /// How to log in (an intranet): see [`AuthConfig`]. Absent: no credentials are sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthConfig>,
}

impl Default for TargetConfig {
    fn default() -> Self {
        TargetConfig {
            seeds: Vec::new(),
            allowed_domains: Vec::new(),
            include: Vec::new(),
            exclude: Vec::new(),
            max_depth: 5,
            max_pages: 10_000,
            max_runtime: Duration::from_secs(3600),
            rate_limit_rps: 2.0,
            concurrency: 8,
            per_host_concurrency: 2,
            user_agent: default_user_agent(),
            file_types: SUPPORTED_TYPES.iter().map(|s| s.to_string()).collect(),
            render: false,
            render_wait_for: None,
            render_wait_until: "networkidle".into(),
            render_timeout: Duration::from_secs(30),
            render_concurrency: 1,
            max_size: 50_000_000,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(60),
            max_redirects: 10,
            respect_robots: true,
            crawl_delay_cap: Duration::from_secs(30),
            use_sitemaps: true,
            follow_links: true,
            trust_sitemap_lastmod: true,
            retries: 3,
            host_failure_limit: 5,
            trap_limit: 50,
            www: "keep".into(),
            trailing_slash: "keep".into(),
            tracking_params: [
                "utm_*", "gclid", "fbclid", "msclkid", "mc_cid", "mc_eid", "_ga", "yclid",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            chunk_size: 512,
            chunk_overlap: 64,
            chunk_strategy: "section".into(),
            tags: Vec::new(),
            auth: None,
        }
    }
}

pub fn default_user_agent() -> String {
    format!("kerai/{} (knowledge crawler)", env!("CARGO_PKG_VERSION"))
}

impl TargetConfig {
    /// Fill what depends on the base URL (seeds, allowed domains) and normalise lists.
    pub fn complete(mut self, base_url: &str) -> Self {
        if self.seeds.is_empty() {
            self.seeds.push(base_url.to_string());
        }
        if self.allowed_domains.is_empty() {
            if let Some(h) = host_of(base_url) {
                self.allowed_domains.push(h);
            }
        }
        for d in &mut self.allowed_domains {
            *d = d
                .trim()
                .trim_start_matches("*.")
                .trim_end_matches('.')
                .to_ascii_lowercase();
        }
        for t in &mut self.file_types {
            *t = t.trim().trim_start_matches('.').to_ascii_lowercase();
            if t == "htm" {
                *t = "html".into();
            }
        }
        self
    }

    /// Every problem with the config, each naming the field and the bad value.
    pub fn problems(&self, base_url: &str) -> Vec<String> {
        let mut out = Vec::new();
        if host_of(base_url).is_none() {
            out.push(format!("base_url: \"{base_url}\" is not an http(s) URL"));
        }
        for s in &self.seeds {
            match host_of(s) {
                None => out.push(format!("seeds: \"{s}\" is not an http(s) URL")),
                Some(h)
                    if !self.allowed_domains.is_empty()
                        && !domain_allowed(&h, &self.allowed_domains) =>
                {
                    out.push(format!(
                        "seeds: \"{s}\" is outside allowed_domains ({})",
                        self.allowed_domains.join(", ")
                    ))
                }
                _ => {}
            }
        }
        if self.allowed_domains.is_empty() || self.allowed_domains.iter().any(|d| d.is_empty()) {
            out.push("allowed_domains: must list at least one non-empty domain".into());
        }
        for t in &self.file_types {
            if !SUPPORTED_TYPES.contains(&t.as_str()) {
                out.push(format!(
                    "file_types: \"{t}\" is not supported (supported: {})",
                    SUPPORTED_TYPES.join(", ")
                ));
            }
        }
        if self.file_types.is_empty() {
            out.push("file_types: must list at least one type".into());
        }
        for (field, pats) in [("include", &self.include), ("exclude", &self.exclude)] {
            for p in pats {
                if p.trim().is_empty() {
                    out.push(format!("{field}: an empty pattern matches nothing useful"));
                }
            }
        }
        if self.max_pages == 0 {
            out.push("max_pages: must be at least 1".into());
        }
        if self.concurrency == 0 || self.per_host_concurrency == 0 {
            out.push("concurrency and per_host_concurrency: must be at least 1".into());
        }
        if self.rate_limit_rps < 0.0 || !self.rate_limit_rps.is_finite() {
            out.push(format!(
                "rate_limit_rps: {} must be 0 (no limit) or more",
                self.rate_limit_rps
            ));
        }
        if self.max_size == 0 {
            out.push("max_size: must be more than 0".into());
        }
        if self.timeout.is_zero() || self.connect_timeout.is_zero() {
            out.push("timeout and connect_timeout: must be more than 0".into());
        }
        if self.max_runtime.is_zero() {
            out.push("max_runtime: must be more than 0".into());
        }
        if !["keep", "strip", "add"].contains(&self.www.as_str()) {
            out.push(format!("www: \"{}\" must be keep, strip or add", self.www));
        }
        if !["keep", "strip", "add"].contains(&self.trailing_slash.as_str()) {
            out.push(format!(
                "trailing_slash: \"{}\" must be keep, strip or add",
                self.trailing_slash
            ));
        }
        if self.user_agent.trim().is_empty() {
            out.push("user_agent: must not be empty".into());
        }
        let chunking = kerai_core::retrieval::chunk::ChunkOptions {
            target_tokens: self.chunk_size as usize,
            overlap_tokens: self.chunk_overlap as usize,
            strategy: kerai_core::retrieval::chunk::ChunkStrategy::Section,
        };
        if let Err(e) = chunking.check() {
            out.push(format!("chunk_size / chunk_overlap: {e}"));
        }
        if let Err(e) = kerai_core::retrieval::chunk::ChunkStrategy::parse(&self.chunk_strategy) {
            out.push(format!("chunk_strategy: {e}"));
        }
        if !["load", "networkidle"].contains(&self.render_wait_until.as_str()) {
            out.push(format!(
                "render_wait_until: \"{}\" must be load or networkidle",
                self.render_wait_until
            ));
        }
        if self.render_timeout.is_zero() {
            out.push("render_timeout: must be more than 0".into());
        }
        if self.render_concurrency == 0 || self.render_concurrency > 16 {
            out.push(format!(
                "render_concurrency: {} must be 1 to 16",
                self.render_concurrency
            ));
        }
        if self
            .render_wait_for
            .as_deref()
            .is_some_and(|s| s.trim().is_empty())
        {
            out.push("render_wait_for: an empty selector matches nothing".into());
        }
        if let Some(a) = &self.auth {
            out.extend(a.problems());
            if let Some(h) = a.login_url.as_deref().and_then(host_of) {
                if !domain_allowed(&h, &self.allowed_domains) {
                    out.push(format!(
                        "auth.login_url: \"{}\" is outside allowed_domains ({}): credentials go only to the target's own hosts",
                        a.login_url.as_deref().unwrap_or_default(),
                        self.allowed_domains.join(", ")
                    ));
                }
            }
        }
        out
    }
}

/// The lowercase host of an http(s) URL.
pub fn host_of(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    if u.scheme() != "http" && u.scheme() != "https" {
        return None;
    }
    u.host_str()
        .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
}

/// `host` is one of `domains` or a subdomain of one.
pub fn domain_allowed(host: &str, domains: &[String]) -> bool {
    !domains.is_empty()
        && kerai_core::site::url_norm::host_allowed(&format!("http://{host}/"), domains)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_from_the_base_url() {
        let c = TargetConfig::default().complete("https://Intranet.Example.com/start");
        assert_eq!(c.seeds, vec!["https://Intranet.Example.com/start"]);
        assert_eq!(c.allowed_domains, vec!["intranet.example.com"]);
        assert!(c.problems("https://Intranet.Example.com/start").is_empty());
    }

    #[test]
    fn names_every_problem() {
        let c = TargetConfig {
            seeds: vec!["ftp://x".into(), "https://elsewhere.org/".into()],
            allowed_domains: vec!["example.com".into()],
            file_types: vec!["html".into(), "exe".into()],
            www: "maybe".into(),
            trailing_slash: "drop".into(),
            ..TargetConfig::default()
        };
        let p = c.problems("not a url");
        let all = p.join("\n");
        assert!(
            all.contains("base_url: \"not a url\" is not an http(s) URL"),
            "{all}"
        );
        assert!(
            all.contains("seeds: \"ftp://x\" is not an http(s) URL"),
            "{all}"
        );
        assert!(
            all.contains("\"https://elsewhere.org/\" is outside allowed_domains"),
            "{all}"
        );
        assert!(
            all.contains("file_types: \"exe\" is not supported"),
            "{all}"
        );
        assert!(all.contains("www: \"maybe\""), "{all}");
        assert!(
            all.contains("trailing_slash: \"drop\" must be keep, strip or add"),
            "{all}"
        );
    }

    #[test]
    fn subdomains_are_allowed() {
        let d = vec!["example.com".to_string()];
        assert!(domain_allowed("docs.example.com", &d));
        assert!(domain_allowed("EXAMPLE.com.", &d));
        assert!(!domain_allowed("badexample.com", &d));
    }

    #[test]
    fn unknown_fields_are_refused() {
        let e = serde_json::from_str::<TargetConfig>(r#"{"max_pagez": 3}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `max_pagez`"), "{e}");
        let c: TargetConfig =
            serde_json::from_str(r#"{"max_size": "2 MB", "timeout": "90s"}"#).unwrap();
        assert_eq!(c.max_size, 2_000_000);
        assert_eq!(c.timeout, Duration::from_secs(90));
    }
}
