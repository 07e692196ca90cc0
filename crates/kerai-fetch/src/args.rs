//! The command line's definition: `kerai <command>` and every command's arguments (clap).
//! A leaf: commands read their arguments from here, and `cli.rs` dispatches.

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
  kerai embed                             embed the chunks that wait for a vector
  kerai search 'travel policy' --filter domain=intranet.example.com
  kerai answer 'Who leads the imaging lab?'

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
    #[command(after_help = examples::STATUS)]
    Status(StatusArgs),
    /// Create, change, show and check targets (base URL + scrape config).
    #[command(subcommand, after_help = examples::CONFIG)]
    Config(ConfigCommand),
    /// List the targets.
    #[command(after_help = examples::TARGETS)]
    Targets(TargetsArgs),
    /// Crawl a target now.
    #[command(after_help = examples::RUN)]
    Run(RunArgs),
    /// Run queued and scheduled jobs as they come (LISTEN kerai_jobs, and polling).
    #[command(after_help = examples::WORKER)]
    Worker(WorkerArgs),
    /// Do all the waiting work in one process: site jobs, the citation loop, embeddings.
    #[command(after_help = examples::DAEMON)]
    Daemon(DaemonArgs),
    /// What the last job (or a given one) found: new / updated / unchanged / errors, per document type.
    #[command(after_help = examples::REPORT)]
    Report(ReportArgs),
    /// Job logs, oldest first.
    #[command(after_help = examples::LOGS)]
    Logs(LogsArgs),
    /// Cancel a queued or running crawl job (its fetcher stops at its next heartbeat).
    #[command(after_help = examples::CANCEL)]
    Cancel(CancelArgs),
    /// Crawl again the URLs that failed recently.
    #[command(after_help = examples::RETRY)]
    RetryFailures(RetryArgs),
    /// Schedule crawls with pg_cron (weekly by default).
    #[command(subcommand, after_help = examples::SCHEDULE)]
    Schedule(ScheduleCommand),
    /// Grow the corpus along citations: claim references from kerai.crawl_cycle(), fetch open copies, deposit them.
    #[command(after_help = examples::CRAWL)]
    Crawl(CrawlArgs),
    /// Convert local files (HTML, PDF, DOCX, XLSX, EPUB, TXT, MD) to markdown, text or JSON.
    #[command(after_help = examples::EXTRACT)]
    Extract(ExtractArgs),
    /// Embed the chunks waiting for a vector (the configured provider), then LLM claims when on.
    #[command(after_help = examples::EMBED)]
    Embed(EmbedArgs),
    /// Hybrid search over the chunks: full text and vectors fused by reciprocal rank.
    #[command(after_help = examples::SEARCH)]
    Search(SearchArgs),
    /// Answer a question from the corpus, citing the passages (a chat model when configured).
    #[command(after_help = examples::ANSWER)]
    Answer(AnswerArgs),
}

pub use crate::output::Format;

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
    #[command(after_help = examples::CONFIG_SET)]
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
    #[command(after_help = examples::CONFIG_GET)]
    Get {
        name: Option<String>,
        #[arg(long, value_enum, default_value = "toml")]
        format: ConfigFormat,
    },
    /// Validate a target's config and dry-run its scope (robots.txt, sitemaps, seeds) without fetching pages.
    #[command(after_help = examples::CONFIG_TEST)]
    Test {
        name: Option<String>,
        /// Check this TOML file instead of the stored config.
        #[arg(long)]
        file: Option<PathBuf>,
        /// The problems and the dry-run scope per target as a table or as JSON.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Stop crawling a target: its schedule queues nothing, no worker or daemon runs it, and its queued jobs are cancelled.
    #[command(after_help = examples::CONFIG_DISABLE)]
    Disable { name: String },
    /// Crawl a disabled target again.
    #[command(after_help = examples::CONFIG_ENABLE)]
    Enable { name: String },
    /// Delete a target with its pages, versions, jobs and logs (its documents stay unless --remove-documents).
    #[command(after_help = examples::CONFIG_DELETE)]
    Delete {
        name: String,
        /// Delete; without it, say what would be removed and change nothing.
        #[arg(long)]
        yes: bool,
        /// Remove the target's documents (nodes, chunks, vectors) from the corpus too (kerai_admin).
        #[arg(long)]
        remove_documents: bool,
    },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConfigFormat {
    Toml,
    Json,
}

#[derive(Args, Debug)]
pub struct CancelArgs {
    /// The job's id (`kerai status`, `kerai report --format json`).
    pub job: String,
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
    /// Do not embed the new chunks after the crawl (`kerai embed` does it later).
    #[arg(long)]
    pub no_embed: bool,
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

/// A lane of `kerai daemon`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// Site-crawl jobs (queued, scheduled, or left by a fetcher that is gone).
    Site,
    /// The citation loop: kerai.crawl_cycle() and resolving what it claims.
    Resolve,
    /// Embeddings, then LLM claims when llm_claims is on.
    Embed,
}

impl Lane {
    pub fn name(self) -> &'static str {
        match self {
            Lane::Site => "site",
            Lane::Resolve => "resolve",
            Lane::Embed => "embed",
        }
    }
}

#[derive(Args, Debug)]
pub struct DaemonArgs {
    /// Do what waits now (site jobs, citation cycles until one makes no progress, embeddings),
    /// then exit: for cron and tests.
    #[arg(long)]
    pub once: bool,
    /// The lanes to run.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "site,resolve,embed",
        env = "KERAI_DAEMON_LANES"
    )]
    pub lanes: Vec<Lane>,
    /// Seconds between citation-loop cycles.
    #[arg(long, default_value_t = 60.0, env = "KERAI_CRAWL_RATE")]
    pub rate: f64,
    /// The citation loop's crawler agent.
    #[arg(long, default_value = "kerai_crawl", env = "KERAI_AGENT")]
    pub agent: String,
    /// Seconds between polls when no notification arrives.
    #[arg(long, default_value_t = 30)]
    pub poll: u64,
    /// Seconds the lanes get to finish what is in hand after SIGTERM; then they are stopped
    /// and their site job handed back.
    #[arg(long, default_value_t = 30)]
    pub stop_timeout: u64,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    pub target: Option<String>,
    /// A job id (default: the target's last finished or running job).
    #[arg(long)]
    pub job: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Write the whole corpus as an HTML page to FILE instead (growth, types and languages,
    /// jobs, the citation graph, the frontier): one static file, no script, readable offline.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["target", "job", "format"])]
    pub html: Option<std::path::PathBuf>,
}

/// A log level; the usual spellings of each are accepted (`warning`, `err`, ...).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Level {
    #[value(alias = "information", alias = "notice", alias = "debug")]
    Info,
    #[value(alias = "warning")]
    Warn,
    #[value(alias = "err", alias = "fatal", alias = "critical")]
    Error,
}

#[derive(Args, Debug)]
pub struct LogsArgs {
    pub target: Option<String>,
    /// Lowest level shown (`warning` and `err` work too; any case).
    #[arg(long, value_enum, ignore_case = true, default_value = "info")]
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
    /// The final report as a table or as JSON (with `window` and `retried_urls`).
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct TargetsArgs {
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Subcommand, Debug)]
pub enum ScheduleCommand {
    /// Schedule a target's crawl (cron syntax, default weekly: Monday 03:00).
    #[command(after_help = examples::SCHEDULE)]
    Set {
        target: Option<String>,
        #[arg(default_value = "0 3 * * 1")]
        cron: String,
    },
    /// Show the schedules and their next run.
    #[command(after_help = examples::SCHEDULE)]
    Get {
        target: Option<String>,
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Remove a target's schedule.
    #[command(after_help = examples::SCHEDULE)]
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
    /// Stop after a cycle that did nothing and left nothing to do (nothing pending, nothing
    /// eligible, no retry waiting).
    #[arg(long)]
    pub until_idle: bool,
    /// Never call kerai.crawl_cycle(): only resolve what it claims when run elsewhere (psql,
    /// pg_cron), woken by its notifications and polling every --rate seconds.
    #[arg(long, conflicts_with = "until_idle")]
    pub resolve_only: bool,
    /// Do not embed the chunks of ingested documents (kerai embed does it later).
    #[arg(long)]
    pub no_embed: bool,
}

#[derive(Args, Debug)]
pub struct EmbedArgs {
    /// Embed at most this many chunks.
    #[arg(long)]
    pub limit: Option<u64>,
    /// First send the chunks whose embedding failed back to the queue.
    #[arg(long)]
    pub retry_failed: bool,
    /// Also ask the chat model for claims (as when the llm_claims setting is on).
    #[arg(long)]
    pub claims: bool,
    /// Ask about at most this many chunks for claims.
    #[arg(long, default_value_t = 100)]
    pub claims_limit: i64,
    /// The summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// What to look for.
    pub query: String,
    /// How many chunks.
    #[arg(short, long, default_value_t = 10)]
    pub k: i32,
    /// Filters as key=value: target, domain, url_prefix, language, source_type, document, since, until.
    #[arg(long, value_name = "KEY=VALUE")]
    pub filter: Vec<String>,
    /// hybrid (default), fts or vector.
    #[arg(long)]
    pub mode: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct AnswerArgs {
    /// The question.
    pub question: String,
    /// How many passages to cite (default: the answer_passages setting, 5).
    #[arg(short, long)]
    pub k: Option<i32>,
    /// Filters as key=value, as for `kerai search`.
    #[arg(long, value_name = "KEY=VALUE")]
    pub filter: Vec<String>,
    /// The answer, citations and token counts as JSON.
    #[arg(long)]
    pub json: bool,
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

/// `--help` examples of each command.
mod examples {
    pub const STATUS: &str = "\
Examples:
  kerai status                            every target: running job and progress, last success, next run
  kerai status intranet --format json     for scripts: {targets, corpus, versions}";
    pub const CONFIG: &str = "\
Examples:
  kerai config set intranet --base-url https://intranet.example.com/ max_pages=500
  kerai config set --file targets.toml    every [targets.NAME] of the file
  kerai config get intranet --format json
  kerai config test intranet              validate, then dry-run the scope";
    pub const CONFIG_SET: &str = "\
Examples:
  kerai config set intranet --base-url https://intranet.example.com/ max_pages=500 file_types=html,pdf
  kerai config set intranet rate_limit_rps=1 exclude=/private/*,*print=* trailing_slash=strip
  kerai config set intranet --file targets.toml";
    pub const CONFIG_DISABLE: &str = "\
Examples:
  kerai config disable intranet           no crawls until `kerai config enable intranet`";
    pub const CONFIG_ENABLE: &str = "\
Examples:
  kerai config enable intranet";
    pub const CONFIG_DELETE: &str = "\
Examples:
  kerai config delete intranet            say what would be removed (exit 2); --yes deletes";
    pub const CANCEL: &str = "\
Examples:
  kerai cancel 0190f3c2-...               a job id from `kerai status` or `kerai report`";
    pub const CONFIG_GET: &str = "\
Examples:
  kerai config get intranet               TOML, every field, headed by the config version
  kerai config get intranet --format json > intranet.json";
    pub const CONFIG_TEST: &str = "\
Examples:
  kerai config test intranet              validate the stored config, list the start URLs
  kerai config test --file targets.toml   check a file before saving it (no database needed)
  kerai config test intranet --format json";
    pub const TARGETS: &str = "\
Examples:
  kerai targets
  kerai targets --format json             [{name, id, base_url, config_version, active, max_pages, file_types, config}]";
    pub const RUN: &str = "\
Examples:
  kerai run intranet                      incremental: conditional GET, sitemap lastmod
  kerai run intranet --full               fetch everything again
  kerai run intranet --since 2026-05-01   sitemap entries changed since then, plus the seeds
  kerai run intranet --url https://intranet.example.com/policies/travel.pdf
  kerai run intranet --dry-run --format json
  kerai run intranet --queue              queue behind a running crawl (a `kerai worker` runs it)
  kerai run intranet --format json --no-progress > report.json";
    pub const WORKER: &str = "\
Examples:
  kerai worker                            run queued and scheduled jobs until Ctrl-C
  kerai worker --once                     run what is waiting now, then exit
  kerai worker --poll 10";
    pub const DAEMON: &str = "\
Examples:
  kerai daemon                            every lane until SIGTERM / Ctrl-C
  kerai daemon --once                     do what waits now, then exit (cron)
  kerai daemon --lanes site,embed --poll 10
  kerai daemon --rate 10 --agent kerai_crawl";
    pub const REPORT: &str = "\
Examples:
  kerai report                            the latest job of the only target
  kerai report intranet --format json
  kerai report --job 0190f3c2-...
  kerai report --html corpus.html         the whole corpus as a page to open in a browser";
    pub const LOGS: &str = "\
Examples:
  kerai logs intranet --level error
  kerai logs --since 2026-05-01T00:00:00Z --limit 1000
  kerai logs --job 0190f3c2-... --format json";
    pub const RETRY: &str = "\
Examples:
  kerai retry-failures intranet           what failed in the last 24 hours
  kerai retry-failures --window 7d
  kerai retry-failures intranet --window 90m --format json";
    pub const SCHEDULE: &str = "\
Examples:
  kerai schedule set intranet             weekly: '0 3 * * 1' (Mondays 03:00 UTC)
  kerai schedule set intranet '0 */6 * * *'
  kerai schedule get --format json        [{target, cron, job_name, next_run_at}]
  kerai schedule remove intranet";
    pub const CRAWL: &str = "\
Examples:
  kerai crawl                             a cycle a minute until SIGTERM / Ctrl-C
  kerai crawl --rate 10 --cycles 30
  kerai crawl --max-depth 3 --until-idle";
    pub const EXTRACT: &str = "\
Examples:
  kerai extract report.pdf page.html      markdown on standard output
  kerai extract *.docx --format json --out converted/
  kerai extract page.html --base-url https://example.org/page.html --format text";
    pub const EMBED: &str = "\
Examples:
  kerai embed                             every chunk waiting for a vector
  kerai embed --retry-failed --json
  kerai embed --claims --claims-limit 50";
    pub const SEARCH: &str = "\
Examples:
  kerai search 'travel reimbursement' -k 5
  kerai search 'scanner booking' --filter domain=intranet.example.com --mode fts
  kerai search 'budget 2026' --filter source_type=xlsx --format json";
    pub const ANSWER: &str = "\
Examples:
  kerai answer 'How long can a scanner session last?'
  kerai answer 'Who leads the imaging lab?' -k 3 --filter target=intranet --json";
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn every_command_has_examples() {
        fn walk(cmd: &clap::Command, path: &str) {
            for sub in cmd.get_subcommands() {
                let name = format!("{path} {}", sub.get_name());
                if sub.get_name() == "help" {
                    continue;
                }
                let help = sub
                    .get_after_help()
                    .map(|h| h.to_string())
                    .unwrap_or_default();
                assert!(
                    help.starts_with("Examples:"),
                    "`{name} --help` has no examples"
                );
                let last = sub.get_name();
                assert!(
                    help.lines()
                        .skip(1)
                        .all(|l| l.trim_start().starts_with("kerai ")),
                    "`{name} --help` examples are commands: {help}"
                );
                assert!(
                    sub.has_subcommands() || help.contains(&format!(" {last}")),
                    "`{name} --help` examples use `{last}`: {help}"
                );
                walk(sub, &name);
            }
        }
        Cli::command().debug_assert();
        walk(&Cli::command(), "kerai");
    }
}
