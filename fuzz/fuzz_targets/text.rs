#![no_main]
//! Sniffing any bytes, charset decoding, and TXT/MD conversion.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    let _ = kerai_core::convert::sniff(data, "download", Some("application/octet-stream"));
    let (text, _) = kerai_core::convert::decode_text(data);
    assert!(!text.contains('\0'));
    kerai_core_fuzz::check(data, "fuzz.txt");
    kerai_core_fuzz::check(data, "fuzz.md");
});
