//! Conversion throughput per format over the conversion fixtures, against a baseline measured
//! in the same run on the same bytes: inflating every zip entry (DOCX, XLSX, EPUB), parsing
//! the PDF with lopdf (objects read, streams inflated), validating and copying text (TXT, MD).
//! Also cl100k token counting over the converted markdown.
//!
//!     cargo bench -p kerai-core --bench convert

use kerai_core::convert::{convert, Limits};
use kerai_core::retrieval::tokens::count_tokens;
use std::hint::black_box;
use std::io::{Cursor, Read};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Runs `f` repeatedly for at least `min` and returns the mean time of one call.
fn time(min: Duration, mut f: impl FnMut()) -> Duration {
    f(); // warm up (the tokenizer and lazy tables are built once)
    let start = Instant::now();
    let mut n = 0u32;
    while start.elapsed() < min || n < 3 {
        f();
        n += 1;
    }
    start.elapsed() / n
}

fn unzip_all(bytes: &[u8]) {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("fixture zip");
    for i in 0..archive.len() {
        let mut out = Vec::new();
        archive
            .by_index(i)
            .expect("entry")
            .read_to_end(&mut out)
            .expect("inflate");
        black_box(out);
    }
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/convert");
    let min = Duration::from_millis(
        std::env::var("KERAI_BENCH_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1500),
    );
    let limits = Limits::default();
    println!(
        "{:<8} {:>9} {:>10} {:>10} {:>12} {:>10} {:>8}",
        "format", "bytes", "convert", "MB/s", "pages/s", "baseline", "ratio"
    );
    let mut markdown_all = String::new();
    for (file, format) in [
        ("report.pdf", "pdf"),
        ("handbook.docx", "docx"),
        ("budget.xlsx", "xlsx"),
        ("stories.epub", "epub"),
        ("notes-utf8.txt", "txt"),
        ("notes-latin1.txt", "txt-1252"),
        ("guide.md", "md"),
    ] {
        let bytes = std::fs::read(dir.join(file)).expect("fixture");
        let converted = convert(&bytes, file, None, &limits).expect("fixture converts");
        markdown_all.push_str(&converted.markdown);
        let t = time(min, || {
            black_box(convert(black_box(&bytes), file, None, &limits).expect("converts"));
        });
        let base = match format {
            "pdf" => time(min, || {
                black_box(lopdf::Document::load_mem(black_box(&bytes)).expect("loads"));
            }),
            "docx" | "xlsx" | "epub" => time(min, || unzip_all(black_box(&bytes))),
            _ => time(min, || {
                black_box(String::from_utf8_lossy(black_box(&bytes)).into_owned());
            }),
        };
        let mbs = bytes.len() as f64 / t.as_secs_f64() / 1e6;
        let pages = converted.metadata.page_count.unwrap_or(1) as f64 / t.as_secs_f64();
        println!(
            "{:<8} {:>9} {:>8.1}µs {:>10.1} {:>12.0} {:>8.1}µs {:>7.1}x",
            format,
            bytes.len(),
            t.as_secs_f64() * 1e6,
            mbs,
            pages,
            base.as_secs_f64() * 1e6,
            t.as_secs_f64() / base.as_secs_f64()
        );
    }
    println!("(pages/s: PDF pages; other formats count one page per document)");
    let text = markdown_all.repeat(20);
    let t = time(min, || {
        black_box(count_tokens(black_box(&text)));
    });
    let copy = time(min, || {
        black_box(black_box(&text).to_string());
    });
    println!(
        "tokens   {:>9} {:>8.1}µs {:>10.1} {:>12} {:>8.1}µs {:>7.0}x  ({} cl100k tokens, baseline: copying the text)",
        text.len(),
        t.as_secs_f64() * 1e6,
        text.len() as f64 / t.as_secs_f64() / 1e6,
        "-",
        copy.as_secs_f64() * 1e6,
        t.as_secs_f64() / copy.as_secs_f64(),
        count_tokens(&text)
    );
}
