//! Who holds a lease: the `host:pid` a fetcher writes into the jobs and queue items it leases
//! ([`worker_name`]), and whether that process is provably gone.

use std::path::Path;

/// This process's name in leases and logs: `host:pid`.
pub fn worker_name() -> String {
    format!("{}:{}", this_host(), std::process::id())
}

pub use kerai_core::ops::host::this_host;

/// What can be known of a lease holder from here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    /// A process of this host with that pid runs.
    Alive,
    /// It ran on this host and no such process runs now (or only its zombie).
    Gone,
    /// It runs on another host (or names no pid): only its lease tells.
    Unknown,
}

/// A lease holder, parsed from its worker name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub host: String,
    pub pid: Option<u32>,
}

impl Holder {
    pub fn parse(worker: &str) -> Holder {
        match worker.rsplit_once(':') {
            Some((host, pid)) => Holder {
                host: host.to_string(),
                pid: pid.parse().ok(),
            },
            None => Holder {
                host: worker.to_string(),
                pid: None,
            },
        }
    }

    pub fn liveness(&self) -> Liveness {
        match self.pid {
            Some(pid) if self.host == this_host() => {
                if pid == std::process::id() || process_runs(pid) {
                    Liveness::Alive
                } else {
                    Liveness::Gone
                }
            }
            _ => Liveness::Unknown,
        }
    }
}

/// A process with this pid runs (a zombie, dead but not yet reaped, does not count).
fn process_runs(pid: u32) -> bool {
    let stat = Path::new("/proc").join(pid.to_string()).join("stat");
    match std::fs::read_to_string(stat) {
        // `pid (comm) S ...`: the state follows the last `)`.
        Ok(s) => s
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holders_parse_and_this_process_is_alive() {
        let me = Holder::parse(&worker_name());
        assert_eq!(me.pid, Some(std::process::id()));
        assert_eq!(me.liveness(), Liveness::Alive);
        assert_eq!(
            Holder::parse("db-2.example:42"),
            Holder {
                host: "db-2.example".into(),
                pid: Some(42)
            }
        );
        assert_eq!(Holder::parse("elsewhere:42").liveness(), Liveness::Unknown);
        assert_eq!(Holder::parse("no-pid").liveness(), Liveness::Unknown);
    }

    #[test]
    fn an_ended_process_is_gone() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let h = Holder {
            host: this_host(),
            pid: Some(pid),
        };
        assert_eq!(h.liveness(), Liveness::Gone);
    }
}
