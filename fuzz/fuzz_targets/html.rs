#![no_main]
//! HTML pages: charset detection from the bytes, then main-content extraction to markdown and
//! text, links, structured data (JSON-LD, OpenGraph, meta) and the page's language.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::html(data);
});
