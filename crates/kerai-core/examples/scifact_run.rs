//! Dense retrieval on BEIR SciFact with the local model, as a TREC run for the shared scorer:
//!
//!     cargo run --release -p kerai-core --example scifact_run -- /tmp/minilm.run
//!     python3 ../shared/bench/retrieval/score_ndcg.py ../shared/bench/retrieval/scifact/qrels_test.tsv /tmp/minilm.run
//!
//! Documents are "title text" (cut at 256 word pieces by the model), queries the test
//! claims; ranking by cosine similarity, top 100 per query.

use kerai_core::retrieval::embed::{EmbeddingProvider, MiniLm};
use kerai_core::shared_data::shared_path;
use serde_json::Value;
use std::collections::HashSet;
use std::io::{Read, Write};
use std::time::Instant;

fn main() -> Result<(), String> {
    let out = std::env::args()
        .nth(1)
        .ok_or("usage: scifact_run OUT.run")?;
    let m = MiniLm::load_default().map_err(|e| e.to_string())?;
    let dir = shared_path("bench/retrieval/scifact");

    let gz = std::fs::read(dir.join("corpus.jsonl.gz")).map_err(|e| e.to_string())?;
    let mut corpus = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut corpus)
        .map_err(|e| e.to_string())?;
    let mut ids = Vec::new();
    let mut docs = Vec::new();
    for line in corpus.lines() {
        let v: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        ids.push(v["_id"].as_str().unwrap_or_default().to_string());
        docs.push(format!(
            "{} {}",
            v["title"].as_str().unwrap_or_default(),
            v["text"].as_str().unwrap_or_default()
        ));
    }

    let qrels = std::fs::read_to_string(dir.join("qrels_test.tsv")).map_err(|e| e.to_string())?;
    let test_ids: HashSet<&str> = qrels
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .collect();
    let queries_text =
        std::fs::read_to_string(dir.join("queries.jsonl")).map_err(|e| e.to_string())?;
    let mut queries = Vec::new();
    for line in queries_text.lines() {
        let v: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let id = v["_id"].as_str().unwrap_or_default().to_string();
        if test_ids.contains(id.as_str()) {
            queries.push((id, v["text"].as_str().unwrap_or_default().to_string()));
        }
    }

    let start = Instant::now();
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let mut doc_vecs = Vec::with_capacity(docs.len());
    for part in refs.chunks(256) {
        doc_vecs.extend(m.embed_batch(part).map_err(|e| e.to_string())?);
        eprint!("\r{} of {} documents", doc_vecs.len(), refs.len());
    }
    let encode_secs = start.elapsed().as_secs_f64();
    eprintln!();
    let q_refs: Vec<&str> = queries.iter().map(|(_, t)| t.as_str()).collect();
    let q_vecs = m.embed_batch(&q_refs).map_err(|e| e.to_string())?;

    let mut f = std::fs::File::create(&out).map_err(|e| format!("{out}: {e}"))?;
    for ((qid, _), q) in queries.iter().zip(&q_vecs) {
        let mut scored: Vec<(f32, usize)> = doc_vecs
            .iter()
            .enumerate()
            .map(|(i, d)| (q.iter().zip(d).map(|(a, b)| a * b).sum(), i))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (rank, (score, i)) in scored.iter().take(100).enumerate() {
            writeln!(
                f,
                "{qid} Q0 {} {} {score:.6} kerai-minilm",
                ids[*i],
                rank + 1
            )
            .map_err(|e| e.to_string())?;
        }
    }
    println!(
        "{} documents encoded in {encode_secs:.0} s ({:.1} docs/s), {} queries; run written to {out}",
        docs.len(),
        docs.len() as f64 / encode_secs,
        queries.len()
    );
    Ok(())
}
