//! Charset decisions (`convert::charset`) and content sniffing (`convert::sniff`), on made-up
//! bytes and on the 181 real pages of bench/aeb (all UTF-8).

use std::io::Read;

use encoding_rs::{EUC_KR, SHIFT_JIS, WINDOWS_1252};
use kerai_core::convert::charset::{decode_html, prescan_meta_charset};
use kerai_core::convert::{sniff, SourceType};
use kerai_core::shared_data::shared_path;

fn encode(enc: &'static encoding_rs::Encoding, s: &str) -> Vec<u8> {
    enc.encode(s).0.into_owned()
}

#[test]
fn order_bom_header_meta_detect() {
    // BOM wins over a contradicting header.
    let (t, cs) = decode_html(
        b"\xEF\xBB\xBFcaf\xC3\xA9",
        Some("text/html; charset=windows-1252"),
    );
    assert_eq!((t.as_str(), cs), ("café", "UTF-8"));
    let mut le = vec![0xFF, 0xFE];
    le.extend("hé".encode_utf16().flat_map(u16::to_le_bytes));
    assert_eq!(decode_html(&le, None), ("hé".to_string(), "UTF-16LE"));
    // Header over meta.
    let page = encode(WINDOWS_1252, "<meta charset=\"shift_jis\"><p>café</p>");
    assert_eq!(
        decode_html(&page, Some("text/html; charset=ISO-8859-1")).1,
        "windows-1252"
    );
    // Meta when there is no header.
    let sjis = encode(SHIFT_JIS, "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"></head><body>日本語のテキスト</body></html>");
    let (t, cs) = decode_html(&sjis, Some("text/html"));
    assert_eq!(cs, "Shift_JIS");
    assert!(t.contains("日本語のテキスト"));
    // Plain UTF-8 without declarations.
    assert_eq!(
        decode_html("<p>naïve</p>".as_bytes(), None),
        ("<p>naïve</p>".to_string(), "UTF-8")
    );
    // Detection when nothing is declared and the bytes are not UTF-8.
    let kr = encode(
        EUC_KR,
        "<p>한국어 문서입니다. 이것은 인코딩 감지를 위한 충분히 긴 한국어 문장입니다.</p>",
    );
    let (t, cs) = decode_html(&kr, None);
    assert_eq!(cs, "EUC-KR");
    assert!(t.contains("한국어 문서입니다"));
}

#[test]
fn wrong_declarations_are_overruled() {
    // Header says UTF-8, bytes are windows-1252: the meta is used.
    let page = encode(
        WINDOWS_1252,
        "<meta charset=windows-1252><p>déjà vu, naïve café</p>",
    );
    let (t, cs) = decode_html(&page, Some("text/html; charset=utf-8"));
    assert_eq!(cs, "windows-1252");
    assert!(t.contains("déjà vu"));
    // Header and meta both say UTF-8, bytes are windows-1252: detection.
    let page = encode(
        WINDOWS_1252,
        "<meta charset=utf-8><p>Très élégant: déjà vu à la française, où êtes-vous?</p>",
    );
    let (t, cs) = decode_html(&page, Some("text/html; charset=utf-8"));
    assert_eq!(cs, "windows-1252");
    assert!(t.contains("Très élégant"));
    // Header says ISO-8859-1 (a common server default) but the page is UTF-8.
    let (t, cs) = decode_html(
        "<p>Grüße aus Köln</p>".as_bytes(),
        Some("text/html; charset=ISO-8859-1"),
    );
    assert_eq!((t.as_str(), cs), ("<p>Grüße aus Köln</p>", "UTF-8"));
    // Header says Shift_JIS but the bytes are malformed for it: fall back.
    let (t, cs) = decode_html(
        "<p>ünïcödé</p>".as_bytes(),
        Some("text/html; charset=shift_jis"),
    );
    assert_eq!((t.as_str(), cs), ("<p>ünïcödé</p>", "UTF-8"));
    // Unknown labels are ignored.
    assert_eq!(
        decode_html(b"abc", Some("text/html; charset=klingon")).1,
        "UTF-8"
    );
}

#[test]
fn meta_prescan() {
    assert_eq!(
        prescan_meta_charset(b"<!-- <meta charset=koi8-r> --><META CHARSET='iso-8859-2'>")
            .as_deref(),
        Some("iso-8859-2")
    );
    assert_eq!(
        prescan_meta_charset(
            b"<meta content='text/html; charset=\"euc-jp\"' http-equiv=content-type>"
        )
        .as_deref(),
        Some("euc-jp")
    );
    assert_eq!(
        prescan_meta_charset(b"<?xml version=\"1.0\" encoding=\"windows-1251\"?><html>").as_deref(),
        Some("windows-1251")
    );
    assert_eq!(
        prescan_meta_charset(b"<meta name=description content='charset=fake'>"),
        None
    );
    assert_eq!(prescan_meta_charset(b"<title>x</title>"), None);
    // A meta declaring UTF-16 on an ASCII-compatible page means UTF-8.
    assert_eq!(
        decode_html(b"<meta charset=utf-16><p>hi</p>", None).1,
        "UTF-8"
    );
}

fn stored_zip_entry(name: &str, data: &[u8]) -> Vec<u8> {
    let mut z = b"PK\x03\x04".to_vec();
    z.extend([20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // version, flags, method=stored, time, date
    z.extend([0u8; 4]); // crc (not checked by sniffing)
    z.extend((data.len() as u32).to_le_bytes());
    z.extend((data.len() as u32).to_le_bytes());
    z.extend((name.len() as u16).to_le_bytes());
    z.extend(0u16.to_le_bytes());
    z.extend(name.as_bytes());
    z.extend(data);
    z
}

/// A zip of stored entries, with its central directory.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in entries {
        w.start_file(*name, opts).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn magic_bytes_beat_headers_and_extensions() {
    use SourceType::*;
    let pdf = b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj";
    assert_eq!(
        sniff(pdf, "https://e.org/page.html", Some("text/html")),
        Some(Pdf)
    );
    let epub = [
        stored_zip_entry("mimetype", b"application/epub+zip"),
        stored_zip_entry("META-INF/container.xml", b"<x/>"),
    ]
    .concat();
    assert_eq!(
        sniff(&epub, "https://e.org/b", Some("application/zip")),
        Some(Epub)
    );
    // Local headers only (a truncated download, no central directory): the part names decide.
    let docx = [
        stored_zip_entry("[Content_Types].xml", b"<x/>"),
        stored_zip_entry("word/document.xml", b"<w/>"),
    ]
    .concat();
    assert_eq!(
        sniff(&docx, "https://e.org/download?id=3", None),
        Some(Docx)
    );
    let xlsx = [
        stored_zip_entry("[Content_Types].xml", b"<x/>"),
        stored_zip_entry("xl/workbook.xml", b"<w/>"),
    ]
    .concat();
    assert_eq!(
        sniff(&xlsx, "https://e.org/f", Some("application/octet-stream")),
        Some(Xlsx)
    );
    // The same as whole archives.
    let docx = zip_of(&[
        ("[Content_Types].xml", b"<x/>"),
        ("word/document.xml", b"<w/>"),
    ]);
    assert_eq!(
        sniff(&docx, "https://e.org/download?id=3", None),
        Some(Docx)
    );
    let xlsx = zip_of(&[
        ("[Content_Types].xml", b"<x/>"),
        ("xl/workbook.xml", b"<w/>"),
    ]);
    assert_eq!(
        sniff(&xlsx, "https://e.org/f", Some("application/octet-stream")),
        Some(Xlsx)
    );
    // A readable zip that is none of kerai's formats, whatever its name says.
    let pptx = zip_of(&[
        ("[Content_Types].xml", b"<x/>"),
        ("ppt/presentation.xml", b"<p/>"),
    ]);
    assert_eq!(sniff(&pptx, "https://e.org/f.docx", None), None);
    let ole = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0];
    assert_eq!(
        sniff(&ole, "https://e.org/a.doc", Some("application/msword")),
        None
    );
    // An HTML error page served as a PDF.
    let err = b"<!DOCTYPE html><html><body>Not found</body></html>";
    assert_eq!(
        sniff(err, "https://e.org/a.pdf", Some("application/pdf")),
        Some(Html)
    );
    assert_eq!(sniff(b"\xEF\xBB\xBF  <html lang=en>", "", None), Some(Html));
    // Pages that start with their head or body, not <html>.
    assert_eq!(
        sniff(b"<head><title>t</title></head><body>x</body>", "", None),
        Some(Html)
    );
    assert_eq!(
        sniff(b"\n<BODY bgcolor=white>x</BODY>", "https://e.org/x", None),
        Some(Html)
    );
    assert_eq!(
        sniff(b"<?xml version='1.0'?><urlset/>", "", Some("text/html")),
        None
    );
    assert_eq!(
        sniff(
            b"<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'/>",
            "",
            None
        ),
        Some(Html)
    );
}

#[test]
fn headers_then_extensions_then_bytes() {
    use SourceType::*;
    assert_eq!(
        sniff(b"# Title\n\ntext", "", Some("text/markdown; charset=utf-8")),
        Some(Md)
    );
    assert_eq!(
        sniff(
            b"# Title\n\ntext",
            "https://e.org/README.md",
            Some("text/plain")
        ),
        Some(Md)
    );
    assert_eq!(
        sniff(b"# Title\n\ntext", "https://e.org/notes.markdown?x=1", None),
        Some(Md)
    );
    assert_eq!(
        sniff(b"hello", "https://e.org/a", Some("text/plain")),
        Some(Txt)
    );
    assert_eq!(sniff(b"<rss/>", "", Some("application/rss+xml")), None);
    assert_eq!(sniff(b"<urlset/>", "https://e.org/sitemap.xml", None), None);
    assert_eq!(
        sniff(b"<div>fragment</div>", "", Some("text/html")),
        Some(Html)
    );
    assert_eq!(
        sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "", Some("image/png")),
        None
    );
    assert_eq!(
        sniff(b"just some words", "https://e.org/x", None),
        Some(Txt)
    );
    assert_eq!(
        sniff(b"caf\xE9 au lait", "https://e.org/x", None),
        Some(Txt)
    );
    assert_eq!(
        sniff(b"\x00\x01\x02\x03binary", "https://e.org/x", None),
        None
    );
    // Nothing to convert: an empty body is no document.
    assert_eq!(sniff(b"", "", None), None);
}

#[test]
fn real_pages_are_html_in_utf8() {
    let dir = shared_path("bench/aeb/html");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 181);
    let (mut html, mut utf8, mut utf8_despite_latin1_header) = (0, 0, 0);
    for f in &files {
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(f).unwrap())
            .read_to_end(&mut bytes)
            .unwrap();
        if sniff(&bytes, "https://e.org/article", None) == Some(SourceType::Html) {
            html += 1;
        }
        let (text, cs) = decode_html(&bytes, Some("text/html"));
        // Lossless: exactly the UTF-8 text (four pages contain U+FFFD themselves).
        if cs == "UTF-8" && Some(text.as_str()) == std::str::from_utf8(&bytes).ok() {
            utf8 += 1;
        }
        if decode_html(&bytes, Some("text/html; charset=iso-8859-1")).1 == "UTF-8"
            || bytes.is_ascii()
        {
            utf8_despite_latin1_header += 1;
        }
    }
    println!("aeb: html {html}/181, utf-8 {utf8}/181, utf-8 despite a latin-1 header {utf8_despite_latin1_header}/181");
    assert_eq!((html, utf8, utf8_despite_latin1_header), (181, 181, 181));
}
