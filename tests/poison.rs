//! One poison unit never stops the game: a mail or courier item whose handling fails
//! (an error or a panic, made with the test-only fault hooks) is parked for the GM with
//! the error text, and the work goes on — driven through the real binary, with `tick`
//! and with the daemon. Also: SIGTERM stops the daemon mid-mail, and the mail is
//! handled on the next start.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn pbemd_env(cfg: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pbemd"));
    c.arg("--config").arg(cfg).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run pbemd")
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

fn pbemd(cfg: &Path, args: &[&str]) -> String {
    ok(&pbemd_env(cfg, args, &[]))
}

/// A new game directory (with `extra` appended to its config), started quietly.
fn game(tmp: &Path, extra: &str, start: &str) -> PathBuf {
    let dir = tmp.join("g");
    let out = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(["new", dir.to_str().unwrap()])
        .output()
        .unwrap();
    ok(&out);
    let cfg = dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg).unwrap() + extra;
    std::fs::write(&cfg, text).unwrap();
    pbemd(&cfg, &["init", "--quiet", "--now", start]);
    cfg
}

fn drop_mail(cfg: &Path, name: &str, from: &str, subject: &str, body: &str) {
    let raw = common::mail(from, subject, body, &format!("{name}@players.test"));
    let dir = cfg.parent().unwrap().join("inbox").join("new");
    std::fs::write(dir.join(name), raw).unwrap();
}

/// Every mail in the outbox Maildir.
fn outbox(cfg: &Path) -> Vec<common::Sent> {
    let dir = cfg.parent().unwrap().join("outbox").join("new");
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| common::Sent::parse(&std::fs::read(e.unwrap().path()).unwrap()))
        .collect()
}

/// The ids of the parked lines of `gm queue`.
fn parked_ids(cfg: &Path) -> Vec<i64> {
    pbemd(cfg, &["gm", "queue"])
        .lines()
        .filter(|l| l.contains("parked"))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect()
}

const TUE: &str = "2026-11-24T09:00:00+01:00";

/// A poison mail (hook `fault`) and a good envoy after it: `tick` exits 0, handles
/// both (the poison one parked), never retries the parked one by itself, and after
/// `gm retry` without the hook the mail goes through.
fn poison_mail_is_parked_and_the_next_is_handled(fault: &str, error_word: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path(), "", TUE);
    drop_mail(
        &cfg,
        "1",
        "genogien@game.test",
        "Genogien till SL: giftig fråga",
        "Hej SL",
    );
    drop_mail(
        &cfg,
        "2",
        "kaldor@game.test",
        "Kaldor skickar ett sändebud till Afani",
        "Fred!",
    );
    let hook = [("PBEMD_TEST_FAIL_SUBJECT", fault)];
    let out = ok(&pbemd_env(
        &cfg,
        &["tick", "--now", "2026-11-24T10:00:00+01:00"],
        &hook,
    ));
    assert!(out.contains("2 stored, 2 handled"), "{out}");
    assert!(out.contains("1 failed and parked for the GM"), "{out}");
    assert!(
        outbox(&cfg)
            .iter()
            .any(|m| m.to_is("afani@game.test") && m.text.contains("Fred!")),
        "the envoy after the poison mail was delivered"
    );
    let parked = parked_ids(&cfg);
    assert_eq!(parked.len(), 1, "{}", pbemd(&cfg, &["gm", "queue"]));
    let id = parked[0].to_string();
    let show = pbemd(&cfg, &["gm", "show", &id]);
    assert!(show.contains("error:"), "{show}");
    assert!(show.contains(error_word), "{show}");
    assert!(show.contains("PBEMD_TEST_FAIL_SUBJECT"), "{show}");

    // Never retried by itself, even with the fault gone.
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T11:00:00+01:00"]);
    assert!(out.contains("0 stored, 0 handled"), "{out}");
    assert_eq!(parked_ids(&cfg).len(), 1);

    pbemd(&cfg, &["gm", "retry", &id]);
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T12:00:00+01:00"]);
    assert!(out.contains("0 stored, 1 handled"), "{out}");
    assert!(parked_ids(&cfg).is_empty());
    let queue = pbemd(&cfg, &["gm", "queue"]);
    assert!(
        queue.contains("gm_queue") && queue.contains("giftig"),
        "{queue}"
    );
}

#[test]
fn a_mail_whose_handling_errs_is_parked_and_tick_goes_on() {
    poison_mail_is_parked_and_the_next_is_handled("giftig", "test fault");
}

#[test]
fn a_mail_whose_handling_panics_is_parked_and_tick_goes_on() {
    poison_mail_is_parked_and_the_next_is_handled("panic:giftig", "panic:");
}

#[test]
fn a_tick_too_far_ahead_is_refused_with_the_event_count_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path(), "", TUE);
    let out = pbemd_env(&cfg, &["tick", "--now", "2026-12-24T09:00:00+01:00"], &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("schedule events") && err.contains("--force"),
        "{err}"
    );
    let out = pbemd(
        &cfg,
        &["tick", "--force", "--now", "2026-12-24T09:00:00+01:00"],
    );
    assert!(out.contains("fired"), "{out}");
}

#[test]
fn a_parked_mail_can_be_rejected_and_is_then_done() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path(), "", TUE);
    drop_mail(
        &cfg,
        "1",
        "genogien@game.test",
        "Genogien till SL: giftig",
        "x",
    );
    ok(&pbemd_env(
        &cfg,
        &["tick", "--now", "2026-11-24T10:00:00+01:00"],
        &[("PBEMD_TEST_FAIL_SUBJECT", "giftig")],
    ));
    let id = parked_ids(&cfg)[0].to_string();
    pbemd(&cfg, &["gm", "reject", &id, "--reason", "oläsligt"]);
    assert!(parked_ids(&cfg).is_empty());
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T11:00:00+01:00"]);
    assert!(out.contains("0 handled"), "{out}");
    let all = pbemd(&cfg, &["gm", "queue", "--all"]);
    assert!(all.contains("refused"), "{all}");
}

/// In `batches` mode one courier batch decides three envoys; the one whose decision
/// panics is parked and the other two are delivered; `gm retry` delivers it later.
#[test]
fn a_courier_item_that_panics_is_parked_and_the_rest_of_the_batch_goes_out() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path(), "courier:\n  mode: batches\n", TUE);
    three_envoys(&cfg);
    pbemd(&cfg, &["tick", "--now", "2026-11-24T10:00:00+01:00"]);
    let out = ok(&pbemd_env(
        &cfg,
        &["tick", "--now", "2026-11-24T18:30:00+01:00"],
        &[("PBEMD_TEST_FAIL_COURIER", "panic:till Fugandri")],
    ));
    assert!(out.contains("2 delivered"), "{out}");
    assert!(out.contains("1 failed and parked"), "{out}");
    let parked = parked_ids(&cfg);
    assert_eq!(parked.len(), 1);
    let show = pbemd(&cfg, &["gm", "show", &parked[0].to_string()]);
    assert!(
        show.contains("Fugandri") && show.contains("panic:"),
        "{show}"
    );
    let sent = outbox(&cfg);
    assert!(sent.iter().any(|m| m.to_is("afani@game.test")));
    assert!(sent.iter().any(|m| m.to_is("ostvik@game.test")));
    assert!(!sent.iter().any(|m| m.to_is("fugandri@game.test")));

    pbemd(&cfg, &["gm", "retry", &parked[0].to_string()]);
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T23:30:00+01:00"]);
    assert!(out.contains("1 delivered"), "{out}");
    assert!(outbox(&cfg).iter().any(|m| m.to_is("fugandri@game.test")));
}

/// Three envoys handled in one batch, three realms each to its neighbour.
fn three_envoys(cfg: &Path) {
    for (n, from, to) in [
        ("1", "Genogien", "Afani"),
        ("2", "Kaldor", "Fugandri"),
        ("3", "Mirandel", "Ostvik"),
    ] {
        let subject = format!("{from} skickar ett sändebud till {to}");
        let addr = format!("{}@game.test", from.to_lowercase());
        drop_mail(cfg, n, &addr, &subject, &format!("Hälsningar från {from}"));
    }
}

/// A game with [`three_envoys`] stored and handled by one tick with the fault hook
/// `hook` set: the game's config and the tick's output.
fn three_envoys_ticked(tmp: &Path, hook: (&str, &str)) -> (PathBuf, String) {
    let cfg = game(tmp, "", TUE);
    three_envoys(&cfg);
    let out = ok(&pbemd_env(
        &cfg,
        &["tick", "--now", "2026-11-24T10:00:00+01:00"],
        &[hook],
    ));
    (cfg, out)
}

/// Envoys are handled many to a transaction: the one whose handling panics in the
/// middle of the batch is parked alone, and the envoys before and after it go out.
#[test]
fn an_envoy_that_panics_in_the_middle_of_a_batch_is_parked_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let (cfg, out) = three_envoys_ticked(
        tmp.path(),
        ("PBEMD_TEST_FAIL_SUBJECT", "panic:till Fugandri"),
    );
    assert!(out.contains("3 stored, 3 handled"), "{out}");
    assert!(out.contains("2 delivered"), "{out}");
    assert!(out.contains("1 failed and parked"), "{out}");
    let sent = outbox(&cfg);
    assert!(sent.iter().any(|m| m.to_is("afani@game.test")));
    assert!(sent.iter().any(|m| m.to_is("ostvik@game.test")));
    assert!(!sent.iter().any(|m| m.to_is("fugandri@game.test")));
    let show = pbemd(&cfg, &["gm", "show", &parked_ids(&cfg)[0].to_string()]);
    assert!(show.contains("panic:"), "{show}");
}

/// When writing a batch of handled mail fails, the batch is rolled back and its mails
/// are handled again one transaction each: nothing is lost, parked or doubled.
#[test]
fn a_batch_that_cannot_be_written_is_handled_again_one_mail_at_a_time() {
    let tmp = tempfile::tempdir().unwrap();
    let (cfg, out) = three_envoys_ticked(tmp.path(), ("PBEMD_TEST_FAIL_BATCH", "till Fugandri"));
    assert!(out.contains("3 stored, 3 handled"), "{out}");
    assert!(out.contains("3 delivered"), "{out}");
    assert!(parked_ids(&cfg).is_empty(), "{out}");
    let sent = outbox(&cfg);
    for to in ["afani", "fugandri", "ostvik"] {
        let n = sent
            .iter()
            .filter(|m| m.to_is(&format!("{to}@game.test")))
            .count();
        assert_eq!(n, 1, "one delivery to {to}");
    }
}

/// The weekday window always open, so the daemon can run on the real clock any day.
const ALWAYS_WEEKDAY: &str = "timezone: Europe/Stockholm\nevents:\n\
  - {name: weekday_open, kind: weekday_open, cron: \"0 * * * * *\"}\n\
  - {name: weekday_close, kind: weekday_close, cron: \"0 0 0 1 1 * 2099\"}\n\
  - {name: form_open, kind: form_open, cron: \"0 0 0 1 1 * 2099\"}\n\
  - {name: form_close, kind: form_close, cron: \"0 0 1 1 1 * 2099\"}\n";

/// A game for the daemon on the real clock, with an HTTP listener on any free port
/// (the daemon logs which: [`listening_port`]).
fn daemon_game(tmp: &Path) -> PathBuf {
    let dir = tmp.join("g");
    ok(&Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(["new", dir.to_str().unwrap()])
        .output()
        .unwrap());
    std::fs::write(dir.join("schedule.yaml"), ALWAYS_WEEKDAY).unwrap();
    let cfg = dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("# schedule: schedule.yaml", "schedule: schedule.yaml #")
        + "http:\n  listen: 127.0.0.1:0\n";
    std::fs::write(&cfg, text).unwrap();
    let start = (chrono::Utc::now() - chrono::Duration::minutes(5)).to_rfc3339();
    pbemd(&cfg, &["init", "--quiet", "--now", &start]);
    cfg
}

/// The port a daemon started with `NO_COLOR=1` and its stderr piped listens on, from
/// its `HTTP listening` line; the rest of its output is drained in the background.
fn listening_port(daemon: &mut std::process::Child) -> u16 {
    let mut lines = BufReader::new(daemon.stderr.take().unwrap()).lines();
    let t = Instant::now();
    let port = loop {
        let line = lines.next().expect("daemon output").unwrap();
        if let Some((_, rest)) = line
            .split_once("HTTP listening")
            .and_then(|(_, r)| r.split_once("127.0.0.1:"))
        {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            break digits.parse().expect("a port");
        }
        assert!(t.elapsed() < Duration::from_secs(20), "never listened");
    };
    std::thread::spawn(move || lines.map_while(|l| l.ok()).for_each(drop));
    port
}

/// `GET /healthz`: (status, body).
fn healthz(port: u16) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut resp = String::new();
    s.read_to_string(&mut resp).ok()?;
    let status = resp.split_whitespace().nth(1)?.parse().ok()?;
    let body = resp.split("\r\n\r\n").nth(1)?.to_string();
    Some((status, body))
}

fn wait_until(what: &str, secs: u64, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < Duration::from_secs(secs), "timed out: {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn sigterm(child: &Child) {
    Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
}

fn wait_exit(child: &mut Child, secs: u64) -> (std::process::ExitStatus, Duration) {
    let t = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return (s, t.elapsed());
        }
        if t.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            panic!("the daemon did not stop within {secs} s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_daemon_keeps_running_past_a_poison_mail_and_healthz_says_degraded() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = daemon_game(tmp.path());
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(&cfg)
        .arg("run")
        .env("PBEMD_TEST_FAIL_SUBJECT", "panic:giftig")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let port = listening_port(&mut daemon);
    wait_until("healthz answers", 20, || {
        healthz(port).is_some_and(|(s, b)| s == 200 && b == "ok\n")
    });
    drop_mail(
        &cfg,
        "1",
        "genogien@game.test",
        "Genogien till SL: giftig",
        "x",
    );
    drop_mail(
        &cfg,
        "2",
        "kaldor@game.test",
        "Kaldor till SL: frisk fråga",
        "y",
    );
    wait_until("the next mail is answered", 30, || {
        outbox(&cfg).iter().any(|m| m.to_is("kaldor@game.test"))
    });
    wait_until("healthz degraded", 10, || {
        healthz(port).is_some_and(|(_, b)| b.starts_with("degraded") && b.contains("parked: 1"))
    });
    assert!(
        daemon.try_wait().unwrap().is_none(),
        "the daemon still runs"
    );
    sigterm(&daemon);
    let (status, _) = wait_exit(&mut daemon, 15);
    assert!(status.success(), "{status:?}");
}

/// A mail whose handling blocks its thread (a runaway unit): SIGTERM still stops the
/// daemon within a few seconds, nothing of the mail is committed, and the next start
/// handles it exactly once.
#[test]
fn sigterm_stops_the_daemon_mid_mail_and_the_mail_is_handled_on_the_next_start() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = daemon_game(tmp.path());
    drop_mail(
        &cfg,
        "1",
        "genogien@game.test",
        "Genogien till SL: långsam",
        "x",
    );
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(&cfg)
        .arg("run")
        .env("PBEMD_TEST_SLOW_SUBJECT", "långsam")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(daemon.stderr.take().unwrap()).lines();
    let t = Instant::now();
    loop {
        let line = lines.next().expect("daemon output").unwrap();
        if line.contains("PBEMD_TEST_SLOW_SUBJECT") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "never reached the mail"
        );
    }
    sigterm(&daemon);
    let (status, took) = wait_exit(&mut daemon, 15);
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(6), "stopped after {took:?}");
    drop(lines);
    assert!(
        outbox(&cfg).is_empty(),
        "nothing of the cut mail was committed"
    );

    let now = chrono::Utc::now().to_rfc3339();
    let out = pbemd(&cfg, &["tick", "--now", &now]);
    assert!(out.contains("0 stored, 1 handled"), "{out}");
    let acks: Vec<_> = outbox(&cfg)
        .into_iter()
        .filter(|m| m.to_is("genogien@game.test"))
        .collect();
    assert_eq!(acks.len(), 1, "handled exactly once");
}

/// A fresh PostgreSQL database's URL, if `PBEMD_TEST_PG_URL` points at a server.
fn pg_url() -> Option<String> {
    common::pg_database_url_blocking()
}

/// A game on a fresh PostgreSQL database (with `extra` config), started quietly.
fn pg_game(tmp: &Path, url: &str, extra: &str) -> PathBuf {
    let dir = tmp.join("g");
    ok(&Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(["new", dir.to_str().unwrap()])
        .output()
        .unwrap());
    let cfg = dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("database: sqlite:pbemd.db", &format!("database: {url}"))
        + extra;
    std::fs::write(&cfg, text).unwrap();
    pbemd(&cfg, &["init", "--quiet", "--now", TUE]);
    cfg
}

/// A real bad input, no hook: on PostgreSQL a text column refuses a NUL byte. The mail
/// holding one never stops `tick` (it is parked, or handled once NUL is kept out of
/// text columns), and the mail after it is handled.
#[test]
fn on_postgres_a_mail_with_a_nul_byte_never_stops_tick() {
    let Some(url) = pg_url() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cfg = pg_game(tmp.path(), &url, "");
    drop_mail(
        &cfg,
        "1",
        "kaldor@game.test",
        "Kaldor till SL: noll",
        "x\0y",
    );
    drop_mail(
        &cfg,
        "2",
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "Fred!",
    );
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T10:00:00+01:00"]);
    assert!(out.contains("2 stored, 2 handled"), "{out}");
    assert!(outbox(&cfg)
        .iter()
        .any(|m| m.to_is("afani@game.test") && m.text.contains("Fred!")));
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T11:00:00+01:00"]);
    assert!(out.contains("0 handled"), "never retried by itself: {out}");
}

/// On PostgreSQL (where a failed statement aborts the whole transaction, so the
/// courier's isolation needs its savepoints): a poison mail and a poison courier
/// message are parked, everything else goes out, and both go through after retry.
#[test]
fn on_postgres_poison_mail_and_courier_items_are_parked_and_the_rest_goes_on() {
    let Some(url) = pg_url() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cfg = pg_game(tmp.path(), &url, "courier:\n  mode: batches\n");
    drop_mail(&cfg, "0", "kaldor@game.test", "Kaldor till SL: giftig", "x");
    three_envoys(&cfg);
    let hooks = [
        ("PBEMD_TEST_FAIL_SUBJECT", "panic:giftig"),
        ("PBEMD_TEST_FAIL_COURIER", "till Fugandri"),
    ];
    let out = ok(&pbemd_env(
        &cfg,
        &["tick", "--now", "2026-11-24T10:00:00+01:00"],
        &hooks,
    ));
    assert!(out.contains("4 stored, 4 handled"), "{out}");
    let out = ok(&pbemd_env(
        &cfg,
        &["tick", "--now", "2026-11-24T18:30:00+01:00"],
        &hooks,
    ));
    assert!(out.contains("2 delivered"), "{out}");
    let parked = parked_ids(&cfg);
    assert_eq!(parked.len(), 2, "{}", pbemd(&cfg, &["gm", "queue"]));
    for id in &parked {
        pbemd(&cfg, &["gm", "retry", &id.to_string()]);
    }
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T23:30:00+01:00"]);
    assert!(
        out.contains("1 handled") && out.contains("1 delivered"),
        "{out}"
    );
    assert!(parked_ids(&cfg).is_empty());
    assert!(outbox(&cfg).iter().any(|m| m.to_is("fugandri@game.test")));
}
