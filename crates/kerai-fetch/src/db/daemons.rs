//! The daemon registry (`kerai daemon`): `kerai._daemon_beat` and `kerai._daemon_stopped`;
//! `kerai.crawler_status()` reads it.

use serde_json::Value;
use tokio_postgres::{Client, Error};

/// Register (first call) or renew the heartbeat of daemon `worker`, with what it does now and
/// a new error when there is one.
pub async fn beat(
    client: &Client,
    worker: &str,
    work: &Value,
    error: Option<&str>,
) -> Result<u64, Error> {
    client
        .execute(
            "SELECT kerai._daemon_beat($1, $2, $3, $4)",
            &[&worker, work, &env!("CARGO_PKG_VERSION"), &error],
        )
        .await
}

/// Mark daemon `worker` stopped, with the error that stopped it if any.
pub async fn stopped(client: &Client, worker: &str, error: Option<&str>) -> Result<u64, Error> {
    client
        .execute("SELECT kerai._daemon_stopped($1, $2)", &[&worker, &error])
        .await
}

/// Apply the job log policy (`kerai.maintain_job_logs`: weekly partitions made ahead, those
/// past the retention dropped); returns what it did, as JSON.
pub async fn maintain_job_logs(client: &Client) -> Result<Value, Error> {
    let row = client
        .query_one("SELECT kerai.maintain_job_logs()", &[])
        .await?;
    Ok(row.get(0))
}
