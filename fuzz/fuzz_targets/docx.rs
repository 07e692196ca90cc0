#![no_main]
//! DOCX: input starting with `<` is `word/document.xml` inside a valid package (to reach the
//! WordprocessingML reader); anything else is a whole file.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::docx(data);
});
