#![no_main]
//! Language detection over any text: probabilities in [0, 1], best first.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    let text = String::from_utf8_lossy(data);
    let found = kerai_core::convert::html::language::detect_language(&text);
    for w in found.windows(2) {
        assert!(w[0].1 >= w[1].1, "{found:?}");
    }
    for (lang, p) in &found {
        assert!(!lang.is_empty() && (0.0..=1.0).contains(p), "{found:?}");
    }
    let _ = kerai_core::convert::html::language::detect_language_among(&text, &["en", "de", "fr"]);
});
