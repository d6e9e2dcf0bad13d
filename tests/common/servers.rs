//! What a test does when a server it needs (PostgreSQL, the loopback mail stack) is
//! not running: it FAILS, unless skipping was asked for with
//! `PBEMD_SKIP_SERVER_TESTS=1`; then it says in the test output that it skipped and why.
//! Under `CI=true` skipping is never allowed.
//!
//! Included by `tests/common/mod.rs` and `tests/stack/mod.rs` (with `#[path]`), and
//! tested on its own by `tests/server_skip.rs`.
#![allow(dead_code)]

use std::io::Write;

/// The environment variable that asks for server tests to be skipped.
pub const SKIP_VAR: &str = "PBEMD_SKIP_SERVER_TESTS";

/// What to do about a missing server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// Skip the test; the text says why.
    Skip(String),
    /// Fail the test with this text.
    Fail(String),
}

/// The verdict for a missing `what`, from the values of `PBEMD_SKIP_SERVER_TESTS`
/// and `CI` (pure, so it can be tested without touching the process environment).
pub fn verdict(what: &str, skip: Option<&str>, ci: Option<&str>) -> Missing {
    let yes = |v: Option<&str>| matches!(v.map(str::trim), Some("1" | "true" | "yes"));
    let hint = "start it with scripts/test.sh";
    match (yes(skip), yes(ci)) {
        (true, false) => Missing::Skip(format!(
            "SKIPPED: {what} is not available and {SKIP_VAR}=1 asks to skip the tests that need it"
        )),
        (true, true) => Missing::Fail(format!(
            "{what} is not available; {SKIP_VAR} is ignored under CI=true: {hint}"
        )),
        (false, _) => Missing::Fail(format!(
            "{what} is not available: {hint}, or set {SKIP_VAR}=1 to skip the tests that need it"
        )),
    }
}

/// A server the test needs is missing: panic, or (when skipping was asked for) say so
/// on the real stderr and return `false` so the test returns early.
pub fn missing(what: &str) -> bool {
    let env = |k: &str| std::env::var(k).ok();
    match verdict(what, env(SKIP_VAR).as_deref(), env("CI").as_deref()) {
        Missing::Fail(why) => panic!("{why}"),
        Missing::Skip(why) => {
            // Written to the process's stderr, not through `eprintln!`, which the test
            // harness swallows for passing tests: a skip must show in the output.
            let _ = writeln!(std::io::stderr(), "{why}");
            false
        }
    }
}
