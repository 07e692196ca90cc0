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
