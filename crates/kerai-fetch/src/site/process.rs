//! Fetched bytes into what the database stores: the source type, clean markdown, metadata,
//! the content hash that decides new / updated / unchanged, and the links to follow.

use kerai_core::convert::html::{self, Link};
use kerai_core::convert::{self, Converted, Limits};
use kerai_core::site::near_duplicates::{page_signature, PageSignature};
use kerai_core::ResourceError;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

#[derive(Debug, Clone)]
pub struct Processed {
    pub source_type: &'static str,
    pub markdown: String,
    pub metadata: Map<String, Value>,
    pub links: Vec<Link>,
    pub raw_html: Option<String>,
    pub content_hash: String,
    /// For near-duplicate pages; of the same text as the hash.
    pub signature: Option<PageSignature>,
}

/// Convert one response body. `wanted` says which source types the target accepts.
pub fn process(
    bytes: &[u8],
    content_type: Option<&str>,
    url: &str,
    wanted: &dyn Fn(&str) -> bool,
    limits: &Limits,
) -> Result<Processed, ResourceError> {
    // The target's file_types are checked before anything is parsed (an unwanted PDF is not
    // converted only to be dropped); convert() sniffs the same way.
    let kind = convert::sniff(bytes, url, content_type).ok_or_else(|| {
        ResourceError::corrupt(
            url,
            format!(
                "unsupported content type {}",
                content_type.unwrap_or("(none)")
            ),
        )
    })?;
    let name = kind.as_str();
    if !wanted(name) {
        return Err(ResourceError::corrupt(
            url,
            format!("{name} is not in the target's file_types"),
        ));
    }
    let Converted {
        markdown,
        source_type,
        metadata: m,
        warnings,
        html: page,
    } = convert::convert(bytes, url, content_type, limits)?;
    let mut metadata = Map::new();
    if let Some(page) = page {
        if let Some(t) = &m.title {
            metadata.insert("title".into(), json!(t));
        }
        if let Some(l) = &m.language {
            metadata.insert("language".into(), json!(l));
        }
        metadata.insert("charset".into(), json!(page.charset));
        if let Some(a) = &m.author {
            metadata.insert("author".into(), json!(a));
        }
        let structured = &page.structured;
        if let Some(d) = structured.meta.get("description") {
            metadata.insert("description".into(), json!(d));
        }
        if let Some(c) = &structured.canonical {
            metadata.insert("canonical".into(), json!(c));
        }
        if let Some(lic) = license_of(structured) {
            metadata.insert("license".into(), json!(lic));
        }
        metadata.insert(
            "structured".into(),
            serde_json::to_value(structured).unwrap_or(Value::Null),
        );
        if page.truncated {
            metadata.insert("truncated".into(), json!(true));
        }
        if !warnings.is_empty() {
            metadata.insert("warnings".into(), json!(warnings));
        }
        let text = page.decoded;
        return Ok(Processed {
            source_type: source_type.as_str(),
            markdown,
            metadata,
            links: page.links,
            // Kept whole (the database moves HTML over 1 MB out of line, kerai.blobs), but for
            // NUL characters, which Postgres text cannot hold and HTML parsing ignores.
            raw_html: Some(if text.contains('\0') {
                text.replace('\0', "")
            } else {
                text
            }),
            // HTML hashes the extracted plain text (main content), other formats their markdown.
            content_hash: text_hash(&page.text),
            signature: page_signature(&page.text),
        });
    }
    for (k, v) in [
        ("title", &m.title),
        ("author", &m.author),
        ("created", &m.created),
        ("modified", &m.modified),
        ("version_hint", &m.version_hint),
        ("language", &m.language),
    ] {
        if let Some(v) = v {
            metadata.insert(k.into(), json!(v));
        }
    }
    if let Some(p) = m.page_count {
        metadata.insert("page_count".into(), json!(p));
    }
    if let Some(s) = m.sheet_count {
        metadata.insert("sheet_count".into(), json!(s));
    }
    metadata.insert("word_count".into(), json!(m.word_count));
    if !warnings.is_empty() {
        metadata.insert("warnings".into(), json!(warnings));
    }
    Ok(Processed {
        source_type: source_type.as_str(),
        content_hash: text_hash(&markdown),
        signature: page_signature(&markdown),
        markdown,
        metadata,
        links: Vec::new(),
        raw_html: None,
    })
}

/// SHA-256 (hex) of text with whitespace normalised: reflowing a page is not a change.
pub fn text_hash(text: &str) -> String {
    let mut h = Sha256::new();
    for (i, w) in text.split_whitespace().enumerate() {
        if i > 0 {
            h.update(b" ");
        }
        h.update(w.as_bytes());
    }
    hex::encode(h.finalize())
}

/// A license named by the page's structured data (schema.org `license`, `<link rel=license>`).
fn license_of(s: &html::Structured) -> Option<String> {
    for item in &s.json_ld {
        if let Some(l) = item.get("license").and_then(Value::as_str) {
            return Some(l.to_string());
        }
    }
    s.meta.get("license").cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_does_not_change_the_hash() {
        assert_eq!(text_hash("a  b\n\nc"), text_hash("a b c"));
        assert_ne!(text_hash("a b c"), text_hash("a b d"));
    }

    #[test]
    fn html_pages_become_markdown_with_links() {
        let page = b"<html><head><title>T</title></head><body><nav><a href='/x'>Home</a></nav><main><h1>Hello</h1><p>A paragraph long enough to be the main content of this little page, really.</p><p><a href='/doc.pdf'>Report</a></p></main></body></html>";
        let p = process(
            page,
            Some("text/html"),
            "http://h.test/",
            &|_| true,
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(p.source_type, "html");
        assert!(p.markdown.contains("# Hello"), "{}", p.markdown);
        assert!(p.links.iter().any(|l| l.url == "http://h.test/doc.pdf"));
        assert!(p.raw_html.is_some());
    }

    #[test]
    fn a_relative_canonical_is_resolved_against_the_page() {
        let page = b"<html><head><title>T</title><link rel=canonical href='../guide.html'></head><body><main><h1>Guide</h1><p>A paragraph long enough to be the main content of this little page, really.</p></main></body></html>";
        let p = process(
            page,
            Some("text/html"),
            "http://h.test/print/guide.html",
            &|_| true,
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(p.metadata["canonical"], "http://h.test/guide.html");
        assert!(p.signature.is_none(), "too short to judge");
    }

    #[test]
    fn a_frameset_page_says_where_its_text_is() {
        let page = b"<html><head><title>Manual</title></head><frameset cols='20%,80%'><frame src='toc.html'><frame src='intro.html'></frameset></html>";
        let p = process(
            page,
            Some("text/html"),
            "http://h.test/manual/",
            &|_| true,
            &Limits::default(),
        )
        .unwrap();
        let w = p.metadata["warnings"][0].as_str().unwrap();
        assert!(w.contains("frameset"), "{w}");
        assert!(w.contains("http://h.test/manual/intro.html"), "{w}");
        assert!(p
            .links
            .iter()
            .any(|l| l.url == "http://h.test/manual/toc.html"));
    }

    #[test]
    fn nul_characters_never_reach_the_database() {
        let page = b"<html><head><title>T\0</title></head><body><main><h1>He\0llo</h1><p>A paragraph long enough to be the main con\0tent of this little page.</p></main></body></html>";
        let p = process(
            page,
            Some("text/html"),
            "http://h.test/",
            &|_| true,
            &Limits::default(),
        )
        .unwrap();
        assert!(p.markdown.contains("# Hello"), "{}", p.markdown);
        assert!(p.markdown.contains("main content"), "{}", p.markdown);
        assert!(!p.raw_html.as_deref().unwrap().contains('\0'));
        assert!(!serde_json::to_string(&p.metadata)
            .unwrap()
            .contains("\\u0000"));
    }

    #[test]
    fn unwanted_and_unknown_types_are_refused() {
        let e = process(
            b"%PDF-1.4 junk",
            Some("application/pdf"),
            "http://h.test/a.pdf",
            &|t| t == "html",
            &Limits::default(),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "corrupt or unsupported document: http://h.test/a.pdf (pdf is not in the target's file_types)");
        let e = process(
            &[0u8, 1, 2, 3, 255],
            Some("application/octet-stream"),
            "http://h.test/blob",
            &|_| true,
            &Limits::default(),
        );
        assert!(e
            .unwrap_err()
            .to_string()
            .starts_with("corrupt or unsupported document: http://h.test/blob"));
    }
}
