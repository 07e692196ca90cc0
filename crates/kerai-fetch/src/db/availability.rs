//! A database that stops taking writes (read-only: `default_transaction_read_only`, or a
//! standby after a failover) or connections (a restart, an outage, `ALLOW_CONNECTIONS false`),
//! or, distributed over Citus, cannot reach one of its workers.
//! The fetcher and the daemon pause with one clear message and go on when it is back. Nothing
//! is lost: the URLs in hand are leased, handed back on resume and fetched again.

use super::listen::is_connection_error;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Why the database cannot take the work now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unavailable {
    /// It answers, but refuses writes.
    ReadOnly,
    /// It refuses connections, or ended ours.
    Away,
    /// A Citus coordinator that answers, but cannot reach a worker a statement needs.
    Worker,
}

impl Unavailable {
    fn state(self) -> &'static str {
        match self {
            Unavailable::ReadOnly => {
                "is read-only (default_transaction_read_only is on, or it is a standby)"
            }
            Unavailable::Away => "refuses connections",
            Unavailable::Worker => "cannot reach one of its workers",
        }
    }
}

/// Whether an error message says the database is unavailable, as opposed to refusing this
/// piece of work (a bad row, a missing permission), which waiting does not heal.
pub fn classify(message: &str) -> Option<Unavailable> {
    let m = message.to_ascii_lowercase();
    if m.contains("read-only transaction") || m.contains("read only transaction") {
        Some(Unavailable::ReadOnly)
    } else if m.contains("to the remote node") || m.contains("connections to the node") {
        // Citus: "connection to the remote node user@host:port failed ...", "could not
        // establish any connections to the node host:port after ... ms".
        Some(Unavailable::Worker)
    } else if is_connection_error(&m) || m.contains("not currently accepting connections") {
        Some(Unavailable::Away)
    } else {
        None
    }
}

/// First pause between checks, and the longest.
const FIRST: Duration = Duration::from_millis(500);
const LONGEST: Duration = Duration::from_secs(5);

/// Wait until the database at `url` accepts connections and writes. `error` is what failed
/// (named in the message), `what` the work that pauses ("job 1234…", "the site lane"). Says
/// once why it waits and, when it is over, how long it took. `Err` when `stop` is set first,
/// or when the database answers with something waiting cannot heal (a wrong password).
pub async fn wait_writable(
    url: &str,
    error: &str,
    what: &str,
    stop: &AtomicBool,
) -> Result<Duration, String> {
    let started = Instant::now();
    let kind = classify(error).unwrap_or(Unavailable::Away);
    eprintln!(
        "kerai: the database {}: {what} pauses until it {} ({error})",
        kind.state(),
        match kind {
            Unavailable::ReadOnly => "accepts writes again",
            Unavailable::Away => "is back",
            Unavailable::Worker => "reaches its workers again",
        }
    );
    let mut wait = FIRST;
    loop {
        let step = Duration::from_millis(100);
        let until = Instant::now() + wait;
        while Instant::now() < until {
            if stop.load(Ordering::SeqCst) {
                return Err("interrupted".into());
            }
            tokio::time::sleep(step).await;
        }
        match writable(url, kind == Unavailable::Worker).await {
            Ok(true) => {
                let took = started.elapsed();
                eprintln!(
                    "kerai: the database {} after {:.1} s: {what} resumes",
                    match kind {
                        Unavailable::Worker => "reaches its workers again",
                        _ => "accepts writes again",
                    },
                    took.as_secs_f64()
                );
                return Ok(took);
            }
            Ok(false) => {}
            Err(e) if classify(&e).is_none() => {
                return Err(format!("the database came back refusing kerai: {e}"));
            }
            Err(_) => {}
        }
        wait = (wait * 2).min(LONGEST);
    }
}

/// Whether a new session may write (`transaction_read_only` is off in it), and, with
/// `workers`, whether a statement reaches every shard of the corpus (every worker).
async fn writable(url: &str, workers: bool) -> Result<bool, String> {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .map_err(|e| super::message(&e))?;
    let conn = tokio::spawn(connection);
    let ro = client
        .query_one("SELECT current_setting('transaction_read_only')", &[])
        .await
        .map_err(|e| super::message(&e))?;
    let reached = if workers {
        client
            .query("SELECT 1 FROM kerai.documents LIMIT 1", &[])
            .await
            .map_err(|e| super::message(&e))
    } else {
        Ok(Vec::new())
    };
    drop(client);
    let _ = conn.await;
    match reached {
        Ok(_) => Ok(ro.get::<_, String>(0) == "off"),
        Err(e) if classify(&e) == Some(Unavailable::Worker) => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_and_connection_errors_pause_others_do_not() {
        assert_eq!(
            classify("cannot lease URLs: cannot execute UPDATE in a read-only transaction"),
            Some(Unavailable::ReadOnly)
        );
        for e in [
            "lost the database: connection closed",
            "db error: FATAL: terminating connection due to administrator command",
            "database \"corpus\" is not currently accepting connections",
            "the database system is shutting down",
        ] {
            assert_eq!(classify(e), Some(Unavailable::Away), "{e}");
        }
        for e in [
            "cannot record results: connection to the remote node postgres@127.0.0.1:28951 failed with the following error: Connection refused",
            "could not establish any connections to the node 127.0.0.1:28952 after 5000 ms",
        ] {
            assert_eq!(classify(e), Some(Unavailable::Worker), "{e}");
        }
        for e in [
            "permission denied for function _job_record",
            "duplicate key value violates unique constraint \"pages_one_per_url\"",
        ] {
            assert_eq!(classify(e), None, "{e}");
        }
    }
}
