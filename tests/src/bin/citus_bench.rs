//! `make bench` (citus): kerai on one node against the Citus cluster (a coordinator and two
//! workers, `scripts/citus.sh`), on the same machine in the same run. Two databases on the
//! coordinator: one with kerai's plain tables (one node), one laid out by `kerai.distribute()`.
//! Each gets the same crawl of a generated site and the same corpus for hybrid search; the
//! figures are the cluster's overhead as ratios (two cores cannot show a speed-up).
//!
//!     KERAI_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:PORT/postgres KERAI_BIN=... \
//!       cargo run --release -p kerai-e2e --bin citus_bench -- [PAGES] [DOCUMENTS] [OUT.json]

use kerai_e2e::bench_site::{write_site, Nginx};
use kerai_e2e::citus::DistributedDb;
use kerai_e2e::{run, TestDb};
use std::time::Instant;

/// Words of the generated corpus: `w0` … `w2999`, drawn with a long tail as in prose.
const VOCABULARY: u64 = 3000;
const DIMENSIONS: usize = 384;
const QUERIES: usize = 100;
/// Requests the crawler keeps in flight.
const CONCURRENCY: usize = 8;

/// A small deterministic generator (the same corpus and queries in both databases).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn unit(&mut self) -> f64 {
        self.next() as f64 / (1u64 << 31) as f64
    }

    /// A word, rare ones more often rare: exp of a uniform draw over log(VOCABULARY).
    fn word(&mut self) -> String {
        let i = ((self.unit() * (VOCABULARY as f64).ln()).exp() as u64).min(VOCABULARY - 1);
        format!("w{i}")
    }

    fn sentence(&mut self, words: usize) -> String {
        let mut s: Vec<String> = (0..words).map(|_| self.word()).collect();
        s[0] = format!("{}.", s[0]);
        s.join(" ")
    }

    /// A unit vector near one of 40 centres (vectors cluster, as real embeddings do).
    fn vector(&mut self, centres: &[Vec<f64>]) -> String {
        let c = &centres[(self.next() % centres.len() as u64) as usize];
        let v: Vec<f64> = c.iter().map(|x| x + 0.3 * (self.unit() - 0.5)).collect();
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let parts: Vec<String> = v.iter().map(|x| format!("{:.5}", x / norm)).collect();
        format!("[{}]", parts.join(","))
    }
}

fn centres() -> Vec<Vec<f64>> {
    let mut g = Lcg(7);
    (0..40)
        .map(|_| (0..DIMENSIONS).map(|_| g.unit() - 0.5).collect())
        .collect()
}

fn arg(i: usize, default: usize) -> usize {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

/// Crawl the site into `db`: pages and seconds.
fn crawl(db: &TestDb, site: &Nginx, pages: usize) -> (i64, f64) {
    let set = run::kerai(
        &db.url,
        &[
            "config",
            "set",
            "bench",
            "--base-url",
            &format!("{}/", site.base),
            "rate_limit_rps=0",
            "respect_robots=true",
            "trust_sitemap_lastmod=false",
            &format!("concurrency={CONCURRENCY}"),
            &format!("per_host_concurrency={CONCURRENCY}"),
            &format!("max_pages={}", pages + 10),
            &format!("trap_limit={}", pages + 10),
        ],
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    let started = Instant::now();
    let out = run::kerai(&db.url, &["run", "bench", "--no-progress", "--no-embed"]);
    let took = started.elapsed().as_secs_f64();
    assert!(out.code <= 1, "kerai run:\n{}\n{}", out.stdout, out.stderr);
    if std::env::var_os("KERAI_BENCH_VERBOSE").is_some() {
        eprintln!("{}\n{}", out.stdout, out.stderr);
    }
    (db.one("SELECT count(*) FROM kerai.pages"), took)
}

/// The same generated documents, parsed and chunked by kerai, with vectors near real-looking
/// clusters stored for each chunk: seconds to ingest, chunks.
fn corpus(db: &TestDb, documents: usize) -> (f64, i64) {
    let mut g = Lcg(42);
    let centres = centres();
    let mut c = db.client();
    let started = Instant::now();
    for batch in (0..documents).collect::<Vec<_>>().chunks(200) {
        let texts: Vec<String> = batch
            .iter()
            .map(|i| {
                format!(
                    "# Document {i}\n\n{}\n\n## Part two\n\n{}\n\n{}\n",
                    g.sentence(60),
                    g.sentence(80),
                    g.sentence(70)
                )
            })
            .collect();
        let urls: Vec<String> = batch.iter().map(|i| format!("bench:doc/{i}")).collect();
        c.execute(
            "SELECT count(kerai.chunk_document(kerai.parse_markdown(t, jsonb_build_object('source_url', u))))
               FROM unnest($1::text[], $2::text[]) AS x(t, u)",
            &[&texts, &urls],
        )
        .unwrap_or_else(|e| panic!("ingesting: {}", kerai_e2e::db::error_text(&e)));
    }
    let took = started.elapsed().as_secs_f64();
    let model: String = db.one("SELECT kerai.setting('embedding_model') #>> '{}'");
    let ids: Vec<(uuid::Uuid, uuid::Uuid)> = c
        .query(
            "SELECT document_id, id FROM kerai.chunks ORDER BY chunk_key, chunk_index",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    for batch in ids.chunks(500) {
        let docs: Vec<uuid::Uuid> = batch.iter().map(|x| x.0).collect();
        let chunks: Vec<uuid::Uuid> = batch.iter().map(|x| x.1).collect();
        let vectors: Vec<String> = batch.iter().map(|_| g.vector(&centres)).collect();
        c.execute(
            "INSERT INTO kerai.embeddings (document_id, chunk_id, model_name, dimensions, embedding)
             SELECT d, k, $4, 384, v::vector FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS x(d, k, v)
             RETURNING 1",
            &[&docs, &chunks, &vectors, &model],
        )
        .unwrap_or_else(|e| panic!("storing vectors: {}", kerai_e2e::db::error_text(&e)));
    }
    c.batch_execute(
        "UPDATE kerai.chunks SET embedding_status = 'done' WHERE embedding_status <> 'done';
         SELECT kerai.refresh_search_statistics(true);",
    )
    .unwrap();
    (took, ids.len() as i64)
}

/// p50 and p95 of hybrid `kerai.search` (query vector given) over the same queries, in ms.
fn search(db: &TestDb) -> (f64, f64) {
    let mut g = Lcg(99);
    let centres = centres();
    let queries: Vec<(String, String)> = (0..QUERIES)
        .map(|_| {
            let text = format!("{} {} {}", g.word(), g.word(), g.word());
            (text, g.vector(&centres))
        })
        .collect();
    let mut c = db.client();
    let sql = "SELECT count(*) FROM kerai.search($1, 10, jsonb_build_object('query_embedding', $2::text::jsonb))";
    let stmt = c.prepare(sql).unwrap();
    for (text, v) in &queries {
        c.query_one(&stmt, &[text, v]).unwrap();
    }
    let mut ms: Vec<f64> = queries
        .iter()
        .map(|(text, v)| {
            let t = Instant::now();
            c.query_one(&stmt, &[text, v])
                .unwrap_or_else(|e| panic!("search: {}", kerai_e2e::db::error_text(&e)));
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms[((ms.len() as f64 - 1.0) * p).round() as usize];
    (at(0.5), at(0.95))
}

struct Figures {
    pages: i64,
    crawl_s: f64,
    chunks: i64,
    ingest_s: f64,
    p50: f64,
    p95: f64,
}

fn measure(db: &TestDb, site: &Nginx, pages: usize, documents: usize) -> Figures {
    let (crawled, crawl_s) = crawl(db, site, pages);
    let (ingest_s, chunks) = corpus(db, documents);
    let (p50, p95) = search(db);
    Figures {
        pages: crawled,
        crawl_s,
        chunks,
        ingest_s,
        p50,
        p95,
    }
}

fn main() {
    let pages = arg(1, 1000);
    let documents = arg(2, 2000);
    let out = std::env::args().nth(3);
    // The crawl benchmark's site (nginx), as `make bench`'s crawl section fetches it.
    let dir = std::env::current_dir()
        .unwrap()
        .join(".kerai/bench-site-citus");
    std::fs::create_dir_all(&dir).unwrap();
    let site = Nginx::start(&dir);
    write_site(&dir, pages, &site.base);
    let single_db = TestDb::new("citus_bench_single");
    let one = measure(&single_db, &site, pages, documents);
    drop(single_db);
    let cluster = DistributedDb::new("citus_bench_cluster");
    let workers: i64 = cluster.db().one(
        "SELECT count(*) FROM pg_dist_node WHERE groupid <> 0 AND isactive AND noderole = 'primary'",
    );
    let many = measure(cluster.db(), &site, pages, documents);
    let ratio = |a: f64, b: f64| b / a.max(1e-9);
    println!("one node and a Citus coordinator with {workers} workers, the same machine:");
    for (name, f) in [("one node", &one), ("cluster", &many)] {
        println!(
            "  {name:9} crawl {} pages in {:.1} s ({:.0} pages/s); ingest {} chunks in {:.1} s; \
             hybrid search p50 {:.1} ms, p95 {:.1} ms",
            f.pages,
            f.crawl_s,
            f.pages as f64 / f.crawl_s,
            f.chunks,
            f.ingest_s,
            f.p50,
            f.p95
        );
    }
    println!(
        "  the cluster's overhead: crawl time x{:.2}, ingest time x{:.2}, search p50 x{:.2}, p95 x{:.2}",
        ratio(one.crawl_s, many.crawl_s),
        ratio(one.ingest_s, many.ingest_s),
        ratio(one.p50, many.p50),
        ratio(one.p95, many.p95)
    );
    if let Some(path) = out {
        let fig = |f: &Figures| {
            serde_json::json!({
                "pages": f.pages, "crawl_seconds": f.crawl_s, "pages_per_second": f.pages as f64 / f.crawl_s,
                "chunks": f.chunks, "ingest_seconds": f.ingest_s, "search_p50_ms": f.p50, "search_p95_ms": f.p95,
            })
        };
        let json = serde_json::json!({
            "workers": workers, "queries": QUERIES,
            "one_node": fig(&one), "cluster": fig(&many),
            "ratios": {
                "crawl_time": ratio(one.crawl_s, many.crawl_s),
                "ingest_time": ratio(one.ingest_s, many.ingest_s),
                "search_p50": ratio(one.p50, many.p50),
                "search_p95": ratio(one.p95, many.p95),
            },
            "measured_at": chrono::Utc::now().to_rfc3339(),
        });
        std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap())
            .unwrap_or_else(|e| panic!("writing {path}: {e}"));
    }
}
