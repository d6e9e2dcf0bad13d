//! How the binary behaves towards the person and the shell around it: a closed stdout
//! ends a command quietly with its work committed, an error is one line with each cause
//! once, logs have no colours off a terminal, dates are in the game's time zone, only
//! `run` needs the webhook secret, and the demo's suggested command finds the forms.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn pbemd() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pbemd"));
    c.env_remove("RUST_LOG").env_remove("NO_COLOR");
    c
}

fn run(args: &[&str]) -> Output {
    pbemd().args(args).output().expect("run pbemd")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A fresh game (`new` + `init`) in a temporary folder; returns the config path.
fn game(tmp: &Path) -> PathBuf {
    let dir = tmp.join("g");
    ok(&run(&["new", dir.to_str().unwrap()]));
    let cfg = dir.join("pbemd.yaml");
    ok(&run(&[
        "--config",
        cfg.to_str().unwrap(),
        "init",
        "--now",
        "2026-11-24T08:00:00Z",
    ]));
    cfg
}

/// Run with stdout a pipe whose reading end is already closed (`… | head` after
/// `head` has gone).
fn run_into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    pbemd()
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("run pbemd")
}

#[test]
fn a_closed_stdout_ends_tick_quietly_with_its_work_committed() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path());
    let c = cfg.to_str().unwrap();
    let inbox = cfg.parent().unwrap().join("inbox").join("new");
    std::fs::write(
        inbox.join("1.m"),
        common::mail(
            "genogien@game.test",
            "Genogien skickar ett sändebud till Afani",
            "Hej grannar!",
            "m1@players.test",
        ),
    )
    .unwrap();
    let out = run_into_closed_pipe(&["--config", c, "tick", "--now", "2026-11-24T10:00:00+01:00"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    assert!(!err.contains("panicked") && err.is_empty(), "{err}");
    // The mail was handled and the delivery written before the output failed.
    let again = ok(&run(&[
        "--config",
        c,
        "tick",
        "--now",
        "2026-11-24T10:00:01+01:00",
    ]));
    assert!(again.contains("0 stored, 0 handled"), "{again}");
    let sent = std::fs::read_dir(cfg.parent().unwrap().join("outbox/new"))
        .unwrap()
        .count();
    assert!(sent >= 2, "the envoy and its receipt were sent: {sent}");
    // `gm show 1 | head`: the GM's view of the mail, into a closed pipe as well.
    let show = ok(&run(&["--config", c, "gm", "show", "1"]));
    assert!(
        show.contains("received: 2026-11-24T10:00:00+01:00"),
        "{show}"
    );
    let out = run_into_closed_pipe(&["--config", c, "gm", "show", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn a_closed_stdout_ends_gm_and_state_commands_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path());
    let c = cfg.to_str().unwrap();
    for args in [
        vec!["--config", c, "state"],
        vec!["--config", c, "state", "--json"],
        vec!["--config", c, "gm", "queue", "--all"],
    ] {
        let out = run_into_closed_pipe(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

#[test]
fn an_error_names_each_cause_once() {
    let out = run(&["--config", "/nonexistent/pbemd.yaml", "state"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}

#[test]
fn logs_have_no_colours_when_stderr_is_not_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path());
    let out = pbemd()
        .env("RUST_LOG", "debug")
        .args([
            "--config",
            cfg.to_str().unwrap(),
            "tick",
            "--now",
            "2026-11-24T10:00:00+01:00",
        ])
        .output()
        .unwrap();
    ok(&out);
    let err = text(&out.stderr);
    assert!(err.lines().count() > 3, "debug logs were written: {err}");
    assert!(
        !err.contains('\u{1b}'),
        "ANSI escapes in piped logs: {err:?}"
    );
}

#[test]
fn init_and_tick_print_times_in_the_games_time_zone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    ok(&run(&["new", dir.to_str().unwrap()]));
    let c = dir.join("pbemd.yaml");
    let c = c.to_str().unwrap();
    let out = ok(&run(&[
        "--config",
        c,
        "init",
        "--now",
        "2026-11-24T08:00:00Z",
    ]));
    // The default schedule is in Europe/Stockholm: 08:00 UTC is 09:00 +01:00.
    assert!(out.contains("2026-11-24T09:00:00+01:00"), "{out}");
    let out = ok(&run(&[
        "--config",
        c,
        "tick",
        "--now",
        "2026-11-24T09:00:00Z",
    ]));
    assert!(out.contains("tick 2026-11-24T10:00:00+01:00"), "{out}");
    assert!(
        out.contains(", 0 events,") && out.ends_with("0 send failures\n"),
        "{out}"
    );
    // Tuesday 18:00 (17:00 UTC) fires exactly one event, shown in game time.
    let out = ok(&run(&[
        "--config",
        c,
        "tick",
        "--now",
        "2026-11-24T17:30:00Z",
    ]));
    assert!(out.contains(", 1 event,"), "{out}");
    assert!(
        out.contains("fired 2026-11-24T18:00:00+01:00 courier_evening"),
        "{out}"
    );
    // A time before the game's latest is refused, both times in game time.
    let err = text(&run(&["--config", c, "tick", "--now", "2026-11-24T12:00:00Z"]).stderr);
    assert!(
        err.contains("2026-11-24T13:00:00+01:00") && err.contains("2026-11-24T18:30:00+01:00"),
        "{err}"
    );
}

#[test]
fn only_run_needs_the_webhook_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path());
    let hooked = std::fs::read_to_string(&cfg).unwrap()
        + "webhook: {secret_env: PBEMD_TEST_HOOK_SECRET}\nhttp: {listen: \"127.0.0.1:0\"}\n";
    std::fs::write(&cfg, hooked).unwrap();
    let c = cfg.to_str().unwrap();
    let state = pbemd()
        .env_remove("PBEMD_TEST_HOOK_SECRET")
        .args(["--config", c, "state"])
        .output()
        .unwrap();
    ok(&state);
    let tick = pbemd()
        .env_remove("PBEMD_TEST_HOOK_SECRET")
        .args(["--config", c, "tick", "--now", "2026-11-24T10:00:00+01:00"])
        .output()
        .unwrap();
    ok(&tick);
    let daemon = pbemd()
        .env_remove("PBEMD_TEST_HOOK_SECRET")
        .args(["--config", c, "run"])
        .output()
        .unwrap();
    assert!(!daemon.status.success());
    let err = text(&daemon.stderr);
    assert!(
        err.contains("webhook.secret_env") && err.contains("PBEMD_TEST_HOOK_SECRET"),
        "{err}"
    );
}

#[test]
fn the_demos_suggested_grep_finds_exactly_the_result_forms() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let out = ok(&run(&["demo", "--dir", dir.to_str().unwrap()]));
    let line = out
        .lines()
        .find(|l| l.contains("# the Monday result forms"))
        .unwrap_or_else(|| panic!("no result-form command in:\n{out}"));
    let cmd = line.split('#').next().unwrap().trim();
    let found = Command::new("sh").arg("-c").arg(cmd).output().unwrap();
    let found: Vec<String> = text(&found.stdout).lines().map(str::to_string).collect();

    let outbox = dir.join("outbox").join("new");
    let mut forms = Vec::new();
    for e in std::fs::read_dir(&outbox).unwrap() {
        let path = e.unwrap().path();
        let sent = common::Sent::parse(&std::fs::read(&path).unwrap());
        let s = sent.subject.as_str();
        if !s.starts_with("Re:") && (s.ends_with(" form") || s.ends_with(" helgformulär")) {
            forms.push(path.display().to_string());
        }
    }
    assert!(forms.len() >= 6, "the demo mails result forms: {forms:?}");
    let mut found_sorted = found.clone();
    found_sorted.sort();
    forms.sort();
    assert_eq!(found_sorted, forms, "`{cmd}`");
}

/// The report's case: a PostgreSQL error used to read
/// `…: error returned from database: X: error returned from database: X: X`.
#[test]
fn a_database_error_names_its_cause_once() {
    let Ok(admin) = std::env::var("PBEMD_TEST_PG_URL") else {
        common::missing("PostgreSQL (PBEMD_TEST_PG_URL)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path());
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
    let yaml = std::fs::read_to_string(&cfg).unwrap().replace(
        "database: sqlite:pbemd.db",
        &format!("database: {base}/pbemd_no_such_database"),
    );
    std::fs::write(&cfg, yaml).unwrap();
    let out = run(&["--config", cfg.to_str().unwrap(), "state"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert_eq!(err.matches("does not exist").count(), 1, "{err}");
    assert_eq!(
        err.matches("error returned from database").count(),
        1,
        "{err}"
    );
}
