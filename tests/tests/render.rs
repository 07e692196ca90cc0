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
