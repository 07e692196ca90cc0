//! Deciding what a document is: magic bytes first, then the declared content type, then the
//! file name's extension.

use super::SourceType;
use std::io::Cursor;

/// The format of `bytes`, or `None` when nothing identifies it.
///
/// Magic bytes win: `%PDF-` (within the first 1 KiB, as readers allow), a zip container with
/// `mimetype` = `application/epub+zip` or an `META-INF/container.xml` (EPUB), `word/` (DOCX) or
/// `xl/` (XLSX) parts next to `[Content_Types].xml`, and `<html`/`<!DOCTYPE html` for HTML.
/// A zip that is none of these, or any other binary, is `None` whatever its name says.
/// Otherwise the content type (`text/plain`, `text/markdown`, `text/html`, the OOXML and EPUB
/// types) and finally the extension decide.
pub fn sniff(bytes: &[u8], name: &str, content_type: Option<&str>) -> Option<SourceType> {
    if let Some(t) = by_magic(bytes) {
        return Some(t);
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        // A zip we could not place (or could not read): trust a name or type that says which
        // container it should be, so that the parser reports what is wrong with it.
        return by_content_type(content_type)
            .or_else(|| by_extension(name))
            .filter(|t| matches!(t, SourceType::Docx | SourceType::Xlsx | SourceType::Epub));
    }
    let declared = by_content_type(content_type).or_else(|| by_extension(name));
    match declared {
        // A name ending in .pdf on something without %PDF is a broken PDF: let the PDF parser say so.
        Some(t) => Some(t),
        None if looks_textual(bytes) => Some(SourceType::Txt),
        None => None,
    }
}

fn by_magic(bytes: &[u8]) -> Option<SourceType> {
    let head = &bytes[..bytes.len().min(1024)];
    if head.windows(5).any(|w| w == b"%PDF-") {
        return Some(SourceType::Pdf);
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return zip_kind(bytes);
    }
    let lower: Vec<u8> = head
        .iter()
        .skip_while(|b| b.is_ascii_whitespace() || **b == 0xEF || **b == 0xBB || **b == 0xBF)
        .take(256)
        .map(|b| b.to_ascii_lowercase())
        .collect();
    if lower.starts_with(b"<!doctype html") || lower.starts_with(b"<html") {
        return Some(SourceType::Html);
    }
    None
}

/// Looks only at the zip directory and the tiny `mimetype` entry.
fn zip_kind(bytes: &[u8]) -> Option<SourceType> {
    if bytes.len() > 38
        && &bytes[30..38] == b"mimetype"
        && bytes[38..].starts_with(b"application/epub+zip")
    {
        return Some(SourceType::Epub);
    }
    let archive = zip::ZipArchive::new(Cursor::new(bytes)).ok()?;
    let mut has_types = false;
    let mut kind = None;
    for n in archive.file_names().filter_map(Result::ok) {
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
    if has_types {
        kind
    } else {
        None
    }
}

fn by_content_type(content_type: Option<&str>) -> Option<SourceType> {
    let ct = content_type?.split(';').next()?.trim().to_ascii_lowercase();
    Some(match ct.as_str() {
        "application/pdf" | "application/x-pdf" => SourceType::Pdf,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => {
            SourceType::Docx
        }
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => SourceType::Xlsx,
        "application/epub+zip" => SourceType::Epub,
        "text/html" | "application/xhtml+xml" => SourceType::Html,
        "text/markdown" | "text/x-markdown" => SourceType::Md,
        "text/plain" => SourceType::Txt,
        _ => return None,
    })
}

fn by_extension(name: &str) -> Option<SourceType> {
    // Ignore a URL's query or fragment.
    let path = name.split(['?', '#']).next().unwrap_or(name);
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "pdf" => SourceType::Pdf,
        "docx" => SourceType::Docx,
        "xlsx" => SourceType::Xlsx,
        "epub" => SourceType::Epub,
        "html" | "htm" | "xhtml" => SourceType::Html,
        "md" | "markdown" => SourceType::Md,
        "txt" | "text" => SourceType::Txt,
        _ => return None,
    })
}

/// True when the first KiB has no NUL and few control characters (or starts with a UTF-16 BOM).
fn looks_textual(bytes: &[u8]) -> bool {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return true;
    }
    let head = &bytes[..bytes.len().min(1024)];
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
    }
}
