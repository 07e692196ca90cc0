//! `kerai config set|get|test` and `kerai targets`.

use crate::args::{ConfigCommand, ConfigFormat, Format};
use crate::db;
use crate::exit::{Code, Failure};
use crate::jobs::{dry_run, dry_run_scope, launched_by_default};
use crate::output::{print_json, Table};
use crate::target::store::{self, StoredTarget};
use crate::target::toml_file::{self, FileTarget};
use crate::target::TargetConfig;
use kerai_core::ops::ssrf::AddressGuard;
use serde_json::{json, Value};

pub async fn run(url: &str, cmd: ConfigCommand) -> Result<Code, Failure> {
    match cmd {
        ConfigCommand::Set {
            name,
            base_url,
            file,
            settings,
        } => set(url, name, base_url, file, settings).await,
        ConfigCommand::Disable { name } => super::lifecycle::set_active(url, &name, false).await,
        ConfigCommand::Enable { name } => super::lifecycle::set_active(url, &name, true).await,
        ConfigCommand::Delete {
            name,
            yes,
            remove_documents,
        } => super::lifecycle::delete(url, &name, yes, remove_documents).await,
        ConfigCommand::Get { name, format } => {
            let client = db::connect(url).await?;
            let t = pick(&client, name).await?;
            match format {
                ConfigFormat::Toml => {
                    println!("# config version {}", t.config_version);
                    print!("{}", toml_file::render(&t.name, &t.base_url, &t.config));
                }
                ConfigFormat::Json => crate::output::print_json(&serde_json::json!({
                    "name": t.name, "base_url": t.base_url, "config_version": t.config_version, "config": t.config,
                })),
            }
            Ok(Code::Success)
        }
        ConfigCommand::Test { name, file, format } => {
            // A file is tested without a database: only the targets' own hosts are allowed
            // past the SSRF guard, not the allowed_private_hosts setting.
            let (targets, allowed): (Vec<StoredTarget>, AddressGuard) = match file {
                Some(path) => {
                    let all = toml_file::read(&path).map_err(Failure::critical)?;
                    let all = all
                        .into_iter()
                        .filter(|t| name.as_ref().is_none_or(|n| *n == t.name))
                        .map(|t| StoredTarget {
                            id: uuid::Uuid::nil(),
                            name: t.name,
                            base_url: t.base_url,
                            config: t.config,
                            config_version: 0,
                            is_active: true,
                        })
                        .collect();
                    (all, AddressGuard::default())
                }
                None => {
                    let client = db::connect(url).await?;
                    let allowed = db::address_guard(&client)
                        .await
                        .map_err(Failure::critical)?;
                    (vec![pick(&client, name).await?], allowed)
                }
            };
            let mut worst = Code::Success;
            let mut results = Vec::new();
            for t in &targets {
                let mut problems = t.config.problems(&t.base_url);
                // The secret, read as a run would read it (in this environment), never shown.
                if let Some(a) = t.config.auth.as_ref().filter(|a| a.problems().is_empty()) {
                    if let Err(e) = a.secret(&t.name) {
                        problems.push(e);
                    }
                }
                if !problems.is_empty() {
                    worst = Code::Critical;
                }
                match format {
                    Format::Json => {
                        let scope = if problems.is_empty() {
                            dry_run_scope(t, &allowed, None).await?
                        } else {
                            Value::Null
                        };
                        results.push(json!({
                            "target": t.name, "base_url": t.base_url, "valid": problems.is_empty(),
                            "problems": problems, "scope": scope,
                        }));
                    }
                    Format::Table if problems.is_empty() => {
                        println!("target {}: config is valid", t.name);
                        dry_run(t, &allowed, None, Format::Table).await?;
                    }
                    Format::Table => {
                        println!("target {}: {} problem(s)", t.name, problems.len());
                        for p in &problems {
                            println!("  - {p}");
                        }
                    }
                }
            }
            if format == Format::Json {
                print_json(&json!({"valid": worst == Code::Success, "targets": results}));
            }
            if worst == Code::Critical {
                eprintln!("kerai: error: invalid config; fix the fields listed above");
            }
            Ok(worst)
        }
    }
}

async fn pick(
    client: &tokio_postgres::Client,
    name: Option<String>,
) -> Result<StoredTarget, Failure> {
    match name {
        Some(n) => store::load(client, &n).await,
        None => store::only(client).await,
    }
}

async fn set(
    url: &str,
    name: Option<String>,
    base_url: Option<String>,
    file: Option<std::path::PathBuf>,
    settings: Vec<String>,
) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    let who = launched_by_default();
    let mut todo: Vec<FileTarget> = Vec::new();
    if let Some(path) = &file {
        let all = toml_file::read(path).map_err(Failure::critical)?;
        for t in all {
            if name.as_ref().is_none_or(|n| *n == t.name) {
                todo.push(t);
            }
        }
        if todo.is_empty() {
            return Err(Failure::critical(format!(
                "{} has no target{}",
                path.display(),
                name.map(|n| format!(" named {n}")).unwrap_or_default()
            )));
        }
    } else {
        let Some(n) = name.clone() else {
            return Err(Failure::critical("name the target, or pass --file")
                .with_hint("kerai config set NAME --base-url URL"));
        };
        let current = store::load(&client, &n).await.ok();
        let (base, config) = match (current, &base_url) {
            (Some(c), Some(b)) if *b != c.base_url => {
                // Seeds and domains derived from the old base URL follow the new one.
                let mut config = c.config;
                config.seeds.clear();
                config.allowed_domains.clear();
                (b.clone(), config)
            }
            (Some(c), _) => (c.base_url, c.config),
            (None, Some(b)) => (b.clone(), TargetConfig::default()),
            (None, None) => {
                return Err(
                    Failure::critical(format!("target \"{n}\" does not exist yet")).with_hint(
                        format!("give its address: kerai config set {n} --base-url https://..."),
                    ),
                )
            }
        };
        todo.push(FileTarget {
            name: n,
            base_url: base,
            config,
        });
    }
    for t in &mut todo {
        if let (Some(b), Some(_)) = (&base_url, &file) {
            t.base_url = b.clone();
        }
        if !settings.is_empty() {
            t.config = store::apply_settings(&t.config, &settings)?;
        }
        t.config = t.config.clone().complete(&t.base_url);
        let stored = store::save(&client, t, &who).await?;
        println!(
            "target {} saved (config version {})",
            stored.name, stored.config_version
        );
    }
    Ok(Code::Success)
}

pub async fn list(url: &str, format: Format) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    let all = store::list(&client).await?;
    if format == Format::Json {
        print_json(&Value::Array(
            all.iter()
                .map(|s| {
                    json!({
                        "name": s.name, "id": s.id, "base_url": s.base_url,
                        "config_version": s.config_version, "active": s.is_active, "max_pages": s.config.max_pages,
                        "file_types": s.config.file_types, "config": s.config,
                    })
                })
                .collect(),
        ));
        return Ok(Code::Success);
    }
    let mut t = Table::new(&["target", "base url", "config version", "max pages", "types"]);
    for s in &all {
        t.row(vec![
            if s.is_active {
                s.name.clone()
            } else {
                format!("{} (disabled)", s.name)
            },
            s.base_url.clone(),
            s.config_version.to_string(),
            s.config.max_pages.to_string(),
            s.config.file_types.join(","),
        ]);
    }
    if t.is_empty() {
        println!("no targets yet: kerai config set NAME --base-url URL");
    } else {
        println!("{}", t.render());
    }
    Ok(Code::Success)
}
