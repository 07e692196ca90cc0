//! Running the `kerai` CLI as a separate process.

use std::path::PathBuf;
use std::process::Command;

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// The `kerai` binary `make test` built (`KERAI_BIN`), or target/debug/kerai.
pub fn bin() -> PathBuf {
    std::env::var_os("KERAI_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/debug/kerai"))
}

/// Run `kerai ARGS…` against `database_url` and wait for it.
pub fn kerai(database_url: &str, args: &[&str]) -> Output {
    let out = Command::new(bin())
        .args(args)
        .env("DATABASE_URL", database_url)
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
