//! The SSRF guard: kerai refuses to connect to loopback, private, link-local and metadata
//! addresses found in documents or named in settings, unless the `allowed_private_hosts`
//! setting allows them. Loopback stands in for every non-public address here: one server is
//! allowed by host and port, another (on another port of the same address) is not.

use kerai_e2e::openai::FakeOpenAi;
use kerai_e2e::{allow_private, kerai, Site, TestDb};
use serde_json::json;

/// An article long enough to be kept as a document.
fn article(title: &str) -> String {
    let prose = "Predictive coding treats perception as inference on the causes of sensations. ";
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><title>{title}</title></head><body><main>\
         <article><h1>{title}</h1><p>{}</p></article></main></body></html>",
        prose.repeat(60)
    )
}

/// `status, last_error` of the reference whose text contains `needle`.
fn reference(db: &TestDb, needle: &str) -> (String, String) {
    let row = db
        .client()
        .query_one(
            "SELECT status, coalesce(last_error, '') FROM kerai.references
              WHERE content LIKE '%' || $1 || '%'",
            &[&needle],
        )
        .unwrap_or_else(|e| panic!("one reference containing {needle:?}: {e}"));
    (row.get(0), row.get(1))
}

fn error_text(e: &postgres::Error) -> String {
    e.as_db_error()
        .map(|d| d.message().to_string())
        .unwrap_or_else(|| e.to_string())
}

#[test]
fn references_reach_allowed_private_hosts_only() {
    let allowed = Site::start();
    allowed.page("/robots.txt", "text/plain", "User-agent: *\nAllow: /\n");
    allowed.html("/paper.html", &article("An allowed paper"));
    let refused = Site::start();
    refused.page("/robots.txt", "text/plain", "User-agent: *\nAllow: /\n");
    refused.html("/secret.html", &article("A private paper"));
    let named = refused
        .url("/by-name.html")
        .replace("127.0.0.1", "localhost");

    let db = TestDb::new("ssrf_refs");
    let seed = format!(
        "# Notes\n\nSee {} and {} and {named} for details.\n",
        allowed.url("/paper.html"),
        refused.url("/secret.html"),
    );
    db.client()
        .execute(
            "SELECT kerai.parse_markdown($1, '{\"source_url\": \"https://notes.example/n\"}')",
            &[&seed],
        )
        .unwrap();
    db.client()
        .execute(
            "SELECT kerai.register_agent('kerai_crawl', 'tool', NULL, $1)",
            &[
                &json!({"rate_limit_seconds": 0, "claims_per_cycle": 10, "min_score": 0,
                      "ref_types": ["url"]}),
            ],
        )
        .unwrap();
    allow_private(&mut db.client(), &[&allowed.url("/")]);

    let out = kerai(&db.url, &["crawl", "--rate", "0.5", "--until-idle"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);

    let (status, error) = reference(&db, "/paper.html");
    assert_eq!(status, "resolved", "{error}");
    assert!(allowed.hit_count("/paper.html") >= 1);

    // An IP literal is refused before any connection is made.
    let (status, error) = reference(&db, "/secret.html");
    assert_eq!(status, "skipped", "{error}");
    let port = refused
        .url("/")
        .split(':')
        .nth(2)
        .unwrap()
        .trim_end_matches('/')
        .to_string();
    for want in [
        "private address refused: ",
        "127.0.0.1 is a loopback address",
        &format!("\"127.0.0.1:{port}\""),
        "allowed_private_hosts",
    ] {
        assert!(error.contains(want), "{want:?} not in {error:?}");
    }
    // A name is resolved, and refused on the address it resolves to, at connect time.
    let (status, error) = reference(&db, "/by-name.html");
    assert_eq!(status, "skipped", "{error}");
    assert!(error.contains("localhost resolves to "), "{error}");
    assert!(error.contains(&format!("\"localhost:{port}\"")), "{error}");
    assert!(refused.hits().is_empty(), "{:?}", refused.hits());

    println!("ssrf: refused {error}");
}

#[test]
fn endpoints_on_private_addresses_need_the_setting() {
    let fake = FakeOpenAi::start(16);
    let db = TestDb::new("ssrf_endpoint");
    db.client()
        .execute(
            "SELECT kerai.configure_embeddings('openai', 'fake-embed', 16, $1)",
            &[&fake.base],
        )
        .unwrap();
    let err = db
        .client()
        .query_one("SELECT kerai.embed('a question')", &[])
        .expect_err("a loopback endpoint is refused by default");
    let msg = error_text(&err);
    assert!(
        msg.contains("is refused: 127.0.0.1 is a loopback address"),
        "{msg}"
    );
    assert!(msg.contains("allowed_private_hosts"), "{msg}");
    assert!(fake.requests("embeddings").is_empty());

    allow_private(&mut db.client(), &[&fake.base]);
    let dims: i32 = db.one("SELECT vector_dims(kerai.embed('a question'))");
    assert_eq!(dims, 16);
    assert_eq!(fake.requests("embeddings").len(), 1);

    // A bad entry is refused when it is set, naming it.
    let err = db
        .client()
        .execute(
            "SELECT kerai.set_setting('allowed_private_hosts', '[\"http://wiki.corp/\"]')",
            &[],
        )
        .expect_err("a URL is not an entry");
    let msg = error_text(&err);
    assert!(
        msg.contains("\"http://wiki.corp/\" is not a host, host:port or network"),
        "{msg}"
    );
}
