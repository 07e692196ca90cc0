//! The article-extraction-benchmark (AEB) metric, ported from `bench/aeb/score.py`: tokens are
//! `\w+` runs (Unicode), texts are compared as multisets of 4-token shingles, precision and
//! recall are averaged over pages, and F1 is taken of the two averages.

use std::collections::HashMap;

/// Whether `c` is a word character in the sense of Python's `\w` (alphanumeric or `_`).
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The `\w+` tokens of `text`.
pub fn tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| !is_word(c))
        .filter(|t| !t.is_empty())
        .collect()
}

fn shingles<'a>(toks: &[&'a str]) -> HashMap<Vec<&'a str>, u32> {
    let mut m = HashMap::new();
    if toks.is_empty() {
        return m;
    }
    if toks.len() < 4 {
        m.insert(toks.to_vec(), 1);
        return m;
    }
    for w in toks.windows(4) {
        *m.entry(w.to_vec()).or_insert(0) += 1;
    }
    m
}

/// One page's (true positive, false positive, false negative) shingle shares (summing to 1),
/// and whether the token sequences are equal.
pub fn page_counts(truth: &str, predicted: &str) -> (f64, f64, f64, bool) {
    let tt = tokens(truth);
    let pt = tokens(predicted);
    let t = shingles(&tt);
    let p = shingles(&pt);
    let mut tp = 0.0;
    for (k, &c) in &p {
        if let Some(&d) = t.get(k) {
            tp += c.min(d) as f64;
        }
    }
    let fp = p.values().sum::<u32>() as f64 - tp;
    let fnn = t.values().sum::<u32>() as f64 - tp;
    let total = tp + fp + fnn;
    let (tp, fp, fnn) = if total > 0.0 {
        (tp / total, fp / total, fnn / total)
    } else {
        (tp, fp, fnn)
    };
    (tp, fp, fnn, tt == pt)
}

/// Macro-averaged scores over pages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// F1 of the averaged precision and recall.
    pub f1: f64,
    /// Mean precision over pages that predicted something.
    pub precision: f64,
    /// Mean recall over pages with a truth.
    pub recall: f64,
    /// Share of pages whose token sequence equals the truth.
    pub accuracy: f64,
}

/// Aggregates per-page counts as the benchmark does (precision over pages that predicted
/// something, recall over pages with a truth).
pub fn aggregate(rows: &[(f64, f64, f64, bool)]) -> Score {
    let precs: Vec<f64> = rows
        .iter()
        .filter(|r| r.0 + r.1 > 0.0)
        .map(|r| r.0 / (r.0 + r.1))
        .collect();
    let recs: Vec<f64> = rows
        .iter()
        .filter(|r| r.0 + r.2 > 0.0)
        .map(|r| r.0 / (r.0 + r.2))
        .collect();
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let p = mean(&precs);
    let r = mean(&recs);
    let f1 = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    let accuracy = if rows.is_empty() {
        0.0
    } else {
        rows.iter().filter(|r| r.3).count() as f64 / rows.len() as f64
    };
    Score {
        f1,
        precision: p,
        recall: r,
        accuracy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shingle_counts() {
        assert_eq!(tokens("Héllo, wörld_1 — 42!"), ["Héllo", "wörld_1", "42"]);
        let (tp, fp, fnn, exact) = page_counts("a b c d e", "a b c d x");
        assert!(
            (tp - 1.0 / 3.0).abs() < 1e-9
                && (fp - 1.0 / 3.0).abs() < 1e-9
                && (fnn - 1.0 / 3.0).abs() < 1e-9
        );
        assert!(!exact);
        let s = aggregate(&[page_counts("x y", "x y"), page_counts("a b c d", "")]);
        assert_eq!(s.precision, 1.0);
        assert_eq!(s.recall, 0.5);
    }
}
