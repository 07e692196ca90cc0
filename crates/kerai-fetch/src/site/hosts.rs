//! Politeness: per-host pacing (rate limit, robots.txt Crawl-delay), per-host concurrency,
//! fair turns across hosts, backoff on 429 / 503, and suspension of a host that keeps failing
//! or whose robots.txt is unreachable. Pure bookkeeping; the runner does the I/O.

use kerai_core::site::robots::Robots;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest server-requested wait honoured (Retry-After); longer ones are cut to this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);

#[derive(Debug, Clone)]
pub struct HostRules {
    /// Minimum time between two requests to one host (from rate_limit_rps).
    pub min_interval: Duration,
    pub per_host: usize,
    pub failure_limit: u32,
    pub crawl_delay_cap: Duration,
    /// Base of exponential backoff after 429 / 503 without Retry-After.
    pub backoff_base: Duration,
}

#[derive(Debug, Clone)]
pub enum RobotsState {
    /// Not fetched yet.
    Unknown,
    Pending,
    /// Parsed rules; `None` means no usable robots.txt (4xx): everything allowed.
    Ready(Option<Arc<Robots>>),
}

#[derive(Debug)]
pub struct Host<T> {
    pub robots: RobotsState,
    pub interval: Duration,
    pub next_at: Instant,
    pub in_flight: usize,
    pub failures: u32,
    pub suspended: Option<String>,
    queue: VecDeque<(Instant, T)>,
}

/// All hosts of a job, taken in turn.
pub struct Hosts<T> {
    rules: HostRules,
    hosts: HashMap<String, Host<T>>,
    turn: VecDeque<String>,
    respect_robots: bool,
}

impl<T> Hosts<T> {
    pub fn new(rules: HostRules, respect_robots: bool) -> Self {
        Hosts {
            rules,
            hosts: HashMap::new(),
            turn: VecDeque::new(),
            respect_robots,
        }
    }

    fn host_mut(&mut self, name: &str, now: Instant) -> &mut Host<T> {
        if !self.hosts.contains_key(name) {
            self.turn.push_back(name.to_string());
            let robots = if self.respect_robots {
                RobotsState::Unknown
            } else {
                RobotsState::Ready(None)
            };
            self.hosts.insert(
                name.to_string(),
                Host {
                    robots,
                    interval: self.rules.min_interval,
                    next_at: now,
                    in_flight: 0,
                    failures: 0,
                    suspended: None,
                    queue: VecDeque::new(),
                },
            );
        }
        self.hosts.get_mut(name).expect("inserted above")
    }

    #[cfg(test)]
    pub fn get(&self, name: &str) -> Option<&Host<T>> {
        self.hosts.get(name)
    }

    /// Queue an item for `host`, not to start before `not_before`.
    pub fn push(&mut self, host: &str, item: T, not_before: Instant, now: Instant) {
        self.host_mut(host, now).queue.push_back((not_before, item));
    }

    pub fn queued(&self) -> usize {
        self.hosts.values().map(|h| h.queue.len()).sum()
    }

    /// Hosts whose robots.txt must be fetched before their queue can move; marks them pending.
    pub fn robots_wanted(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, h) in self.hosts.iter_mut() {
            if matches!(h.robots, RobotsState::Unknown)
                && !h.queue.is_empty()
                && h.suspended.is_none()
            {
                h.robots = RobotsState::Pending;
                out.push(name.clone());
            }
        }
        out
    }

    /// robots.txt arrived: its rules, and the Crawl-delay it asks of `user_agent` (capped).
    pub fn robots_ready(
        &mut self,
        host: &str,
        robots: Option<Robots>,
        user_agent: &str,
        now: Instant,
    ) {
        let cap = self.rules.crawl_delay_cap;
        let h = self.host_mut(host, now);
        if let Some(delay) = robots.as_ref().and_then(|r| r.crawl_delay(user_agent)) {
            if delay.is_finite() && delay > 0.0 {
                h.interval = h.interval.max(Duration::from_secs_f64(delay).min(cap));
            }
        }
        h.robots = RobotsState::Ready(robots.map(Arc::new));
    }

    /// Suspend a host for the rest of the job; returns the items it still had queued.
    pub fn suspend(&mut self, host: &str, reason: String, now: Instant) -> Vec<T> {
        let h = self.host_mut(host, now);
        h.suspended = Some(reason);
        h.robots = RobotsState::Ready(None);
        h.queue.drain(..).map(|(_, t)| t).collect()
    }

    /// The next item that may start now, taking hosts in turn.
    pub fn next_ready(&mut self, now: Instant) -> Option<(String, T)> {
        let per_host = self.rules.per_host;
        for _ in 0..self.turn.len() {
            let name = self.turn.pop_front()?;
            self.turn.push_back(name.clone());
            let h = self.hosts.get_mut(&name)?;
            if h.suspended.is_some() || !matches!(h.robots, RobotsState::Ready(_)) {
                continue;
            }
            if h.in_flight >= per_host || h.next_at > now {
                continue;
            }
            let Some(pos) = h.queue.iter().position(|(nb, _)| *nb <= now) else {
                continue;
            };
            let (_, item) = h.queue.remove(pos).expect("position is valid");
            h.in_flight += 1;
            h.next_at = now + h.interval;
            return Some((name, item));
        }
        None
    }

    /// When something could next become ready (for sleeping until then).
    pub fn next_wake(&self, now: Instant) -> Option<Instant> {
        self.hosts
            .values()
            .filter(|h| {
                h.suspended.is_none()
                    && matches!(h.robots, RobotsState::Ready(_))
                    && !h.queue.is_empty()
            })
            .filter_map(|h| {
                let earliest_item = h.queue.iter().map(|(nb, _)| *nb).min()?;
                Some(earliest_item.max(h.next_at))
            })
            .min()
            .map(|t| t.max(now))
    }

    /// A request finished. `failed` counts towards suspension (network errors, 5xx);
    /// returns the suspension reason when this failure suspended the host.
    pub fn finished(&mut self, host: &str, failed: bool, now: Instant) -> Option<String> {
        let limit = self.rules.failure_limit;
        let h = self.host_mut(host, now);
        h.in_flight = h.in_flight.saturating_sub(1);
        if !failed {
            h.failures = 0;
            return None;
        }
        h.failures += 1;
        if h.failures >= limit && h.suspended.is_none() {
            let reason = format!(
                "host {host} suspended after {} consecutive failures",
                h.failures
            );
            h.suspended = Some(reason.clone());
            return Some(reason);
        }
        None
    }

    /// 429 / 503: pause the host (Retry-After, else exponential backoff) and return when the
    /// item may be tried again.
    pub fn backoff(
        &mut self,
        host: &str,
        attempt: u32,
        retry_after: Option<Duration>,
        now: Instant,
    ) -> Instant {
        let base = self.rules.backoff_base;
        let h = self.host_mut(host, now);
        h.in_flight = h.in_flight.saturating_sub(1);
        let wait = retry_after
            .unwrap_or_else(|| base.saturating_mul(1u32 << attempt.min(10)))
            .min(MAX_RETRY_AFTER);
        h.next_at = h.next_at.max(now + wait);
        now + wait
    }

    /// Items of suspended hosts still queued (they fail with the host's reason).
    pub fn drain_suspended(&mut self) -> Vec<(String, T)> {
        let mut out = Vec::new();
        for h in self.hosts.values_mut() {
            if let Some(reason) = &h.suspended {
                for (_, t) in h.queue.drain(..) {
                    out.push((reason.clone(), t));
                }
            }
        }
        out
    }

    pub fn robots_of(&self, host: &str) -> Option<Arc<Robots>> {
        match self.hosts.get(host).map(|h| &h.robots) {
            Some(RobotsState::Ready(r)) => r.clone(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(ms: u64) -> HostRules {
        HostRules {
            min_interval: Duration::from_millis(ms),
            per_host: 1,
            failure_limit: 3,
            crawl_delay_cap: Duration::from_secs(30),
            backoff_base: Duration::from_secs(1),
        }
    }

    #[test]
    fn hosts_take_turns_and_are_paced() {
        let now = Instant::now();
        let mut h: Hosts<u32> = Hosts::new(rules(1000), false);
        for i in 0..3 {
            h.push("a", i, now, now);
        }
        h.push("b", 10, now, now);
        let (h1, i1) = h.next_ready(now).unwrap();
        let (h2, i2) = h.next_ready(now).unwrap();
        assert_eq!((h1.as_str(), i1, h2.as_str(), i2), ("a", 0, "b", 10));
        assert!(
            h.next_ready(now).is_none(),
            "a is busy and must wait its interval"
        );
        h.finished("a", false, now);
        assert!(h.next_ready(now).is_none(), "a's interval has not passed");
        assert_eq!(h.next_wake(now), Some(now + Duration::from_millis(1000)));
        let later = now + Duration::from_millis(1000);
        assert_eq!(h.next_ready(later).unwrap().1, 1);
    }

    #[test]
    fn robots_gate_and_crawl_delay() {
        let now = Instant::now();
        let mut h: Hosts<u32> = Hosts::new(rules(0), true);
        h.push("a", 1, now, now);
        assert!(h.next_ready(now).is_none(), "robots.txt first");
        assert_eq!(h.robots_wanted(), vec!["a".to_string()]);
        assert!(h.robots_wanted().is_empty(), "asked once");
        let robots = Robots::parse(b"User-agent: *\nCrawl-delay: 2\n");
        h.robots_ready("a", Some(robots), "kerai", now);
        assert_eq!(h.get("a").unwrap().interval, Duration::from_secs(2));
        assert!(h.next_ready(now).is_some());
    }

    #[test]
    fn failing_hosts_are_suspended() {
        let now = Instant::now();
        let mut h: Hosts<u32> = Hosts::new(rules(0), false);
        for i in 0..5 {
            h.push("a", i, now, now);
        }
        for _ in 0..2 {
            h.next_ready(now).unwrap();
            assert_eq!(h.finished("a", true, now), None);
        }
        h.next_ready(now).unwrap();
        let reason = h.finished("a", true, now).unwrap();
        assert!(reason.contains("suspended after 3 consecutive failures"));
        assert!(h.next_ready(now).is_none());
        assert_eq!(h.drain_suspended().len(), 2);
    }

    #[test]
    fn backoff_honours_retry_after_with_a_cap() {
        let now = Instant::now();
        let mut h: Hosts<u32> = Hosts::new(rules(0), false);
        h.push("a", 1, now, now);
        h.next_ready(now).unwrap();
        let at = h.backoff("a", 0, Some(Duration::from_secs(5)), now);
        assert_eq!(at, now + Duration::from_secs(5));
        h.push("a", 1, at, now);
        assert!(h.next_ready(now + Duration::from_secs(4)).is_none());
        assert!(h.next_ready(now + Duration::from_secs(5)).is_some());
        h.finished("a", false, now);
        let at = h.backoff("a", 0, Some(Duration::from_secs(86_400)), now);
        assert_eq!(at, now + MAX_RETRY_AFTER);
        let at = h.backoff("a", 3, None, now);
        assert_eq!(at, now + Duration::from_secs(8));
    }
}
