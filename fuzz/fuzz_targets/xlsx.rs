#![no_main]
//! XLSX: input starting with `<` is the first worksheet inside a valid workbook (with shared
//! strings and a date style); anything else is a whole file.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::xlsx(data);
});
