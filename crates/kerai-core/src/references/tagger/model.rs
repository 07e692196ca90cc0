//! The tagger's weights: per feature bucket one weight per label, label transitions, and
//! Viterbi decoding. Stored gzip-compressed: `KRT1`, bits, label count, start and transition
//! weights (f32), then `(bucket u32, scale f32, weights i8 × labels)` rows, little-endian; a
//! second pass, when there is one, follows in the same form.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Read;

use super::{Label, LABELS};

/// The share of the model's largest weight at or under which a bucket is not kept. The CRF
/// gives every feature seen in training a weight; at 3 % the shipped model's first pass keeps
/// about 180,000 buckets: 3 MB of file, and in memory 20 bytes a bucket (about 5.5 MB with the
/// hash table, in a backend that parses a reference).
pub const PRUNE: f32 = 0.03;

/// The same share for the second pass. Its features are mostly the first pass's labels, and
/// few of its buckets decide anything: cross-validated, pruning it at 8 % instead of 3 % keeps
/// every field within 0.003 and its buckets fall from about 180,000 to 35,000 (the file from
/// 6.3 MB to 3.7 MB).
pub const PRUNE_SECOND: f32 = 0.08;

fn prune(var: &str, default: f32) -> f32 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A bucket's weights, one per label, quantised to i8 with the bucket's own scale.
#[derive(Debug, Clone, Copy)]
pub(super) struct Row {
    scale: f32,
    q: [i8; LABELS],
}

/// Hashes a feature bucket for the model's table. A bucket is already a hash of the feature,
/// so one multiply spreads it over the table's bits; with the standard SipHash a parse took
/// about half as long again.
#[derive(Default)]
pub(super) struct BucketHasher(u64);

impl Hasher for BucketHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Rows = HashMap<u32, Row, BuildHasherDefault<BucketHasher>>;

/// A trained tagger, as shipped: quantised, pruned weights.
#[derive(Debug, Clone, Default)]
pub struct Model {
    rows: Rows,
    start: [f32; LABELS],
    trans: [[f32; LABELS]; LABELS],
    /// The second pass, which reads this model's labels as features (stored after it).
    second: Option<Box<Model>>,
}

/// A model's weights in full precision, as training makes them.
#[derive(Debug, Clone, Default)]
pub struct Weights {
    pub(super) weights: HashMap<u32, [f32; LABELS]>,
    pub(super) start: [f32; LABELS],
    pub(super) trans: [[f32; LABELS]; LABELS],
}

impl Weights {
    /// The sum of `self` and `other` scaled by `k` (weights, start and transitions): two
    /// models over the same features mixed into one.
    pub fn mix(&self, other: &Weights, k: f32) -> Weights {
        let mut m = self.clone();
        for (b, w) in &other.weights {
            let row = m.weights.entry(*b).or_insert([0.0; LABELS]);
            for (a, x) in row.iter_mut().zip(w) {
                *a += k * x;
            }
        }
        for l in 0..LABELS {
            m.start[l] += k * other.start[l];
            for p in 0..LABELS {
                m.trans[p][l] += k * other.trans[p][l];
            }
        }
        m
    }

    /// The largest absolute weight.
    pub fn max_weight(&self) -> f32 {
        self.weights
            .values()
            .flat_map(|w| w.iter())
            .fold(0f32, |a, &x| a.max(x.abs()))
    }

    /// The shipped form: each bucket's weights quantised to i8 with the bucket's own scale;
    /// buckets whose largest weight is at or under [`PRUNE`] of the largest are left out.
    pub fn quantise(&self) -> Model {
        self.quantise_at(prune("KERAI_TAGGER_PRUNE", PRUNE))
    }

    /// [`Weights::quantise`] for a second pass: pruned at [`PRUNE_SECOND`].
    pub fn quantise_second(&self) -> Model {
        self.quantise_at(prune("KERAI_TAGGER_PRUNE_SECOND", PRUNE_SECOND))
    }

    fn quantise_at(&self, share: f32) -> Model {
        let floor = self.max_weight() * share;
        let rows = self
            .weights
            .iter()
            .filter_map(|(&b, w)| {
                let top = w.iter().fold(0f32, |a, &x| a.max(x.abs()));
                if top <= floor {
                    return None;
                }
                let scale = top / 127.0;
                let mut q = [0i8; LABELS];
                for (x, y) in q.iter_mut().zip(w) {
                    *x = (y / scale).round() as i8;
                }
                Some((b, Row { scale, q }))
            })
            .collect();
        Model {
            rows,
            start: self.start,
            trans: self.trans,
            second: None,
        }
    }
}

/// Why a model file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("reference tagger model: {0}")]
pub struct ModelError(String);

fn take<'a>(b: &mut &'a [u8], n: usize) -> Result<&'a [u8], ModelError> {
    if b.len() < n {
        return Err(ModelError("the file is truncated".into()));
    }
    let (a, rest) = b.split_at(n);
    *b = rest;
    Ok(a)
}

fn u32_of(b: &mut &[u8]) -> Result<u32, ModelError> {
    let a = take(b, 4)?;
    Ok(u32::from_le_bytes([a[0], a[1], a[2], a[3]]))
}

fn f32_of(b: &mut &[u8]) -> Result<f32, ModelError> {
    Ok(f32::from_bits(u32_of(b)?))
}

impl Model {
    /// How many feature buckets carry weights.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no bucket carries weights.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The second pass, if this model has one.
    pub fn second(&self) -> Option<&Model> {
        self.second.as_deref()
    }

    /// This model with `second` as its second pass.
    pub fn with_second(mut self, second: Model) -> Model {
        self.second = Some(Box::new(second));
        self
    }

    /// Reads a gzip-compressed model (and its second pass, when the file holds one).
    pub fn from_gzip(gz: &[u8]) -> Result<Model, ModelError> {
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(gz)
            .read_to_end(&mut raw)
            .map_err(|e| ModelError(format!("cannot decompress: {e}")))?;
        let mut b = raw.as_slice();
        let mut m = Model::read(&mut b)?;
        if !b.is_empty() {
            m.second = Some(Box::new(Model::read(&mut b)?));
        }
        if !b.is_empty() {
            return Err(ModelError("bytes after the second pass".into()));
        }
        Ok(m)
    }

    /// Reads one pass's weights from the head of `b`.
    fn read(b: &mut &[u8]) -> Result<Model, ModelError> {
        if take(b, 4)? != b"KRT1" {
            return Err(ModelError("not a kerai tagger model".into()));
        }
        let bits = u32_of(b)?;
        let labels = u32_of(b)? as usize;
        if bits != super::features::BITS || labels != LABELS {
            return Err(ModelError(format!(
                "built for {bits} bits and {labels} labels, this kerai reads {} and {LABELS}",
                super::features::BITS
            )));
        }
        let mut m = Model::default();
        for s in &mut m.start {
            *s = f32_of(b)?;
        }
        for row in &mut m.trans {
            for t in row.iter_mut() {
                *t = f32_of(b)?;
            }
        }
        let rows = u32_of(b)? as usize;
        // A damaged file may claim any count: reserve no more than its bytes can hold.
        m.rows.reserve(rows.min(b.len() / (8 + LABELS)));
        for _ in 0..rows {
            let bucket = u32_of(b)?;
            let scale = f32_of(b)?;
            let mut q = [0i8; LABELS];
            for (x, y) in q.iter_mut().zip(take(b, LABELS)?) {
                *x = *y as i8;
            }
            m.rows.insert(bucket, Row { scale, q });
        }
        Ok(m)
    }

    /// Writes the model (and its second pass) gzip-compressed.
    pub fn to_gzip(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out);
        if let Some(second) = &self.second {
            second.write(&mut out);
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut gz, &out).unwrap_or_else(|e| unreachable!("{e}"));
        gz.finish().unwrap_or_else(|e| unreachable!("{e}"))
    }

    /// Appends one pass's weights to `out`.
    fn write(&self, out: &mut Vec<u8>) {
        let mut rows: Vec<(u32, Row)> = self.rows.iter().map(|(&b, &r)| (b, r)).collect();
        rows.sort_by_key(|r| r.0);
        out.reserve(16 + rows.len() * (4 + 2 * LABELS));
        out.extend_from_slice(b"KRT1");
        out.extend_from_slice(&super::features::BITS.to_le_bytes());
        out.extend_from_slice(&(LABELS as u32).to_le_bytes());
        for s in &self.start {
            out.extend_from_slice(&s.to_le_bytes());
        }
        for row in &self.trans {
            for t in row {
                out.extend_from_slice(&t.to_le_bytes());
            }
        }
        out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
        for (b, r) in rows {
            out.extend_from_slice(&b.to_le_bytes());
            out.extend_from_slice(&r.scale.to_le_bytes());
            out.extend(r.q.iter().map(|&x| x as u8));
        }
    }

    /// Per-token label scores from the features.
    pub(super) fn emissions(&self, feats: &[Vec<u32>]) -> Vec<[f32; LABELS]> {
        feats
            .iter()
            .map(|fs| {
                let mut s = [0f32; LABELS];
                for f in fs {
                    if let Some(r) = self.rows.get(f) {
                        for (a, &q) in s.iter_mut().zip(&r.q) {
                            *a += f32::from(q) * r.scale;
                        }
                    }
                }
                s
            })
            .collect()
    }

    /// The best label sequence (Viterbi).
    pub fn decode(&self, feats: &[Vec<u32>]) -> Vec<Label> {
        viterbi(&self.emissions(feats), &self.start, &self.trans)
    }
}

/// The best label sequence for the per-token scores `em`.
pub(super) fn viterbi(
    em: &[[f32; LABELS]],
    start: &[f32; LABELS],
    trans: &[[f32; LABELS]; LABELS],
) -> Vec<Label> {
    let n = em.len();
    if n == 0 {
        return Vec::new();
    }
    let mut score = vec![[0f32; LABELS]; n];
    let mut back = vec![[0u8; LABELS]; n];
    for l in 0..LABELS {
        score[0][l] = start[l] + em[0][l];
    }
    for i in 1..n {
        for l in 0..LABELS {
            let (mut best, mut arg) = (f32::NEG_INFINITY, 0);
            for p in 0..LABELS {
                let s = score[i - 1][p] + trans[p][l];
                if s > best {
                    best = s;
                    arg = p;
                }
            }
            score[i][l] = best + em[i][l];
            back[i][l] = arg as u8;
        }
    }
    let mut l = (0..LABELS)
        .max_by(|&a, &b| score[n - 1][a].total_cmp(&score[n - 1][b]))
        .unwrap_or(0);
    let mut out = vec![Label::Other; n];
    for i in (0..n).rev() {
        out[i] = Label::ALL[l];
        l = back[i][l] as usize;
    }
    out
}
