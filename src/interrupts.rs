//! Cancellation inside Rust loops. Postgres notes a cancel or terminate request in a flag
//! and acts on it only where the running code checks (`CHECK_FOR_INTERRUPTS()`); a long loop
//! in `kerai-core` without such checks cannot be stopped short of killing the server. At
//! load, the core's cancellation points are routed here, where a pending request becomes the
//! usual Postgres error ("canceling statement due to user request", or the session ends),
//! unwinding out of the Rust code and rolling the transaction back.

use std::sync::OnceLock;
use std::thread::{self, ThreadId};

/// The backend's own thread: Postgres may be entered only from it (helper threads, such as a
/// tokenizer's, never check).
static BACKEND_THREAD: OnceLock<ThreadId> = OnceLock::new();

pub fn install() {
    let _ = BACKEND_THREAD.set(thread::current().id());
    kerai_core::interrupt::set_hook(check);
}

fn check() {
    if BACKEND_THREAD.get() == Some(&thread::current().id()) {
        pgrx::check_for_interrupts!();
    }
}
