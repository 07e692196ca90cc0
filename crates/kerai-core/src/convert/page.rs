//! HTML pages: the encoding decided by [`super::charset::decode_html`], the main content by the
//! HTML extractor ([`crate::convert::html::to_markdown`]), the structured data by
//! [`crate::convert::html::extract_structured_at`]. Never fails: any bytes make some page.

use super::charset::decode_html;
use super::{Converted, DocMeta, HtmlParts, SourceType};
use crate::convert::html;

/// Converts an HTML page fetched from `base_url` (links are resolved against it).
pub(crate) fn convert(bytes: &[u8], base_url: &str, content_type: Option<&str>) -> Converted {
    let (decoded, charset) = decode_html(bytes, content_type);
    let ex = html::to_markdown(&decoded, base_url);
    // Canonical and hreflang URLs resolved against the page, as its links are.
    let structured = html::extract_structured_at(&decoded, base_url);
    let mut warnings = Vec::new();
    if ex.truncated {
        warnings.push("page larger than the HTML parser's limits: the rest was cut".to_string());
    }
    warnings.extend(ex.warnings.iter().cloned());
    Converted {
        markdown: ex.markdown,
        source_type: SourceType::Html,
        metadata: DocMeta {
            title: ex.title,
            author: structured.meta.get("author").cloned(),
            language: ex.language,
            ..DocMeta::default()
        },
        warnings,
        html: Some(HtmlParts {
            decoded,
            charset,
            text: ex.text,
            links: ex.links,
            blocks: ex.blocks,
            structured,
            truncated: ex.truncated,
        }),
    }
}
