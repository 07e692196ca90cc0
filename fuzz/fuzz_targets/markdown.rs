#![no_main]
//! The markdown parser behind kerai.parse_markdown: bytes are validated as SQL text would be
//! (UTF-8, no NUL), then parsed into nodes; a parent always comes before its children.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    let Ok(text) = kerai_core::markdown::validate_text(data, "fuzz.md") else {
        return;
    };
    let mut nodes = 0usize;
    let summary = kerai_core::markdown::parse(text, |node| {
        nodes += 1;
        assert!(node.parent < node.index, "{node:?}");
    });
    assert_eq!(summary.nodes, nodes);
    let _ = kerai_core::markdown::content_hash(text);
});
