//! `make bench` (crawl): a generated 10,000-page site served by a fast local server,
//! crawled end to end into Postgres with politeness off; then re-crawled unchanged.
//! Prints pages per second, peak memory of the fetcher, and the re-crawl's share of requests
//! that downloaded no body and its time as a fraction of the first crawl's.
//!
//!     KERAI_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:PORT/postgres \
//!       cargo run --release -p kerai-e2e --bin crawl_bench -- [PAGES]

use kerai_e2e::{run, Site, TestDb};
use std::time::{Duration, Instant};

fn page(i: usize, n: usize) -> String {
    let links: String = (1..=5)
        .map(|k| {
            format!(
                "<li><a href=\"/p/{}\">related page {}</a></li>",
                (i * 7 + k * 131) % n,
                k
            )
        })
        .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Page {i}</title></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/p/0\">Start</a></nav>\
         <main><h1>Generated page {i}</h1>\
         <p>This is page number {i} of the generated benchmark site. It has a paragraph of ordinary prose so that \
         the extractor has real work to do, with a sentence or two about the weather, the library and the canteen.</p>\
         <h2>Details</h2><p>Item {i} was last reviewed by the documentation team; see the related pages below for more.</p>\
         <ul>{links}</ul></main><footer>Generated site footer</footer></body></html>"
    )
}

/// Run `kerai` and sample its resident memory until it exits: (wall time, peak RSS in KiB, output).
fn measured(url: &str, args: &[&str]) -> (Duration, u64, run::Output) {
    let started = Instant::now();
    let child = run::spawn(url, args, &[]);
    let pid = child.id();
    let mut peak = 0u64;
    let sampler = std::thread::spawn(move || loop {
        match std::fs::read_to_string(format!("/proc/{pid}/status")) {
            Ok(s) => {
                if let Some(v) = s.lines().find(|l| l.starts_with("VmHWM:")) {
                    let kb: u64 = v
                        .split_whitespace()
                        .nth(1)
                        .and_then(|x| x.parse().ok())
                        .unwrap_or(0);
                    peak = peak.max(kb);
                }
            }
            Err(_) => return peak,
        }
        std::thread::sleep(Duration::from_millis(50));
    });
    let out = run::wait(child);
    let elapsed = started.elapsed();
    (elapsed, sampler.join().unwrap_or(0), out)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let site = Site::start_with_threads(8);
    let mut sitemap = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">");
    for i in 0..n {
        site.html(&format!("/p/{i}"), &page(i, n));
        sitemap.push_str(&format!("<url><loc>{}/p/{i}</loc></url>", site.base));
    }
    sitemap.push_str("</urlset>");
    site.page("/sitemap.xml", "application/xml", sitemap.into_bytes());
    site.html("/", &page(0, n));
    let db = TestDb::new("crawlbench");
    let set = run::kerai(
        &db.url,
        &[
            "config",
            "set",
            "bench",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=0",
            "concurrency=32",
            "per_host_concurrency=32",
            &format!("max_pages={}", n + 10),
            "respect_robots=true",
            "trust_sitemap_lastmod=false",
        ],
    );
    assert_eq!(set.code, 0, "{}", set.stderr);

    let (first, peak1, out1) = measured(
        &db.url,
        &[
            "run",
            "bench",
            "--no-progress",
            "--no-embed",
            "--format",
            "json",
        ],
    );
    assert_eq!(out1.code, 0, "{}\n{}", out1.stdout, out1.stderr);
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    println!(
        "first crawl: {pages} pages in {:.2} s = {:.0} pages/s; fetcher peak RSS {:.0} MiB",
        first.as_secs_f64(),
        pages as f64 / first.as_secs_f64(),
        peak1 as f64 / 1024.0
    );

    site.clear_hits();
    let (second, peak2, out2) = measured(
        &db.url,
        &[
            "run",
            "bench",
            "--no-progress",
            "--no-embed",
            "--format",
            "json",
        ],
    );
    assert_eq!(out2.code, 0, "{}\n{}", out2.stdout, out2.stderr);
    let report = out2.json();
    let unchanged = report["metrics"]["unchanged_count"].as_i64().unwrap_or(0);
    let hits = site.hits();
    let page_gets: Vec<&String> = hits.iter().filter(|h| h.starts_with("GET /p/")).collect();
    let bodiless = page_gets
        .iter()
        .filter(|h| h.ends_with("(conditional)"))
        .count();
    println!(
        "re-crawl: {unchanged} of {pages} unchanged ({:.1} %), {bodiless} of {} page requests conditional (304, no body), \
         {:.2} s = {:.1} % of the first crawl's time; peak RSS {:.0} MiB",
        100.0 * unchanged as f64 / pages as f64,
        page_gets.len(),
        second.as_secs_f64(),
        100.0 * second.as_secs_f64() / first.as_secs_f64(),
        peak2 as f64 / 1024.0
    );
}
