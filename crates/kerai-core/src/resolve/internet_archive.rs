//! Internet Archive: books and old papers, found by advanced search, read from an item's files.
//!
//! * `GET {base}/advancedsearch.php?q={lucene}&fl[]=identifier&fl[]=title&fl[]=creator&fl[]=year&fl[]=licenseurl&fl[]=mediatype&rows={n}&output=json`
//!   → `{"responseHeader": {...}, "response": {"numFound": n, "start": 0, "docs": [...]}}`
//! * `GET {base}/metadata/{identifier}` → `{"files": [{name, format, size}], "metadata":
//!   {identifier, title, creator, date, year, licenseurl, rights, possible-copyright-status,
//!   access-restricted-item, collection, mediatype}, ...}`; an unknown identifier gives `{}`.
//! * files are at `{base}/download/{identifier}/{file name}`.
//!
//! `title`, `creator` and `collection` may be a string or an array; `year` a number or a
//! string; `size` a string. Search hits carry no files: fetch the item's metadata and turn it
//! into a work with [`IaItem::to_work`] to get a location. An item is not free to read when it
//! is `access-restricted-item` or in a lending collection (`inlibrary`, `printdisabled`,
//! `lendinglibrary`). Its license is `licenseurl` when given, else public domain when
//! `possible-copyright-status` is `NOT_IN_COPYRIGHT` or `rights` says public domain.

use serde_json::Value;

use super::encode::{build_url, encode_path};
use super::error::ScholarlyError;
use super::json::{error_field, first_text, flag, parse_body, text, texts, year};
use super::license::license_family;
use super::matching::CitedWork;
use super::service::Service;
use super::services::Services;
use super::text::alnum_words;
use super::work::{Author, OaLocation, SearchHits, Work, PUBLISHED_VERSION};

const S: Service = Service::InternetArchive;

/// The fields asked of the advanced search.
pub const IA_FIELDS: [&str; 6] = [
    "identifier",
    "title",
    "creator",
    "year",
    "licenseurl",
    "mediatype",
];

const LENDING_COLLECTIONS: [&str; 3] = ["inlibrary", "printdisabled", "lendinglibrary"];

/// `{base}/advancedsearch.php?q={query}&fl[]=...&rows={rows}&output=json` (`fl[]` written
/// `fl%5B%5D`).
pub fn ia_search_url(services: &Services, query: &str, rows: u32) -> String {
    let rows = rows.to_string();
    let mut params: Vec<(&str, &str)> = vec![("q", query.trim())];
    params.extend(IA_FIELDS.iter().map(|f| ("fl[]", *f)));
    params.push(("rows", &rows));
    params.push(("output", "json"));
    build_url(
        &services.internet_archive.base_url,
        "/advancedsearch.php",
        &params,
    )
}

/// `{base}/metadata/{identifier}`.
pub fn ia_metadata_url(services: &Services, identifier: &str) -> String {
    format!(
        "{}/metadata/{}",
        services.internet_archive.base_url,
        encode_path(identifier.trim())
    )
}

/// `{base}/download/{identifier}/{file}` (the file name may hold `/` for sub-folders).
pub fn ia_download_url(services: &Services, identifier: &str, file: &str) -> String {
    format!(
        "{}/download/{}/{}",
        services.internet_archive.base_url,
        encode_path(identifier.trim()),
        encode_path(file)
    )
}

/// The Lucene query for a citation: title words, the first author as creator, and texts only:
/// `title:(handbuch physiologischen optik) AND creator:(helmholtz) AND mediatype:texts`; with
/// no title, the year (`year:1867`) instead.
pub fn ia_query(cited: &CitedWork) -> String {
    let words = |s: &str| {
        alnum_words(s)
            .filter(|w| !matches!(w.to_ascii_lowercase().as_str(), "and" | "or" | "not" | "to"))
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut parts = Vec::new();
    if let Some(t) = cited.title.as_deref().map(words).filter(|t| !t.is_empty()) {
        parts.push(format!("title:({t})"));
    } else if let Some(y) = cited.year {
        parts.push(format!("year:{y}"));
    }
    if let Some(a) = cited.first_author().map(words).filter(|a| !a.is_empty()) {
        parts.push(format!("creator:({a})"));
    }
    parts.push("mediatype:texts".into());
    parts.join(" AND ")
}

/// The hits of an advanced search, as works without locations (see [`IaItem::to_work`]).
pub fn parse_ia_search(body: &[u8]) -> Result<SearchHits, ScholarlyError> {
    let v = parse_body(S, body)?;
    if let Some(err) = error_field(&v) {
        return Err(ScholarlyError::api(S, err));
    }
    let header_status = v
        .pointer("/responseHeader/status")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if header_status != 0 {
        return Err(ScholarlyError::api(
            S,
            format!("responseHeader.status {header_status}"),
        ));
    }
    let response = v
        .get("response")
        .ok_or_else(|| ScholarlyError::missing(S, "response"))?;
    let docs = response
        .get("docs")
        .and_then(Value::as_array)
        .ok_or_else(|| ScholarlyError::missing(S, "response.docs"))?;
    let works = docs
        .iter()
        .map(|d| {
            let id = text(d, "identifier")
                .ok_or_else(|| ScholarlyError::missing(S, "docs[].identifier"))?;
            let mut w = Work::new(S);
            w.source_id = Some(id);
            w.title = first_text(d, "title");
            w.authors = texts(d, "creator")
                .iter()
                .map(|c| Author::from_name(c))
                .collect();
            w.year = d.get("year").and_then(year);
            Ok(w)
        })
        .collect::<Result<Vec<_>, ScholarlyError>>()?;
    Ok(SearchHits {
        total: response.get("numFound").and_then(Value::as_u64),
        works,
    })
}

/// One file of an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IaFile {
    pub name: String,
    /// The Archive's format name: `DjVuTXT`, `Text PDF`, `Image Container PDF`, `Abbyy GZ`, ...
    pub format: String,
    pub size: Option<u64>,
}

/// An item's metadata and files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IaItem {
    pub identifier: String,
    pub title: Option<String>,
    pub creators: Vec<String>,
    pub year: Option<i32>,
    /// The license as the item states it (`licenseurl`), or `public domain` when the item is
    /// marked not in copyright; `None` when it says nothing.
    pub license: Option<String>,
    /// Borrow-only: not free to read.
    pub restricted: bool,
    pub files: Vec<IaFile>,
}

impl IaItem {
    /// The OCR text (`*_djvu.txt`, format `DjVuTXT`).
    pub fn text_file(&self) -> Option<&IaFile> {
        self.files
            .iter()
            .find(|f| f.format == "DjVuTXT" || f.name.ends_with("_djvu.txt"))
    }

    /// A PDF, preferring one with a text layer (`Text PDF`) over an image-only one.
    pub fn pdf_file(&self) -> Option<&IaFile> {
        let pdfs = || {
            self.files
                .iter()
                .filter(|f| f.format.contains("PDF") || f.name.to_lowercase().ends_with(".pdf"))
        };
        pdfs()
            .find(|f| f.format == "Text PDF")
            .or_else(|| pdfs().next())
    }

    /// The item as a work, with one location (landing page `{base}/details/{id}`, the OCR text
    /// and the PDF as download URLs) when it is free to read and has either file.
    pub fn to_work(&self, services: &Services) -> Work {
        let mut w = Work::new(S);
        w.source_id = Some(self.identifier.clone());
        w.title = self.title.clone();
        w.authors = self.creators.iter().map(|c| Author::from_name(c)).collect();
        w.year = self.year;
        let text_url = self
            .text_file()
            .map(|f| ia_download_url(services, &self.identifier, &f.name));
        let pdf_url = self
            .pdf_file()
            .map(|f| ia_download_url(services, &self.identifier, &f.name));
        if !self.restricted && (text_url.is_some() || pdf_url.is_some()) {
            w.oa_locations.push(OaLocation {
                url: Some(format!(
                    "{}/details/{}",
                    services.internet_archive.base_url,
                    encode_path(&self.identifier)
                )),
                pdf_url,
                text_url,
                license: self.license.as_deref().map(license_family),
                license_raw: self.license.clone(),
                host_type: Some("repository".into()),
                version: Some(PUBLISHED_VERSION.into()),
            });
        }
        w.is_oa = !w.oa_locations.is_empty();
        w
    }
}

/// An item from `/metadata/{identifier}`.
pub fn parse_ia_metadata(body: &[u8]) -> Result<IaItem, ScholarlyError> {
    let v = parse_body(S, body)?;
    let Some(obj) = v.as_object() else {
        return Err(ScholarlyError::malformed(S, "expected a JSON object"));
    };
    if let Some(err) = error_field(&v) {
        return Err(ScholarlyError::api(S, err));
    }
    if obj.is_empty() {
        return Err(ScholarlyError::not_found(
            S,
            "no such item (the metadata is `{}`)",
        ));
    }
    if flag(&v, "is_dark") == Some(true) {
        return Err(ScholarlyError::not_found(
            S,
            "the item is dark (withdrawn from public view)",
        ));
    }
    let m = v
        .get("metadata")
        .ok_or_else(|| ScholarlyError::missing(S, "metadata"))?;
    let identifier =
        text(m, "identifier").ok_or_else(|| ScholarlyError::missing(S, "metadata.identifier"))?;
    let files = v
        .get("files")
        .and_then(Value::as_array)
        .map(|files| {
            files
                .iter()
                .filter_map(|f| {
                    Some(IaFile {
                        name: text(f, "name")?,
                        format: text(f, "format").unwrap_or_default(),
                        size: f.get("size").and_then(|s| match s {
                            Value::String(s) => s.trim().parse().ok(),
                            other => other.as_u64(),
                        }),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let collections = texts(m, "collection");
    let restricted = flag(m, "access-restricted-item") == Some(true)
        || collections
            .iter()
            .any(|c| LENDING_COLLECTIONS.contains(&c.as_str()));
    let not_in_copyright = text(m, "possible-copyright-status")
        .is_some_and(|s| s.eq_ignore_ascii_case("NOT_IN_COPYRIGHT"));
    let rights_pd = first_text(m, "rights").is_some_and(|r| license_family(&r) == "public-domain");
    let license = first_text(m, "licenseurl")
        .or_else(|| (not_in_copyright || rights_pd).then(|| "public domain".to_string()));
    Ok(IaItem {
        identifier,
        title: first_text(m, "title"),
        creators: texts(m, "creator"),
        year: m
            .get("year")
            .and_then(year)
            .or_else(|| m.get("date").and_then(year)),
        license,
        restricted,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_queries() {
        let s = Services::default();
        let c = CitedWork {
            title: Some("Handbuch der physiologischen Optik".into()),
            first_author_family: Some("Helmholtz".into()),
            year: Some(1867),
            ..CitedWork::default()
        };
        let q = ia_query(&c);
        assert_eq!(q, "title:(handbuch der physiologischen optik) AND creator:(helmholtz) AND mediatype:texts");
        assert_eq!(
            ia_search_url(&s, "title:(optik)", 5),
            "https://archive.org/advancedsearch.php?q=title%3A%28optik%29&fl%5B%5D=identifier&fl%5B%5D=title&fl%5B%5D=creator&fl%5B%5D=year&fl%5B%5D=licenseurl&fl%5B%5D=mediatype&rows=5&output=json"
        );
        assert_eq!(
            ia_metadata_url(&s, "handbuchderphysi00helm"),
            "https://archive.org/metadata/handbuchderphysi00helm"
        );
        assert_eq!(
            ia_download_url(&s, "x", "sub dir/x_djvu.txt"),
            "https://archive.org/download/x/sub%20dir/x_djvu.txt"
        );
        let c = CitedWork {
            first_author_family: Some("Helmholtz".into()),
            year: Some(1867),
            ..CitedWork::default()
        };
        assert_eq!(
            ia_query(&c),
            "year:1867 AND creator:(helmholtz) AND mediatype:texts"
        );
    }

    #[test]
    fn lending_items_are_not_open() {
        let body = br#"{"files":[{"name":"b_djvu.txt","format":"DjVuTXT","size":"12"}],
            "metadata":{"identifier":"b","title":["B"],"collection":["inlibrary","americana"]}}"#;
        let item = parse_ia_metadata(body).unwrap();
        assert!(item.restricted);
        let w = item.to_work(&Services::default());
        assert!(!w.is_oa && w.oa_locations.is_empty());
        assert!(parse_ia_metadata(br#"{"is_dark": true}"#).is_err());
        assert!(parse_ia_metadata(b"[]").is_err());
        let e = parse_ia_search(br#"{"response":{"numFound":0}}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "internet_archive: response lacks a required field (no `response.docs`)"
        );
    }
}
