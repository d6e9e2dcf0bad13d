//! The rule for tests that need a server (PostgreSQL, the loopback mail stack): a
//! missing server fails the test unless `PBEMD_SKIP_SERVER_TESTS=1` asks to skip, and
//! a skip says why. The verdict is pure, so it is tested with the variable set and unset
//! without touching the process environment.

#[path = "common/servers.rs"]
mod servers;

use servers::{verdict, Missing};

#[test]
fn missing_server_fails_when_skipping_was_not_asked_for() {
    for ci in [None, Some("true"), Some("false")] {
        let v = verdict("PostgreSQL", None, ci);
        let Missing::Fail(why) = v else {
            panic!("no skip variable but {v:?} (CI={ci:?})")
        };
        assert!(
            why.contains("PostgreSQL") && why.contains("PBEMD_SKIP_SERVER_TESTS=1"),
            "{why}"
        );
    }
    for not_yes in ["0", "", "no", "false"] {
        assert!(
            matches!(verdict("x", Some(not_yes), None), Missing::Fail(_)),
            "{not_yes:?}"
        );
    }
}

#[test]
fn missing_server_is_skipped_loudly_when_skipping_was_asked_for() {
    for yes in ["1", "true", "yes"] {
        let v = verdict("the loopback mail stack", Some(yes), None);
        let Missing::Skip(why) = v else {
            panic!("PBEMD_SKIP_SERVER_TESTS={yes} but {v:?}")
        };
        assert!(
            why.starts_with("SKIPPED:") && why.contains("the loopback mail stack"),
            "{why}"
        );
    }
}

#[test]
fn ci_never_skips_a_missing_server() {
    assert!(matches!(
        verdict("x", Some("1"), Some("true")),
        Missing::Fail(_)
    ));
}

#[test]
#[should_panic(expected = "is not available")]
fn missing_panics_unless_skipping_was_asked_for() {
    if std::env::var(servers::SKIP_VAR).is_ok() {
        // The variable is set for this run: prove the other half instead, then fail as
        // the attribute expects so the test still means something.
        assert!(!servers::missing("a server this test invents"));
        panic!("a server this test invents is not available (skip path checked)");
    }
    servers::missing("a server this test invents");
}
