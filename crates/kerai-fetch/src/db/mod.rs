//! The Postgres connection: a normal connection string, like any other client; and, one
//! submodule per part of the contract, every `kerai._*` function the fetcher calls.

pub mod answer;
pub mod availability;
pub mod crawl_queue;
pub mod daemons;
pub mod embed;
pub mod jobs;
pub mod listen;

use crate::exit::Failure;
use kerai_core::ops::ssrf::AddressGuard;
use kerai_core::wire::{self, Peer};
use tokio_postgres::{Client, NoTls};

/// The default database: the demo cluster that `make demo` starts.
pub fn default_url() -> String {
    let port = std::env::var("KERAI_PGPORT").unwrap_or_else(|_| "28815".to_string());
    format!("postgresql://postgres@127.0.0.1:{port}/kerai")
}

/// The SSRF guard the `allowed_private_hosts` setting describes; an error names a bad entry.
pub async fn address_guard(client: &Client) -> Result<AddressGuard, String> {
    let v: serde_json::Value = client
        .query_one("SELECT kerai.setting('allowed_private_hosts')", &[])
        .await
        .map_err(|e| message(&e))?
        .get(0);
    let entries: Vec<String> = serde_json::from_value(v).map_err(|_| {
        "the allowed_private_hosts setting is not an array of strings;          fix it with SELECT kerai.set_setting('allowed_private_hosts', '[...]')"
            .to_string()
    })?;
    AddressGuard::parse(&entries)
}

pub async fn connect(url: &str) -> Result<Client, Failure> {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .map_err(|e| connect_failure(url, &e))?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("kerai: database connection closed: {}", message(&e));
        }
    });
    check_extension(&client).await?;
    Ok(client)
}

/// Refuse a database whose kerai extension speaks another fetcher API (or has none), with a
/// message naming both versions and what to upgrade.
async fn check_extension(client: &Client) -> Result<(), Failure> {
    let fail = |e: tokio_postgres::Error| Failure::critical(message(&e));
    let row = client
        .query_one(
            "SELECT current_database(), (SELECT extversion FROM pg_extension WHERE extname = 'kerai'),
                    to_regprocedure('kerai._api_version()') IS NOT NULL",
            &[],
        )
        .await
        .map_err(fail)?;
    let database: String = row.get(0);
    let peer = match (row.get::<_, Option<String>>(1), row.get::<_, bool>(2)) {
        (None, _) => Peer::NotInstalled,
        (Some(extension), false) => Peer::Unversioned { extension },
        (Some(extension), true) => {
            let api: i32 = client
                .query_one("SELECT kerai._api_version()", &[])
                .await
                .map_err(fail)?
                .get(0);
            Peer::Versioned { extension, api }
        }
    };
    wire::check(env!("CARGO_PKG_VERSION"), &database, &peer)
        .map_err(|m| Failure::critical(m.message).with_hint(m.hint))
}

/// A connection string with any password replaced by `***`, for messages.
pub fn redact(url: &str) -> String {
    if let Some((scheme, rest)) = url.split_once("://") {
        if let Some((userinfo, host)) = rest.split_once('@') {
            if let Some((user, _)) = userinfo.split_once(':') {
                return format!("{scheme}://{user}:***@{host}");
            }
        }
    }
    url.to_string()
}

/// The hint of a connection the server refused (no such role or database, a failed
/// authentication, a role that may not log in): waiting does not heal it.
const REFUSED_LOGIN: &str =
    "the server refused the login: check the role and database the URL names (and pg_hba.conf)";

/// The failure is a login the server refused ([`connect_failure`]), not a server away.
pub fn is_refused_login(f: &Failure) -> bool {
    f.refused_login
}

/// Why a connection failed, with what to do: a server that refused the login (no such role
/// or database, a failed authentication: SQLSTATE class 28 and 3D000) needs the URL fixed;
/// one that did not answer, or is not ready, needs starting or a moment.
pub fn connect_failure(url: &str, e: &tokio_postgres::Error) -> Failure {
    let mut why = message(e);
    if e.as_db_error().is_none() {
        // tokio-postgres's own errors keep their cause apart (`authentication error`, then why).
        if let Some(cause) = std::error::Error::source(e) {
            let cause = cause.to_string();
            if !why.contains(&cause) {
                why = format!("{why}: {cause}");
            }
        }
    }
    let f = Failure::critical(format!(
        "cannot connect to the database {}: {why}",
        redact(url)
    ));
    let refused = e.code().is_some_and(|c| {
        let c = c.code();
        c.starts_with("28") || c == "3D000"
    });
    if refused {
        Failure {
            refused_login: true,
            ..f.with_hint(REFUSED_LOGIN)
        }
    } else {
        f.with_hint("start it with `make demo`, or pass --database-url / set DATABASE_URL")
    }
}

/// The message of a database error, with Postgres's hint when it gave one.
pub fn message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.hint() {
            Some(h) => format!("{} (hint: {h})", db.message()),
            None => db.message().to_string(),
        },
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_hides_passwords_only() {
        assert_eq!(
            redact("postgresql://u:secret@h/db"),
            "postgresql://u:***@h/db"
        );
        assert_eq!(redact("postgresql://u@h/db"), "postgresql://u@h/db");
        assert_eq!(redact("host=/tmp dbname=x"), "host=/tmp dbname=x");
    }
}
