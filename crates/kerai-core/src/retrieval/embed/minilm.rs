//! The local embedding provider: all-MiniLM-L6-v2 (a 6-layer BERT, 384 dimensions) with
//! candle on the CPU, WordPiece with the `tokenizers` crate, mean pooling over the attention
//! mask and L2 normalisation — the same steps as sentence-transformers.

use super::pool::mean_pool_normalised;
use super::{EmbedError, EmbeddingProvider};
use candle_core::{Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, DTYPE};
use std::path::{Path, PathBuf};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

/// sentence-transformers/all-MiniLM-L6-v2, loaded from a directory holding
/// `model.safetensors`, `tokenizer.json` and `config.json`.
pub struct MiniLm {
    model: BertModel,
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
    /// The model name stored beside each vector.
    pub const MODEL_NAME: &'static str = "sentence-transformers/all-MiniLM-L6-v2";
    /// Word pieces the model reads per text (special tokens included); the rest is cut off,
    /// as sentence-transformers does.
    pub const MAX_TOKENS: usize = 256;
    /// Word pieces (padding included) run through the model in one call, by default:
    /// texts are grouped by length so that a batch of long texts holds fewer of them.
    pub const MAX_BATCH_TOKENS: usize = 1024;

    /// Load the model from `dir`. A missing file is reported with how to install it.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
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
        let vb = VarBuilder::from_tensors(tensors, DTYPE, &device);
        let model = BertModel::load(vb, &config).map_err(|e| {
            EmbedError::corrupt(
                &weights_path,
                format!("not a BERT model for config.json: {e}"),
            )
        })?;
        Ok(MiniLm {
            model,
            tokenizer,
            counter,
            dims: config.hidden_size,
            pad_id: config.pad_token_id as u32,
            max_batch_tokens: Self::MAX_BATCH_TOKENS,
        })
    }

    /// Load the model from [`super::model_dir`].
    pub fn load_default() -> Result<Self, EmbedError> {
        Self::load(&super::model_dir())
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

    /// One batch through the model: encodings padded to the longest of them.
    fn run_batch(&self, enc: &[&Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
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
        let device = &self.model.device;
        let shape = (enc.len(), seq);
        let ids_t = Tensor::from_vec(ids, shape, device).map_err(model_err)?;
        let mask_t = Tensor::from_vec(mask.clone(), shape, device).map_err(model_err)?;
        let types_t = ids_t.zeros_like().map_err(model_err)?;
        let hidden = self
            .model
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
}

impl EmbeddingProvider for MiniLm {
    fn name(&self) -> &str {
        "local"
    }

    fn model_name(&self) -> &str {
        Self::MODEL_NAME
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
            for (&i, v) in order[start..end].iter().zip(self.run_batch(&group)?) {
                out[i] = v;
            }
            start = end;
        }
        Ok(out)
    }
}
