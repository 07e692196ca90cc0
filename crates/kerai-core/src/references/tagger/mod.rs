//! A learned sequence tagger for reference strings: every token gets a field label (author,
//! date, title, container, volume, …), read by one linear model with first-order label
//! transitions and Viterbi decoding: an averaged structured perceptron and a linear-chain CRF
//! trained on the same features and summed (`train::train`). The shipped model reads an
//! entry twice: its second pass also reads the first pass's labels (`train::train_two_pass`).
//!
//! The model is trained on the shared labelled sets only (`suites/citations/`, four fifths of
//! AnyStyle's core set and of GROBID's citation corpus; `examples/train_reference_tagger.rs`)
//! and shipped as `models/reference_tagger.bin.gz`. The rules in the parent module still read
//! identifiers and split author lists; the tagger decides which words are which field.

mod features;
mod model;
pub mod train;

use std::sync::LazyLock;

pub use features::{tokenize, Token};
pub use model::Model;

/// The field labels, in the model's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Label {
    Other,
    Author,
    Editor,
    Date,
    Title,
    Container,
    Volume,
    Issue,
    Pages,
    Publisher,
    Location,
    Ident,
}

/// The longest reference string the tagger reads (bytes); longer ones keep the rules' fields.
pub const MAX_TEXT_BYTES: usize = 4_000;

/// How many labels there are.
pub const LABELS: usize = 12;

impl Label {
    pub const ALL: [Label; LABELS] = [
        Label::Other,
        Label::Author,
        Label::Editor,
        Label::Date,
        Label::Title,
        Label::Container,
        Label::Volume,
        Label::Issue,
        Label::Pages,
        Label::Publisher,
        Label::Location,
        Label::Ident,
    ];

    pub fn index(self) -> usize {
        self as usize
    }
}

/// A run of tokens with one label: byte offsets of its first and last token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub label: Label,
    pub start: usize,
    pub end: usize,
}

static MODEL: LazyLock<Option<Model>> = LazyLock::new(|| {
    Model::from_gzip(include_bytes!("../../../models/reference_tagger.bin.gz")).ok()
});

/// The shipped model (None only if the embedded file is damaged, which a test rules out).
pub fn shipped() -> Option<&'static Model> {
    MODEL.as_ref()
}

/// Where the rules put each token: the label index of the rule field whose value covers it
/// (matched token by token, so spacing does not matter), 0 for none.
pub fn hints(text: &str, toks: &[Token], r: &super::Reference) -> Vec<usize> {
    let mut out = vec![0usize; toks.len()];
    let words: Vec<&str> = toks.iter().map(|t| &text[t.start..t.end]).collect();
    let year = r.year.map(|y| y.to_string());
    let fields = [
        (&r.title, Label::Title),
        (&r.container, Label::Container),
        (&r.publisher, Label::Publisher),
        (&r.location, Label::Location),
        (&r.volume, Label::Volume),
        (&r.issue, Label::Issue),
        (&r.pages, Label::Pages),
        (&year, Label::Date),
    ];
    for (value, label) in fields {
        let Some(v) = value else { continue };
        let vt: Vec<&str> = tokenize(v).iter().map(|t| &v[t.start..t.end]).collect();
        if vt.is_empty() || vt.len() > words.len() {
            continue;
        }
        if let Some(at) =
            (0..=words.len() - vt.len()).find(|&i| out[i] == 0 && words[i..i + vt.len()] == vt[..])
        {
            for h in &mut out[at..at + vt.len()] {
                *h = label.index();
            }
        }
    }
    if let Some(a) = r.authors.first() {
        if let Some(i) = words.iter().position(|w| *w == a.family) {
            out[i] = Label::Author.index();
        }
    }
    out
}

/// The tokens of `text` and their features, with the rules' reading `r` as hints.
pub fn token_features(text: &str, r: &super::Reference) -> (Vec<Token>, Vec<Vec<u32>>) {
    let toks = tokenize(text);
    let h = hints(text, &toks, r);
    let f = features::features(text, &toks, &h);
    (toks, f)
}

/// The second pass's features of `text`: `first_features` (the first pass's, consumed) and
/// what `first` (the first pass's labels) reads around each token.
pub fn second_pass_features(
    text: &str,
    toks: &[Token],
    mut first_features: Vec<Vec<u32>>,
    first: &[Label],
) -> Vec<Vec<u32>> {
    let prior: Vec<usize> = first.iter().map(|l| l.index()).collect();
    features::add_prior(text, toks, &mut first_features, &prior);
    first_features
}

/// The labels `model` reads on `text`: its first pass, then, when the model has one, its
/// second pass over the first's reading. The features are computed once; the second pass
/// adds its own to them.
pub fn label_tokens(model: &Model, text: &str, r: &super::Reference) -> (Vec<Token>, Vec<Label>) {
    let (toks, feats) = token_features(text, r);
    let mut labels = model.decode(&feats);
    if let Some(second) = model.second() {
        labels = second.decode(&second_pass_features(text, &toks, feats, &labels));
    }
    (toks, labels)
}

/// Joins two runs of one label that only punctuation separates (`378 – 400`,
/// `Title: subtitle`): up to two tokens, none a letter or digit.
fn bridge(text: &str, toks: &[Token], mut labels: Vec<Label>) -> Vec<Label> {
    let punct = |i: usize| {
        !text[toks[i].start..toks[i].end]
            .chars()
            .any(char::is_alphanumeric)
    };
    let mut i = 1;
    while i + 1 < labels.len() {
        if labels[i] == Label::Other && labels[i - 1] != Label::Other && punct(i) {
            let mut j = i;
            while j < labels.len() && j - i < 2 && labels[j] == Label::Other && punct(j) {
                j += 1;
            }
            if j < labels.len() && labels[j] == labels[i - 1] {
                for k in i..j {
                    labels[k] = labels[i - 1];
                }
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    labels
}

/// Labels `text` with `model`, given the rules' reading `r`: the runs of equal labels.
pub fn tag_with(model: &Model, text: &str, r: &super::Reference) -> Vec<Run> {
    let (toks, labels) = label_tokens(model, text, r);
    let labels = bridge(text, &toks, labels);
    let mut runs: Vec<Run> = Vec::new();
    for (t, l) in toks.iter().zip(labels) {
        match runs.last_mut() {
            Some(r) if r.label == l => r.end = t.end,
            _ => runs.push(Run {
                label: l,
                start: t.start,
                end: t.end,
            }),
        }
    }
    runs
}
