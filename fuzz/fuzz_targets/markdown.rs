#![no_main]
//! The markdown parser behind kerai.parse_markdown: bytes are validated as SQL text would be
//! (UTF-8, no NUL), then parsed into nodes; a parent always comes before its children.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    kerai_core_fuzz::entries::markdown(data);
});
