//! Scholarly resolution: DOI → CrossRef (metadata) → Unpaywall (open locations, licenses) →
//! Semantic Scholar (abstract, open PDF); author-year citations and bibliography entries →
//! Semantic Scholar search and CrossRef bibliographic query, accepted above a recorded match
//! score; arXiv ids → arXiv; books → Internet Archive; concepts → the configured concept search.
//! Each service is paced at its own rate and told who is asking.

use super::{web, Ctx, Outcome};
use crate::http::{Fetch, Request};
use kerai_core::scholarly::{self as sch, CitedWork, Decision, Service, Services, Work};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Services plus the time each may next be asked.
pub struct Scholar {
    pub services: Services,
    next: Mutex<HashMap<Service, Instant>>,
}

impl Scholar {
    pub fn new(services: Services) -> Scholar {
        Scholar { services, next: Mutex::new(HashMap::new()) }
    }

    /// GET a service URL, politely: wait for the service's turn, send its headers.
    async fn get(&self, ctx: &Ctx<'_>, service: Service, url: &str) -> Result<Vec<u8>, String> {
        let wait = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let at = next.get(&service).copied().unwrap_or(now).max(now);
            next.insert(service, at + self.services.min_interval(service));
            at.saturating_duration_since(now)
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        let mut req = Request::get(url);
        req.headers = self.services.headers(service).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        match ctx.http.fetch(&req, &|_| Ok(())).await {
            Fetch::Ok(r) => Ok(r.body),
            Fetch::Failed { error, status: Some(s) } if (400..500).contains(&s) => {
                // The services answer 404/422 with an error envelope the parsers read; keep the body.
                Err(format!("{service}: HTTP {s} ({error})"))
            }
            Fetch::Failed { error, .. } => Err(format!("{service}: {error}")),
            Fetch::Retry { status, .. } => Err(format!("{service}: HTTP {status}, rate limited; retry later")),
            Fetch::NotModified(_) => Err(format!("{service}: unexpected 304")),
        }
    }
}

/// What the reference says, for matching search hits.
fn cited_of(request: &Value) -> CitedWork {
    let authors: Vec<String> = request["authors"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string).or_else(|| x["family"].as_str().map(str::to_string)))
                .collect()
        })
        .unwrap_or_default();
    CitedWork {
        doi: request["doi"].as_str().map(str::to_string),
        title: request["title"].as_str().map(str::to_string),
        year: request["year"].as_i64().map(|y| y as i32),
        first_author_family: authors.first().cloned(),
        authors,
    }
}

pub async fn resolve(request: &Value, ctx: &Ctx<'_>, scholar: &Scholar) -> Outcome {
    let ref_type = request["ref_type"].as_str().unwrap_or("");
    if let Some(doi) = request["doi"].as_str() {
        return by_doi(doi, ctx, scholar, None).await;
    }
    if let Some(id) = request["arxiv"].as_str() {
        return by_arxiv(id, ctx, scholar).await;
    }
    match ref_type {
        "url" => {
            let url = request["url"].as_str().unwrap_or("");
            if let Some(doi) = sch::normalize_doi(url).filter(|_| url.contains("doi.org/")) {
                return by_doi(&doi, ctx, scholar, None).await;
            }
            web::fetch_open_copy(url, "direct", None, ctx).await
        }
        "author_year" | "bibliography" => by_search(request, ctx, scholar).await,
        "concept" => by_concept(request, ctx, scholar).await,
        other => Outcome::skipped(format!("no resolver for {other} references")),
    }
}

/// DOI → CrossRef → Unpaywall → Semantic Scholar, then the best open copy.
async fn by_doi(doi: &str, ctx: &Ctx<'_>, scholar: &Scholar, matched: Option<Value>) -> Outcome {
    let s = &scholar.services;
    let mut works: Vec<Work> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    match scholar.get(ctx, Service::Crossref, &sch::crossref_work_url(s, doi)).await.and_then(|b| {
        sch::parse_crossref_work(&b).map_err(|e| e.to_string())
    }) {
        Ok(w) => works.push(w),
        Err(e) => problems.push(e),
    }
    if s.check(Service::Unpaywall).is_ok() {
        match scholar
            .get(ctx, Service::Unpaywall, &sch::unpaywall_url(s, doi))
            .await
            .and_then(|b| sch::parse_unpaywall(&b).map_err(|e| e.to_string()))
        {
            Ok(w) => works.push(w),
            Err(e) => problems.push(e),
        }
    } else {
        problems.push("unpaywall: skipped (no contact_email in the crawler agent's config)".into());
    }
    match scholar
        .get(ctx, Service::SemanticScholar, &sch::s2_paper_by_doi_url(s, doi))
        .await
        .and_then(|b| sch::parse_s2_paper(&b).map_err(|e| e.to_string()))
    {
        Ok(w) => works.push(w),
        Err(e) => problems.push(e),
    }
    if works.is_empty() {
        let transient = problems.iter().any(|p| p.contains("rate limited") || p.contains("resource unreachable") || p.contains("timeout"));
        let why = format!("DOI {doi} is unknown to CrossRef, Unpaywall and Semantic Scholar ({})", problems.join("; "));
        return if transient { Outcome::failed(why) } else { Outcome::not_found(why) };
    }
    let work = merge(works);
    let mut found = json!({"doi": doi, "title": work.title, "year": work.year, "is_oa": work.is_oa,
                           "locations": work.oa_locations.len()});
    if let Some(m) = matched {
        found["match"] = m;
    }
    (ctx.progress)("found", found);
    open_copy_of(&work, ctx, "doi").await
}

/// arXiv id → arXiv API → its PDF (arXiv copies are free to read: license `oa`).
async fn by_arxiv(id: &str, ctx: &Ctx<'_>, scholar: &Scholar) -> Outcome {
    let s = &scholar.services;
    let work = match scholar
        .get(ctx, Service::Arxiv, &sch::arxiv_id_url(s, id))
        .await
        .and_then(|b| sch::parse_arxiv_paper(&b).map_err(|e| e.to_string()))
    {
        Ok(w) => w,
        Err(e) if e.contains("not found") || e.contains("NotFound") || e.contains("no entry") => {
            return Outcome::not_found(format!("arXiv has no paper {id} ({e})"))
        }
        Err(e) => return Outcome::failed(e),
    };
    (ctx.progress)("found", json!({"arxiv": id, "title": work.title, "year": work.year}));
    open_copy_of(&work, ctx, "arxiv").await
}

/// Author-year citations and bibliography entries: search, match, then resolve what matched.
async fn by_search(request: &Value, ctx: &Ctx<'_>, scholar: &Scholar) -> Outcome {
    let s = &scholar.services;
    let cited = cited_of(request);
    if cited.first_author().is_none() && cited.title.is_none() {
        return Outcome::not_found("the citation names neither an author nor a title to search for");
    }
    let mut hits: Vec<Work> = Vec::new();
    let mut problems = Vec::new();
    for (service, url) in [
        (Service::SemanticScholar, sch::s2_search_url(s, &sch::s2_query(&cited), 5)),
        (Service::Crossref, sch::crossref_search_url(s, &sch::crossref_query(&cited), 5)),
    ] {
        let parsed = scholar.get(ctx, service, &url).await.and_then(|b| match service {
            Service::SemanticScholar => sch::parse_s2_search(&b).map_err(|e| e.to_string()),
            _ => sch::parse_crossref_search(&b).map_err(|e| e.to_string()),
        });
        match parsed {
            Ok(h) => {
                // Rank within each service's own list: `decide` needs the rank for title-less citations.
                if let Some(m) = sch::best_match(&cited, &h.works) {
                    let mut w = h.works[m.rank].clone();
                    w.score = Some(m.score.total);
                    hits.push(w);
                    let record = json!({"source": service.name(), "rank": m.rank + 1, "total": round(m.score.total),
                                        "title": round(m.score.title), "year": round(m.score.year), "author": round(m.score.author)});
                    if let Some(doi) = hits.last().and_then(|w| w.doi.clone()) {
                        return by_doi(&doi, ctx, scholar, Some(record)).await;
                    }
                    (ctx.progress)("found", json!({"match": record, "title": hits.last().and_then(|w| w.title.clone())}));
                    return open_copy_of(hits.last().expect("pushed above"), ctx, service.name()).await;
                }
                let best = h
                    .works
                    .iter()
                    .enumerate()
                    .map(|(rank, w)| (sch::match_score(&cited, w).total, rank))
                    .fold(None::<(f64, usize)>, |a, b| if a.is_none_or(|a| b.0 > a.0) { Some(b) } else { a });
                if let Some((score, _)) = best {
                    problems.push(format!("{service}: best hit scored {:.2}, below the acceptance rule", score));
                } else {
                    problems.push(format!("{service}: no hits"));
                }
            }
            Err(e) => problems.push(e),
        }
    }
    // Books: the Internet Archive holds many old ones in the public domain.
    if looks_like_book(request) {
        if let Some(out) = by_archive(&cited, ctx, scholar, &mut problems).await {
            return out;
        }
    }
    let transient = problems.iter().any(|p| p.contains("rate limited") || p.contains("resource unreachable") || p.contains("timeout"));
    let why = format!("no match accepted for \"{}\" ({})", request["text"].as_str().unwrap_or("?"), problems.join("; "));
    if transient {
        Outcome::failed(why)
    } else {
        Outcome::not_found(why)
    }
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A bibliography entry with a publisher or place and no journal, or an old author-year citation.
fn looks_like_book(request: &Value) -> bool {
    let has = |k: &str| request[k].as_str().is_some_and(|s| !s.is_empty());
    (has("publisher") || has("location")) && !has("container") || request["year"].as_i64().is_some_and(|y| y < 1930)
}

async fn by_archive(cited: &CitedWork, ctx: &Ctx<'_>, scholar: &Scholar, problems: &mut Vec<String>) -> Option<Outcome> {
    let s = &scholar.services;
    let hits = match scholar
        .get(ctx, Service::InternetArchive, &sch::ia_search_url(s, &sch::ia_query(cited), 5))
        .await
        .and_then(|b| sch::parse_ia_search(&b).map_err(|e| e.to_string()))
    {
        Ok(h) => h,
        Err(e) => {
            problems.push(e);
            return None;
        }
    };
    let Some(m) = sch::best_match(cited, &hits.works) else {
        problems.push("internet_archive: no acceptable match".into());
        return None;
    };
    let id = hits.works[m.rank].source_id.clone()?;
    let item = match scholar
        .get(ctx, Service::InternetArchive, &sch::ia_metadata_url(s, &id))
        .await
        .and_then(|b| sch::parse_ia_metadata(&b).map_err(|e| e.to_string()))
    {
        Ok(i) => i,
        Err(e) => {
            problems.push(e);
            return None;
        }
    };
    let work = item.to_work(s);
    (ctx.progress)(
        "found",
        json!({"match": {"source": "internet_archive", "rank": m.rank + 1, "total": round(m.score.total)}, "identifier": id, "title": work.title}),
    );
    Some(open_copy_of(&work, ctx, "internet_archive").await)
}

async fn by_concept(request: &Value, ctx: &Ctx<'_>, scholar: &Scholar) -> Outcome {
    let s = &scholar.services;
    let term = request["text"].as_str().unwrap_or("").trim_matches(|c: char| c == '"' || c == '“' || c == '”');
    let Some(url) = sch::concept_search_url(s, term, request["context"].as_str()) else {
        return Outcome::skipped("concept search is off (set concept_search_url in the crawler agent's config)");
    };
    let hits = match scholar
        .get(ctx, Service::Concept, &url)
        .await
        .and_then(|b| sch::parse_concept_results(&b).map_err(|e| e.to_string()))
    {
        Ok(h) => h,
        Err(e) => return Outcome::failed(e),
    };
    for hit in hits.iter().take(3) {
        let work = hit.to_work();
        let out = open_copy_of(&work, ctx, "concept_search").await;
        if matches!(out, Outcome::Deposit { .. }) {
            return out;
        }
    }
    Outcome::not_found(format!("the concept search found no open, substantial source for \"{term}\""))
}

/// One work from what several services said about it: the first title/authors/year/abstract
/// found, every open location.
fn merge(works: Vec<Work>) -> Work {
    let mut it = works.into_iter();
    let mut w = it.next().expect("at least one work");
    for o in it {
        w.title = w.title.or(o.title);
        if w.authors.is_empty() {
            w.authors = o.authors;
        }
        w.year = w.year.or(o.year);
        w.container = w.container.or(o.container);
        w.abstract_text = w.abstract_text.or(o.abstract_text);
        w.arxiv = w.arxiv.or(o.arxiv);
        w.is_oa |= o.is_oa;
        for l in o.oa_locations {
            if !w.oa_locations.iter().any(|x| x.url == l.url && x.pdf_url == l.pdf_url) {
                w.oa_locations.push(l);
            }
        }
    }
    w
}

/// The work's metadata, kept on the document it becomes.
fn work_metadata(work: &Work) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(t) = &work.title {
        m.insert("title".into(), json!(t));
    }
    if !work.authors.is_empty() {
        m.insert(
            "authors".into(),
            json!(work.authors.iter().map(|a| match &a.given {
                Some(g) => format!("{}, {g}", a.family),
                None => a.family.clone(),
            }).collect::<Vec<_>>()),
        );
    }
    if let Some(y) = work.year {
        m.insert("year".into(), json!(y));
    }
    if let Some(d) = &work.doi {
        m.insert("doi".into(), json!(d));
    }
    if let Some(a) = &work.arxiv {
        m.insert("arxiv".into(), json!(a));
    }
    if let Some(c) = &work.container {
        m.insert("container".into(), json!(c));
    }
    m
}

/// Fetch the best open copy of `work`; fall back to a thin abstract document when the work is
/// open access but no full text can be had; skip with the reason otherwise.
async fn open_copy_of(work: &Work, ctx: &Ctx<'_>, source: &str) -> Outcome {
    let meta = work_metadata(work);
    match sch::best_open_copy(work, &ctx.policy.allowed_licenses) {
        Ok(copy) => {
            let out = web::fetch_open_copy(&copy.url, source, Some(&copy.license), ctx).await;
            match out {
                Outcome::Deposit { markdown, mut result } => {
                    let entry = result.entry("metadata").or_insert_with(|| json!({}));
                    if let Value::Object(m) = entry {
                        for (k, v) in meta {
                            m.insert(k, v);
                        }
                        if let Some(v) = &copy.version {
                            m.insert("oa_version".into(), json!(v));
                        }
                    }
                    Outcome::Deposit { markdown, result }
                }
                Outcome::NotFound(_) | Outcome::Failed(_) if work.abstract_text.is_some() && work.is_oa => {
                    abstract_document(work, meta, source)
                }
                other => other,
            }
        }
        Err(no) => match no.reason {
            sch::NoCopyReason::LicenseNotAllowed => Outcome::skipped(no.message),
            sch::NoCopyReason::Paywalled if work.is_oa && work.abstract_text.is_some() => abstract_document(work, meta, source),
            sch::NoCopyReason::Paywalled => Outcome::skipped(no.message),
        },
    }
}

/// A thin document from the metadata and abstract (content_type = 'abstract').
fn abstract_document(work: &Work, meta: Map<String, Value>, source: &str) -> Outcome {
    let title = work.title.clone().unwrap_or_else(|| "Untitled".into());
    let authors = meta.get("authors").and_then(Value::as_array).map(|a| {
        a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("; ")
    });
    let mut md = format!("# {title}\n\n");
    if let Some(a) = authors {
        md.push_str(&format!("{a}"));
        if let Some(y) = work.year {
            md.push_str(&format!(" ({y})"));
        }
        md.push_str("\n\n");
    }
    md.push_str("## Abstract\n\n");
    md.push_str(work.abstract_text.as_deref().unwrap_or(""));
    md.push('\n');
    let mut result = Map::new();
    let url = work.doi.as_ref().map(|d| format!("https://doi.org/{d}")).unwrap_or_default();
    result.insert("source_url".into(), json!(url));
    result.insert("source_type".into(), json!("abstract"));
    result.insert("license".into(), json!("oa"));
    result.insert("fetched_at".into(), json!(chrono::Utc::now().to_rfc3339()));
    result.insert("content_type".into(), json!("abstract"));
    result.insert("found_via".into(), json!(source));
    result.insert("metadata".into(), Value::Object(meta));
    Outcome::Deposit { markdown: md, result }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn books_are_told_apart() {
        assert!(looks_like_book(&json!({"publisher": "Voss", "location": "Leipzig"})));
        assert!(looks_like_book(&json!({"year": 1866})));
        assert!(!looks_like_book(&json!({"publisher": "Elsevier", "container": "J. Math. Psych.", "year": 2020})));
    }

    #[test]
    fn cited_works_read_requests() {
        let c = cited_of(&json!({"authors": ["Friston"], "year": 2010, "title": "The free-energy principle"}));
        assert_eq!(c.first_author(), Some("Friston"));
        assert_eq!(c.year, Some(2010));
        let c = cited_of(&json!({"authors": [{"family": "Parr", "given": "T."}]}));
        assert_eq!(c.first_author(), Some("Parr"));
    }

    #[test]
    fn merged_works_keep_every_location() {
        let mut a = Work::new(Service::Crossref);
        a.title = Some("T".into());
        let mut b = Work::new(Service::Unpaywall);
        b.is_oa = true;
        b.abstract_text = Some("A".into());
        let m = merge(vec![a, b]);
        assert_eq!(m.title.as_deref(), Some("T"));
        assert!(m.is_oa);
        assert_eq!(m.abstract_text.as_deref(), Some("A"));
    }

    #[test]
    fn wait_helper_rounds() {
        assert_eq!(round(0.12345), 0.123);
        let _ = Duration::ZERO;
    }
}
