//! ultimate-sitemap-parser's tree tests (suites/sitemaps/usp/*) replayed through
//! `SitemapWalk` with an in-memory fetcher built from each case's manifest.json (anything
//! unlisted answers 404). The walk's tree must equal expected_tree.json node for node:
//! type, URL, child order and page URLs; cycles and recursion must come out invalid.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use kerai_core::shared_data::shared_path;
use kerai_core::site::sitemap::{
    parse, FetchResult, Limits, ResponseMeta, SitemapKind, SitemapWalk, WalkNode, WalkOptions,
};
use serde_json::Value;

struct Response {
    status: u16,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

/// The recorded responses of one case; unlisted URLs get USP's mocked 404.
struct Site {
    responses: HashMap<String, Response>,
}

impl Site {
    fn load(dir: &Path) -> Site {
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap())
                .unwrap();
        let mut responses = HashMap::new();
        for r in manifest["responses"].as_array().unwrap() {
            let headers: HashMap<String, String> = r["headers"]
                .as_object()
                .map(|h| {
                    h.iter()
                        .map(|(k, v)| {
                            (k.to_ascii_lowercase(), v.as_str().unwrap_or("").to_string())
                        })
                        .collect()
                })
                .unwrap_or_default();
            let body = r["file"]
                .as_str()
                .map(|f| std::fs::read(dir.join(f)).unwrap())
                .unwrap_or_default();
            let status = r["status_code"].as_u64().unwrap_or(200) as u16;
            responses
                .entry(r["url"].as_str().unwrap().to_string())
                .or_insert(Response {
                    status,
                    headers,
                    body,
                });
        }
        Site { responses }
    }

    /// Follows redirects like an HTTP client (at most 5), returning the final URL and response.
    fn get(&self, url: &str) -> (String, Option<&Response>) {
        let mut current = url.to_string();
        for _ in 0..=5 {
            match self.responses.get(&current) {
                Some(r) if (300..400).contains(&r.status) => match r.headers.get("location") {
                    Some(loc) => {
                        current = url::Url::parse(&current)
                            .unwrap()
                            .join(loc)
                            .unwrap()
                            .to_string()
                    }
                    None => return (current, Some(r)),
                },
                other => return (current, other),
            }
        }
        (current, None)
    }
}

fn run_walk(site: &Site, homepage: &str) -> (SitemapWalk, usize) {
    let mut walk = SitemapWalk::new(homepage, WalkOptions::default()).unwrap();
    let not_found = Response {
        status: 404,
        headers: HashMap::from([("content-type".to_string(), "text/html".to_string())]),
        body: b"<h1>404 Not Found!</h1>".to_vec(),
    };
    let mut fetches = 0;
    while let Some(url) = walk.next_fetch() {
        fetches += 1;
        let (final_url, resp) = site.get(&url);
        let resp = resp.unwrap_or(&not_found);
        let accepted = walk.feed(
            &url,
            FetchResult::Response {
                final_url: &final_url,
                status: resp.status,
                content_type: resp.headers.get("content-type").map(String::as_str),
                content_encoding: resp.headers.get("content-encoding").map(String::as_str),
                body: &resp.body,
            },
        );
        assert!(accepted, "walk refused its own fetch {url}");
    }
    assert!(walk.is_done());
    (walk, fetches)
}

fn usp_type(kind: &Option<SitemapKind>) -> &'static str {
    match kind {
        None => "IndexWebsiteSitemap",
        Some(SitemapKind::Urlset(_)) => "PagesXMLSitemap",
        Some(SitemapKind::Index(_)) => "IndexXMLSitemap",
        Some(SitemapKind::Text(_)) => "PagesTextSitemap",
        Some(SitemapKind::Rss(_)) => "PagesRSSSitemap",
        Some(SitemapKind::Atom(_)) => "PagesAtomSitemap",
        Some(SitemapKind::Robots(_)) => "IndexRobotsTxtSitemap",
        Some(SitemapKind::Invalid(_)) => "InvalidSitemap",
    }
}

/// Compares a walk node with an expected USP tree node; pushes differences.
fn compare(got: &WalkNode, want: &Value, path: &str, diffs: &mut Vec<String>) {
    let here = format!("{path}/{}", want["url"].as_str().unwrap_or("?"));
    if usp_type(&got.kind) != want["type"].as_str().unwrap()
        || got.url != want["url"].as_str().unwrap()
    {
        diffs.push(format!("{here}: got {} {}", usp_type(&got.kind), got.url));
        return;
    }
    if let (Some(SitemapKind::Invalid(reason)), Some(want_reason)) =
        (&got.kind, want["reason"].as_str())
    {
        // Both sides must agree on why: recursion vs. a failed fetch vs. an unparsable document.
        let class = |r: &str| {
            let r = r.to_ascii_lowercase();
            if r.contains("recursion") {
                "recursion"
            } else if r.contains("unable to fetch") {
                "fetch"
            } else {
                "content"
            }
        };
        if class(reason) != class(want_reason) {
            diffs.push(format!("{here}: reason {reason:?} vs {want_reason:?}"));
        }
    }
    let want_pages: Vec<&str> = want["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["url"].as_str().unwrap())
        .collect();
    let got_pages: Vec<&str> = got
        .kind
        .as_ref()
        .map(|k| k.pages().iter().map(|p| p.url.as_str()).collect())
        .unwrap_or_default();
    if got_pages != want_pages {
        diffs.push(format!(
            "{here}: pages {} vs {}",
            got_pages.len(),
            want_pages.len()
        ));
    }
    let want_children = want["sub_sitemaps"].as_array().unwrap();
    if got.children.len() != want_children.len() {
        let urls: Vec<&str> = got.children.iter().map(|c| c.url.as_str()).collect();
        diffs.push(format!(
            "{here}: children {urls:?} vs {} expected",
            want_children.len()
        ));
        return;
    }
    for (g, w) in got.children.iter().zip(want_children) {
        compare(g, w, &here, diffs);
    }
}

fn count_pages(node: &Value) -> usize {
    node["pages"].as_array().map_or(0, Vec::len)
        + node["sub_sitemaps"]
            .as_array()
            .map_or(0, |s| s.iter().map(count_pages).sum())
}

#[test]
fn usp_trees_match() {
    let root = shared_path("suites/sitemaps/usp");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 28);
    let (mut walked, mut matched, mut from_str, mut total_fetches) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for dir in &dirs {
        let case = dir.file_name().unwrap().to_string_lossy().to_string();
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected_tree.json")).unwrap())
                .unwrap();
        for call in expected.as_array().unwrap() {
            let tree = &call["tree"];
            if call["call"] == "sitemap_from_str" {
                // A string in, no fetching: check the parse alone.
                from_str += 1;
                let body = std::fs::read(dir.join("files/from_str_0.xml")).unwrap();
                let doc = parse("", &ResponseMeta::default(), &body, &Limits::default());
                let want_subs: Vec<&str> = tree["sub_sitemaps"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s["url"].as_str().unwrap())
                    .collect();
                let want_pages: Vec<&str> = tree["pages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p["url"].as_str().unwrap())
                    .collect();
                let got_pages: Vec<&str> =
                    doc.kind.pages().iter().map(|p| p.url.as_str()).collect();
                if doc.kind.sub_sitemap_urls() != want_subs || got_pages != want_pages {
                    failures.push(format!("{case}: from_str {:?}", doc.kind.name()));
                } else {
                    matched += 1;
                }
                continue;
            }
            walked += 1;
            let site = Site::load(dir);
            let (walk, fetches) = run_walk(&site, "http://test_ultimate-sitemap-parser.com");
            total_fetches += fetches;
            let mut diffs = Vec::new();
            compare(&walk.tree(), tree, "", &mut diffs);
            if walk.pages().len() != count_pages(tree) {
                diffs.push(format!(
                    "pages() {} vs {}",
                    walk.pages().len(),
                    count_pages(tree)
                ));
            }
            if diffs.is_empty() {
                matched += 1;
            } else {
                failures.push(format!("{case}:\n  {}", diffs.join("\n  ")));
            }
        }
    }
    println!("usp trees: {matched}/{} match ({walked} walked with {total_fetches} fetches, {from_str} from strings)", walked + from_str);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn cycles_and_self_references_become_invalid() {
    for case in [
        "test_cyclic_sitemap",
        "test_self_pointing_index",
        "test_max_recursion_level_xml",
        "test_301_redirect_to_root",
    ] {
        let site = Site::load(&shared_path(&format!("suites/sitemaps/usp/{case}")));
        let (walk, fetches) = run_walk(&site, "http://test_ultimate-sitemap-parser.com/");
        let mut invalid = Vec::new();
        let mut todo = vec![walk.tree()];
        while let Some(n) = todo.pop() {
            if let Some(SitemapKind::Invalid(r)) = &n.kind {
                invalid.push(r.clone());
            }
            todo.extend(n.children);
        }
        assert!(
            invalid.iter().any(|r| r.contains("recursion")),
            "{case}: {invalid:?}"
        );
        // Each URL is fetched at most once: robots.txt, the sitemaps, and the 14 probes.
        assert!(fetches <= 20, "{case}: {fetches} fetches");
    }
}
