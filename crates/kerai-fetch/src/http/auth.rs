//! Credentials on the wire: the headers a target's `auth` block adds, only on requests to the
//! target's own hosts (each redirect hop is checked, so a redirect elsewhere drops them), and
//! the session of a login form: posted once, its cookies kept, posted again when a page answers
//! 401 or sends the crawler back to the login page, and given up after [`MAX_LOGINS`] logins
//! in a row that did not open a page.

use crate::target::auth::{AuthConfig, Secret};
use reqwest::header::{HeaderMap, SET_COOKIE};
use std::collections::HashSet;
use std::sync::Mutex;
use url::Url;

/// Logins in a row that open no page before the run stops.
pub const MAX_LOGINS: u32 = 3;

enum Kind {
    /// A fixed header on every request (basic, bearer, header, cookie).
    Header(String, String),
    Form {
        login_url: Url,
        fields: Vec<(String, String)>,
    },
}

#[derive(Default)]
struct Session {
    /// The `Cookie` header of the current login.
    cookie: Option<String>,
    /// Which login that is (a 401 on an older one does not log in again).
    generation: u64,
    /// Logins since a page last opened.
    failures: u32,
    gave_up: Option<String>,
}

pub struct Auth {
    target: String,
    from: String,
    /// `host:port` of the target's own hosts (its seeds and login URL).
    origins: HashSet<String>,
    kind: Kind,
    session: Mutex<Session>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Auth({}, {}, redacted)", self.target, self.from)
    }
}

fn origin(u: &Url) -> Option<String> {
    Some(format!(
        "{}:{}",
        u.host_str()?.to_ascii_lowercase(),
        u.port_or_known_default()?
    ))
}

/// What a request to the target's hosts carries, and which login it belongs to.
pub struct Credentials {
    pub headers: Vec<(String, String)>,
    pub generation: Option<u64>,
}

impl Auth {
    /// The credentials of `cfg` for target `target`, whose own hosts are those of `seeds`.
    pub fn new(
        target: &str,
        cfg: &AuthConfig,
        secret: &Secret,
        seeds: &[String],
    ) -> Result<Auth, String> {
        let mut origins: HashSet<String> = seeds
            .iter()
            .filter_map(|s| Url::parse(s).ok())
            .filter_map(|u| origin(&u))
            .collect();
        let kind = match cfg.kind.as_str() {
            "basic" => {
                let (u, p) = cfg.user_password(secret);
                use base64_lite as b64;
                Kind::Header(
                    "Authorization".into(),
                    format!("Basic {}", b64::encode(format!("{u}:{p}").as_bytes())),
                )
            }
            "bearer" => Kind::Header("Authorization".into(), format!("Bearer {}", secret.value)),
            "header" => Kind::Header(
                cfg.header.clone().unwrap_or_default().trim().to_string(),
                secret.value.clone(),
            ),
            "cookie" => Kind::Header("Cookie".into(), secret.value.clone()),
            "form" => {
                let login_url = cfg
                    .login_url
                    .as_deref()
                    .and_then(|u| Url::parse(u).ok())
                    .ok_or_else(|| format!("target \"{target}\": auth.login_url is not a URL"))?;
                if let Some(o) = origin(&login_url) {
                    origins.insert(o);
                }
                let (u, p) = cfg.user_password(secret);
                let mut fields: Vec<(String, String)> = cfg
                    .fields
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                fields.push((cfg.username_field.clone(), u));
                fields.push((cfg.password_field.clone(), p));
                Kind::Form { login_url, fields }
            }
            other => {
                return Err(format!(
                    "target \"{target}\": auth.type \"{other}\" is unknown"
                ))
            }
        };
        Ok(Auth {
            target: target.to_string(),
            from: secret.from.clone(),
            origins,
            kind,
            session: Mutex::new(Session::default()),
        })
    }

    /// Whether `url` is on one of the target's own hosts (same host and port).
    pub fn applies(&self, url: &Url) -> bool {
        origin(url).is_some_and(|o| self.origins.contains(&o))
    }

    /// The login URL of a form, to post to.
    pub fn login(&self) -> Option<(&Url, &[(String, String)])> {
        match &self.kind {
            Kind::Form { login_url, fields } => Some((login_url, fields)),
            Kind::Header(..) => None,
        }
    }

    /// Whether `url` is the login page (a page that sends the crawler there was refused).
    pub fn is_login_page(&self, url: &Url) -> bool {
        match &self.kind {
            Kind::Form { login_url, .. } => {
                origin(url) == origin(login_url) && url.path() == login_url.path()
            }
            Kind::Header(..) => false,
        }
    }

    /// Whose credentials a server refused, for the page's error (never the secret).
    pub fn refused_with(&self) -> String {
        format!(
            "the credentials of target \"{}\" from {} were refused",
            self.target, self.from
        )
    }

    /// Why the run must stop, once logging in failed [`MAX_LOGINS`] times in a row.
    pub fn gave_up(&self) -> Option<String> {
        self.session.lock().ok().and_then(|s| s.gave_up.clone())
    }

    /// The headers for a request to the target's hosts; `None` when a login is needed first.
    pub fn credentials(&self) -> Option<Credentials> {
        match &self.kind {
            Kind::Header(k, v) => Some(Credentials {
                headers: vec![(k.clone(), v.clone())],
                generation: None,
            }),
            Kind::Form { .. } => {
                let s = self.session.lock().ok()?;
                s.cookie.as_ref().map(|c| Credentials {
                    headers: vec![("Cookie".into(), c.clone())],
                    generation: Some(s.generation),
                })
            }
        }
    }

    /// Keep the cookies a login response set; an error (for the page being fetched) when the
    /// login did not work, and the run gives up after [`MAX_LOGINS`] of them in a row.
    pub fn logged_in(
        &self,
        status: u16,
        headers: &HeaderMap,
        location: Option<&Url>,
    ) -> Result<(), String> {
        let pairs: Vec<String> = headers
            .get_all(SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(|v| v.split(';').next())
            .map(|p| p.trim().to_string())
            .filter(|p| p.contains('=') && !p.ends_with('='))
            .collect();
        let back_to_login = location.is_some_and(|l| self.is_login_page(l));
        let ok = (200..400).contains(&status) && !pairs.is_empty() && !back_to_login;
        let Ok(mut s) = self.session.lock() else {
            return Err("the login state is unusable".into());
        };
        if ok {
            s.cookie = Some(pairs.join("; "));
            s.generation += 1;
            s.failures += 1;
            return Ok(());
        }
        s.failures += 1;
        let why =
            format!(
            "login for target \"{}\" was refused (HTTP {status}{}) with the credentials from {}",
            self.target,
            if pairs.is_empty() { ", no session cookie" } else { "" },
            self.from
        );
        if s.failures >= MAX_LOGINS {
            s.gave_up = Some(format!(
                "{why}; gave up after {MAX_LOGINS} attempts: check the credentials"
            ));
        }
        Err(why)
    }

    /// A page of login `generation` was refused (401, or sent back to the login page): the
    /// session is dropped so the next request logs in again, unless the run must give up.
    pub fn refused(&self, generation: Option<u64>) {
        let Ok(mut s) = self.session.lock() else {
            return;
        };
        if generation.is_some() && generation == Some(s.generation) {
            s.cookie = None;
            if s.failures >= MAX_LOGINS && s.gave_up.is_none() {
                s.gave_up = Some(format!(
                    "the pages of target \"{}\" keep refusing the session after {MAX_LOGINS} logins with the credentials from {}: check them",
                    self.target, self.from
                ));
            }
        }
    }

    /// A page opened with login `generation`: the login works.
    pub fn opened(&self, generation: Option<u64>) {
        if let (Some(g), Ok(mut s)) = (generation, self.session.lock()) {
            if g == s.generation {
                s.failures = 0;
            }
        }
    }
}

/// Standard base64 (RFC 4648, with padding) for the Basic scheme.
mod base64_lite {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    pub fn encode(bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[cfg(test)]
    #[test]
    fn encodes_like_rfc_4648() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("Aladdin:open sesame", "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        ] {
            assert_eq!(encode(i.as_bytes()), o);
        }
    }
}
