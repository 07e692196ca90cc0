//! Resolving a claimed reference to an open copy: find it, check the policy, fetch it,
//! convert it. The citation-loop daemon (`kerai crawl`) drives it through the work queue.
//!
//! | reference | route |
//! |---|---|
//! | `doi` (or any reference with a DOI) | CrossRef → Unpaywall → Semantic Scholar → the best open copy |
//! | `arxiv` (or any reference with an arXiv id) | arXiv → its PDF |
//! | `url` | a `doi.org` URL takes the DOI route, an `arxiv.org` URL the arXiv one; anything else is fetched directly |
//! | `author_year`, `bibliography` | Semantic Scholar search, then CrossRef's bibliographic query, accepted above the match rule; books also the Internet Archive |
//! | `concept` | the configured concept search (off unless `concept_search_url` is set) |

pub mod cycle;
pub mod outcome;
pub mod policy;
pub mod scholarly;
pub mod web;

pub use outcome::Outcome;
pub use policy::Policy;
pub use scholarly::{Pacer, Scholar};

use crate::http::Http;
use kerai_core::wire::crawl_queue::{WorkKeys, WorkRequest};
use serde_json::Value;

/// What a resolver may use: HTTP, the policy of the crawler agent, a way to report progress
/// (found / fetching / converting) as it goes, and the database's knowledge of what is already
/// ingested.
pub struct Ctx<'a> {
    pub http: &'a Http,
    pub policy: Policy,
    pub progress: &'a (dyn Fn(&'static str, Value) + Sync),
    /// `None` when resolving without a database (unit tests).
    pub known: Option<Known<'a>>,
}

/// Asks the database whether a work is already in the corpus, for the work-queue item being
/// resolved (`db::crawl_queue::known`): one work is fetched once, however it is cited.
pub struct Known<'a> {
    pub client: &'a tokio_postgres::Client,
    pub item: i64,
}

impl Ctx<'_> {
    /// Before fetching: is the work with these keys (`doi`, `arxiv`, `url`) ingested, or
    /// deposited by another item and waiting to be? Then the database has linked this item's
    /// reference to it, and the resolution ends here.
    pub async fn already_known(&self, keys: WorkKeys) -> Option<Outcome> {
        let known = self.known.as_ref()?;
        if keys.is_empty() {
            return None;
        }
        match crate::db::crawl_queue::known(known.client, known.item, &keys).await {
            Ok(link) => link.map(Outcome::Linked),
            Err(e) => {
                // Not knowing only costs a fetch: go on.
                eprintln!(
                    "kerai: warning: could not ask the database about {}: {}",
                    serde_json::to_value(&keys).unwrap_or_default(),
                    crate::db::message(&e)
                );
                None
            }
        }
    }
}

/// Resolve one work-queue request (`kerai.crawl_queue.request`).
pub async fn resolve(request: &WorkRequest, ctx: &Ctx<'_>, scholar: &Scholar<'_>) -> Outcome {
    scholarly::resolve(request, ctx, scholar).await
}
