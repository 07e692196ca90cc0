//! Resolving references to open copies through scholarly services — the pure half: request
//! URLs, response parsers, matching a search hit to a citation, and choosing the copy to fetch.
//! The fetcher (`kerai-fetch`) does the HTTP with these.
//!
//! | service | module | what kerai asks |
//! |---|---|---|
//! | CrossRef | [`crossref`] | metadata by DOI, bibliographic search |
//! | Unpaywall | [`unpaywall`] | open-access locations of a DOI |
//! | Semantic Scholar | [`semantic_scholar`] | a paper by DOI or arXiv id, relevance search |
//! | arXiv | [`arxiv`] | preprints by id or search (Atom) |
//! | Internet Archive | [`internet_archive`] | books: search, item files, downloads |
//! | concept search | [`concept`] | kerai's own endpoint for named concepts |
//!
//! ```
//! use kerai_core::resolve::*;
//! let services = Services::with_contact("crawler@example.org");
//! let url = unpaywall_url(&services, "10.1038/nrn2787");
//! assert_eq!(url, "https://api.unpaywall.org/v2/10.1038/nrn2787?email=crawler%40example.org");
//! let body = br#"{"doi": "10.1038/nrn2787", "title": "The free-energy principle: a unified brain theory?",
//!                 "year": 2010, "is_oa": false, "best_oa_location": null, "oa_locations": []}"#;
//! let work = parse_unpaywall(body).unwrap();
//! let why = best_open_copy(&work, &["cc-by".to_string()]).unwrap_err();
//! assert_eq!(why.reason, NoCopyReason::Paywalled);
//! ```

pub mod arxiv;
pub mod concept;
pub mod crossref;
mod encode;
pub mod error;
pub mod ids;
pub mod internet_archive;
mod json;
pub mod license;
pub mod matching;
pub mod open_copy;
pub mod semantic_scholar;
pub mod service;
pub mod services;
pub mod text;
pub mod trigram;
pub mod unpaywall;
pub mod work;

pub use arxiv::{arxiv_id_url, arxiv_query, arxiv_search_url, parse_arxiv, parse_arxiv_paper};
pub use concept::{concept_search_url, parse_concept_results, ConceptHit};
pub use crossref::{
    crossref_query, crossref_search_url, crossref_work_url, parse_crossref_search,
    parse_crossref_work,
};
pub use encode::{encode_component, encode_path};
pub use error::{ScholarlyError, ScholarlyErrorKind};
pub use ids::{doi_key, normalize_arxiv_id, normalize_doi};
pub use internet_archive::{
    ia_download_url, ia_metadata_url, ia_query, ia_search_url, parse_ia_metadata, parse_ia_search,
    IaFile, IaItem,
};
pub use license::{license_allowed, license_family};
pub use matching::{
    best_match, decide, match_score, CitedWork, Decision, Match, MatchScore, ACCEPT_THRESHOLD,
    MIN_TITLE, TITLE_ONLY_THRESHOLD, W_AUTHOR, W_TITLE, W_YEAR,
};
pub use open_copy::{best_open_copy, CopyKind, NoCopyReason, NoOpenCopy, OpenCopy};
pub use semantic_scholar::{
    parse_s2_paper, parse_s2_search, s2_paper_by_arxiv_url, s2_paper_by_doi_url, s2_query,
    s2_search_url, S2_FIELDS,
};
pub use service::Service;
pub use services::{Endpoint, RateLimit, Services};
pub use trigram::{trigram_similarity, trigrams};
pub use unpaywall::{parse_unpaywall, unpaywall_url};
pub use work::{
    Author, OaLocation, SearchHits, Work, ACCEPTED_VERSION, PUBLISHED_VERSION, SUBMITTED_VERSION,
};
