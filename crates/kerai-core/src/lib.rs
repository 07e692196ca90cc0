//! kerai-core: everything kerai does that needs neither Postgres nor the network.
//!
//! Parsers, extractors, converters, reference detection and chunking live here so that they
//! are tested with plain `cargo test` and shared by the extension (`kerai`) and the fetcher
//! (`kerai-fetch`).

pub mod answer;
pub mod chunk;
pub mod citations;
pub mod convert;
pub mod crawl;
pub mod embed;
pub mod error;
pub mod facts;
pub mod html;
pub mod interrupt;
pub mod keys;
pub mod lexicon;
pub mod markdown;
pub mod names;
pub mod openai;
pub mod references;
pub mod scholarly;
pub mod shared_data;
pub mod tokens;
pub mod wire;

pub use error::{ErrorKind, ResourceError};

/// The version of the kerai workspace this core was built from.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
