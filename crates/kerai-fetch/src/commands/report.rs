//! `kerai report`: what a job found, per document type, with totals; or, with `--html`, the
//! whole corpus as a page (`dashboard/`).

use crate::args::{Format, ReportArgs};
use crate::exit::{Code, Failure};
use crate::output::{iso, print_json};
use crate::{db, target};
use serde_json::{json, Value};

pub async fn run(url: &str, args: ReportArgs) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    if let Some(path) = &args.html {
        let report = crate::dashboard::gather(&client).await?;
        std::fs::write(path, crate::dashboard::page::render(&report)).map_err(|e| {
            Failure::critical(format!("cannot write {}: {e}", path.display()))
                .with_hint("name a file in a directory you can write to")
        })?;
        eprintln!(
            "kerai: wrote {} ({} documents; open it in a browser)",
            path.display(),
            report.documents
        );
        return Ok(Code::Success);
    }
    let job = match &args.job {
        Some(j) => j.clone(),
        None => {
            let t = match &args.target {
                Some(name) => target::store::load(&client, name).await?,
                None => target::store::only(&client).await?,
            };
            let row = client
                .query_opt(
                    "SELECT id::text FROM kerai.scrape_jobs WHERE target_id = $1 AND status <> 'PENDING'
                     ORDER BY coalesce(started_at, scheduled_at) DESC LIMIT 1",
                    &[&t.id],
                )
                .await
                .map_err(|e| Failure::critical(format!("cannot read jobs: {}", db::message(&e))))?;
            match row {
                Some(r) => r.get(0),
                None => {
                    return Err(Failure::critical(format!(
                        "target \"{}\" has not been crawled yet",
                        t.name
                    ))
                    .with_hint(format!("run `kerai run {}`", t.name)))
                }
            }
        }
    };
    let row = client
        .query_opt(
            "SELECT job_id::text, target, status, mode, config_version, launched_by, started_at, finished_at,
                    exit_code, error, metrics
               FROM kerai.job_summary WHERE job_id::text = $1",
            &[&job],
        )
        .await
        .map_err(|e| Failure::critical(format!("cannot read job {job}: {}", db::message(&e))))?
        .ok_or_else(|| Failure::critical(format!("job {job} does not exist")))?;
    let metrics: Value = row.get(10);
    let report = json!({
        "job": row.get::<_, String>(0),
        "target": row.get::<_, String>(1),
        "status": row.get::<_, String>(2),
        "mode": row.get::<_, String>(3),
        "config_version": row.get::<_, i32>(4),
        "launched_by": row.get::<_, String>(5),
        "started_at": row.get::<_, Option<chrono::DateTime<chrono::Utc>>>(6).as_ref().map(iso),
        "finished_at": row.get::<_, Option<chrono::DateTime<chrono::Utc>>>(7).as_ref().map(iso),
        "exit_code": row.get::<_, Option<i32>>(8),
        "error": row.get::<_, Option<String>>(9),
        "metrics": metrics,
    });
    match args.format {
        Format::Json => print_json(&report),
        Format::Table => print!("{}", crate::jobs::render_report(&report)),
    }
    Ok(Code::Success)
}
