//! Throughput and accuracy of citation detection and reference parsing.
//!
//! `cargo bench -p kerai-core --bench citations`
//!
//! Speed is quoted against baselines measured in the same run (the machine is shared):
//! the 10-line author-year regex of `score_intext.py` and a one-line URL regex, each a single
//! `find_iter` pass over the same text. Linearity is shown by running the text repeated up to
//! ~50 MB and by adversarial 1 MB inputs. Accuracy figures are the suite scores.

#[path = "../tests/support/identifier_score.rs"]
mod identifier_score;
#[path = "../tests/support/intext_score.rs"]
mod intext_score;
#[path = "../tests/support/reference_score.rs"]
mod reference_score;

use std::hint::black_box;
use std::time::{Duration, Instant};

use kerai_core::citations::{detect_citations, CitationKind};
use kerai_core::references::{parse_reference, parse_reference_with};
use regex::Regex;

/// The `BASELINE` regex of score_intext.py, in Rust syntax.
fn baseline_regex() -> Regex {
    let name = r"(?:[A-Z][A-Za-z\x{00C0}-\x{024F}'\x{2019}\-]+|van der [A-Z]\w+|van [A-Z]\w+|de [A-Z]\w+|von [A-Z]\w+)";
    let auth = format!(
        r"{name}(?:\s+(?:et\s+al\.?|and\s+{name}|&\s*{name}))?(?:,?\s+(?:and|&)\s+{name})?"
    );
    let year = r"(?:1[5-9]\d\d|20\d\d)[a-z]?(?:,\s*(?:1[5-9]\d\d|20\d\d)?[a-z]?)*";
    let one = format!(r"{auth},?\s+{year}");
    let paren = format!(r"\((?:(?:e\.g\.|see|cf\.)\s*,?\s*)?{one}(?:\s*[;,]\s*{one})*\)");
    let narr = format!(r"{auth}\s+\({year}\)");
    Regex::new(&format!("{paren}|{narr}")).expect("baseline regex")
}

/// Best wall time of `runs` calls (the least disturbed by other load).
fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed());
    }
    best
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

fn repeat_to(piece: &str, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + piece.len());
    while s.len() < bytes {
        s.push_str(piece);
    }
    s
}

fn main() {
    let blocks = intext_score::load();
    let texts: Vec<String> = blocks.iter().map(|b| b.string()).collect();
    let corpus = texts.join("\n\n");
    let bytes = corpus.len();
    println!(
        "== speed: intext_dev.jsonl text, {:.2} MB, {} blocks",
        bytes as f64 / 1e6,
        texts.len()
    );

    let found = detect_citations(&corpus);
    let count = |k: CitationKind| found.iter().filter(|c| c.kind == k).count();
    println!(
        "citations found: {} (url {}, doi {}, arxiv {}, author_year {}, concept {})",
        found.len(),
        count(CitationKind::Url),
        count(CitationKind::Doi),
        count(CitationKind::Arxiv),
        count(CitationKind::AuthorYear),
        count(CitationKind::Concept)
    );

    let whole = best_of(7, || detect_citations(&corpus).len());
    let per_block = best_of(7, || {
        texts
            .iter()
            .map(|t| detect_citations(t).len())
            .sum::<usize>()
    });
    let base = baseline_regex();
    let base_t = best_of(7, || base.find_iter(&corpus).count());
    let url_re = Regex::new(r"https?://\S+").expect("url regex");
    let url_t = best_of(7, || url_re.find_iter(&corpus).count());
    let det = mbps(bytes, whole);
    println!("detect_citations, whole text        : {det:8.2} MB/s");
    println!(
        "detect_citations, block by block    : {:8.2} MB/s",
        mbps(bytes, per_block)
    );
    println!(
        "baseline: score_intext.py regex     : {:8.2} MB/s  (detect_citations at {:.2}x its time)",
        mbps(bytes, base_t),
        whole.as_secs_f64() / base_t.as_secs_f64()
    );
    println!(
        "baseline: https?://\\S+ regex        : {:8.2} MB/s  (detect_citations at {:.2}x its time)",
        mbps(bytes, url_t),
        whole.as_secs_f64() / url_t.as_secs_f64()
    );

    println!("\n== linearity: the same text repeated");
    let mut first_rate = None;
    for times in [1usize, 4, 15] {
        let big = vec![corpus.as_str(); times].join("\n\n");
        let t = best_of(3, || detect_citations(&big).len());
        let rate = mbps(big.len(), t);
        let base_rate = *first_rate.get_or_insert(rate);
        println!(
            "{:6.1} MB: {:7.2} s, {:8.2} MB/s ({:.2}x the 1x rate)",
            big.len() as f64 / 1e6,
            t.as_secs_f64(),
            rate,
            rate / base_rate
        );
    }

    println!("\n== adversarial inputs, 1 MB each (MB/s; ratio to the corpus rate)");
    let mb = 1_000_000;
    for (name, piece) in [
        ("open brackets", "("),
        ("unclosed author groups", "(Smith et al., 2001; "),
        ("year groups", "Smith (2015) "),
        ("chained URLs", "http://a.bc/"),
        ("scheme-relative", "//"),
        ("at signs", "a@"),
        ("dotted words", "ab.co"),
        ("guillemets", "«x "),
        ("straight quotes", "\"a "),
        ("DOI prefixes", "10.1234/"),
        ("digits", "1234567890"),
        ("CJK text", "漢字かな交じり文。"),
    ] {
        let s = repeat_to(piece, mb);
        let t = best_of(3, || detect_citations(&s).len());
        let rate = mbps(s.len(), t);
        println!("{name:24} {rate:8.2} MB/s ({:.2}x)", rate / det);
    }

    println!("\n== parse_reference speed");
    let data = std::fs::read_to_string(kerai_core::shared_data::shared_path(
        "suites/citations/references_grobid_corpus.jsonl",
    ))
    .expect("read grobid corpus");
    let refs: Vec<String> = data
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .collect();
    let t = best_of(3, || {
        refs.iter()
            .map(|r| parse_reference(r).authors.len())
            .sum::<usize>()
    });
    let rules = best_of(3, || {
        refs.iter()
            .map(|r| parse_reference_with(r, None, &[]).authors.len())
            .sum::<usize>()
    });
    let ref_bytes: usize = refs.iter().map(String::len).sum();
    println!(
        "{} references: {:.0} references/s, {:.2} MB/s ({:.2}x the time of the rules alone)",
        refs.len(),
        refs.len() as f64 / t.as_secs_f64(),
        mbps(ref_bytes, t),
        t.as_secs_f64() / rules.as_secs_f64()
    );

    println!("\n== accuracy: in-text author-year callouts (score_intext.py measures)");
    let (s, numeric_blocks, numeric_hits) = intext_score::evaluate(&blocks);
    for (name, (p, r, f)) in [
        ("exact", s.exact()),
        ("overlap", s.overlap()),
        ("char", s.chars()),
    ] {
        println!("{name:8} P={p:.3} R={r:.3} F1={f:.3}");
    }
    let held: Vec<intext_score::Block> = intext_score::load()
        .into_iter()
        .filter(|b| b.author_year_doc && intext_score::held_out_doc(&b.doc))
        .collect();
    let (h, _, _) = intext_score::evaluate(&held);
    println!(
        "held-out papers ({} gold spans): exact F1={:.3} char F1={:.3}",
        h.gold,
        h.exact().2,
        h.chars().2
    );
    println!("numeric-style blocks {numeric_blocks}: {numeric_hits} author-year detections ({:.2} per 50 blocks)", numeric_hits as f64 * 50.0 / numeric_blocks as f64);

    println!("\n== accuracy: DOIs and links");
    let d = identifier_score::doi_cases();
    println!(
        "DOI: first DOI {}/{}, exact_valid {}/{}, all {:.1}% as labelled; {:.1}% with the {} labels that cut a DOI's closing parenthesis read whole",
        d.find_ok,
        d.find_n,
        d.valid_ok,
        d.valid_n,
        100.0 * d.all(),
        100.0 * d.all_corrected(),
        d.label_cut
    );
    let l = identifier_score::linkify_cases();
    println!(
        "linkify: links {}/{} (fuzzy IPs on; {} with defaults), not_links clean {}/{}",
        l.links_ok, l.links_n, l.links_ok_default, l.clean, l.not_links_n
    );

    println!("\n== accuracy: reference fields, soft micro F1 (P, R, F1), on the fifth the tagger never saw");
    for rel in [
        "suites/citations/references_anystyle_core.jsonl",
        "suites/citations/references_grobid_corpus.jsonl",
    ] {
        let rules = reference_score::evaluate_by(
            rel,
            &format!("{rel}: rules alone"),
            reference_score::held_out,
            |t| parse_reference_with(t, None, &[]),
        );
        let shipped = reference_score::evaluate_by(
            rel,
            &format!("{rel}: rules and tagger (shipped)"),
            reference_score::held_out,
            parse_reference,
        );
        println!("{:<13} {:>7} {:>7}", "F1", "rules", "shipped");
        for ((f, a), (_, b)) in rules.iter().zip(shipped.iter()) {
            println!("{f:<13} {:>7.3} {:>7.3}", a.f1().2, b.f1().2);
        }
    }
}
