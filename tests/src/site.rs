//! HTTP fixture sites on 127.0.0.1, served from memory on a free port, the way real servers
//! behave: ETag and Last-Modified on every page, 304 for conditional requests, HEAD, and
//! hostile behaviours on demand (see [`Behavior`]).

use crate::serve::Server;
use flate2::{write::GzEncoder, Compression};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// What a path does.
#[derive(Clone)]
pub enum Behavior {
    /// A normal page (conditional GET supported through its ETag).
    Page {
        content_type: String,
        body: Vec<u8>,
        last_modified: Option<String>,
    },
    /// A fixed status with optional headers and body (404, 500, 401, ...).
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// 302 to another location.
    Redirect(String),
    /// `bytes` bytes of HTML, a few bytes every `every` (a slow-drip server).
    SlowDrip { bytes: usize, every: Duration },
    /// A body of `bytes` zeros; `announce` sends Content-Length, else it is streamed.
    Huge { bytes: u64, announce: bool },
    /// A gzip body that inflates to `inflated` bytes.
    GzipBomb { inflated: u64 },
    /// 429 with Retry-After for the first `times` requests, then the page.
    TooMany {
        times: usize,
        retry_after: u64,
        then: Box<Behavior>,
    },
    /// An endless calendar: every month links to the next and the previous.
    Calendar,
    /// `status` (503, 500, ...) for the first `times` requests, then `then`: a flaky host.
    FailFirst {
        times: usize,
        status: u16,
        then: Box<Behavior>,
    },
    /// A page sent brotli-compressed (`Content-Encoding: br`) to clients whose
    /// `Accept-Encoding` names `br`; others get 406 Not Acceptable.
    Brotli { content_type: String, body: Vec<u8> },
}

pub struct Site {
    pub base: String,
    paths: Arc<Mutex<HashMap<String, Behavior>>>,
    hits: Arc<Mutex<Vec<String>>>,
    counts: Arc<Mutex<HashMap<String, usize>>>,
    /// Serves while the site lives; stops when it is dropped.
    _server: Server,
}

impl Site {
    pub fn start() -> Site {
        Self::start_with_threads(8)
    }

    pub fn start_with_threads(threads: usize) -> Site {
        Self::start_on(0, threads)
    }

    /// A site on `port` of 127.0.0.1 (0: a free one), answering on `threads` threads.
    pub fn start_on(port: u16, threads: usize) -> Site {
        let paths: Arc<Mutex<HashMap<String, Behavior>>> = Arc::default();
        let hits: Arc<Mutex<Vec<String>>> = Arc::default();
        let counts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let mut server = Server::bind_port(port);
        {
            let (paths, hits, counts) = (paths.clone(), hits.clone(), counts.clone());
            let base = server.base.clone();
            server.serve(threads, move |req| {
                let path = req.url().to_string();
                let conditional = req
                    .headers()
                    .iter()
                    .any(|h| h.field.equiv("If-None-Match") || h.field.equiv("If-Modified-Since"));
                hits.lock().unwrap().push(format!(
                    "{} {}{}",
                    req.method(),
                    path,
                    if conditional { " (conditional)" } else { "" }
                ));
                let n = {
                    let mut c = counts.lock().unwrap();
                    let e = c.entry(path.clone()).or_insert(0);
                    *e += 1;
                    *e
                };
                let behavior = paths.lock().unwrap().get(&path).cloned();
                respond(req, behavior, n, &base);
            });
        }
        Site {
            base: server.base.clone(),
            paths,
            hits,
            counts,
            _server: server,
        }
    }

    /// A site of `n` pages `/p/0` … all linked from its index `/`, each with text enough to be
    /// content: `n + 1` pages in all (keep `n` below a target's `trap_limit`, 50).
    pub fn of_pages(n: usize) -> Site {
        let site = Site::start();
        let links: String = (0..n)
            .map(|i| format!("<li><a href=\"/p/{i}\">page {i}</a></li>"))
            .collect();
        site.html("/", &format!("<html><body><main><h1>Index</h1><p>All the pages of this test site are listed here.</p><ul>{links}</ul></main></body></html>"));
        for i in 0..n {
            site.html(
                &format!("/p/{i}"),
                &format!("<html><body><main><h1>Page {i}</h1><p>Page number {i} has its own text, long enough to be content.</p></main></body></html>"),
            );
        }
        site
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn set(&self, path: &str, b: Behavior) {
        self.paths.lock().unwrap().insert(path.to_string(), b);
    }

    pub fn page(&self, path: &str, content_type: &str, body: impl Into<Vec<u8>>) {
        self.set(
            path,
            Behavior::Page {
                content_type: content_type.into(),
                body: body.into(),
                last_modified: None,
            },
        );
    }

    pub fn html(&self, path: &str, body: &str) {
        self.page(path, "text/html; charset=utf-8", body.as_bytes().to_vec());
    }

    pub fn remove(&self, path: &str) {
        self.paths.lock().unwrap().remove(path);
    }

    /// Serve every file under `dir` at its relative path (`index.html` also at the directory);
    /// `__SITE__` in .xml and .txt files becomes this site's base URL.
    pub fn serve_dir(&self, dir: &std::path::Path) {
        for f in files_under(dir) {
            let rel = format!("/{}", f.strip_prefix(dir).unwrap().to_string_lossy());
            let mut body = std::fs::read(&f).unwrap();
            let ext = f
                .extension()
                .map(|e| e.to_string_lossy().to_string())
                .unwrap_or_default();
            if ext == "xml" || ext == "txt" {
                body = String::from_utf8_lossy(&body)
                    .replace("__SITE__", &self.base)
                    .into_bytes();
            }
            let ct = match ext.as_str() {
                "html" => "text/html; charset=utf-8",
                "xml" => "application/xml",
                "txt" => "text/plain; charset=utf-8",
                "pdf" => "application/pdf",
                "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                "epub" => "application/epub+zip",
                "md" => "text/markdown; charset=utf-8",
                "css" => "text/css",
                "js" => "application/javascript",
                "svg" => "image/svg+xml",
                _ => "application/octet-stream",
            };
            if rel.ends_with("/index.html") {
                self.page(rel.trim_end_matches("index.html"), ct, body.clone());
            }
            self.page(&rel, ct, body);
        }
    }

    /// Every request so far, as "METHOD /path" (with " (conditional)" for conditional GETs).
    pub fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }

    pub fn hit_count(&self, path: &str) -> usize {
        self.counts.lock().unwrap().get(path).copied().unwrap_or(0)
    }

    pub fn clear_hits(&self) {
        self.hits.lock().unwrap().clear();
        self.counts.lock().unwrap().clear();
    }
}

/// Every file under `dir`, at any depth.
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn header(k: &str, v: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).expect("valid header")
}

pub fn etag_of(body: &[u8]) -> String {
    format!("\"{}\"", &hex::encode(Sha256::digest(body))[..16])
}

fn respond(req: tiny_http::Request, behavior: Option<Behavior>, n: usize, base: &str) {
    let method_head = *req.method() == tiny_http::Method::Head;
    let if_none_match = req
        .headers()
        .iter()
        .find(|h| h.field.equiv("If-None-Match"))
        .map(|h| h.value.to_string());
    let path = req.url().to_string();
    let result = match behavior {
        None => req.respond(tiny_http::Response::from_string("not found").with_status_code(404)),
        Some(Behavior::Page {
            content_type,
            body,
            last_modified,
        }) => {
            let etag = etag_of(&body);
            if if_none_match.as_deref() == Some(etag.as_str()) {
                let mut r = tiny_http::Response::empty(304);
                r.add_header(header("ETag", &etag));
                req.respond(r)
            } else {
                let len = body.len();
                let mut r = tiny_http::Response::new(
                    200.into(),
                    vec![header("Content-Type", &content_type), header("ETag", &etag)],
                    std::io::Cursor::new(if method_head { Vec::new() } else { body }),
                    Some(len),
                    None,
                );
                if let Some(lm) = last_modified {
                    r.add_header(header("Last-Modified", &lm));
                }
                req.respond(r)
            }
        }
        Some(Behavior::Status {
            status,
            headers,
            body,
        }) => {
            let mut r = tiny_http::Response::from_data(body).with_status_code(status);
            for (k, v) in headers {
                r.add_header(header(&k, &v));
            }
            req.respond(r)
        }
        Some(Behavior::Redirect(to)) => {
            let mut r = tiny_http::Response::empty(302);
            r.add_header(header("Location", &to));
            req.respond(r)
        }
        Some(Behavior::SlowDrip { bytes, every }) => {
            let r = tiny_http::Response::new(
                200.into(),
                vec![header("Content-Type", "text/html")],
                Drip { left: bytes, every },
                Some(bytes),
                None,
            );
            req.respond(r)
        }
        Some(Behavior::Huge { bytes, announce }) => {
            let r = tiny_http::Response::new(
                200.into(),
                vec![header("Content-Type", "text/html")],
                Zeros { left: bytes },
                if announce { Some(bytes as usize) } else { None },
                None,
            );
            // tiny_http switches to chunked encoding above 32 KiB unless told not to.
            req.respond(if announce {
                r.with_chunked_threshold(usize::MAX)
            } else {
                r
            })
        }
        Some(Behavior::GzipBomb { inflated }) => {
            let body = gzip_zeros(inflated);
            let len = body.len();
            let r = tiny_http::Response::new(
                200.into(),
                vec![
                    header("Content-Type", "text/html"),
                    header("Content-Encoding", "gzip"),
                ],
                std::io::Cursor::new(body),
                Some(len),
                None,
            );
            req.respond(r)
        }
        Some(Behavior::TooMany {
            times,
            retry_after,
            then,
        }) => {
            if n <= times {
                let mut r = tiny_http::Response::from_string("slow down").with_status_code(429);
                r.add_header(header("Retry-After", &retry_after.to_string()));
                req.respond(r)
            } else {
                return respond(req, Some(*then), n, base);
            }
        }
        Some(Behavior::FailFirst {
            times,
            status,
            then,
        }) => {
            if n <= times {
                req.respond(
                    tiny_http::Response::from_string("temporarily unavailable")
                        .with_status_code(status),
                )
            } else {
                return respond(req, Some(*then), n - times, base);
            }
        }
        Some(Behavior::Brotli { content_type, body }) => {
            let accepts_br = req
                .headers()
                .iter()
                .filter(|h| h.field.equiv("Accept-Encoding"))
                .any(|h| {
                    h.value
                        .as_str()
                        .split(',')
                        .any(|e| e.trim().starts_with("br"))
                });
            if !accepts_br {
                req.respond(tiny_http::Response::from_string("br only").with_status_code(406))
            } else {
                let compressed = brotli_of(&body);
                let len = compressed.len();
                req.respond(tiny_http::Response::new(
                    200.into(),
                    vec![
                        header("Content-Type", &content_type),
                        header("Content-Encoding", "br"),
                        header("ETag", &etag_of(&body)),
                    ],
                    std::io::Cursor::new(if method_head { Vec::new() } else { compressed }),
                    Some(len),
                    None,
                ))
            }
        }
        Some(Behavior::Calendar) => {
            // /calendar/YYYY/MM: links to the previous and next month, forever.
            let parts: Vec<i64> = path
                .trim_start_matches("/calendar/")
                .split('/')
                .filter_map(|p| p.parse().ok())
                .collect();
            let (y, m) = (
                parts.first().copied().unwrap_or(2026),
                parts.get(1).copied().unwrap_or(1),
            );
            let next = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
            let prev = if m == 1 { (y - 1, 12) } else { (y, m - 1) };
            let body = format!(
                "<html><body><main><h1>Events in {y}-{m:02}</h1><p>No events this month in the calendar of the society.</p>\
                 <a href=\"{base}/calendar/{}/{:02}\">next</a> <a href=\"{base}/calendar/{}/{:02}\">previous</a></main></body></html>",
                next.0, next.1, prev.0, prev.1
            );
            req.respond(
                tiny_http::Response::from_string(body)
                    .with_header(header("Content-Type", "text/html")),
            )
        }
    };
    let _ = result;
}

struct Drip {
    left: usize,
    every: Duration,
}

impl Read for Drip {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Ok(0);
        }
        thread::sleep(self.every);
        let n = self.left.min(8).min(buf.len());
        buf[..n].fill(b'x');
        self.left -= n;
        Ok(n)
    }
}

struct Zeros {
    left: u64,
}

impl Read for Zeros {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (self.left.min(buf.len() as u64)) as usize;
        buf[..n].fill(b'0');
        self.left -= n as u64;
        Ok(n)
    }
}

/// gzip of `n` zero bytes (computed once per size).
fn gzip_zeros(n: u64) -> Vec<u8> {
    static CACHE: Mutex<Option<(u64, Vec<u8>)>> = Mutex::new(None);
    let mut c = CACHE.lock().unwrap();
    if let Some((size, body)) = c.as_ref() {
        if *size == n {
            return body.clone();
        }
    }
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    let chunk = vec![0u8; 1 << 20];
    let mut left = n;
    while left > 0 {
        let k = left.min(chunk.len() as u64) as usize;
        enc.write_all(&chunk[..k]).unwrap();
        left -= k as u64;
    }
    let body = enc.finish().unwrap();
    *c = Some((n, body.clone()));
    body
}

/// `body` compressed with brotli (quality 5).
pub fn brotli_of(body: &[u8]) -> Vec<u8> {
    let mut w = brotli::CompressorWriter::new(Vec::new(), 4096, 5, 22);
    w.write_all(body).expect("brotli into memory");
    w.into_inner()
}
