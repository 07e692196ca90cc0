//! Shared pieces of the conversion fuzz targets.
//!
//! Panics: `convert()` catches panics (a safety net for the PDF dependencies), but libFuzzer's
//! hook aborts on every panic before it can be caught. [`init`] installs a hook that aborts
//! only for panics raised in kerai-core's own source, so bugs in our code are found while
//! panics inside dependencies exercise the net. Set `KERAI_FUZZ_LOG_PANICS=1` to print those.

use kerai_core::convert::{convert, Limits};
use std::io::{Cursor, Write};
use std::sync::Once;

/// Installs the panic hook once.
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let log = std::env::var_os("KERAI_FUZZ_LOG_PANICS").is_some();
        std::panic::set_hook(Box::new(move |info| {
            let ours = info.location().is_some_and(|l| l.file().contains("kerai-core/src"));
            if ours {
                eprintln!("panic in kerai-core: {info}");
                std::process::abort();
            }
            if log {
                eprintln!("dependency panic (caught): {info}");
            }
        }));
    });
}

/// Converts and checks the invariants: an error names the input and uses a catalogue form.
pub fn check(data: &[u8], name: &str) {
    init();
    match convert(data, name, None, &Limits::default()) {
        Ok(c) => {
            assert!(c.metadata.word_count <= c.markdown.len());
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!("corrupt or unsupported document: {name}"))
                    || msg.starts_with(&format!("too large: {name}")),
                "{msg}"
            );
        }
    }
}

/// A zip holding `parts` (stored), for targets that fuzz one XML part inside a valid package.
pub fn package(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in parts {
        w.start_file(*name, opts).expect("in-memory zip");
        w.write_all(data).expect("in-memory zip");
    }
    w.finish().expect("in-memory zip").into_inner()
}
