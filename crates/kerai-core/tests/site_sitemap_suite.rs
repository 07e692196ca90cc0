//! Sitemap documents from ultimate-sitemap-parser's and scrapy's own tests
//! (suites/sitemaps), read in place: every document must parse to the expected type and the
//! exact URL list, and the per-field values (lastmod, changefreq, priority, news, images)
//! must match USP's expected page dicts.

use kerai_core::shared_data::shared_path;
use kerai_core::site::sitemap::{parse, parse_response, Limits, Page, ResponseMeta, SitemapKind};
use serde_json::Value;

fn lines(rel: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(shared_path(rel)).expect("read suite");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

fn usp_type(kind: &SitemapKind) -> &'static str {
    match kind {
        SitemapKind::Urlset(_) => "PagesXMLSitemap",
        SitemapKind::Index(_) => "IndexXMLSitemap",
        SitemapKind::Text(_) => "PagesTextSitemap",
        SitemapKind::Rss(_) => "PagesRSSSitemap",
        SitemapKind::Atom(_) => "PagesAtomSitemap",
        SitemapKind::Robots(_) => "IndexRobotsTxtSitemap",
        SitemapKind::Invalid(_) => "InvalidSitemap",
    }
}

/// loc, caption, geo_location, title, license.
type ImageFields = [Option<String>; 5];

fn opt_str(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

/// Field-by-field comparison with a USP page dict; returns the names of fields that differ.
fn field_diffs(page: &Page, want: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut check = |name: &str, ok: bool| {
        if !ok {
            diffs.push(name.to_string());
        }
    };
    let want_priority: f64 = want["priority"]
        .as_str()
        .and_then(|p| p.parse().ok())
        .unwrap_or(f64::NAN);
    check("priority", (page.priority - want_priority).abs() < 1e-9);
    check(
        "last_modified",
        page.lastmod.map(|d| d.to_rfc3339()) == opt_str(&want["last_modified"]),
    );
    check(
        "change_frequency",
        page.changefreq.map(|c| c.as_str().to_string()) == opt_str(&want["change_frequency"]),
    );
    let news = &want["news_story"];
    match (&page.news, news.is_null()) {
        (None, true) => {}
        (Some(n), false) => {
            check(
                "news.title",
                Some(n.title.clone()) == opt_str(&news["title"]),
            );
            check(
                "news.publish_date",
                n.publish_date.map(|d| d.to_rfc3339()) == opt_str(&news["publish_date"]),
            );
            check(
                "news.publication_name",
                n.publication_name == opt_str(&news["publication_name"]),
            );
            check(
                "news.publication_language",
                n.publication_language == opt_str(&news["publication_language"]),
            );
            check("news.access", n.access == opt_str(&news["access"]));
            let list = |v: &Value| -> Vec<String> {
                v.as_array()
                    .map(|a| a.iter().filter_map(opt_str).collect())
                    .unwrap_or_default()
            };
            check("news.genres", n.genres == list(&news["genres"]));
            check("news.keywords", n.keywords == list(&news["keywords"]));
            check(
                "news.stock_tickers",
                n.stock_tickers == list(&news["stock_tickers"]),
            );
        }
        _ => check("news_story", false),
    }
    let images = &want["images"];
    if images.is_null() {
        check("images", page.images.is_empty());
    } else {
        let want: Vec<ImageFields> = images
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                [
                    &i["loc"],
                    &i["caption"],
                    &i["geo_location"],
                    &i["title"],
                    &i["license"],
                ]
                .map(opt_str)
            })
            .collect();
        let got: Vec<_> = page
            .images
            .iter()
            .map(|i| {
                [
                    Some(i.loc.clone()),
                    i.caption.clone(),
                    i.geo_location.clone(),
                    i.title.clone(),
                    i.license.clone(),
                ]
            })
            .collect();
        check("images", got == want);
    }
    diffs
}

#[test]
fn usp_documents_parse_to_expected_type_and_urls() {
    let cases = lines("suites/sitemaps/usp_file_cases.jsonl");
    assert_eq!(cases.len(), 68);
    let limits = Limits::default();
    let (mut type_ok, mut urls_ok, mut fields_checked, mut fields_ok) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let url = case["url"].as_str().unwrap_or("");
        let body = match case["file"].as_str() {
            Some(f) => {
                std::fs::read(shared_path(&format!("suites/sitemaps/{f}"))).expect("read doc")
            }
            None => Vec::new(),
        };
        let header = |name: &str| case["headers"].get(name).and_then(Value::as_str);
        let meta = ResponseMeta {
            content_type: header("Content-Type"),
            content_encoding: header("Content-Encoding"),
        };
        let status = case["status"].as_u64().map_or(200, |s| s as u16);
        let doc = parse_response(url, status, &meta, &body, &limits);
        let label = format!("{} {}", case["case"].as_str().unwrap(), case["file"]);
        if usp_type(&doc.kind) == case["expect_type"].as_str().unwrap() {
            type_ok += 1;
        } else {
            failures.push(format!("{label}: type {:?}", doc.kind.name()));
        }
        let want_pages: Vec<&Value> = case["expect_pages"]
            .as_array()
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        let want_urls: Vec<&str> = want_pages
            .iter()
            .map(|p| p["url"].as_str().unwrap())
            .collect();
        let got_urls: Vec<&str> = doc.kind.pages().iter().map(|p| p.url.as_str()).collect();
        let want_subs: Vec<&str> = case["expect_sub_sitemaps"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let got_subs = doc.kind.sub_sitemap_urls();
        if got_urls == want_urls && got_subs == want_subs {
            urls_ok += 1;
        } else {
            failures.push(format!("{label}: urls {got_urls:?} subs {got_subs:?}"));
        }
        for (page, want) in doc.kind.pages().iter().zip(&want_pages) {
            fields_checked += 1;
            let diffs = field_diffs(page, want);
            if diffs.is_empty() {
                fields_ok += 1;
            } else {
                failures.push(format!("{label}: {} fields {diffs:?}", page.url));
            }
        }
    }
    println!(
        "usp documents: type {type_ok}/{n}, url lists {urls_ok}/{n}, page fields {fields_ok}/{fields_checked}",
        n = cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn scrapy_cases_pass() {
    let cases = lines("suites/sitemaps/scrapy_cases.jsonl");
    assert_eq!(cases.len(), 10);
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["test"].as_str().unwrap();
        let body = std::fs::read(shared_path(&format!(
            "suites/sitemaps/{}",
            case["file"].as_str().unwrap()
        )))
        .unwrap();
        if let Some(base) = case["base_url"].as_str() {
            let doc = parse(
                &format!("{base}/robots.txt"),
                &ResponseMeta::default(),
                &body,
                &Limits::default(),
            );
            let want: Vec<String> = case["expect_sitemap_urls"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(opt_str)
                .collect();
            if doc.kind != SitemapKind::Robots(want.clone()) {
                failures.push(format!("{name}: {:?} != {want:?}", doc.kind));
            }
            continue;
        }
        let doc = parse("", &ResponseMeta::default(), &body, &Limits::default());
        let root_ok = match case["expect_root"].as_str() {
            Some("urlset") => matches!(doc.kind, SitemapKind::Urlset(_)),
            Some("sitemapindex") => matches!(doc.kind, SitemapKind::Index(_)),
            _ => matches!(doc.kind, SitemapKind::Urlset(_) | SitemapKind::Index(_)),
        };
        if !root_ok {
            failures.push(format!("{name}: kind {:?}", doc.kind));
            continue;
        }
        // Rebuild scrapy's entry dicts: only the keys the document had.
        let got: Vec<serde_json::Map<String, Value>> = match &doc.kind {
            SitemapKind::Index(refs) => refs
                .iter()
                .map(|r| {
                    let mut m = serde_json::Map::new();
                    m.insert("loc".into(), r.url.clone().into());
                    if let Some(l) = &r.lastmod_raw {
                        m.insert("lastmod".into(), l.clone().into());
                    }
                    m
                })
                .collect(),
            kind => kind
                .pages()
                .iter()
                .map(|p| {
                    let mut m = serde_json::Map::new();
                    m.insert("loc".into(), p.url.clone().into());
                    for (k, v) in [
                        ("lastmod", &p.lastmod_raw),
                        ("changefreq", &p.changefreq_raw),
                        ("priority", &p.priority_raw),
                    ] {
                        if let Some(v) = v {
                            m.insert(k.into(), v.clone().into());
                        }
                    }
                    if !p.alternates.is_empty() {
                        m.insert(
                            "alternate".into(),
                            p.alternates
                                .iter()
                                .map(|a| Value::from(a.href.clone()))
                                .collect(),
                        );
                    }
                    m
                })
                .collect(),
        };
        let want: Vec<serde_json::Map<String, Value>> = case["expect_entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_object().unwrap().clone())
            .collect();
        if got != want {
            failures.push(format!("{name}: got {got:?}\n  want {want:?}"));
        }
    }
    println!("scrapy: {}/{}", cases.len() - failures.len(), cases.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
