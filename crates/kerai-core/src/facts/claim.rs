//! A claim: one checkable statement with its subject, predicate and object.

use serde::Serialize;

/// Where a claim came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimSource {
    /// schema.org structured data in the page.
    JsonLd,
    /// A sentence pattern ("X was founded in Y").
    Pattern,
    /// A language model's answer to [`super::llm_prompt`].
    Llm,
}

impl ClaimSource {
    /// `"json_ld"`, `"pattern"` or `"llm"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimSource::JsonLd => "json_ld",
            ClaimSource::Pattern => "pattern",
            ClaimSource::Llm => "llm",
        }
    }
}

/// A factual claim, e.g. "Northwind Institute was founded in 1998" = (Northwind Institute,
/// founded in, 1998).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    /// The claim as a sentence.
    pub statement: String,
    pub subject: String,
    /// A short lower-case relation: `founded in`, `founded by`, `number of employees`,
    /// `based in`, `opened`, `opened on`, `received`, `role`, `costs`, `author`, ...
    pub predicate: String,
    pub object: String,
    /// How sure the extractor is, 0 to 1.
    pub confidence: f32,
    pub source: ClaimSource,
}

impl Claim {
    pub(super) fn new(
        statement: impl Into<String>,
        subject: impl Into<String>,
        predicate: impl Into<String>,
        object: impl Into<String>,
        confidence: f32,
        source: ClaimSource,
    ) -> Self {
        Claim {
            statement: statement.into(),
            subject: subject.into(),
            predicate: predicate.into(),
            object: object.into(),
            confidence,
            source,
        }
    }
}
