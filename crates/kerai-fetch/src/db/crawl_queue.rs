//! The citation loop's work queue (`kerai crawl`): the `kerai._worker_*` functions.

use kerai_core::wire::crawl_queue::{DepositResult, KnownWork, WorkKeys, WorkRequest};
use serde_json::Value;
use tokio_postgres::{Client, Error};

/// A leased queue item: its id and its request (`kerai.crawl_queue.request`).
pub struct Claimed {
    pub id: i64,
    pub request: WorkRequest,
}

/// Lease one queue item for `lease` seconds (`kerai._worker_claim`); `None` when none is due.
pub async fn claim(client: &Client, worker: &str, lease: i32) -> Result<Option<Claimed>, Error> {
    let rows = client
        .query(
            "SELECT id, request FROM kerai._worker_claim($1, $2, 1)",
            &[&worker, &lease],
        )
        .await?;
    Ok(rows.first().map(|row| Claimed {
        id: row.get(0),
        request: WorkRequest::from_json(row.get(1)),
    }))
}

/// Deposit converted markdown and what to record with it (`kerai._worker_deposit`).
pub async fn deposit(
    client: &Client,
    item: i64,
    markdown: &str,
    result: &DepositResult,
) -> Result<u64, Error> {
    let result = serde_json::to_value(result).expect("a deposit result serialises");
    client
        .execute(
            "SELECT kerai._worker_deposit($1, $2, $3)",
            &[&item, &markdown, &result],
        )
        .await
}

/// Record a decision (`not_found`, `skipped`, `failed`) on an item (`kerai._worker_fail`).
pub async fn fail(client: &Client, item: i64, kind: &str, reason: &str) -> Result<u64, Error> {
    client
        .execute(
            "SELECT kerai._worker_fail($1, $2, $3)",
            &[&item, &kind, &reason],
        )
        .await
}

/// Record a failure (`kerai._worker_fail` with `failed`): the outcome could not be recorded.
pub async fn fail_unrecorded(client: &Client, item: i64, why: &str) -> Result<u64, Error> {
    fail(client, item, "failed", why).await
}

/// Keep the lease of an item in hand (`kerai._worker_heartbeat`).
pub async fn heartbeat(client: &Client, item: i64, worker: &str, lease: i32) -> Result<u64, Error> {
    client
        .execute(
            "SELECT kerai._worker_heartbeat($1, $2, $3)",
            &[&item, &worker, &lease],
        )
        .await
}

/// Record the progress of an item (found / fetching / converting) (`kerai._worker_progress`).
pub async fn progress(client: &Client, item: i64, state: &str, info: &Value) -> Result<u64, Error> {
    client
        .execute(
            "SELECT kerai._worker_progress($1, $2, $3)",
            &[&item, &state, info],
        )
        .await
}

/// Is the work with these keys already in the corpus (or deposited and waiting)? Then the
/// database links the item's reference to it and answers with the link (`kerai._worker_known`).
pub async fn known(
    client: &Client,
    item: i64,
    keys: &WorkKeys,
) -> Result<Option<KnownWork>, Error> {
    let keys = serde_json::to_value(keys).expect("work keys serialise");
    client
        .query_one("SELECT kerai._worker_known($1, $2)", &[&item, &keys])
        .await
        .map(|r| r.get::<_, Option<Value>>(0).map(KnownWork::from_json))
}
