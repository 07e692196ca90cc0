//! The few DevTools protocol commands rendering needs, over one WebSocket.

use super::RenderOptions;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::{tungstenite::Message, MaybeTlsStream, WebSocketStream};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

pub struct Browser {
    child: tokio::process::Child,
    socket: Socket,
    next_id: u64,
    _profile: TempDir,
}

/// A throwaway profile directory, removed on drop.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Room the browser's profile needs in the temporary directory (Chromium writes a few MB).
const PROFILE_ROOM: u64 = 32 << 20;

/// Bytes free to this process in the file system holding `dir`.
fn room(dir: &Path) -> Option<u64> {
    let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `path` is a NUL-terminated string and `st` a statvfs the call fills in.
    if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

/// Why the temporary directory cannot hold a browser profile now (a full disk), if it cannot.
pub fn no_room() -> Option<String> {
    let dir = std::env::temp_dir();
    let free = room(&dir)?;
    (free < PROFILE_ROOM).then(|| {
        format!(
            "no room for the browser's profile: {} has {} KiB free and rendering needs {} MiB; \
             free some space there, or point TMPDIR at a larger disk",
            dir.display(),
            free >> 10,
            PROFILE_ROOM >> 20
        )
    })
}

impl Browser {
    pub async fn launch(binary: &Path, user_agent: &str) -> Result<Browser, String> {
        if !binary.exists() {
            return Err(format!("{} not found", binary.display()));
        }
        let profile = std::env::temp_dir().join(format!(
            "kerai-chromium-{}-{}",
            std::process::id(),
            rand_suffix()
        ));
        std::fs::create_dir_all(&profile)
            .map_err(|e| format!("cannot create {}: {e}", profile.display()))?;
        let profile = TempDir(profile);
        let child = tokio::process::Command::new(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-dev-shm-usage",
                "--remote-debugging-port=0",
                "--remote-debugging-address=127.0.0.1",
            ])
            .arg(format!("--user-agent={user_agent}"))
            .arg(format!("--user-data-dir={}", profile.0.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
        // Chromium writes its port and browser endpoint to DevToolsActivePort.
        let port_file = profile.0.join("DevToolsActivePort");
        let mut endpoint = None;
        for _ in 0..200 {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    endpoint = Some(format!("ws://127.0.0.1:{}{}", port.trim(), path.trim()));
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let endpoint = endpoint.ok_or_else(|| {
            no_room()
                .unwrap_or_else(|| "Chromium did not open its DevTools port within 10 s".into())
        })?;
        let (socket, _) = tokio_tungstenite::connect_async(&endpoint)
            .await
            .map_err(|e| format!("cannot connect to {endpoint}: {e}"))?;
        Ok(Browser {
            child,
            socket,
            next_id: 0,
            _profile: profile,
        })
    }

    async fn send(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<u64, String> {
        self.next_id += 1;
        let mut msg = json!({"id": self.next_id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.socket
            .send(Message::Text(msg.to_string()))
            .await
            .map_err(|e| format!("DevTools send: {e}"))?;
        Ok(self.next_id)
    }

    /// Read messages until `stop` says the one wanted arrived.
    async fn until(&mut self, mut stop: impl FnMut(&Value) -> bool) -> Result<Value, String> {
        while let Some(msg) = self.socket.next().await {
            let msg = msg.map_err(|e| format!("DevTools receive: {e}"))?;
            if let Message::Text(t) = msg {
                let v: Value =
                    serde_json::from_str(&t).map_err(|e| format!("DevTools sent bad JSON: {e}"))?;
                if let Some(err) = v.get("error") {
                    return Err(format!("DevTools error: {err}"));
                }
                if stop(&v) {
                    return Ok(v);
                }
            }
        }
        Err("the browser closed the connection".into())
    }

    async fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.send(session, method, params).await?;
        let v = self.until(|v| v["id"].as_u64() == Some(id)).await?;
        Ok(v["result"].clone())
    }

    /// The page's DOM once it is ready as `opts` says; `partial` when `opts.timeout` passed
    /// first (the DOM so far is returned).
    pub async fn render(
        &mut self,
        url: &str,
        opts: &RenderOptions,
    ) -> Result<(String, bool), String> {
        let target = self
            .call(None, "Target.createTarget", json!({"url": "about:blank"}))
            .await?;
        let target_id = target["targetId"]
            .as_str()
            .ok_or("no targetId")?
            .to_string();
        let attached = self
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
            )
            .await?;
        let session = attached["sessionId"]
            .as_str()
            .ok_or("no sessionId")?
            .to_string();
        let result = self.render_in(&session, url, opts).await;
        let _ = self
            .call(None, "Target.closeTarget", json!({"targetId": target_id}))
            .await;
        result
    }

    async fn render_in(
        &mut self,
        session: &str,
        url: &str,
        opts: &RenderOptions,
    ) -> Result<(String, bool), String> {
        self.call(Some(session), "Page.enable", json!({})).await?;
        self.call(
            Some(session),
            "Page.setLifecycleEventsEnabled",
            json!({"enabled": true}),
        )
        .await?;
        let nav = self
            .call(Some(session), "Page.navigate", json!({"url": url}))
            .await?;
        if let Some(e) = nav["errorText"].as_str() {
            return Err(format!("navigation failed: {e}"));
        }
        let loader = nav["loaderId"].as_str().map(str::to_string);
        let partial = tokio::time::timeout(opts.timeout, self.ready(session, loader, opts))
            .await
            .is_err();
        let v = self
            .evaluate(session, "document.documentElement.outerHTML")
            .await?;
        v.as_str()
            .map(|html| (html.to_string(), partial))
            .ok_or_else(|| "the page has no document".to_string())
    }

    /// Wait for the lifecycle event `opts.wait_until` names (of this navigation), then for
    /// `opts.wait_for` to match an element.
    async fn ready(
        &mut self,
        session: &str,
        loader: Option<String>,
        opts: &RenderOptions,
    ) -> Result<(), String> {
        let s = session.to_string();
        let wanted: &[&str] = if opts.wait_until_load {
            &["load"]
        } else {
            &["networkIdle", "networkAlmostIdle"]
        };
        self.until(|v| {
            v["sessionId"].as_str() == Some(&s)
                && v["method"] == "Page.lifecycleEvent"
                && (loader.is_none() || v["params"]["loaderId"].as_str() == loader.as_deref())
                && v["params"]["name"]
                    .as_str()
                    .is_some_and(|n| wanted.contains(&n))
        })
        .await?;
        if let Some(selector) = &opts.wait_for {
            let probe = format!(
                "document.querySelector({}) !== null",
                serde_json::to_string(selector).unwrap_or_default()
            );
            while self.evaluate(session, &probe).await? != Value::Bool(true) {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        Ok(())
    }

    async fn evaluate(&mut self, session: &str, expression: &str) -> Result<Value, String> {
        let v = self
            .call(
                Some(session),
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
            )
            .await?;
        if let Some(e) = v.get("exceptionDetails") {
            return Err(format!("the page's script failed: {e}"));
        }
        Ok(v["result"]["value"].clone())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

fn rand_suffix() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos() as u64)
        .unwrap_or(0)
}
