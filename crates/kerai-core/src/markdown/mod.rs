//! Markdown (CommonMark + GFM tables, footnotes, task lists, strikethrough) into a tree of
//! nodes: sections nested by heading level, with headings, paragraphs, lists and their items,
//! code blocks, tables, block quotes, footnotes and raw HTML blocks.
//!
//! The tree is streamed in pre-order (a parent always before its children), so a caller can
//! write it out in batches with bounded memory whatever the size of the document.

mod inline;
mod node;
mod parse;

pub use node::{Node, NodeKind};
pub use parse::{parse, Summary};

use sha2::{Digest, Sha256};

/// Identity of a document's text: hex SHA-256 of the markdown with line endings normalised
/// (`\r\n` and `\r` become `\n`) and trailing whitespace removed.
pub fn content_hash(markdown: &str) -> String {
    let mut h = Sha256::new();
    let text = markdown.trim_end();
    let mut rest = text;
    while let Some(i) = rest.find('\r') {
        h.update(&rest.as_bytes()[..i]);
        h.update(b"\n");
        rest = &rest[i + 1..];
        if rest.starts_with('\n') {
            rest = &rest[1..];
        }
    }
    h.update(rest.as_bytes());
    hex::encode(h.finalize())
}

/// Markdown arrives as bytes from files and the network: it must be UTF-8 without NUL bytes.
/// The error names the input and the byte offset.
pub fn validate_text<'a>(bytes: &'a [u8], name: &str) -> Result<&'a str, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "{name} is not valid UTF-8 (invalid byte at offset {}); convert it to UTF-8 first",
            e.valid_up_to()
        )
    })?;
    if let Some(i) = text.find('\0') {
        return Err(format!(
            "{name} contains a NUL byte at offset {i}; remove NUL bytes first"
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_ignores_line_ending_style_and_trailing_space() {
        assert_eq!(content_hash("a\r\nb\r\n"), content_hash("a\nb"));
        assert_eq!(content_hash("a\rb"), content_hash("a\nb\n\n  "));
        assert_ne!(content_hash("a\nb"), content_hash("a b"));
    }

    #[test]
    fn validation_names_the_input() {
        assert_eq!(validate_text(b"ok", "x").unwrap(), "ok");
        let e = validate_text(b"ab\xffc", "notes.md").unwrap_err();
        assert!(
            e.contains("notes.md is not valid UTF-8 (invalid byte at offset 2)"),
            "{e}"
        );
        let e = validate_text(b"a\0b", "notes.md").unwrap_err();
        assert!(e.contains("NUL byte at offset 1"), "{e}");
    }
}
