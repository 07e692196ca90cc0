//! A pure driver for discovering a site's sitemaps: it says which URL to fetch next, is fed
//! what the fetcher got, and builds the tree (robots.txt `Sitemap:` lines first, then the
//! well-known paths nobody announced, nested indexes, with recursion, depth and fetch caps).
//!
//! ```
//! use kerai_core::site::sitemap::{FetchResult, SitemapWalk, WalkOptions};
//! let opts = WalkOptions { probe_known_paths: false, ..WalkOptions::default() };
//! let mut walk = SitemapWalk::new("https://example.org/blog/", opts).unwrap();
//! while let Some(url) = walk.next_fetch() {
//!     let body: &[u8] = if url.ends_with("robots.txt") { b"Sitemap: /s.xml" } else { b"https://example.org/a\n" };
//!     walk.feed(&url, FetchResult::Response { final_url: &url, status: 200, content_type: None, content_encoding: None, body });
//! }
//! assert_eq!(walk.pages().len(), 1);
//! ```

use std::collections::HashSet;

use super::types::{Limits, Page, ResponseMeta, SitemapKind};
use crate::error::ResourceError;

/// Paths probed when robots.txt does not announce them (ultimate-sitemap-parser's list).
pub const KNOWN_SITEMAP_PATHS: &[&str] = &[
    "sitemap.xml",
    "sitemap.xml.gz",
    "sitemap_index.xml",
    "sitemap-index.xml",
    "sitemap_index.xml.gz",
    "sitemap-index.xml.gz",
    ".sitemap.xml",
    "sitemap",
    "admin/config/search/xmlsitemap",
    "sitemap/sitemap-index.xml",
    "sitemap_news.xml",
    "sitemap-news.xml",
    "sitemap_news.xml.gz",
    "sitemap-news.xml.gz",
];

/// How far a walk may go.
#[derive(Debug, Clone)]
pub struct WalkOptions {
    /// Read robots.txt for `Sitemap:` lines.
    pub use_robots: bool,
    /// Probe [`KNOWN_SITEMAP_PATHS`] (and `extra_paths`) that robots.txt did not list.
    pub probe_known_paths: bool,
    /// More paths to probe, relative to the homepage (e.g. `news/sitemap.xml`).
    pub extra_paths: Vec<String>,
    /// Nesting allowed below robots.txt / a probed path: a sitemap listed by robots.txt is at
    /// depth 1, its children at 2, and so on. Deeper children become invalid. Default 10.
    pub max_depth: usize,
    /// Documents fetched at most (robots.txt and probes included). Default 1000.
    pub max_fetches: usize,
    /// Per-document caps.
    pub limits: Limits,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            use_robots: true,
            probe_known_paths: true,
            extra_paths: Vec::new(),
            max_depth: 10,
            max_fetches: 1000,
            limits: Limits::default(),
        }
    }
}

/// What the fetcher got for a URL the walk asked for.
#[derive(Debug, Clone, Copy)]
pub enum FetchResult<'a> {
    /// An HTTP answer, after the fetcher followed any redirects (`final_url` is where it ended).
    Response {
        final_url: &'a str,
        status: u16,
        content_type: Option<&'a str>,
        content_encoding: Option<&'a str>,
        body: &'a [u8],
    },
    /// No HTTP answer (DNS, connection, timeout, redirect loop…), and why.
    Failed(&'a str),
}

/// One node of the finished tree.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkNode {
    pub url: String,
    /// `None` for the website root; the parsed (or invalid) document otherwise.
    pub kind: Option<SitemapKind>,
    pub children: Vec<WalkNode>,
}

#[derive(Debug)]
enum State {
    Pending,
    InFlight,
    Done(SitemapKind),
}

#[derive(Debug)]
struct Node {
    url: String,
    parent: Option<usize>,
    depth: usize,
    /// For probed top-level nodes: the URLs found via robots.txt, treated as ancestors.
    extra_parents: Vec<String>,
    state: State,
    children: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Robots,
    Probes,
}

/// The sitemap discovery state machine. Fetch order is depth-first, children in document order.
#[derive(Debug)]
pub struct SitemapWalk {
    homepage: String,
    opts: WalkOptions,
    nodes: Vec<Node>,
    /// Pending node ids; the last one is fetched next.
    stack: Vec<usize>,
    phase: Phase,
    /// Top-level children of the root: robots.txt, then probes.
    top: Vec<usize>,
    /// Every URL asked for or reached by redirect.
    seen: HashSet<String>,
    fetches: usize,
}

impl SitemapWalk {
    /// A walk for the site of `homepage` (any URL on it: only scheme, host and port are used).
    pub fn new(homepage: &str, opts: WalkOptions) -> Result<SitemapWalk, ResourceError> {
        let url = url::Url::parse(homepage.trim()).map_err(|e| {
            ResourceError::corrupt(
                homepage,
                format!("not an absolute URL ({e}); give the site as https://host/"),
            )
        })?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(ResourceError::corrupt(
                homepage,
                "not an http(s) URL with a host; give the site as https://host/",
            ));
        }
        let mut home = url.clone();
        home.set_path("/");
        home.set_query(None);
        home.set_fragment(None);
        let homepage = String::from(home);
        let mut walk = SitemapWalk {
            nodes: vec![Node {
                url: homepage.clone(),
                parent: None,
                depth: 0,
                extra_parents: Vec::new(),
                state: State::Done(SitemapKind::Index(Vec::new())),
                children: Vec::new(),
            }],
            homepage,
            opts,
            stack: Vec::new(),
            phase: Phase::Robots,
            top: Vec::new(),
            seen: HashSet::new(),
            fetches: 0,
        };
        if walk.opts.use_robots {
            let robots = format!("{}robots.txt", walk.homepage);
            let id = walk.add_node(robots, Some(0), 0, Vec::new());
            walk.top.push(id);
            walk.stack.push(id);
        }
        Ok(walk)
    }

    fn add_node(
        &mut self,
        url: String,
        parent: Option<usize>,
        depth: usize,
        extra_parents: Vec<String>,
    ) -> usize {
        self.seen.insert(url.clone());
        self.nodes.push(Node {
            url,
            parent,
            depth,
            extra_parents,
            state: State::Pending,
            children: Vec::new(),
        });
        self.nodes.len() - 1
    }

    /// The URL to fetch next, or `None` when nothing can be fetched now (either the walk is
    /// done, or it waits for results still in flight).
    pub fn next_fetch(&mut self) -> Option<String> {
        loop {
            if let Some(id) = self.stack.pop() {
                if self.fetches >= self.opts.max_fetches {
                    let why = format!(
                        "fetch budget of {} documents exhausted",
                        self.opts.max_fetches
                    );
                    self.nodes[id].state = State::Done(SitemapKind::Invalid(why));
                    continue;
                }
                self.fetches += 1;
                self.nodes[id].state = State::InFlight;
                return Some(self.nodes[id].url.clone());
            }
            if self.phase == Phase::Probes || self.in_flight() {
                return None;
            }
            self.start_probes();
        }
    }

    fn in_flight(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| matches!(n.state, State::InFlight))
    }

    /// Whether every document has been fetched and fed.
    pub fn is_done(&self) -> bool {
        self.stack.is_empty()
            && !self.in_flight()
            && (self.phase == Phase::Probes || !self.opts.probe_known_paths)
    }

    fn start_probes(&mut self) {
        self.phase = Phase::Probes;
        if !self.opts.probe_known_paths {
            return;
        }
        let found: Vec<String> = self
            .top
            .iter()
            .flat_map(|&t| self.subtree_urls(t))
            .collect();
        let paths: Vec<String> = KNOWN_SITEMAP_PATHS
            .iter()
            .map(|p| p.to_string())
            .chain(self.opts.extra_paths.iter().cloned())
            .collect();
        let mut ids = Vec::new();
        for path in paths {
            let url = format!("{}{}", self.homepage, path.trim_start_matches('/'));
            if self.seen.contains(&url) {
                continue;
            }
            let id = self.add_node(url, Some(0), 0, found.clone());
            self.top.push(id);
            ids.push(id);
        }
        self.stack.extend(ids.into_iter().rev());
    }

    /// URLs of the documents below `id` (not `id` itself).
    fn subtree_urls(&self, id: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut todo = self.nodes[id].children.clone();
        while let Some(c) = todo.pop() {
            out.push(self.nodes[c].url.clone());
            todo.extend(self.nodes[c].children.iter().copied());
        }
        out
    }

    /// The URLs above `id`: its ancestors' and, for probed paths, those found via robots.txt.
    fn ancestors(&self, id: usize) -> HashSet<&str> {
        let mut out = HashSet::new();
        let mut cur = self.nodes[id].parent;
        let mut last = id;
        while let Some(p) = cur {
            if p != 0 {
                out.insert(self.nodes[p].url.as_str());
                last = p;
            }
            cur = self.nodes[p].parent;
        }
        out.extend(self.nodes[last].extra_parents.iter().map(String::as_str));
        out
    }

    /// Hands the walk what fetching `url` gave. Returns `false` (and changes nothing) when
    /// `url` is not a fetch the walk is waiting for.
    pub fn feed(&mut self, url: &str, result: FetchResult) -> bool {
        let Some(id) = self
            .nodes
            .iter()
            .position(|n| n.url == url && matches!(n.state, State::InFlight))
        else {
            return false;
        };
        let kind = self.result_kind(id, result);
        let children = kind.sub_sitemap_urls();
        self.nodes[id].state = State::Done(kind);
        let depth = self.nodes[id].depth + 1;
        let mut to_fetch = Vec::new();
        for child in children {
            let cid = self.add_node_unchecked(child.clone(), id, depth);
            let mut above = self.ancestors(cid);
            above.insert(self.nodes[id].url.as_str());
            let verdict = if above.contains(child.as_str()) {
                let mut list: Vec<&str> = above.into_iter().collect();
                list.sort_unstable();
                Some(SitemapKind::Invalid(format!(
                    "recursion: {child} is already among its parents ({})",
                    list.join(", ")
                )))
            } else if depth > self.opts.max_depth {
                Some(SitemapKind::Invalid(format!(
                    "recursion level exceeded {} for {child}",
                    self.opts.max_depth
                )))
            } else if !self.seen.insert(child.clone()) {
                Some(SitemapKind::Invalid(format!(
                    "duplicate: {child} was already fetched elsewhere in this walk"
                )))
            } else {
                None
            };
            match verdict {
                Some(kind) => self.nodes[cid].state = State::Done(kind),
                None => to_fetch.push(cid),
            }
            self.nodes[id].children.push(cid);
        }
        self.stack.extend(to_fetch.into_iter().rev());
        true
    }

    fn add_node_unchecked(&mut self, url: String, parent: usize, depth: usize) -> usize {
        self.nodes.push(Node {
            url,
            parent: Some(parent),
            depth,
            extra_parents: Vec::new(),
            state: State::Pending,
            children: Vec::new(),
        });
        self.nodes.len() - 1
    }

    fn result_kind(&mut self, id: usize, result: FetchResult) -> SitemapKind {
        let url = self.nodes[id].url.clone();
        match result {
            FetchResult::Failed(why) => {
                SitemapKind::Invalid(format!("unable to fetch {url}: {why}"))
            }
            FetchResult::Response { status, .. } if !(200..300).contains(&status) => {
                SitemapKind::Invalid(format!("unable to fetch {url}: HTTP {status}"))
            }
            FetchResult::Response {
                final_url,
                content_type,
                content_encoding,
                body,
                ..
            } => {
                if final_url != url {
                    let above = self.ancestors(id);
                    if above.contains(final_url) {
                        return SitemapKind::Invalid(format!(
                            "recursion: {url} redirected to its parent {final_url}"
                        ));
                    }
                    self.seen.insert(final_url.to_string());
                }
                let meta = ResponseMeta {
                    content_type,
                    content_encoding,
                };
                // A redirected robots.txt is still a robots.txt; resolve its lines against where it ended.
                let parse_url = if super::is_robots_url(&url) && !super::is_robots_url(final_url) {
                    &url
                } else {
                    final_url
                };
                super::parse(parse_url, &meta, body, &self.opts.limits).kind
            }
        }
    }

    /// The tree so far: the website root, then robots.txt and the probed paths that held a
    /// sitemap (a missing robots.txt and failed probes are left out; invalid children of a
    /// found sitemap are kept, so cycles and missing files show).
    pub fn tree(&self) -> WalkNode {
        let children = self
            .top
            .iter()
            .filter(|&&t| !matches!(self.nodes[t].state, State::Done(SitemapKind::Invalid(_))))
            .map(|&t| self.subtree(t))
            .collect();
        WalkNode {
            url: self.homepage.clone(),
            kind: None,
            children,
        }
    }

    fn subtree(&self, id: usize) -> WalkNode {
        let n = &self.nodes[id];
        let kind = match &n.state {
            State::Done(k) => k.clone(),
            State::Pending | State::InFlight => SitemapKind::Invalid("not fetched yet".to_string()),
        };
        WalkNode {
            url: n.url.clone(),
            kind: Some(kind),
            children: n.children.iter().map(|&c| self.subtree(c)).collect(),
        }
    }

    /// Every page found so far, in tree order (a page listed by two sitemaps appears twice).
    pub fn pages(&self) -> Vec<&Page> {
        let mut out = Vec::new();
        let mut todo: Vec<usize> = self.top.iter().rev().copied().collect();
        while let Some(id) = todo.pop() {
            if let State::Done(kind) = &self.nodes[id].state {
                out.extend(kind.pages());
            }
            todo.extend(self.nodes[id].children.iter().rev().copied());
        }
        out
    }

    /// Documents fetched (asked for) so far.
    pub fn fetch_count(&self) -> usize {
        self.fetches
    }
}
