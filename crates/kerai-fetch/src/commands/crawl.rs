//! `kerai crawl`: the citation-loop daemon. Each cycle: `kerai.crawl_cycle()` (extract, score,
//! claim, ingest), then resolve what is queued (lease, find, fetch, convert, deposit). Between
//! cycles it listens on `kerai_crawl`, so what a `crawl_cycle()` run elsewhere (psql, pg_cron)
//! claims is resolved at once; it stops gracefully on SIGTERM / Ctrl-C (the item in hand is
//! finished), and reconnects when the database restarts.

use crate::args::CrawlArgs;
use crate::db;
use crate::db::listen::{connect_retrying, is_connection_error};
use crate::exit::{Code, Failure};
use crate::jobs::{lease_seconds, worker_name};
use crate::resolve::cycle::{check_agent, cycle, drain, is_idle, print_cycle, EMBED_PER_CYCLE};
use crate::resolve::Pacer;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

pub async fn run(url: &str, args: CrawlArgs) -> Result<Code, Failure> {
    if !(args.rate.is_finite() && args.rate >= 0.0) {
        return Err(Failure::critical(format!(
            "--rate {}: the seconds between cycles must be a number of 0 or more",
            args.rate
        )));
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        tokio::spawn(async move {
            crate::exit::stop_requested().await;
            stop.store(true, Ordering::SeqCst);
        });
    }
    let worker = worker_name();
    let lease = lease_seconds();
    let pacer = Pacer::default();
    let mut conn = connect_retrying(url, "kerai_crawl", &stop).await?;
    check_agent(&conn.client, &args.agent).await?;
    if let Some(depth) = args.max_depth {
        if depth < 1 {
            return Err(Failure::critical(format!(
                "--max-depth {depth}: a citation chain is at least 1 document deep"
            )));
        }
        conn.client
            .execute(
                "SELECT kerai.register_agent(a.name, a.kind, NULL, $2) FROM kerai.agents a WHERE a.name = $1 OR a.id::text = $1",
                &[&args.agent, &json!({"max_chain_depth": depth})],
            )
            .await
            .map_err(|e| Failure::critical(db::message(&e)))?;
    }
    if args.resolve_only {
        eprintln!(
            "kerai: crawler {worker} (agent {}) resolving what kerai.crawl_cycle() claims (LISTEN kerai_crawl, polling every {} s)",
            args.agent, args.rate
        );
    } else {
        eprintln!(
            "kerai: crawler {worker} (agent {}) running; one cycle every {} s",
            args.agent, args.rate
        );
    }
    let mut cycles = 0u64;
    let mut failures = 0u64;
    let mut lost = false;
    while !stop.load(Ordering::SeqCst) {
        if lost {
            eprintln!("kerai: lost the database connection; reconnecting");
            conn = connect_retrying(url, "kerai_crawl", &stop).await?;
            lost = false;
        }
        let started = Instant::now();
        let result = if args.resolve_only {
            drain(&conn.client, &worker, lease, &stop, &pacer)
                .await
                .map(|n| json!({"resolved_now": n}))
        } else {
            cycle(&conn.client, &args.agent, &worker, lease, &stop, &pacer).await
        };
        match result {
            Ok(summary) => {
                cycles += 1;
                if !args.no_embed && !stop.load(Ordering::SeqCst) {
                    // A failure is reported and left for the next cycle; it does not fail this one.
                    crate::retrieval::work::embed_and_report(
                        &conn.client,
                        &worker,
                        Some(EMBED_PER_CYCLE),
                        true,
                    )
                    .await;
                }
                if !args.resolve_only {
                    print_cycle(cycles, &summary);
                    if args.until_idle && is_idle(&summary) {
                        break;
                    }
                }
                if args.cycles.is_some_and(|n| cycles >= n) {
                    break;
                }
            }
            Err(e) if conn.client.is_closed() || is_connection_error(&e) => {
                lost = true;
                continue;
            }
            Err(e) => {
                failures += 1;
                eprintln!("kerai: error: crawl cycle failed: {e}");
            }
        }
        // Until the next cycle: resolve what others claim (a notification) as it comes.
        let next = started + Duration::from_secs_f64(args.rate);
        while !stop.load(Ordering::SeqCst) && !lost {
            tokio::select! {
                note = conn.notes.recv() => match note {
                    Some(()) => {
                        if let Err(e) = drain(&conn.client, &worker, lease, &stop, &pacer).await {
                            if conn.client.is_closed() || is_connection_error(&e) {
                                lost = true;
                            } else {
                                failures += 1;
                                eprintln!("kerai: error: resolving failed: {e}");
                            }
                        }
                    }
                    None => lost = true,
                },
                _ = tokio::time::sleep_until(next) => break,
                _ = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
        }
    }
    eprintln!("kerai: crawler stopped after {cycles} cycles");
    Ok(if failures > 0 {
        Code::Partial
    } else {
        Code::Success
    })
}
