//! A target's crawl schedule: a pg_cron job named `kerai:<target>` that queues a job
//! (`kerai.enqueue_job`) for a `kerai worker` to run.

use crate::db;
use crate::exit::Failure;
use chrono::{DateTime, Utc};
use kerai_core::crawl::cron;
use tokio_postgres::Client;

pub struct Schedule {
    pub target: String,
    pub cron: String,
    pub next_run: Option<DateTime<Utc>>,
}

pub fn job_name(target: &str) -> String {
    format!("kerai:{target}")
}

/// The kerai schedules pg_cron holds, with their next run (empty when pg_cron is absent).
pub async fn schedules(client: &Client) -> Result<Vec<Schedule>, Failure> {
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
