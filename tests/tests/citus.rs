//! kerai on a Citus cluster: a coordinator and two workers on loopback (`scripts/citus.sh`).
//!
//! `make test` runs these (they are `#[ignore]`d in the plain e2e run) when Citus is
//! installed or can be built, with `KERAI_TEST_DATABASE_URL` pointing at the coordinator's
//! `postgres` database, where `scripts/citus.sh start` made citus, vector, pg_trgm and kerai.
//! This first step checks what everything later stands on: the extension is on every node,
//! and the whole pipeline (crawl, citation loop, embeddings, search) runs on a Citus
//! coordinator, its tables not yet distributed (docs/scale-out.md, "Running on Citus").

use kerai_e2e::scholarly::ScholarlyWeb;
use kerai_e2e::{kerai, repo_root, spawn, wait, Site, TestDb};

fn coordinator() -> TestDb {
    let db = TestDb::existing("postgres");
    let citus: Option<String> = db
        .client()
        .query_opt(
            "SELECT extversion FROM pg_extension WHERE extname = 'citus'",
            &[],
        )
        .unwrap()
        .map(|r| r.get(0));
    assert!(
        citus.is_some(),
        "KERAI_TEST_DATABASE_URL is not a Citus coordinator: run these through `make test` \
         (scripts/citus.sh start PORT makes one)"
    );
    kerai_e2e::db::cli_role(&mut db.client());
    db
}

#[test]
#[ignore = "needs a Citus cluster: make test runs it"]
fn kerai_is_on_the_coordinator_and_every_worker() {
    let db = coordinator();
    let mut c = db.client();
    let workers: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_dist_node WHERE groupid <> 0 AND isactive AND noderole = 'primary'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(workers, 2, "two workers registered");
    let here: String = c
        .query_one(
            "SELECT extversion FROM pg_extension WHERE extname = 'kerai'",
            &[],
        )
        .unwrap()
        .get(0);
    let there: Vec<(bool, String)> = c
        .query(
            "SELECT success, result FROM run_command_on_workers(
                 $$SELECT extversion FROM pg_extension WHERE extname = 'kerai'$$) ORDER BY nodeport",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(there, vec![(true, here.clone()), (true, here)]);
}

#[test]
#[ignore = "needs a Citus cluster: make test runs it"]
fn the_pipeline_runs_on_a_citus_coordinator() {
    let db = coordinator();
    let site = Site::start();
    site.serve_dir(&repo_root().join("examples/site"));
    let _scholar = ScholarlyWeb::demo(&site, &mut db.client(), "citus@example.org");
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
    db.client()
        .execute("SELECT kerai.enqueue_job('example')", &[])
        .unwrap();
    let out = wait(spawn(&db.url, &["daemon", "--once", "--rate", "0"], &[]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);

    let status: String =
        db.one("SELECT status FROM kerai.scrape_jobs ORDER BY scheduled_at DESC LIMIT 1");
    assert_eq!(status, "COMPLETED", "{}", out.stderr);
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
    let hits: i64 =
        db.one("SELECT count(*) FROM kerai.search('how does the brain predict its inputs', 5)");
    assert!(hits > 0, "search finds passages");
    let counted: i64 = db.one("SELECT kerai.counter('nodes')");
    let nodes: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    assert_eq!(counted, nodes, "the counters stay exact");

    distribute_keeps_every_row(&db);
}

/// Every table of the plan, in rows, the same way as `kerai.distribute()` must keep them.
fn row_counts(db: &TestDb) -> Vec<(String, i64)> {
    let tables: Vec<String> = db
        .client()
        .query(
            "SELECT table_name FROM kerai.distribution_plan ORDER BY table_name",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    tables
        .into_iter()
        .map(|t| {
            let n: i64 = db.one(&format!("SELECT count(*) FROM kerai.{t}"));
            (t, n)
        })
        .collect()
}

/// `kerai.distribute()` on the crawled corpus: every table becomes what the plan says, no row
/// is lost, rows sit on both workers, one document is read from one shard, and a second call
/// changes nothing.
fn distribute_keeps_every_row(db: &TestDb) {
    let before = row_counts(db);
    let made: serde_json::Value = db.one("SELECT kerai.distribute()");
    assert_eq!(made["already_distributed"], false, "{made}");
    assert_eq!(made["reference_tables"], 8, "{made}");
    assert_eq!(made["distributed_tables"], 27, "{made}");
    let after = row_counts(db);
    assert_eq!(
        before, after,
        "rows per table before and after kerai.distribute()"
    );
    println!("rows per table, kept by kerai.distribute(): {after:?}");

    let wrong: Vec<String> = db
        .client()
        .query(
            "SELECT p.table_name || ': ' || coalesce(d.partmethod::text, 'not a Citus table')
               FROM kerai.distribution_plan p
               LEFT JOIN pg_dist_partition d ON d.logicalrelid = format('kerai.%I', p.table_name)::regclass
              WHERE p.placement <> 'coordinator'
                AND (d.logicalrelid IS NULL
                     OR (p.placement = 'reference') <> (d.partmethod = 'n')
                     OR (p.placement = 'distributed'
                         AND column_to_column_name(d.logicalrelid, d.partkey) <> p.distribution_column))",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(
        wrong.is_empty(),
        "tables not laid out as planned: {wrong:?}"
    );
    let groups: i64 = db.one(
        "SELECT count(DISTINCT d.colocationid) FROM kerai.distribution_plan p
           JOIN pg_dist_partition d ON d.logicalrelid = format('kerai.%I', p.table_name)::regclass
          WHERE p.colocation = 'document'",
    );
    assert_eq!(groups, 1, "a document's tables are co-located");

    // A corpus's documents spread over both workers; one target's pages stay together.
    for table in ["documents", "nodes", "edges", "chunks", "embeddings"] {
        let workers: i64 = db.one(&format!(
            "SELECT count(DISTINCT n.nodeport)
               FROM run_command_on_shards('kerai.{table}', 'SELECT count(*) FROM %s') r
               JOIN pg_dist_placement pl ON pl.shardid = r.shardid
               JOIN pg_dist_node n ON n.groupid = pl.groupid
              WHERE r.success AND r.result::bigint > 0"
        ));
        assert_eq!(workers, 2, "kerai.{table} has rows on both workers");
    }
    for table in ["pages", "page_versions", "job_logs"] {
        let shards: i64 = db.one(&format!(
            "SELECT count(*) FROM run_command_on_shards('kerai.{table}', 'SELECT count(*) FROM %s') r
              WHERE r.success AND r.result::bigint > 0"
        ));
        assert_eq!(
            shards, 1,
            "the one target's kerai.{table} rows are in one shard"
        );
    }

    // One document is read from one shard (a router query).
    let doc: String = db.one("SELECT id::text FROM kerai.documents ORDER BY id LIMIT 1");
    let plan: Vec<String> = db
        .client()
        .query(
            &format!(
                "EXPLAIN SELECT count(*) FROM kerai.nodes n JOIN kerai.chunks c USING (document_id)
                  WHERE n.document_id = '{doc}'"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let plan = plan.join("\n");
    assert!(
        plan.contains("Task Count: 1"),
        "one document's nodes and passages come from one shard:\n{plan}"
    );

    let again: serde_json::Value = db.one("SELECT kerai.distribute()");
    assert_eq!(again["already_distributed"], true, "{again}");
    assert_eq!(
        row_counts(db),
        after,
        "a second kerai.distribute() changes nothing"
    );
    let counted: i64 = db.one("SELECT kerai.counter('nodes')");
    let nodes: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    assert_eq!(counted, nodes, "the counters stay exact once distributed");
}
