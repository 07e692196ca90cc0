//! The standard error catalogue: every failure a user sees about a resource names it
//! (a URL or a file) and says what happened in one of these fixed forms.
//!
//! | code | message |
//! |---|---|
//! | `unreachable` | `resource unreachable: <resource> (<detail>)` |
//! | `access_restricted` | `access restricted: <resource> (HTTP <status>)` |
//! | `corrupt_document` | `corrupt or unsupported document: <resource> (<detail>)` |
//! | `timeout` | `timeout: <resource> (<detail>)` |
//! | `too_large` | `too large: <resource> (<detail>)` |
//! | `robots_disallowed` | `disallowed by robots.txt: <resource>` |
//! | `redirect_loop` | `redirect loop: <resource> (<detail>)` |
//! | `private_address` | `private address refused: <resource> (<detail>)` |

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    Unreachable,
    AccessRestricted,
    CorruptDocument,
    Timeout,
    TooLarge,
    RobotsDisallowed,
    RedirectLoop,
    /// The SSRF guard refused a non-public address ([`crate::ops::ssrf`]).
    PrivateAddress,
}

impl ErrorKind {
    /// A stable machine-readable code, stored in logs and reports.
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::Unreachable => "unreachable",
            ErrorKind::AccessRestricted => "access_restricted",
            ErrorKind::CorruptDocument => "corrupt_document",
            ErrorKind::Timeout => "timeout",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::RobotsDisallowed => "robots_disallowed",
            ErrorKind::RedirectLoop => "redirect_loop",
            ErrorKind::PrivateAddress => "private_address",
        }
    }

    fn phrase(self) -> &'static str {
        match self {
            ErrorKind::Unreachable => "resource unreachable",
            ErrorKind::AccessRestricted => "access restricted",
            ErrorKind::CorruptDocument => "corrupt or unsupported document",
            ErrorKind::Timeout => "timeout",
            ErrorKind::TooLarge => "too large",
            ErrorKind::RobotsDisallowed => "disallowed by robots.txt",
            ErrorKind::RedirectLoop => "redirect loop",
            ErrorKind::PrivateAddress => "private address refused",
        }
    }

    pub fn from_code(code: &str) -> Option<ErrorKind> {
        [
            ErrorKind::Unreachable,
            ErrorKind::AccessRestricted,
            ErrorKind::CorruptDocument,
            ErrorKind::Timeout,
            ErrorKind::TooLarge,
            ErrorKind::RobotsDisallowed,
            ErrorKind::RedirectLoop,
            ErrorKind::PrivateAddress,
        ]
        .into_iter()
        .find(|k| k.code() == code)
    }
}

/// A failure about one resource, in the catalogue's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceError {
    pub kind: ErrorKind,
    /// The URL or file name.
    pub resource: String,
    /// What exactly happened, for people (may be empty).
    pub detail: String,
}

impl ResourceError {
    pub fn new(kind: ErrorKind, resource: impl Into<String>, detail: impl Into<String>) -> Self {
        ResourceError {
            kind,
            resource: resource.into(),
            detail: detail.into(),
        }
    }

    pub fn corrupt(resource: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::CorruptDocument, resource, detail)
    }

    pub fn too_large(resource: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::TooLarge, resource, detail)
    }

    /// The same error about another resource name (a parser names "input"; its caller knows the file).
    pub fn for_resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = resource.into();
        self
    }
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.phrase(), self.resource)?;
        if !self.detail.is_empty() {
            write!(f, " ({})", self.detail)?;
        }
        Ok(())
    }
}

impl std::error::Error for ResourceError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_resource() {
        let e = ResourceError::corrupt("report.pdf", "no PDF header");
        assert_eq!(
            e.to_string(),
            "corrupt or unsupported document: report.pdf (no PDF header)"
        );
        let e = ResourceError::new(ErrorKind::RobotsDisallowed, "http://h/private", "");
        assert_eq!(e.to_string(), "disallowed by robots.txt: http://h/private");
    }

    #[test]
    fn codes_round_trip() {
        for k in [
            ErrorKind::Unreachable,
            ErrorKind::Timeout,
            ErrorKind::RedirectLoop,
            ErrorKind::PrivateAddress,
        ] {
            assert_eq!(ErrorKind::from_code(k.code()), Some(k));
        }
    }
}
