//! Credentialed crawling: an intranet on loopback that requires each kind of `auth` (basic,
//! bearer, any header, a cookie, a login form), with a link and a redirect to another host that
//! must never see the credentials. The secret is read from the fetcher's environment or a file
//! and is never stored, logged or sent elsewhere.

use kerai_e2e::serve::Server;
use kerai_e2e::{kerai, kerai_env, TestDb};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

const SECRET: &str = "s3cret-Pa55";

#[derive(Clone, Copy, PartialEq)]
enum Scheme {
    Basic,
    Bearer,
    Header,
    Cookie,
    Form,
}

/// What the servers saw.
#[derive(Default)]
struct Seen {
    /// Requests to the other host that carried any credential.
    leaked: Vec<String>,
    other_hits: usize,
    logins: usize,
    refused: usize,
}

struct Intranet {
    server: Server,
    other: Server,
    seen: Arc<Mutex<Seen>>,
}

fn header(req: &tiny_http::Request, name: &str) -> Option<String> {
    req.headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str().to_string())
}

fn html(body: &str) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    tiny_http::Response::from_string(body).with_header(
        tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"text/html; charset=utf-8"[..])
            .unwrap(),
    )
}

fn with(
    r: tiny_http::Response<std::io::Cursor<Vec<u8>>>,
    k: &str,
    v: &str,
) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    r.with_header(tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).unwrap())
}

fn page(title: &str, links: &str) -> String {
    format!("<html><body><main><h1>{title}</h1><p>The {title} page of the intranet, with text enough to be content for the crawler.</p>{links}</main></body></html>")
}

/// The intranet requires `scheme` with `secret`; a form session ends after 3 pages (the crawler
/// must log in again).
fn intranet(scheme: Scheme, secret: &'static str) -> Intranet {
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let mut other = Server::bind();
    {
        let seen = seen.clone();
        other.serve(2, move |req| {
            let mut s = seen.lock().unwrap();
            s.other_hits += 1;
            for h in ["Authorization", "Cookie", "X-Api-Key"] {
                if let Some(v) = header(&req, h) {
                    s.leaked.push(format!("{} {h}: {v}", req.url()));
                }
            }
            drop(s);
            let _ = req.respond(html(&page("Elsewhere", "")));
        });
    }
    let mut server = Server::bind();
    let other_base = other.base.clone();
    let sessions: Arc<Mutex<(u32, HashSet<String>, u32)>> = Arc::default();
    {
        let seen = seen.clone();
        server.serve(4, move |mut req| {
            let url = req.url().to_string();
            if url == "/robots.txt" {
                let _ = req.respond(tiny_http::Response::from_string("User-agent: *\nAllow: /\n"));
                return;
            }
            if scheme == Scheme::Form && url == "/login" {
                let mut body = String::new();
                let _ = req.as_reader().read_to_string(&mut body);
                seen.lock().unwrap().logins += 1;
                if body.contains("username=ada") && body.contains(&format!("password={secret}")) {
                    let mut s = sessions.lock().unwrap();
                    s.0 += 1;
                    let sid = format!("sid{}", s.0);
                    s.1.insert(sid.clone());
                    s.2 = 0;
                    let r = with(html("welcome"), "Set-Cookie", &format!("session={sid}; Path=/; HttpOnly"));
                    let _ = req.respond(with(r.with_status_code(302), "Location", "/"));
                } else {
                    let _ = req.respond(html("<form>wrong user or password</form>"));
                }
                return;
            }
            let ok = match scheme {
                Scheme::Basic => header(&req, "Authorization").as_deref()
                    == Some("Basic YWRhOnMzY3JldC1QYTU1"), // ada:s3cret-Pa55
                Scheme::Bearer => header(&req, "Authorization") == Some(format!("Bearer {SECRET}")),
                Scheme::Header => header(&req, "X-Api-Key").as_deref() == Some(SECRET),
                Scheme::Cookie => header(&req, "Cookie").is_some_and(|c| c.contains(&format!("token={SECRET}"))),
                Scheme::Form => {
                    let mut s = sessions.lock().unwrap();
                    let valid = header(&req, "Cookie")
                        .and_then(|c| c.split("session=").nth(1).map(|v| v.split(';').next().unwrap_or("").to_string()))
                        .is_some_and(|sid| s.1.contains(&sid));
                    if valid {
                        s.2 += 1;
                        // The session expires after 3 pages.
                        if s.2 >= 3 {
                            s.1.clear();
                        }
                    }
                    valid
                }
            };
            if !ok {
                seen.lock().unwrap().refused += 1;
                let r = if scheme == Scheme::Form {
                    with(html("login first").with_status_code(302), "Location", "/login")
                } else {
                    with(html("who are you?").with_status_code(401), "WWW-Authenticate", "Basic realm=\"intranet\"")
                };
                let _ = req.respond(r);
                return;
            }
            let body = match url.as_str() {
                "/" => page(
                    "Home",
                    &format!("<a href=\"/a\">a</a> <a href=\"/b\">b</a> <a href=\"/c\">c</a> <a href=\"/out\">out</a> <a href=\"{other_base}/linked\">elsewhere</a>"),
                ),
                "/a" | "/b" | "/c" => page(&url[1..], ""),
                "/out" => {
                    let r = with(html("moved"), "Location", &format!("{other_base}/landing"));
                    let _ = req.respond(r.with_status_code(302));
                    return;
                }
                _ => {
                    let _ = req.respond(html("no").with_status_code(404));
                    return;
                }
            };
            let _ = req.respond(html(&body));
        });
    }
    Intranet {
        server,
        other,
        seen,
    }
}

fn configure(db: &TestDb, net: &Intranet, auth: &[&str]) {
    let base = format!("{}/", net.server.base);
    let mut args = vec![
        "config",
        "set",
        "intranet",
        "--base-url",
        &base,
        "use_sitemaps=false",
        "rate_limit_rps=0",
        "retries=1",
    ];
    args.extend_from_slice(auth);
    let out = kerai(&db.url, &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// Nothing kerai stored holds the secret.
fn secret_nowhere(db: &TestDb, secret: &str) {
    let found: i64 = db.one(&format!(
        "SELECT (SELECT count(*) FROM kerai.targets WHERE config::text LIKE '%{secret}%')
              + (SELECT count(*) FROM kerai.target_config_versions WHERE config::text LIKE '%{secret}%')
              + (SELECT count(*) FROM kerai.scrape_jobs WHERE config::text LIKE '%{secret}%' OR coalesce(error, '') LIKE '%{secret}%')
              + (SELECT count(*) FROM kerai.job_logs WHERE message LIKE '%{secret}%' OR details::text LIKE '%{secret}%')
              + (SELECT count(*) FROM kerai.job_urls WHERE coalesce(error, '') LIKE '%{secret}%')"
    ));
    assert_eq!(found, 0, "the secret is stored nowhere");
}

fn crawl_with(scheme: Scheme, auth: &[&str], env: &[(&str, &str)]) {
    let net = intranet(scheme, SECRET);
    let db = TestDb::new("auth");
    configure(&db, &net, auth);
    let test = kerai_env(&db.url, &["config", "test", "intranet"], env);
    assert_eq!(test.code, 0, "{}\n{}", test.stdout, test.stderr);
    let run = kerai_env(
        &db.url,
        &["run", "intranet", "--no-progress", "--no-embed"],
        env,
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
    let stored: Vec<String> = db
        .client()
        .query(
            "SELECT url FROM kerai.pages WHERE last_status = 'new' ORDER BY url",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let base = &net.server.base;
    for p in ["/", "/a", "/b", "/c"] {
        assert!(
            stored.contains(&format!("{base}{p}")),
            "{p} behind the login is stored: {stored:?}"
        );
    }
    let seen = net.seen.lock().unwrap();
    assert!(
        seen.other_hits >= 2,
        "the link and the redirect to the other host were followed"
    );
    assert_eq!(
        seen.leaked,
        Vec::<String>::new(),
        "no credential went to the other host"
    );
    drop(seen);
    secret_nowhere(&db, SECRET);
    let _ = &net.other;
}

#[test]
fn basic_auth_from_an_env_var() {
    crawl_with(
        Scheme::Basic,
        &["auth.type=basic", "auth.credentials_ref=env:INTRANET_LOGIN"],
        &[("INTRANET_LOGIN", "ada:s3cret-Pa55")],
    );
}

#[test]
fn a_bearer_token_from_a_file() {
    let file = std::env::temp_dir().join(format!("kerai-token-{}", std::process::id()));
    std::fs::write(&file, format!("{SECRET}\n")).unwrap();
    let r = format!("auth.credentials_ref=file:{}", file.display());
    crawl_with(Scheme::Bearer, &["auth.type=bearer", &r], &[]);
    let _ = std::fs::remove_file(file);
}

#[test]
fn any_header() {
    crawl_with(
        Scheme::Header,
        &[
            "auth.type=header",
            "auth.header=X-Api-Key",
            "auth.credentials_ref=env:INTRANET_KEY",
        ],
        &[("INTRANET_KEY", SECRET)],
    );
}

#[test]
fn a_cookie() {
    crawl_with(
        Scheme::Cookie,
        &[
            "auth.type=cookie",
            "auth.credentials_ref=env:INTRANET_COOKIE",
        ],
        &[("INTRANET_COOKIE", "theme=dark; token=s3cret-Pa55")],
    );
}

#[test]
fn a_login_form_logging_in_again_when_the_session_ends() {
    let net = intranet(Scheme::Form, SECRET);
    let login_now = format!("auth.login_url={}/login", net.server.base);
    let db = TestDb::new("auth_form");
    configure(
        &db,
        &net,
        &[
            "auth.type=form",
            &login_now,
            "auth.username=ada",
            "auth.credentials_ref=env:INTRANET_PASSWORD",
        ],
    );
    let env = [("INTRANET_PASSWORD", SECRET)];
    let run = kerai_env(
        &db.url,
        &["run", "intranet", "--no-progress", "--no-embed"],
        &env,
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let base = &net.server.base;
    for p in ["/", "/a", "/b", "/c"] {
        let stored: i64 = db.one(&format!(
            "SELECT count(*) FROM kerai.pages WHERE last_status = 'new' AND url = '{base}{p}'"
        ));
        assert_eq!(stored, 1, "{p} behind the form is stored");
    }
    let seen = net.seen.lock().unwrap();
    assert!(
        seen.logins >= 2,
        "the session ended after 3 pages and the crawler logged in again: {} logins",
        seen.logins
    );
    assert_eq!(seen.leaked, Vec::<String>::new());
    drop(seen);
    secret_nowhere(&db, SECRET);
}

#[test]
fn a_login_form_that_never_succeeds_stops_the_run_without_hammering() {
    let net = intranet(Scheme::Form, SECRET);
    let db = TestDb::new("auth_form_wrong");
    let login = format!("auth.login_url={}/login", net.server.base);
    let b = &net.server.base;
    // Six seeds, each of which would try to log in.
    let seeds = format!("seeds={b}/,{b}/a,{b}/b,{b}/c,{b}/d,{b}/e");
    configure(
        &db,
        &net,
        &[
            "auth.type=form",
            &login,
            "auth.credentials_ref=env:INTRANET_LOGIN",
            &seeds,
            "concurrency=1",
        ],
    );
    let run = kerai_env(
        &db.url,
        &["run", "intranet", "--no-progress", "--no-embed"],
        &[("INTRANET_LOGIN", "ada:wrong-password")],
    );
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("login for target \"intranet\" was refused")
            && run.stdout.contains("env:INTRANET_LOGIN")
            && run.stdout.contains("gave up after 3 attempts"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("wrong-password") && !run.stderr.contains("wrong-password"));
    let logins = net.seen.lock().unwrap().logins;
    assert!(logins <= 3, "at most 3 login attempts, not {logins}");
    secret_nowhere(&db, "wrong-password");
}

#[test]
fn a_wrong_secret_names_the_target_and_the_ref_not_the_secret() {
    let net = intranet(Scheme::Basic, SECRET);
    let db = TestDb::new("auth_wrong");
    configure(
        &db,
        &net,
        &["auth.type=basic", "auth.credentials_ref=env:INTRANET_LOGIN"],
    );
    let run = kerai_env(
        &db.url,
        &["run", "intranet", "--no-progress", "--no-embed"],
        &[("INTRANET_LOGIN", "ada:not-the-password")],
    );
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("HTTP 401")
            && run.stdout.contains("target \"intranet\"")
            && run.stdout.contains("env:INTRANET_LOGIN"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("not-the-password"));
    secret_nowhere(&db, "not-the-password");
}

#[test]
fn bad_auth_blocks_fail_config_test_naming_the_key() {
    let net = intranet(Scheme::Basic, SECRET);
    let db = TestDb::new("auth_bad");
    // An unknown type is refused when set.
    let base = format!("{}/", net.server.base);
    let out = kerai(
        &db.url,
        &[
            "config",
            "set",
            "intranet",
            "--base-url",
            &base,
            "auth.type=kerberos",
            "auth.credentials_ref=env:X",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("auth.type: \"kerberos\""),
        "{}",
        out.stderr
    );

    // A missing env var, an unreadable file: config test and run fail, naming the key.
    configure(
        &db,
        &net,
        &[
            "auth.type=basic",
            "auth.credentials_ref=env:KERAI_NO_SUCH_VAR",
        ],
    );
    let test = kerai(&db.url, &["config", "test", "intranet"]);
    assert_eq!(test.code, 2, "{}\n{}", test.stdout, test.stderr);
    assert!(
        test.stdout
            .contains("auth.credentials_ref env:KERAI_NO_SUCH_VAR: the environment variable KERAI_NO_SUCH_VAR is not set"),
        "{}",
        test.stdout
    );
    let run = kerai(&db.url, &["run", "intranet", "--no-progress", "--no-embed"]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("KERAI_NO_SUCH_VAR"), "{}", run.stdout);
    assert_eq!(
        net.seen.lock().unwrap().refused,
        0,
        "no request went out without the secret"
    );

    configure(
        &db,
        &net,
        &["auth.credentials_ref=file:/nonexistent/kerai-secret"],
    );
    let test = kerai(&db.url, &["config", "test", "intranet"]);
    assert_eq!(test.code, 2);
    assert!(
        test.stdout
            .contains("cannot read /nonexistent/kerai-secret"),
        "{}",
        test.stdout
    );
}
