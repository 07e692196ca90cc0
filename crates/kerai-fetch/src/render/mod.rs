//! JavaScript rendering: headless Chromium (Debian's `chromium` package) driven over the
//! DevTools protocol. Off by default (`render = true` in a target's config turns it on).

mod cdp;

use cdp::Browser;
use kerai_core::{ErrorKind, ResourceError};
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::Mutex;

/// Renders pages one at a time in one lazily started browser.
pub struct Renderer {
    browser: Mutex<Option<Browser>>,
    timeout: Duration,
    user_agent: String,
}

impl Renderer {
    pub fn new(timeout: Duration, user_agent: &str) -> Renderer {
        Renderer {
            browser: Mutex::new(None),
            timeout,
            user_agent: user_agent.to_string(),
        }
    }

    /// The binary: `$KERAI_CHROMIUM`, else /usr/bin/chromium.
    pub fn binary() -> PathBuf {
        std::env::var_os("KERAI_CHROMIUM")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
    }

    /// The page's DOM after its scripts ran (`document.documentElement.outerHTML` once the load
    /// event fired and the network was quiet for a moment).
    pub async fn render(&self, url: &str) -> Result<String, ResourceError> {
        let mut guard = self.browser.lock().await;
        if guard.is_none() {
            // A full disk fails this page (and the next, until there is room), not the job.
            if let Some(why) = cdp::no_room() {
                return Err(ResourceError::new(
                    ErrorKind::Unreachable,
                    url,
                    format!("cannot render it: {why}"),
                ));
            }
            let b = Browser::launch(&Self::binary(), &self.user_agent).await.map_err(|e| {
                ResourceError::new(
                    ErrorKind::Unreachable,
                    url,
                    format!("cannot start Chromium for rendering ({e}); install Debian's chromium package or set render = false"),
                )
            })?;
            *guard = Some(b);
        }
        let browser = guard.as_mut().expect("started above");
        match tokio::time::timeout(self.timeout, browser.render(url)).await {
            Ok(Ok(html)) => Ok(html),
            Ok(Err(e)) => {
                *guard = None;
                Err(ResourceError::new(
                    ErrorKind::Unreachable,
                    url,
                    format!("rendering failed: {e}"),
                ))
            }
            Err(_) => {
                *guard = None;
                Err(ResourceError::new(
                    ErrorKind::Timeout,
                    url,
                    format!("rendering took longer than {:?}", self.timeout),
                ))
            }
        }
    }
}
