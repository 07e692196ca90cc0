//! Every long-running kerai function can be stopped: `statement_timeout`, `pg_cancel_backend`
//! and `pg_terminate_backend` end it within a second, the session (or, after a terminate, the
//! server) is usable again at once, and nothing was half-written.
//!
//! Each input is big enough to run for seconds; a function that finished before the cancel
//! arrived would fail the test (no error), so the inputs stay honest as the code gets faster.

use kerai_e2e::TestDb;
use postgres::error::SqlState;
use postgres::Client;
use std::thread;
use std::time::{Duration, Instant};

/// How long after the request the function must have stopped.
const WITHIN: Duration = Duration::from_secs(1);
/// How long each function runs before it is asked to stop.
const RUN_FOR: Duration = Duration::from_millis(400);

/// Later timeouts for functions that work in phases (each runs about ten seconds on its
/// input in a debug build, so the last lands well before the end).
const LATER: &[Duration] = &[
    Duration::from_millis(1500),
    Duration::from_millis(3000),
    Duration::from_millis(5000),
];

/// A 20 MB run of words with no sentence break (the input that once ran for 11 minutes).
const WORD_RUN: &str = "SELECT count(*) FROM kerai.chunk_text(repeat('word ', 4000000))";

/// Run `sql` under `statement_timeout`; it must fail with 57014 within `WITHIN` of the
/// timeout, and the same session must answer at once afterwards.
fn times_out(db: &TestDb, sql: &str) {
    times_out_after(db, "SELECT 1", sql)
}

/// [`times_out`] at each of `RUN_FOR` and `later` (each on a new session), so that the cancel
/// lands in different phases of a function that works in several (matching, then sorting,
/// then building rows).
fn times_out_throughout(db: &TestDb, sql: &str, later: &[Duration]) {
    for &run_for in std::iter::once(&RUN_FOR).chain(later) {
        stops_within(db, "SELECT 1", sql, run_for);
    }
}

/// [`times_out`], after `setup` ran untimed on the same session.
fn times_out_after(db: &TestDb, setup: &str, sql: &str) {
    stops_within(db, setup, sql, RUN_FOR)
}

/// `sql` under a `statement_timeout` of `run_for`, after `setup` ran untimed.
fn stops_within(db: &TestDb, setup: &str, sql: &str, run_for: Duration) {
    let mut c = db.client();
    c.batch_execute(setup).unwrap();
    c.batch_execute(&format!(
        "SET statement_timeout = '{}ms'",
        run_for.as_millis()
    ))
    .unwrap();
    let start = Instant::now();
    let err = c.batch_execute(sql).expect_err(&format!(
        "{sql} finished before a statement_timeout of {run_for:?}; make its input bigger"
    ));
    let took = start.elapsed();
    eprintln!(
        "{sql}: stopped {:?} after a timeout of {run_for:?}",
        took.saturating_sub(run_for)
    );
    assert_eq!(
        err.code(),
        Some(&SqlState::QUERY_CANCELED),
        "{sql}: expected a cancel, got {err}"
    );
    assert!(
        took < run_for + WITHIN,
        "{sql}: statement_timeout {run_for:?} took {took:?} to stop it"
    );
    usable_now(&mut c, sql);
}

/// The session answers a query within `WITHIN`.
fn usable_now(c: &mut Client, what: &str) {
    let start = Instant::now();
    c.batch_execute("RESET statement_timeout").unwrap();
    let one: i32 = c.query_one("SELECT 1", &[]).unwrap().get(0);
    assert_eq!(one, 1);
    assert!(
        start.elapsed() < WITHIN,
        "after {what} the session took {:?} to answer",
        start.elapsed()
    );
}

/// Start `sql` on its own session, then after `RUN_FOR` call `signal` (`pg_cancel_backend`
/// or `pg_terminate_backend`) on its backend from another session. Returns the query's error
/// and how long after the signal it ended.
fn signalled(db: &TestDb, sql: &str, signal: &str) -> (postgres::Error, Duration) {
    let mut c = db.client();
    let pid: i32 = c.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    let owned = sql.to_string();
    let worker = thread::spawn(move || {
        let r = c.batch_execute(&owned);
        (r, Instant::now(), c)
    });
    thread::sleep(RUN_FOR);
    let mut admin = db.client();
    let active: bool = admin
        .query_one(
            "SELECT state = 'active' FROM pg_stat_activity WHERE pid = $1",
            &[&pid],
        )
        .unwrap()
        .get(0);
    assert!(
        active,
        "{sql} finished before {signal}; make its input bigger"
    );
    let sent = Instant::now();
    let ok: bool = admin
        .query_one(&format!("SELECT {signal}($1)"), &[&pid])
        .unwrap()
        .get(0);
    assert!(ok, "{signal}({pid}) found no backend");
    let (result, ended, _c) = worker.join().unwrap();
    let err = result.expect_err(&format!("{sql} finished although {signal} was sent"));
    eprintln!(
        "{sql}: {signal} took {:?}",
        ended.saturating_duration_since(sent)
    );
    (err, ended.saturating_duration_since(sent))
}

#[test]
fn statement_timeout_stops_chunking_an_unbroken_word_run() {
    let db = TestDb::new("cancel_chunk");
    times_out(&db, WORD_RUN);
}

#[test]
fn pg_cancel_backend_stops_chunking() {
    let db = TestDb::new("cancel_chunk_signal");
    let (err, took) = signalled(&db, WORD_RUN, "pg_cancel_backend");
    assert_eq!(err.code(), Some(&SqlState::QUERY_CANCELED), "{err}");
    assert!(took < WITHIN, "pg_cancel_backend took {took:?}");
}

#[test]
fn pg_terminate_backend_stops_chunking_and_the_server_stays_up() {
    let db = TestDb::new("cancel_chunk_terminate");
    let mut other = db.client();
    let before: i64 = other
        .query_one(
            "SELECT extract(epoch FROM pg_postmaster_start_time())::bigint",
            &[],
        )
        .unwrap()
        .get(0);
    let (err, took) = signalled(&db, WORD_RUN, "pg_terminate_backend");
    assert!(
        err.code() == Some(&SqlState::ADMIN_SHUTDOWN) || err.is_closed(),
        "expected the session to end, got {err}"
    );
    assert!(took < WITHIN, "pg_terminate_backend took {took:?}");
    // Only that session ended: this one and the server carry on (no crash, no restart).
    usable_now(&mut other, "pg_terminate_backend");
    let after: i64 = other
        .query_one(
            "SELECT extract(epoch FROM pg_postmaster_start_time())::bigint",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(before, after, "the server restarted");
}

#[test]
fn parse_markdown_is_cancelled_and_writes_nothing() {
    let db = TestDb::new("cancel_markdown");
    times_out(
        &db,
        "SELECT kerai.parse_markdown(
            (SELECT string_agg(format(E'## Part %s\\n\\nParagraph %s cites (Smith, 2010) and more text.\\n\\n- item %s\\n', i, i, i), '')
               FROM generate_series(1, 400000) i),
            '{\"source_url\": \"https://example.org/huge\"}')",
    );
    let nodes: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    assert_eq!(nodes, 0, "a cancelled parse_markdown left nodes behind");
}

#[test]
fn html_to_markdown_is_cancelled() {
    let db = TestDb::new("cancel_html");
    times_out(
        &db,
        "SELECT length(kerai.html_to_markdown('<html><body><main>' ||
            repeat('<div class=\"post\"><h2>Title</h2><p>Some text of a post, with a <a href=\"/x\">link</a>.</p></div>', 400000)
            || '</main></body></html>'))",
    );
}

#[test]
fn detect_citations_is_cancelled() {
    let db = TestDb::new("cancel_citations");
    times_out_throughout(
        &db,
        "SELECT count(*) FROM kerai.detect_citations(
            repeat('As Smith and Jones (2010) showed, see doi:10.1000/xyz123 and https://example.org/a. ', 400000))",
        // Not the 5 s point: by then over a million citations are held, and freeing them
        // as the query unwinds takes about 0.6 s in a debug build (docs/errors.md).
        &LATER[..2],
    );
}

#[test]
fn extract_entities_is_cancelled() {
    let db = TestDb::new("cancel_entities");
    times_out_throughout(
        &db,
        "SELECT count(*) FROM kerai.extract_entities(
            repeat('Acme Corp. hired Dr. John Smith in Paris on 3 May 2020 for $5 million. ', 400000))",
        LATER,
    );
}

#[test]
fn extract_claims_is_cancelled() {
    let db = TestDb::new("cancel_claims");
    times_out_throughout(
        &db,
        "SELECT count(*) FROM kerai.extract_claims(
            repeat('Acme Corp. is based in Paris. The drug reduces mortality by 20 percent. ', 400000))",
        LATER,
    );
}

#[test]
fn a_bibliography_is_cancelled_while_its_entries_are_parsed() {
    let db = TestDb::new("cancel_references");
    times_out(
        &db,
        "SELECT count(kerai.parse_reference(e)) FROM kerai.split_bibliography(
            repeat(E'Smith, J. (2001). Growing trees. Forest Journal, 3, 10-20.\n', 200000)) e",
    );
}

#[test]
fn embed_pending_is_cancelled_between_batches_and_stores_nothing() {
    let db = TestDb::new("cancel_embed");
    let mut c = db.client();
    c.batch_execute(
        "SELECT kerai.chunk_document(kerai.parse_markdown(
            (SELECT string_agg(format(E'# Section %s\\n\\nThe %s-th paragraph says something about free energy and inference.\\n\\n', i, i), '')
               FROM generate_series(1, 3000) i),
            '{\"source_url\": \"https://example.org/many\"}'),
          '{\"target_tokens\": 32, \"overlap_tokens\": 0}')",
    )
    .unwrap();
    let pending: i64 =
        db.one("SELECT count(*) FROM kerai.chunks WHERE embedding_status = 'pending'");
    assert!(pending >= 1000, "only {pending} chunks to embed");
    // Loading the model (once per session, about half a second) is not a cancellation point;
    // the batches are.
    times_out_after(
        &db,
        "SELECT kerai.embed('load the model')",
        "SELECT kerai.embed_pending(100000)",
    );
    let embedded: i64 =
        db.one("SELECT count(*) FROM kerai.chunks WHERE embedding_status <> 'pending'");
    assert_eq!(embedded, 0, "a cancelled embed_pending stored vectors");
}

#[test]
fn crawl_cycle_is_cancelled_while_it_ingests_and_the_deposit_waits() {
    let db = TestDb::new("cancel_cycle");
    let mut c = db.client();
    c.batch_execute(
        "UPDATE kerai.agents SET config = config || '{\"rate_limit_seconds\": 0, \"min_score\": 0}'
          WHERE name = 'kerai_crawl';
         SELECT kerai.parse_markdown(E'# Seed\\n\\nThe principle (Friston, 2010) matters.\\n',
                                     '{\"source_url\": \"https://example.org/seed\"}');
         SELECT kerai.crawl_cycle();",
    )
    .unwrap();
    let item: i64 = c
        .query_one(
            "SELECT id FROM kerai._worker_claim('worker-1', 600, 1)",
            &[],
        )
        .unwrap()
        .get(0);
    // The fetcher deposits a copy big enough that ingesting it takes seconds.
    c.batch_execute(&format!(
        "SELECT kerai._worker_progress({item}, 'found', '{{\"source_url\": \"https://example.org/big\"}}');
         SELECT kerai._worker_progress({item}, 'converting');
         SELECT kerai._worker_deposit({item},
            (SELECT string_agg(format(E'## Part %s\\n\\nParagraph %s cites (Smith, 2010).\\n\\n', i, i), '')
               FROM generate_series(1, 400000) i),
            '{{\"source_url\": \"https://example.org/big\", \"source_type\": \"html\"}}');"
    ))
    .unwrap();
    let nodes_before: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    times_out(&db, "SELECT kerai.crawl_cycle()");
    // Rolled back whole: the deposit still waits for the next cycle, nothing was ingested.
    let status: String = db.one(&format!(
        "SELECT status FROM kerai.crawl_queue WHERE id = {item}"
    ));
    assert_eq!(status, "deposited");
    let nodes_after: i64 = db.one("SELECT count(*) FROM kerai.nodes");
    assert_eq!(nodes_before, nodes_after);
}

/// A question whose every word is in every chunk of [`corpus_of_the_same_words`], searched
/// by full text (no model to load) on one domain (a filter read on every row).
const QUESTION: &str = "how does the brain predict sensory inputs by minimising free energy";
const FILTERS: &str = r#"{"mode": "fts", "domain": "example.org"}"#;

/// `chunks` chunks in one document that all hold the same query words, so that a search for
/// them scores every chunk (the full-text budget cannot narrow a query whose words are
/// everywhere). Loaded by SQL, as a bulk import would be: chunking this many takes minutes.
fn corpus_of_the_same_words(db: &TestDb, chunks: i64) {
    db.client()
        .batch_execute(&format!(
            "INSERT INTO kerai.documents (id) VALUES ('00000000-0000-4000-8000-000000000001');
             INSERT INTO kerai.nodes (id, kind, content, document_id, metadata)
             VALUES ('00000000-0000-4000-8000-000000000001', 'document', 'many', '00000000-0000-4000-8000-000000000001',
                     '{{\"source_url\": \"https://example.org/many\"}}');
             INSERT INTO kerai.chunks (id, chunk_key, document_id, chunk_index, chunk_total, chunk_strategy,
                                       content, token_count, content_hash, source_url)
             SELECT gen_random_uuid(), 'https://example.org/many', '00000000-0000-4000-8000-000000000001',
                    g, {chunks}, 'paragraph', t, 16, md5(t), 'https://example.org/many'
               FROM generate_series(0, {chunks} - 1) g,
                    LATERAL (SELECT format('Part %s: the brain predicts its sensory inputs by minimising free energy.', g) AS t) x;
             ANALYZE kerai.chunks;"
        ))
        .unwrap();
}

#[test]
fn search_and_answer_are_cancelled_and_log_nothing() {
    let db = TestDb::new("cancel_search");
    // About a second and a half for each search on these in a debug build.
    corpus_of_the_same_words(&db, 800_000);
    let search = format!("SELECT count(*) FROM kerai.search('{QUESTION}', 10, '{FILTERS}')");
    let answer = format!("SELECT kerai.answer('{QUESTION}', 10, '{FILTERS}')");
    times_out(&db, &search);
    times_out(&db, &answer);
    let (err, took) = signalled(&db, &answer, "pg_cancel_backend");
    assert_eq!(err.code(), Some(&SqlState::QUERY_CANCELED), "{err}");
    assert!(took < WITHIN, "pg_cancel_backend took {took:?}");
    // Nothing was logged: an answer's request, response and citations are written at its end.
    let requests: i64 = db.one("SELECT count(*) FROM kerai.ai_requests");
    assert_eq!(requests, 0, "a cancelled kerai.answer logged a request");
}

/// A model endpoint on 127.0.0.1 that takes every connection and never answers (a server
/// that hangs); the connections stay open until the test ends. Returns its base URL.
fn endpoint_that_never_answers() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    base
}

#[test]
fn a_model_endpoint_that_never_answers_does_not_hold_the_backend() {
    let db = TestDb::new("cancel_http");
    let base = endpoint_that_never_answers();
    let mut c = db.client();
    // The endpoints' own timeouts stay at their defaults (30 s for embeddings, 60 s for chat):
    // the cancel, not the timeout, must end the wait.
    c.batch_execute(&format!(
        "SELECT kerai.configure_embeddings('openai', 'silent-embed', 16, '{base}');
         SELECT kerai.configure_chat('{base}', 'silent-chat');
         SELECT kerai.chunk_document(kerai.parse_markdown(
             E'# Scanner\\n\\nEach scanner session lasts ninety minutes.\\n',
             '{{\"source_url\": \"https://example.org/scanner\"}}'));"
    ))
    .unwrap();
    kerai_e2e::allow_private(&mut c, &[&base]);
    times_out(&db, "SELECT kerai.embed('how long is a scanner session')");
    // Full text finds the passage; the chat model is asked and never answers.
    let answer = "SELECT kerai.answer('how long is a scanner session', 3, '{\"mode\": \"fts\"}')";
    times_out(&db, answer);
    let (err, took) = signalled(&db, answer, "pg_cancel_backend");
    assert_eq!(err.code(), Some(&SqlState::QUERY_CANCELED), "{err}");
    assert!(took < WITHIN, "pg_cancel_backend took {took:?}");
    let requests: i64 = db.one("SELECT count(*) FROM kerai.ai_requests");
    assert_eq!(requests, 0, "a cancelled kerai.answer logged a request");
}
