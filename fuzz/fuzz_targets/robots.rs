#![no_main]
//! robots.txt: parsed, then asked about agents, paths, delays and sitemaps.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::robots(data);
});
