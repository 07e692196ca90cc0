//! The job runner: discovery, then a loop that leases URLs from Postgres, paces them per host,
//! fetches and converts them concurrently, and hands results to the recorder; heartbeats keep
//! the leases alive, so a killed runner's URLs go back to the queue and nothing is lost.

use super::discover::{self, NewUrl};
use super::hosts::{HostRules, Hosts};
use super::process;
use super::progress::Progress;
use super::record::{self, Recorder};
use super::results::{failed_result, fetched_result, flag_partial, skipped_result};
use super::scope::Scope;
use super::state::{Item, Shared};
use crate::db;
use crate::exit::Failure;
use crate::http::auth::Auth;
use crate::http::{Fetch, Http, HttpSettings, Method, Request};
use crate::render::{RenderOptions, Renderer};
use crate::target::TargetConfig;
use chrono::{DateTime, Utc};
use kerai_core::ops::ssrf::AddressGuard;
use kerai_core::site::robots::{product_token, robots_policy_for_status, Robots, RobotsPolicy};
use kerai_core::wire::site::SitemapEntry;
use kerai_core::wire::site_result::{HttpMetadata, JobResult, Outcome};
use kerai_core::{ErrorKind, ResourceError};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_postgres::Client;

/// A job as the runner sees it.
#[derive(Debug, Clone)]
pub struct JobSpec {
    pub id: uuid::Uuid,
    pub target: String,
    pub mode: String,
    pub options: Value,
    pub config: TargetConfig,
    pub urls_enqueued: i32,
    pub started_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub worker: String,
    pub lease_seconds: i32,
    pub no_progress: bool,
    pub quiet: bool,
}

/// How the run ended, from this runner's point of view.
#[derive(Debug, Clone)]
pub struct RunEnd {
    pub cancelled: bool,
    pub error: Option<String>,
}

enum Done {
    Result {
        item: Item,
        result: Box<JobResult>,
        host_failure: bool,
    },
    Retry {
        item: Item,
        status: u16,
        retry_after: Option<Duration>,
    },
    Robots {
        host: String,
        robots: Option<Robots>,
        suspend: Option<String>,
    },
}

/// The HTTP settings of a crawl of `cfg`. The SSRF guard allows what `allowed` (the
/// `allowed_private_hosts` setting) allows, and the target's own hosts: its seeds (host and
/// port) and its allowed domains (with their subdomains), which an administrator named.
pub fn http_settings(cfg: &TargetConfig, allowed: &AddressGuard) -> HttpSettings {
    let mut guard = allowed.clone();
    for seed in cfg.seeds.iter().filter_map(|s| url::Url::parse(s).ok()) {
        if let (Some(host), Some(port)) = (seed.host_str(), seed.port_or_known_default()) {
            // host_str keeps an IPv6 literal's brackets: "[::1]:8080".
            let _ = guard.add(&format!("{host}:{port}"));
        }
    }
    for d in &cfg.allowed_domains {
        let _ = guard.add(d);
        let _ = guard.add(&format!("*.{d}"));
    }
    HttpSettings {
        user_agent: cfg.user_agent.clone(),
        connect_timeout: cfg.connect_timeout,
        timeout: cfg.timeout,
        max_size: cfg.max_size,
        max_redirects: cfg.max_redirects,
        guard: Arc::new(guard),
        auth: None,
    }
}

/// Run (or resume, or join) a job until its queue is empty, it is cancelled, or max_runtime.
pub async fn run_job(
    database_url: &str,
    spec: &JobSpec,
    opts: &RunOptions,
) -> Result<RunEnd, Failure> {
    let control = db::connect(database_url).await?;
    // The recording connections: the database records batches side by side (site/record.rs).
    let n = record::connections();
    let mut recorder_dbs = Vec::with_capacity(n);
    for _ in 0..n {
        recorder_dbs.push(db::connect(database_url).await?);
    }
    let cfg = spec.config.clone();
    let allowed = db::address_guard(&control)
        .await
        .map_err(Failure::critical)?;
    let mut settings = http_settings(&cfg, &allowed);
    // The secret is read now, in this process's environment; a missing one fails the job.
    if let Some(a) = &cfg.auth {
        let made = a
            .secret(&spec.target)
            .and_then(|secret| Auth::new(&spec.target, a, &secret, &cfg.seeds));
        match made {
            Ok(auth) => settings.auth = Some(Arc::new(auth)),
            Err(e) => {
                return Ok(RunEnd {
                    cancelled: false,
                    error: Some(e),
                })
            }
        }
    }
    let http = Http::new(settings).map_err(Failure::critical)?;
    let renderer = if cfg.render {
        Some(Renderer::new(
            RenderOptions {
                wait_for: cfg.render_wait_for.clone(),
                wait_until_load: cfg.render_wait_until == "load",
                timeout: cfg.render_timeout,
            },
            cfg.render_concurrency as usize,
            &cfg.user_agent,
        ))
    } else {
        None
    };
    let shared = Arc::new(Shared {
        scope: Scope::new(&cfg),
        http,
        cfg: cfg.clone(),
        mode: spec.mode.clone(),
        renderer,
        shapes: Default::default(),
    });
    let recorder = Recorder::spawn(recorder_dbs, spec.id, opts.worker.clone());
    let mut progress = Progress::new(opts.no_progress, opts.quiet);

    if spec.urls_enqueued == 0 {
        seed(&control, spec, &shared).await?;
    }

    let deadline = spec
        .started_at
        .map(|s| s + chrono::Duration::from_std(cfg.max_runtime).unwrap_or(chrono::TimeDelta::MAX));
    let rules = HostRules {
        min_interval: if cfg.rate_limit_rps > 0.0 {
            Duration::from_secs_f64(1.0 / cfg.rate_limit_rps)
        } else {
            Duration::ZERO
        },
        per_host: cfg.per_host_concurrency as usize,
        failure_limit: cfg.host_failure_limit.max(1),
        crawl_delay_cap: cfg.crawl_delay_cap,
        backoff_base: Duration::from_secs(1),
    };
    let mut hosts: Hosts<Item> = Hosts::new(rules, cfg.respect_robots);
    let (tx, mut rx) = mpsc::channel::<Done>(1024);
    let concurrency = cfg.concurrency.max(1) as usize;
    let mut in_flight = 0usize;
    let mut next_claim = Instant::now();
    let mut last_heartbeat = Instant::now();
    let mut cancelled = false;
    let mut error: Option<String> = None;
    let mut stopping = false;

    loop {
        let now = Instant::now();
        // Heartbeat: keep the leases; notice cancellation.
        if now.duration_since(last_heartbeat)
            >= Duration::from_secs((opts.lease_seconds as u64 / 4).max(1))
        {
            last_heartbeat = now;
            match db::jobs::heartbeat(&control, spec.id, &opts.worker, opts.lease_seconds).await {
                Ok(st) => {
                    if st.as_deref() != Some("RUNNING") {
                        cancelled = st.as_deref() == Some("CANCELLED");
                        stopping = true;
                    }
                }
                Err(e) => {
                    error = Some(format!("lost the database: {}", db::message(&e)));
                    stopping = true;
                }
            }
        }
        // Logging in failed again and again: stop rather than hammer the login page.
        if !stopping {
            if let Some(why) = shared.http.auth_gave_up() {
                error = Some(why);
                stopping = true;
            }
        }
        if let Some(d) = deadline {
            if !stopping && Utc::now() >= d {
                let _ = db::jobs::log_max_runtime(
                    &control,
                    spec.id,
                    &format!("max_runtime {:?} reached: stopping", cfg.max_runtime),
                )
                .await;
                stopping = true;
            }
        }
        // Lease more URLs when the local queues run low.
        if !stopping && hosts.queued() < concurrency * 4 && now >= next_claim {
            let want = (concurrency * 8) as i32;
            match claim(&control, spec.id, &opts.worker, want, opts.lease_seconds).await {
                Ok(items) => {
                    if items.is_empty() {
                        next_claim = now + Duration::from_millis(100);
                    }
                    for it in items {
                        let host = it.host.clone();
                        hosts.push(&host, it, now, now);
                    }
                }
                Err(e) => {
                    error = Some(e);
                    stopping = true;
                }
            }
        }
        // robots.txt first, for hosts seen for the first time.
        for host in hosts.robots_wanted() {
            let (tx, shared) = (tx.clone(), shared.clone());
            let scheme_url = hosts_scheme_url(&host, &shared);
            tokio::spawn(async move {
                let done = fetch_robots(&shared, &host, &scheme_url).await;
                let _ = tx.send(done).await;
            });
        }
        // Suspended hosts: their queued URLs fail with the reason.
        for (reason, item) in hosts.drain_suspended() {
            let err = ResourceError::new(ErrorKind::Unreachable, &item.url, reason);
            recorder
                .send(failed_result(&item, &err, None, false))
                .await
                .map_err(Failure::critical)?;
        }
        // Start what may start.
        while !stopping && in_flight < concurrency {
            let Some((_, item)) = hosts.next_ready(Instant::now()) else {
                break;
            };
            in_flight += 1;
            let robots = hosts.robots_of(&item.host);
            let (tx, shared) = (tx.clone(), shared.clone());
            tokio::spawn(async move {
                let done = fetch_item(&shared, item, robots).await;
                let _ = tx.send(done).await;
            });
        }
        progress.update(
            &recorder.totals(),
            recorder.totals().done() + hosts.queued() as u64 + in_flight as u64,
            in_flight,
        );

        // Finished? Nothing queued, nothing in flight, and the database has nothing more once
        // every result (and the links it adds) is written.
        if in_flight == 0 && (hosts.queued() == 0 || stopping) {
            if stopping {
                break;
            }
            if let Err(e) = recorder.flush().await {
                error = Some(e);
                break;
            }
            match claim(
                &control,
                spec.id,
                &opts.worker,
                (concurrency * 8) as i32,
                opts.lease_seconds,
            )
            .await
            {
                // Done only when no URL is left that nobody fetches and no other fetcher
                // holds one (its results may add links; if it dies, its leases run out and
                // are claimed here).
                Ok(items) if items.is_empty() => {
                    match db::jobs::work_left(&control, spec.id, &opts.worker).await {
                        Ok(left) if left.is_none() => break,
                        Ok(_) => {}
                        Err(e) => {
                            error =
                                Some(format!("cannot see the job's queue: {}", db::message(&e)));
                            break;
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
                Ok(items) => {
                    let now = Instant::now();
                    for it in items {
                        let host = it.host.clone();
                        hosts.push(&host, it, now, now);
                    }
                    continue;
                }
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        // Wait for a result, or until a host becomes ready.
        let wake = hosts
            .next_wake(Instant::now())
            .unwrap_or_else(|| Instant::now() + Duration::from_millis(200));
        let wake = wake.min(Instant::now() + Duration::from_millis(500));
        tokio::select! {
            done = rx.recv() => {
                if let Some(done) = done {
                    handle(done, &mut hosts, &recorder, &mut in_flight, &shared).await.map_err(Failure::critical)?;
                    // Take everything else that is already there.
                    while let Ok(done) = rx.try_recv() {
                        handle(done, &mut hosts, &recorder, &mut in_flight, &shared).await.map_err(Failure::critical)?;
                    }
                }
            }
            _ = tokio::time::sleep_until(wake.into()) => {}
            _ = crate::exit::stop_requested() => {
                error = Some("interrupted".into());
                stopping = true;
            }
        }
    }
    // Let fetches in flight land (they are leased to us) unless we lost the database.
    while in_flight > 0 && error.as_deref() != Some("interrupted") {
        match tokio::time::timeout(cfg.timeout + Duration::from_secs(5), rx.recv()).await {
            Ok(Some(done)) => handle(done, &mut hosts, &recorder, &mut in_flight, &shared)
                .await
                .map_err(Failure::critical)?,
            _ => break,
        }
    }
    let flushed = recorder.flush().await;
    let totals = recorder.totals();
    progress.update(&totals, totals.done(), 0);
    progress.finish();
    if let Err(e) = flushed {
        error.get_or_insert(e);
    }
    Ok(RunEnd { cancelled, error })
}

fn hosts_scheme_url(host: &str, shared: &Shared) -> String {
    let scheme = shared
        .cfg
        .seeds
        .iter()
        .filter_map(|s| url::Url::parse(s).ok())
        .find(|u| u.host_str().is_some_and(|h| h.eq_ignore_ascii_case(host)))
        .map(|u| format!("{}://{}", u.scheme(), u.authority()))
        .unwrap_or_else(|| format!("http://{host}"));
    format!("{scheme}/robots.txt")
}

async fn handle(
    done: Done,
    hosts: &mut Hosts<Item>,
    recorder: &Recorder,
    in_flight: &mut usize,
    shared: &Shared,
) -> Result<(), String> {
    let now = Instant::now();
    match done {
        Done::Robots {
            host,
            robots,
            suspend,
        } => match suspend {
            Some(reason) => {
                for item in hosts.suspend(&host, reason.clone(), now) {
                    let err = ResourceError::new(ErrorKind::Unreachable, &item.url, reason.clone());
                    recorder
                        .send(failed_result(&item, &err, None, false))
                        .await?;
                }
            }
            None => hosts.robots_ready(&host, robots, product_token(&shared.cfg.user_agent), now),
        },
        Done::Result {
            item,
            result,
            host_failure,
        } => {
            *in_flight -= 1;
            let host = item.host.clone();
            if let Some(reason) = hosts.finished(&host, host_failure, now) {
                for queued in hosts.suspend(&host, reason.clone(), now) {
                    let err =
                        ResourceError::new(ErrorKind::Unreachable, &queued.url, reason.clone());
                    recorder
                        .send(failed_result(&queued, &err, None, false))
                        .await?;
                }
            }
            recorder.send(result).await?;
        }
        Done::Retry {
            mut item,
            status,
            retry_after,
        } => {
            *in_flight -= 1;
            let host = item.host.clone();
            if item.attempt + 1 >= shared.cfg.retries.max(1) {
                hosts.finished(&host, true, now);
                let err = ResourceError::new(
                    ErrorKind::Unreachable,
                    &item.url,
                    format!("HTTP {status} after {} attempts", item.attempt + 1),
                );
                recorder
                    .send(failed_result(&item, &err, Some(status), true))
                    .await?;
            } else {
                let at = hosts.backoff(&host, item.attempt, retry_after, now);
                item.attempt += 1;
                hosts.push(&host, item, at, now);
            }
        }
    }
    Ok(())
}

async fn claim(
    db: &Client,
    job: uuid::Uuid,
    worker: &str,
    n: i32,
    lease: i32,
) -> Result<Vec<Item>, String> {
    let rows = db::jobs::claim_urls(db, job, worker, n, lease)
        .await
        .map_err(|e| format!("cannot lease URLs: {}", db::message(&e)))?;
    Ok(rows
        .iter()
        .map(|r| {
            let sitemap: Option<SitemapEntry> = r
                .get::<_, Option<Value>>("sitemap")
                .map(SitemapEntry::from_json);
            Item {
                id: r.get("id"),
                url: r.get("url"),
                host: r.get("host"),
                depth: r.get("depth"),
                sitemap_lastmod: sitemap
                    .as_ref()
                    .and_then(|s| s.lastmod.as_deref())
                    .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
                    .map(|d| d.with_timezone(&Utc)),
                etag: r.get("etag"),
                last_modified: r.get("last_modified"),
                last_scraped_at: r.get("last_scraped_at"),
                last_status: r.get("last_status"),
                source_type: r.get("source_type"),
                attempt: 0,
            }
        })
        .collect())
}

/// Seeds and sitemap entries (or the single URL, or the URLs to retry) of a fresh job.
async fn seed(db: &Client, spec: &JobSpec, shared: &Shared) -> Result<(), Failure> {
    let mut urls: Vec<NewUrl> = Vec::new();
    let mut note = String::new();
    match spec.mode.as_str() {
        "url" | "retry" => {
            let list: Vec<String> = match spec.mode.as_str() {
                "url" => spec.options["url"]
                    .as_str()
                    .map(|s| vec![s.to_string()])
                    .unwrap_or_default(),
                _ => spec.options["urls"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            for u in list {
                match shared.scope.check(&u, 0) {
                    Ok(s) => urls.push(NewUrl {
                        url: s.url,
                        url_hash: s.url_hash,
                        host: s.host,
                        depth: 0,
                        via: if spec.mode == "url" { "seed" } else { "retry" }.into(),
                        discovered_from: None,
                        sitemap: None,
                    }),
                    Err(why) => {
                        let _ = db::jobs::log_out_of_scope(db, spec.id, &format!("{u}: {why}"), &u)
                            .await;
                    }
                }
            }
        }
        _ => {
            let since = spec.options["since"]
                .as_str()
                .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
                .map(|d| d.with_timezone(&Utc));
            let found = discover::discover(&shared.http, &shared.cfg, &shared.scope, since).await;
            if shared.cfg.use_sitemaps && found.sitemaps.is_empty() {
                let _ = db::jobs::log_no_sitemap(
                    db,
                    spec.id,
                    "no sitemap found (robots.txt Sitemap lines, /sitemap.xml and the other well-known paths): the crawl follows links from the seeds only",
                )
                .await;
            }
            note = format!(
                "discovered {} URLs ({} seeds, {} from {} sitemap documents), {} out of scope{}",
                found.urls.len(),
                found.urls.iter().filter(|u| u.via == "seed").count(),
                found.urls.iter().filter(|u| u.via == "sitemap").count(),
                found.sitemaps.len(),
                found.excluded.len(),
                if since.is_some() {
                    format!(", {} older than --since", found.older_than_since)
                } else {
                    String::new()
                }
            );
            urls = found.urls;
        }
    }
    for chunk in urls.chunks(1000) {
        db::jobs::add_urls(db, spec.id, chunk)
            .await
            .map_err(|e| Failure::critical(format!("cannot queue URLs: {}", db::message(&e))))?;
    }
    if !note.is_empty() {
        let _ = db::jobs::log_discovery(db, spec.id, &note).await;
    }
    Ok(())
}

async fn fetch_robots(shared: &Shared, host: &str, robots_url: &str) -> Done {
    let fetched = shared
        .http
        .fetch(&Request::get_without_login(robots_url), &|_| Ok(()))
        .await;
    let (status, body) = match &fetched {
        Fetch::Ok(r) => (r.status, r.body.as_slice()),
        Fetch::NotModified(_) => (304, &[][..]),
        Fetch::Retry { status, .. } => (*status, &[][..]),
        Fetch::Failed { status, .. } => (status.unwrap_or(0), &[][..]),
    };
    match robots_policy_for_status(status) {
        RobotsPolicy::Parse => Done::Robots {
            host: host.into(),
            robots: Some(Robots::parse(body)),
            suspend: None,
        },
        RobotsPolicy::AllowAll => Done::Robots {
            host: host.into(),
            robots: None,
            suspend: None,
        },
        RobotsPolicy::DisallowAll => {
            let why = match &fetched {
                Fetch::Failed { error, .. } => error.to_string(),
                _ => format!("HTTP {status}"),
            };
            Done::Robots {
                host: host.into(),
                robots: None,
                suspend: Some(format!(
                    "robots.txt of {host} is unreachable ({why}); host suspended (RFC 9309)"
                )),
            }
        }
    }
}

fn is_document_type(t: Option<&str>) -> bool {
    matches!(t, Some("pdf" | "docx" | "xlsx" | "epub"))
}

async fn fetch_item(shared: &Shared, item: Item, robots: Option<Arc<Robots>>) -> Done {
    let cfg = &shared.cfg;
    let ua = product_token(&cfg.user_agent).to_string();
    if let Some(r) = &robots {
        if !r.is_allowed(&ua, &item.url) {
            let err = ResourceError::new(ErrorKind::RobotsDisallowed, &item.url, "");
            return Done::Result {
                result: skipped_result(&item, &err),
                item,
                host_failure: false,
            };
        }
    }
    let incremental = shared.mode != "full";
    // Smart refresh: the sitemap says the page has not changed since we last had it (an
    // alias of another page is fetched anyway, to be judged again).
    if incremental
        && cfg.trust_sitemap_lastmod
        && item
            .last_status
            .as_deref()
            .is_some_and(|s| s != "failed" && s != "duplicate")
        && matches!((item.sitemap_lastmod, item.last_scraped_at), (Some(lm), Some(seen)) if lm <= seen)
    {
        return Done::Result {
            result: Box::new(JobResult {
                http: Some(HttpMetadata {
                    reason: Some("sitemap lastmod".into()),
                    ..HttpMetadata::default()
                }),
                attempts: Some(0),
                ..JobResult::new(item.id, &item.url, Outcome::NotModified)
            }),
            item,
            host_failure: false,
        };
    }
    let gate_robots = robots.clone();
    let origin_host = item.host.clone();
    let gate = move |u: &url::Url| -> Result<(), ResourceError> {
        let target = u.as_str();
        if shared.scope.check(target, 0).is_err() {
            let h = u.host_str().unwrap_or("");
            if !crate::target::config::domain_allowed(h, &shared.cfg.allowed_domains) {
                return Err(ResourceError::new(
                    ErrorKind::Unreachable,
                    target,
                    "redirected outside allowed_domains",
                ));
            }
        }
        if let Some(r) = &gate_robots {
            if u.host_str()
                .is_some_and(|h| h.eq_ignore_ascii_case(&origin_host))
                && !r.is_allowed(&ua, target)
            {
                return Err(ResourceError::new(ErrorKind::RobotsDisallowed, target, ""));
            }
        }
        Ok(())
    };
    let mut req = Request::get(&item.url);
    if incremental {
        req.etag = item.etag.clone();
        req.last_modified = item.last_modified.clone();
    }
    // A known document with validators: ask with HEAD first, it costs no body.
    if incremental
        && is_document_type(item.source_type.as_deref())
        && (req.etag.is_some() || req.last_modified.is_some())
    {
        let head = Request {
            method: Method::Head,
            ..req.clone()
        };
        match shared.http.fetch(&head, &gate).await {
            Fetch::NotModified(_) => {
                return Done::Result {
                    result: Box::new(JobResult {
                        http: Some(HttpMetadata {
                            status: Some(304),
                            method: Some("HEAD".into()),
                            ..HttpMetadata::default()
                        }),
                        attempts: Some(item.attempt + 1),
                        ..JobResult::new(item.id, &item.url, Outcome::NotModified)
                    }),
                    item,
                    host_failure: false,
                }
            }
            Fetch::Ok(r)
                if (r.etag.is_some() && r.etag == item.etag)
                    || (r.etag.is_none()
                        && r.last_modified.is_some()
                        && r.last_modified == item.last_modified) =>
            {
                return Done::Result {
                    result: Box::new(JobResult {
                        http: Some(HttpMetadata {
                            status: Some(r.status),
                            method: Some("HEAD".into()),
                            etag: r.etag,
                            last_modified: r.last_modified,
                            ..HttpMetadata::default()
                        }),
                        attempts: Some(item.attempt + 1),
                        ..JobResult::new(item.id, &item.url, Outcome::NotModified)
                    }),
                    item,
                    host_failure: false,
                }
            }
            _ => {}
        }
    }
    match shared.http.fetch(&req, &gate).await {
        Fetch::NotModified(r) => Done::Result {
            result: Box::new(JobResult {
                http: Some(HttpMetadata {
                    status: Some(304),
                    etag: r.etag.or(item.etag.clone()),
                    last_modified: r.last_modified.or(item.last_modified.clone()),
                    elapsed_ms: Some(r.elapsed.as_millis() as u64),
                    ..HttpMetadata::default()
                }),
                attempts: Some(item.attempt + 1),
                ..JobResult::new(item.id, &item.url, Outcome::NotModified)
            }),
            item,
            host_failure: false,
        },
        Fetch::Retry {
            status,
            retry_after,
            ..
        } => Done::Retry {
            item,
            status,
            retry_after,
        },
        Fetch::Failed { error, status } => {
            let host_failure = matches!(error.kind, ErrorKind::Unreachable | ErrorKind::Timeout)
                && status.is_none_or(|s| s >= 500);
            if error.kind == ErrorKind::RobotsDisallowed {
                return Done::Result {
                    result: skipped_result(&item, &error),
                    item,
                    host_failure: false,
                };
            }
            Done::Result {
                result: failed_result(&item, &error, status, true),
                item,
                host_failure,
            }
        }
        Fetch::Ok(mut resp) => {
            // JavaScript pages: the browser's DOM replaces the served HTML.
            let mut partial = false;
            if let Some(renderer) = &shared.renderer {
                let looks_html = resp
                    .content_type
                    .as_deref()
                    .is_some_and(|c| c.contains("html"));
                if looks_html {
                    match renderer.render(&resp.final_url).await {
                        Ok(rendered) => {
                            resp.body = rendered.html.into_bytes();
                            partial = rendered.partial;
                        }
                        Err(error) => {
                            return Done::Result {
                                result: failed_result(&item, &error, None, true),
                                item,
                                host_failure: false,
                            }
                        }
                    }
                }
            }
            let body = std::mem::take(&mut resp.body);
            let content_type = resp.content_type.clone();
            let final_url = resp.final_url.clone();
            let wanted_types = cfg.file_types.clone();
            let processed = tokio::task::spawn_blocking(move || {
                let wanted = |t: &str| wanted_types.iter().any(|w| w == t);
                let limits = kerai_core::convert::Limits {
                    max_bytes: usize::MAX,
                    ..Default::default()
                };
                let r =
                    process::process(&body, content_type.as_deref(), &final_url, &wanted, &limits);
                (r, body.len())
            })
            .await;
            let (processed, bytes) = match processed {
                Ok(p) => p,
                Err(e) => {
                    let err = ResourceError::corrupt(&item.url, format!("converter crashed: {e}"));
                    return Done::Result {
                        result: failed_result(&item, &err, Some(resp.status), true),
                        item,
                        host_failure: false,
                    };
                }
            };
            match processed {
                Ok(p) => {
                    let mut result = fetched_result(&item, &resp, bytes, p, shared);
                    if partial {
                        flag_partial(&mut result, shared.cfg.render_timeout);
                    }
                    Done::Result {
                        result,
                        item,
                        host_failure: false,
                    }
                }
                Err(error) => Done::Result {
                    result: failed_result(&item, &error, Some(resp.status), true),
                    item,
                    host_failure: false,
                },
            }
        }
    }
}
