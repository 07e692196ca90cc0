//! Speed of the HTML layer on the 181 AEB pages (`cargo bench -p kerai-core --bench html_extract`).
//!
//! Prints seconds for all pages and ratios against a baseline measured in the same run:
//! parsing the DOM and collecting all visible text (what every extractor must at least do).

use std::io::Read;
use std::time::Instant;

use kerai_core::convert::html;
use kerai_core::shared_data::shared_path;

fn load_pages() -> Vec<(String, String)> {
    let dir = shared_path("bench/aeb/html");
    let mut pages = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("read AEB html dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    for p in names {
        let mut gz = flate2::read::GzDecoder::new(std::fs::File::open(&p).expect("open page"));
        let mut s = String::new();
        gz.read_to_string(&mut s).expect("gunzip page");
        let id = p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".html.gz")
            .to_string();
        pages.push((id, s));
    }
    pages
}

fn best_of<F: FnMut() -> usize>(runs: usize, mut f: F) -> (f64, usize) {
    let mut best = f64::MAX;
    let mut check = 0;
    for _ in 0..runs {
        let t = Instant::now();
        check = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, check)
}

fn main() {
    let pages = load_pages();
    let bytes: usize = pages.iter().map(|p| p.1.len()).sum();
    println!("pages: {}  html bytes: {}", pages.len(), bytes);
    let runs = 5;
    let (parse, n) = best_of(runs, || {
        pages
            .iter()
            .map(|(_, h)| html::dom::parse(h).nodes.len())
            .sum()
    });
    println!(
        "parse DOM only:            {parse:.3} s  ({n} nodes, {:.0} MB/s)",
        bytes as f64 / parse / 1e6
    );
    let (base, n) = best_of(runs, || {
        pages.iter().map(|(_, h)| visible_text(h).len()).sum()
    });
    println!("baseline (DOM + all text): {base:.3} s  ({n} bytes of text)");
    let (text, n) = best_of(runs, || {
        pages.iter().map(|(id, h)| html::to_text(h, id).len()).sum()
    });
    println!(
        "to_text:                   {text:.3} s  ({n} bytes)  = {:.2} x baseline",
        text / base
    );
    let (md, n) = best_of(runs, || {
        pages
            .iter()
            .map(|(id, h)| html::to_markdown(h, id).markdown.len())
            .sum()
    });
    println!(
        "to_markdown:               {md:.3} s  ({n} bytes)  = {:.2} x baseline",
        md / base
    );
}

/// The baseline: parse and collect the text of every text node outside `<script>`/`<style>`.
fn visible_text(html: &str) -> String {
    let doc = html::dom::parse(html);
    let mut out = String::new();
    for i in 0..doc.nodes.len() as u32 {
        if let Some(t) = doc.text(i) {
            let p = doc.node(i).parent;
            if matches!(
                doc.tag(p),
                Some(html::dom::Tag::Script | html::dom::Tag::Style)
            ) {
                continue;
            }
            for w in t.split_whitespace() {
                out.push_str(w);
                out.push(' ');
            }
        }
    }
    out
}
