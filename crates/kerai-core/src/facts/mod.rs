//! Facts in text: named entities (rule-based, no model) and claims — subject, predicate,
//! object triples — from schema.org JSON-LD, from sentence patterns, and from an LLM's
//! answer to [`llm_prompt`].

mod claim;
mod entities;
mod json_ld;
mod llm;
mod text_claims;

pub use claim::{Claim, ClaimSource};
pub use entities::{entities, Entity, EntityKind};
pub use json_ld::claims_from_json_ld;
pub use llm::{llm_prompt, parse_llm_claims};
pub use text_claims::claims_from_text;

/// Compiles a pattern whose `\b` all stand next to ASCII text (digits, English words, codes)
/// with ASCII word boundaries. A Unicode `\b` makes the regex engine leave its fast DFA for the
/// slow NFA on any non-ASCII text (five to ten times slower on accented or non-Latin pages);
/// next to ASCII text both kinds find the same words.
fn ascii_bounded(pattern: &str) -> regex::Regex {
    regex::Regex::new(&pattern.replace(r"\b", r"(?-u:\b)")).expect("fact pattern compiles")
}
