//! `kerai report`: what a job found, per document type, with totals.

use crate::cli::{Format, ReportArgs};
use crate::exit::{Code, Failure};
use crate::output::{iso, print_json, Table};
use crate::{db, target};
use serde_json::{json, Value};

pub async fn run(url: &str, args: ReportArgs) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
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
        Format::Table => print!("{}", render(&report)),
    }
    Ok(Code::Success)
}

/// The report as people read it.
pub fn render(r: &Value) -> String {
    let m = &r["metrics"];
    let n = |k: &str| m[k].as_i64().unwrap_or(0);
    let mut out = format!(
        "job {}  target {}  {} ({})  config v{}  launched by {}\nstarted {}  finished {}  duration {} s  throughput {} items/min\n\n",
        r["job"].as_str().unwrap_or("?"),
        r["target"].as_str().unwrap_or("?"),
        r["status"].as_str().unwrap_or("?"),
        r["mode"].as_str().unwrap_or("?"),
        r["config_version"],
        r["launched_by"].as_str().unwrap_or("?"),
        r["started_at"].as_str().unwrap_or("-"),
        r["finished_at"].as_str().unwrap_or("-"),
        m["duration_sec"],
        m["throughput_items_per_min"],
    );
    let mut t = Table::new(&[
        "type",
        "new",
        "updated",
        "unchanged",
        "errors",
        "skipped",
        "total",
    ]);
    let mut types: Vec<(&String, &Value)> = m["subtotals"]
        .as_object()
        .map(|o| o.iter().collect())
        .unwrap_or_default();
    types.sort_by_key(|(k, _)| k.as_str());
    for (ty, c) in types {
        let v = |k: &str| c[k].as_i64().unwrap_or(0).to_string();
        t.row(vec![
            ty.clone(),
            v("new"),
            v("updated"),
            v("unchanged"),
            v("failed"),
            v("skipped"),
            v("total"),
        ]);
    }
    t.row(vec![
        "total".into(),
        n("new_count").to_string(),
        n("updated_count").to_string(),
        n("unchanged_count").to_string(),
        n("error_count").to_string(),
        n("skipped_count").to_string(),
        (n("new_count")
            + n("updated_count")
            + n("unchanged_count")
            + n("error_count")
            + n("skipped_count"))
        .to_string(),
    ]);
    out.push_str(&t.render());
    out.push_str(&format!(
        "\n\npages crawled {}, documents discovered {}, documents processed {}, warnings {}\n",
        n("pages_crawled"),
        n("docs_discovered"),
        n("docs_processed"),
        n("warning_count")
    ));
    if let Some(e) = r["error"].as_str() {
        out.push_str(&format!("error: {e}\n"));
    }
    out
}
