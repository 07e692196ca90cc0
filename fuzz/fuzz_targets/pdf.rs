#![no_main]
//! Whole PDF files through `convert()`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::pdf(data);
});
