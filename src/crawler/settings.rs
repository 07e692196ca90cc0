//! The supervisor's settings: the fetcher binary and its arguments and connection string
//! (superusers only: they decide what the server runs), autostart and the launcher's database.

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use std::ffi::CString;
use std::path::PathBuf;

pub static FETCHER_PATH: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
pub static FETCHER_URL: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
pub static FETCHER_ARGS: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
pub static AUTOSTART: GucSetting<bool> = GucSetting::<bool>::new(false);
pub static LAUNCHER_DATABASE: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"postgres"));

/// Define the settings (every time the library loads).
pub fn define() {
    GucRegistry::define_string_guc(
        c"kerai.fetcher_path",
        c"The kerai binary kerai.start_crawler() runs as `kerai daemon`.",
        c"An absolute path to an executable, e.g. /usr/local/bin/kerai. Superusers only.",
        &FETCHER_PATH,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"kerai.fetcher_database_url",
        c"The connection string the supervised daemon uses.",
        c"Default: this server's Unix socket (or 127.0.0.1), its port, the database, and the role that called kerai.start_crawler().",
        &FETCHER_URL,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"kerai.fetcher_args",
        c"Extra arguments for the supervised `kerai daemon`, separated by spaces.",
        c"For example: --rate 30 --lanes site,embed",
        &FETCHER_ARGS,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"kerai.autostart",
        c"With kerai in shared_preload_libraries: restart the wanted crawlers after a server restart.",
        c"",
        &AUTOSTART,
        GucContext::Sighup,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"kerai.launcher_database",
        c"The database the autostart launcher connects to, to list the others.",
        c"",
        &LAUNCHER_DATABASE,
        GucContext::Sighup,
        GucFlags::default(),
    );
}

pub fn setting(s: &GucSetting<Option<CString>>) -> Option<String> {
    s.get()
        .map(|c| c.to_string_lossy().trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The fetcher binary, or why it cannot be run.
pub fn fetcher_path() -> Result<PathBuf, (String, String)> {
    let Some(p) = setting(&FETCHER_PATH) else {
        return Err((
            "kerai.fetcher_path is not set: kerai.start_crawler() needs the kerai binary to run".into(),
            "a superuser sets it, e.g. ALTER SYSTEM SET kerai.fetcher_path = '/usr/local/bin/kerai'; SELECT pg_reload_conf();".into(),
        ));
    };
    let path = PathBuf::from(&p);
    if !path.is_absolute() {
        return Err((
            format!("kerai.fetcher_path = '{p}' is not an absolute path"),
            "set it to the full path of the kerai binary".into(),
        ));
    }
    match std::fs::metadata(&path) {
        Err(e) => Err((
            format!("kerai.fetcher_path = '{p}' cannot be used: {e}"),
            "build the CLI (cargo build -p kerai-fetch) and set kerai.fetcher_path to it".into(),
        )),
        Ok(m) => {
            use std::os::unix::fs::PermissionsExt;
            if !m.is_file() || m.permissions().mode() & 0o111 == 0 {
                Err((
                    format!("kerai.fetcher_path = '{p}' is not an executable file"),
                    "point it at the kerai binary, executable by the server's operating-system user".into(),
                ))
            } else {
                Ok(path)
            }
        }
    }
}
