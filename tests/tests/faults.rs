//! Disk and database faults: a database that turns read-only or refuses connections pauses the
//! fetcher and the daemon with a clear message, and they go on when it is back, losing nothing;
//! a full disk for the browser's profile fails the rendered pages, not the job.

use kerai_e2e::cluster::Cluster;
use kerai_e2e::db::cli_role;
use kerai_e2e::{kerai, spawn, wait, Site};
use std::process::Child;
use std::time::{Duration, Instant};

const LEASE: (&str, &str) = ("KERAI_LEASE_SECONDS", "3");

/// A private cluster (read-only mode is set for the whole server) with kerai in `corpus`.
fn cluster(label: &str) -> (Cluster, String) {
    let cluster = Cluster::start(label, "");
    cluster
        .client("postgres")
        .batch_execute("CREATE DATABASE corpus")
        .unwrap();
    let mut c = cluster.client("corpus");
    c.batch_execute("CREATE EXTENSION kerai CASCADE").unwrap();
    cli_role(&mut c);
    let url = cluster.url("corpus");
    (cluster, url)
}

fn configure(url: &str, site: &Site) {
    let out = kerai(
        url,
        &[
            "config",
            "set",
            "t",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=8",
            "per_host_concurrency=1",
            "use_sitemaps=false",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// The whole server read-only (as an administrator, or a standby, makes it), or writable again.
fn read_only(cluster: &Cluster, on: bool) {
    let mut c = cluster.client("postgres");
    c.batch_execute("SET default_transaction_read_only = off")
        .unwrap();
    c.batch_execute(if on {
        "ALTER SYSTEM SET default_transaction_read_only = on"
    } else {
        "ALTER SYSTEM RESET default_transaction_read_only"
    })
    .unwrap();
    c.batch_execute("SELECT pg_reload_conf()").unwrap();
}

fn count(cluster: &Cluster, sql: &str) -> i64 {
    cluster.client("corpus").query_one(sql, &[]).unwrap().get(0)
}

fn until_pages(cluster: &Cluster, n: i64, child: &mut Child) {
    let t = Instant::now();
    while count(cluster, "SELECT count(*) FROM kerai.pages") < n {
        assert!(
            child.try_wait().unwrap().is_none(),
            "kerai ended before {n} pages"
        );
        assert!(t.elapsed() < Duration::from_secs(60), "no {n} pages");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn wait_within(mut child: Child, within: Duration) -> kerai_e2e::Output {
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > within {
            let _ = child.kill();
            let out = wait(child);
            panic!("still running after {within:?}\n{}", out.stderr);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    wait(child)
}

/// Every page once, every job done, nothing failed.
fn nothing_lost(cluster: &Cluster, pages: i64) {
    let got = (
        count(cluster, "SELECT count(*) FROM kerai.pages"),
        count(cluster, "SELECT count(*) FROM kerai.page_versions"),
        count(
            cluster,
            "SELECT count(*) FROM kerai.nodes WHERE kind = 'document'",
        ),
        count(
            cluster,
            "SELECT count(*) FROM kerai.job_urls WHERE status <> 'done'",
        ),
        count(
            cluster,
            "SELECT count(*) FROM kerai.scrape_jobs WHERE status <> 'COMPLETED'",
        ),
    );
    assert_eq!(
        got,
        (pages, pages, pages, 0, 0),
        "(pages, versions, documents, URLs not done, jobs not completed)"
    );
}

#[test]
fn kerai_run_pauses_while_the_database_is_read_only_or_away_and_loses_nothing() {
    let (cluster, url) = cluster("faults_run");
    let site = Site::of_pages(40);
    configure(&url, &site);
    let mut child = spawn(&url, &["run", "t", "--no-progress", "--no-embed"], &[LEASE]);

    until_pages(&cluster, 8, &mut child);
    read_only(&cluster, true);
    std::thread::sleep(Duration::from_secs(2));
    let during = count(&cluster, "SELECT count(*) FROM kerai.pages");
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        child.try_wait().unwrap().is_none(),
        "kerai run pauses, it does not end"
    );
    assert_eq!(
        count(&cluster, "SELECT count(*) FROM kerai.pages"),
        during,
        "nothing is written while read-only"
    );
    read_only(&cluster, false);

    // Then the database refuses connections for 3 s, and ends the ones it had.
    until_pages(&cluster, during + 8, &mut child);
    let mut admin = cluster.client("postgres");
    admin
        .batch_execute("ALTER DATABASE corpus ALLOW_CONNECTIONS false")
        .unwrap();
    let ended: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = 'corpus'",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(ended >= 2, "the fetcher's connections: {ended}");
    std::thread::sleep(Duration::from_secs(3));
    if child.try_wait().unwrap().is_some() {
        let out = wait(child);
        panic!("kerai run waits for the database:\n{}", out.stderr);
    }
    admin
        .batch_execute("ALTER DATABASE corpus ALLOW_CONNECTIONS true")
        .unwrap();

    let out = wait_within(child, Duration::from_secs(120));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    for said in [
        "the database is read-only (default_transaction_read_only is on, or it is a standby): job",
        "pauses until it accepts writes again",
        "the database refuses connections: job",
        "accepts writes again after",
    ] {
        assert!(out.stderr.contains(said), "{said}:\n{}", out.stderr);
    }
    assert!(out.stdout.contains("COMPLETED"), "{}", out.stdout);
    nothing_lost(&cluster, 41);
}

#[test]
fn the_daemon_pauses_while_the_database_is_read_only_or_away_and_loses_nothing() {
    let (cluster, url) = cluster("faults_daemon");
    let site = Site::of_pages(40);
    configure(&url, &site);
    let mut child = spawn(
        &url,
        &["daemon", "--lanes", "site", "--poll", "1", "--rate", "60"],
        &[LEASE],
    );
    cluster
        .client("corpus")
        .execute("SELECT kerai.enqueue_job('t')", &[])
        .unwrap();
    until_pages(&cluster, 8, &mut child);
    read_only(&cluster, true);
    std::thread::sleep(Duration::from_secs(5));
    assert!(child.try_wait().unwrap().is_none(), "the daemon pauses");
    read_only(&cluster, false);

    // Then the database refuses connections for 3 s, and ends the ones it had.
    let during = count(&cluster, "SELECT count(*) FROM kerai.pages");
    until_pages(&cluster, during + 4, &mut child);
    let mut admin = cluster.client("postgres");
    admin
        .batch_execute("ALTER DATABASE corpus ALLOW_CONNECTIONS false")
        .unwrap();
    admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = 'corpus'",
            &[],
        )
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    if child.try_wait().unwrap().is_some() {
        let out = wait(child);
        panic!("the daemon waits for the database:\n{}", out.stderr);
    }
    admin
        .batch_execute("ALTER DATABASE corpus ALLOW_CONNECTIONS true")
        .unwrap();

    let t = Instant::now();
    while count(
        &cluster,
        "SELECT count(*) FROM kerai.scrape_jobs WHERE status = 'COMPLETED'",
    ) == 0
    {
        assert!(
            t.elapsed() < Duration::from_secs(90),
            "the job completes after the pause"
        );
        assert!(child.try_wait().unwrap().is_none(), "the daemon runs on");
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let out = wait_within(child, Duration::from_secs(30));
    for said in [
        "the database is read-only (default_transaction_read_only is on, or it is a standby)",
        "the database refuses connections",
        "accepts writes again after",
    ] {
        assert!(out.stderr.contains(said), "{said}:\n{}", out.stderr);
    }
    nothing_lost(&cluster, 41);
}

/// A tmpfs of `kib` KiB at `dir`, filled to the last byte; unmounted on drop.
struct FullDisk(std::path::PathBuf);

impl FullDisk {
    fn mount(dir: &std::path::Path, kib: u32) -> FullDisk {
        std::fs::create_dir_all(dir).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(dir)
            .status()
            .unwrap();
        assert!(
            ok.success(),
            "mount a tmpfs at {} (the tests run as root)",
            dir.display()
        );
        // Fill it: writing stops at "no space left on device".
        let _ = std::process::Command::new("dd")
            .args(["if=/dev/zero", "bs=4096"])
            .arg(format!("of={}/fill", dir.display()))
            .stderr(std::process::Stdio::null())
            .status();
        FullDisk(dir.to_path_buf())
    }

    fn free(&self) {
        std::fs::remove_file(self.0.join("fill")).unwrap();
    }
}

impl Drop for FullDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn a_full_disk_for_rendering_fails_the_page_not_the_job() {
    let db = kerai_e2e::TestDb::new("faults_disk");
    let site = Site::start();
    let pdf = std::fs::read(
        kerai_e2e::repo_root().join("crates/kerai-core/tests/fixtures/convert/report.pdf"),
    )
    .unwrap();
    site.page("/report.pdf", "application/pdf", pdf);
    site.html("/", "<html><body><main><h1>Home</h1><p>The home page of the rendered site, with text enough to count.</p></main></body></html>");
    site.html("/about", "<html><body><main><h1>About</h1><p>About this site: a page with text enough to be content.</p></main></body></html>");
    let sitemap = format!(
        "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
         <url><loc>{}</loc></url><url><loc>{}</loc></url><url><loc>{}</loc></url></urlset>",
        site.url("/"),
        site.url("/about"),
        site.url("/report.pdf")
    );
    site.page("/sitemap.xml", "application/xml", sitemap);
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "js",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "render=true",
            "file_types=html,pdf",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);

    let dir = std::path::PathBuf::from(format!("/var/tmp/kerai-full-{}", std::process::id()));
    let disk = FullDisk::mount(&dir, 64 * 1024);
    let tmp = dir.to_str().unwrap();
    let full =
        kerai_e2e::run::command(&db.url, &["run", "js", "--no-progress"], &[("TMPDIR", tmp)])
            .output()
            .unwrap();
    let stderr = String::from_utf8_lossy(&full.stderr);
    let stdout = String::from_utf8_lossy(&full.stdout);
    assert_eq!(
        full.status.code(),
        Some(1),
        "some pages failed, the job did not:\n{stdout}\n{stderr}"
    );
    let status: String = db.one("SELECT status FROM kerai.scrape_jobs");
    assert_eq!(status, "COMPLETED");
    let errors: Vec<String> = db
        .client()
        .query(
            "SELECT error FROM kerai.job_urls WHERE status = 'failed' ORDER BY url",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(errors.len(), 2, "the two HTML pages: {errors:?}");
    for e in &errors {
        assert!(
            e.contains("no room for the browser's profile") && e.contains(tmp),
            "{e}"
        );
    }
    let pdfs: i64 =
        db.one("SELECT count(*) FROM kerai.pages WHERE url LIKE '%.pdf' AND last_status = 'new'");
    assert_eq!(pdfs, 1, "the PDF, not rendered, is stored");

    // With room again, the failed pages are fetched and rendered.
    disk.free();
    let again = kerai_e2e::run::command(
        &db.url,
        &["retry-failures", "js", "--no-progress"],
        &[("TMPDIR", tmp)],
    )
    .output()
    .unwrap();
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&again.stdout),
        String::from_utf8_lossy(&again.stderr)
    );
    let stored: i64 = db.one("SELECT count(*) FROM kerai.pages WHERE last_status = 'new'");
    assert_eq!(stored, 3);
}
