//! The citation record and its kinds.

use serde::Serialize;

/// What a detected citation points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CitationKind {
    /// A web address (with a scheme, `//host`, an e-mail address or a bare host with a known TLD).
    Url,
    /// A DOI, bare (`10.1000/x`), labelled (`doi:10.1000/x`) or as a resolver/publisher URL.
    Doi,
    /// An arXiv identifier (`arXiv:2107.12979`, `hep-th/9901001`, an arxiv.org URL).
    Arxiv,
    /// An author-year callout group, parenthetical `(Parr & Friston, 2019)` or narrative `Helmholtz (1866)`.
    AuthorYear,
    /// A named concept: a short quoted term or an acronym definition.
    Concept,
}

impl CitationKind {
    /// The stable lowercase name: `url`, `doi`, `arxiv`, `author_year`, `concept`.
    pub fn as_str(self) -> &'static str {
        match self {
            CitationKind::Url => "url",
            CitationKind::Doi => "doi",
            CitationKind::Arxiv => "arxiv",
            CitationKind::AuthorYear => "author_year",
            CitationKind::Concept => "concept",
        }
    }
}

/// One detected citation. Offsets are character offsets (Unicode scalar values) into the
/// input, `end_char` exclusive; `text` is exactly that slice.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Citation {
    pub kind: CitationKind,
    pub start_char: usize,
    pub end_char: usize,
    pub text: String,
    /// Kind-specific fields: `{"url"}`, `{"doi"}`, `{"arxiv"}`, `{"items", "narrative"}`,
    /// `{"term", "acronym"}`.
    pub detail: serde_json::Value,
}
