//! kerai-core: everything kerai does that needs neither Postgres nor the network.
//!
//! Parsers, extractors, converters, reference detection and chunking live here so that they
//! are tested with plain `cargo test` and shared by the extension (`kerai`) and the fetcher
//! (`kerai-fetch`).

// The pipeline's stages, in order: site crawl, conversion, graph, citations and references,
// resolve (the scholarly services), retrieval, ops.
pub mod citations;
pub mod convert;
pub mod facts;
pub mod markdown;
pub mod ops;
pub mod references;
pub mod resolve;
pub mod retrieval;
pub mod site;

// What every stage shares: errors, interrupts, keys, word lists, the fetcher's wire payloads.
pub mod error;
pub mod interrupt;
pub mod keys;
pub mod lexicon;
pub mod names;
pub mod shared_data;
pub mod wire;

pub use error::{ErrorKind, ResourceError};

/// The version of the kerai workspace this core was built from.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
