//! `kerai logs`: structured job logs, filtered by level, time, target or job.

use crate::args::{Format, Level, LogsArgs};
use crate::db;
use crate::exit::{Code, Failure};
use crate::output::{iso, parse_iso, print_json};
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

pub async fn run(url: &str, args: LogsArgs) -> Result<Code, Failure> {
    let since: Option<DateTime<Utc>> = match &args.since {
        Some(s) => Some(parse_iso(s).map_err(Failure::critical)?),
        None => None,
    };
    let levels: Vec<String> = match args.level {
        Level::Info => vec!["INFO", "WARN", "ERROR"],
        Level::Warn => vec!["WARN", "ERROR"],
        Level::Error => vec!["ERROR"],
    }
    .into_iter()
    .map(String::from)
    .collect();
    let client = db::connect(url).await?;
    if let Some(t) = &args.target {
        crate::target::store::load(&client, t).await?;
    }
    let rows = client
        .query(
            "SELECT * FROM (
                 SELECT l.id, l.created_at, l.level, l.event, l.message, l.url, l.details, l.job_id::text, t.name
                   FROM kerai.job_logs l LEFT JOIN kerai.targets t ON t.id = l.target_id
                  WHERE l.level = ANY($1)
                    AND ($2::timestamptz IS NULL OR l.created_at >= $2)
                    AND ($3::text IS NULL OR t.name = $3 OR t.id::text = $3)
                    AND ($4::text IS NULL OR l.job_id::text = $4)
                  ORDER BY l.id DESC LIMIT $5) x
             ORDER BY id",
            &[&levels, &since, &args.target, &args.job, &args.limit],
        )
        .await
        .map_err(|e| Failure::critical(format!("cannot read logs: {}", db::message(&e))))?;
    match args.format {
        Format::Json => {
            let items: Vec<Value> = rows
                .iter()
                .map(|r| {
                    json!({
                        "time": iso(&r.get::<_, DateTime<Utc>>(1)),
                        "level": r.get::<_, String>(2),
                        "event": r.get::<_, String>(3),
                        "message": r.get::<_, String>(4),
                        "url": r.get::<_, Option<String>>(5),
                        "details": r.get::<_, Value>(6),
                        "job": r.get::<_, Option<String>>(7),
                        "target": r.get::<_, Option<String>>(8),
                    })
                })
                .collect();
            print_json(&Value::Array(items));
        }
        Format::Table => {
            for r in &rows {
                println!(
                    "{}  {:<5}  {:<15}  {}",
                    iso(&r.get::<_, DateTime<Utc>>(1)),
                    r.get::<_, String>(2),
                    r.get::<_, String>(3),
                    r.get::<_, String>(4)
                );
            }
            if rows.is_empty() {
                eprintln!("kerai: no log lines match");
            }
        }
    }
    Ok(Code::Success)
}
