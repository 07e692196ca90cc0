//! The HTML layer: parse pages, find their main content, write it as markdown or text,
//! type its blocks, collect links and structured data, detect languages and make S0
//! source records.

pub mod analysis;
pub mod block_model;
mod block_weights;
pub mod blocks;
pub mod classify;
pub mod content;
pub mod dom;
mod empty;
pub mod extract;
pub mod filter;
pub mod inline;
pub mod language;
pub mod links;
pub mod minhash;
pub mod score;
pub mod shell;
pub mod source_records;
mod streamed;
pub mod structured;
pub mod table;

pub use blocks::{Block, BlockKind, SectionType};
pub use extract::{to_markdown, to_text, Extracted};
pub use links::{links, Link};
pub use source_records::{
    source_records, PageInput, SourceOptions, SourceRecord, SourceRecordsOutput,
};
pub use structured::{extract_structured, extract_structured_at, Structured};
