//! `kerai`: the fetcher and command-line tool of the kerai extension.

mod args;
mod cli;
#[cfg(test)]
mod cli_reference;
mod commands;
mod daemon;
mod dashboard;
mod db;
mod exit;
mod holder;
mod http;
mod jobs;
mod output;
mod progress;
mod render;
mod resolve;
mod retrieval;
mod site;
mod target;

use clap::Parser;

fn main() {
    // A closed output pipe (`kerai logs | head`) ends the process quietly, as it does any
    // Unix tool, instead of a panic about a broken pipe.
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
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
