//! CrossRef REST API: metadata for a DOI, and bibliographic search.
//!
//! * `GET {base}/works/{doi}?mailto={email}` → `{"status": "ok", "message-type": "work",
//!   "message": {...}}`
//! * `GET {base}/works?query.bibliographic={text}&rows={n}&mailto={email}` →
//!   `{"status": "ok", "message-type": "work-list", "message": {"total-results": n,
//!   "items": [...]}}`
//!
//! Fields read: `DOI`, `title[]`, `subtitle[]`, `author[{given, family | name}]`,
//! `issued.date-parts` (else `published-print`, `published-online`, `published`, `created`),
//! `container-title[]`, `abstract` (JATS), `license[{URL, content-version}]`,
//! `link[{URL, content-type, content-version, intended-application}]`, `resource.primary.URL`,
//! `URL`, `score`. Errors: `{"status": "failed", "message": [{"message": ...}]}`, and the plain
//! `Resource not found.` of a 404.
//!
//! CrossRef does not say whether a work is open access; a work is taken as open when a license
//! for its published (`vor`) or accepted (`am`) version, or one without a version, is a Creative
//! Commons or public-domain license. Its location is then the publisher's landing page, with a
//! PDF link when the deposit names one (text-mining API links in other formats are ignored).

use serde_json::Value;

use super::encode::{build_url, encode_path};
use super::error::ScholarlyError;
use super::ids::doi_key;
use super::json::{first_text, parse_body, text, year};
use super::license::license_family;
use super::matching::CitedWork;
use super::service::Service;
use super::services::Services;
use super::text::strip_markup;
use super::work::{Author, OaLocation, SearchHits, Work, ACCEPTED_VERSION, PUBLISHED_VERSION};

const S: Service = Service::Crossref;

/// `{base}/works/{doi}?mailto={contact_email}`.
pub fn crossref_work_url(services: &Services, doi: &str) -> String {
    let email = services.contact_email.as_deref().unwrap_or("");
    build_url(
        &services.crossref.base_url,
        &format!("/works/{}", encode_path(doi.trim())),
        &[("mailto", email)],
    )
}

/// `{base}/works?query.bibliographic={query}&rows={rows}&mailto={contact_email}`.
pub fn crossref_search_url(services: &Services, query: &str, rows: u32) -> String {
    let email = services.contact_email.as_deref().unwrap_or("");
    build_url(
        &services.crossref.base_url,
        "/works",
        &[
            ("query.bibliographic", query.trim()),
            ("rows", &rows.to_string()),
            ("mailto", email),
        ],
    )
}

/// The `query.bibliographic` text for a citation: first author, year and title, as a reference
/// list would write them (CrossRef matches whole reference strings).
pub fn crossref_query(cited: &CitedWork) -> String {
    let year = cited.year.map(|y| y.to_string());
    [
        cited.first_author(),
        year.as_deref(),
        cited.title.as_deref(),
    ]
    .into_iter()
    .flatten()
    .map(str::trim)
    .filter(|s| !s.is_empty())
    .collect::<Vec<_>>()
    .join(" ")
}

/// One work from `/works/{doi}`.
pub fn parse_crossref_work(body: &[u8]) -> Result<Work, ScholarlyError> {
    let message = envelope(body, "work")?;
    work(&message)
}

/// The hits of a `/works?query...` search, in CrossRef's order, with its `score`s.
pub fn parse_crossref_search(body: &[u8]) -> Result<SearchHits, ScholarlyError> {
    let message = envelope(body, "work-list")?;
    let items = message
        .get("items")
        .and_then(Value::as_array)
        .ok_or_else(|| ScholarlyError::missing(S, "message.items"))?;
    let works = items.iter().map(work).collect::<Result<Vec<_>, _>>()?;
    Ok(SearchHits {
        total: message.get("total-results").and_then(Value::as_u64),
        works,
    })
}

/// The `message` of an `"ok"` envelope of `message-type` `expected`.
fn envelope(body: &[u8], expected: &str) -> Result<Value, ScholarlyError> {
    let mut v = parse_body(S, body)?;
    let status = v.get("status").and_then(Value::as_str).unwrap_or("");
    if status != "ok" {
        let detail = match v.get("message") {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|m| m.get("message").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("; "),
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        };
        return Err(if status.is_empty() {
            ScholarlyError::malformed(S, "no `status`; not a CrossRef API response")
        } else {
            ScholarlyError::api(S, format!("status {status}: {detail}"))
        });
    }
    let kind = v.get("message-type").and_then(Value::as_str).unwrap_or("");
    if kind != expected {
        return Err(ScholarlyError::malformed(
            S,
            format!("message-type is `{kind}`, expected `{expected}`"),
        ));
    }
    match v.get_mut("message").map(Value::take) {
        Some(m @ Value::Object(_)) => Ok(m),
        _ => Err(ScholarlyError::missing(S, "message")),
    }
}

fn work(m: &Value) -> Result<Work, ScholarlyError> {
    let doi = text(m, "DOI").ok_or_else(|| ScholarlyError::missing(S, "DOI"))?;
    let mut w = Work::new(S);
    w.doi = Some(doi_key(&doi));
    w.title = first_text(m, "title").map(|t| {
        let t = strip_markup(&t);
        match first_text(m, "subtitle").map(|s| strip_markup(&s)) {
            Some(sub) if !t.to_lowercase().contains(&sub.to_lowercase()) => format!("{t}: {sub}"),
            _ => t,
        }
    });
    w.authors = m
        .get("author")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(author).collect())
        .unwrap_or_default();
    w.year = [
        "issued",
        "published-print",
        "published-online",
        "published",
        "created",
    ]
    .iter()
    .find_map(|k| m.pointer(&format!("/{k}/date-parts/0/0")).and_then(year));
    w.container = first_text(m, "container-title");
    w.abstract_text = text(m, "abstract")
        .map(|a| strip_markup(&a))
        .filter(|a| !a.is_empty());
    w.score = m.get("score").and_then(Value::as_f64);
    w.oa_locations = open_location(m).into_iter().collect();
    w.is_oa = !w.oa_locations.is_empty();
    Ok(w)
}

fn author(a: &Value) -> Option<Author> {
    match (text(a, "family"), text(a, "name")) {
        (Some(family), _) => Some(Author::new(&family, text(a, "given").as_deref())),
        (None, Some(name)) => Some(Author::new(&name, None)),
        (None, None) => None,
    }
}

/// The publisher's copy, when a license for a readable version is an open one.
fn open_location(m: &Value) -> Option<OaLocation> {
    let licenses = m.get("license").and_then(Value::as_array)?;
    let (raw, family, version) = licenses
        .iter()
        .filter_map(|l| {
            let url = text(l, "URL")?;
            let family = license_family(&url);
            let version = match l.get("content-version").and_then(Value::as_str) {
                Some("vor") => PUBLISHED_VERSION,
                Some("am") => ACCEPTED_VERSION,
                Some("unspecified") | None => PUBLISHED_VERSION,
                Some(_) => return None, // "tdm": a text-mining license, not a reading one
            };
            let open = family.starts_with("cc-") || family == "public-domain";
            open.then_some((url, family, version))
        })
        .min_by_key(|(_, _, v)| *v != PUBLISHED_VERSION)?;
    let wanted = if version == PUBLISHED_VERSION {
        "vor"
    } else {
        "am"
    };
    let pdf_url = m
        .get("link")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|l| l.get("content-type").and_then(Value::as_str) == Some("application/pdf"))
        .filter(|l| {
            l.get("intended-application").and_then(Value::as_str) != Some("similarity-checking")
        })
        .filter(|l| {
            l.get("content-version")
                .and_then(Value::as_str)
                .is_none_or(|v| v == wanted || v == "unspecified")
        })
        .find_map(|l| text(l, "URL"));
    Some(OaLocation {
        url: m
            .pointer("/resource/primary/URL")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| text(m, "URL")),
        pdf_url,
        text_url: None,
        license: Some(family),
        license_raw: Some(raw),
        host_type: Some("publisher".into()),
        version: Some(version.into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let s = Services::with_contact("crawler@example.org");
        assert_eq!(
            crossref_work_url(&s, "10.1016/j.jmp.2020.102447"),
            "https://api.crossref.org/works/10.1016/j.jmp.2020.102447?mailto=crawler%40example.org"
        );
        assert_eq!(
            crossref_search_url(&Services::all_at("http://127.0.0.1:1"), "Friston 2010 free-energy", 5),
            "http://127.0.0.1:1/crossref/works?query.bibliographic=Friston%202010%20free-energy&rows=5"
        );
        let c = CitedWork {
            title: Some("The free-energy principle".into()),
            year: Some(2010),
            authors: vec!["Friston".into()],
            ..CitedWork::default()
        };
        assert_eq!(crossref_query(&c), "Friston 2010 The free-energy principle");
    }

    #[test]
    fn envelopes() {
        let e = parse_crossref_work(br#"{"status":"ok","message-type":"work-list","message":{}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("expected `work`"), "{e}");
        let e = parse_crossref_work(
            br#"{"status":"ok","message-type":"work","message":{"title":["x"]}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "crossref: response lacks a required field (no `DOI`)"
        );
        let e = parse_crossref_work(b"[1]").unwrap_err();
        assert!(e.to_string().contains("not a CrossRef API response"), "{e}");
    }
}
