//! A local "scholarly web" for the citation-loop tests: fakes of CrossRef, Unpaywall, Semantic
//! Scholar, arXiv, the Internet Archive and a concept search on 127.0.0.1, under one server at
//! `{base}/crossref`, `{base}/unpaywall`, ... (the layout `Services::all_at` names). They answer
//! for a catalogue of [`Work`]s in the real services' formats: the recorded samples in
//! `crates/kerai-core/tests/fixtures/scholarly/` are the templates, their fields replaced by the
//! work's. Unknown works get each service's own not-found answer; Unpaywall refuses requests
//! without `email=` (HTTP 422), as it does.
//!
//! The open copies themselves live on ordinary fixture sites ([`crate::Site`]).

use crate::serve::Server;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A free-to-read location, as Unpaywall lists it.
#[derive(Debug, Clone)]
pub struct Location {
    pub landing: Option<String>,
    pub pdf: Option<String>,
    /// Unpaywall's license string (`cc-by`, `cc-by-nc-nd`, ...); `None` names none.
    pub license: Option<String>,
    /// `publishedVersion`, `acceptedVersion`, `submittedVersion`.
    pub version: String,
    /// `publisher` or `repository`.
    pub host_type: String,
}

impl Location {
    /// The published version as a PDF at the publisher, under `license`.
    pub fn pdf(url: &str, license: &str) -> Location {
        Location {
            landing: None,
            pdf: Some(url.to_string()),
            license: Some(license.to_string()),
            version: "publishedVersion".into(),
            host_type: "publisher".into(),
        }
    }

    /// The published version as a landing page (HTML full text), under `license`.
    pub fn page(url: &str, license: &str) -> Location {
        Location {
            landing: Some(url.to_string()),
            pdf: None,
            license: Some(license.to_string()),
            version: "publishedVersion".into(),
            host_type: "publisher".into(),
        }
    }
}

/// An Internet Archive item: its identifier, license state and files (name, format, body).
#[derive(Debug, Clone)]
pub struct IaItem {
    pub identifier: String,
    pub not_in_copyright: bool,
    pub files: Vec<(String, String, Vec<u8>)>,
}

/// One work of the catalogue, and what each service knows of it.
#[derive(Debug, Clone, Default)]
pub struct Work {
    pub doi: Option<String>,
    pub arxiv: Option<String>,
    pub title: String,
    /// (given, family)
    pub authors: Vec<(String, String)>,
    pub year: i32,
    pub container: Option<String>,
    pub abstract_text: Option<String>,
    /// CrossRef has the DOI.
    pub in_crossref: bool,
    /// A Creative Commons license CrossRef lists for the published version, with the landing
    /// page and an optional PDF link: (license URL, landing, pdf).
    pub crossref_open: Option<(String, String, Option<String>)>,
    /// Unpaywall has the DOI, with these open locations (empty: closed).
    pub unpaywall: Option<Vec<Location>>,
    /// Semantic Scholar has the paper.
    pub in_s2: bool,
    /// Semantic Scholar's `openAccessPdf`: (url, status, license).
    pub s2_pdf: Option<(String, String, String)>,
    /// arXiv has it, with this PDF link.
    pub arxiv_pdf: Option<String>,
    pub ia: Option<IaItem>,
}

impl Work {
    /// A journal article every service knows, closed unless told otherwise.
    pub fn article(doi: &str, title: &str, authors: &[(&str, &str)], year: i32) -> Work {
        Work {
            doi: Some(doi.to_lowercase()),
            title: title.to_string(),
            authors: authors
                .iter()
                .map(|(g, f)| (g.to_string(), f.to_string()))
                .collect(),
            year,
            container: Some("Journal of Test Results".into()),
            in_crossref: true,
            unpaywall: Some(Vec::new()),
            in_s2: true,
            ..Work::default()
        }
    }

    /// Unpaywall lists this open location.
    pub fn open_at(mut self, loc: Location) -> Work {
        self.unpaywall.get_or_insert_with(Vec::new).push(loc);
        self
    }

    pub fn with_abstract(mut self, text: &str) -> Work {
        self.abstract_text = Some(text.to_string());
        self
    }

    fn families(&self) -> Vec<String> {
        self.authors.iter().map(|(_, f)| f.clone()).collect()
    }

    fn is_oa(&self) -> bool {
        self.unpaywall.as_ref().is_some_and(|l| !l.is_empty())
            || self.s2_pdf.is_some()
            || self.crossref_open.is_some()
            || self.arxiv_pdf.is_some()
    }
}

/// One request a fake received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub service: String,
    /// The decoded path after the service prefix, e.g. `/works/10.1/x`.
    pub path: String,
    pub query: HashMap<String, String>,
    pub user_agent: String,
}

pub struct ScholarlyWeb {
    pub base: String,
    works: Arc<Mutex<Vec<Work>>>,
    concepts: Arc<Mutex<Vec<(String, Value)>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
    /// Serves while the fake lives; stops when it is dropped.
    _server: Server,
}

impl ScholarlyWeb {
    pub fn start() -> ScholarlyWeb {
        Self::start_on(0)
    }

    /// The fakes on `port` of 127.0.0.1 (0: a free one).
    pub fn start_on(port: u16) -> ScholarlyWeb {
        let works: Arc<Mutex<Vec<Work>>> = Arc::default();
        let concepts: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let t = Arc::new(Templates::load());
        let mut server = Server::bind_port(port);
        {
            let (works, concepts, seen) = (works.clone(), concepts.clone(), seen.clone());
            server.serve(4, move |req| {
                let (service, path, query) = split_url(req.url());
                let user_agent = req
                    .headers()
                    .iter()
                    .find(|h| h.field.equiv("User-Agent"))
                    .map(|h| h.value.to_string())
                    .unwrap_or_default();
                seen.lock().unwrap().push(Seen {
                    service: service.clone(),
                    path: path.clone(),
                    query: query.clone(),
                    user_agent,
                });
                let works = works.lock().unwrap().clone();
                let concepts = concepts.lock().unwrap().clone();
                let (status, ctype, body) = answer(&t, &works, &concepts, &service, &path, &query);
                let _ = req.respond(
                    tiny_http::Response::from_data(body)
                        .with_status_code(status)
                        .with_header(
                            tiny_http::Header::from_bytes(&b"Content-Type"[..], ctype.as_bytes())
                                .unwrap(),
                        ),
                );
            });
        }
        ScholarlyWeb {
            base: server.base.clone(),
            works,
            concepts,
            seen,
            _server: server,
        }
    }

    pub fn add(&self, w: Work) {
        self.works.lock().unwrap().push(w);
    }

    /// The concept search answers `results` (kerai's concept-endpoint format) to queries that
    /// contain `term`.
    pub fn concept(&self, term: &str, results: Value) {
        self.concepts
            .lock()
            .unwrap()
            .push((term.to_lowercase(), results));
    }

    /// `{base}/{service}` (`crossref`, `unpaywall`, `semantic_scholar`, `arxiv`,
    /// `internet_archive`, `concept`).
    pub fn url(&self, service: &str) -> String {
        format!("{}/{service}", self.base)
    }

    /// The crawler-agent config that points every service here, unpaced.
    pub fn agent_config(&self, contact_email: &str) -> Value {
        json!({
            "crossref_url": self.url("crossref"),
            "unpaywall_url": self.url("unpaywall"),
            "semantic_scholar_url": self.url("semantic_scholar"),
            "arxiv_url": self.url("arxiv"),
            "internet_archive_url": self.url("internet_archive"),
            "concept_search_url": self.url("concept"),
            "crossref_rps": 0, "unpaywall_rps": 0, "semantic_scholar_rps": 0,
            "arxiv_rps": 0, "internet_archive_rps": 0, "concept_search_rps": 0,
            "contact_email": contact_email,
        })
    }

    /// The demo's scholarly web: the catalogue of `examples/scholarly/works.json`, its open
    /// copies on `site`, and `kerai_crawl` registered in `client`'s database as `make demo`
    /// registers it (every service here, no pacing, the demo's thresholds).
    pub fn demo(
        site: &crate::Site,
        client: &mut postgres::Client,
        contact_email: &str,
    ) -> ScholarlyWeb {
        let web = ScholarlyWeb::start();
        web.load_catalogue(
            &crate::repo_root().join("examples/scholarly/works.json"),
            &site.url(""),
        );
        let mut agent = web.agent_config(contact_email);
        agent.as_object_mut().unwrap().extend(
            json!({"rate_limit_seconds": 0, "claims_per_cycle": 10, "min_score": 0.2,
                   "retry_base_seconds": 2, "max_retries": 3})
            .as_object()
            .unwrap()
            .clone(),
        );
        client
            .execute(
                "SELECT kerai.register_agent('kerai_crawl', 'tool', NULL, $1)",
                &[&agent],
            )
            .unwrap();
        crate::allow_private(client, &[&web.base, &site.url("")]);
        web
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Requests to `service` whose decoded path contains `needle`.
    pub fn count(&self, service: &str, needle: &str) -> usize {
        self.seen()
            .iter()
            .filter(|s| s.service == service && s.path.contains(needle))
            .count()
    }
}

/// The recorded samples, parsed once.
struct Templates {
    crossref_work: Value,
    crossref_search: Value,
    unpaywall: Value,
    unpaywall_404: Value,
    unpaywall_422: Value,
    s2_paper: Value,
    s2_not_found: Value,
    ia_search: Value,
    ia_metadata: Value,
    arxiv_empty: String,
}

impl Templates {
    fn load() -> Templates {
        let dir = crate::repo_root().join("crates/kerai-core/tests/fixtures/scholarly");
        let read = |p: &str| {
            std::fs::read_to_string(dir.join(p)).unwrap_or_else(|e| panic!("fixture {p}: {e}"))
        };
        let json = |p: &str| -> Value { serde_json::from_str(&read(p)).expect("fixture JSON") };
        Templates {
            crossref_work: json("crossref/work_10.1016_j.jmp.2020.102447.json"),
            crossref_search: json("crossref/search_helmholtz_no_match.json"),
            unpaywall: json("unpaywall/10.1016_j.jmp.2020.102447.json"),
            unpaywall_404: json("unpaywall/error_404_invalid_doi.json"),
            unpaywall_422: json("unpaywall/error_422_no_email.json"),
            s2_paper: json("semantic_scholar/paper_DOI_10.1016_j.jmp.2020.102447.json"),
            s2_not_found: json("semantic_scholar/error_not_found.json"),
            ia_search: json("internet_archive/advancedsearch_helmholtz_optik.json"),
            ia_metadata: json("internet_archive/metadata_handbuchderphysi00helm.json"),
            arxiv_empty: read("arxiv/search_empty.xml"),
        }
    }
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push(h * 16 + l);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `/crossref/works/10.1%2Fx?mailto=a` → ("crossref", "/works/10.1/x", {mailto: a}).
fn split_url(url: &str) -> (String, String, HashMap<String, String>) {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let path = decode(path);
    let (service, rest) = path
        .trim_start_matches('/')
        .split_once('/')
        .map(|(s, r)| (s.to_string(), format!("/{r}")))
        .unwrap_or_else(|| (path.trim_start_matches('/').to_string(), "/".into()));
    let query = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect();
    (service, rest, query)
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// A crude relevance: shared title words, family names (twice) and the year. Works sharing
/// only the year are not hits.
fn relevance(w: &Work, query: &str) -> usize {
    let q = words(query);
    let title = words(&w.title);
    let families: Vec<String> = w.families().iter().flat_map(|f| words(f)).collect();
    let t = q.iter().filter(|x| title.contains(x)).count();
    let a = q.iter().filter(|x| families.contains(x)).count();
    if t + a == 0 {
        return 0;
    }
    let y = usize::from(q.contains(&w.year.to_string()));
    t + 2 * a + y
}

fn search<'w>(
    works: &'w [Work],
    query: &str,
    limit: usize,
    keep: impl Fn(&Work) -> bool,
) -> Vec<&'w Work> {
    let mut hits: Vec<(usize, usize, &Work)> = works
        .iter()
        .enumerate()
        .filter(|(_, w)| keep(w))
        .map(|(i, w)| (relevance(w, query), i, w))
        .filter(|(r, _, _)| *r > 0)
        .collect();
    hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    hits.into_iter().take(limit).map(|(_, _, w)| w).collect()
}

type Answer = (u16, String, Vec<u8>);

fn json_answer(status: u16, v: &Value) -> Answer {
    (
        status,
        "application/json".into(),
        v.to_string().into_bytes(),
    )
}

fn answer(
    t: &Templates,
    works: &[Work],
    concepts: &[(String, Value)],
    service: &str,
    path: &str,
    query: &HashMap<String, String>,
) -> Answer {
    let by_doi = |doi: &str| {
        let doi = doi.to_lowercase();
        works
            .iter()
            .find(|w| w.doi.as_deref() == Some(doi.as_str()))
    };
    let limit = |k: &str| query.get(k).and_then(|v| v.parse().ok()).unwrap_or(5usize);
    match (service, path) {
        ("crossref", "/works") => {
            let q = query
                .get("query.bibliographic")
                .cloned()
                .unwrap_or_default();
            let hits = search(works, &q, limit("rows"), |w| w.in_crossref);
            let mut v = t.crossref_search.clone();
            v["message"]["items"] = hits
                .iter()
                .map(|w| crossref_message(t, w, Some(10.0)))
                .collect();
            v["message"]["total-results"] = json!(hits.len());
            v["message"]["items-per-page"] = json!(hits.len());
            v["message"]["query"]["search-terms"] = json!(q);
            json_answer(200, &v)
        }
        ("crossref", p) if p.starts_with("/works/") => {
            match by_doi(&p["/works/".len()..]).filter(|w| w.in_crossref) {
                Some(w) => {
                    let mut v = t.crossref_work.clone();
                    v["message"] = crossref_message(t, w, None);
                    json_answer(200, &v)
                }
                None => (404, "text/plain".into(), b"Resource not found.".to_vec()),
            }
        }
        ("unpaywall", p) if p.starts_with("/v2/") => {
            if query.get("email").is_none_or(|e| e.is_empty()) {
                return json_answer(422, &t.unpaywall_422);
            }
            let doi = &p["/v2/".len()..];
            match by_doi(doi).filter(|w| w.unpaywall.is_some()) {
                Some(w) => json_answer(200, &unpaywall(t, w)),
                None => {
                    let mut v = t.unpaywall_404.clone();
                    v["message"] = json!(format!(
                        "'{doi}' is an invalid doi. See https://doi.org/{doi}"
                    ));
                    json_answer(404, &v)
                }
            }
        }
        ("semantic_scholar", "/graph/v1/paper/search") => {
            let q = query.get("query").cloned().unwrap_or_default();
            let hits = search(works, &q, limit("limit"), |w| w.in_s2);
            if hits.is_empty() {
                return json_answer(200, &json!({"total": 0, "offset": 0}));
            }
            let data: Vec<Value> = hits.iter().map(|w| s2_paper(t, w)).collect();
            json_answer(
                200,
                &json!({"total": data.len(), "offset": 0, "data": data}),
            )
        }
        ("semantic_scholar", p) if p.starts_with("/graph/v1/paper/") => {
            let id = &p["/graph/v1/paper/".len()..];
            let hit = if let Some(doi) = id.strip_prefix("DOI:") {
                by_doi(doi)
            } else if let Some(a) = id.strip_prefix("ARXIV:") {
                works.iter().find(|w| w.arxiv.as_deref() == Some(a))
            } else {
                None
            };
            match hit.filter(|w| w.in_s2) {
                Some(w) => json_answer(200, &s2_paper(t, w)),
                None => {
                    let mut v = t.s2_not_found.clone();
                    v["error"] = json!(format!("Paper with id {id} not found"));
                    json_answer(404, &v)
                }
            }
        }
        ("arxiv", "/api/query") => {
            let id = query.get("id_list").cloned().unwrap_or_default();
            let hit = works.iter().find(|w| {
                !id.is_empty() && w.arxiv.as_deref() == Some(id.as_str()) && w.arxiv_pdf.is_some()
            });
            let body = match hit {
                Some(w) => arxiv_feed(w),
                None => t.arxiv_empty.clone(),
            };
            (200, "application/atom+xml".into(), body.into_bytes())
        }
        ("internet_archive", "/advancedsearch.php") => {
            let q = query.get("q").cloned().unwrap_or_default();
            let hits = search(works, &q, limit("rows"), |w| w.ia.is_some());
            let mut v = t.ia_search.clone();
            v["responseHeader"]["params"]["qin"] = json!(q);
            v["response"]["numFound"] = json!(hits.len());
            v["response"]["docs"] = hits
                .iter()
                .map(|w| {
                    json!({"identifier": w.ia.as_ref().unwrap().identifier, "title": w.title,
                           "creator": w.authors.iter().map(|(g, f)| format!("{f}, {g}")).collect::<Vec<_>>(),
                           "year": w.year, "mediatype": "texts"})
                })
                .collect();
            json_answer(200, &v)
        }
        ("internet_archive", p) if p.starts_with("/metadata/") => {
            let id = &p["/metadata/".len()..];
            match works
                .iter()
                .find(|w| w.ia.as_ref().is_some_and(|i| i.identifier == id))
            {
                Some(w) => json_answer(200, &ia_metadata(t, w)),
                None => json_answer(200, &json!({})),
            }
        }
        ("internet_archive", p) if p.starts_with("/download/") => {
            let rest = &p["/download/".len()..];
            let (id, file) = rest.split_once('/').unwrap_or((rest, ""));
            let body = works
                .iter()
                .filter_map(|w| w.ia.as_ref())
                .filter(|i| i.identifier == id)
                .flat_map(|i| i.files.iter())
                .find(|(name, _, _)| name == file)
                .map(|(_, _, b)| b.clone());
            match body {
                Some(b) if file.ends_with(".txt") => (200, "text/plain; charset=utf-8".into(), b),
                Some(b) => (200, "application/pdf".into(), b),
                None => (404, "text/plain".into(), b"Item not found".to_vec()),
            }
        }
        ("robots.txt", _) => (
            200,
            "text/plain".into(),
            b"User-agent: *\nAllow: /\n".to_vec(),
        ),
        ("concept", _) => {
            let q = query.get("q").cloned().unwrap_or_default().to_lowercase();
            let results = concepts
                .iter()
                .find(|(term, _)| q.contains(term.as_str()))
                .map(|(_, r)| r.clone())
                .unwrap_or_else(|| json!([]));
            json_answer(200, &json!({"results": results}))
        }
        _ => (404, "text/plain".into(), b"no such endpoint".to_vec()),
    }
}

fn crossref_message(t: &Templates, w: &Work, score: Option<f64>) -> Value {
    let mut m = t.crossref_work["message"].clone();
    let doi = w.doi.clone().unwrap_or_default();
    m["DOI"] = json!(doi);
    m["title"] = json!([w.title]);
    m["author"] = w
        .authors
        .iter()
        .enumerate()
        .map(|(i, (g, f))| {
            json!({"given": g, "family": f, "sequence": if i == 0 { "first" } else { "additional" }, "affiliation": []})
        })
        .collect();
    m["container-title"] = json!([w.container.clone().unwrap_or_default()]);
    m["short-container-title"] = m["container-title"].clone();
    for k in ["issued", "published", "published-print"] {
        m[k] = json!({"date-parts": [[w.year]]});
    }
    m["created"] = json!({"date-parts": [[w.year, 1, 1]]});
    m["URL"] = json!(format!("http://dx.doi.org/{doi}"));
    match &w.abstract_text {
        Some(a) => {
            m["abstract"] = json!(format!(
                "<jats:title>Abstract</jats:title><jats:p>{a}</jats:p>"
            ))
        }
        None => {
            m.as_object_mut().unwrap().remove("abstract");
        }
    }
    // Only a text-mining license unless the published version is under an open one.
    let mut licenses = vec![json!({"content-version": "tdm", "delay-in-days": 0,
                                   "URL": "https://www.elsevier.com/tdm/userlicense/1.0/"})];
    let mut links = vec![
        json!({"URL": format!("https://api.example.org/tdm/{doi}"), "content-type": "text/xml",
                                "content-version": "vor", "intended-application": "text-mining"}),
    ];
    let mut landing = format!("https://publisher.example.org/{doi}");
    if let Some((lic, page, pdf)) = &w.crossref_open {
        licenses.push(json!({"content-version": "vor", "delay-in-days": 0, "URL": lic}));
        landing = page.clone();
        if let Some(pdf) = pdf {
            links.push(
                json!({"URL": pdf, "content-type": "application/pdf", "content-version": "vor",
                              "intended-application": "text-mining"}),
            );
        }
    }
    m["license"] = json!(licenses);
    m["link"] = json!(links);
    m["resource"] = json!({"primary": {"URL": landing}});
    m.as_object_mut().unwrap().remove("assertion");
    match score {
        Some(s) => m["score"] = json!(s),
        None => m["score"] = json!(1),
    }
    m
}

fn unpaywall(t: &Templates, w: &Work) -> Value {
    let mut v = t.unpaywall.clone();
    let doi = w.doi.clone().unwrap_or_default();
    let locs: Vec<Value> = w
        .unpaywall
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, l)| {
            json!({"endpoint_id": null, "evidence": "open (via page says license)", "host_type": l.host_type,
                   "is_best": i == 0, "license": l.license, "oa_date": format!("{}-01-01", w.year), "pmh_id": null,
                   "repository_institution": null, "updated": "2025-11-18T08:41:10.622540",
                   "url": l.pdf.clone().or_else(|| l.landing.clone()),
                   "url_for_landing_page": l.landing.clone().or_else(|| l.pdf.clone()),
                   "url_for_pdf": l.pdf, "version": l.version})
        })
        .collect();
    v["doi"] = json!(doi);
    v["doi_url"] = json!(format!("https://doi.org/{doi}"));
    v["title"] = json!(w.title);
    v["year"] = json!(w.year);
    v["journal_name"] = json!(w.container);
    v["is_oa"] = json!(!locs.is_empty());
    v["oa_status"] = json!(if locs.is_empty() { "closed" } else { "gold" });
    v["has_repository_copy"] = json!(false);
    v["best_oa_location"] = locs.first().cloned().unwrap_or(Value::Null);
    v["first_oa_location"] = locs.first().cloned().unwrap_or(Value::Null);
    v["oa_locations"] = json!(locs);
    v["published_date"] = json!(format!("{}-01-01", w.year));
    v["z_authors"] = w
        .authors
        .iter()
        .enumerate()
        .map(|(i, (g, f))| json!({"family": f, "given": g, "sequence": if i == 0 { "first" } else { "additional" }}))
        .collect();
    v
}

fn s2_paper(t: &Templates, w: &Work) -> Value {
    let mut v = t.s2_paper.clone();
    let key = w
        .doi
        .clone()
        .or_else(|| w.arxiv.clone())
        .unwrap_or_else(|| w.title.clone());
    v["paperId"] = json!(format!("{:040x}", fnv(&key)));
    let mut ids = json!({"CorpusId": fnv(&key) % 100_000_000});
    if let Some(d) = &w.doi {
        ids["DOI"] = json!(d);
    }
    if let Some(a) = &w.arxiv {
        ids["ArXiv"] = json!(a);
    }
    v["externalIds"] = ids;
    v["title"] = json!(w.title);
    v["abstract"] = json!(w.abstract_text);
    v["year"] = json!(w.year);
    v["venue"] = json!(w.container.clone().unwrap_or_default());
    v["authors"] = w
        .authors
        .iter()
        .map(|(g, f)| json!({"authorId": format!("{}", fnv(f) % 10_000_000), "name": format!("{g} {f}")}))
        .collect();
    v["isOpenAccess"] = json!(w.is_oa());
    v["openAccessPdf"] = match &w.s2_pdf {
        Some((url, status, license)) => json!({"url": url, "status": status, "license": license,
            "disclaimer": "Notice: Paper or abstract available at the URL above."}),
        None => {
            json!({"url": "", "status": null, "license": null, "disclaimer": "Notice: no open copy known."})
        }
    };
    v
}

fn arxiv_feed(w: &Work) -> String {
    let id = w.arxiv.clone().unwrap_or_default();
    let authors: String = w
        .authors
        .iter()
        .map(|(g, f)| format!("    <author>\n      <name>{g} {f}</name>\n    </author>\n"))
        .collect();
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    format!(
        r#"<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">
  <id>https://arxiv.org/api/fake{id}</id>
  <title>arXiv Query: search_query=&amp;id_list={id}&amp;start=0&amp;max_results=10</title>
  <updated>2025-11-12T09:30:11Z</updated>
  <link href="https://arxiv.org/api/query?search_query=&amp;start=0&amp;max_results=10&amp;id_list={id}" type="application/atom+xml"/>
  <opensearch:itemsPerPage>10</opensearch:itemsPerPage>
  <opensearch:totalResults>1</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <entry>
    <id>https://arxiv.org/abs/{id}v1</id>
    <title>{title}</title>
    <updated>{year}-07-12T15:44:08Z</updated>
    <link href="https://arxiv.org/abs/{id}v1" rel="alternate" type="text/html"/>
    <link href="{pdf}" rel="related" type="application/pdf" title="pdf"/>
    <summary>{summary}</summary>
    <category term="q-bio.NC" scheme="http://arxiv.org/schemas/atom"/>
    <published>{year}-07-27T17:45:24Z</published>
    <arxiv:primary_category term="q-bio.NC"/>
{authors}  </entry>
</feed>
"#,
        title = esc(&w.title),
        year = w.year,
        pdf = esc(w.arxiv_pdf.as_deref().unwrap_or("")),
        summary = esc(w.abstract_text.as_deref().unwrap_or("")),
    )
}

fn ia_metadata(t: &Templates, w: &Work) -> Value {
    let item = w.ia.as_ref().expect("an IA item");
    let mut v = t.ia_metadata.clone();
    v["dir"] = json!(format!("/11/items/{}", item.identifier));
    v["files"] = item
        .files
        .iter()
        .map(|(name, format, body)| json!({"name": name, "source": "derivative", "format": format,
                                           "size": body.len().to_string(), "md5": format!("{:032x}", fnv(name))}))
        .collect();
    v["files_count"] = json!(item.files.len());
    let m = &mut v["metadata"];
    m["identifier"] = json!(item.identifier);
    m["title"] = json!(w.title);
    m["creator"] = json!(w
        .authors
        .iter()
        .map(|(g, f)| format!("{f}, {g}"))
        .collect::<Vec<_>>());
    m["date"] = json!(w.year.to_string());
    m["year"] = json!(w.year.to_string());
    m["identifier-access"] = json!(format!(
        "http://www.archive.org/details/{}",
        item.identifier
    ));
    if item.not_in_copyright {
        m["possible-copyright-status"] = json!("NOT_IN_COPYRIGHT");
    } else {
        m.as_object_mut()
            .unwrap()
            .remove("possible-copyright-status");
        m["collection"] = json!(["inlibrary", "printdisabled"]);
    }
    v
}

/// FNV-1a, for stable fake identifiers.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}
