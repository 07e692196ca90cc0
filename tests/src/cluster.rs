//! A private Postgres cluster for one test, for what the shared test cluster cannot do:
//! preloading kerai, restarting the server. Run as the `postgres` user (initdb refuses root),
//! in a directory of its own, on a free port; stopped and removed when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Cluster {
    pub dir: PathBuf,
    pub port: u16,
    bin: PathBuf,
}

fn pg_bin() -> PathBuf {
    let out = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .expect("pg_config --bindir");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// Run `cmd` as the postgres user when this process is root.
fn as_postgres(program: &Path, args: &[&str]) -> std::process::Output {
    let root = std::env::var("USER").map(|u| u == "root").unwrap_or(false)
        || Command::new("id")
            .arg("-u")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
            .unwrap_or(false);
    let mut c = if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    };
    c.args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", program.display()))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Cluster {
    /// initdb, `conf` appended to postgresql.conf, started.
    pub fn start(label: &str, conf: &str) -> Cluster {
        let dir = PathBuf::from(format!("/var/tmp/kerai-e2e-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Command::new("chown")
            .args(["postgres:postgres", dir.to_str().unwrap()])
            .status()
            .unwrap();
        let bin = pg_bin();
        let data = dir.join("data");
        let out = as_postgres(
            &bin.join("initdb"),
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
            ],
        );
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = free_port();
        let mut text = std::fs::read_to_string(data.join("postgresql.conf")).unwrap();
        text.push_str(&format!(
            "\nport = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\n\
             fsync = off\nsynchronous_commit = off\nlog_line_prefix = '%m [%p] %q%u@%d '\n{conf}\n",
            dir.display()
        ));
        std::fs::write(data.join("postgresql.conf"), text).unwrap();
        let c = Cluster { dir, port, bin };
        c.pg_ctl(&["start", "-w", "-t", "60"]);
        c
    }

    fn pg_ctl(&self, args: &[&str]) {
        let data = self.dir.join("data");
        let log = self.dir.join("postgres.log");
        let mut all = vec!["-D", data.to_str().unwrap(), "-l", log.to_str().unwrap()];
        all.extend_from_slice(args);
        let out = as_postgres(&self.bin.join("pg_ctl"), &all);
        assert!(
            out.status.success(),
            "pg_ctl {args:?}: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
    }

    /// A fast restart: clients are disconnected, background workers stopped, then it starts.
    pub fn restart(&self) {
        self.pg_ctl(&["restart", "-m", "fast", "-w", "-t", "60"]);
    }

    pub fn url(&self, db: &str) -> String {
        format!("postgresql://postgres@127.0.0.1:{}/{db}", self.port)
    }

    pub fn client(&self, db: &str) -> postgres::Client {
        postgres::Client::connect(&self.url(db), postgres::NoTls)
            .unwrap_or_else(|e| panic!("connect to {}: {e}", self.url(db)))
    }

    /// The server log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("postgres.log")).unwrap_or_default()
    }

    /// A copy of `file` the postgres user can run (the checkout may be out of its reach).
    pub fn own_copy(&self, file: &Path) -> PathBuf {
        let to = self.dir.join(file.file_name().unwrap());
        std::fs::copy(file, &to).unwrap();
        Command::new("chown")
            .args(["postgres:postgres", to.to_str().unwrap()])
            .status()
            .unwrap();
        to
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let _ = as_postgres(
            &self.bin.join("pg_ctl"),
            &[
                "-D",
                data.to_str().unwrap(),
                "stop",
                "-m",
                "immediate",
                "-w",
            ],
        );
        if std::env::var_os("KERAI_KEEP_TEST_DBS").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
