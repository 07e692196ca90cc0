#![no_main]
//! The citation detector (URLs, DOIs, arXiv ids, author-year callouts, concepts): spans sorted,
//! non-overlapping, character offsets that slice to `text`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    let text = String::from_utf8_lossy(data);
    let chars: Vec<char> = text.chars().collect();
    let mut last_end = 0;
    for c in kerai_core::citations::detect_citations(&text) {
        assert!(c.start_char < c.end_char, "{c:?}");
        assert!(c.start_char >= last_end, "{c:?}");
        assert!(c.end_char <= chars.len(), "{c:?}");
        let slice: String = chars[c.start_char..c.end_char].iter().collect();
        assert_eq!(slice, c.text);
        last_end = c.end_char;
    }
});
