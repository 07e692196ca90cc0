//! Site-crawl jobs as the commands run them: queue (or resume, or join) a job, run it with the
//! site crawler, finish it, print its report; and a dry run of a target's scope. `kerai run`,
//! `retry-failures`, `worker` and `config test` call this; the crawler itself is `site/`.

use crate::exit::{Code, Failure};
use crate::holder::{Holder, Liveness};
use crate::output::{iso, parse_iso, print_json, Format, Table};
use crate::site::outage::run_through_outages;
use crate::site::runner::{self, JobSpec, RunOptions};
use crate::site::{discover, scope::Scope};
use crate::target::store::StoredTarget;
use crate::target::TargetConfig;
use crate::{db, http::Http};
use kerai_core::ops::ssrf::AddressGuard;
use serde_json::{json, Value};
use tokio_postgres::Client;

pub struct Flags {
    pub queue: bool,
    pub join: bool,
    pub no_progress: bool,
    pub format: Format,
    /// Embed the chunks waiting for a vector once the crawl is done.
    pub embed: bool,
    /// Fields added to the JSON report (`retry-failures` names the URLs it retried).
    pub report_extra: Option<Value>,
}

pub fn launched_by_default() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "cli".into())
}

pub use crate::holder::worker_name;

/// Lease length: `KERAI_LEASE_SECONDS`, default 60. A killed fetcher's work returns after it.
pub fn lease_seconds() -> i32 {
    std::env::var("KERAI_LEASE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|s: &i32| *s >= 2)
        .unwrap_or(60)
}

/// Queue (or resume, or join) a job of `t`, run it, finish it and print the report.
pub async fn execute(
    url: &str,
    client: &Client,
    t: &StoredTarget,
    mode: &str,
    options: Value,
    launched_by: &str,
    flags: &Flags,
) -> Result<Code, Failure> {
    let worker = worker_name();
    let lease = lease_seconds();
    let running = client
        .query_opt(
            "SELECT id, lease_until < now(), worker, extract(epoch FROM now() - heartbeat_at)::float8,
                    extract(epoch FROM lease_until - now())::float8
               FROM kerai.scrape_jobs WHERE target_id = $1 AND status = 'RUNNING'
              ORDER BY started_at LIMIT 1",
            &[&t.id],
        )
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?;
    // Joined: a running job another fetcher holds, crawled alongside it. A job queued here, or
    // taken over from a fetcher that is gone, is begun (held) by this one.
    let mut joined = false;
    let job: uuid::Uuid = match running {
        None => client
            .query_one(
                "SELECT kerai.enqueue_job($1, $2, $3, $4, 'refuse')",
                &[&t.name, &mode, &options, &launched_by],
            )
            .await
            .map_err(|e| Failure::critical(format!("cannot queue the crawl: {}", db::message(&e))))?
            .get(0),
        Some(r) => {
            let job: uuid::Uuid = r.get(0);
            let expired = r.get::<_, Option<bool>>(1).unwrap_or(false);
            let holder_name = r.get::<_, Option<String>>(2).unwrap_or_default();
            let holder = Holder::parse(&holder_name);
            let liveness = holder.liveness();
            let gone = expired || liveness == Liveness::Gone;
            if gone && !flags.queue {
                // A crashed fetcher's job: take it over, with the URLs it held.
                db::jobs::take_over(client, job, &worker, &holder_name)
                    .await
                    .map_err(|e| Failure::critical(db::message(&e)))?;
                eprintln!("kerai: fetcher {holder_name} is gone; taking its job {job} over");
                job
            } else if flags.join {
                joined = true;
                job
            } else if flags.queue {
                let queued: uuid::Uuid = client
                    .query_one(
                        "SELECT kerai.enqueue_job($1, $2, $3, $4, 'queue')",
                        &[&t.name, &mode, &options, &launched_by],
                    )
                    .await
                    .map_err(|e| Failure::critical(db::message(&e)))?
                    .get(0);
                println!(
                    "queued job {queued} behind running job {job}; `kerai worker` (or `kerai run {}` once it ends) runs it",
                    t.name
                );
                return Ok(Code::Success);
            } else {
                let heartbeat = r
                    .get::<_, Option<f64>>(3)
                    .map(|s| s.max(0.0).round() as i64);
                let lease_left = r
                    .get::<_, Option<f64>>(4)
                    .map(|s| s.max(0.0).round() as i64);
                let held = match liveness {
                    Liveness::Alive => {
                        format!("held by {holder_name}, a process running on this host")
                    }
                    _ => format!("held by fetcher {holder_name} on another host"),
                };
                let beat = heartbeat
                    .map(|s| format!("; its last heartbeat was {s} s ago"))
                    .unwrap_or_default();
                let after = match (liveness, lease_left) {
                    (Liveness::Alive, _) => String::new(),
                    (_, Some(s)) => format!(
                        ". If that fetcher is gone, `kerai run {}` takes the job over when its lease ends, in {s} s",
                        t.name
                    ),
                    _ => String::new(),
                };
                return Err(Failure::critical(format!(
                    "a crawl of target \"{}\" is already running (job {job}), {held}{beat}{after}",
                    t.name
                ))
                .with_hint("wait for it (kerai status), help it (kerai run --join), or queue another (kerai run --queue)"));
            }
        }
    };
    let mut spec = begin(client, &worker, job, lease, joined).await?;
    // A daemon may take the job between queueing and starting it: crawl alongside it (the URLs
    // are leased one by one, so the two share the work) and report as usual.
    for _ in 0..20 {
        if spec.is_some() || joined {
            break;
        }
        spec = begin(client, &worker, job, lease, true).await?;
        match &spec {
            Some(_) => eprintln!("kerai: a running daemon took job {job}; crawling alongside it"),
            None => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    }
    let Some(spec) = spec else {
        return Err(Failure::critical(format!(
            "job {job} could not be started (another fetcher took it)"
        ))
        .with_hint("see `kerai status`"));
    };
    let opts = RunOptions {
        worker: worker.clone(),
        lease_seconds: lease,
        no_progress: flags.no_progress,
        quiet: false,
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let mut fresh = None;
    let end = loop {
        let (end, reconnected) = run_through_outages(url, &spec, &opts, &never).await?;
        if reconnected.is_some() {
            fresh = reconnected;
        }
        if finish(fresh.as_ref().unwrap_or(client), &spec, &worker, &end).await? {
            break end;
        }
    };
    let client = fresh.as_ref().unwrap_or(client);
    let code = report_with(client, spec.id, flags.format, flags.report_extra.as_ref()).await?;
    // A cancelled, interrupted or failed crawl stops here: its chunks wait for `kerai embed`.
    if !flags.embed || end.cancelled || end.error.is_some() {
        return Ok(code);
    }
    Ok(
        match crate::retrieval::work::embed_and_report(client, &worker, None, false).await {
            Some(false) if code == Code::Success => Code::Partial,
            _ => code,
        },
    )
}

/// Take a job to run: `_job_begin` for a pending or crashed one; a joined one is run as is.
pub async fn begin(
    client: &Client,
    worker: &str,
    job: uuid::Uuid,
    lease: i32,
    joining: bool,
) -> Result<Option<JobSpec>, Failure> {
    let row = if joining {
        client
            .query_opt(
                "SELECT j.id, t.name, t.base_url, j.mode, j.options, j.config, j.urls_enqueued, j.started_at
                   FROM kerai.scrape_jobs j JOIN kerai.targets t ON t.id = j.target_id WHERE j.id = $1 AND j.status = 'RUNNING'",
                &[&job],
            )
            .await
    } else {
        db::jobs::begin(client, worker, job, lease).await
    }
    .map_err(|e| Failure::critical(format!("cannot start job {job}: {}", db::message(&e))))?;
    row.map(|r| spec_from_row(&r)).transpose()
}

pub fn spec_from_row(r: &tokio_postgres::Row) -> Result<JobSpec, Failure> {
    let base_url: String = r.get(2);
    let config: Value = r.get(5);
    let config: TargetConfig = serde_json::from_value(config)
        .map_err(|e| Failure::critical(format!("the job's config cannot be read: {e}")))?;
    Ok(JobSpec {
        id: r.get(0),
        target: r.get(1),
        config: config.complete(&base_url),
        mode: r.get(3),
        options: r.get(4),
        urls_enqueued: r.get(6),
        started_at: r.get(7),
    })
}

/// Close the job: COMPLETED, or FAILED with the runner's error (retried while retries remain).
/// False when the job is not done: URLs were left that nobody fetches (another fetcher added
/// them, or died holding them, as this one ran out of work); the caller crawls on.
pub async fn finish(
    client: &Client,
    spec: &JobSpec,
    worker: &str,
    end: &runner::RunEnd,
) -> Result<bool, Failure> {
    if end.cancelled {
        return Ok(true);
    }
    let (status, error) = match &end.error {
        Some(e) => ("FAILED", Some(e.clone())),
        None => ("COMPLETED", None),
    };
    let after = db::jobs::finish(client, spec.id, worker, status, error.as_deref())
        .await
        .map_err(|e| {
            Failure::critical(format!(
                "cannot finish job {}: {}",
                spec.id,
                db::message(&e)
            ))
        })?;
    let left = status == "COMPLETED" && after == "RUNNING" && {
        let w = db::jobs::work_left(client, spec.id, worker)
            .await
            .map_err(|e| Failure::critical(db::message(&e)))?;
        w.claimable > 0
    };
    if left {
        eprintln!(
            "kerai: job {} still has URLs that no fetcher holds: crawling on",
            spec.id
        );
    }
    Ok(!left)
}

/// Print the job's report; the exit code follows the job: 0, 1 (some items failed) or 2.
pub async fn report(client: &Client, job: uuid::Uuid, format: Format) -> Result<Code, Failure> {
    report_with(client, job, format, None).await
}

/// [`report`], with `extra` fields merged into the JSON form.
pub async fn report_with(
    client: &Client,
    job: uuid::Uuid,
    format: Format,
    extra: Option<&Value>,
) -> Result<Code, Failure> {
    let row = client
        .query_one(
            "SELECT job_id::text, target, status, mode, config_version, launched_by, started_at, finished_at, exit_code, error, metrics
               FROM kerai.job_summary WHERE job_id = $1",
            &[&job],
        )
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?;
    let status: String = row.get(2);
    let exit: Option<i32> = row.get(8);
    let r = json!({
        "job": row.get::<_, String>(0), "target": row.get::<_, String>(1), "status": status,
        "mode": row.get::<_, String>(3), "config_version": row.get::<_, i32>(4), "launched_by": row.get::<_, String>(5),
        "started_at": row.get::<_, Option<chrono::DateTime<chrono::Utc>>>(6).as_ref().map(iso),
        "finished_at": row.get::<_, Option<chrono::DateTime<chrono::Utc>>>(7).as_ref().map(iso),
        "exit_code": exit, "error": row.get::<_, Option<String>>(9), "metrics": row.get::<_, Value>(10),
    });
    match format {
        Format::Json => {
            let mut r = r;
            if let (Some(obj), Some(Value::Object(more))) = (r.as_object_mut(), extra) {
                obj.extend(more.clone());
            }
            print_json(&r)
        }
        Format::Table => print!("{}", render_report(&r)),
    }
    Ok(match (status.as_str(), exit) {
        ("COMPLETED", Some(0)) => Code::Success,
        ("COMPLETED", _) => Code::Partial,
        ("RUNNING", _) => Code::Success,
        _ => Code::Critical,
    })
}

/// `--dry-run`: the scope as a crawl would see it, without fetching pages or writing.
pub async fn dry_run(
    t: &StoredTarget,
    allowed: &AddressGuard,
    since: Option<&str>,
    format: Format,
) -> Result<Code, Failure> {
    let scope = dry_run_scope(t, allowed, since).await?;
    match format {
        Format::Json => print_json(&scope),
        Format::Table => print!("{}", render_scope(&scope)),
    }
    Ok(Code::Success)
}

/// What a crawl of `t` would start with: `{target, base_url, config_version, sitemaps: [{url,
/// kind}], urls, seeds, from_sitemaps, excluded: [{url, reason}], older_than_since, max_depth,
/// max_pages}`. Fetches robots.txt and sitemaps, never pages; writes nothing. `allowed` is the
/// `allowed_private_hosts` setting (the target's own hosts are always allowed).
pub async fn dry_run_scope(
    t: &StoredTarget,
    allowed: &AddressGuard,
    since: Option<&str>,
) -> Result<Value, Failure> {
    let since = since
        .map(parse_iso)
        .transpose()
        .map_err(Failure::critical)?;
    let http = Http::new(runner::http_settings(&t.config, allowed)).map_err(Failure::critical)?;
    let scope = Scope::new(&t.config);
    let found = discover::discover(&http, &t.config, &scope, since).await;
    Ok(json!({
        "target": t.name,
        "base_url": t.base_url,
        "config_version": t.config_version,
        "sitemaps": found.sitemaps.iter().map(|(url, kind)| json!({"url": url, "kind": kind})).collect::<Vec<_>>(),
        "urls": found.urls.iter().map(|u| u.url.clone()).collect::<Vec<_>>(),
        "seeds": found.urls.iter().filter(|u| u.via == "seed").count(),
        "from_sitemaps": found.urls.iter().filter(|u| u.via == "sitemap").count(),
        "excluded": found.excluded.iter().map(|(url, why)| json!({"url": url, "reason": why})).collect::<Vec<_>>(),
        "older_than_since": found.older_than_since,
        "max_depth": t.config.max_depth,
        "max_pages": t.config.max_pages,
    }))
}

/// The dry run for people: sitemaps, the first 50 URLs, what was left out and why.
pub fn render_scope(v: &Value) -> String {
    use std::fmt::Write;
    let list = |k: &str| v[k].as_array().cloned().unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "target {} ({}), config v{}",
        v["target"].as_str().unwrap_or(""),
        v["base_url"].as_str().unwrap_or(""),
        v["config_version"]
    );
    for s in list("sitemaps") {
        let _ = writeln!(
            out,
            "  sitemap  {:<10} {}",
            s["kind"].as_str().unwrap_or(""),
            s["url"].as_str().unwrap_or("")
        );
    }
    let urls = list("urls");
    let _ = writeln!(
        out,
        "would start with {} URL{} ({} seed{}, {} from sitemaps); links are followed to depth {} (max_pages {})",
        urls.len(),
        if urls.len() == 1 { "" } else { "s" },
        v["seeds"],
        if v["seeds"].as_i64() == Some(1) { "" } else { "s" },
        v["from_sitemaps"],
        v["max_depth"],
        v["max_pages"]
    );
    for u in urls.iter().take(50) {
        let _ = writeln!(out, "  + {}", u.as_str().unwrap_or(""));
    }
    if urls.len() > 50 {
        let _ = writeln!(out, "  ... and {} more", urls.len() - 50);
    }
    for e in list("excluded").iter().take(50) {
        let _ = writeln!(
            out,
            "  - {}  ({})",
            e["url"].as_str().unwrap_or(""),
            e["reason"].as_str().unwrap_or("")
        );
    }
    let older = v["older_than_since"].as_u64().unwrap_or(0);
    if older > 0 {
        let _ = writeln!(out, "{older} sitemap entries are older than --since");
    }
    out
}

/// The report as people read it.
pub fn render_report(r: &Value) -> String {
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
        "duplicates",
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
            v("duplicate"),
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
        n("duplicate_count").to_string(),
        n("error_count").to_string(),
        n("skipped_count").to_string(),
        (n("new_count")
            + n("updated_count")
            + n("unchanged_count")
            + n("duplicate_count")
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
    if n("duplicate_count") + n("near_duplicate_count") > 0 {
        out.push_str(&format!(
            "duplicates: {} URLs stored as aliases of another page, {} new versions near-duplicates of another page\n",
            n("duplicate_count"),
            n("near_duplicate_count")
        ));
    }
    if let Some(reasons) = m["left_out"]
        .as_array()
        .filter(|a| !a.is_empty() && r["exit_code"] == 1)
    {
        out.push_str("left out (exit 1):\n");
        for why in reasons {
            out.push_str(&format!("  - {}\n", why["detail"].as_str().unwrap_or("?")));
        }
    }
    if let Some(e) = r["error"].as_str() {
        out.push_str(&format!("error: {e}\n"));
    }
    out
}
