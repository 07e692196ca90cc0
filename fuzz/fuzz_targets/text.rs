#![no_main]
//! Sniffing any bytes, charset decoding, and TXT/MD conversion.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::text(data);
});
