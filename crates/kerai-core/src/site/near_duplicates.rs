//! Near-duplicate pages: a MinHash signature of a page's text (word 3-shingles of the
//! normalised text, 64 hash functions) and 8 band keys, stored with each page version so the
//! database can find earlier versions of the same target that share a band and compare their
//! signatures (estimated Jaccard similarity; [`THRESHOLD`] flags a near-duplicate).
//!
//! Unlike [`crate::convert::html::minhash`] (within one page, in memory), these signatures are
//! kept in the database and compared across runs and fetcher versions, so every hash here is
//! fixed (FNV-1a and splitmix64), never Rust's `DefaultHasher`.

use crate::convert::html::minhash::mix;
use serde::{Deserialize, Serialize};

/// Hash functions per signature.
pub const PERMUTATIONS: usize = 64;
/// Band keys per signature (`PERMUTATIONS / BANDS` values each). Two pages share a band with
/// probability 1 - (1 - s^8)^8 at similarity s: 0.989 at 0.9, 0.9998 at 0.95, but 0.13 at
/// 0.6 and 0.03 at 0.5, so the pages of one template (often 0.5 to 0.8 alike) seldom meet.
pub const BANDS: usize = 8;
const ROWS: usize = PERMUTATIONS / BANDS;
/// Words per shingle.
const SHINGLE: usize = 3;
/// Fewer words than this and a page is not judged (a short page is alike many others).
pub const MIN_WORDS: usize = 20;
/// Estimated Jaccard similarity at which a page is flagged a near-duplicate of another.
pub const THRESHOLD: f64 = 0.9;

/// A page's signature and band keys, as stored in `kerai.page_versions` (`minhash`,
/// `minhash_bands`); sent by the fetcher with each fetched page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageSignature {
    pub minhash: Vec<i64>,
    pub bands: Vec<i64>,
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// The words of `text`, lower-cased: runs of letters and digits. Kept here, apart from the
/// in-page MinHash's normaliser, so that a change there never changes a stored signature.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The signature of a page's text, or `None` when it has fewer than [`MIN_WORDS`] words.
pub fn page_signature(text: &str) -> Option<PageSignature> {
    let words = words(text);
    if words.len() < MIN_WORDS {
        return None;
    }
    let mut sig = [u64::MAX; PERMUTATIONS];
    for w in words.windows(SHINGLE) {
        let h = fnv1a(w.join(" ").as_bytes());
        for (i, slot) in sig.iter_mut().enumerate() {
            let v = mix(h ^ (i as u64 + 1).wrapping_mul(0x9e3779b97f4a7c15));
            if v < *slot {
                *slot = v;
            }
        }
    }
    let bands = (0..BANDS)
        .map(|b| {
            let mut bytes = Vec::with_capacity(8 * ROWS + 1);
            bytes.push(b as u8);
            for v in &sig[b * ROWS..(b + 1) * ROWS] {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            fnv1a(&bytes) as i64
        })
        .collect();
    Some(PageSignature {
        minhash: sig.iter().map(|v| *v as i64).collect(),
        bands,
    })
}

/// Estimated Jaccard similarity of two signatures (0 when their lengths differ).
pub fn similarity(a: &[i64], b: &[i64]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(n: usize, seed: usize) -> String {
        (0..n)
            .map(|i| format!("word{} ", (i * 7 + seed * 13) % 997))
            .collect()
    }

    #[test]
    fn the_same_text_is_the_same_signature_whatever_its_markup() {
        let a = page_signature(&page(300, 1)).unwrap();
        let b = page_signature(&page(300, 1).to_uppercase().replace(' ', " ,  ")).unwrap();
        assert_eq!(a, b);
        assert_eq!(similarity(&a.minhash, &b.minhash), 1.0);
    }

    #[test]
    fn a_page_with_a_changed_sentence_is_a_near_duplicate() {
        let base = page(600, 2);
        let edited = format!("{} a new closing sentence about opening hours", &base);
        let a = page_signature(&base).unwrap();
        let b = page_signature(&edited).unwrap();
        let s = similarity(&a.minhash, &b.minhash);
        assert!(s >= THRESHOLD, "similarity {s}");
        assert!(a.bands.iter().zip(&b.bands).any(|(x, y)| x == y));
    }

    #[test]
    fn different_pages_are_not() {
        let a = page_signature(&page(400, 3)).unwrap();
        let b = page_signature(&page(400, 50)).unwrap();
        assert!(similarity(&a.minhash, &b.minhash) < 0.5);
    }

    #[test]
    fn short_pages_are_not_judged() {
        assert!(page_signature("Contact us: call the office.").is_none());
        assert!(page_signature("").is_none());
    }

    /// The values are stored and compared across fetcher versions: they must never change.
    #[test]
    fn signatures_are_stable() {
        let s = page_signature(&page(50, 4)).unwrap();
        assert_eq!(s.minhash.len(), PERMUTATIONS);
        assert_eq!(s.bands.len(), BANDS);
        // FNV-1a's published test vectors.
        assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x85944171f73967e8);
        assert_eq!(
            (s.minhash[0], s.bands[0]),
            (399221570686277777, -2490886209899837820)
        );
    }
}
