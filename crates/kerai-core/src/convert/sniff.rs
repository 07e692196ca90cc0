//! Deciding what a document is: magic bytes first, then the declared content type, then the
//! name's extension, then a look at the bytes. This is kerai's only sniffer: site crawls,
//! `kerai extract` and the SQL functions all reach it through [`super::convert`].

use super::SourceType;
use std::io::Cursor;

/// Bytes examined for signatures and for "does this look like text".
const HEAD: usize = 1024;

/// The format of `bytes`, or `None` when it is nothing kerai converts.
///
/// 1. Magic bytes win over any name or declared type:
///    - `%PDF-` at the start (after whitespace or a BOM) is PDF;
///    - a zip with `mimetype` = `application/epub+zip` or a `META-INF/container.xml` is EPUB,
///      `word/` (DOCX) or `xl/` (XLSX) parts next to `[Content_Types].xml` are OOXML; a zip
///      that can be read and is none of these (a PPTX, a plain archive) is `None`;
///    - `<!DOCTYPE html`, `<html`, `<head` or `<body` at the start (after whitespace or a
///      BOM), or a leading comment followed by one of them within the first KiB, is HTML;
///    - an XML declaration `<?xml` is HTML when an `<html` element follows within the first
///      KiB (XHTML), else `None` (a feed or sitemap, even when served as `text/html`);
///    - an OLE2 compound file (old `.doc`/`.xls`) is `None`.
/// 2. `%PDF-` later in the first KiB (readers allow junk before the header) is PDF unless the
///    content type or extension says HTML, text or markdown (a page or note that mentions a
///    PDF header is not a PDF).
/// 3. A zip that cannot be read (a truncated download) is placed by the part names in its
///    local headers, else by the content type or extension when they name a zip format, so
///    that the parser reports what is wrong with it.
/// 4. The content type (parameters ignored; `application/octet-stream` and other unknown
///    types say nothing; XML types other than XHTML are `None`), where a generic `text/plain`
///    on a `.md`/`.markdown` name is markdown; else the extension of the name's last path
///    segment (a URL's query and fragment ignored; `.xml` is `None`).
/// 5. Text when the first KiB has no NUL and few control characters (or starts with a UTF-16
///    BOM); `None` otherwise (and for empty input).
pub fn sniff(bytes: &[u8], name: &str, content_type: Option<&str>) -> Option<SourceType> {
    let declared = || declared(name, content_type);
    match by_magic(bytes) {
        Magic::Is(t) => Some(t),
        Magic::NotOurs => None,
        Magic::UnreadableZip => local_zip_kind(bytes).or_else(|| {
            declared()
                .kind()
                .filter(|t| matches!(t, SourceType::Docx | SourceType::Xlsx | SourceType::Epub))
        }),
        Magic::LatePdfHeader => match declared() {
            Declared::Is(t @ (SourceType::Html | SourceType::Txt | SourceType::Md)) => Some(t),
            _ => Some(SourceType::Pdf),
        },
        Magic::Unknown => match declared() {
            Declared::Is(t) => Some(t),
            Declared::NotOurs => None,
            Declared::Unknown if looks_textual(bytes) => Some(SourceType::Txt),
            Declared::Unknown => None,
        },
    }
}

/// What the bytes alone say.
enum Magic {
    Is(SourceType),
    /// A signature of something kerai does not convert.
    NotOurs,
    /// A zip whose directory cannot be read.
    UnreadableZip,
    /// `%PDF-` in the first KiB, but not at the start.
    LatePdfHeader,
    Unknown,
}

fn by_magic(bytes: &[u8]) -> Magic {
    let head = &bytes[..bytes.len().min(HEAD)];
    let lead = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let lead = &lead[lead
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(lead.len())..];
    if lead.starts_with(b"%PDF-") {
        return Magic::Is(SourceType::Pdf);
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return zip_kind(bytes);
    }
    if bytes.starts_with(b"PK\x05\x06") {
        // An empty archive: only a name or type can say which container it should have been.
        return Magic::UnreadableZip;
    }
    if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        return Magic::NotOurs;
    }
    if starts_with_ci(lead, b"<?xml") {
        return if has_tag(lead, b"<html") {
            Magic::Is(SourceType::Html)
        } else {
            Magic::NotOurs
        };
    }
    let html_tags: [&[u8]; 4] = [b"<!doctype html", b"<html", b"<head", b"<body"];
    if html_tags.iter().any(|t| tag_at(lead, t))
        || (lead.starts_with(b"<!--") && html_tags.iter().any(|t| has_tag(lead, t)))
    {
        return Magic::Is(SourceType::Html);
    }
    if head.windows(5).any(|w| w == b"%PDF-") {
        return Magic::LatePdfHeader;
    }
    Magic::Unknown
}

fn starts_with_ci(hay: &[u8], prefix: &[u8]) -> bool {
    hay.len() >= prefix.len() && hay[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// `tag` (`<name`, case-insensitive) at the start of `hay`, followed by the end of the name.
fn tag_at(hay: &[u8], tag: &[u8]) -> bool {
    starts_with_ci(hay, tag)
        && hay
            .get(tag.len())
            .is_none_or(|&b| b == b'>' || b == b'/' || b.is_ascii_whitespace())
}

/// `tag` anywhere in `hay` (so `<head` does not match `<header>`).
fn has_tag(hay: &[u8], tag: &[u8]) -> bool {
    (0..hay.len()).any(|i| hay[i] == b'<' && tag_at(&hay[i..], tag))
}

/// Looks only at the zip directory and the tiny `mimetype` entry.
fn zip_kind(bytes: &[u8]) -> Magic {
    if bytes.get(30..38) == Some(b"mimetype") && bytes[38..].starts_with(b"application/epub+zip") {
        return Magic::Is(SourceType::Epub);
    }
    let Ok(archive) = zip::ZipArchive::new(Cursor::new(bytes)) else {
        return Magic::UnreadableZip;
    };
    match ooxml_or_epub(archive.file_names().filter_map(Result::ok)) {
        Some(t) => Magic::Is(t),
        None => Magic::NotOurs,
    }
}

/// The container kind named by a zip's part names.
fn ooxml_or_epub(names: impl IntoIterator<Item = impl AsRef<str>>) -> Option<SourceType> {
    let mut has_types = false;
    let mut kind = None;
    for n in names {
        let n = n.as_ref();
        if n == "[Content_Types].xml" {
            has_types = true;
        } else if n.starts_with("word/") {
            kind = kind.or(Some(SourceType::Docx));
        } else if n.starts_with("xl/") {
            kind = kind.or(Some(SourceType::Xlsx));
        } else if n == "META-INF/container.xml" {
            return Some(SourceType::Epub);
        }
    }
    kind.filter(|_| has_types)
}

/// A zip without a readable directory: the part names of its local file headers.
fn local_zip_kind(bytes: &[u8]) -> Option<SourceType> {
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(at) = bytes[i..].windows(4).position(|w| w == b"PK\x03\x04") {
        let start = i + at;
        let Some(header) = bytes.get(start..start + 30) else {
            break;
        };
        let len = u16::from_le_bytes([header[26], header[27]]) as usize;
        if let Some(n) = bytes
            .get(start + 30..start + 30 + len)
            .and_then(|n| std::str::from_utf8(n).ok())
        {
            names.push(n);
        }
        i = start + 4;
    }
    ooxml_or_epub(names)
}

/// What the content type and the name say.
enum Declared {
    Is(SourceType),
    /// A type kerai does not convert (XML that is not XHTML).
    NotOurs,
    Unknown,
}

impl Declared {
    fn kind(&self) -> Option<SourceType> {
        match self {
            Declared::Is(t) => Some(*t),
            _ => None,
        }
    }
}

fn declared(name: &str, content_type: Option<&str>) -> Declared {
    let by_ext = by_extension(name);
    match by_content_type(content_type) {
        // A generic text type says little: a .md served as text/plain is markdown.
        Declared::Is(SourceType::Txt) if matches!(by_ext, Declared::Is(SourceType::Md)) => by_ext,
        Declared::Unknown => by_ext,
        d => d,
    }
}

fn by_content_type(content_type: Option<&str>) -> Declared {
    let Some(ct) = content_type.and_then(|c| c.split(';').next()) else {
        return Declared::Unknown;
    };
    let ct = ct.trim().to_ascii_lowercase();
    Declared::Is(match ct.as_str() {
        "application/pdf" | "application/x-pdf" => SourceType::Pdf,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => {
            SourceType::Docx
        }
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => SourceType::Xlsx,
        "application/epub+zip" => SourceType::Epub,
        "text/html" | "application/xhtml+xml" => SourceType::Html,
        "text/markdown" | "text/x-markdown" => SourceType::Md,
        "text/plain" => SourceType::Txt,
        "application/xml" | "text/xml" => return Declared::NotOurs,
        t if t.ends_with("+xml") => return Declared::NotOurs,
        _ => return Declared::Unknown,
    })
}

fn by_extension(name: &str) -> Declared {
    // Ignore a URL's query or fragment; look at the last path segment only.
    let path = name.split(['?', '#']).next().unwrap_or(name);
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let Some((_, ext)) = file.rsplit_once('.') else {
        return Declared::Unknown;
    };
    Declared::Is(match ext.to_ascii_lowercase().as_str() {
        "pdf" => SourceType::Pdf,
        "docx" => SourceType::Docx,
        "xlsx" => SourceType::Xlsx,
        "epub" => SourceType::Epub,
        "html" | "htm" | "xhtml" | "shtml" => SourceType::Html,
        "md" | "markdown" => SourceType::Md,
        "txt" | "text" => SourceType::Txt,
        "xml" => return Declared::NotOurs,
        _ => return Declared::Unknown,
    })
}

/// True when the first KiB has no NUL and few control characters (or starts with a UTF-16 BOM).
fn looks_textual(bytes: &[u8]) -> bool {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return true;
    }
    let head = &bytes[..bytes.len().min(HEAD)];
    if head.is_empty() || head.contains(&0) {
        return false;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0C))
        .count();
    controls * 20 < head.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_beats_name_and_type() {
        assert_eq!(
            sniff(b"%PDF-1.7\n...", "x.txt", Some("text/plain")),
            Some(SourceType::Pdf)
        );
        assert_eq!(
            sniff(b"<!DOCTYPE html><html>", "x.txt", None),
            Some(SourceType::Html)
        );
    }

    #[test]
    fn type_then_extension() {
        assert_eq!(
            sniff(b"# Title", "notes", Some("text/markdown; charset=utf-8")),
            Some(SourceType::Md)
        );
        assert_eq!(sniff(b"# Title", "notes.md", None), Some(SourceType::Md));
        assert_eq!(
            sniff(b"plain words", "a/b/notes.TXT?x=1", None),
            Some(SourceType::Txt)
        );
        assert_eq!(sniff(b"plain words", "noext", None), Some(SourceType::Txt));
        assert_eq!(sniff(b"\x00\x01\x02binary", "noext", None), None);
        assert_eq!(sniff(b"broken", "report.pdf", None), Some(SourceType::Pdf));
        // Only the last path segment has an extension.
        assert_eq!(
            sniff(b"plain words", "https://h.test/v1.pdf/notes", None),
            Some(SourceType::Txt)
        );
    }

    #[test]
    fn html_tags_are_whole_names() {
        assert_eq!(
            sniff(b"<body class=x><p>hi</p>", "noext", None),
            Some(SourceType::Html)
        );
        assert_eq!(
            sniff(b"<HEAD>\n<title>t</title>", "noext", None),
            Some(SourceType::Html)
        );
        // `<header>` is not `<head>`: text with markup, not a page.
        assert_eq!(
            sniff(b"<header>notes</header>", "noext", None),
            Some(SourceType::Txt)
        );
        assert_eq!(
            sniff(b"<!-- generated --><p>no page tags</p>", "noext", None),
            Some(SourceType::Txt)
        );
        assert_eq!(
            sniff(b"<!-- generated -->\n<html>", "noext", None),
            Some(SourceType::Html)
        );
    }

    #[test]
    fn a_late_pdf_header_loses_to_a_declared_page_or_text() {
        let mentions = b"<p>Every PDF starts with %PDF-1.x</p>";
        assert_eq!(
            sniff(mentions, "", Some("text/html; charset=utf-8")),
            Some(SourceType::Html)
        );
        assert_eq!(sniff(mentions, "notes.txt", None), Some(SourceType::Txt));
        let junk_first = b"\x00\x00junk\r\n%PDF-1.4\n1 0 obj";
        assert_eq!(
            sniff(junk_first, "download", Some("application/octet-stream")),
            Some(SourceType::Pdf)
        );
        assert_eq!(sniff(mentions, "noext", None), Some(SourceType::Pdf));
    }
}
