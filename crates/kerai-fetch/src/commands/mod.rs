//! One module per `kerai` command.

pub mod config;
pub mod crawl;
pub mod extract;
pub mod logs;
pub mod report;
pub mod retry;
pub mod run;
pub mod schedule;
pub mod status;
pub mod worker;
