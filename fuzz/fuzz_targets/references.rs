#![no_main]
//! Bibliographies: split into entries, each parsed into fields; keys and titles normalised.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    let text = String::from_utf8_lossy(data);
    for entry in kerai_core::references::split_bibliography(&text) {
        assert!(!entry.trim().is_empty());
        let r = kerai_core::references::parse_reference(&entry);
        serde_json::to_string(&r).expect("a reference serialises");
    }
    let r = kerai_core::references::parse_reference(&text);
    serde_json::to_string(&r).expect("a reference serialises");
    let _ = kerai_core::references::normalize_title(&text);
});
