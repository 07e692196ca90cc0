#![no_main]
//! The citation detector (URLs, DOIs, arXiv ids, author-year callouts, concepts): spans sorted,
//! non-overlapping, character offsets that slice to `text`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::citations(data);
});
