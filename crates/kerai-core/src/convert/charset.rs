//! Decoding fetched HTML to text: which character encoding to trust ([`super::convert`] decodes
//! every HTML page with [`decode_html`]).
//!
//! Order: byte-order mark > HTTP `charset` > `<meta charset>` / `<meta http-equiv>` (prescan
//! of the first [`PRESCAN_BYTES`]) > valid UTF-8 > chardetng's guess.
//!
//! A declared encoding (header or meta) is distrusted, and the next source tried, when the
//! bytes contradict it:
//! - it says UTF-8 but the bytes are not valid UTF-8;
//! - it is a multi-byte legacy encoding (Shift_JIS, GBK, EUC-KR…) and decoding hits malformed
//!   sequences;
//! - it is any legacy encoding (windows-1252, ISO-8859-x, Shift_JIS…) but the bytes are valid
//!   UTF-8 containing non-ASCII characters: servers that default to ISO-8859-1 for UTF-8
//!   pages are common, and valid multi-byte UTF-8 is very unlikely to arise by chance in
//!   legacy-encoded text. Such a body is decoded as UTF-8.
//!
//! Labels follow the WHATWG Encoding Standard (so `iso-8859-1` means windows-1252); a meta
//! declaring UTF-16 means UTF-8, as in browsers.

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252, X_USER_DEFINED};

/// Bytes of the document searched for a `<meta>` charset declaration.
pub const PRESCAN_BYTES: usize = 4096;

/// Decodes an HTML (or any text) body to a `String`, returning the encoding used (its WHATWG
/// name, e.g. `"UTF-8"`, `"windows-1252"`, `"Shift_JIS"`). Never fails: undecodable bytes
/// become U+FFFD.
pub fn decode_html(bytes: &[u8], content_type: Option<&str>) -> (String, &'static str) {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let (text, _) = enc.decode_without_bom_handling(&bytes[bom_len..]);
        return (text.into_owned(), enc.name());
    }
    let header = content_type
        .and_then(charset_from_content_type)
        .and_then(|l| Encoding::for_label(l.as_bytes()));
    if let Some(result) = header.and_then(|enc| decode_if_consistent(bytes, enc)) {
        return result;
    }
    let meta = prescan_meta_charset(&bytes[..bytes.len().min(PRESCAN_BYTES)])
        .and_then(|l| Encoding::for_label(l.as_bytes()))
        .map(|enc| {
            if enc == X_USER_DEFINED {
                WINDOWS_1252
            } else {
                enc.output_encoding()
            }
        });
    if let Some(result) = meta.and_then(|enc| decode_if_consistent(bytes, enc)) {
        return result;
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return (s.to_string(), UTF_8.name());
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    let enc = detector.guess(None, false);
    let (text, _) = enc.decode_without_bom_handling(bytes);
    (text.into_owned(), enc.name())
}

/// Decodes with `enc` unless the bytes contradict it (see the module rules); `None` then.
fn decode_if_consistent(bytes: &[u8], enc: &'static Encoding) -> Option<(String, &'static str)> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        // Valid UTF-8 with non-ASCII text is UTF-8 whatever a legacy label claims.
        if enc == UTF_8 || !s.is_ascii() {
            return Some((s.to_string(), UTF_8.name()));
        }
    } else if enc == UTF_8 {
        return None;
    }
    let (text, had_errors) = enc.decode_without_bom_handling(bytes);
    // Single-byte encodings decode anything; a multi-byte one that hits malformed input is wrong.
    (enc.is_single_byte() || !had_errors).then(|| (text.into_owned(), enc.name()))
}

/// The `charset` parameter of a Content-Type value (`text/html; charset="utf-8"` -> `utf-8`).
pub fn charset_from_content_type(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (k, v) = param.split_once('=')?;
        let v = v.trim().trim_matches(|c| c == '"' || c == '\'');
        (k.trim().eq_ignore_ascii_case("charset") && !v.is_empty()).then_some(v)
    })
}

fn starts_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The charset a document declares in its head: `<meta charset>`, `<meta http-equiv=
/// "Content-Type" content="…charset=…">`, or an XML declaration's `encoding`. Comments are
/// skipped, as in the HTML prescan algorithm.
pub fn prescan_meta_charset(head: &[u8]) -> Option<String> {
    let mut i = 0;
    if starts_with_ci(head, b"<?xml") {
        let end = find(head, b"?>").unwrap_or(head.len());
        let decl = String::from_utf8_lossy(&head[..end]).to_string();
        let attrs = parse_attributes(decl.trim_start_matches("<?xml").as_bytes());
        if let Some((_, v)) = attrs.iter().find(|(k, _)| k == "encoding") {
            return Some(v.clone());
        }
        i = end;
    }
    while i < head.len() {
        let rest = &head[i..];
        if rest.starts_with(b"<!--") {
            i += 4 + find(&rest[4..], b"-->").map_or(rest.len(), |e| e + 3);
            continue;
        }
        if starts_with_ci(rest, b"<meta")
            && rest
                .get(5)
                .is_some_and(|&c| c.is_ascii_whitespace() || c == b'/')
        {
            let end = rest.iter().position(|&c| c == b'>').unwrap_or(rest.len());
            let attrs = parse_attributes(&rest[5..end]);
            let get = |name: &str| {
                attrs
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.as_str())
            };
            if let Some(cs) = get("charset").filter(|v| !v.is_empty()) {
                return Some(cs.to_string());
            }
            if get("http-equiv").is_some_and(|v| v.eq_ignore_ascii_case("content-type")) {
                if let Some(cs) = get("content").and_then(charset_in_content) {
                    return Some(cs);
                }
            }
            i += end.max(1);
            continue;
        }
        if rest.first() == Some(&b'<')
            && rest
                .get(1)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'/' || *c == b'!' || *c == b'?')
        {
            i += rest
                .iter()
                .position(|&c| c == b'>')
                .map_or(rest.len(), |e| e + 1);
            continue;
        }
        i += 1;
    }
    None
}

/// `charset=…` inside a `content` attribute value.
fn charset_in_content(content: &str) -> Option<String> {
    let lower = content.to_ascii_lowercase();
    let at = lower.find("charset")?;
    let rest = content[at + 7..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let rest = rest.trim_start_matches(['"', '\'']);
    let value: String = rest
        .chars()
        .take_while(|c| !matches!(c, '"' | '\'' | ';') && !c.is_whitespace())
        .collect();
    (!value.is_empty()).then_some(value)
}

/// `name=value` pairs of a tag's attribute text (names lower-cased; values unquoted).
fn parse_attributes(s: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    let text = |a: usize, b: usize| String::from_utf8_lossy(&s[a..b]).into_owned();
    while i < s.len() {
        while i < s.len() && (s[i].is_ascii_whitespace() || s[i] == b'/') {
            i += 1;
        }
        let start = i;
        while i < s.len() && !s[i].is_ascii_whitespace() && s[i] != b'=' && s[i] != b'/' {
            i += 1;
        }
        if i == start {
            i += 1;
            continue;
        }
        let name = text(start, i).to_ascii_lowercase();
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if i < s.len() && s[i] == b'=' {
            i += 1;
            while i < s.len() && s[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < s.len() && (s[i] == b'"' || s[i] == b'\'') {
                let q = s[i];
                let vstart = i + 1;
                let vend = s[vstart..]
                    .iter()
                    .position(|&c| c == q)
                    .map_or(s.len(), |e| vstart + e);
                value = text(vstart, vend);
                i = vend + 1;
            } else {
                let vstart = i;
                while i < s.len() && !s[i].is_ascii_whitespace() {
                    i += 1;
                }
                value = text(vstart, i);
            }
        }
        out.push((name, value.trim().to_string()));
    }
    out
}
