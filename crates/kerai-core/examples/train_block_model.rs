//! Trains the block model of main-content extraction on the tuned-on pages of WCXB dev (ids
//! not divisible by 5; the held-out fifth is never read) and prints its weights.
//!
//! `cargo run --release -p kerai-core --example train_block_model -- [--out FILE] [--cv]`
//!
//! The examples are the blocks the rules left out on pages not shaped like an article (the
//! only blocks the model decides). A block is labelled content when its words appear, in order, in the page's ground truth
//! (or, for a long block, when most of its words are there). Each page weighs the same, as in
//! the benchmark's metric, and inside a page a block weighs by its words.

#[path = "support/wcxb_pages.rs"]
mod wcxb_pages;

use std::collections::HashMap;

use kerai_core::convert::html::block_model::{ARTICLE_PARAGRAPHS, FEATURES};
use kerai_core::convert::html::extract::block_features;
use wcxb_pages::words;

struct Page {
    x: Vec<[f32; FEATURES]>,
    y: Vec<f32>,
    w: Vec<f32>,
}

fn load() -> Vec<Page> {
    let mut pages = Vec::new();
    for id in &wcxb_pages::ids(true) {
        let gt = wcxb_pages::Page::load(id);
        let (truth, url, html) = (gt.truth.as_str(), gt.url.as_str(), gt.html());
        let gold_words = words(truth);
        let gold_line = format!(" {} ", gold_words.join(" "));
        let mut gold_bag: HashMap<&str, usize> = HashMap::new();
        for w in &gold_words {
            *gold_bag.entry(w.as_str()).or_default() += 1;
        }
        let (blocks, open) = block_features(&html, url);
        let total: usize = blocks.iter().map(|(_, t, _)| words(t).len()).sum();
        if total == 0 {
            continue;
        }
        let mut page = Page {
            x: Vec::new(),
            y: Vec::new(),
            w: Vec::new(),
        };
        // The model only adds blocks the rules left out, on pages that do not say or look like
        // they are one article (see `block_model::add_blocks`): those are the examples.
        if !open {
            continue;
        }
        for (f, text, main) in blocks {
            let ws = words(&text);
            if ws.is_empty() || main {
                continue;
            }
            let inside = gold_line.contains(&format!(" {} ", ws.join(" ")));
            let found = ws
                .iter()
                .filter(|w| gold_bag.contains_key(w.as_str()))
                .count();
            let label = inside || (ws.len() > 30 && found * 10 >= ws.len() * 7);
            page.x.push(f);
            page.y.push(label as u8 as f32);
            page.w.push(ws.len() as f32 / total as f32);
        }
        pages.push(page);
    }
    pages
}

fn train(pages: &[&Page], epochs: usize) -> [f32; FEATURES] {
    let mut w = [0f32; FEATURES];
    let (mut m, mut v) = ([0f32; FEATURES], [0f32; FEATURES]);
    let (lr, b1, b2, l2) = (0.05f32, 0.9f32, 0.999f32, 1e-4f32);
    let n = pages.len() as f32;
    for t in 1..=epochs {
        let mut g = [0f32; FEATURES];
        for p in pages {
            for ((x, &y), &wt) in p.x.iter().zip(&p.y).zip(&p.w) {
                let z: f32 = w.iter().zip(x).map(|(a, b)| a * b).sum();
                let pr = 1.0 / (1.0 + (-z).exp());
                let d = (pr - y) * wt / n;
                for k in 0..FEATURES {
                    g[k] += d * x[k];
                }
            }
        }
        for k in 0..FEATURES {
            let gk = g[k] + l2 * w[k];
            m[k] = b1 * m[k] + (1.0 - b1) * gk;
            v[k] = b2 * v[k] + (1.0 - b2) * gk * gk;
            let mh = m[k] / (1.0 - b1.powi(t as i32));
            let vh = v[k] / (1.0 - b2.powi(t as i32));
            w[k] -= lr * mh / (vh.sqrt() + 1e-8);
        }
    }
    w
}

/// Accuracy of the model and of the rules (which left every example out) on `pages`, each
/// block weighted by its words.
fn accuracy(pages: &[&Page], w: &[f32; FEATURES]) -> (f32, f32) {
    let (mut model, mut rules, mut n) = (0f32, 0f32, 0f32);
    for p in pages {
        for ((x, &y), &wt) in p.x.iter().zip(&p.y).zip(&p.w) {
            let z: f32 = w.iter().zip(x).map(|(a, b)| a * b).sum();
            let pred = (z > 0.0) as u8 as f32;
            model += wt * (pred == y) as u8 as f32;
            rules += wt * (y == 0.0) as u8 as f32;
            n += wt;
        }
    }
    (model / n, rules / n)
}

/// Where the weights are kept.
const OUT: &str = "crates/kerai-core/src/convert/html/block_weights.rs";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1));
    let epochs = 400;
    let pages = load();
    eprintln!(
        "{} tuned-on pages open to the model (not one article by their metadata, fewer than {ARTICLE_PARAGRAPHS} long paragraphs kept)",
        pages.len()
    );
    if args.iter().any(|a| a == "--cv") {
        for fold in 0..5 {
            let train_set: Vec<&Page> = pages
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 5 != fold)
                .map(|(_, p)| p)
                .collect();
            let test: Vec<&Page> = pages
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 5 == fold)
                .map(|(_, p)| p)
                .collect();
            let w = train(&train_set, epochs);
            let (m, r) = accuracy(&test, &w);
            eprintln!("fold {fold}: block accuracy model {m:.4}, rules {r:.4}");
        }
    }
    let all: Vec<&Page> = pages.iter().collect();
    let w = train(&all, epochs);
    let (m, r) = accuracy(&all, &w);
    eprintln!("all tuned-on: block accuracy model {m:.4}, rules {r:.4}");
    let list: String = w.iter().map(|x| format!("    {x:.5},\n")).collect();
    let text = format!(
        "//! Weights of the block model (see `block_model.rs`), written by\n\
         //! `cargo run --release -p kerai-core --example train_block_model -- --out {OUT}`.\n\n\
         /// One weight per feature of `block_model::features`, the first the bias (`block_model`\n\
         /// checks the length against its `FEATURES`).\n\
         pub(crate) const WEIGHTS: [f32; {FEATURES}] = [\n{list}];\n"
    );
    match out {
        Some(path) => std::fs::write(path, text).expect("write the weights"),
        None => print!("{text}"),
    }
}
