//! Operations: what keeps kerai running on its own: the cron schedules that `kerai schedule`
//! and pg_cron share, the host name in the worker names of daemons and leases, and the SSRF
//! guard every outgoing connection passes.

pub mod cron;
pub mod host;
pub mod ssrf;
