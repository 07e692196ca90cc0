//! Scholarly resolution: DOI → CrossRef (metadata) → Unpaywall (open locations, licenses) →
//! Semantic Scholar (abstract, open PDF); author-year citations and bibliography entries →
//! Semantic Scholar search and CrossRef bibliographic query, accepted above a recorded match
//! score; arXiv ids → arXiv; books → Internet Archive; concepts → the configured concept search.
//! Each service is paced at its own rate ([`Pacer`]) and told who is asking.

use super::{web, Ctx, Outcome};
use crate::http::{Fetch, Request};
use kerai_core::resolve::{
    self as sch, CitedWork, NoCopyReason, ScholarlyError, ScholarlyErrorKind, Service, Services,
    Work,
};
use kerai_core::wire::crawl_queue::{DepositResult, WorkKeys, WorkRequest};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::time::Instant;

/// When each service may next be asked. One per crawler process, so the pace holds across
/// items and cycles.
#[derive(Default)]
pub struct Pacer {
    next: Mutex<HashMap<Service, Instant>>,
}

impl Pacer {
    /// Wait for `service`'s turn, keeping `services.min_interval(service)` between requests.
    async fn turn(&self, services: &Services, service: Service) {
        let wait = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let at = next.get(&service).copied().unwrap_or(now).max(now);
            next.insert(service, at + services.min_interval(service));
            at.saturating_duration_since(now)
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

/// The services as the crawler agent configured them, and the process's pacer.
pub struct Scholar<'a> {
    pub services: Services,
    pacer: &'a Pacer,
}

/// Why a service gave no answer, sorted by what it means for the reference.
#[derive(Debug, Clone, PartialEq)]
enum Trouble {
    /// The service does not know the work (404, an empty answer, its not-found envelope).
    NotFound(String),
    /// Worth trying again later: rate limits, 5xx, timeouts, a service that is down.
    Transient(String),
    /// Anything else (an error envelope, a malformed answer, a refused request).
    Refused(String),
}

impl fmt::Display for Trouble {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trouble::NotFound(s) | Trouble::Transient(s) | Trouble::Refused(s) => f.write_str(s),
        }
    }
}

impl From<ScholarlyError> for Trouble {
    fn from(e: ScholarlyError) -> Trouble {
        match e.kind {
            ScholarlyErrorKind::NotFound => Trouble::NotFound(e.to_string()),
            ScholarlyErrorKind::RateLimited => Trouble::Transient(e.to_string()),
            _ => Trouble::Refused(e.to_string()),
        }
    }
}

/// What went wrong along the way, to decide between `failed` (retry later) and `not_found`.
#[derive(Default)]
struct Problems(Vec<Trouble>);

impl Problems {
    fn push(&mut self, t: Trouble) {
        self.0.push(t);
    }

    fn note(&mut self, s: impl Into<String>) {
        self.0.push(Trouble::NotFound(s.into()));
    }

    fn transient(&self) -> bool {
        self.0.iter().any(|t| matches!(t, Trouble::Transient(_)))
    }

    fn joined(&self) -> String {
        self.0
            .iter()
            .map(Trouble::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Nothing was found: `failed` when some service could not be asked (retried with
    /// backoff), else `not_found`, with every reason.
    fn outcome(&self, what: String) -> Outcome {
        let why = if self.0.is_empty() {
            what
        } else {
            format!("{what} ({})", self.joined())
        };
        if self.transient() {
            Outcome::failed(why)
        } else {
            Outcome::not_found(why)
        }
    }
}

impl<'a> Scholar<'a> {
    pub fn new(services: Services, pacer: &'a Pacer) -> Scholar<'a> {
        Scholar { services, pacer }
    }

    /// The services the crawler agent's config names (`policy` of a work-queue request).
    pub fn from_policy(policy: &Value, pacer: &'a Pacer) -> Scholar<'a> {
        let mut services = Services::from_config(policy);
        if policy.get("user_agent").and_then(Value::as_str).is_none() {
            services.user_agent =
                format!("kerai/{} (knowledge crawler)", env!("CARGO_PKG_VERSION"));
        }
        Scholar::new(services, pacer)
    }

    /// GET a service URL, politely: wait for the service's turn, send its headers.
    async fn get(&self, ctx: &Ctx<'_>, service: Service, url: &str) -> Result<Vec<u8>, Trouble> {
        self.pacer.turn(&self.services, service).await;
        let mut req = Request::get(url);
        req.headers = self
            .services
            .headers(service)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        match ctx.http.fetch(&req, &|_| Ok(())).await {
            Fetch::Ok(r) => Ok(r.body),
            Fetch::Failed {
                status: Some(404 | 410),
                ..
            } => Err(Trouble::NotFound(format!(
                "{service}: HTTP 404, no such work"
            ))),
            Fetch::Failed {
                error,
                status: Some(s),
            } if s >= 500 => Err(Trouble::Transient(format!("{service}: {error}"))),
            Fetch::Failed {
                error,
                status: Some(_),
            } => Err(Trouble::Refused(format!("{service}: {error}"))),
            // Network errors and timeouts: the service may be back later.
            Fetch::Failed {
                error,
                status: None,
            } => Err(Trouble::Transient(format!("{service}: {error}"))),
            Fetch::Retry { status, .. } => Err(Trouble::Transient(format!(
                "{service}: HTTP {status}, rate limited or unavailable; retry later"
            ))),
            Fetch::NotModified(_) => Err(Trouble::Refused(format!("{service}: unexpected 304"))),
        }
    }

    /// GET and parse.
    async fn ask<T>(
        &self,
        ctx: &Ctx<'_>,
        service: Service,
        url: &str,
        parse: fn(&[u8]) -> Result<T, ScholarlyError>,
    ) -> Result<T, Trouble> {
        let body = self.get(ctx, service, url).await?;
        parse(&body).map_err(Trouble::from)
    }
}

/// A field of the request, trimmed; `None` when unset or blank.
fn text_of(field: &Option<String>) -> Option<&str> {
    field.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// What the reference says, for matching search hits. `authors` are family names (author-year
/// callouts) or `{family, given}` objects (bibliography entries).
fn cited_of(request: &WorkRequest) -> CitedWork {
    let authors: Vec<String> = request
        .authors
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .or_else(|| x["family"].as_str().map(str::to_string))
                })
                .filter(|s| !s.trim().is_empty())
                .collect()
        })
        .unwrap_or_default();
    CitedWork {
        doi: text_of(&request.doi).map(str::to_string),
        title: text_of(&request.title).map(str::to_string),
        year: request
            .year
            .as_i64()
            .or_else(|| {
                request
                    .year
                    .as_str()
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .and_then(|y| y.parse().ok())
            })
            .map(|y| y as i32),
        first_author_family: authors.first().cloned(),
        authors,
    }
}

/// An arXiv id in an `arxiv.org` URL.
fn arxiv_in_url(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let host = u
        .host_str()?
        .trim_start_matches("www.")
        .to_ascii_lowercase();
    (host == "arxiv.org" || host == "export.arxiv.org")
        .then(|| sch::normalize_arxiv_id(u.path()))
        .flatten()
}

/// A DOI in a `doi.org` URL.
fn doi_in_url(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?.to_ascii_lowercase();
    matches!(host.as_str(), "doi.org" | "dx.doi.org" | "www.doi.org")
        .then(|| sch::normalize_doi(url))
        .flatten()
}

/// Resolve one work-queue request.
pub async fn resolve(request: &WorkRequest, ctx: &Ctx<'_>, scholar: &Scholar<'_>) -> Outcome {
    let ref_type = request.ref_type.as_deref().unwrap_or("");
    if ref_type == "concept" {
        return by_concept(request, ctx, scholar).await;
    }
    if let Some(doi) = text_of(&request.doi).and_then(sch::normalize_doi) {
        return by_doi(&doi, ctx, scholar, None).await;
    }
    if let Some(id) = text_of(&request.arxiv).and_then(sch::normalize_arxiv_id) {
        return by_arxiv(&id, ctx, scholar).await;
    }
    let url = text_of(&request.url);
    if let Some(url) = url {
        if let Some(doi) = doi_in_url(url) {
            return by_doi(&doi, ctx, scholar, None).await;
        }
        if let Some(id) = arxiv_in_url(url) {
            return by_arxiv(&id, ctx, scholar).await;
        }
    }
    match (ref_type, url) {
        ("url", Some(url)) => web::fetch_open_copy(url, "direct", None, ctx).await,
        ("url", None) => Outcome::not_found("the reference has no URL"),
        ("bibliography", Some(url)) => {
            // The entry names where it is: fetch that; search only when it is not there.
            match web::fetch_open_copy(url, "direct", None, ctx).await {
                out @ (Outcome::Deposit { .. } | Outcome::Linked(_) | Outcome::Failed(_)) => out,
                direct => match by_search(request, ctx, scholar).await {
                    Outcome::NotFound(why) => {
                        let first = direct
                            .fail_kind()
                            .map_or(String::new(), |(_, r)| format!("the entry's URL: {r}; "));
                        Outcome::not_found(format!("{first}{why}"))
                    }
                    other => other,
                },
            }
        }
        ("author_year" | "bibliography", None) => by_search(request, ctx, scholar).await,
        (other, _) => Outcome::skipped(format!("no resolver for {other} references")),
    }
}

/// DOI → CrossRef → Unpaywall → Semantic Scholar, then the best open copy. `seed` is what a
/// search already knows about the work (kept when the services do not know the DOI).
async fn by_doi(
    doi: &str,
    ctx: &Ctx<'_>,
    scholar: &Scholar<'_>,
    matched: Option<(Value, Work)>,
) -> Outcome {
    if let Some(done) = ctx
        .already_known(WorkKeys {
            doi: Some(doi.to_string()),
            ..WorkKeys::default()
        })
        .await
    {
        return done;
    }
    let s = &scholar.services;
    let mut works: Vec<Work> = Vec::new();
    let mut problems = Problems::default();
    match scholar
        .ask(
            ctx,
            Service::Crossref,
            &sch::crossref_work_url(s, doi),
            sch::parse_crossref_work,
        )
        .await
    {
        Ok(w) => works.push(w),
        Err(e) => problems.push(e),
    }
    match s.check(Service::Unpaywall) {
        Ok(()) => match scholar
            .ask(
                ctx,
                Service::Unpaywall,
                &sch::unpaywall_url(s, doi),
                sch::parse_unpaywall,
            )
            .await
        {
            Ok(w) => works.push(w),
            Err(e) => problems.push(e),
        },
        Err(e) => problems.note(e.to_string()),
    }
    match scholar
        .ask(
            ctx,
            Service::SemanticScholar,
            &sch::s2_paper_by_doi_url(s, doi),
            sch::parse_s2_paper,
        )
        .await
    {
        Ok(w) => works.push(w),
        Err(e) => problems.push(e),
    }
    let record = matched.as_ref().map(|(r, _)| r.clone());
    if let Some((_, hit)) = matched {
        works.push(hit);
    }
    if works.is_empty() {
        return problems.outcome(format!(
            "DOI {doi} is unknown to CrossRef, Unpaywall and Semantic Scholar"
        ));
    }
    let mut work = merge(works);
    work.doi = Some(doi.to_string());
    let mut found = json!({"doi": doi, "title": work.title, "year": work.year, "is_oa": work.is_oa,
                           "locations": work.oa_locations.len()});
    if let Some(m) = record {
        found["match"] = m;
    }
    (ctx.progress)("found", found);
    open_copy_of(&work, ctx, "doi").await
}

/// arXiv id → arXiv API → its PDF (arXiv copies are free to read: license `oa`).
async fn by_arxiv(id: &str, ctx: &Ctx<'_>, scholar: &Scholar<'_>) -> Outcome {
    if let Some(done) = ctx
        .already_known(WorkKeys {
            arxiv: Some(id.to_string()),
            ..WorkKeys::default()
        })
        .await
    {
        return done;
    }
    let s = &scholar.services;
    let work = match scholar
        .ask(
            ctx,
            Service::Arxiv,
            &sch::arxiv_id_url(s, id),
            sch::parse_arxiv_paper,
        )
        .await
    {
        Ok(w) => w,
        Err(Trouble::NotFound(e)) => {
            return Outcome::not_found(format!("arXiv has no paper {id} ({e})"))
        }
        Err(Trouble::Transient(e)) => return Outcome::failed(e),
        Err(Trouble::Refused(e)) => return Outcome::not_found(format!("arXiv {id}: {e}")),
    };
    (ctx.progress)(
        "found",
        json!({"arxiv": id, "title": work.title, "year": work.year}),
    );
    open_copy_of(&work, ctx, "arxiv").await
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The match as recorded on the reference: which service, which hit, every score.
fn match_record(service: Service, m: &sch::Match) -> Value {
    json!({"source": service.name(), "rank": m.rank + 1, "total": round(m.score.total),
           "title": round(m.score.title), "year": round(m.score.year), "author": round(m.score.author)})
}

/// Author-year citations and bibliography entries: search, match, then resolve what matched.
async fn by_search(request: &WorkRequest, ctx: &Ctx<'_>, scholar: &Scholar<'_>) -> Outcome {
    let s = &scholar.services;
    let cited = cited_of(request);
    if cited.first_author().is_none() && cited.title.is_none() {
        return Outcome::not_found(
            "the citation names neither an author nor a title to search for",
        );
    }
    if let Some(why) = ambiguous_suffix(request, &cited) {
        return Outcome::not_found(why);
    }
    let mut problems = Problems::default();
    let book = looks_like_book(request);
    // Books: the Internet Archive holds many old ones in the public domain; ask it first.
    if book {
        if let Some(out) = by_archive(&cited, ctx, scholar, &mut problems).await {
            return out;
        }
    }
    for service in [Service::SemanticScholar, Service::Crossref] {
        let hits = match service {
            Service::SemanticScholar => {
                scholar
                    .ask(
                        ctx,
                        service,
                        &sch::s2_search_url(s, &sch::s2_query(&cited), 5),
                        sch::parse_s2_search,
                    )
                    .await
            }
            _ => {
                scholar
                    .ask(
                        ctx,
                        service,
                        &sch::crossref_search_url(s, &sch::crossref_query(&cited), 5),
                        sch::parse_crossref_search,
                    )
                    .await
            }
        };
        let hits = match hits {
            Ok(h) => h,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        if let Some(m) = sch::best_match(&cited, &hits.works) {
            let hit = hits.works[m.rank].clone();
            let record = match_record(service, &m);
            if let Some(doi) = hit.doi.clone() {
                return by_doi(&doi, ctx, scholar, Some((record, hit))).await;
            }
            if let Some(id) = hit.arxiv.clone() {
                (ctx.progress)("found", json!({"match": record, "arxiv": id}));
                return by_arxiv(&id, ctx, scholar).await;
            }
            (ctx.progress)("found", json!({"match": record, "title": hit.title}));
            return open_copy_of(&hit, ctx, service.name()).await;
        }
        let best = hits
            .works
            .iter()
            .map(|w| sch::match_score(&cited, w).total)
            .fold(None::<f64>, |a, b| Some(a.map_or(b, |a| a.max(b))));
        problems.note(match best {
            Some(score) => format!(
                "{service}: best of {} hits scored {score:.2}, not accepted",
                hits.works.len()
            ),
            None => format!("{service}: no hits"),
        });
    }
    let label = text_of(&request.title)
        .or_else(|| text_of(&request.text))
        .unwrap_or("?");
    problems.outcome(format!("no match accepted for \"{label}\""))
}

/// A callout with a year suffix and no title (`Friston et al., 2017a`) names one of several
/// works of that author and year; a search cannot tell which (it would take its top hit for
/// `2017a` and `2017b` alike). Only its bibliography entry can.
fn ambiguous_suffix(request: &WorkRequest, cited: &CitedWork) -> Option<String> {
    let suffix = text_of(&request.year_suffix)?;
    if cited.title.is_some() {
        return None;
    }
    Some(format!(
        "\"{}\" is one of several works of {} (year suffix {suffix}); without its bibliography entry a search cannot tell which",
        text_of(&request.text).unwrap_or("?"),
        cited.year.map_or_else(|| "that year".to_string(), |y| y.to_string())
    ))
}

/// A bibliography entry with a publisher or place and no journal, or a citation older than
/// 1930 (an author-year callout names neither).
fn looks_like_book(request: &WorkRequest) -> bool {
    let has = |k: &Option<String>| text_of(k).is_some();
    ((has(&request.publisher) || has(&request.location)) && !has(&request.container))
        || request.year.as_i64().is_some_and(|y| y < 1930)
}

async fn by_archive(
    cited: &CitedWork,
    ctx: &Ctx<'_>,
    scholar: &Scholar<'_>,
    problems: &mut Problems,
) -> Option<Outcome> {
    let s = &scholar.services;
    let hits = match scholar
        .ask(
            ctx,
            Service::InternetArchive,
            &sch::ia_search_url(s, &sch::ia_query(cited), 5),
            sch::parse_ia_search,
        )
        .await
    {
        Ok(h) => h,
        Err(e) => {
            problems.push(e);
            return None;
        }
    };
    let Some(m) = sch::best_match(cited, &hits.works) else {
        problems.note(format!(
            "internet_archive: none of {} hits accepted",
            hits.works.len()
        ));
        return None;
    };
    let id = hits.works[m.rank].source_id.clone()?;
    let item = match scholar
        .ask(
            ctx,
            Service::InternetArchive,
            &sch::ia_metadata_url(s, &id),
            sch::parse_ia_metadata,
        )
        .await
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
        json!({"match": match_record(Service::InternetArchive, &m), "identifier": id, "title": work.title}),
    );
    Some(open_copy_of(&work, ctx, "internet_archive").await)
}

async fn by_concept(request: &WorkRequest, ctx: &Ctx<'_>, scholar: &Scholar<'_>) -> Outcome {
    let s = &scholar.services;
    let term = text_of(&request.term)
        .or_else(|| text_of(&request.text))
        .unwrap_or("")
        .trim_matches(|c: char| c == '"' || c == '“' || c == '”')
        .to_string();
    let Some(url) = sch::concept_search_url(s, &term, text_of(&request.context)) else {
        return Outcome::skipped(
            "concept search is off (set concept_search_url in the crawler agent's config)",
        );
    };
    let hits = match scholar
        .ask(ctx, Service::Concept, &url, sch::parse_concept_results)
        .await
    {
        Ok(h) => h,
        Err(Trouble::Transient(e)) => return Outcome::failed(e),
        Err(e) => return Outcome::not_found(format!("concept search for \"{term}\": {e}")),
    };
    let mut last = None;
    for hit in hits.iter().take(3) {
        let work = hit.to_work();
        let out = open_copy_of(&work, ctx, "concept_search").await;
        if matches!(out, Outcome::Deposit { .. } | Outcome::Linked(_)) {
            return out;
        }
        last = Some(out);
    }
    match last {
        Some(Outcome::Failed(why)) => Outcome::failed(why),
        Some(other) => Outcome::not_found(format!(
            "the concept search found no open, substantial source for \"{term}\" (last: {})",
            other.fail_kind().map_or("", |(_, r)| r)
        )),
        None => Outcome::not_found(format!("the concept search found nothing for \"{term}\"")),
    }
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
        w.doi = w.doi.or(o.doi);
        w.is_oa |= o.is_oa;
        for l in o.oa_locations {
            if !w
                .oa_locations
                .iter()
                .any(|x| x.url == l.url && x.pdf_url == l.pdf_url && x.text_url == l.text_url)
            {
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
        let names: Vec<String> = work
            .authors
            .iter()
            .map(|a| match &a.given {
                Some(g) => format!("{}, {g}", a.family),
                None => a.family.clone(),
            })
            .collect();
        m.insert("authors".into(), json!(names));
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

/// Forget `url` as a way to `work` (it was tried).
fn drop_url(work: &mut Work, url: &str) {
    for l in &mut work.oa_locations {
        for u in [&mut l.text_url, &mut l.pdf_url, &mut l.url] {
            if u.as_deref() == Some(url) {
                *u = None;
            }
        }
    }
}

/// How many copies of one work are tried before giving up.
const MAX_COPIES: usize = 4;

/// Fetch the best open copy of `work`, then the next best when it cannot be had; fall back to
/// a thin abstract document when the work is open access, has an abstract and no full text
/// could be fetched; else record why (`skipped`: paywalled or license; `failed`: a copy that
/// may come back; `not_found`).
async fn open_copy_of(work: &Work, ctx: &Ctx<'_>, source: &str) -> Outcome {
    let keys = WorkKeys {
        doi: work.doi.clone(),
        arxiv: work.arxiv.clone(),
        url: None,
    };
    if let Some(done) = ctx.already_known(keys).await {
        return done;
    }
    let meta = work_metadata(work);
    let mut left = work.clone();
    let mut tried: Vec<Outcome> = Vec::new();
    let mut no_copy = None;
    for _ in 0..MAX_COPIES {
        let copy = match sch::best_open_copy(&left, &ctx.policy.allowed_licenses) {
            Ok(c) => c,
            Err(no) => {
                no_copy = Some(no);
                break;
            }
        };
        match web::fetch_open_copy(&copy.url, source, Some(&copy.license), ctx).await {
            Outcome::Deposit {
                markdown,
                mut result,
            } => {
                {
                    let m = &mut result.metadata;
                    for (k, v) in meta {
                        m.insert(k, v);
                    }
                    if let Some(v) = &copy.version {
                        m.insert("oa_version".into(), json!(v));
                    }
                }
                return Outcome::Deposit { markdown, result };
            }
            linked @ Outcome::Linked(_) => return linked,
            other => tried.push(other),
        }
        drop_url(&mut left, &copy.url);
    }
    // A copy that may come back later is worth a retry before settling for less.
    if let Some(failed) = tried.iter().find(|o| matches!(o, Outcome::Failed(_))) {
        return failed.clone();
    }
    if work.is_oa && work.abstract_text.is_some() && ctx.policy.allows("oa") {
        return abstract_document(work, meta, source);
    }
    if let Some(first) = tried.into_iter().next() {
        return first;
    }
    match no_copy {
        Some(no) => match no.reason {
            NoCopyReason::LicenseNotAllowed | NoCopyReason::Paywalled => {
                Outcome::skipped(no.message)
            }
        },
        None => Outcome::not_found(format!("no copy of {} could be fetched", work.label())),
    }
}

/// A thin document from the metadata and abstract (content_type = 'abstract').
fn abstract_document(work: &Work, meta: Map<String, Value>, source: &str) -> Outcome {
    let title = work.title.clone().unwrap_or_else(|| "Untitled".into());
    let mut md = format!("# {title}\n\n");
    // "Family, Given · year": no "Name (year)" that would read as a citation of itself.
    let mut byline: Vec<String> = Vec::new();
    if let Some(a) = meta.get("authors").and_then(Value::as_array) {
        byline.push(
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; "),
        );
    }
    byline.extend(work.year.map(|y| y.to_string()));
    if !byline.is_empty() {
        md.push_str(&byline.join(" · "));
        md.push_str("\n\n");
    }
    md.push_str("## Abstract\n\n");
    md.push_str(work.abstract_text.as_deref().unwrap_or(""));
    md.push('\n');
    let url = work
        .doi
        .as_ref()
        .map(|d| format!("https://doi.org/{d}"))
        .or_else(|| {
            work.arxiv
                .as_ref()
                .map(|a| format!("https://arxiv.org/abs/{a}"))
        })
        .or_else(|| work.source_id.clone())
        .unwrap_or_default();
    let result = DepositResult {
        source_url: url,
        source_type: "abstract".into(),
        license: "oa".into(),
        fetched_at: chrono::Utc::now().to_rfc3339(),
        content_type: "abstract".into(),
        found_via: source.to_string(),
        metadata: meta,
    };
    Outcome::Deposit {
        markdown: md,
        result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerai_core::resolve::OaLocation;

    #[test]
    fn books_are_told_apart() {
        let book = |v: Value| looks_like_book(&WorkRequest::from_json(v));
        assert!(book(json!({"publisher": "Voss", "location": "Leipzig"})));
        assert!(book(json!({"year": 1866})));
        assert!(!book(
            json!({"publisher": "Elsevier", "container": "J. Math. Psych.", "year": 2020})
        ));
    }

    #[test]
    fn cited_works_read_requests() {
        let cited_of = |v: &Value| cited_of(&WorkRequest::from_json(v.clone()));
        let c = cited_of(
            &json!({"authors": ["Friston"], "year": 2010, "title": "The free-energy principle"}),
        );
        assert_eq!(c.first_author(), Some("Friston"));
        assert_eq!(c.year, Some(2010));
        let c = cited_of(&json!({"authors": [{"family": "Parr", "given": "T."}], "year": "2019"}));
        assert_eq!(c.first_author(), Some("Parr"));
        assert_eq!(c.year, Some(2019));
        assert_eq!(cited_of(&json!({"title": "  "})).title, None);
    }

    #[test]
    fn year_suffixes_without_titles_are_ambiguous() {
        let req = |v: Value| WorkRequest::from_json(v);
        let r = req(
            json!({"text": "Friston et al. 2017a", "authors": ["Friston"], "year": 2017, "year_suffix": "a"}),
        );
        let why = ambiguous_suffix(&r, &cited_of(&r)).unwrap();
        assert!(why.contains("one of several works of 2017"), "{why}");
        let titled = req(
            json!({"year_suffix": "a", "year": 2017, "title": "Active inference: a process theory"}),
        );
        assert_eq!(ambiguous_suffix(&titled, &cited_of(&titled)), None);
        let plain = req(json!({"authors": ["Friston"], "year": 2010}));
        assert_eq!(ambiguous_suffix(&plain, &cited_of(&plain)), None);
    }

    #[test]
    fn identifiers_in_urls() {
        assert_eq!(
            doi_in_url("https://doi.org/10.1038/NRN2787").as_deref(),
            Some("10.1038/nrn2787")
        );
        assert_eq!(doi_in_url("https://example.org/10.1038/nrn2787"), None);
        assert_eq!(
            arxiv_in_url("https://arxiv.org/abs/2003.04035v2").as_deref(),
            Some("2003.04035")
        );
        assert_eq!(arxiv_in_url("https://example.org/abs/2003.04035"), None);
    }

    #[test]
    fn merged_works_keep_every_location() {
        let mut a = Work::new(Service::Crossref);
        a.title = Some("T".into());
        let mut b = Work::new(Service::Unpaywall);
        b.is_oa = true;
        b.abstract_text = Some("A".into());
        b.oa_locations.push(OaLocation {
            pdf_url: Some("http://h/a.pdf".into()),
            ..OaLocation::default()
        });
        let mut m = merge(vec![a, b.clone(), b]);
        assert_eq!(m.title.as_deref(), Some("T"));
        assert!(m.is_oa);
        assert_eq!(m.abstract_text.as_deref(), Some("A"));
        assert_eq!(m.oa_locations.len(), 1);
        drop_url(&mut m, "http://h/a.pdf");
        assert!(sch::best_open_copy(&m, &["oa".into()]).is_err());
    }

    #[test]
    fn problems_decide_failed_or_not_found() {
        let mut p = Problems::default();
        p.note("crossref: no hits");
        assert!(
            matches!(p.outcome("x".into()), Outcome::NotFound(r) if r == "x (crossref: no hits)")
        );
        p.push(Trouble::Transient("arxiv: HTTP 503".into()));
        assert!(matches!(p.outcome("x".into()), Outcome::Failed(_)));
        let t: Trouble = ScholarlyError::rate_limited(Service::Arxiv, "Rate exceeded.").into();
        assert!(matches!(t, Trouble::Transient(_)));
    }

    #[test]
    fn abstract_documents_are_thin() {
        let mut w = Work::new(Service::SemanticScholar);
        w.title = Some("A title".into());
        w.doi = Some("10.1/x".into());
        w.year = Some(2020);
        w.abstract_text = Some("What it found.".into());
        w.authors = vec![kerai_core::resolve::Author::new("Parr", Some("Thomas"))];
        let Outcome::Deposit { markdown, result } = abstract_document(&w, work_metadata(&w), "doi")
        else {
            panic!("a deposit")
        };
        assert_eq!(
            markdown,
            "# A title\n\nParr, Thomas · 2020\n\n## Abstract\n\nWhat it found.\n"
        );
        assert_eq!(result.content_type, "abstract");
        assert_eq!(result.source_url, "https://doi.org/10.1/x");
    }
}
