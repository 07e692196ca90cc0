//! Progress as users of Rust command-line tools expect it: a live bar on a terminal (run here
//! in a pseudo-terminal with `script`), plain lines through a pipe, nothing on standard output
//! but the answer, no colour with NO_COLOR, and a closed pipe (`kerai logs | head`) ends the
//! command quietly.

use kerai_e2e::run::{as_cli_role, process_runs};
use kerai_e2e::{bin, kerai, Site, TestDb};
use std::process::Command;

/// A site of `n` pages, crawled at 10 pages a second: long enough for a bar to be drawn.
fn site_and_target(db: &TestDb, n: usize) -> Site {
    let site = Site::start();
    let links: String = (0..n)
        .map(|i| format!("<li><a href=\"/p/{i}\">page {i}</a></li>"))
        .collect();
    site.html("/", &format!("<html><body><main><h1>Index</h1><p>Every page of this site is listed here for the crawler.</p><ul>{links}</ul></main></body></html>"));
    for i in 0..n {
        site.html(
            &format!("/p/{i}"),
            &format!("<html><body><main><h1>Page {i}</h1><p>Page {i} says something of its own, long enough to count.</p></main></body></html>"),
        );
    }
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "p",
            "--base-url",
            &site.url("/"),
            "rate_limit_rps=10",
            "per_host_concurrency=1",
            "use_sitemaps=false",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    site
}

/// SGR sequences (colours, bold): ESC [ digits m.
fn has_colour(s: &str) -> bool {
    s.match_indices("\x1b[").any(|(i, _)| {
        let rest = &s[i + 2..];
        let digits = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ';')
            .count();
        digits > 0 && rest[digits..].starts_with('m')
    })
}

#[test]
fn a_terminal_gets_a_bar_and_a_pipe_gets_lines() {
    let db = TestDb::new("progress");
    let _site = site_and_target(&db, 8);

    // Through a pipe: plain lines, the last one saying what was done; stdout is the report.
    let piped = kerai(&db.url, &["run", "p", "--format", "json"]);
    assert_eq!(piped.code, 0, "{}", piped.stderr);
    let report = piped.json();
    assert_eq!(report["status"], "COMPLETED");
    assert!(
        piped.stderr.contains("kerai: crawl done: 9/9 urls,") && piped.stderr.contains(" elapsed"),
        "{}",
        piped.stderr
    );
    assert!(
        !piped.stderr.contains('\r') && !piped.stderr.contains('\x1b'),
        "no redrawing without a terminal: {:?}",
        piped.stderr
    );

    // In a terminal: a redrawn bar, then the same last line; NO_COLOR is honoured.
    let cmd = format!("{} run p --full", bin().display());
    let tty = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("DATABASE_URL", as_cli_role(&db.url))
        .env("KERAI_LAUNCHED_BY", "e2e")
        .env("TERM", "xterm-256color")
        .env("NO_COLOR", "1")
        .output()
        .expect("script(1) runs the CLI in a pseudo-terminal");
    let screen = String::from_utf8_lossy(&tty.stdout).into_owned();
    assert!(tty.status.success(), "{screen}");
    assert!(
        screen.contains('\r') && screen.contains("crawl [") && screen.contains("/9"),
        "a live bar with counts: {screen:?}"
    );
    assert!(
        screen.contains("kerai: crawl done: 9/9 urls,"),
        "{screen:?}"
    );
    assert!(!has_colour(&screen), "NO_COLOR: {screen:?}");
    assert!(screen.ends_with('\n'), "{screen:?}");

    // --no-progress in a terminal: plain lines, no bar.
    let cmd = format!("{} run p --full --no-progress", bin().display());
    let tty = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("DATABASE_URL", as_cli_role(&db.url))
        .env("KERAI_LAUNCHED_BY", "e2e")
        .env("TERM", "xterm-256color")
        .output()
        .unwrap();
    let screen = String::from_utf8_lossy(&tty.stdout).into_owned();
    assert!(tty.status.success(), "{screen}");
    assert!(
        screen.contains("kerai: crawl done: 9/9 urls,") && !screen.contains("crawl ["),
        "{screen:?}"
    );
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let db = TestDb::new("progresspipe");
    let _site = site_and_target(&db, 3);
    assert_eq!(kerai(&db.url, &["run", "p", "--no-progress"]).code, 0);
    // `true` reads nothing and exits: every write of kerai meets a closed pipe.
    let cmd = format!(
        "{} logs p --limit 1000 | true; {} search page | true",
        bin().display(),
        bin().display()
    );
    let out = Command::new("sh")
        .args(["-c", &cmd])
        .env("DATABASE_URL", as_cli_role(&db.url))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "{stderr}"
    );
}

/// A terminal resized mid-run (the kernel sends SIGWINCH) keeps the bar going; a terminal that
/// is closed mid-run (a hangup) ends the CLI at once, and the next run finishes the crawl with
/// nothing lost.
#[test]
fn a_resized_or_closed_terminal_is_no_trouble() {
    let db = TestDb::new("progresstty");
    let _site = site_and_target(&db, 20);

    // Resized twice while the bar is drawn: a narrow terminal, then a wide one.
    let cmd = format!(
        "{} run p & sleep 0.8; stty cols 24 rows 8; sleep 0.5; stty cols 160 rows 40; wait $!",
        bin().display()
    );
    let tty = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("DATABASE_URL", as_cli_role(&db.url))
        .env("KERAI_LAUNCHED_BY", "e2e")
        .env("TERM", "xterm-256color")
        .output()
        .unwrap();
    let screen = String::from_utf8_lossy(&tty.stdout).into_owned();
    assert!(tty.status.success(), "{screen}");
    assert!(
        screen.contains("kerai: crawl done: 21/21 urls,") && !screen.contains("panicked"),
        "{screen:?}"
    );

    // Closed: the terminal's session gets SIGHUP while the crawl runs.
    let cmd = format!("{} run p --full", bin().display());
    let mut tty = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("DATABASE_URL", as_cli_role(&db.url))
        .env("KERAI_LAUNCHED_BY", "e2e")
        .env("TERM", "xterm-256color")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut client = db.client();
    let t = std::time::Instant::now();
    while t.elapsed() < std::time::Duration::from_secs(20) {
        let running: bool = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM kerai.scrape_jobs WHERE status = 'RUNNING' AND mode = 'full')",
                &[],
            )
            .unwrap()
            .get(0);
        if running {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let holder: String = client
        .query_one(
            "SELECT worker FROM kerai.scrape_jobs WHERE status = 'RUNNING'",
            &[],
        )
        .unwrap()
        .get(0);
    let pid: i32 = holder.rsplit_once(':').unwrap().1.parse().unwrap();
    // Hang up: what closing a terminal window does to the programs in it.
    assert!(Command::new("kill")
        .args(["-HUP", &tty.id().to_string()])
        .status()
        .unwrap()
        .success());
    let _ = tty.wait();
    let t = std::time::Instant::now();
    while process_runs(pid) && t.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!process_runs(pid), "the CLI ended with its terminal");
    // It stopped as on Ctrl-C (script(1) passes the hangup on as SIGTERM) or died: either way
    // the next run finishes the crawl, and no job is left running.
    let out = kerai(&db.url, &["run", "p", "--no-progress"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let running: i64 = client
        .query_one(
            "SELECT count(*) FROM kerai.scrape_jobs WHERE status = 'RUNNING'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(running, 0);
    let pages: i64 = client
        .query_one("SELECT count(*) FROM kerai.pages", &[])
        .unwrap()
        .get(0);
    assert_eq!(pages, 21);
}
