//! Odd and real inputs through chunking, entities and claims: no panic, offsets valid,
//! chunks within their target. Real text: the first SciFact abstracts (shared data).

use kerai_core::facts::{claims_from_text, entities, parse_llm_claims};
use kerai_core::markdown::NodeKind;
use kerai_core::retrieval::chunk::{
    approx_token_count, blocks_from_markdown, chunk_document, ChunkInput, ChunkOptions,
    ChunkStrategy,
};
use kerai_core::shared_data::shared_path;
use std::io::Read;

fn odd_inputs() -> Vec<String> {
    vec![
        String::new(),
        " ".into(),
        "\n\n\n".into(),
        ".".into(),
        "...!?".into(),
        "Dr.".into(),
        "Dr. ".into(),
        "£".into(),
        "£ million".into(),
        "e.g. e.g. e.g.".into(),
        "a".repeat(5000),
        "é".repeat(3000),
        "x ".repeat(3000),
        "🦀 Ferris 🦀. 日本語の文。Ελληνικά. عربى.".into(),
        "e\u{301}cole\u{301}. Zu\u{308}rich is in Switzerland.".into(),
        "# \n\n## \n\n- \n- \n\n```\n```".into(),
        "Mr. A. B. C. D. E. F. G.".into(),
        "In In In In In In In In.".into(),
        "1998-13-45 32/13/2020 2026-02-30 $ $$ 12,34,5 EUR".into(),
        "X was founded in. It is based in. It employs people. It cost.".into(),
        "The the the the lab cost £1.".into(),
        ", led by Dr. A B".into(),
        "\u{0}\u{1}\u{2} control \u{7f}".into(),
    ]
}

fn scifact(n: usize) -> Vec<String> {
    let gz = std::fs::read(shared_path("bench/retrieval/scifact/corpus.jsonl.gz")).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .take(n)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!(
                "{}\n\n{}",
                v["title"].as_str().unwrap(),
                v["text"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn entities_and_claims_never_panic_and_offsets_index_the_text() {
    for text in odd_inputs().into_iter().chain(scifact(100)) {
        let chars: Vec<char> = text.chars().collect();
        for e in entities(&text) {
            assert!(e.start < e.end && e.end <= chars.len(), "{e:?}");
            let s: String = chars[e.start..e.end].iter().collect();
            assert_eq!(s, e.text);
            assert!((0.0..=1.0).contains(&e.confidence));
        }
        for c in claims_from_text(&text) {
            assert!(!c.subject.is_empty() && !c.object.is_empty(), "{c:?}");
            assert!((0.0..=1.0).contains(&c.confidence));
        }
        assert!(parse_llm_claims(&text).is_err() || text.trim().starts_with('['));
    }
}

#[test]
fn chunking_never_panics_and_stays_within_target() {
    let mut docs: Vec<Vec<ChunkInput>> = odd_inputs()
        .iter()
        .map(|t| blocks_from_markdown(t))
        .collect();
    docs.push(
        odd_inputs()
            .into_iter()
            .map(|text| ChunkInput {
                text,
                heading_path: vec!["A".into()],
                kind: NodeKind::Code,
            })
            .collect(),
    );
    docs.push(
        scifact(60)
            .into_iter()
            .map(|text| ChunkInput {
                text,
                heading_path: vec![],
                kind: NodeKind::Paragraph,
            })
            .collect(),
    );
    for blocks in &docs {
        for strategy in [
            ChunkStrategy::Section,
            ChunkStrategy::Paragraph,
            ChunkStrategy::Length,
        ] {
            for (target, overlap) in [(16, 8), (40, 5), (512, 64), (0, 1000)] {
                let opts = ChunkOptions {
                    target_tokens: target,
                    overlap_tokens: overlap,
                    strategy,
                };
                let effective = opts.clamped().target_tokens;
                for c in chunk_document(blocks, &opts, &approx_token_count) {
                    assert!(
                        c.token_count <= effective,
                        "{} tokens > {effective}: {:?}",
                        c.token_count,
                        c.text
                    );
                    assert!(!c.text.is_empty());
                }
            }
        }
    }
}
