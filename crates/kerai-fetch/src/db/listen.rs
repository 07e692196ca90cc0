//! A working connection with a second one that only listens on a notification channel
//! (`kerai_jobs` for site jobs, `kerai_crawl` for the citation loop), and reconnection with
//! backoff for the long-running commands.

use super::{connect as connect_checked, message};
use crate::exit::Failure;
use futures_util::StreamExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_postgres::Client;

/// The two connections: one for work, one that only listens.
pub struct Listening {
    pub client: Client,
    /// A message per notification; closed when the listening connection is lost.
    pub notes: UnboundedReceiver<()>,
    _listener: Client,
}

pub async fn connect(url: &str, channel: &str) -> Result<Listening, Failure> {
    let client = connect_checked(url).await?;
    let (listener, mut connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .map_err(|e| super::connect_failure(url, &e))?;
    let (tx, notes) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut stream = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(Ok(msg)) = stream.next().await {
            if let tokio_postgres::AsyncMessage::Notification(_) = msg {
                let _ = tx.send(());
            }
        }
    });
    listener
        .batch_execute(&format!("LISTEN {channel}"))
        .await
        .map_err(|e| Failure::critical(message(&e)))?;
    Ok(Listening {
        client,
        notes,
        _listener: listener,
    })
}

/// The first backoff and its cap: 0.5 s, doubling, at most 30 s between attempts.
const FIRST_WAIT: Duration = Duration::from_millis(500);
const MAX_WAIT: Duration = Duration::from_secs(30);

/// [`connect`], retrying with backoff until it works or `stop` is set. After a failed first
/// attempt it says how long reconnecting took.
pub async fn connect_retrying(
    url: &str,
    channel: &str,
    stop: &AtomicBool,
) -> Result<Listening, Failure> {
    let started = Instant::now();
    let mut wait = FIRST_WAIT;
    let mut failed = false;
    loop {
        match connect(url, channel).await {
            Ok(c) => {
                if failed {
                    eprintln!(
                        "kerai: connected again after {:.1} s",
                        started.elapsed().as_secs_f64()
                    );
                }
                return Ok(c);
            }
            Err(e) if stop.load(Ordering::SeqCst) => return Err(e),
            // A role dropped or made NOLOGIN, a database dropped: the server answers, and no
            // wait changes its answer.
            Err(e) if super::is_refused_login(&e) => return Err(e),
            // A database that is not kerai's, or of another API version, does not heal.
            Err(e) if !is_connection_error(&e.message) => return Err(e),
            Err(e) => {
                failed = true;
                eprintln!(
                    "kerai: {}; retrying in {:.1} s",
                    e.message,
                    wait.as_secs_f64()
                );
                let step = Duration::from_millis(100);
                let until = Instant::now() + wait;
                while Instant::now() < until && !stop.load(Ordering::SeqCst) {
                    tokio::time::sleep(step).await;
                }
                wait = (wait * 2).min(MAX_WAIT);
            }
        }
    }
}

/// The connection `client` ran a statement on is gone: the client says so, or the error names
/// a connection and the server no longer answers on it. An error that names a connection while
/// the session is fine (Citus's about its own connections to the workers, a function's message)
/// is a failure of that statement, not a reason to reconnect and try it again.
pub async fn connection_lost(client: &Client, message: &str) -> bool {
    client.is_closed()
        || (is_connection_error(message) && client.simple_query("SELECT 1").await.is_err())
}

/// The error says the connection failed or was lost (as opposed to a refusal by the database).
pub fn is_connection_error(e: &str) -> bool {
    let e = e.to_ascii_lowercase();
    [
        "connection",
        "connect",
        "closed",
        "terminating",
        "shutting down",
        "starting up",
        "recovery",
        "i/o error",
        "broken pipe",
        "reset by peer",
        "timed out",
    ]
    .iter()
    .any(|w| e.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_errors_are_told_from_refusals() {
        for e in [
            "cannot connect to the database postgresql://x@h/db: error connecting to server: Connection refused (os error 111)",
            "db error: FATAL: terminating connection due to administrator command",
            "connection closed",
            "db error: FATAL: the database system is shutting down",
            "db error: FATAL: the database system is starting up",
        ] {
            assert!(is_connection_error(e), "{e}");
        }
        for e in [
            "database \"x\" has no kerai extension",
            "permission denied for kerai._job_begin (the fetcher): role bob is not a member of kerai_fetcher",
        ] {
            assert!(!is_connection_error(e), "{e}");
        }
    }
}
