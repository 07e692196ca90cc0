//! Hostile servers on 127.0.0.1: each bad URL ends with the standard message naming it, and
//! nothing else is lost.

use kerai_e2e::{kerai, Behavior, Site, TestDb};
use std::time::Duration;

fn page(title: &str, links: &[&str]) -> String {
    let a: String = links
        .iter()
        .map(|l| format!("<li><a href=\"{l}\">{l}</a></li>"))
        .collect();
    format!(
        "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>\
         <p>This page exists to test how the crawler copes with the servers it links to below.</p><ul>{a}</ul></main></body></html>"
    )
}

fn error_of(db: &TestDb, path: &str) -> String {
    db.client()
        .query_one(
            "SELECT coalesce(error, '(none)') FROM kerai.job_urls WHERE url LIKE '%' || $1",
            &[&path],
        )
        .unwrap_or_else(|e| panic!("no job URL ending in {path}: {e}"))
        .get(0)
}

#[test]
fn every_hostile_url_gets_its_standard_message() {
    let site = Site::start();
    let links = [
        "/loop-a",
        "/chain/0",
        "/slow",
        "/huge",
        "/huge-chunked",
        "/bomb",
        "/latin1",
        "/busy",
        "/storm",
        "/calendar/2026/01",
        "/fine",
        "/secret",
        "/gone",
    ];
    site.html("/", &page("Home", &links));
    site.set("/loop-a", Behavior::Redirect(site.url("/loop-b")));
    site.set("/loop-b", Behavior::Redirect(site.url("/loop-a")));
    for i in 0..30 {
        site.set(
            &format!("/chain/{i}"),
            Behavior::Redirect(site.url(&format!("/chain/{}", i + 1))),
        );
    }
    site.set(
        "/slow",
        Behavior::SlowDrip {
            bytes: 4000,
            every: Duration::from_millis(100),
        },
    );
    site.set(
        "/huge",
        Behavior::Huge {
            bytes: 1_000_000_000,
            announce: true,
        },
    );
    site.set(
        "/huge-chunked",
        Behavior::Huge {
            bytes: 1_000_000_000,
            announce: false,
        },
    );
    site.set(
        "/bomb",
        Behavior::GzipBomb {
            inflated: 200_000_000,
        },
    );
    let mut latin1 = b"<html><head><title>Caf\xe9</title></head><body><main><h1>Caf\xe9 cr\xe8me</h1><p>Le caf\xe9 est servi \xe0 la cr\xe8me, comme toujours dans ce quartier de la ville.</p></main></body></html>".to_vec();
    latin1.shrink_to_fit();
    site.page("/latin1", "text/html; charset=utf-8", latin1);
    site.set(
        "/busy",
        Behavior::TooMany {
            times: 2,
            retry_after: 1,
            then: Box::new(Behavior::Page {
                content_type: "text/html".into(),
                body: page("Busy but fine", &[]).into_bytes(),
                last_modified: None,
            }),
        },
    );
    site.set(
        "/storm",
        Behavior::TooMany {
            times: 1000,
            retry_after: 1,
            then: Box::new(Behavior::Calendar),
        },
    );
    site.set("/calendar/2026/01", Behavior::Calendar);
    site.html("/fine", &page("Fine", &[]));
    site.set(
        "/secret",
        Behavior::Status {
            status: 403,
            headers: vec![],
            body: b"forbidden".to_vec(),
        },
    );
    site.set(
        "/gone",
        Behavior::Status {
            status: 404,
            headers: vec![],
            body: b"gone".to_vec(),
        },
    );
    // The calendar trap answers on every path below /calendar/.
    for y in 2000..2060 {
        for m in 1..=12 {
            site.set(&format!("/calendar/{y}/{m:02}"), Behavior::Calendar);
        }
    }

    let db = TestDb::new("hostile");
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "hostile",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "timeout=3s",
            "max_size=1MB",
            "max_depth=8",
            "max_pages=60",
            "retries=3",
            "use_sitemaps=false",
            "trap_limit=10",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let started = std::time::Instant::now();
    let run = kerai(
        &db.url,
        &["run", "hostile", "--no-progress", "--format", "json"],
    );
    assert_eq!(
        run.code, 1,
        "partial errors: exit code 1\n{}\n{}",
        run.stdout, run.stderr
    );
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "hostile servers must not stall the crawl"
    );
    let u = |p: &str| site.url(p);

    assert_eq!(
        error_of(&db, "/loop-a"),
        format!(
            "redirect loop: {} (redirects back to {})",
            u("/loop-a"),
            u("/loop-a")
        )
    );
    assert_eq!(
        error_of(&db, "/chain/0"),
        format!("redirect loop: {} (more than 10 redirects)", u("/chain/0"))
    );
    assert!(
        error_of(&db, "/slow").starts_with(&format!("timeout: {}", u("/slow"))),
        "{}",
        error_of(&db, "/slow")
    );
    assert_eq!(
        error_of(&db, "/huge"),
        format!(
            "too large: {} (1000000000 bytes announced, limit 1000000 bytes (max_size))",
            u("/huge")
        )
    );
    assert_eq!(
        error_of(&db, "/huge-chunked"),
        format!(
            "too large: {} (body exceeds 1000000 bytes (max_size); download aborted)",
            u("/huge-chunked")
        )
    );
    assert_eq!(
        error_of(&db, "/bomb"),
        format!(
            "too large: {} (body exceeds 1000000 bytes (max_size); download aborted)",
            u("/bomb")
        )
    );
    assert_eq!(
        error_of(&db, "/storm"),
        format!(
            "resource unreachable: {} (HTTP 429 after 3 attempts)",
            u("/storm")
        )
    );
    assert_eq!(
        error_of(&db, "/secret"),
        format!("access restricted: {} (HTTP 403)", u("/secret"))
    );
    assert_eq!(
        error_of(&db, "/gone"),
        format!("resource unreachable: {} (HTTP 404)", u("/gone"))
    );

    // The wrong charset header is overruled by the bytes: the text is right.
    let cafe: String = db.one("SELECT content FROM kerai.nodes WHERE kind = 'document' AND metadata->>'source_url' LIKE '%/latin1'");
    assert_eq!(cafe, "Café crème");
    // 429 with Retry-After, twice, then fine: fetched, not lost.
    let busy: String = db.one("SELECT last_status FROM kerai.pages WHERE url LIKE '%/busy'");
    assert_eq!(busy, "new");
    // The calendar trap is cut off; the crawl ends.
    let calendar: i64 = db.one("SELECT count(*) FROM kerai.job_urls WHERE url LIKE '%/calendar/%'");
    assert!(
        calendar <= 25,
        "the calendar trap was followed {calendar} times"
    );
    let trap: i64 = db.one("SELECT count(*) FROM kerai.job_logs WHERE event = 'CRAWLER_TRAP'");
    assert_eq!(trap, 1);
    // Nothing else lost.
    let fine: String = db.one("SELECT last_status FROM kerai.pages WHERE url LIKE '%/fine'");
    assert_eq!(fine, "new");
    let report = run.json();
    assert!(
        report["metrics"]["error_count"].as_i64().unwrap() >= 9,
        "{report}"
    );
}

#[test]
fn robots_txt_status_rules() {
    // 5xx: the host is suspended, its pages fail naming the reason; 4xx: everything allowed.
    let broken = Site::start();
    broken.set(
        "/robots.txt",
        Behavior::Status {
            status: 503,
            headers: vec![],
            body: b"down".to_vec(),
        },
    );
    broken.html("/", &page("Home", &["/a"]));
    broken.html("/a", &page("A", &[]));
    let db = TestDb::new("robots5xx");
    kerai(
        &db.url,
        &[
            "config",
            "set",
            "b",
            "--base-url",
            &broken.url("/"),
            "rate_limit_rps=0",
            "use_sitemaps=false",
        ],
    );
    let run = kerai(&db.url, &["run", "b", "--no-progress"]);
    // Nothing could be fetched: the run could not do its job.
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("no URL could be fetched"),
        "{}",
        run.stdout
    );
    let err: String = db.one("SELECT error FROM kerai.job_urls WHERE url LIKE '%/'");
    assert!(
        err.contains("robots.txt of 127.0.0.1 is unreachable") && err.contains("host suspended"),
        "{err}"
    );
    assert_eq!(broken.hit_count("/"), 0, "a suspended host is not fetched");

    let open = Site::start();
    open.set(
        "/robots.txt",
        Behavior::Status {
            status: 404,
            headers: vec![],
            body: vec![],
        },
    );
    open.html("/", &page("Home", &["/a"]));
    open.html("/a", &page("A", &[]));
    let db = TestDb::new("robots4xx");
    kerai(
        &db.url,
        &[
            "config",
            "set",
            "o",
            "--base-url",
            &open.url("/"),
            "rate_limit_rps=0",
            "use_sitemaps=false",
        ],
    );
    let run = kerai(&db.url, &["run", "o", "--no-progress"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages WHERE last_status = 'new'");
    assert_eq!(pages, 2);
}

#[test]
fn a_failing_host_is_suspended_for_the_run() {
    let site = Site::start();
    let links: Vec<String> = (0..12).map(|i| format!("/down/{i}")).collect();
    let refs: Vec<&str> = links.iter().map(String::as_str).collect();
    site.html("/", &page("Home", &refs));
    for l in &links {
        site.set(
            l,
            Behavior::Status {
                status: 500,
                headers: vec![],
                body: b"boom".to_vec(),
            },
        );
    }
    let db = TestDb::new("suspend");
    kerai(
        &db.url,
        &[
            "config",
            "set",
            "s",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "use_sitemaps=false",
            "host_failure_limit=5",
            "concurrency=1",
            "per_host_concurrency=1",
        ],
    );
    let run = kerai(&db.url, &["run", "s", "--no-progress"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let fetched = (0..12)
        .filter(|i| site.hit_count(&format!("/down/{i}")) > 0)
        .count();
    assert_eq!(fetched, 5, "fetching stops after 5 consecutive failures");
    let suspended: i64 = db.one("SELECT count(*) FROM kerai.job_urls WHERE error LIKE '%host 127.0.0.1 suspended after 5 consecutive failures%'");
    assert_eq!(suspended, 7);
}

#[test]
fn politeness_paces_requests_per_host() {
    let site = Site::start();
    site.html("/", &page("Home", &["/1", "/2", "/3"]));
    for p in ["/1", "/2", "/3"] {
        site.html(p, &page(p, &[]));
    }
    site.page(
        "/robots.txt",
        "text/plain",
        b"User-agent: *\nCrawl-delay: 1\n".to_vec(),
    );
    let db = TestDb::new("polite");
    kerai(
        &db.url,
        &[
            "config",
            "set",
            "p",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=100",
            "use_sitemaps=false",
        ],
    );
    let started = std::time::Instant::now();
    let run = kerai(&db.url, &["run", "p", "--no-progress"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Four pages, one second apart (robots.txt Crawl-delay overrides the 100 rps limit).
    assert!(
        started.elapsed() >= Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn nul_bytes_in_a_page_are_dropped_not_fatal() {
    // Postgres text cannot hold U+0000: a page with NUL bytes in its text (a broken CMS, a
    // UTF-16 fragment) is stored without them, as HTML5 parsing ignores them.
    let site = Site::start();
    site.html("/", &page("Home", &["/nul"]));
    site.page(
        "/nul",
        "text/html; charset=utf-8",
        b"<html><body><main><h1>Nul\0 page</h1><p>Research on comp\0\0\0uting, energy and materials, written by a broken exporter.</p></main></body></html>".to_vec(),
    );
    let db = TestDb::new("nul");
    let set = kerai(
        &db.url,
        &[
            "config",
            "set",
            "n",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "use_sitemaps=false",
        ],
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    let run = kerai(&db.url, &["run", "n", "--no-progress", "--no-embed"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let text: String = db.one(
        "SELECT string_agg(n.content, ' ') FROM kerai.pages p JOIN kerai.page_versions v ON v.id = p.current_version
           JOIN kerai.nodes n ON n.document_id = v.document_id WHERE p.url LIKE '%/nul'",
    );
    assert!(
        text.contains("Research on computing, energy and materials"),
        "{text}"
    );
}
