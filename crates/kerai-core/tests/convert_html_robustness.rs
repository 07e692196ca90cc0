//! No panics and bounded work on hostile input: deep nesting, huge pages, garbage.

use kerai_core::convert::html;
use kerai_core::convert::html::dom::{parse, MAX_DEPTH, MAX_INPUT_BYTES};

#[test]
fn deeply_nested_markup() {
    for open in [
        "<div>",
        "<b><i>",
        "<ul><li>",
        "<table><tr><td>",
        "<blockquote>",
        "<a href=x>",
        "<pre><span>",
    ] {
        let html = open.repeat(3_000)
            + "deep text that is long enough to be a paragraph, with commas, and more words";
        let t = std::time::Instant::now();
        let ex = html::to_markdown(&html, "https://example.org/");
        eprintln!("{open} {:?}", t.elapsed());
        // Nested links are not nested in HTML: each <a> closes the one before.
        assert_eq!(ex.truncated, open != "<a href=x>", "{open}");
        let _ = html::to_text(&html, "https://example.org/");
        let _ = html::links(&html, "https://example.org/");
        let _ = html::extract_structured(&html);
    }
    let doc = parse(&"<div>".repeat(MAX_DEPTH * 4));
    assert!(doc.truncated);
}

#[test]
fn huge_page_is_cut_at_the_limit() {
    let para =
        "<p>Some words of a paragraph that repeats, to make the page very large indeed.</p>\n";
    let html = "<html><body><article>".to_string() + &para.repeat(50 * 1024 * 1024 / para.len());
    assert!(html.len() > 40 * 1024 * 1024);
    let doc = parse(&html);
    assert!(doc.truncated);
    let text_bytes: usize = (0..doc.nodes.len() as u32)
        .filter_map(|i| doc.text(i))
        .map(str::len)
        .sum();
    assert!(text_bytes <= MAX_INPUT_BYTES);
}

#[test]
fn garbage_never_panics() {
    let mut seed: u64 = 42;
    let alphabet: Vec<char> = "<>/=\"'&#;!-[]abcdivpli tablerscript\u{0}\u{ff}é😀\n"
        .chars()
        .collect();
    for len in [0, 1, 2, 5, 50, 500, 5000] {
        for _ in 0..40 {
            let s: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            let _ = html::to_markdown(&s, "not a url");
            let _ = html::links(&s, "");
            let _ = html::extract_structured(&s);
        }
    }
}

/// A page over 16 MiB gives the text before the cut, and a warning that says it was cut.
#[test]
fn a_page_over_16_mib_keeps_its_start_and_says_it_was_cut() {
    let para =
        "<p>Some words of a paragraph that repeats, to make the page very large indeed.</p>\n";
    let html = "<html><head><title>Big</title></head><body><article><h1>Big page</h1><p>The first paragraph is here, before all the others.</p>".to_string()
        + &para.repeat(20 * 1024 * 1024 / para.len());
    assert!(html.len() > 16 * 1024 * 1024);
    let c = kerai_core::convert::convert(
        html.as_bytes(),
        "https://example.org/big.html",
        Some("text/html"),
        &kerai_core::convert::Limits::default(),
    )
    .unwrap();
    assert!(c.markdown.contains("The first paragraph is here"));
    assert!(c.html.as_ref().unwrap().truncated);
    assert!(
        c.warnings.iter().any(|w| w.contains("the rest was cut")),
        "{:?}",
        c.warnings
    );
}

/// A page that is one giant table (a data dump, an old layout): its cells are the text.
#[test]
fn a_page_that_is_one_giant_table_keeps_its_rows() {
    let rows: String = (0..20_000)
        .map(|i| {
            format!(
                "<tr><td>Station {i}</td><td>reading {}</td><td>ok, checked, logged</td></tr>",
                i * 7
            )
        })
        .collect();
    let html = format!("<html><body><table>{rows}</table></body></html>");
    let ex = html::to_markdown(&html, "https://example.org/readings");
    assert!(!ex.truncated);
    assert!(ex.text.contains("Station 0"), "first row missing");
    assert!(ex.text.contains("Station 19999"), "last row missing");
    assert!(ex.warnings.is_empty(), "{:?}", ex.warnings);
}
