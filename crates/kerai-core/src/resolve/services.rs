//! Which scholarly services kerai asks, where they live, how kerai introduces itself to them and
//! how often it may ask. The fetcher does the HTTP; this is the data it needs to do it politely.
//!
//! The public base URLs and rate limits are written once, in [`DEFAULTS`]; everything else
//! (tests' fake servers, a mirror, a proxy) overrides them through [`Services::with_base`],
//! [`Services::all_at`] or [`Services::from_config`].

use std::time::Duration;

use serde_json::Value;

use super::error::ScholarlyError;
use super::service::Service;

/// How often a service may be asked: `requests` per `per`, at most `concurrency` at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub requests: u32,
    pub per: Duration,
    pub concurrency: u32,
}

impl RateLimit {
    /// The smallest gap between two requests that keeps within the limit (`per / requests`).
    pub fn min_interval(&self) -> Duration {
        self.per / self.requests.max(1)
    }

    /// `rps` requests per second (fractions allowed: 0.2 is one request every 5 s), one at a
    /// time; 0 means no pacing at all (for local mirrors and test servers). `None` for a
    /// negative or non-finite rate.
    pub fn per_second(rps: f64) -> Option<RateLimit> {
        if !rps.is_finite() || rps < 0.0 {
            return None;
        }
        if rps == 0.0 {
            return Some(RateLimit {
                requests: 1,
                per: Duration::ZERO,
                concurrency: 1,
            });
        }
        // 1000 requests per (1000 / rps) seconds keeps millisecond precision for slow rates.
        Some(RateLimit {
            requests: 1000,
            per: Duration::from_secs_f64(1000.0 / rps),
            concurrency: 1,
        })
    }
}

const fn limit(requests: u32, per_secs: u64, concurrency: u32) -> RateLimit {
    RateLimit {
        requests,
        per: Duration::from_secs(per_secs),
        concurrency,
    }
}

/// The public services and their published limits — the only place they are written.
///
/// | service | base URL | limit | source |
/// |---|---|---|---|
/// | CrossRef | `https://api.crossref.org` | 10/s, 3 at once | below the documented polite pool (50/s, 5 at once), which Crossref revised downwards on 2025-12-01 |
/// | Unpaywall | `https://api.unpaywall.org` | 100 000/day | API terms |
/// | Semantic Scholar | `https://api.semanticscholar.org` | 100 per 5 min | unauthenticated shared pool |
/// | arXiv | `https://export.arxiv.org` | 1 per 3 s, one connection | API terms of use |
/// | Internet Archive | `https://archive.org` | 1/s (kerai's choice) | no published limit ("generous") |
pub const DEFAULTS: [(Service, &str, RateLimit); 5] = [
    (
        Service::Crossref,
        "https://api.crossref.org",
        limit(10, 1, 3),
    ),
    (
        Service::Unpaywall,
        "https://api.unpaywall.org",
        limit(100_000, 86_400, 1),
    ),
    (
        Service::SemanticScholar,
        "https://api.semanticscholar.org",
        limit(100, 300, 1),
    ),
    (Service::Arxiv, "https://export.arxiv.org", limit(1, 3, 1)),
    (
        Service::InternetArchive,
        "https://archive.org",
        limit(1, 1, 1),
    ),
];

/// The limit kerai keeps to with its own concept-search endpoint unless told otherwise.
pub const CONCEPT_RATE_LIMIT: RateLimit = limit(1, 1, 1);

/// Where one service lives and how often it may be asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Base URL without a trailing slash, e.g. `https://api.crossref.org` or
    /// `http://127.0.0.1:8080/crossref`; request paths are appended to it.
    pub base_url: String,
    pub rate: RateLimit,
}

impl Endpoint {
    fn new(base_url: &str, rate: RateLimit) -> Endpoint {
        Endpoint {
            base_url: base_url.trim().trim_end_matches('/').to_string(),
            rate,
        }
    }
}

/// The services kerai uses, where they are, and how kerai identifies itself to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Services {
    pub crossref: Endpoint,
    pub unpaywall: Endpoint,
    pub semantic_scholar: Endpoint,
    pub arxiv: Endpoint,
    pub internet_archive: Endpoint,
    /// The concept-search endpoint (the whole URL, queried as `GET {url}?q=...`); `None` = off.
    pub concept: Option<Endpoint>,
    /// The contact address CrossRef (`mailto=`) and Unpaywall (`email=`, required) ask for; it
    /// also goes into the User-Agent as `mailto:`.
    pub contact_email: Option<String>,
    /// The product part of the User-Agent, e.g. `kerai/0.1.0 (+https://host/kerai)`.
    pub user_agent: String,
    /// A Semantic Scholar API key, sent as `x-api-key` (raises the limit to 1 request/s).
    pub semantic_scholar_api_key: Option<String>,
}

impl Default for Services {
    fn default() -> Self {
        let at = |s: Service| {
            let (_, base, rate) = DEFAULTS
                .iter()
                .find(|(d, _, _)| *d == s)
                .expect("DEFAULTS lists every public service");
            Endpoint::new(base, *rate)
        };
        Services {
            crossref: at(Service::Crossref),
            unpaywall: at(Service::Unpaywall),
            semantic_scholar: at(Service::SemanticScholar),
            arxiv: at(Service::Arxiv),
            internet_archive: at(Service::InternetArchive),
            concept: None,
            contact_email: None,
            user_agent: format!("kerai/{}", crate::VERSION),
            semantic_scholar_api_key: None,
        }
    }
}

impl Services {
    /// The public services, with `contact_email` for the polite pools.
    pub fn with_contact(email: &str) -> Services {
        Services {
            contact_email: Some(email.trim().to_string()),
            ..Services::default()
        }
    }

    /// Every service under one server, at `{base}/{service name}` (`{base}/crossref`,
    /// `{base}/semantic_scholar`, ..., `{base}/concept`): one fake server for tests.
    pub fn all_at(base: &str) -> Services {
        let base = base.trim().trim_end_matches('/');
        let mut s = Services::default();
        for service in Service::ALL {
            s = s.with_base(service, &format!("{base}/{}", service.name()));
        }
        s
    }

    /// The same services with `service` at `base_url` (keeping its rate limit).
    pub fn with_base(mut self, service: Service, base_url: &str) -> Services {
        match self.endpoint_mut(service) {
            Some(e) => *e = Endpoint::new(base_url, e.rate),
            None => self.concept = Some(Endpoint::new(base_url, CONCEPT_RATE_LIMIT)),
        }
        self
    }

    /// From the crawler agent's config (a JSON object). Recognised keys, all optional:
    /// `contact_email`, `user_agent`, `semantic_scholar_api_key`, one base URL per service
    /// (`crossref_url`, `unpaywall_url`, `semantic_scholar_url`, `arxiv_url`,
    /// `internet_archive_url`, `concept_search_url`) and one rate per service in requests per
    /// second (`crossref_rps`, `unpaywall_rps`, `semantic_scholar_rps`, `arxiv_rps`,
    /// `internet_archive_rps`, `concept_search_rps`; 0 = unpaced). Missing keys keep the
    /// defaults; a rate that is not a number of 0 or more is ignored.
    pub fn from_config(cfg: &Value) -> Services {
        let text = |k: &str| {
            cfg.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let mut s = Services::default();
        for service in Service::ALL {
            if let Some(url) = text(service.config_key()) {
                s = s.with_base(service, &url);
            }
            let rate = cfg
                .get(service.rate_key())
                .and_then(Value::as_f64)
                .and_then(RateLimit::per_second);
            if let (Some(rate), Some(e)) = (rate, s.endpoint_mut(service)) {
                e.rate = rate;
            }
        }
        s.contact_email = text("contact_email");
        if let Some(ua) = text("user_agent") {
            s.user_agent = ua;
        }
        s.semantic_scholar_api_key = text("semantic_scholar_api_key");
        s
    }

    /// Where `service` is, or `None` for the concept search when it is not configured.
    pub fn endpoint(&self, service: Service) -> Option<&Endpoint> {
        match service {
            Service::Crossref => Some(&self.crossref),
            Service::Unpaywall => Some(&self.unpaywall),
            Service::SemanticScholar => Some(&self.semantic_scholar),
            Service::Arxiv => Some(&self.arxiv),
            Service::InternetArchive => Some(&self.internet_archive),
            Service::Concept => self.concept.as_ref(),
        }
    }

    fn endpoint_mut(&mut self, service: Service) -> Option<&mut Endpoint> {
        match service {
            Service::Crossref => Some(&mut self.crossref),
            Service::Unpaywall => Some(&mut self.unpaywall),
            Service::SemanticScholar => Some(&mut self.semantic_scholar),
            Service::Arxiv => Some(&mut self.arxiv),
            Service::InternetArchive => Some(&mut self.internet_archive),
            Service::Concept => self.concept.as_mut(),
        }
    }

    /// The smallest gap the fetcher keeps between two requests to `service`.
    pub fn min_interval(&self, service: Service) -> Duration {
        self.endpoint(service)
            .map_or(CONCEPT_RATE_LIMIT, |e| e.rate)
            .min_interval()
    }

    /// Can `service` be used as configured? Unpaywall refuses requests without a contact
    /// e-mail (HTTP 422) and the concept search has no default endpoint.
    pub fn check(&self, service: Service) -> Result<(), ScholarlyError> {
        match service {
            Service::Unpaywall if self.contact_email.is_none() => {
                Err(ScholarlyError::not_configured(
                    service,
                    "Unpaywall requires a contact e-mail; set contact_email in the crawler config",
                ))
            }
            Service::Concept if self.concept.is_none() => Err(ScholarlyError::not_configured(
                service,
                "concept search is off; set concept_search_url in the crawler config",
            )),
            _ => Ok(()),
        }
    }

    /// The User-Agent for every scholarly request: [`Services::user_agent`] with
    /// `mailto:<contact_email>` added (CrossRef's polite-pool form), e.g.
    /// `kerai/0.1.0 (mailto:crawler@example.org)` or
    /// `kerai/0.1.0 (+https://host/kerai; mailto:crawler@example.org)`.
    pub fn user_agent(&self) -> String {
        let ua = self.user_agent.trim();
        match &self.contact_email {
            Some(email) if !ua.contains("mailto:") => {
                if let Some(open) = ua.strip_suffix(')').filter(|u| u.contains('(')) {
                    format!("{open}; mailto:{email})")
                } else {
                    format!("{ua} (mailto:{email})")
                }
            }
            _ => ua.to_string(),
        }
    }

    /// The headers to send to `service`: the User-Agent always, `x-api-key` to Semantic
    /// Scholar when a key is set, and `Accept` naming the format the parser reads.
    pub fn headers(&self, service: Service) -> Vec<(&'static str, String)> {
        let accept = match service {
            Service::Arxiv => "application/atom+xml",
            _ => "application/json",
        };
        let mut h = vec![
            ("User-Agent", self.user_agent()),
            ("Accept", accept.to_string()),
        ];
        if let (Service::SemanticScholar, Some(key)) = (service, &self.semantic_scholar_api_key) {
            h.push(("x-api-key", key.clone()));
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_the_public_services() {
        let s = Services::default();
        assert_eq!(s.crossref.base_url, "https://api.crossref.org");
        assert_eq!(s.unpaywall.base_url, "https://api.unpaywall.org");
        assert_eq!(
            s.semantic_scholar.base_url,
            "https://api.semanticscholar.org"
        );
        assert_eq!(s.arxiv.base_url, "https://export.arxiv.org");
        assert_eq!(s.internet_archive.base_url, "https://archive.org");
        assert!(s.concept.is_none());
        assert_eq!(s.min_interval(Service::Arxiv), Duration::from_secs(3));
        assert_eq!(
            s.min_interval(Service::SemanticScholar),
            Duration::from_secs(3)
        );
        assert_eq!(
            s.min_interval(Service::Crossref),
            Duration::from_millis(100)
        );
        assert_eq!(
            s.min_interval(Service::Unpaywall),
            Duration::from_millis(864)
        );
    }

    #[test]
    fn overrides_keep_limits_and_drop_trailing_slashes() {
        let s = Services::all_at("http://127.0.0.1:9000/");
        assert_eq!(s.crossref.base_url, "http://127.0.0.1:9000/crossref");
        assert_eq!(
            s.concept.as_ref().unwrap().base_url,
            "http://127.0.0.1:9000/concept"
        );
        assert_eq!(s.arxiv.rate, limit(1, 3, 1));
        let s = Services::from_config(&json!({
            "arxiv_url": "http://localhost:1/arxiv/",
            "contact_email": "crawler@example.org",
            "concept_search_url": "http://localhost:1/search",
            "semantic_scholar_api_key": "k"
        }));
        assert_eq!(s.arxiv.base_url, "http://localhost:1/arxiv");
        assert_eq!(s.crossref.base_url, "https://api.crossref.org");
        assert_eq!(s.contact_email.as_deref(), Some("crawler@example.org"));
        assert!(s.check(Service::Concept).is_ok());
        assert!(s.check(Service::Unpaywall).is_ok());
        assert!(s
            .headers(Service::SemanticScholar)
            .contains(&("x-api-key", "k".to_string())));
        assert!(!s
            .headers(Service::Crossref)
            .iter()
            .any(|(k, _)| *k == "x-api-key"));
    }

    #[test]
    fn rates_from_config() {
        let s = Services::from_config(&json!({
            "crossref_rps": 50, "arxiv_rps": 0.2, "unpaywall_rps": 0,
            "semantic_scholar_rps": -1, "internet_archive_rps": "fast",
            "concept_search_url": "http://localhost:1/search", "concept_search_rps": 4
        }));
        assert_eq!(s.min_interval(Service::Crossref), Duration::from_millis(20));
        assert_eq!(s.min_interval(Service::Arxiv), Duration::from_secs(5));
        assert_eq!(s.min_interval(Service::Unpaywall), Duration::ZERO);
        // Unusable rates keep the published limits.
        assert_eq!(
            s.min_interval(Service::SemanticScholar),
            Duration::from_secs(3)
        );
        assert_eq!(
            s.min_interval(Service::InternetArchive),
            Duration::from_secs(1)
        );
        assert_eq!(s.min_interval(Service::Concept), Duration::from_millis(250));
    }

    #[test]
    fn identification() {
        let s = Services::default();
        let e = s.check(Service::Unpaywall).unwrap_err();
        assert!(e.to_string().contains("contact_email"), "{e}");
        assert!(s
            .check(Service::Concept)
            .unwrap_err()
            .to_string()
            .contains("concept_search_url"));
        assert_eq!(s.user_agent(), format!("kerai/{}", crate::VERSION));
        let s = Services::with_contact("crawler@example.org");
        assert_eq!(
            s.user_agent(),
            format!("kerai/{} (mailto:crawler@example.org)", crate::VERSION)
        );
        let s = Services {
            user_agent: "kerai/0.1 (+https://h/kerai)".into(),
            ..Services::with_contact("c@e.org")
        };
        assert_eq!(
            s.user_agent(),
            "kerai/0.1 (+https://h/kerai; mailto:c@e.org)"
        );
        assert_eq!(
            Service::from_name("semantic_scholar"),
            Some(Service::SemanticScholar)
        );
    }
}
