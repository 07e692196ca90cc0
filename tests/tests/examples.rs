//! Every example in the CLI's `--help` texts, run as written against a database crawled from
//! the example site (the demo's): each one exits as it should, ends its output with a newline,
//! and leaves no ERROR line for its database in the server log.
//!
//! The examples speak of a target `intranet` on `https://intranet.example.com/`; here that is
//! the example site on 127.0.0.1. Placeholders (`0190f3c2-...`) become the newest job's id,
//! and the files they name (`report.pdf`, `page.html`, `targets.toml`) are made in a scratch
//! directory. Commands that run until they are stopped (`kerai worker`, `kerai crawl`) are
//! stopped with SIGTERM after a few seconds, as a user would stop them (`kerai daemon` too).

use kerai_e2e::site::files_under;
use kerai_e2e::{bin, repo_root, scholarly::ScholarlyWeb, wait, Output, Site, TestDb};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The examples of `kerai --help` and of every command's and subcommand's `--help`, in order,
/// without their trailing comments.
fn examples() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut queue: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(path) = queue.pop() {
        let mut args = path.clone();
        args.push("--help".into());
        let help = Command::new(bin())
            .args(&args)
            .output()
            .expect("kerai --help");
        let text = String::from_utf8_lossy(&help.stdout).into_owned();
        let mut subcommands = Vec::new();
        let mut in_commands = false;
        for line in text.lines() {
            if line == "Commands:" {
                in_commands = true;
                continue;
            }
            if in_commands {
                match line.strip_prefix("  ") {
                    Some(l) if !l.starts_with(' ') => {
                        let name = l.split_whitespace().next().unwrap_or("").to_string();
                        if name != "help" && !name.is_empty() {
                            subcommands.push(name);
                        }
                    }
                    _ => in_commands = false,
                }
            }
            if let Some(example) = line.strip_prefix("  kerai ") {
                // A comment follows two or more spaces.
                let cmd = example.split("  ").next().unwrap_or("").trim().to_string();
                if !out.contains(&cmd) {
                    out.push(cmd);
                }
            }
        }
        for s in subcommands.into_iter().rev() {
            let mut p = path.clone();
            p.push(s);
            queue.push(p);
        }
    }
    out
}

/// Split an example like a shell: words, 'single quotes', and `> FILE` (dropped: the output is
/// captured here). `*.docx` is expanded in `cwd`.
fn words(example: &str, cwd: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut quoted, mut any) = (false, false);
    for ch in example.chars() {
        match ch {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    if let Some(i) = out.iter().position(|w| w == ">") {
        out.truncate(i);
    }
    let mut expanded = Vec::new();
    for w in out {
        if let Some(ext) = w.strip_prefix("*.") {
            let mut files: Vec<String> = std::fs::read_dir(cwd)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(&format!(".{ext}")))
                .collect();
            files.sort();
            assert!(!files.is_empty(), "no *.{ext} in the scratch directory");
            expanded.extend(files);
        } else {
            expanded.push(w);
        }
    }
    expanded
}

/// ERROR lines the server logged for database `db` (the cluster logs `user@database`).
fn server_errors(log: &Path, db: &str) -> Vec<String> {
    let text =
        std::fs::read(log).unwrap_or_else(|e| panic!("the server log {}: {e}", log.display()));
    String::from_utf8_lossy(&text)
        .lines()
        .filter(|l| l.contains(&format!("@{db} ")) && l.contains("ERROR:"))
        .map(str::to_string)
        .collect()
}

/// Run `args` in `cwd`; stop it with SIGTERM if it still runs after `patience`.
fn run(url: &str, args: &[String], cwd: &Path, patience: Duration) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = kerai_e2e::run::command(url, &args, &[])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kerai");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed() < patience {
        std::thread::sleep(Duration::from_millis(100));
    }
    if child.try_wait().unwrap().is_none() {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { kill(child.id() as i32, 15) };
    }
    wait(child)
}

extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
}

/// Runs until stopped: given a few seconds, then SIGTERM.
fn runs_until_stopped(args: &[String]) -> bool {
    let has = |f: &str| args.iter().any(|a| a == f);
    match args.first().map(String::as_str) {
        Some("worker") | Some("daemon") => !has("--once"),
        Some("crawl") => !has("--until-idle"),
        _ => false,
    }
}

fn scratch(site: &Site) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kerai-examples-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ex = repo_root().join("examples/site");
    let pdf = std::fs::read_dir(ex.join("papers"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "pdf"))
        .expect("a PDF in examples/site/papers");
    std::fs::copy(&pdf, dir.join("report.pdf")).unwrap();
    std::fs::copy(ex.join("index.html"), dir.join("page.html")).unwrap();
    let docx = files_under(&ex)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "docx"))
        .expect("a DOCX in examples/site");
    std::fs::copy(&docx, dir.join("minutes.docx")).unwrap();
    std::fs::write(
        dir.join("targets.toml"),
        format!(
            "[targets.intranet]\nbase_url = \"{}\"\nmax_pages = 100\nfile_types = [\"html\", \"pdf\", \"docx\", \"xlsx\"]\n",
            site.url("/")
        ),
    )
    .unwrap();
    dir
}

#[test]
fn every_help_example_runs_cleanly() {
    let site = Site::start();
    site.serve_dir(&repo_root().join("examples/site"));
    // The run example asks for one document by URL.
    let travel = files_under(&repo_root().join("examples/site"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "pdf"))
        .unwrap();
    site.page(
        "/policies/travel.pdf",
        "application/pdf",
        std::fs::read(travel).unwrap(),
    );
    let db = TestDb::new("examples");
    // The citation loop asks the demo's offline scholarly services, as `make demo` does.
    let _scholar = ScholarlyWeb::demo(&site, &mut db.client(), "examples@northwind.example");
    let dir = scratch(&site);
    let data_dir: String = db.one("SELECT current_setting('data_directory')");
    let log = Path::new(&data_dir).parent().unwrap().join("postgres.log");
    let host = site.base.trim_start_matches("http://").to_string();
    let domain = host.split(':').next().unwrap().to_string();

    let all = examples();
    assert!(all.len() >= 40, "the help texts hold the examples: {all:?}");
    let mut failures = Vec::new();
    for example in &all {
        let text = example
            .replace("https://intranet.example.com/", &site.url("/"))
            .replace("domain=intranet.example.com", &format!("domain={domain}"));
        let job: Option<String> = db
            .client()
            .query_opt(
                "SELECT id::text FROM kerai.scrape_jobs WHERE finished_at IS NOT NULL
                  ORDER BY finished_at DESC LIMIT 1",
                &[],
            )
            .unwrap()
            .map(|r| r.get(0));
        let text = match (&job, text.contains("0190f3c2-...")) {
            (Some(j), true) => text.replace("0190f3c2-...", j),
            (None, true) => panic!("{example} needs a job, and none ran before it"),
            _ => text,
        };
        let args = words(&text, &dir);
        let long = runs_until_stopped(&args);
        let patience = if long {
            Duration::from_secs(4)
        } else {
            Duration::from_secs(600)
        };
        let before = server_errors(&log, &db.name).len();
        let r = run(&db.url, &args, &dir, patience);
        let mut wrong = Vec::new();
        // `schedule set|remove` needs pg_cron in the database, which a default one lacks: the
        // refusal says so (exit 2) and what to run.
        let needs_cron = args.first().is_some_and(|a| a == "schedule")
            && args.get(1).is_some_and(|a| a == "set" || a == "remove");
        // `config delete` without --yes says what would go and exits 2, changing nothing.
        let preview = args.first().is_some_and(|a| a == "config")
            && args.get(1).is_some_and(|a| a == "delete")
            && !args.iter().any(|a| a == "--yes");
        if preview && !r.stderr.contains("--yes") {
            wrong.push("the preview does not say how to delete".into());
        }
        let expected = if needs_cron || preview { 2 } else { 0 };
        if r.code != expected {
            wrong.push(format!("exit code {} (expected {expected})", r.code));
        }
        if needs_cron && !r.stderr.contains("CREATE EXTENSION pg_cron") {
            wrong.push("the refusal does not say how to add pg_cron".into());
        }
        if !r.stdout.is_empty() && !r.stdout.ends_with('\n') {
            wrong.push("standard output does not end with a newline".into());
        }
        if !r.stderr.is_empty() && !r.stderr.ends_with('\n') {
            wrong.push("standard error does not end with a newline".into());
        }
        let logged = server_errors(&log, &db.name);
        if logged.len() > before {
            wrong.push(format!("the server logged {:?}", &logged[before..]));
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "kerai {text}: {}\n--- stdout\n{}\n--- stderr\n{}",
                wrong.join("; "),
                r.stdout,
                r.stderr
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples went wrong:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
