//! `kerai <command>`: parse the arguments (`args.rs`) and run the command (`commands/`).

use crate::args::{Cli, Command};
use crate::commands;
use crate::daemon;
use crate::db;
use crate::exit::Code;

pub async fn run(cli: Cli) -> Code {
    let url = cli.database_url.clone().unwrap_or_else(db::default_url);
    let result = match cli.command {
        Command::Extract(args) => commands::extract::run(args),
        Command::Status(args) => commands::status::run(&url, args).await,
        Command::Config(cmd) => commands::config::run(&url, cmd).await,
        Command::Targets(args) => commands::config::list(&url, args.format).await,
        Command::Run(args) => commands::run::run(&url, args).await,
        Command::Worker(args) => commands::worker::run(&url, args).await,
        Command::Daemon(args) => daemon::run(&url, args).await,
        Command::Report(args) => commands::report::run(&url, args).await,
        Command::Logs(args) => commands::logs::run(&url, args).await,
        Command::Cancel(args) => commands::lifecycle::cancel(&url, &args.job).await,
        Command::RetryFailures(args) => commands::retry::run(&url, args).await,
        Command::Schedule(cmd) => commands::schedule::run(&url, cmd).await,
        Command::Crawl(args) => commands::crawl::run(&url, args).await,
        Command::Embed(args) => commands::embed::run(&url, args).await,
        Command::Search(args) => commands::search::run(&url, args).await,
        Command::Answer(args) => commands::answer::run(&url, args).await,
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            eprintln!("kerai: error: {f}");
            Code::Critical
        }
    }
}
