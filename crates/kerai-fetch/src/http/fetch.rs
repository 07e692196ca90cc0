use super::auth::Auth;
use super::guard::{self, GuardedClients};
use super::parse_retry_after;
use futures_util::StreamExt;
use kerai_core::ops::ssrf::AddressGuard;
use kerai_core::{ErrorKind, ResourceError};
use reqwest::header::{
    HeaderMap, CONTENT_LENGTH, CONTENT_TYPE, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED,
    LOCATION, RETRY_AFTER,
};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

#[derive(Debug, Clone)]
pub struct HttpSettings {
    pub user_agent: String,
    pub connect_timeout: Duration,
    /// The whole exchange, body included.
    pub timeout: Duration,
    pub max_size: u64,
    pub max_redirects: u32,
    /// Which non-public addresses may be reached (the SSRF guard).
    pub guard: Arc<AddressGuard>,
    /// The target's credentials, sent only to its own hosts.
    pub auth: Option<Arc<Auth>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
}

#[derive(Debug, Clone)]
pub struct Request {
    pub url: String,
    pub method: Method,
    /// Validators from the last scrape, for a conditional request.
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Extra headers (an API's User-Agent or key).
    pub headers: Vec<(String, String)>,
    /// Log in to a form-protected target first when there is no session (pages); robots.txt
    /// and sitemaps are asked with the session there is, or none.
    pub log_in: bool,
}

impl Request {
    pub fn get(url: impl Into<String>) -> Request {
        Request {
            url: url.into(),
            method: Method::Get,
            etag: None,
            last_modified: None,
            headers: Vec::new(),
            log_in: true,
        }
    }

    /// A GET that never starts a login (robots.txt, sitemaps).
    pub fn get_without_login(url: impl Into<String>) -> Request {
        Request {
            log_in: false,
            ..Request::get(url)
        }
    }
}

#[derive(Debug, Clone)]
pub struct Response {
    pub final_url: String,
    pub status: u16,
    pub content_type: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub content_length: Option<u64>,
    pub body: Vec<u8>,
    pub redirects: Vec<String>,
    pub elapsed: Duration,
}

#[derive(Debug)]
pub enum Fetch {
    /// 2xx, with the body (empty for HEAD).
    Ok(Response),
    /// 304: the stored version is current.
    NotModified(Response),
    /// 429 or 503: come back later (after `retry_after` when the server said).
    Retry {
        status: u16,
        retry_after: Option<Duration>,
        final_url: String,
    },
    /// Anything else, in the catalogue's words; with the HTTP status when there was one.
    Failed {
        error: ResourceError,
        status: Option<u16>,
    },
}

pub struct Http {
    clients: GuardedClients,
    settings: HttpSettings,
    /// One login at a time.
    login: tokio::sync::Mutex<()>,
}

impl Http {
    pub fn new(settings: HttpSettings) -> Result<Http, String> {
        let clients = GuardedClients::build(settings.guard.clone(), |b| {
            b.redirect(reqwest::redirect::Policy::none())
                .user_agent(settings.user_agent.clone())
                .connect_timeout(settings.connect_timeout)
                .gzip(true)
                .brotli(true)
                .deflate(true)
                .pool_max_idle_per_host(16)
                .tcp_nodelay(true)
        })?;
        Ok(Http {
            clients,
            settings,
            login: tokio::sync::Mutex::new(()),
        })
    }

    /// Why the run must stop: logging in to the target failed again and again.
    pub fn auth_gave_up(&self) -> Option<String> {
        self.settings.auth.as_ref().and_then(|a| a.gave_up())
    }

    /// The credentials for a request to `url`: none for other hosts; for a login form, logged
    /// in first when there is no session. An error fails the page (the login was refused).
    async fn credentials(
        &self,
        page: &str,
        url: &Url,
        log_in: bool,
    ) -> Result<Option<super::auth::Credentials>, ResourceError> {
        let Some(auth) = self.settings.auth.as_ref().filter(|a| a.applies(url)) else {
            return Ok(None);
        };
        let refused = |why: String| ResourceError::new(ErrorKind::AccessRestricted, page, why);
        if let Some(why) = auth.gave_up() {
            return Err(refused(why));
        }
        if let Some(c) = auth.credentials() {
            return Ok(Some(c));
        }
        if !log_in {
            return Ok(None);
        }
        let _one = self.login.lock().await;
        if let Some(c) = auth.credentials() {
            return Ok(Some(c));
        }
        let Some((login_url, fields)) = auth.login() else {
            return Ok(None);
        };
        let client = self
            .clients
            .pick(login_url)
            .map_err(|r| guard::refused(page, &r))?;
        let body: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields.iter())
            .finish();
        let resp = client
            .post(login_url.clone())
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|e| transport_error(login_url.as_str(), &e))?;
        let status = resp.status().as_u16();
        let location =
            header(resp.headers(), LOCATION.as_str()).and_then(|l| login_url.join(&l).ok());
        auth.logged_in(status, resp.headers(), location.as_ref())
            .map_err(refused)?;
        Ok(auth.credentials())
    }

    pub fn settings(&self) -> &HttpSettings {
        &self.settings
    }

    /// Fetch `req`, following redirects. `gate` decides each hop (robots.txt, scope); a refusal
    /// ends the fetch with the gate's error.
    pub async fn fetch(
        &self,
        req: &Request,
        gate: &(dyn Fn(&Url) -> Result<(), ResourceError> + Sync),
    ) -> Fetch {
        let started = Instant::now();
        match tokio::time::timeout(self.settings.timeout, self.fetch_inner(req, gate, started))
            .await
        {
            Ok(f) => f,
            Err(_) => Fetch::Failed {
                error: ResourceError::new(
                    ErrorKind::Timeout,
                    &req.url,
                    format!("no complete response within {:?}", self.settings.timeout),
                ),
                status: None,
            },
        }
    }

    async fn fetch_inner(
        &self,
        req: &Request,
        gate: &(dyn Fn(&Url) -> Result<(), ResourceError> + Sync),
        started: Instant,
    ) -> Fetch {
        let mut url = match Url::parse(&req.url) {
            Ok(u) => u,
            Err(e) => {
                return Fetch::Failed {
                    error: ResourceError::new(
                        ErrorKind::Unreachable,
                        &req.url,
                        format!("invalid URL: {e}"),
                    ),
                    status: None,
                }
            }
        };
        let mut seen: HashSet<String> = HashSet::new();
        let mut redirects = Vec::new();
        let mut logged_in_again = false;
        loop {
            if let Err(e) = gate(&url) {
                return Fetch::Failed {
                    error: e,
                    status: None,
                };
            }
            seen.insert(url.as_str().to_string());
            let client = match self.clients.pick(&url) {
                Ok(c) => c,
                Err(r) => {
                    return Fetch::Failed {
                        error: guard::refused(&req.url, &r),
                        status: None,
                    }
                }
            };
            let mut rb = match req.method {
                Method::Get => client.get(url.clone()),
                Method::Head => client.head(url.clone()),
            };
            if let Some(e) = &req.etag {
                rb = rb.header(IF_NONE_MATCH, e);
            }
            if let Some(lm) = &req.last_modified {
                rb = rb.header(IF_MODIFIED_SINCE, lm);
            }
            for (k, v) in &req.headers {
                rb = rb.header(k.as_str(), v.as_str());
            }
            let credentials = match self.credentials(&req.url, &url, req.log_in).await {
                Ok(c) => c,
                Err(error) => {
                    return Fetch::Failed {
                        error,
                        status: None,
                    }
                }
            };
            let generation = credentials.as_ref().and_then(|c| c.generation);
            for (k, v) in credentials.iter().flat_map(|c| c.headers.iter()) {
                rb = rb.header(k.as_str(), v.as_str());
            }
            let resp = match rb.send().await {
                Ok(r) => r,
                Err(e) => {
                    let error = match guard::refusal_in(&e, &url) {
                        Some(r) => guard::refused(&req.url, &r),
                        None => transport_error(&req.url, &e),
                    };
                    return Fetch::Failed {
                        error,
                        status: None,
                    };
                }
            };
            let status = resp.status().as_u16();
            let headers = resp.headers().clone();
            // A login session refused (401, or sent back to the login page): log in again
            // once and ask again.
            if let Some(auth) = self.settings.auth.as_ref().filter(|_| generation.is_some()) {
                let to_login = (300..400).contains(&status)
                    && header(&headers, LOCATION.as_str())
                        .and_then(|l| url.join(&l).ok())
                        .is_some_and(|l| auth.is_login_page(&l));
                if status == 401 || to_login {
                    auth.refused(generation);
                    if !logged_in_again {
                        logged_in_again = true;
                        seen.remove(url.as_str());
                        continue;
                    }
                    return Fetch::Failed {
                        error: ResourceError::new(
                            ErrorKind::AccessRestricted,
                            &req.url,
                            format!("HTTP {status}: the page refused a fresh login session"),
                        ),
                        status: Some(status),
                    };
                }
                if (200..300).contains(&status) || status == 304 {
                    auth.opened(generation);
                }
            }
            if (300..400).contains(&status) && status != 304 {
                let Some(next) =
                    header(&headers, LOCATION.as_str()).and_then(|l| url.join(&l).ok())
                else {
                    return Fetch::Failed {
                        error: ResourceError::new(
                            ErrorKind::Unreachable,
                            &req.url,
                            format!("HTTP {status} without a usable Location"),
                        ),
                        status: Some(status),
                    };
                };
                redirects.push(next.as_str().to_string());
                if seen.contains(next.as_str()) {
                    return Fetch::Failed {
                        error: ResourceError::new(
                            ErrorKind::RedirectLoop,
                            &req.url,
                            format!("redirects back to {next}"),
                        ),
                        status: Some(status),
                    };
                }
                if redirects.len() as u32 > self.settings.max_redirects {
                    return Fetch::Failed {
                        error: ResourceError::new(
                            ErrorKind::RedirectLoop,
                            &req.url,
                            format!("more than {} redirects", self.settings.max_redirects),
                        ),
                        status: Some(status),
                    };
                }
                url = next;
                continue;
            }
            let mut out = Response {
                final_url: url.as_str().to_string(),
                status,
                content_type: header(&headers, CONTENT_TYPE.as_str()),
                etag: header(&headers, ETAG.as_str()),
                last_modified: header(&headers, LAST_MODIFIED.as_str()),
                content_length: header(&headers, CONTENT_LENGTH.as_str())
                    .and_then(|v| v.parse().ok()),
                body: Vec::new(),
                redirects,
                elapsed: Duration::ZERO,
            };
            return match status {
                304 => {
                    out.elapsed = started.elapsed();
                    Fetch::NotModified(out)
                }
                429 | 503 => Fetch::Retry {
                    status,
                    retry_after: header(&headers, RETRY_AFTER.as_str())
                        .and_then(|v| parse_retry_after(&v, chrono::Utc::now())),
                    final_url: out.final_url,
                },
                401 | 403 | 407 => Fetch::Failed {
                    error: ResourceError::new(
                        ErrorKind::AccessRestricted,
                        &req.url,
                        match self.settings.auth.as_ref().filter(|a| a.applies(&url)) {
                            Some(a) => format!("HTTP {status}: {}", a.refused_with()),
                            None => format!("HTTP {status}"),
                        },
                    ),
                    status: Some(status),
                },
                200..=299 => {
                    if req.method == Method::Head {
                        out.elapsed = started.elapsed();
                        return Fetch::Ok(out);
                    }
                    if let Some(len) = out.content_length.filter(|l| *l > self.settings.max_size) {
                        return Fetch::Failed {
                            error: ResourceError::too_large(
                                &req.url,
                                format!(
                                    "{len} bytes announced, limit {} bytes (max_size)",
                                    self.settings.max_size
                                ),
                            ),
                            status: Some(status),
                        };
                    }
                    match self.read_body(&req.url, resp).await {
                        Ok(body) => {
                            out.body = body;
                            out.elapsed = started.elapsed();
                            Fetch::Ok(out)
                        }
                        Err(error) => Fetch::Failed {
                            error,
                            status: Some(status),
                        },
                    }
                }
                _ => Fetch::Failed {
                    error: ResourceError::new(
                        ErrorKind::Unreachable,
                        &req.url,
                        format!("HTTP {status}"),
                    ),
                    status: Some(status),
                },
            };
        }
    }

    /// The body, decompressed, cut off (and refused) past max_size.
    async fn read_body(
        &self,
        url: &str,
        resp: reqwest::Response,
    ) -> Result<Vec<u8>, ResourceError> {
        let max = self.settings.max_size;
        let mut body: Vec<u8> =
            Vec::with_capacity(resp.content_length().unwrap_or(0).min(max).min(8 << 20) as usize);
        let mut stream = resp.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| transport_error(url, &e))?;
            if body.len() as u64 + chunk.len() as u64 > max {
                return Err(ResourceError::too_large(
                    url,
                    format!("body exceeds {max} bytes (max_size); download aborted"),
                ));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// A transport failure in the catalogue's words.
fn transport_error(url: &str, e: &reqwest::Error) -> ResourceError {
    if e.is_timeout() {
        return ResourceError::new(ErrorKind::Timeout, url, "the server stopped answering");
    }
    let mut detail = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        detail = s.to_string();
        src = s.source();
    }
    if e.is_decode() || e.is_body() {
        return ResourceError::new(
            ErrorKind::Unreachable,
            url,
            format!("broken response body: {detail}"),
        );
    }
    ResourceError::new(ErrorKind::Unreachable, url, detail)
}
