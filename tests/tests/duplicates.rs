//! Duplicate pages on a fixture site (docs/sql.md#duplicate-pages): a page whose
//! rel=canonical names another stored page of the target is stored as its alias (a named page
//! not stored yet is queued, fetched, and the alias made on the next run), the same text at a second URL is stored once with the URL
//! kept as an alias, a near-duplicate is stored and flagged, and `kerai report` counts them.
//! Aliases are judged again on every run: one whose text parts from the page it showed gets a
//! version of its own.

use kerai_e2e::{kerai, Site, TestDb};

/// A page as a small site would serve it: navigation, the text in `<main>`, a footer.
fn page(title: &str, paragraphs: &[String], head: &str, links: &[&str]) -> String {
    let nav: String = links
        .iter()
        .map(|l| format!("<li><a href=\"{l}\">{l}</a></li>"))
        .collect();
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!(
        "<html><head><title>{title}</title>{head}</head><body><nav><ul>{nav}</ul></nav>\
         <main><h1>{title}</h1>{body}</main><footer>Northwind Institute</footer></body></html>"
    )
}

/// `n` sentences of varied words, the same for the same `seed`.
fn prose(n: usize, seed: usize) -> Vec<String> {
    const WORDS: [&str; 24] = [
        "budget",
        "committee",
        "approves",
        "laboratory",
        "travel",
        "claims",
        "within",
        "thirty",
        "days",
        "members",
        "review",
        "the",
        "annual",
        "safety",
        "training",
        "records",
        "before",
        "each",
        "quarter",
        "ends",
        "and",
        "staff",
        "submit",
        "receipts",
    ];
    (0..n)
        .map(|i| {
            let words: Vec<&str> = (0..12)
                .map(|k| WORDS[(i * 7 + k * 5 + seed * 11 + i * k) % WORDS.len()])
                .collect();
            format!("Rule {i}: {}.", words.join(" "))
        })
        .collect()
}

fn guide() -> Vec<String> {
    vec![
        "Book the imaging scanner through the facilities office at least two weeks ahead.".into(),
        "Sessions last ninety minutes and start at eight, ten, one and three o'clock.".into(),
        "Nobody enters the scanner room with metal; visitors are escorted by trained staff.".into(),
    ]
}

fn site() -> Site {
    let site = Site::start();
    let all = [
        "/guide.html",
        "/print/guide.html",
        "/policy.html",
        "/old/news.html",
    ];
    site.html(
        "/",
        &page(
            "Northwind",
            &["Everything the institute publishes for its staff.".into()],
            "",
            &all,
        ),
    );
    site.html("/guide.html", &page("Scanner guide", &guide(), "", &all));
    // The print view names the guide as its canonical page.
    site.html(
        "/print/guide.html",
        &page(
            "Scanner guide (print)",
            &guide(),
            "<link rel=\"canonical\" href=\"/guide.html\">",
            &[],
        ),
    );
    // The same page under a second URL, one level further down.
    site.html(
        "/mirror/guide.html",
        &page("Scanner guide", &guide(), "", &all),
    );
    let policy = prose(30, 1);
    site.html(
        "/policy.html",
        &page(
            "Expense policy",
            &policy,
            "",
            &["/mirror/guide.html", "/policy-2025.html"],
        ),
    );
    // Last year's policy: the same rules but one.
    let mut old = policy.clone();
    old[29] = "Rule 29: receipts older than a year are not refunded at all.".into();
    site.html("/policy-2025.html", &page("Expense policy", &old, "", &[]));
    // An old address whose canonical page no link leads to.
    site.html(
        "/old/news.html",
        &page(
            "News",
            &[
                "The new imaging lab opened on 12 March with a ceremony for all staff and guests."
                    .into(),
            ],
            "<link rel=\"canonical\" href=\"/news.html\">",
            &[],
        ),
    );
    site.html(
        "/news.html",
        &page(
            "News",
            &[
                "The new imaging lab opened on 12 March with a ceremony for all staff and guests."
                    .into(),
            ],
            "",
            &[],
        ),
    );
    site
}

fn alias(db: &TestDb, path: &str) -> String {
    db.one(&format!(
        "SELECT coalesce(substring(o.url from '//[^/]+(/.*)$') || ' ' || p.alias_reason, 'none')
           FROM kerai.pages p LEFT JOIN kerai.pages o ON o.id = p.alias_of
          WHERE substring(p.url from '//[^/]+(/.*)$') = '{path}'"
    ))
}

fn run(db: &TestDb) -> String {
    let out = kerai(db.url.as_str(), &["run", "dups", "--no-progress"]);
    let failed: Option<String> = db.one(
        "SELECT string_agg(url || ': ' || error, '; ') FROM kerai.job_urls WHERE status = 'failed'",
    );
    assert_eq!(
        out.code, 0,
        "run:\n{}\n{}\nfailed: {failed:?}",
        out.stdout, out.stderr
    );
    out.stdout
}

fn metric(db: &TestDb, key: &str) -> i64 {
    db.one(&format!(
        "SELECT (metrics->>'{key}')::bigint FROM kerai.scrape_jobs ORDER BY finished_at DESC LIMIT 1"
    ))
}

#[test]
fn canonical_exact_and_near_duplicates_on_a_fixture_site() {
    let site = site();
    let db = TestDb::new("duplicates");
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "dups",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "concurrency=1",
        ],
    );
    assert_eq!(out.code, 0, "config set: {}\n{}", out.stdout, out.stderr);

    run(&db);
    // Canonical: the print view is an alias of the guide, stored before it.
    assert_eq!(alias(&db, "/print/guide.html"), "/guide.html canonical");
    // The old news address names a page not stored yet: it is kept for now, and the news page
    // is queued through it, fetched and stored (not taken for a copy of the old address).
    assert_eq!(alias(&db, "/old/news.html"), "none");
    assert_eq!(site.hit_count("/news.html"), 1);
    let news: String = db.one("SELECT last_status FROM kerai.pages WHERE url LIKE '%/news.html' AND url NOT LIKE '%/old/%'");
    assert_eq!(news, "new");
    // Exact duplicate: the mirror is stored once, as an alias of the guide.
    assert_eq!(alias(&db, "/mirror/guide.html"), "/guide.html duplicate");
    assert_eq!(alias(&db, "/guide.html"), "none");
    // Aliases have no version, no document and no chunk of their own.
    let aliases: String = db.one(
        "SELECT string_agg(DISTINCT last_status || ':' || (current_version IS NULL)::text, ',')
           FROM kerai.pages WHERE alias_of IS NOT NULL",
    );
    assert_eq!(aliases, "duplicate:true");
    let versions: i64 = db.one("SELECT count(*) FROM kerai.page_versions v JOIN kerai.pages p ON p.id = v.page_id WHERE p.alias_of IS NOT NULL");
    assert_eq!(versions, 0);
    let docs: i64 = db.one("SELECT count(*) FROM kerai.nodes WHERE kind = 'document' AND metadata->>'source_url' ~ '/(print|mirror)/guide.html'");
    assert_eq!(docs, 0);
    let chunks: i64 =
        db.one("SELECT count(*) FROM kerai.chunks WHERE content LIKE '%facilities office%'");
    assert_eq!(chunks, 1, "the guide's text is chunked once");
    let hits: i64 = db.one("SELECT count(*) FROM kerai.search('book the scanner at the facilities office', 10, '{\"mode\": \"fts\"}') WHERE content LIKE '%facilities office%'");
    assert_eq!(hits, 1);
    // Near-duplicate: stored, and flagged with its similarity.
    let near: String = db.one(
        "SELECT substring(o.url from '//[^/]+(/.*)$') || ' ' || (v.similarity >= 0.9 AND v.similarity < 1)::text
           FROM kerai.pages p JOIN kerai.page_versions v ON v.id = p.current_version
           JOIN kerai.pages o ON o.id = v.near_duplicate_of WHERE p.url LIKE '%/policy-2025.html'",
    );
    assert_eq!(near, "/policy.html true");
    let flagged: i64 =
        db.one("SELECT count(*) FROM kerai.page_versions WHERE near_duplicate_of IS NOT NULL");
    assert_eq!(flagged, 1, "only the near-duplicate is flagged");
    assert_eq!(metric(&db, "duplicate_count"), 2);
    assert_eq!(metric(&db, "near_duplicate_count"), 1);
    let logged: String = db.one("SELECT message FROM kerai.job_logs WHERE event = 'ITEM_DUPLICATE' AND url LIKE '%/mirror/guide.html'");
    assert!(logged.contains("(alias of "), "{logged}");
    assert!(logged.ends_with("/guide.html, the same text)"), "{logged}");

    let report = kerai(&db.url, &["report", "dups"]);
    assert_eq!(report.code, 0, "{}\n{}", report.stdout, report.stderr);
    assert!(report.stdout.contains("duplicates"), "{}", report.stdout);
    assert!(
        report.stdout.contains(
            "duplicates: 2 URLs stored as aliases of another page, 1 new versions near-duplicates"
        ),
        "{}",
        report.stdout
    );

    // Again: the aliases are fetched and judged again, and stay aliases; the old news address
    // becomes one, and its chunks go.
    run(&db);
    assert_eq!(metric(&db, "duplicate_count"), 3);
    assert_eq!(metric(&db, "new_count") + metric(&db, "updated_count"), 0);
    assert_eq!(alias(&db, "/mirror/guide.html"), "/guide.html duplicate");
    assert_eq!(alias(&db, "/old/news.html"), "/news.html canonical");
    let old_chunks: i64 =
        db.one("SELECT count(*) FROM kerai.chunks WHERE chunk_key LIKE '%/old/news.html'");
    assert_eq!(old_chunks, 0);
    let news_chunks: i64 = db.one(
        "SELECT count(*) FROM kerai.chunks WHERE chunk_key LIKE '%/news.html' AND chunk_key NOT LIKE '%/old/%'",
    );
    assert_eq!(news_chunks, 1);

    // The mirror gets a text of its own: it becomes a page in its own right.
    site.html(
        "/mirror/guide.html",
        &page(
            "Scanner guide, archived",
            &["This archived guide describes the scanner booking rules of 2019, since replaced by the current guide of the facilities office.".into()],
            "",
            &[],
        ),
    );
    run(&db);
    assert_eq!(alias(&db, "/mirror/guide.html"), "none");
    let status: String =
        db.one("SELECT last_status FROM kerai.pages WHERE url LIKE '%/mirror/guide.html'");
    assert_eq!(status, "new");
    assert_eq!(
        metric(&db, "duplicate_count"),
        2,
        "the print view and the old news address"
    );
}
