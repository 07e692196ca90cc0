//! The local embedding provider: all-MiniLM-L6-v2 (a 6-layer BERT, 384 dimensions) on the
//! CPU, WordPiece with the `tokenizers` crate, mean pooling over the attention mask and L2
//! normalisation — the same steps as sentence-transformers. Two variants of the same
//! weights: [`Precision::Float32`] runs candle's BERT; [`Precision::Int8`] runs the linear
//! layers in 8-bit integers ([`BertInt8`]), one text per core, several times faster.

use super::bert_int8::{BertInt8, Scratch};
use super::pool::mean_pool_normalised;
use super::{EmbedError, EmbeddingProvider};
use candle_core::{Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, DTYPE};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

/// The arithmetic the model runs in. The variants give slightly different vectors, so each
/// has its own model name: vectors of the two never share an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// 32-bit floats throughout (candle's BERT): the reference.
    Float32,
    /// Linear layers in 8-bit integers (dynamic quantisation); cosine ≥ 0.99 to the
    /// reference on SciFact.
    Int8,
}

impl Precision {
    /// The model name stored beside each vector of this variant.
    pub fn model_name(self) -> &'static str {
        match self {
            Precision::Float32 => MiniLm::MODEL_NAME,
            Precision::Int8 => MiniLm::MODEL_NAME_INT8,
        }
    }

    /// A warning for running this variant on this CPU, if there is one: the int8 variant on
    /// a CPU with neither AVX-512 VNNI nor AVX2 runs portable code, far slower than float32.
    pub fn cpu_warning(self) -> Option<String> {
        let portable = kerai_kernels::Kernel::best() == kerai_kernels::Kernel::Portable;
        (self == Precision::Int8 && portable).then(|| {
            format!(
                "this CPU has neither AVX-512 VNNI nor AVX2, so the int8 model ({}) runs \
                 portable code, far slower than the float32 one; choose it with \
                 SELECT kerai.configure_embeddings('local', '{}')",
                MiniLm::MODEL_NAME_INT8,
                MiniLm::MODEL_NAME
            )
        })
    }

    /// The variant a model name stands for, if it is one of the local model's.
    pub fn from_model_name(name: &str) -> Option<Precision> {
        [Precision::Float32, Precision::Int8]
            .into_iter()
            .find(|p| p.model_name() == name)
    }

    /// The variant the `embedding_model` setting names for the local provider, or an error
    /// that lists the two.
    pub fn for_setting(model: &str) -> Result<Precision, String> {
        Precision::from_model_name(model).ok_or_else(|| {
            format!(
                "the local provider runs {} (the default) or {} (float32), not \"{model}\"",
                MiniLm::MODEL_NAME_INT8,
                MiniLm::MODEL_NAME
            )
        })
    }
}

enum Engine {
    Float32(BertModel),
    Int8(BertInt8),
}

/// sentence-transformers/all-MiniLM-L6-v2, loaded from a directory holding
/// `model.safetensors`, `tokenizer.json` and `config.json`.
pub struct MiniLm {
    engine: Engine,
    precision: Precision,
    /// Truncates at [`MiniLm::MAX_TOKENS`].
    tokenizer: Tokenizer,
    /// The same vocabulary without truncation or padding, for counting tokens.
    counter: Tokenizer,
    dims: usize,
    pad_id: u32,
    max_batch_tokens: usize,
}

fn read_file(path: PathBuf) -> Result<Vec<u8>, EmbedError> {
    if !path.is_file() {
        return Err(EmbedError::missing(&path));
    }
    std::fs::read(&path).map_err(|e| EmbedError::corrupt(&path, e))
}

impl MiniLm {
    /// The model name stored beside each vector of the float32 variant.
    pub const MODEL_NAME: &'static str = "sentence-transformers/all-MiniLM-L6-v2";
    /// The model name of the int8 variant.
    pub const MODEL_NAME_INT8: &'static str = "sentence-transformers/all-MiniLM-L6-v2:int8";
    /// Word pieces the model reads per text (special tokens included); the rest is cut off,
    /// as sentence-transformers does.
    pub const MAX_TOKENS: usize = 256;
    /// Word pieces (padding included) run through the model in one call, by default:
    /// texts are grouped by length so that a batch of long texts holds fewer of them.
    pub const MAX_BATCH_TOKENS: usize = 1024;

    /// Load the float32 model from `dir`. A missing file is reported with how to install it.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        Self::load_precision(dir, Precision::Float32)
    }

    /// Load the model from `dir` in the given precision.
    pub fn load_precision(dir: &Path, precision: Precision) -> Result<Self, EmbedError> {
        let config_path = dir.join("config.json");
        let tokenizer_path = dir.join("tokenizer.json");
        let weights_path = dir.join("model.safetensors");
        let config_bytes = read_file(config_path.clone())?;
        let tokenizer_bytes = read_file(tokenizer_path.clone())?;
        let weights = read_file(weights_path.clone())?;

        let config: Config = serde_json::from_slice(&config_bytes)
            .map_err(|e| EmbedError::corrupt(&config_path, e))?;
        let counter = Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| EmbedError::corrupt(&tokenizer_path, e))?;
        let mut counter = counter;
        counter.with_padding(None);
        counter
            .with_truncation(None)
            .map_err(|e| EmbedError::corrupt(&tokenizer_path, e))?;
        let mut tokenizer = counter.clone();
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: Self::MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| EmbedError::corrupt(&tokenizer_path, e))?;

        let device = Device::Cpu;
        let tensors = candle_core::safetensors::load_buffer(&weights, &device)
            .map_err(|e| EmbedError::corrupt(&weights_path, e))?;
        let engine = match precision {
            Precision::Int8 => Engine::Int8(BertInt8::load(tensors, &config, &weights_path)?),
            Precision::Float32 => {
                let vb = VarBuilder::from_tensors(tensors, DTYPE, &device);
                Engine::Float32(BertModel::load(vb, &config).map_err(|e| {
                    EmbedError::corrupt(
                        &weights_path,
                        format!("not a BERT model for config.json: {e}"),
                    )
                })?)
            }
        };
        Ok(MiniLm {
            engine,
            precision,
            tokenizer,
            counter,
            dims: config.hidden_size,
            pad_id: config.pad_token_id as u32,
            max_batch_tokens: Self::MAX_BATCH_TOKENS,
        })
    }

    /// Load the float32 model from [`super::model_dir`].
    pub fn load_default() -> Result<Self, EmbedError> {
        Self::load(&super::model_dir())
    }

    /// Run the int8 variant's linear layers on `kernel` instead of the fastest this CPU has
    /// (to compare kernels in one run). False for the float32 variant, or when this CPU
    /// cannot run `kernel`.
    pub fn force_int8_kernel(&mut self, kernel: kerai_kernels::Kernel) -> bool {
        match &mut self.engine {
            Engine::Int8(bert) => bert.force_kernel(kernel),
            Engine::Float32(_) => false,
        }
    }

    /// The variant loaded.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Change the batch size, in word pieces per model call (at least one text per call).
    pub fn set_max_batch_tokens(&mut self, tokens: usize) {
        self.max_batch_tokens = tokens.max(1);
    }

    /// Word pieces of `text` without special tokens or truncation: a token counter for
    /// chunking to this model's measure.
    pub fn count_tokens(&self, text: &str) -> usize {
        self.counter
            .encode(text, false)
            .map(|e| e.get_ids().len())
            .unwrap_or(0)
    }

    /// One batch through the float32 model: encodings padded to the longest of them.
    fn run_batch(&self, model: &BertModel, enc: &[&Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let seq = enc.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(enc.len() * seq);
        let mut mask = Vec::with_capacity(enc.len() * seq);
        for e in enc {
            let n = e.get_ids().len();
            ids.extend_from_slice(e.get_ids());
            ids.extend(std::iter::repeat_n(self.pad_id, seq - n));
            mask.extend(std::iter::repeat_n(1u32, n));
            mask.extend(std::iter::repeat_n(0u32, seq - n));
        }
        let model_err = |e: candle_core::Error| EmbedError::Model(e.to_string());
        let device = &model.device;
        let shape = (enc.len(), seq);
        let ids_t = Tensor::from_vec(ids, shape, device).map_err(model_err)?;
        let mask_t = Tensor::from_vec(mask.clone(), shape, device).map_err(model_err)?;
        let types_t = ids_t.zeros_like().map_err(model_err)?;
        let hidden = model
            .forward(&ids_t, &types_t, Some(&mask_t))
            .map_err(model_err)?;
        let flat: Vec<f32> = hidden
            .flatten_all()
            .and_then(|t| t.to_vec1())
            .map_err(model_err)?;
        let per_text = seq * self.dims;
        Ok((0..enc.len())
            .map(|k| {
                mean_pool_normalised(
                    &flat[k * per_text..(k + 1) * per_text],
                    &mask[k * seq..(k + 1) * seq],
                    self.dims,
                )
            })
            .collect())
    }

    /// The int8 model over `enc`, one text at a time on each core, longest texts first.
    /// The calling thread takes part and is the one that checks for cancellation; when it
    /// stops (an error or a cancel), the other threads stop after their current text.
    fn run_int8(&self, bert: &BertInt8, enc: &[Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut order: Vec<usize> = (0..enc.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(enc[i].get_ids().len()));
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, enc.len().max(1));
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        // Whichever thread ends first, by an error, a panic or a cancel, stops the others
        // after their current text (a thread that ends normally found the queue empty).
        struct StopOnDrop<'a>(&'a AtomicBool);
        impl Drop for StopOnDrop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
            }
        }
        let work = |main: bool| -> Result<Vec<(usize, Vec<f32>)>, EmbedError> {
            let _stop_others = StopOnDrop(&stop);
            let mut scratch = Scratch::default();
            let mut out = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                if main {
                    crate::interrupt::check();
                }
                let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    break;
                };
                out.push((i, bert.embed_ids(enc[i].get_ids(), &mut scratch)?));
            }
            Ok(out)
        };
        let mut out = vec![Vec::new(); enc.len()];
        std::thread::scope(|scope| {
            // Helpers start with the signals blocked (they inherit this thread's mask, which
            // is restored right after), so a Postgres backend's signal handlers only ever run
            // on its own thread. A helper the system refuses is simply not there.
            let helpers: Vec<_> = crate::interrupt::with_signals_blocked(|| {
                (1..threads)
                    .filter_map(|_| {
                        std::thread::Builder::new()
                            .name("kerai-embed".into())
                            .spawn_scoped(scope, || work(false))
                            .ok()
                    })
                    .collect()
            });
            let mut parts = vec![work(true)];
            for h in helpers {
                parts.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            }
            for part in parts {
                for (i, v) in part? {
                    out[i] = v;
                }
            }
            Ok(out)
        })
    }
}

impl EmbeddingProvider for MiniLm {
    fn name(&self) -> &str {
        "local"
    }

    fn model_name(&self) -> &str {
        self.precision.model_name()
    }

    fn dimensions(&self) -> usize {
        self.dims
    }

    /// Texts are sorted by length and run in batches of at most `max_batch_tokens` word
    /// pieces (padding included), so little padding is computed; the vectors come back in
    /// the order of `texts`.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Model(format!("tokenizing failed: {e}")))?;
        let model = match &self.engine {
            Engine::Int8(bert) => return self.run_int8(bert, &enc),
            Engine::Float32(model) => model,
        };
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| enc[i].get_ids().len());
        let mut out = vec![Vec::new(); texts.len()];
        let mut start = 0;
        while start < order.len() {
            // Sorted ascending: the last text of a group is its longest.
            let mut end = start + 1;
            while end < order.len()
                && (end + 1 - start) * enc[order[end]].get_ids().len() <= self.max_batch_tokens
            {
                end += 1;
            }
            crate::interrupt::check();
            let group: Vec<&Encoding> = order[start..end].iter().map(|&i| &enc[i]).collect();
            for (&i, v) in order[start..end].iter().zip(self.run_batch(model, &group)?) {
                out[i] = v;
            }
            start = end;
        }
        Ok(out)
    }
}
