//! The `kerai` command line: config, status, report, logs, retry-failures, schedule, exit
//! codes and error messages, as a person or a script sees them.

use kerai_e2e::{kerai, Behavior, Site, TestDb};

fn small_site() -> Site {
    let site = Site::start();
    site.html("/", "<html><body><main><h1>Home</h1><p>Welcome to the small test site of the command-line tests.</p><a href=\"/a\">A</a> <a href=\"/broken\">broken</a></main></body></html>");
    site.html("/a", "<html><body><main><h1>A</h1><p>The page called A, with enough words to count as content.</p></main></body></html>");
    site.set(
        "/broken",
        Behavior::Status {
            status: 500,
            headers: vec![],
            body: b"oops".to_vec(),
        },
    );
    site
}

#[test]
fn config_set_get_test_and_versions() {
    let site = small_site();
    let db = TestDb::new("cliconfig");
    let set = kerai(
        &db.url,
        &[
            "config",
            "set",
            "t",
            "--base-url",
            &site.url("/"),
            "max_pages=7",
            "file_types=html,pdf",
        ],
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert!(set.stdout.contains("config version 1"), "{}", set.stdout);
    let again = kerai(&db.url, &["config", "set", "t", "max_pages=8"]);
    assert!(
        again.stdout.contains("config version 2"),
        "{}",
        again.stdout
    );
    let same = kerai(&db.url, &["config", "set", "t", "max_pages=8"]);
    assert!(
        same.stdout.contains("config version 2"),
        "an unchanged config is not a new version: {}",
        same.stdout
    );

    let get = kerai(&db.url, &["config", "get", "t"]);
    assert_eq!(get.code, 0);
    assert!(
        get.stdout.contains("[targets.t]") && get.stdout.contains("max_pages = 8"),
        "{}",
        get.stdout
    );
    // What `config get` prints, `config set --file` reads back.
    let file = std::env::temp_dir().join(format!("kerai-{}.toml", std::process::id()));
    std::fs::write(&file, get.stdout.replace("max_pages = 8", "max_pages = 9")).unwrap();
    let from_file = kerai(
        &db.url,
        &["config", "set", "--file", file.to_str().unwrap()],
    );
    assert_eq!(from_file.code, 0, "{}", from_file.stderr);
    let max: i64 =
        db.one("SELECT (config->>'max_pages')::bigint FROM kerai.targets WHERE name = 't'");
    assert_eq!(max, 9);
    let versions: i64 = db.one("SELECT count(*) FROM kerai.target_config_versions");
    assert_eq!(versions, 3);

    let test = kerai(&db.url, &["config", "test", "t"]);
    assert_eq!(test.code, 0, "{}", test.stderr);
    assert!(
        test.stdout.contains("config is valid") && test.stdout.contains("would start with"),
        "{}",
        test.stdout
    );

    // Bad input: every problem named, exit code 2, nothing stored.
    std::fs::write(
        &file,
        "[targets.bad]\nbase_url = \"ftp://x\"\nfile_types = [\"exe\"]\nallowed_domains = [\"\"]\n",
    )
    .unwrap();
    let bad = kerai(
        &db.url,
        &["config", "test", "--file", file.to_str().unwrap()],
    );
    assert_eq!(bad.code, 2);
    assert!(
        bad.stdout
            .contains("base_url: \"ftp://x\" is not an http(s) URL"),
        "{}",
        bad.stdout
    );
    assert!(
        bad.stdout.contains("file_types: \"exe\" is not supported"),
        "{}",
        bad.stdout
    );
    assert!(
        bad.stdout
            .contains("allowed_domains: must list at least one non-empty domain"),
        "{}",
        bad.stdout
    );
    let refused = kerai(
        &db.url,
        &["config", "set", "--file", file.to_str().unwrap()],
    );
    assert_eq!(refused.code, 2);
    assert!(
        refused
            .stderr
            .contains("target \"bad\" has an invalid config"),
        "{}",
        refused.stderr
    );
    let unknown = kerai(&db.url, &["config", "set", "t", "max_pagez=1"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("unknown config key \"max_pagez\"")
            && unknown.stderr.contains("hint:"),
        "{}",
        unknown.stderr
    );
    let missing = kerai(&db.url, &["run", "nope"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("target \"nope\" does not exist"),
        "{}",
        missing.stderr
    );
    let _ = std::fs::remove_file(file);
}

#[test]
fn run_report_status_logs_and_retry() {
    let site = small_site();
    let db = TestDb::new("clirun");
    kerai(
        &db.url,
        &[
            "config",
            "set",
            "t",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "use_sitemaps=false",
            "retries=1",
        ],
    );
    let run = kerai(&db.url, &["run", "t", "--no-progress"]);
    assert_eq!(
        run.code, 1,
        "one URL failed: partial success\n{}\n{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stdout.contains("total") && run.stdout.contains("html"),
        "{}",
        run.stdout
    );

    let report = kerai(&db.url, &["report", "t", "--format", "json"]);
    assert_eq!(report.code, 0);
    let r = report.json();
    assert_eq!(r["metrics"]["new_count"], 2);
    assert_eq!(r["metrics"]["error_count"], 1);
    assert_eq!(r["exit_code"], 1);
    assert_eq!(r["launched_by"], "e2e");
    assert!(
        r["started_at"].as_str().unwrap().ends_with('Z'),
        "ISO 8601 UTC: {r}"
    );

    let status = kerai(&db.url, &["status", "--format", "json"]);
    let s = status.json();
    assert_eq!(s["targets"][0]["target"], "t");
    assert!(
        s["targets"][0]["last_success_at"]
            .as_str()
            .unwrap()
            .ends_with('Z'),
        "{s}"
    );
    assert_eq!(s["corpus"]["documents"], 2);

    let errors = kerai(&db.url, &["logs", "t", "--level", "error"]);
    assert!(
        errors.stdout.contains("ITEM_FAILED")
            && errors.stdout.contains(&format!(
                "resource unreachable: {} (HTTP 500)",
                site.url("/broken")
            )),
        "{}",
        errors.stdout
    );
    assert!(!errors.stdout.contains("ITEM_NEW"), "{}", errors.stdout);
    let all = kerai(&db.url, &["logs", "t", "--format", "json"]);
    let events: Vec<String> = all
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["event"].as_str().unwrap().to_string())
        .collect();
    for e in [
        "CRAWL_STARTED",
        "PAGE_FETCHED",
        "ITEM_NEW",
        "ITEM_FAILED",
        "CRAWL_COMPLETED",
    ] {
        assert!(events.iter().any(|x| x == e), "{e} missing from {events:?}");
    }
    let future = kerai(&db.url, &["logs", "t", "--since", "2999-01-01"]);
    assert!(future.stdout.trim().is_empty(), "{}", future.stdout);
    let bad_time = kerai(&db.url, &["logs", "--since", "yesterday"]);
    assert_eq!(bad_time.code, 2);
    assert!(
        bad_time
            .stderr
            .contains("\"yesterday\" is not an ISO 8601 time"),
        "{}",
        bad_time.stderr
    );

    // The broken page is repaired; retry-failures fetches only it.
    site.html("/broken", "<html><body><main><h1>Fixed</h1><p>This page works again after the outage of this morning.</p></main></body></html>");
    site.clear_hits();
    let retry = kerai(
        &db.url,
        &["retry-failures", "t", "--window", "1h", "--no-progress"],
    );
    assert_eq!(retry.code, 0, "{}\n{}", retry.stdout, retry.stderr);
    assert_eq!(site.hit_count("/broken"), 1);
    assert_eq!(site.hit_count("/a"), 0);
    let fixed: String = db.one("SELECT last_status FROM kerai.pages WHERE url LIKE '%/broken'");
    assert_eq!(fixed, "new");
}

#[test]
fn schedules_go_through_pg_cron() {
    // pg_cron lives in one database per cluster (cron.database_name = kerai_cron in the test cluster).
    let db = TestDb::existing("kerai_cron");
    db.client()
        .batch_execute(
            "CREATE EXTENSION IF NOT EXISTS pg_cron; CREATE EXTENSION IF NOT EXISTS kerai CASCADE",
        )
        .unwrap();
    db.client()
        .batch_execute("DELETE FROM kerai.targets WHERE name = 'cronsite'")
        .unwrap();
    kerai(
        &db.url,
        &[
            "config",
            "set",
            "cronsite",
            "--base-url",
            "http://127.0.0.1:9/",
        ],
    );
    let bad = kerai(&db.url, &["schedule", "set", "cronsite", "61 * * * *"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("\"61 * * * *\" is not a valid cron expression"),
        "{}",
        bad.stderr
    );
    let set = kerai(&db.url, &["schedule", "set", "cronsite"]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert!(
        set.stdout.contains("'0 3 * * 1'") && set.stdout.contains("next run 20"),
        "weekly by default: {}",
        set.stdout
    );
    let get = kerai(&db.url, &["schedule", "get"]);
    assert!(
        get.stdout.contains("cronsite") && get.stdout.contains("0 3 * * 1"),
        "{}",
        get.stdout
    );
    let command: String = db.one("SELECT command FROM cron.job WHERE jobname = 'kerai:cronsite'");
    assert!(
        command.contains("kerai.enqueue_job('cronsite'"),
        "{command}"
    );
    // What pg_cron will run queues a job (and queueing twice keeps one pending job).
    db.client().batch_execute(&command).unwrap();
    db.client().batch_execute(&command).unwrap();
    let pending: i64 = db.one("SELECT count(*) FROM kerai.scrape_jobs j JOIN kerai.targets t ON t.id = j.target_id WHERE t.name = 'cronsite' AND j.status = 'PENDING'");
    assert_eq!(pending, 1);
    // pg_cron itself fires the schedule: every minute, a job appears, launched by pg_cron.
    db.client()
        .batch_execute("DELETE FROM kerai.scrape_jobs")
        .unwrap();
    let fast = kerai(&db.url, &["schedule", "set", "cronsite", "* * * * *"]);
    assert_eq!(fast.code, 0, "{}", fast.stderr);
    let mut fired = 0i64;
    for _ in 0..350 {
        std::thread::sleep(std::time::Duration::from_millis(200));
        fired = db.one("SELECT count(*) FROM kerai.scrape_jobs WHERE launched_by = 'pg_cron'");
        if fired > 0 {
            break;
        }
    }
    assert_eq!(fired, 1, "pg_cron queued the crawl");
    let removed = kerai(&db.url, &["schedule", "remove", "cronsite"]);
    assert!(removed.stdout.contains("removed"), "{}", removed.stdout);
    let left: i64 = db.one("SELECT count(*) FROM cron.job WHERE jobname = 'kerai:cronsite'");
    assert_eq!(left, 0);
    db.client()
        .batch_execute("DELETE FROM kerai.targets WHERE name = 'cronsite'")
        .unwrap();
}
