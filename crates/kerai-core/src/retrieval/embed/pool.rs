//! Pooling token vectors into one sentence vector, and comparing sentence vectors.

/// Mean of the token vectors whose mask is 1, scaled to unit length (sentence-transformers'
/// `Pooling(mean)` + `Normalize`). `tokens` is row-major `[mask.len() × dims]`. A text with
/// no unmasked token, or a zero mean, gives the zero vector.
pub fn mean_pool_normalised(tokens: &[f32], mask: &[u32], dims: usize) -> Vec<f32> {
    let mut sum = vec![0f32; dims];
    let mut n = 0f32;
    for (row, &m) in tokens.chunks_exact(dims).zip(mask) {
        if m != 0 {
            n += 1.0;
            for (s, &x) in sum.iter_mut().zip(row) {
                *s += x;
            }
        }
    }
    if n == 0.0 {
        return sum;
    }
    let norm = sum.iter().map(|x| (x / n) * (x / n)).sum::<f32>().sqrt();
    if norm == 0.0 {
        return vec![0.0; dims];
    }
    sum.iter().map(|x| x / n / norm).collect()
}

/// Cosine similarity of two vectors of the same length (0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut ab, mut aa, mut bb) = (0f64, 0f64, 0f64);
    for (&x, &y) in a.iter().zip(b) {
        ab += x as f64 * y as f64;
        aa += x as f64 * x as f64;
        bb += y as f64 * y as f64;
    }
    if aa == 0.0 || bb == 0.0 {
        return 0.0;
    }
    (ab / (aa.sqrt() * bb.sqrt())) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_only_unmasked_rows() {
        let tokens = [3.0, 0.0, 1.0, 4.0, 100.0, 100.0];
        let v = mean_pool_normalised(&tokens, &[1, 1, 0], 2);
        // mean (2, 2) -> unit length
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert!((v[0] - h).abs() < 1e-6 && (v[1] - h).abs() < 1e-6, "{v:?}");
        assert_eq!(mean_pool_normalised(&tokens, &[0, 0, 0], 2), vec![0.0, 0.0]);
    }

    #[test]
    fn cosine_of_vectors() {
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-6);
        assert!(cosine(&[1.0, 0.0], &[0.0, 3.0]).abs() < 1e-6);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 1.0]), 0.0);
    }
}
