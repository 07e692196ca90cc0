//! The citation loop's driver, as `kerai crawl` and `kerai daemon` run it: a cycle is
//! `kerai.crawl_cycle()` (extract, score, claim, ingest), then resolving every queued item
//! (lease, find, fetch, convert, deposit), one at a time, keeping its lease while in hand.

use super::{resolve, Ctx, Known, Outcome, Pacer, Policy, Scholar};
use crate::db;
use crate::exit::Failure;
use crate::http::{Http, HttpSettings};
use kerai_core::wire::crawl_queue::{KnownWork, WorkRequest};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::time::Instant;
use tokio_postgres::Client;

/// The crawler agent must be registered before a loop starts.
pub async fn check_agent(client: &Client, agent: &str) -> Result<(), Failure> {
    let registered: bool = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM kerai.agents WHERE name = $1 OR id::text = $1)",
            &[&agent],
        )
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?
        .get(0);
    if registered {
        return Ok(());
    }
    Err(
        Failure::critical(format!("agent \"{agent}\" is not registered")).with_hint(
            "register it with SELECT kerai.register_agent('NAME', 'crawler'), or omit --agent for kerai_crawl",
        ),
    )
}

/// Nothing happened and nothing is left to do: no claim, ingestion or resolution, nothing
/// pending, no eligible reference held back by the rate limit and no failure waiting for its
/// retry.
pub fn is_idle(s: &Value) -> bool {
    let empty = |k: &str| s[k].as_array().is_none_or(|a| a.is_empty());
    empty("claimed")
        && empty("ingested")
        && empty("linked")
        && s["pending"].as_i64() == Some(0)
        && s["deposited"].as_i64().unwrap_or(0) == 0
        && s["resolved_now"].as_u64() == Some(0)
        && s["eligible"].as_i64().unwrap_or(0) == 0
        && s["retries_waiting"].as_i64().unwrap_or(0) == 0
}

/// One cycle: crawl_cycle(), then resolve every item in the queue.
pub async fn cycle(
    client: &Client,
    agent: &str,
    worker: &str,
    lease: i32,
    stop: &AtomicBool,
    pacer: &Pacer,
) -> Result<Value, String> {
    let summary: Value = client
        .query_one("SELECT kerai.crawl_cycle($1)", &[&agent])
        .await
        .map_err(|e| db::message(&e))?
        .get(0);
    let resolved = drain(client, worker, lease, stop, pacer).await?;
    let mut s = summary;
    s["resolved_now"] = json!(resolved);
    Ok(s)
}

/// Lease and resolve queued items one at a time until none is left (or SIGTERM).
pub async fn drain(
    client: &Client,
    worker: &str,
    lease: i32,
    stop: &AtomicBool,
    pacer: &Pacer,
) -> Result<u64, String> {
    let mut resolved = 0u64;
    let mut errors = 0u64;
    while !stop.load(Ordering::SeqCst) {
        let claimed = db::crawl_queue::claim(client, worker, lease)
            .await
            .map_err(|e| db::message(&e))?;
        let Some(db::crawl_queue::Claimed { id: item, request }) = claimed else {
            break;
        };
        let outcome = resolve_item(client, item, &request, worker, lease, pacer).await;
        let recorded = match &outcome {
            Outcome::Deposit { markdown, result } => {
                db::crawl_queue::deposit(client, item, markdown, result).await
            }
            Outcome::Linked(_) => Ok(0),
            other => {
                let (kind, reason) = other.fail_kind().expect("a decision");
                db::crawl_queue::fail(client, item, kind, reason).await
            }
        };
        let text = request.text.as_deref().unwrap_or("?");
        match recorded {
            Ok(_) => {
                resolved += 1;
                eprintln!("kerai:   {text} -> {}", describe(&outcome));
            }
            // The connection is gone: the caller reconnects; the lease brings the item back.
            Err(e) if client.is_closed() => return Err(db::message(&e)),
            // The database refused this outcome: say so, record a failure instead (retried
            // with backoff, dead after max_retries) and go on with the next item.
            Err(e) => {
                errors += 1;
                let why = format!(
                    "could not record the outcome ({}): {}",
                    describe(&outcome),
                    db::message(&e)
                );
                eprintln!("kerai: error: queue item {item} ({text}): {why}");
                let _ = db::crawl_queue::fail_unrecorded(client, item, &why).await;
            }
        }
    }
    if errors > 0 {
        return Err(format!(
            "{errors} outcome(s) could not be recorded (resolved {resolved})"
        ));
    }
    Ok(resolved)
}

async fn resolve_item(
    client: &Client,
    item: i64,
    request: &WorkRequest,
    worker: &str,
    lease: i32,
    pacer: &Pacer,
) -> Outcome {
    let policy = Policy::from_config(&request.policy);
    let ua = match &policy.contact_email {
        Some(mail) => format!(
            "kerai/{} (knowledge crawler; mailto:{mail})",
            env!("CARGO_PKG_VERSION")
        ),
        None => format!("kerai/{} (knowledge crawler)", env!("CARGO_PKG_VERSION")),
    };
    // References, open copies and the services all pass the SSRF guard.
    let guard = match crate::db::address_guard(client).await {
        Ok(g) => g,
        Err(e) => return Outcome::failed(e),
    };
    let http = match Http::new(HttpSettings {
        user_agent: ua,
        connect_timeout: Duration::from_secs(10),
        timeout: Duration::from_secs(120),
        max_size: policy.max_pdf_bytes.max(10_000_000),
        max_redirects: 10,
        guard: std::sync::Arc::new(guard),
        auth: None,
    }) {
        Ok(h) => h,
        Err(e) => return Outcome::failed(e),
    };
    let scholar = Scholar::from_policy(&request.policy, pacer);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(&'static str, Value)>();
    let progress = move |state: &'static str, info: Value| {
        let _ = tx.send((state, info));
    };
    let ctx = Ctx {
        http: &http,
        policy,
        progress: &progress,
        known: Some(Known { client, item }),
    };
    let resolving = resolve(request, &ctx, &scholar);
    tokio::pin!(resolving);
    // Keep the lease while the item is in hand (services are paced; downloads take time).
    let beat = Duration::from_secs_f64((f64::from(lease) / 3.0).max(1.0));
    let mut heartbeat = tokio::time::interval_at(Instant::now() + beat, beat);
    loop {
        tokio::select! {
            outcome = &mut resolving => {
                while let Ok((state, info)) = rx.try_recv() {
                    report_progress(client, item, state, &info).await;
                }
                return outcome;
            }
            Some((state, info)) = rx.recv() => report_progress(client, item, state, &info).await,
            _ = heartbeat.tick() => {
                let _ = db::crawl_queue::heartbeat(client, item, worker, lease).await;
            }
        }
    }
}

async fn report_progress(client: &Client, item: i64, state: &str, info: &Value) {
    if let Err(e) = db::crawl_queue::progress(client, item, state, info).await {
        eprintln!(
            "kerai: warning: could not record progress of item {item}: {}",
            db::message(&e)
        );
    }
}

fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Deposit { result, .. } => format!(
            "deposited {} ({}, {})",
            result.source_url, result.license, result.content_type
        ),
        Outcome::Linked(KnownWork::Linked { document }) => {
            format!("already in the corpus: linked to document {document}")
        }
        Outcome::Linked(KnownWork::Waiting { item }) => {
            format!("the same work was just deposited (item {item}): linked when it is ingested")
        }
        Outcome::Linked(KnownWork::Other(v)) => format!(
            "the same work was just deposited (item {}): linked when it is ingested",
            v["item"]
        ),
        Outcome::NotFound(r) => format!("not found: {r}"),
        Outcome::Skipped(r) => format!("skipped: {r}"),
        Outcome::Failed(r) => format!("failed: {r}"),
    }
}

/// Chunks embedded per cycle at most, so a cycle stays short; the rest waits for the next.
pub const EMBED_PER_CYCLE: u64 = 256;

pub fn print_cycle(n: u64, s: &Value) {
    let len = |k: &str| s[k].as_array().map(|a| a.len()).unwrap_or(0);
    eprintln!(
        "kerai: cycle {n}: extracted {} documents, ingested {}, linked {}, claimed {}, resolved {}, frontier {}, pending {}",
        len("extracted"),
        len("ingested"),
        len("linked"),
        len("claimed"),
        s["resolved_now"],
        s["frontier"],
        s["pending"]
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_means_nothing_left() {
        let quiet = json!({"claimed": [], "ingested": [], "linked": [], "pending": 0, "deposited": 0,
                           "resolved_now": 0, "eligible": 0, "retries_waiting": 0});
        assert!(is_idle(&quiet));
        for (k, v) in [
            ("claimed", json!([{"item": 1}])),
            ("linked", json!([{"ref": "r"}])),
            ("pending", json!(1)),
            ("deposited", json!(2)),
            ("resolved_now", json!(1)),
            ("eligible", json!(3)),
            ("retries_waiting", json!(1)),
        ] {
            let mut s = quiet.clone();
            s[k] = v;
            assert!(!is_idle(&s), "{k}");
        }
    }

    #[test]
    fn outcomes_are_described() {
        assert_eq!(
            describe(&Outcome::Linked(KnownWork::from_json(
                json!({"status": "linked", "document": "d"})
            ))),
            "already in the corpus: linked to document d"
        );
        assert!(describe(&Outcome::Linked(KnownWork::from_json(
            json!({"status": "waiting", "item": 7})
        )))
        .contains("item 7"));
        assert_eq!(
            describe(&Outcome::skipped("paywalled")),
            "skipped: paywalled"
        );
    }
}
