//! The life of a crawl job as the fetcher and the database run it: a failed job retried then
//! failed for good (CRAWL_RETRY, CRAWL_FAILED), cancellation, jobs queued for `kerai worker`
//! (`kerai run --queue`, `kerai.enqueue_job`), `kerai run --since`, live progress in
//! `kerai status`, and what an incremental re-crawl asks the server (conditional GET, HEAD
//! for documents) and how it reads a brotli-encoded page.

use kerai_e2e::{kerai, repo_root, spawn, wait, Behavior, Site, TestDb};
use std::process::Child;
use std::time::{Duration, Instant};

/// A database with target `name` on `site`; embeddings off (these tests are about jobs).
fn db_with_target(label: &str, name: &str, site: &Site, settings: &[&str]) -> TestDb {
    let db = TestDb::new(label);
    db.client()
        .batch_execute("SELECT kerai.configure_embeddings('none')")
        .unwrap();
    let base = site.url("/");
    let mut args = vec!["config", "set", name, "--base-url", &base];
    args.extend_from_slice(settings);
    let out = kerai(&db.url, &args);
    assert_eq!(out.code, 0, "config set: {}", out.stderr);
    db
}

/// Wait until `sql` (a boolean query) is true, or panic after `secs`.
fn wait_for(db: &TestDb, sql: &str, secs: u64) {
    let until = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < until {
        if db.one::<bool>(sql) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for: {sql}");
}

/// Ctrl-C a running `kerai`: SIGINT until it exits (a signal that lands between two waits of
/// the runner's loop is not seen, so one is not always enough).
fn interrupt(child: Child) -> kerai_e2e::Output {
    let pid = child.id().to_string();
    let stop = std::thread::spawn(move || {
        for _ in 0..200 {
            let sent = std::process::Command::new("kill")
                .args(["-INT", &pid])
                .output()
                .is_ok_and(|o| o.status.success());
            if !sent {
                return;
            }
            std::thread::sleep(Duration::from_millis(150));
        }
    });
    let out = wait(child);
    let _ = stop.join();
    out
}

const LEASE: (&str, &str) = ("KERAI_LEASE_SECONDS", "4");

#[test]
fn a_failed_job_is_retried_while_retries_remain_then_fails_for_good() {
    let site = Site::of_pages(45);
    let db = db_with_target(
        "retry",
        "r",
        &site,
        &[
            "rate_limit_rps=5",
            "per_host_concurrency=1",
            "use_sitemaps=false",
        ],
    );
    // Attempts 1 and 2 fail (Ctrl-C: "interrupted") and the job goes back to PENDING,
    // keeping the URLs it had not fetched; attempt 3 fails for good (max_retries 3).
    let mut done_before = 0i64;
    for attempt in 1..=3 {
        let child = spawn(&db.url, &["run", "r", "--no-progress"], &[LEASE]);
        wait_for(
            &db,
            &format!(
                "SELECT count(*) > {} FROM kerai.job_urls WHERE status = 'done'",
                done_before + 2
            ),
            30,
        );
        let out = interrupt(child);
        assert_eq!(
            out.code, 2,
            "attempt {attempt}:\n{}\n{}",
            out.stdout, out.stderr
        );
        let (status, retries, error): (String, i32, Option<String>) = {
            let r = db
                .client()
                .query_one(
                    "SELECT status, retry_count, error FROM kerai.scrape_jobs",
                    &[],
                )
                .unwrap();
            (r.get(0), r.get(1), r.get(2))
        };
        assert_eq!(error.as_deref(), Some("interrupted"));
        let done: i64 = db.one("SELECT count(*) FROM kerai.job_urls WHERE status = 'done'");
        assert!(done > done_before, "attempt {attempt} fetched something");
        done_before = done;
        if attempt < 3 {
            assert_eq!(
                (status.as_str(), retries),
                ("PENDING", attempt),
                "attempt {attempt}"
            );
            // The retry waits 30 s x 2^(retry_count - 1); its URLs wait with it.
            let wait_s: f64 = db.one(
                "SELECT extract(epoch FROM scheduled_at - now())::float8 FROM kerai.scrape_jobs",
            );
            let expected = 30.0 * 2f64.powi(attempt - 1);
            assert!(
                wait_s > expected - 10.0 && wait_s <= expected,
                "retry {attempt} in {wait_s} s"
            );
            let skipped: i64 =
                db.one("SELECT count(*) FROM kerai.job_urls WHERE status = 'skipped'");
            assert_eq!(skipped, 0, "a retried job keeps its unfinished URLs");
            let leased: i64 = db.one("SELECT count(*) FROM kerai.job_urls WHERE status = 'leased'");
            assert_eq!(leased, 0, "its leases are released");
            // The worker would wait for scheduled_at; `kerai run` takes the waiting job at once.
            assert!(out.stdout.contains("PENDING"), "{}", out.stdout);
        } else {
            assert_eq!((status.as_str(), retries), ("FAILED", 2));
            assert!(out.stdout.contains("FAILED"), "{}", out.stdout);
        }
    }
    let jobs: i64 = db.one("SELECT count(*) FROM kerai.scrape_jobs");
    assert_eq!(jobs, 1, "one job, three attempts");
    let exit: i32 = db.one("SELECT exit_code FROM kerai.scrape_jobs");
    assert_eq!(exit, 2);
    let events: Vec<(String, String, String)> = db
        .client()
        .query(
            "SELECT level, event, message FROM kerai.job_logs WHERE event LIKE 'CRAWL\\_%' ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let names: Vec<&str> = events.iter().map(|e| e.1.as_str()).collect();
    assert_eq!(
        names,
        [
            "CRAWL_STARTED",
            "CRAWL_RETRY",
            "CRAWL_RESUMED",
            "CRAWL_RETRY",
            "CRAWL_RESUMED",
            "CRAWL_FAILED"
        ],
        "{events:?}"
    );
    assert_eq!(
        events[1].2,
        "crawl failed (interrupted); retry 1 of 3 queued"
    );
    assert_eq!(
        events[3].2,
        "crawl failed (interrupted); retry 2 of 3 queued"
    );
    assert_eq!(
        (events[5].0.as_str(), events[5].2.as_str()),
        ("ERROR", "crawl failed: interrupted")
    );
    // What the last attempt did not reach is skipped; the report says FAILED.
    let pending: i64 =
        db.one("SELECT count(*) FROM kerai.job_urls WHERE status IN ('pending', 'leased')");
    assert_eq!(pending, 0);
    let not_reached: i64 =
        db.one("SELECT count(*) FROM kerai.job_urls WHERE error_kind = 'not_reached'");
    assert!(not_reached > 0);
    let report = kerai(&db.url, &["report", "r", "--format", "json"]).json();
    assert_eq!(report["status"], "FAILED");
    assert_eq!(report["error"], "interrupted");
    // A failed job is final: it never runs again, and finishing it again changes nothing.
    let refused = db
        .client()
        .batch_execute("UPDATE kerai.scrape_jobs SET status = 'PENDING'")
        .unwrap_err();
    assert!(
        format!("{refused:?}").contains("is FAILED and cannot become PENDING"),
        "{refused:?}"
    );
    let again: String = db.one(
        "SELECT status FROM kerai._job_finish((SELECT id FROM kerai.scrape_jobs), 'w', 'COMPLETED')",
    );
    assert_eq!(again, "FAILED");
}

#[test]
fn a_cancelled_job_stops_and_stays_cancelled() {
    let site = Site::of_pages(45);
    let db = db_with_target(
        "cancel",
        "c",
        &site,
        &[
            "rate_limit_rps=5",
            "per_host_concurrency=1",
            "use_sitemaps=false",
        ],
    );
    let child = spawn(&db.url, &["run", "c", "--no-progress"], &[LEASE]);
    wait_for(
        &db,
        "SELECT count(*) >= 3 FROM kerai.job_urls WHERE status = 'done'",
        30,
    );
    let job: String = db.one("SELECT id::text FROM kerai.scrape_jobs");
    let st: String = db.one(&format!("SELECT kerai.cancel_job('{job}')"));
    assert_eq!(st, "CANCELLED");
    let started = Instant::now();
    let out = wait(child);
    // The fetcher notices at its next heartbeat (a quarter of the lease).
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("CANCELLED"), "{}", out.stdout);
    let hits_at_exit = site.hits().len();
    let (status, finished): (String, bool) = {
        let r = db
            .client()
            .query_one(
                "SELECT status, finished_at IS NOT NULL FROM kerai.scrape_jobs",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!((status.as_str(), finished), ("CANCELLED", true));
    let (done, cancelled, left): (i64, i64, i64) = {
        let r = db
            .client()
            .query_one(
                "SELECT count(*) FILTER (WHERE status = 'done'),
                        count(*) FILTER (WHERE status = 'skipped' AND error_kind = 'cancelled'),
                        count(*) FILTER (WHERE status IN ('pending', 'leased'))
                   FROM kerai.job_urls",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1), r.get(2))
    };
    assert!(
        done >= 3 && cancelled > 0 && left == 0,
        "{done} {cancelled} {left}"
    );
    assert!(
        done < 46,
        "cancellation stopped the crawl before the end ({done} done)"
    );
    let logged: i64 = db.one(
        "SELECT count(*) FROM kerai.job_logs WHERE event = 'CRAWL_CANCELLED' AND level = 'WARN'",
    );
    assert_eq!(logged, 1);
    // Final: no other status, cancelling again or finishing changes nothing.
    let refused = db
        .client()
        .batch_execute("UPDATE kerai.scrape_jobs SET status = 'RUNNING'")
        .unwrap_err();
    assert!(
        format!("{refused:?}").contains("is CANCELLED and cannot become RUNNING"),
        "{refused:?}"
    );
    let again: String = db.one(&format!("SELECT kerai.cancel_job('{job}')"));
    assert_eq!(again, "CANCELLED");
    let finish: String = db.one(&format!(
        "SELECT status FROM kerai._job_finish('{job}', 'w', 'COMPLETED')"
    ));
    assert_eq!(finish, "CANCELLED");
    let worker = kerai(&db.url, &["worker", "--once"]);
    assert_eq!(worker.code, 0, "{}", worker.stderr);
    let status: String = db.one("SELECT status FROM kerai.scrape_jobs");
    assert_eq!(status, "CANCELLED", "a worker does not pick it up");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        site.hits().len(),
        hits_at_exit,
        "nothing fetched after the end"
    );
}

#[test]
fn the_worker_runs_queued_jobs() {
    let site = Site::of_pages(20);
    let db = db_with_target(
        "worker",
        "w",
        &site,
        &[
            "rate_limit_rps=5",
            "per_host_concurrency=1",
            "use_sitemaps=false",
        ],
    );
    // Queued from SQL: the worker runs it and exits when nothing else waits.
    let job: String =
        db.one("SELECT kerai.enqueue_job('w', 'incremental', '{}', 'sql user')::text");
    let once = kerai(&db.url, &["worker", "--once"]);
    assert_eq!(once.code, 0, "{}\n{}", once.stdout, once.stderr);
    assert!(
        once.stdout.contains(&format!("job {job}")) && once.stdout.contains("COMPLETED"),
        "{}",
        once.stdout
    );
    let (status, by, new): (String, String, i64) = {
        let r = db
            .client()
            .query_one(
                "SELECT status, launched_by, (metrics->>'new_count')::bigint FROM kerai.scrape_jobs WHERE id = $1::text::uuid",
                &[&job],
            )
            .unwrap();
        (r.get(0), r.get(1), r.get(2))
    };
    assert_eq!(
        (status.as_str(), by.as_str(), new),
        ("COMPLETED", "sql user", 21)
    );

    // Queued behind a running crawl with `kerai run --queue`: one pending job, run by the worker.
    site.html("/p/3", "<html><body><main><h1>Page 3</h1><p>Page number 3 was rewritten since the last crawl of the site.</p></main></body></html>");
    let first = spawn(&db.url, &["run", "w", "--no-progress", "--full"], &[]);
    wait_for(
        &db,
        "SELECT count(*) = 1 FROM kerai.scrape_jobs WHERE status = 'RUNNING'",
        30,
    );
    let refused = kerai(&db.url, &["run", "w", "--no-progress"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("is already running"),
        "{}",
        refused.stderr
    );
    let queued = kerai(
        &db.url,
        &["run", "w", "--queue", "--launched-by", "queue test"],
    );
    assert_eq!(queued.code, 0, "{}", queued.stderr);
    assert!(
        queued.stdout.starts_with("queued job "),
        "{}",
        queued.stdout
    );
    let again = kerai(&db.url, &["run", "w", "--queue"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let pending: i64 = db.one("SELECT count(*) FROM kerai.scrape_jobs WHERE status = 'PENDING'");
    assert_eq!(pending, 1, "at most one job waits per target");
    let first = wait(first);
    assert_eq!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    let still: String =
        db.one("SELECT status FROM kerai.scrape_jobs WHERE launched_by = 'queue test'");
    assert_eq!(still, "PENDING", "the queued job waits for a worker");
    let once = kerai(&db.url, &["worker", "--once"]);
    assert_eq!(once.code, 0, "{}\n{}", once.stdout, once.stderr);
    let (status, unchanged): (String, i64) = {
        let r = db
            .client()
            .query_one(
                "SELECT status, (metrics->>'unchanged_count')::bigint FROM kerai.scrape_jobs WHERE launched_by = 'queue test'",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!((status.as_str(), unchanged), ("COMPLETED", 21));
    let jobs: i64 = db.one("SELECT count(*) FROM kerai.scrape_jobs WHERE status = 'COMPLETED'");
    assert_eq!(jobs, 3);
    let idle = kerai(&db.url, &["worker", "--once"]);
    assert_eq!(idle.code, 0);
    assert!(
        !idle.stdout.contains("job "),
        "nothing left to run: {}",
        idle.stdout
    );
}

#[test]
fn since_takes_the_seeds_and_the_sitemap_entries_changed_since() {
    let site = Site::start();
    site.html("/", "<html><body><main><h1>Home</h1><p>The home page of a site whose sitemap has dates.</p></main></body></html>");
    for p in ["old", "new", "undated", "boundary"] {
        site.html(
            &format!("/{p}"),
            &format!("<html><body><main><h1>{p}</h1><p>The page called {p}, listed in the sitemap of this site.</p></main></body></html>"),
        );
    }
    let b = &site.base;
    site.page(
        "/sitemap.xml",
        "application/xml",
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>{b}/old</loc><lastmod>2026-01-10</lastmod></url>
  <url><loc>{b}/new</loc><lastmod>2026-06-01T08:00:00Z</lastmod></url>
  <url><loc>{b}/boundary</loc><lastmod>2026-05-01T00:00:00Z</lastmod></url>
  <url><loc>{b}/undated</loc></url>
</urlset>"#
        ),
    );
    let db = db_with_target("since", "s", &site, &["rate_limit_rps=0"]);
    // The dry run says what --since leaves out.
    let dry = kerai(
        &db.url,
        &[
            "run",
            "s",
            "--dry-run",
            "--since",
            "2026-05-01",
            "--format",
            "json",
        ],
    );
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    let scope = dry.json();
    assert_eq!(scope["older_than_since"], 1, "{scope}");
    assert_eq!(scope["seeds"], 1);
    assert_eq!(scope["from_sitemaps"], 3);

    let run = kerai(
        &db.url,
        &[
            "run",
            "s",
            "--since",
            "2026-05-01",
            "--no-progress",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report = run.json();
    assert_eq!(report["mode"], "since");
    assert_eq!(report["metrics"]["new_count"], 4, "{report}");
    let mut urls: Vec<String> = db
        .client()
        .query("SELECT url FROM kerai.job_urls ORDER BY url", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    urls.sort();
    let want: Vec<String> = ["/", "/boundary", "/new", "/undated"]
        .iter()
        .map(|p| site.url(p))
        .collect();
    assert_eq!(urls, want);
    assert_eq!(site.hit_count("/old"), 0, "{:?}", site.hits());
    let options: String = db.one("SELECT options->>'since' FROM kerai.scrape_jobs");
    assert!(options.starts_with("2026-05-01T00:00:00"), "{options}");
    let note: String = db.one("SELECT message FROM kerai.job_logs WHERE event = 'DISCOVERY'");
    assert!(note.contains("1 older than --since"), "{note}");
}

#[test]
fn status_shows_a_running_jobs_live_progress() {
    let site = Site::of_pages(45);
    let db = db_with_target(
        "status",
        "live",
        &site,
        &[
            "rate_limit_rps=5",
            "per_host_concurrency=1",
            "use_sitemaps=false",
        ],
    );
    let child = spawn(&db.url, &["run", "live", "--no-progress"], &[LEASE]);
    wait_for(
        &db,
        "SELECT count(*) >= 3 FROM kerai.job_urls WHERE status = 'done'",
        30,
    );
    let job: String = db.one("SELECT id::text FROM kerai.scrape_jobs");
    let status = kerai(&db.url, &["status", "--format", "json"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let s = status.json();
    let t = &s["targets"][0];
    assert_eq!(t["target"], "live");
    let running = &t["running"];
    assert_eq!(running["job"], job.as_str(), "{s}");
    assert!(
        running["worker"].as_str().is_some_and(|w| w.contains(':')),
        "{s}"
    );
    assert!(
        running["started_at"].as_str().unwrap().ends_with('Z'),
        "{s}"
    );
    let processed = running["items_processed"].as_i64().unwrap();
    let remaining = running["remaining"].as_i64().unwrap();
    assert!(processed >= 3, "{s}");
    assert!(remaining > 0, "{s}");
    assert_eq!(running["urls_enqueued"].as_i64().unwrap(), 46, "{s}");
    assert!(running["new"].as_i64().unwrap() >= 3, "{s}");
    assert_eq!(running["errors"], 0, "{s}");
    assert!(t["last_success_at"].is_null(), "never completed yet: {s}");
    // Progress moves.
    wait_for(
        &db,
        &format!(
            "SELECT count(*) > {} FROM kerai.job_urls WHERE status = 'done'",
            processed + 2
        ),
        30,
    );
    let later = kerai(&db.url, &["status", "live", "--format", "json"]).json();
    assert!(
        later["targets"][0]["running"]["items_processed"]
            .as_i64()
            .unwrap()
            > processed,
        "{later}"
    );
    // The table says the same for people.
    let table = kerai(&db.url, &["status"]);
    assert!(
        table.stdout.contains(&format!("running {job}")) && table.stdout.contains("/46 urls"),
        "{}",
        table.stdout
    );
    db.one::<String>(&format!("SELECT kerai.cancel_job('{job}')"));
    let out = wait(child);
    assert_eq!(out.code, 2);
    let after = kerai(&db.url, &["status", "--format", "json"]).json();
    assert!(after["targets"][0]["running"].is_null(), "{after}");
    assert_eq!(after["targets"][0]["last_job"], "CANCELLED", "{after}");
}

#[test]
fn a_recrawl_asks_conditionally_and_reads_brotli() {
    let site = Site::start();
    let pdf =
        std::fs::read(repo_root().join("examples/site/files/annual-report-2025.pdf")).unwrap();
    site.html("/", "<html><body><main><h1>Home</h1><p>Read the annual report and the compressed page of this site.</p><a href=\"/report.pdf\">report</a> <a href=\"/br\">compressed</a></main></body></html>");
    site.set(
        "/report.pdf",
        Behavior::Page {
            content_type: "application/pdf".into(),
            body: pdf,
            last_modified: Some("Mon, 05 Jan 2026 10:00:00 GMT".into()),
        },
    );
    site.set(
        "/br",
        Behavior::Brotli {
            content_type: "text/html; charset=utf-8".into(),
            body: "<html><head><title>Squeezed</title></head><body><main><h1>Squeezed</h1><p>This page travels brotli-compressed and must arrive as plain words.</p></main></body></html>".as_bytes().to_vec(),
        },
    );
    let db = db_with_target(
        "conditional",
        "c",
        &site,
        &["rate_limit_rps=0", "use_sitemaps=false"],
    );
    let first = kerai(&db.url, &["run", "c", "--no-progress", "--format", "json"]);
    assert_eq!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    assert_eq!(first.json()["metrics"]["new_count"], 3, "{}", first.stdout);
    // The brotli page was decoded: its words are in the document, not compressed bytes.
    let squeezed: String = db.one("SELECT string_agg(n.content, ' ') FROM kerai.nodes n JOIN kerai.pages p ON n.document_id = (SELECT document_id FROM kerai.page_versions WHERE id = p.current_version) WHERE p.url LIKE '%/br'");
    assert!(
        squeezed.contains("must arrive as plain words"),
        "{squeezed}"
    );
    let (etag, ct): (Option<String>, Option<String>) = {
        let r = db
            .client()
            .query_one(
                "SELECT etag, content_type FROM kerai.pages WHERE url LIKE '%/br'",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert!(etag.is_some() && ct.as_deref() == Some("text/html; charset=utf-8"));

    // The re-crawl: pages by conditional GET, the known PDF by a conditional HEAD, no body.
    site.clear_hits();
    let second = kerai(&db.url, &["run", "c", "--no-progress", "--format", "json"]);
    assert_eq!(second.code, 0, "{}\n{}", second.stdout, second.stderr);
    assert_eq!(
        second.json()["metrics"]["unchanged_count"],
        3,
        "{}",
        second.stdout
    );
    let mut hits: Vec<String> = site
        .hits()
        .into_iter()
        .filter(|h| !h.contains("robots.txt"))
        .collect();
    hits.sort();
    assert_eq!(
        hits,
        [
            "GET / (conditional)",
            "GET /br (conditional)",
            "HEAD /report.pdf (conditional)"
        ],
        "{:?}",
        site.hits()
    );
    // --full asks for everything again, unconditionally.
    site.clear_hits();
    let full = kerai(&db.url, &["run", "c", "--no-progress", "--full"]);
    assert_eq!(full.code, 0, "{}", full.stderr);
    let mut hits: Vec<String> = site
        .hits()
        .into_iter()
        .filter(|h| !h.contains("robots.txt"))
        .collect();
    hits.sort();
    assert_eq!(hits, ["GET /", "GET /br", "GET /report.pdf"]);
}
