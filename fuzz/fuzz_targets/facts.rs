#![no_main]
//! Facts in text: rule-based entities (offsets slice to their text) and sentence-pattern claims
//! (every part filled); no panic on any text.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::facts(data);
});
