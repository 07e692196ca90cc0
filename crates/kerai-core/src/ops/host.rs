//! This machine's name, as fetchers write it into their worker names (`host:pid`) and the
//! supervisor matches it to mark its daemon's row stopped.

/// `/etc/hostname`, trimmed; `localhost` without one.
pub fn this_host() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_host_has_a_name() {
        let h = super::this_host();
        assert!(!h.is_empty() && !h.contains(char::is_whitespace));
    }
}
