//! The retrieval layer end to end: a crawl of a fixture intranet is chunked, embedded (the
//! local model, or an OpenAI-compatible endpoint), searched and answered with citations;
//! unchanged pages make no new chunks, changed ones re-embed only what changed; a wrong-sized
//! or slow embedding endpoint leaves chunks pending with the reason, never half-written.

use kerai_e2e::openai::FakeOpenAi;
use kerai_e2e::{kerai, kerai_env, Site, TestDb};
use serde_json::Value;

const NAV: &str = r#"<header><nav><a href="/">Home</a> <a href="/lab">Imaging lab</a> <a href="/people">People</a> <a href="/about">About</a></nav></header>"#;
const FOOTER: &str = "<footer><p>© 2026 Northwind Institute · Privacy · Contact</p></footer>";

fn page(title: &str, body: &str, head: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><title>{title}</title>{head}</head><body>{NAV}<main><article>{body}</article></main>{FOOTER}</body></html>"
    )
}

fn lab_page(session_minutes: u32) -> String {
    page(
        "Imaging lab",
        &format!(
            "<h1>The imaging lab</h1>
             <p>The Northwind Institute opened a new imaging lab on 12 March 2026. The lab houses a 7 tesla
             scanner that cost £6.8 million and serves research groups across the institute.</p>
             <h2>Booking</h2>
             <p>Researchers book scanner time through the facilities office. Each scanner session lasts
             {session_minutes} minutes, and sessions start at 08:00, 10:00, 13:00 and 15:00 on weekdays.</p>
             <h2>Safety</h2>
             <p>Nobody enters the scanner room with metal objects. Visitors are escorted by trained staff
             at all times and sign the safety register at the door.</p>"
        ),
        "",
    )
}

fn intranet() -> Site {
    let site = Site::start();
    site.page("/robots.txt", "text/plain", "User-agent: *\nAllow: /\n");
    site.html(
        "/",
        &page(
            "Northwind intranet",
            "<h1>Welcome to the intranet</h1><p>Find the <a href=\"/lab\">imaging lab</a>, the
             <a href=\"/people\">people</a> and <a href=\"/about\">about the institute</a>.</p>",
            "",
        ),
    );
    site.html("/lab", &lab_page(90));
    site.html(
        "/people",
        &page(
            "People",
            "<h1>People</h1><p>Dr. Henrik Aalto has been the Director of the imaging lab since 2019.
             Maya Patel coordinates the facilities office and answers booking questions at
             imaging@northwind.example.org.</p>",
            "",
        ),
    );
    site.html(
        "/about",
        &page(
            "About",
            "<h1>About the institute</h1><p>The Northwind Institute for Cognitive Science studies
             perception and learning. It is based in Leeds and employs 142 people.</p>",
            r#"<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Organization",
               "name": "Northwind Institute for Cognitive Science", "foundingDate": "1998-09-01",
               "numberOfEmployees": 142}</script>"#,
        ),
    );
    site
}

fn configure(db: &TestDb, site: &Site) {
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "intra",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "chunk_size=96",
            "chunk_overlap=16",
            "tags=facilities,intranet",
        ],
    );
    assert_eq!(out.code, 0, "config set: {}{}", out.stdout, out.stderr);
}

/// "kerai: embedded N chunks" from standard error.
fn embedded_count(stderr: &str) -> i64 {
    stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("kerai: embedded ")?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no 'embedded N chunks' line in:\n{stderr}"))
}

#[test]
fn a_crawl_is_chunked_embedded_searched_and_answered() {
    let db = TestDb::new("retrieval");
    let site = intranet();
    configure(&db, &site);
    let out = kerai(&db.url, &["run", "intra", "--no-progress"]);
    assert_eq!(out.code, 0, "run: {}{}", out.stdout, out.stderr);
    let first_embedded = embedded_count(&out.stderr);

    // Every page has chunks with the seed's metadata, within the size, embedded.
    let mut c = db.client();
    let rows = c
        .query(
            "SELECT source_url, count(*), bool_and(chunk_total = (SELECT count(*) FROM kerai.chunks x WHERE x.chunk_key = c.chunk_key)),
                    bool_and(token_count <= 96), bool_and(page_version_id IS NOT NULL), bool_and(target_id IS NOT NULL),
                    bool_and(source_type = 'html'), bool_and(language = 'en'), bool_and(title IS NOT NULL),
                    bool_and(crawl_timestamp IS NOT NULL), bool_and(tags @> '{facilities,intranet}'),
                    bool_and(embedding_status = 'done'), bool_and(id = kerai.chunk_id(source_url, chunk_index))
               FROM kerai.chunks c GROUP BY source_url ORDER BY source_url",
            &[],
        )
        .unwrap();
    assert_eq!(rows.len(), 4, "one set of chunks per page");
    for r in &rows {
        let url: String = r.get(0);
        for i in 2..13 {
            assert!(
                r.get::<_, bool>(i),
                "{url}: column {i} of the chunk checks is false"
            );
        }
    }
    let chunks: i64 = db.one("SELECT count(*) FROM kerai.chunks");
    assert_eq!(first_embedded, chunks, "every chunk embedded once");
    let dims: i64 = db.one(
        "SELECT count(*) FROM kerai.embeddings WHERE dimensions = 384 AND model_name = 'sentence-transformers/all-MiniLM-L6-v2:int8'",
    );
    assert_eq!(dims, chunks);
    // parent_url: the page the crawl found it on.
    let parent: String = db.one(&format!(
        "SELECT parent_url FROM kerai.chunks WHERE source_url = '{}' LIMIT 1",
        site.url("/lab")
    ));
    assert_eq!(parent, site.url("/"));

    // Entities and claims, with no language model.
    let org: i64 = db.one(
        "SELECT count(*) FROM kerai.entities WHERE kind = 'organization' AND text = 'Northwind Institute for Cognitive Science'",
    );
    assert!(org >= 1);
    let founded: i64 = db.one(
        "SELECT count(*) FROM kerai.claims WHERE source = 'json_ld' AND statement = 'Northwind Institute for Cognitive Science was founded on 1998-09-01'",
    );
    assert_eq!(founded, 1);
    let director: i64 = db.one(
        "SELECT count(*) FROM kerai.claims WHERE source = 'pattern' AND subject = 'Dr. Henrik Aalto'",
    );
    assert!(director >= 1, "a pattern claim about the director");

    // Search from the command line: the lab page comes first for a question about sessions.
    let s = kerai(
        &db.url,
        &[
            "search",
            "how long does a scanner session last",
            "--format",
            "json",
            "-k",
            "3",
        ],
    );
    assert_eq!(s.code, 0, "{}", s.stderr);
    let hits = s.json()["hits"].as_array().cloned().unwrap();
    assert_eq!(hits[0]["url"], site.url("/lab"));
    assert!(hits[0]["content"].as_str().unwrap().contains("90 minutes"));
    assert!(
        hits[0]["fts_rank"].is_number() && hits[0]["vector_rank"].is_number(),
        "{:?}",
        hits[0]
    );
    let filtered = kerai(
        &db.url,
        &[
            "search",
            "scanner",
            "--format",
            "json",
            "--filter",
            &format!("url_prefix={}", site.url("/people")),
        ],
    );
    for h in filtered.json()["hits"].as_array().unwrap() {
        assert_eq!(h["url"], site.url("/people"));
    }
    let bad = kerai(&db.url, &["search", "scanner", "--filter", "colour=blue"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("unknown filter \"colour\""),
        "{}",
        bad.stderr
    );

    // An extractive answer, printed with its sources and logged with its citations.
    let a = kerai(
        &db.url,
        &["answer", "How long does a scanner session last?", "-k", "2"],
    );
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert!(a.stdout.contains("90 minutes"), "{}", a.stdout);
    let today = db.one::<String>("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')");
    // The citation quotes the paragraph that answered, not its chunk's "Booking" heading.
    assert!(
        a.stdout
            .contains("[1] \"Researchers book scanner time through the facilities office.")
            && a.stdout
                .contains(&format!("Source: {} (scraped {today})", site.url("/lab"))),
        "{}",
        a.stdout
    );
    // The seed's full citation query, as written.
    let req: String =
        db.one("SELECT id::text FROM kerai.ai_requests ORDER BY created_at DESC LIMIT 1");
    let cited = c
        .query(
            "SELECT ar.query, resp.response, c.content AS cited_text, cit.relevance_score, p.url AS source_url,
                    pv.scraped_at AS version_date, pv.id AS version_id
               FROM kerai.ai_requests ar
               JOIN kerai.ai_responses resp ON ar.id = resp.request_id
               JOIN kerai.citations cit ON resp.id = cit.response_id
               JOIN kerai.chunks c ON cit.chunk_id = c.id
               JOIN kerai.page_versions pv ON c.page_version_id = pv.id
               JOIN kerai.pages p ON pv.page_id = p.id
              WHERE ar.id::text = $1
              ORDER BY cit.citation_order",
            &[&req],
        )
        .unwrap();
    assert_eq!(
        cited.len(),
        1,
        "the answer cites one of its two passages, [1]"
    );
    assert_eq!(cited[0].get::<_, String>(4), site.url("/lab"));

    // Crawling the unchanged site again makes no chunks and embeds nothing.
    let before: String = db
        .one("SELECT string_agg(id::text || updated_at::text, ',' ORDER BY id) FROM kerai.chunks");
    let vectors_before: String =
        db.one("SELECT string_agg(chunk_id::text || created_at::text, ',' ORDER BY chunk_id) FROM kerai.embeddings");
    let again = kerai(&db.url, &["run", "intra", "--no-progress"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(embedded_count(&again.stderr), 0);
    assert_eq!(
        before,
        db.one::<String>(
            "SELECT string_agg(id::text || updated_at::text, ',' ORDER BY id) FROM kerai.chunks"
        )
    );
    assert_eq!(
        vectors_before,
        db.one::<String>("SELECT string_agg(chunk_id::text || created_at::text, ',' ORDER BY chunk_id) FROM kerai.embeddings")
    );

    // A changed page: its changed chunks get new vectors; every other vector stays.
    site.html("/lab", &lab_page(60));
    let other_vectors: String = db.one(&format!(
        "SELECT string_agg(e.chunk_id::text || e.created_at::text, ',' ORDER BY e.chunk_id)
           FROM kerai.embeddings e JOIN kerai.chunks c ON c.id = e.chunk_id WHERE c.source_url <> '{}'",
        site.url("/lab")
    ));
    let changed = kerai(
        &db.url,
        &["run", "intra", "--no-progress", "--format", "json"],
    );
    assert_eq!(changed.code, 0, "{}", changed.stderr);
    assert_eq!(
        changed.json()["metrics"]["updated_count"],
        1,
        "{}",
        changed.stdout
    );
    let re_embedded = embedded_count(&changed.stderr);
    assert!(
        (1..chunks).contains(&re_embedded),
        "re-embedded {re_embedded} of {chunks}"
    );
    assert_eq!(
        other_vectors,
        db.one::<String>(&format!(
            "SELECT string_agg(e.chunk_id::text || e.created_at::text, ',' ORDER BY e.chunk_id)
               FROM kerai.embeddings e JOIN kerai.chunks c ON c.id = e.chunk_id WHERE c.source_url <> '{}'",
            site.url("/lab")
        ))
    );
    let now_60: i64 = db.one(&format!(
        "SELECT count(*) FROM kerai.chunks WHERE source_url = '{}' AND content LIKE '%60 minutes%' AND embedding_status = 'done'",
        site.url("/lab")
    ));
    assert_eq!(now_60, 1);
    // The old answer still shows what it cited.
    let kept: String =
        db.one("SELECT cited_text FROM kerai.citations ORDER BY citation_order LIMIT 1");
    assert!(kept.contains("90 minutes"), "{kept}");
    assert!(kept.starts_with("Researchers book"), "{kept}");
}

#[test]
fn an_openai_compatible_provider_embeds_in_bulk_and_bad_answers_leave_chunks_pending() {
    let db = TestDb::new("embedremote");
    let site = intranet();
    let fake = FakeOpenAi::start(16);
    configure(&db, &site);
    db.client()
        .execute(
            "SELECT kerai.configure_embeddings('openai', 'fake-embed', 16, $1, 'E2E_EMBED_KEY')",
            &[&fake.base],
        )
        .unwrap();
    kerai_e2e::allow_private(&mut db.client(), &[&fake.base]);
    // A page whose HTML is over 1 MB (a big inline script): kept whole, out of line.
    let big = page(
        "Big page",
        &format!(
            "<h1>Big page</h1><p>Mostly script.</p><script>var data = \"{}\";</script>",
            "x".repeat(1_200_000)
        ),
        "",
    );
    site.html("/big", &big);
    site.html(
        "/",
        &page("Northwind intranet", "<h1>Welcome</h1><p><a href=\"/lab\">lab</a> <a href=\"/people\">people</a> <a href=\"/about\">about</a> <a href=\"/big\">big</a></p>", ""),
    );
    let env = [("E2E_EMBED_KEY", "sk-e2e")];
    let out = kerai_env(&db.url, &["run", "intra", "--no-progress"], &env);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let stored = db
        .client()
        .query_one(
            "SELECT v.raw_html IS NULL, v.raw_html_uri, octet_length(kerai.html(v))
               FROM kerai.page_versions v JOIN kerai.pages p ON p.id = v.page_id WHERE p.url LIKE '%/big'",
            &[],
        )
        .unwrap();
    assert!(stored.get::<_, bool>(0), "the inline column is empty");
    assert!(stored.get::<_, String>(1).starts_with("kerai-blob:sha256:"));
    assert_eq!(
        stored.get::<_, i32>(2) as usize,
        big.len(),
        "the whole HTML is kept"
    );
    let chunks: i64 = db.one("SELECT count(*) FROM kerai.chunks");
    let stored: i64 = db.one(
        "SELECT count(*) FROM kerai.embeddings WHERE model_name = 'fake-embed' AND dimensions = 16",
    );
    assert_eq!(stored, chunks);
    let calls = fake.requests("/embeddings");
    assert!(
        !calls.is_empty() && (calls.len() as i64) < chunks,
        "batched: {} calls for {chunks} chunks",
        calls.len()
    );
    assert!(calls
        .iter()
        .all(|c| c.authorization.as_deref() == Some("Bearer sk-e2e")));
    assert_eq!(calls[0].body["model"], "fake-embed");

    // The query is embedded by the same endpoint, by the CLI and inside the database.
    let s = kerai_env(
        &db.url,
        &["search", "scanner session booking", "--format", "json"],
        &env,
    );
    assert_eq!(s.code, 0, "{}", s.stderr);
    assert!(s.json()["hits"][0]["vector_rank"].is_number());
    let dims: i32 = db.one("SELECT vector_dims(kerai.embed('scanner session'))");
    assert_eq!(dims, 16);

    // The endpoint answers vectors of the wrong size: the changed chunks fail with the reason,
    // nothing is written for them, the crawl says so (exit 1).
    fake.dims.store(24, std::sync::atomic::Ordering::SeqCst);
    site.html("/lab", &lab_page(45));
    let bad = kerai_env(&db.url, &["run", "intra", "--no-progress"], &env);
    assert_eq!(bad.code, 1, "{}{}", bad.stdout, bad.stderr);
    assert!(
        bad.stderr.contains("answered 24 dimensions, expected 16"),
        "{}",
        bad.stderr
    );
    let failed: Vec<(String, Option<String>, bool)> = db
        .client()
        .query(
            "SELECT embedding_status, embedding_error, EXISTS (SELECT 1 FROM kerai.embeddings e WHERE e.chunk_id = c.id)
               FROM kerai.chunks c WHERE embedding_status <> 'done'",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert!(!failed.is_empty());
    for (status, error, has_vector) in &failed {
        assert_eq!(status, "failed");
        assert!(
            error.as_deref().unwrap_or("").contains("24 dimensions"),
            "{error:?}"
        );
        assert!(!has_vector, "no stale or half-written vector");
    }

    // A slow endpoint: the timeout is named, the chunks wait with a backoff.
    fake.dims.store(16, std::sync::atomic::Ordering::SeqCst);
    fake.delay_ms
        .store(3000, std::sync::atomic::Ordering::SeqCst);
    db.client()
        .execute(
            "SELECT kerai.set_setting('embedding_timeout_seconds', '1')",
            &[],
        )
        .unwrap();
    let slow = kerai_env(&db.url, &["embed", "--retry-failed"], &env);
    assert_eq!(slow.code, 1, "{}{}", slow.stdout, slow.stderr);
    assert!(
        slow.stderr.contains("did not answer within 1 s (timeout)"),
        "{}",
        slow.stderr
    );
    let waiting: i64 = db.one(
        "SELECT count(*) FROM kerai.chunks WHERE embedding_status = 'failed' AND embedding_next_try > now() AND embedding_attempts = 1",
    );
    assert_eq!(waiting as usize, failed.len());

    // The endpoint recovers: a retry embeds them all.
    fake.delay_ms.store(0, std::sync::atomic::Ordering::SeqCst);
    let ok = kerai_env(&db.url, &["embed", "--retry-failed", "--json"], &env);
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);
    assert_eq!(ok.json()["remaining"], 0);
    let done: i64 = db.one("SELECT count(*) FROM kerai.chunks WHERE embedding_status <> 'done'");
    assert_eq!(done, 0);
}

#[test]
fn answers_and_claims_come_from_a_chat_model_when_one_is_configured() {
    let db = TestDb::new("chat");
    let site = intranet();
    let fake = FakeOpenAi::start(16);
    configure(&db, &site);
    db.client()
        .batch_execute(&format!(
            "SELECT kerai.configure_embeddings('openai', 'fake-embed', 16, '{0}');
             SELECT kerai.configure_chat('{0}', 'fake-chat', 'E2E_CHAT_KEY');",
            fake.base
        ))
        .unwrap();
    kerai_e2e::allow_private(&mut db.client(), &[&fake.base]);
    fake.on_chat(|user| {
        if user.contains("Extract factual claims") {
            if user.contains("Director") {
                r#"[{"statement": "Dr. Henrik Aalto directs the imaging lab", "subject": "Dr. Henrik Aalto",
                     "predicate": "directs", "object": "the imaging lab", "confidence": 0.9}]"#
                    .to_string()
            } else if user.contains("7 tesla") {
                "Sorry, I cannot help with that.".to_string()
            } else {
                "[]".to_string()
            }
        } else if user.contains("Passages:") {
            "Each scanner session lasts 90 minutes [1].".to_string()
        } else {
            "?".to_string()
        }
    });
    let env = [("E2E_CHAT_KEY", "sk-chat")];
    let run = kerai_env(&db.url, &["run", "intra", "--no-progress"], &env);
    assert_eq!(run.code, 0, "{}", run.stderr);

    let a = kerai_env(
        &db.url,
        &["answer", "How long does a scanner session last?", "-k", "3"],
        &env,
    );
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert!(
        a.stdout
            .starts_with("Each scanner session lasts 90 minutes [1]."),
        "{}",
        a.stdout
    );
    assert!(
        a.stdout.contains(&format!("Source: {}", site.url("/lab"))),
        "{}",
        a.stdout
    );
    let chat = fake.requests("/chat/completions");
    assert_eq!(chat.len(), 1);
    assert_eq!(chat[0].authorization.as_deref(), Some("Bearer sk-chat"));
    let prompt = chat[0].body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        prompt.contains("[1] (") && prompt.contains("90 minutes"),
        "{prompt}"
    );
    // The prompt is the question, the retrieved passages numbered from 1, each a stored chunk
    // word for word, and the instruction: nothing else.
    let (head, rest) = prompt
        .split_once("\n\nPassages:\n\n")
        .unwrap_or_else(|| panic!("no passages: {prompt}"));
    assert_eq!(head, "Question: How long does a scanner session last?");
    let (mut body, tail) = rest
        .rsplit_once("\n\nAnswer the question using only these passages.")
        .unwrap_or_else(|| panic!("no instruction: {prompt}"));
    assert_eq!(
        tail,
        " Cite each passage you use as [n]. If the passages do not answer the question, say so."
    );
    let stored: Vec<String> = db
        .client()
        .query("SELECT content FROM kerai.chunks", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut n = 1;
    while !body.is_empty() {
        let open = format!("[{n}] (");
        assert!(body.starts_with(&open), "passage {n}: {body}");
        let after_url = body.find(") ").expect("the passage's url") + 2;
        let end = body
            .find(&format!("\n\n[{}] (", n + 1))
            .unwrap_or(body.len());
        let content = &body[after_url..end];
        assert!(
            stored.iter().any(|c| c == content),
            "passage {n} is not a stored chunk: {content}"
        );
        body = body[end..].trim_start_matches('\n');
        n += 1;
    }
    assert!((2..=4).contains(&n), "{} passages for -k 3", n - 1);
    let logged = db
        .client()
        .query_one(
            "SELECT r.mode, r.model, r.prompt_tokens, r.completion_tokens, r.tokens_used,
                    (SELECT count(*) FROM kerai.citations c WHERE c.response_id = r.id)
               FROM kerai.ai_responses r ORDER BY r.created_at DESC LIMIT 1",
            &[],
        )
        .unwrap();
    assert_eq!(logged.get::<_, String>(0), "llm");
    assert_eq!(logged.get::<_, String>(1), "fake-chat");
    assert!(logged.get::<_, i32>(2) > 10 && logged.get::<_, i32>(3) > 0);
    assert_eq!(
        logged.get::<_, i32>(4),
        logged.get::<_, i32>(2) + logged.get::<_, i32>(3)
    );
    assert_eq!(
        logged.get::<_, i64>(5),
        1,
        "the answer cites passage [1] only, so only it is logged as a citation"
    );
    // The chat path quotes clean spans too: the passage's paragraphs, not its headings.
    let quoted: String = db.one(
        "SELECT c.cited_text FROM kerai.citations c JOIN kerai.ai_responses r ON r.id = c.response_id
          ORDER BY r.created_at DESC LIMIT 1",
    );
    assert!(quoted.contains("90 minutes"), "{quoted}");
    assert!(!quoted.lines().any(|l| l.trim() == "Booking"), "{quoted}");

    // From SQL too: the database calls the endpoint itself.
    let sql: Value = db.one("SELECT kerai.answer('How long does a scanner session last?', 2)");
    assert_eq!(sql["mode"], "llm");
    assert_eq!(sql["answer"], "Each scanner session lasts 90 minutes [1].");
    let text = sql["citations"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("90 minutes") && !text.lines().any(|l| l.trim() == "Booking"),
        "{text}"
    );

    // LLM claims: validated, stored with their chunk; an invalid answer is logged with its cost.
    let c = kerai_env(&db.url, &["embed", "--claims", "--json"], &env);
    assert_eq!(
        c.code, 1,
        "one chunk's answer is not JSON: {}{}",
        c.stdout, c.stderr
    );
    let chunks: i64 = db.one("SELECT count(*) FROM kerai.chunks");
    assert_eq!(c.json()["llm_claims"]["chunks"], chunks);
    assert!(c.stderr.contains("not valid JSON"), "{}", c.stderr);
    let llm: i64 = db.one(
        "SELECT count(*) FROM kerai.claims WHERE source = 'llm' AND statement = 'Dr. Henrik Aalto directs the imaging lab'
            AND chunk_id IS NOT NULL AND request_id IS NOT NULL",
    );
    assert_eq!(llm, 1);
    let asked: i64 = db.one("SELECT count(*) FROM kerai.ai_requests WHERE purpose = 'claims'");
    assert_eq!(asked, chunks, "every call is logged, the invalid one too");
    // Asking again asks about nothing: every chunk was asked in its current text.
    let again = kerai_env(&db.url, &["embed", "--claims", "--json"], &env);
    assert_eq!(again.json()["llm_claims"]["chunks"], 0);

    // A failing chat endpoint is named; nothing is logged as answered.
    fake.fail_status
        .store(500, std::sync::atomic::Ordering::SeqCst);
    let before: i64 = db.one("SELECT count(*) FROM kerai.ai_responses");
    let f = kerai_env(&db.url, &["answer", "Who directs the lab?"], &env);
    assert_eq!(f.code, 2);
    assert!(
        f.stderr.contains("the chat endpoint failed") && f.stderr.contains("HTTP 500"),
        "{}",
        f.stderr
    );
    assert_eq!(
        before,
        db.one::<i64>("SELECT count(*) FROM kerai.ai_responses")
    );
}
