//! The command-line contract (docs/reference/commands.md), driven through the real binary.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn pbemd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(args)
        .output()
        .expect("run pbemd")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A failure exits non-zero with exactly one line on stderr.
fn one_line_error(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "expected failure: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err:?}");
    err
}

fn drop_mail(dir: &Path, name: &str, raw: &[u8]) {
    std::fs::write(dir.join("inbox").join("new").join(name), raw).unwrap();
}

#[test]
fn new_init_tick_state_and_gm_queue_work_through_the_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    let d = dir.to_str().unwrap();
    ok(&pbemd(&["new", d]));
    let cfg = dir.join("pbemd.yaml");
    let c = cfg.to_str().unwrap();
    for f in [
        "pbemd.yaml",
        "scenario.yaml",
        "schedule.yaml",
        "inbox/new",
        "outbox/new",
    ] {
        assert!(dir.join(f).exists(), "{f}");
    }
    let out = ok(&pbemd(&[
        "--config",
        c,
        "init",
        "--quiet",
        "--now",
        "2026-11-24T09:00:00+01:00",
    ]));
    assert!(out.contains("round 1"), "{out}");
    let err = one_line_error(&pbemd(&[
        "--config",
        c,
        "init",
        "--now",
        "2026-11-24T09:00:00+01:00",
    ]));
    assert!(err.contains("--force"), "{err}");

    drop_mail(
        &dir,
        "1.m",
        &common::mail(
            "genogien@game.test",
            "Genogien skickar ett sändebud till Afani",
            "Hej",
            "a@x",
        ),
    );
    drop_mail(
        &dir,
        "2.m",
        &common::mail("who@else.test", "Hej", "vem", "b@x"),
    );
    let out = ok(&pbemd(&[
        "--config",
        c,
        "tick",
        "--now",
        "2026-11-24T10:00:00+01:00",
    ]));
    assert!(out.contains("2 stored, 2 handled"), "{out}");
    assert_eq!(
        std::fs::read_dir(dir.join("outbox/new")).unwrap().count(),
        2,
        "the envoy and its receipt"
    );
    assert_eq!(
        std::fs::read_dir(dir.join("inbox/cur")).unwrap().count(),
        2,
        "taken mail moves to cur/"
    );

    let err = one_line_error(&pbemd(&[
        "--config",
        c,
        "tick",
        "--now",
        "2026-11-24T09:00:00+01:00",
    ]));
    assert!(err.contains("never runs backwards"), "{err}");

    let q = ok(&pbemd(&["--config", c, "gm", "queue"]));
    assert!(
        q.contains("unknown_sender") && q.contains("who@else.test"),
        "{q}"
    );
    let id = q.split_whitespace().next().unwrap();
    let show = ok(&pbemd(&["--config", c, "gm", "show", id]));
    assert!(show.contains("vem") && show.contains("raw mail"), "{show}");

    let gm: serde_json::Value =
        serde_json::from_str(&ok(&pbemd(&["--config", c, "state", "--json"]))).unwrap();
    assert_eq!(gm["round"], 1);
    assert_eq!(gm["realms"].as_array().unwrap().len(), 6);
    let afani = ok(&pbemd(&[
        "--config", c, "state", "--realm", "afani", "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&afani).unwrap();
    assert!(afani.contains("Afani"));
    assert!(
        !afani.contains("kaldor@game.test"),
        "a realm's view holds nothing of another realm's: {v}"
    );
}

#[test]
fn a_bad_config_stops_with_one_line_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("pbemd.yaml");
    std::fs::write(&cfg, "game: {address: sl@game.test, gm_address: gm@game.test}\ndatabase: sqlite:x.db\nscenario: s.yaml\ninbound: {maildir: in}\noutbound: {maildir: out}\nsmtp_host: x\n").unwrap();
    let err = one_line_error(&pbemd(&["--config", cfg.to_str().unwrap(), "init"]));
    assert!(err.contains("smtp_host"), "{err}");
    let err = one_line_error(&pbemd(&["--config", "/nonexistent/pbemd.yaml", "run"]));
    assert!(err.contains("/nonexistent/pbemd.yaml"), "{err}");
}

#[test]
fn the_demo_plays_a_week_and_says_where_to_look() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let out = ok(&pbemd(&["demo", "--dir", dir.to_str().unwrap()]));
    assert!(out.contains("outbox"), "{out}");
    assert!(
        out.contains("the weekend of round 1 was resolved once, at Sunday 15:00: forms from "),
        "{out}"
    );
    let mails: Vec<_> = std::fs::read_dir(dir.join("outbox/new"))
        .unwrap()
        .map(|e| common::Sent::parse(&std::fs::read(e.unwrap().path()).unwrap()))
        .collect();
    let forms = mails
        .iter()
        .filter(|m| {
            m.text.starts_with("=====")
                && (m.subject.ends_with(" form") || m.subject.ends_with("helgformulär"))
        })
        .count();
    assert_eq!(forms, 12, "six result forms on each of two Mondays");
    assert!(
        mails
            .iter()
            .any(|m| m.to_is("afani@game.test") && m.subject.contains("Genogien")),
        "an envoy"
    );
    assert!(
        mails
            .iter()
            .any(|m| m.to_is("kaldor@game.test") && m.text.contains("kamel")),
        "a refusal"
    );
    // Running it again replaces the earlier demo.
    ok(&pbemd(&["demo", "--dir", dir.to_str().unwrap()]));
}

#[test]
fn check_form_exits_0_when_all_accepted_1_when_any_refused_2_when_unreadable() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    ok(&pbemd(&["new", dir.to_str().unwrap()]));
    let cfg = dir.join("pbemd.yaml");
    let c = cfg.to_str().unwrap();
    ok(&pbemd(&[
        "--config",
        c,
        "init",
        "--now",
        "2026-11-23T11:00:00+01:00",
    ]));
    // The untouched Monday form passes with zero errors.
    drop_mail(
        &dir,
        "0.m",
        b"From: nobody@x.test\r\nSubject: x\r\n\r\nx\r\n",
    );
    ok(&pbemd(&[
        "--config",
        c,
        "tick",
        "--now",
        "2026-11-23T12:00:00+01:00",
    ]));
    let form = std::fs::read_dir(dir.join("outbox/new"))
        .unwrap()
        .map(|e| common::Sent::parse(&std::fs::read(e.unwrap().path()).unwrap()))
        .find(|m| m.to_is("afani@game.test"))
        .unwrap();
    let untouched = tmp.path().join("untouched.txt");
    std::fs::write(&untouched, &form.text).unwrap();
    let out = ok(&pbemd(&[
        "--config",
        c,
        "check-form",
        "--realm",
        "afani",
        untouched.to_str().unwrap(),
    ]));
    assert!(
        out.contains("0 orders accepted, 0 refused") || out.contains("No orders"),
        "{out}"
    );

    let good = tmp.path().join("good.txt");
    std::fs::write(&good, "BUY 1 spy\nUPGRADE commander\n").unwrap();
    let out = ok(&pbemd(&[
        "--config",
        c,
        "check-form",
        "--realm",
        "Afani",
        good.to_str().unwrap(),
    ]));
    assert!(out.contains("2 orders accepted, 0 refused"), "{out}");

    let bad = tmp.path().join("bad.txt");
    std::fs::write(&bad, "BUY 1 spy\nBUY 3 dragons\n").unwrap();
    let out = pbemd(&[
        "--config",
        c,
        "check-form",
        "--realm",
        "Afani",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("BUY 3 dragons"),
        "the refused line is quoted: {text}"
    );

    let out = pbemd(&[
        "--config",
        c,
        "check-form",
        "--realm",
        "Afani",
        "/nonexistent/form.txt",
    ]);
    assert_eq!(out.status.code(), Some(2));
    one_line_error(&out);
}
