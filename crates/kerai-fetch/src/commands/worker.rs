//! `kerai worker`: run queued and scheduled jobs as they come. Listens on `kerai_jobs` and
//! polls, so a job queued by pg_cron or another client starts within seconds. After each job
//! it embeds the chunks the crawl made.

use crate::args::{Format, WorkerArgs};
use crate::db;
use crate::exit::{Code, Failure};
use crate::jobs::{finish, lease_seconds, report, spec_from_row, worker_name};
use crate::site::outage::run_through_outages;
use crate::site::runner::RunOptions;
use std::time::Duration;

pub async fn run(url: &str, args: WorkerArgs) -> Result<Code, Failure> {
    let mut conn = db::listen::connect(url, "kerai_jobs").await?;
    let never = std::sync::atomic::AtomicBool::new(false);
    let worker = worker_name();
    let lease = lease_seconds();
    let mut worst = Code::Success;
    eprintln!("kerai: worker {worker} waiting for jobs");
    loop {
        let row = db::jobs::begin_next(&conn.client, &worker, lease)
            .await
            .map_err(|e| Failure::critical(db::message(&e)))?;
        match row {
            Some(r) => {
                let spec = spec_from_row(&r)?;
                eprintln!(
                    "kerai: running job {} of {} ({})",
                    spec.id, spec.target, spec.mode
                );
                let opts = RunOptions {
                    worker: worker.clone(),
                    lease_seconds: lease,
                    no_progress: true,
                    quiet: false,
                };
                // A job outlives the database going read-only or away: it pauses, then resumes.
                let end = loop {
                    let (end, fresh) = run_through_outages(url, &spec, &opts, &never).await?;
                    if fresh.is_some() {
                        conn = db::listen::connect(url, "kerai_jobs").await?;
                    }
                    if finish(&conn.client, &spec, &worker, &end).await? {
                        break end;
                    }
                };
                let client = &conn.client;
                let mut code = report(client, spec.id, Format::Table).await?;
                if !end.cancelled
                    && end.error.is_none()
                    && crate::retrieval::work::embed_and_report(client, &worker, None, false).await
                        == Some(false)
                    && code == Code::Success
                {
                    code = Code::Partial;
                }
                if code.as_i32() > worst.as_i32() {
                    worst = code;
                }
                // Ctrl-C during a job ends the job (FAILED, retried later) and the worker.
                if end.error.as_deref() == Some("interrupted") {
                    return Ok(worst);
                }
            }
            None if args.once => return Ok(worst),
            None => {
                tokio::select! {
                    _ = conn.notes.recv() => {}
                    _ = tokio::time::sleep(Duration::from_secs(args.poll.max(1))) => {}
                    _ = crate::exit::stop_requested() => return Ok(worst),
                }
            }
        }
    }
}
