//! The fetcher crawling the bundled example site: discovery through robots.txt and the
//! sitemap, robots exclusion, HTML / PDF / DOCX / XLSX conversion into documents, and change
//! detection across runs (new, unchanged without a body download, updated with a new version).

use kerai_e2e::{kerai, repo_root, Site, TestDb};

fn example_site() -> Site {
    let site = Site::start();
    site.serve_dir(&repo_root().join("examples/site"));
    site
}

fn configure(db: &TestDb, site: &Site) {
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "demo",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "concurrency=4",
        ],
    );
    assert_eq!(out.code, 0, "config set: {}\n{}", out.stdout, out.stderr);
}

#[test]
fn crawls_the_example_site_then_detects_changes() {
    let site = example_site();
    let db = TestDb::new("example");
    configure(&db, &site);

    let first = kerai(&db.url, &["run", "demo", "--no-progress"]);
    assert_eq!(
        first.code, 0,
        "first run:\n{}\n{}",
        first.stdout, first.stderr
    );
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    let new: i64 = db.one("SELECT count(*) FROM kerai.pages WHERE last_status = 'new'");
    assert_eq!(
        pages, 16,
        "every reachable page, attachment and sitemap entry once: {}",
        first.stdout
    );
    assert_eq!(new, 16);
    // robots.txt disallows /private/: linked from every footer, never fetched.
    assert_eq!(site.hit_count("/private/staff-only.html"), 0);
    let skipped: String =
        db.one("SELECT error FROM kerai.job_urls WHERE url LIKE '%/private/staff-only.html'");
    assert!(
        skipped.starts_with("disallowed by robots.txt: "),
        "{skipped}"
    );
    // Documents of every type, with provenance.
    let types: String = db.one("SELECT string_agg(DISTINCT metadata->>'source_type', ',' ORDER BY metadata->>'source_type') FROM kerai.nodes WHERE kind = 'document'");
    assert_eq!(types, "docx,html,pdf,xlsx");
    let pdf_pages: i64 = db.one("SELECT (metadata->>'page_count')::bigint FROM kerai.nodes WHERE kind = 'document' AND metadata->>'source_type' = 'pdf'");
    assert_eq!(pdf_pages, 2);
    let budget: String = db.one("SELECT string_agg(content, ' ') FROM kerai.nodes n WHERE n.document_id = (SELECT id FROM kerai.nodes WHERE kind = 'document' AND metadata->>'source_url' LIKE '%budget-2026.xlsx')");
    assert!(
        budget.contains("18.5"),
        "formula values, not formulas: {budget}"
    );
    // Boilerplate is gone from the HTML documents.
    let about: String = db.one("SELECT string_agg(content, ' ') FROM kerai.nodes WHERE document_id = (SELECT id FROM kerai.nodes WHERE kind = 'document' AND metadata->>'source_url' LIKE '%/about.html')");
    assert!(
        about.contains("founded in 1998 by Margaret Lindqvist"),
        "{about}"
    );
    assert!(
        !about.contains("We use cookies"),
        "cookie banner kept: {about}"
    );
    assert!(
        !about.contains("All rights reserved"),
        "footer kept: {about}"
    );
    // Sitemap fields are kept on the page.
    let lastmod: String =
        db.one("SELECT sitemap_lastmod::date::text FROM kerai.pages WHERE url LIKE '%/about.html'");
    assert_eq!(lastmod, "2026-01-10");

    // Second run, nothing changed: everything unchanged, no body downloaded again.
    site.clear_hits();
    let second = kerai(
        &db.url,
        &["run", "demo", "--no-progress", "--format", "json"],
    );
    assert_eq!(
        second.code, 0,
        "second run:\n{}\n{}",
        second.stdout, second.stderr
    );
    let report = second.json();
    assert_eq!(report["metrics"]["unchanged_count"], 16, "{report}");
    assert_eq!(report["metrics"]["new_count"], 0);
    let full_gets: Vec<String> = site
        .hits()
        .into_iter()
        .filter(|h| h.starts_with("GET ") && !h.ends_with("(conditional)"))
        .filter(|h| !h.contains("sitemap") && !h.contains("robots.txt"))
        .collect();
    assert!(
        full_gets.is_empty(),
        "pages downloaded again: {full_gets:?}"
    );

    // A page changes: a new version, a new document; the rest unchanged.
    let about_html = std::fs::read_to_string(repo_root().join("examples/site/about.html")).unwrap();
    site.html(
        "/about.html",
        &about_html.replace("employs 142 people", "employs 150 people"),
    );
    let third = kerai(
        &db.url,
        &["run", "demo", "--no-progress", "--format", "json", "--full"],
    );
    assert_eq!(
        third.code, 0,
        "third run:\n{}\n{}",
        third.stdout, third.stderr
    );
    let report = third.json();
    assert_eq!(report["metrics"]["updated_count"], 1, "{report}");
    assert_eq!(report["metrics"]["unchanged_count"], 15, "{report}");
    let versions: i64 = db.one("SELECT count(*) FROM kerai.page_versions v JOIN kerai.pages p ON p.id = v.page_id WHERE p.url LIKE '%/about.html'");
    assert_eq!(versions, 2);
    let latest: String = db.one("SELECT string_agg(n.content, ' ') FROM kerai.pages p JOIN kerai.page_versions v ON v.id = p.current_version JOIN kerai.nodes n ON n.document_id = v.document_id WHERE p.url LIKE '%/about.html'");
    assert!(latest.contains("employs 150 people"), "{latest}");
}

#[test]
fn a_single_url_and_a_dry_run() {
    let site = example_site();
    let db = TestDb::new("single");
    configure(&db, &site);
    let dry = kerai(&db.url, &["run", "demo", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(dry.stdout.contains("sitemap.xml"), "{}", dry.stdout);
    assert!(
        dry.stdout.contains("/research/active-inference.html"),
        "{}",
        dry.stdout
    );
    let jobs: i64 = db.one("SELECT count(*) FROM kerai.scrape_jobs");
    assert_eq!(jobs, 0, "a dry run writes nothing");

    let one = kerai(
        &db.url,
        &[
            "run",
            "demo",
            "--no-progress",
            "--url",
            &site.url("/files/annual-report-2025.pdf"),
        ],
    );
    assert_eq!(one.code, 0, "{}\n{}", one.stdout, one.stderr);
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    assert_eq!(pages, 1);
    let title: String = db.one("SELECT content FROM kerai.nodes WHERE kind = 'document'");
    assert_eq!(title, "Northwind Institute Annual Report 2025");
}

#[test]
fn trailing_slash_strip_makes_one_page_of_two_spellings() {
    let site = Site::start();
    site.html("/", "<html><body><main><h1>Home</h1><p>The documentation is linked twice, with and without its slash.</p><a href=\"/docs\">docs</a> <a href=\"/docs/\">docs again</a> <a href=\"/about/\">about</a></main></body></html>");
    let docs = "<html><body><main><h1>Docs</h1><p>The documentation of the site, one page under two spellings.</p><a href=\"/docs/\">self</a></main></body></html>";
    site.html("/docs", docs);
    site.html("/docs/", docs);
    site.html("/about", "<html><body><main><h1>About</h1><p>Who we are, served only without the trailing slash.</p></main></body></html>");
    let db = TestDb::new("slash");
    let set = kerai(
        &db.url,
        &[
            "config",
            "set",
            "s",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "use_sitemaps=false",
            "trailing_slash=strip",
        ],
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    let bad = kerai(&db.url, &["config", "set", "s", "trailing_slash=drop"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("trailing_slash: \"drop\" must be keep, strip or add"),
        "{}",
        bad.stderr
    );
    let run = kerai(&db.url, &["run", "s", "--no-progress", "--format", "json"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json()["metrics"]["new_count"], 3, "{}", run.stdout);
    let urls: Vec<String> = db
        .client()
        .query("SELECT url FROM kerai.pages ORDER BY url", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        urls,
        [site.url("/"), site.url("/about"), site.url("/docs")],
        "the root keeps its slash; /docs and /docs/ are one page"
    );
    assert_eq!(site.hit_count("/docs"), 1);
    assert_eq!(site.hit_count("/docs/"), 0);
    assert_eq!(site.hit_count("/about/"), 0);
    let documents: i64 = db.one("SELECT count(*) FROM kerai.nodes WHERE kind = 'document'");
    assert_eq!(documents, 3);
}

#[test]
fn a_first_crawl_gives_its_growing_tables_statistics() {
    // Plans made while the tables were empty would read them whole for every page; the
    // recorder analyzes the tables it grows (kerai._analyze_grown), before autovacuum would.
    // It reads the counts of changed rows the sessions have reported (up to a second late), so
    // the site is large enough that each table passes its threshold well before the end.
    let site = Site::of_pages(1500);
    let db = TestDb::new("young_tables");
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "t",
            "--base-url",
            &site.url("/"),
            "use_sitemaps=false",
            "rate_limit_rps=0",
            "max_pages=2000",
            "trap_limit=2000",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run = kerai(&db.url, &["run", "t", "--no-progress", "--no-embed"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(db.one::<i64>("SELECT count(*) FROM kerai.pages"), 1501);
    // last_analyze is an ANALYZE run by a session; autovacuum's is last_autoanalyze. When
    // autovacuum got to a table first, the recorder found it analyzed and left it alone.
    let analyzed: String = db.one(
        "SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_stat_user_tables
          WHERE schemaname = 'kerai' AND (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL)",
    );
    for t in ["job_urls", "pages", "page_versions"] {
        assert!(
            analyzed.split(',').any(|a| a == t),
            "{t} not analyzed: {analyzed}"
        );
    }
    // A table that has not grown since its last ANALYZE is left alone.
    db.one::<i32>("SELECT kerai._analyze_grown()");
    assert_eq!(db.one::<i32>("SELECT kerai._analyze_grown()"), 0);
}
