//! A job run that outlives the database going read-only or away: the runner stops, the job
//! pauses until the database takes writes again, then the URLs this worker held are handed
//! back and the job goes on where it was. `kerai run`, `worker` and the daemon's site lane run
//! jobs through [`run_through_outages`].

use super::runner::{self, JobSpec, RunEnd, RunOptions};
use crate::db::{self, availability};
use crate::exit::{stop_requested, Failure};
use std::sync::atomic::AtomicBool;
use tokio_postgres::Client;

/// Run job `spec` to its end. A run that ends because the database became unavailable is
/// resumed when it is back. Returns how the run ended and, when the first connection may have
/// been lost on the way, a fresh one to finish the job with.
pub async fn run_through_outages(
    url: &str,
    spec: &JobSpec,
    opts: &RunOptions,
    stop: &AtomicBool,
) -> Result<(RunEnd, Option<Client>), Failure> {
    let mut fresh = None;
    loop {
        let outcome = runner::run_job(url, spec, opts).await;
        let why = match &outcome {
            Ok(end) if !end.cancelled => end.error.clone(),
            Ok(_) => None,
            Err(f) => Some(f.message.clone()),
        }
        .filter(|e| availability::classify(e).is_some());
        let Some(why) = why else {
            return outcome.map(|end| (end, fresh));
        };
        let what = format!("job {} of {}", spec.id, spec.target);
        pause(url, &why, &what, stop).await?;
        let c = db::connect(url).await?;
        // Hand back what this worker held (its results may not have been written), then take
        // the job up again: the same job, its queue as the database has it.
        db::jobs::release(&c, spec.id, &opts.worker, "the database was unavailable")
            .await
            .map_err(|e| Failure::critical(db::message(&e)))?;
        let resumed = db::jobs::begin(&c, &opts.worker, spec.id, opts.lease_seconds)
            .await
            .map_err(|e| Failure::critical(db::message(&e)))?;
        fresh = Some(c);
        if resumed.is_none() {
            // Finished, or cancelled, while we waited.
            return Ok((
                RunEnd {
                    cancelled: true,
                    error: None,
                },
                fresh,
            ));
        }
    }
}

/// Wait until the database takes writes, or the process is asked to stop.
pub async fn pause(url: &str, why: &str, what: &str, stop: &AtomicBool) -> Result<(), Failure> {
    let waited = tokio::select! {
        r = availability::wait_writable(url, why, what, stop) => r,
        _ = stop_requested() => Err("interrupted".to_string()),
    };
    waited
        .map(|_| ())
        .map_err(|e| Failure::critical(format!("{what} paused for the database and stopped: {e}")))
}
