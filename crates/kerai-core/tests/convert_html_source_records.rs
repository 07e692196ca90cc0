//! S0 source records: the seed's examples A, B and C, and the failure rules.

use kerai_core::convert::html::source_records::{source_records_json, Counters};
use kerai_core::convert::html::{source_records, PageInput, SourceOptions};

fn fixture(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/html")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("fixture {}: {e}", p.display()))
}

fn page(html: &str, url: &str, institution: &str) -> PageInput {
    PageInput {
        html: html.to_string(),
        url: url.to_string(),
        institution: institution.to_string(),
        fetched_at: Some("2025-05-01T10:00:00Z".into()),
    }
}

fn english() -> SourceOptions {
    SourceOptions {
        target_language: Some("en".into()),
        ..SourceOptions::default()
    }
}

#[test]
fn example_a_department_list() {
    let out = source_records(
        &[page(
            &fixture("s0_example_a.html"),
            "https://u1.edu/eng/depts",
            "u1",
        )],
        &english(),
    );
    let texts: Vec<&str> = out.records.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(
        texts,
        ["Computer Science", "Electrical & Computer Engineering"]
    );
    for r in &out.records {
        assert_eq!(r.provenance.institution, "u1");
        assert_eq!(r.provenance.url, "https://u1.edu/eng/depts");
        assert_eq!(r.provenance.section.as_deref(), Some("Departments"));
        assert_eq!(
            r.provenance.fetched_at.as_deref(),
            Some("2025-05-01T10:00:00Z")
        );
        // Two words are too few for a trigram detector and the page declares no language:
        // the language is unknown and not held against the text.
        assert_eq!(r.meta.language, None);
        assert!(r
            .meta
            .hints
            .contains(&"short_text_page_language".to_string()));
        assert!(r.meta.hints.contains(&"list_item".to_string()));
        assert!(r.meta.error.is_none());
    }
    // "Admissions" goes by the section heuristic; the footer never was content.
    assert_eq!(out.counters.blocks_dropped_section, 1);
    assert!(!out.records.iter().any(|r| r.text.contains('©')));
    assert_eq!(out.counters.pages_seen, 1);
    assert_eq!(out.counters.blocks_kept, 2);
    assert_eq!(out.samples["u1"].len(), 2);
}

#[test]
fn example_b_non_target_language_is_dropped() {
    let html = "<html><body><p>Facultad de Ingeniería – Admisiones</p></body></html>";
    let out = source_records(&[page(html, "https://u2.es/ing", "u2")], &english());
    assert!(out.records.is_empty(), "{:?}", out.records);
    assert_eq!(out.counters.blocks_dropped_language, 1);
    // Without a target language the block is kept, and its language is Spanish.
    let out = source_records(
        &[page(html, "https://u2.es/ing", "u2")],
        &SourceOptions::default(),
    );
    assert_eq!(out.records.len(), 1);
    assert_eq!(out.records[0].meta.language.as_deref(), Some("es"));
}

#[test]
fn example_c_duplicate_lists_collapse_to_the_first() {
    let out = source_records(
        &[page(
            &fixture("s0_example_c.html"),
            "https://u3.edu/eng",
            "u3",
        )],
        &english(),
    );
    let centres: Vec<_> = out
        .records
        .iter()
        .filter(|r| r.text.contains("Centre for Robotics"))
        .collect();
    assert_eq!(centres.len(), 1, "{:#?}", out.records);
    assert_eq!(
        centres[0].provenance.section.as_deref(),
        Some("School of Engineering > Research centres")
    );
    assert_eq!(
        centres[0].provenance.anchor.as_deref(),
        Some("research-centres")
    );
    assert!(!centres[0].meta.hints.contains(&"sidebar".to_string()));
    assert_eq!(centres[0].meta.language.as_deref(), Some("en"));
    assert_eq!(out.counters.blocks_deduped, 3);
    // Menus and footers are boilerplate; order is the page's.
    let texts: Vec<&str> = out.records.iter().map(|r| r.text.as_str()).collect();
    assert!(
        !texts
            .iter()
            .any(|t| t.contains("Apply to") || t.contains("rights reserved")),
        "{texts:?}"
    );
    assert!(texts[0].starts_with("The School of Engineering"));
    assert!(texts
        .last()
        .unwrap()
        .starts_with("Write to the school office"));
    assert_eq!(out.records[0].meta.charset.as_deref(), Some("utf-8"));
}

#[test]
fn failed_pages_are_quarantined_and_the_batch_goes_on() {
    let pages = [
        page("", "https://u4.edu/empty", "u4"),
        page("%PDF-1.7 \u{0}\u{1}binary", "https://u4.edu/file", "u4"),
        page("\u{0}\u{1}\u{2}\u{3}\u{4}\u{5}\u{6}\u{7}garbage", "https://u4.edu/bin", "u4"),
        page("<html><body><p>This page about the graduate school is perfectly readable.</p></body></html>", "https://u4.edu/ok", "u4"),
    ];
    let out = source_records(&pages, &SourceOptions::default());
    assert_eq!(out.counters.pages_seen, 4);
    assert_eq!(out.counters.pages_failed, 3);
    assert_eq!(
        out.quarantined,
        [
            "https://u4.edu/empty",
            "https://u4.edu/file",
            "https://u4.edu/bin"
        ]
    );
    let errors: Vec<&str> = out
        .records
        .iter()
        .filter_map(|r| r.meta.error.as_deref())
        .collect();
    assert_eq!(
        errors[0],
        "corrupt or unsupported document: https://u4.edu/empty (empty page)"
    );
    assert!(errors[1].contains("PDF"));
    assert!(errors[2].contains("binary"));
    assert_eq!(
        out.records.last().unwrap().text,
        "This page about the graduate school is perfectly readable."
    );
}

#[test]
fn length_bounds_whitelist_and_bullet_lines() {
    let html = "<html><body><h2>Units</h2><p>MIT</p><p>• Department of Physics and Astronomy<br>• Department of Chemistry and Biology<br>• Short</p></body></html>";
    let mut opts = SourceOptions::default();
    let out = source_records(&[page(html, "https://u5.edu/", "u5")], &opts);
    let texts: Vec<&str> = out.records.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Department of Physics and Astronomy",
            "Department of Chemistry and Biology"
        ]
    );
    assert!(out.records[0].meta.hints.contains(&"bullet".to_string()));
    assert_eq!(out.counters.blocks_dropped_length, 2);
    opts.whitelist = vec!["mit".into()];
    let out = source_records(&[page(html, "https://u5.edu/", "u5")], &opts);
    assert_eq!(out.records[0].text, "MIT");
}

#[test]
fn options_come_from_json_with_defaults() {
    let out = source_records_json(&[], r#"{"target_language": "en", "min_chars": 5}"#).unwrap();
    assert_eq!(out.counters, Counters::default());
    let o: SourceOptions = serde_json::from_str(r#"{"target_language": "de"}"#).unwrap();
    assert_eq!(o.min_chars, 12);
    assert_eq!(o.max_chars, 2000);
    assert_eq!(o.min_language_probability, 0.8);
    assert_eq!(o.dedup_threshold, 0.95);
    let e = source_records_json(&[], r#"{"min_chars": "twelve"}"#).unwrap_err();
    assert!(e
        .to_string()
        .starts_with("corrupt or unsupported document: source_records options"));
}

#[test]
fn foreign_paragraph_on_an_english_page_is_dropped() {
    let html = "<html lang=en><body><main>\
        <p>The faculty of engineering offers degrees in civil, mechanical and electrical engineering.</p>\
        <p>La facultad de ingeniería ofrece títulos en ingeniería civil, mecánica y eléctrica para todos los estudiantes.</p>\
        <p>Applications for the autumn term open in January and close at the end of March.</p>\
        </main></body></html>";
    let out = source_records(&[page(html, "https://u6.edu/eng", "u6")], &english());
    let texts: Vec<&str> = out.records.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts.iter().all(|t| !t.contains("facultad")));
    assert_eq!(out.counters.blocks_dropped_language, 1);
    assert_eq!(out.counters.by_language.get("en"), Some(&2));
}
