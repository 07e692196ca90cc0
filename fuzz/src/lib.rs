//! The fuzz targets' entry points ([`entries`]) and their shared pieces.
//!
//! Panics: `convert()` catches panics (a safety net for the PDF dependencies), but libFuzzer's
//! hook aborts on every panic before it can be caught. [`init`] installs a hook that aborts
//! only for panics raised in kerai-core's own source, so bugs in our code are found while
//! panics inside dependencies exercise the net. Set `KERAI_FUZZ_LOG_PANICS=1` to print those.

pub mod entries;

pub use entries::{check, package};
use std::sync::Once;

/// Installs the panic hook once (fuzz targets only: the replay test lets panics fail it).
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
