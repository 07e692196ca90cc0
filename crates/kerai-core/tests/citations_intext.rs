//! Author-year callout detection on the GROBID full-text set (`suites/citations/intext_dev.jsonl`),
//! scored exactly as `score_intext.py` scores it (ported in `support/intext_score.rs`), plus the
//! numeric-style papers where an author-year detector should find (almost) nothing.
//!
//! The test also writes `intext_predictions.jsonl` into Cargo's test temp directory
//! (`target/tmp/`) so the Python scorer can be run on the very same predictions:
//! `python3 $SHARED/suites/citations/score_intext.py $SHARED/suites/citations/intext_dev.jsonl target/tmp/intext_predictions.jsonl`.
//! Set `KERAI_SHOW_MISSES=1` to print every block where prediction and gold differ, on the
//! tuned-on papers only: the held-out papers ([`intext_score::held_out_doc`]) are scored and
//! reported apart, and their misses are never printed.

#[path = "support/intext_score.rs"]
mod intext_score;

use std::collections::HashSet;
use std::io::Write;

use intext_score::{held_out_doc, load, norm, predict, score_block, Scores};

#[test]
fn author_year_callouts_match_grobid_gold() {
    let blocks = load();
    let show = std::env::var_os("KERAI_SHOW_MISSES").is_some();
    let mut scores = Scores::default();
    let (mut tuned, mut unread) = (Scores::default(), Scores::default());
    let (mut numeric_blocks, mut numeric_hits) = (0usize, 0usize);
    let pred_path =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("intext_predictions.jsonl");
    let mut pred_file = std::fs::File::create(&pred_path).expect("create predictions file");
    for b in &blocks {
        let pred = predict(b);
        if !b.author_year_doc {
            numeric_blocks += 1;
            numeric_hits += pred.len();
            if show {
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
        .expect("write predictions");
        score_block(&mut scores, b, &pred);
        let held = held_out_doc(&b.doc);
        score_block(if held { &mut unread } else { &mut tuned }, b, &pred);
        if show && !held {
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
    let (exact, overlap, chars) = (scores.exact(), scores.overlap(), scores.chars());
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
    for (name, s) in [("tuned-on papers", &tuned), ("held-out papers", &unread)] {
        let (e, c) = (s.exact(), s.chars());
        println!(
            "{name}: gold spans={} exact F1={:.3} char F1={:.3}",
            s.gold, e.2, c.2
        );
    }
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
