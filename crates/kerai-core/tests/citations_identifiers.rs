//! DOI and URL extraction on the shared suites (`suites/urls/`):
//! * `doi_cases_dev.jsonl`: `find_in_text` and `reference` cases score the first DOI found
//!   (case-insensitive exact match); `exact_valid` cases score `is_valid_doi` on the whole input;
//! * `linkify_links.jsonl` / `linkify_not_links.jsonl`: the first URL found must equal the
//!   expected link text; in not-links nothing of kind url/doi/arxiv may be found. As in
//!   linkify-it's own test, the links run with fuzzy IPs on.
//!
//! Set `KERAI_SHOW_MISSES=1` to print the failures.

#[path = "support/identifier_score.rs"]
mod identifier_score;

#[test]
fn first_doi_found_matches_the_labelled_doi() {
    let s = identifier_score::doi_cases();
    println!(
        "DOI cases: first DOI {}/{} ({:.1}%), exact_valid {}/{}, all {}/{} ({:.1}%)",
        s.find_ok,
        s.find_n,
        100.0 * s.find_ok as f64 / s.find_n as f64,
        s.valid_ok,
        s.valid_n,
        s.find_ok + s.valid_ok,
        s.find_n + s.valid_n,
        100.0 * s.all()
    );
    assert!(s.all() >= 0.98, "DOI cases {:.1}% < 98%", 100.0 * s.all());
    assert_eq!(
        s.valid_ok, s.valid_n,
        "every exact_valid case must be right"
    );
}

#[test]
fn linkify_links_and_not_links() {
    let s = identifier_score::linkify_cases();
    let rate = s.links_ok as f64 / s.links_n as f64;
    let clean = s.clean as f64 / s.not_links_n as f64;
    println!(
        "linkify: links {}/{} ({:.1}%; {} with default options), not_links clean {}/{} ({:.1}%)",
        s.links_ok,
        s.links_n,
        100.0 * rate,
        s.links_ok_default,
        s.clean,
        s.not_links_n,
        100.0 * clean
    );
    assert!(rate >= 0.95, "links {:.1}% < 95%", 100.0 * rate);
    assert!(clean >= 0.95, "not_links {:.1}% < 95%", 100.0 * clean);
}
