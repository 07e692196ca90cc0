//! Backups with the standard tools keep the whole corpus: the example site crawled, the
//! citation loop run through the demo's scholarly stand-ins, everything embedded and asked;
//! then `pg_dump -Fc` / `pg_restore` and `pg_dump` / `psql` into fresh databases give the same
//! rows in every kerai table, the same answers from search, frontier, citation_chain and the
//! dashboards, and the restored copy crawls on.

use kerai_e2e::{kerai, repo_root, scholarly::ScholarlyWeb, Site, TestDb};
use postgres::Client;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The binaries of the server the tests run against.
fn pg_bin(name: &str) -> PathBuf {
    let out = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .expect("pg_config");
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let major = std::env::var("KERAI_PG_MAJOR").unwrap_or_else(|_| "15".into());
    let versioned = PathBuf::from(format!("/usr/lib/postgresql/{major}/bin")).join(name);
    if versioned.exists() {
        versioned
    } else {
        Path::new(&dir).join(name)
    }
}

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The demo's offline scholarly services (its catalogue), pointed at `site` for the open copies.
fn scholar(site: &Site) -> ScholarlyWeb {
    let web = ScholarlyWeb::start();
    web.load_catalogue(
        &repo_root().join("examples/scholarly/works.json"),
        &site.url(""),
    );
    web
}

fn ok(out: kerai_e2e::Output, what: &str) -> kerai_e2e::Output {
    assert_eq!(
        out.code, 0,
        "{what} failed:\n{}\n{}",
        out.stdout, out.stderr
    );
    out
}

/// Build a corpus the way a user does: crawl, grow along citations, embed, ask.
fn build_corpus(db: &TestDb, site: &Site, scholar: &ScholarlyWeb) {
    ok(
        kerai(
            &db.url,
            &[
                "config",
                "set",
                "example",
                "--base-url",
                &site.url("/"),
                "file_types=html,pdf,docx,xlsx",
                "rate_limit_rps=0",
                "max_pages=100",
            ],
        ),
        "kerai config set",
    );
    ok(
        kerai(&db.url, &["run", "example", "--no-progress", "--no-embed"]),
        "kerai run",
    );
    let s = &scholar.base;
    db.client()
        .execute(
            "SELECT kerai.register_agent('kerai_crawl', 'tool', NULL, jsonb_build_object(
                'crossref_url', $1 || '/crossref', 'unpaywall_url', $1 || '/unpaywall',
                'semantic_scholar_url', $1 || '/semantic_scholar', 'arxiv_url', $1 || '/arxiv',
                'internet_archive_url', $1 || '/internet_archive', 'concept_search_url', $1 || '/concept',
                'crossref_rps', 0, 'unpaywall_rps', 0, 'semantic_scholar_rps', 0, 'arxiv_rps', 0,
                'internet_archive_rps', 0, 'concept_search_rps', 0, 'contact_email', 'backup@example.org',
                'rate_limit_seconds', 0, 'claims_per_cycle', 10, 'min_score', 0.2,
                'retry_base_seconds', 2, 'max_retries', 3,
                'ref_types', '[\"doi\", \"arxiv\", \"url\", \"author_year\", \"bibliography\", \"concept\"]'::jsonb))",
            &[s],
        )
        .unwrap();
    kerai_e2e::allow_private(&mut db.client(), &[s, &site.url("")]);
    ok(
        kerai(&db.url, &["crawl", "--rate", "50", "--until-idle"]),
        "kerai crawl",
    );
    ok(kerai(&db.url, &["embed"]), "kerai embed");
    let mut c = db.client();
    c.batch_execute(
        "SELECT kerai.set_setting('answer_passages', '3');
         SELECT kerai.answer('What does the good regulator theorem say?');
         UPDATE kerai.reward_schedule SET reward_nkoi = 123456789 WHERE work_type = 'crawl_ingest';
         SELECT kerai.register_agent('helper', 'crawler', 'kerai_crawl', '{\"max_chain_depth\": 2}');
         SELECT kerai.maintain_job_logs();",
    )
    .unwrap();
    let weekly: i64 = db.one(
        "SELECT count(*) FROM kerai.job_logs WHERE tableoid::regclass::text ~ '^kerai\\.job_logs_w[0-9]{8}$'",
    );
    assert!(
        weekly > 0,
        "the crawl's log lines are in a weekly partition"
    );
    let resolved: i64 =
        db.one("SELECT count(*) FROM kerai.reference_state WHERE status = 'resolved'");
    assert!(resolved > 0, "the citation loop resolved nothing");
    let embedded: i64 = db.one("SELECT count(*) FROM kerai.embeddings");
    assert!(embedded > 0, "nothing was embedded");
}

/// Every table of the extension: its row count and a checksum of its rows; every sequence's
/// position; the derived counters.
fn fingerprint(c: &mut Client) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let rels: Vec<(String, String)> = c
        .query(
            "SELECT c.relname::text, c.relkind::text FROM pg_depend d
               JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'kerai'
               JOIN pg_class c ON c.oid = d.objid AND d.classid = 'pg_class'::regclass
              WHERE d.deptype = 'e' AND c.relkind IN ('r', 'p', 'S') AND NOT c.relispartition
              ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    for (name, kind) in rels {
        if name == "counter_deltas" || name == "counter_deltas_id_seq" {
            continue; // derived, rebuilt on restore: compared through kerai.counters below
        }
        if name == "cite_count_queue" {
            continue; // derived: the restored edges queue a recount, which changes nothing
        }
        if name == "partition_references" {
            continue; // partitioning's own bookkeeping: a restore is unpartitioned
        }
        if name == "daemons" || name == "crawler_supervisor" {
            continue; // runtime state, made fresh by CREATE EXTENSION: not in a dump
        }
        let v: String = if kind == "S" {
            c.query_one(
                &format!("SELECT last_value::text || '/' || is_called::text FROM kerai.{name}"),
                &[],
            )
            .unwrap()
            .get(0)
        } else {
            c.query_one(
                &format!(
                    "SELECT count(*)::text || ' ' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '')
                       FROM kerai.{name} t"
                ),
                &[],
            )
            .unwrap()
            .get(0)
        };
        // A table is the same table partitioned or not.
        let kind = if kind == "S" { "sequence" } else { "table" };
        out.insert(format!("{kind} {name}"), v);
    }
    for r in c
        .query(
            "SELECT name, value::text FROM kerai.counters ORDER BY name",
            &[],
        )
        .unwrap()
    {
        out.insert(format!("counter {}", r.get::<_, String>(0)), r.get(1));
    }
    out
}

/// What users ask of the corpus, as text.
fn answers(c: &mut Client) -> BTreeMap<String, String> {
    let queries = [
        ("search", "SELECT string_agg(format('%s %s', chunk_id, round(score::numeric, 6)), ', ' ORDER BY score DESC, chunk_id)
                      FROM kerai.search('how does the brain predict its inputs', 5)"),
        ("frontier", "SELECT string_agg(t::text, '|' ORDER BY t::text) FROM kerai.frontier(20) t"),
        ("citation_chain", "SELECT string_agg(t::text, '|' ORDER BY t::text) FROM kerai.citation_chain(
                      (SELECT id FROM kerai.nodes WHERE kind = 'document'
                          AND metadata->>'source_url' LIKE '%/research/active-inference.html'
                        ORDER BY created_at DESC LIMIT 1)) t"),
        ("corpus_overview", "SELECT string_agg(t::text, '|') FROM kerai.corpus_overview t"),
        ("documents_by_depth", "SELECT string_agg(t::text, '|' ORDER BY t::text) FROM kerai.documents_by_depth t"),
        ("retrieval_overview", "SELECT string_agg(t::text, '|') FROM kerai.retrieval_overview t"),
        ("settings", "SELECT string_agg(t::text, '|' ORDER BY t::text) FROM kerai.settings_all t"),
        ("agents", "SELECT string_agg(format('%s %s %s', name, kind, config), '|' ORDER BY name) FROM kerai.agents"),
    ];
    queries
        .iter()
        .map(|(k, q)| {
            let v: Option<String> = c
                .query_one(*q, &[])
                .unwrap_or_else(|e| panic!("{k}: {e}"))
                .get(0);
            (k.to_string(), v.unwrap_or_default())
        })
        .collect()
}

fn assert_same(label: &str, a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) {
    let diffs: Vec<String> = a
        .keys()
        .chain(b.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| format!("{k}: {:?} != {:?}", a.get(k), b.get(k)))
        .collect();
    assert!(diffs.is_empty(), "{label} differs:\n{}", diffs.join("\n"));
}

#[test]
fn a_dump_restores_the_whole_corpus_and_the_copy_works_on() {
    let site = Site::start();
    site.serve_dir(&repo_root().join("examples/site"));
    let scholar = scholar(&site);
    let db = TestDb::new("backup_src");
    build_corpus(&db, &site, &scholar);
    // Search weighs terms by column statistics: both sides are analyzed, as after any
    // restore (docs/backups.md).
    db.client().batch_execute("ANALYZE").unwrap();
    let before = fingerprint(&mut db.client());
    let asked = answers(&mut db.client());
    // Every row the crawl, the citation loop, embedding and answering wrote carries its
    // distribution key, equal to its parent row's (docs/scale-out.md).
    let misplaced: i64 = db.one(
        "SELECT (SELECT count(*) FROM kerai.nodes n LEFT JOIN kerai.nodes p ON p.id = n.parent_id
                  WHERE n.document_id IS DISTINCT FROM coalesce(p.document_id, n.id))
              + (SELECT count(*) FROM kerai.edges e JOIN kerai.nodes s ON s.id = e.source_id
                  WHERE e.document_id <> s.document_id)
              + (SELECT count(*) FROM kerai.embeddings e JOIN kerai.chunks c ON c.id = e.chunk_id
                  WHERE e.document_id <> c.document_id)
              + (SELECT count(*) FROM kerai.page_versions v JOIN kerai.pages p ON p.id = v.page_id
                  WHERE v.target_id <> p.target_id)
              + (SELECT count(*) FROM kerai.job_urls u JOIN kerai.scrape_jobs j ON j.id = u.job_id
                  WHERE u.target_id <> j.target_id)
              + (SELECT count(*) FROM kerai.citations c JOIN kerai.ai_responses r ON r.id = c.response_id
                  WHERE c.request_id <> r.request_id)",
    );
    assert_eq!(
        misplaced, 0,
        "rows whose distribution key is not their parent's"
    );
    // Something in every table that holds user data.
    for table in [
        "nodes",
        "edges",
        "agents",
        "reward_ledger",
        "reference_state",
        "reference_transitions",
        "crawl_queue",
        "targets",
        "pages",
        "page_versions",
        "scrape_jobs",
        "job_urls",
        "job_logs",
        "chunks",
        "embeddings",
        "ai_requests",
        "ai_responses",
        "citations",
        "settings",
    ] {
        let n = before
            .get(&format!("table {table}"))
            .unwrap_or_else(|| panic!("no table {table}"));
        assert!(
            !n.starts_with("0 "),
            "the corpus has no {table} rows to back up"
        );
    }

    let dir = std::env::temp_dir().join(format!("kerai-backup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // Custom format, pg_restore.
    let dump = dir.join("corpus.dump");
    run(Command::new(pg_bin("pg_dump"))
        .args(["-Fc", "-f"])
        .arg(&dump)
        .arg(&db.url));
    let restored = TestDb::empty("backup_fc");
    run(Command::new(pg_bin("pg_restore"))
        .args([
            "--exit-on-error",
            "--single-transaction",
            "-d",
            &restored.url,
        ])
        .arg(&dump));
    assert_same(
        "pg_restore: rows",
        &before,
        &fingerprint(&mut restored.client()),
    );
    // The citation counts came back exact: counting the restored edges again changes none.
    assert_eq!(
        restored.one::<i32>("SELECT kerai._recount_cites()"),
        0,
        "citation counts that a recount after pg_restore changed"
    );
    // The weekly job log partitions come back with their rows.
    let weekly = "SELECT count(*) FROM kerai.job_logs WHERE tableoid::regclass::text ~ '^kerai\\.job_logs_w[0-9]{8}$'";
    assert_eq!(
        restored.one::<i64>(weekly),
        db.one::<i64>(weekly),
        "log lines in weekly partitions after pg_restore"
    );
    restored.client().batch_execute("ANALYZE").unwrap();
    assert_same(
        "pg_restore: answers",
        &asked,
        &answers(&mut restored.client()),
    );

    // Plain SQL, psql.
    let sql = dir.join("corpus.sql");
    run(Command::new(pg_bin("pg_dump"))
        .arg("-f")
        .arg(&sql)
        .arg(&db.url));
    let plain = TestDb::empty("backup_sql");
    run(Command::new(pg_bin("psql"))
        .args([
            "-X",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-1",
            "-d",
            &plain.url,
            "-f",
        ])
        .arg(&sql));
    assert_same(
        "psql restore: rows",
        &before,
        &fingerprint(&mut plain.client()),
    );
    plain.client().batch_execute("ANALYZE").unwrap();
    assert_same(
        "psql restore: answers",
        &asked,
        &answers(&mut plain.client()),
    );

    // The restored copy works on: a further crawl finds the site unchanged, a cycle runs, new
    // rows get new ids (sequences restored), counters count on.
    ok(
        kerai(
            &restored.url,
            &["run", "example", "--no-progress", "--no-embed"],
        ),
        "kerai run on the restored copy",
    );
    let (status, new, unchanged): (String, Option<String>, Option<String>) = {
        let r = restored
            .client()
            .query_one(
                "SELECT status, metrics->>'new_count', metrics->>'unchanged_count'
                   FROM kerai.scrape_jobs ORDER BY scheduled_at DESC LIMIT 1",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1), r.get(2))
    };
    assert_eq!(status, "COMPLETED");
    assert_eq!(
        new.as_deref(),
        Some("0"),
        "the restored copy found new pages"
    );
    assert!(
        unchanged.and_then(|u| u.parse::<i64>().ok()).unwrap_or(0) > 0,
        "the restored copy found nothing unchanged"
    );
    let mut c = restored.client();
    let cycle: serde_json::Value = c
        .query_one("SELECT kerai.crawl_cycle()::text::json", &[])
        .unwrap()
        .get(0);
    assert!(cycle.is_object(), "{cycle}");
    let logs_before: i64 = before["table job_logs"]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let logs_after: i64 = restored.one("SELECT count(*) FROM kerai.job_logs");
    assert!(logs_after > logs_before);
    let nodes: i64 = restored.one("SELECT count(*) FROM kerai.nodes");
    let counted: i64 = restored.one("SELECT kerai.counter('nodes')");
    assert_eq!(nodes, counted, "the node counter drifted after the restore");

    // Partitioned tables: their rows are kept (each monthly partition is registered) and,
    // dumped through the partition root, restore into a fresh install's plain tables.
    let current = fingerprint(&mut db.client());
    db.client()
        .batch_execute(
            "SELECT kerai.partition_by_month('chunks');
             SELECT kerai.partition_by_month('ai_requests');",
        )
        .unwrap();
    let partitioned = fingerprint(&mut db.client());
    assert_same("partitioning itself", &current, &partitioned);
    let dump = dir.join("partitioned.dump");
    std::fs::create_dir_all(&dir).unwrap();
    run(Command::new(pg_bin("pg_dump"))
        .args(["-Fc", "--load-via-partition-root", "-f"])
        .arg(&dump)
        .arg(&db.url));
    let unpartitioned = TestDb::empty("backup_parts");
    run(Command::new(pg_bin("pg_restore"))
        .args([
            "--exit-on-error",
            "--single-transaction",
            "-d",
            &unpartitioned.url,
        ])
        .arg(&dump));
    let _ = std::fs::remove_dir_all(&dir);
    assert_same(
        "restore of a partitioned database: rows",
        &current,
        &fingerprint(&mut unpartitioned.client()),
    );
}

/// Every table and sequence of the extension is kept in dumps, but for the few a fresh
/// CREATE EXTENSION makes or that are derived (docs/backups.md says why).
#[test]
fn every_user_data_table_is_registered_for_dumps() {
    let db = TestDb::new("backup_registered");
    let missing: Vec<String> = db
        .client()
        .query(
            "SELECT c.relname::text FROM pg_depend d
               JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'kerai'
               JOIN pg_class c ON c.oid = d.objid AND d.classid = 'pg_class'::regclass
              WHERE d.deptype = 'e' AND c.relkind IN ('r', 'S')
                AND NOT c.oid = ANY (e.extconfig)
              ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        missing,
        [
            "cite_count_queue",
            "counter_deltas",
            "counter_deltas_id_seq",
            "crawler_supervisor",
            "daemons",
            "partition_references",
            "reference_moves",
            "reference_states",
            "search_statistics"
        ],
        "tables a dump would leave out"
    );
}
