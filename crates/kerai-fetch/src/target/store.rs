//! Targets in the database: `kerai.set_target` writes (and versions), reads are plain selects.

use super::{config::TargetConfig, toml_file::FileTarget};
use crate::exit::Failure;
use serde_json::Value;
use tokio_postgres::Client;

#[derive(Debug, Clone)]
pub struct StoredTarget {
    pub id: uuid::Uuid,
    pub name: String,
    pub base_url: String,
    pub config: TargetConfig,
    pub config_version: i32,
    /// False once disabled (`kerai config disable`).
    pub is_active: bool,
}

/// Store a target (a new config version when anything changed). Returns the stored version.
pub async fn save(db: &Client, t: &FileTarget, changed_by: &str) -> Result<StoredTarget, Failure> {
    let problems = t.config.problems(&t.base_url);
    if !problems.is_empty() {
        return Err(Failure::critical(format!(
            "target \"{}\" has an invalid config:\n  {}",
            t.name,
            problems.join("\n  ")
        ))
        .with_hint("fix the fields named above, then run the command again"));
    }
    let config = serde_json::to_value(&t.config)
        .map_err(|e| Failure::critical(format!("cannot encode config: {e}")))?;
    let row = db
        .query_one(
            "SELECT id, name, base_url, config, config_version, is_active FROM kerai.set_target($1, $2, $3, $4)",
            &[&t.name, &t.base_url, &config, &changed_by],
        )
        .await
        .map_err(|e| Failure::critical(format!("cannot save target \"{}\": {}", t.name, crate::db::message(&e))))?;
    from_row(&row)
}

pub async fn load(db: &Client, name: &str) -> Result<StoredTarget, Failure> {
    let row = db
        .query_opt(
            "SELECT id, name, base_url, config, config_version, is_active FROM kerai.targets WHERE name = $1 OR id::text = $1",
            &[&name],
        )
        .await
        .map_err(|e| Failure::critical(format!("cannot read target \"{name}\": {}", crate::db::message(&e))))?;
    match row {
        Some(r) => from_row(&r),
        None => Err(Failure::critical(format!("target \"{name}\" does not exist"))
            .with_hint(format!("create it with `kerai config set {name} --base-url URL` (see `kerai targets` for the list)"))),
    }
}

pub async fn list(db: &Client) -> Result<Vec<StoredTarget>, Failure> {
    let rows = db
        .query(
            "SELECT id, name, base_url, config, config_version, is_active FROM kerai.targets ORDER BY name",
            &[],
        )
        .await
        .map_err(|e| {
            Failure::critical(format!("cannot list targets: {}", crate::db::message(&e)))
        })?;
    rows.iter().map(from_row).collect()
}

/// The single target when there is exactly one (commands may then omit it).
pub async fn only(db: &Client) -> Result<StoredTarget, Failure> {
    let mut all = list(db).await?;
    match all.len() {
        1 => Ok(all.remove(0)),
        0 => Err(Failure::critical("there is no target yet")
            .with_hint("create one with `kerai config set NAME --base-url URL`")),
        _ => Err(Failure::critical(format!(
            "there are {} targets ({}); name one",
            all.len(),
            all.iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn from_row(row: &tokio_postgres::Row) -> Result<StoredTarget, Failure> {
    let config: Value = row.get(3);
    let name: String = row.get(1);
    let base_url: String = row.get(2);
    let config: TargetConfig = serde_json::from_value(config).map_err(|e| {
        Failure::critical(format!(
            "target \"{name}\" has a stored config kerai cannot read: {e}"
        ))
        .with_hint(format!(
            "rewrite it with `kerai config set {name} --file FILE`"
        ))
    })?;
    Ok(StoredTarget {
        id: row.get(0),
        config: config.complete(&base_url),
        name,
        base_url,
        config_version: row.get(4),
        is_active: row.get(5),
    })
}

/// Config fields that may be absent (`KEY=none` removes one).
const OPTIONAL_TEXT: &[&str] = &["render_wait_for"];

/// Apply `key=value` settings to a config. Lists take comma-separated values; numbers,
/// booleans, sizes and durations are parsed as the field expects.
pub fn apply_settings(config: &TargetConfig, settings: &[String]) -> Result<TargetConfig, Failure> {
    let mut v = serde_json::to_value(config).map_err(|e| Failure::critical(e.to_string()))?;
    let obj = v.as_object_mut().expect("config is an object");
    for s in settings {
        let Some((key, value)) = s.split_once('=') else {
            return Err(Failure::critical(format!("\"{s}\" is not key=value"))
                .with_hint("for example max_pages=500"));
        };
        let key = key.trim();
        if key == "auth" || key.starts_with("auth.") {
            set_auth(obj, key, value.trim())?;
            continue;
        }
        // Optional text fields are absent from the stored config until set.
        if OPTIONAL_TEXT.contains(&key) {
            if value.trim().is_empty() || value.trim() == "none" {
                obj.remove(key);
            } else {
                obj.insert(key.to_string(), Value::String(value.trim().into()));
            }
            continue;
        }
        let Some(current) = obj.get(key) else {
            let mut keys: Vec<&String> = obj.keys().collect();
            keys.sort();
            return Err(
                Failure::critical(format!("unknown config key \"{key}\"")).with_hint(format!(
                    "keys: {}",
                    keys.iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            );
        };
        let value = value.trim();
        let new = match current {
            Value::Array(_) => Value::Array(
                value
                    .split(',')
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(|x| Value::String(x.into()))
                    .collect(),
            ),
            Value::Bool(_) => match value {
                "true" | "yes" | "on" | "1" => Value::Bool(true),
                "false" | "no" | "off" | "0" => Value::Bool(false),
                _ => {
                    return Err(Failure::critical(format!(
                        "{key}: \"{value}\" is not true or false"
                    )))
                }
            },
            Value::Number(_) => match value.parse::<f64>() {
                Ok(n) if n.fract() == 0.0 && n >= 0.0 => Value::from(n as u64),
                Ok(n) => Value::from(n),
                Err(_) => Value::String(value.into()),
            },
            _ => Value::String(value.into()),
        };
        obj.insert(key.to_string(), new);
    }
    serde_json::from_value(v).map_err(|e| Failure::critical(format!("invalid setting: {e}")))
}

/// `auth.KEY=VALUE` (`auth.fields.NAME=VALUE` for a form's other fields); `auth=none` removes
/// the block.
fn set_auth(
    obj: &mut serde_json::Map<String, Value>,
    key: &str,
    value: &str,
) -> Result<(), Failure> {
    if key == "auth" {
        if value == "none" || value.is_empty() {
            obj.remove("auth");
            return Ok(());
        }
        return Err(Failure::critical(format!("auth: \"{value}\" is not a setting"))
            .with_hint("set its keys: auth.type=basic auth.credentials_ref=env:INTRANET_LOGIN; auth=none removes it"));
    }
    let auth = obj
        .entry("auth")
        .or_insert_with(|| Value::Object(Default::default()));
    if !auth.is_object() {
        *auth = Value::Object(Default::default());
    }
    let auth = auth.as_object_mut().expect("an object");
    let sub = &key["auth.".len()..];
    match sub.strip_prefix("fields.") {
        Some(field) => {
            let fields = auth
                .entry("fields")
                .or_insert_with(|| Value::Object(Default::default()));
            if let Some(f) = fields.as_object_mut() {
                f.insert(field.to_string(), Value::String(value.into()));
            }
        }
        None => {
            auth.insert(sub.to_string(), Value::String(value.into()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_by_field_type() {
        let c = apply_settings(
            &TargetConfig::default(),
            &[
                "max_pages=12".into(),
                "file_types=html, pdf".into(),
                "render=yes".into(),
                "max_size=3MB".into(),
            ],
        )
        .unwrap();
        assert_eq!(c.max_pages, 12);
        assert_eq!(c.file_types, vec!["html", "pdf"]);
        assert!(c.render);
        assert_eq!(c.max_size, 3_000_000);
    }

    #[test]
    fn bad_settings_say_why() {
        let e = apply_settings(&TargetConfig::default(), &["max_pagez=1".into()]).unwrap_err();
        assert!(e.to_string().contains("unknown config key \"max_pagez\""));
        let e = apply_settings(&TargetConfig::default(), &["render=perhaps".into()]).unwrap_err();
        assert!(e.to_string().contains("not true or false"));
        let e = apply_settings(&TargetConfig::default(), &["max_pages".into()]).unwrap_err();
        assert!(e.to_string().contains("not key=value"));
    }
}
