#![no_main]
//! HTML pages: charset detection from the bytes, then main-content extraction to markdown and
//! text, links, structured data (JSON-LD, OpenGraph, meta) and the page's language.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    let (html, _charset) = kerai_core::convert::charset::decode_html(data, Some("text/html"));
    let url = "https://fuzz.example/dir/page.html";
    let ex = kerai_core::convert::html::to_markdown(&html, url);
    assert!(!ex.markdown.contains('\0'));
    for l in &ex.links {
        assert!(!l.url.is_empty());
    }
    let text = kerai_core::convert::html::to_text(&html, url);
    assert!(!text.contains('\0'));
    let s = kerai_core::convert::html::extract_structured_at(&html, url);
    serde_json::to_string(&s).expect("structured data serialises");
    let _ = kerai_core::convert::html::extract_structured(&html);
});
