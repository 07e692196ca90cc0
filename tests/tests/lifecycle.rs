//! A target's life after it is made: disabled (its schedule, the worker and `kerai run` leave it
//! alone), enabled again, deleted (saying first what goes; documents kept or removed), and
//! `kerai cancel` for a job.

use kerai_e2e::{kerai, Site, TestDb};

fn target(db: &TestDb, name: &str, site: &Site) {
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            name,
            "--base-url",
            &site.url("/"),
            "use_sitemaps=false",
            "rate_limit_rps=0",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn a_disabled_target_is_left_alone_until_enabled() {
    let site = Site::of_pages(3);
    let db = TestDb::new("lifecycle_disable");
    target(&db, "t", &site);
    let queued: uuid::Uuid = db.one("SELECT kerai.enqueue_job('t')");

    let out = kerai(&db.url, &["config", "disable", "t"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("target t disabled") && out.stdout.contains("1 queued jobs cancelled"),
        "{}",
        out.stdout
    );
    let status: String = db.one(&format!(
        "SELECT status FROM kerai.scrape_jobs WHERE id = '{queued}'"
    ));
    assert_eq!(status, "CANCELLED");
    let listed = kerai(&db.url, &["targets"]);
    assert!(listed.stdout.contains("t (disabled)"), "{}", listed.stdout);
    let json = kerai(&db.url, &["targets", "--format", "json"]).json();
    assert_eq!(json[0]["active"], false);

    // kerai run refuses it, naming the way back.
    let run = kerai(&db.url, &["run", "t", "--no-progress"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("target \"t\" is disabled")
            && run.stderr.contains("kerai config enable t"),
        "{}",
        run.stderr
    );
    // Its pg_cron schedule queues nothing, and says so.
    let none: Option<uuid::Uuid> =
        db.one("SELECT kerai.enqueue_job('t', 'incremental', '{}', 'pg_cron')");
    assert_eq!(none, None);
    let skipped: i64 =
        db.one("SELECT count(*) FROM kerai.job_logs WHERE event = 'SCHEDULE_SKIPPED'");
    assert_eq!(skipped, 1);
    // A worker does not start a job of it (one left behind by a crashed fetcher).
    db.client()
        .batch_execute(
            "INSERT INTO kerai.scrape_jobs (target_id, status, config_version, config, lease_until, started_at)
             SELECT id, 'RUNNING', config_version, config, now() - interval '1 minute', now() FROM kerai.targets",
        )
        .unwrap();
    let worker = kerai(&db.url, &["worker", "--once"]);
    assert_eq!(worker.code, 0, "{}", worker.stderr);
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    assert_eq!(pages, 0, "nothing crawled while disabled");

    let out = kerai(&db.url, &["config", "enable", "t"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("target t enabled"), "{}", out.stdout);
    let worker = kerai(&db.url, &["worker", "--once"]);
    assert!(worker.code <= 1, "{}", worker.stderr);
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    assert_eq!(pages, 4, "the left-behind job resumed once enabled");
    let logged: i64 = db.one(
        "SELECT count(*) FROM kerai.job_logs WHERE event IN ('TARGET_DISABLED', 'TARGET_ENABLED')",
    );
    assert_eq!(logged, 2);
}

#[test]
fn delete_says_what_goes_and_keeps_documents_unless_told() {
    let site = Site::of_pages(3);
    let db = TestDb::new("lifecycle_delete");
    target(&db, "t", &site);
    // Another site with other text (the same text would be the same documents).
    let elsewhere = Site::start();
    for (path, title) in [
        ("/", "Welcome"),
        ("/a", "Alpha"),
        ("/b", "Beta"),
        ("/c", "Gamma"),
    ] {
        elsewhere.html(path, &format!("<html><body><main><h1>{title}</h1><p>{title} is a page of the other site, its text its own.</p><a href=\"/a\">a</a><a href=\"/b\">b</a><a href=\"/c\">c</a></main></body></html>"));
    }
    target(&db, "other", &elsewhere);
    for t in ["t", "other"] {
        let run = kerai(&db.url, &["run", t, "--no-progress", "--no-embed"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let documents: i64 = db.one("SELECT count(*) FROM kerai.nodes WHERE kind = 'document'");
    assert_eq!(documents, 8);

    // Without --yes: it says what would go, and changes nothing.
    let dry = kerai(&db.url, &["config", "delete", "t"]);
    assert_eq!(dry.code, 2, "{}", dry.stderr);
    assert!(
        dry.stdout
            .contains("would delete target t: 4 pages, 4 versions, 1 jobs")
            && dry.stdout.contains("its 4 documents stay in the corpus"),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stderr.contains("kerai config delete t --yes"),
        "{}",
        dry.stderr
    );
    let targets: i64 = db.one("SELECT count(*) FROM kerai.targets");
    assert_eq!(targets, 2);

    // A running job blocks it.
    let job: uuid::Uuid = db.one("SELECT kerai.enqueue_job('t')");
    db.client()
        .execute(
            "UPDATE kerai.scrape_jobs SET status = 'RUNNING', started_at = now(), lease_until = now() + interval '1 hour' WHERE id = $1",
            &[&job],
        )
        .unwrap();
    let blocked = kerai(&db.url, &["config", "delete", "t", "--yes"]);
    assert_eq!(blocked.code, 2);
    assert!(
        blocked.stderr.contains(&format!("kerai cancel {job}")),
        "{}",
        blocked.stderr
    );
    let cancel = kerai(&db.url, &["cancel", &job.to_string()]);
    assert_eq!(cancel.code, 0, "{}", cancel.stderr);
    assert!(cancel.stdout.contains("cancelled"), "{}", cancel.stdout);
    let again = kerai(&db.url, &["cancel", &job.to_string()]);
    assert!(
        again.stdout.contains("had already ended CANCELLED"),
        "{}",
        again.stdout
    );
    let bad = kerai(&db.url, &["cancel", "not-a-job"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("\"not-a-job\" is not a job id"),
        "{}",
        bad.stderr
    );

    let gone = kerai(&db.url, &["config", "delete", "t", "--yes"]);
    assert_eq!(gone.code, 0, "{}", gone.stderr);
    assert!(
        gone.stdout.contains(
            "deleted target t: 4 pages, 4 versions, 2 jobs; 4 documents kept in the corpus"
        ),
        "{}",
        gone.stdout
    );
    let left: (i64, i64, i64) = (
        db.one("SELECT count(*) FROM kerai.pages"),
        db.one("SELECT count(*) FROM kerai.scrape_jobs"),
        db.one("SELECT count(*) FROM kerai.nodes WHERE kind = 'document'"),
    );
    assert_eq!(
        left,
        (4, 1, 8),
        "the other target's pages and job, every document"
    );

    // Removing documents too needs kerai_admin: the CLI's login is refused, naming the role.
    let refused = kerai(
        &db.url,
        &["config", "delete", "other", "--yes", "--remove-documents"],
    );
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("kerai_admin"), "{}", refused.stderr);
    let out: serde_json::Value =
        db.one("SELECT kerai.delete_target('other', keep_documents => false)");
    assert_eq!(out["documents"], 4);
    let documents: i64 = db.one("SELECT count(*) FROM kerai.nodes WHERE kind = 'document'");
    assert_eq!(
        documents, 4,
        "the other target's documents are gone, the first one's stay"
    );
    let chunks_orphaned: i64 = db.one(
        "SELECT count(*) FROM kerai.chunks c WHERE NOT EXISTS (SELECT 1 FROM kerai.nodes n WHERE n.id = c.document_id)",
    );
    assert_eq!(chunks_orphaned, 0);
    // No edge points into a deleted document (no foreign key keeps an edge's target, which may
    // be in another document: kerai._delete_documents does), and every document row has its
    // root node.
    let dangling: (i64, i64) = (
        db.one("SELECT count(*) FROM kerai.edges e WHERE NOT EXISTS (SELECT 1 FROM kerai.nodes n WHERE n.id = e.target_id)"),
        db.one("SELECT count(*) FROM kerai.documents d WHERE NOT EXISTS (SELECT 1 FROM kerai.nodes n WHERE n.id = d.id)"),
    );
    assert_eq!(dangling, (0, 0));
}
