//! Bombs and oversized claims give `too large: <name> (...)` quickly and within bounded memory:
//! zip entries inflating to a gigabyte, lying zip headers, too many entries or cells, PDF
//! streams inflating past the allowance, too many pages. A self-drawing PDF form does not
//! recurse forever.

use flate2::{Compress, Compression, FlushCompress};
use kerai_core::convert::{convert, Limits};
use kerai_core::ErrorKind;
use std::path::PathBuf;

const MIB: u64 = 1 << 20;

/// A raw deflate stream that inflates to `mib` MiB of zeros, built from one sync-flushed
/// 1 MiB block repeated (each copy is a valid block: a literal zero then back-references)
/// and a final empty block; about 1 KB per MiB.
fn zeros_deflate(mib: usize) -> Vec<u8> {
    let mut c = Compress::new(Compression::best(), false);
    let mut block = Vec::with_capacity(1 << 16);
    c.compress_vec(&vec![0u8; MIB as usize], &mut block, FlushCompress::Sync)
        .unwrap();
    assert!(c.total_in() == MIB, "the block holds the whole MiB");
    let mut out = Vec::with_capacity(block.len() * mib + 2);
    for _ in 0..mib {
        out.extend_from_slice(&block);
    }
    out.extend_from_slice(&[0x03, 0x00]); // final fixed-Huffman block with only end-of-block
    out
}

/// A zip entry: name, stored or deflated data, CRC-32 and the uncompressed size to declare.
struct Entry {
    name: String,
    deflated: bool,
    data: Vec<u8>,
    crc: u32,
    declared: u32,
}

fn stored(name: &str, text: &str) -> Entry {
    let mut crc = flate2::Crc::new();
    crc.update(text.as_bytes());
    Entry {
        name: name.into(),
        deflated: false,
        data: text.as_bytes().to_vec(),
        crc: crc.sum(),
        declared: text.len() as u32,
    }
}

fn bomb(name: &str, mib: usize, declared: u32) -> Entry {
    Entry {
        name: name.into(),
        deflated: true,
        data: zeros_deflate(mib),
        crc: 0,
        declared,
    }
}

/// Writes a zip archive by hand so that sizes can be declared honestly or not.
fn zip(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    let u16le = |v: &mut Vec<u8>, x: u16| v.extend_from_slice(&x.to_le_bytes());
    let u32le = |v: &mut Vec<u8>, x: u32| v.extend_from_slice(&x.to_le_bytes());
    for e in entries {
        let offset = out.len() as u32;
        let method = if e.deflated { 8 } else { 0 };
        u32le(&mut out, 0x0403_4b50);
        for x in [20, 0, method, 0, 0x21] {
            u16le(&mut out, x);
        }
        u32le(&mut out, e.crc);
        u32le(&mut out, e.data.len() as u32);
        u32le(&mut out, e.declared);
        u16le(&mut out, e.name.len() as u16);
        u16le(&mut out, 0);
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&e.data);

        u32le(&mut central, 0x0201_4b50);
        for x in [20, 20, 0, method, 0, 0x21] {
            u16le(&mut central, x);
        }
        u32le(&mut central, e.crc);
        u32le(&mut central, e.data.len() as u32);
        u32le(&mut central, e.declared);
        u16le(&mut central, e.name.len() as u16);
        for _ in 0..4 {
            u16le(&mut central, 0);
        }
        u32le(&mut central, 0);
        u32le(&mut central, offset);
        central.extend_from_slice(e.name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    u32le(&mut out, 0x0605_4b50);
    for x in [0, 0, entries.len() as u16, entries.len() as u16] {
        u16le(&mut out, x);
    }
    u32le(&mut out, central.len() as u32);
    u32le(&mut out, cd_offset);
    u16le(&mut out, 0);
    out
}

const DOCX_TYPES: &str = r#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#;

fn docx_bomb(declared: u32) -> Vec<u8> {
    zip(&[
        stored("[Content_Types].xml", DOCX_TYPES),
        bomb("word/document.xml", 1024, declared),
    ])
}

fn too_large(bytes: &[u8], name: &str, limits: &Limits) -> String {
    let e = convert(bytes, name, None, limits).expect_err(name);
    assert_eq!(e.kind, ErrorKind::TooLarge, "{e}");
    e.to_string()
}

#[test]
fn the_bomb_is_real() {
    // 1 GiB of zeros from about a megabyte, checked by inflating it.
    use std::io::Read;
    let d = zeros_deflate(1024);
    assert!(d.len() < 1_200_000, "{}", d.len());
    let n = std::io::copy(
        &mut flate2::read::DeflateDecoder::new(&d[..]).take(2 * 1024 * MIB),
        &mut std::io::sink(),
    )
    .unwrap();
    assert_eq!(n, 1024 * MIB);
}

#[test]
fn docx_bomb_with_honest_header() {
    let msg = too_large(&docx_bomb(1 << 30), "bomb.docx", &Limits::default());
    assert_eq!(msg, "too large: bomb.docx (word/document.xml declares 1073741824 bytes, limit 268435456 bytes uncompressed)");
}

#[test]
fn docx_bomb_with_lying_header() {
    let limits = Limits {
        max_uncompressed_bytes: 16 * MIB,
        ..Limits::default()
    };
    let e = convert(&docx_bomb(4096), "liar.docx", None, &limits).unwrap_err();
    // Either the inflated bytes overrun the allowance, or the zip reader stops at the declared
    // size and the CRC then fails: in both cases nothing near a gigabyte is inflated.
    assert!(
        e.to_string() == "too large: liar.docx (word/document.xml inflates past the allowance, limit 16777216 bytes uncompressed)"
            || e.to_string().starts_with("corrupt or unsupported document: liar.docx (word/document.xml: "),
        "{e}"
    );
}

#[test]
fn xlsx_and_epub_bombs() {
    let wb = r#"<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
    let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#;
    let xlsx = zip(&[
        stored("[Content_Types].xml", "<Types/>"),
        stored("xl/workbook.xml", wb),
        stored("xl/_rels/workbook.xml.rels", rels),
        bomb("xl/worksheets/sheet1.xml", 1024, 1 << 30),
    ]);
    let msg = too_large(&xlsx, "bomb.xlsx", &Limits::default());
    assert!(
        msg.starts_with("too large: bomb.xlsx (xl/worksheets/sheet1.xml declares 1073741824 bytes"),
        "{msg}"
    );

    let container =
        r#"<container><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>"#;
    let opf = r#"<package><metadata/><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>"#;
    let epub = zip(&[
        stored("mimetype", "application/epub+zip"),
        stored("META-INF/container.xml", container),
        stored("content.opf", opf),
        bomb("c1.xhtml", 1024, 1 << 30),
    ]);
    let msg = too_large(&epub, "bomb.epub", &Limits::default());
    assert!(
        msg.starts_with("too large: bomb.epub (c1.xhtml declares 1073741824 bytes"),
        "{msg}"
    );
}

#[test]
fn too_many_zip_entries() {
    let mut entries = vec![
        stored("[Content_Types].xml", DOCX_TYPES),
        stored("word/document.xml", "<w:document/>"),
    ];
    for i in 0..40 {
        entries.push(stored(&format!("word/media/x{i}.txt"), "x"));
    }
    let limits = Limits {
        max_zip_entries: 20,
        ..Limits::default()
    };
    assert_eq!(
        too_large(&zip(&entries), "many.docx", &limits),
        "too large: many.docx (42 zip entries, limit 20)"
    );
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/convert")
            .join(name),
    )
    .unwrap()
}

#[test]
fn cell_and_page_limits() {
    let limits = Limits {
        max_cells: 10,
        ..Limits::default()
    };
    assert_eq!(
        too_large(&fixture("budget.xlsx"), "budget.xlsx", &limits),
        "too large: budget.xlsx (more than 10 non-empty cells)"
    );
    let limits = Limits {
        max_pages: 3,
        ..Limits::default()
    };
    assert_eq!(
        too_large(&fixture("report.pdf"), "report.pdf", &limits),
        "too large: report.pdf (claims 4 pages, limit 3)"
    );
}

/// A one-page PDF with the given extra objects (numbered from 5) and page content.
fn pdf(content: &[u8], content_filter: &str, extra: &[Vec<u8>]) -> Vec<u8> {
    let mut objs: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> /XObject << /X1 5 0 R >> >> >>".to_vec(),
    ];
    let mut stream =
        format!("<< /Length {}{content_filter} >>\nstream\n", content.len()).into_bytes();
    stream.extend_from_slice(content);
    stream.extend_from_slice(b"\nendstream");
    objs.push(stream);
    objs.extend(extra.iter().cloned());
    let mut out = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objs.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).as_bytes());
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objs.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[test]
fn pdf_stream_bomb() {
    let mut z = vec![0x78, 0xDA];
    z.extend(zeros_deflate(64));
    z.extend_from_slice(&[0, 0, 0, 0]);
    let limits = Limits {
        max_uncompressed_bytes: 8 * MIB,
        ..Limits::default()
    };
    let msg = too_large(&pdf(&z, " /Filter /FlateDecode", &[]), "bomb.pdf", &limits);
    assert_eq!(
        msg,
        "too large: bomb.pdf (compressed streams inflate past 8388608 bytes)"
    );
}

#[test]
fn pdf_self_drawing_form_is_not_followed() {
    let form = b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X1 5 0 R >> >> /Length 6 >>\nstream\n/X1 Do\nendstream".to_vec();
    let content = b"BT /F1 12 Tf 72 700 Td (Hello from a cyclic page) Tj ET /X1 Do";
    let c = convert(
        &pdf(content, "", &[form]),
        "cycle.pdf",
        None,
        &Limits::default(),
    )
    .unwrap();
    assert!(
        c.markdown.contains("Hello from a cyclic page"),
        "{}",
        c.markdown
    );
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("form XObjects not followed")),
        "{:?}",
        c.warnings
    );
}
