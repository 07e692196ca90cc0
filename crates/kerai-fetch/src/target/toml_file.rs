//! Targets in a TOML file:
//!
//! ```toml
//! [targets.intranet]
//! base_url = "https://intranet.example.com/"
//! max_pages = 500
//! file_types = ["html", "pdf", "docx"]
//! ```

use super::TargetConfig;
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub struct FileTarget {
    pub name: String,
    pub base_url: String,
    pub config: TargetConfig,
}

/// Read every target of a TOML file; errors name the file, the target and the field.
pub fn read(path: &Path) -> Result<Vec<FileTarget>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse(text: &str) -> Result<Vec<FileTarget>, String> {
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| e.message().to_string())?;
    let Some(targets) = doc.get("targets") else {
        return Err("no [targets.NAME] table; see `kerai config --help` for the format".into());
    };
    let Some(targets) = targets.as_table() else {
        return Err("`targets` must be a table of [targets.NAME] tables".into());
    };
    let mut out = Vec::new();
    for (name, value) in targets {
        let Some(table) = value.as_table() else {
            return Err(format!("[targets.{name}] must be a table"));
        };
        let mut table = table.clone();
        let base_url = match table.remove("base_url") {
            Some(toml::Value::String(s)) => s,
            Some(_) => return Err(format!("[targets.{name}] base_url must be a string")),
            None => return Err(format!("[targets.{name}] needs base_url = \"https://...\"")),
        };
        let config: TargetConfig = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| format!("[targets.{name}] {}", e.message()))?;
        out.push(FileTarget {
            name: name.clone(),
            config: config.complete(&base_url),
            base_url,
        });
    }
    Ok(out)
}

/// A target as TOML, every field written out.
pub fn render(name: &str, base_url: &str, config: &TargetConfig) -> String {
    let mut table = toml::Table::new();
    table.insert("base_url".into(), toml::Value::String(base_url.into()));
    if let Ok(toml::Value::Table(fields)) = toml::Value::try_from(config) {
        table.extend(fields);
    }
    let mut targets = toml::Table::new();
    targets.insert(name.into(), toml::Value::Table(table));
    let mut root = toml::Table::new();
    root.insert("targets".into(), toml::Value::Table(targets));
    toml::to_string_pretty(&root).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_targets_with_defaults() {
        let t = parse(
            "[targets.intranet]\nbase_url = \"https://intra.example.com/\"\nmax_pages = 500\nmax_size = \"5 MB\"\n\n[targets.docs]\nbase_url = \"https://docs.example.com/\"\n",
        )
        .unwrap();
        assert_eq!(t.len(), 2);
        let intranet = t.iter().find(|x| x.name == "intranet").unwrap();
        assert_eq!(intranet.config.max_pages, 500);
        assert_eq!(intranet.config.max_size, 5_000_000);
        assert_eq!(intranet.config.allowed_domains, vec!["intra.example.com"]);
        assert_eq!(intranet.config.max_depth, TargetConfig::default().max_depth);
    }

    #[test]
    fn errors_name_target_and_field() {
        let e = parse("[targets.x]\nbase_url = \"https://x.org/\"\nmax_pagez = 1\n").unwrap_err();
        assert!(e.contains("[targets.x]") && e.contains("max_pagez"), "{e}");
        let e = parse("[targets.x]\nmax_pages = 1\n").unwrap_err();
        assert!(e.contains("needs base_url"), "{e}");
        assert!(parse("x = 1").unwrap_err().contains("no [targets.NAME]"));
    }

    #[test]
    fn renders_what_it_reads() {
        let t = parse("[targets.a]\nbase_url = \"https://a.org/\"\nrender = true\n")
            .unwrap()
            .remove(0);
        let again = parse(&render(&t.name, &t.base_url, &t.config))
            .unwrap()
            .remove(0);
        assert_eq!(t, again);
    }
}
