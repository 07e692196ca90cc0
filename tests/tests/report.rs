//! `kerai report --html FILE`: the corpus as a static page, drawn by headless Chromium (a real
//! browser, from the file, without network) into a screenshot that must not be blank.

use kerai_e2e::{kerai, Site, TestDb};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

fn out_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("kerai-report-{}-{name}", std::process::id()))
}

/// Chromium's screenshot of a local file, as (width, height, RGBA pixels).
fn screenshot(page: &Path) -> (usize, usize, Vec<u8>) {
    let png = page.with_extension("png");
    let _ = std::fs::remove_file(&png);
    let chromium = std::env::var("KERAI_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let profile = page.with_extension("profile");
    let status = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1280,1600",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {chromium}: {e} (make setup installs chromium)"));
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        png.exists(),
        "chromium wrote no screenshot: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let decoded = decode_png(&std::fs::read(&png).unwrap());
    let _ = std::fs::remove_file(&png);
    decoded
}

/// Just enough PNG for Chromium's screenshots: 8-bit RGB or RGBA, not interlaced.
fn decode_png(data: &[u8]) -> (usize, usize, Vec<u8>) {
    assert_eq!(&data[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (mut pos, mut idat) = (8, Vec::new());
    let (mut w, mut h, mut channels) = (0usize, 0usize, 0usize);
    while pos + 8 <= data.len() {
        let len = u32::from_be_bytes(data[pos..pos + 4].try_into().unwrap()) as usize;
        let kind = &data[pos + 4..pos + 8];
        let body = &data[pos + 8..pos + 8 + len];
        match kind {
            b"IHDR" => {
                w = u32::from_be_bytes(body[0..4].try_into().unwrap()) as usize;
                h = u32::from_be_bytes(body[4..8].try_into().unwrap()) as usize;
                assert_eq!(body[8], 8, "bit depth");
                channels = match body[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("colour type {t}"),
                };
                assert_eq!(body[12], 0, "interlaced");
            }
            b"IDAT" => idat.extend_from_slice(body),
            b"IEND" => break,
            _ => {}
        }
        pos += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .unwrap();
    let stride = w * channels;
    let mut out = vec![0u8; w * h * 4];
    let mut prev = vec![0u8; stride];
    for y in 0..h {
        let line = &raw[y * (stride + 1)..(y + 1) * (stride + 1)];
        let mut cur = line[1..].to_vec();
        for i in 0..stride {
            let a = if i >= channels { cur[i - channels] } else { 0 } as i32;
            let b = prev[i] as i32;
            let c = if i >= channels { prev[i - channels] } else { 0 } as i32;
            let add = match line[0] {
                0 => 0,
                1 => a,
                2 => b,
                3 => (a + b) / 2,
                4 => {
                    let p = a + b - c;
                    let (pa, pb, pc) = ((p - a).abs(), (p - b).abs(), (p - c).abs());
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("filter {f}"),
            };
            cur[i] = (cur[i] as i32 + add) as u8;
        }
        for x in 0..w {
            let px = &cur[x * channels..x * channels + channels];
            out[(y * w + x) * 4..(y * w + x) * 4 + 3].copy_from_slice(&px[..3]);
            out[(y * w + x) * 4 + 3] = if channels == 4 { px[3] } else { 255 };
        }
        prev = cur;
    }
    (w, h, out)
}

/// How much of the picture is not background, and how many colours it has.
fn ink(pixels: &[u8]) -> (f64, usize) {
    let mut counts = std::collections::HashMap::new();
    for p in pixels.chunks(4) {
        *counts
            .entry([p[0] >> 3, p[1] >> 3, p[2] >> 3])
            .or_insert(0usize) += 1;
    }
    let background = counts.values().max().copied().unwrap_or(0);
    let total = pixels.len() / 4;
    (
        (total - background) as f64 / total as f64,
        counts.values().filter(|n| **n > 20).count(),
    )
}

#[test]
fn an_empty_corpus_renders_nothing_crawled_yet() {
    let db = TestDb::new("report_empty");
    let page = out_path("empty.html");
    let out = kerai(&db.url, &["report", "--html", page.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Nothing crawled yet."), "{html}");
    let (w, h, pixels) = screenshot(&page);
    assert!(w >= 1000 && h >= 1000, "{w}x{h}");
    let (share, colours) = ink(&pixels);
    assert!(
        share > 0.02 && colours >= 3,
        "a blank page: {share} of the pixels drawn, {colours} colours"
    );
    let _ = std::fs::remove_file(&page);
}

#[test]
fn a_crawled_corpus_renders_growth_types_jobs_graph_and_frontier() {
    let site = Site::start();
    site.html("/", "<html lang=\"en\"><head><title>Lab home</title></head><body><main><h1>Lab home</h1><p>The imaging lab studies how the brain predicts its inputs, with scanners booked weekly.</p><a href=\"/methods\">Methods</a></main></body></html>");
    site.html("/methods", "<html lang=\"en\"><head><title>Methods</title></head><body><main><h1>Methods</h1><p>Our methods follow the free-energy principle and predictive coding in every study we run.</p></main></body></html>");
    let db = TestDb::new("report_corpus");
    let set = kerai(
        &db.url,
        &[
            "config",
            "set",
            "lab",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "use_sitemaps=false",
        ],
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    let run = kerai(&db.url, &["run", "lab", "--no-embed"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // A seed that cites a document already in the corpus (the cycle links it: URL references
    // only, so the DOI stays in the frontier) and a work that is not.
    db.client()
        .batch_execute(
            "SELECT kerai.parse_markdown(E'# Cited study\\n\\nA study of predictive coding in the visual cortex.\\n',
                                         '{\"source_url\": \"https://papers.example.org/cited\"}');
             SELECT kerai.parse_markdown(E'# Review\\n\\nSee https://papers.example.org/cited and doi:10.1000/xyz123 for more.\\n',
                                         '{\"source_url\": \"https://example.org/review\"}');
             SELECT kerai.register_agent('kerai_crawl', 'crawler', NULL,
                    '{\"claims_per_cycle\": 10, \"rate_limit_seconds\": 0, \"ref_types\": [\"url\"]}');
             SELECT kerai.crawl_cycle();",
        )
        .unwrap();
    let page = out_path("corpus.html");
    let out = kerai(&db.url, &["report", "--html", page.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("4 documents"), "{}", out.stderr);
    let html = std::fs::read_to_string(&page).unwrap();
    for want in [
        "Corpus growth",
        "Documents by type and language",
        "Crawl jobs",
        "Citation graph around the seeds",
        "resolved citations",
        "<svg class=\"graph\"",
        "Review (depth 0)",
        "Cited study (depth 0)",
        "The frontier",
        "10.1000/xyz123",
    ] {
        assert!(html.contains(want), "{want} missing from the report");
    }
    assert!(
        !html.contains("<script") && !html.contains("http-equiv"),
        "a static page"
    );
    let (_, _, pixels) = screenshot(&page);
    let (share, colours) = ink(&pixels);
    assert!(
        share > 0.05 && colours >= 6,
        "a blank page: {share} of the pixels drawn, {colours} colours"
    );
    let _ = std::fs::remove_file(&page);
}

#[test]
fn an_unwritable_file_is_a_clear_error() {
    let db = TestDb::new("report_bad");
    let out = kerai(&db.url, &["report", "--html", "/nonexistent-dir/r.html"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("cannot write /nonexistent-dir/r.html") && out.stderr.contains("hint:"),
        "{}",
        out.stderr
    );
}
