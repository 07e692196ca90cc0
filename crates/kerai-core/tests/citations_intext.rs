//! Author-year callout detection on the GROBID full-text set (`suites/citations/intext_dev.jsonl`),
//! scored exactly as `score_intext.py` scores it (ported below), plus the numeric-style papers
//! where an author-year detector should find (almost) nothing.
//!
//! The test also writes `intext_predictions.jsonl` into Cargo's test temp directory so the
//! Python scorer can be run on the very same predictions:
//! `python3 $SHARED/suites/citations/score_intext.py $SHARED/suites/citations/intext_dev.jsonl target/tmp/intext_predictions.jsonl`.
//! Set `KERAI_SHOW_MISSES=1` to print every block where prediction and gold differ.

use std::collections::HashSet;
use std::io::Write;

use kerai_core::citations::{detect_citations, CitationKind};
use kerai_core::shared_data::shared_path;
use serde_json::Value;

struct Block {
    id: String,
    text: Vec<char>,
    gold: Vec<(usize, usize)>,
    author_year_doc: bool,
}

fn load() -> Vec<Block> {
    let path = shared_path("suites/citations/intext_dev.jsonl");
    let data = std::fs::read_to_string(&path).expect("read intext_dev.jsonl");
    data.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("json line");
            let gold = v["spans"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|s| s["kind"] == "biblio")
                        .map(|s| {
                            (
                                s["start"].as_u64().unwrap() as usize,
                                s["end"].as_u64().unwrap() as usize,
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            Block {
                id: v["id"].as_str().unwrap().to_string(),
                text: v["text"].as_str().unwrap().chars().collect(),
                gold,
                author_year_doc: v["doc_style"] == "author-year",
            }
        })
        .collect()
}

/// `norm` of score_intext.py: strip ` ([` on the left and ` )].,;` on the right.
fn norm(text: &[char], mut a: usize, mut b: usize) -> (usize, usize) {
    while a < b && " ([".contains(text[a]) {
        a += 1;
    }
    while b > a && " )].,;".contains(text[b - 1]) {
        b -= 1;
    }
    (a, b)
}

#[derive(Default, Debug)]
struct Scores {
    gold: usize,
    pred: usize,
    tp_exact: usize,
    tp_overlap: usize,
    ch_tp: usize,
    ch_gold: usize,
    ch_pred: usize,
}

fn prf(tp: usize, np: usize, ng: usize) -> (f64, f64, f64) {
    let p = if np > 0 { tp as f64 / np as f64 } else { 0.0 };
    let r = if ng > 0 { tp as f64 / ng as f64 } else { 0.0 };
    let f = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    (p, r, f)
}

/// `score` of score_intext.py, block by block.
fn score_block(s: &mut Scores, b: &Block, pred: &[(usize, usize)]) {
    s.gold += b.gold.len();
    s.pred += pred.len();
    let gn: HashSet<(usize, usize)> = b.gold.iter().map(|&(a, e)| norm(&b.text, a, e)).collect();
    s.tp_exact += pred
        .iter()
        .filter(|&&(a, e)| gn.contains(&norm(&b.text, a, e)))
        .count();
    let mut used = HashSet::new();
    for &(a, e) in pred {
        for (i, &(c, d)) in b.gold.iter().enumerate() {
            if !used.contains(&i) && a < d && c < e {
                used.insert(i);
                s.tp_overlap += 1;
                break;
            }
        }
    }
    let gs: HashSet<usize> = b.gold.iter().flat_map(|&(a, e)| a..e).collect();
    let ps: HashSet<usize> = pred.iter().flat_map(|&(a, e)| a..e).collect();
    s.ch_tp += gs.intersection(&ps).count();
    s.ch_gold += gs.len();
    s.ch_pred += ps.len();
}

#[test]
fn author_year_callouts_match_grobid_gold() {
    let blocks = load();
    let show = std::env::var_os("KERAI_SHOW_MISSES").is_some();
    let mut scores = Scores::default();
    let mut numeric_blocks = 0usize;
    let mut numeric_hits = 0usize;
    let pred_path =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("intext_predictions.jsonl");
    let mut pred_file = std::fs::File::create(&pred_path).expect("create predictions file");
    for b in &blocks {
        let text: String = b.text.iter().collect();
        let pred: Vec<(usize, usize)> = detect_citations(&text)
            .into_iter()
            .filter(|c| c.kind == CitationKind::AuthorYear)
            .map(|c| (c.start_char, c.end_char))
            .collect();
        if !b.author_year_doc {
            numeric_blocks += 1;
            numeric_hits += pred.len();
            if show && !pred.is_empty() {
                for &(a, e) in &pred {
                    println!(
                        "NUMERIC-DOC HIT {}: {:?}",
                        b.id,
                        b.text[a..e].iter().collect::<String>()
                    );
                }
            }
            continue;
        }
        let spans: Vec<[usize; 2]> = pred.iter().map(|&(a, e)| [a, e]).collect();
        writeln!(
            pred_file,
            "{}",
            serde_json::json!({ "id": b.id, "spans": spans })
        )
        .unwrap();
        score_block(&mut scores, b, &pred);
        if show {
            let g: HashSet<_> = b.gold.iter().map(|&(a, e)| norm(&b.text, a, e)).collect();
            let p: HashSet<_> = pred.iter().map(|&(a, e)| norm(&b.text, a, e)).collect();
            let slice = |(a, e): (usize, usize)| b.text[a..e].iter().collect::<String>();
            for m in g.difference(&p) {
                println!("MISS {}: {:?}", b.id, slice(*m));
            }
            for m in p.difference(&g) {
                println!("FP   {}: {:?}", b.id, slice(*m));
            }
        }
    }
    let exact = prf(scores.tp_exact, scores.pred, scores.gold);
    let overlap = prf(scores.tp_overlap, scores.pred, scores.gold);
    let chars = prf(scores.ch_tp, scores.ch_pred, scores.ch_gold);
    println!("gold spans={} predicted={}", scores.gold, scores.pred);
    println!(
        "exact    P={:.3} R={:.3} F1={:.3}",
        exact.0, exact.1, exact.2
    );
    println!(
        "overlap  P={:.3} R={:.3} F1={:.3}",
        overlap.0, overlap.1, overlap.2
    );
    println!(
        "char     P={:.3} R={:.3} F1={:.3}",
        chars.0, chars.1, chars.2
    );
    println!(
        "numeric-style blocks={numeric_blocks} author_year detections={numeric_hits} ({:.2} per 50 blocks)",
        numeric_hits as f64 * 50.0 / numeric_blocks as f64
    );
    println!("predictions written to {}", pred_path.display());
    assert!(chars.2 >= 0.95, "character-level F1 {:.3} < 0.95", chars.2);
    assert!(exact.2 >= 0.90, "exact F1 {:.3} < 0.90", exact.2);
    assert!(
        (numeric_hits as f64) * 50.0 < numeric_blocks as f64,
        "{numeric_hits} author-year detections in {numeric_blocks} numeric-style blocks (want < 1 per 50)"
    );
}
