//! Chunking: a document's blocks (paragraphs, list items, code, tables, headings) packed into
//! chunks of about `target_tokens` tokens for retrieval.
//!
//! Rules, in order of preference:
//! - whole sections stay together when they fit (strategy `Section`);
//! - otherwise whole blocks are packed greedily in document order, a heading never ends a
//!   chunk while content follows it;
//! - a block too long for a chunk is split at sentence boundaries (lines for code, tables and
//!   HTML), and a sentence too long for a chunk at word boundaries;
//! - a chunk that does not start a section begins with an overlap: the last sentences (about
//!   `overlap_tokens`) of the previous chunk, or its last words when one sentence is longer.
//!
//! Token counts come from a counter the caller passes (cl100k in kerai), so chunks fit the
//! model that reads them. Chunking is deterministic: the same blocks and options give the
//! same chunks, and [`chunk_id`] names them from the source URL and index.

mod blocks;
mod cut;
mod id;
mod pack;
mod sections;
pub mod sentences;

pub use blocks::blocks_from_markdown;
pub use cut::CountTokens;
pub use id::chunk_id;

use crate::markdown::NodeKind;
use serde::Serialize;

/// One block of a document, in document order.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkInput {
    /// The block's text (markdown inline text; raw text for code).
    pub text: String,
    /// Headings of the enclosing sections, outermost first; a heading block's own path ends
    /// with its own text (as `markdown::Node` gives it).
    pub heading_path: Vec<String>,
    /// What the block is; `Heading` blocks open sections, `Code`, `Table` and `Html` blocks
    /// are split at lines rather than sentences.
    pub kind: NodeKind,
}

/// How chunk boundaries follow the document's structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChunkStrategy {
    /// Keep whole sections together when they fit, else whole blocks, else sentences.
    Section,
    /// Pack whole blocks, ignoring sections; split only blocks longer than a chunk.
    Paragraph,
    /// Pack sentences regardless of blocks and sections.
    Length,
}

impl ChunkStrategy {
    /// `"section"`, `"paragraph"` or `"length"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkStrategy::Section => "section",
            ChunkStrategy::Paragraph => "paragraph",
            ChunkStrategy::Length => "length",
        }
    }

    /// Parse a strategy name (`section`, `paragraph`, `length`).
    pub fn parse(name: &str) -> Result<Self, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "section" => Ok(ChunkStrategy::Section),
            "paragraph" => Ok(ChunkStrategy::Paragraph),
            "length" => Ok(ChunkStrategy::Length),
            other => Err(format!(
                "unknown chunk strategy {other:?}; use section, paragraph or length"
            )),
        }
    }
}

/// Chunk size settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkOptions {
    /// The most tokens a chunk holds, overlap included.
    pub target_tokens: usize,
    /// About how many tokens of the previous chunk a chunk repeats at its start.
    pub overlap_tokens: usize,
    pub strategy: ChunkStrategy,
}

impl Default for ChunkOptions {
    /// 512 tokens, 64 of overlap, section strategy.
    fn default() -> Self {
        ChunkOptions {
            target_tokens: 512,
            overlap_tokens: 64,
            strategy: ChunkStrategy::Section,
        }
    }
}

/// The smallest target accepted by [`ChunkOptions::check`].
pub const MIN_TARGET_TOKENS: usize = 16;

impl ChunkOptions {
    /// Whether the settings make sense: a target of at least 16 tokens and an overlap of at
    /// most half the target. [`chunk_document`] clamps bad settings into that range; call this
    /// first to tell a user instead.
    pub fn check(&self) -> Result<(), String> {
        if self.target_tokens < MIN_TARGET_TOKENS {
            return Err(format!(
                "chunk target_tokens {} is too small; use at least {MIN_TARGET_TOKENS} (512 is usual)",
                self.target_tokens
            ));
        }
        if self.overlap_tokens * 2 > self.target_tokens {
            return Err(format!(
                "chunk overlap_tokens {} is more than half of target_tokens {}; lower the overlap",
                self.overlap_tokens, self.target_tokens
            ));
        }
        Ok(())
    }

    /// The settings clamped into the range [`check`](Self::check) accepts.
    pub fn clamped(&self) -> ChunkOptions {
        let target = self.target_tokens.max(MIN_TARGET_TOKENS);
        ChunkOptions {
            target_tokens: target,
            overlap_tokens: self.overlap_tokens.min(target / 2),
            strategy: self.strategy,
        }
    }
}

/// One chunk of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chunk {
    /// Position among the document's chunks, from 0.
    pub index: usize,
    /// How many chunks the document has.
    pub total: usize,
    /// The text: the overlap (if any), then the chunk's own blocks, blocks separated by a
    /// blank line; a chunk that starts a section starts with its heading.
    pub text: String,
    /// The heading path of the chunk's first own block.
    pub heading_path: Vec<String>,
    /// How the chunk was bounded: `"section"` (whole sections), `"paragraph"` (whole
    /// blocks), `"length"` (holds part of a block cut at sentences or words).
    pub strategy: &'static str,
    /// Tokens of `text`, by the caller's counter; at most the target.
    pub token_count: usize,
    /// Hex SHA-256 of `text`.
    pub content_hash: String,
    /// Index of the first block whose content the chunk holds (overlap not counted).
    pub start_block: usize,
    /// Index of the last block whose content the chunk holds.
    pub end_block: usize,
    /// Bytes at the start of `text` repeated from the previous chunk (0 when none).
    pub overlap_bytes: usize,
}

/// Split a document's blocks into chunks. Blank blocks are skipped; an empty document gives
/// no chunks. Options out of range are clamped (see [`ChunkOptions::check`]).
pub fn chunk_document(
    blocks: &[ChunkInput],
    opts: &ChunkOptions,
    count_tokens: CountTokens,
) -> Vec<Chunk> {
    pack::pack(blocks, &opts.clamped(), count_tokens)
}

/// A rough token counter for tests and fallbacks: every run of letters or digits and every
/// other non-space character counts one. Close to WordPiece counts on English prose; cl100k
/// counts are usually a little lower.
pub fn approx_token_count(text: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if !in_word {
                n += 1;
                in_word = true;
            }
        } else {
            in_word = false;
            if !c.is_whitespace() {
                n += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked_and_clamped() {
        assert!(ChunkOptions::default().check().is_ok());
        let bad = ChunkOptions {
            target_tokens: 4,
            overlap_tokens: 64,
            strategy: ChunkStrategy::Length,
        };
        assert!(bad.check().unwrap_err().contains("too small"));
        let c = bad.clamped();
        assert_eq!((c.target_tokens, c.overlap_tokens), (16, 8));
        let bad = ChunkOptions {
            overlap_tokens: 300,
            ..Default::default()
        };
        assert!(bad.check().unwrap_err().contains("more than half"));
    }

    #[test]
    fn strategy_names() {
        for s in [
            ChunkStrategy::Section,
            ChunkStrategy::Paragraph,
            ChunkStrategy::Length,
        ] {
            assert_eq!(ChunkStrategy::parse(s.as_str()), Ok(s));
        }
        assert!(ChunkStrategy::parse("words").unwrap_err().contains("words"));
    }

    #[test]
    fn approx_counter() {
        assert_eq!(approx_token_count("Dr. Okafor's lab, 4.2 m"), 11);
        assert_eq!(approx_token_count(""), 0);
    }
}
