//! rs-trafilatura over a manifest of pages, for `make bench` (scripts/bench/peers.py): reads
//! `[{"id", "path", "url"}]` (gzip-compressed HTML files) from the first argument, writes
//! `{"<id>": "<plain text>"}` to the second, and prints the extraction time in seconds on one
//! core (reading and decompressing the files left out).

use std::io::Read;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(manifest), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: kerai-bench-peers MANIFEST.json OUT.json");
        std::process::exit(2);
    };
    let pages: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(manifest).expect("read the manifest"))
            .expect("the manifest is a JSON list");
    let mut results = serde_json::Map::new();
    let mut elapsed = 0.0;
    for p in &pages {
        let id = p["id"].as_str().unwrap_or_default();
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(
            std::fs::File::open(p["path"].as_str().unwrap_or_default()).expect("open a page"),
        )
        .read_to_end(&mut bytes)
        .expect("decompress a page");
        let options = rs_trafilatura::Options {
            url: p["url"].as_str().filter(|u| !u.is_empty()).map(str::to_string),
            ..rs_trafilatura::Options::default()
        };
        let t = Instant::now();
        let text = rs_trafilatura::extract_bytes_with_options(&bytes, &options)
            .map(|r| r.content_text)
            .unwrap_or_default();
        elapsed += t.elapsed().as_secs_f64();
        results.insert(id.to_string(), serde_json::Value::String(text));
    }
    std::fs::write(out, serde_json::Value::Object(results).to_string()).expect("write results");
    println!("{elapsed:.3}");
}
