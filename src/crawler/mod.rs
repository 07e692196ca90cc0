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

mod child;
mod settings;
mod supervisor;

use crate::errors::{invalid, raise, OrRaise};
use pgrx::bgworkers::{BackgroundWorkerBuilder, BgWorkerStartTime};
use pgrx::prelude::*;
use settings::{fetcher_path, AUTOSTART};
use std::time::Duration;

/// The advisory lock a supervisor holds (with the database's oid as the second key).
pub(crate) const LOCK_KEY: i32 = 0x6b657261; // "kera"

/// Runs when the library loads: the settings, and, when preloaded with `kerai.autostart` on,
/// the launcher.
pub fn init() {
    settings::define();
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
        Ok(pid) => {
            // The worker takes its lock just after it starts: wait for it, so that a call
            // right after this one finds it instead of starting another.
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while supervisor_pid().is_none() && std::time::Instant::now() < deadline {
                pgrx::check_for_interrupts!();
                std::thread::sleep(Duration::from_millis(20));
            }
            format!(
                "crawler supervisor started (pid {pid}); the daemon connects as {login}; see SELECT * FROM kerai.crawler_status()"
            )
        }
        Err(e) => raise(
            PgSqlErrorCode::ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
            format!("cannot start the crawler supervisor: {e}"),
            "raise max_worker_processes (a server restart), or stop another background worker",
        ),
    }
}

pub(crate) fn start_supervisor(db: pg_sys::Oid) -> Result<i32, String> {
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
