//! HTTP for the crawler: one request with redirects followed by hand (so every hop is checked
//! against robots.txt and the scope, and loops are caught), conditional GET, HEAD, size and
//! time limits, the SSRF guard on every hop, and every failure in the standard error catalogue.

pub mod auth;
mod fetch;
pub mod guard;
mod retry_after;

pub use fetch::{Fetch, Http, HttpSettings, Method, Request, Response};
pub use retry_after::parse_retry_after;
