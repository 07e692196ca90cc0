//! Document conversion to clean markdown with metadata: HTML, PDF, DOCX, XLSX, EPUB, TXT and MD.
//!
//! [`convert`] is kerai's one conversion entry point (site crawls, `kerai extract` and the
//! citation loop's fetches call it): bytes, the content type and the URL or file name in,
//! markdown and metadata out. SQL functions given HTML as text call its HTML step,
//! [`crate::convert::html::to_markdown`], directly. It sniffs the format ([`sniff`], the only sniffer), then
//! - HTML: decodes the charset ([`charset::decode_html`]), runs the HTML extractor
//!   ([`crate::convert::html::to_markdown`]) and the structured-data extraction
//!   ([`crate::convert::html::extract_structured`]), and returns what they found in [`Converted::html`];
//! - other formats: parses within [`Limits`].
//!
//! It returns the markdown, the [`SourceType`], the [`DocMeta`] and any warnings. Every failure
//! is a [`ResourceError`] naming the document: `corrupt or unsupported document: <name> (...)`
//! or `too large: <name> (...)`.
//!
//! Markdown conventions: headings are ATX (`#`), tables GFM, lists `-`/`1.` indented by four
//! spaces per level; PDF pages start with a `<!-- page N -->` marker line; workbook sheets are
//! `## <sheet name>` sections. HTML is the extractor's markdown unchanged.

pub mod charset;
mod dates;
mod docx;
mod epub;
mod hints;
pub mod html;
mod limits;
mod markdown;
mod ooxml;
mod page;
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

use crate::convert::html::{Block, Link, Structured};
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
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    pub markdown: String,
    pub source_type: SourceType,
    pub metadata: DocMeta,
    /// Things that were skipped or guessed (an unreadable page, a charset fallback ...).
    pub warnings: Vec<String>,
    /// For HTML, what the HTML layer found besides the markdown; `None` for other formats.
    pub html: Option<HtmlParts>,
}

/// What conversion learnt about an HTML page besides its markdown.
#[derive(Debug, Clone, PartialEq)]
pub struct HtmlParts {
    /// The page decoded to text, as the extractor read it (NULs included).
    pub decoded: String,
    /// The encoding it was decoded from (WHATWG name: `UTF-8`, `windows-1252`, `Shift_JIS` ...).
    pub charset: &'static str,
    /// The main content as plain text (no link URLs, no title).
    pub text: String,
    /// All links of the page, resolved against the base URL (see [`crate::convert::html::links()`]).
    pub links: Vec<Link>,
    /// All blocks of the page; those with `main` make the markdown.
    pub blocks: Vec<Block>,
    /// JSON-LD, OpenGraph, Twitter cards, meta tags, canonical URL, hreflang alternates.
    pub structured: Structured,
    /// True when the page was larger than the HTML parser's limits and was cut.
    pub truncated: bool,
}

/// Converts a document to markdown with metadata.
///
/// `name` is the document's URL, or its file name: it names the document in errors, its
/// extension helps sniffing, its file stem may give the version hint, and for HTML it is the
/// base URL that links are resolved against (a name that is not an absolute URL leaves
/// relative links unresolved; see [`convert_with_base`] for a file whose links resolve against
/// another URL). `content_type` is the HTTP `Content-Type` if known; its `charset` is one of
/// the sources of an HTML page's encoding.
///
/// HTML is not refused for size (`limits.max_bytes`): the HTML parser caps what it reads and
/// says so in [`HtmlParts::truncated`]. Its title, language and author are the extractor's and
/// the meta tags' (no fallback to the first line or a word-count guess).
pub fn convert(
    bytes: &[u8],
    name: &str,
    content_type: Option<&str>,
    limits: &Limits,
) -> Result<Converted, ResourceError> {
    convert_with_base(bytes, name, name, content_type, limits)
}

/// [`convert`], with HTML links resolved against `base_url` instead of `name`: for a local
/// file named by its path, whose links resolve against its `file://` URL or the URL it was
/// fetched from (`kerai extract --base-url`). Other formats ignore `base_url`.
pub fn convert_with_base(
    bytes: &[u8],
    name: &str,
    base_url: &str,
    content_type: Option<&str>,
    limits: &Limits,
) -> Result<Converted, ResourceError> {
    let kind = sniff(bytes, name, content_type);
    if bytes.len() > limits.max_bytes && kind != Some(SourceType::Html) {
        return Err(ResourceError::too_large(
            name,
            format!("{} bytes, limit {}", bytes.len(), limits.max_bytes),
        ));
    }
    let kind = kind.ok_or_else(|| {
        ResourceError::corrupt(
            name,
            "unrecognised format: not PDF, DOCX, XLSX, EPUB, HTML or text",
        )
    })?;
    if kind == SourceType::Html {
        // Outside the panic net below: the HTML layer is kerai's own code (fuzzed without the
        // net), and inside the extension its cancellation points unwind through here on
        // purpose, which a catch_unwind would turn into a conversion error.
        let mut converted = page::convert(bytes, base_url, content_type);
        finish(&mut converted, name);
        return Ok(converted);
    }
    // Parsers return errors for bad input; this net turns a panic in a dependency (the PDF
    // font and content-stream code has many) into the same clean error.
    let result = catch_unwind(AssertUnwindSafe(|| match kind {
        SourceType::Pdf => pdf::convert(bytes, name, limits),
        SourceType::Docx => docx::convert(bytes, name, limits),
        SourceType::Xlsx => xlsx::convert(bytes, name, limits),
        SourceType::Epub => epub::convert(bytes, name, limits),
        SourceType::Txt | SourceType::Md => text::convert(bytes, name, kind),
        SourceType::Html => unreachable!("HTML is converted above"),
    }));
    let mut converted = match result {
        Ok(r) => r?,
        Err(panic) => {
            return Err(ResourceError::corrupt(name, panic_message(panic.as_ref())));
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

/// Fills the metadata every format shares: word count, title fallback, version hint, language
/// (HTML keeps the extractor's title and language, without fallbacks).
fn finish(c: &mut Converted, name: &str) {
    let fallbacks = c.html.is_none();
    let meta = &mut c.metadata;
    meta.word_count = markdown::word_count(&c.markdown);
    meta.title = meta
        .title
        .take()
        .map(|t| markdown::one_line(&t))
        .filter(|t| !t.is_empty());
    if meta.title.is_none() && fallbacks {
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
    if meta.language.is_none() && fallbacks {
        meta.language = hints::guess_language(&c.markdown).map(str::to_string);
    }
}
