//! One module per `kerai` command.

pub mod answer;
pub mod config;
pub mod crawl;
pub mod embed;
pub mod extract;
pub mod lifecycle;
pub mod logs;
pub mod report;
pub mod retry;
pub mod run;
pub mod schedule;
pub mod search;
pub mod status;
pub mod worker;
