//! The recorder: results go to Postgres in batches (`db::jobs::record`), on a connection of
//! their own, so fetching never waits for the database and the database sees few, large
//! transactions. A batch the database refuses is retried item by item, so one bad page fails
//! alone; a database that refuses everything (read-only, away) fails no page.

use kerai_core::wire::site::{JobError, RecordCounts};
use kerai_core::wire::site_result::{JobResult, Outcome};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::Client;

const BATCH: usize = 32;
const MAX_WAIT: Duration = Duration::from_millis(250);

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

#[derive(Clone)]
pub struct Recorder {
    tx: mpsc::Sender<Msg>,
    pub totals: Arc<Mutex<Totals>>,
}

impl Recorder {
    pub fn spawn(db: Client, job: uuid::Uuid, worker: String) -> Recorder {
        let (tx, rx) = mpsc::channel(1024);
        let totals = Arc::new(Mutex::new(Totals::default()));
        tokio::spawn(run(db, job, worker, rx, totals.clone()));
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

async fn run(
    db: Client,
    job: uuid::Uuid,
    worker: String,
    mut rx: mpsc::Receiver<Msg>,
    totals: Arc<Mutex<Totals>>,
) {
    let mut buf: Vec<JobResult> = Vec::new();
    let mut last_error: Option<String> = None;
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
                    write(&db, job, &worker, &mut buf, &totals, &mut last_error).await;
                    continue;
                }
            }
        };
        match msg {
            None => {
                write(&db, job, &worker, &mut buf, &totals, &mut last_error).await;
                return;
            }
            Some(Msg::Item(v)) => {
                buf.push(*v);
                if buf.len() >= BATCH {
                    write(&db, job, &worker, &mut buf, &totals, &mut last_error).await;
                }
            }
            Some(Msg::Flush(ack)) => {
                write(&db, job, &worker, &mut buf, &totals, &mut last_error).await;
                let _ = ack.send(match last_error.take() {
                    Some(e) => Err(e),
                    None => Ok(()),
                });
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

async fn record(
    db: &Client,
    job: uuid::Uuid,
    worker: &str,
    batch: &[JobResult],
) -> Result<RecordCounts, String> {
    crate::db::jobs::record(db, job, worker, batch)
        .await
        .map_err(|e| crate::db::message(&e))
}

fn add(totals: &Arc<Mutex<Totals>>, counts: &RecordCounts) {
    if let Ok(mut t) = totals.lock() {
        t.add(counts);
    }
}
