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

/// One example's features per token and gold labels.
type Prepared = (Vec<Vec<u32>>, Vec<Label>);

/// The order examples are visited in: `epochs` passes over `0..n`, each shuffled
/// (Fisher–Yates, xorshift64* from `seed`), so both trainers see the same order.
fn passes(n: usize, epochs: usize, seed: u64) -> Vec<usize> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut order: Vec<usize> = (0..n).collect();
    let mut all = Vec::with_capacity(n * epochs);
    for _ in 0..epochs {
        for i in (1..order.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        all.extend_from_slice(&order);
    }
    all
}

/// Weights during training, with the sums the average is taken from: each change `d` made
/// at step `c` adds `c * d` to the sum, and the average over all steps is `w - sum / c`.
struct Dense {
    w: Vec<f32>,
    u: Vec<f32>,
    start: [f32; LABELS],
    start_u: [f32; LABELS],
    trans: [[f32; LABELS]; LABELS],
    trans_u: [[f32; LABELS]; LABELS],
}

impl Dense {
    fn new() -> Self {
        let size = (1usize << BITS) * LABELS;
        Dense {
            w: vec![0.0; size],
            u: vec![0.0; size],
            start: [0.0; LABELS],
            start_u: [0.0; LABELS],
            trans: [[0.0; LABELS]; LABELS],
            trans_u: [[0.0; LABELS]; LABELS],
        }
    }

    /// Each token's score per label: the sum of its features' weights.
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

    fn add_emission(&mut self, f: u32, label: usize, d: f32, c: f32) {
        let i = f as usize * LABELS + label;
        self.w[i] += d;
        self.u[i] += c * d;
    }

    /// Adds `d` to the weight of starting with `to` (`from` is `None`) or of going from
    /// `from` to `to`.
    fn add_transition(&mut self, from: Option<usize>, to: usize, d: f32, c: f32) {
        match from {
            None => {
                self.start[to] += d;
                self.start_u[to] += c * d;
            }
            Some(a) => {
                self.trans[a][to] += d;
                self.trans_u[a][to] += c * d;
            }
        }
    }

    /// The weights averaged over the `c` steps taken; buckets left at zero are dropped.
    fn averaged(&self, c: f32) -> Weights {
        let average = |w: f32, u: f32| w - u / c;
        let mut m = Weights::default();
        for (b, (row, urow)) in self.w.chunks(LABELS).zip(self.u.chunks(LABELS)).enumerate() {
            let mut a = [0f32; LABELS];
            for l in 0..LABELS {
                a[l] = average(row[l], urow[l]);
            }
            if a.iter().any(|&x| x != 0.0) {
                m.weights.insert(b as u32, a);
            }
        }
        for y in 0..LABELS {
            m.start[y] = average(self.start[y], self.start_u[y]);
            for p in 0..LABELS {
                m.trans[p][y] = average(self.trans[p][y], self.trans_u[p][y]);
            }
        }
        m
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
    mix_on(&prepare(examples), epochs, seed)
}

fn mix_on(data: &[Prepared], epochs: usize, seed: u64) -> Model {
    mixed_weights(data, epochs, seed).quantise()
}

/// The CRF and the perceptron trained on `data`, summed with the perceptron scaled so that
/// both models' largest weights are equal.
fn mixed_weights(data: &[Prepared], epochs: usize, seed: u64) -> Weights {
    let crf = train_crf_on(data, epochs, seed, CRF_RATE);
    let perceptron = train_perceptron_on(data, epochs, seed);
    let k = crf.max_weight() / perceptron.max_weight().max(f32::MIN_POSITIVE);
    crf.mix(&perceptron, k)
}

/// How many parts [`train_two_pass`] cuts the examples into to read each part with a first
/// pass trained without it.
pub const FOLDS: u64 = 4;

/// The part an example falls in: by its text, so copies of one example fall together.
fn fold_of(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h % FOLDS
}

/// A two-pass tagger: the first pass as [`train`] makes it, and a second trained on the
/// first pass's labels as features. The second pass learns from labels the first pass gave
/// to text it had not seen (each part of the examples read by a first pass trained on the
/// other parts), so it learns the first pass's real mistakes, not its training-set fit.
pub fn train_two_pass(examples: &[Example], epochs: usize, seed: u64) -> Model {
    let data = prepare(examples);
    let first = mix_on(&data, epochs, seed);
    let mut second_data: Vec<Prepared> = Vec::with_capacity(data.len());
    for part in 0..FOLDS {
        let others: Vec<Example> = examples
            .iter()
            .filter(|e| fold_of(&e.text) != part)
            .cloned()
            .collect();
        let reader = train(&others, epochs, seed);
        for e in examples.iter().filter(|e| fold_of(&e.text) == part) {
            let rules = super::super::parse_by_rules(&e.text);
            let (toks, feats) = super::token_features(&e.text, &rules);
            if feats.is_empty() {
                continue;
            }
            let labels = reader.decode(&feats);
            let f2 = super::second_pass_features(&e.text, &toks, feats, &labels);
            second_data.push((f2, token_labels(e)));
        }
    }
    first.with_second(mixed_weights(&second_data, epochs, seed).quantise_second())
}

/// Each example's features (with the rules' reading as hints) and gold labels.
fn prepare(examples: &[Example]) -> Vec<Prepared> {
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

fn train_perceptron_on(data: &[Prepared], epochs: usize, seed: u64) -> Weights {
    let mut d = Dense::new();
    let mut c = 1f32;
    for k in passes(data.len(), epochs, seed) {
        let (feats, gold) = &data[k];
        let pred = viterbi(&d.emissions(feats), &d.start, &d.trans);
        if pred != *gold {
            for (i, fs) in feats.iter().enumerate() {
                let (g, p) = (gold[i].index(), pred[i].index());
                if g != p {
                    for &f in fs {
                        d.add_emission(f, g, 1.0, c);
                        d.add_emission(f, p, -1.0, c);
                    }
                }
                let (gp, pp) = match i {
                    0 => (None, None),
                    _ => (Some(gold[i - 1].index()), Some(pred[i - 1].index())),
                };
                if (gp, g) != (pp, p) {
                    d.add_transition(gp, g, 1.0, c);
                    d.add_transition(pp, p, -1.0, c);
                }
            }
        }
        c += 1.0;
    }
    d.averaged(c)
}

fn log_sum_exp(xs: impl Iterator<Item = f32> + Clone) -> f32 {
    let m = xs.clone().fold(f32::NEG_INFINITY, f32::max);
    if m == f32::NEG_INFINITY {
        return m;
    }
    m + xs.map(|x| (x - m).exp()).sum::<f32>().ln()
}

/// The CRF's log-likelihood of one example's gold labels and its gradient: per token and
/// label (each of the token's features gets it), for starting in a label, and per
/// transition. Each entry is the gold count less the model's expected count (from the
/// forward-backward marginals).
struct Gradient {
    log_likelihood: f32,
    emission: Vec<[f32; LABELS]>,
    start: [f32; LABELS],
    trans: [[f32; LABELS]; LABELS],
}

fn gradient(d: &Dense, feats: &[Vec<u32>], gold: &[Label]) -> Gradient {
    let n = feats.len();
    let em = d.emissions(feats);
    let (start, trans) = (&d.start, &d.trans);
    let mut alpha = vec![[0f32; LABELS]; n];
    for y in 0..LABELS {
        alpha[0][y] = start[y] + em[0][y];
    }
    for t in 1..n {
        for y in 0..LABELS {
            let prev = &alpha[t - 1];
            alpha[t][y] = em[t][y] + log_sum_exp((0..LABELS).map(|p| prev[p] + trans[p][y]));
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
    let mut gold_score = start[gold[0].index()];
    let mut g = Gradient {
        log_likelihood: 0.0,
        emission: vec![[0f32; LABELS]; n],
        start: [0f32; LABELS],
        trans: [[0f32; LABELS]; LABELS],
    };
    for y in 0..LABELS {
        g.start[y] -= (alpha[0][y] + beta[0][y] - z).exp();
    }
    g.start[gold[0].index()] += 1.0;
    for t in 0..n {
        for y in 0..LABELS {
            g.emission[t][y] = -(alpha[t][y] + beta[t][y] - z).exp();
        }
        g.emission[t][gold[t].index()] += 1.0;
        gold_score += em[t][gold[t].index()];
        if t > 0 {
            for p in 0..LABELS {
                for y in 0..LABELS {
                    g.trans[p][y] -=
                        (alpha[t - 1][p] + trans[p][y] + em[t][y] + beta[t][y] - z).exp();
                }
            }
            g.trans[gold[t - 1].index()][gold[t].index()] += 1.0;
            gold_score += trans[gold[t - 1].index()][gold[t].index()];
        }
    }
    g.log_likelihood = gold_score - z;
    g
}

/// AdaGrad's running sums of squared gradients, one per weight of [`Dense`].
struct SquaredSums {
    w: Vec<f32>,
    start: [f32; LABELS],
    trans: [[f32; LABELS]; LABELS],
}

/// AdaGrad's step of `rate` for gradient `g` on a weight whose sum of squares is `g2`.
fn adagrad(g2: &mut f32, g: f32, rate: f32) -> f32 {
    *g2 += g * g;
    rate * g / (g2.sqrt() + 1e-6)
}

/// A linear-chain CRF (the perceptron's features, transitions and decoding), trained by
/// stochastic gradient ascent on the log-likelihood with AdaGrad steps of `rate`: one step per
/// token for the weights of its features, one per sequence for the start and transition
/// weights. The weights are averaged over all steps, as the perceptron's are.
pub fn train_crf(examples: &[Example], epochs: usize, seed: u64, rate: f32) -> Model {
    train_crf_on(&prepare(examples), epochs, seed, rate).quantise()
}

fn train_crf_on(data: &[Prepared], epochs: usize, seed: u64, rate: f32) -> Weights {
    let mut d = Dense::new();
    let mut sums = SquaredSums {
        w: vec![0f32; d.w.len()],
        start: [0f32; LABELS],
        trans: [[0f32; LABELS]; LABELS],
    };
    let mut c = 1f32;
    for k in passes(data.len(), epochs, seed) {
        let (feats, gold) = &data[k];
        // The whole gradient comes from the weights before this example's steps.
        let g = gradient(&d, feats, gold);
        for (fs, delta) in feats.iter().zip(&g.emission) {
            for &f in fs {
                for (y, &gy) in delta.iter().enumerate() {
                    let step = adagrad(&mut sums.w[f as usize * LABELS + y], gy, rate);
                    d.add_emission(f, y, step, c);
                }
            }
        }
        for y in 0..LABELS {
            let step = adagrad(&mut sums.start[y], g.start[y], rate);
            d.add_transition(None, y, step, c);
            for p in 0..LABELS {
                let step = adagrad(&mut sums.trans[p][y], g.trans[p][y], rate);
                d.add_transition(Some(p), y, step, c);
            }
        }
        c += 1.0;
    }
    d.averaged(c)
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

    #[test]
    fn a_two_pass_tagger_learns_and_survives_the_file_format() {
        let journals = [
            "Forest Journal",
            "Timber Review",
            "Wood Letters",
            "Bark Studies",
        ];
        let data: Vec<Example> = journals
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let text = format!(
                    "Author{i}, J. (200{i}). Growing trees {i}. {j}, {}, 10-2{i}.",
                    i + 3
                );
                let (year, title, vol, pages) = (
                    format!("200{i}"),
                    format!("Growing trees {i}"),
                    format!("{}", i + 3),
                    format!("10-2{i}"),
                );
                let author = format!("Author{i}, J.");
                ex(
                    &text,
                    &[
                        (Label::Author, author.as_str()),
                        (Label::Date, year.as_str()),
                        (Label::Title, title.as_str()),
                        (Label::Container, *j),
                        (Label::Volume, vol.as_str()),
                        (Label::Pages, pages.as_str()),
                    ],
                )
            })
            .collect();
        let m = train_two_pass(&data, 20, 7);
        let gz = m.to_gzip();
        let m = Model::from_gzip(&gz).expect("round trip");
        assert!(
            m.second().is_some(),
            "the second pass is stored and read back"
        );
        for e in &data {
            let rules = crate::references::parse_by_rules(&e.text);
            let (_, labels) = super::super::label_tokens(&m, &e.text, &rules);
            assert_eq!(labels, token_labels(e), "{}", e.text);
        }
        // A file with bytes after its second pass is refused, not half read.
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut raw)
            .expect("gunzip");
        raw.extend_from_slice(b"junk");
        let mut bad = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut bad, &raw).expect("gzip");
        assert!(Model::from_gzip(&bad.finish().expect("gzip")).is_err());
    }

    #[test]
    fn the_crf_gradient_matches_finite_differences() {
        let e = ex(
            "Smith, J. (2001). Growing trees. Forest Journal, 3, 10-20.",
            &[
                (Label::Author, "Smith, J."),
                (Label::Date, "2001"),
                (Label::Title, "Growing trees"),
                (Label::Container, "Forest Journal"),
            ],
        );
        let (feats, gold) = prepare(std::slice::from_ref(&e)).remove(0);
        // Small, varied weights so the marginals are not uniform.
        let mut d = Dense::new();
        let mut x = 1u32;
        for fs in &feats {
            for &f in fs {
                for y in 0..LABELS {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    d.w[f as usize * LABELS + y] = ((x >> 16) % 200) as f32 / 400.0 - 0.25;
                }
            }
        }
        for p in 0..LABELS {
            d.start[p] = p as f32 * 0.03 - 0.1;
            for y in 0..LABELS {
                d.trans[p][y] = ((p * 7 + y * 3) % 11) as f32 * 0.02 - 0.1;
            }
        }
        let g = gradient(&d, &feats, &gold);
        let eps = 0.01f32;
        let ll = |d: &Dense| gradient(d, &feats, &gold).log_likelihood;
        let check = |analytic: f32, numeric: f32, what: &str| {
            assert!(
                (analytic - numeric).abs() < 0.01,
                "{what}: analytic {analytic}, numeric {numeric}"
            );
        };
        // A feature's weight: its gradient is the sum over the tokens that have it.
        let f = feats[2][0];
        for y in [0, gold[2].index(), LABELS - 1] {
            let i = f as usize * LABELS + y;
            let analytic: f32 = feats
                .iter()
                .zip(&g.emission)
                .filter(|(fs, _)| fs.contains(&f))
                .map(|(fs, row)| row[y] * fs.iter().filter(|&&h| h == f).count() as f32)
                .sum();
            let (mut hi, mut lo) = (Dense::new(), Dense::new());
            for dd in [&mut hi, &mut lo] {
                dd.w.copy_from_slice(&d.w);
                dd.start = d.start;
                dd.trans = d.trans;
            }
            hi.w[i] += eps;
            lo.w[i] -= eps;
            check(analytic, (ll(&hi) - ll(&lo)) / (2.0 * eps), "emission");
        }
        for (p, y) in [(0, 0), (gold[0].index(), gold[1].index()), (2, 5)] {
            let (mut hi, mut lo) = (Dense::new(), Dense::new());
            for dd in [&mut hi, &mut lo] {
                dd.w.copy_from_slice(&d.w);
                dd.start = d.start;
                dd.trans = d.trans;
            }
            hi.trans[p][y] += eps;
            lo.trans[p][y] -= eps;
            check(
                g.trans[p][y],
                (ll(&hi) - ll(&lo)) / (2.0 * eps),
                "transition",
            );
            hi.trans[p][y] -= eps;
            lo.trans[p][y] += eps;
            hi.start[y] += eps;
            lo.start[y] -= eps;
            check(g.start[y], (ll(&hi) - ll(&lo)) / (2.0 * eps), "start");
        }
        assert!(g.log_likelihood < 0.0);
    }
}
