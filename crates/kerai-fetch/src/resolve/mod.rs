//! Resolving a claimed reference to an open copy: find it, check the policy, fetch it,
//! convert it. The citation-loop daemon (`kerai crawl`) drives it through the work queue.

pub mod outcome;
pub mod policy;
pub mod web;

pub use outcome::Outcome;
pub use policy::Policy;

use crate::http::Http;
use serde_json::Value;

/// What a resolver may use: HTTP, the policy of the crawler agent, and a way to report
/// progress (found / fetching / converting) as it goes.
pub struct Ctx<'a> {
    pub http: &'a Http,
    pub policy: Policy,
    pub progress: &'a (dyn Fn(&'static str, Value) + Sync),
}

/// Resolve one work-queue request (`kerai.crawl_queue.request`).
pub async fn resolve(request: &Value, ctx: &Ctx<'_>) -> Outcome {
    let ref_type = request["ref_type"].as_str().unwrap_or("");
    match ref_type {
        "url" => match request["url"].as_str() {
            Some(url) => web::fetch_open_copy(url, "direct", None, ctx).await,
            None => Outcome::not_found("the reference has no URL"),
        },
        "concept" => {
            Outcome::skipped("concept search is disabled (set concept_search_url to enable it)")
        }
        other => Outcome::skipped(format!(
            "no resolver for {other} references in this fetcher"
        )),
    }
}
