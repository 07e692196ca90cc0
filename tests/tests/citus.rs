//! kerai on a Citus cluster: a coordinator and two workers on loopback (`scripts/citus.sh`).
//!
//! `make test` runs these (they are `#[ignore]`d in the plain e2e run) when Citus is
//! installed or can be built, with `KERAI_TEST_DATABASE_URL` pointing at the coordinator's
//! `postgres` database, where `scripts/citus.sh start` made citus, vector, pg_trgm and kerai.
//! The pipeline runs on the coordinator's plain tables first (the single-node baseline), then
//! `kerai.distribute()` lays the corpus out, and the same crawl runs again into the
//! distributed tables, by two fetchers, while a third worker joins and shards move onto it;
//! what a user sees must equal the baseline each time (docs/scale-out.md).

use kerai_e2e::citus::DistributedDb;
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
    // Full-text weights from statistics of every row (ANALYZE on one server).
    db.client()
        .batch_execute("SELECT kerai.refresh_search_statistics(true)")
        .unwrap();
    let single = Corpus::read(&db);
    assert!(
        single.weights.iter().any(|w| (w.1 - 1.0).abs() > 1e-6),
        "the statistics weigh the words: {:?}",
        single.weights
    );

    distribute_keeps_every_row(&db);
    let kept: i64 = db.one("SELECT count(*) FROM kerai.search_statistics");
    assert_eq!(
        kept, 1,
        "distribute() keeps the full-text statistics for search"
    );
    let moved = Corpus::read(&db);
    single.assert_same(&moved, "the corpus read back from the distributed tables");

    // The same crawl again, now written into the distributed tables, by two fetchers at once.
    // Slower, so that the second fetcher finds work left when it joins.
    wipe(&db);
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "example",
            "rate_limit_rps=4",
            "concurrency=1",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first = spawn(&db.url, &["run", "example", "--no-progress"], &[]);
    let mut queued = 0i64;
    for _ in 0..200 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        queued = db.one("SELECT count(*) FROM kerai.job_urls");
        if queued > 1 {
            break;
        }
    }
    assert!(
        queued > 1,
        "the first fetcher never queued the site's links"
    );
    let second = spawn(&db.url, &["run", "example", "--join", "--no-progress"], &[]);
    // A third worker joins while they crawl, and shards move onto it.
    let out = std::process::Command::new(repo_root().join("scripts/citus.sh"))
        .args(["add", &coordinator_port(&db).to_string(), "3"])
        .output()
        .expect("run scripts/citus.sh add");
    assert!(
        out.status.success(),
        "adding a worker: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    db.client()
        .batch_execute("SELECT citus_rebalance_start()")
        .unwrap_or_else(|e| panic!("citus_rebalance_start: {}", kerai_e2e::db::error_text(&e)));
    for (name, out) in [("first", wait(first)), ("second", wait(second))] {
        assert!(
            out.code == 0 || out.code == 1,
            "the {name} fetcher:\n{}\n{}",
            out.stdout,
            out.stderr
        );
    }
    let status: String = db.one("SELECT status FROM kerai.scrape_jobs");
    assert_eq!(status, "COMPLETED");
    let fetchers: i64 = db.one("SELECT count(DISTINCT leased_by) FROM kerai.job_urls");
    assert_eq!(fetchers, 2, "both fetchers leased URLs");
    let twice: i64 = db.one(
        "SELECT count(*) FROM (SELECT page_id FROM kerai.page_versions GROUP BY page_id HAVING count(*) > 1) x",
    );
    assert_eq!(twice, 0, "no page was fetched and stored twice");
    // The citation loop, chunking and embeddings, while the shards still move.
    let out = wait(spawn(&db.url, &["daemon", "--once", "--rate", "0"], &[]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    db.client()
        .batch_execute("SELECT citus_rebalance_wait()")
        .unwrap_or_else(|e| panic!("citus_rebalance_wait: {}", kerai_e2e::db::error_text(&e)));
    let moved: i64 = db.one(
        "SELECT count(*) FROM pg_dist_placement pl JOIN pg_dist_node n ON n.groupid = pl.groupid
          WHERE n.nodeport = (SELECT max(nodeport) FROM pg_dist_node)",
    );
    assert!(
        moved > 0,
        "the rebalance moved shards onto the third worker"
    );
    println!("shards moved onto the worker added during the crawl: {moved}");
    // The shards' statistics, merged (kerai.crawl_cycle does this once a minute; here at once,
    // and from every row, as on one server above).
    let merged: serde_json::Value = db.one("SELECT kerai.refresh_search_statistics(true)");
    println!("search statistics merged from the shards: {merged}");
    assert_eq!(merged["distributed"], true, "{merged}");
    let distributed = Corpus::read(&db);
    single.assert_same(
        &distributed,
        "the corpus crawled into the distributed tables",
    );
    let counted: i64 = db.one("SELECT kerai.counter('nodes')");
    let nodes: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    assert_eq!(
        counted, nodes,
        "the counters stay exact on the distributed tables"
    );
    a_changed_page_moves_its_chunks(&db, &site);
}

/// A page changes and is crawled again: its chunks move to the new version's document (Citus
/// never changes a distribution column in place: src/chunk_moves.rs), the chunks whose text
/// stays the same keep their vectors, the changed one is embedded again.
fn a_changed_page_moves_its_chunks(db: &TestDb, site: &Site) {
    let base = site.url("");
    let url: String = db.one(&format!(
        "SELECT source_url FROM kerai.chunks WHERE source_url LIKE '{base}%.html'
          GROUP BY 1 HAVING count(*) > 1 ORDER BY count(*) DESC, 1 LIMIT 1"
    ));
    let path = &url[base.len()..];
    let html = std::fs::read_to_string(repo_root().join("examples/site").join(&path[1..]))
        .expect("the page's file");
    // A paragraph after the first one of the page's main text (not in its footer).
    let h1 = html.find("<h1").expect("a heading");
    let end = h1 + html[h1..].find("</p>").expect("a paragraph") + "</p>".len();
    let added = "<p>A quokka census on Rottnest Island counted twelve thousand animals.</p>";
    site.html(path, &format!("{}\n{added}{}", &html[..end], &html[end..]));
    // The sitemap says so (kerai trusts an older lastmod and does not fetch the page).
    let now: String =
        db.one("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')");
    let sitemap = std::fs::read_to_string(repo_root().join("examples/site/sitemap.xml"))
        .expect("the sitemap")
        .replace("__SITE__", base.trim_end_matches('/'));
    let entry = format!("<loc>{url}</loc><lastmod>");
    let at = sitemap.find(&entry).expect("the page in the sitemap") + entry.len();
    let date_end = at + sitemap[at..].find('<').expect("lastmod");
    site.page(
        "/sitemap.xml",
        "application/xml",
        format!("{}{now}{}", &sitemap[..at], &sitemap[date_end..]),
    );
    let before: String = db.one("SELECT now()::text");
    let out = kerai(&db.url, &["config", "set", "example", "rate_limit_rps=50"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = kerai(&db.url, &["run", "example", "--no-progress"]);
    assert!(out.code <= 1, "{}\n{}", out.stdout, out.stderr);
    let out = wait(spawn(&db.url, &["daemon", "--once", "--rate", "0"], &[]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);

    let versions: i64 = db.one(&format!(
        "SELECT count(*) FROM kerai.page_versions v JOIN kerai.pages p
             ON p.target_id = v.target_id AND p.id = v.page_id WHERE p.url = '{url}'"
    ));
    assert_eq!(versions, 2, "{url}: the change made a second version");
    let holders: Vec<String> = db
        .client()
        .query(
            "SELECT DISTINCT document_id::text FROM kerai.chunks WHERE chunk_key = $1",
            &[&url],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let newest: String = db.one(&format!(
        "SELECT v.document_id::text FROM kerai.page_versions v JOIN kerai.pages p
             ON p.target_id = v.target_id AND p.id = v.page_id
          WHERE p.url = '{url}' AND v.document_id IS NOT NULL ORDER BY v.document_id DESC LIMIT 1"
    ));
    assert_eq!(
        holders,
        vec![newest],
        "{url}: the new version's document holds the chunks"
    );
    let twice: i64 = db.one("SELECT count(*) - count(DISTINCT id) FROM kerai.chunks");
    assert_eq!(twice, 0, "no chunk is held twice");
    let (kept, again, missing): (i64, i64, i64) = {
        let r = db
            .client()
            .query_one(
                "SELECT count(*) FILTER (WHERE e.created_at < $2::text::timestamptz),
                        count(*) FILTER (WHERE e.created_at >= $2::text::timestamptz),
                        count(*) FILTER (WHERE e.chunk_id IS NULL)
                   FROM kerai.chunks c
                   LEFT JOIN kerai.embeddings e ON e.document_id = c.document_id AND e.chunk_id = c.id
                  WHERE c.chunk_key = $1",
                &[&url, &before],
            )
            .unwrap();
        (r.get(0), r.get(1), r.get(2))
    };
    println!("{url} changed: {kept} chunks kept their vectors, {again} embedded again");
    assert!(kept > 0, "unchanged chunks keep their vectors");
    assert!(again > 0, "the changed chunk is embedded again");
    assert_eq!(missing, 0, "every chunk has its vector");
    let found: String = db.one("SELECT url FROM kerai.search('quokka census Rottnest', 1)");
    assert_eq!(found, url, "the new text is searched");
    let counted: i64 = db.one("SELECT kerai.counter('nodes')");
    let nodes: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    assert_eq!(counted, nodes, "the counters stay exact");
}

/// The coordinator's port, from the test database's URL.
fn coordinator_port(db: &TestDb) -> u16 {
    let port: i32 = db.one("SELECT inet_server_port()");
    port as u16
}

/// Empties every distributed table (the targets, settings and other reference tables stay),
/// so the same crawl can run again.
fn wipe(db: &TestDb) {
    let tables: Vec<String> = db
        .client()
        .query(
            "SELECT format('kerai.%I', table_name) FROM kerai.distribution_plan
              WHERE placement = 'distributed' OR table_name = 'corpus_authors'",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    db.client()
        .batch_execute(&format!("TRUNCATE {} CASCADE", tables.join(", ")))
        .unwrap();
}

/// What a user sees of a corpus, in a form two runs can compare: documents by their identity
/// key (content hash and source), references with their state, the top-10 search results and
/// the answer's citations by URL and text, the frontier, a citation chain and the dashboards.
#[derive(Debug)]
struct Corpus {
    documents: Vec<String>,
    /// The query's words and the weights (idf) search gives them, from the full-text
    /// statistics: ANALYZE's on one server, the shards' merged when distributed.
    weights: Vec<(String, f64)>,
    references: Vec<String>,
    search: Vec<String>,
    answer: Vec<String>,
    frontier: Vec<String>,
    chain: Vec<String>,
    dashboards: Vec<String>,
}

const QUESTION: &str = "how does the brain predict its inputs";

impl Corpus {
    fn read(db: &TestDb) -> Corpus {
        let rows = |sql: &str| -> Vec<String> {
            db.client()
                .query(sql, &[])
                .unwrap_or_else(|e| panic!("{sql}: {}", kerai_e2e::db::error_text(&e)))
                .iter()
                .map(|r| r.get(0))
                .collect()
        };
        let answer: serde_json::Value = db.one(&format!("SELECT kerai.answer('{QUESTION}', 3)"));
        let answer = answer["citations"]
            .as_array()
            .expect("citations")
            .iter()
            .map(|c| format!("{} {}", c["url"], c["text"]))
            .collect();
        // A document whose citations were resolved, the first by its identity key.
        let seed: String = db.one(
            "SELECT document_id::text FROM kerai.document_keys
              WHERE document_id IN (SELECT document_id FROM kerai.edges WHERE relation = 'cites'
                                       AND target_id IN (SELECT document_id FROM kerai.edges
                                                          WHERE relation = 'resolves_to'))
              ORDER BY key LIMIT 1",
        );
        let weights = db
            .client()
            .query(
                "SELECT lexeme, idf FROM kerai._fts_terms($1) ORDER BY lexeme",
                &[&QUESTION],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        Corpus {
            documents: rows("SELECT key FROM kerai.document_keys ORDER BY key"),
            weights,
            references: rows(
                "SELECT concat_ws(' | ', content, ref_type, status, cite_count, chain_depth)
                   FROM kerai.references ORDER BY 1",
            ),
            search: rows(&format!(
                "SELECT concat_ws(' | ', url, md5(content), fts_rank, vector_rank)
                   FROM kerai.search('{QUESTION}', 10)"
            )),
            answer,
            frontier: rows("SELECT concat_ws(' | ', content, cite_count) FROM kerai.frontier(20)"),
            chain: rows(&format!(
                "SELECT concat_ws(' | ', coalesce(title, '(untitled)'), depth)
                   FROM kerai.citation_chain('{seed}') ORDER BY depth, title"
            )),
            dashboards: rows(
                "SELECT format('overview %s', to_jsonb(o)) FROM kerai.corpus_overview o
                 UNION ALL SELECT format('depth %s: %s', chain_depth, documents) FROM kerai.documents_by_depth
                 UNION ALL SELECT format('queue %s', count(*)) FROM kerai.priority_queue
                 UNION ALL SELECT format('ingested %s', sum(ingested)) FROM kerai.hourly_ingestion
                 UNION ALL SELECT format('retrieval %s', to_jsonb(r) - 'ai_requests') FROM kerai.retrieval_overview r
                 UNION ALL SELECT format('jobs %s', count(*)) FROM kerai.job_summary
                 ORDER BY 1",
            ),
        }
    }

    fn assert_same(&self, other: &Corpus, what: &str) {
        println!(
            "{what}: {} documents, {} references, top-10 search, {} answer citations, {} frontier \
             rows, a {}-document citation chain, {} dashboard rows: the same as on one node",
            other.documents.len(),
            other.references.len(),
            other.answer.len(),
            other.frontier.len(),
            other.chain.len(),
            other.dashboards.len()
        );
        // Side by side, what a user compares: the top-10 search and the answer's citations.
        let short = |s: &str| s.chars().take(90).collect::<String>();
        println!("{what}: top-10 search (url | md5 | fts rank | vector rank), one node / here:");
        for (i, (a, b)) in self.search.iter().zip(&other.search).enumerate() {
            println!("  {:>2}. {}\n      {}", i + 1, short(a), short(b));
        }
        println!("{what}: answer citations, one node / here:");
        for (a, b) in self.answer.iter().zip(&other.answer) {
            println!("  - {}\n    {}", short(a), short(b));
        }
        assert_eq!(self.documents, other.documents, "{what}: documents");
        println!("{what}: word weights {:?}", other.weights);
        let words = |c: &Corpus| c.weights.iter().map(|w| w.0.clone()).collect::<Vec<_>>();
        assert_eq!(words(self), words(other), "{what}: the query's words");
        for ((word, a), (_, b)) in self.weights.iter().zip(&other.weights) {
            assert!(
                (a - b).abs() < 1e-3,
                "{what}: the weight of {word:?}: {a} on one node, {b} here"
            );
        }
        assert_eq!(self.references, other.references, "{what}: references");
        assert_eq!(self.search, other.search, "{what}: top-10 search");
        assert_eq!(self.answer, other.answer, "{what}: answer citations");
        assert_eq!(self.frontier, other.frontier, "{what}: frontier");
        assert_eq!(self.chain, other.chain, "{what}: citation chain");
        assert_eq!(self.dashboards, other.dashboards, "{what}: dashboards");
    }
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
        // Made by kerai.distribute() (the statistics search reads once the chunks move).
        .filter(|t| t != "search_statistics")
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
    // Four shards per group instead of Citus's 32: the layout is the same, and the rebalance
    // onto a third worker later moves a handful of shard groups, not fifty.
    let mut c = db.client();
    c.batch_execute("SET citus.shard_count = 4").unwrap();
    let made: serde_json::Value = c
        .query_one("SELECT kerai.distribute()", &[])
        .unwrap_or_else(|e| panic!("kerai.distribute(): {}", kerai_e2e::db::error_text(&e)))
        .get(0);
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
    // Citus's own view: every distributed table has shards on both workers.
    let spread = db
        .client()
        .query(
            "SELECT table_name::text, count(DISTINCT nodeport)::bigint, count(*)::bigint,
                    pg_size_pretty(sum(shard_size))
               FROM citus_shards WHERE citus_table_type = 'distributed'
              GROUP BY 1 ORDER BY 1",
            &[],
        )
        .unwrap();
    assert!(
        !spread.is_empty(),
        "citus_shards lists no distributed table"
    );
    for r in &spread {
        let (table, nodes, shards, size): (String, i64, i64, String) =
            (r.get(0), r.get(1), r.get(2), r.get(3));
        println!("citus_shards: {table}: {shards} shards on {nodes} workers, {size}");
        assert_eq!(nodes, 2, "{table} has shards on both workers");
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

    // One target's pages, versions and URLs are read from one shard.
    let target: String = db.one("SELECT id::text FROM kerai.targets WHERE name = 'example'");
    let plan: Vec<String> = db
        .client()
        .query(
            &format!(
                "EXPLAIN SELECT count(*) FROM kerai.pages p
                   JOIN kerai.page_versions v ON v.target_id = p.target_id AND v.page_id = p.id
                   JOIN kerai.job_urls u ON u.target_id = p.target_id AND u.url_hash = p.url_hash
                  WHERE p.target_id = '{target}'"
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
        "one target's pages, versions and URLs come from one shard:\n{plan}"
    );

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

/// The roles and row-level security of one server hold on distributed tables: the same checks
/// as tests/roles.rs (kerai_e2e::roles), on a database `kerai.distribute()` laid out.
#[test]
#[ignore = "needs a Citus cluster: make test runs it"]
fn the_roles_and_row_level_security_hold_on_distributed_tables() {
    let cluster = DistributedDb::new("citus_roles");
    let _ = coordinator();
    let db = cluster.db();
    let distributed: i64 = db.one(
        "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text IN
            ('kerai.chunks', 'kerai.pages', 'kerai.ai_requests', 'kerai.job_logs')",
    );
    assert_eq!(distributed, 4, "the tables the checks read are distributed");
    // Users first: they count every target, page and passage they see.
    kerai_e2e::roles::users_see_their_own_crawls_and_questions(db);
    let _logins = kerai_e2e::roles::each_role_does_its_part(db);
    // Both ran on the distributed tables: the shards hold their rows.
    let on_shards: i64 = db.one(
        "SELECT sum(result::bigint)::bigint FROM run_command_on_shards('kerai.chunks', 'SELECT count(*) FROM %s')",
    );
    assert!(on_shards > 0, "chunks written to the shards");
}

/// `scripts/citus.sh` with `args`, which must succeed.
fn citus_sh(args: &[&str]) {
    let out = std::process::Command::new(repo_root().join("scripts/citus.sh"))
        .args(args)
        .output()
        .expect("run scripts/citus.sh");
    assert!(
        out.status.success(),
        "scripts/citus.sh {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A worker that is down: a statement that needs it fails with Citus's own message, and a
/// daemon with a crawl to do waits for it (saying so), then finishes the crawl with nothing
/// half-written. Runs on the distributed corpus the pipeline test leaves (tests run in name
/// order).
#[test]
#[ignore = "needs a Citus cluster: make test runs it"]
fn worker_down_fails_with_citus_message_and_the_daemon_waits() {
    let db = coordinator();
    let distributed: bool = db.one(
        "SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'kerai.nodes'::regclass)",
    );
    assert!(
        distributed,
        "runs after the_pipeline_runs_on_a_citus_coordinator, on the corpus it distributed"
    );
    let site = Site::start();
    site.serve_dir(&repo_root().join("examples/site"));
    let out = kerai(
        &db.url,
        &["config", "set", "example", "--base-url", &site.url("/")],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    db.client()
        .execute("SELECT kerai.enqueue_job('example')", &[])
        .unwrap();
    // The worker that holds the target's jobs, so that the daemon needs it at once.
    let port = coordinator_port(&db);
    let holder: i32 = db.one(
        "SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid
          WHERE p.shardid = get_shard_id_for_distribution_column('kerai.scrape_jobs',
                                (SELECT id FROM kerai.targets WHERE name = 'example'))",
    );
    let worker = (holder - i32::from(port)).to_string();
    citus_sh(&["down", &worker]);

    let err = db
        .client()
        .query_one("SELECT count(*) FROM kerai.scrape_jobs", &[])
        .expect_err("a query over every shard fails while a worker is down");
    let err = kerai_e2e::db::error_text(&err);
    assert!(
        err.contains("to the remote node") || err.contains("connections to the node"),
        "Citus's message passed through: {err}"
    );
    let out = kerai(&db.url, &["status", "example"]);
    assert_ne!(
        out.code, 0,
        "kerai status needs the worker:\n{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("remote node") || out.stderr.contains("to the node"),
        "the CLI passes Citus's message on: {}",
        out.stderr
    );

    let daemon = spawn(&db.url, &["daemon", "--once", "--rate", "0"], &[]);
    std::thread::sleep(std::time::Duration::from_secs(4));
    citus_sh(&["up", &port.to_string(), &worker]);
    let out = wait(daemon);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("cannot reach one of its workers")
            && out.stderr.contains("reaches its workers again"),
        "the daemon says why it waits and when it goes on:\n{}",
        out.stderr
    );
    let status: String =
        db.one("SELECT status FROM kerai.scrape_jobs ORDER BY scheduled_at DESC LIMIT 1");
    assert_eq!(status, "COMPLETED", "{}", out.stderr);
    let leased: i64 = db.one("SELECT count(*) FROM kerai.job_urls WHERE status = 'leased'");
    assert_eq!(leased, 0, "no URL is left leased");
    // In one crawl (the pipeline test changed a page, which has a version of each text).
    let twice: i64 = db.one(
        "SELECT count(*) FROM (SELECT page_id FROM kerai.page_versions
                                GROUP BY page_id, job_id HAVING count(*) > 1) x",
    );
    assert_eq!(twice, 0, "no page was stored twice");
    let counted: i64 = db.one("SELECT kerai.counter('nodes')");
    let nodes: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    assert_eq!(counted, nodes, "the counters stay exact");
}

/// `kerai.partition_by_month` on distributed tables: the three growing tables of a crawled
/// corpus become distributed, partitioned tables in their co-location groups, rows, search
/// and references kept, nothing left behind on the workers; a crawl after it writes into the
/// partitions, and deletes still reach what pointed at the rows.
#[test]
#[ignore = "needs a Citus cluster: make test runs it"]
fn partitioning_by_month_holds_on_distributed_tables() {
    let cluster = DistributedDb::new("citus_partitions");
    let _ = coordinator();
    let db = cluster.db();
    let site = Site::start();
    site.serve_dir(&repo_root().join("examples/site"));
    let crawl = || {
        let out = kerai(
            &db.url,
            &[
                "config",
                "set",
                "example",
                "--base-url",
                &site.url("/"),
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
    };
    crawl();
    let answer: i64 = db.one(
        "SELECT jsonb_array_length(kerai.answer('how does the brain predict its inputs', 2)->'citations')::bigint",
    );
    assert!(answer > 0, "an answer cites passages");
    let top = |db: &TestDb| -> Vec<String> {
        db.client()
            .query(
                "SELECT chunk_id::text FROM kerai.search('how does the brain predict its inputs', 10)",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    // kerai.partition_references gains the references the partitions' trigger keeps.
    let counts = |db: &TestDb| -> Vec<(String, i64)> {
        let mut c = row_counts(db);
        c.retain(|(t, _)| t != "partition_references");
        c
    };
    let before = counts(db);
    let hits = top(db);
    assert!(!hits.is_empty(), "search finds passages");

    for (table, group) in [
        ("page_versions", "pages"),
        ("chunks", "documents"),
        ("ai_requests", "ai_responses"),
    ] {
        let done: serde_json::Value =
            db.one(&format!("SELECT kerai.partition_by_month('{table}')::json"));
        println!("partition_by_month('{table}'): {done}");
        assert!(done["partitioned_on"].as_str().is_some(), "{done}");
        // The table and every partition are distributed, in the group's co-location.
        let apart: i64 = db.one(&format!(
            "SELECT count(*) FROM pg_inherits i
               LEFT JOIN pg_dist_partition d ON d.logicalrelid = i.inhrelid
                    AND d.colocationid = (SELECT colocationid FROM pg_dist_partition
                                           WHERE logicalrelid = 'kerai.{group}'::regclass)
              WHERE i.inhparent = 'kerai.{table}'::regclass AND d.logicalrelid IS NULL"
        ));
        assert_eq!(
            apart, 0,
            "every partition of {table} sits with kerai.{group}"
        );
        let parent: i64 = db.one(&format!(
            "SELECT count(*) FROM pg_dist_partition d JOIN pg_class c ON c.oid = d.logicalrelid
              WHERE d.logicalrelid = 'kerai.{table}'::regclass AND c.relkind = 'p'
                AND d.colocationid = (SELECT colocationid FROM pg_dist_partition
                                       WHERE logicalrelid = 'kerai.{group}'::regclass)"
        ));
        assert_eq!(
            parent, 1,
            "kerai.{table} is partitioned and distributed with kerai.{group}"
        );
    }
    assert_eq!(
        counts(db),
        before,
        "every table keeps its rows through partitioning"
    );
    assert_eq!(top(db), hits, "search ranks the same passages");
    // Nothing of the old tables is left on the workers.
    let left: i64 = db.one(
        "SELECT sum(result::bigint)::bigint FROM run_command_on_workers(
            $$SELECT count(*) FROM pg_class WHERE relnamespace = 'kerai'::regnamespace
                 AND relname LIKE '%unpartitioned%'$$)",
    );
    assert_eq!(left, 0, "no table of the old layout is left on a worker");
    let months: i64 = db.one("SELECT kerai.add_month_partitions(6)::bigint");
    assert!(
        months > 0,
        "months ahead are added to the distributed tables"
    );

    // A second crawl writes into the partitions: the pages are unchanged, so no new version.
    let versions: i64 = db.one("SELECT count(*) FROM kerai.page_versions");
    crawl();
    let again: i64 = db.one("SELECT count(*) FROM kerai.page_versions");
    assert_eq!(again, versions, "an unchanged page gets no second version");
    let answer: i64 = db.one(
        "SELECT jsonb_array_length(kerai.answer('how does the brain predict its inputs', 2)->'citations')::bigint",
    );
    assert!(
        answer > 0,
        "answers are written into the partitioned ai_requests"
    );
    // Raw HTML out of line, read back on the shards.
    db.client()
        .batch_execute(
            "INSERT INTO kerai.page_versions (page_id, target_id, content_hash, raw_html)
             SELECT id, target_id, 'big', repeat('y', 1100000) FROM kerai.pages LIMIT 1",
        )
        .unwrap();
    let html: i64 = db.one(
        "SELECT length(kerai.html(v))::bigint FROM kerai.page_versions v
          WHERE content_hash = 'big' AND raw_html IS NULL",
    );
    assert_eq!(
        html, 1_100_000,
        "kerai.html reads a blob from a shard's row"
    );
    // Deletes reach what pointed at the rows (the partitions' delete trigger, on the shards).
    let doc: String = db.one(
        "SELECT e.document_id::text FROM kerai.embeddings e GROUP BY 1 ORDER BY count(*) DESC LIMIT 1",
    );
    db.client()
        .execute(
            "DELETE FROM kerai.chunks WHERE document_id = $1::text::uuid",
            &[&doc],
        )
        .unwrap();
    let orphans: i64 = db.one(
        "SELECT count(*) FROM kerai.embeddings e
          WHERE NOT EXISTS (SELECT 1 FROM kerai.chunks c WHERE c.document_id = e.document_id AND c.id = e.chunk_id)",
    );
    assert_eq!(orphans, 0, "a chunk's vectors go with it");
    db.client()
        .batch_execute("DELETE FROM kerai.ai_requests")
        .unwrap();
    let responses: i64 = db.one("SELECT count(*) FROM kerai.ai_responses");
    assert_eq!(responses, 0, "a question's answers go with it");
}

/// Rows written by hand on a distributed database: without their group's key Citus refuses
/// them before any trigger could fill it in, with its own message, and nothing is written;
/// with the key they are stored and counted as on one server (docs/scale-out.md).
#[test]
#[ignore = "needs a Citus cluster: make test runs it"]
fn rows_written_by_hand_need_their_group_key() {
    let cluster = DistributedDb::new("citus_by_hand");
    let _ = coordinator();
    let db = cluster.db();
    let doc: String = db.one(
        "SELECT kerai.parse_markdown(E'# By hand\\n\\nText.', '{\"source_url\": \"https://example.org/by-hand\"}')::text",
    );
    let nodes: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    for sql in [
        "INSERT INTO kerai.nodes (kind, content, parent_id) VALUES ('paragraph', 'by hand', $1::text::uuid)",
        "INSERT INTO kerai.edges (source_id, target_id, relation) VALUES ($1::text::uuid, $1::text::uuid, 'related')",
    ] {
        let err = db
            .client()
            .execute(sql, &[&doc])
            .expect_err("a row without its document is refused");
        let text = kerai_e2e::db::error_text(&err);
        assert!(
            text.contains("without a partition column value"),
            "{sql}: {text}"
        );
    }
    let after: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    assert_eq!(after, nodes, "nothing was written");
    for sql in [
        "INSERT INTO kerai.nodes (kind, content, parent_id, document_id)
         VALUES ('paragraph', 'by hand', $1::text::uuid, $1::text::uuid)",
        "INSERT INTO kerai.edges (source_id, target_id, relation, document_id)
         VALUES ($1::text::uuid, $1::text::uuid, 'related', $1::text::uuid)",
    ] {
        db.client()
            .execute(sql, &[&doc])
            .unwrap_or_else(|e| panic!("{sql}: {}", kerai_e2e::db::error_text(&e)));
    }
    let counted: i64 = db.one("SELECT kerai.counter('nodes')");
    let nodes: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    assert_eq!(counted, nodes, "the counters stay exact");
    let edges: i64 = db.one("SELECT count(*) FROM kerai.edges WHERE relation = 'related'");
    assert_eq!(edges, 1, "the edge written by hand is stored");
}
