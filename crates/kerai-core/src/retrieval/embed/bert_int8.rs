//! A BERT encoder whose linear layers run in 8-bit integers ([`QLinear`]); embeddings,
//! attention, GELU and layer norms stay in `f32`. One text at a time, without padding:
//! callers run several texts on several threads.

use super::{mean_pool_normalised, EmbedError};
use candle_core::Tensor;
use candle_transformers::models::bert::{Config, HiddenAct};
use kerai_kernels::vecmath::{self, add_into};
use kerai_kernels::{Kernel, QLinear, QuantRows};
use std::collections::HashMap;
use std::path::Path;

struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
    eps: f32,
}

impl Norm {
    /// Layer norm of each row of `x`, in place.
    fn apply(&self, x: &mut [f32]) {
        vecmath::layer_norm(x, &self.weight, &self.bias, self.eps);
    }
}

struct Layer {
    /// Query, key and value in one: `[3h]` outputs.
    qkv: QLinear,
    out: QLinear,
    norm1: Norm,
    up: QLinear,
    down: QLinear,
    norm2: Norm,
}

/// Buffers of one text's forward pass, reused between texts.
#[derive(Default)]
pub struct Scratch {
    h: Vec<f32>,
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    tmp: Vec<f32>,
    up: Vec<f32>,
    scores: Vec<f32>,
    rows: QuantRows,
}

/// BERT (the all-MiniLM-L6-v2 shape: absolute positions, GELU, post-norm) for sentence
/// vectors: mean pooling and L2 normalisation of the last layer.
pub struct BertInt8 {
    words: Vec<f32>,
    positions: Vec<f32>,
    /// Token type 0 (single sentences).
    token_type: Vec<f32>,
    norm: Norm,
    layers: Vec<Layer>,
    hidden: usize,
    heads: usize,
    max_positions: usize,
}

fn take(
    t: &mut HashMap<String, Tensor>,
    name: &str,
    len: usize,
    path: &Path,
) -> Result<Vec<f32>, EmbedError> {
    let v = t
        .remove(name)
        .ok_or_else(|| EmbedError::corrupt(path, format!("the tensor {name} is missing")))?
        .flatten_all()
        .and_then(|x| x.to_dtype(candle_core::DType::F32))
        .and_then(|x| x.to_vec1::<f32>())
        .map_err(|e| EmbedError::corrupt(path, format!("the tensor {name}: {e}")))?;
    if v.iter().any(|x| !x.is_finite()) {
        return Err(EmbedError::corrupt(
            path,
            format!("the tensor {name} holds values that are not finite numbers"),
        ));
    }
    if v.len() != len {
        return Err(EmbedError::corrupt(
            path,
            format!(
                "the tensor {name} has {} values, config.json says {len}",
                v.len()
            ),
        ));
    }
    Ok(v)
}

impl BertInt8 {
    /// From the tensors of `model.safetensors` (at `path`, for errors) and `config.json`.
    pub fn load(
        mut t: HashMap<String, Tensor>,
        c: &Config,
        path: &Path,
    ) -> Result<Self, EmbedError> {
        let (h, inter) = (c.hidden_size, c.intermediate_size);
        let config = path.with_file_name("config.json");
        if c.num_attention_heads == 0
            || h % c.num_attention_heads != 0
            || h % 4 != 0
            || inter % 4 != 0
            || c.type_vocab_size == 0
        {
            return Err(EmbedError::corrupt(&config, "unsupported BERT sizes"));
        }
        if c.hidden_act != HiddenAct::Gelu {
            return Err(EmbedError::corrupt(
                &config,
                "the int8 model runs hidden_act \"gelu\" only; use the float32 model",
            ));
        }
        let eps = c.layer_norm_eps as f32;
        let norm = |t: &mut HashMap<String, Tensor>, p: &str| -> Result<Norm, EmbedError> {
            Ok(Norm {
                weight: take(t, &format!("{p}.weight"), h, path)?,
                bias: take(t, &format!("{p}.bias"), h, path)?,
                eps,
            })
        };
        let linear = |t: &mut HashMap<String, Tensor>, p: &str, n: usize, k: usize| {
            let w = take(t, &format!("{p}.weight"), n * k, path)?;
            let b = take(t, &format!("{p}.bias"), n, path)?;
            Ok::<_, EmbedError>(QLinear::new(&w, &b, n, k))
        };
        let mut layers = Vec::with_capacity(c.num_hidden_layers);
        for i in 0..c.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            let mut w = Vec::with_capacity(3 * h * h);
            let mut b = Vec::with_capacity(3 * h);
            for part in ["query", "key", "value"] {
                let q = format!("{p}.attention.self.{part}");
                w.extend(take(&mut t, &format!("{q}.weight"), h * h, path)?);
                b.extend(take(&mut t, &format!("{q}.bias"), h, path)?);
            }
            layers.push(Layer {
                qkv: QLinear::new(&w, &b, 3 * h, h),
                out: linear(&mut t, &format!("{p}.attention.output.dense"), h, h)?,
                norm1: norm(&mut t, &format!("{p}.attention.output.LayerNorm"))?,
                up: linear(&mut t, &format!("{p}.intermediate.dense"), inter, h)?,
                down: linear(&mut t, &format!("{p}.output.dense"), h, inter)?,
                norm2: norm(&mut t, &format!("{p}.output.LayerNorm"))?,
            });
        }
        let types = take(
            &mut t,
            "embeddings.token_type_embeddings.weight",
            c.type_vocab_size * h,
            path,
        )?;
        Ok(BertInt8 {
            words: take(
                &mut t,
                "embeddings.word_embeddings.weight",
                c.vocab_size * h,
                path,
            )?,
            positions: take(
                &mut t,
                "embeddings.position_embeddings.weight",
                c.max_position_embeddings * h,
                path,
            )?,
            token_type: types[..h].to_vec(),
            norm: norm(&mut t, "embeddings.LayerNorm")?,
            layers,
            hidden: h,
            heads: c.num_attention_heads,
            max_positions: c.max_position_embeddings,
        })
    }

    /// Run every linear layer on `kernel` (to compare kernels on one CPU), or return false
    /// when this CPU cannot.
    pub fn force_kernel(&mut self, kernel: Kernel) -> bool {
        self.layers.iter_mut().all(|l| {
            [&mut l.qkv, &mut l.out, &mut l.up, &mut l.down]
                .into_iter()
                .all(|q| q.force_kernel(kernel))
        })
    }

    /// The unit-length mean-pooled vector of one text's token ids.
    pub fn embed_ids(&self, ids: &[u32], s: &mut Scratch) -> Result<Vec<f32>, EmbedError> {
        let h = self.hidden;
        let seq = ids.len();
        if seq == 0 {
            return Ok(vec![0.0; h]);
        }
        if seq > self.max_positions {
            return Err(EmbedError::Model(format!(
                "{seq} tokens, the model reads at most {}",
                self.max_positions
            )));
        }
        s.h.clear();
        for (pos, &id) in ids.iter().enumerate() {
            let id = id as usize;
            let word = self.words.get(id * h..(id + 1) * h).ok_or_else(|| {
                EmbedError::Model(format!("token id {id} is not in the vocabulary"))
            })?;
            let p = &self.positions[pos * h..(pos + 1) * h];
            s.h.extend(
                word.iter()
                    .zip(p)
                    .zip(&self.token_type)
                    .map(|((a, b), c)| a + b + c),
            );
        }
        self.norm.apply(&mut s.h);
        for l in &self.layers {
            s.qkv.resize(seq * 3 * h, 0.0);
            l.qkv.forward(&s.h, &mut s.rows, &mut s.qkv);
            self.attention(seq, s);
            s.tmp.resize(seq * h, 0.0);
            l.out.forward(&s.ctx, &mut s.rows, &mut s.tmp);
            add_into(&mut s.h, &s.tmp);
            l.norm1.apply(&mut s.h);
            s.up.resize(seq * l.up.outputs(), 0.0);
            l.up.forward(&s.h, &mut s.rows, &mut s.up);
            vecmath::gelu(&mut s.up);
            l.down.forward(&s.up, &mut s.rows, &mut s.tmp);
            add_into(&mut s.h, &s.tmp);
            l.norm2.apply(&mut s.h);
        }
        // Every token counts: there is no padding.
        Ok(mean_pool_normalised(&s.h, &vec![1; seq], h))
    }

    /// Self-attention of every head over `s.qkv` (`[seq × 3h]`), into `s.ctx` (`[seq × h]`).
    fn attention(&self, seq: usize, s: &mut Scratch) {
        let h = self.hidden;
        let d = h / self.heads;
        let row = 3 * h;
        s.ctx.resize(seq * h, 0.0);
        s.scores.resize(seq * seq, 0.0);
        let scale = 1.0 / (d as f32).sqrt();
        for head in 0..self.heads {
            let q = s.qkv[head * d..].as_ptr();
            let k = s.qkv[h + head * d..].as_ptr();
            let v = s.qkv[2 * h + head * d..].as_ptr();
            // SAFETY: every matrix below is inside its buffer: q, k and v are `seq` rows of
            // `d` values with row stride 3h starting within the first row of `qkv`
            // (`seq × 3h`); scores is `seq × seq`; ctx is `seq × h`, written at column
            // head·d for `d` columns.
            unsafe {
                // scores = scale · Q Kᵀ
                gemm::gemm(
                    seq,
                    seq,
                    d,
                    s.scores.as_mut_ptr(),
                    1,
                    seq as isize,
                    false,
                    q,
                    1,
                    row as isize,
                    k,
                    row as isize,
                    1,
                    0.0,
                    scale,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                );
            }
            vecmath::softmax_rows(&mut s.scores, seq);
            // SAFETY: as above.
            unsafe {
                // ctx[:, head] = P V
                gemm::gemm(
                    seq,
                    d,
                    seq,
                    s.ctx[head * d..].as_mut_ptr(),
                    1,
                    h as isize,
                    false,
                    s.scores.as_ptr(),
                    1,
                    seq as isize,
                    v,
                    1,
                    row as isize,
                    0.0,
                    1.0,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                );
            }
        }
    }
}
