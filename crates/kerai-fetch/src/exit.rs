//! Exit codes: 0 success, 1 success with partial errors, 2 critical failure.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Success,
    Partial,
    Critical,
}

impl Code {
    pub fn as_i32(self) -> i32 {
        match self {
            Code::Success => 0,
            Code::Partial => 1,
            Code::Critical => 2,
        }
    }
}

/// A failure that ends the command: printed on standard error as `kerai: error: …`.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub hint: Option<String>,
    /// The server refused the login (`db::connect_failure`): retrying does not heal it.
    pub refused_login: bool,
}

impl Failure {
    pub fn critical(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            hint: None,
            refused_login: false,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(h) = &self.hint {
            write!(f, "\nhint: {h}")?;
        }
        Ok(())
    }
}

/// Print the failure and exit with code 2.
pub fn fail(f: Failure) -> ! {
    eprintln!("kerai: error: {f}");
    std::process::exit(Code::Critical.as_i32())
}

/// Resolves when the process is asked to stop: Ctrl-C (SIGINT), or SIGTERM (`kill`, systemd,
/// `docker stop`). Long-running commands finish or hand back what they hold, then exit 0.
pub async fn stop_requested() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(t) => {
                t.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminated => {}
    }
}
