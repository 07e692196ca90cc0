//! Training the tagger: an averaged structured perceptron over labelled reference strings.

use super::features::{tokenize, BITS};
use super::model::{viterbi, Model};
use super::{Label, LABELS};

/// A labelled reference string: `(label, start, end)` byte spans; text outside them is
/// [`Label::Other`].
#[derive(Debug, Clone)]
pub struct Example {
    pub text: String,
    pub spans: Vec<(Label, usize, usize)>,
}

/// The gold label of each token: the span its first byte falls in.
pub fn token_labels(ex: &Example) -> Vec<Label> {
    tokenize(&ex.text)
        .iter()
        .map(|t| {
            ex.spans
                .iter()
                .find(|(_, a, b)| t.start >= *a && t.start < *b)
                .map_or(Label::Other, |s| s.0)
        })
        .collect()
}

/// A small deterministic generator for the shuffle (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Weights during training, with the sums the average is taken from.
struct Dense {
    w: Vec<f32>,
    u: Vec<f32>,
    start: [f32; LABELS],
    start_u: [f32; LABELS],
    trans: [[f32; LABELS]; LABELS],
    trans_u: [[f32; LABELS]; LABELS],
}

impl Dense {
    fn emissions(&self, feats: &[Vec<u32>]) -> Vec<[f32; LABELS]> {
        feats
            .iter()
            .map(|fs| {
                let mut s = [0f32; LABELS];
                for &f in fs {
                    let row = &self.w[f as usize * LABELS..(f as usize + 1) * LABELS];
                    for (a, b) in s.iter_mut().zip(row) {
                        *a += b;
                    }
                }
                s
            })
            .collect()
    }
}

/// Trains for `epochs` passes over `examples` (shuffled each pass from `seed`) and returns
/// the averaged weights.
pub fn train(examples: &[Example], epochs: usize, seed: u64) -> Model {
    let data: Vec<(Vec<Vec<u32>>, Vec<Label>)> = examples
        .iter()
        .map(|ex| {
            let rules = super::super::parse_by_rules(&ex.text);
            (super::token_features(&ex.text, &rules).1, token_labels(ex))
        })
        .filter(|(f, _)| !f.is_empty())
        .collect();
    let size = (1usize << BITS) * LABELS;
    let mut d = Dense {
        w: vec![0.0; size],
        u: vec![0.0; size],
        start: [0.0; LABELS],
        start_u: [0.0; LABELS],
        trans: [[0.0; LABELS]; LABELS],
        trans_u: [[0.0; LABELS]; LABELS],
    };
    let mut rng = Rng(seed | 1);
    let mut order: Vec<usize> = (0..data.len()).collect();
    let mut c = 1f32;
    for _ in 0..epochs {
        for i in (1..order.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for &k in &order {
            let (feats, gold) = &data[k];
            let pred = viterbi(&d.emissions(feats), &d.start, &d.trans);
            if pred != *gold {
                for (i, fs) in feats.iter().enumerate() {
                    let (g, p) = (gold[i].index(), pred[i].index());
                    if g != p {
                        for &f in fs {
                            let base = f as usize * LABELS;
                            d.w[base + g] += 1.0;
                            d.u[base + g] += c;
                            d.w[base + p] -= 1.0;
                            d.u[base + p] -= c;
                        }
                    }
                    let (gp, pp) = if i == 0 {
                        (None, None)
                    } else {
                        (Some(gold[i - 1].index()), Some(pred[i - 1].index()))
                    };
                    if (gp, g) != (pp, p) {
                        match gp {
                            None => {
                                d.start[g] += 1.0;
                                d.start_u[g] += c;
                            }
                            Some(a) => {
                                d.trans[a][g] += 1.0;
                                d.trans_u[a][g] += c;
                            }
                        }
                        match pp {
                            None => {
                                d.start[p] -= 1.0;
                                d.start_u[p] -= c;
                            }
                            Some(a) => {
                                d.trans[a][p] -= 1.0;
                                d.trans_u[a][p] -= c;
                            }
                        }
                    }
                }
            }
            c += 1.0;
        }
    }
    let mut m = Model::default();
    for (b, (w, u)) in d.w.chunks(LABELS).zip(d.u.chunks(LABELS)).enumerate() {
        let mut avg = [0f32; LABELS];
        let mut any = false;
        for l in 0..LABELS {
            avg[l] = w[l] - u[l] / c;
            any |= avg[l] != 0.0;
        }
        if any {
            m.weights.insert(b as u32, avg);
        }
    }
    for l in 0..LABELS {
        m.start[l] = d.start[l] - d.start_u[l] / c;
        for a in 0..LABELS {
            m.trans[a][l] = d.trans[a][l] - d.trans_u[a][l] / c;
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(text: &str, spans: &[(Label, &str)]) -> Example {
        let spans = spans
            .iter()
            .map(|(l, s)| {
                let a = text.find(s).expect("span in text");
                (*l, a, a + s.len())
            })
            .collect();
        Example {
            text: text.to_string(),
            spans,
        }
    }

    #[test]
    fn learns_a_small_set_and_survives_the_file_format() {
        let data = vec![
            ex(
                "Smith, J. (2001). Growing trees. Forest Journal, 3, 10-20.",
                &[
                    (Label::Author, "Smith, J."),
                    (Label::Date, "2001"),
                    (Label::Title, "Growing trees"),
                    (Label::Container, "Forest Journal"),
                    (Label::Volume, "3"),
                    (Label::Pages, "10-20"),
                ],
            ),
            ex(
                "Brown, A. (1999). Cutting wood. Timber Review, 7, 1-9.",
                &[
                    (Label::Author, "Brown, A."),
                    (Label::Date, "1999"),
                    (Label::Title, "Cutting wood"),
                    (Label::Container, "Timber Review"),
                    (Label::Volume, "7"),
                    (Label::Pages, "1-9"),
                ],
            ),
        ];
        let m = train(&data, 20, 7);
        let m = Model::from_gzip(&m.to_gzip()).expect("round trip");
        for e in &data {
            let rules = crate::references::parse_by_rules(&e.text);
            let (_, feats) = super::super::token_features(&e.text, &rules);
            assert_eq!(m.decode(&feats), token_labels(e), "{}", e.text);
        }
        assert!(Model::from_gzip(b"not gzip").is_err());
    }
}
