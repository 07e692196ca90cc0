//! In-text citation detection: URLs, DOIs, arXiv identifiers, author-year callouts and named
//! concepts, as character-offset spans of the input.
//!
//! ```
//! use kerai_core::citations::{detect_citations, CitationKind};
//!
//! let found = detect_citations("As argued (Parr & Friston, 2019), see doi:10.1016/j.jmp.2020.102447.");
//! assert_eq!(found[0].kind, CitationKind::AuthorYear);
//! assert_eq!(found[0].detail["items"][0]["key"], "parr|2019|");
//! assert_eq!(found[1].kind, CitationKind::Doi);
//! assert_eq!(found[1].detail["doi"], "10.1016/j.jmp.2020.102447");
//! ```

mod arxiv;
mod author_year;
mod chars;
mod concepts;
mod doi;
mod identifiers;
mod kind;
mod links;
mod offsets;
mod tlds;
pub(crate) mod tokens;
pub(crate) mod words;

pub use arxiv::arxiv_in_url;
pub use doi::{is_valid_doi, normalize_doi};
pub use kind::{Citation, CitationKind};
pub use links::LinkOptions;

/// A citation found in the text, in byte offsets, before conversion to a [`Citation`].
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub start: usize,
    pub end: usize,
    pub kind: CitationKind,
    pub detail: serde_json::Value,
}

/// URL, DOI and arXiv spans (byte offsets) with the default link rules, for the reference parser.
pub(crate) fn identifier_spans(text: &str) -> Vec<Found> {
    identifiers::find_identifiers(text, LinkOptions::default())
}

/// What [`detect_citations_with`] looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetectOptions {
    /// Link rules (fuzzy links, fuzzy IPs, bare e-mail addresses).
    pub links: LinkOptions,
    /// Author-year callouts.
    pub author_year: bool,
    /// Quoted terms and acronym definitions.
    pub concepts: bool,
}

impl Default for DetectOptions {
    fn default() -> Self {
        DetectOptions {
            links: LinkOptions::default(),
            author_year: true,
            concepts: true,
        }
    }
}

/// Every citation in `text`, sorted by start, non-overlapping, with the default options.
pub fn detect_citations(text: &str) -> Vec<Citation> {
    detect_citations_with(text, &DetectOptions::default())
}

/// Every citation in `text` with the given options. Where spans overlap, identifiers (URL,
/// DOI, arXiv) win over author-year callouts, which win over concepts.
pub fn detect_citations_with(text: &str, opts: &DetectOptions) -> Vec<Citation> {
    let mut found = identifiers::find_identifiers(text, opts.links);
    crate::interrupt::check();
    if opts.author_year {
        found = merge_lower_priority(found, author_year::find_author_year(text));
        crate::interrupt::check();
    }
    if opts.concepts {
        found = merge_lower_priority(found, concepts::find_concepts(text));
        crate::interrupt::check();
    }
    offsets::to_citations(text, found)
}

/// Adds `extra` (sorted) to `kept` (sorted, non-overlapping) where it overlaps nothing.
fn merge_lower_priority(kept: Vec<Found>, extra: Vec<Found>) -> Vec<Found> {
    let mut out = Vec::with_capacity(kept.len() + extra.len());
    let mut k = kept.into_iter().peekable();
    let mut last_end = 0usize;
    for e in extra {
        while let Some(f) = k.next_if(|f| f.start < e.end) {
            last_end = last_end.max(f.end);
            out.push(f);
        }
        let next_start = k.peek().map_or(usize::MAX, |f| f.start);
        if e.start >= last_end && e.end <= next_start {
            last_end = e.end;
            out.push(e);
        }
    }
    out.extend(k);
    out
}
