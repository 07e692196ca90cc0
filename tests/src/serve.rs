//! Loopback HTTP servers for the fixture sites and the fakes of external services: bound to an
//! ephemeral (or a given) port on 127.0.0.1, requests handed to worker threads, stopped when dropped.

use std::sync::Arc;
use std::thread;

pub struct Server {
    /// `http://127.0.0.1:PORT`
    pub base: String,
    inner: Arc<tiny_http::Server>,
    threads: usize,
}

impl Server {
    /// Bind a free port (nothing is served until [`Server::serve`]).
    pub fn bind() -> Server {
        Self::bind_port(0)
    }

    /// Bind `port` on 127.0.0.1 (0: a free one).
    pub fn bind_port(port: u16) -> Server {
        let inner = Arc::new(
            tiny_http::Server::http(("127.0.0.1", port))
                .unwrap_or_else(|e| panic!("cannot bind 127.0.0.1:{port}: {e}")),
        );
        let port = inner.server_addr().to_ip().expect("an IP address").port();
        Server {
            base: format!("http://127.0.0.1:{port}"),
            inner,
            threads: 0,
        }
    }

    /// Answer requests with `handle` on `threads` worker threads.
    pub fn serve(
        &mut self,
        threads: usize,
        handle: impl Fn(tiny_http::Request) + Send + Sync + 'static,
    ) {
        let handle = Arc::new(handle);
        for _ in 0..threads {
            let (server, handle) = (self.inner.clone(), handle.clone());
            thread::spawn(move || {
                for req in server.incoming_requests() {
                    handle(req);
                }
            });
        }
        self.threads += threads;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        for _ in 0..self.threads.max(1) {
            self.inner.unblock();
        }
    }
}
