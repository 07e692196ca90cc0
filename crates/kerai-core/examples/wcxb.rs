//! Runs `html::to_text` on the WCXB dev pages (`../shared/bench/wcxb`, seven page types) and
//! scores it with the benchmark's metric: word-level F1 per page (lower-cased `\w+` tokens as
//! multisets), averaged over pages, per page type.
//!
//! `cargo run --release -p kerai-core --example wcxb -- [--out FILE] [--worst N] [--type T] [--page ID] [--structure] [--parser own|html5ever]`
//!
//! `--structure` also runs `html::to_markdown` and counts how many of the headings and list
//! items of the ground truth's `main_content_markdown` come out as headings and list items
//! (and how many come out at all, as any text).
//!
//! The pages whose id is a multiple of 5 are held out: rules are never tuned on them (their
//! worst pages are never listed, `--page` refuses them), and their score is printed apart, so
//! the gap shows whether a change generalises. `--out` writes `{"<id>": "<text>"}` for the
//! benchmark's own scorer: `python3 evaluate.py --split dev --results FILE --per-type`.

#[path = "support/wcxb_pages.rs"]
mod wcxb_pages;

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use kerai_core::convert::html;
use wcxb_pages::{held_out, Page, TYPES};

fn tokens(text: &str) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for w in wcxb_pages::words(text) {
        *out.entry(w).or_insert(0) += 1;
    }
    out
}

/// (precision, recall, F1) as the benchmark's `word_f1`.
fn word_f1(pred: &str, truth: &str) -> (f64, f64, f64) {
    let (p, r) = (tokens(pred), tokens(truth));
    let (np, nr): (usize, usize) = (p.values().sum(), r.values().sum());
    if nr == 0 {
        return if np == 0 {
            (1.0, 1.0, 1.0)
        } else {
            (0.0, 0.0, 0.0)
        };
    }
    if np == 0 {
        return (0.0, 0.0, 0.0);
    }
    let overlap: usize = p
        .iter()
        .map(|(w, n)| (*n).min(*r.get(w).unwrap_or(&0)))
        .sum();
    let (pr, rc) = (overlap as f64 / np as f64, overlap as f64 / nr as f64);
    let f = if pr + rc > 0.0 {
        2.0 * pr * rc / (pr + rc)
    } else {
        0.0
    };
    (pr, rc, f)
}

/// Lower-cased `\w+` words of a markdown line, link destinations and markup left out.
fn words(line: &str) -> String {
    let mut plain = String::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        plain.push_str(&rest[..i]);
        rest = rest[i + 2..]
            .find(')')
            .map_or("", |j| &rest[i + 2 + j + 1..]);
    }
    plain.push_str(rest);
    plain
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The headings and the list items of a markdown text, as [`words`].
fn structure(md: &str) -> (Vec<String>, Vec<String>) {
    let (mut heads, mut items) = (Vec::new(), Vec::new());
    for line in md.lines() {
        let t = line.trim_start();
        let hashes = t.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
            heads.push(words(&t[hashes..]));
            continue;
        }
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        let marker = if t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") {
            2
        } else if digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") ")) {
            digits + 2
        } else {
            0
        };
        if marker > 0 {
            items.push(words(&t[marker..]));
        }
    }
    heads.retain(|h| !h.is_empty());
    items.retain(|i| !i.is_empty());
    (heads, items)
}

/// Counts of truth headings or list items: (all, kept as such, kept as any text).
#[derive(Default, Clone, Copy)]
struct Kept(usize, usize, usize);

impl Kept {
    fn add(&mut self, truth: &[String], ours: &[String], text: &str) {
        let mut left: HashMap<&str, usize> = HashMap::new();
        for o in ours {
            *left.entry(o.as_str()).or_insert(0) += 1;
        }
        for t in truth {
            self.0 += 1;
            match left.get_mut(t.as_str()) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    self.1 += 1;
                    self.2 += 1;
                }
                _ if text.contains(t.as_str()) => self.2 += 1,
                _ => {}
            }
        }
    }
    fn show(&self) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.0.max(1) as f64;
        format!(
            "{:>5} {:>6.1} % {:>6.1} %",
            self.0,
            pct(self.1),
            pct(self.2)
        )
    }
}

#[derive(Default, Clone, Copy)]
struct Sum {
    n: usize,
    p: f64,
    r: f64,
    f: f64,
}

impl Sum {
    fn add(&mut self, (p, r, f): (f64, f64, f64)) {
        self.n += 1;
        self.p += p;
        self.r += r;
        self.f += f;
    }
    fn show(&self) -> String {
        if self.n == 0 {
            return "-".into();
        }
        let n = self.n as f64;
        format!(
            "{:.3} (P {:.3} R {:.3}, {})",
            self.f / n,
            self.p / n,
            self.r / n,
            self.n
        )
    }
}

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
    let only_type = opt("--type");
    let page = opt("--page");
    let with_structure = args.iter().any(|a| a == "--structure");
    match opt("--parser").as_deref() {
        Some("own") => html::dom::set_engine(html::dom::Engine::Own),
        Some("html5ever") => html::dom::set_engine(html::dom::Engine::Html5ever),
        _ => {}
    }
    let mut kept: BTreeMap<String, (Kept, Kept)> = BTreeMap::new();
    if page.as_deref().is_some_and(held_out) {
        eprintln!(
            "page {} is held out: rules are not tuned on it",
            page.unwrap()
        );
        std::process::exit(2);
    }
    let ids = wcxb_pages::ids(false);
    let mut results = BTreeMap::new();
    let mut sums: BTreeMap<(bool, String), Sum> = BTreeMap::new();
    let mut rows = Vec::new();
    let mut elapsed = 0.0;
    for id in &ids {
        if page.as_ref().is_some_and(|p| p != id) {
            continue;
        }
        let gt = Page::load(id);
        let ty = gt.page_type.as_str();
        if only_type.as_ref().is_some_and(|t| t != ty) {
            continue;
        }
        let s = gt.html();
        let url = gt.url.as_str();
        let t = Instant::now();
        let pred = html::to_text(&s, url);
        elapsed += t.elapsed().as_secs_f64();
        if page.is_some() {
            println!("{pred}");
        }
        let score = word_f1(&pred, &gt.truth);
        let hold = held_out(id);
        sums.entry((hold, ty.to_string())).or_default().add(score);
        sums.entry((hold, "all".to_string()))
            .or_default()
            .add(score);
        if !hold {
            rows.push((score.2, score.0, score.1, id.clone(), ty.to_string()));
        }
        if with_structure {
            let md = html::to_markdown(&s, url).markdown;
            let (th, ti) = structure(&gt.truth_markdown);
            let (oh, oi) = structure(&md);
            let text = md.lines().map(words).collect::<Vec<_>>().join(" ");
            for key in [ty, "all"] {
                let k = kept.entry(key.to_string()).or_default();
                k.0.add(&th, &oh, &text);
                k.1.add(&ti, &oi, &text);
            }
        }
        results.insert(id.clone(), pred);
    }
    println!("WCXB dev, word F1 (P, R, pages); time {elapsed:.2} s, one core");
    println!(
        "{:<14} {:<34} held out (ids divisible by 5)",
        "type", "tuned on"
    );
    for ty in std::iter::once("all").chain(TYPES) {
        let get = |h: bool| sums.get(&(h, ty.to_string())).copied().unwrap_or_default();
        println!("{:<14} {:<34} {}", ty, get(false).show(), get(true).show());
    }
    if with_structure {
        println!("\nstructure of main_content_markdown kept by html::to_markdown (all pages):");
        println!(
            "{:<14} {:>5} {:>8} {:>8}   {:>5} {:>8} {:>8}",
            "type", "heads", "as head", "as text", "items", "as item", "as text"
        );
        for ty in std::iter::once("all").chain(TYPES) {
            if let Some((h, i)) = kept.get(ty) {
                println!("{:<14} {}   {}", ty, h.show(), i.show());
            }
        }
    }
    if worst > 0 {
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (f, p, r, id, ty) in rows.iter().take(worst) {
            println!("{id} {ty:<13} F1 {f:.3} P {p:.3} R {r:.3}");
        }
    }
    if let Some(path) = out {
        std::fs::write(&path, serde_json::to_string(&results).unwrap()).unwrap();
        eprintln!("wrote {path}");
    }
}
