//! From response bytes to text: gzip by magic bytes (capped), BOMs, declared charsets.

use std::borrow::Cow;
use std::io::Read;

use encoding_rs::{Encoding, UTF_8};
use flate2::read::MultiGzDecoder;

use super::types::ParseNotes;

/// Whether `body` starts with the gzip magic bytes.
pub fn is_gzip(body: &[u8]) -> bool {
    body.starts_with(&[0x1F, 0x8B])
}

/// The body, gunzipped when it is gzip (whatever the headers or URL say), cut to `limit`
/// bytes. A corrupt gzip stream keeps what was decoded before the damage; one that decodes
/// to nothing is an error.
pub fn decompress<'a>(
    body: &'a [u8],
    limit: usize,
    notes: &mut ParseNotes,
) -> Result<Cow<'a, [u8]>, String> {
    if !is_gzip(body) {
        if body.len() > limit {
            notes.truncated = Some(format!(
                "body larger than {limit} bytes; the rest was ignored"
            ));
            return Ok(Cow::Borrowed(&body[..limit]));
        }
        return Ok(Cow::Borrowed(body));
    }
    notes.gzipped = true;
    let mut out = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut reader = MultiGzDecoder::new(body).take(cap);
    // read_to_end keeps the bytes decoded before an error.
    if let Err(e) = reader.read_to_end(&mut out) {
        if out.is_empty() {
            return Err(format!("corrupt gzip stream ({e})"));
        }
        notes.truncated = Some(format!(
            "gzip stream damaged after {} bytes ({e})",
            out.len()
        ));
    }
    if out.len() > limit {
        out.truncate(limit);
        notes.truncated = Some(format!(
            "decompressed body larger than {limit} bytes; the rest was ignored"
        ));
    }
    Ok(Cow::Owned(out))
}

/// `charset=` of a Content-Type header value.
pub fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(|c| c == '"' || c == '\''))
    })
}

/// `encoding="…"` of an XML declaration at the start of `bytes`.
fn xml_declared_encoding(bytes: &[u8]) -> Option<&str> {
    let head = &bytes[..bytes.len().min(256)];
    let start = head.iter().position(|&b| !b.is_ascii_whitespace())?;
    let head = &head[start..];
    if !head.starts_with(b"<?xml") {
        return None;
    }
    let end = head.windows(2).position(|w| w == b"?>")?;
    let decl = std::str::from_utf8(&head[..end]).ok()?;
    let at = decl.find("encoding")?;
    let rest = decl[at + "encoding".len()..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let quote = rest.chars().next().filter(|&q| q == '"' || q == '\'')?;
    let value = &rest[1..];
    value.find(quote).map(|e| &value[..e])
}

/// Decodes `bytes` to text: BOM, then (for XML) the declaration's encoding, then the
/// Content-Type charset, then UTF-8. Undecodable bytes become U+FFFD. A declared UTF-16 on a
/// body readable as ASCII (the declaration itself was) is treated as UTF-8.
pub fn decode_text<'a>(bytes: &'a [u8], content_type: Option<&str>) -> Cow<'a, str> {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        return enc.decode_without_bom_handling(&bytes[bom_len..]).0;
    }
    let declared = xml_declared_encoding(bytes).or_else(|| content_type.and_then(charset_param));
    let enc = declared
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .map(|e| e.output_encoding())
        .unwrap_or(UTF_8);
    enc.decode_without_bom_handling(bytes).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn gzip_bomb_is_capped() {
        let bomb = gz(&vec![b'a'; 10_000_000]);
        assert!(bomb.len() < 20_000);
        let mut notes = ParseNotes::default();
        let out = decompress(&bomb, 1000, &mut notes).unwrap();
        assert_eq!(out.len(), 1000);
        assert!(notes.gzipped && notes.truncated.is_some());
    }

    #[test]
    fn corrupt_gzip() {
        let mut notes = ParseNotes::default();
        assert!(decompress(&[0x1F, 0x8B, 0, 0], 100, &mut notes).is_err());
        let mut good = gz(&vec![b'x'; 100_000]);
        good.truncate(good.len() / 2);
        let out = decompress(&good, 1 << 20, &mut ParseNotes::default()).unwrap();
        assert!(!out.is_empty());
    }

    #[test]
    fn encodings() {
        assert_eq!(decode_text(b"\xEF\xBB\xBFhi", None), "hi");
        assert_eq!(
            decode_text(
                b"<?xml version='1.0' encoding='ISO-8859-1'?><a>\xE9</a>",
                None
            ),
            "<?xml version='1.0' encoding='ISO-8859-1'?><a>é</a>"
        );
        assert_eq!(
            decode_text(b"caf\xE9", Some("text/plain; charset=latin1")),
            "café"
        );
        assert_eq!(
            decode_text(b"<?xml version=\"1.0\" encoding=\"UTF-16\"?><a/>", None),
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?><a/>"
        );
        assert_eq!(charset_param("text/html; Charset=\"utf-8\""), Some("utf-8"));
    }
}
