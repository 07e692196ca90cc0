//! The local embedding model against an independent reference: vectors computed by a plain
//! numpy BERT forward pass (tests/fixtures/embed/reference.py), and the similarity scores
//! sentence-transformers publishes for all-MiniLM-L6-v2.
//!
//! Needs the model files: run `scripts/install-model.sh` (or set KERAI_MODEL_DIR).

use kerai_core::retrieval::chunk::{
    blocks_from_markdown, chunk_document, ChunkOptions, ChunkStrategy,
};
use kerai_core::retrieval::embed::{
    cosine, model_dir, EmbedError, EmbeddingProvider, Kernel, LoadedModels, MiniLm, Precision,
};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::OnceLock;

fn model() -> &'static MiniLm {
    static MODEL: OnceLock<MiniLm> = OnceLock::new();
    MODEL.get_or_init(|| {
        MiniLm::load(&model_dir()).unwrap_or_else(|e| {
            panic!("{e}\n(the embedding tests need the model: run scripts/install-model.sh)")
        })
    })
}

fn int8_model() -> &'static MiniLm {
    static MODEL: OnceLock<MiniLm> = OnceLock::new();
    MODEL.get_or_init(|| {
        MiniLm::load_precision(&model_dir(), Precision::Int8).unwrap_or_else(|e| {
            panic!("{e}\n(the embedding tests need the model: run scripts/install-model.sh)")
        })
    })
}

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

struct Reference {
    text: String,
    tokens: usize,
    vector: Vec<f32>,
}

fn references() -> Vec<Reference> {
    let raw = std::fs::read_to_string(fixture("embed/reference.json")).expect("reference.json");
    let v: Value = serde_json::from_str(&raw).expect("reference.json is JSON");
    v["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .map(|r| Reference {
            text: r["text"].as_str().expect("text").to_string(),
            tokens: r["tokens"].as_u64().expect("tokens") as usize,
            vector: r["embedding"]
                .as_array()
                .expect("embedding")
                .iter()
                .map(|x| x.as_f64().expect("number") as f32)
                .collect(),
        })
        .collect()
}

#[test]
fn agrees_with_the_reference_implementation() {
    let m = model();
    assert_eq!(m.dimensions(), 384);
    assert_eq!(m.model_name(), "sentence-transformers/all-MiniLM-L6-v2");
    let refs = references();
    assert!(refs.len() >= 5);
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    let batch = m.embed_batch(&texts).expect("embed batch");
    for (r, v) in refs.iter().zip(&batch) {
        assert_eq!(v.len(), 384);
        let c = cosine(v, &r.vector);
        let max_diff = v
            .iter()
            .zip(&r.vector)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        let head: String = r.text.chars().take(50).collect();
        println!(
            "cosine {c:.7} max |diff| {max_diff:.2e} tokens {:>3} {head:?}",
            r.tokens
        );
        assert!(c >= 0.999, "cosine {c} with the reference for {:?}", r.text);
        assert!(
            max_diff < 1e-4,
            "largest difference {max_diff} for {:?}",
            r.text
        );
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "not unit length: {norm}");
        // The reference counted the same word pieces (special tokens included, cut at 256).
        assert_eq!(
            (m.count_tokens(&r.text) + 2).min(MiniLm::MAX_TOKENS),
            r.tokens,
            "{:?}",
            r.text
        );
    }
}

#[test]
fn int8_variant_agrees_with_the_reference() {
    let m = int8_model();
    assert_eq!(
        m.model_name(),
        "sentence-transformers/all-MiniLM-L6-v2:int8"
    );
    assert_eq!(m.precision(), Precision::Int8);
    let refs = references();
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    // Several texts at once run on several threads; each vector is the one it gets alone.
    let batch = m.embed_batch(&texts).expect("embed batch");
    for (r, v) in refs.iter().zip(&batch) {
        let c = cosine(v, &r.vector);
        println!("int8 cosine {c:.5} tokens {:>3}", r.tokens);
        assert!(c >= 0.99, "cosine {c} with the reference for {:?}", r.text);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "not unit length: {norm}");
        assert_eq!(v, &m.embed(&r.text).expect("embed one"), "{:?}", r.text);
    }
    // sentence-transformers' published scores hold to 0.01.
    let v = m
        .embed_batch(&["The new movie is awesome", "The new movie is so great"])
        .expect("embed");
    assert!((cosine(&v[0], &v[1]) - 0.8939).abs() < 0.01);
    assert!(m.embed_batch(&[]).expect("empty batch").is_empty());
}

/// The integer kernels give the same sums, so every kernel this CPU runs gives the same
/// vectors, bit for bit.
#[test]
fn every_int8_kernel_gives_the_same_vectors() {
    let texts = [
        "Lymphocytes regulate the immune response.",
        "short",
        "a b c d e f g",
    ];
    let want = int8_model().embed_batch(&texts).expect("embed");
    for kernel in [Kernel::Vnni, Kernel::Avx2, Kernel::Portable] {
        let mut m = MiniLm::load_precision(&model_dir(), Precision::Int8).expect("load");
        if !m.force_int8_kernel(kernel) {
            println!("this CPU has no {kernel:?} kernel");
            continue;
        }
        assert_eq!(m.embed_batch(&texts).expect("embed"), want, "{kernel:?}");
    }
    let mut float = MiniLm::load_precision(&model_dir(), Precision::Float32).expect("load");
    assert!(!float.force_int8_kernel(Kernel::Portable));
}

/// A process keeps one model per variant: a second load of the same variant gives way to the
/// first.
#[test]
fn loaded_models_keep_one_per_variant() {
    let cache = LoadedModels::new();
    assert!(cache.get(Precision::Int8).is_none());
    let load = |p| MiniLm::load_precision(&model_dir(), p).expect("load");
    let first = cache.keep(load(Precision::Int8));
    let second = cache.keep(load(Precision::Int8));
    assert!(std::sync::Arc::ptr_eq(&first, &second));
    let float = cache.keep(load(Precision::Float32));
    assert_eq!(float.precision(), Precision::Float32);
    assert!(std::sync::Arc::ptr_eq(
        &cache.get(Precision::Int8).unwrap(),
        &first
    ));
}

#[test]
fn variants_are_named_apart() {
    assert_eq!(
        Precision::for_setting("sentence-transformers/all-MiniLM-L6-v2"),
        Ok(Precision::Float32)
    );
    assert_eq!(
        Precision::for_setting("sentence-transformers/all-MiniLM-L6-v2:int8"),
        Ok(Precision::Int8)
    );
    assert_eq!(Precision::Float32.cpu_warning(), None);
    match Precision::Int8.cpu_warning() {
        None => assert_ne!(
            kerai_core::retrieval::embed::Kernel::best(),
            kerai_core::retrieval::embed::Kernel::Portable
        ),
        Some(w) => assert!(
            w.contains("VNNI") && w.contains("configure_embeddings"),
            "{w}"
        ),
    }
    let e = Precision::for_setting("text-embedding-3-small").unwrap_err();
    assert!(
        e.contains(":int8") && e.contains("text-embedding-3-small"),
        "{e}"
    );
    let e = MiniLm::load_precision(&std::env::temp_dir().join("kerai-none"), Precision::Int8)
        .err()
        .expect("no model there");
    assert!(e.to_string().contains("scripts/install-model.sh"), "{e}");
}

#[test]
fn batching_and_padding_do_not_change_vectors() {
    let m = model();
    let refs = references();
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    let batch = m.embed_batch(&texts).expect("embed batch");
    for (t, b) in texts.iter().zip(&batch) {
        let single = m.embed(t).expect("embed one");
        assert!(cosine(&single, b) > 0.99999, "{t:?}");
    }
    assert!(m.embed_batch(&[]).expect("empty batch").is_empty());
}

#[test]
fn published_similarity_scores() {
    // sentence-transformers' own examples for all-MiniLM-L6-v2.
    let m = model();
    for (a, b, score) in [
        (
            "The new movie is awesome",
            "The new movie is so great",
            0.8939,
        ),
        (
            "The cat sits outside",
            "The cat plays in the garden",
            0.6788,
        ),
        ("I love pasta", "Do you like pizza?", 0.5096),
    ] {
        let v = m.embed_batch(&[a, b]).expect("embed");
        let got = cosine(&v[0], &v[1]);
        assert!(
            (got - score).abs() < 0.001,
            "{a} / {b}: {got}, published {score}"
        );
    }
}

#[test]
fn related_texts_are_closer() {
    let m = model();
    let v = m
        .embed_batch(&[
            "Vitamin D supplementation and bone fractures in the elderly",
            "Older adults who take vitamin D break fewer bones.",
            "The lab houses a 7 tesla MRI scanner.",
        ])
        .expect("embed");
    assert!(cosine(&v[0], &v[1]) > cosine(&v[0], &v[2]) + 0.3);
}

#[test]
fn missing_and_corrupt_models_say_what_to_do() {
    let dir = std::env::temp_dir().join(format!("kerai-no-model-{}", std::process::id()));
    let e = MiniLm::load(&dir).err().expect("no model there");
    assert!(matches!(e, EmbedError::MissingModel { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("config.json") && msg.contains("scripts/install-model.sh"),
        "{msg}"
    );

    std::fs::create_dir_all(&dir).unwrap();
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        std::fs::write(dir.join(f), b"{not json").unwrap();
    }
    let e = MiniLm::load(&dir).err().expect("corrupt model");
    let msg = e.to_string();
    assert!(
        msg.starts_with("corrupt or unsupported document: ") && msg.contains("config.json"),
        "{msg}"
    );
    let real = model_dir();
    std::fs::copy(real.join("config.json"), dir.join("config.json")).unwrap();
    std::fs::copy(real.join("tokenizer.json"), dir.join("tokenizer.json")).unwrap();
    let msg = MiniLm::load(&dir)
        .err()
        .expect("corrupt weights")
        .to_string();
    assert!(msg.contains("model.safetensors"), "{msg}");
    let msg = MiniLm::load_precision(&dir, Precision::Int8)
        .err()
        .expect("corrupt weights, int8")
        .to_string();
    assert!(
        msg.contains("model.safetensors") && msg.contains("make setup"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn chunks_fit_the_model_when_counted_with_its_tokenizer() {
    let m = model();
    let md = std::fs::read_to_string(fixture("chunk/field-manual.md")).unwrap();
    let blocks = blocks_from_markdown(&md);
    // 254 word pieces + [CLS] + [SEP] = the model's 256: nothing is cut off.
    let opts = ChunkOptions {
        target_tokens: 254,
        overlap_tokens: 32,
        strategy: ChunkStrategy::Section,
    };
    let count = |t: &str| m.count_tokens(t);
    let chunks = chunk_document(&blocks, &opts, &count);
    assert!(chunks.len() >= 8);
    for c in &chunks {
        assert!(
            c.token_count <= 254,
            "chunk {} has {} word pieces",
            c.index,
            c.token_count
        );
        assert_eq!(c.token_count, m.count_tokens(&c.text));
    }
    let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
    let vectors = m.embed_batch(&texts).expect("embed chunks");
    assert_eq!(vectors.len(), chunks.len());
    // The safety chunk is the closest to a question about tides.
    let q = m
        .embed("Is it safe to work alone at the salt marsh when the tide comes in?")
        .unwrap();
    let best = vectors
        .iter()
        .enumerate()
        .max_by(|a, b| cosine(&q, a.1).total_cmp(&cosine(&q, b.1)))
        .unwrap()
        .0;
    assert!(
        chunks[best].text.contains("Never work alone"),
        "{}",
        chunks[best].text
    );
}
