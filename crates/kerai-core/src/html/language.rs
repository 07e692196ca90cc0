//! Language detection.

use super::dom::{Document, Tag};

/// The language of a page: `<html lang>` primary subtag, lower case.
pub fn page_language(doc: &Document, _text: &str) -> Option<String> {
    let html = doc.find(Tag::Html)?;
    let lang = doc.attr(html, "lang")?.trim();
    let primary = lang.split(['-', '_']).next()?.to_ascii_lowercase();
    (primary.len() == 2 || primary.len() == 3).then_some(primary)
}
