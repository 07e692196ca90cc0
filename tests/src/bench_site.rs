//! The generated site the crawl benchmarks fetch (`make bench`): `n` pages written as files
//! under a directory and served by nginx (a Debian package) on a free loopback port.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// One page of the generated site: prose, headings and five links to other pages.
pub fn page(i: usize, n: usize) -> String {
    let links: String = (1..=5)
        .map(|k| {
            format!(
                "<li><a href=\"/p/{}\">related page {}</a></li>",
                (i * 7 + k * 131) % n,
                k
            )
        })
        .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Page {i}</title></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/p/0\">Start</a></nav>\
         <main><h1>Generated page {i}</h1>\
         <p>This is page number {i} of the generated benchmark site. It has a paragraph of ordinary prose so that \
         the extractor has real work to do, with a sentence or two about the weather, the library and the canteen.</p>\
         <h2>Details</h2><p>Item {i} was last reviewed by the documentation team; see the related pages below for more.</p>\
         <ul>{links}</ul></main><footer>Generated site footer</footer></body></html>"
    )
}

/// nginx serving a directory on a free port of 127.0.0.1, stopped on drop. Its access log
/// holds one line per request: method, path and status.
pub struct Nginx {
    child: Child,
    pub base: String,
    pub log: PathBuf,
}

impl Nginx {
    pub fn start(dir: &Path) -> Nginx {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free loopback port");
        let d = dir.display();
        let conf = format!(
            "daemon off;\nworker_processes 1;\nuser root;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n  default_type text/html;\n  types {{ application/xml xml; }}\n\
               log_format brief '$request_method $uri $status';\n  access_log {d}/access.log brief;\n\
               client_body_temp_path {d}/tmp; proxy_temp_path {d}/tmp; fastcgi_temp_path {d}/tmp;\n\
               uwsgi_temp_path {d}/tmp; scgi_temp_path {d}/tmp;\n\
               keepalive_requests 100000;\n\
               server {{ listen 127.0.0.1:{port}; root {d}/www; index index.html; }}\n}}\n"
        );
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        std::fs::write(dir.join("nginx.conf"), conf).unwrap();
        let log = dir.join("access.log");
        let _ = std::fs::remove_file(&log);
        let mut child = Command::new("nginx")
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .arg("-p")
            .arg(dir)
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start nginx: {e}; install it with `make setup`"));
        let base = format!("http://127.0.0.1:{port}");
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Nginx { child, base, log };
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("nginx did not listen on port {port}; see {d}/error.log");
    }

    /// The requests logged so far, as `METHOD PATH STATUS`; `clear` starts the log again.
    pub fn requests(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    pub fn clear(&self) {
        // nginx appends (O_APPEND), so a truncated log simply starts again.
        if let Ok(f) = std::fs::OpenOptions::new().write(true).open(&self.log) {
            let _ = f.set_len(0);
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM: the master stops its workers too (SIGKILL would leave them running).
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
    }
}

/// The site's files: `/p/0` … `/p/{n-1}`, an index and a sitemap, under `dir/www`.
pub fn write_site(dir: &Path, n: usize, base: &str) {
    let www = dir.join("www");
    let _ = std::fs::remove_dir_all(&www);
    std::fs::create_dir_all(www.join("p")).unwrap();
    let mut sitemap = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">");
    for i in 0..n {
        std::fs::write(www.join("p").join(i.to_string()), page(i, n)).unwrap();
        sitemap.push_str(&format!("<url><loc>{base}/p/{i}</loc></url>"));
    }
    sitemap.push_str("</urlset>");
    std::fs::write(www.join("sitemap.xml"), sitemap).unwrap();
    std::fs::write(www.join("index.html"), page(0, n)).unwrap();
}
