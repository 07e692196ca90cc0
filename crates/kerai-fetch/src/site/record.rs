//! The recorder: results go to Postgres in batches (`db::jobs::record`), on connections of
//! their own, so fetching never waits for the database and the database sees few, large
//! transactions. Batches are written on several connections side by side ([`connections`],
//! two by default; `kerai._job_writers` says what a batch waits for). A batch the database
//! refuses is retried item by item, so one bad page fails alone; a database that refuses
//! everything (read-only, away) fails no page; a batch chosen as a deadlock's victim is
//! written again.

use kerai_core::wire::site::{JobError, RecordCounts};
use kerai_core::wire::site_result::{JobResult, Outcome};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::Client;

const BATCH: usize = 32;
const MAX_WAIT: Duration = Duration::from_millis(250);

/// Connections a recorder writes on, each one batch at a time: `KERAI_RECORD_CONNECTIONS`,
/// 1 to 8, default 2.
pub fn connections() -> usize {
    std::env::var("KERAI_RECORD_CONNECTIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|n| (1..=8).contains(n))
        .unwrap_or(2)
}

/// What the recorder has written so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    pub new: u64,
    pub updated: u64,
    pub unchanged: u64,
    pub duplicate: u64,
    pub failed: u64,
    pub skipped: u64,
    pub stale: u64,
    pub links: u64,
}

impl Totals {
    pub fn done(&self) -> u64 {
        self.new + self.updated + self.unchanged + self.duplicate + self.failed + self.skipped
    }

    fn add(&mut self, counts: &RecordCounts) {
        self.new += counts.new;
        self.updated += counts.updated;
        self.unchanged += counts.unchanged;
        self.duplicate += counts.duplicate;
        self.failed += counts.failed;
        self.skipped += counts.skipped;
        self.stale += counts.stale;
        self.links += counts.links;
    }
}

enum Msg {
    Item(Box<JobResult>),
    Flush(oneshot::Sender<Result<(), String>>),
}

/// What a writer is handed: a batch to record, or a barrier it answers once everything handed
/// to it before is written (with the last error since the previous barrier).
enum Work {
    Batch(Vec<JobResult>),
    Barrier(oneshot::Sender<Option<String>>),
}

struct Writer {
    tx: mpsc::Sender<Work>,
    busy: Arc<AtomicUsize>,
}

#[derive(Clone)]
pub struct Recorder {
    tx: mpsc::Sender<Msg>,
    pub totals: Arc<Mutex<Totals>>,
}

impl Recorder {
    /// A recorder writing batches on each of `dbs` (one batch at a time per connection).
    pub fn spawn(dbs: Vec<Client>, job: uuid::Uuid, worker: String) -> Recorder {
        let (tx, rx) = mpsc::channel(1024);
        let totals = Arc::new(Mutex::new(Totals::default()));
        let writers = dbs
            .into_iter()
            .map(|db| {
                let (wtx, wrx) = mpsc::channel(1);
                let busy = Arc::new(AtomicUsize::new(0));
                tokio::spawn(write_loop(
                    db,
                    job,
                    worker.clone(),
                    wrx,
                    totals.clone(),
                    busy.clone(),
                ));
                Writer { tx: wtx, busy }
            })
            .collect();
        tokio::spawn(run(rx, writers));
        Recorder { tx, totals }
    }

    pub async fn send(&self, item: Box<JobResult>) -> Result<(), String> {
        self.tx
            .send(Msg::Item(item))
            .await
            .map_err(|_| "the recorder stopped".to_string())
    }

    /// Wait until everything sent so far is written.
    pub async fn flush(&self) -> Result<(), String> {
        let (tx, rx) = oneshot::channel();
        self.tx
            .send(Msg::Flush(tx))
            .await
            .map_err(|_| "the recorder stopped".to_string())?;
        rx.await.map_err(|_| "the recorder stopped".to_string())?
    }

    pub fn totals(&self) -> Totals {
        self.totals.lock().map(|t| t.clone()).unwrap_or_default()
    }
}

/// Gathers results into batches and hands each to a writer.
async fn run(mut rx: mpsc::Receiver<Msg>, writers: Vec<Writer>) {
    let mut buf: Vec<JobResult> = Vec::new();
    // A result waits at most MAX_WAIT from its arrival (not from the latest one: a slow,
    // steady stream of results must not wait for a full batch).
    let mut due = tokio::time::Instant::now();
    loop {
        let msg = if buf.is_empty() {
            let m = rx.recv().await;
            due = tokio::time::Instant::now() + MAX_WAIT;
            m
        } else {
            match tokio::time::timeout_at(due, rx.recv()).await {
                Ok(m) => m,
                Err(_) => {
                    hand_over(&writers, &mut buf).await;
                    continue;
                }
            }
        };
        match msg {
            None => {
                hand_over(&writers, &mut buf).await;
                let _ = barrier(&writers).await;
                return;
            }
            Some(Msg::Item(v)) => {
                buf.push(*v);
                if buf.len() >= BATCH {
                    hand_over(&writers, &mut buf).await;
                }
            }
            Some(Msg::Flush(ack)) => {
                hand_over(&writers, &mut buf).await;
                let _ = ack.send(match barrier(&writers).await {
                    Some(e) => Err(e),
                    None => Ok(()),
                });
            }
        }
    }
}

/// Hand the batch to an idle writer (the first one when several are), else to the first that
/// can take it.
async fn hand_over(writers: &[Writer], buf: &mut Vec<JobResult>) {
    if buf.is_empty() {
        return;
    }
    let batch = std::mem::take(buf);
    let idle = writers.iter().find(|w| w.busy.load(Ordering::SeqCst) == 0);
    let writer = match idle {
        Some(w) => w,
        None => {
            let waits = writers.iter().map(|w| Box::pin(w.tx.reserve()));
            let (_, i, _) = futures_util::future::select_all(waits).await;
            &writers[i]
        }
    };
    writer.busy.fetch_add(1, Ordering::SeqCst);
    if writer.tx.send(Work::Batch(batch)).await.is_err() {
        writer.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Wait until every writer has written what it was handed; the last error, if any.
async fn barrier(writers: &[Writer]) -> Option<String> {
    let mut acks = Vec::new();
    for w in writers {
        let (tx, rx) = oneshot::channel();
        if w.tx.send(Work::Barrier(tx)).await.is_ok() {
            acks.push(rx);
        }
    }
    let mut last = None;
    for rx in acks {
        if let Ok(Some(e)) = rx.await {
            last = Some(e);
        }
    }
    last
}

async fn write_loop(
    db: Client,
    job: uuid::Uuid,
    worker: String,
    mut rx: mpsc::Receiver<Work>,
    totals: Arc<Mutex<Totals>>,
    busy: Arc<AtomicUsize>,
) {
    let mut last_error: Option<String> = None;
    while let Some(work) = rx.recv().await {
        match work {
            Work::Batch(mut batch) => {
                write(&db, job, &worker, &mut batch, &totals, &mut last_error).await;
                busy.fetch_sub(1, Ordering::SeqCst);
            }
            Work::Barrier(ack) => {
                let _ = ack.send(last_error.take());
            }
        }
    }
}

async fn write(
    db: &Client,
    job: uuid::Uuid,
    worker: &str,
    buf: &mut Vec<JobResult>,
    totals: &Arc<Mutex<Totals>>,
    last_error: &mut Option<String>,
) {
    if buf.is_empty() {
        return;
    }
    let batch = std::mem::take(buf);
    match record(db, job, worker, &batch).await {
        Ok(counts) => add(totals, &counts),
        // A database that is read-only or away refuses every item alike: none is failed for
        // it. The batch's URLs stay leased to this worker and are fetched again on resume.
        Err(e) if crate::db::availability::classify(&e).is_some() => {
            *last_error = Some(format!("cannot record results: {e}"));
        }
        Err(_) => {
            // Isolate the item the database refused; the others are written one by one.
            for item in batch {
                match record(db, job, worker, std::slice::from_ref(&item)).await {
                    Ok(counts) => add(totals, &counts),
                    Err(e) if crate::db::availability::classify(&e).is_some() => {
                        *last_error = Some(format!("cannot record results: {e}"));
                    }
                    Err(e) => {
                        let error = JobError {
                            kind: "storage".into(),
                            message: format!("kerai could not store {}: {e}", item.url),
                        };
                        let failed = JobResult {
                            attempts: item.attempts,
                            ..JobResult::refused(item.url_id, &item.url, Outcome::Failed, error)
                        };
                        match record(db, job, worker, &[failed]).await {
                            Ok(counts) => add(totals, &counts),
                            Err(e) => *last_error = Some(format!("cannot record results: {e}")),
                        }
                    }
                }
            }
        }
    }
}

/// Record `batch` in one transaction. Two batches written side by side may each wait for a row
/// the other holds (two pages naming each other canonical, say): Postgres ends one of them and
/// it is written again, whole.
async fn record(
    db: &Client,
    job: uuid::Uuid,
    worker: &str,
    batch: &[JobResult],
) -> Result<RecordCounts, String> {
    let mut tries = 0;
    loop {
        tries += 1;
        match crate::db::jobs::record(db, job, worker, batch).await {
            Err(e) if tries < 5 && is_transient(&e) => continue,
            done => return done.map_err(|e| crate::db::message(&e)),
        }
    }
}

/// A deadlock's victim, or a serialization failure: the same transaction succeeds when run again.
fn is_transient(e: &tokio_postgres::Error) -> bool {
    use tokio_postgres::error::SqlState;
    matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE
    )
}

fn add(totals: &Arc<Mutex<Totals>>, counts: &RecordCounts) {
    if let Ok(mut t) = totals.lock() {
        t.add(counts);
    }
}
