//! Chunking real markdown documents: every chunk within the target, nothing lost or
//! repeated beyond the overlap, cuts at sentence boundaries, sections kept whole when they
//! fit, deterministic output.

use kerai_core::markdown::NodeKind;
use kerai_core::retrieval::chunk::{
    approx_token_count, blocks_from_markdown, chunk_document, chunk_id, sentences::sentence_ranges,
    Chunk, ChunkInput, ChunkOptions, ChunkStrategy,
};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/chunk")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The first `n` characters.
fn prefix(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

const STRATEGIES: [ChunkStrategy; 3] = [
    ChunkStrategy::Section,
    ChunkStrategy::Paragraph,
    ChunkStrategy::Length,
];

fn opts(target: usize, overlap: usize, strategy: ChunkStrategy) -> ChunkOptions {
    ChunkOptions {
        target_tokens: target,
        overlap_tokens: overlap,
        strategy,
    }
}

/// Everything a chunking must satisfy, whatever the document.
fn check_invariants(
    blocks: &[ChunkInput],
    o: &ChunkOptions,
    chunks: &[Chunk],
    count: &dyn Fn(&str) -> usize,
) {
    let what = format!(
        "target {} overlap {} {:?}",
        o.target_tokens, o.overlap_tokens, o.strategy
    );
    assert!(!chunks.is_empty(), "{what}: no chunks");
    let mut own_all = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!((c.index, c.total), (i, chunks.len()), "{what}");
        assert_eq!(c.token_count, count(&c.text), "{what}: chunk {i} count");
        assert!(
            c.token_count <= o.target_tokens,
            "{what}: chunk {i} has {} tokens:\n{}",
            c.token_count,
            c.text
        );
        assert_eq!(
            c.content_hash,
            hex::encode(Sha256::digest(c.text.as_bytes()))
        );
        assert_eq!(
            c.heading_path, blocks[c.start_block].heading_path,
            "{what}: chunk {i}"
        );
        assert!(c.start_block <= c.end_block);
        let own = &c.text[c.overlap_bytes..];
        own_all.push(squash(own));
        if c.overlap_bytes > 0 {
            let overlap = squash(&c.text[..c.overlap_bytes]);
            assert!(
                squash(&chunks[i - 1].text).ends_with(&overlap),
                "{what}: chunk {i} overlap {overlap:?} is not the end of the previous chunk"
            );
            assert!(
                count(&overlap) <= o.overlap_tokens + 2,
                "{what}: chunk {i} overlap too long: {overlap:?}"
            );
            if o.strategy != ChunkStrategy::Length {
                assert_ne!(
                    blocks[c.start_block].kind,
                    NodeKind::Heading,
                    "{what}: chunk {i} starts a section but repeats the previous chunk"
                );
            }
        }
        // The chunk's own text starts at a block start or a sentence start of its first
        // block, unless that block is cut at words (a sentence over the target).
        let block = &blocks[c.start_block];
        let own_start = squash(own);
        let head = prefix(&own_start, 40);
        let starts_block = squash(&block.text).starts_with(head);
        let at_sentence = sentence_ranges(&block.text)
            .iter()
            .any(|r| head.starts_with(prefix(&squash(&block.text[r.clone()]), 40)));
        let long_sentence = sentence_ranges(&block.text)
            .iter()
            .any(|r| count(&block.text[r.clone()]) > o.target_tokens - o.overlap_tokens - 1);
        let line_block = matches!(block.kind, NodeKind::Code | NodeKind::Table);
        assert!(
            starts_block || at_sentence || long_sentence || line_block,
            "{what}: chunk {i} starts inside a sentence: {:?}",
            prefix(&own_start, 80)
        );
        // A heading never ends a chunk while content follows.
        if o.strategy != ChunkStrategy::Length && i + 1 < chunks.len() {
            assert_ne!(
                blocks[c.end_block].kind,
                NodeKind::Heading,
                "{what}: chunk {i} ends with a heading"
            );
        }
    }
    // Nothing lost, nothing repeated: the chunks' own texts are the document (compared
    // without white space: a word longer than a chunk is cut inside).
    let doc: Vec<String> = blocks
        .iter()
        .filter(|b| !b.text.trim().is_empty())
        .map(|b| squash(&b.text))
        .collect();
    let bare = |s: &str| s.split_whitespace().collect::<String>();
    assert_eq!(
        bare(&own_all.join(" ")),
        bare(&doc.join(" ")),
        "{what}: text lost or repeated"
    );
}

#[test]
fn invariants_hold_on_real_documents() {
    for name in ["active-inference.md", "field-manual.md"] {
        let blocks = blocks_from_markdown(&fixture(name));
        for (target, overlap) in [(512, 64), (256, 32), (128, 16), (64, 8), (24, 4)] {
            for strategy in STRATEGIES {
                let o = opts(target, overlap, strategy);
                let chunks = chunk_document(&blocks, &o, &approx_token_count);
                check_invariants(&blocks, &o, &chunks, &approx_token_count);
                assert_eq!(
                    chunks,
                    chunk_document(&blocks, &o, &approx_token_count),
                    "deterministic"
                );
            }
        }
    }
}

#[test]
fn sections_stay_whole_when_they_fit() {
    let blocks = blocks_from_markdown(&fixture("active-inference.md"));
    let chunks = chunk_document(
        &blocks,
        &opts(256, 32, ChunkStrategy::Section),
        &approx_token_count,
    );
    // Sections that fit stay whole: "Perception as inference" with both its paragraphs.
    let perception = chunks
        .iter()
        .find(|c| {
            c.text
                .contains("Perception as inference\n\nThe idea that perception")
        })
        .expect("a chunk holds the 'Perception as inference' section");
    assert!(perception
        .text
        .contains("Clark (2013) gives a readable philosophical account"));
    // A chunk of whole sections starts with a heading and repeats nothing.
    let action = chunks
        .iter()
        .find(|c| c.text.starts_with("From perception to action"))
        .expect("a chunk starts with the 'From perception to action' heading");
    assert_eq!(action.strategy, "section");
    assert_eq!(action.overlap_bytes, 0);
    assert_eq!(
        action.heading_path,
        vec![
            "A reading guide to active inference",
            "From perception to action"
        ]
    );
    for c in &chunks {
        if c.strategy == "section" {
            assert_eq!(blocks[c.start_block].kind, NodeKind::Heading, "{}", c.text);
        }
    }
    let references: Vec<&Chunk> = chunks
        .iter()
        .filter(|c| c.heading_path.last().map(String::as_str) == Some("References"))
        .collect();
    assert!(
        references.len() >= 2,
        "the reference list is longer than one chunk"
    );
    assert!(
        references[0].text.starts_with("References\n\nBell, G. S."),
        "{}",
        references[0].text
    );
    assert_eq!(references[0].strategy, "paragraph");
    assert!(
        references[1].overlap_bytes > 0,
        "a section continued over chunks repeats the end of the previous one"
    );
    // The whole guide at 2048 tokens is one section chunk.
    let one = chunk_document(
        &blocks,
        &opts(2048, 64, ChunkStrategy::Section),
        &approx_token_count,
    );
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].strategy, "section");
    assert!(one[0]
        .text
        .starts_with("A reading guide to active inference\n\nBy Amara Okafor"));
}

#[test]
fn long_paragraphs_split_at_sentences_and_long_sentences_at_words() {
    let blocks = blocks_from_markdown(&fixture("field-manual.md"));
    let o = opts(256, 32, ChunkStrategy::Section);
    let chunks = chunk_document(&blocks, &o, &approx_token_count);
    // The installation paragraph is longer than a chunk: it is cut between sentences.
    let install: Vec<&Chunk> = chunks
        .iter()
        .filter(|c| {
            c.text.contains("Choose a site") || c.text.contains("A new station is not counted")
        })
        .collect();
    assert!(install.len() >= 2, "{install:#?}");
    assert!(install.iter().all(|c| c.strategy == "length"));
    assert!(
        install[0]
            .text
            .starts_with("2. Installing a station\n\nChoose a site"),
        "{}",
        install[0].text
    );
    let cont = install[1];
    let own = &cont.text[cont.overlap_bytes..];
    assert!(own.chars().next().unwrap().is_uppercase(), "{own}");
    // Abbreviations do not end sentences: no chunk starts at "cm," "approx." or "et al."
    for c in &chunks {
        let own = &c.text[c.overlap_bytes..];
        for bad in [
            "the density of the surrounding",
            "(1980)",
            "R. Hill",
            "1 while wet soil",
        ] {
            assert!(
                !own.starts_with(bad),
                "cut after an abbreviation: {own:.60}"
            );
        }
    }
    // The station log line has no sentence boundary: it is cut at words, never inside one.
    let log: Vec<&Chunk> = chunks.iter().filter(|c| c.text.contains("NW-00")).collect();
    assert!(log.len() >= 2);
    for c in &log {
        assert!(c.token_count <= 256);
        let own = &c.text[c.overlap_bytes..];
        let first = own.split_whitespace().next().unwrap();
        let last = own.split_whitespace().last().unwrap();
        let source = &blocks[c.start_block].text;
        assert!(source.split_whitespace().any(|w| w == first), "{first}");
        assert!(
            blocks[c.end_block]
                .text
                .split_whitespace()
                .any(|w| w == last),
            "{last}"
        );
    }
    // The code block is kept whole: it fits.
    let code = chunks
        .iter()
        .find(|c| c.text.contains("[archive]"))
        .unwrap();
    assert!(code
        .text
        .contains("[archive]\npath = \"/srv/soil/raw\"\nkeep_days = 3650\n\n[checks]"));
}

#[test]
fn overlap_is_whole_sentences_of_the_previous_chunk() {
    let blocks = blocks_from_markdown(&fixture("field-manual.md"));
    let chunks = chunk_document(
        &blocks,
        &opts(128, 32, ChunkStrategy::Paragraph),
        &approx_token_count,
    );
    let with_overlap: Vec<&Chunk> = chunks.iter().filter(|c| c.overlap_bytes > 0).collect();
    assert!(with_overlap.len() >= 5);
    let mut sentence_overlaps = 0;
    for c in with_overlap {
        let overlap = c.text[..c.overlap_bytes].trim_end();
        if overlap.ends_with(['.', '?', '!', ')', ':']) || overlap.ends_with("```") {
            sentence_overlaps += 1;
        }
    }
    assert!(
        sentence_overlaps >= 3,
        "overlaps should end at sentence ends"
    );
}

#[test]
fn length_strategy_ignores_structure() {
    let blocks = blocks_from_markdown(&fixture("active-inference.md"));
    let chunks = chunk_document(
        &blocks,
        &opts(128, 16, ChunkStrategy::Length),
        &approx_token_count,
    );
    assert!(chunks.iter().all(|c| c.strategy == "length"));
    // Chunks are filled: all but the last hold most of the target.
    let n = chunks.len();
    let full = chunks[..n - 1]
        .iter()
        .filter(|c| c.token_count >= 96)
        .count();
    assert!(
        full * 10 >= (n - 1) * 8,
        "{full} of {} chunks are at least 3/4 full",
        n - 1
    );
}

#[test]
fn empty_and_tiny_documents() {
    let o = ChunkOptions::default();
    assert!(chunk_document(&[], &o, &approx_token_count).is_empty());
    let blank = vec![ChunkInput {
        text: "  \n".into(),
        heading_path: vec![],
        kind: NodeKind::Paragraph,
    }];
    assert!(chunk_document(&blank, &o, &approx_token_count).is_empty());
    let one = blocks_from_markdown("# Title\n\nOne line.");
    let c = chunk_document(&one, &o, &approx_token_count);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].text, "Title\n\nOne line.");
    assert_eq!((c[0].start_block, c[0].end_block), (0, 1));
    // A heading alone at the end is still chunked.
    let only = blocks_from_markdown("# Lonely heading");
    assert_eq!(
        chunk_document(&only, &o, &approx_token_count)[0].text,
        "Lonely heading"
    );
}

#[test]
fn ids_are_stable_uuids() {
    let a = chunk_id(
        "https://www.northwind.example/research/active-inference.html",
        0,
    );
    assert_eq!(
        a,
        chunk_id(
            "https://www.northwind.example/research/active-inference.html",
            0
        )
    );
    assert_ne!(
        a,
        chunk_id(
            "https://www.northwind.example/research/active-inference.html",
            1
        )
    );
    assert_eq!(a.len(), 36);
}
