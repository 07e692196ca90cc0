//! The scholarly parsers on sample responses in the services' real envelopes
//! (`tests/fixtures/scholarly/<service>/`), from parse to match to the copy kerai would fetch.

use kerai_core::resolve::*;

fn fixture(path: &str) -> Vec<u8> {
    let full = format!(
        "{}/tests/fixtures/scholarly/{path}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&full).unwrap_or_else(|e| panic!("fixture {full}: {e}"))
}

fn allowed(l: &[&str]) -> Vec<String> {
    l.iter().map(|s| s.to_string()).collect()
}

/// The crawler's default policy (kerai-fetch `Policy::from_config`).
fn default_policy() -> Vec<String> {
    allowed(&["cc-by", "cc-by-sa", "cc-by-nc", "public-domain", "oa"])
}

fn families(w: &Work) -> Vec<&str> {
    w.authors.iter().map(|a| a.family.as_str()).collect()
}

// ---------------------------------------------------------------- CrossRef

#[test]
fn crossref_cc_by_paper() {
    let w = parse_crossref_work(&fixture("crossref/work_10.1016_j.jmp.2020.102447.json")).unwrap();
    assert_eq!(w.source, Service::Crossref);
    assert_eq!(w.doi.as_deref(), Some("10.1016/j.jmp.2020.102447"));
    assert_eq!(
        w.title.as_deref(),
        Some("Active inference on discrete state-spaces: A synthesis")
    );
    assert_eq!(
        families(&w),
        ["Da Costa", "Parr", "Sajid", "Veselic", "Neacsu", "Friston"]
    );
    assert_eq!(w.authors[0].given.as_deref(), Some("Lancelot"));
    assert_eq!(w.year, Some(2020));
    assert_eq!(
        w.container.as_deref(),
        Some("Journal of Mathematical Psychology")
    );
    let abs = w.abstract_text.as_deref().unwrap();
    assert!(
        abs.starts_with("Active inference is a normative principle"),
        "{abs}"
    );
    assert!(
        abs.contains("discrete state-spaces – a particular setting"),
        "{abs}"
    );
    assert!(
        abs.contains("associated belief updating and message passing."),
        "{abs}"
    );
    assert!(!abs.contains('<') && !abs.starts_with("Abstract"), "{abs}");
    // The vor license is CC BY; the tdm userlicense is not a reading license.
    assert!(w.is_oa);
    assert_eq!(w.oa_locations.len(), 1);
    let loc = &w.oa_locations[0];
    assert_eq!(loc.license.as_deref(), Some("cc-by"));
    assert_eq!(
        loc.license_raw.as_deref(),
        Some("http://creativecommons.org/licenses/by/4.0/")
    );
    assert_eq!(loc.version.as_deref(), Some(PUBLISHED_VERSION));
    assert_eq!(
        loc.pdf_url, None,
        "text-mining XML/plain links are not reading copies"
    );
    assert_eq!(
        loc.url.as_deref(),
        Some("https://linkinghub.elsevier.com/retrieve/pii/S0022249620300857")
    );
    let copy = best_open_copy(&w, &default_policy()).unwrap();
    assert_eq!(
        (copy.kind, copy.license.as_str()),
        (CopyKind::Html, "cc-by")
    );
}

#[test]
fn crossref_paywalled_paper() {
    let w = parse_crossref_work(&fixture("crossref/work_10.1038_nrn2787.json")).unwrap();
    assert_eq!(w.doi.as_deref(), Some("10.1038/nrn2787"));
    assert_eq!(
        w.title.as_deref(),
        Some("The free-energy principle: a unified brain theory?")
    );
    assert_eq!(families(&w), ["Friston"]);
    assert_eq!(w.year, Some(2010), "issued 2010-01-13");
    assert_eq!(w.container.as_deref(), Some("Nature Reviews Neuroscience"));
    assert_eq!(w.abstract_text, None);
    assert!(
        !w.is_oa && w.oa_locations.is_empty(),
        "springer tdm license is not open"
    );
    let why = best_open_copy(&w, &default_policy()).unwrap_err();
    assert_eq!(why.reason, NoCopyReason::Paywalled);
}

#[test]
fn crossref_search_without_a_good_match() {
    let hits = parse_crossref_search(&fixture("crossref/search_helmholtz_no_match.json")).unwrap();
    assert_eq!(hits.total, Some(41872));
    assert_eq!(hits.works.len(), 3);
    assert_eq!(hits.works[0].score, Some(31.42));
    assert_eq!(hits.works[1].year, Some(2005));
    let cited = CitedWork {
        title: Some("Handbuch der physiologischen Optik".into()),
        first_author_family: Some("Helmholtz".into()),
        year: Some(1867),
        ..CitedWork::default()
    };
    for (rank, w) in hits.works.iter().enumerate() {
        let s = match_score(&cited, w);
        assert!(s.total < ACCEPT_THRESHOLD, "hit {rank}: {s:?}");
        assert!(!decide(&cited, &s, rank).is_accept());
    }
    assert_eq!(best_match(&cited, &hits.works), None);
}

#[test]
fn crossref_errors() {
    let e = parse_crossref_search(&fixture("crossref/error_validation_failure.json")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::Api);
    assert_eq!(
        e.to_string(),
        "crossref: service reported an error (status failed: This route does not support query.bibliografic)"
    );
    let e = parse_crossref_work(&fixture("crossref/not_found.txt")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::NotFound);
    assert_eq!(e.to_string(), "crossref: not found (Resource not found.)");
}

// ---------------------------------------------------------------- Unpaywall

#[test]
fn unpaywall_cc_by_with_pdf() {
    let w = parse_unpaywall(&fixture("unpaywall/10.1016_j.jmp.2020.102447.json")).unwrap();
    assert_eq!(w.source, Service::Unpaywall);
    assert_eq!(w.doi.as_deref(), Some("10.1016/j.jmp.2020.102447"));
    assert_eq!(w.year, Some(2020));
    assert_eq!(
        w.container.as_deref(),
        Some("Journal of Mathematical Psychology")
    );
    assert_eq!(w.authors[0], Author::new("Da Costa", Some("Lancelot")));
    assert!(w.is_oa);
    // best_oa_location first, the copies in oa_locations not repeated.
    assert_eq!(w.oa_locations.len(), 3);
    assert_eq!(w.oa_locations[0].host_type.as_deref(), Some("publisher"));
    assert_eq!(
        w.oa_locations[1].pdf_url.as_deref(),
        Some("https://europepmc.org/articles/pmc7732703?pdf=render")
    );
    assert_eq!(w.oa_locations[2].license, None);
    assert_eq!(
        w.oa_locations[2].version.as_deref(),
        Some(SUBMITTED_VERSION)
    );
    // The published version as a PDF (Europe PMC) beats the publisher's landing page.
    let copy = best_open_copy(&w, &default_policy()).unwrap();
    assert_eq!(
        copy.url,
        "https://europepmc.org/articles/pmc7732703?pdf=render"
    );
    assert_eq!((copy.kind, copy.license.as_str()), (CopyKind::Pdf, "cc-by"));
    assert_eq!(copy.version.as_deref(), Some(PUBLISHED_VERSION));
    assert_eq!(copy.host_type.as_deref(), Some("repository"));
    // A policy of "oa" only leaves the arXiv preprint (no license named).
    let copy = best_open_copy(&w, &allowed(&["oa"])).unwrap();
    assert_eq!(
        (copy.url.as_str(), copy.license.as_str()),
        ("http://arxiv.org/pdf/2001.07203", "oa")
    );
}

#[test]
fn unpaywall_paywalled() {
    let w = parse_unpaywall(&fixture("unpaywall/10.1038_nrn2787.json")).unwrap();
    assert_eq!(
        w.title.as_deref(),
        Some("The free-energy principle: a unified brain theory?")
    );
    assert_eq!(w.year, Some(2010));
    assert!(!w.is_oa && w.oa_locations.is_empty());
    let why = best_open_copy(&w, &default_policy()).unwrap_err();
    assert_eq!(why.reason, NoCopyReason::Paywalled);
    assert_eq!(
        why.message,
        "paywalled: unpaywall reports no free-to-read copy of 10.1038/nrn2787"
    );
}

#[test]
fn unpaywall_cc_by_nc_nd_is_refused_by_the_default_policy() {
    let w = parse_unpaywall(&fixture("unpaywall/10.1016_j.jmp.2021.102632.json")).unwrap();
    assert!(w.is_oa);
    assert!(w
        .oa_locations
        .iter()
        .all(|l| l.license.as_deref() == Some("cc-by-nc-nd")));
    let why = best_open_copy(&w, &default_policy()).unwrap_err();
    assert_eq!(why.reason, NoCopyReason::LicenseNotAllowed);
    assert!(why.message.contains("under cc-by-nc-nd"), "{}", why.message);
    let copy = best_open_copy(&w, &allowed(&["cc-by-nc-nd"])).unwrap();
    assert_eq!(copy.url, "https://doi.org/10.1016/j.jmp.2021.102632");
    assert_eq!(
        (copy.kind, copy.host_type.as_deref()),
        (CopyKind::Html, Some("publisher"))
    );
}

#[test]
fn unpaywall_errors() {
    let e = parse_unpaywall(&fixture("unpaywall/error_404_invalid_doi.json")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::NotFound);
    assert!(
        e.to_string()
            .starts_with("unpaywall: not found (HTTP 404: '10.1038/nrn27870' is an invalid doi"),
        "{e}"
    );
    let e = parse_unpaywall(&fixture("unpaywall/error_422_no_email.json")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::Api);
    assert!(e.to_string().contains("Email address required"), "{e}");
}

// ---------------------------------------------------------------- Semantic Scholar

#[test]
fn s2_paper_by_doi() {
    let w = parse_s2_paper(&fixture(
        "semantic_scholar/paper_DOI_10.1016_j.jmp.2020.102447.json",
    ))
    .unwrap();
    assert_eq!(w.source, Service::SemanticScholar);
    assert_eq!(
        w.source_id.as_deref(),
        Some("4b2a8d2e7e6a6c4f0f1d9a6c3c2e1b0d9f8e7a61")
    );
    assert_eq!(w.doi.as_deref(), Some("10.1016/j.jmp.2020.102447"));
    assert_eq!(w.arxiv.as_deref(), Some("2001.07203"));
    assert_eq!(
        families(&w),
        ["Da Costa", "Parr", "Sajid", "Veselic", "Neacsu", "Friston"]
    );
    assert_eq!(w.authors[5].given.as_deref(), Some("Karl J."));
    assert_eq!(w.year, Some(2020));
    assert!(w
        .abstract_text
        .as_deref()
        .unwrap()
        .starts_with("Active inference is a normative"));
    assert!(w.is_oa);
    let loc = &w.oa_locations[0];
    assert_eq!(
        (loc.license.as_deref(), loc.license_raw.as_deref()),
        (Some("cc-by"), Some("CCBY"))
    );
    assert_eq!(
        (loc.host_type.as_deref(), loc.version.as_deref()),
        (Some("publisher"), Some(PUBLISHED_VERSION))
    );
    let copy = best_open_copy(&w, &default_policy()).unwrap();
    assert_eq!(copy.url, "https://doi.org/10.1016/j.jmp.2020.102447");
}

#[test]
fn s2_paper_by_arxiv_without_open_pdf() {
    let w = parse_s2_paper(&fixture("semantic_scholar/paper_ARXIV_2107.12979.json")).unwrap();
    assert_eq!(w.arxiv.as_deref(), Some("2107.12979"));
    assert_eq!(w.doi, None);
    assert_eq!(w.abstract_text, None, "elided by the publisher: null");
    assert_eq!(families(&w), ["Millidge", "Seth", "Buckley"]);
    // An empty openAccessPdf.url is no location; arXiv itself is the place to ask next.
    assert!(!w.is_oa && w.oa_locations.is_empty());
}

#[test]
fn s2_search_where_the_second_hit_is_the_cited_work() {
    let hits = parse_s2_search(&fixture(
        "semantic_scholar/search_free_energy_principle.json",
    ))
    .unwrap();
    assert_eq!(hits.total, Some(6208));
    assert_eq!(hits.works.len(), 5);
    assert_eq!(
        hits.works[3].oa_locations[0].license.as_deref(),
        Some("cc-by")
    );
    let cited = CitedWork {
        title: Some("The free-energy principle: a unified brain theory?".into()),
        first_author_family: Some("Friston".into()),
        year: Some(2010),
        ..CitedWork::default()
    };
    let scores: Vec<MatchScore> = hits.works.iter().map(|w| match_score(&cited, w)).collect();
    // The top hit is the 2009 "rough guide": same author, a year off, a similar title.
    assert_eq!((scores[0].author, scores[0].year), (1.0, 0.5));
    assert_eq!(scores[0].title, 34.0 / 60.0);
    assert!((scores[0].total - (0.6 * 34.0 / 60.0 + 0.25 + 0.075)).abs() < 1e-12);
    assert!(scores[0].total < ACCEPT_THRESHOLD, "{:?}", scores[0]);
    // "A free energy principle for the brain" (2006): closer title, wrong year.
    assert_eq!((scores[2].title, scores[2].year), (34.0 / 49.0, 0.0));
    assert!(scores[2].total < ACCEPT_THRESHOLD, "{:?}", scores[2]);
    assert_eq!(scores[1].total, 1.0);
    let m = best_match(&cited, &hits.works).unwrap();
    assert_eq!(m.rank, 1);
    assert_eq!(hits.works[m.rank].doi.as_deref(), Some("10.1038/nrn2787"));
    // An author-year citation ("Friston 2010") may take only the top hit, and it is 2009.
    let author_year = CitedWork {
        first_author_family: Some("Friston".into()),
        year: Some(2010),
        ..CitedWork::default()
    };
    assert_eq!(best_match(&author_year, &hits.works), None);
    assert_eq!(
        best_match(&author_year, &hits.works[1..]).map(|m| m.rank),
        Some(0)
    );
}

#[test]
fn s2_empty_search_and_errors() {
    let hits = parse_s2_search(&fixture("semantic_scholar/search_empty.json")).unwrap();
    assert_eq!((hits.total, hits.works.len()), (Some(0), 0));
    let e = parse_s2_paper(&fixture("semantic_scholar/error_not_found.json")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::NotFound);
    assert_eq!(
        e.to_string(),
        "semantic_scholar: not found (Paper with id DOI:10.1038/nrn27870 not found)"
    );
    let e = parse_s2_search(&fixture("semantic_scholar/error_bad_fields.json")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::Api);
    let e = parse_s2_search(&fixture("semantic_scholar/error_rate_limited.json")).unwrap_err();
    assert!(e.is_transient());
    assert!(e.to_string().contains("semantic_scholar_api_key"), "{e}");
}

// ---------------------------------------------------------------- arXiv

#[test]
fn arxiv_by_id() {
    let hits = parse_arxiv(&fixture("arxiv/query_id_2107.12979.xml")).unwrap();
    assert_eq!(hits.total, Some(1));
    let w = &hits.works[0];
    assert_eq!(w.source, Service::Arxiv);
    assert_eq!(w.arxiv.as_deref(), Some("2107.12979"));
    assert_eq!(w.source_id.as_deref(), Some("2107.12979v3"));
    assert_eq!(
        w.title.as_deref(),
        Some("Predictive Coding: a Theoretical and Experimental Review")
    );
    assert_eq!(families(w), ["Millidge", "Seth", "Buckley"]);
    assert_eq!(w.authors[2].given.as_deref(), Some("Christopher L"));
    assert_eq!(w.year, Some(2021));
    assert_eq!(w.doi, None);
    let abs = w.abstract_text.as_deref().unwrap();
    assert!(
        abs.starts_with("Predictive coding offers") && !abs.contains('\n'),
        "{abs}"
    );
    let copy = best_open_copy(w, &default_policy()).unwrap();
    assert_eq!(copy.url, "https://arxiv.org/pdf/2107.12979v3");
    assert_eq!((copy.kind, copy.license.as_str()), (CopyKind::Pdf, "oa"));
    assert_eq!(copy.version.as_deref(), Some(SUBMITTED_VERSION));
    // A policy without "oa" cannot take arXiv copies (their license is not in the API).
    let why = best_open_copy(w, &allowed(&["cc-by"])).unwrap_err();
    assert_eq!(why.reason, NoCopyReason::LicenseNotAllowed);
}

#[test]
fn arxiv_search_in_the_classic_feed() {
    let hits = parse_arxiv(&fixture("arxiv/search_active_inference_discrete.xml")).unwrap();
    let w = &hits.works[0];
    assert_eq!(w.arxiv.as_deref(), Some("2001.07203"));
    assert_eq!(w.doi.as_deref(), Some("10.1016/j.jmp.2020.102447"));
    assert_eq!(
        w.container.as_deref(),
        Some("Journal of Mathematical Psychology, Volume 99, 2020, 102447")
    );
    assert_eq!(
        w.oa_locations[0].url.as_deref(),
        Some("http://arxiv.org/abs/2001.07203v2")
    );
    assert_eq!(
        w.oa_locations[0].pdf_url.as_deref(),
        Some("http://arxiv.org/pdf/2001.07203v2")
    );
    let cited = CitedWork {
        title: Some("Active inference on discrete state-spaces: a synthesis".into()),
        authors: vec!["Da Costa".into(), "Parr".into()],
        year: Some(2020),
        ..CitedWork::default()
    };
    let s = match_score(&cited, w);
    assert_eq!((s.title, s.author, s.year, s.total), (1.0, 1.0, 1.0, 1.0));
}

#[test]
fn arxiv_empty_and_errors() {
    let hits = parse_arxiv(&fixture("arxiv/search_empty.xml")).unwrap();
    assert_eq!((hits.total, hits.works.len()), (Some(0), 0));
    let e = parse_arxiv_paper(&fixture("arxiv/search_empty.xml")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::NotFound);
    let w = parse_arxiv_paper(&fixture("arxiv/query_id_2107.12979.xml")).unwrap();
    assert_eq!(w.arxiv.as_deref(), Some("2107.12979"));
    let e = parse_arxiv(&fixture("arxiv/error_bad_id.xml")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::Api);
    assert_eq!(
        e.to_string(),
        "arxiv: service reported an error (incorrect id format for 2107.129790)"
    );
    let e = parse_arxiv(&fixture("arxiv/rate_exceeded.txt")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::RateLimited);
}

// ---------------------------------------------------------------- Internet Archive

#[test]
fn internet_archive_public_domain_book() {
    let hits = parse_ia_search(&fixture(
        "internet_archive/advancedsearch_helmholtz_optik.json",
    ))
    .unwrap();
    assert_eq!(hits.total, Some(3));
    assert_eq!(
        hits.works[0].source_id.as_deref(),
        Some("handbuchderphysi00helm")
    );
    assert_eq!(hits.works[0].year, Some(1867));
    assert_eq!(hits.works[1].year, Some(1896), "year as a string");
    assert_eq!(
        families(&hits.works[1]),
        ["Helmholtz", "König"],
        "creator as an array"
    );
    let cited = CitedWork {
        title: Some("Handbuch der physiologischen Optik".into()),
        first_author_family: Some("Helmholtz".into()),
        year: Some(1867),
        ..CitedWork::default()
    };
    let m = best_match(&cited, &hits.works).unwrap();
    assert_eq!(m.rank, 0);
    assert_eq!(
        match_score(&cited, &hits.works[1]).year,
        0.0,
        "the 1896 second edition"
    );

    let item = parse_ia_metadata(&fixture(
        "internet_archive/metadata_handbuchderphysi00helm.json",
    ))
    .unwrap();
    assert_eq!(item.identifier, "handbuchderphysi00helm");
    assert_eq!(item.year, Some(1867));
    assert_eq!(item.creators, ["Helmholtz, Hermann von, 1821-1894"]);
    assert_eq!(
        item.license.as_deref(),
        Some("public domain"),
        "NOT_IN_COPYRIGHT"
    );
    assert!(!item.restricted);
    assert_eq!(item.files.len(), 7);
    assert_eq!(
        item.text_file().map(|f| (f.name.as_str(), f.size)),
        Some(("handbuchderphysi00helm_djvu.txt", Some(1_822_534)))
    );
    assert_eq!(item.pdf_file().map(|f| f.format.as_str()), Some("Text PDF"));

    let services = Services::all_at("http://127.0.0.1:8080");
    let w = item.to_work(&services);
    assert!(w.is_oa);
    let loc = &w.oa_locations[0];
    assert_eq!(
        loc.url.as_deref(),
        Some("http://127.0.0.1:8080/internet_archive/details/handbuchderphysi00helm")
    );
    assert_eq!(
        loc.pdf_url.as_deref(),
        Some("http://127.0.0.1:8080/internet_archive/download/handbuchderphysi00helm/handbuchderphysi00helm.pdf")
    );
    let copy = best_open_copy(&w, &default_policy()).unwrap();
    assert_eq!(
        copy.url,
        "http://127.0.0.1:8080/internet_archive/download/handbuchderphysi00helm/handbuchderphysi00helm_djvu.txt"
    );
    assert_eq!(
        (copy.kind, copy.license.as_str()),
        (CopyKind::Text, "public-domain")
    );
}

#[test]
fn internet_archive_errors() {
    let e = parse_ia_metadata(&fixture("internet_archive/metadata_missing.json")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::NotFound);
    let e = parse_ia_search(&fixture("internet_archive/advancedsearch_error.json")).unwrap_err();
    assert_eq!(e.kind, ScholarlyErrorKind::Api);
    assert!(
        e.to_string().contains("Unable to parse search query"),
        "{e}"
    );
}

// ---------------------------------------------------------------- concept search

#[test]
fn concept_search_results() {
    let hits = parse_concept_results(&fixture("concept/predictive_coding.json")).unwrap();
    assert_eq!(hits.len(), 3, "the result without a URL is skipped");
    assert_eq!(hits[0].license.as_deref(), Some("CC BY-SA 4.0"));
    let copy = best_open_copy(&hits[0].to_work(), &default_policy()).unwrap();
    assert_eq!(
        (copy.kind, copy.license.as_str()),
        (CopyKind::Html, "cc-by-sa")
    );
    let w = hits[1].to_work();
    assert_eq!(
        w.oa_locations[0].pdf_url.as_deref(),
        Some("https://www.scholarpedia.org/article/Predictive_coding.pdf")
    );
    assert_eq!(
        best_open_copy(&w, &default_policy()).unwrap_err().reason,
        NoCopyReason::LicenseNotAllowed,
        "cc-by-nc-sa is not in the default policy"
    );
    assert_eq!(
        best_open_copy(&hits[2].to_work(), &default_policy())
            .unwrap()
            .license,
        "oa"
    );
    let e = parse_concept_results(&fixture("concept/error.json")).unwrap_err();
    assert_eq!(e.to_string(), "concept: service reported an error (search backend unavailable: upstream returned HTTP 503)");
}

// ---------------------------------------------------------------- robustness

#[test]
fn no_parser_panics_on_any_fixture_or_a_cut_of_it() {
    let dir = format!("{}/tests/fixtures/scholarly", env!("CARGO_MANIFEST_DIR"));
    let mut count = 0;
    for service in std::fs::read_dir(&dir).unwrap() {
        for file in std::fs::read_dir(service.unwrap().path()).unwrap() {
            let body = std::fs::read(file.unwrap().path()).unwrap();
            count += 1;
            // Wrong parser for the body: an error or a value, never a panic.
            let _ = parse_crossref_work(&body);
            let _ = parse_crossref_search(&body);
            let _ = parse_unpaywall(&body);
            let _ = parse_s2_paper(&body);
            let _ = parse_s2_search(&body);
            let _ = parse_arxiv(&body);
            let _ = parse_ia_search(&body);
            let _ = parse_ia_metadata(&body);
            let _ = parse_concept_results(&body);
            for cut in [1, body.len() / 2] {
                let _ = parse_arxiv(&body[..cut.min(body.len())]);
                let _ = parse_crossref_work(&body[..cut.min(body.len())]);
            }
        }
    }
    assert_eq!(count, 28, "the fixtures listed in notes/resolve.md");
}
