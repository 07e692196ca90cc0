//! The contract between the fetcher (`kerai-fetch`) and the extension: the `kerai._*`
//! functions the fetcher calls, and the version of that contract.
//!
//! [`API_VERSION`] is compiled into both sides. The extension exports it as
//! `kerai._api_version()`; the fetcher reads it on every connection and refuses to work with
//! an extension that speaks another version (see [`check`]). Bump it whenever a `kerai._*`
//! function the fetcher calls changes its arguments, its result or the JSON it takes or gives.
//!
//! The submodules type that JSON, one per part of the contract (the fetcher's `db` module
//! calls the functions): [`crawl_queue`] (the citation loop's `kerai._worker_*`),
//! [`embed`] (`kerai._embedding_config`, `kerai._chat_config`), [`site`] and
//! [`site_result`] (site crawl jobs' `kerai._job_*`) and [`answer`] (`kerai._answer_*`).
//! `tests/tests/wire.rs` hands each payload to the SQL that reads it, so the two sides cannot
//! drift.

pub mod answer;
pub mod crawl_queue;
pub mod embed;
mod lenient;
pub mod site;
pub mod site_result;

/// The version of the fetcher <-> extension contract.
pub const API_VERSION: i32 = 1;

/// What the fetcher found in a database it connected to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peer {
    /// No `kerai` extension in the database.
    NotInstalled,
    /// An extension without `kerai._api_version()` (0.2.0 and older).
    Unversioned { extension: String },
    /// An extension that speaks `api`.
    Versioned { extension: String, api: i32 },
}

/// Why the fetcher will not work with a database's extension: the message and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub message: String,
    pub hint: String,
}

/// Can a fetcher of version `fetcher` (speaking [`API_VERSION`]) work with `peer` in database
/// `database`?
pub fn check(fetcher: &str, database: &str, peer: &Peer) -> Result<(), Mismatch> {
    match peer {
        Peer::NotInstalled => Err(Mismatch {
            message: format!("the kerai extension is not installed in database {database}"),
            hint: format!(
                "a superuser runs CREATE EXTENSION kerai CASCADE in {database} (see docs/roles.md)"
            ),
        }),
        Peer::Unversioned { extension } => Err(Mismatch {
            message: format!(
                "this kerai fetcher ({fetcher}, API {API_VERSION}) cannot work with the kerai extension {extension} in database {database}, which predates API versions"
            ),
            hint: "update the extension: install this version's (make install) and run ALTER EXTENSION kerai UPDATE (docs/UPGRADING.md)".into(),
        }),
        Peer::Versioned { api, .. } if *api == API_VERSION => Ok(()),
        Peer::Versioned { extension, api } => Err(Mismatch {
            message: format!(
                "this kerai fetcher ({fetcher}, API {API_VERSION}) cannot work with the kerai extension {extension} (API {api}) in database {database}"
            ),
            hint: if *api < API_VERSION {
                "the extension is older: install this version's (make install) and run ALTER EXTENSION kerai UPDATE (docs/UPGRADING.md)".into()
            } else {
                format!("the fetcher is older: use the kerai binary built with extension {extension}")
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_api_works_and_any_other_is_refused_naming_both_versions() {
        let same = Peer::Versioned {
            extension: "0.3.0".into(),
            api: API_VERSION,
        };
        assert_eq!(check("0.3.0", "kerai", &same), Ok(()));
        let newer = Peer::Versioned {
            extension: "9.0.0".into(),
            api: API_VERSION + 1,
        };
        let e = check("0.3.0", "kerai", &newer).unwrap_err();
        assert!(e.message.contains("0.3.0") && e.message.contains("9.0.0"));
        assert!(e.hint.contains("fetcher is older"));
        let older = Peer::Versioned {
            extension: "0.0.1".into(),
            api: API_VERSION - 1,
        };
        assert!(check("0.3.0", "kerai", &older)
            .unwrap_err()
            .hint
            .contains("ALTER EXTENSION kerai UPDATE"));
        let old = Peer::Unversioned {
            extension: "0.2.0".into(),
        };
        assert!(check("0.3.0", "db", &old)
            .unwrap_err()
            .message
            .contains("0.2.0"));
        assert!(check("0.3.0", "db", &Peer::NotInstalled)
            .unwrap_err()
            .hint
            .contains("CREATE EXTENSION kerai"));
    }
}
