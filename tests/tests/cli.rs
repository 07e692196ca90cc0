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
    let test_json = kerai(&db.url, &["config", "test", "t", "--format", "json"]);
    assert_eq!(test_json.code, 0, "{}", test_json.stderr);
    let tj = test_json.json();
    assert_eq!(tj["valid"], true, "{tj}");
    assert_eq!(tj["targets"][0]["target"], "t");
    assert_eq!(tj["targets"][0]["problems"], serde_json::json!([]));
    assert_eq!(tj["targets"][0]["scope"]["urls"][0], site.url("/"), "{tj}");
    assert_eq!(tj["targets"][0]["scope"]["max_pages"], 9);

    let targets = kerai(&db.url, &["targets", "--format", "json"]);
    assert_eq!(targets.code, 0, "{}", targets.stderr);
    let tl = targets.json();
    assert_eq!(tl.as_array().map(Vec::len), Some(1), "{tl}");
    assert_eq!(tl[0]["name"], "t");
    assert_eq!(tl[0]["base_url"], site.url("/"));
    assert_eq!(tl[0]["config_version"], 3);
    assert_eq!(tl[0]["file_types"], serde_json::json!(["html", "pdf"]));
    assert_eq!(tl[0]["config"]["trailing_slash"], "keep");
    let table = kerai(&db.url, &["targets"]);
    assert!(
        table.stdout.contains("config version") && table.stdout.contains("html,pdf"),
        "{}",
        table.stdout
    );

    // Bad input: every problem named, exit code 2, nothing stored.
    std::fs::write(
        &file,
        "[targets.bad]\nbase_url = \"ftp://x\"\nfile_types = [\"exe\"]\nallowed_domains = [\"\"]\n",
    )
    .unwrap();
    let bad_json = kerai(
        &db.url,
        &[
            "config",
            "test",
            "--file",
            file.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(bad_json.code, 2);
    let bj = bad_json.json();
    assert_eq!(bj["valid"], false);
    assert_eq!(bj["targets"][0]["target"], "bad");
    assert!(bj["targets"][0]["scope"].is_null());
    let problems = bj["targets"][0]["problems"].to_string();
    assert!(
        problems.contains("file_types: \\\"exe\\\" is not supported"),
        "{problems}"
    );
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
        &[
            "retry-failures",
            "t",
            "--window",
            "1h",
            "--no-progress",
            "--format",
            "json",
        ],
    );
    assert_eq!(retry.code, 0, "{}\n{}", retry.stdout, retry.stderr);
    assert_eq!(site.hit_count("/broken"), 1);
    assert_eq!(site.hit_count("/a"), 0);
    let fixed: String = db.one("SELECT last_status FROM kerai.pages WHERE url LIKE '%/broken'");
    assert_eq!(fixed, "new");
    let rj = retry.json();
    assert_eq!(rj["mode"], "retry");
    assert_eq!(rj["status"], "COMPLETED");
    assert_eq!(rj["window"], "1h");
    assert_eq!(rj["retried_urls"], serde_json::json!([site.url("/broken")]));
    assert_eq!(rj["metrics"]["new_count"], 1, "{rj}");
    // Nothing left to retry: still one JSON document.
    let none = kerai(&db.url, &["retry-failures", "t", "--format", "json"]);
    assert_eq!(none.code, 0, "{}", none.stderr);
    let nj = none.json();
    assert_eq!(nj["retried_urls"], serde_json::json!([]));
    assert!(nj["job"].is_null(), "{nj}");
    let none = kerai(&db.url, &["retry-failures", "t"]);
    assert!(
        none.stdout.starts_with("no failures of t"),
        "{}",
        none.stdout
    );
}

#[test]
fn every_command_explains_itself_with_examples() {
    // No database needed for --help.
    for (args, example) in [
        (
            vec!["run", "--help"],
            "kerai run intranet --since 2026-05-01",
        ),
        (vec!["retry-failures", "--help"], "--format json"),
        (
            vec!["schedule", "get", "--help"],
            "kerai schedule get --format json",
        ),
        (
            vec!["config", "test", "--help"],
            "kerai config test --file targets.toml",
        ),
        (vec!["targets", "--help"], "kerai targets --format json"),
        (vec!["worker", "--help"], "kerai worker --once"),
    ] {
        let out = kerai("postgresql://nobody@127.0.0.1:1/none", &args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(
            out.stdout.contains("Examples:") && out.stdout.contains(example),
            "{args:?}:\n{}",
            out.stdout
        );
    }
}

#[test]
fn schedules_go_through_pg_cron() {
    // pg_cron lives in one database per cluster (cron.database_name = kerai_cron in the test cluster).
    let db = TestDb::existing("kerai_cron");
    db.client()
        .batch_execute(
            "CREATE EXTENSION IF NOT EXISTS pg_cron; CREATE EXTENSION IF NOT EXISTS kerai CASCADE;
             -- pg_cron's own grant: editors may schedule (the job runs as the user who scheduled it)
             GRANT USAGE ON SCHEMA cron TO kerai_editor",
        )
        .unwrap();
    kerai_e2e::db::cli_role(&mut db.client());
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
    let get_json = kerai(
        &db.url,
        &["schedule", "get", "cronsite", "--format", "json"],
    );
    assert_eq!(get_json.code, 0, "{}", get_json.stderr);
    let gj = get_json.json();
    assert_eq!(gj.as_array().map(Vec::len), Some(1), "{gj}");
    assert_eq!(gj[0]["target"], "cronsite");
    assert_eq!(gj[0]["cron"], "0 3 * * 1");
    assert_eq!(gj[0]["job_name"], "kerai:cronsite");
    let next = gj[0]["next_run_at"].as_str().unwrap_or("");
    assert!(next.ends_with("T03:00:00Z"), "{gj}");
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
    // Another test creating its database at this moment can make pg_cron miss the change.
    kerai_e2e::db::pg_cron_reread_jobs(&mut db.client());
    let mut fired = 0i64;
    // Up to three minute boundaries: a loaded machine can start a run late.
    for _ in 0..750 {
        std::thread::sleep(std::time::Duration::from_millis(200));
        fired = db.one("SELECT count(*) FROM kerai.scrape_jobs WHERE launched_by = 'pg_cron'");
        if fired > 0 {
            break;
        }
    }
    let scheduler: String = db.one(
        "SELECT coalesce(string_agg(format('%s %s %s', backend_type, wait_event_type, wait_event), '; '), 'no scheduler')
           FROM pg_stat_activity WHERE backend_type LIKE 'pg_cron%'",
    );
    let jobs: String = db.one(
        "SELECT coalesce(string_agg(format('%s %s %s active=%s', jobid, jobname, schedule, active), '; '), 'none')
           FROM cron.job",
    );
    let runs: String = db.one(
        "SELECT coalesce(string_agg(format('%s %s %s', jobid, status, start_time), '; '), 'none') FROM cron.job_run_details",
    );
    assert_eq!(
        fired, 1,
        "pg_cron queued the crawl (scheduler: {scheduler}; jobs: {jobs}; runs: {runs})"
    );
    let removed = kerai(&db.url, &["schedule", "remove", "cronsite"]);
    assert!(removed.stdout.contains("removed"), "{}", removed.stdout);
    let left: i64 = db.one("SELECT count(*) FROM cron.job WHERE jobname = 'kerai:cronsite'");
    assert_eq!(left, 0);
    db.client()
        .batch_execute("DELETE FROM kerai.targets WHERE name = 'cronsite'")
        .unwrap();
}

#[test]
fn extract_reads_damaged_markdown_lossily() {
    // NUL bytes and bytes that are not UTF-8: decoded as Windows-1252 with a warning, NULs
    // dropped, exit 0. No database needed.
    let file = kerai_e2e::repo_root().join("crates/kerai-core/tests/fixtures/convert/corrupt.md");
    let out = kerai(
        "postgresql://nobody@127.0.0.1:1/none",
        &["extract", file.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let j = out.json();
    assert_eq!(j["source_type"], "md");
    assert_eq!(j["title"], "Release checklist v3");
    assert_eq!(
        j["warnings"],
        serde_json::json!(["decoded as windows-1252"])
    );
    let md = j["markdown"].as_str().unwrap();
    assert!(!md.contains('\0') && md.contains("(résumé ÿ)"), "{md}");
    // Binary noise named .md is refused in the catalogue's words.
    let noise = std::env::temp_dir().join(format!("kerai-noise-{}.md", std::process::id()));
    let mut bytes = b"# Title\n".to_vec();
    bytes.extend((0..400u32).map(|i| (i % 8) as u8 + 1));
    std::fs::write(&noise, bytes).unwrap();
    let bad = kerai(
        "postgresql://nobody@127.0.0.1:1/none",
        &["extract", noise.to_str().unwrap()],
    );
    let _ = std::fs::remove_file(&noise);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains(&format!(
            "corrupt or unsupported document: {} (binary data, not text)",
            noise.display()
        )),
        "{}",
        bad.stderr
    );
}

/// The fetcher and the extension share an API version; a database whose extension speaks
/// another one, or has none, or has no kerai at all, is refused before any work, with a
/// message naming both versions and what to upgrade.
#[test]
fn a_fetcher_refuses_an_extension_of_another_api_version() {
    let db = TestDb::new("cliapi");
    let ok = kerai(&db.url, &["targets"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let api: i32 = db.one("SELECT kerai._api_version()");
    // An extension from the future: its API is one ahead of this fetcher's.
    db.client()
        .batch_execute(&format!(
            "CREATE OR REPLACE FUNCTION kerai._api_version() RETURNS integer LANGUAGE sql AS 'SELECT {}'",
            api + 1
        ))
        .unwrap();
    let newer = kerai(&db.url, &["status"]);
    assert_eq!(newer.code, 2, "{}", newer.stderr);
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        newer
            .stderr
            .contains(&format!("this kerai fetcher ({version}, API {api})"))
            && newer.stderr.contains(&format!("(API {})", api + 1))
            && newer.stderr.contains("hint: the fetcher is older"),
        "{}",
        newer.stderr
    );
    // An extension from before API versions.
    db.client()
        .batch_execute("ALTER EXTENSION kerai DROP FUNCTION kerai._api_version(); DROP FUNCTION kerai._api_version()")
        .unwrap();
    let older = kerai(&db.url, &["run"]);
    assert_eq!(older.code, 2, "{}", older.stderr);
    assert!(
        older.stderr.contains("predates API versions")
            && older.stderr.contains("ALTER EXTENSION kerai UPDATE"),
        "{}",
        older.stderr
    );
    // No extension at all.
    let empty = TestDb::empty("clinoext");
    let none = kerai(&empty.url, &["status"]);
    assert_eq!(none.code, 2, "{}", none.stderr);
    assert!(
        none.stderr.contains(&format!(
            "the kerai extension is not installed in database {}",
            empty.name
        )) && none.stderr.contains("CREATE EXTENSION kerai CASCADE"),
        "{}",
        none.stderr
    );
}
