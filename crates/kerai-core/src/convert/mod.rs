//! Document conversion to clean markdown with metadata: PDF, DOCX, XLSX, EPUB, TXT and MD.
//!
//! [`convert`] sniffs the format ([`sniff`]), parses within [`Limits`], and returns the
//! markdown, the [`SourceType`], the [`DocMeta`] and any warnings. Every failure is a
//! [`ResourceError`] naming the document: `corrupt or unsupported document: <name> (...)` or
//! `too large: <name> (...)`. HTML is recognised but converted by the HTML module, not here.
//!
//! Markdown conventions: headings are ATX (`#`), tables GFM, lists `-`/`1.` indented by four
//! spaces per level; PDF pages start with a `<!-- page N -->` marker line; workbook sheets are
//! `## <sheet name>` sections.

mod dates;
mod docx;
mod epub;
mod hints;
mod limits;
mod markdown;
mod ooxml;
mod pdf;
mod pdf_layout;
mod sniff;
mod text;
mod xhtml;
mod xlsx;
mod xml;
mod zipped;

pub use limits::Limits;
pub use sniff::sniff;
pub use text::decode_text;

use crate::ResourceError;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The kind of document, as stored in the `source_type` metadata field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceType {
    Pdf,
    Docx,
    Xlsx,
    Epub,
    Html,
    Txt,
    Md,
}

impl SourceType {
    /// The lower-case name: `pdf`, `docx`, `xlsx`, `epub`, `html`, `txt`, `md`.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceType::Pdf => "pdf",
            SourceType::Docx => "docx",
            SourceType::Xlsx => "xlsx",
            SourceType::Epub => "epub",
            SourceType::Html => "html",
            SourceType::Txt => "txt",
            SourceType::Md => "md",
        }
    }
}

impl std::fmt::Display for SourceType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a document says about itself (and what conversion counted). Dates are ISO 8601 as
/// found (`2025-03-14T09:30:00Z`, `2025-02-10T08:15:00+01:00`, or a bare date).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocMeta {
    /// The document's own title, else its first heading or line.
    pub title: Option<String>,
    pub author: Option<String>,
    pub created: Option<String>,
    pub modified: Option<String>,
    /// `v2`, `rev 3`, `1.4` ...: from the title, the file name, or the office revision count.
    pub version_hint: Option<String>,
    /// The declared language (`en-GB`), else a guess from common words (`en`, `es`, ...).
    pub language: Option<String>,
    /// PDF pages (for other formats `None`).
    pub page_count: Option<usize>,
    /// XLSX sheets (for other formats `None`).
    pub sheet_count: Option<usize>,
    /// Words in the markdown (tokens with a letter or digit).
    pub word_count: usize,
}

/// A converted document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    pub markdown: String,
    pub source_type: SourceType,
    pub metadata: DocMeta,
    /// Things that were skipped or guessed (an unreadable page, a charset fallback ...).
    pub warnings: Vec<String>,
}

/// Converts a document to markdown with metadata.
///
/// `name` is the URL or file name used in errors and to sniff the extension; `content_type`
/// is the HTTP `Content-Type` if known. HTML gives a `corrupt or unsupported document` error
/// saying to use the HTML converter.
pub fn convert(
    bytes: &[u8],
    name: &str,
    content_type: Option<&str>,
    limits: &Limits,
) -> Result<Converted, ResourceError> {
    if bytes.len() > limits.max_bytes {
        return Err(ResourceError::too_large(
            name,
            format!("{} bytes, limit {}", bytes.len(), limits.max_bytes),
        ));
    }
    let kind = sniff(bytes, name, content_type).ok_or_else(|| {
        ResourceError::corrupt(
            name,
            "unrecognised format: not PDF, DOCX, XLSX, EPUB, HTML or text",
        )
    })?;
    // Parsers return errors for bad input; this net turns a panic in a dependency (the PDF
    // font and content-stream code has many) into the same clean error.
    let result = catch_unwind(AssertUnwindSafe(|| match kind {
        SourceType::Pdf => pdf::convert(bytes, name, limits),
        SourceType::Docx => docx::convert(bytes, name, limits),
        SourceType::Xlsx => xlsx::convert(bytes, name, limits),
        SourceType::Epub => epub::convert(bytes, name, limits),
        SourceType::Txt | SourceType::Md => text::convert(bytes, name, kind),
        SourceType::Html => Err(ResourceError::corrupt(
            name,
            "HTML is converted by the HTML extractor, not by convert()",
        )),
    }));
    let mut converted = match result {
        Ok(r) => r?,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown failure".into());
            return Err(ResourceError::corrupt(
                name,
                format!("parser failed: {msg}"),
            ));
        }
    };
    finish(&mut converted, name);
    Ok(converted)
}

/// `parser failed: <message>` for a caught panic.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let msg = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown failure".into());
    format!("parser failed: {msg}")
}

/// Fills the metadata every format shares: word count, title fallback, version hint, language.
fn finish(c: &mut Converted, name: &str) {
    let meta = &mut c.metadata;
    meta.word_count = markdown::word_count(&c.markdown);
    meta.title = meta
        .title
        .take()
        .map(|t| markdown::one_line(&t))
        .filter(|t| !t.is_empty());
    if meta.title.is_none() {
        meta.title = markdown::first_heading_or_line(&c.markdown);
    }
    let from_text = meta
        .title
        .as_deref()
        .and_then(hints::version_in)
        .or_else(|| hints::version_in(&hints::file_stem(name)));
    if from_text.is_some() {
        meta.version_hint = from_text;
    }
    if meta.language.is_none() {
        meta.language = hints::guess_language(&c.markdown).map(str::to_string);
    }
}
