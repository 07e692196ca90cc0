//! The `spider` crate fetching the crawl benchmark's site from its sitemap, fetch only (no
//! extraction, nothing stored). Prints one JSON line: pages and seconds. (Following the pages'
//! links as well fetched every page a second time: the sitemap lists them all.)
//!
//!     kerai-bench-spider BASE_URL CONCURRENCY

use spider::tokio;
use spider::website::Website;
use std::time::Instant;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let base = args
        .next()
        .expect("usage: kerai-bench-spider BASE_URL CONCURRENCY");
    let concurrency: usize = args.next().and_then(|c| c.parse().ok()).unwrap_or(32);
    let mut website = Website::new(&base);
    website
        .with_concurrency_limit(Some(concurrency))
        .with_respect_robots_txt(true)
        .with_sitemap(Some("/sitemap.xml"));
    let started = Instant::now();
    website.crawl_sitemap().await;
    let pages = website.get_links().len();
    println!(
        "{{\"pages\": {pages}, \"seconds\": {:.3}}}",
        started.elapsed().as_secs_f64()
    );
}
