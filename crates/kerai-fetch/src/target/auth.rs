//! A target's `auth` block: how the crawler logs in to an intranet. The config names where the
//! secret is (`credentials_ref`: `env:NAME` or `file:/path`), never the secret itself; the
//! fetcher reads it when a run starts, and it is never stored, logged or sent to another host.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const KINDS: &[&str] = &["basic", "bearer", "header", "cookie", "form"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// `basic`, `bearer`, `header`, `cookie` or `form`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where the secret is: `env:NAME` or `file:/path`. For `basic` and `form` it is
    /// `user:password`, or the password alone when `username` is set; for `bearer` the token;
    /// for `header` the header's value; for `cookie` the `Cookie` header (`a=1; b=2`).
    pub credentials_ref: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// `header`: the header's name (`X-Api-Key`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// `form`: the URL the login form posts to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login_url: Option<String>,
    /// `form`: the names of the form's user and password fields.
    #[serde(default = "username_field")]
    pub username_field: String,
    #[serde(default = "password_field")]
    pub password_field: String,
    /// `form`: other fields the form posts, as they are.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, String>,
}

fn username_field() -> String {
    "username".into()
}

fn password_field() -> String {
    "password".into()
}

/// A secret read from its `credentials_ref`. Its `Debug` shows only where it came from.
#[derive(Clone)]
pub struct Secret {
    pub value: String,
    pub from: String,
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secret({}, redacted)", self.from)
    }
}

impl AuthConfig {
    /// Every problem with the block, each naming its key (the secret is not read here).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !KINDS.contains(&self.kind.as_str()) {
            out.push(format!(
                "auth.type: \"{}\" must be one of {}",
                self.kind,
                KINDS.join(", ")
            ));
        }
        if parse_ref(&self.credentials_ref).is_none() {
            out.push(format!(
                "auth.credentials_ref: \"{}\" must be env:NAME or file:/path",
                self.credentials_ref
            ));
        }
        if self.kind == "header" && self.header.as_deref().is_none_or(|h| h.trim().is_empty()) {
            out.push(
                "auth.header: type header needs the header's name (auth.header=X-Api-Key)".into(),
            );
        }
        if self.kind == "form" {
            match self.login_url.as_deref().map(super::config::host_of) {
                Some(Some(_)) => {}
                Some(None) => out.push(format!(
                    "auth.login_url: \"{}\" is not an http(s) URL",
                    self.login_url.as_deref().unwrap_or_default()
                )),
                None => out
                    .push("auth.login_url: type form needs the URL the login form posts to".into()),
            }
        }
        out
    }

    /// Read the secret for target `target`. The error names the target and the ref, never a
    /// secret.
    pub fn secret(&self, target: &str) -> Result<Secret, String> {
        let from = self.credentials_ref.clone();
        let value = match parse_ref(&self.credentials_ref) {
            Some(Ref::Env(name)) => std::env::var(name).map_err(|_| {
                format!(
                    "target \"{target}\": auth.credentials_ref {from}: the environment variable {name} is not set in the fetcher's environment"
                )
            })?,
            Some(Ref::File(path)) => std::fs::read_to_string(path)
                .map_err(|e| {
                    format!("target \"{target}\": auth.credentials_ref {from}: cannot read {path}: {e}")
                })?
                .trim_end_matches(['\n', '\r'])
                .to_string(),
            None => {
                return Err(format!(
                    "target \"{target}\": auth.credentials_ref \"{from}\" must be env:NAME or file:/path"
                ))
            }
        };
        if value.is_empty() {
            return Err(format!(
                "target \"{target}\": auth.credentials_ref {from} is empty"
            ));
        }
        if matches!(self.kind.as_str(), "basic" | "form")
            && self.username.is_none()
            && !value.contains(':')
        {
            return Err(format!(
                "target \"{target}\": auth.credentials_ref {from} must hold user:password (or set auth.username and keep only the password there)"
            ));
        }
        Ok(Secret { value, from })
    }

    /// The user and password of `basic` and `form`.
    pub fn user_password(&self, secret: &Secret) -> (String, String) {
        match &self.username {
            Some(u) => (u.clone(), secret.value.clone()),
            None => {
                let (u, p) = secret.value.split_once(':').unwrap_or((&secret.value, ""));
                (u.to_string(), p.to_string())
            }
        }
    }
}

enum Ref<'a> {
    Env(&'a str),
    File(&'a str),
}

fn parse_ref(r: &str) -> Option<Ref<'_>> {
    if let Some(name) = r.strip_prefix("env:") {
        let ok = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        return ok.then_some(Ref::Env(name));
    }
    r.strip_prefix("file:")
        .filter(|p| p.starts_with('/'))
        .map(Ref::File)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(kind: &str, r: &str) -> AuthConfig {
        AuthConfig {
            kind: kind.into(),
            credentials_ref: r.into(),
            username: None,
            header: None,
            login_url: None,
            username_field: username_field(),
            password_field: password_field(),
            fields: BTreeMap::new(),
        }
    }

    #[test]
    fn problems_name_the_key() {
        let p = auth("kerberos", "vault:x").problems().join("\n");
        assert!(p.contains("auth.type: \"kerberos\" must be one of"), "{p}");
        assert!(p.contains("auth.credentials_ref: \"vault:x\""), "{p}");
        assert!(auth("header", "env:K").problems()[0].starts_with("auth.header:"));
        assert!(auth("form", "env:K").problems()[0].starts_with("auth.login_url:"));
        assert!(auth("bearer", "file:/run/secrets/token")
            .problems()
            .is_empty());
        assert!(!auth("bearer", "file:relative").problems().is_empty());
    }

    #[test]
    fn secrets_are_read_at_run_time_and_never_shown() {
        std::env::set_var("KERAI_TEST_AUTH_SECRET", "ada:s3cret");
        let a = auth("basic", "env:KERAI_TEST_AUTH_SECRET");
        let s = a.secret("intranet").unwrap();
        assert_eq!(a.user_password(&s), ("ada".into(), "s3cret".into()));
        assert!(!format!("{s:?}").contains("s3cret"));
        let e = auth("basic", "env:KERAI_TEST_AUTH_MISSING")
            .secret("intranet")
            .unwrap_err();
        assert!(
            e.contains("target \"intranet\"") && e.contains("env:KERAI_TEST_AUTH_MISSING"),
            "{e}"
        );
        let e = auth("bearer", "file:/nonexistent/token")
            .secret("intranet")
            .unwrap_err();
        assert!(e.contains("cannot read /nonexistent/token"), "{e}");
        std::env::set_var("KERAI_TEST_AUTH_NOCOLON", "justapassword");
        let e = auth("basic", "env:KERAI_TEST_AUTH_NOCOLON")
            .secret("intranet")
            .unwrap_err();
        assert!(
            e.contains("user:password") && !e.contains("justapassword"),
            "{e}"
        );
    }
}
