//! `kerai crawl`: the citation-loop daemon. Each cycle: `kerai.crawl_cycle()` (extract, score,
//! claim, ingest), then resolve what is queued (lease, find, fetch, convert, deposit). It
//! listens on `kerai_crawl` and polls, stops gracefully on SIGTERM / Ctrl-C (the item in hand is
//! finished), and reconnects when the database restarts.

use crate::cli::CrawlArgs;
use crate::commands::run::{lease_seconds, worker_name};
use crate::db;
use crate::exit::{Code, Failure};
use crate::http::{Http, HttpSettings};
use crate::resolve::{self, Ctx, Outcome, Policy};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::Client;

pub async fn run(url: &str, args: CrawlArgs) -> Result<Code, Failure> {
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending::<()>().await } } => {}
            }
            stop.store(true, Ordering::SeqCst);
        });
    }
    let worker = worker_name();
    let lease = lease_seconds();
    let mut client = connect_retrying(url, &stop).await?;
    if let Some(depth) = args.max_depth {
        client
            .execute(
                "SELECT kerai.register_agent($1, 'tool', NULL, $2)",
                &[&args.agent, &json!({"max_chain_depth": depth})],
            )
            .await
            .map_err(|e| Failure::critical(db::message(&e)))?;
    }
    eprintln!(
        "kerai: crawler {worker} (agent {}) running; one cycle every {} s",
        args.agent, args.rate
    );
    let mut cycles = 0u64;
    let mut failures = 0u64;
    while !stop.load(Ordering::SeqCst) {
        match cycle(&client, &args.agent, &worker, lease, &stop).await {
            Ok(summary) => {
                cycles += 1;
                print_cycle(cycles, &summary);
                let idle = summary["claimed"].as_array().is_none_or(|a| a.is_empty())
                    && summary["ingested"].as_array().is_none_or(|a| a.is_empty())
                    && summary["pending"].as_i64() == Some(0)
                    && summary["resolved_now"].as_u64() == Some(0);
                if args.until_idle && idle {
                    break;
                }
                if args.cycles.is_some_and(|n| cycles >= n) {
                    break;
                }
            }
            Err(e) if is_connection_error(&e) => {
                eprintln!("kerai: lost the database ({}); reconnecting", e);
                client = connect_retrying(url, &stop).await?;
                continue;
            }
            Err(e) => {
                failures += 1;
                eprintln!("kerai: error: crawl cycle failed: {e}");
            }
        }
        let mut waited = 0.0;
        while waited < args.rate && !stop.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(100)).await;
            waited += 0.1;
        }
    }
    eprintln!("kerai: crawler stopped after {cycles} cycles");
    Ok(if failures > 0 {
        Code::Partial
    } else {
        Code::Success
    })
}

fn is_connection_error(e: &str) -> bool {
    e.contains("connection") || e.contains("closed") || e.contains("terminating")
}

async fn connect_retrying(url: &str, stop: &AtomicBool) -> Result<Client, Failure> {
    let mut wait = Duration::from_millis(500);
    loop {
        match db::connect(url).await {
            Ok(c) => return Ok(c),
            Err(e) if stop.load(Ordering::SeqCst) => return Err(e),
            Err(e) => {
                eprintln!("kerai: {e}; retrying in {:?}", wait);
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(30));
            }
        }
    }
}

/// One cycle: crawl_cycle(), then resolve every item leased to this worker.
async fn cycle(
    client: &Client,
    agent: &str,
    worker: &str,
    lease: i32,
    stop: &AtomicBool,
) -> Result<Value, String> {
    let summary: Value = client
        .query_one("SELECT kerai.crawl_cycle($1)", &[&agent])
        .await
        .map_err(|e| db::message(&e))?
        .get(0);
    let mut resolved = 0u64;
    while !stop.load(Ordering::SeqCst) {
        let rows = client
            .query(
                "SELECT id, request FROM kerai._worker_claim($1, $2, 1)",
                &[&worker, &lease],
            )
            .await
            .map_err(|e| db::message(&e))?;
        let Some(row) = rows.first() else { break };
        let item: i64 = row.get(0);
        let request: Value = row.get(1);
        let outcome = resolve_item(client, item, &request).await;
        match &outcome {
            Outcome::Deposit { markdown, result } => {
                client
                    .execute(
                        "SELECT kerai._worker_deposit($1, $2, $3)",
                        &[&item, markdown, &Value::Object(result.clone())],
                    )
                    .await
                    .map_err(|e| db::message(&e))?;
            }
            other => {
                let (kind, reason) = other.fail_kind().expect("not a deposit");
                client
                    .execute(
                        "SELECT kerai._worker_fail($1, $2, $3)",
                        &[&item, &kind, &reason],
                    )
                    .await
                    .map_err(|e| db::message(&e))?;
            }
        }
        resolved += 1;
        eprintln!(
            "kerai:   {} -> {}",
            request["text"].as_str().unwrap_or("?"),
            describe(&outcome)
        );
    }
    let mut s = summary;
    s["resolved_now"] = json!(resolved);
    Ok(s)
}

async fn resolve_item(client: &Client, item: i64, request: &Value) -> Outcome {
    let policy = Policy::from_config(&request["policy"]);
    let ua = match &policy.contact_email {
        Some(mail) => format!(
            "kerai/{} (knowledge crawler; mailto:{mail})",
            env!("CARGO_PKG_VERSION")
        ),
        None => format!("kerai/{} (knowledge crawler)", env!("CARGO_PKG_VERSION")),
    };
    let http = match Http::new(HttpSettings {
        user_agent: ua,
        connect_timeout: Duration::from_secs(10),
        timeout: Duration::from_secs(120),
        max_size: policy.max_pdf_bytes.max(10_000_000),
        max_redirects: 10,
    }) {
        Ok(h) => h,
        Err(e) => return Outcome::failed(e),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(&'static str, Value)>();
    let progress = move |state: &'static str, info: Value| {
        let _ = tx.send((state, info));
    };
    let ctx = Ctx {
        http: &http,
        policy,
        progress: &progress,
    };
    let resolving = resolve::resolve(request, &ctx);
    tokio::pin!(resolving);
    loop {
        tokio::select! {
            outcome = &mut resolving => {
                while let Ok((state, info)) = rx.try_recv() {
                    let _ = client.execute("SELECT kerai._worker_progress($1, $2, $3)", &[&item, &state, &info]).await;
                }
                return outcome;
            }
            Some((state, info)) = rx.recv() => {
                let _ = client.execute("SELECT kerai._worker_progress($1, $2, $3)", &[&item, &state, &info]).await;
            }
        }
    }
}

fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Deposit { result, .. } => format!(
            "deposited {} ({}, {})",
            result
                .get("source_url")
                .and_then(Value::as_str)
                .unwrap_or("?"),
            result.get("license").and_then(Value::as_str).unwrap_or("?"),
            result
                .get("content_type")
                .and_then(Value::as_str)
                .unwrap_or("?")
        ),
        Outcome::NotFound(r) => format!("not found: {r}"),
        Outcome::Skipped(r) => format!("skipped: {r}"),
        Outcome::Failed(r) => format!("failed: {r}"),
    }
}

fn print_cycle(n: u64, s: &Value) {
    let len = |k: &str| s[k].as_array().map(|a| a.len()).unwrap_or(0);
    eprintln!(
        "kerai: cycle {n}: extracted {} documents, ingested {}, claimed {}, resolved {}, frontier {}, pending {}",
        len("extracted"),
        len("ingested"),
        len("claimed"),
        s["resolved_now"],
        s["frontier"],
        s["pending"]
    );
}
