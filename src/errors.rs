//! Errors raised to SQL callers: a real SQLSTATE, a message that names the input, and a hint
//! that says what to do. Nothing here panics past pgrx's guard, so the backend never crashes.

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;

/// Raise `message` with `hint` as an ERROR with SQLSTATE 22023 (invalid parameter value).
pub fn invalid(message: impl Into<String>, hint: impl Into<String>) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        message,
        hint,
    )
}

/// Raise an ERROR with an explicit SQLSTATE.
pub fn raise(code: PgSqlErrorCode, message: impl Into<String>, hint: impl Into<String>) -> ! {
    let hint = hint.into();
    let mut report = ErrorReport::new(code, message.into(), "kerai");
    if !hint.is_empty() {
        report = report.set_hint(hint);
    }
    report.report(PgLogLevel::ERROR);
    unreachable!("ERROR does not return")
}

/// Unwrap an SPI result, turning a failure into an ERROR that says what kerai was doing.
pub trait OrRaise<T> {
    fn or_raise(self, doing: &str) -> T;
}

impl<T, E: std::fmt::Display> OrRaise<T> for Result<T, E> {
    fn or_raise(self, doing: &str) -> T {
        match self {
            Ok(v) => v,
            Err(e) => raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                format!("kerai: {doing}: {e}"),
                "",
            ),
        }
    }
}
