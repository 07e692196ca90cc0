//! Cancellation points for long loops.
//!
//! The core has no Postgres, but inside the extension a long loop must let Postgres stop it
//! (`statement_timeout`, `pg_cancel_backend`, `pg_terminate_backend`). The extension installs
//! a hook once per backend with [`set_hook`]; loops whose work grows with the input call
//! [`check`] every so often. The hook may panic (the extension's turns the pending cancel into
//! a Postgres error that unwinds out of the core), so code between checks must be unwind-safe,
//! which safe Rust is. Without a hook (the fetcher, tests) [`check`] does nothing.

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
