//! Harness for kerai's end-to-end tests.
//!
//! `make test` starts a test cluster with the extension installed and sets
//! `KERAI_TEST_DATABASE_URL` (a maintenance database on it) and `KERAI_BIN` (the `kerai` CLI).
//! Each test makes its own database with [`TestDb::new`] and drops it at the end.

pub mod db;
pub mod run;
pub mod site;

pub use db::TestDb;
pub use run::{kerai, Output};
pub use site::Site;
