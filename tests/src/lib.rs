//! Harness for kerai's end-to-end tests.
//!
//! `make test` starts a test cluster with the extension installed and sets
//! `KERAI_TEST_DATABASE_URL` (a maintenance database on it) and `KERAI_BIN` (the `kerai` CLI).
//! Each test makes its own database with [`TestDb::new`] and drops it at the end, and serves
//! its own fixture sites on 127.0.0.1 with [`Site`].

pub mod bench_site;
pub mod catalogue;
pub mod citus;
pub mod cluster;
pub mod db;
pub mod openai;
pub mod roles;
pub mod run;
pub use run::bin;
pub mod scholarly;
pub mod serve;
pub mod site;

pub use db::{allow_private, TestDb};
pub use run::{kerai, kerai_env, spawn, wait, Output};
pub use site::{Behavior, Site};

/// The repository root (for examples/ and fixtures).
pub fn repo_root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}
