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
        "DOI cases: first DOI {}/{} ({:.1}%), exact_valid {}/{}, all {}/{} ({:.1}%); \
         {} more whose label cut the DOI's closing parenthesis: {:.1}%",
        s.find_ok,
        s.find_n,
        100.0 * s.find_ok as f64 / s.find_n as f64,
        s.valid_ok,
        s.valid_n,
        s.find_ok + s.valid_ok,
        s.find_n + s.valid_n,
        100.0 * s.all(),
        s.label_cut,
        100.0 * s.all_corrected()
    );
    assert!(s.all() >= 0.98, "DOI cases {:.1}% < 98%", 100.0 * s.all());
    assert!(
        s.all_corrected() >= 0.99,
        "DOI cases, labels read whole: {:.1}% < 99%",
        100.0 * s.all_corrected()
    );
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

/// The hard forms of issue 17: a DOI split across lines (after a hyphen, a slash or a dot, in a
/// resolver link too), with trailing punctuation, `%2F` in a URL, an old Wiley SICI DOI with
/// `<>` and `;`, and `doi:` with spaces.
#[test]
fn hard_doi_forms() {
    use kerai_core::citations::{detect_citations, CitationKind};
    for (text, doi) in [
        (
            "Biochim. doi:10.1016/0005-\n2728(89)90006-4 and",
            "10.1016/0005-2728(89)90006-4",
        ),
        (
            "Cell 136, doi:10.1016/j.\ncell.2009.01.042",
            "10.1016/j.cell.2009.01.042",
        ),
        (
            "see https://doi.org/10.1038/\nnrn2787 there",
            "10.1038/nrn2787",
        ),
        ("(doi:10.1038/nrn2787).", "10.1038/nrn2787"),
        ("\"https://doi.org/10.1038/nrn2787\";", "10.1038/nrn2787"),
        ("https://doi.org/10.1038%2Fnrn2787", "10.1038/nrn2787"),
        (
            "doi:10.1002/(SICI)1097-4636(199812)43:4<413::AID-JBM9>3.0.CO;2-K, 1998",
            "10.1002/(sici)1097-4636(199812)43:4<413::aid-jbm9>3.0.co;2-k",
        ),
        ("DOI : 10.1038/nrn2787", "10.1038/nrn2787"),
        (
            "doi: 10. 1107/S0108767307043930",
            "10.1107/s0108767307043930",
        ),
        (
            "doi:10.1126/science.1193063.PMID:20847271",
            "10.1126/science.1193063",
        ),
    ] {
        let got = detect_citations(text)
            .into_iter()
            .find(|c| c.kind == CitationKind::Doi)
            .and_then(|c| c.detail["doi"].as_str().map(str::to_string));
        assert_eq!(got.as_deref(), Some(doi), "{text:?}");
    }
}
