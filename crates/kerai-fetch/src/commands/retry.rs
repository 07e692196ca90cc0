//! `kerai retry-failures`: crawl again what failed in a recent window.

use crate::args::{Format, RetryArgs};
use crate::exit::{Code, Failure};
use crate::jobs::{execute, launched_by_default, Flags};
use crate::output::print_json;
use crate::target::size::parse_duration;
use crate::{db, target};
use serde_json::json;

pub async fn run(url: &str, args: RetryArgs) -> Result<Code, Failure> {
    let window =
        parse_duration(&args.window).map_err(|e| Failure::critical(format!("--window: {e}")))?;
    let client = db::connect(url).await?;
    let t = match &args.target {
        Some(n) => target::store::load(&client, n).await?,
        None => target::store::only(&client).await?,
    };
    let secs = window.as_secs_f64();
    let rows = client
        .query(
            "SELECT DISTINCT u.url FROM kerai.job_urls u JOIN kerai.scrape_jobs j ON j.id = u.job_id
               LEFT JOIN kerai.pages p ON p.target_id = j.target_id AND p.url_hash = u.url_hash
              WHERE j.target_id = $1 AND u.status = 'failed'
                AND u.finished_at >= now() - make_interval(secs => $2)
                AND coalesce(p.last_status, 'failed') = 'failed'
              ORDER BY u.url",
            &[&t.id, &secs],
        )
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?;
    let urls: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    let json = args.format == Format::Json;
    if urls.is_empty() {
        if json {
            print_json(
                &json!({"target": t.name, "window": args.window, "retried_urls": [], "job": null}),
            );
        } else {
            println!("no failures of {} in the last {}", t.name, args.window);
        }
        return Ok(Code::Success);
    }
    let note = format!(
        "retrying {} URLs that failed in the last {}",
        urls.len(),
        args.window
    );
    // JSON on standard output is one document: the note goes to standard error.
    if json {
        eprintln!("kerai: {note}");
    } else {
        println!("{note}");
    }
    let flags = Flags {
        queue: false,
        join: false,
        no_progress: args.no_progress,
        format: args.format,
        embed: true,
        report_extra: Some(json!({"window": args.window, "retried_urls": urls})),
    };
    execute(
        url,
        &client,
        &t,
        "retry",
        json!({"urls": urls}),
        &launched_by_default(),
        &flags,
    )
    .await
}
