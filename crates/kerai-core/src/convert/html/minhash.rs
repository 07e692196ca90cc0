//! MinHash signatures of short texts (character 4-grams of the normalised text) and a
//! banded index that finds earlier near-duplicates (estimated Jaccard similarity ≥ a
//! threshold).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Hash functions per signature.
pub const PERMUTATIONS: usize = 64;
/// Bands of the LSH index (`PERMUTATIONS / BANDS` rows each): pairs at similarity 0.95 share
/// a band with probability above 0.999.
const BANDS: usize = 16;
const ROWS: usize = PERMUTATIONS / BANDS;
/// Characters per shingle.
const SHINGLE: usize = 4;

/// A MinHash signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature(pub [u64; PERMUTATIONS]);

/// The splitmix64 finaliser (also used by `site::near_duplicates`, whose stored signatures
/// depend on it never changing).
pub(crate) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d049bb133111eb);
    x ^ (x >> 31)
}

fn hash_str(s: &[char]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// Lower case, alphanumerics only, single spaces.
pub fn normalize(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The signature of `text` (after [`normalize`]).
pub fn signature(text: &str) -> Signature {
    let norm: Vec<char> = normalize(text).chars().collect();
    let mut sig = [u64::MAX; PERMUTATIONS];
    let mut add = |h: u64| {
        for (i, slot) in sig.iter_mut().enumerate() {
            let v = mix(h ^ (i as u64).wrapping_mul(0x9e3779b97f4a7c15));
            if v < *slot {
                *slot = v;
            }
        }
    };
    if norm.len() <= SHINGLE {
        add(hash_str(&norm));
    } else {
        for w in norm.windows(SHINGLE) {
            add(hash_str(w));
        }
    }
    Signature(sig)
}

/// Estimated Jaccard similarity of two signatures.
pub fn similarity(a: &Signature, b: &Signature) -> f64 {
    a.0.iter().zip(b.0.iter()).filter(|(x, y)| x == y).count() as f64 / PERMUTATIONS as f64
}

/// Signatures seen so far, indexed by band.
#[derive(Default)]
pub struct DedupIndex {
    signatures: Vec<Signature>,
    buckets: HashMap<(usize, u64), Vec<usize>>,
}

impl DedupIndex {
    /// The index of an earlier signature at least `threshold` similar to `sig`, else adds
    /// `sig` and returns `None`.
    pub fn check_and_add(&mut self, sig: Signature, threshold: f64) -> Option<usize> {
        let keys: Vec<(usize, u64)> = (0..BANDS)
            .map(|b| {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                sig.0[b * ROWS..(b + 1) * ROWS].hash(&mut h);
                (b, h.finish())
            })
            .collect();
        let mut best: Option<usize> = None;
        for k in &keys {
            if let Some(list) = self.buckets.get(k) {
                for &i in list {
                    if similarity(&self.signatures[i], &sig) >= threshold
                        && best.is_none_or(|b| i < b)
                    {
                        best = Some(i);
                    }
                }
            }
        }
        if best.is_some() {
            return best;
        }
        let id = self.signatures.len();
        self.signatures.push(sig);
        for k in keys {
            self.buckets.entry(k).or_default().push(id);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_duplicates_are_found() {
        let a = signature("Computer Science and Engineering department, Building 4");
        let b = signature("computer science and engineering  department - building 4");
        assert_eq!(similarity(&a, &b), 1.0);
        let c = signature("Electrical and Computer Engineering");
        assert!(similarity(&a, &c) < 0.5);
        let mut idx = DedupIndex::default();
        assert_eq!(idx.check_and_add(a, 0.95), None);
        assert_eq!(idx.check_and_add(c, 0.95), None);
        assert_eq!(idx.check_and_add(b, 0.95), Some(0));
    }
}
