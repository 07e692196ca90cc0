//! kerai's concept search: a web search for a named concept ("predictive coding"), behind an
//! endpoint kerai defines so that any search backend can be plugged in.
//!
//! Request: `GET {concept_search_url}?q={term} {context}` — the concept and a few words of the
//! sentence that cites it, space-separated, percent-encoded.
//!
//! Response (`application/json`):
//!
//! ```json
//! {"results": [{"url": "https://...", "title": "...", "snippet": "...", "license": "cc-by-sa"}]}
//! ```
//!
//! `url` is required per result (results without one are skipped); `title`, `snippet` and
//! `license` are optional (`license` in any spelling [`super::license_family`] knows; absent
//! means the backend does not know). Best result first. An error is `{"error": "message"}`.

use serde_json::Value;

use super::encode::build_url;
use super::error::ScholarlyError;
use super::json::{error_field, parse_body, text};
use super::license::license_family;
use super::service::Service;
use super::services::Services;
use super::work::{OaLocation, Work};

const S: Service = Service::Concept;

/// One result of a concept search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConceptHit {
    pub url: String,
    pub title: Option<String>,
    pub snippet: Option<String>,
    /// As the backend wrote it.
    pub license: Option<String>,
}

impl ConceptHit {
    /// The hit as a work with one location, for [`super::best_open_copy`]: a `.pdf` URL is a
    /// PDF, anything else a page.
    pub fn to_work(&self) -> Work {
        let mut w = Work::new(S);
        w.title = self.title.clone();
        w.source_id = Some(self.url.clone());
        w.abstract_text = self.snippet.clone();
        let is_pdf = self
            .url
            .split(['?', '#'])
            .next()
            .is_some_and(|p| p.to_lowercase().ends_with(".pdf"));
        w.oa_locations.push(OaLocation {
            url: (!is_pdf).then(|| self.url.clone()),
            pdf_url: is_pdf.then(|| self.url.clone()),
            text_url: None,
            license: self.license.as_deref().map(license_family),
            license_raw: self.license.clone(),
            host_type: None,
            version: None,
        });
        w.is_oa = true;
        w
    }
}

/// `{concept_search_url}?q={term} {context}`, or `None` when the concept search is off.
pub fn concept_search_url(
    services: &Services,
    term: &str,
    context: Option<&str>,
) -> Option<String> {
    let endpoint = services.concept.as_ref()?;
    let q = match context.map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) => format!("{} {c}", term.trim()),
        None => term.trim().to_string(),
    };
    Some(build_url(&endpoint.base_url, "", &[("q", &q)]))
}

/// The results of a concept search, best first.
pub fn parse_concept_results(body: &[u8]) -> Result<Vec<ConceptHit>, ScholarlyError> {
    let v = parse_body(S, body)?;
    if let Some(err) = error_field(&v) {
        return Err(ScholarlyError::api(S, err));
    }
    let results = v
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| ScholarlyError::missing(S, "results"))?;
    Ok(results
        .iter()
        .filter_map(|r| {
            Some(ConceptHit {
                url: text(r, "url")?,
                title: text(r, "title"),
                snippet: text(r, "snippet"),
                license: text(r, "license"),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_only_when_configured() {
        assert_eq!(
            concept_search_url(&Services::default(), "predictive coding", None),
            None
        );
        let s = Services::default().with_base(Service::Concept, "http://127.0.0.1:7/search");
        assert_eq!(
            concept_search_url(&s, "predictive coding", Some("  the brain as a prediction machine ")).unwrap(),
            "http://127.0.0.1:7/search?q=predictive%20coding%20the%20brain%20as%20a%20prediction%20machine"
        );
    }
}
