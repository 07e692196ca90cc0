//! The extension's only network I/O: JSON POSTs to an OpenAI-compatible endpoint the settings
//! name (query embeddings and chat answers). Bounded by a timeout; the API key comes from the
//! server's environment, never from a table. Every connection passes the SSRF guard
//! (`kerai_core::ops::ssrf`): a non-public address is refused unless the
//! `allowed_private_hosts` setting allows it.

use kerai_core::ops::ssrf::AddressGuard;
use serde_json::Value;
use std::io::Read;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

/// The most a response may be.
const MAX_RESPONSE_BYTES: u64 = 32 * 1024 * 1024;

/// How often the backend looks for a cancel while a request is under way.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// The guard the `allowed_private_hosts` entries describe; an error names a bad entry.
pub fn guard(entries: &[String]) -> Result<AddressGuard, String> {
    AddressGuard::parse(entries)
}

/// `kerai._check_allowed_private_hosts(value)`: `kerai.set_setting`'s check of the
/// `allowed_private_hosts` setting; raises, naming the bad entry, unless `value` is an array
/// of hosts, host:port pairs, networks or `*`.
#[pgrx::pg_extern(immutable, parallel_safe)]
pub(crate) fn _check_allowed_private_hosts(value: pgrx::JsonB) {
    let entries: Vec<String> = match value.0 {
        Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => s,
                other => crate::errors::invalid(
                    format!("kerai.set_setting: allowed_private_hosts entries are strings, not {other}"),
                    r#"e.g. SELECT kerai.set_setting('allowed_private_hosts', '["wiki.corp", "10.0.0.0/8"]')"#,
                ),
            })
            .collect(),
        other => crate::errors::invalid(
            format!("kerai.set_setting: allowed_private_hosts is an array of hosts, not {other}"),
            r#"e.g. SELECT kerai.set_setting('allowed_private_hosts', '["wiki.corp", "10.0.0.0/8"]')"#,
        ),
    };
    if let Err(e) = guard(&entries) {
        crate::errors::invalid(format!("kerai.set_setting: {e}"), "");
    }
}

/// Resolves `netloc` (`host:port`, as ureq asks for every connection, redirects included)
/// and keeps the addresses the guard allows.
fn resolve_guarded(guard: &AddressGuard, netloc: &str) -> std::io::Result<Vec<SocketAddr>> {
    let found: Vec<SocketAddr> = netloc.to_socket_addrs()?.collect();
    let (host, port) = match netloc.rsplit_once(':') {
        Some((h, p)) => (h, p.parse::<u16>().unwrap_or(0)),
        None => (netloc, 0),
    };
    if guard.allows_name(host, port) {
        return Ok(found);
    }
    guard.filter(host, port, found).map_err(|r| {
        std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("refused: {r}"),
        )
    })
}

/// POST `body` to `url` and return the response body. `api_key_env` names the environment
/// variable holding a bearer token (unset: no Authorization header); `guard` decides which
/// non-public addresses may be reached.
pub fn post_json(
    url: &str,
    body: &Value,
    api_key_env: &str,
    timeout_seconds: u64,
    guard: AddressGuard,
) -> Result<Vec<u8>, String> {
    let (url, body, key) = (
        url.to_string(),
        body.to_string(),
        std::env::var(api_key_env).ok(),
    );
    cancellable(move || post(&url, body, key, timeout_seconds, guard))
}

/// Runs `work` (network I/O, nothing of Postgres) on a helper thread and waits for it,
/// checking for a cancel every [`CANCEL_POLL`]. On a cancel the usual Postgres error unwinds
/// out of here and the helper is left to end at its own timeout; its answer goes nowhere.
fn cancellable(
    work: impl FnOnce() -> Result<Vec<u8>, String> + Send + 'static,
) -> Result<Vec<u8>, String> {
    let (tx, rx) = mpsc::channel();
    // Spawned with signals blocked, so that a cancel always reaches the backend's thread.
    kerai_core::interrupt::with_signals_blocked(|| {
        thread::Builder::new()
            .name("kerai-http".into())
            .spawn(move || {
                let _ = tx.send(work());
            })
    })
    .map_err(|e| format!("could not start the request ({e})"))?;
    loop {
        match rx.recv_timeout(CANCEL_POLL) {
            Ok(answer) => return answer,
            Err(RecvTimeoutError::Timeout) => {
                pgrx::check_for_interrupts!();
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err("the request ended without an answer".to_string())
            }
        }
    }
}

/// The request itself, on the helper thread: no Postgres in here.
fn post(
    url: &str,
    body: String,
    api_key: Option<String>,
    timeout_seconds: u64,
    guard: AddressGuard,
) -> Result<Vec<u8>, String> {
    let tls = native_tls::TlsConnector::new().map_err(|e| format!("TLS is not available: {e}"))?;
    let agent = ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(timeout_seconds.clamp(1, 30)))
        .timeout(Duration::from_secs(timeout_seconds.max(1)))
        .tls_connector(std::sync::Arc::new(tls))
        .redirects(3)
        .resolver(move |netloc: &str| resolve_guarded(&guard, netloc))
        .build();
    let mut req = agent.post(url).set("Content-Type", "application/json");
    if let Some(key) = api_key.filter(|k| !k.is_empty()) {
        req = req.set("Authorization", &format!("Bearer {key}"));
    }
    let resp = match req.send_string(&body) {
        Ok(r) => r,
        Err(ureq::Error::Status(code, r)) => {
            let mut text = String::new();
            let _ = r.into_reader().take(2000).read_to_string(&mut text);
            let detail = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
                .unwrap_or_else(|| text.chars().take(200).collect());
            return Err(format!("{url} answered HTTP {code}: {detail}"));
        }
        Err(ureq::Error::Transport(t)) => {
            let cause = std::error::Error::source(&t)
                .map(|c| c.to_string())
                .or_else(|| t.message().map(str::to_string))
                .unwrap_or_else(|| t.kind().to_string());
            return Err(if cause.starts_with("refused: ") {
                format!("{url} is {cause}")
            } else if cause.contains("timed out") || t.to_string().contains("timed out") {
                format!("{url} did not answer within {timeout_seconds} s (timeout)")
            } else {
                format!("{url} is unreachable ({}: {cause})", t.kind())
            });
        }
    };
    let mut out = Vec::new();
    resp.into_reader()
        .take(MAX_RESPONSE_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| {
            let m = e.to_string();
            if m.contains("timed out") {
                format!("{url} did not answer within {timeout_seconds} s (timeout)")
            } else {
                format!("{url}: reading the answer failed ({m})")
            }
        })?;
    if out.len() as u64 > MAX_RESPONSE_BYTES {
        return Err(format!(
            "{url} answered more than {MAX_RESPONSE_BYTES} bytes"
        ));
    }
    Ok(out)
}
