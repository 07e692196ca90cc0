//! Semantic Scholar Academic Graph API: a paper by DOI or arXiv id, and relevance search.
//!
//! * `GET {base}/graph/v1/paper/DOI:{doi}?fields=...`
//! * `GET {base}/graph/v1/paper/ARXIV:{id}?fields=...`
//! * `GET {base}/graph/v1/paper/search?query={text}&limit={n}&fields=...` →
//!   `{"total": n, "offset": 0, "next": n, "data": [...]}` (`data` is absent when nothing
//!   matched)
//!
//! Fields asked for and read ([`S2_FIELDS`]): `paperId`, `externalIds{DOI, ArXiv}`, `title`,
//! `abstract`, `year`, `venue`, `authors[{authorId, name}]`, `isOpenAccess`,
//! `openAccessPdf{url, status, license}`. Errors: `{"error": "..."}` (400, 404 "Paper with id
//! ... not found") and `{"message": "...", "code": "429"}` (rate limit).
//!
//! `openAccessPdf.status` GOLD, HYBRID and BRONZE are the publisher's copy (published
//! version); GREEN is a repository's, version unknown. An empty `url` is no location.

use serde_json::Value;

use super::encode::{build_url, encode_path};
use super::error::ScholarlyError;
use super::ids::{doi_key, normalize_arxiv_id};
use super::json::{error_field, parse_body, text, year};
use super::license::license_family;
use super::matching::CitedWork;
use super::service::Service;
use super::services::Services;
use super::text::{alnum_words, strip_markup};
use super::work::{Author, OaLocation, SearchHits, Work, PUBLISHED_VERSION};

const S: Service = Service::SemanticScholar;

/// The fields kerai asks Semantic Scholar for.
pub const S2_FIELDS: &str =
    "paperId,externalIds,title,abstract,year,venue,authors,isOpenAccess,openAccessPdf";

fn paper_url(services: &Services, id: &str) -> String {
    build_url(
        &services.semantic_scholar.base_url,
        &format!("/graph/v1/paper/{id}"),
        &[("fields", S2_FIELDS)],
    )
}

/// `{base}/graph/v1/paper/DOI:{doi}?fields=...`.
pub fn s2_paper_by_doi_url(services: &Services, doi: &str) -> String {
    paper_url(services, &format!("DOI:{}", encode_path(doi.trim())))
}

/// `{base}/graph/v1/paper/ARXIV:{id}?fields=...` (the id without version).
pub fn s2_paper_by_arxiv_url(services: &Services, arxiv_id: &str) -> String {
    let id = normalize_arxiv_id(arxiv_id).unwrap_or_else(|| arxiv_id.trim().to_string());
    paper_url(services, &format!("ARXIV:{}", encode_path(&id)))
}

/// `{base}/graph/v1/paper/search?query={query}&limit={limit}&fields=...`.
pub fn s2_search_url(services: &Services, query: &str, limit: u32) -> String {
    build_url(
        &services.semantic_scholar.base_url,
        "/graph/v1/paper/search",
        &[
            ("query", query.trim()),
            ("limit", &limit.to_string()),
            ("fields", S2_FIELDS),
        ],
    )
}

/// The search text for a citation: its title, else "author year". Punctuation becomes spaces:
/// Semantic Scholar finds nothing for hyphenated terms ("free-energy").
pub fn s2_query(cited: &CitedWork) -> String {
    let text = match cited
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        Some(t) => t.to_string(),
        None => {
            let year = cited.year.map(|y| y.to_string());
            [cited.first_author(), year.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    alnum_words(&text).collect::<Vec<_>>().join(" ")
}

/// One paper from `/graph/v1/paper/{id}`.
pub fn parse_s2_paper(body: &[u8]) -> Result<Work, ScholarlyError> {
    let v = parse_body(S, body)?;
    check_error(&v)?;
    paper(&v)
}

/// The hits of `/graph/v1/paper/search`, in relevance order.
pub fn parse_s2_search(body: &[u8]) -> Result<SearchHits, ScholarlyError> {
    let v = parse_body(S, body)?;
    check_error(&v)?;
    let total = v.get("total").and_then(Value::as_u64);
    let works = match v.get("data") {
        Some(Value::Array(items)) => items.iter().map(paper).collect::<Result<Vec<_>, _>>()?,
        None if total.is_some() => Vec::new(),
        _ => return Err(ScholarlyError::missing(S, "data")),
    };
    Ok(SearchHits { total, works })
}

fn check_error(v: &Value) -> Result<(), ScholarlyError> {
    if !v.is_object() {
        return Err(ScholarlyError::malformed(S, "expected a JSON object"));
    }
    if let Some(msg) = error_field(v) {
        return Err(if msg.to_lowercase().contains("not found") {
            ScholarlyError::not_found(S, msg)
        } else {
            ScholarlyError::api(S, msg)
        });
    }
    if v.get("paperId").is_none() && v.get("data").is_none() && v.get("total").is_none() {
        if let Some(msg) = text(v, "message") {
            let code = v
                .get("code")
                .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string));
            return Err(
                if code.as_deref() == Some("429")
                    || msg.to_lowercase().contains("too many requests")
                {
                    ScholarlyError::rate_limited(
                        S,
                        format!("{msg} (set semantic_scholar_api_key for a higher limit)"),
                    )
                } else {
                    ScholarlyError::api(S, msg)
                },
            );
        }
    }
    Ok(())
}

fn paper(p: &Value) -> Result<Work, ScholarlyError> {
    let id = text(p, "paperId").ok_or_else(|| ScholarlyError::missing(S, "paperId"))?;
    let mut w = Work::new(S);
    w.source_id = Some(id);
    let ids = p.get("externalIds").cloned().unwrap_or(Value::Null);
    w.doi = text(&ids, "DOI").map(|d| doi_key(&d));
    w.arxiv = text(&ids, "ArXiv").map(|a| normalize_arxiv_id(&a).unwrap_or(a));
    w.title = text(p, "title");
    w.abstract_text = text(p, "abstract").map(|a| strip_markup(&a));
    w.year = p.get("year").and_then(year);
    w.container = text(p, "venue");
    w.authors = p
        .get("authors")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|a| text(a, "name"))
                .map(|n| Author::from_name(&n))
                .collect()
        })
        .unwrap_or_default();
    w.is_oa = p
        .get("isOpenAccess")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(pdf) = p.get("openAccessPdf").filter(|o| o.is_object()) {
        if let Some(url) = text(pdf, "url") {
            let status = text(pdf, "status").map(|s| s.to_ascii_uppercase());
            let publisher = matches!(status.as_deref(), Some("GOLD" | "HYBRID" | "BRONZE"));
            let license_raw = text(pdf, "license");
            w.oa_locations.push(OaLocation {
                url: None,
                pdf_url: Some(url),
                text_url: None,
                license: license_raw.as_deref().map(license_family),
                license_raw,
                host_type: status
                    .map(|_| if publisher { "publisher" } else { "repository" }.to_string()),
                version: publisher.then(|| PUBLISHED_VERSION.to_string()),
            });
        }
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let s = Services::default();
        assert_eq!(
            s2_paper_by_doi_url(&s, "10.1016/j.jmp.2020.102447"),
            format!(
                "https://api.semanticscholar.org/graph/v1/paper/DOI:10.1016/j.jmp.2020.102447?fields={}",
                S2_FIELDS.replace(',', "%2C")
            )
        );
        assert!(s2_paper_by_arxiv_url(&s, "arXiv:2107.12979v3").starts_with(
            "https://api.semanticscholar.org/graph/v1/paper/ARXIV:2107.12979?fields="
        ));
        assert!(s2_search_url(&s, "free energy principle", 5)
            .starts_with("https://api.semanticscholar.org/graph/v1/paper/search?query=free%20energy%20principle&limit=5&fields="));
        let c = CitedWork {
            title: Some("The free-energy principle: a unified brain theory?".into()),
            ..CitedWork::default()
        };
        assert_eq!(
            s2_query(&c),
            "The free energy principle a unified brain theory"
        );
        let c = CitedWork {
            first_author_family: Some("Friston".into()),
            year: Some(2010),
            ..CitedWork::default()
        };
        assert_eq!(s2_query(&c), "Friston 2010");
    }

    #[test]
    fn shapes() {
        assert!(parse_s2_search(br#"{"offset": 0}"#).is_err());
        let e = parse_s2_paper(br#"{"message": "Forbidden"}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "semantic_scholar: service reported an error (Forbidden)"
        );
        let e = parse_s2_paper(br#"{"title": "x"}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "semantic_scholar: response lacks a required field (no `paperId`)"
        );
    }
}
