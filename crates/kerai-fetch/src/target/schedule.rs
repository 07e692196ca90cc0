//! A target's crawl schedule: a pg_cron job named `kerai:<target>` that queues a job
//! (`kerai.enqueue_job`) for a `kerai worker` to run.

use crate::db;
use crate::exit::Failure;
use chrono::{DateTime, Utc};
use kerai_core::ops::cron;
use tokio_postgres::Client;

pub struct Schedule {
    pub target: String,
    pub cron: String,
    pub next_run: Option<DateTime<Utc>>,
}

pub fn job_name(target: &str) -> String {
    format!("kerai:{target}")
}

/// Is pg_cron created in this database? Asked first, so that a database without it logs no
/// error for a query of `cron.job`.
pub async fn cron_present(client: &Client) -> Result<bool, Failure> {
    client
        .query_one("SELECT to_regclass('cron.job') IS NOT NULL", &[])
        .await
        .map(|r| r.get(0))
        .map_err(|e| Failure::critical(db::message(&e)))
}

/// The kerai schedules pg_cron holds, with their next run (empty when pg_cron is absent).
pub async fn schedules(client: &Client) -> Result<Vec<Schedule>, Failure> {
    if !cron_present(client).await? {
        return Ok(Vec::new());
    }
    let rows = client
        .query(
            "SELECT substr(jobname, 7), schedule FROM cron.job WHERE jobname LIKE 'kerai:%' ORDER BY jobname",
            &[],
        )
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?;
    Ok(rows
        .iter()
        .map(|r| {
            let expr: String = r.get(1);
            Schedule {
                target: r.get(0),
                next_run: next_run(&expr),
                cron: expr,
            }
        })
        .collect())
}

pub fn next_run(expr: &str) -> Option<DateTime<Utc>> {
    cron::next_runs(expr, Utc::now(), 1)
        .ok()
        .and_then(|v| v.into_iter().next())
}
