//! The extractive answer on the example site's reading guide (the page `make demo` crawls):
//! the question of the demo is answered from the guide's prose, not from its "Where to go
//! next" links or its reference list, whichever chunks retrieval hands over.

use kerai_core::convert::html::to_markdown;
use kerai_core::retrieval::answer::{best_sentences, render};
use kerai_core::retrieval::chunk::{self, ChunkOptions, ChunkStrategy};

#[test]
fn the_demo_question_is_answered_from_prose() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/site/research/active-inference.html"
    );
    let html = std::fs::read_to_string(path).expect("read the example page");
    let md = to_markdown(&html, "https://example.org/research/active-inference.html").markdown;
    let opts = ChunkOptions {
        target_tokens: 120,
        overlap_tokens: 0,
        strategy: ChunkStrategy::Section,
    };
    let words = |t: &str| t.split_whitespace().count();
    let chunks = chunk::chunk_document(&chunk::blocks_from_markdown(&md), &opts, &words);
    let texts: Vec<String> = chunks.iter().map(|c| c.text.clone()).collect();
    // Retrieval order is not what this checks: every chunk is offered, the navigation and
    // reference chunks first.
    let mut passages: Vec<&str> = texts.iter().map(String::as_str).collect();
    passages.sort_by_key(|p| !(p.contains("Where to go next") || p.contains("References")));
    let picked = best_sentences("how does the brain predict its inputs", &passages, 3);
    let answer = render(&picked);
    println!("{answer}");
    assert!(!picked.is_empty());
    for p in &picked {
        assert!(
            !p.sentence.contains("doi") && !p.sentence.contains("Where to go"),
            "{answer}"
        );
    }
    assert!(picked[0].sentence.contains("predict"), "{answer}");
}
