//! Supervision from inside Postgres (seed 004, option b): `kerai.start_crawler()` starts a
//! background worker, the supervisor, that runs the companion daemon (`kerai daemon`, the
//! binary named by `kerai.fetcher_path`) as a child process, restarts it with capped backoff
//! when it dies, and stops it on `kerai.stop_crawler()` or server shutdown. The HTTP work stays
//! in the child; the supervisor only starts, watches and stops it.
//!
//! One supervisor per database: it holds a session advisory lock for its life. What is wanted
//! (running or not) and what happened (pids, starts, the last exit and error) live in
//! `kerai.crawler_supervisor`, so with `kerai` in `shared_preload_libraries` and
//! `kerai.autostart = on`, a launcher brings back after a server restart every supervisor that
//! was wanted.

use crate::errors::{invalid, raise, OrRaise};
use kerai_core::ops::host::this_host;
use pgrx::bgworkers::{
    BackgroundWorker, BackgroundWorkerBuilder, BgWorkerStartTime, SignalWakeFlags,
};
use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::prelude::*;
use std::ffi::CString;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

static FETCHER_PATH: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static FETCHER_URL: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static FETCHER_ARGS: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static AUTOSTART: GucSetting<bool> = GucSetting::<bool>::new(false);
static LAUNCHER_DATABASE: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"postgres"));

/// The advisory lock a supervisor holds (with the database's oid as the second key).
const LOCK_KEY: i32 = 0x6b657261; // "kera"
/// Backoff between restarts: 1 s, doubling, at most 60 s; back to 1 s after a run of 60 s.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(60);
const STEADY_RUN: Duration = Duration::from_secs(60);
/// How long a stopping daemon gets after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(40);

/// The settings, defined whenever the library loads (and, when preloaded, the launcher).
pub fn init() {
    GucRegistry::define_string_guc(
        c"kerai.fetcher_path",
        c"The kerai binary kerai.start_crawler() runs as `kerai daemon`.",
        c"An absolute path to an executable, e.g. /usr/local/bin/kerai. Superusers only.",
        &FETCHER_PATH,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"kerai.fetcher_database_url",
        c"The connection string the supervised daemon uses.",
        c"Default: this server's Unix socket (or 127.0.0.1), its port, the database, and the role that called kerai.start_crawler().",
        &FETCHER_URL,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"kerai.fetcher_args",
        c"Extra arguments for the supervised `kerai daemon`, separated by spaces.",
        c"For example: --rate 30 --lanes site,embed",
        &FETCHER_ARGS,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"kerai.autostart",
        c"With kerai in shared_preload_libraries: restart the wanted crawlers after a server restart.",
        c"",
        &AUTOSTART,
        GucContext::Sighup,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"kerai.launcher_database",
        c"The database the autostart launcher connects to, to list the others.",
        c"",
        &LAUNCHER_DATABASE,
        GucContext::Sighup,
        GucFlags::default(),
    );
    // SAFETY: a flag Postgres sets while it loads shared_preload_libraries.
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } && AUTOSTART.get() {
        BackgroundWorkerBuilder::new("kerai crawler launcher")
            .set_type("kerai crawler launcher")
            .set_function("kerai_crawler_launcher")
            .set_library("kerai")
            .enable_spi_access()
            .set_start_time(BgWorkerStartTime::RecoveryFinished)
            .set_restart_time(None)
            .load();
    }
}

fn setting(s: &GucSetting<Option<CString>>) -> Option<String> {
    s.get()
        .map(|c| c.to_string_lossy().trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The fetcher binary, or why it cannot be run.
fn fetcher_path() -> Result<PathBuf, (String, String)> {
    let Some(p) = setting(&FETCHER_PATH) else {
        return Err((
            "kerai.fetcher_path is not set: kerai.start_crawler() needs the kerai binary to run".into(),
            "a superuser sets it, e.g. ALTER SYSTEM SET kerai.fetcher_path = '/usr/local/bin/kerai'; SELECT pg_reload_conf();".into(),
        ));
    };
    let path = PathBuf::from(&p);
    if !path.is_absolute() {
        return Err((
            format!("kerai.fetcher_path = '{p}' is not an absolute path"),
            "set it to the full path of the kerai binary".into(),
        ));
    }
    match std::fs::metadata(&path) {
        Err(e) => Err((
            format!("kerai.fetcher_path = '{p}' cannot be used: {e}"),
            "build the CLI (cargo build -p kerai-fetch) and set kerai.fetcher_path to it".into(),
        )),
        Ok(m) => {
            use std::os::unix::fs::PermissionsExt;
            if !m.is_file() || m.permissions().mode() & 0o111 == 0 {
                Err((
                    format!("kerai.fetcher_path = '{p}' is not an executable file"),
                    "point it at the kerai binary, executable by the server's operating-system user".into(),
                ))
            } else {
                Ok(path)
            }
        }
    }
}

/// Is a supervisor running for this database?
fn supervisor_pid() -> Option<i32> {
    Spi::get_one::<i32>(&format!(
        "SELECT (SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.datname = current_database()
                  WHERE l.locktype = 'advisory' AND l.database = d.oid AND l.classid = {LOCK_KEY}::oid
                    AND l.objid = d.oid AND l.objsubid = 2 AND l.granted LIMIT 1)"
    ))
    .or_raise("reading pg_locks")
}

/// Start the supervised daemon for this database (kerai_admin only), connecting as `login`
/// (default: the caller), which must be able to log in and be a member of kerai_fetcher.
/// Returns what it did.
#[pg_extern]
pub fn start_crawler(login: default!(Option<String>, "NULL")) -> String {
    Spi::run("SELECT kerai._require('kerai_admin', 'kerai.start_crawler')")
        .or_raise("checking roles");
    if let Err((message, hint)) = fetcher_path() {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            message,
            hint,
        );
    }
    let login = match login {
        Some(l) => l,
        None => Spi::get_one::<String>("SELECT current_user::text")
            .or_raise("reading current_user")
            .unwrap_or_default(),
    };
    let (exists, can_login, fetcher) = Spi::get_three_with_args::<bool, bool, bool>(
        "SELECT count(*) > 0, coalesce(bool_or(r.rolcanlogin), false),
                coalesce(bool_or(pg_has_role(r.oid, 'kerai_fetcher', 'MEMBER')), false)
           FROM pg_roles r WHERE r.rolname = $1",
        &[login.clone().into()],
    )
    .or_raise("reading the login role");
    if exists != Some(true) {
        invalid(
            format!("role \"{login}\" does not exist"),
            "name a login role for the daemon, or omit it to use your own",
        );
    }
    if can_login != Some(true) {
        invalid(
            format!("role \"{login}\" cannot log in, so the daemon cannot connect as it"),
            format!("ALTER ROLE \"{login}\" LOGIN, or name another role"),
        );
    }
    if fetcher != Some(true) {
        invalid(
            format!("role \"{login}\" is not a member of kerai_fetcher, which the daemon needs"),
            format!("GRANT kerai_fetcher TO \"{login}\""),
        );
    }
    Spi::run_with_args(
        "UPDATE kerai.crawler_supervisor SET wanted = true, login = $1, updated_at = now(),
                next_start_at = NULL, backoff_seconds = 0",
        &[login.clone().into()],
    )
    .or_raise("recording the wanted state");
    if let Some(pid) = supervisor_pid() {
        return format!("the crawler is already supervised (supervisor pid {pid})");
    }
    // SAFETY: reading this backend's database oid.
    let db = unsafe { pg_sys::MyDatabaseId };
    match start_supervisor(db) {
        Ok(pid) => format!(
            "crawler supervisor started (pid {pid}); the daemon connects as {login}; see SELECT * FROM kerai.crawler_status()"
        ),
        Err(e) => raise(
            PgSqlErrorCode::ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
            format!("cannot start the crawler supervisor: {e}"),
            "raise max_worker_processes (a server restart), or stop another background worker",
        ),
    }
}

fn start_supervisor(db: pg_sys::Oid) -> Result<i32, String> {
    let worker = BackgroundWorkerBuilder::new("kerai crawler supervisor")
        .set_type("kerai crawler supervisor")
        .set_function("kerai_crawler_supervisor")
        .set_library("kerai")
        .set_argument(Some(pg_sys::Datum::from(u32::from(db))))
        .enable_spi_access()
        .set_start_time(BgWorkerStartTime::RecoveryFinished)
        // A supervisor that fails is started again; one that returns (stopped, or nothing
        // wanted here) is not.
        .set_restart_time(Some(Duration::from_secs(5)))
        // SAFETY: this backend's pid, so it can wait for the worker to start.
        .set_notify_pid(unsafe { pg_sys::MyProcPid })
        .load_dynamic()
        .map_err(|_| "no background worker slot is free".to_string())?;
    worker
        .wait_for_startup()
        .map_err(|s| format!("the background worker did not start ({s:?})"))
}

/// Stop the supervised daemon (kerai_admin only): true when one was running. The supervisor
/// sends it SIGTERM once this transaction commits, and exits when it has stopped.
#[pg_extern]
pub fn stop_crawler() -> bool {
    Spi::run("SELECT kerai._require('kerai_admin', 'kerai.stop_crawler')")
        .or_raise("checking roles");
    Spi::run("UPDATE kerai.crawler_supervisor SET wanted = false, updated_at = now()")
        .or_raise("recording the wanted state");
    supervisor_pid().is_some()
}

/// What the supervisor reads each turn.
struct Wanted {
    wanted: bool,
    login: Option<String>,
    database: String,
}

fn read_wanted() -> Option<Wanted> {
    BackgroundWorker::transaction(|| {
        let installed =
            Spi::get_one::<bool>("SELECT to_regclass('kerai.crawler_supervisor') IS NOT NULL")
                .ok()
                .flatten()
                .unwrap_or(false);
        if !installed {
            return None;
        }
        let (wanted, login, database) = Spi::get_three::<bool, String, String>(
            "SELECT wanted, login, current_database()::text FROM kerai.crawler_supervisor",
        )
        .ok()?;
        Some(Wanted {
            wanted: wanted.unwrap_or(false),
            login,
            database: database.unwrap_or_default(),
        })
    })
}

fn record(sql: &str, args: Vec<pgrx::datum::DatumWithOid<'static>>) {
    BackgroundWorker::transaction(|| {
        if let Err(e) = Spi::run_with_args(sql, &args) {
            log!("kerai crawler supervisor: cannot record its state: {e}");
        }
    });
}

/// The connection string for the daemon: the setting, or this server's socket and port.
fn daemon_url(w: &Wanted) -> String {
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
    let user = w.login.clone().unwrap_or_else(|| "postgres".into());
    format!(
        "host={host} port={port} dbname={} user={user} application_name=kerai_daemon",
        conninfo_quote(&w.database)
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
fn log_path(database: &str) -> PathBuf {
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
fn last_error(path: &Path, from: u64) -> Option<String> {
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

fn spawn_daemon(path: &Path, url: &str, log: &Path) -> Result<Child, String> {
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

fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        _ => "ended".into(),
    }
}

fn stop_child(child: &mut Child) {
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

/// The supervisor: one per database, started by kerai.start_crawler() or the launcher.
#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn kerai_crawler_supervisor(arg: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP | SignalWakeFlags::SIGTERM);
    let db = pg_sys::Oid::from(arg.value() as u32);
    BackgroundWorker::connect_worker_to_spi_by_oid(Some(db), None);
    let locked = BackgroundWorker::transaction(|| {
        Spi::get_one::<bool>(&format!(
            "SELECT pg_try_advisory_lock({LOCK_KEY}, {})",
            u32::from(db) as i32
        ))
        .ok()
        .flatten()
        .unwrap_or(false)
    });
    if !locked {
        // Another supervisor runs for this database.
        return;
    }
    let started = Instant::now();
    let mut seen_wanted = false;
    let mut child: Option<(Child, Instant, u64)> = None;
    let mut backoff = FIRST_BACKOFF;
    let mut next_start = Instant::now();
    let mut log = PathBuf::new();
    loop {
        let alive = BackgroundWorker::wait_latch(Some(Duration::from_millis(500)));
        if !alive || BackgroundWorker::sigterm_received() {
            break;
        }
        if BackgroundWorker::sighup_received() {
            // SAFETY: reloading postgresql.conf, as every process does on SIGHUP.
            unsafe { pg_sys::ProcessConfigFile(pg_sys::GucContext::PGC_SIGHUP) };
        }
        let Some(w) = read_wanted() else { break };
        if !w.wanted {
            // The caller's transaction may not have committed yet: wait for it a little.
            if seen_wanted || started.elapsed() > Duration::from_secs(10) {
                break;
            }
            continue;
        }
        if !seen_wanted {
            seen_wanted = true;
            log = log_path(&w.database);
            record(
                "UPDATE kerai.crawler_supervisor SET supervisor_pid = pg_backend_pid(), log_file = $1, updated_at = now()",
                vec![log.display().to_string().into()],
            );
        }
        if let Some((c, since, offset)) = child.as_mut() {
            if let Ok(Some(status)) = c.try_wait() {
                let ran = since.elapsed();
                let exit = describe_exit(status);
                let error = last_error(&log, *offset);
                backoff = if ran >= STEADY_RUN {
                    FIRST_BACKOFF
                } else {
                    backoff
                };
                next_start = Instant::now() + backoff;
                log!(
                    "kerai crawler supervisor: the daemon ({exit}) ended after {:.0} s; restarting in {} s",
                    ran.as_secs_f64(),
                    backoff.as_secs()
                );
                // Its row in kerai.daemons ends with it, whatever killed it.
                record(
                    "UPDATE kerai.daemons SET stopped_at = now(), work = '{}'::jsonb,
                            last_error = CASE WHEN $3 THEN last_error ELSE coalesce($2, 'ended: ' || $1) END,
                            last_error_at = CASE WHEN $3 THEN last_error_at ELSE now() END
                      WHERE host = $4 AND pid = $5 AND stopped_at IS NULL",
                    vec![
                        exit.clone().into(),
                        error.clone().into(),
                        status.success().into(),
                        this_host().into(),
                        (c.id() as i32).into(),
                    ],
                );
                record(
                    "UPDATE kerai.crawler_supervisor SET daemon_pid = NULL, last_exit = $1, last_exit_at = now(),
                            last_error = coalesce($2, last_error), backoff_seconds = $3,
                            next_start_at = now() + make_interval(secs => $3), updated_at = now()",
                    vec![exit.into(), error.into(), (backoff.as_secs() as i32).into()],
                );
                backoff = (backoff * 2).min(MAX_BACKOFF);
                child = None;
            }
        }
        if child.is_none() && Instant::now() >= next_start {
            let offset = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
            let spawned = BackgroundWorker::transaction(|| daemon_url(&w));
            match fetcher_path()
                .map_err(|(m, _)| m)
                .and_then(|p| spawn_daemon(&p, &spawned, &log))
            {
                Ok(c) => {
                    let pid = c.id() as i32;
                    record(
                        "UPDATE kerai.crawler_supervisor SET daemon_pid = $1, starts = starts + 1, last_start_at = now(),
                                next_start_at = NULL, updated_at = now()",
                        vec![pid.into()],
                    );
                    child = Some((c, Instant::now(), offset));
                }
                Err(e) => {
                    next_start = Instant::now() + backoff;
                    record(
                        "UPDATE kerai.crawler_supervisor SET last_error = $1, last_exit = 'not started', last_exit_at = now(),
                                backoff_seconds = $2, next_start_at = now() + make_interval(secs => $2), updated_at = now()",
                        vec![e.into(), (backoff.as_secs() as i32).into()],
                    );
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }
    if let Some((mut c, _, _)) = child.take() {
        stop_child(&mut c);
    }
    if seen_wanted {
        record(
            "UPDATE kerai.crawler_supervisor SET supervisor_pid = NULL, daemon_pid = NULL, next_start_at = NULL, updated_at = now()",
            vec![],
        );
    }
}

/// With `kerai.autostart = on` (and kerai preloaded): start a supervisor for every database
/// that may have one; each exits at once unless kerai is installed there and its crawler is
/// wanted.
#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn kerai_crawler_launcher(_arg: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP | SignalWakeFlags::SIGTERM);
    let db = setting(&LAUNCHER_DATABASE).unwrap_or_else(|| "postgres".into());
    BackgroundWorker::connect_worker_to_spi(Some(&db), None);
    let databases: Vec<u32> = BackgroundWorker::transaction(|| {
        Spi::connect(|c| {
            c.select(
                "SELECT oid::int8 FROM pg_database WHERE datallowconn AND NOT datistemplate ORDER BY oid",
                None,
                &[],
            )
            .map(|rows| {
                rows.filter_map(|r| r.get::<i64>(1).ok().flatten())
                    .map(|o| o as u32)
                    .collect()
            })
            .unwrap_or_default()
        })
    });
    for oid in databases {
        if let Err(e) = start_supervisor(pg_sys::Oid::from(oid)) {
            log!("kerai crawler launcher: database {oid}: {e}");
        }
    }
}
