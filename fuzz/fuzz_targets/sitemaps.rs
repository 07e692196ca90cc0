#![no_main]
//! Sitemaps (XML, text, RSS/Atom, gzip) and the bytes sniffed as a response would be.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::sitemaps(data);
});
