//! `kerai daemon`: one process doing every kind of waiting work (site jobs, the citation loop,
//! embeddings), visible in `kerai.crawler_status()`, surviving a database that goes away, and
//! handing back what it holds when stopped.

use kerai_e2e::scholarly::ScholarlyWeb;
use kerai_e2e::{kerai, kerai_env, repo_root, spawn, wait, Output, Site, TestDb};
use std::process::Child;
use std::time::{Duration, Instant};

/// Poll `sql` (a boolean) until it is true.
fn until(db: &TestDb, sql: &str, within: Duration) -> bool {
    let mut client = db.client();
    let t = Instant::now();
    while t.elapsed() < within {
        if client
            .query_one(sql, &[])
            .map(|r| r.get::<_, bool>(0))
            .unwrap_or(false)
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    false
}

fn term(child: &Child) {
    let ok = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// Wait for `child`, killing it (and failing) when it outlives `within`.
fn wait_within(mut child: Child, within: Duration, what: &str) -> (Output, Duration) {
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > within {
            let _ = child.kill();
            let out = wait(child);
            panic!("{what}: still running after {within:?}\n{}", out.stderr);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    (wait(child), t.elapsed())
}

fn configure(db: &TestDb, site: &Site, rps: &str) {
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "t",
            "--base-url",
            &site.url("/"),
            &format!("rate_limit_rps={rps}"),
            "per_host_concurrency=1",
            "use_sitemaps=false",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn once_does_every_kind_of_waiting_work_and_exits() {
    let site = Site::start();
    site.serve_dir(&repo_root().join("examples/site"));
    let db = TestDb::new("daemon_once");
    let _scholar = ScholarlyWeb::demo(&site, &mut db.client(), "daemon@example.org");
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "example",
            "--base-url",
            &site.url("/"),
            "file_types=html,pdf,docx,xlsx",
            "rate_limit_rps=50",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Queued as pg_cron or another client would: nobody runs it but the daemon.
    db.client()
        .execute("SELECT kerai.enqueue_job('example')", &[])
        .unwrap();
    // Logs older than the retention (90 days by default) and younger, from before any weekly
    // partition existed: the daemon's job log policy drops the first and keeps the second.
    db.client()
        .batch_execute(
            "INSERT INTO kerai.job_logs (target_id, level, event, message, created_at)
             SELECT id, 'INFO', 'OLD', 'from long ago', now() - interval '200 days' FROM kerai.targets;
             INSERT INTO kerai.job_logs (target_id, level, event, message, created_at)
             SELECT id, 'INFO', 'RECENT', 'from last month', now() - interval '30 days' FROM kerai.targets;",
        )
        .unwrap();

    let child = spawn(&db.url, &["daemon", "--once", "--rate", "0"], &[]);
    let pid = child.id() as i32;
    let (out, _) = wait_within(child, Duration::from_secs(300), "kerai daemon --once");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("[site] running job"), "{}", out.stderr);
    assert!(out.stderr.contains("cycle 1:"), "{}", out.stderr);
    assert!(out.stderr.contains("[embed] embedded"), "{}", out.stderr);
    // The job's report, as `kerai worker` prints it.
    assert!(out.stdout.contains("COMPLETED"), "{}", out.stdout);

    let status: String = db.one("SELECT status FROM kerai.scrape_jobs");
    assert_eq!(status, "COMPLETED");
    // The job log policy ran: the crawl's lines are in this week's partition, the old line is
    // gone, the recent one kept.
    let weekly: i64 = db.one(
        "SELECT count(*) FROM kerai.job_logs
          WHERE tableoid::regclass::text = 'kerai.job_logs_w' || to_char(date_trunc('week', now() AT TIME ZONE 'UTC'), 'YYYYMMDD')",
    );
    assert!(weekly > 0, "the crawl logged into this week's partition");
    let kept: Vec<String> = db
        .client()
        .query(
            "SELECT event FROM kerai.job_logs WHERE event IN ('OLD', 'RECENT') ORDER BY event",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(kept, ["RECENT"], "{}", out.stderr);
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    assert!(pages >= 8, "the example site's pages: {pages}");
    let cited: i64 = db.one("SELECT count(*) FROM kerai.documents_by_depth WHERE chain_depth > 0");
    assert!(
        cited > 0,
        "the citation loop ingested cited works:\n{}",
        out.stderr
    );
    let waiting: i64 = db.one("SELECT count(*) FROM kerai.chunks WHERE embedding_status <> 'done'");
    assert_eq!(waiting, 0, "every chunk embedded");
    let row = db
        .client()
        .query_one(
            "SELECT pid, state, stopped_at IS NOT NULL, version FROM kerai.crawler_status()",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, i32>(0), pid);
    assert_eq!(row.get::<_, String>(1), "stopped");
    assert!(row.get::<_, bool>(2));
    assert_eq!(row.get::<_, String>(3), env!("CARGO_PKG_VERSION"));
}

#[test]
fn a_running_daemon_takes_queued_jobs_and_survives_the_database_going_away() {
    let site = Site::of_pages(30);
    let db = TestDb::new("daemon_restart");
    // 5 pages a second: the crawl is still under way when the database goes away.
    configure(&db, &site, "5");
    let child = spawn(
        &db.url,
        &[
            "daemon",
            "--poll",
            "60",
            "--rate",
            "60",
            "--lanes",
            "site,embed",
        ],
        &[("KERAI_LEASE_SECONDS", "5")],
    );
    let pid = child.id();
    let running = format!(
        "SELECT EXISTS (SELECT 1 FROM kerai.crawler_status() WHERE pid = {pid} AND state = 'running')"
    );
    assert!(
        until(&db, &running, Duration::from_secs(20)),
        "the daemon shows as running"
    );

    // A job queued from SQL starts at once (a notification, not the 60 s poll).
    let t = Instant::now();
    db.client()
        .execute("SELECT kerai.enqueue_job('t')", &[])
        .unwrap();
    assert!(
        until(
            &db,
            "SELECT count(*) >= 5 FROM kerai.pages",
            Duration::from_secs(20)
        ),
        "the daemon crawls"
    );
    assert!(
        t.elapsed() < Duration::from_secs(40),
        "woken by the notification, not the 60 s poll"
    );
    assert!(
        until(
            &db,
            "SELECT EXISTS (SELECT 1 FROM kerai.crawler_status() WHERE state = 'running' AND work->'site'->>'target' = 't')",
            Duration::from_secs(10)
        ),
        "crawler_status() shows the job in hand"
    );

    // The database goes away for 3 s: new connections refused, the daemon's ended.
    let killed = db.outage(&[], Duration::from_secs(3));
    assert!(killed >= 2, "the daemon's connections: {killed}");

    assert!(
        until(
            &db,
            "SELECT status = 'COMPLETED' FROM kerai.scrape_jobs",
            Duration::from_secs(90)
        ),
        "the job completes after the database comes back"
    );
    // Nothing lost, nothing duplicated.
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    let versions: i64 = db.one("SELECT count(*) FROM kerai.page_versions");
    assert_eq!((pages, versions), (31, 31));
    let released: i64 =
        db.one("SELECT count(*) FROM kerai.job_logs WHERE event = 'CRAWL_RELEASED'");
    assert!(released >= 1, "the job was handed back and resumed");

    // SIGTERM: a clean stop, within the bound.
    term(&child);
    let (out, took) = wait_within(child, Duration::from_secs(40), "SIGTERM");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let again = out
        .stderr
        .lines()
        .find(|l| l.contains("connected again after") || l.contains("accepts writes again after"))
        .unwrap_or_else(|| panic!("no reconnection reported:\n{}", out.stderr));
    eprintln!("after a 3 s outage: {again}");
    assert!(out.stderr.contains("stopped"), "{}", out.stderr);
    assert!(took < Duration::from_secs(40));
    let state: String = db.one(&format!(
        "SELECT state FROM kerai.crawler_status() WHERE pid = {pid}"
    ));
    assert_eq!(state, "stopped");
}

#[test]
fn sigterm_mid_job_hands_the_job_back_and_the_next_daemon_finishes_it() {
    // 40 pages (under trap_limit 50) at 4 a second: the crawl takes 10 s, so the SIGTERM lands
    // mid-job even on a loaded machine.
    let site = Site::of_pages(40);
    let db = TestDb::new("daemon_term");
    configure(&db, &site, "4");
    db.client()
        .execute("SELECT kerai.enqueue_job('t')", &[])
        .unwrap();
    let child = spawn(
        &db.url,
        &["daemon", "--lanes", "site", "--stop-timeout", "10"],
        &[],
    );
    assert!(
        until(
            &db,
            "SELECT count(*) >= 4 FROM kerai.pages",
            Duration::from_secs(30)
        ),
        "the daemon crawls"
    );
    term(&child);
    let (out, took) = wait_within(child, Duration::from_secs(30), "SIGTERM mid-job");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(took < Duration::from_secs(25), "stopped in {took:?}");
    assert!(
        out.stderr.contains("handed job"),
        "{}\n{}",
        out.stderr,
        out.stdout
    );
    // The job waits, its lease over, no URL held: the next fetcher takes it at once.
    let held: i64 = db.one("SELECT count(*) FROM kerai.job_urls WHERE status = 'leased'");
    assert_eq!(held, 0);
    let over: bool =
        db.one("SELECT status = 'RUNNING' AND lease_until <= now() FROM kerai.scrape_jobs");
    assert!(over);

    let out = kerai_env(&db.url, &["daemon", "--once", "--lanes", "site"], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let status: String = db.one("SELECT status FROM kerai.scrape_jobs");
    assert_eq!(status, "COMPLETED");
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    let versions: i64 = db.one("SELECT count(*) FROM kerai.page_versions");
    assert_eq!((pages, versions), (41, 41), "nothing lost or fetched twice");
}

#[test]
fn a_daemon_that_cannot_start_says_why() {
    let db = TestDb::new("daemon_refusals");
    let out = kerai(&db.url, &["daemon", "--once", "--agent", "nobody"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("agent \"nobody\" is not registered"),
        "{}",
        out.stderr
    );
    // A login that is not a fetcher: the refusal names the role to grant.
    let mut c = db.client();
    c.batch_execute(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'daemon_reader') THEN
             CREATE ROLE daemon_reader LOGIN; END IF; END $$;
         GRANT kerai_reader TO daemon_reader",
    )
    .unwrap();
    let url = kerai_e2e::run::as_role(&db.url, "daemon_reader");
    let out = std::process::Command::new(kerai_e2e::bin())
        .args(["daemon", "--once"])
        .env("DATABASE_URL", &url)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("kerai_fetcher"), "{stderr}");
    assert!(stderr.contains("GRANT kerai_fetcher"), "{stderr}");
    // No database: a clear error at once, not a retry loop.
    let t = Instant::now();
    let out = std::process::Command::new(kerai_e2e::bin())
        .args(["daemon"])
        .env("DATABASE_URL", "postgresql://postgres@127.0.0.1:1/none")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot connect"));
}

/// A login the server refuses when the daemon reconnects (its role made NOLOGIN while it ran)
/// does not heal: the daemon stops with the server's reason instead of retrying for ever.
#[test]
fn a_daemon_whose_login_is_refused_on_reconnect_stops() {
    let db = TestDb::new("daemon_refused");
    let mut c = db.client();
    c.batch_execute(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'daemon_refused') THEN
             CREATE ROLE daemon_refused LOGIN; END IF; END $$;
         ALTER ROLE daemon_refused LOGIN;
         GRANT kerai_fetcher TO daemon_refused",
    )
    .unwrap();
    let url = kerai_e2e::run::as_role(&db.url, "daemon_refused");
    let child = std::process::Command::new(kerai_e2e::bin())
        .arg("daemon")
        .env("DATABASE_URL", &url)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let connected = "SELECT count(*) >= 2 FROM pg_stat_activity WHERE usename = 'daemon_refused'";
    assert!(
        until(&db, connected, Duration::from_secs(30)),
        "the daemon connected"
    );
    c.batch_execute(
        "ALTER ROLE daemon_refused NOLOGIN;
         SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'daemon_refused'",
    )
    .unwrap();
    let (out, took) = wait_within(
        child,
        Duration::from_secs(60),
        "a daemon whose login is refused",
    );
    c.batch_execute("ALTER ROLE daemon_refused LOGIN").unwrap();
    eprintln!(
        "stopped {took:?} after the login was refused:\n{}",
        out.stderr
    );
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("not permitted to log in") && out.stderr.contains("refused the login"),
        "{}",
        out.stderr
    );
}
