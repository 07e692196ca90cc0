//! Operations: what keeps kerai running on its own. Today that is the cron schedules that
//! `kerai schedule` and pg_cron share.

pub mod cron;
