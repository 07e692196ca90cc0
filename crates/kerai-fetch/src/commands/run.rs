//! `kerai run`: crawl a target now (or resume its crashed job, or join its running one).

use crate::args::RunArgs;
use crate::exit::{Code, Failure};
use crate::jobs::{dry_run, execute, launched_by_default, Flags};
use crate::output::parse_iso;
use crate::{db, target};
use serde_json::json;

pub async fn run(url: &str, args: RunArgs) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    let t = match &args.target {
        Some(n) => target::store::load(&client, n).await?,
        None => target::store::only(&client).await?,
    };
    if args.dry_run {
        let allowed = db::address_guard(&client)
            .await
            .map_err(Failure::critical)?;
        return dry_run(&t, &allowed, args.since.as_deref(), args.format).await;
    }
    let (mode, options) = if args.full {
        ("full", json!({}))
    } else if let Some(s) = &args.since {
        let since = parse_iso(s).map_err(Failure::critical)?;
        ("since", json!({"since": since.to_rfc3339()}))
    } else if let Some(u) = &args.url {
        ("url", json!({"url": u}))
    } else {
        ("incremental", json!({}))
    };
    let launched_by = args.launched_by.clone().unwrap_or_else(launched_by_default);
    let flags = Flags {
        queue: args.queue,
        join: args.join,
        no_progress: args.no_progress,
        format: args.format,
        embed: !args.no_embed,
        report_extra: None,
    };
    execute(url, &client, &t, mode, options, &launched_by, &flags).await
}
