//! Targets: a base URL plus its scrape config, stored in `kerai.targets` (versioned) and
//! editable from the CLI or a TOML file.

pub mod auth;
pub mod config;
pub mod schedule;
pub mod size;
pub mod store;
pub mod toml_file;

pub use config::TargetConfig;
