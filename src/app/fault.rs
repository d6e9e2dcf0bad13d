//! Isolation of units of work: one stored mail, one courier item. A unit that fails —
//! an `Err` or a panic — is parked for the GM with the error text instead of stopping
//! the worker; `gm retry` puts it back, `gm reject` refuses it.
//!
//! Also the test-only fault hooks that make a chosen unit fail, so the tests can show
//! the isolation with the real binary:
//! - `PBEMD_TEST_FAIL_SUBJECT=<text>`: handling a stored mail whose Subject header
//!   contains `<text>` fails; a value `panic:<text>` panics instead.
//! - `PBEMD_TEST_FAIL_COURIER=<text>`: deciding a queued courier item whose subject
//!   contains `<text>` fails (`panic:<text>` panics).
//! - `PBEMD_TEST_CRASH_RESOLVE=1`: the process dies (aborts) in the middle of a weekend
//!   resolution, after the new state is written and before it commits.
//! - `PBEMD_TEST_SLOW_SUBJECT=<text>`: handling such a mail blocks its thread for a
//!   minute, as a runaway parser would (for the shutdown test).
//! - `PBEMD_TEST_FAIL_BATCH=<text>`: writing a batch of handled mail that holds a mail
//!   whose subject contains `<text>` fails (the mail itself handles fine on its own).
//!
//! With the variables unset (always, outside the tests) the hooks do nothing.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;

use super::{AppError, Result};

/// How a unit of work failed.
#[derive(Debug)]
pub enum Failed {
    /// The unit itself failed (an error or a panic): park it with this text.
    Unit(String),
    /// The database could not be reached: nothing is wrong with the unit, so it is not
    /// parked; the worker backs off and tries again.
    Machine(AppError),
}

/// Run one unit of work, turning an `Err` or a panic into the text the GM sees.
pub async fn guarded<T>(fut: impl Future<Output = Result<T>>) -> Result<T, Failed> {
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) if unreachable_store(&e) => Err(Failed::Machine(e)),
        Ok(Err(e)) => Err(Failed::Unit(error_text(&e))),
        Err(payload) => Err(Failed::Unit(format!(
            "panic: {}",
            panic_text(payload.as_ref())
        ))),
    }
}

/// The database is down, out of connections, or busy with another writer (not a
/// fault of the unit: trying again later works).
fn unreachable_store(e: &AppError) -> bool {
    use crate::store::StoreError;
    match e {
        AppError::Store(StoreError::Connect { .. }) => true,
        AppError::Store(StoreError::Query { source, .. }) => match source {
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => true,
            sqlx::Error::Database(db) => db.code().is_some_and(|c| busy_code(&c)),
            _ => false,
        },
        _ => false,
    }
}

/// SQLite's busy and locked codes (with their extended forms, e.g. 517, a snapshot
/// that another writer moved on) and PostgreSQL's serialization failure and deadlock.
fn busy_code(code: &str) -> bool {
    if code.len() == 5 {
        // A PostgreSQL SQLSTATE.
        return matches!(code, "40001" | "40P01" | "55P03");
    }
    code.parse::<i64>().is_ok_and(|n| matches!(n & 0xff, 5 | 6))
}

/// An error with its causes, each once.
pub fn error_text(e: &AppError) -> String {
    let mut parts: Vec<String> = vec![e.to_string()];
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let t = s.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        source = s.source();
    }
    parts.join(": ")
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".into()
    }
}

/// Text fit for a text column and a terminal: no NUL or other control characters
/// except newlines and tabs, at most `max` characters.
pub fn clean_text(s: &str, max: usize) -> String {
    crate::mail::parse::clean_chars(s).take(max).collect()
}

/// The Subject header of raw mail, read without the mail parser (which may be what
/// failed): the first `Subject:` line, unfolded no further, cleaned.
pub fn raw_subject(raw: &[u8]) -> String {
    let scan = &raw[..raw.len().min(64 * 1024)];
    let head_end = match super::intake::header_end(scan) {
        0 => scan.len(),
        end => end,
    };
    let head = String::from_utf8_lossy(&scan[..head_end]);
    head.lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("subject")
                .then(|| clean_text(value.trim(), 200))
        })
        .unwrap_or_default()
}

/// The fault hook `var` armed for a unit whose subject is `subject`.
fn hook(var: &str, subject: &str) -> Result<()> {
    let Some(value) = std::env::var(var).ok().filter(|v| !v.is_empty()) else {
        return Ok(());
    };
    let (panics, text) = match value.strip_prefix("panic:") {
        Some(t) => (true, t.to_string()),
        None => (false, value),
    };
    if text.is_empty() || !subject.contains(&text) {
        return Ok(());
    }
    if panics {
        panic!("{var}: a test fault for a unit with {text:?} in its subject");
    }
    Err(AppError::Refused(format!(
        "{var}: a test fault for a unit with {text:?} in its subject"
    )))
}

/// The test hooks of a stored mail (see the module text).
pub fn mail_hook(raw: &[u8]) -> Result<()> {
    // Unarmed (always, outside tests), a mail's subject is not even read.
    let armed = |var| std::env::var_os(var).is_some_and(|v| !v.is_empty());
    if !armed("PBEMD_TEST_SLOW_SUBJECT") && !armed("PBEMD_TEST_FAIL_SUBJECT") {
        return Ok(());
    }
    let subject = raw_subject(raw);
    if let Some(text) = std::env::var("PBEMD_TEST_SLOW_SUBJECT")
        .ok()
        .filter(|t| !t.is_empty() && subject.contains(t.as_str()))
    {
        tracing::warn!(%text, "PBEMD_TEST_SLOW_SUBJECT: blocking for a minute");
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
    hook("PBEMD_TEST_FAIL_SUBJECT", &subject)
}

/// The test hook of writing a batch of handled mails with these subjects.
pub fn batch_hook<'a>(subjects: impl IntoIterator<Item = &'a str>) -> Result<()> {
    subjects
        .into_iter()
        .try_for_each(|s| hook("PBEMD_TEST_FAIL_BATCH", s))
}

/// The test hook of a weekend resolution: with `PBEMD_TEST_CRASH_RESOLVE` set, the
/// process dies on the spot, as if killed, with the resolution's transaction open.
pub fn resolve_hook() {
    if std::env::var("PBEMD_TEST_CRASH_RESOLVE").is_ok_and(|v| !v.is_empty()) {
        tracing::warn!("PBEMD_TEST_CRASH_RESOLVE: dying mid-resolution");
        std::process::abort();
    }
}

/// The test hook of a courier item.
pub fn courier_hook(subject: &str) -> Result<()> {
    hook("PBEMD_TEST_FAIL_COURIER", subject)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_raw_subject_is_read_without_the_parser_and_cleaned() {
        let raw = b"From: a@b\r\nSUBJECT: Afani \x07till SL: hej\r\n\r\nSubject: not this";
        assert_eq!(raw_subject(raw), "Afani till SL: hej");
        assert_eq!(raw_subject(b"no header at all"), "");
        assert_eq!(raw_subject(b""), "");
    }

    #[tokio::test]
    async fn a_panicking_unit_becomes_an_error_text() {
        let r: Result<(), Failed> = guarded(async { panic!("boom {}", 7) }).await;
        assert!(matches!(r, Err(Failed::Unit(t)) if t == "panic: boom 7"));
        let r = guarded(async { Err::<(), _>(AppError::Refused("no".into())) }).await;
        assert!(matches!(r, Err(Failed::Unit(t)) if t == "no"));
        assert!(matches!(guarded(async { Ok(3) }).await, Ok(3)));
    }

    #[test]
    fn busy_databases_are_not_the_units_fault() {
        for code in ["5", "6", "261", "517", "40001", "40P01"] {
            assert!(busy_code(code), "{code}");
        }
        for code in ["19", "2067", "23505", "22021"] {
            assert!(!busy_code(code), "{code}");
        }
    }

    #[test]
    fn clean_text_drops_nul_and_escape_but_keeps_lines() {
        assert_eq!(clean_text("a\0b\x1b[31mc\nd", 100), "ab[31mc\nd");
        assert_eq!(clean_text("abcdef", 3), "abc");
    }
}
