//! Full-text ranking of one chunk for `kerai.search`: each query lexeme's
//! `ts_rank(fts, lexeme, 1)` computed as Postgres computes it, weighed by the lexeme's IDF and
//! summed. The caller reads the chunk's lexemes once for all of them (calling `ts_rank` once per
//! lexeme reads, and may decompress, the whole vector each time).

/// Postgres's default weights of the labels D, C, B and A (`ts_rank` without a weights array).
const LABEL_WEIGHTS: [f32; 4] = [0.1, 0.2, 0.4, 1.0];

/// pi^2 / 6, the limit of sum(1 / i^2), as `ts_rank` writes it.
const SUM_INVERSE_SQUARES: f64 = 1.644_934_066_85;

/// A lexeme stored without positions counts as one occurrence at position 0, label D.
const NO_POSITIONS: [u16; 1] = [0];

/// `ts_rank(fts, 'lexeme', 1)` for a lexeme found at `positions` in a vector of `doc_len`
/// positions, to the bit. `positions` are Postgres's stored positions (`WordEntryPos`: the label
/// in the top two bits); empty for a lexeme stored without positions. `doc_len` counts each
/// lexeme's positions, and one for a lexeme without (`cnt_length`).
pub fn lexeme_rank(positions: &[u16], doc_len: u32) -> f32 {
    let positions = if positions.is_empty() {
        &NO_POSITIONS[..]
    } else {
        positions
    };
    // Postgres sums in single precision, each occurrence weighed 1 / j^2, and counts the
    // occurrence of the highest label (the first of them) as if it came first.
    let (mut sum, mut top, mut top_at) = (0.0f32, -1.0f32, 0usize);
    for (j, &pos) in positions.iter().enumerate() {
        let weight = LABEL_WEIGHTS[usize::from(pos >> 14)];
        sum += weight / square(j);
        if weight > top {
            top = weight;
            top_at = j;
        }
    }
    let mut rank = (f64::from(top + sum - top / square(top_at)) / SUM_INVERSE_SQUARES) as f32;
    if rank < 0.0 {
        rank = 1e-20;
    }
    (f64::from(rank) / ((f64::from(doc_len) + 1.0).ln() / 2.0f64.ln())) as f32
}

/// (j + 1)^2 as `ts_rank` divides by it: an integer made a float.
fn square(j: usize) -> f32 {
    let n = j as i64 + 1;
    (n * n) as f32
}

/// The chunk's score: the sum over the query's lexemes, in order, of the lexeme's IDF times its
/// rank (0 for a lexeme the chunk lacks), as `sum(idf * ts_rank(fts, lexeme, 1))` gives it in
/// SQL. `found` gives each lexeme's positions in the chunk, `None` when it is not there.
pub fn chunk_score<'a>(
    found: impl IntoIterator<Item = (f64, Option<&'a [u16]>)>,
    doc_len: u32,
) -> f64 {
    found
        .into_iter()
        .map(|(idf, positions)| idf * positions.map_or(0.0, |p| f64::from(lexeme_rank(p, doc_len))))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: u16 = 3 << 14;
    const B: u16 = 2 << 14;

    // Expected values are Postgres 15's: SELECT ts_rank(v, 'lexeme', 1) on the vectors named.
    #[test]
    fn one_occurrence_at_label_a_in_a_vector_of_one_position() {
        // ts_rank('cat:1A'::tsvector, 'cat', 1) = 0.6079271
        assert_eq!(lexeme_rank(&[A | 1], 1), 0.607_927_1);
    }

    #[test]
    fn a_lexeme_without_positions_counts_once_at_label_d() {
        // ts_rank('cat dog'::tsvector, 'cat', 1) = 0.03835593
        assert_eq!(lexeme_rank(&[], 2), 0.038_355_93);
    }

    #[test]
    fn the_highest_label_counts_first_and_the_rest_fall_off_as_one_over_j_squared() {
        // ts_rank('cat:1B,5A,9A dog:2'::tsvector, 'cat', 1) = 0.395639
        assert_eq!(lexeme_rank(&[B | 1, A | 5, A | 9], 4), 0.395_639);
        // ts_rank('cat:1A,2A dog:3'::tsvector, 'cat', 1) = 0.37995443
        assert_eq!(lexeme_rank(&[A | 1, A | 2], 3), 0.379_954_43);
        // More occurrences rank higher; a longer chunk ranks lower.
        assert!(lexeme_rank(&[A | 1, A | 2], 4) > lexeme_rank(&[A | 1], 4));
        assert!(lexeme_rank(&[A | 1], 100) < lexeme_rank(&[A | 1], 4));
    }

    #[test]
    fn the_score_sums_idf_weighted_ranks_and_absent_lexemes_add_nothing() {
        let cat = [A | 1];
        let s = chunk_score([(2.0, Some(&cat[..])), (5.0, None)], 1);
        assert_eq!(s, 2.0 * f64::from(lexeme_rank(&cat, 1)));
        assert_eq!(chunk_score([(1.0, None)], 3), 0.0);
    }
}
