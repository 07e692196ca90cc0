//! `kerai`: the fetcher and command-line tool of the kerai extension.

mod args;
mod cli;
#[cfg(test)]
mod cli_reference;
mod commands;
mod dashboard;
mod db;
mod exit;
mod holder;
mod http;
mod jobs;
mod output;
mod render;
mod resolve;
mod retrieval;
mod site;
mod target;

use clap::Parser;

fn main() {
    let cli = args::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => exit::fail(exit::Failure::critical(format!(
            "cannot start the async runtime: {e}"
        ))),
    };
    let code = runtime.block_on(cli::run(cli));
    std::process::exit(code.as_i32());
}
