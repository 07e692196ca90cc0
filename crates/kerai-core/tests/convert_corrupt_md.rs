//! A damaged markdown file (`fixtures/convert/corrupt.md`: NUL bytes and bytes that are not
//! UTF-8) is read lossily, never refused and never a panic: without a BOM and not valid UTF-8,
//! text is decoded as Windows-1252 with a warning saying so, and NUL bytes are dropped. Only
//! text that is mostly control characters is refused, as the catalogue's corrupt document.

use kerai_core::convert::{convert, sniff, Limits, SourceType};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/convert")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn damaged_markdown_is_decoded_lossily_with_a_warning() {
    let bytes = fixture("corrupt.md");
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the fixture is not UTF-8"
    );
    assert!(bytes.contains(&0), "the fixture has NUL bytes");
    assert_eq!(sniff(&bytes, "corrupt.md", None), Some(SourceType::Md));
    let c = convert(&bytes, "corrupt.md", None, &Limits::default()).unwrap();
    assert_eq!(c.source_type, SourceType::Md);
    assert_eq!(c.warnings, ["decoded as windows-1252"]);
    assert!(!c.markdown.contains('\0'), "NUL bytes are dropped");
    assert!(
        c.markdown
            .contains("Use this list before every release.\n\n## Steps"),
        "{}",
        c.markdown
    );
    // 0xE9 and 0xFF read as Windows-1252 (and Latin-1): é and ÿ.
    assert!(
        c.markdown.contains("1. Update the changelog (résumé ÿ)."),
        "{}",
        c.markdown
    );
    assert_eq!(c.metadata.title.as_deref(), Some("Release checklist v3"));
    // Everything else is the undamaged guide's conversion.
    let clean = convert(&fixture("guide.md"), "guide.md", None, &Limits::default()).unwrap();
    assert_eq!(
        c.markdown.replace(" (résumé ÿ)", ""),
        clean.markdown,
        "only the damage differs"
    );
}

#[test]
fn markdown_that_is_mostly_control_bytes_is_refused() {
    let mut bytes = b"# Title\n".to_vec();
    bytes.extend((0..400u32).map(|i| (i % 8) as u8 + 1));
    let e = convert(&bytes, "noise.md", None, &Limits::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "corrupt or unsupported document: noise.md (binary data, not text)"
    );
}
