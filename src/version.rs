use pgrx::prelude::*;

/// `kerai.version()`: the version of the installed extension library.
#[pg_extern(immutable, parallel_safe)]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
