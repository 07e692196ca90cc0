//! `kerai run` exit codes tell a scheduler the truth: 0 when everything in scope was fetched or
//! unchanged; 1 when the run finished but left something out (errors, the max_pages budget,
//! max_runtime, a crawler trap, seeds robots.txt disallows), with the reasons in the report;
//! 2 when it could not do its job.

use kerai_e2e::{kerai, Behavior, Output, Site, TestDb};

fn crawl(label: &str, site: &Site, settings: &[&str]) -> (TestDb, Output, serde_json::Value) {
    let db = TestDb::new(label);
    let base = site.url("/");
    let mut args = vec![
        "config",
        "set",
        "t",
        "--base-url",
        &base,
        "use_sitemaps=false",
    ];
    args.extend_from_slice(settings);
    let out = kerai(&db.url, &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run = kerai(&db.url, &["run", "t", "--no-progress", "--no-embed"]);
    let json = kerai(&db.url, &["report", "t", "--format", "json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let report = json.json();
    assert_eq!(
        report["exit_code"], run.code,
        "the report's exit code is the run's"
    );
    (db, run, report)
}

fn reasons(report: &serde_json::Value) -> Vec<String> {
    report["metrics"]["left_out"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| r["reason"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn everything_fetched_is_0() {
    let site = Site::of_pages(5);
    let (_db, run, report) = crawl("exit_clean", &site, &["rate_limit_rps=0"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(reasons(&report), Vec::<String>::new());
    assert!(!run.stdout.contains("left out"), "{}", run.stdout);
}

#[test]
fn errors_are_1() {
    let site = Site::of_pages(5);
    site.set(
        "/p/3",
        Behavior::Status {
            status: 404,
            headers: vec![],
            body: b"gone".to_vec(),
        },
    );
    let (_db, run, report) = crawl("exit_errors", &site, &["rate_limit_rps=0"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(reasons(&report), vec!["errors"]);
    assert!(
        run.stdout.contains("left out (exit 1):\n  - 1 URLs failed"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_max_pages_budget_is_1() {
    let site = Site::of_pages(10);
    let (db, run, report) = crawl("exit_budget", &site, &["rate_limit_rps=0", "max_pages=4"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(reasons(&report), vec!["max_pages"]);
    assert!(
        run.stdout
            .contains("max_pages 4 reached: further URLs were not queued"),
        "{}",
        run.stdout
    );
    let logged: i64 = db.one("SELECT count(*) FROM kerai.job_logs WHERE event = 'MAX_PAGES'");
    assert_eq!(logged, 1, "said once");
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    assert_eq!(pages, 4);
}

#[test]
fn a_budget_that_fits_exactly_is_0() {
    // 5 pages and the index: max_pages 6 holds them all, nothing was left out.
    let site = Site::of_pages(5);
    let (_db, run, _) = crawl("exit_fits", &site, &["rate_limit_rps=0", "max_pages=6"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
}

#[test]
fn max_runtime_is_1() {
    let site = Site::of_pages(30);
    let (_db, run, report) = crawl(
        "exit_runtime",
        &site,
        &[
            "rate_limit_rps=4",
            "per_host_concurrency=1",
            "max_runtime=2s",
        ],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(reasons(&report), vec!["max_runtime"]);
    assert!(run.stdout.contains("max_runtime"), "{}", run.stdout);
    assert!(run.stdout.contains("URLs not fetched"), "{}", run.stdout);
}

#[test]
fn a_crawler_trap_is_1() {
    let site = Site::of_pages(10);
    let (_db, run, report) = crawl("exit_trap", &site, &["rate_limit_rps=0", "trap_limit=3"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(reasons(&report), vec!["crawler_trap"]);
    assert!(
        run.stdout
            .contains("1 URL shapes stopped as crawler traps (trap_limit 3)"),
        "{}",
        run.stdout
    );
}

/// The trap limit counts distinct URLs of a shape, not links: five pages that all link to
/// one another (25 links, 5 URLs shaped /p/#) are no trap at a limit of 5.
#[test]
fn pages_linking_to_the_same_pages_are_no_trap() {
    let site = Site::start();
    let links: String = (0..5)
        .map(|i| format!("<li><a href=\"/p/{i}\">page {i}</a></li>"))
        .collect();
    site.html("/", &format!("<html><body><main><h1>Index</h1><p>The pages of this site, each linking to all the others.</p><ul>{links}</ul></main></body></html>"));
    for i in 0..5 {
        site.html(
            &format!("/p/{i}"),
            &format!("<html><body><main><h1>Page {i}</h1><p>Page number {i} has its own text, long enough to be content.</p><ul>{links}</ul></main></body></html>"),
        );
    }
    let (db, run, report) = crawl("exit_no_trap", &site, &["rate_limit_rps=0", "trap_limit=5"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(reasons(&report).is_empty(), "{report}");
    assert_eq!(db.one::<i64>("SELECT count(*) FROM kerai.pages"), 6);
}

#[test]
fn a_seed_robots_txt_disallows_is_1_and_other_disallowed_links_are_not() {
    let site = Site::of_pages(3);
    site.page(
        "/robots.txt",
        "text/plain",
        "User-agent: *\nDisallow: /private\n",
    );
    site.html("/private/x", "<html><body><main><h1>Private</h1><p>Not for crawlers, though a seed names it.</p></main></body></html>");
    // A link to a disallowed page is the site owner's choice: not left out.
    site.html("/", "<html><body><main><h1>Index</h1><p>The pages of this test site, and one private page.</p><a href=\"/p/0\">0</a><a href=\"/p/1\">1</a><a href=\"/p/2\">2</a><a href=\"/private/y\">y</a></main></body></html>");
    let (_db, run, _) = crawl("exit_robots_link", &site, &["rate_limit_rps=0"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);

    let seeds = format!("seeds={},{}", site.url("/"), site.url("/private/x"));
    let (_db, run, report) = crawl("exit_robots_seed", &site, &["rate_limit_rps=0", &seeds]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(reasons(&report), vec!["robots_blocked_seeds"]);
    assert!(
        run.stdout.contains("1 seeds disallowed by robots.txt"),
        "{}",
        run.stdout
    );
}

#[test]
fn nothing_fetchable_is_2() {
    // A port nothing listens on: every URL fails, so the run could not do its job.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let db = TestDb::new("exit_down");
    let base = format!("http://127.0.0.1:{port}/");
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "t",
            "--base-url",
            &base,
            "use_sitemaps=false",
            "retries=1",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run = kerai(&db.url, &["run", "t", "--no-progress", "--no-embed"]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("error: no URL could be fetched: 1 failed"),
        "{}",
        run.stdout
    );
    let status: String = db.one("SELECT status FROM kerai.scrape_jobs");
    assert_eq!(status, "FAILED", "final: not retried");
}

#[test]
fn a_site_without_a_sitemap_is_warned_about_and_still_0() {
    let site = Site::of_pages(2);
    let db = TestDb::new("exit_no_sitemap");
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "t",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run = kerai(&db.url, &["run", "t", "--no-progress", "--no-embed"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let warned: i64 =
        db.one("SELECT count(*) FROM kerai.job_logs WHERE event = 'NO_SITEMAP' AND level = 'WARN'");
    assert_eq!(warned, 1);
}
