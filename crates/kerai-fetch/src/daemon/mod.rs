//! `kerai daemon`: one long-running companion process that does every kind of work waiting in
//! the database. Three lanes run side by side, each on connections of its own, so a long site
//! crawl never holds up the citation loop, nor either of them the embeddings:
//!
//! | lane | work | woken by |
//! |---|---|---|
//! | `site` | queued and scheduled site-crawl jobs, one at a time | `kerai_jobs`, polling |
//! | `resolve` | the citation loop: `kerai.crawl_cycle()`, then resolving what it claims | `kerai_crawl`, every `--rate` s |
//! | `embed` | chunks waiting for a vector, then LLM claims when `llm_claims` is on | polling |
//!
//! With `--once` the lanes run one after the other, in that order, each until nothing waits.
//! A lane that loses the database reconnects with backoff and carries on; a site job it was
//! running is handed back (`kerai._job_release`) and resumed. The daemon beats every 5 s into
//! `kerai.daemons` with what each lane does (`kerai.crawler_status()`). SIGTERM or Ctrl-C
//! stops it: the lanes finish what is in hand, and what is still running after
//! `--stop-timeout` is stopped and its job handed back.

mod lanes;

use crate::args::{DaemonArgs, Lane};
use crate::db::{self, availability};
use crate::exit::{Code, Failure};
use crate::holder::worker_name;
use crate::jobs::lease_seconds;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the daemon beats into `kerai.daemons`, and how often at most when its lanes'
/// work changes.
const BEAT: Duration = Duration::from_secs(5);
const BEAT_AT_MOST: Duration = Duration::from_secs(1);
/// How often the daemon applies the job log policy.
const LOG_UPKEEP: Duration = Duration::from_secs(3600);

/// What the lanes share: where to connect, who they are, whether to stop, and what each does.
pub struct Shared {
    pub url: String,
    pub worker: String,
    pub lease: i32,
    pub once: bool,
    pub poll: Duration,
    pub stop: AtomicBool,
    /// Lane name -> what it does now (`null` when idle).
    work: Mutex<Map<String, Value>>,
    /// The newest error not yet reported in a heartbeat.
    error: Mutex<Option<String>>,
    pub failures: AtomicU64,
    /// The site job in hand, handed back if its lane must be stopped.
    pub site_job: Mutex<Option<uuid::Uuid>>,
    /// Woken when a lane's work changes, so the next heartbeat comes sooner.
    changed: tokio::sync::Notify,
}

impl Shared {
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    pub fn doing(&self, lane: &str, what: Value) {
        if let Ok(mut w) = self.work.lock() {
            if w.get(lane) != Some(&what) {
                w.insert(lane.to_string(), what);
                self.changed.notify_one();
            }
        }
    }

    /// A lane's error: said on standard error, kept for the next heartbeat, counted.
    pub fn failed(&self, lane: &str, message: &str) {
        eprintln!("kerai: [{lane}] error: {message}");
        self.failures.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut e) = self.error.lock() {
            *e = Some(format!("{lane}: {message}"));
        }
    }

    fn snapshot(&self) -> (Value, Option<String>) {
        let work = self
            .work
            .lock()
            .map(|w| Value::Object(w.clone()))
            .unwrap_or_else(|_| json!({}));
        let error = self.error.lock().ok().and_then(|mut e| e.take());
        (work, error)
    }

    /// Sleep `d`, waking early when the daemon is asked to stop.
    pub async fn pause(&self, d: Duration) {
        let until = tokio::time::Instant::now() + d;
        while !self.stopping() && tokio::time::Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(100).min(d)).await;
        }
    }
}

pub async fn run(url: &str, args: DaemonArgs) -> Result<Code, Failure> {
    if !(args.rate.is_finite() && args.rate >= 0.0) {
        return Err(Failure::critical(format!(
            "--rate {}: the seconds between citation-loop cycles must be a number of 0 or more",
            args.rate
        )));
    }
    let worker = worker_name();
    // The first connection fails fast, with what to do: a daemon that cannot start should say
    // so, not retry forever.
    let client = db::connect(url).await?;
    db::daemons::beat(&client, &worker, &json!({}), None)
        .await
        .map_err(|e| {
            Failure::critical(format!("cannot register the daemon: {}", db::message(&e)))
        })?;
    lanes::check_agent(&client, &args).await?;
    let shared = Arc::new(Shared {
        url: url.to_string(),
        worker: worker.clone(),
        lease: lease_seconds(),
        once: args.once,
        poll: Duration::from_secs(args.poll.max(1)),
        stop: AtomicBool::new(false),
        work: Mutex::new(Map::new()),
        error: Mutex::new(None),
        failures: AtomicU64::new(0),
        site_job: Mutex::new(None),
        changed: tokio::sync::Notify::new(),
    });
    let wanted = |l: Lane| args.lanes.contains(&l);
    let names: Vec<&str> = args.lanes.iter().map(|l| l.name()).collect();
    eprintln!(
        "kerai: daemon {worker} {} (lanes: {}; citation cycle every {} s, agent {})",
        if args.once {
            "doing what waits, then exiting"
        } else {
            "running until SIGTERM / Ctrl-C"
        },
        names.join(", "),
        args.rate,
        args.agent
    );
    {
        let shared = shared.clone();
        tokio::spawn(async move {
            crate::exit::stop_requested().await;
            eprintln!("kerai: daemon stopping: finishing what is in hand");
            shared.stop.store(true, Ordering::SeqCst);
        });
    }
    let beating = tokio::spawn(heartbeat(shared.clone()));
    // The job log policy runs once before the lanes start, so it never makes partitions while
    // this daemon's own crawl writes log lines; then every hour beside them.
    let first = upkeep_once(url).await;
    let upkeep = tokio::spawn(log_upkeep(shared.clone(), first));

    let start = |lane: Lane| -> tokio::task::JoinHandle<()> {
        match lane {
            Lane::Site => tokio::spawn(lanes::site(shared.clone())),
            Lane::Resolve => tokio::spawn(lanes::resolve(
                shared.clone(),
                args.agent.clone(),
                Duration::from_secs_f64(args.rate),
            )),
            Lane::Embed => tokio::spawn(lanes::embed(shared.clone())),
        }
    };
    let order = [Lane::Site, Lane::Resolve, Lane::Embed];
    if args.once {
        // One round, in pipeline order: crawl what is queued, grow the corpus from what the
        // crawl found, embed what both made.
        for lane in order.into_iter().filter(|l| wanted(*l)) {
            let mut one = vec![start(lane)];
            wait_or_stop(&shared, &mut one, args.stop_timeout).await;
            if shared.stopping() {
                break;
            }
        }
    } else {
        let mut all: Vec<_> = order
            .into_iter()
            .filter(|l| wanted(*l))
            .map(start)
            .collect();
        wait_or_stop(&shared, &mut all, args.stop_timeout).await;
    }
    shared.stop.store(true, Ordering::SeqCst);
    beating.abort();
    // A job log policy run in hand is let finish (it is one short transaction).
    if tokio::time::timeout(Duration::from_secs(10), upkeep)
        .await
        .is_err()
    {
        eprintln!("kerai: the job log policy did not finish within 10 s: left for the next daemon");
    }

    // Hand back a site job a lane stopped before it could.
    let held = shared.site_job.lock().ok().and_then(|mut j| j.take());
    let failures = shared.failures.load(Ordering::SeqCst);
    let last = shared.snapshot().1;
    if let Ok(client) = db::connect(url).await {
        if let Some(job) = held {
            if let Ok(true) = db::jobs::release(&client, job, &worker, "the daemon stopped").await {
                eprintln!("kerai: handed job {job} back");
            }
        }
        let _ = db::daemons::stopped(&client, &worker, last.as_deref()).await;
    }
    eprintln!("kerai: daemon {worker} stopped");
    Ok(if failures > 0 {
        Code::Partial
    } else {
        Code::Success
    })
}

/// Wait for `lanes` to end; once a stop is asked, give them `grace` seconds, then abort them.
async fn wait_or_stop(shared: &Shared, lanes: &mut Vec<tokio::task::JoinHandle<()>>, grace: u64) {
    while !lanes.iter().all(|h| h.is_finished()) {
        if shared.stopping() {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(grace);
            while !lanes.iter().all(|h| h.is_finished()) && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            for h in lanes.iter() {
                if !h.is_finished() {
                    eprintln!("kerai: a lane did not stop within {grace} s: stopping it");
                    h.abort();
                }
            }
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for h in lanes.drain(..) {
        let _ = h.await;
    }
}

/// Beat every [`BEAT`] with what the lanes do, reconnecting quietly when the database is gone.
async fn heartbeat(shared: Arc<Shared>) {
    let mut client: Option<tokio_postgres::Client> = None;
    loop {
        if client.as_ref().is_none_or(|c| c.is_closed()) {
            client = db::connect(&shared.url).await.ok();
        }
        if let Some(c) = &client {
            let (work, error) = shared.snapshot();
            if let Err(e) = db::daemons::beat(c, &shared.worker, &work, error.as_deref()).await {
                if let Some(msg) = error {
                    // Keep it for the next beat.
                    if let Ok(mut slot) = shared.error.lock() {
                        slot.get_or_insert(msg);
                    }
                }
                // A read-only database is reported by the lanes, which pause for it.
                if !c.is_closed() && availability::classify(&db::message(&e)).is_none() {
                    eprintln!("kerai: warning: heartbeat failed: {}", db::message(&e));
                }
                client = None;
            }
        }
        tokio::time::sleep(BEAT_AT_MOST).await;
        tokio::select! {
            _ = tokio::time::sleep(BEAT - BEAT_AT_MOST) => {}
            _ = shared.changed.notified() => {}
        }
    }
}

/// Apply the job log policy (`kerai.maintain_job_logs`) once, on a connection of its own so
/// that the heartbeat never waits on it; returns when to apply it next (a minute when the
/// database was away or read-only, or the policy gave way to busy log writers).
async fn upkeep_once(url: &str) -> Duration {
    let Ok(c) = db::connect(url).await else {
        return Duration::from_secs(60);
    };
    match db::daemons::maintain_job_logs(&c).await {
        Ok(done) => {
            let changed = ["weeks_made", "weeks_dropped", "default_rows_deleted"]
                .iter()
                .any(|k| done[k].as_i64().unwrap_or(0) > 0);
            if changed {
                eprintln!("kerai: job logs kept to the retention policy: {done}");
            }
            LOG_UPKEEP
        }
        Err(e) if availability::classify(&db::message(&e)).is_some() => Duration::from_secs(60),
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::LOCK_NOT_AVAILABLE) => {
            Duration::from_secs(60)
        }
        Err(e) => {
            eprintln!(
                "kerai: warning: the job log policy (kerai.maintain_job_logs) failed: {}",
                db::message(&e)
            );
            LOG_UPKEEP
        }
    }
}

/// Apply the job log policy every [`LOG_UPKEEP`] after `first`, until the daemon stops.
async fn log_upkeep(shared: Arc<Shared>, first: Duration) {
    let mut next = first;
    loop {
        shared.pause(next).await;
        if shared.stopping() {
            return;
        }
        next = upkeep_once(&shared.url).await;
    }
}
