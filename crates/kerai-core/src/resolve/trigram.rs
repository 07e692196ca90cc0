//! Trigram similarity exactly as PostgreSQL's `pg_trgm` computes `similarity()`, so a match
//! scored here and a `similarity(a, b)` in SQL agree.
//!
//! pg_trgm (`trgm_op.c`, `generate_trgm`): the text is split into words at every character that
//! is not alphanumeric; each word is lower-cased and padded with two spaces in front and one
//! behind (`"word"` → `"  word "`); its trigrams are the runs of three consecutive characters;
//! the trigrams of all words form a set (duplicates removed). `similarity(a, b)` is
//! `shared / (|A| + |B| - shared)`, and `0` when either set is empty.
//!
//! Differences that do not change results: pg_trgm stores a trigram of multibyte characters as
//! a 3-byte CRC (collisions are negligible); it returns a `real` (float4), this an `f64` — round
//! to `f32` to compare digit for digit. Alphanumeric means Unicode alphanumeric, as in a UTF-8
//! database with a non-C locale (in the C locale pg_trgm treats only ASCII as letters).

use std::collections::BTreeSet;

use super::text::alnum_words;

/// One trigram: three characters, spaces included.
pub type Trigram = [char; 3];

/// The set of trigrams of `s`, as pg_trgm's `show_trgm(s)` lists them.
pub fn trigrams(s: &str) -> BTreeSet<Trigram> {
    let mut set = BTreeSet::new();
    for word in alnum_words(s) {
        let padded: Vec<char> = [' ', ' ']
            .into_iter()
            .chain(word.chars().flat_map(char::to_lowercase))
            .chain([' '])
            .collect();
        for w in padded.windows(3) {
            set.insert([w[0], w[1], w[2]]);
        }
    }
    set
}

/// pg_trgm's `similarity(a, b)`: shared trigrams over the union, in `[0, 1]`.
pub fn trigram_similarity(a: &str, b: &str) -> f64 {
    let (ta, tb) = (trigrams(a), trigrams(b));
    if ta.is_empty() || tb.is_empty() {
        return 0.0;
    }
    let shared = ta.intersection(&tb).count();
    shared as f64 / (ta.len() + tb.len() - shared) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(s: &str) -> Vec<String> {
        trigrams(s).iter().map(|t| t.iter().collect()).collect()
    }

    #[test]
    fn show_trgm_as_documented() {
        // PostgreSQL's pg_trgm documentation: show_trgm('word') = {"  w"," wo","ord","rd ","wor"}.
        assert_eq!(show("word"), vec!["  w", " wo", "ord", "rd ", "wor"]);
        // Case and punctuation are separators only.
        assert_eq!(show("Word!"), show("word"));
        assert_eq!(show("a"), vec!["  a", " a "]);
        assert!(show("!!").is_empty());
    }

    #[test]
    fn similarity_equals_pg_trgm() {
        // Values worked out by hand with pg_trgm's rules; the first is the example from the
        // pg_trgm documentation (similarity('word', 'two words') = 0.36363637 as float4).
        let cases: [(&str, &str, f64); 8] = [
            ("word", "two words", 4.0 / 11.0),
            ("abc", "abd", 2.0 / 6.0),
            ("cat", "cat", 1.0),
            ("Hello, World!", "hello world", 1.0),
            ("free-energy", "free energy", 1.0),
            ("aaa aaa", "aaa", 1.0),
            ("", "abc", 0.0),
            (
                // 26 trigrams, all in the 46 of the longer title.
                "The free-energy principle",
                "The free-energy principle: a unified brain theory?",
                26.0 / 46.0,
            ),
        ];
        for (a, b, expected) in cases {
            let got = trigram_similarity(a, b);
            assert!(
                (got - expected).abs() < 1e-12,
                "similarity({a:?}, {b:?}) = {got}, expected {expected}"
            );
            assert_eq!(got, trigram_similarity(b, a), "symmetric");
        }
        assert_eq!(
            trigram_similarity("word", "two words") as f32,
            0.363_636_37_f32
        );
    }

    #[test]
    fn unicode_words() {
        // "Schrödinger": ö is a letter, kept and lower-cased like pg_trgm in a UTF-8 locale.
        assert_eq!(trigram_similarity("SCHRÖDINGER", "schrödinger"), 1.0);
        assert!(trigram_similarity("Schrödinger", "Schrodinger") < 1.0);
    }
}
