//! The article-extraction benchmark (AEB): `html::to_text` on its 181 pages, scored with the
//! port of `bench/aeb/score.py` (same figures as `python3 score.py DIR` on the files that
//! `cargo run --release -p kerai-core --example aeb -- --out DIR` writes).

use std::io::Read;

use kerai_core::convert::html;
use kerai_core::convert::html::score::{aggregate, page_counts};
use kerai_core::shared_data::shared_path;

#[test]
fn aeb_f1_beats_trafilatura() {
    let gt: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(shared_path("bench/aeb/ground-truth.json")).unwrap(),
    )
    .unwrap();
    let gt = gt.as_object().expect("ground truth is an object");
    let mut ids: Vec<&String> = gt.keys().collect();
    ids.sort();
    assert_eq!(ids.len(), 181);
    let mut rows = Vec::new();
    for id in ids {
        let path = shared_path(&format!("bench/aeb/html/{id}.html.gz"));
        let mut html = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_string(&mut html)
            .unwrap();
        let url = gt[id]["url"].as_str().unwrap_or("");
        let predicted = html::to_text(&html, url);
        assert!(
            !predicted.contains("](http"),
            "to_text must not carry link URLs ({id})"
        );
        rows.push(page_counts(
            gt[id]["articleBody"].as_str().unwrap_or(""),
            &predicted,
        ));
    }
    let s = aggregate(&rows);
    eprintln!(
        "AEB: F1 {:.4}  precision {:.4}  recall {:.4}",
        s.f1, s.precision, s.recall
    );
    // Measured 0.9780 / 0.9676 / 0.9886; trafilatura 0.960, best published 0.970.
    assert!(s.f1 >= 0.975, "AEB F1 {:.4} below 0.975", s.f1);
    assert!(
        s.precision >= 0.96,
        "AEB precision {:.4} below 0.96",
        s.precision
    );
    assert!(s.recall >= 0.98, "AEB recall {:.4} below 0.98", s.recall);
}
