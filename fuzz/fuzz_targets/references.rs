#![no_main]
//! Bibliographies: split into entries, each parsed into fields; keys and titles normalised.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::references(data);
});
