//! Speed of the crawl primitives, each against a baseline measured in the same run on the
//! same input (the machine is shared and noisy, so read the ratios, not the absolute times):
//!
//! - robots.txt matching vs. a naive longest-prefix match over the same literal rules;
//! - sitemap parsing vs. a bare quick-xml event loop over the same XML (after gunzip for the
//!   gzipped USP news sitemap; a generated 50 000-URL urlset);
//! - HTML decoding (`decode_html`) vs. `String::from_utf8` on the 181 bench/aeb pages;
//! - URL normalisation vs. `url::Url::parse` alone.
//!
//!     cargo bench -p kerai-core --bench site

use std::hint::black_box;
use std::io::Read;
use std::time::{Duration, Instant};

use kerai_core::convert::charset::decode_html;
use kerai_core::convert::sniff;
use kerai_core::shared_data::shared_path;
use kerai_core::site::robots::Robots;
use kerai_core::site::sitemap::{parse, Limits, ResponseMeta};
use kerai_core::site::url_norm::{normalize, NormalizeOptions};

/// Runs `f` repeatedly for at least `min` and returns the mean time of one call.
fn time(min: Duration, mut f: impl FnMut()) -> Duration {
    f();
    let start = Instant::now();
    let mut n = 0u32;
    while start.elapsed() < min || n < 3 {
        f();
        n += 1;
    }
    start.elapsed() / n
}

fn row(name: &str, work: &str, t: Duration, base_name: &str, base: Duration) {
    println!(
        "{name:<26} {work:>22} {:>10.3} ms   baseline {base_name:<18} {:>9.3} ms   ratio {:>6.1}x",
        t.as_secs_f64() * 1e3,
        base.as_secs_f64() * 1e3,
        t.as_secs_f64() / base.as_secs_f64()
    );
}

fn robots_bench(min: Duration) {
    let mut body = String::from("User-agent: *\n");
    let mut rules = Vec::new();
    for i in 0..200 {
        let (disallow, allow) = (
            format!("/section{i}/private/"),
            format!("/section{i}/private/public-{i}.html"),
        );
        body.push_str(&format!("Disallow: {disallow}\nAllow: {allow}\n"));
        rules.push((disallow, false));
        rules.push((allow, true));
    }
    body.push_str(
        "Disallow: /*.pdf$\nDisallow: /search*?q=\nCrawl-delay: 2\nSitemap: https://e.org/s.xml\n",
    );
    let urls: Vec<String> = (0..10_000)
        .map(|i| {
            format!(
                "https://e.org/section{}/private/page-{i}.html?x={i}",
                i % 300
            )
        })
        .collect();
    let t_parse = time(min, || {
        black_box(Robots::parse(black_box(body.as_bytes())));
    });
    let robots = Robots::parse(body.as_bytes());
    let t_match = time(min, || {
        for u in &urls {
            black_box(robots.is_allowed("kerai", u));
        }
    });
    // A naive longest match: every literal rule tried as a prefix, the longest one wins.
    let t_naive = time(min, || {
        for u in &urls {
            let path = &u["https://e.org".len()..];
            let best = rules
                .iter()
                .filter(|(r, _)| path.starts_with(r.as_str()))
                .max_by_key(|(r, allow)| (r.len(), *allow));
            black_box(best.is_none_or(|(_, allow)| *allow));
        }
    });
    println!(
        "robots.txt: {} rules, {} bytes; parse {:.1} µs",
        403,
        body.len(),
        t_parse.as_secs_f64() * 1e6
    );
    row(
        "robots is_allowed",
        "10 000 URLs",
        t_match,
        "naive longest prefix",
        t_naive,
    );
}

/// A bare quick-xml pass: every event read, nothing kept.
fn count_events(xml: &str) -> usize {
    let mut r = quick_xml::Reader::from_str(xml);
    let mut n = 0usize;
    loop {
        match r.read_event() {
            Ok(quick_xml::events::Event::Eof) | Err(_) => return n,
            Ok(_) => n += 1,
        }
    }
}

fn sitemap_bench(min: Duration) {
    let gz = std::fs::read(shared_path(
        "suites/sitemaps/usp/test_sitemap_tree_for_homepage_huge_sitemap/files/sitemap.xml.gz",
    ))
    .unwrap();
    let limits = Limits::default();
    let meta = ResponseMeta::default();
    let t = time(min, || {
        black_box(parse(
            "https://e.org/sitemap.xml.gz",
            &meta,
            black_box(&gz),
            &limits,
        ));
    });
    // The unavoidable part: inflating the body and reading its XML events.
    let t_gunzip = time(min, || {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(black_box(&gz[..]))
            .read_to_end(&mut out)
            .unwrap();
        black_box(count_events(std::str::from_utf8(&out).unwrap()));
    });
    row(
        "sitemap parse (gzip)",
        "1 000 news URLs, 1 MB",
        t,
        "gunzip + events",
        t_gunzip,
    );

    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    for i in 0..50_000 {
        xml.push_str(&format!(
            "<url><loc>https://example.org/articles/{i}/a-fairly-typical-slug-{i}</loc><lastmod>2024-05-{:02}T10:00:00+00:00</lastmod><changefreq>weekly</changefreq><priority>0.{}</priority></url>\n",
            i % 28 + 1,
            i % 10
        ));
    }
    xml.push_str("</urlset>\n");
    let t = time(min, || {
        let d = parse(
            "https://e.org/sitemap.xml",
            &meta,
            black_box(xml.as_bytes()),
            &limits,
        );
        assert_eq!(d.kind.pages().len(), 50_000);
        black_box(d);
    });
    let t_events = time(min, || {
        black_box(count_events(black_box(&xml)));
    });
    row(
        "sitemap parse (plain)",
        &format!("50 000 URLs, {:.1} MB", xml.len() as f64 / 1e6),
        t,
        "quick-xml events",
        t_events,
    );
    println!(
        "  = {:.0} URLs/s, {:.1} MB/s",
        50_000.0 / t.as_secs_f64(),
        xml.len() as f64 / 1e6 / t.as_secs_f64()
    );
}

fn charset_bench(min: Duration) {
    let dir = shared_path("bench/aeb/html");
    let mut pages = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let mut b = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(e.unwrap().path()).unwrap())
            .read_to_end(&mut b)
            .unwrap();
        pages.push(b);
    }
    let total: usize = pages.iter().map(Vec::len).sum();
    let t = time(min, || {
        for p in &pages {
            black_box(decode_html(black_box(p), Some("text/html")));
        }
    });
    let t_utf8 = time(min, || {
        for p in &pages {
            black_box(String::from_utf8(black_box(p.clone())).ok());
        }
    });
    row(
        "decode_html",
        &format!("181 pages, {:.1} MB", total as f64 / 1e6),
        t,
        "String::from_utf8",
        t_utf8,
    );
    let t_sniff = time(min, || {
        for p in &pages {
            black_box(sniff(black_box(p), "https://e.org/a", Some("text/html")));
        }
    });
    println!("sniff: 181 pages in {:.3} ms", t_sniff.as_secs_f64() * 1e3);
}

fn url_bench(min: Duration) {
    let urls: Vec<String> = (0..10_000)
        .map(|i| format!("HTTPS://WWW.Example.org:443/a/./b/../Docs/%7e{i}/page.html?utm_source=x&b={i}&a=1#frag"))
        .collect();
    let opts = NormalizeOptions::default();
    let t = time(min, || {
        for u in &urls {
            black_box(normalize(u, &opts).unwrap());
        }
    });
    let t_parse = time(min, || {
        for u in &urls {
            black_box(url::Url::parse(u).unwrap());
        }
    });
    row("url normalize", "10 000 URLs", t, "Url::parse", t_parse);
}

/// A named benchmark.
type Bench = (&'static str, fn(Duration));

fn main() {
    let min = Duration::from_millis(
        std::env::var("KERAI_BENCH_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000),
    );
    // `cargo bench -p kerai-core --bench site -- sitemap` runs only the benches named so.
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let benches: [Bench; 4] = [
        ("robots", robots_bench),
        ("sitemap", sitemap_bench),
        ("charset", charset_bench),
        ("url", url_bench),
    ];
    for (name, bench) in benches {
        if wanted.is_empty() || wanted.iter().any(|w| name.contains(w.as_str())) {
            bench(min);
        }
    }
}
