//! Chaos: a 3,000-page site crawled by a daemon and a fetcher that are killed with SIGKILL at
//! random moments (20 times), while Postgres restarts fast (3 times). At the end every page is
//! stored exactly once, no version is duplicated, no lease is left stuck and every job is
//! COMPLETED or FAILED with a reason.
//!
//! `KERAI_CHAOS_KILLS=100` runs the longer variant (docs/benchmarks.md); `KERAI_CHAOS_SEED`
//! repeats a run (the seed is printed).

use kerai_e2e::cluster::Cluster;
use kerai_e2e::db::cli_role;
use kerai_e2e::run::command;
use kerai_e2e::{kerai, Site};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const PAGES: usize = 3000;
const RESTARTS: usize = 3;
const LEASE: (&str, &str) = ("KERAI_LEASE_SECONDS", "3");

/// xorshift64*: the moments and victims, repeatable from the printed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Daemon,
    Fetcher,
}

/// The crew: one daemon and one `kerai run --join`, each started again when it ends, until
/// the job is done.
struct Crew {
    url: String,
    logs: std::path::PathBuf,
    members: Vec<(Role, Option<Child>)>,
    started: usize,
}

impl Crew {
    fn spawn(&mut self, role: Role) -> Child {
        self.started += 1;
        let log = self.logs.join(format!("{role:?}-{}.log", self.started));
        let out = std::fs::File::create(&log).unwrap();
        let args: &[&str] = match role {
            Role::Daemon => &["daemon", "--lanes", "site", "--poll", "1", "--rate", "0.5"],
            Role::Fetcher => &["run", "chaos", "--join", "--no-progress", "--no-embed"],
        };
        command(&self.url, args, &[LEASE])
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .expect("start kerai")
    }

    /// Start every member that is not running (the job still wants work).
    fn keep_up(&mut self) {
        for i in 0..self.members.len() {
            let role = self.members[i].0;
            let ended = match &mut self.members[i].1 {
                Some(c) => c.try_wait().unwrap().is_some(),
                None => true,
            };
            if ended {
                let child = self.spawn(role);
                self.members[i].1 = Some(child);
            }
        }
    }

    /// SIGKILL member `i`; its role.
    fn kill(&mut self, i: usize) -> Role {
        if let Some(c) = &mut self.members[i].1 {
            let _ = c.kill();
            let _ = c.wait();
        }
        self.members[i].1 = None;
        self.members[i].0
    }

    fn stop(&mut self) {
        for i in 0..self.members.len() {
            self.kill(i);
        }
    }
}

/// One number from the database, or None while it is away (restarting).
fn count(url: &str, sql: &str) -> Option<i64> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).ok()?;
    c.query_one(sql, &[]).ok().map(|r| r.get(0))
}

#[test]
fn killed_fetchers_and_restarted_postgres_lose_and_duplicate_nothing() {
    let kills: usize = std::env::var("KERAI_CHAOS_KILLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let seed: u64 = std::env::var("KERAI_CHAOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    println!("chaos: seed {seed} (KERAI_CHAOS_SEED={seed} repeats it), {kills} kills, {RESTARTS} restarts");
    let mut rng = Rng(seed);

    let cluster = Cluster::start("chaos", "max_connections = 60");
    cluster
        .client("postgres")
        .batch_execute("CREATE DATABASE corpus")
        .unwrap();
    let mut admin = cluster.client("corpus");
    admin
        .batch_execute("CREATE EXTENSION kerai CASCADE")
        .unwrap();
    cli_role(&mut admin);
    let url = cluster.url("corpus");

    let site = Site::of_pages(PAGES);
    let out = kerai(
        &url,
        &[
            "config",
            "set",
            "chaos",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "per_host_concurrency=4",
            "concurrency=4",
            "use_sitemaps=false",
            "trap_limit=100000",
            "max_pages=10000",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    admin
        .execute("SELECT kerai.enqueue_job('chaos')", &[])
        .unwrap();
    drop(admin);

    let logs = cluster.dir.join("fetchers");
    std::fs::create_dir_all(&logs).unwrap();
    let mut crew = Crew {
        url: url.clone(),
        logs: logs.clone(),
        members: vec![(Role::Daemon, None), (Role::Fetcher, None)],
        started: 0,
    };
    crew.keep_up();

    // The events (kills and restarts, shuffled) fire as the stored pages pass thresholds spread
    // over 2 % to 85 % of the site, each a random 0–400 ms after its threshold.
    let mut events: Vec<bool> = (0..kills)
        .map(|_| false)
        .chain((0..RESTARTS).map(|_| true))
        .collect();
    for i in (1..events.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        events.swap(i, j);
    }
    let total = events.len();
    let pages_sql = "SELECT count(*) FROM kerai.pages";
    let unfinished_sql =
        "SELECT count(*) FROM kerai.scrape_jobs WHERE status IN ('PENDING', 'RUNNING')";
    let t = Instant::now();
    let deadline = Duration::from_secs(if kills > 20 { 900 } else { 300 });
    let (mut killed_daemon, mut killed_fetcher, mut restarts) = (0, 0, 0);
    for (n, restart) in events.iter().enumerate() {
        let threshold = (PAGES as f64 * (0.02 + 0.83 * n as f64 / total as f64)) as i64;
        loop {
            assert!(
                t.elapsed() < deadline,
                "the crawl stalled before event {n} (threshold {threshold} pages): {:?} pages\n{}",
                count(&url, pages_sql),
                tail_logs(&logs)
            );
            crew.keep_up();
            if count(&url, pages_sql).unwrap_or(0) >= threshold {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(rng.below(400)));
        if *restart {
            cluster.restart();
            restarts += 1;
        } else {
            match crew.kill(rng.below(2) as usize) {
                Role::Daemon => killed_daemon += 1,
                Role::Fetcher => killed_fetcher += 1,
            }
            // Sometimes both are down for a moment.
            if rng.below(4) == 0 {
                std::thread::sleep(Duration::from_millis(rng.below(1500)));
            }
        }
    }
    let chaos_took = t.elapsed();

    // The chaos is over: the crew finishes the job.
    loop {
        assert!(
            t.elapsed() < deadline,
            "the job did not finish after the chaos: {:?} pages\n{}",
            count(&url, pages_sql),
            tail_logs(&logs)
        );
        if count(&url, unfinished_sql) == Some(0) {
            break;
        }
        crew.keep_up();
        std::thread::sleep(Duration::from_millis(200));
    }
    let took = t.elapsed();
    crew.stop();

    let mut c = cluster.client("corpus");
    let one = |c: &mut postgres::Client, sql: &str| -> i64 {
        c.query_one(sql, &[])
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .get(0)
    };
    let pages = one(&mut c, "SELECT count(*) FROM kerai.pages");
    let distinct_urls = one(&mut c, "SELECT count(DISTINCT url) FROM kerai.pages");
    let versions = one(&mut c, "SELECT count(*) FROM kerai.page_versions");
    let versioned = one(
        &mut c,
        "SELECT count(DISTINCT page_id) FROM kerai.page_versions",
    );
    let same_twice = one(
        &mut c,
        "SELECT count(*) FROM (SELECT page_id, content_hash FROM kerai.page_versions
                                GROUP BY 1, 2 HAVING count(*) > 1) d",
    );
    let documents = one(
        &mut c,
        "SELECT count(*) FROM kerai.nodes WHERE kind = 'document'",
    );
    let chunk_twice = one(
        &mut c,
        "SELECT count(*) FROM (SELECT document_id, chunk_index FROM kerai.chunks
                                GROUP BY 1, 2 HAVING count(*) > 1) d",
    );
    let leased = one(
        &mut c,
        "SELECT count(*) FROM kerai.job_urls WHERE status IN ('leased', 'pending')",
    );
    let urls_done = one(
        &mut c,
        "SELECT count(*) FROM kerai.job_urls WHERE status = 'done'",
    );
    let urls_failed = one(
        &mut c,
        "SELECT count(*) FROM kerai.job_urls WHERE status = 'failed'",
    );
    let urls_skipped = one(
        &mut c,
        "SELECT count(*) FROM kerai.job_urls WHERE status = 'skipped'",
    );
    let jobs = one(&mut c, "SELECT count(*) FROM kerai.scrape_jobs");
    let completed = one(
        &mut c,
        "SELECT count(*) FROM kerai.scrape_jobs WHERE status = 'COMPLETED'",
    );
    let failed_with_reason = one(
        &mut c,
        "SELECT count(*) FROM kerai.scrape_jobs WHERE status = 'FAILED' AND coalesce(error, '') <> ''",
    );
    let taken_over = one(
        &mut c,
        "SELECT count(*) FROM kerai.job_logs WHERE event IN ('CRAWL_TAKEN_OVER', 'CRAWL_RESUMED')",
    );
    let attempts_over_one = one(
        &mut c,
        "SELECT count(*) FROM kerai.job_urls WHERE attempts > 1",
    );
    println!(
        "chaos: {killed_daemon} daemon and {killed_fetcher} fetcher kills, {restarts} Postgres restarts \
         in {:.1} s; done after {:.1} s with {} processes started\n\
         chaos: pages {pages} (distinct URLs {distinct_urls}), versions {versions} (pages with a version \
         {versioned}), documents {documents}, job URLs done {urls_done} / failed {urls_failed} / skipped \
         {urls_skipped} / still leased or pending {leased}, URLs requested more than once {attempts_over_one}, jobs {jobs} \
         (COMPLETED {completed}, FAILED with a reason {failed_with_reason}), take-overs and resumes {taken_over}",
        chaos_took.as_secs_f64(),
        took.as_secs_f64(),
        crew.started,
    );

    // How each job went (who began, resumed, handed back and finished it, and what each of
    // its URLs came to), for a failure's message.
    let story: Vec<String> = c
        .query(
            "SELECT to_char(l.created_at, 'HH24:MI:SS.MS') || ' job ' || left(l.job_id::text, 8) || ' ' || l.event || ': '
                    || l.message
               FROM kerai.job_logs l
              WHERE l.event NOT LIKE 'ITEM\\_%' AND l.event NOT IN ('PAGE_FETCHED', 'DOC_DOWNLOADED')
              UNION ALL
             SELECT 'job ' || left(u.job_id::text, 8) || ' URLs ' || u.status || coalesce(' (' || u.error_kind || ')', '')
                    || ': ' || count(*) || ', leased by ' || coalesce(string_agg(DISTINCT u.leased_by, ', '), 'nobody')
               FROM kerai.job_urls u GROUP BY u.job_id, u.status, u.error_kind
              ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    for line in &story {
        println!("chaos: {line}");
    }

    assert_eq!(killed_daemon + killed_fetcher, kills);
    assert_eq!(restarts, RESTARTS);
    assert_eq!(pages, PAGES as i64 + 1, "every page of the site, once");
    assert_eq!(distinct_urls, pages, "no URL stored twice");
    assert_eq!(
        versions, pages,
        "one version a page: nothing changed on the site"
    );
    assert_eq!(versioned, pages);
    assert_eq!(same_twice, 0, "no version duplicated");
    assert_eq!(documents, pages, "one document a page");
    assert_eq!(chunk_twice, 0, "no chunk duplicated");
    assert_eq!(leased, 0, "no lease left stuck, nothing left waiting");
    assert_eq!(urls_failed, 0, "no page failed");
    assert_eq!(urls_skipped, 0, "no URL skipped (left unfetched)");
    assert_eq!(
        completed + failed_with_reason,
        jobs,
        "every job COMPLETED, or FAILED with a reason"
    );
    assert!(completed >= 1);
    assert!(taken_over >= 1, "killed holders' jobs were taken over");
}

/// The end of each fetcher log, for a failure message.
fn tail_logs(dir: &std::path::Path) -> String {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .rev()
        .take(4)
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            format!(
                "--- {}\n{}",
                f.display(),
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
