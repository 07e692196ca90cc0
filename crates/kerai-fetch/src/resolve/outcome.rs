//! The end of one resolution: markdown to deposit, or a decision recorded on the reference.

use kerai_core::wire::crawl_queue::{DepositResult, KnownWork};

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Converted markdown and what to record with it (source_url, source_type, license,
    /// fetched_at, content_type, metadata).
    Deposit {
        markdown: String,
        result: DepositResult,
    },
    NotFound(String),
    Skipped(String),
    /// A transient failure: retried with backoff.
    Failed(String),
    /// The work is already in the corpus (or deposited by another item): the database linked
    /// the reference to it (`db::crawl_queue::known`'s answer), nothing was fetched.
    Linked(KnownWork),
}

impl Outcome {
    pub fn not_found(why: impl Into<String>) -> Outcome {
        Outcome::NotFound(why.into())
    }

    pub fn skipped(why: impl Into<String>) -> Outcome {
        Outcome::Skipped(why.into())
    }

    pub fn failed(why: impl Into<String>) -> Outcome {
        Outcome::Failed(why.into())
    }

    /// The queue outcome name of a decision (`db::crawl_queue::fail`).
    pub fn fail_kind(&self) -> Option<(&'static str, &str)> {
        match self {
            Outcome::NotFound(r) => Some(("not_found", r)),
            Outcome::Skipped(r) => Some(("skipped", r)),
            Outcome::Failed(r) => Some(("failed", r)),
            Outcome::Deposit { .. } | Outcome::Linked(_) => None,
        }
    }
}
