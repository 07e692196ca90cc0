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
