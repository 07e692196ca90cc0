//! The daemon's three lanes. Each keeps its own connection, reconnects with backoff when the
//! database goes away, and ends when the daemon stops (or, with `--once`, when nothing is left).

use super::Shared;
use crate::args::DaemonArgs;
use crate::db::listen::{connect_retrying, connection_lost, is_connection_error, Listening};
use crate::db::{self, availability};
use crate::exit::Failure;
use crate::holder::{Holder, Liveness};
use crate::jobs::{finish, report, spec_from_row};
use crate::output::Format;
use crate::resolve::cycle::{cycle, drain, print_cycle};
use crate::resolve::Pacer;
use crate::retrieval::work::{embed_pending, llm_claims};
use crate::site::outage::{pause, run_through_outages};
use crate::site::runner::RunOptions;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Chunks embedded per round at most, so the lane reports progress as it goes.
const EMBED_PER_ROUND: u64 = 256;
/// Chunks asked about for claims per round at most.
const CLAIMS_PER_ROUND: i64 = 50;

/// The citation loop's agent must exist before the daemon starts.
pub async fn check_agent(
    client: &tokio_postgres::Client,
    args: &DaemonArgs,
) -> Result<(), Failure> {
    if args.lanes.contains(&crate::args::Lane::Resolve) {
        crate::resolve::cycle::check_agent(client, &args.agent).await
    } else {
        Ok(())
    }
}

/// Connect (again) unless connected; `None` once the daemon stops.
async fn ensure(shared: &Shared, conn: &mut Option<Listening>, channel: &str, lane: &str) -> bool {
    if conn.as_ref().is_some_and(|c| !c.client.is_closed()) {
        return true;
    }
    if conn.take().is_some() {
        eprintln!("kerai: [{lane}] lost the database connection; reconnecting");
    }
    match connect_retrying(&shared.url, channel, &shared.stop).await {
        Ok(c) => {
            *conn = Some(c);
            true
        }
        Err(e) => {
            if !shared.stopping() {
                shared.failed(lane, &e.to_string());
            }
            false
        }
    }
}

/// When `msg` says the database is read-only, or cannot reach a worker (Citus), pause the lane
/// until it takes writes again and reaches its workers (one message when it starts, one when
/// it ends) and say so; otherwise false at once.
async fn paused(shared: &Shared, lane: &str, msg: &str) -> bool {
    if !matches!(
        availability::classify(msg),
        Some(availability::Unavailable::ReadOnly | availability::Unavailable::Worker)
    ) {
        return false;
    }
    shared.doing(lane, json!({"paused": msg}));
    let _ = pause(&shared.url, msg, &format!("the {lane} lane"), &shared.stop).await;
    true
}

/// The job to run next: one whose fetcher is provably gone (this host, no such process: a
/// `kill -9`, a crash) is taken over at once, with the URLs it held; otherwise the next due
/// one, or one whose lease ended (`kerai._job_begin`).
async fn next_job(
    client: &tokio_postgres::Client,
    worker: &str,
    lease: i32,
) -> Result<Option<tokio_postgres::Row>, tokio_postgres::Error> {
    for (job, holder) in db::jobs::running_holders(client).await? {
        if Holder::parse(&holder).liveness() == Liveness::Gone
            && db::jobs::take_over(client, job, worker, &holder).await?
        {
            eprintln!("kerai: [site] fetcher {holder} is gone; taking its job {job} over");
            if let Some(row) = db::jobs::begin(client, worker, job, lease).await? {
                return Ok(Some(row));
            }
        }
    }
    db::jobs::begin_next(client, worker, lease).await
}

/// Site-crawl jobs, one at a time: queued ones, scheduled ones, and jobs whose fetcher is gone.
pub async fn site(shared: Arc<Shared>) {
    let mut conn: Option<Listening> = None;
    while !shared.stopping() {
        if !ensure(&shared, &mut conn, "kerai_jobs", "site").await {
            break;
        }
        let c = conn.as_mut().expect("connected");
        let row = match next_job(&c.client, &shared.worker, shared.lease).await {
            Ok(row) => row,
            Err(e) => {
                let msg = db::message(&e);
                if paused(&shared, "site", &msg).await {
                    continue;
                }
                if !connection_lost(&c.client, &msg).await {
                    shared.failed("site", &msg);
                    shared.pause(shared.poll).await;
                }
                conn = None;
                continue;
            }
        };
        let Some(row) = row else {
            if shared.once {
                break;
            }
            shared.doing("site", Value::Null);
            tokio::select! {
                _ = c.notes.recv() => {}
                _ = shared.pause(shared.poll) => {}
            }
            continue;
        };
        let spec = match spec_from_row(&row) {
            Ok(s) => s,
            Err(f) => {
                shared.failed("site", &f.to_string());
                continue;
            }
        };
        if let Ok(mut held) = shared.site_job.lock() {
            *held = Some(spec.id);
        }
        shared.doing(
            "site",
            json!({"job": spec.id, "target": spec.target, "mode": spec.mode}),
        );
        eprintln!(
            "kerai: [site] running job {} of {} ({})",
            spec.id, spec.target, spec.mode
        );
        let opts = RunOptions {
            worker: shared.worker.clone(),
            lease_seconds: shared.lease,
            no_progress: true,
            quiet: true,
        };
        let end = run_through_outages(&shared.url, &spec, &opts, &shared.stop)
            .await
            .map(|(end, fresh)| (end, fresh.is_some()));
        // The job outlived an outage on connections of its own: this lane's may be gone too.
        let reconnected = matches!(&end, Ok((_, true)));
        let end = end.map(|(end, _)| end);
        if reconnected {
            conn = None;
            if !ensure(&shared, &mut conn, "kerai_jobs", "site").await {
                break;
            }
        }
        let c = conn.as_ref().expect("connected");
        let interrupted = matches!(&end, Ok(e) if e.error.as_deref() == Some("interrupted"));
        let lost = match &end {
            Ok(e) => e.error.as_deref().is_some_and(is_connection_error),
            Err(f) => is_connection_error(&f.message),
        };
        if interrupted || lost || c.client.is_closed() {
            // Hand the job back: whoever runs next (this lane once reconnected, another
            // daemon) resumes it at once.
            let why = if interrupted {
                "the daemon stopped"
            } else {
                "it lost the database connection"
            };
            if !ensure(&shared, &mut conn, "kerai_jobs", "site").await {
                break;
            }
            let c = conn.as_ref().expect("connected");
            match db::jobs::release(&c.client, spec.id, &shared.worker, why).await {
                Ok(true) => {
                    eprintln!("kerai: [site] handed job {} back ({why})", spec.id);
                    if let Ok(mut held) = shared.site_job.lock() {
                        *held = None;
                    }
                }
                Ok(false) => {}
                Err(e) => shared.failed("site", &db::message(&e)),
            }
            continue;
        }
        let result = match end {
            Ok(end) => match finish(&c.client, &spec, &shared.worker, &end).await {
                Ok(true) => Ok(end),
                // Work was left: hand the job back, and this lane (or any fetcher) takes it
                // up again at once.
                Ok(false) => {
                    let why = "URLs were left that no fetcher held";
                    if let Err(e) = db::jobs::release(&c.client, spec.id, &shared.worker, why).await
                    {
                        shared.failed("site", &db::message(&e));
                    }
                    if let Ok(mut held) = shared.site_job.lock() {
                        *held = None;
                    }
                    continue;
                }
                Err(f) => Err(f),
            },
            Err(f) => Err(f),
        };
        if let Ok(mut held) = shared.site_job.lock() {
            *held = None;
        }
        match result {
            Ok(end) => {
                if let Some(e) = &end.error {
                    shared.failed("site", &format!("job {} failed: {e}", spec.id));
                }
                // The report goes to standard output, as `kerai worker` prints it.
                if let Err(f) = report(&c.client, spec.id, Format::Table).await {
                    shared.failed("site", &f.to_string());
                }
            }
            Err(f) => shared.failed("site", &f.to_string()),
        }
        shared.doing("site", Value::Null);
    }
    shared.doing("site", Value::Null);
}

/// With `--once`, the citation loop runs until a cycle makes no progress: nothing claimed,
/// ingested, linked or resolved, and nothing pending. (References held back by the agent's
/// rate limit or waiting for a retry are left for the next round.)
fn made_progress(s: &Value) -> bool {
    let some = |k: &str| s[k].as_array().is_some_and(|a| !a.is_empty());
    some("claimed")
        || some("ingested")
        || some("linked")
        || s["pending"].as_i64().unwrap_or(0) > 0
        || s["resolved_now"].as_u64().unwrap_or(0) > 0
}

/// The citation loop: a cycle every `rate`, and between cycles whatever a `crawl_cycle()` run
/// elsewhere (psql, pg_cron) claims, as its notifications come.
pub async fn resolve(shared: Arc<Shared>, agent: String, rate: Duration) {
    let pacer = Pacer::default();
    let mut conn: Option<Listening> = None;
    let mut cycles = 0u64;
    while !shared.stopping() {
        if !ensure(&shared, &mut conn, "kerai_crawl", "resolve").await {
            break;
        }
        let c = conn.as_mut().expect("connected");
        let started = Instant::now();
        shared.doing("resolve", json!({"cycle": cycles + 1}));
        match cycle(
            &c.client,
            &agent,
            &shared.worker,
            shared.lease,
            &shared.stop,
            &pacer,
        )
        .await
        {
            Ok(summary) => {
                cycles += 1;
                print_cycle(cycles, &summary);
                if shared.once && !made_progress(&summary) {
                    break;
                }
            }
            // A worker out of reach first: its message names a connection too.
            Err(e) if !c.client.is_closed() && paused(&shared, "resolve", &e).await => continue,
            Err(e) => {
                if connection_lost(&c.client, &e).await {
                    conn = None;
                    continue;
                }
                shared.failed("resolve", &format!("crawl cycle failed: {e}"));
                if shared.once {
                    break;
                }
            }
        }
        shared.doing("resolve", Value::Null);
        if shared.once {
            continue;
        }
        let next = started + rate;
        while !shared.stopping() {
            let c = conn.as_mut().expect("connected");
            tokio::select! {
                note = c.notes.recv() => match note {
                    Some(()) => {
                        if let Err(e) = drain(&c.client, &shared.worker, shared.lease, &shared.stop, &pacer).await {
                            if !c.client.is_closed() && paused(&shared, "resolve", &e).await {
                                break;
                            }
                            if connection_lost(&c.client, &e).await {
                                conn = None;
                                break;
                            }
                            shared.failed("resolve", &format!("resolving failed: {e}"));
                        }
                    }
                    None => {
                        conn = None;
                        break;
                    }
                },
                _ = tokio::time::sleep_until(next) => break,
                _ = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
        }
    }
    shared.doing("resolve", Value::Null);
}

/// Embeddings, then LLM claims when `llm_claims` is on and a chat model is configured.
pub async fn embed(shared: Arc<Shared>) {
    let mut client: Option<tokio_postgres::Client> = None;
    while !shared.stopping() {
        if client.as_ref().is_none_or(|c| c.is_closed()) {
            client = match db::connect(&shared.url).await {
                Ok(c) => Some(c),
                // A server away comes back; a login it refuses does not.
                Err(e) if !db::is_refused_login(&e) && is_connection_error(&e.message) => {
                    shared.pause(shared.poll.min(Duration::from_secs(5))).await;
                    continue;
                }
                Err(e) => {
                    shared.failed("embed", &e.to_string());
                    break;
                }
            };
        }
        let c = client.as_ref().expect("connected");
        let show = |s: &crate::retrieval::work::EmbedSummary| {
            shared.doing(
                "embed",
                json!({"embedded": s.embedded, "failed": s.failed, "waiting": s.remaining}),
            );
        };
        let mut done = 0u64;
        match embed_pending(c, &shared.worker, Some(EMBED_PER_ROUND), &show).await {
            Ok(Some(s)) if s.embedded + s.failed > 0 => {
                done += s.embedded;
                eprintln!(
                    "kerai: [embed] embedded {} chunks ({} failed, {} waiting)",
                    s.embedded, s.failed, s.remaining
                );
                if s.embedded == 0 {
                    shared.failed("embed", &format!("{} chunks failed to embed", s.failed));
                }
            }
            Ok(_) => {}
            Err(e) if !c.is_closed() && paused(&shared, "embed", &e).await => continue,
            Err(e) => {
                if connection_lost(c, &e).await {
                    client = None;
                    continue;
                }
                shared.failed("embed", &e);
            }
        }
        if matches!(db::embed::llm_claims_on(c).await, Ok(true)) {
            match llm_claims(c, CLAIMS_PER_ROUND).await {
                Ok(Some(s)) if s.chunks > 0 => {
                    done += s.chunks - s.failed;
                    eprintln!(
                        "kerai: [embed] asked about {} chunks for claims: {} claims ({} failed)",
                        s.chunks, s.claims, s.failed
                    );
                }
                Ok(_) => {}
                Err(e) => shared.failed("embed", &format!("LLM claims: {e}")),
            }
        }
        shared.doing("embed", Value::Null);
        if done == 0 {
            if shared.once {
                break;
            }
            shared.pause(shared.poll).await;
        }
    }
    shared.doing("embed", Value::Null);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_ends_when_a_cycle_makes_no_progress() {
        let quiet = json!({"claimed": [], "ingested": [], "linked": [], "pending": 0,
                           "resolved_now": 0, "eligible": 4, "retries_waiting": 2});
        assert!(!made_progress(&quiet));
        for (k, v) in [
            ("claimed", json!([{"item": 1}])),
            ("ingested", json!([{"doc": "d"}])),
            ("pending", json!(1)),
            ("resolved_now", json!(2)),
        ] {
            let mut s = quiet.clone();
            s[k] = v;
            assert!(made_progress(&s), "{k}");
        }
    }
}
