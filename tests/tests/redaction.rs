//! Job logs hold no secrets: a crawl that meets URLs with credentials in them (userinfo,
//! tokens and keys in the query) logs them with the userinfo dropped and the values masked,
//! in the url column, in the messages (errors embed the URL) and in `kerai logs`.

use kerai_e2e::{kerai, Behavior, Site, TestDb};

#[test]
fn logged_urls_keep_no_credentials() {
    let site = Site::start();
    let port = site.base.rsplit(':').next().unwrap().to_string();
    let secret_failing = format!("http://user:pw@127.0.0.1:{port}/x?token=s3cr3tT0ken");
    let secret_page = format!("http://admin:hunter2@127.0.0.1:{port}/y?page=2&api_key=k123");
    site.html(
        "/",
        &format!(
            "<html><body><main><h1>Home</h1><p>A page that links to places with credentials in their addresses.</p>\
             <a href=\"{secret_failing}\">x</a> <a href=\"{secret_page}\">y</a></main></body></html>"
        ),
    );
    // The fixture sees the normalised path and query (parameters sorted by name).
    site.set(
        "/x?token=s3cr3tT0ken",
        Behavior::Status {
            status: 500,
            headers: vec![],
            body: b"oops".to_vec(),
        },
    );
    site.html(
        "/y?api_key=k123&page=2",
        "<html><body><main><h1>Y</h1><p>The second page, served to whoever knows its key.</p></main></body></html>",
    );
    let db = TestDb::new("redact");
    let set = kerai(
        &db.url,
        &[
            "config",
            "set",
            "r",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "use_sitemaps=false",
            "retries=1",
        ],
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    let run = kerai(&db.url, &["run", "r", "--no-progress", "--no-embed"]);
    assert_eq!(
        run.code, 1,
        "one URL failed\n{}\n{}",
        run.stdout, run.stderr
    );
    assert_eq!(
        site.hit_count("/x?token=s3cr3tT0ken"),
        1,
        "{:?}",
        site.hits()
    );
    assert_eq!(site.hit_count("/y?api_key=k123&page=2"), 1);

    let logs: Vec<(String, Option<String>, String)> = db
        .client()
        .query(
            "SELECT event, url, message || ' ' || details::text FROM kerai.job_logs ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    for (event, url, text) in &logs {
        let all = format!("{event} {} {text}", url.as_deref().unwrap_or(""));
        for secret in ["user:pw", "pw@", "s3cr3tT0ken", "admin:", "hunter2", "k123"] {
            assert!(!all.contains(secret), "{secret} logged: {all}");
        }
    }
    let failed: (Option<String>, String) = logs
        .iter()
        .find(|l| l.0 == "ITEM_FAILED")
        .map(|l| (l.1.clone(), l.2.clone()))
        .expect("an ITEM_FAILED line");
    assert_eq!(
        failed.0.as_deref(),
        Some(format!("http://127.0.0.1:{port}/x?token=***").as_str())
    );
    assert!(
        failed.1.starts_with(&format!(
            "resource unreachable: http://127.0.0.1:{port}/x?token=*** (HTTP 500)"
        )),
        "{}",
        failed.1
    );
    let fetched: Option<String> = logs
        .iter()
        .find(|l| l.0 == "ITEM_NEW" && l.1.as_deref().is_some_and(|u| u.contains("/y?")))
        .and_then(|l| l.1.clone());
    assert_eq!(
        fetched.as_deref(),
        Some(format!("http://127.0.0.1:{port}/y?api_key=***&page=2").as_str())
    );

    // What `kerai logs` shows comes from the same rows.
    let shown = kerai(&db.url, &["logs", "r", "--format", "json"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    for secret in ["pw@", "s3cr3tT0ken", "hunter2", "k123"] {
        assert!(!shown.stdout.contains(secret), "{secret}: {}", shown.stdout);
    }
    assert!(shown.stdout.contains("token=***"), "{}", shown.stdout);
}
