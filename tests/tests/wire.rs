//! The fetcher ↔ database contract, both ways: every payload type of `kerai_core::wire` the
//! fetcher sends is serialised and handed to the SQL function that reads it, and the rows it
//! writes are checked field by field; every payload the SQL writes is read into its type and
//! checked to lose no key. A renamed key on either side fails here.

use kerai_core::site::near_duplicates::page_signature;
use kerai_core::wire::answer::{Answer, Passage};
use kerai_core::wire::crawl_queue::{DepositResult, KnownWork, WorkKeys, WorkRequest};
use kerai_core::wire::embed::{ChatConfig, EmbeddingConfig};
use kerai_core::wire::site::{JobError, JobLog, NewUrl, RecordCounts, SitemapEntry};
use kerai_core::wire::site_result::{HttpMetadata, JobResult, Outcome};
use kerai_e2e::TestDb;
use postgres::Client;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

const WORKER: &str = "wire-test";

/// A job URL as recorded: url, status, outcome, error kind, error, source type, HTTP status.
type UrlRow = (
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<i32>,
);

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .unwrap_or_else(|| panic!("{v} is not an object"))
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, _)| k.clone())
        .collect()
}

/// `typed`, serialised again, has every (non-null) key the SQL wrote in `sql`.
fn loses_no_key<T: serde::Serialize>(what: &str, sql: &Value, typed: &T) {
    let back = serde_json::to_value(typed).unwrap();
    let lost: Vec<_> = keys(sql).difference(&keys(&back)).cloned().collect();
    assert!(
        lost.is_empty(),
        "{what}: the SQL writes {lost:?}, which the Rust type does not know\n{sql}"
    );
}

fn new_url(url: &str, depth: u32, sitemap: Option<SitemapEntry>) -> NewUrl {
    NewUrl {
        url: url.into(),
        url_hash: kerai_core::site::url_norm::url_hash(url),
        host: "wire.example.org".into(),
        depth,
        via: if sitemap.is_some() { "sitemap" } else { "seed" }.into(),
        discovered_from: (depth > 0).then(|| "https://wire.example.org/".to_string()),
        sitemap,
    }
}

/// A running job of a fresh target, with `urls` added through `kerai._job_add_urls`.
fn job_with(c: &mut Client, urls: &[NewUrl]) -> uuid::Uuid {
    c.batch_execute(
        "SELECT kerai.set_target('wire', 'https://wire.example.org/', '{\"max_depth\": 3}')",
    )
    .unwrap();
    let job: uuid::Uuid = c
        .query_one("SELECT kerai.enqueue_job('wire')", &[])
        .unwrap()
        .get(0);
    c.query_one(
        "SELECT id FROM kerai._job_begin($1, $2, NULL, 60)",
        &[&WORKER, &job],
    )
    .unwrap();
    let payload = serde_json::to_value(urls).unwrap();
    let added: i32 = c
        .query_one("SELECT kerai._job_add_urls($1, $2)", &[&job, &payload])
        .unwrap()
        .get(0);
    assert_eq!(added as usize, urls.len(), "every new URL is added");
    job
}

#[test]
fn new_urls_and_sitemap_entries_are_stored_as_sent() {
    let db = TestDb::new("wireurls");
    let mut c = db.client();
    let entry = SitemapEntry {
        lastmod: Some("2026-01-02T03:04:05+00:00".into()),
        changefreq: Some("weekly".into()),
        priority: Some(0.7),
    };
    let urls = [
        new_url("https://wire.example.org/", 0, None),
        new_url("https://wire.example.org/a", 1, Some(entry.clone())),
    ];
    let job = job_with(&mut c, &urls);
    let rows = c
        .query(
            "SELECT url, url_hash, host, depth, via, discovered_from, sitemap
               FROM kerai.job_urls WHERE job_id = $1 ORDER BY url",
            &[&job],
        )
        .unwrap();
    for (row, sent) in rows.iter().zip(&urls) {
        assert_eq!(row.get::<_, String>(0), sent.url);
        assert_eq!(row.get::<_, String>(1), sent.url_hash);
        assert_eq!(row.get::<_, String>(2), sent.host);
        assert_eq!(row.get::<_, i32>(3) as u32, sent.depth);
        assert_eq!(row.get::<_, String>(4), sent.via);
        assert_eq!(row.get::<_, Option<String>>(5), sent.discovered_from);
        assert_eq!(
            row.get::<_, Option<Value>>(6)
                .filter(|v| !v.is_null())
                .map(SitemapEntry::from_json),
            sent.sitemap
        );
    }
    // The claimed rows give the entry back, and recording the page keeps what it said.
    let claimed = c
        .query(
            "SELECT id, url, sitemap FROM kerai._job_claim_urls($1, $2, 10, 60) ORDER BY url",
            &[&job, &WORKER],
        )
        .unwrap();
    let back = SitemapEntry::from_json(claimed[1].get::<_, Value>(2));
    assert_eq!(back, entry);
    let r = JobResult::refused(
        claimed[1].get(0),
        &claimed[1].get::<_, String>(1),
        Outcome::Failed,
        JobError {
            kind: "unreachable".into(),
            message: "connection refused".into(),
        },
    );
    c.query_one(
        "SELECT kerai._job_record($1, $2, $3)",
        &[&job, &WORKER, &JobResult::batch(&[r])],
    )
    .unwrap();
    let page = c
        .query_one(
            "SELECT sitemap_lastmod = '2026-01-02T03:04:05+00:00'::timestamptz, changefreq, priority
               FROM kerai.pages WHERE url = 'https://wire.example.org/a'",
            &[],
        )
        .unwrap();
    assert!(page.get::<_, bool>(0), "the sitemap's lastmod is kept");
    assert_eq!(page.get::<_, Option<String>>(1).as_deref(), Some("weekly"));
    assert_eq!(page.get::<_, Option<f64>>(2), Some(0.7));
}

#[test]
fn every_kind_of_job_result_is_recorded_as_sent() {
    let db = TestDb::new("wireresults");
    let mut c = db.client();
    let urls = [
        new_url("https://wire.example.org/", 0, None),
        new_url("https://wire.example.org/same", 1, None),
        new_url("https://wire.example.org/broken", 1, None),
        new_url("https://wire.example.org/private", 1, None),
        new_url("https://wire.example.org/print", 1, None),
    ];
    let job = job_with(&mut c, &urls);
    let claimed: Vec<(i64, String)> = c
        .query(
            "SELECT id, url FROM kerai._job_claim_urls($1, $2, 10, 60) ORDER BY url",
            &[&job, &WORKER],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let id = |u: &str| claimed.iter().find(|(_, x)| x == u).unwrap().0;

    let mut fetched = JobResult::new(
        id("https://wire.example.org/"),
        "https://wire.example.org/",
        Outcome::Fetched,
    );
    fetched.final_url = Some("https://wire.example.org/index.html".into());
    fetched.http = Some(HttpMetadata {
        status: Some(200),
        etag: Some("\"v1\"".into()),
        last_modified: Some("Tue, 03 Mar 2026 10:00:00 GMT".into()),
        content_type: Some("text/html; charset=utf-8".into()),
        bytes: Some(321),
        elapsed_ms: Some(12),
        redirects: Some(vec!["https://wire.example.org/".into()]),
        ..HttpMetadata::default()
    });
    fetched.content_hash = Some("hash-v1".into());
    fetched.raw_html = Some("<h1>Wire</h1><p>Scanner sessions last ninety minutes.</p>".into());
    fetched.markdown = Some("# Wire\n\nScanner sessions last ninety minutes.\n".into());
    fetched.source_type = Some("html".into());
    fetched.metadata = Some(Map::from_iter([
        ("title".to_string(), json!("Wire")),
        ("language".to_string(), json!("en")),
        ("license".to_string(), json!("CC BY 4.0")),
    ]));
    fetched.links = Some(vec![new_url("https://wire.example.org/next", 1, None)]);
    let words: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
    fetched.signature = page_signature(&words.join(" "));
    assert!(fetched.signature.is_some());
    fetched.logs = Some(vec![JobLog {
        level: "WARN".into(),
        event: "CRAWLER_TRAP".into(),
        url: "https://wire.example.org/cal/1".into(),
        message: "crawler trap: wire calendar".into(),
    }]);
    let not_modified = JobResult {
        http: Some(HttpMetadata {
            status: Some(304),
            method: Some("HEAD".into()),
            ..HttpMetadata::default()
        }),
        ..JobResult::new(
            id("https://wire.example.org/same"),
            "https://wire.example.org/same",
            Outcome::NotModified,
        )
    };
    let failed = JobResult {
        http: Some(HttpMetadata {
            status: Some(500),
            ..HttpMetadata::default()
        }),
        source_type: Some("pdf".into()),
        ..JobResult::refused(
            id("https://wire.example.org/broken"),
            "https://wire.example.org/broken",
            Outcome::Failed,
            JobError {
                kind: "http_status".into(),
                message: "HTTP 500 from the server".into(),
            },
        )
    };
    let skipped = JobResult::refused(
        id("https://wire.example.org/private"),
        "https://wire.example.org/private",
        Outcome::Skipped,
        JobError {
            kind: "robots_disallowed".into(),
            message: "robots.txt disallows it".into(),
        },
    );
    // A print view whose rel=canonical is the fetched page: stored as its alias.
    let print = JobResult {
        http: Some(HttpMetadata {
            status: Some(200),
            ..HttpMetadata::default()
        }),
        source_type: Some("html".into()),
        content_hash: Some("hash-print".into()),
        markdown: Some("# Wire (print)\n\nScanner sessions last ninety minutes.\n".into()),
        canonical: Some(new_url("https://wire.example.org/", 1, None)),
        ..JobResult::new(
            id("https://wire.example.org/print"),
            "https://wire.example.org/print",
            Outcome::Fetched,
        )
    };
    let answer: Value = c
        .query_one(
            "SELECT kerai._job_record($1, $2, $3)",
            &[
                &job,
                &WORKER,
                &JobResult::batch(&[fetched.clone(), not_modified, failed, skipped, print]),
            ],
        )
        .unwrap()
        .get(0);
    let counts = RecordCounts::from_json(answer.clone());
    loses_no_key("kerai._job_record's counts", &answer, &counts);
    assert_eq!(
        counts,
        RecordCounts {
            new: 1,
            unchanged: 1,
            duplicate: 1,
            failed: 1,
            skipped: 1,
            links: 1,
            ..RecordCounts::default()
        },
        "one of each, and the fetched page's link"
    );
    let alias: String = c
        .query_one(
            "SELECT o.url || ' ' || p.alias_reason FROM kerai.pages p JOIN kerai.pages o ON o.id = p.alias_of
              WHERE p.url = 'https://wire.example.org/print'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(alias, "https://wire.example.org/ canonical");

    // The fetched page: its version keeps the HTTP exchange whole, and every field landed.
    let v = c
        .query_one(
            "SELECT v.content_hash, v.raw_html, v.http_metadata, v.source_type, v.title, v.language,
                    v.metadata->>'source_url', v.metadata->>'license', p.http_status, p.etag,
                    p.last_modified, p.content_type, p.outlinks, d.content, v.minhash, v.minhash_bands
               FROM kerai.pages p JOIN kerai.page_versions v ON v.id = p.current_version
               LEFT JOIN kerai.nodes d ON d.id = v.document_id
              WHERE p.url = 'https://wire.example.org/'",
            &[],
        )
        .unwrap();
    let http = fetched.http.as_ref().unwrap();
    assert_eq!(v.get::<_, String>(0), "hash-v1");
    assert_eq!(v.get::<_, Option<String>>(1), fetched.raw_html);
    assert_eq!(
        serde_json::from_value::<HttpMetadata>(v.get::<_, Value>(2)).unwrap(),
        *http
    );
    assert_eq!(v.get::<_, Option<String>>(3).as_deref(), Some("html"));
    assert_eq!(v.get::<_, Option<String>>(4).as_deref(), Some("Wire"));
    assert_eq!(v.get::<_, Option<String>>(5).as_deref(), Some("en"));
    assert_eq!(
        v.get::<_, Option<String>>(6),
        fetched.final_url,
        "the document's source is where the redirects ended"
    );
    assert_eq!(v.get::<_, Option<String>>(7).as_deref(), Some("CC BY 4.0"));
    assert_eq!(v.get::<_, Option<i32>>(8), Some(200));
    assert_eq!(v.get::<_, Option<String>>(9), http.etag);
    assert_eq!(v.get::<_, Option<String>>(10), http.last_modified);
    assert_eq!(v.get::<_, Option<String>>(11), http.content_type);
    let outlinks: Vec<NewUrl> = serde_json::from_value(v.get::<_, Value>(12)).unwrap();
    assert_eq!(Some(outlinks), fetched.links);
    assert!(
        v.get::<_, Option<String>>(13).is_some(),
        "the markdown became a document"
    );
    let sig = fetched.signature.as_ref().unwrap();
    assert_eq!(
        v.get::<_, Option<Vec<i64>>>(14).as_ref(),
        Some(&sig.minhash)
    );
    assert_eq!(v.get::<_, Option<Vec<i64>>>(15).as_ref(), Some(&sig.bands));
    let next: i64 = c
        .query_one(
            "SELECT count(*) FROM kerai.job_urls WHERE job_id = $1 AND url = 'https://wire.example.org/next'
                AND discovered_from = 'https://wire.example.org/' AND depth = 1",
            &[&job],
        )
        .unwrap()
        .get(0);
    assert_eq!(next, 1, "the result's links are queued as sent");
    let log: i64 = c
        .query_one(
            "SELECT count(*) FROM kerai.job_logs WHERE job_id = $1 AND level = 'WARN'
                AND event = 'CRAWLER_TRAP' AND url = 'https://wire.example.org/cal/1'
                AND message = 'crawler trap: wire calendar'",
            &[&job],
        )
        .unwrap()
        .get(0);
    assert_eq!(log, 1, "the result's log lines are written as sent");

    // The others: outcome, status and error as sent.
    let rows = c
        .query(
            "SELECT u.url, u.status, u.outcome, u.error_kind, u.error, u.source_type, p.http_status
               FROM kerai.job_urls u LEFT JOIN kerai.pages p ON p.url = u.url
              WHERE u.job_id = $1 AND u.url <> 'https://wire.example.org/' AND u.url NOT LIKE '%/next'
              ORDER BY u.url",
            &[&job],
        )
        .unwrap();
    let got: Vec<UrlRow> = rows
        .iter()
        .map(|r| {
            (
                r.get(0),
                r.get(1),
                r.get(2),
                r.get(3),
                r.get(4),
                r.get(5),
                r.get(6),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "https://wire.example.org/broken".into(),
                "failed".into(),
                Some("failed".into()),
                Some("http_status".into()),
                Some("HTTP 500 from the server".into()),
                Some("pdf".into()),
                Some(500)
            ),
            (
                "https://wire.example.org/print".into(),
                "done".into(),
                Some("duplicate".into()),
                None,
                None,
                Some("html".into()),
                Some(200)
            ),
            (
                "https://wire.example.org/private".into(),
                "skipped".into(),
                Some("skipped".into()),
                Some("robots_disallowed".into()),
                Some("robots.txt disallows it".into()),
                None,
                None
            ),
            (
                "https://wire.example.org/same".into(),
                "done".into(),
                Some("unchanged".into()),
                None,
                None,
                None,
                Some(304)
            ),
        ]
    );
}

/// A seed document citing one work three ways, and the queue items `kerai.crawl_cycle` makes
/// of them, leased: (id, request).
fn leased_items(c: &mut Client) -> Vec<(i64, Value)> {
    c.batch_execute(
        "UPDATE kerai.agents SET config = config || '{\"rate_limit_seconds\": 0, \"min_score\": 0}'
          WHERE name = 'kerai_crawl';
         SELECT kerai.parse_markdown('# Seed

The result (Friston, 2010) is in doi:10.1038/nrn2787.

A copy is at https://wire.example.org/friston.pdf for those without access.
', '{\"source_url\": \"https://wire.example.org/seed\"}');
         SELECT kerai.crawl_cycle() FROM generate_series(1, 3);",
    )
    .unwrap();
    c.query(
        "SELECT id, request FROM kerai._worker_claim($1, 60, 3) ORDER BY id",
        &[&WORKER],
    )
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect()
}

#[test]
fn the_citation_loops_payloads_cross_both_ways() {
    let db = TestDb::new("wirequeue");
    let mut c = db.client();
    let items = leased_items(&mut c);
    assert!(
        items.len() >= 2,
        "two references to one work are leased: {items:?}"
    );
    let (item, request) = items[0].clone();
    let (other, _) = items[1].clone();
    // SQL → fetcher: the request reads into its type whole.
    let typed = WorkRequest::from_json(request.clone());
    loses_no_key("a queue item's request", &request, &typed);
    assert!(typed.reference.is_some() && typed.ref_type.is_some() && typed.text.is_some());

    // Fetcher → SQL: keys of a work nobody has are unknown ...
    let keys = WorkKeys {
        doi: Some("10.1038/nrn2787".into()),
        arxiv: None,
        url: Some("https://wire.example.org/friston.pdf".into()),
    };
    let keys_json = serde_json::to_value(&keys).unwrap();
    let known: Option<Value> = c
        .query_one("SELECT kerai._worker_known($1, $2)", &[&item, &keys_json])
        .unwrap()
        .get(0);
    assert_eq!(known, None);

    // ... the deposit's result is kept and its keys are the work's ...
    let deposit = DepositResult {
        source_url: "https://wire.example.org/friston.pdf".into(),
        source_type: "pdf".into(),
        license: "cc-by".into(),
        fetched_at: "2026-11-25T10:00:00+00:00".into(),
        content_type: "full".into(),
        found_via: "doi".into(),
        metadata: Map::from_iter([
            ("doi".to_string(), json!("10.1038/nrn2787")),
            ("title".to_string(), json!("The free-energy principle")),
        ]),
    };
    let sent = serde_json::to_value(&deposit).unwrap();
    c.execute(
        "SELECT kerai._worker_deposit($1, $2, $3)",
        &[
            &item,
            &"# The free-energy principle\n\nA unified brain theory.\n",
            &sent,
        ],
    )
    .unwrap();
    let stored: Value = c
        .query_one(
            "SELECT result FROM kerai.crawl_queue WHERE id = $1",
            &[&item],
        )
        .unwrap()
        .get(0);
    for (k, v) in sent.as_object().unwrap() {
        assert_eq!(&stored[k], v, "the deposit's {k} is kept on the queue item");
    }
    let work_keys: Vec<String> = serde_json::from_value(stored["keys"].clone()).unwrap();
    assert!(
        work_keys.iter().any(|k| k.contains("10.1038/nrn2787"))
            && work_keys
                .iter()
                .any(|k| k.contains("wire.example.org/friston.pdf")),
        "the work is known by the deposit's DOI and URL: {work_keys:?}"
    );

    // ... and another item of the same work, asked now, waits for that deposit.
    let answer: Value = c
        .query_one("SELECT kerai._worker_known($1, $2)", &[&other, &keys_json])
        .unwrap()
        .get(0);
    assert_eq!(
        KnownWork::from_json(answer.clone()),
        KnownWork::Waiting { item },
        "{answer}"
    );
    // Once ingested, the work is known: the answer names its document.
    let (third, _) = items.get(2).expect("the third reference is leased too");
    c.batch_execute("SELECT kerai.crawl_cycle()").unwrap();
    let answer: Value = c
        .query_one("SELECT kerai._worker_known($1, $2)", &[third, &keys_json])
        .unwrap()
        .get(0);
    let doc: String = db.one(
        "SELECT id::text FROM kerai.nodes WHERE kind = 'document'
          AND metadata->>'source_url' = 'https://wire.example.org/friston.pdf'",
    );
    assert_eq!(
        KnownWork::from_json(answer.clone()),
        KnownWork::Linked { document: doc },
        "{answer}"
    );
}

#[test]
fn settings_read_into_their_types_whole() {
    let db = TestDb::new("wiresettings");
    let mut c = db.client();
    c.batch_execute(
        "SELECT kerai.configure_embeddings('openai', 'text-embedding-3-small', 1536,
                                           'http://127.0.0.1:9/v1', 'WIRE_EMBED_KEY');
         SELECT kerai.configure_chat('http://127.0.0.1:9/v1', 'wire-chat', 'WIRE_CHAT_KEY');",
    )
    .unwrap();
    let e: Value = c
        .query_one("SELECT kerai._embedding_config()", &[])
        .unwrap()
        .get(0);
    let typed = EmbeddingConfig::from_json(e.clone());
    loses_no_key("kerai._embedding_config()", &e, &typed);
    assert_eq!(typed.provider.as_deref(), Some("openai"));
    assert_eq!(typed.model.as_deref(), Some("text-embedding-3-small"));
    assert_eq!(typed.dimensions, Some(1536));
    assert_eq!(typed.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
    assert_eq!(typed.api_key_env.as_deref(), Some("WIRE_EMBED_KEY"));
    assert!(
        typed.batch.is_some() && typed.timeout_seconds.is_some() && typed.max_attempts.is_some()
    );
    let ch: Value = c
        .query_one("SELECT kerai._chat_config()", &[])
        .unwrap()
        .get(0);
    let typed = ChatConfig::from_json(ch.clone());
    loses_no_key("kerai._chat_config()", &ch, &typed);
    assert_eq!(typed.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
    assert_eq!(typed.model.as_deref(), Some("wire-chat"));
    assert_eq!(typed.api_key_env.as_deref(), Some("WIRE_CHAT_KEY"));
    assert!(typed.timeout_seconds.is_some());
}

#[test]
fn answer_passages_go_out_and_come_back() {
    let db = TestDb::new("wireanswer");
    let mut c = db.client();
    c.batch_execute(
        "SELECT kerai.parse_markdown('# Scanner

Each scanner session lasts ninety minutes, booked a week ahead.

## Safety

Remove metal objects before a scanner session.
', '{\"source_url\": \"https://wire.example.org/scanner\"}');
         SELECT kerai.chunk_pending();",
    )
    .unwrap();
    let q = "How long does a scanner session last?";
    let filters = json!({});
    let hits: Value = c
        .query_one("SELECT kerai._answer_passages($1, 2, $2)", &[&q, &filters])
        .unwrap()
        .get(0);
    let passages: Vec<Passage> = serde_json::from_value(hits.clone()).unwrap();
    assert!(
        !passages.is_empty(),
        "the corpus has passages for {q:?}: {hits}"
    );
    for (p, raw) in passages.iter().zip(hits.as_array().unwrap()) {
        loses_no_key("a passage", raw, p);
    }
    let sent = serde_json::to_value(&passages).unwrap();
    let prompt: String = c
        .query_one("SELECT kerai._answer_prompt($1, $2)", &[&q, &sent])
        .unwrap()
        .get(0);
    assert!(
        prompt.contains(&passages[0].content),
        "the prompt quotes the passages"
    );
    let out: Value = c
        .query_one(
            "SELECT kerai._answer_result($1, $2, 'Ninety minutes [1].', 'wire-chat', 'llm', 30, 4, $3)",
            &[&q, &sent, &filters],
        )
        .unwrap()
        .get(0);
    let answer: Answer = serde_json::from_value(out.clone()).unwrap();
    loses_no_key("kerai._answer_result", &out, &answer);
    assert_eq!(answer.answer, "Ninety minutes [1].");
    assert_eq!((answer.prompt_tokens, answer.completion_tokens), (30, 4));
    // The answer cites passage 1 only: that is its list of sources.
    assert_eq!(answer.citations.len(), 1);
    let (cite, p) = (&answer.citations[0], &passages[0]);
    assert_eq!(cite.order, 1);
    assert_eq!(cite.chunk_id, p.chunk_id);
    // It quotes a clean span of the passage: its paragraphs, without the headings.
    assert!(
        cite.text.split("\n\n").all(|b| p.content.contains(b)),
        "{} / {}",
        cite.text,
        p.content
    );
    assert!(cite.text.contains("ninety minutes"), "{}", cite.text);
    assert!(
        !cite.text.lines().any(|l| l == "Scanner" || l == "Safety"),
        "{}",
        cite.text
    );
    assert_eq!(cite.url, p.url);
    // kerai.answer (extractive) answers in the same type.
    let out: Value = c
        .query_one("SELECT kerai.answer($1, 2)", &[&q])
        .unwrap()
        .get(0);
    let extractive: Answer = serde_json::from_value(out.clone()).unwrap();
    loses_no_key("kerai.answer", &out, &extractive);
    assert_eq!(extractive.mode, "extractive");
    for c in &extractive.citations {
        assert!(
            extractive.answer.contains(&format!("[{}]", c.order)),
            "every source listed is cited in the text: {out}"
        );
    }
}
