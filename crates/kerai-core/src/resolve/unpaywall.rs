//! Unpaywall: where a DOI can be read for free.
//!
//! `GET {base}/v2/{doi}?email={email}` (the e-mail is required) → one DOI object: `doi`,
//! `title`, `year`, `journal_name`, `z_authors[{given, family} | {raw_author_name}]`, `is_oa`,
//! `best_oa_location`, `oa_locations[{url, url_for_pdf, url_for_landing_page, license,
//! host_type, version}]`. Errors: `{"HTTP_status_code": 404, "error": true, "message": "..."}`
//! (an unknown or invalid DOI), 422 without an e-mail, 429 over the limit.

use serde_json::Value;

use super::encode::{build_url, encode_path};
use super::error::{ScholarlyError, ScholarlyErrorKind};
use super::ids::doi_key;
use super::json::{parse_body, text, year};
use super::license::license_family;
use super::service::Service;
use super::services::Services;
use super::work::{Author, OaLocation, Work};

const S: Service = Service::Unpaywall;

/// `{base}/v2/{doi}?email={contact_email}`. Without a contact e-mail the parameter is left out
/// and Unpaywall answers 422; check [`Services::check`] first.
pub fn unpaywall_url(services: &Services, doi: &str) -> String {
    let email = services.contact_email.as_deref().unwrap_or("");
    build_url(
        &services.unpaywall.base_url,
        &format!("/v2/{}", encode_path(doi.trim())),
        &[("email", email)],
    )
}

/// The DOI object as a work whose `oa_locations` are Unpaywall's, best first.
pub fn parse_unpaywall(body: &[u8]) -> Result<Work, ScholarlyError> {
    let v = parse_body(S, body)?;
    if v.get("error").and_then(Value::as_bool) == Some(true) || v.get("HTTP_status_code").is_some()
    {
        let status = v
            .get("HTTP_status_code")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let message = text(&v, "message").unwrap_or_else(|| "no message".into());
        let kind = match status {
            404 => ScholarlyErrorKind::NotFound,
            429 => ScholarlyErrorKind::RateLimited,
            _ => ScholarlyErrorKind::Api,
        };
        return Err(ScholarlyError::new(
            S,
            kind,
            format!("HTTP {status}: {message}"),
        ));
    }
    if !v.is_object() {
        return Err(ScholarlyError::malformed(S, "expected a DOI object"));
    }
    let doi = text(&v, "doi").ok_or_else(|| ScholarlyError::missing(S, "doi"))?;
    let mut w = Work::new(S);
    w.doi = Some(doi_key(&doi));
    w.title = text(&v, "title");
    w.year = v.get("year").and_then(year);
    w.container = text(&v, "journal_name");
    w.authors = v
        .get("z_authors")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(author).collect())
        .unwrap_or_default();
    w.is_oa = v.get("is_oa").and_then(Value::as_bool).unwrap_or(false);
    let best = v
        .get("best_oa_location")
        .filter(|b| b.is_object())
        .map(location);
    let mut locations: Vec<OaLocation> = v
        .get("oa_locations")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(location).collect())
        .unwrap_or_default();
    if let Some(best) = best {
        locations.retain(|l| *l != best);
        locations.insert(0, best);
    }
    w.oa_locations = locations;
    Ok(w)
}

fn author(a: &Value) -> Option<Author> {
    match (
        text(a, "family"),
        text(a, "raw_author_name"),
        text(a, "name"),
    ) {
        (Some(family), _, _) => Some(Author::new(&family, text(a, "given").as_deref())),
        (None, Some(raw), _) | (None, None, Some(raw)) => Some(Author::from_name(&raw)),
        _ => None,
    }
}

fn location(l: &Value) -> OaLocation {
    let license_raw = text(l, "license");
    OaLocation {
        url: text(l, "url_for_landing_page").or_else(|| text(l, "url")),
        pdf_url: text(l, "url_for_pdf"),
        text_url: None,
        license: license_raw.as_deref().map(license_family),
        license_raw,
        host_type: text(l, "host_type"),
        version: text(l, "version"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_needs_the_email() {
        let s = Services::with_contact("crawler@example.org");
        assert_eq!(
            unpaywall_url(&s, "10.1038/nrn2787"),
            "https://api.unpaywall.org/v2/10.1038/nrn2787?email=crawler%40example.org"
        );
        assert_eq!(
            unpaywall_url(&Services::default(), "10.1038/nrn2787"),
            "https://api.unpaywall.org/v2/10.1038/nrn2787"
        );
    }

    #[test]
    fn shapes() {
        let e = parse_unpaywall(
            br#"{"HTTP_status_code": 422, "error": true, "message": "email required"}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "unpaywall: service reported an error (HTTP 422: email required)"
        );
        assert!(parse_unpaywall(b"[]").is_err());
        let e = parse_unpaywall(br#"{"is_oa": false}"#).unwrap_err();
        assert_eq!(e.kind, ScholarlyErrorKind::MissingField);
    }
}
