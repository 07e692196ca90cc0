//! What a fetch becomes for the database: the result of a fetched page (its links followed
//! within the scope and the trap limit), of a failed or skipped URL, and the partial-render flag.

use super::discover::NewUrl;
use super::process::Processed;
use super::scope::type_from_path;
use super::state::{Follow, Item, Shared};
use kerai_core::wire::site::{JobError, JobLog};
use kerai_core::wire::site_result::{HttpMetadata, JobResult, Outcome};
use kerai_core::ResourceError;
use serde_json::Value;
use std::collections::HashSet;
use std::time::Duration;

pub(super) fn fetched_result(
    item: &Item,
    resp: &crate::http::Response,
    bytes: usize,
    p: Processed,
    shared: &Shared,
) -> Box<JobResult> {
    let cfg = &shared.cfg;
    let mut links: Vec<NewUrl> = Vec::new();
    let mut logs: Vec<JobLog> = Vec::new();
    let next_depth = item.depth as u32 + 1;
    if cfg.follow_links && next_depth <= cfg.max_depth && !p.links.is_empty() {
        let mut seen = HashSet::new();
        for l in &p.links {
            if l.nofollow || l.tag == "link" && l.hreflang.is_none() {
                continue;
            }
            if let Ok(s) = shared.scope.check(&l.url, next_depth) {
                if !seen.insert(s.url_hash.clone()) {
                    continue;
                }
                let shape = url_shape(&s.url);
                let verdict = shared
                    .shapes
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .entry(shape.clone())
                    .or_default()
                    .follow(&s.url_hash, cfg.trap_limit as usize);
                match verdict {
                    Follow::Yes => {}
                    Follow::TrapFound => {
                        logs.push(JobLog {
                            level: "WARN".into(),
                            event: "CRAWLER_TRAP".into(),
                            url: s.url.clone(),
                            message: format!(
                                "crawler trap: {} (more than {} URLs shaped {shape}; not followed)",
                                s.url, cfg.trap_limit
                            ),
                        });
                        continue;
                    }
                    Follow::No => continue,
                }
                {
                    links.push(NewUrl {
                        url: s.url,
                        url_hash: s.url_hash,
                        host: s.host,
                        depth: next_depth,
                        via: "link".into(),
                        discovered_from: Some(item.url.clone()),
                        sitemap: None,
                    });
                }
            }
        }
    }
    // rel=canonical naming another URL of the scope: the page is stored as its alias.
    let canonical = p
        .metadata
        .get("canonical")
        .and_then(Value::as_str)
        .and_then(|c| shared.scope.check(c, item.depth.max(0) as u32).ok())
        .filter(|s| s.url != item.url)
        .map(|s| NewUrl {
            url: s.url,
            url_hash: s.url_hash,
            host: s.host,
            depth: item.depth.max(0) as u32,
            via: "link".into(),
            discovered_from: Some(item.url.clone()),
            sitemap: None,
        });
    Box::new(JobResult {
        final_url: Some(resp.final_url.clone()),
        http: Some(HttpMetadata {
            status: Some(resp.status),
            etag: resp.etag.clone(),
            last_modified: resp.last_modified.clone(),
            content_type: resp.content_type.clone(),
            bytes: Some(bytes as u64),
            elapsed_ms: Some(resp.elapsed.as_millis() as u64),
            redirects: Some(resp.redirects.clone()),
            ..HttpMetadata::default()
        }),
        content_hash: Some(p.content_hash),
        raw_html: p.raw_html,
        markdown: Some(p.markdown),
        source_type: Some(p.source_type.to_string()),
        metadata: Some(p.metadata),
        links: Some(links),
        logs: Some(logs),
        attempts: Some(item.attempt + 1),
        canonical,
        signature: p.signature,
        ..JobResult::new(item.id, &item.url, Outcome::Fetched)
    })
}

/// A URL with its digit runs masked: /calendar/2026/01?page=3 becomes /calendar/#/#?page=#.
/// A page whose rendering timed out: kept with the DOM so far, flagged for review (the
/// version's `metadata.partial`, and a `RENDER_PARTIAL` warning).
pub(super) fn flag_partial(result: &mut JobResult, timeout: Duration) {
    result
        .metadata
        .get_or_insert_with(Default::default)
        .insert("partial".into(), Value::Bool(true));
    let log = JobLog {
        level: "WARN".into(),
        event: "RENDER_PARTIAL".into(),
        url: result.url.clone(),
        message: format!(
            "rendering did not finish within render_timeout {timeout:?}: the page as rendered so far was kept, flagged partial"
        ),
    };
    result.logs.get_or_insert_with(Vec::new).push(log);
}

pub(super) fn url_shape(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut in_digits = false;
    for c in url.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

/// A failed URL's result; `sent`: a request for it was sent this time (not only queued).
pub(super) fn failed_result(
    item: &Item,
    error: &ResourceError,
    status: Option<u16>,
    sent: bool,
) -> Box<JobResult> {
    Box::new(JobResult {
        attempts: Some(item.attempt + u32::from(sent)),
        source_type: item
            .source_type
            .clone()
            .or_else(|| type_from_path(&item.url)),
        http: status.map(|status| HttpMetadata {
            status: Some(status),
            ..HttpMetadata::default()
        }),
        ..JobResult::refused(item.id, &item.url, Outcome::Failed, job_error(error))
    })
}

/// A result's `error`.
pub(super) fn job_error(error: &ResourceError) -> JobError {
    JobError {
        kind: error.kind.code().to_string(),
        message: error.to_string(),
    }
}

pub(super) fn skipped_result(item: &Item, error: &ResourceError) -> Box<JobResult> {
    Box::new(JobResult {
        attempts: Some(0),
        source_type: item
            .source_type
            .clone()
            .or_else(|| type_from_path(&item.url)),
        ..JobResult::refused(item.id, &item.url, Outcome::Skipped, job_error(error))
    })
}
