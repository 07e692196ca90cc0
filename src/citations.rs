//! Citations and references in SQL: detection in running text, bibliography entries, and the
//! keys references are deduplicated by.

use kerai_core::{citations, references};
use pgrx::prelude::*;
use pgrx::JsonB;

/// `kerai.detect_citations(text)`: URLs, DOIs, arXiv ids, author-year callouts (one row per
/// callout group, its works in `detail->'items'`) and named concepts, with character offsets.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn detect_citations(
    text: &str,
) -> TableIterator<
    'static,
    (
        name!(kind, String),
        name!(start_char, i32),
        name!(end_char, i32),
        name!(text, String),
        name!(detail, JsonB),
    ),
> {
    crate::limits::check("kerai.detect_citations", "text", text.len());
    let rows: Vec<_> = citations::detect_citations(text)
        .into_iter()
        .map(|c| {
            (
                c.kind.as_str().to_string(),
                i32::try_from(c.start_char).unwrap_or(i32::MAX),
                i32::try_from(c.end_char).unwrap_or(i32::MAX),
                c.text,
                JsonB(c.detail),
            )
        })
        .collect();
    TableIterator::new(rows)
}

/// `kerai.parse_reference(text)`: one bibliography entry as fields (authors, year, title,
/// container, volume, issue, pages, publisher, location, doi, url, arxiv, isbn).
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn parse_reference(text: &str) -> JsonB {
    crate::limits::check("kerai.parse_reference", "text", text.len());
    JsonB(serde_json::to_value(references::parse_reference(text)).unwrap_or_default())
}

/// `kerai.split_bibliography(text)`: a references section (lines or paragraphs, numbered or
/// not) into one entry per row.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn split_bibliography(text: &str) -> SetOfIterator<'static, String> {
    crate::limits::check("kerai.split_bibliography", "text", text.len());
    SetOfIterator::new(references::split_bibliography(text))
}

/// `kerai.author_year_key(family, year, suffix)`: the key an author-year citation and a
/// bibliography entry share (`friston|2010|a`); NULL without a family name or a year.
#[pg_extern(immutable, parallel_safe)]
pub(crate) fn author_year_key(
    family: Option<&str>,
    year: Option<i32>,
    suffix: Option<&str>,
) -> Option<String> {
    let family = family.map(str::trim).filter(|f| !f.is_empty())?;
    year?;
    Some(references::author_year_key(family, year, suffix))
}

/// `kerai.normalize_title(text)`: lower case, no diacritics or punctuation, single spaces:
/// what trigram matching of titles compares.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn normalize_title(title: &str) -> String {
    references::normalize_title(title)
}
