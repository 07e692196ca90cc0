//! The SSRF guard on the wire ([`kerai_core::ops::ssrf`] decides): two HTTP clients, one that
//! connects anywhere (for hosts allowed by name) and one whose resolver keeps only the
//! addresses the guard allows, at connect time; IP literals are checked before the request,
//! as they are never resolved.

use kerai_core::ops::ssrf::{AddressGuard, Refusal};
use kerai_core::{ErrorKind, ResourceError};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{Client, ClientBuilder};
use std::net::SocketAddr;
use std::sync::Arc;
use url::{Host, Url};

/// Resolves a name and keeps only the addresses the guard allows; refuses the name when none
/// is left.
struct GuardedResolver(Arc<AddressGuard>);

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.0.clone();
        Box::pin(async move {
            let host = name.as_str().to_string();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            // Boxed as the error itself, so `refusal_in` can find it in the source chain.
            let kept = guard
                .filter(&host, 0, found)
                .map_err(|r| Box::new(r) as Box<dyn std::error::Error + Send + Sync>)?;
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

/// The two clients and the guard that picks between them.
#[derive(Clone)]
pub struct GuardedClients {
    open: Client,
    guarded: Client,
    guard: Arc<AddressGuard>,
}

impl GuardedClients {
    /// Both clients from one configuration.
    pub fn build(
        guard: Arc<AddressGuard>,
        configure: impl Fn(ClientBuilder) -> ClientBuilder,
    ) -> Result<GuardedClients, String> {
        let open = configure(Client::builder())
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        let guarded = configure(Client::builder())
            .dns_resolver(Arc::new(GuardedResolver(guard.clone())))
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(GuardedClients {
            open,
            guarded,
            guard,
        })
    }

    /// The client to reach `url` with, or the refusal of an IP literal the guard does not allow.
    pub fn pick(&self, url: &Url) -> Result<&Client, Refusal> {
        let port = url.port_or_known_default().unwrap_or(0);
        let host = url.host_str().unwrap_or("");
        if self.guard.allows_name(host, port) {
            return Ok(&self.open);
        }
        let literal = match url.host() {
            Some(Host::Ipv4(ip)) => Some(ip.into()),
            Some(Host::Ipv6(ip)) => Some(ip.into()),
            _ => None,
        };
        if let Some(ip) = literal {
            self.guard.check(host, port, ip)?;
        }
        Ok(&self.guarded)
    }
}

/// The guard's refusal behind a failed request, with the URL's port (the resolver only sees
/// the name).
pub fn refusal_in(e: &reqwest::Error, url: &Url) -> Option<Refusal> {
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        if let Some(r) = s.downcast_ref::<Refusal>() {
            let mut r = r.clone();
            r.port = url.port_or_known_default().unwrap_or(0);
            return Some(r);
        }
        src = s.source();
    }
    None
}

/// A refusal in the error catalogue's words, about `resource`.
pub fn refused(resource: &str, r: &Refusal) -> ResourceError {
    ResourceError::new(ErrorKind::PrivateAddress, resource, r.to_string())
}
