//! JavaScript rendering with headless Chromium (Debian's chromium package), per target, off by
//! default: a page that builds its content in JavaScript is empty without it.

use kerai_e2e::{kerai, Site, TestDb};

const PAGE: &str = r#"<!DOCTYPE html><html><head><title>Loading</title></head><body>
<div id="app">Loading…</div>
<script>
  setTimeout(function () {
    document.title = "Quarterly figures";
    document.getElementById("app").innerHTML =
      "<main><h1>Quarterly figures</h1><p>Revenue grew by twelve per cent in the third quarter, driven by the new research contracts.</p></main>";
  }, 50);
</script></body></html>"#;

#[test]
fn rendering_runs_the_page_scripts() {
    let site = Site::start();
    site.html("/", PAGE);
    let db = TestDb::new("render");

    kerai(
        &db.url,
        &[
            "config",
            "set",
            "plain",
            "--base-url",
            &site.url("/"),
            "use_sitemaps=false",
            "rate_limit_rps=0",
        ],
    );
    let plain = kerai(&db.url, &["run", "plain", "--no-progress"]);
    assert!(plain.code <= 1, "{}", plain.stderr);
    let without: String = db.one("SELECT coalesce(string_agg(content, ' '), '') FROM kerai.nodes WHERE document_id IS NOT NULL");
    assert!(
        !without.contains("Revenue grew"),
        "without rendering the script never ran: {without}"
    );

    let db = TestDb::new("render2");
    kerai(
        &db.url,
        &[
            "config",
            "set",
            "js",
            "--base-url",
            &site.url("/"),
            "use_sitemaps=false",
            "rate_limit_rps=0",
            "render=true",
        ],
    );
    let rendered = kerai(&db.url, &["run", "js", "--no-progress"]);
    assert_eq!(rendered.code, 0, "{}\n{}", rendered.stdout, rendered.stderr);
    let with: String =
        db.one("SELECT string_agg(content, ' ') FROM kerai.nodes WHERE document_id IS NOT NULL");
    assert!(with.contains("Revenue grew by twelve per cent"), "{with}");
    let title: String = db.one("SELECT content FROM kerai.nodes WHERE kind = 'document'");
    assert_eq!(title, "Quarterly figures");
}

/// A page whose content appears after `ms` milliseconds, under an element `#late`.
fn late_page(title: &str, ms: u64) -> String {
    format!(
        r#"<!DOCTYPE html><html><head><title>{title}</title></head><body>
<main><h1>{title}</h1><p>The early part of {title}, there from the start, with text enough to be content.</p></main>
<script>
  setTimeout(function () {{
    var p = document.createElement("p");
    p.id = "late";
    p.textContent = "The late part of {title} arrived after its script waited.";
    document.querySelector("main").appendChild(p);
  }}, {ms});
</script></body></html>"#
    )
}

#[test]
fn rendering_waits_for_a_selector_and_keeps_a_partial_page_on_timeout() {
    let site = Site::start();
    // Both pages fill in late; the network is quiet long before.
    site.html("/", &late_page("Soon", 1500));
    site.html("/slow", &late_page("Never in time", 60_000));
    let sitemap = format!(
        "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>{}</loc></url><url><loc>{}</loc></url></urlset>",
        site.url("/"),
        site.url("/slow")
    );
    site.page("/sitemap.xml", "application/xml", sitemap);
    let db = TestDb::new("render_wait");
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "js",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "render=true",
            "render_wait_for=#late",
            "render_wait_until=load",
            "render_timeout=4s",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run = kerai(&db.url, &["run", "js", "--no-progress", "--no-embed"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let text = |url: String| -> String {
        db.one(&format!(
            "SELECT string_agg(n.content, ' ') FROM kerai.nodes n
               JOIN kerai.page_versions v ON v.document_id = n.document_id
               JOIN kerai.pages p ON p.id = v.page_id WHERE p.url = '{url}'"
        ))
    };
    let soon = text(site.url("/"));
    assert!(
        soon.contains("The late part of Soon arrived"),
        "waited for #late: {soon}"
    );
    let slow = text(site.url("/slow"));
    assert!(
        slow.contains("The early part of Never in time") && !slow.contains("late part"),
        "kept as rendered so far: {slow}"
    );
    let flags: Vec<(String, Option<String>)> = db
        .client()
        .query(
            "SELECT p.url, v.metadata->>'partial' FROM kerai.page_versions v JOIN kerai.pages p ON p.id = v.page_id ORDER BY p.url",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        flags,
        vec![
            (site.url("/"), None),
            (site.url("/slow"), Some("true".to_string()))
        ]
    );
    let warned: i64 = db.one(
        "SELECT count(*) FROM kerai.job_logs WHERE event = 'RENDER_PARTIAL' AND level = 'WARN'",
    );
    assert_eq!(warned, 1);
}

#[test]
fn render_concurrency_renders_pages_side_by_side() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    // Every page loads a script from another server, which holds it for a moment: how many are
    // held at once is how many pages render at once.
    let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut scripts = kerai_e2e::serve::Server::bind();
    {
        let (now, most) = (now.clone(), most.clone());
        scripts.serve(2, move |req| {
            // Held on a thread of its own, so the server's threads stay free.
            let (now, most) = (now.clone(), most.clone());
            std::thread::spawn(move || {
                let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(n, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(2500));
                now.fetch_sub(1, Ordering::SeqCst);
                let _ = req.respond(tiny_http::Response::from_string("var loaded = true;"));
            });
        });
    }
    // Each page on a server of its own: the browsers' idle connections (Chromium preconnects)
    // to one fixture server would hold its connection threads.
    let pages: Vec<Site> = (0..4).map(|_| Site::start()).collect();
    for (i, p) in pages.iter().enumerate() {
        p.html(
            "/",
            &format!("<html><body><main><h1>Page {i}</h1><p>A page whose script takes a while to arrive, with text enough.</p></main><script src=\"{}/slow.js?{i}\"></script></body></html>", scripts.base),
        );
    }
    let site = Site::start();
    let links: String = pages
        .iter()
        .enumerate()
        .map(|(i, p)| format!("<a href=\"{}\">p{i}</a> ", p.url("/")))
        .collect();
    site.html("/", &format!("<html><body><main><h1>Index</h1><p>Four pages that each load a slow script, listed here.</p>{links}</main></body></html>"));
    let db = TestDb::new("render_concurrency");
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "js",
            "--base-url",
            &site.url("/"),
            "use_sitemaps=false",
            "rate_limit_rps=0",
            "concurrency=4",
            "per_host_concurrency=4",
            "render=true",
            "render_concurrency=2",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run = kerai(&db.url, &["run", "js", "--no-progress", "--no-embed"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages WHERE last_status = 'new'");
    assert_eq!(pages, 5);
    assert_eq!(
        most.load(Ordering::SeqCst),
        2,
        "two pages rendered at once, never more"
    );
}
