//! What kind of document a response holds: magic bytes first, then the Content-Type, then
//! the URL's extension, then a look at the bytes.

/// The document kinds kerai converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContentKind {
    Html,
    Pdf,
    Docx,
    Xlsx,
    Epub,
    Text,
    Markdown,
    Xml,
    Other,
}

impl ContentKind {
    /// Lower-case name: `html`, `pdf`, `docx`, `xlsx`, `epub`, `text`, `markdown`, `xml`, `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            ContentKind::Html => "html",
            ContentKind::Pdf => "pdf",
            ContentKind::Docx => "docx",
            ContentKind::Xlsx => "xlsx",
            ContentKind::Epub => "epub",
            ContentKind::Text => "text",
            ContentKind::Markdown => "markdown",
            ContentKind::Xml => "xml",
            ContentKind::Other => "other",
        }
    }
}

/// Bytes examined for text signatures.
const HEAD: usize = 1024;

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Decides the kind of a fetched document.
///
/// 1. Magic bytes: `%PDF-` (within the first 1 KiB); a ZIP holding `mimetype` =
///    `application/epub+zip` (EPUB), `word/` (DOCX) or `xl/` (XLSX) entries; other ZIPs and
///    OLE2 (old .doc/.xls) are `Other`; `<!DOCTYPE html>`, `<html`, `<head`, `<body` are HTML;
///    `<?xml` is XML (XHTML when it has an `<html` element).
/// 2. The Content-Type (parameters ignored).
/// 3. The URL's extension (`.md`/`.markdown` is the only way to tell Markdown from text
///    without a Content-Type).
/// 4. Text when the first 1 KiB has no NUL and almost no control bytes; `Other` otherwise.
pub fn content_kind(bytes: &[u8], content_type: Option<&str>, url: &str) -> ContentKind {
    if let Some(kind) = by_magic(bytes) {
        return kind;
    }
    let by_type = content_type.and_then(by_content_type);
    let by_ext = by_extension(url);
    match (by_type, by_ext) {
        // Generic text types say little: a .md URL served as text/plain is Markdown.
        (Some(ContentKind::Text), Some(ContentKind::Markdown)) => ContentKind::Markdown,
        (Some(k), _) => k,
        (None, Some(k)) => k,
        (None, None) => {
            if looks_like_text(bytes) {
                ContentKind::Text
            } else {
                ContentKind::Other
            }
        }
    }
}

fn by_magic(bytes: &[u8]) -> Option<ContentKind> {
    let head = &bytes[..bytes.len().min(HEAD)];
    if contains(head, b"%PDF-") {
        return Some(ContentKind::Pdf);
    }
    if bytes.starts_with(b"PK\x03\x04") {
        if bytes.get(30..38) == Some(b"mimetype")
            && bytes.get(38..58) == Some(b"application/epub+zip")
        {
            return Some(ContentKind::Epub);
        }
        // Entry names are stored uncompressed in local headers and the central directory.
        if contains(bytes, b"word/document") {
            return Some(ContentKind::Docx);
        }
        if contains(bytes, b"xl/workbook") {
            return Some(ContentKind::Xlsx);
        }
        if contains(bytes, b"application/epub+zip") && contains(bytes, b"META-INF/container.xml") {
            return Some(ContentKind::Epub);
        }
        return Some(ContentKind::Other);
    }
    if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        return Some(ContentKind::Other);
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    let text = &text[start..];
    if text.starts_with(b"<?xml") {
        return Some(if contains_ci(text, b"<html") {
            ContentKind::Html
        } else {
            ContentKind::Xml
        });
    }
    let html_start = [
        &b"<!doctype html"[..],
        b"<html",
        b"<head",
        b"<body",
        b"<!--",
    ];
    if html_start
        .iter()
        .any(|sig| text.len() >= sig.len() && text[..sig.len()].eq_ignore_ascii_case(sig))
        && (contains_ci(text, b"<html")
            || contains_ci(text, b"<head")
            || contains_ci(text, b"<body")
            || contains_ci(text, b"<!doctype html"))
    {
        return Some(ContentKind::Html);
    }
    None
}

fn by_content_type(content_type: &str) -> Option<ContentKind> {
    let mime = content_type.split(';').next()?.trim().to_ascii_lowercase();
    Some(match mime.as_str() {
        "text/html" | "application/xhtml+xml" => ContentKind::Html,
        "application/pdf" | "application/x-pdf" => ContentKind::Pdf,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => {
            ContentKind::Docx
        }
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => ContentKind::Xlsx,
        "application/epub+zip" => ContentKind::Epub,
        "text/markdown" | "text/x-markdown" => ContentKind::Markdown,
        "text/plain" => ContentKind::Text,
        "application/xml" | "text/xml" => ContentKind::Xml,
        m if m.ends_with("+xml") => ContentKind::Xml,
        "" | "application/octet-stream" | "binary/octet-stream" | "application/unknown" => {
            return None
        }
        _ => ContentKind::Other,
    })
}

fn by_extension(url: &str) -> Option<ContentKind> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit('/').next().unwrap_or("");
    let ext = last.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "html" | "htm" | "xhtml" | "shtml" => ContentKind::Html,
        "pdf" => ContentKind::Pdf,
        "docx" => ContentKind::Docx,
        "xlsx" => ContentKind::Xlsx,
        "epub" => ContentKind::Epub,
        "md" | "markdown" => ContentKind::Markdown,
        "txt" | "text" => ContentKind::Text,
        "xml" => ContentKind::Xml,
        _ => return None,
    })
}

fn looks_like_text(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(HEAD)];
    if head.contains(&0) {
        return false;
    }
    // Binary formats are full of control bytes; text in any encoding has almost none.
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0C | 0x1B))
        .count();
    controls * 20 <= head.len()
}
