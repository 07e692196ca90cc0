//! Supervision from inside Postgres: `kerai.start_crawler()` runs `kerai daemon` under a
//! background worker, on a private cluster with kerai and pg_cron preloaded and
//! `kerai.autostart = on`. The daemon is restarted after `kill -9` and after a fast restart of
//! the server, the crawls it was running finish with nothing lost or fetched twice, pg_cron's
//! schedules drive it with no process started by hand, a daemon that cannot start backs off
//! and says why, and `stop_crawler()` leaves no kerai process behind.

use kerai_e2e::cluster::Cluster;
use kerai_e2e::run::process_runs;
use kerai_e2e::{bin, kerai_env, Site};
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

fn until(cluster: &Cluster, sql: &str, within: Duration) -> bool {
    let t = Instant::now();
    while t.elapsed() < within {
        if let Ok(mut c) = postgres::Client::connect(&cluster.url("corpus"), postgres::NoTls) {
            if c.query_one(sql, &[])
                .map(|r| r.get::<_, bool>(0))
                .unwrap_or(false)
            {
                return true;
            }
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    false
}

fn one<T: for<'a> postgres::types::FromSql<'a>>(cluster: &Cluster, sql: &str) -> T {
    cluster
        .client("corpus")
        .query_one(sql, &[])
        .unwrap_or_else(|e| {
            let why = e
                .as_db_error()
                .map(|d| d.message().to_string())
                .unwrap_or(e.to_string());
            panic!("{sql}: {why}\n{}", cluster.log())
        })
        .get(0)
}

/// Set `kerai.fetcher_path` (and arguments) for the database; new sessions see it.
fn fetcher(cluster: &Cluster, path: &std::path::Path, args: &str) {
    cluster
        .client("corpus")
        .batch_execute(&format!(
            "ALTER DATABASE corpus SET kerai.fetcher_path = '{}';
             ALTER DATABASE corpus SET kerai.fetcher_args = '{args}'",
            path.display()
        ))
        .unwrap();
}

#[test]
fn the_crawler_runs_supervised_from_inside_postgres() {
    let cluster = Cluster::start(
        "supervisor",
        "shared_preload_libraries = 'pg_cron,kerai'\ncron.database_name = 'corpus'\nkerai.autostart = on",
    );
    cluster
        .client("postgres")
        .batch_execute("CREATE DATABASE corpus")
        .unwrap();
    cluster
        .client("corpus")
        .batch_execute("CREATE EXTENSION kerai CASCADE; CREATE EXTENSION pg_cron")
        .unwrap();
    let url = cluster.url("corpus");

    // No fetcher set: refused at once, naming the setting.
    let err = cluster
        .client("corpus")
        .query_one("SELECT kerai.start_crawler()", &[])
        .unwrap_err();
    let msg = err
        .as_db_error()
        .map(|e| e.message().to_string())
        .unwrap_or_default();
    assert!(msg.contains("kerai.fetcher_path is not set"), "{msg}");

    // A daemon that dies at once: capped backoff, and the reason in crawler_status().
    let crashing = cluster.dir.join("crashing-kerai");
    std::fs::write(
        &crashing,
        "#!/bin/sh\necho 'kerai: error: cannot connect to the database: boom' >&2\nexit 2\n",
    )
    .unwrap();
    std::fs::set_permissions(&crashing, std::fs::Permissions::from_mode(0o755)).unwrap();
    fetcher(&cluster, &crashing, "");
    let started: String = one(&cluster, "SELECT kerai.start_crawler()");
    assert!(started.contains("started"), "{started}");
    assert!(
        until(
            &cluster,
            "SELECT EXISTS (SELECT 1 FROM kerai.crawler_status() WHERE worker = 'supervisor'
                 AND state = 'restarting' AND last_error LIKE '%boom%'
                 AND (work->>'starts')::int >= 3 AND (work->>'backoff_seconds')::int >= 2)",
            Duration::from_secs(30)
        ),
        "backing off with the last error: {:?}",
        one::<serde_json::Value>(
            &cluster,
            "SELECT to_jsonb(array_agg(s)) FROM kerai.crawler_status() s"
        )
    );
    assert!(one::<bool>(&cluster, "SELECT kerai.stop_crawler()"));
    assert!(
        until(
            &cluster,
            "SELECT state = 'stopped' FROM kerai.crawler_status() WHERE worker = 'supervisor'",
            Duration::from_secs(20)
        ),
        "the supervisor stops"
    );

    // The real daemon.
    let kerai = cluster.own_copy(&bin());
    fetcher(&cluster, &kerai, "--poll 2 --rate 5");
    let site = Site::of_pages(40);
    let out = kerai_env(
        &url,
        &[
            "config",
            "set",
            "t",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=10",
            "per_host_concurrency=1",
            "use_sitemaps=false",
        ],
        &[("DATABASE_URL", &url)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let started: String = one(&cluster, "SELECT kerai.start_crawler()");
    assert!(started.contains("started"), "{started}");
    let again: String = one(&cluster, "SELECT kerai.start_crawler()");
    assert!(again.contains("already supervised"), "{again}");
    assert!(
        until(
            &cluster,
            "SELECT count(*) = 1 FROM kerai.crawler_status() WHERE worker <> 'supervisor' AND state = 'running'",
            Duration::from_secs(30)
        ),
        "one daemon runs:\n{}",
        cluster.log()
    );
    std::thread::sleep(Duration::from_secs(2));
    let running: i64 = one(
        &cluster,
        "SELECT count(*) FROM kerai.crawler_status() WHERE worker <> 'supervisor' AND state = 'running'",
    );
    assert_eq!(running, 1, "two start_crawler() calls, one daemon");
    let mut daemons: Vec<i32> = vec![one(
        &cluster,
        "SELECT daemon_pid FROM kerai.crawler_supervisor",
    )];

    // A crawl queued from SQL; kill -9 of the daemon mid-crawl.
    cluster
        .client("corpus")
        .execute("SELECT kerai.enqueue_job('t')", &[])
        .unwrap();
    assert!(
        until(
            &cluster,
            "SELECT count(*) >= 8 FROM kerai.pages",
            Duration::from_secs(30)
        ),
        "the supervised daemon crawls"
    );
    let first = daemons[0];
    assert!(std::process::Command::new("kill")
        .args(["-9", &first.to_string()])
        .status()
        .unwrap()
        .success());
    let t = Instant::now();
    assert!(
        until(
            &cluster,
            &format!("SELECT daemon_pid IS NOT NULL AND daemon_pid <> {first} FROM kerai.crawler_supervisor"),
            Duration::from_secs(20)
        ),
        "the daemon is started again"
    );
    let restarted_in = t.elapsed();
    daemons.push(one(
        &cluster,
        "SELECT daemon_pid FROM kerai.crawler_supervisor",
    ));
    assert!(
        until(
            &cluster,
            "SELECT status = 'COMPLETED' FROM kerai.scrape_jobs",
            Duration::from_secs(60)
        ),
        "the crawl finishes after the kill"
    );
    let (pages, versions): (i64, i64) = (
        one(&cluster, "SELECT count(*) FROM kerai.pages"),
        one(&cluster, "SELECT count(*) FROM kerai.page_versions"),
    );
    assert_eq!((pages, versions), (41, 41), "nothing lost or duplicated");
    let killed_row: String = one(
        &cluster,
        &format!("SELECT state FROM kerai.crawler_status() WHERE pid = {first} AND worker <> 'supervisor'"),
    );
    assert_eq!(
        killed_row, "stopped",
        "the killed daemon's row ends with it"
    );
    eprintln!("daemon running again {restarted_in:?} after kill -9");

    // A fast restart of the server mid-crawl: the daemon is back and the crawl completes.
    cluster
        .client("corpus")
        .execute("SELECT kerai.enqueue_job('t', 'full')", &[])
        .unwrap();
    assert!(
        until(
            &cluster,
            "SELECT count(*) >= 5 FROM kerai.job_urls u JOIN kerai.scrape_jobs j ON j.id = u.job_id
              WHERE j.mode = 'full' AND u.status = 'done'",
            Duration::from_secs(30)
        ),
        "the second crawl is under way"
    );
    cluster.restart();
    assert!(
        until(
            &cluster,
            "SELECT count(*) = 2 FROM kerai.scrape_jobs WHERE status = 'COMPLETED'",
            Duration::from_secs(120)
        ),
        "the crawl completes after the restart:\n{}",
        cluster.log()
    );
    let state: String = one(
        &cluster,
        "SELECT state FROM kerai.crawler_status() WHERE worker = 'supervisor'",
    );
    assert_eq!(state, "supervising");
    let (pages, versions): (i64, i64) = (
        one(&cluster, "SELECT count(*) FROM kerai.pages"),
        one(&cluster, "SELECT count(*) FROM kerai.page_versions"),
    );
    assert_eq!(
        (pages, versions),
        (41, 41),
        "refetched, unchanged, no duplicate"
    );
    daemons.push(one(
        &cluster,
        "SELECT daemon_pid FROM kerai.crawler_supervisor",
    ));

    // pg_cron's schedules drive the daemon: a site crawl every minute and the citation cycle.
    let out = kerai_env(
        &url,
        &["schedule", "set", "t", "* * * * *"],
        &[("DATABASE_URL", &url)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    cluster
        .client("corpus")
        .execute("SELECT kerai.schedule_crawl('1 minute')", &[])
        .unwrap();
    assert!(
        until(
            &cluster,
            "SELECT count(*) >= 3 FROM kerai.scrape_jobs WHERE status = 'COMPLETED'",
            Duration::from_secs(150)
        ),
        "a scheduled crawl ran with no process started by hand"
    );
    assert!(
        until(
            &cluster,
            "SELECT EXISTS (SELECT 1 FROM cron.job_run_details r JOIN cron.job j ON j.jobid = r.jobid
                             WHERE j.jobname = 'kerai_crawl' AND r.status = 'succeeded')",
            Duration::from_secs(90)
        ),
        "pg_cron ran the citation cycle"
    );
    let out = kerai_env(
        &url,
        &["schedule", "remove", "t"],
        &[("DATABASE_URL", &url)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    cluster
        .client("corpus")
        .execute("SELECT kerai.unschedule_crawl()", &[])
        .unwrap();

    // stop_crawler(): the supervisor stops the daemon and exits; no kerai process is left.
    let supervisor: i32 = one(
        &cluster,
        "SELECT supervisor_pid FROM kerai.crawler_supervisor",
    );
    assert!(one::<bool>(&cluster, "SELECT kerai.stop_crawler()"));
    assert!(
        until(
            &cluster,
            "SELECT state = 'stopped' FROM kerai.crawler_status() WHERE worker = 'supervisor'",
            Duration::from_secs(60)
        ),
        "stopped"
    );
    let t = Instant::now();
    while daemons
        .iter()
        .chain([&supervisor])
        .any(|p| process_runs(*p))
        && t.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(200));
    }
    for pid in daemons.iter().chain([&supervisor]) {
        assert!(!process_runs(*pid), "process {pid} is still running");
    }
    let stopped: String = one(
        &cluster,
        &format!(
            "SELECT state FROM kerai.crawler_status() WHERE pid = {} AND worker <> 'supervisor'",
            daemons.last().unwrap()
        ),
    );
    assert_eq!(stopped, "stopped");
}
