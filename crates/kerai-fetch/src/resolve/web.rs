//! Fetch a candidate copy from the web (robots.txt obeyed), check the policy, convert it.

use super::{Ctx, Outcome};
use crate::http::{Fetch, Request};
use crate::site::process;
use kerai_core::resolve::license_family;
use kerai_core::site::robots::{product_token, robots_policy_for_status, Robots, RobotsPolicy};
use kerai_core::wire::crawl_queue::{DepositResult, WorkKeys};
use kerai_core::{ErrorKind, ResourceError};
use serde_json::{json, Value};

/// Fetch `url` (a copy found by `source`), convert it and return the deposit. `license` is what
/// the source said; a page's own structured data may name one when the source did not.
pub async fn fetch_open_copy(
    url: &str,
    source: &str,
    license: Option<&str>,
    ctx: &Ctx<'_>,
) -> Outcome {
    if let Some(done) = ctx
        .already_known(WorkKeys {
            url: Some(url.to_string()),
            ..WorkKeys::default()
        })
        .await
    {
        return done;
    }
    if let Err(e) = robots_allow(url, ctx).await {
        // An unreachable robots.txt disallows the host for now (RFC 9309): try again later.
        return match e.kind {
            ErrorKind::Unreachable => Outcome::failed(e.to_string()),
            _ => Outcome::skipped(e.to_string()),
        };
    }
    (ctx.progress)("fetching", json!({"source_url": url, "source": source}));
    let fetched = ctx.http.fetch(&Request::get(url), &|_| Ok(())).await;
    let resp = match fetched {
        Fetch::Ok(r) => r,
        Fetch::NotModified(_) => {
            return Outcome::failed(format!("resource unreachable: {url} (unexpected 304)"))
        }
        Fetch::Retry { status, .. } => {
            return Outcome::failed(format!(
                "resource unreachable: {url} (HTTP {status}, retry later)"
            ))
        }
        Fetch::Failed { error, status } => {
            return match (error.kind, status) {
                (ErrorKind::AccessRestricted, _) | (_, Some(402)) => {
                    Outcome::skipped(format!("paywalled or login required: {error}"))
                }
                (ErrorKind::TooLarge, _) => Outcome::skipped(error.to_string()),
                // The SSRF guard: skipped until the allowed_private_hosts setting changes.
                (ErrorKind::PrivateAddress, _) => Outcome::skipped(error.to_string()),
                (ErrorKind::RobotsDisallowed, _) => Outcome::skipped(error.to_string()),
                (_, Some(404 | 410)) => Outcome::not_found(error.to_string()),
                _ => Outcome::failed(error.to_string()),
            };
        }
    };
    let is_pdf = resp
        .content_type
        .as_deref()
        .is_some_and(|c| c.contains("pdf"))
        || resp.body.starts_with(b"%PDF");
    if is_pdf && resp.body.len() as u64 > ctx.policy.max_pdf_bytes {
        return Outcome::skipped(format!(
            "too large: {url} ({} bytes, max_pdf_mb allows {})",
            resp.body.len(),
            ctx.policy.max_pdf_bytes
        ));
    }
    (ctx.progress)("converting", json!({"source_url": resp.final_url}));
    let body = resp.body;
    let content_type = resp.content_type.clone();
    let final_url = resp.final_url.clone();
    let converted = tokio::task::spawn_blocking(move || {
        let limits = kerai_core::convert::Limits::default();
        process::process(
            &body,
            content_type.as_deref(),
            &final_url,
            &|_| true,
            &limits,
        )
    })
    .await;
    let p = match converted {
        Ok(Ok(p)) => p,
        Ok(Err(e)) => return Outcome::skipped(e.to_string()),
        Err(e) => {
            return Outcome::failed(format!(
                "corrupt or unsupported document: {url} (converter crashed: {e})"
            ))
        }
    };
    let license = license
        .map(str::to_string)
        .or_else(|| {
            p.metadata
                .get("license")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| "oa".to_string());
    // Recorded by family (cc-by, public-domain, oa, ...), as the policy compares them.
    let family = license_family(&license);
    if !ctx.policy.allows(&family) {
        let named = if family == license.trim().to_lowercase() {
            family.clone()
        } else {
            format!("{} ({family})", license.trim())
        };
        return Outcome::skipped(format!(
            "license not allowed: {url} is under {named}; allowed_licenses is [{}]",
            ctx.policy.allowed_licenses.join(", ")
        ));
    }
    let license = family;
    let words = p.markdown.split_whitespace().count();
    let mut metadata = p.metadata;
    metadata.remove("structured");
    let result = DepositResult {
        source_url: resp.final_url.clone(),
        source_type: p.source_type.to_string(),
        license,
        fetched_at: chrono::Utc::now().to_rfc3339(),
        content_type: if words < ctx.policy.min_full_text_words {
            "abstract"
        } else {
            "full"
        }
        .to_string(),
        found_via: source.to_string(),
        metadata,
    };
    Outcome::Deposit {
        markdown: p.markdown,
        result,
    }
}

async fn robots_allow(url: &str, ctx: &Ctx<'_>) -> Result<(), ResourceError> {
    let Ok(u) = url::Url::parse(url) else {
        return Err(ResourceError::new(ErrorKind::Unreachable, url, "not a URL"));
    };
    let robots_url = format!("{}/robots.txt", u.origin().ascii_serialization());
    let fetched = ctx
        .http
        .fetch(&Request::get(&robots_url), &|_| Ok(()))
        .await;
    let (status, body) = match &fetched {
        Fetch::Ok(r) => (r.status, r.body.as_slice()),
        Fetch::Failed { error, .. } if error.kind == ErrorKind::PrivateAddress => {
            return Err(error.clone().for_resource(url));
        }
        Fetch::Failed { status, .. } => (status.unwrap_or(0), &[][..]),
        Fetch::Retry { status, .. } => (*status, &[][..]),
        Fetch::NotModified(_) => (304, &[][..]),
    };
    match robots_policy_for_status(status) {
        RobotsPolicy::AllowAll => Ok(()),
        RobotsPolicy::DisallowAll => Err(ResourceError::new(
            ErrorKind::Unreachable,
            url,
            format!("robots.txt unreachable (HTTP {status})"),
        )),
        RobotsPolicy::Parse => {
            if Robots::parse(body).is_allowed(product_token(&ctx.http.settings().user_agent), url) {
                Ok(())
            } else {
                Err(ResourceError::new(ErrorKind::RobotsDisallowed, url, ""))
            }
        }
    }
}
