//! `kerai extract FILE…`: the extraction layer on local files, as markdown, text or JSON.

use kerai_e2e::{repo_root, run::bin};
use std::process::Command;

fn extract(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .arg("extract")
        .args(args)
        .output()
        .expect("run kerai extract");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn site(path: &str) -> String {
    repo_root()
        .join("examples/site")
        .join(path)
        .display()
        .to_string()
}

#[test]
fn office_files_and_pages_become_markdown() {
    let (code, md, err) = extract(&[&site("files/onboarding-guide.docx")]);
    assert_eq!(code, 0, "{err}");
    assert!(md.contains("# Onboarding guide for new staff"), "{md}");
    assert!(md.contains("## Who to ask"), "{md}");
    assert!(
        md.contains("| IT accounts | IT service desk | 4010 |"),
        "{md}"
    );

    let (code, md, _) = extract(&[&site("files/budget-2026.xlsx")]);
    assert_eq!(code, 0);
    assert!(
        md.contains("## Income") && md.contains("## Spending"),
        "{md}"
    );
    assert!(
        md.contains("18.5") && md.contains("2952"),
        "formula values: {md}"
    );

    let (code, json, err) = extract(&["--format", "json", &site("files/annual-report-2025.pdf")]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["source_type"], "pdf");
    assert_eq!(v["title"], "Northwind Institute Annual Report 2025");
    assert_eq!(v["metadata"]["author"], "Amara Okafor");
    assert_eq!(v["metadata"]["page_count"], 2);
    assert!(v["tokens"].as_u64().unwrap() > 100, "{v}");

    let (code, text, _) = extract(&[
        "--format",
        "text",
        "--base-url",
        "https://www.northwind.example/about.html",
        &site("about.html"),
    ]);
    assert_eq!(code, 0);
    assert!(
        text.contains("founded in 1998 by Margaret Lindqvist"),
        "{text}"
    );
    assert!(
        !text.contains("cookies") && !text.contains("All rights reserved"),
        "boilerplate kept: {text}"
    );
}

#[test]
fn out_dir_and_partial_failures() {
    let dir = std::env::temp_dir().join(format!("kerai-extract-{}", std::process::id()));
    let bad = dir.join("broken.pdf");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        &bad,
        b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer <<>>\n%%EOF truncated",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let (code, _, err) = extract(&[
        "--out",
        out_dir.to_str().unwrap(),
        &site("research/active-inference.html"),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "one of two failed: exit code 1\n{err}");
    assert!(
        err.contains(&format!(
            "corrupt or unsupported document: {}",
            bad.display()
        )),
        "{err}"
    );
    let written = std::fs::read_to_string(out_dir.join("active-inference.md")).unwrap();
    assert!(
        written.contains("# A reading guide to active inference"),
        "{written}"
    );
    let (code, _, err) = extract(&[bad.to_str().unwrap()]);
    assert_eq!(code, 2, "all failed: exit code 2\n{err}");
    let (code, _, err) = extract(&[dir.join("missing.docx").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.docx"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A page without text of its own (a frameset) gives an empty result, exit 0, and a warning
/// on stderr that says where its text is.
#[test]
fn a_frameset_page_warns_where_its_text_is() {
    let dir = std::env::temp_dir().join(format!("kerai-extract-frameset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("manual.html");
    std::fs::write(
        &page,
        "<html><head><title>Manual</title></head><frameset cols='20%,80%'>\
         <frame src='toc.html'><frame src='intro.html'></frameset></html>",
    )
    .unwrap();
    let (code, json, err) = extract(&[
        "--format",
        "json",
        "--base-url",
        "https://docs.example/manual/",
        &page.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("kerai: warning:") && err.contains("frameset"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["text"], "");
    let w = v["warnings"][0].as_str().unwrap();
    assert!(w.contains("https://docs.example/manual/intro.html"), "{w}");
    std::fs::remove_dir_all(&dir).ok();
}
