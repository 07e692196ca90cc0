//! DOI and URL extraction on the shared suites (`suites/urls/`):
//! * `doi_cases_dev.jsonl`: `find_in_text` and `reference` cases score the first DOI found
//!   (case-insensitive exact match); `exact_valid` cases score `is_valid_doi` on the whole input;
//! * `linkify_links.jsonl` / `linkify_not_links.jsonl`: the first URL found must equal the
//!   expected link text; in not-links nothing of kind url/doi/arxiv may be found. As in
//!   linkify-it's own test, the links run with fuzzy IPs on.
//!
//! Set `KERAI_SHOW_MISSES=1` to print the failures.

use kerai_core::citations::{
    detect_citations, detect_citations_with, is_valid_doi, CitationKind, DetectOptions,
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

#[test]
fn first_doi_found_matches_the_labelled_doi() {
    let cases = lines("suites/urls/doi_cases_dev.jsonl");
    let (mut find_ok, mut find_n, mut valid_ok, mut valid_n) = (0, 0, 0, 0);
    for c in &cases {
        let input = c["input"].as_str().unwrap();
        if c["kind"] == "exact_valid" {
            valid_n += 1;
            let expected = c["expected"].as_bool().unwrap();
            if is_valid_doi(input) == expected {
                valid_ok += 1;
            } else if show() {
                println!("VALIDITY {input:?}: expected {expected}");
            }
            continue;
        }
        find_n += 1;
        let expected = c["expected"].as_str().unwrap();
        let got = detect_citations(input)
            .into_iter()
            .find(|x| x.kind == CitationKind::Doi)
            .and_then(|x| x.detail["doi"].as_str().map(str::to_string));
        if got
            .as_deref()
            .is_some_and(|g| g.eq_ignore_ascii_case(expected))
        {
            find_ok += 1;
        } else if show() {
            println!(
                "DOI {:?}\n  expected {expected:?}\n  got      {got:?}",
                input
            );
        }
    }
    let all = (find_ok + valid_ok) as f64 / (find_n + valid_n) as f64;
    println!(
        "DOI cases: first DOI {find_ok}/{find_n} ({:.1}%), exact_valid {valid_ok}/{valid_n}, all {}/{} ({:.1}%)",
        100.0 * find_ok as f64 / find_n as f64,
        find_ok + valid_ok,
        find_n + valid_n,
        100.0 * all
    );
    assert!(all >= 0.98, "DOI cases {:.1}% < 98%", 100.0 * all);
    assert_eq!(valid_ok, valid_n, "every exact_valid case must be right");
}

#[test]
fn linkify_links_and_not_links() {
    let fuzzy_ip = DetectOptions {
        links: kerai_core::citations::LinkOptions {
            fuzzy_ip: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let is_link = |k: CitationKind| {
        matches!(
            k,
            CitationKind::Url | CitationKind::Doi | CitationKind::Arxiv
        )
    };
    let links = lines("suites/urls/linkify_links.jsonl");
    let mut ok = 0;
    let mut ok_default = 0;
    for c in &links {
        let input = c["input"].as_str().unwrap();
        let expected = c["expected_url"].as_str().unwrap();
        let first = |opts: &DetectOptions| {
            detect_citations_with(input, opts)
                .into_iter()
                .find(|x| is_link(x.kind))
                .map(|x| x.text)
        };
        let got = first(&fuzzy_ip);
        if got.as_deref() == Some(expected) {
            ok += 1;
        } else if show() {
            println!("LINK {input:?}\n  expected {expected:?}\n  got      {got:?}");
        }
        if first(&DetectOptions::default()).as_deref() == Some(expected) {
            ok_default += 1;
        }
    }
    let not_links = lines("suites/urls/linkify_not_links.jsonl");
    let mut clean = 0;
    for c in &not_links {
        let input = c["input"].as_str().unwrap();
        let found: Vec<_> = detect_citations_with(input, &fuzzy_ip)
            .into_iter()
            .filter(|x| is_link(x.kind))
            .collect();
        if found.is_empty() {
            clean += 1;
        } else if show() {
            println!(
                "NOT-LINK {input:?} gave {:?}",
                found.iter().map(|f| &f.text).collect::<Vec<_>>()
            );
        }
    }
    let rate = ok as f64 / links.len() as f64;
    let clean_rate = clean as f64 / not_links.len() as f64;
    println!(
        "linkify: links {ok}/{} ({:.1}%; {ok_default} with default options), not_links clean {clean}/{} ({:.1}%)",
        links.len(),
        100.0 * rate,
        not_links.len(),
        100.0 * clean_rate
    );
    assert!(rate >= 0.95, "links {:.1}% < 95%", 100.0 * rate);
    assert!(
        clean_rate >= 0.95,
        "not_links {:.1}% < 95%",
        100.0 * clean_rate
    );
}
