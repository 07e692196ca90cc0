//! What went wrong with a scholarly service's answer, naming the service.

use std::fmt;

use super::service::Service;
use crate::error::{ErrorKind, ResourceError};

/// The kind of failure, from the body the service sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScholarlyErrorKind {
    /// Not JSON / not XML / not the shape the service documents.
    Malformed,
    /// The right shape, but a field kerai needs is absent.
    MissingField,
    /// The service answered with its error envelope (CrossRef `"status": "failed"`,
    /// Semantic Scholar `{"error": ...}`, Unpaywall `"error": true`, arXiv's `Error` entry).
    Api,
    /// The service says the work does not exist (404 bodies, an empty Internet Archive item).
    NotFound,
    /// The service asks kerai to slow down (HTTP 429 bodies, arXiv's `Rate exceeded.`).
    RateLimited,
    /// kerai is not configured to use the service (no contact e-mail, no concept URL).
    NotConfigured,
}

impl ScholarlyErrorKind {
    /// Stable code: `malformed`, `missing_field`, `api_error`, `not_found`, `rate_limited`,
    /// `not_configured`.
    pub fn code(self) -> &'static str {
        match self {
            ScholarlyErrorKind::Malformed => "malformed",
            ScholarlyErrorKind::MissingField => "missing_field",
            ScholarlyErrorKind::Api => "api_error",
            ScholarlyErrorKind::NotFound => "not_found",
            ScholarlyErrorKind::RateLimited => "rate_limited",
            ScholarlyErrorKind::NotConfigured => "not_configured",
        }
    }

    fn phrase(self) -> &'static str {
        match self {
            ScholarlyErrorKind::Malformed => "malformed response",
            ScholarlyErrorKind::MissingField => "response lacks a required field",
            ScholarlyErrorKind::Api => "service reported an error",
            ScholarlyErrorKind::NotFound => "not found",
            ScholarlyErrorKind::RateLimited => "rate limited, wait and retry",
            ScholarlyErrorKind::NotConfigured => "not configured",
        }
    }
}

/// A failure about one service's answer: `"<service>: <what> (<detail>)"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScholarlyError {
    pub service: Service,
    pub kind: ScholarlyErrorKind,
    /// What exactly, in the service's words where it gave any.
    pub detail: String,
}

impl ScholarlyError {
    pub fn new(service: Service, kind: ScholarlyErrorKind, detail: impl Into<String>) -> Self {
        ScholarlyError {
            service,
            kind,
            detail: detail.into(),
        }
    }

    pub fn malformed(service: Service, detail: impl Into<String>) -> Self {
        Self::new(service, ScholarlyErrorKind::Malformed, detail)
    }

    pub fn missing(service: Service, field: &str) -> Self {
        Self::new(
            service,
            ScholarlyErrorKind::MissingField,
            format!("no `{field}`"),
        )
    }

    pub fn api(service: Service, detail: impl Into<String>) -> Self {
        Self::new(service, ScholarlyErrorKind::Api, detail)
    }

    pub fn not_found(service: Service, detail: impl Into<String>) -> Self {
        Self::new(service, ScholarlyErrorKind::NotFound, detail)
    }

    pub fn rate_limited(service: Service, detail: impl Into<String>) -> Self {
        Self::new(service, ScholarlyErrorKind::RateLimited, detail)
    }

    pub fn not_configured(service: Service, detail: impl Into<String>) -> Self {
        Self::new(service, ScholarlyErrorKind::NotConfigured, detail)
    }

    /// Worth retrying later (rate limits); everything else is final for this request.
    pub fn is_transient(&self) -> bool {
        self.kind == ScholarlyErrorKind::RateLimited
    }

    /// In the standard catalogue's words, about `url` (the request that got this answer):
    /// malformed or incomplete answers are corrupt documents, the rest are unreachable.
    pub fn to_resource_error(&self, url: &str) -> ResourceError {
        let kind = match self.kind {
            ScholarlyErrorKind::Malformed | ScholarlyErrorKind::MissingField => {
                ErrorKind::CorruptDocument
            }
            _ => ErrorKind::Unreachable,
        };
        ResourceError::new(kind, url, self.to_string())
    }
}

impl fmt::Display for ScholarlyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.service, self.kind.phrase())?;
        if !self.detail.is_empty() {
            write!(f, " ({})", self.detail)?;
        }
        Ok(())
    }
}

impl std::error::Error for ScholarlyError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_service() {
        let e = ScholarlyError::missing(Service::Crossref, "message.DOI");
        assert_eq!(
            e.to_string(),
            "crossref: response lacks a required field (no `message.DOI`)"
        );
        let r = e.to_resource_error("https://api.crossref.org/works/10.1/x");
        assert_eq!(r.kind, ErrorKind::CorruptDocument);
        assert!(ScholarlyError::rate_limited(Service::Arxiv, "Rate exceeded.").is_transient());
        let r = ScholarlyError::not_found(Service::Unpaywall, "x").to_resource_error("u");
        assert_eq!(r.kind, ErrorKind::Unreachable);
        assert_eq!(ScholarlyErrorKind::Api.code(), "api_error");
    }
}
