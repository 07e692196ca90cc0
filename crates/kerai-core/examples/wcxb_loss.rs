//! Where the extractor loses words on one page type of WCXB dev (tuned-on pages only; the
//! held-out fifth is never read): the ground truth's words it misses, by why the block holding
//! them was left out, and the words it keeps that the ground truth lacks, by who kept them.
//!
//! `cargo run --release -p kerai-core --example wcxb_loss -- TYPE [EXAMPLES]`
//!
//! Recall is lost to blocks in the page's frame (`frame:<region>`: `<header>`, `<nav>`,
//! `<aside>`, `<footer>` or their roles), in boilerplate by class words (`bp:<region>`), on
//! pages closed to the block model (`closed`: one article by metadata or shape), to the block
//! model's refusal (`rejected`), and to text in no block at all (`noblock`: hidden elements,
//! pages whose text scripts load). Precision is lost to blocks the rules kept (`kept:rules`) and
//! the block model added (`kept:model`). Each figure is a share of the page's words, averaged
//! over pages as the benchmark's metric is. `EXAMPLES` lists that many blocks of each kind
//! (most of their words lost), with the page id.

#[path = "support/wcxb_pages.rs"]
mod wcxb_pages;

use std::collections::{BTreeMap, HashMap};

use kerai_core::convert::html;
use kerai_core::convert::html::extract::block_features;
use wcxb_pages::words;

const REGIONS: [&str; 9] = [
    "nav",
    "header",
    "footer",
    "sidebar",
    "comments",
    "share",
    "ad",
    "furniture",
    "none",
];

/// Index of the first region feature and of the frame feature in `block_model::features`.
const REGION_AT: usize = 4;
const BOILERPLATE_AT: usize = 3;
const FRAME_AT: usize = 45;

fn bag(s: &str) -> HashMap<String, i64> {
    let mut out = HashMap::new();
    for w in words(s) {
        *out.entry(w).or_insert(0) += 1;
    }
    out
}

/// Takes from `pool` the words of `ws` it holds; returns how many.
fn take(pool: &mut HashMap<String, i64>, ws: &[String]) -> usize {
    ws.iter()
        .filter(|w| {
            pool.get_mut(*w).is_some_and(|c| {
                let left = *c > 0;
                if left {
                    *c -= 1;
                }
                left
            })
        })
        .count()
}

/// Sums of shares per kind, and examples.
#[derive(Default)]
struct Losses {
    shares: BTreeMap<String, f64>,
    examples: BTreeMap<String, Vec<String>>,
}

impl Losses {
    fn add(&mut self, kind: &str, share: f64, example: Option<String>) {
        *self.shares.entry(kind.to_string()).or_default() += share;
        if let Some(e) = example {
            self.examples.entry(kind.to_string()).or_default().push(e);
        }
    }

    fn print(&self, title: &str, pages: f64, examples: usize) {
        println!("{title} (share of words, mean over {pages} pages):");
        let mut rows: Vec<_> = self.shares.iter().collect();
        rows.sort_by(|a, b| b.1.total_cmp(a.1));
        for (kind, s) in rows {
            println!("  {kind:18} {:.3}", s / pages);
            for e in self.examples.get(kind).into_iter().flatten().take(examples) {
                println!("      {e}");
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(ty) = args.get(1) else {
        eprintln!("usage: wcxb_loss TYPE [EXAMPLES] (TYPE: article, forum, service, ...)");
        std::process::exit(2);
    };
    let examples: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let (mut missed, mut extra, mut pages) = (Losses::default(), Losses::default(), 0.0);
    for id in wcxb_pages::ids(true) {
        let gt = wcxb_pages::Page::load(&id);
        if gt.page_type != *ty {
            continue;
        }
        let (url, truth, page) = (gt.url.as_str(), gt.truth.as_str(), gt.html());
        let pred = html::to_text(&page, url);
        let (blocks, open) = block_features(&page, url);
        let (gold, kept) = (bag(truth), bag(&pred));
        let gold_n = gold.values().sum::<i64>().max(1) as f64;
        let kept_n = kept.values().sum::<i64>().max(1) as f64;
        // The words of each side the other lacks, taken block by block.
        let diff = |a: &HashMap<String, i64>, b: &HashMap<String, i64>| -> HashMap<String, i64> {
            a.iter()
                .map(|(w, n)| (w.clone(), n - b.get(w).copied().unwrap_or(0)))
                .filter(|(_, n)| *n > 0)
                .collect()
        };
        let (mut lacking, mut surplus) = (diff(&gold, &kept), diff(&kept, &gold));
        pages += 1.0;
        for (f, text, main) in &blocks {
            let ws = words(text);
            if ws.is_empty() {
                continue;
            }
            let shown = pred.contains(text.trim());
            let region = (0..REGIONS.len())
                .find(|&k| f[REGION_AT + k] > 0.5)
                .map_or("?", |k| REGIONS[k]);
            let (kind, pool, losses, n) = if shown {
                let kind = if *main { "kept:rules" } else { "kept:model" };
                (kind.to_string(), &mut surplus, &mut extra, kept_n)
            } else {
                let kind = if f[FRAME_AT] > 0.5 {
                    format!("frame:{region}")
                } else if f[BOILERPLATE_AT] > 0.5 {
                    format!("bp:{region}")
                } else if !open {
                    "closed".to_string()
                } else {
                    "rejected".to_string()
                };
                (kind, &mut lacking, &mut missed, gold_n)
            };
            let lost = take(pool, &ws);
            if lost > 0 {
                let example = (lost * 2 >= ws.len() && ws.len() >= 5)
                    .then(|| format!("{id} {}", text.chars().take(100).collect::<String>()))
                    .map(|e| e.replace('\n', " "));
                losses.add(&kind, lost as f64 / n, example);
            }
        }
        let noblock = lacking.values().sum::<i64>() as f64 / gold_n;
        if std::env::var_os("KERAI_SHOW_NOBLOCK").is_some() && noblock > 0.2 {
            let mut words: Vec<_> = lacking.iter().collect();
            words.sort_by_key(|(_, n)| -**n);
            let top: Vec<_> = words.iter().take(12).map(|(w, _)| w.as_str()).collect();
            eprintln!(
                "noblock {id} {noblock:.2} ({} blocks) {}",
                blocks.len(),
                top.join(" ")
            );
        }
        missed.add("noblock", noblock, None);
    }
    missed.print("ground-truth words missed", pages, examples);
    extra.print("words kept that the ground truth lacks", pages, examples);
}
