//! DOI and linkify case scoring (`suites/urls/`). Shared by the `citations_identifiers` test
//! and the `citations` benchmark.

#![allow(dead_code)]

use kerai_core::citations::{
    detect_citations, detect_citations_with, is_valid_doi, CitationKind, DetectOptions, LinkOptions,
};
use kerai_core::shared_data::shared_path;
use serde_json::Value;

fn lines(rel: &str) -> Vec<Value> {
    let data = std::fs::read_to_string(shared_path(rel)).expect("read suite file");
    data.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn show() -> bool {
    std::env::var_os("KERAI_SHOW_MISSES").is_some()
}

/// DOI results: first DOI found (`find_in_text` + `reference`) and `exact_valid` checks.
#[derive(Debug, Default, Clone, Copy)]
pub struct DoiScore {
    pub find_ok: usize,
    pub find_n: usize,
    pub valid_ok: usize,
    pub valid_n: usize,
    /// Found DOIs whose label cut their closing parenthesis (`…15:4(344` for the registered
    /// `10.1061/(ASCE)0899-1561(2003)15:4(344)`): kerai's answer is the DOI, the label is not.
    pub label_cut: usize,
}

impl DoiScore {
    /// The share right, as labelled.
    pub fn all(&self) -> f64 {
        (self.find_ok + self.valid_ok) as f64 / (self.find_n + self.valid_n).max(1) as f64
    }

    /// The share right, with the labels that cut a DOI's closing parenthesis read whole.
    pub fn all_corrected(&self) -> f64 {
        (self.find_ok + self.label_cut + self.valid_ok) as f64
            / (self.find_n + self.valid_n).max(1) as f64
    }
}

/// A label that stops before the DOI's last `)` although it opened a `(`.
fn cut_before_paren(expected: &str, got: &str) -> bool {
    expected.matches('(').count() > expected.matches(')').count()
        && got.len() == expected.len() + 1
        && got.ends_with(')')
        && got[..expected.len()].eq_ignore_ascii_case(expected)
}

/// Scores `doi_cases_dev.jsonl`: the first DOI-kind citation's DOI must equal the expected one
/// (ignoring case); `exact_valid` inputs are checked with `is_valid_doi`.
pub fn doi_cases() -> DoiScore {
    let mut s = DoiScore::default();
    for c in lines("suites/urls/doi_cases_dev.jsonl") {
        let input = c["input"].as_str().unwrap_or("");
        if c["kind"] == "exact_valid" {
            s.valid_n += 1;
            let expected = c["expected"].as_bool().unwrap_or(false);
            if is_valid_doi(input) == expected {
                s.valid_ok += 1;
            } else if show() {
                println!("VALIDITY {input:?}: expected {expected}");
            }
            continue;
        }
        s.find_n += 1;
        let expected = c["expected"].as_str().unwrap_or("");
        let got = detect_citations(input)
            .into_iter()
            .find(|x| x.kind == CitationKind::Doi)
            .and_then(|x| x.detail["doi"].as_str().map(str::to_string));
        if got
            .as_deref()
            .is_some_and(|g| g.eq_ignore_ascii_case(expected))
        {
            s.find_ok += 1;
        } else if got
            .as_deref()
            .is_some_and(|g| cut_before_paren(expected, g))
        {
            s.label_cut += 1;
        } else if show() {
            println!("DOI {input:?}\n  expected {expected:?}\n  got      {got:?}");
        }
    }
    s
}

/// Linkify results: links with the exact first URL (fuzzy IPs on, as linkify-it's test runs
/// them, and with the default options), and not-links where nothing was found.
#[derive(Debug, Default, Clone, Copy)]
pub struct LinkScore {
    pub links_ok: usize,
    pub links_ok_default: usize,
    pub links_n: usize,
    pub clean: usize,
    pub not_links_n: usize,
}

fn is_link(k: CitationKind) -> bool {
    matches!(
        k,
        CitationKind::Url | CitationKind::Doi | CitationKind::Arxiv
    )
}

/// Scores `linkify_links.jsonl` and `linkify_not_links.jsonl`.
pub fn linkify_cases() -> LinkScore {
    let fuzzy_ip = DetectOptions {
        links: LinkOptions {
            fuzzy_ip: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut s = LinkScore::default();
    for c in lines("suites/urls/linkify_links.jsonl") {
        s.links_n += 1;
        let input = c["input"].as_str().unwrap_or("");
        let expected = c["expected_url"].as_str().unwrap_or("");
        let first = |opts: &DetectOptions| {
            detect_citations_with(input, opts)
                .into_iter()
                .find(|x| is_link(x.kind))
                .map(|x| x.text)
        };
        let got = first(&fuzzy_ip);
        if got.as_deref() == Some(expected) {
            s.links_ok += 1;
        } else if show() {
            println!("LINK {input:?}\n  expected {expected:?}\n  got      {got:?}");
        }
        if first(&DetectOptions::default()).as_deref() == Some(expected) {
            s.links_ok_default += 1;
        }
    }
    for c in lines("suites/urls/linkify_not_links.jsonl") {
        s.not_links_n += 1;
        let input = c["input"].as_str().unwrap_or("");
        let found: Vec<_> = detect_citations_with(input, &fuzzy_ip)
            .into_iter()
            .filter(|x| is_link(x.kind))
            .collect();
        if found.is_empty() {
            s.clean += 1;
        } else if show() {
            println!(
                "NOT-LINK {input:?} gave {:?}",
                found.iter().map(|f| &f.text).collect::<Vec<_>>()
            );
        }
    }
    s
}
