//! Trains the reference tagger on the shared labelled sets and writes
//! `crates/kerai-core/models/reference_tagger.bin.gz`.
//!
//! ```text
//! cargo run --release -p kerai-core --example train_reference_tagger [-- [--epochs N] [--dry-run] [--inspect] [--cv] [--model two-pass|mix|perceptron|crf]]
//! ```
//!
//! Training data: AnyStyle's core set and GROBID's citation corpus (`suites/citations/`), all
//! but every fifth line of each; the fifth is held out and scored here beside the rules.
//! The held-back sets (AnyStyle gold, GROBID eval) are never read.

#[path = "../tests/support/reference_score.rs"]
mod reference_score;

use kerai_core::references::tagger::train::{
    train, train_crf, train_perceptron, train_two_pass, Example, CRF_RATE,
};
use kerai_core::references::tagger::{Label, Model};
use kerai_core::references::{parse_reference_with, TAGGED_FIELDS};
use kerai_core::shared_data::shared_path;
use reference_score::{byte_span, evaluate_by, held_out, FIELDS};
use serde_json::Value;

const SETS: [&str; 2] = [
    "suites/citations/references_anystyle_core.jsonl",
    "suites/citations/references_grobid_corpus.jsonl",
];

/// The tagger's label for a span label of the shared sets (`scopes` counts the unit-less
/// GROBID `biblScope` spans seen so far in the entry: the first is the volume, the next the
/// issue).
fn label_of(name: &str, has_container: bool, scopes: &mut usize) -> Label {
    match name {
        "author" | "authors" => Label::Author,
        "editor" | "translator" => Label::Editor,
        "date" => Label::Date,
        "title" => Label::Title,
        "journal" | "container-title" => Label::Container,
        "collection-title" if !has_container => Label::Container,
        "volume" | "volumes" => Label::Volume,
        "issue" => Label::Issue,
        "scope" => {
            *scopes += 1;
            if *scopes == 1 {
                Label::Volume
            } else {
                Label::Issue
            }
        }
        "pages" | "page" => Label::Pages,
        "publisher" | "publishe" => Label::Publisher,
        "location" => Label::Location,
        "doi" | "url" | "arxiv" | "isbn" | "idno" => Label::Ident,
        _ => Label::Other,
    }
}

/// Trims punctuation at a span's edges (the sets differ on whether `(2011).` or `Smith,`
/// carry it), and the `In` before a container.
fn trim_span(text: &str, label: Label, mut a: usize, mut b: usize) -> (usize, usize) {
    let s = &text[a..b];
    let lead = s.len() - s.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
    a += lead;
    let s = &text[a..b];
    let kept = s.trim_end_matches(|c: char| !c.is_alphanumeric() && !matches!(c, '.' | '?' | '!'));
    b = a + kept.len();
    if label == Label::Container {
        for p in ["In: ", "in: ", "In ", "in "] {
            if text[a..b].starts_with(p) {
                a += p.len();
                break;
            }
        }
    }
    (a, b.max(a))
}

fn examples(rel: &str, select: impl Fn(usize) -> bool) -> Vec<Example> {
    let data = std::fs::read_to_string(shared_path(rel)).expect("read reference set");
    let mut out = Vec::new();
    for (i, line) in data.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        if !select(i) {
            continue;
        }
        let row: Value = serde_json::from_str(line).expect("json line");
        let text = row["text"].as_str().unwrap_or("").to_string();
        let spans = row["spans"].as_array().cloned().unwrap_or_default();
        let has_container = spans
            .iter()
            .any(|s| matches!(s["label"].as_str(), Some("journal" | "container-title")));
        let mut scopes = 0;
        let mut out_spans = Vec::new();
        for s in &spans {
            // The sets count offsets in characters; the tagger's tokens are in bytes.
            let Some((a, b)) = byte_span(&text, s) else {
                continue;
            };
            let l = label_of(
                s["label"].as_str().unwrap_or(""),
                has_container,
                &mut scopes,
            );
            let (a, b) = trim_span(&text, l, a, b);
            out_spans.push((l, a, b));
        }
        out.push(Example {
            text,
            spans: out_spans,
        });
    }
    out
}

/// `--cv`: four runs, each trained without the held-out fifth and one other fifth and scored
/// on that fifth; the counts are summed, so a change is judged on four times the entries
/// `--inspect` reads (the held-out fifth stays unread).
fn cross_validate(epochs: usize, repeat: usize) {
    let mut sums: Vec<Vec<(&str, reference_score::Counts)>> = vec![Vec::new(); SETS.len()];
    for k in 1..5 {
        let in_training = |i: usize| !held_out(i) && i % 5 != k;
        let mut train_set: Vec<Example> = Vec::new();
        for _ in 0..repeat {
            train_set.extend(examples(SETS[0], in_training));
        }
        train_set.extend(examples(SETS[1], in_training));
        // Through the file format, as shipped (quantised, pruned).
        let model = Model::from_gzip(&fit(&train_set, epochs).to_gzip()).expect("round trip");
        for (set, rel) in SETS.iter().enumerate() {
            let got = evaluate_by(
                rel,
                &format!("{rel} fifth {k}"),
                |i| i % 5 == k,
                |t| parse_reference_with(t, Some(&model), TAGGED_FIELDS),
            );
            if sums[set].is_empty() {
                sums[set] = got;
            } else {
                for ((_, a), (_, b)) in sums[set].iter_mut().zip(got) {
                    a.tp += b.tp;
                    a.fp += b.fp;
                    a.fn_ += b.fn_;
                }
            }
        }
    }
    for (rel, res) in SETS.iter().zip(&sums) {
        let line: Vec<String> = res
            .iter()
            .map(|(f, c)| format!("{}={:.3}", &f[..f.len().min(5)], c.f1().2))
            .collect();
        println!("cv {rel}: {}", line.join(" "));
    }
}

/// Trains the shipped model (two passes, each the perceptron and CRF mixed), or with
/// `--model mix` one pass of it, `--model perceptron` or `--model crf` one part of that pass
/// alone, for comparison.
fn fit(train_set: &[Example], epochs: usize) -> Model {
    let args: Vec<String> = std::env::args().collect();
    let kind = args
        .iter()
        .position(|a| a == "--model")
        .and_then(|i| args.get(i + 1))
        .map_or("two-pass", String::as_str);
    match kind {
        "perceptron" => train_perceptron(train_set, epochs, SEED),
        "crf" => train_crf(train_set, epochs, SEED, CRF_RATE),
        "mix" => train(train_set, epochs, SEED),
        "two-pass" => train_two_pass(train_set, epochs, SEED),
        other => panic!("--model {other}: say perceptron, crf, mix or two-pass"),
    }
}

/// The seed of the training shuffle.
const SEED: u64 = 20_261_127;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let epochs = args
        .iter()
        .position(|a| a == "--epochs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let dry = args.iter().any(|a| a == "--dry-run");
    // `--inspect`: train on three fifths and score the second fifth (`index % 5 == 1`), the
    // one to read errors on (KERAI_SHOW_FIELD), so the reported fifth stays unread.
    let inspect = args.iter().any(|a| a == "--inspect");
    let second_fifth = |i: usize| i % 5 == 1;
    let in_training = |i: usize| !(held_out(i) || (inspect && second_fifth(i)));
    let scored = |i: usize| {
        if inspect {
            second_fifth(i)
        } else {
            held_out(i)
        }
    };
    // AnyStyle's set is a sixth the size of GROBID's and holds the styles GROBID's lacks
    // (humanities, books, APA); it is read `repeat` times so that both weigh alike.
    let repeat: usize = std::env::var("KERAI_TAGGER_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    if args.iter().any(|a| a == "--cv") {
        cross_validate(epochs, repeat);
        return;
    }
    let mut train_set: Vec<Example> = Vec::new();
    for _ in 0..repeat {
        train_set.extend(examples(SETS[0], in_training));
    }
    train_set.extend(examples(SETS[1], in_training));
    let t0 = std::time::Instant::now();
    let model = fit(&train_set, epochs);
    let gz = model.to_gzip();
    println!(
        "trained on {} references, {epochs} epochs, {:.1} s; model {} buckets, {} KB gzip",
        train_set.len(),
        t0.elapsed().as_secs_f64(),
        model_len(&gz),
        gz.len() / 1024
    );
    let model = Model::from_gzip(&gz).expect("read back");
    if inspect {
        let out = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../target/reference_tagger.inspect.bin.gz"
        );
        std::fs::write(out, &gz).expect("write the inspect model");
        println!("wrote {out} (read it with `parse_reference --runs --model FILE`)");
    }
    if !dry && !inspect {
        let out = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/models/reference_tagger.bin.gz"
        );
        std::fs::write(out, &gz).expect("write model");
        println!("wrote {out}");
    }
    for rel in SETS {
        let rules = evaluate_by(rel, &format!("{rel} held-out fifth, rules"), scored, |t| {
            parse_reference_with(t, None, &[])
        });
        let all: Vec<&str> = FIELDS.to_vec();
        let tagged = evaluate_by(
            rel,
            &format!("{rel} held-out fifth, tagger for every field"),
            scored,
            |t| {
                parse_reference_with(
                    t,
                    Some(&model),
                    &[&all[..], &["authors", "editors"]].concat(),
                )
            },
        );
        let chosen = evaluate_by(
            rel,
            &format!("{rel} held-out fifth, shipped mix"),
            scored,
            |t| parse_reference_with(t, Some(&model), TAGGED_FIELDS),
        );
        println!("{:<13} {:>7} {:>7} {:>7}", "F1", "rules", "tagger", "mix");
        for ((f, a), ((_, b), (_, c))) in rules.iter().zip(tagged.iter().zip(chosen.iter())) {
            println!(
                "{f:<13} {:>7.3} {:>7.3} {:>7.3}",
                a.f1().2,
                b.f1().2,
                c.f1().2
            );
        }
    }
}

/// The buckets of the model's passes: `first` or `first + second`.
fn model_len(gz: &[u8]) -> String {
    match Model::from_gzip(gz) {
        Ok(m) => match m.second() {
            Some(s) => format!("{} + {}", m.len(), s.len()),
            None => m.len().to_string(),
        },
        Err(e) => e.to_string(),
    }
}
