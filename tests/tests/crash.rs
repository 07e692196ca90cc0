//! Crash safety: work is leased, so a fetcher killed at any moment loses nothing and
//! duplicates nothing, and two fetchers on one database split a job between them.

use kerai_e2e::{kerai_env, spawn, wait, Site, TestDb};
use std::time::Duration;

const LEASE: (&str, &str) = ("KERAI_LEASE_SECONDS", "3");

#[test]
fn a_killed_fetcher_loses_nothing_and_duplicates_nothing() {
    let site = Site::of_pages(40);
    let db = TestDb::new("crash");
    let out = kerai_env(
        &db.url,
        &[
            "config",
            "set",
            "c",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=10",
            "per_host_concurrency=1",
            "use_sitemaps=false",
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);

    let mut child = spawn(&db.url, &["run", "c", "--no-progress"], &[LEASE]);
    // Let it get part of the way.
    let mut done = 0i64;
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(100));
        done = db.one("SELECT count(*) FROM kerai.pages");
        if done >= 10 {
            break;
        }
    }
    assert!(
        (10..41).contains(&done),
        "the first fetcher should be part way through, not {done}"
    );
    child.kill().expect("kill the fetcher");
    let _ = child.wait();
    let status: String = db.one("SELECT status FROM kerai.scrape_jobs");
    assert_eq!(
        status, "RUNNING",
        "the killed fetcher's job is left running"
    );

    // The status tells the truth: the job is stalled, and its holder (this host, that pid) gone.
    let status = kerai_env(&db.url, &["status", "c", "--format", "json"], &[]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let running = &status.json()["targets"][0]["running"];
    assert_eq!(running["state"], "stalled", "{running}");
    assert_eq!(running["holder"]["pid"], child.id(), "{running}");
    assert_eq!(running["holder"]["gone"], true, "{running}");
    let table = kerai_env(&db.url, &["status", "c"], &[]);
    assert!(
        table.stdout.contains("stalled") && table.stdout.contains("is gone"),
        "{}",
        table.stdout
    );
    let holder: String = db.one("SELECT worker FROM kerai.scrape_jobs");

    // A holder on another host is not provably gone: `kerai run` names it and waits for its
    // lease, saying when that ends.
    db.client()
        .execute(
            "UPDATE kerai.scrape_jobs SET worker = 'elsewhere.example:4242', heartbeat_at = now(),
                    lease_until = now() + interval '30 seconds'",
            &[],
        )
        .unwrap();
    let elsewhere = kerai_env(&db.url, &["run", "c", "--no-progress"], &[LEASE]);
    assert_eq!(elsewhere.code, 2, "{}", elsewhere.stderr);
    assert!(
        elsewhere.stderr.contains("is already running")
            && elsewhere.stderr.contains("elsewhere.example:4242")
            && elsewhere.stderr.contains("when its lease ends, in"),
        "{}",
        elsewhere.stderr
    );

    // The killed fetcher of this host, with its lease still running: taken over at once.
    db.client()
        .execute(
            "UPDATE kerai.scrape_jobs SET worker = $1, lease_until = now() + interval '30 seconds'",
            &[&holder],
        )
        .unwrap();
    let resumed = kerai_env(
        &db.url,
        &["run", "c", "--no-progress", "--format", "json"],
        &[LEASE],
    );
    assert_eq!(resumed.code, 0, "{}\n{}", resumed.stdout, resumed.stderr);
    assert!(
        resumed.stderr.contains("is gone; taking its job"),
        "{}",
        resumed.stderr
    );
    let report = resumed.json();
    assert_eq!(report["status"], "COMPLETED");
    assert_eq!(report["metrics"]["new_count"], 41, "{report}");
    let taken: i64 = db.one("SELECT count(*) FROM kerai.job_logs WHERE event = 'CRAWL_TAKEN_OVER'");
    assert_eq!(taken, 1);
    // An attempt is counted only for a request sent: every page was fetched once, the ones
    // the killed fetcher held but never asked for included.
    let attempts: Vec<i32> = db
        .client()
        .query("SELECT DISTINCT attempts FROM kerai.job_urls", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(attempts, vec![1], "each URL was requested once");

    let jobs: i64 = db.one("SELECT count(*) FROM kerai.scrape_jobs");
    assert_eq!(jobs, 1, "the crashed job was resumed, not replaced");
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    let versions: i64 = db.one("SELECT count(*) FROM kerai.page_versions");
    let documents: i64 = db.one("SELECT count(*) FROM kerai.nodes WHERE kind = 'document'");
    assert_eq!(
        (pages, versions, documents),
        (41, 41, 41),
        "one page, one version, one document each"
    );
    let unfinished: i64 = db.one("SELECT count(*) FROM kerai.job_urls WHERE status <> 'done'");
    assert_eq!(unfinished, 0);
    let resumed_log: i64 =
        db.one("SELECT count(*) FROM kerai.job_logs WHERE event = 'CRAWL_RESUMED'");
    assert_eq!(resumed_log, 1);
}

#[test]
fn two_fetchers_split_one_job() {
    let site = Site::of_pages(30);
    let db = TestDb::new("split");
    let out = kerai_env(
        &db.url,
        &[
            "config",
            "set",
            "s",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "use_sitemaps=false",
            "concurrency=2",
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Slow the site down a little so both fetchers have work.
    for i in 0..30 {
        site.set(
            &format!("/p/{i}"),
            kerai_e2e::Behavior::SlowDrip {
                bytes: 400,
                every: Duration::from_millis(5),
            },
        );
    }
    let first = spawn(&db.url, &["run", "s", "--no-progress"], &[]);
    let mut running = false;
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(50));
        let n: i64 = db.one("SELECT count(*) FROM kerai.job_urls");
        if n > 1 {
            running = true;
            break;
        }
    }
    assert!(running, "the first fetcher never queued the links");
    let second = kerai_env(&db.url, &["run", "s", "--join", "--no-progress"], &[]);
    let first = wait(first);
    assert!(
        first.code == 0 || first.code == 1,
        "{}\n{}",
        first.stdout,
        first.stderr
    );
    assert!(
        second.code == 0 || second.code == 1,
        "{}\n{}",
        second.stdout,
        second.stderr
    );
    let workers: i64 = db.one("SELECT count(DISTINCT leased_by) FROM kerai.job_urls");
    assert_eq!(workers, 2, "both fetchers took URLs");
    let status: String = db.one("SELECT status FROM kerai.scrape_jobs");
    assert_eq!(status, "COMPLETED");
    // Every slowed page shows the same text (the drip's bytes): one is stored, the others are
    // its aliases; each page is recorded once either way.
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    let versions: i64 = db.one("SELECT count(*) FROM kerai.page_versions");
    let aliases: i64 = db.one(
        "SELECT count(*) FROM kerai.pages WHERE alias_of IS NOT NULL AND alias_reason = 'duplicate'",
    );
    assert_eq!((pages, versions, aliases), (31, 2, 29));
}
