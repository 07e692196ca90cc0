//! Runs `html::to_text` on the AEB pages and scores it with the ported metric.
//!
//! `cargo run --release -p kerai-core --example aeb -- [--out DIR] [--worst N] [--page ID] [--parser own|html5ever]`
//! With `--out`, writes `<id>.txt` files that `python3 bench/aeb/score.py DIR` scores.
//! `--set readability` runs the Readability test pages instead (same format and metric).

use std::io::Read;
use std::time::Instant;

use kerai_core::convert::html;
use kerai_core::convert::html::score::{aggregate, page_counts};
use kerai_core::shared_data::shared_path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let out = opt("--out");
    let worst: usize = opt("--worst").and_then(|s| s.parse().ok()).unwrap_or(0);
    let page = opt("--page");
    let set = opt("--set").unwrap_or_else(|| "aeb".into());
    match opt("--parser").as_deref() {
        Some("own") => html::dom::set_engine(html::dom::Engine::Own),
        Some("html5ever") => html::dom::set_engine(html::dom::Engine::Html5ever),
        _ => {}
    }
    let gt: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(shared_path(&format!("bench/{set}/ground-truth.json"))).unwrap(),
    )
    .unwrap();
    let gt = gt.as_object().unwrap();
    let mut ids: Vec<&String> = gt.keys().collect();
    ids.sort();
    let mut rows = Vec::new();
    let mut per = Vec::new();
    let mut total = 0.0;
    for id in ids {
        if page.as_ref().is_some_and(|p| !id.starts_with(p.as_str())) {
            continue;
        }
        let mut gz = flate2::read::GzDecoder::new(
            std::fs::File::open(shared_path(&format!("bench/{set}/html/{id}.html.gz"))).unwrap(),
        );
        let mut s = String::new();
        gz.read_to_string(&mut s).unwrap();
        let url = gt[id]["url"].as_str().unwrap_or("");
        let t = Instant::now();
        let pred = html::to_text(&s, url);
        total += t.elapsed().as_secs_f64();
        if page.is_some() {
            println!("{pred}");
        }
        if let Some(dir) = &out {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(format!("{dir}/{id}.txt"), &pred).unwrap();
        }
        let truth = gt[id]["articleBody"].as_str().unwrap_or("");
        let c = page_counts(truth, &pred);
        let p = if c.0 + c.1 > 0.0 {
            c.0 / (c.0 + c.1)
        } else {
            f64::NAN
        };
        let r = if c.0 + c.2 > 0.0 {
            c.0 / (c.0 + c.2)
        } else {
            f64::NAN
        };
        per.push((id.clone(), p, r, url.to_string()));
        rows.push(c);
    }
    let s = aggregate(&rows);
    per.sort_by(|a, b| {
        // An empty prediction has no precision: it ranks first (F1 0), never NaN.
        let f = |p: f64, r: f64| {
            let f = 2.0 * p * r / (p + r);
            if f.is_nan() {
                0.0
            } else {
                f
            }
        };
        f(a.1, a.2).total_cmp(&f(b.1, b.2))
    });
    for (id, p, r, url) in per.iter().take(worst) {
        println!("{}  P={p:.3} R={r:.3}  {url}", id.get(..12).unwrap_or(id));
    }
    println!(
        "pages {}  F1 {:.4}  P {:.4}  R {:.4}  acc {:.4}  time {:.3}s",
        rows.len(),
        s.f1,
        s.precision,
        s.recall,
        s.accuracy,
        total
    );
}
