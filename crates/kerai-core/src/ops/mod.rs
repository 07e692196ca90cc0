//! Operations: what keeps kerai running on its own: the cron schedules that `kerai schedule`
//! and pg_cron share, and the host name in the worker names of daemons and leases.

pub mod cron;
pub mod host;
