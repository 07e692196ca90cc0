//! The longest-match decision of google/robotstxt (`RobotsMatcher`), replayed over parsed
//! directives for one user agent and one path.

use super::lines::{Directive, KeyKind};

/// Whether `path` (already in path-params-query form, starting with `/`) matches a robots.txt
/// `pattern`: `*` matches any sequence, a trailing `$` anchors the end, everything else is
/// literal and case-sensitive, and a pattern matches any path it is a prefix of.
///
/// Same result as google/robotstxt's position-set algorithm, without allocating: literal
/// patterns are a prefix (or, anchored, an equality) test, the rest a greedy wildcard match
/// that backtracks to the last `*`.
pub fn pattern_matches(path: &[u8], pattern: &[u8]) -> bool {
    let (pat, anchored) = match pattern.split_last() {
        Some((b'$', rest)) => (rest, true),
        _ => (pattern, false),
    };
    if !pat.contains(&b'*') {
        return if anchored {
            path == pat
        } else {
            path.starts_with(pat)
        };
    }
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p == pat.len() {
            if !anchored || t == path.len() {
                return true;
            }
        } else if pat[p] == b'*' {
            star = Some((p, t));
            p += 1;
            continue;
        } else if t < path.len() && pat[p] == path[t] {
            p += 1;
            t += 1;
            continue;
        }
        // Mismatch: let the last `*` swallow one more byte, if there is one left.
        match star {
            Some((sp, st)) if st < path.len() => {
                star = Some((sp, st + 1));
                p = sp + 1;
                t = st + 1;
            }
            _ => return false,
        }
    }
}

/// Best (longest) match priority for a rule class, -1 when nothing matched.
#[derive(Clone, Copy)]
struct Best {
    specific: i64,
    global: i64,
}

impl Best {
    const NONE: Best = Best {
        specific: -1,
        global: -1,
    };
}

/// Group bookkeeping of `RobotsMatcher`: which group the current rules belong to.
#[derive(Default)]
pub(crate) struct GroupState {
    seen_global_agent: bool,
    seen_specific_agent: bool,
    /// A group naming the agent exists anywhere in the file.
    pub(crate) ever_seen_specific_agent: bool,
    seen_separator: bool,
}

/// The product token of a `user-agent` value: its leading run of `[A-Za-z_-]`.
pub fn extract_user_agent(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .take_while(|&&c| c.is_ascii_alphabetic() || c == b'-' || c == b'_')
        .count();
    &value[..end]
}

impl GroupState {
    fn seen_any_agent(&self) -> bool {
        self.seen_global_agent || self.seen_specific_agent
    }

    /// Applies a `user-agent` line. A `user-agent` after rules starts a new group; `*` (or
    /// `*` followed by whitespace and more) is the global group.
    fn user_agent(&mut self, value: &[u8], agent: &[u8]) {
        if self.seen_separator {
            self.seen_specific_agent = false;
            self.seen_global_agent = false;
            self.seen_separator = false;
        }
        if value.first() == Some(&b'*') && (value.len() == 1 || value[1].is_ascii_whitespace()) {
            self.seen_global_agent = true;
        } else if extract_user_agent(value).eq_ignore_ascii_case(agent) {
            self.seen_specific_agent = true;
            self.ever_seen_specific_agent = true;
        }
    }

    /// Visits every directive, tracking groups; `on_rule` gets each allow/disallow/unknown line
    /// that belongs to a group naming the agent (`true`) or to a global group (`false`).
    /// Sitemap and unknown lines do not end a group (Google's behaviour since 2022).
    pub(crate) fn replay(
        directives: &[Directive],
        agent: &[u8],
        mut on_rule: impl FnMut(&Directive, bool),
    ) -> GroupState {
        let mut st = GroupState::default();
        for d in directives {
            match d.kind {
                KeyKind::UserAgent => st.user_agent(&d.value, agent),
                KeyKind::Allow | KeyKind::Disallow => {
                    if st.seen_any_agent() {
                        st.seen_separator = true;
                        on_rule(d, st.seen_specific_agent);
                    }
                }
                KeyKind::Unknown => {
                    if st.seen_any_agent() {
                        on_rule(d, st.seen_specific_agent);
                    }
                }
                KeyKind::Sitemap => {}
            }
        }
        st
    }
}

/// Google's `index.htm(l)` normalisation: an unmatched allow rule ending in `/index.htm…`
/// is retried as the directory with an end anchor (`/dir/index.html` -> `/dir/$`).
fn allow_priority(path: &[u8], pattern: &[u8]) -> i64 {
    if pattern_matches(path, pattern) {
        return pattern.len() as i64;
    }
    if let Some(slash) = pattern.iter().rposition(|&c| c == b'/') {
        if pattern[slash..].starts_with(b"/index.htm") {
            let mut dir = pattern[..=slash].to_vec();
            dir.push(b'$');
            return allow_priority(path, &dir);
        }
    }
    -1
}

/// Whether `agent` may fetch `path` under `directives`, by the longest-match rule (allow wins
/// ties); rules of groups naming the agent replace the global (`*`) group entirely.
pub(crate) fn is_allowed(directives: &[Directive], agent: &[u8], path: &[u8]) -> bool {
    let mut allow = Best::NONE;
    let mut disallow = Best::NONE;
    let st = GroupState::replay(directives, agent, |d, specific| {
        let (priority, best) = match d.kind {
            KeyKind::Allow => (allow_priority(path, &d.value), &mut allow),
            KeyKind::Disallow => {
                let p = if pattern_matches(path, &d.value) {
                    d.value.len() as i64
                } else {
                    -1
                };
                (p, &mut disallow)
            }
            _ => return,
        };
        let slot = if specific {
            &mut best.specific
        } else {
            &mut best.global
        };
        if priority > *slot {
            *slot = priority;
        }
    });
    let disallowed = if allow.specific > 0 || disallow.specific > 0 {
        disallow.specific > allow.specific
    } else if st.ever_seen_specific_agent {
        // A group names the agent but has no non-empty matching rule.
        false
    } else if disallow.global > 0 || allow.global > 0 {
        disallow.global > allow.global
    } else {
        false
    };
    !disallowed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// google/robotstxt's `Matches`, transcribed literally, as the reference.
    fn reference_matches(path: &[u8], pattern: &[u8]) -> bool {
        let pathlen = path.len();
        let mut pos: Vec<usize> = vec![0];
        for (k, &pat) in pattern.iter().enumerate() {
            if pat == b'$' && k + 1 == pattern.len() {
                return pos.last() == Some(&pathlen);
            }
            if pat == b'*' {
                let first = pos[0];
                pos = (first..=pathlen).collect();
            } else {
                pos = pos
                    .iter()
                    .filter(|&&p| p < pathlen && path[p] == pat)
                    .map(|p| p + 1)
                    .collect();
                if pos.is_empty() {
                    return false;
                }
            }
        }
        true
    }

    #[test]
    fn agrees_with_googles_algorithm() {
        let alphabet = b"ab/*$";
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        for _ in 0..200_000 {
            let pat: Vec<u8> = (0..next(7))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            let path: Vec<u8> = (0..next(9)).map(|_| alphabet[next(3)]).collect();
            assert_eq!(
                pattern_matches(&path, &pat),
                reference_matches(&path, &pat),
                "{:?} {:?}",
                String::from_utf8_lossy(&path),
                String::from_utf8_lossy(&pat)
            );
        }
    }

    #[test]
    fn wildcards_and_anchors() {
        assert!(pattern_matches(b"/fish.php?x", b"/*.php"));
        assert!(!pattern_matches(b"/fish.php?x", b"/*.php$"));
        assert!(pattern_matches(b"/a$b", b"/a$b"));
        assert!(pattern_matches(b"/anything", b""));
        assert!(pattern_matches(b"/", b"/$"));
        assert!(!pattern_matches(b"/x", b"/$"));
    }
}
