//! arXiv API: papers by id and by search, as an Atom feed.
//!
//! * `GET {base}/api/query?id_list={id}`
//! * `GET {base}/api/query?search_query={query}&start=0&max_results={n}`
//!
//! Read from each `<entry>`: `id` (`http(s)://arxiv.org/abs/{id}v{n}`), `title`, `summary`,
//! `author/name`, `published`, `link rel="alternate"` (the abstract page), `link title="pdf"`,
//! `arxiv:doi`, `arxiv:journal_ref`; from the feed `opensearch:totalResults`. Errors come as an
//! entry titled `Error` whose id is under `/api/errors` (summary says what), and throttling as a
//! plain `Rate exceeded.` body. Element names are matched without their namespace prefix, so
//! both the classic feed and the 2025 one (prefixes declared on `<feed>`, `https` ids) parse.
//!
//! The API gives no license; every arXiv copy is free to read and is recorded as `oa`, the
//! submitted version, hosted by a repository.

use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::encode::build_url;
use super::error::ScholarlyError;
use super::ids::{normalize_arxiv_id, normalize_doi};
use super::json::{excerpt, plain_text_error};
use super::matching::CitedWork;
use super::service::Service;
use super::services::Services;
use super::text::{alnum_words, collapse_ws, non_empty};
use super::work::{Author, OaLocation, SearchHits, Work, SUBMITTED_VERSION};

const S: Service = Service::Arxiv;

/// `{base}/api/query?id_list={id}` (versionless ids ask for the latest version).
pub fn arxiv_id_url(services: &Services, arxiv_id: &str) -> String {
    let id = normalize_arxiv_id(arxiv_id).unwrap_or_else(|| arxiv_id.trim().to_string());
    build_url(&services.arxiv.base_url, "/api/query", &[("id_list", &id)])
}

/// `{base}/api/query?search_query={query}&start=0&max_results={max}`; `query` in arXiv's
/// syntax (`ti:"..." AND au:...`), see [`arxiv_query`].
pub fn arxiv_search_url(services: &Services, query: &str, max_results: u32) -> String {
    build_url(
        &services.arxiv.base_url,
        "/api/query",
        &[
            ("search_query", query.trim()),
            ("start", "0"),
            ("max_results", &max_results.to_string()),
        ],
    )
}

/// The `search_query` for a citation: `ti:"<title words>"` and `au:<first author>` joined by
/// `AND` (punctuation dropped: arXiv's parser splits on it anyway). Empty when the citation has
/// neither.
pub fn arxiv_query(cited: &CitedWork) -> String {
    let words = |s: &str| alnum_words(s).collect::<Vec<_>>().join(" ");
    let mut parts = Vec::new();
    if let Some(t) = cited.title.as_deref().map(words).filter(|t| !t.is_empty()) {
        parts.push(format!("ti:\"{t}\""));
    }
    if let Some(a) = cited.first_author().map(words).filter(|a| !a.is_empty()) {
        let a = a.replace(' ', "_");
        parts.push(format!("au:{a}"));
    }
    parts.join(" AND ")
}

#[derive(Default)]
struct Entry {
    id: String,
    title: String,
    summary: String,
    published: String,
    authors: Vec<String>,
    abs_url: Option<String>,
    pdf_url: Option<String>,
    doi: Option<String>,
    journal_ref: Option<String>,
}

/// The entries of an arXiv feed (an `id_list` lookup or a search), in feed order.
pub fn parse_arxiv(body: &[u8]) -> Result<SearchHits, ScholarlyError> {
    let text = String::from_utf8_lossy(body);
    if !text.trim_start().starts_with('<') {
        return Err(plain_text_error(S, body).unwrap_or_else(|| {
            ScholarlyError::malformed(S, format!("not an Atom feed: {}", excerpt(&text)))
        }));
    }
    let mut reader = Reader::from_str(&text);
    reader.config_mut().check_end_names = false;
    let mut stack: Vec<String> = Vec::new();
    let mut buf = String::new();
    let mut entry: Option<Entry> = None;
    let mut entries = Vec::new();
    let mut total = None;
    let mut saw_feed = false;
    loop {
        let event = reader.read_event().map_err(|e| {
            ScholarlyError::malformed(
                S,
                format!("XML error at byte {}: {e}", reader.error_position()),
            )
        })?;
        match event {
            Event::Start(e) => {
                let name = local(&e);
                saw_feed |= stack.is_empty() && name == "feed";
                if stack.is_empty() && name != "feed" {
                    return Err(ScholarlyError::malformed(
                        S,
                        format!("root element <{name}>, expected <feed>"),
                    ));
                }
                if name == "entry" {
                    entry = Some(Entry::default());
                }
                if let (Some(en), "link") = (entry.as_mut(), name.as_str()) {
                    link(en, &e);
                }
                stack.push(name);
                buf.clear();
            }
            Event::Empty(e) => {
                if let (Some(en), "link") = (entry.as_mut(), local(&e).as_str()) {
                    link(en, &e);
                }
            }
            Event::Text(t) => buf.push_str(&t.xml10_content()),
            Event::CData(c) => buf.push_str(&c.xml10_content()),
            Event::GeneralRef(r) => match r.resolve_char_ref() {
                Ok(Some(ch)) => buf.push(ch),
                _ => buf.push_str(resolve_xml_entity(&r.xml10_content()).unwrap_or("")),
            },
            Event::End(_) => {
                let name = stack.pop().unwrap_or_default();
                let parent = stack.last().map(String::as_str).unwrap_or("");
                let value = collapse_ws(&buf);
                match (entry.as_mut(), parent, name.as_str()) {
                    (Some(en), "entry", field) => match field {
                        "id" => en.id = value,
                        "title" => en.title = value,
                        "summary" => en.summary = value,
                        "published" => en.published = value,
                        "doi" => en.doi = non_empty(&value),
                        "journal_ref" => en.journal_ref = non_empty(&value),
                        _ => {}
                    },
                    (Some(en), "author", "name") => en.authors.push(value),
                    (None, "feed", "totalResults") => total = value.parse().ok(),
                    _ => {}
                }
                if name == "entry" {
                    if let Some(en) = entry.take() {
                        entries.push(work(en)?);
                    }
                }
                buf.clear();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !saw_feed {
        return Err(ScholarlyError::malformed(S, "no <feed> element"));
    }
    Ok(SearchHits {
        total,
        works: entries,
    })
}

/// The paper of an `id_list` lookup: the first entry, or
/// [`NotFound`](super::ScholarlyErrorKind::NotFound) when the feed has none (arXiv answers an
/// unknown but well-formed id with an empty feed).
pub fn parse_arxiv_paper(body: &[u8]) -> Result<Work, ScholarlyError> {
    parse_arxiv(body)?
        .works
        .into_iter()
        .next()
        .ok_or_else(|| ScholarlyError::not_found(S, "the feed has no entry for this id"))
}

fn local(e: &BytesStart) -> String {
    e.local_name().as_ref().to_string()
}

fn attr(e: &BytesStart, name: &str) -> Option<String> {
    e.attributes()
        .with_checks(false)
        .flatten()
        .find(|a| a.key.local_name().as_ref() == name)
        .map(|a| a.value.to_string())
}

fn link(en: &mut Entry, e: &BytesStart) {
    let Some(href) = attr(e, "href") else { return };
    let href = super::text::decode_entities(&href);
    match (attr(e, "rel").as_deref(), attr(e, "title").as_deref()) {
        (_, Some("pdf")) => en.pdf_url = Some(href),
        (Some("alternate"), _) => en.abs_url = Some(href),
        _ => {}
    }
}

fn work(en: Entry) -> Result<Work, ScholarlyError> {
    if en.id.contains("/api/errors")
        || (en.title == "Error" && en.authors.iter().any(|a| a.contains("arXiv api")))
    {
        return Err(ScholarlyError::api(S, en.summary));
    }
    if en.id.is_empty() {
        return Err(ScholarlyError::missing(S, "entry/id"));
    }
    let versioned = en
        .id
        .rsplit_once("/abs/")
        .map_or(en.id.as_str(), |(_, id)| id)
        .to_string();
    let mut w = Work::new(S);
    w.arxiv = normalize_arxiv_id(&versioned);
    w.source_id = Some(versioned);
    w.title = non_empty(&en.title);
    w.abstract_text = non_empty(&en.summary);
    w.year = en.published.get(..4).and_then(|y| y.parse().ok());
    w.authors = en.authors.iter().map(|a| Author::from_name(a)).collect();
    w.doi = en.doi.as_deref().and_then(normalize_doi);
    w.container = en.journal_ref;
    w.is_oa = true;
    w.oa_locations.push(OaLocation {
        url: en.abs_url.or_else(|| Some(en.id.clone())),
        pdf_url: en.pdf_url,
        text_url: None,
        license: Some("oa".into()),
        license_raw: None,
        host_type: Some("repository".into()),
        version: Some(SUBMITTED_VERSION.into()),
    });
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_queries() {
        let s = Services::default();
        assert_eq!(
            arxiv_id_url(&s, "arXiv:2107.12979v3"),
            "https://export.arxiv.org/api/query?id_list=2107.12979"
        );
        let c = CitedWork {
            title: Some("Predictive coding: a theoretical and experimental review".into()),
            first_author_family: Some("Millidge".into()),
            ..CitedWork::default()
        };
        let q = arxiv_query(&c);
        assert_eq!(
            q,
            "ti:\"Predictive coding a theoretical and experimental review\" AND au:Millidge"
        );
        assert_eq!(
            arxiv_search_url(&s, &q, 5),
            "https://export.arxiv.org/api/query?search_query=ti%3A%22Predictive%20coding%20a%20theoretical%20and%20experimental%20review%22%20AND%20au%3AMillidge&start=0&max_results=5"
        );
        let c = CitedWork {
            first_author_family: Some("Da Costa".into()),
            ..CitedWork::default()
        };
        assert_eq!(arxiv_query(&c), "au:Da_Costa");
    }

    #[test]
    fn not_a_feed() {
        let e = parse_arxiv(b"<html><body>oops</body></html>").unwrap_err();
        assert!(e.to_string().contains("expected <feed>"), "{e}");
        let e = parse_arxiv(b"Rate exceeded.").unwrap_err();
        assert!(e.is_transient());
        let e = parse_arxiv(b"Service Unavailable").unwrap_err();
        assert!(e.to_string().contains("not an Atom feed"), "{e}");
    }
}
