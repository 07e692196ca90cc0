//! Site crawling: scope decisions, discovery (seeds, robots.txt, sitemaps), the politeness
//! scheduler, turning fetched bytes into markdown, and the job runner that ties them to the
//! leased URL queue in Postgres.

pub mod discover;
pub mod hosts;
pub mod outage;
pub mod process;
pub mod progress;
pub mod record;
mod results;
pub mod runner;
pub mod scope;
mod state;
