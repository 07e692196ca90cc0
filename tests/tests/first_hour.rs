//! docs/first-hour.md, run as a reader would: every `console` block's `$ ` commands, in order,
//! against a fresh database and the example site on 127.0.0.1, each one's output (standard
//! output and error together, as a terminal shows them) compared with the captured output in
//! the guide. Ids, times, durations, rates and ports differ between runs and are not compared,
//! nor is the width of table columns. `KERAI_WRITE_DOCS=1` (`make docs`) captures the blocks
//! again.

use kerai_e2e::{bin, repo_root, Site, TestDb};
use regex::Regex;
use std::process::Command;

/// The guide's addresses: the demo cluster's database and the demo's example site.
const GUIDE_DB: &str = "postgresql://postgres@127.0.0.1:28815/intranet";
const GUIDE_SITE: &str = "127.0.0.1:28880";

/// A command of a console block and the output captured under it.
struct Step {
    /// Line index of the command in the guide.
    line: usize,
    command: String,
    expected: Vec<String>,
}

fn steps(text: &str) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut in_console = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            in_console = line == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Step {
                line: i,
                command: cmd.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(s) = out.last_mut() {
            s.expected.push(line.to_string());
        }
    }
    out
}

/// What is compared: run-dependent values replaced by placeholders, runs of spaces and of
/// table rules shortened, trailing blank lines dropped, and the progress lines printed every
/// 5 s while a step runs (how many depends on the machine) left out; the last one stays.
fn normal(lines: &[String]) -> Vec<String> {
    let periodic = Regex::new(r"^kerai: [a-z]+: \d+(/\d+)? ").unwrap();
    let rules: Vec<(Regex, &str)> = [
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "<id>",
        ),
        (
            r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?",
            "<time>",
        ),
        (r"\b[\w.-]+:\d{2,7}\b", "<host:port>"),
        (r"\d+(\.\d+)?( items)?/(s|min)\b", "<rate>"),
        (r"\d+(\.\d+)? ?(ms|s|min) (elapsed|ago)", "<duration> $3"),
        (r"\b\d+(\.\d+)? ?(ms|s)\b", "<duration>"),
        (r"(duration|throughput|in) <duration>", "$1 <duration>"),
        (r" {2,}", " "),
        (r"-{3,}", "---"),
    ]
    .into_iter()
    .map(|(r, w)| (Regex::new(r).unwrap(), w))
    .collect();
    let mut out: Vec<String> = lines
        .iter()
        .filter(|l| !periodic.is_match(l))
        .map(|l| {
            let mut l = l.trim_end().to_string();
            for (re, with) in &rules {
                l = re.replace_all(&l, *with).into_owned();
            }
            l
        })
        .collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

#[test]
fn the_first_hour_guide_shows_what_the_cli_prints() {
    let path = repo_root().join("docs/first-hour.md");
    let text = std::fs::read_to_string(&path).expect("docs/first-hour.md");
    let all = steps(&text);
    assert!(
        all.len() >= 10,
        "the guide's console blocks hold its steps: {} found",
        all.len()
    );

    // On the guide's own port when it is free: the pages' links carry the site's address into
    // their text, so on another port their embeddings differ a little and close search ranks
    // can swap (the guide's third hit once came sixth by its vector, not fifth).
    let guide_port: u16 = GUIDE_SITE
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("the guide's site has a port");
    let site = if std::net::TcpListener::bind(("127.0.0.1", guide_port)).is_ok() {
        Site::start_on(guide_port, 8)
    } else {
        Site::start()
    };
    site.serve_dir(&repo_root().join("examples/site"));
    let host = site.url("/");
    let host = host
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let db = TestDb::empty("first_hour");
    let bin_dir = bin().parent().unwrap().to_path_buf();
    let path_env = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );

    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut failures = Vec::new();
    // Replace each step's captured output, last step first so line numbers stay valid.
    let mut captured: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for step in &all {
        let command = step
            .command
            .replace(&format!("http://{GUIDE_SITE}/"), &format!("http://{host}/"));
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("{command} 2>&1"))
            .env("DATABASE_URL", &db.url)
            .env("PATH", &path_env)
            .env("USER", "root")
            .env("LOGNAME", "root")
            .env_remove("KERAI_LAUNCHED_BY")
            .env_remove("KERAI_LEASE_SECONDS")
            .env("NO_COLOR", "1")
            .env("PGOPTIONS", "-c client_min_messages=warning")
            .current_dir(std::env::temp_dir())
            .output()
            .expect("run bash");
        let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .replace(&host, GUIDE_SITE)
            .replace(&db.url, GUIDE_DB)
            .replace(&db.name, "intranet")
            .lines()
            .map(str::to_string)
            .collect();
        if !out.status.success() {
            failures.push(format!(
                "line {}: `{}` exited with {}:\n{}",
                step.line + 1,
                step.command,
                out.status,
                got.join("\n")
            ));
        }
        if normal(&got) != normal(&step.expected) {
            failures.push(format!(
                "line {}: `{}` printed\n{}\n--- the guide shows\n{}",
                step.line + 1,
                step.command,
                got.join("\n"),
                step.expected.join("\n")
            ));
        }
        captured.push((step.line + 1, step.expected.len(), got));
    }
    if std::env::var_os("KERAI_WRITE_DOCS").is_some() {
        for (at, len, got) in captured.into_iter().rev() {
            lines.splice(
                at..at + len,
                got.into_iter().map(|l| l.trim_end().to_string()),
            );
        }
        std::fs::write(&path, lines.join("\n") + "\n").expect("write docs/first-hour.md");
        return;
    }
    assert!(
        failures.is_empty(),
        "docs/first-hour.md is out of date (run `make docs` and check what changed):\n\n{}",
        failures.join("\n\n")
    );
}

#[test]
fn run_dependent_values_are_not_compared() {
    let a = normal(&[
        "job 0190f3c2-1111-7000-8000-000000000001  started 2026-11-25 16:03:48+00  duration 2.4 s"
            .into(),
        "kerai: crawl done: 9/9 urls, 3.9/s, 2 s elapsed".into(),
        String::new(),
    ]);
    let b = normal(&[
        "job 0190f3c2-2222-7000-8000-000000000002 started 2026-11-26 09:00:01+00 duration 11 s"
            .into(),
        "kerai: crawl done: 9/9 urls, 12/s, 14 s elapsed".into(),
    ]);
    assert_eq!(a, b);
    assert_ne!(
        normal(&["new 9 unchanged 0".into()]),
        normal(&["new 0 unchanged 9".into()])
    );
    // Periodic progress lines are left out; the last line of a meter is kept.
    assert_eq!(
        normal(&[
            "kerai: crawl: 10/17 urls, 2.0/s, 5 s elapsed, about 4 s left; new 10".into(),
            "kerai: crawl done: 17/17 urls, 2.1/s, 8 s elapsed; new 16".into(),
        ]),
        normal(&["kerai: crawl done: 17/17 urls, 2.1/s, 9 s elapsed; new 16".into()])
    );
}
