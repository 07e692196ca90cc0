//! The daemon as a child process of the supervisor: its connection string, its log file, how
//! it is started (it dies with its supervisor), how its end is described, how it is stopped.

use super::settings::{setting, FETCHER_ARGS, FETCHER_URL};
use pgrx::prelude::*;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a stopping daemon gets after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(40);

/// The connection string for the daemon: the setting, or this server's socket and port.
pub fn daemon_url(login: Option<&str>, database: &str) -> String {
    if let Some(url) = setting(&FETCHER_URL) {
        return url;
    }
    let socket = Spi::get_one::<String>(
        "SELECT split_part(current_setting('unix_socket_directories'), ',', 1)",
    )
    .ok()
    .flatten()
    .map(|s| s.trim().to_string())
    .filter(|s| !s.is_empty());
    let port = Spi::get_one::<String>("SELECT current_setting('port')")
        .ok()
        .flatten()
        .unwrap_or_else(|| "5432".into());
    let host = socket.unwrap_or_else(|| "127.0.0.1".into());
    let user = login.unwrap_or("postgres");
    format!(
        "host={host} port={port} dbname={} user={user} application_name=kerai_daemon",
        conninfo_quote(database)
    )
}

fn conninfo_quote(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// Where the daemon's output goes: `log/kerai-daemon-<database>.log` under the data directory.
pub fn log_path(database: &str) -> PathBuf {
    // SAFETY: DataDir is set before any background worker starts.
    let data = unsafe { std::ffi::CStr::from_ptr(pg_sys::DataDir) }
        .to_string_lossy()
        .into_owned();
    let dir = Path::new(&data).join("log");
    let _ = std::fs::create_dir_all(&dir);
    let safe: String = database
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("kerai-daemon-{safe}.log"))
}

/// The last error line the daemon wrote (or its last line) since `from`.
pub fn last_error(path: &Path, from: u64) -> Option<String> {
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let start = from.max(len.saturating_sub(16 * 1024));
    f.seek(SeekFrom::Start(start)).ok()?;
    let mut text = String::new();
    f.take(16 * 1024).read_to_string(&mut text).ok()?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines
        .iter()
        .rev()
        .find(|l| l.contains("error:"))
        .or(lines.last())
        .map(|l| l.chars().take(500).collect())
}

pub fn spawn_daemon(path: &Path, url: &str, log: &Path) -> Result<Child, String> {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let mut cmd = Command::new(path);
    cmd.arg("daemon");
    if let Some(extra) = setting(&FETCHER_ARGS) {
        cmd.args(extra.split_whitespace());
    }
    cmd.env("DATABASE_URL", url)
        .env_remove("PGOPTIONS")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    // SAFETY: prctl(2) in the child between fork and exec: the daemon gets SIGTERM if the
    // supervisor dies without stopping it, so no daemon outlives its supervisor.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            prctl(PR_SET_PDEATHSIG, 15);
            Ok(())
        });
    }
    cmd.spawn()
        .map_err(|e| format!("cannot run {} daemon: {e}", path.display()))
}

pub fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        _ => "ended".into(),
    }
}

pub fn stop_child(child: &mut Child) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc_kill(child.id() as i32, 15);
    }
    let t = Instant::now();
    while t.elapsed() < STOP_GRACE {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
}

const PR_SET_PDEATHSIG: i32 = 1;

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
    fn prctl(option: i32, ...) -> i32;
}
