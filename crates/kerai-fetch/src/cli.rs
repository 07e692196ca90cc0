//! Command-line interface.

use crate::db;
use crate::exit::{Code, Failure};
use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "kerai",
    version,
    about = "Build and keep a knowledge corpus inside Postgres"
)]
pub struct Cli {
    /// Postgres connection string (default: the demo cluster of `make demo`).
    #[arg(long, env = "DATABASE_URL", global = true)]
    pub database_url: Option<String>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show the extension's version and the corpus counts.
    Status,
}

pub async fn run(cli: Cli) -> Code {
    let url = cli.database_url.clone().unwrap_or_else(db::default_url);
    let result = match cli.command {
        Command::Status => status(&url).await,
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            eprintln!("kerai: error: {f}");
            Code::Critical
        }
    }
}

async fn status(url: &str) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    let row = client
        .query_one(
            "SELECT kerai.version(), (SELECT count(*) FROM kerai.nodes), (SELECT count(*) FROM kerai.edges)",
            &[],
        )
        .await
        .map_err(|e| {
            Failure::critical(format!("cannot read kerai's status: {e}"))
                .with_hint("is the extension installed? run `CREATE EXTENSION kerai CASCADE`")
        })?;
    let version: String = row.get(0);
    let nodes: i64 = row.get(1);
    let edges: i64 = row.get(2);
    println!("kerai {version}: {nodes} nodes, {edges} edges");
    Ok(Code::Success)
}
