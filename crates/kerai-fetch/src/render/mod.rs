//! JavaScript rendering: headless Chromium (Debian's `chromium` package) driven over the
//! DevTools protocol. Off by default (`render = true` in a target's config turns it on).

mod cdp;

use cdp::Browser;
use kerai_core::{ErrorKind, ResourceError};
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::Mutex;

/// When a rendered page is ready (a target's `render_*` settings).
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// A CSS selector that must match an element.
    pub wait_for: Option<String>,
    /// The `load` event instead of a quiet network.
    pub wait_until_load: bool,
    /// The longest wait; then the DOM so far is kept, flagged partial.
    pub timeout: Duration,
}

/// A rendered page: its DOM, and whether the wait for it timed out (`partial`).
pub struct Rendered {
    pub html: String,
    pub partial: bool,
}

/// Renders pages in up to `concurrency` lazily started browsers, one page at a time each.
pub struct Renderer {
    browsers: Vec<Mutex<Option<Browser>>>,
    free: tokio::sync::Semaphore,
    opts: RenderOptions,
    user_agent: String,
}

impl Renderer {
    pub fn new(opts: RenderOptions, concurrency: usize, user_agent: &str) -> Renderer {
        let n = concurrency.clamp(1, 16);
        Renderer {
            browsers: (0..n).map(|_| Mutex::new(None)).collect(),
            free: tokio::sync::Semaphore::new(n),
            opts,
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
    pub async fn render(&self, url: &str) -> Result<Rendered, ResourceError> {
        let _permit = self.free.acquire().await.map_err(|_| {
            ResourceError::new(ErrorKind::Unreachable, url, "the renderer was closed")
        })?;
        // The permit promises a free browser.
        let mut guard = loop {
            if let Some(g) = self.browsers.iter().find_map(|b| b.try_lock().ok()) {
                break g;
            }
            tokio::task::yield_now().await;
        };
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
        // The page gets opts.timeout (then its DOM so far is kept); a browser that does not
        // answer even then is given up.
        let bound = self.opts.timeout + Duration::from_secs(15);
        match tokio::time::timeout(bound, browser.render(url, &self.opts)).await {
            Ok(Ok((html, partial))) => Ok(Rendered { html, partial }),
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
                    format!("the browser stopped answering for {bound:?}"),
                ))
            }
        }
    }
}
