//! `kerai schedule set|get|remove`: crawls scheduled with pg_cron. The cron job queues a job
//! (kerai.enqueue_job); a running `kerai worker` runs it.

use crate::args::{Format, ScheduleCommand};
use crate::exit::{Code, Failure};
use crate::output::{iso, print_json, Table};
use crate::target::schedule::{job_name, next_run, schedules, Schedule};
use crate::{db, target};
use kerai_core::ops::cron;
use serde_json::{json, Value};
use tokio_postgres::Client;

pub async fn run(url: &str, cmd: ScheduleCommand) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    match cmd {
        ScheduleCommand::Set { target, cron: expr } => {
            cron::validate(&expr).map_err(|e| {
                Failure::critical(format!("\"{expr}\" is not a valid cron expression: {e}"))
                    .with_hint("five fields: minute hour day-of-month month day-of-week, e.g. '0 3 * * 1' (Mondays 03:00)")
            })?;
            let t = pick(&client, target).await?;
            require_pg_cron(&client).await?;
            let command = format!(
                "SELECT kerai.enqueue_job({}, 'incremental', '{{}}', 'pg_cron')",
                quote(&t.name)
            );
            client
                .query_one(
                    "SELECT cron.schedule($1, $2, $3)",
                    &[&job_name(&t.name), &expr, &command],
                )
                .await
                .map_err(|e| {
                    Failure::critical(format!("pg_cron refused the schedule: {}", db::message(&e)))
                })?;
            let next = next_run(&expr);
            println!(
                "scheduled {} at '{}'; next run {} (a running `kerai daemon` or `kerai worker` executes it)",
                t.name,
                expr,
                next.as_ref().map(iso).unwrap_or_else(|| "-".into())
            );
            Ok(Code::Success)
        }
        ScheduleCommand::Get { target, format } => {
            // Without pg_cron there are no schedules: say why, and answer that.
            if require_pg_cron(&client).await.is_err() {
                eprintln!(
                    "kerai: pg_cron is not created in this database, so nothing is scheduled (CREATE EXTENSION pg_cron adds it)"
                );
            }
            let all = schedules(&client).await?;
            let chosen: Vec<&Schedule> = all
                .iter()
                .filter(|s| target.as_ref().is_none_or(|t| *t == s.target))
                .collect();
            if format == Format::Json {
                print_json(&Value::Array(
                    chosen
                        .iter()
                        .map(|s| {
                            json!({
                                "target": s.target, "cron": s.cron, "job_name": job_name(&s.target),
                                "next_run_at": s.next_run.as_ref().map(iso),
                            })
                        })
                        .collect(),
                ));
                return Ok(Code::Success);
            }
            let mut t = Table::new(&["target", "cron", "next run"]);
            for s in chosen {
                t.row(vec![
                    s.target.clone(),
                    s.cron.clone(),
                    s.next_run.as_ref().map(iso).unwrap_or_else(|| "-".into()),
                ]);
            }
            if t.is_empty() {
                println!(
                    "no schedules; add one with `kerai schedule set TARGET` (weekly by default)"
                );
            } else {
                println!("{}", t.render());
            }
            Ok(Code::Success)
        }
        ScheduleCommand::Remove { target } => {
            let t = pick(&client, target).await?;
            require_pg_cron(&client).await?;
            let removed = client
                .query_opt(
                    "SELECT cron.unschedule(jobid) FROM cron.job WHERE jobname = $1",
                    &[&job_name(&t.name)],
                )
                .await
                .map_err(|e| {
                    Failure::critical(format!("cannot remove the schedule: {}", db::message(&e)))
                })?;
            match removed {
                Some(_) => println!("removed the schedule of {}", t.name),
                None => println!("{} had no schedule", t.name),
            }
            Ok(Code::Success)
        }
    }
}

async fn pick(
    client: &Client,
    target: Option<String>,
) -> Result<target::store::StoredTarget, Failure> {
    match target {
        Some(n) => target::store::load(client, &n).await,
        None => target::store::only(client).await,
    }
}

async fn require_pg_cron(client: &Client) -> Result<(), Failure> {
    let has = client
        .query_one("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_cron'), current_database()", &[])
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?;
    if has.get::<_, bool>(0) {
        return Ok(());
    }
    let dbname: String = has.get(1);
    Err(Failure::critical(format!("pg_cron is not installed in database {dbname}")).with_hint(format!(
        "run CREATE EXTENSION pg_cron; the server needs shared_preload_libraries = 'pg_cron' and cron.database_name = '{dbname}'"
    )))
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}
