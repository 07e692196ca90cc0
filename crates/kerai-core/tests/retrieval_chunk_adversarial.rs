//! Chunking stays near-linear on text with no sentence breaks, and every long loop reaches a
//! cancellation point. Work is measured as the bytes handed to the token counter (a
//! deterministic stand-in for time), so the test is exact on any machine.

use kerai_core::interrupt;
use kerai_core::retrieval::chunk::{self, ChunkOptions, ChunkStrategy};
use std::cell::Cell;

/// Bytes counted by the token counter while chunking `md`, and the chunks' texts.
fn counted_bytes(md: &str, strategy: ChunkStrategy) -> (usize, Vec<String>) {
    let counted = Cell::new(0usize);
    let words = |t: &str| {
        counted.set(counted.get() + t.len());
        t.split_whitespace().count()
    };
    let opts = ChunkOptions {
        target_tokens: 512,
        overlap_tokens: 64,
        strategy,
    };
    let blocks = chunk::blocks_from_markdown(md);
    let chunks = chunk::chunk_document(&blocks, &opts, &words);
    (counted.get(), chunks.into_iter().map(|c| c.text).collect())
}

fn assert_near_linear(shape: &str, make: impl Fn(usize) -> String, n: usize) {
    for strategy in [ChunkStrategy::Section, ChunkStrategy::Length] {
        let (small, _) = counted_bytes(&make(n), strategy);
        let (big, chunks) = counted_bytes(&make(8 * n), strategy);
        assert!(!chunks.is_empty());
        let ratio = big as f64 / small as f64;
        assert!(
            ratio <= 12.0,
            "{shape} ({strategy:?}): 8× the input counted {ratio:.1}× the bytes ({small} → {big})"
        );
    }
}

#[test]
fn an_unbroken_word_run_chunks_in_near_linear_work() {
    assert_near_linear("word run", |n| "word ".repeat(n), 20_000);
}

#[test]
fn one_long_word_chunks_in_near_linear_work() {
    // One "word" longer than a chunk: cut inside it, at characters.
    let chars = |t: &str| t.chars().count();
    let work = |n: usize| {
        let counted = Cell::new(0usize);
        let count = |t: &str| {
            counted.set(counted.get() + t.len());
            chars(t)
        };
        let blocks = chunk::blocks_from_markdown(&"x".repeat(n));
        let chunks = chunk::chunk_document(&blocks, &ChunkOptions::default(), &count);
        assert!(chunks.iter().all(|c| c.token_count <= 512));
        counted.get()
    };
    let (small, big) = (work(50_000), work(400_000));
    let ratio = big as f64 / small as f64;
    assert!(ratio <= 12.0, "8× the word counted {ratio:.1}× the bytes");
}

#[test]
fn a_word_run_is_cut_into_full_chunks_in_order() {
    let md = (0..5000)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let (_, chunks) = counted_bytes(&md, ChunkStrategy::Section);
    // 512-token chunks with 64 of overlap: each chunk adds at most 447 new words.
    assert!(chunks.len() >= 5000 / 448);
    assert!(chunks[0].starts_with("w0 w1 w2"));
    assert!(chunks.last().unwrap().ends_with("w4999"));
    for c in &chunks {
        assert!(
            c.split_whitespace().count() <= 512,
            "a chunk over the target"
        );
    }
}

thread_local! {
    static CANCEL_AFTER: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The hook a host would install: here it "cancels" (panics) after a number of checks on
/// threads that asked for it.
fn cancel_hook() {
    CANCEL_AFTER.with(|c| {
        if let Some(n) = c.get() {
            if n == 0 {
                c.set(None);
                panic!("cancelled");
            }
            c.set(Some(n - 1));
        }
    });
}

/// Runs `f` with a cancel requested after `after` checks; true when it was cancelled.
fn cancelled(after: usize, f: impl FnOnce() + std::panic::UnwindSafe) -> bool {
    interrupt::set_hook(cancel_hook);
    CANCEL_AFTER.with(|c| c.set(Some(after)));
    let r = std::panic::catch_unwind(f);
    CANCEL_AFTER.with(|c| c.set(None));
    r.is_err()
}

#[test]
fn long_loops_reach_cancellation_points() {
    let text = "word ".repeat(200_000);
    assert!(cancelled(50, || {
        let blocks = chunk::blocks_from_markdown(&text);
        chunk::chunk_document(
            &blocks,
            &ChunkOptions::default(),
            &kerai_core::retrieval::tokens::count_tokens,
        );
    }));
    let md = "para\n\n".repeat(100_000);
    assert!(cancelled(5, || {
        kerai_core::markdown::parse(&md, |_| {});
    }));
    let html = "<div><p>text</p></div>".repeat(100_000);
    assert!(cancelled(5, || {
        kerai_core::convert::html::extract::to_markdown(&html, "https://example.org/");
    }));
    let cites = "As Smith (2010) showed. ".repeat(10_000);
    assert!(cancelled(1, || {
        kerai_core::citations::detect_citations(&cites);
    }));
    // Without a pending cancel the same work completes.
    assert!(!cancelled(usize::MAX, || {
        kerai_core::markdown::parse(&md, |_| {});
    }));
}
