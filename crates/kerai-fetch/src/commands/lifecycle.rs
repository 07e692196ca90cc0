//! A target's life after it is made: `kerai config disable|enable|delete`, and `kerai cancel`
//! for one of its jobs.

use crate::db;
use crate::exit::{Code, Failure};
use crate::target::{schedule, store};
use serde_json::Value;

/// The database's refusal, with its hint (what to do).
fn failed(e: &tokio_postgres::Error) -> Failure {
    Failure::critical(db::message(e))
}

/// `kerai config disable NAME` / `enable NAME`.
pub async fn set_active(url: &str, name: &str, active: bool) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    let t = store::load(&client, name).await?;
    let queued: i64 = client
        .query_one(
            "SELECT count(*) FROM kerai.scrape_jobs WHERE target_id = $1 AND status = 'PENDING'",
            &[&t.id],
        )
        .await
        .map_err(|e| failed(&e))?
        .get(0);
    let was: bool = client
        .query_one(
            "SELECT kerai.set_target_active($1, $2)",
            &[&t.name, &active],
        )
        .await
        .map_err(|e| failed(&e))?
        .get(0);
    match (active, was) {
        (false, true) => println!(
            "target {} disabled: its schedule queues nothing and no worker or daemon runs it ({queued} queued jobs cancelled); `kerai config enable {}` undoes it",
            t.name, t.name
        ),
        (false, false) => println!("target {} was already disabled", t.name),
        (true, false) => println!("target {} enabled", t.name),
        (true, true) => println!("target {} was already enabled", t.name),
    }
    Ok(Code::Success)
}

/// `kerai config delete NAME [--yes] [--remove-documents]`.
pub async fn delete(
    url: &str,
    name: &str,
    yes: bool,
    remove_documents: bool,
) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    let t = store::load(&client, name).await?;
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM kerai.pages WHERE target_id = $1),
                    (SELECT count(*) FROM kerai.page_versions v JOIN kerai.pages p ON p.id = v.page_id WHERE p.target_id = $1),
                    (SELECT count(*) FROM kerai.scrape_jobs WHERE target_id = $1),
                    (SELECT count(DISTINCT v.document_id) FROM kerai.page_versions v JOIN kerai.pages p ON p.id = v.page_id
                      WHERE p.target_id = $1)",
            &[&t.id],
        )
        .await
        .map_err(|e| failed(&e))?;
    let (pages, versions, jobs, documents): (i64, i64, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    let documents_fate = if remove_documents {
        format!(
            "its {documents} documents (nodes, chunks, vectors) are removed from the corpus too"
        )
    } else {
        format!(
            "its {documents} documents stay in the corpus (--remove-documents removes them too)"
        )
    };
    let what = format!(
        "target {}: {pages} pages, {versions} versions, {jobs} jobs with their URLs and logs, its config history and its schedule; {documents_fate}",
        t.name
    );
    if !yes {
        println!("would delete {what}");
        return Err(
            Failure::critical(format!("target {} was not deleted", t.name)).with_hint(format!(
                "run `kerai config delete {} --yes` to delete it",
                t.name
            )),
        );
    }
    let running: Option<uuid::Uuid> = client
        .query_opt(
            "SELECT id FROM kerai.scrape_jobs WHERE target_id = $1 AND status = 'RUNNING' LIMIT 1",
            &[&t.id],
        )
        .await
        .map_err(|e| failed(&e))?
        .map(|r| r.get(0));
    if let Some(job) = running {
        return Err(
            Failure::critical(format!("target {} has a running job ({job})", t.name))
                .with_hint(format!("cancel it first: kerai cancel {job}")),
        );
    }
    // The schedule first: pg_cron would otherwise queue jobs of a target that is gone.
    if schedule::cron_present(&client).await? {
        client
            .execute(
                "SELECT cron.unschedule(jobid) FROM cron.job WHERE jobname = $1",
                &[&schedule::job_name(&t.name)],
            )
            .await
            .map_err(|e| {
                Failure::critical(format!("cannot remove the schedule: {}", db::message(&e)))
            })?;
    }
    let out: Value = client
        .query_one(
            "SELECT kerai.delete_target($1, $2)",
            &[&t.name, &!remove_documents],
        )
        .await
        .map_err(|e| failed(&e))?
        .get(0);
    println!(
        "deleted target {}: {} pages, {} versions, {} jobs; {} documents {}",
        t.name,
        out["pages"],
        out["versions"],
        out["jobs"],
        out["documents"],
        if remove_documents {
            "removed"
        } else {
            "kept in the corpus"
        }
    );
    Ok(Code::Success)
}

/// `kerai cancel JOB`.
pub async fn cancel(url: &str, job: &str) -> Result<Code, Failure> {
    let id = uuid::Uuid::parse_str(job.trim()).map_err(|_| {
        Failure::critical(format!("\"{job}\" is not a job id"))
            .with_hint("job ids are UUIDs: see `kerai status` or `kerai report --format json`")
    })?;
    let client = db::connect(url).await?;
    let before: Option<String> = client
        .query_opt("SELECT status FROM kerai.scrape_jobs WHERE id = $1", &[&id])
        .await
        .map_err(|e| failed(&e))?
        .map(|r| r.get(0));
    let status: String = client
        .query_one("SELECT kerai.cancel_job($1)", &[&id])
        .await
        .map_err(|e| failed(&e))?
        .get(0);
    let was_open = matches!(before.as_deref(), Some("PENDING") | Some("RUNNING"));
    if status == "CANCELLED" && was_open {
        println!("job {id} cancelled (a fetcher running it stops at its next heartbeat)");
    } else {
        println!("job {id} had already ended {status}: nothing to cancel");
    }
    Ok(Code::Success)
}
