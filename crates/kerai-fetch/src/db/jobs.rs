//! Site crawl jobs (`kerai crawl-site`, `kerai worker`): the `kerai._job_*` functions.
//!
//! The job rows [`begin`] and [`begin_next`] return are read by `jobs::spec_from_row`; the URL
//! rows [`claim_urls`] returns by the runner's `claim`.

use kerai_core::wire::site::{NewUrl, RecordCounts};
use kerai_core::wire::site_result::JobResult;
use serde_json::Value;
use tokio_postgres::{Client, Error, Row};

/// Start job `job` as `worker` (`kerai._job_begin`); `None` when it cannot be started.
pub async fn begin(
    client: &Client,
    worker: &str,
    job: uuid::Uuid,
    lease: i32,
) -> Result<Option<Row>, Error> {
    client
        .query_opt(
            "SELECT j.id, t.name, t.base_url, j.mode, j.options, j.config, j.urls_enqueued, j.started_at
                   FROM kerai._job_begin($1, $2, NULL, $3) j JOIN kerai.targets t ON t.id = j.target_id",
            &[&worker, &job, &lease],
        )
        .await
}

/// Start the next queued job as `worker` (`kerai._job_begin`); `None` when none waits.
pub async fn begin_next(client: &Client, worker: &str, lease: i32) -> Result<Option<Row>, Error> {
    client
        .query_opt(
            "SELECT j.id, t.name, t.base_url, j.mode, j.options, j.config, j.urls_enqueued, j.started_at
                   FROM kerai._job_begin($1, NULL, NULL, $2) j JOIN kerai.targets t ON t.id = j.target_id",
            &[&worker, &lease],
        )
        .await
}

/// Take job `job` over from `holder`, a fetcher known to be gone: the URLs it held are queued
/// again (`kerai._job_take_over`); false when the job no longer runs under it.
pub async fn take_over(
    client: &Client,
    job: uuid::Uuid,
    worker: &str,
    holder: &str,
) -> Result<bool, Error> {
    client
        .query_one(
            "SELECT kerai._job_take_over($1, $2, $3)",
            &[&job, &worker, &holder],
        )
        .await
        .map(|r| r.get(0))
}

/// Running jobs whose lease has not ended, with their holders (`worker`).
pub async fn running_holders(client: &Client) -> Result<Vec<(uuid::Uuid, String)>, Error> {
    let rows = client
        .query(
            "SELECT id, worker FROM kerai.scrape_jobs
              WHERE status = 'RUNNING' AND lease_until >= now() AND worker IS NOT NULL",
            &[],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Hand job `job` back: its lease ends now and the URLs `worker` held are queued again, so it
/// is resumed at once (`kerai._job_release`); false when it no longer runs under `worker`.
pub async fn release(
    client: &Client,
    job: uuid::Uuid,
    worker: &str,
    reason: &str,
) -> Result<bool, Error> {
    client
        .query_one(
            "SELECT kerai._job_release($1, $2, $3)",
            &[&job, &worker, &reason],
        )
        .await
        .map(|r| r.get(0))
}

/// Close a job: `COMPLETED`, or `FAILED` with the error (`kerai._job_finish`); the job's
/// status after it (`RUNNING` when work was left that nobody does).
pub async fn finish(
    client: &Client,
    job: uuid::Uuid,
    worker: &str,
    status: &str,
    error: Option<&str>,
) -> Result<String, Error> {
    client
        .query_one(
            "SELECT (kerai._job_finish($1, $2, $3, $4)).status",
            &[&job, &worker, &status, &error],
        )
        .await
        .map(|r| r.get(0))
}

/// What a job still has for `worker` to wait for (`kerai._job_work_left`): URLs nobody
/// fetches (pending, or leased by a fetcher that is gone), and URLs other fetchers hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkLeft {
    pub claimable: i64,
    pub held: i64,
}

impl WorkLeft {
    pub fn is_none(&self) -> bool {
        self.claimable == 0 && self.held == 0
    }
}

pub async fn work_left(client: &Client, job: uuid::Uuid, worker: &str) -> Result<WorkLeft, Error> {
    client
        .query_one(
            "SELECT claimable, held FROM kerai._job_work_left($1, $2)",
            &[&job, &worker],
        )
        .await
        .map(|r| WorkLeft {
            claimable: r.get(0),
            held: r.get(1),
        })
}

/// Keep the job's leases; the job's status, `RUNNING` while it should go on
/// (`kerai._job_heartbeat`).
pub async fn heartbeat(
    client: &Client,
    job: uuid::Uuid,
    worker: &str,
    lease: i32,
) -> Result<Option<String>, Error> {
    client
        .query_one(
            "SELECT kerai._job_heartbeat($1, $2, $3)",
            &[&job, &worker, &lease],
        )
        .await
        .map(|r| r.get(0))
}

/// Log that the job reached its maximum run time (`kerai._job_log`, WARN MAX_RUNTIME).
pub async fn log_max_runtime(
    client: &Client,
    job: uuid::Uuid,
    message: &str,
) -> Result<u64, Error> {
    client
        .execute(
            "SELECT kerai._job_log($1, 'WARN', 'MAX_RUNTIME', $2)",
            &[&job, &message],
        )
        .await
}

/// Log a seed URL out of the job's scope (`kerai._job_log`, WARN OUT_OF_SCOPE).
pub async fn log_out_of_scope(
    client: &Client,
    job: uuid::Uuid,
    message: &str,
    url: &str,
) -> Result<u64, Error> {
    client
        .execute(
            "SELECT kerai._job_log($1, 'WARN', 'OUT_OF_SCOPE', $2, $3)",
            &[&job, &message, &url],
        )
        .await
}

/// Log that the site has no sitemap (`kerai._job_log`, WARN NO_SITEMAP).
pub async fn log_no_sitemap(client: &Client, job: uuid::Uuid, message: &str) -> Result<u64, Error> {
    client
        .execute(
            "SELECT kerai._job_log($1, 'WARN', 'NO_SITEMAP', $2)",
            &[&job, &message],
        )
        .await
}

/// Log what discovery found (`kerai._job_log`, INFO DISCOVERY).
pub async fn log_discovery(client: &Client, job: uuid::Uuid, note: &str) -> Result<u64, Error> {
    client
        .execute(
            "SELECT kerai._job_log($1, 'INFO', 'DISCOVERY', $2)",
            &[&job, &note],
        )
        .await
}

/// Lease up to `n` of the job's URLs for `lease` seconds (`kerai._job_claim_urls`).
pub async fn claim_urls(
    client: &Client,
    job: uuid::Uuid,
    worker: &str,
    n: i32,
    lease: i32,
) -> Result<Vec<Row>, Error> {
    client
        .query(
            "SELECT * FROM kerai._job_claim_urls($1, $2, $3, $4)",
            &[&job, &worker, &n, &lease],
        )
        .await
}

/// Queue discovered URLs; how many were new (`kerai._job_add_urls`).
pub async fn add_urls(client: &Client, job: uuid::Uuid, urls: &[NewUrl]) -> Result<i32, Error> {
    let urls = Value::Array(urls.iter().map(NewUrl::to_json).collect());
    client
        .query_one("SELECT kerai._job_add_urls($1, $2)", &[&job, &urls])
        .await
        .map(|r| r.get(0))
}

/// Record a batch of results (`kerai._job_record`); the counts it recorded.
pub async fn record(
    client: &Client,
    job: uuid::Uuid,
    worker: &str,
    batch: &[JobResult],
) -> Result<RecordCounts, Error> {
    client
        .query_one(
            "SELECT kerai._job_record($1, $2, $3)",
            &[&job, &worker, &JobResult::batch(batch)],
        )
        .await
        .map(|r| RecordCounts::from_json(r.get::<_, Value>(0)))
}
