//! HTTP fixture sites on 127.0.0.1, served from memory on a free port.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::thread;

#[derive(Clone)]
pub struct Page {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    pub headers: Vec<(String, String)>,
}

/// A site: path → page. Pages can be replaced while it runs (to test change detection).
pub struct Site {
    pub base: String,
    pages: Arc<Mutex<HashMap<String, Page>>>,
    hits: Arc<Mutex<Vec<String>>>,
    server: Arc<tiny_http::Server>,
}

impl Site {
    pub fn start() -> Site {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1:0"));
        let port = server.server_addr().to_ip().expect("ip address").port();
        let pages: Arc<Mutex<HashMap<String, Page>>> = Arc::default();
        let hits: Arc<Mutex<Vec<String>>> = Arc::default();
        for _ in 0..4 {
            let (server, pages, hits) = (server.clone(), pages.clone(), hits.clone());
            thread::spawn(move || {
                for req in server.incoming_requests() {
                    let path = req.url().to_string();
                    hits.lock()
                        .unwrap()
                        .push(format!("{} {}", req.method(), path));
                    let page = pages.lock().unwrap().get(&path).cloned();
                    let resp = match page {
                        Some(p) => {
                            let mut r =
                                tiny_http::Response::from_data(p.body).with_status_code(p.status);
                            r.add_header(header("Content-Type", &p.content_type));
                            for (k, v) in &p.headers {
                                r.add_header(header(k, v));
                            }
                            r
                        }
                        None => tiny_http::Response::from_string("not found").with_status_code(404),
                    };
                    let _ = req.respond(resp);
                }
            });
        }
        Site {
            base: format!("http://127.0.0.1:{port}"),
            pages,
            hits,
            server,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn page(&self, path: &str, content_type: &str, body: impl Into<Vec<u8>>) {
        self.put(
            path,
            Page {
                status: 200,
                content_type: content_type.into(),
                body: body.into(),
                headers: vec![],
            },
        );
    }

    pub fn put(&self, path: &str, page: Page) {
        self.pages.lock().unwrap().insert(path.to_string(), page);
    }

    pub fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

fn header(k: &str, v: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).expect("valid header")
}
