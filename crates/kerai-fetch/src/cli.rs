//! The command line: `kerai <command>`. Each command lives in `commands/`.

use crate::commands;
use crate::db;
use crate::exit::Code;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  kerai config set intranet --base-url https://intranet.example.com/ max_pages=500
  kerai config test intranet
  kerai run intranet                      incremental crawl (conditional GET, sitemap lastmod)
  kerai run intranet --full               fetch everything again
  kerai run intranet --url https://intranet.example.com/policies/travel.pdf
  kerai status
  kerai report --format json
  kerai logs --level error --since 2026-05-01T00:00:00Z
  kerai retry-failures --window 24h
  kerai schedule set intranet '0 3 * * 1'
  kerai crawl --rate 60 --max-depth 5     grow the corpus along citations
  kerai extract report.pdf page.html --format markdown --out converted/

Exit codes: 0 success, 1 success with partial errors, 2 critical failure.
Connection: --database-url or DATABASE_URL (default: the demo cluster of `make demo`).";

#[derive(Parser, Debug)]
#[command(name = "kerai", version, about = "Build and keep a knowledge corpus inside Postgres", after_help = EXAMPLES)]
pub struct Cli {
    /// Postgres connection string (default: the demo cluster of `make demo`).
    #[arg(long, env = "DATABASE_URL", global = true, hide_env_values = true)]
    pub database_url: Option<String>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show targets, the current job and its live progress, the last success and the next run.
    Status(StatusArgs),
    /// Create, change, show and check targets (base URL + scrape config).
    #[command(subcommand)]
    Config(ConfigCommand),
    /// List the targets.
    Targets,
    /// Crawl a target now.
    Run(RunArgs),
    /// Run queued and scheduled jobs as they come (LISTEN kerai_jobs, and polling).
    Worker(WorkerArgs),
    /// What the last job (or a given one) found: new / updated / unchanged / errors, per document type.
    Report(ReportArgs),
    /// Job logs, oldest first.
    Logs(LogsArgs),
    /// Crawl again the URLs that failed recently.
    RetryFailures(RetryArgs),
    /// Schedule crawls with pg_cron (weekly by default).
    #[command(subcommand)]
    Schedule(ScheduleCommand),
    /// Grow the corpus along citations: claim references from kerai.crawl_cycle(), fetch open copies, deposit them.
    Crawl(CrawlArgs),
    /// Convert local files (HTML, PDF, DOCX, XLSX, EPUB, TXT, MD) to markdown, text or JSON.
    Extract(ExtractArgs),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
}

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// Only this target.
    pub target: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Subcommand, Debug)]
pub enum ConfigCommand {
    /// Create or change a target: from a TOML file, and/or key=value settings.
    ///
    /// Example file:
    ///   [targets.intranet]
    ///   base_url = "https://intranet.example.com/"
    ///   max_pages = 500
    ///   file_types = ["html", "pdf", "docx", "xlsx"]
    Set {
        /// Target name (omit with --file to apply every target in the file).
        name: Option<String>,
        #[arg(long)]
        base_url: Option<String>,
        /// TOML file with [targets.NAME] tables.
        #[arg(long)]
        file: Option<PathBuf>,
        /// key=value settings, e.g. max_pages=500 file_types=html,pdf render=true
        settings: Vec<String>,
    },
    /// Show a target's config (every field, defaults included) and its version.
    Get {
        name: Option<String>,
        #[arg(long, value_enum, default_value = "toml")]
        format: ConfigFormat,
    },
    /// Validate a target's config and dry-run its scope (robots.txt, sitemaps, seeds) without fetching pages.
    Test {
        name: Option<String>,
        /// Check this TOML file instead of the stored config.
        #[arg(long)]
        file: Option<PathBuf>,
    },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConfigFormat {
    Toml,
    Json,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Target to crawl (optional when there is only one).
    pub target: Option<String>,
    /// Fetch everything again: no conditional requests, no sitemap-lastmod skipping.
    #[arg(long, conflicts_with_all = ["since", "url"])]
    pub full: bool,
    /// Only sitemap entries modified since this time (ISO 8601), plus the seeds.
    #[arg(long, value_name = "ISO8601", conflicts_with = "url")]
    pub since: Option<String>,
    /// Crawl just this URL.
    #[arg(long)]
    pub url: Option<String>,
    /// Show what would be crawled (scope, sitemaps, seeds) without fetching pages or writing anything.
    #[arg(long)]
    pub dry_run: bool,
    /// When a crawl of the target is running: queue this one behind it (default: refuse).
    #[arg(long, conflicts_with = "join")]
    pub queue: bool,
    /// When a crawl of the target is running: help it (fetch part of its URLs).
    #[arg(long)]
    pub join: bool,
    /// Who launched the job, for the audit trail (default: $USER).
    #[arg(long, env = "KERAI_LAUNCHED_BY")]
    pub launched_by: Option<String>,
    /// Plain progress lines even on a terminal.
    #[arg(long)]
    pub no_progress: bool,
    /// The final report as a table or as JSON.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// Exit when no job is waiting instead of waiting for more.
    #[arg(long)]
    pub once: bool,
    /// Seconds between polls when no notification arrives.
    #[arg(long, default_value_t = 30)]
    pub poll: u64,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    pub target: Option<String>,
    /// A job id (default: the target's last finished or running job).
    #[arg(long)]
    pub job: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Level {
    Info,
    Warn,
    Error,
}

#[derive(Args, Debug)]
pub struct LogsArgs {
    pub target: Option<String>,
    /// Lowest level shown.
    #[arg(long, value_enum, default_value = "info")]
    pub level: Level,
    /// Only logs since this time (ISO 8601).
    #[arg(long, value_name = "ISO8601")]
    pub since: Option<String>,
    /// Only this job.
    #[arg(long)]
    pub job: Option<String>,
    /// At most this many lines (the newest).
    #[arg(long, default_value_t = 200)]
    pub limit: i64,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct RetryArgs {
    pub target: Option<String>,
    /// How far back to look for failures (e.g. 24h, 7d).
    #[arg(long, default_value = "24h")]
    pub window: String,
    #[arg(long)]
    pub no_progress: bool,
}

#[derive(Subcommand, Debug)]
pub enum ScheduleCommand {
    /// Schedule a target's crawl (cron syntax, default weekly: Monday 03:00).
    Set {
        target: Option<String>,
        #[arg(default_value = "0 3 * * 1")]
        cron: String,
    },
    /// Show the schedules and their next run.
    Get { target: Option<String> },
    /// Remove a target's schedule.
    Remove { target: Option<String> },
}

#[derive(Args, Debug)]
pub struct CrawlArgs {
    /// Seconds between crawl cycles.
    #[arg(long, default_value_t = 60.0)]
    pub rate: f64,
    /// Longest citation chain followed from a seed document.
    #[arg(long)]
    pub max_depth: Option<i32>,
    /// The crawler agent.
    #[arg(long, default_value = "kerai_crawl")]
    pub agent: String,
    /// Run this many cycles, then stop (default: until SIGTERM / Ctrl-C).
    #[arg(long)]
    pub cycles: Option<u64>,
    /// Stop when the frontier is empty and nothing is pending.
    #[arg(long)]
    pub until_idle: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExtractFormat {
    Markdown,
    Text,
    Json,
}

#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// Files to convert.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "markdown")]
    pub format: ExtractFormat,
    /// Write one output file per input into this directory instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The URL to resolve relative links against (HTML).
    #[arg(long)]
    pub base_url: Option<String>,
}

pub async fn run(cli: Cli) -> Code {
    let url = cli.database_url.clone().unwrap_or_else(db::default_url);
    let result = match cli.command {
        Command::Extract(args) => commands::extract::run(args),
        Command::Status(args) => commands::status::run(&url, args).await,
        Command::Config(cmd) => commands::config::run(&url, cmd).await,
        Command::Targets => commands::config::list(&url).await,
        Command::Run(args) => commands::run::run(&url, args).await,
        Command::Worker(args) => commands::worker::run(&url, args).await,
        Command::Report(args) => commands::report::run(&url, args).await,
        Command::Logs(args) => commands::logs::run(&url, args).await,
        Command::RetryFailures(args) => commands::retry::run(&url, args).await,
        Command::Schedule(cmd) => commands::schedule::run(&url, cmd).await,
        Command::Crawl(args) => commands::crawl::run(&url, args).await,
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            eprintln!("kerai: error: {f}");
            Code::Critical
        }
    }
}
