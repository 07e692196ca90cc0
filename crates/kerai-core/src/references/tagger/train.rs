//! Training the tagger: an averaged structured perceptron and a linear-chain CRF over the
//! same features, mixed into one model ([`train`]).

use super::features::{tokenize, BITS};
use super::model::{viterbi, Model, Weights};
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

/// The CRF's AdaGrad step size (chosen by four-fold cross-validation: 0.02–0.05 alike, 0.1
/// and over worse).
pub const CRF_RATE: f32 = 0.05;

/// The tagger kerai ships: an averaged perceptron and an averaged CRF, each trained for
/// `epochs` passes over `examples` (shuffled from `seed`), summed with the perceptron scaled
/// so that both models' largest weights are equal. Cross-validated, the mix beats either
/// alone: the CRF reads containers, places and publishers better, the perceptron titles.
pub fn train(examples: &[Example], epochs: usize, seed: u64) -> Model {
    let data = prepare(examples);
    let crf = train_crf_on(&data, epochs, seed, CRF_RATE);
    let perceptron = train_perceptron_on(&data, epochs, seed);
    let k = crf.max_weight() / perceptron.max_weight().max(f32::MIN_POSITIVE);
    crf.mix(&perceptron, k).quantise()
}

/// Each example's features (with the rules' reading as hints) and gold labels.
fn prepare(examples: &[Example]) -> Vec<(Vec<Vec<u32>>, Vec<Label>)> {
    examples
        .iter()
        .map(|ex| {
            let rules = super::super::parse_by_rules(&ex.text);
            (super::token_features(&ex.text, &rules).1, token_labels(ex))
        })
        .filter(|(f, _)| !f.is_empty())
        .collect()
}

/// An averaged structured perceptron: `epochs` passes over `examples` (shuffled each pass
/// from `seed`), the averaged weights.
pub fn train_perceptron(examples: &[Example], epochs: usize, seed: u64) -> Model {
    train_perceptron_on(&prepare(examples), epochs, seed).quantise()
}

fn train_perceptron_on(data: &[(Vec<Vec<u32>>, Vec<Label>)], epochs: usize, seed: u64) -> Weights {
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
    let mut m = Weights::default();
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

fn log_sum_exp(xs: impl Iterator<Item = f32> + Clone) -> f32 {
    let m = xs.clone().fold(f32::NEG_INFINITY, f32::max);
    if m == f32::NEG_INFINITY {
        return m;
    }
    m + xs.map(|x| (x - m).exp()).sum::<f32>().ln()
}

/// One parameter with its AdaGrad sum of squared gradients and the sum the average is taken
/// from (each change weighted by the step count `c`).
fn step(w: &mut f32, g2: &mut f32, u: &mut f32, g: f32, rate: f32, c: f32) {
    *g2 += g * g;
    let d = rate * g / (g2.sqrt() + 1e-6);
    *w += d;
    *u += c * d;
}

/// A linear-chain CRF (the perceptron's features, transitions and decoding), trained by
/// stochastic gradient ascent on the log-likelihood with AdaGrad steps of `rate`: one step per
/// token for the weights of its features, one per sequence for the start and transition
/// weights. The weights are averaged over all steps, as the perceptron's are.
pub fn train_crf(examples: &[Example], epochs: usize, seed: u64, rate: f32) -> Model {
    train_crf_on(&prepare(examples), epochs, seed, rate).quantise()
}

fn train_crf_on(
    data: &[(Vec<Vec<u32>>, Vec<Label>)],
    epochs: usize,
    seed: u64,
    rate: f32,
) -> Weights {
    let size = (1usize << BITS) * LABELS;
    let mut w = vec![0f32; size];
    let mut g2 = vec![0f32; size];
    let mut u = vec![0f32; size];
    let mut start = [0f32; LABELS];
    let mut start_g2 = [0f32; LABELS];
    let mut start_u = [0f32; LABELS];
    let mut trans = [[0f32; LABELS]; LABELS];
    let mut trans_g2 = [[0f32; LABELS]; LABELS];
    let mut trans_u = [[0f32; LABELS]; LABELS];
    let mut c = 1f32;
    let mut rng = Rng(seed | 1);
    let mut order: Vec<usize> = (0..data.len()).collect();
    for _ in 0..epochs {
        for i in (1..order.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for &k in &order {
            let (feats, gold) = &data[k];
            let n = feats.len();
            if n == 0 {
                continue;
            }
            let em: Vec<[f32; LABELS]> = feats
                .iter()
                .map(|fs| {
                    let mut s = [0f32; LABELS];
                    for &f in fs {
                        let row = &w[f as usize * LABELS..(f as usize + 1) * LABELS];
                        for (a, b) in s.iter_mut().zip(row) {
                            *a += b;
                        }
                    }
                    s
                })
                .collect();
            let mut alpha = vec![[0f32; LABELS]; n];
            for y in 0..LABELS {
                alpha[0][y] = start[y] + em[0][y];
            }
            for t in 1..n {
                for y in 0..LABELS {
                    let prev = &alpha[t - 1];
                    alpha[t][y] =
                        em[t][y] + log_sum_exp((0..LABELS).map(|p| prev[p] + trans[p][y]));
                }
            }
            let mut beta = vec![[0f32; LABELS]; n];
            for t in (0..n - 1).rev() {
                for y in 0..LABELS {
                    let next = &beta[t + 1];
                    let e = &em[t + 1];
                    beta[t][y] = log_sum_exp((0..LABELS).map(|z| trans[y][z] + e[z] + next[z]));
                }
            }
            let z = log_sum_exp(alpha[n - 1].iter().copied());
            // Transition gradients first, from the weights the marginals were computed with.
            let mut gt = [[0f32; LABELS]; LABELS];
            let mut gs = [0f32; LABELS];
            for y in 0..LABELS {
                gs[y] -= (alpha[0][y] + beta[0][y] - z).exp();
            }
            gs[gold[0].index()] += 1.0;
            for t in 1..n {
                for p in 0..LABELS {
                    for y in 0..LABELS {
                        gt[p][y] -=
                            (alpha[t - 1][p] + trans[p][y] + em[t][y] + beta[t][y] - z).exp();
                    }
                }
                gt[gold[t - 1].index()][gold[t].index()] += 1.0;
            }
            for t in 0..n {
                let mut delta = [0f32; LABELS];
                for y in 0..LABELS {
                    delta[y] = -(alpha[t][y] + beta[t][y] - z).exp();
                }
                delta[gold[t].index()] += 1.0;
                for &f in &feats[t] {
                    let base = f as usize * LABELS;
                    for y in 0..LABELS {
                        let g = delta[y];
                        step(
                            &mut w[base + y],
                            &mut g2[base + y],
                            &mut u[base + y],
                            g,
                            rate,
                            c,
                        );
                    }
                }
            }
            for y in 0..LABELS {
                step(
                    &mut start[y],
                    &mut start_g2[y],
                    &mut start_u[y],
                    gs[y],
                    rate,
                    c,
                );
                for p in 0..LABELS {
                    let (t, t2, tu) = (&mut trans[p][y], &mut trans_g2[p][y], &mut trans_u[p][y]);
                    step(t, t2, tu, gt[p][y], rate, c);
                }
            }
            c += 1.0;
        }
    }
    let average = |w: f32, u: f32| w - u / c;
    let mut m = Weights::default();
    for (b, (row, urow)) in w.chunks(LABELS).zip(u.chunks(LABELS)).enumerate() {
        if row.iter().any(|&x| x != 0.0) {
            let mut a = [0f32; LABELS];
            for l in 0..LABELS {
                a[l] = average(row[l], urow[l]);
            }
            m.weights.insert(b as u32, a);
        }
    }
    for y in 0..LABELS {
        m.start[y] = average(start[y], start_u[y]);
        for p in 0..LABELS {
            m.trans[p][y] = average(trans[p][y], trans_u[p][y]);
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
        // Each part of the mix learns the set alone too.
        for m in [
            train_crf(&data, 20, 7, CRF_RATE),
            train_perceptron(&data, 20, 7),
        ] {
            for e in &data {
                let rules = crate::references::parse_by_rules(&e.text);
                let (_, feats) = super::super::token_features(&e.text, &rules);
                assert_eq!(m.decode(&feats), token_labels(e), "{}", e.text);
            }
        }
    }
}
