#![no_main]
//! EPUB: input starting with `<` is a chapter's XHTML inside a valid book (with an NCX table
//! of contents); anything else is a whole file.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::epub(data);
});
