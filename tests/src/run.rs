//! Running the `kerai` CLI as a separate process.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// stdout parsed as JSON (for `--format json`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// The `kerai` binary `make test` built (`KERAI_BIN`), or target/debug/kerai.
pub fn bin() -> PathBuf {
    std::env::var_os("KERAI_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/debug/kerai"))
}

/// `database_url` with login `role` instead of the superuser the tests administer the
/// cluster as.
pub fn as_role(database_url: &str, role: &str) -> String {
    database_url.replacen(
        "postgresql://postgres@",
        &format!("postgresql://{role}@"),
        1,
    )
}

/// `database_url` with the CLI's login role ([`crate::db::CLI_ROLE`]).
pub fn as_cli_role(database_url: &str) -> String {
    as_role(database_url, crate::db::CLI_ROLE)
}

/// The `kerai` command, connected as the CLI's login role (not a superuser).
pub fn command(database_url: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(bin());
    c.args(args)
        .env("DATABASE_URL", as_cli_role(database_url))
        .env("KERAI_LAUNCHED_BY", "e2e");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// Run `kerai ARGS…` against `database_url` and wait for it.
pub fn kerai(database_url: &str, args: &[&str]) -> Output {
    kerai_env(database_url, args, &[])
}

pub fn kerai_env(database_url: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let out = command(database_url, args, env)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {}: {e}; build it with `cargo build -p kerai-fetch`",
                bin().display()
            )
        });
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Start `kerai ARGS…` without waiting (to kill it, or run two at once).
pub fn spawn(database_url: &str, args: &[&str], env: &[(&str, &str)]) -> Child {
    command(database_url, args, env)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin().display()))
}

pub fn wait(child: Child) -> Output {
    let out = child.wait_with_output().expect("wait for kerai");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A process with this pid runs: its /proc entry exists and is not a zombie (an orphan's
/// entry stays until it is reaped).
pub fn process_runs(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next().map(|st| st != "Z"))
                .unwrap_or(false)
        })
        .unwrap_or(false)
}
