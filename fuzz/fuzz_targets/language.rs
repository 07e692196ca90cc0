#![no_main]
//! Language detection over any text: probabilities in [0, 1], best first.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::language(data);
});
