//! The supervisor, a background worker per database, and the launcher that starts them after a
//! server restart when `kerai.autostart` is on.

use super::child::{daemon_url, describe_exit, last_error, log_path, spawn_daemon, stop_child};
use super::settings::{fetcher_path, setting, LAUNCHER_DATABASE};
use super::{start_supervisor, LOCK_KEY};
use kerai_core::ops::host::this_host;
use pgrx::bgworkers::{BackgroundWorker, SignalWakeFlags};
use pgrx::prelude::*;
use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant};

/// Backoff between restarts: 1 s, doubling, at most 60 s; back to 1 s after a run of 60 s.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(60);
const STEADY_RUN: Duration = Duration::from_secs(60);

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
            let spawned =
                BackgroundWorker::transaction(|| daemon_url(w.login.as_deref(), &w.database));
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
