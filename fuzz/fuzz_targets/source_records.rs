#![no_main]
//! S0 source records: segmentation, normalisation, language filter, length bounds and the
//! near-duplicate collapse over a page; the first byte picks the options. Records keep the
//! documented bounds and order.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::source_records_page(data);
});
