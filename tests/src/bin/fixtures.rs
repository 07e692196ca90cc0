//! `kerai-fixtures`: the test suite's fixture servers as a process, for `make demo`.
//!
//!     kerai-fixtures site DIR PORT [--pidfile FILE]
//!     kerai-fixtures scholarly CATALOGUE PORT --site URL [--pidfile FILE]
//!
//! `site` serves every file under DIR (ETag, conditional GET, HEAD, content types; `__SITE__`
//! in .xml and .txt files becomes the server's base URL). `scholarly` serves the fakes of the
//! scholarly services for the works of CATALOGUE (see `kerai_e2e::catalogue`). Both run until
//! they are killed.

use kerai_e2e::{scholarly::ScholarlyWeb, Site};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: kerai-fixtures site DIR PORT [--pidfile FILE]\n       \
                     kerai-fixtures scholarly CATALOGUE PORT --site URL [--pidfile FILE]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let positional: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !args[i - 1].starts_with("--")))
        .map(|(_, a)| a)
        .collect();
    let (Some(kind), Some(path), Some(port)) =
        (positional.first(), positional.get(1), positional.get(2))
    else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let Ok(port) = port.parse::<u16>() else {
        eprintln!("kerai-fixtures: PORT must be a number from 1 to 65535, not {port:?}\n{USAGE}");
        return ExitCode::from(2);
    };
    let path = PathBuf::from(path);
    // Held until the process is killed: dropping them stops the servers.
    let _site;
    let _scholarly;
    match kind.as_str() {
        "site" => {
            let site = Site::start_on(port, 8);
            site.serve_dir(&path);
            _site = site;
        }
        "scholarly" => {
            let Some(site) = flag("--site") else {
                eprintln!("kerai-fixtures: scholarly needs --site URL (the example site's base URL)\n{USAGE}");
                return ExitCode::from(2);
            };
            let web = ScholarlyWeb::start_on(port);
            web.load_catalogue(&path, &site);
            _scholarly = web;
        }
        other => {
            eprintln!("kerai-fixtures: unknown server {other:?}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    if let Some(pidfile) = flag("--pidfile") {
        if let Err(e) = std::fs::write(&pidfile, std::process::id().to_string()) {
            eprintln!("kerai-fixtures: cannot write the pid file {pidfile}: {e}");
            return ExitCode::from(1);
        }
    }
    loop {
        std::thread::park();
    }
}
