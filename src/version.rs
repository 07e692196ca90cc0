use pgrx::prelude::*;

/// `kerai.version()`: the version of the installed extension library.
#[pg_extern(immutable, parallel_safe)]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// `kerai.uuid7()`: a time-ordered UUID (version 7), the default id of nodes and edges, so
/// that inserts append to the primary-key index and ties order by creation.
#[pg_extern(volatile, parallel_safe)]
pub fn uuid7() -> pgrx::Uuid {
    crate::markdown::new_id()
}
