use pgrx::prelude::*;

/// `kerai.version()`: the version of the installed extension library.
#[pg_extern(immutable, parallel_safe)]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// How this library was built: `release` (optimised, what `make install` builds) or `debug`
/// (quick to build, several times slower: `make demo` and the tests use it).
pub const BUILD: &str = if cfg!(debug_assertions) {
    "debug"
} else {
    "release"
};

/// `kerai.build_info()`: the library's version, build and fetcher API version, so a user can
/// tell a debug build from a release one.
#[pg_extern(immutable, parallel_safe)]
pub fn build_info() -> pgrx::JsonB {
    pgrx::JsonB(serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "build": BUILD,
        "api_version": kerai_core::wire::API_VERSION,
    }))
}

/// `kerai.uuid7()`: a time-ordered UUID (version 7), the default id of nodes and edges, so
/// that inserts append to the primary-key index and ties order by creation.
#[pg_extern(volatile, parallel_safe)]
pub fn uuid7() -> pgrx::Uuid {
    crate::markdown::new_id()
}

/// `kerai._api_version()`: the version of the contract between the fetcher and this
/// extension (`kerai_core::wire::API_VERSION`); the fetcher refuses another.
#[pg_extern(immutable, parallel_safe)]
pub fn _api_version() -> i32 {
    kerai_core::wire::API_VERSION
}
