//! Embedding throughput of the local model (all-MiniLM-L6-v2 on the CPU with candle):
//! texts one at a time (the baseline) against batched calls, on short texts (SciFact
//! claims, ~20 word pieces) and long ones (SciFact abstracts, cut at 256 word pieces).
//! The machine is shared and noisy: read the ratios, measured in the same run.
//!
//!     scripts/install-model.sh   # once
//!     cargo bench -p kerai-core --bench embed
//!
//! Also times the text side of ingestion on the same abstracts: chunking (approximate
//! counter) and rule-based entity extraction, as MB/s.

use std::hint::black_box;
use std::io::Read;
use std::time::{Duration, Instant};

use kerai_core::facts::entities;
use kerai_core::markdown::NodeKind;
use kerai_core::retrieval::chunk::{approx_token_count, chunk_document, ChunkInput, ChunkOptions};
use kerai_core::retrieval::embed::{
    cosine, model_dir, EmbeddingProvider, Kernel, MiniLm, Precision,
};
use kerai_core::shared_data::shared_path;
use serde_json::Value;

fn scifact_corpus(n: usize) -> Vec<String> {
    let gz = std::fs::read(shared_path("bench/retrieval/scifact/corpus.jsonl.gz")).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .take(n)
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            format!(
                "{} {}",
                v["title"].as_str().unwrap(),
                v["text"].as_str().unwrap()
            )
        })
        .collect()
}

fn scifact_queries(n: usize) -> Vec<String> {
    let text =
        std::fs::read_to_string(shared_path("bench/retrieval/scifact/queries.jsonl")).unwrap();
    text.lines()
        .take(n)
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["text"].as_str().unwrap().to_string()
        })
        .collect()
}

fn rate(n: usize, t: Duration) -> f64 {
    n as f64 / t.as_secs_f64()
}

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// One by one (the baseline), then batched with several batch sizes (word pieces per call).
fn compare(m: &mut MiniLm, label: &str, texts: &[String]) {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let pieces: usize = refs.iter().map(|t| m.count_tokens(t).min(254) + 2).sum();
    let one = time(|| {
        for t in &refs {
            black_box(m.embed(t).unwrap());
        }
    });
    println!(
        "{label:<34} {:>4} texts, {:>5.1} word pieces each: one by one {:>6.1} texts/s",
        refs.len(),
        pieces as f64 / refs.len() as f64,
        rate(refs.len(), one)
    );
    for budget in [512, 1024, 4096] {
        m.set_max_batch_tokens(budget);
        let batched = time(|| {
            black_box(m.embed_batch(&refs).unwrap());
        });
        println!(
            "{:<34} batches of <= {budget:>4} word pieces {:>6.1} texts/s   ratio to one by one {:>4.2}x",
            "",
            rate(refs.len(), batched),
            one.as_secs_f64() / batched.as_secs_f64()
        );
    }
    m.set_max_batch_tokens(MiniLm::MAX_BATCH_TOKENS);
}

/// The int8 variant against the float32 reference on the same texts: speed (batched, both)
/// and each vector's cosine to the reference.
fn compare_int8(f32_model: &MiniLm, int8: &MiniLm, label: &str, texts: &[String]) {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut want = Vec::new();
    let mut got = Vec::new();
    let t32 = time(|| want = f32_model.embed_batch(&refs).unwrap());
    let t8 = time(|| got = int8.embed_batch(&refs).unwrap());
    let cos: Vec<f32> = want.iter().zip(&got).map(|(a, b)| cosine(a, b)).collect();
    let min = cos.iter().copied().fold(1f32, f32::min);
    let mean = cos.iter().sum::<f32>() / cos.len() as f32;
    println!(
        "{label:<34} float32 {:>6.1} texts/s   int8 {:>6.1} texts/s   ratio {:>4.2}x   cosine to float32 min {min:.4} mean {mean:.4}",
        rate(refs.len(), t32),
        rate(refs.len(), t8),
        t32.as_secs_f64() / t8.as_secs_f64()
    );
}

fn main() {
    let load_start = Instant::now();
    let mut m = MiniLm::load_default().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    println!(
        "model {} ({} dimensions) loaded in {:.2} s",
        m.model_name(),
        m.dimensions(),
        load_start.elapsed().as_secs_f64()
    );
    // Warm up caches and thread pools.
    m.embed_batch(&["warm up", "the model"]).unwrap();

    let queries = scifact_queries(128);
    let docs = scifact_corpus(64);
    let int8 = MiniLm::load_precision(&kerai_core::retrieval::embed::model_dir(), Precision::Int8)
        .unwrap();
    int8.embed_batch(&["warm up", "the model"]).unwrap();
    if std::env::var_os("KERAI_BENCH_INT8_PROFILE").is_some() {
        let texts = scifact_corpus(256);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let t = time(|| {
            black_box(int8.embed_batch(&refs).unwrap());
        });
        println!("int8: {:.1} abstracts/s", rate(refs.len(), t));
        return;
    }
    compare_int8(&m, &int8, "int8, short: SciFact claims", &queries);
    let abstracts = scifact_corpus(128);
    compare_int8(&m, &int8, "int8, long: SciFact abstracts", &abstracts);
    // The slower integer kernels this CPU also runs, on the same texts (same integers).
    for kernel in [Kernel::Avx2, Kernel::Portable] {
        if kernel == Kernel::best() || !kernel.available() {
            continue;
        }
        let mut forced = MiniLm::load_precision(&model_dir(), Precision::Int8).unwrap();
        assert!(forced.force_int8_kernel(kernel));
        let n = if kernel == Kernel::Portable { 8 } else { 128 };
        let label = format!("int8 {kernel:?} kernel: abstracts");
        compare_int8(&m, &forced, &label, &abstracts[..n]);
    }
    if std::env::var_os("KERAI_BENCH_INT8_ONLY").is_some() {
        return;
    }
    compare(&mut m, "short: SciFact claims", &queries);
    compare(&mut m, "long: SciFact abstracts (<=256)", &docs);

    // The text side of ingestion, on 512 abstracts.
    let corpus = scifact_corpus(512);
    let bytes: usize = corpus.iter().map(String::len).sum();
    let blocks: Vec<ChunkInput> = corpus
        .iter()
        .map(|t| ChunkInput {
            text: t.clone(),
            heading_path: vec![],
            kind: NodeKind::Paragraph,
        })
        .collect();
    let chunking = time(|| {
        black_box(chunk_document(
            &blocks,
            &ChunkOptions::default(),
            &approx_token_count,
        ));
    });
    let counting = time(|| {
        for b in &blocks {
            black_box(approx_token_count(&b.text));
        }
    });
    println!(
        "chunking 512 abstracts ({:.2} MB)      {:>7.1} MB/s   baseline: counting their tokens once {:>7.1} MB/s   ratio {:>4.2}x",
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / chunking.as_secs_f64(),
        bytes as f64 / 1e6 / counting.as_secs_f64(),
        chunking.as_secs_f64() / counting.as_secs_f64()
    );
    let ents = time(|| {
        for t in &corpus {
            black_box(entities(t));
        }
    });
    println!(
        "entities in 512 abstracts            {:>7.1} MB/s   ({:.2} ms per abstract)",
        bytes as f64 / 1e6 / ents.as_secs_f64(),
        ents.as_secs_f64() * 1e3 / corpus.len() as f64
    );
    // Embedding the whole SciFact corpus at the measured batched rate.
    let t = time(|| {
        let refs: Vec<&str> = corpus[..128].iter().map(String::as_str).collect();
        black_box(m.embed_batch(&refs).unwrap());
    });
    println!(
        "estimated time to embed the 5,183 SciFact abstracts: {:.0} s (batched, from 128 abstracts)",
        t.as_secs_f64() / 128.0 * 5183.0
    );
}
