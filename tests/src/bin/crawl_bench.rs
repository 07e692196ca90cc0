//! `make bench` (crawl): a generated 10,000-page site, written as files under
//! `.kerai/bench-site/` and served by nginx (a Debian package) on a free loopback port,
//! crawled end to end into Postgres with politeness off; then re-crawled unchanged.
//! Prints pages per second, peak memory of the fetcher, and the re-crawl's share of requests
//! answered `304 Not Modified` and its time as a fraction of the first crawl's.
//!
//!     KERAI_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:PORT/postgres \
//!       cargo run --release -p kerai-e2e --bin crawl_bench -- [PAGES]

use kerai_e2e::bench_site::{write_site, Nginx};
use kerai_e2e::{run, TestDb};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A crawler's run: wall time, peak RSS in KiB, output, and the page requests nginx had logged
/// every half second (seconds since the start, requests).
struct Measured {
    took: Duration,
    peak_kib: u64,
    out: run::Output,
    series: Vec<(f64, usize)>,
}

/// Run `kerai` and sample it until it exits.
fn measured(url: &str, args: &[&str], log: &Path) -> Measured {
    let started = Instant::now();
    sampled(started, run::spawn(url, args, &[]), log)
}

/// A peer crawler's command line (`KERAI_BENCH_SCRAPY`, `KERAI_BENCH_SPIDER`), with the site's
/// base URL and the concurrency appended, measured as `measured` does.
fn measured_peer(command: &str, extra: &[&str], log: &Path) -> Measured {
    let mut words = command.split_whitespace();
    let program = words.next().expect("a peer command");
    let started = Instant::now();
    let child = Command::new(program)
        .args(words)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    sampled(started, child, log)
}

/// The page requests in nginx's access log.
fn page_requests(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("GET /p/"))
        .count()
}

fn sampled(started: Instant, child: Child, log: &Path) -> Measured {
    let pid = child.id();
    let sampled_log = log.to_path_buf();
    let sampler = std::thread::spawn(move || {
        let (mut peak, mut series, mut tick) = (0u64, Vec::new(), 0u32);
        loop {
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
                Err(_) => return (peak, series),
            }
            if tick % 10 == 0 {
                series.push((started.elapsed().as_secs_f64(), page_requests(&sampled_log)));
            }
            tick += 1;
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let out = run::wait(child);
    let took = started.elapsed();
    let (peak_kib, mut series) = sampler.join().unwrap_or_default();
    series.push((took.as_secs_f64(), page_requests(log)));
    Measured {
        took,
        peak_kib,
        out,
        series,
    }
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let dir = std::env::current_dir().unwrap().join(".kerai/bench-site");
    std::fs::create_dir_all(&dir).unwrap();
    let site = Nginx::start(&dir);
    write_site(&dir, n, &site.base);
    let db = TestDb::new("crawlbench");
    let set = run::kerai(
        &db.url,
        &[
            "config",
            "set",
            "bench",
            "--base-url",
            &format!("{}/", site.base),
            "rate_limit_rps=0",
            "concurrency=32",
            "per_host_concurrency=32",
            &format!("max_pages={}", n + 10),
            "respect_robots=true",
            "trust_sitemap_lastmod=false",
            &format!("trap_limit={}", n + 10),
        ],
    );
    assert_eq!(set.code, 0, "{}", set.stderr);

    let run_args = [
        "run",
        "bench",
        "--no-progress",
        "--no-embed",
        "--format",
        "json",
    ];
    site.clear();
    let m1 = measured(&db.url, &run_args, &site.log);
    let (first, peak1, out1) = (m1.took, m1.peak_kib, &m1.out);
    if out1.code != 0 {
        let failures: String = db.one(
            "SELECT format('%s, the first: ', count(*)) || coalesce(string_agg(e, E'\\n' ORDER BY t) FILTER (WHERE r <= 3), '') \
             FROM (SELECT coalesce(error, status) AS e, finished_at AS t, row_number() OVER (ORDER BY finished_at) AS r \
             FROM kerai.job_urls WHERE status <> 'done') x",
        );
        let events: String = db.one(
            "SELECT coalesce(string_agg(format('%s × %s, the first: %s', n, event, m), E'\\n'), '') FROM ( \
             SELECT event, count(*) AS n, (array_agg(message ORDER BY id))[1] AS m FROM kerai.job_logs \
             WHERE level IN ('WARN', 'ERROR') GROUP BY event) x",
        );
        panic!(
            "the first crawl ended with exit {}; URLs not done: {failures}\nwarnings and errors logged:\n{events}",
            out1.code
        );
    }
    let pages: i64 = db.one("SELECT count(*) FROM kerai.pages");
    println!(
        "first crawl: {pages} pages in {:.2} s = {:.0} pages/s; fetcher peak RSS {:.0} MiB",
        first.as_secs_f64(),
        pages as f64 / first.as_secs_f64(),
        peak1 as f64 / 1024.0
    );

    site.clear();
    let m2 = measured(&db.url, &run_args, &site.log);
    let (second, peak2, out2) = (m2.took, m2.peak_kib, &m2.out);
    assert_eq!(out2.code, 0, "{}\n{}", out2.stdout, out2.stderr);
    let report = out2.json();
    let unchanged = report["metrics"]["unchanged_count"].as_i64().unwrap_or(0);
    let requests = site.requests();
    let page_gets: Vec<&String> = requests
        .iter()
        .filter(|h| h.starts_with("GET /p/"))
        .collect();
    let bodiless = page_gets.iter().filter(|h| h.ends_with(" 304")).count();
    println!(
        "re-crawl: {unchanged} of {pages} unchanged ({:.1} %), {bodiless} of {} page requests answered 304 (no body), \
         {:.2} s = {:.1} % of the first crawl's time; peak RSS {:.0} MiB",
        100.0 * unchanged as f64 / pages as f64,
        page_gets.len(),
        second.as_secs_f64(),
        100.0 * second.as_secs_f64() / first.as_secs_f64(),
        peak2 as f64 / 1024.0
    );

    let kerai_rate = pages as f64 / first.as_secs_f64();
    let mut figures = vec![serde_json::json!({
        "crawler": "kerai", "what": "fetch, convert, store versions, graph, chunks, facts, duplicates",
        "pages": pages, "seconds": first.as_secs_f64(), "pages_per_second": kerai_rate,
        "peak_rss_mib": peak1 as f64 / 1024.0,
        "recrawl_seconds": second.as_secs_f64(), "recrawl_share": second.as_secs_f64() / first.as_secs_f64(),
        "recrawl_304": bodiless, "recrawl_page_requests": page_gets.len(),
        "page_requests_over_time": m1.series,
    })];
    // The peers on the same site and server, the same number of requests in flight.
    let scratch = dir.join("peer-items.jsonl");
    let scratch = scratch.to_string_lossy();
    for (name, var, what, extra) in [
        (
            "Scrapy",
            "KERAI_BENCH_SCRAPY",
            "SitemapSpider: title and main text to JSON lines",
            vec![&site.base[..], "32", &scratch[..]],
        ),
        (
            "spider",
            "KERAI_BENCH_SPIDER",
            "fetch only",
            vec![&site.base[..], "32"],
        ),
    ] {
        let Ok(command) = std::env::var(var) else {
            continue;
        };
        site.clear();
        let m = measured_peer(&command, &extra, &site.log);
        let (took, peak, out) = (m.took, m.peak_kib, &m.out);
        assert_eq!(
            out.code, 0,
            "{name} failed:\n{}\n{}",
            out.stdout, out.stderr
        );
        let line: serde_json::Value = out
            .stdout
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .unwrap_or_else(|| {
                panic!("{name} printed no figures:\n{}\n{}", out.stdout, out.stderr)
            });
        let got = line["pages"].as_f64().unwrap_or(0.0);
        let rate = got / took.as_secs_f64();
        println!(
            "{name} ({what}): {got:.0} pages in {:.2} s = {rate:.0} pages/s; peak RSS {:.0} MiB; kerai's rate is {:.2}× {name}'s",
            took.as_secs_f64(),
            peak as f64 / 1024.0,
            kerai_rate / rate
        );
        figures.push(serde_json::json!({
            "crawler": name, "what": what, "pages": got, "seconds": took.as_secs_f64(),
            "pages_per_second": rate, "peak_rss_mib": peak as f64 / 1024.0,
            "page_requests_over_time": m.series,
        }));
    }
    let out = std::env::current_dir()
        .unwrap()
        .join(".kerai/bench/crawl.json");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(
        &out,
        serde_json::to_string_pretty(
            &serde_json::json!({"pages": n, "concurrency": 32, "runs": figures}),
        )
        .unwrap(),
    )
    .unwrap();
    println!("figures: {}", out.display());
}
