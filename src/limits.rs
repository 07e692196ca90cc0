//! `kerai.max_input_bytes`: the largest input one call of a kerai function takes (text, HTML,
//! markdown, bytes). Every path is near-linear in its input and holds a bounded multiple of it
//! (`crates/kerai-core/tests/adversarial_scaling.rs`), so this bounds the work and memory one
//! call can take; larger input gets an error naming the function, the size and the setting.

use crate::errors::raise;
use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::prelude::*;

/// 64 MiB by default; 0 turns the limit off.
pub static MAX_INPUT_BYTES: GucSetting<i32> = GucSetting::<i32>::new(64 * 1024 * 1024);

/// Define the setting (every time the library loads).
pub fn define() {
    GucRegistry::define_int_guc(
        c"kerai.max_input_bytes",
        c"The largest input (text, HTML, markdown or bytes) one call of a kerai function takes.",
        c"Larger input gets an error naming the function; 0 means no limit. Example: SET kerai.max_input_bytes = '256MB'.",
        &MAX_INPUT_BYTES,
        0,
        i32::MAX,
        GucContext::Userset,
        GucFlags::UNIT_BYTE,
    );
}

/// `bytes` as Postgres writes sizes (kB, MB, GB: powers of 1024).
fn size(bytes: usize) -> String {
    let b = bytes as f64;
    match bytes {
        0..1024 => format!("{bytes} bytes"),
        1024..1_048_576 => format!("{:.1} kB", b / 1024.0),
        1_048_576..1_073_741_824 => format!("{:.1} MB", b / 1_048_576.0),
        _ => format!("{:.1} GB", b / 1_073_741_824.0),
    }
}

/// Raise when `len` bytes of `what` (e.g. "markdown") passed to `func` exceed the limit.
pub fn check(func: &str, what: &str, len: usize) {
    let max = MAX_INPUT_BYTES.get();
    if max > 0 && len > max as usize {
        raise(
            PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            format!(
                "{func}: the {what} is {}, over kerai.max_input_bytes ({})",
                size(len),
                size(max as usize)
            ),
            "split the input, or raise the limit: SET kerai.max_input_bytes = '256MB' (0: no limit)",
        );
    }
}
