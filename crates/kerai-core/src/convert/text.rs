//! Plain text and markdown pass through: the charset is detected (UTF-8, UTF-16 by BOM,
//! Windows-1252/Latin-1 fallback), NULs are stripped, line ends normalised.

use super::markdown::first_heading_or_line;
use super::{Converted, DocMeta, SourceType};
use crate::ResourceError;

/// Decodes bytes to text: a BOM (UTF-8/UTF-16LE/BE) decides; else valid UTF-8; else
/// Windows-1252 (a superset of Latin-1's printable range). Returns the text and the label of
/// the encoding used.
pub fn decode_text(bytes: &[u8]) -> (String, &'static str) {
    let (text, enc) = if let Some((enc, bom)) = encoding_rs::Encoding::for_bom(bytes) {
        let (t, _) = enc.decode_without_bom_handling(&bytes[bom..]);
        (t.into_owned(), enc.name())
    } else if let Ok(s) = std::str::from_utf8(bytes) {
        (s.to_string(), "UTF-8")
    } else {
        let (t, _, _) = encoding_rs::WINDOWS_1252.decode(bytes);
        (t.into_owned(), "windows-1252")
    };
    let text = text
        .replace('\0', "")
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    (text, enc)
}

/// Converts a TXT or MD document.
pub(crate) fn convert(
    bytes: &[u8],
    name: &str,
    kind: SourceType,
) -> Result<Converted, ResourceError> {
    let (text, encoding) = decode_text(bytes);
    if is_binary(&text) {
        return Err(ResourceError::corrupt(name, "binary data, not text"));
    }
    let mut warnings = Vec::new();
    if encoding != "UTF-8" {
        warnings.push(format!("decoded as {encoding}"));
    }
    let (front_title, body) = match kind {
        SourceType::Md => split_front_matter(&text),
        _ => (None, text.as_str()),
    };
    let markdown = format!("{}\n", body.trim_matches('\n').trim_end());
    let markdown = if markdown.trim().is_empty() {
        String::new()
    } else {
        markdown
    };
    let title = front_title.or_else(|| first_heading_or_line(&markdown));
    Ok(Converted {
        markdown,
        source_type: kind,
        metadata: DocMeta {
            title,
            ..DocMeta::default()
        },
        warnings,
        html: None,
    })
}

/// More than 10% control characters (other than tab, newline, form feed) after decoding.
fn is_binary(text: &str) -> bool {
    let mut total = 0usize;
    let mut control = 0usize;
    for c in text.chars().take(64 * 1024) {
        total += 1;
        if c.is_control() && !matches!(c, '\n' | '\t' | '\u{c}') {
            control += 1;
        }
    }
    total > 0 && control * 10 > total
}

/// YAML front matter (`---` ... `---` at the start): its `title:` and the text after it.
fn split_front_matter(text: &str) -> (Option<String>, &str) {
    let Some(rest) = text.strip_prefix("---\n") else {
        return (None, text);
    };
    let Some(end) = rest.find("\n---") else {
        return (None, text);
    };
    let fm = &rest[..end];
    let after = &rest[end + 4..];
    let body = after.split_once('\n').map(|(_, b)| b).unwrap_or("");
    let title = fm.lines().find_map(|l| {
        let v = l.strip_prefix("title:")?.trim().trim_matches(['"', '\'']);
        (!v.is_empty()).then(|| v.to_string())
    });
    (title, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets() {
        assert_eq!(decode_text("añó".as_bytes()), ("añó".to_string(), "UTF-8"));
        assert_eq!(decode_text(b"\xEF\xBB\xBFhi"), ("hi".to_string(), "UTF-8"));
        assert_eq!(decode_text(b"a\xf1o"), ("año".to_string(), "windows-1252"));
        assert_eq!(
            decode_text(b"\xFF\xFEh\x00i\x00"),
            ("hi".to_string(), "UTF-16LE")
        );
        assert_eq!(decode_text(b"a\x00b\r\nc"), ("ab\nc".to_string(), "UTF-8"));
    }

    #[test]
    fn front_matter_title() {
        let (t, body) = split_front_matter("---\ntitle: \"Hello\"\n---\n# H\n");
        assert_eq!(t.as_deref(), Some("Hello"));
        assert_eq!(body, "# H\n");
    }
}
