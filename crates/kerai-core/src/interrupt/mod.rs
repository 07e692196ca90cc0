//! Cancellation points for long loops.
//!
//! The core has no Postgres, but inside the extension a long loop must let Postgres stop it
//! (`statement_timeout`, `pg_cancel_backend`, `pg_terminate_backend`). The extension installs
//! a hook once per backend with [`set_hook`]; loops whose work grows with the input call
//! [`check`] every so often. The hook may panic (the extension's turns the pending cancel into
//! a Postgres error that unwinds out of the core), so code between checks must be unwind-safe,
//! which safe Rust is. Without a hook (the fetcher, tests) [`check`] does nothing.

mod search;

pub use search::{captures_iter, find_iter, search_from};

use std::cmp::Ordering;
use std::sync::OnceLock;

static HOOK: OnceLock<fn()> = OnceLock::new();

/// Install the function [`check`] calls. Only the first call takes effect.
pub fn set_hook(hook: fn()) {
    let _ = HOOK.set(hook);
}

/// A cancellation point: runs the installed hook, if any.
#[inline]
pub fn check() {
    if let Some(hook) = HOOK.get() {
        hook();
    }
}

/// Runs `f` with every asynchronous signal blocked on this thread, then restores the mask.
/// The synchronous ones (SIGSEGV, SIGBUS, SIGFPE, SIGILL) stay unblocked. Threads spawned
/// inside `f` inherit the blocked mask, so a cancel or terminate signal always reaches the
/// backend's own thread, where Postgres's handlers expect to run.
pub fn with_signals_blocked<T>(f: impl FnOnce() -> T) -> T {
    #[cfg(unix)]
    {
        // SAFETY: the sets are initialised by sigfillset/sigdelset before use;
        // pthread_sigmask changes only this thread's mask, and the old mask is restored.
        unsafe {
            let mut block: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut block);
            for sig in [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL] {
                libc::sigdelset(&mut block, sig);
            }
            if libc::pthread_sigmask(libc::SIG_BLOCK, &block, &mut old) != 0 {
                return f();
            }
            let result = f();
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            result
        }
    }
    #[cfg(not(unix))]
    f()
}

/// A cancellation point for tight loops: runs the hook every 4,096th call of this ticker.
#[derive(Debug, Default)]
pub struct Ticker(u32);

impl Ticker {
    /// A ticker that has not ticked yet.
    pub fn new() -> Self {
        Ticker(0)
    }

    /// Count one step; every 4,096 steps, a cancellation point.
    #[inline]
    pub fn tick(&mut self) {
        self.0 = self.0.wrapping_add(1);
        if self.0 & 0xFFF == 0 {
            check();
        }
    }
}

/// Elements sorted in one go between cancellation points by [`sort_by`]: about a millisecond
/// of work even unoptimised.
const SORT_RUN: usize = 1 << 12;

/// `v.sort_by(cmp)` (stable) with cancellation points: runs of [`SORT_RUN`] elements are
/// sorted one at a time, then merged pairwise with a [`Ticker`] per element. A sort of millions
/// of items (the candidates of a 30 MB text) otherwise runs for a second without a check.
/// Elements are moved, never cloned; after a cancel `v` holds only some of them.
pub fn sort_by<T>(v: &mut Vec<T>, mut cmp: impl FnMut(&T, &T) -> Ordering) {
    for run in v.chunks_mut(SORT_RUN) {
        run.sort_by(&mut cmp);
        check();
    }
    let mut width = SORT_RUN;
    let mut tick = Ticker::new();
    while width < v.len() {
        let mut from = std::mem::take(v).into_iter();
        v.reserve(from.len());
        while from.len() > 0 {
            let mut left = from
                .by_ref()
                .take(width)
                .collect::<Vec<T>>()
                .into_iter()
                .peekable();
            let mut right = from
                .by_ref()
                .take(width)
                .collect::<Vec<T>>()
                .into_iter()
                .peekable();
            loop {
                tick.tick();
                // Equal elements: the left one first, which keeps the sort stable.
                let right_first = match (left.peek(), right.peek()) {
                    (Some(l), Some(r)) => cmp(r, l) == Ordering::Less,
                    _ => break,
                };
                v.extend(if right_first {
                    right.next()
                } else {
                    left.next()
                });
            }
            v.extend(left);
            v.extend(right);
        }
        width *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_by_sorts_stably_across_runs() {
        // Pseudo-random keys with many ties, over several runs and an odd tail.
        let n = SORT_RUN * 5 + 123;
        let mut v: Vec<(u32, usize)> = (0..n)
            .map(|i| (((i as u64 * 2_654_435_761) % 97) as u32, i))
            .collect();
        let mut want = v.clone();
        want.sort_by_key(|x| x.0);
        sort_by(&mut v, |a, b| a.0.cmp(&b.0));
        assert_eq!(v, want);
        let mut empty: Vec<u8> = Vec::new();
        sort_by(&mut empty, |a, b| a.cmp(b));
        assert!(empty.is_empty());
    }
}
