//! Absences, missed weekends, addresses and replacements through the binary
//! (docs/gm/season.md): what the realms and the GM receive, and what the state
//! and the audit log hold afterwards.

#![allow(dead_code)]

mod common;

#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use game_dir::*;

const GM: &str = "gm@game.test";
/// The second week: its Tuesday, Saturday, deadline and Monday.
const TUESDAY_2: &str = "2026-12-01T09:00:00+01:00";
const SATURDAY_2: &str = "2026-12-05T10:00:00+01:00";
const SUNDAY_2: &str = "2026-12-06T09:30:00+01:00";
const DEADLINE_2: &str = "2026-12-06T15:00:00+01:00";
const MONDAY_2: &str = "2026-12-07T12:00:00+01:00";
const DEADLINE_3: &str = "2026-12-13T15:00:00+01:00";

fn realm<'a>(state: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    state["realms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap()
}

/// The realm's `season` fields, with their defaults where the document leaves them out.
fn season(state: &serde_json::Value, name: &str) -> serde_json::Value {
    let mut all = serde_json::json!({"absences_used": 0, "absent": null, "missed_in_row": 0,
                                     "seeking_replacement": false, "player": null});
    if let Some(set) = realm(state, name)["season"].as_object() {
        for (k, v) in set {
            all[k] = v.clone();
        }
    }
    all
}

fn ids(mails: &[common::Sent]) -> Vec<String> {
    mails.iter().map(|m| m.message_id.clone()).collect()
}

/// The mails since `seen` addressed to `to`.
fn to(d: &Dir, seen: &[String], to: &str) -> Vec<common::Sent> {
    d.outbox_since(seen)
        .into_iter()
        .filter(|m| m.to.iter().any(|a| a == to))
        .collect()
}

fn with_config(d: &Dir, extra: &str) {
    let p = d.dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, format!("{text}{extra}")).unwrap();
}

#[test]
fn an_absence_mail_gets_a_receipt_tells_the_gm_and_the_realm_is_not_missing_or_reminded() {
    let d = Dir::start();
    let seen = ids(&d.outbox());
    d.send(
        "kaldor@game.test",
        "Kaldor till SL: frånvaro 2",
        "Semester.",
    );
    d.tick("2026-11-24T10:00:00+01:00");
    let receipt = to(&d, &seen, "kaldor@game.test");
    assert_eq!(receipt.len(), 1, "one receipt");
    let r = &receipt[0];
    assert_eq!(r.subject, "Re: Kaldor till SL: frånvaro 2");
    assert!(r.in_reply_to.is_some());
    assert!(
        r.text
            .contains("Er frånvaro är noterad: Kaldor är borta 2 helger, rundorna 1–2")
            && r.text.contains("står era arméer och flottor still")
            && r.text.contains("frånvaro 1 av 2"),
        "{}",
        r.text
    );
    let gm = to(&d, &seen, GM);
    assert!(
        gm.iter().any(|m| m.subject.contains("absence: Kaldor")
            && m.text.contains("Kaldor is away for 2 weekends, rounds 1–2")),
        "{:?}",
        gm.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    let s = d.state();
    let k = season(&s, "Kaldor");
    assert_eq!(k["absent"]["from_round"], 1);
    assert_eq!(k["absent"]["to_round"], 2);
    assert_eq!(k["absences_used"], 1);
    let log = d.ok(&["gm", "log", "--realm", "Kaldor"]);
    assert!(log.contains("absence_granted"), "{log}");
    // A reply to the receipt asks for the same absence: answered again, not counted.
    let seen = ids(&d.outbox());
    d.send(
        "kaldor@game.test",
        "Re: Kaldor till SL: frånvaro 2",
        "Tack!",
    );
    d.tick("2026-11-24T11:00:00+01:00");
    assert_eq!(
        to(&d, &seen, "kaldor@game.test").len(),
        1,
        "the receipt again"
    );
    assert!(to(&d, &seen, GM).is_empty(), "the GM is not told twice");
    assert_eq!(season(&d.state(), "Kaldor")["absences_used"], 1);

    // The weekend: no reminder for Kaldor, others are reminded; the GM's list of
    // missing forms names Kaldor apart; Kaldor misses nothing, the others one weekend.
    d.tick(SATURDAY);
    let seen = ids(&d.outbox());
    d.tick("2026-11-29T09:30:00+01:00");
    assert!(
        to(&d, &seen, "kaldor@game.test").is_empty(),
        "no reminder while away"
    );
    assert_eq!(
        to(&d, &seen, "afani@game.test").len(),
        1,
        "Afani is reminded"
    );
    let seen = ids(&d.outbox());
    d.tick(DEADLINE);
    let missing = to(&d, &seen, GM)
        .into_iter()
        .find(|m| m.subject.contains("saknas"))
        .expect("the GM's list of missing forms");
    assert!(
        missing
            .text
            .contains("Borta den här helgen (frånvaro): Kaldor")
            && !missing.text.contains("Kaldor, ")
            && !missing.text.contains(", Kaldor"),
        "{}",
        missing.text
    );
    let report = to(&d, &seen, GM)
        .into_iter()
        .find(|m| m.text.contains("Skickade inget"))
        .expect("the GM's report");
    assert!(
        report.text.contains("Kaldor (frånvarande)") && report.text.contains("Afani"),
        "the report marks the absent realm: {}",
        report.text
    );
    let s = d.state();
    assert_eq!(season(&s, "Kaldor")["missed_in_row"], 0);
    assert_eq!(season(&s, "Afani")["missed_in_row"], 1);
    assert_eq!(season(&s, "Kaldor")["absent"]["to_round"], 2, "still away");
}

#[test]
fn with_reuse_last_an_absent_realms_last_orders_stand_and_the_absence_ends_after_it() {
    let d = Dir::start();
    with_config(&d, "forms: {missing: reuse-last}\n");
    d.send("kaldor@game.test", "Kaldor formulär", "KÖP 1 spion");
    d.tick(SATURDAY);
    d.tick(DEADLINE);
    d.tick(MONDAY);
    let spies = realm(&d.state(), "Kaldor")["spies"].as_u64().unwrap();
    let seen = ids(&d.outbox());
    d.send("kaldor@game.test", "Kaldor till SL: frånvaro 1", "");
    d.tick(TUESDAY_2);
    let receipt = to(&d, &seen, "kaldor@game.test");
    assert!(
        receipt[0].text.contains("borta 1 helg, runda 2 ")
            && receipt[0].text.contains("gäller era senaste order igen"),
        "{}",
        receipt[0].text
    );
    d.tick(SATURDAY_2);
    d.tick(DEADLINE_2);
    let s = d.state();
    let k = realm(&s, "Kaldor");
    assert_eq!(
        k["spies"].as_u64().unwrap(),
        spies + 1,
        "last round's order stood"
    );
    assert_eq!(season(&s, "Kaldor")["missed_in_row"], 0, "away, not missed");
    assert!(
        season(&s, "Kaldor")["absent"].is_null(),
        "the absence is over: {k}"
    );
    let log = d.ok(&["gm", "log", "--realm", "Kaldor", "--round", "2"]);
    assert!(log.contains("form_reused"), "{log}");
}

#[test]
fn an_absence_beyond_the_cap_waits_for_the_gm_who_can_grant_it() {
    let d = Dir::start();
    with_config(&d, "season: {max_absences: 1}\n");
    d.send("afani@game.test", "Afani to GM: absence 1", "");
    d.tick("2026-11-24T10:00:00+01:00");
    let seen = ids(&d.outbox());
    d.send(
        "afani@game.test",
        "Afani to GM: absence 2 weeks",
        "Again, sorry.",
    );
    d.tick("2026-11-24T11:00:00+01:00");
    let reply = to(&d, &seen, "afani@game.test");
    assert_eq!(reply.len(), 1);
    assert!(
        reply[0]
            .text
            .contains("You have already used all 1 absences this game allows. The GM decides"),
        "{}",
        reply[0].text
    );
    let gm = to(&d, &seen, GM);
    assert!(
        gm.iter().any(|m| m.text.contains("has used 1 of 1")),
        "{:?}",
        gm.iter().map(|m| &m.text).collect::<Vec<_>>()
    );
    let queue = d.ok(&["gm", "queue"]);
    assert!(
        queue.contains("gm_queue") && queue.contains("Afani to GM: absence 2 weeks"),
        "{queue}"
    );
    let s = d.state();
    assert_eq!(season(&s, "Afani")["absences_used"], 1);
    assert_eq!(season(&s, "Afani")["absent"]["to_round"], 1);

    let seen = ids(&d.outbox());
    let out = d.ok(&["gm", "realm", "afani", "absence", "3"]);
    assert!(out.contains("Afani is away for rounds 1–3"), "{out}");
    let told = to(&d, &seen, "afani@game.test");
    assert!(
        told[0]
            .text
            .contains("Afani is away for 3 weekends, rounds 1–3"),
        "{}",
        told[0].text
    );
    let s = d.state();
    assert_eq!(season(&s, "Afani")["absent"]["to_round"], 3);
    assert_eq!(season(&s, "Afani")["absences_used"], 2);
    let log = d.ok(&["gm", "log", "--realm", "Afani"]);
    assert!(
        log.contains("absence_held") && log.contains("\"by\":\"gm\""),
        "{log}"
    );
    let seen = ids(&d.outbox());
    d.ok(&["gm", "realm", "Afani", "absence", "0"]);
    assert!(season(&d.state(), "Afani")["absent"].is_null());
    let told = to(&d, &seen, "afani@game.test");
    assert!(told[0]
        .text
        .contains("The GM has ended Afani's absence. From round 1 on"));
    let e = failed(&d.cmd(&["gm", "realm", "Afani", "absence", "0"], &[]));
    assert!(e.contains("Afani is not away"), "{e}");
    let log = d.ok(&["gm", "log", "--realm", "Afani"]);
    assert!(log.contains("absence_ended"), "{log}");
}

#[test]
fn an_absence_of_an_unreadable_or_too_large_count_is_refused_with_the_right_form() {
    let d = Dir::start();
    for (n, subject) in ["Kaldor till SL: frånvaro 9", "Kaldor till SL: frånvaro två"]
        .iter()
        .enumerate()
    {
        let seen = ids(&d.outbox());
        d.send("kaldor@game.test", subject, "");
        d.tick(&format!("2026-11-24T1{n}:00:00+01:00"));
        let reply = to(&d, &seen, "kaldor@game.test");
        assert!(
            reply[0].text.contains("anger ingen giltig frånvaro")
                && reply[0].text.contains("1 till 3")
                && reply[0].text.contains("«Kaldor till SL: frånvaro 2»"),
            "{}",
            reply[0].text
        );
    }
    let s = d.state();
    assert_eq!(season(&s, "Kaldor")["absences_used"], 0);
    assert!(season(&s, "Kaldor")["absent"].is_null());
    // Any other topic is still a plain mail to the GM.
    let seen = ids(&d.outbox());
    d.send(
        "kaldor@game.test",
        "Kaldor till SL: frånvaron i sommar",
        "?",
    );
    d.tick("2026-11-24T13:00:00+01:00");
    let ack = to(&d, &seen, "kaldor@game.test");
    assert!(ack[0]
        .text
        .contains("Ert brev till spelledaren har kommit fram"));
}

#[test]
fn two_missed_weekends_mark_a_realm_seeking_a_replacement_and_the_gm_is_told_once() {
    let d = Dir::start();
    d.tick(DEADLINE);
    d.tick(MONDAY);
    assert_eq!(season(&d.state(), "Kaldor")["missed_in_row"], 1);
    assert_eq!(season(&d.state(), "Kaldor")["seeking_replacement"], false);
    // Afani sends a form in the second week: its count starts again.
    d.send("afani@game.test", "Afani form", "BUY 1 spy");
    d.tick(SATURDAY_2);
    d.tick(DEADLINE_2);
    let s = d.state();
    assert_eq!(season(&s, "Kaldor")["missed_in_row"], 2);
    assert_eq!(season(&s, "Kaldor")["seeking_replacement"], true);
    assert_eq!(season(&s, "Afani")["missed_in_row"], 0);
    assert_eq!(season(&s, "Afani")["seeking_replacement"], false);
    d.tick(MONDAY_2);
    // Kaldor's form keeps going out.
    let forms: Vec<_> = d
        .outbox()
        .into_iter()
        .filter(|m| m.to.iter().any(|a| a == "kaldor@game.test"))
        .filter(|m| m.text.contains("round 3") || m.text.contains("runda 3"))
        .collect();
    assert!(
        !forms.is_empty(),
        "the Monday form of round 3 went to Kaldor"
    );
    d.tick(DEADLINE_3);
    let told: Vec<_> = d
        .outbox()
        .into_iter()
        .filter(|m| m.to.iter().any(|a| a == GM))
        .filter(|m| m.subject.contains("seeking a replacement: Kaldor"))
        .collect();
    assert_eq!(told.len(), 1, "told once, not every week");
    assert!(told[0]
        .text
        .contains("Kaldor has sent no form for 2 weekends in a row"));
    assert_eq!(season(&d.state(), "Kaldor")["missed_in_row"], 3);
    let log = d.ok(&["gm", "log", "--realm", "Kaldor"]);
    assert_eq!(log.matches("realm_seeking_replacement").count(), 1, "{log}");

    // A replacement clears the mark and the count.
    d.ok(&["gm", "realm", "Kaldor", "replace", "ny@kaldor.example"]);
    let k = season(&d.state(), "Kaldor");
    assert_eq!(k["missed_in_row"], 0);
    assert_eq!(k["seeking_replacement"], false);
}

#[test]
fn the_gm_adds_and_removes_a_realms_address_and_mail_follows_at_once() {
    let d = Dir::start();
    let seen = ids(&d.outbox());
    let out = d.ok(&[
        "gm",
        "realm",
        "kaldor",
        "address",
        "ADD",
        "Kung@Kaldor.Example",
    ]);
    assert!(out.contains("also Kaldor's address"), "{out}");
    let s = d.state();
    assert_eq!(
        realm(&s, "Kaldor")["emails"],
        serde_json::json!(["kaldor@game.test", "kung@kaldor.example"])
    );
    let told = to(&d, &seen, "kung@kaldor.example");
    assert_eq!(told.len(), 1);
    assert!(told[0].to.contains(&"kaldor@game.test".to_string()));
    assert!(told[0]
        .text
        .contains("Spelledaren har lagt till adressen <kung@kaldor.example>"));
    // Mail from the new address is Kaldor's.
    let seen = ids(&d.outbox());
    d.send("kung@kaldor.example", "Kaldor till SL: hej", "Hej!");
    d.tick("2026-11-24T10:00:00+01:00");
    assert_eq!(
        to(&d, &seen, "kung@kaldor.example").len(),
        1,
        "acknowledged"
    );

    // Refusals: another realm's address, the last address, an unknown address.
    let e = failed(&d.cmd(
        &["gm", "realm", "Kaldor", "address", "add", "afani@game.test"],
        &[],
    ));
    assert!(e.contains("already Afani's address"), "{e}");
    let e = failed(&d.cmd(
        &[
            "gm",
            "realm",
            "Afani",
            "address",
            "remove",
            "afani@game.test",
        ],
        &[],
    ));
    assert!(e.contains("last address"), "{e}");
    let e = failed(&d.cmd(
        &["gm", "realm", "Afani", "address", "remove", "x@y.example"],
        &[],
    ));
    assert!(e.contains("not an address of Afani"), "{e}");
    let e = failed(&d.cmd(
        &["gm", "realm", "Afani", "address", "add", "not an address"],
        &[],
    ));
    assert!(e.contains("is not a mail address"), "{e}");

    let seen = ids(&d.outbox());
    d.ok(&[
        "gm",
        "realm",
        "Kaldor",
        "address",
        "remove",
        "kaldor@game.test",
    ]);
    let told = to(&d, &seen, "kung@kaldor.example");
    assert!(told[0]
        .text
        .contains("har tagit bort adressen <kaldor@game.test>"));
    assert!(
        to(&d, &seen, "kaldor@game.test").is_empty(),
        "the removed address is not told"
    );
    let seen = ids(&d.outbox());
    d.send("kaldor@game.test", "Kaldor till SL: hej igen", "Hej!");
    d.tick("2026-11-24T11:00:00+01:00");
    assert!(
        d.outbox_since(&seen).is_empty(),
        "an unknown sender gets no reply"
    );
    let queue = d.ok(&["gm", "queue"]);
    assert!(
        queue.contains("unknown_sender") && queue.contains("kaldor@game.test"),
        "{queue}"
    );
    let log = d.ok(&["gm", "log", "--realm", "Kaldor"]);
    assert!(
        log.contains("gm_address_add") && log.contains("gm_address_remove"),
        "{log}"
    );
}

#[test]
fn a_replacement_takes_the_realm_over_and_gets_the_current_form_with_a_welcome() {
    let d = Dir::start();
    d.send("ostvik@game.test", "Ostvik to GM: hello", "Hello.");
    d.tick("2026-11-24T10:00:00+01:00");
    let seen = ids(&d.outbox());
    let out = d.ok(&[
        "gm",
        "realm",
        "Ostvik",
        "replace",
        "eva@new.example",
        "--display",
        "Eva",
    ]);
    assert!(
        out.contains("Ostvik is now played from eva@new.example"),
        "{out}"
    );
    let mails = d.outbox_since(&seen);
    assert_eq!(mails.len(), 1, "only the new player is mailed");
    let w = &mails[0];
    assert_eq!(w.to, ["eva@new.example"]);
    assert_eq!(w.subject, "Ostvik form");
    assert!(
        w.text
            .starts_with("Welcome, Eva! From now on you play Ostvik")
            && w.text
                .contains("Results and weekend form for Ostvik, round 1"),
        "{}",
        w.text
    );
    let s = d.state();
    let o = realm(&s, "Ostvik");
    assert_eq!(o["emails"], serde_json::json!(["eva@new.example"]));
    assert_eq!(season(&s, "Ostvik")["player"], "Eva");
    let log = d.ok(&["gm", "log", "--realm", "Ostvik"]);
    assert!(
        log.contains("gm_realm_replace") && log.contains("ostvik@game.test"),
        "history stays with the realm: {log}"
    );
    assert!(
        log.contains("gm_queued"),
        "the earlier mail stays in the log: {log}"
    );

    // The old address is now an unknown sender; the new one plays the realm.
    let seen = ids(&d.outbox());
    d.send("ostvik@game.test", "Ostvik form", "BUY 1 spy");
    d.send("eva@new.example", "Ostvik form", "BUY 1 spy");
    d.tick(SATURDAY);
    let mails = d.outbox_since(&seen);
    assert!(mails
        .iter()
        .all(|m| !m.to.contains(&"ostvik@game.test".to_string())));
    assert!(
        mails
            .iter()
            .any(|m| m.to == ["eva@new.example"] && m.subject == "Re: Ostvik form"),
        "the new player's form gets a receipt"
    );
    let queue = d.ok(&["gm", "queue"]);
    assert!(queue.contains("unknown_sender"), "{queue}");

    let e = failed(&d.cmd(
        &["gm", "realm", "Ostvik", "replace", "afani@game.test"],
        &[],
    ));
    assert!(e.contains("already Afani's address"), "{e}");
    let e = failed(&d.cmd(&["gm", "realm", "Ostvik", "replace", "gm@game.test"], &[]));
    assert!(e.contains("GM's own address"), "{e}");
}

#[test]
fn missed_weekends_roll_back_with_the_weekend_and_count_again_without_a_second_notice() {
    let d = Dir::start();
    d.tick(DEADLINE);
    d.tick(MONDAY);
    d.tick(DEADLINE_2);
    assert_eq!(season(&d.state(), "Kaldor")["seeking_replacement"], true);
    let out = d.ok(&["gm", "replay", "--round", "2"]);
    assert!(out.contains("identical"), "{out}");

    d.ok(&["gm", "rollback"]);
    let s = d.state();
    assert_eq!(season(&s, "Kaldor")["missed_in_row"], 1);
    assert_eq!(season(&s, "Kaldor")["seeking_replacement"], false);

    d.ok(&["gm", "resolve"]);
    let s = d.state();
    assert_eq!(season(&s, "Kaldor")["missed_in_row"], 2);
    assert_eq!(season(&s, "Kaldor")["seeking_replacement"], true);
    let told = d
        .outbox()
        .into_iter()
        .filter(|m| m.subject.contains("seeking a replacement: Kaldor"))
        .count();
    assert_eq!(told, 1, "the GM is told once for the round");
}

fn wait_until(what: &str, secs: u64, mut f: impl FnMut() -> bool) {
    let t = std::time::Instant::now();
    while !f() {
        assert!(
            t.elapsed() < std::time::Duration::from_secs(secs),
            "timed out: {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A running daemon sees a replacement with the next mail, without a restart: the
/// directory of senders is read from the state version current at each mail.
#[test]
fn a_running_daemon_follows_a_replacement_without_a_restart() {
    use std::process::{Command, Stdio};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    ok(&run(&["new", dir.to_str().unwrap()], &[]));
    let cfg = dir.join("pbemd.yaml");
    let cfg_s = cfg.to_str().unwrap();
    let start = (chrono::Utc::now() - chrono::Duration::minutes(5)).to_rfc3339();
    ok(&run(
        &["--config", cfg_s, "init", "--quiet", "--now", &start],
        &[],
    ));
    let d = Dir {
        _tmp: tmp,
        dir,
        mails: Default::default(),
    };
    let mut daemon = Daemon(
        Command::new(env!("CARGO_BIN_EXE_pbemd"))
            .args(["--config", cfg_s, "run"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let answered = |to: &str, subject: &str| {
        d.outbox()
            .iter()
            .any(|m| m.to.iter().any(|a| a == to) && m.subject == format!("Re: {subject}"))
    };
    d.send("kaldor@game.test", "Kaldor till SL: ett", "1");
    wait_until("the first mail is answered", 30, || {
        answered("kaldor@game.test", "Kaldor till SL: ett")
    });
    d.ok(&["gm", "realm", "Kaldor", "replace", "ny@kaldor.example"]);
    d.send("ny@kaldor.example", "Kaldor till SL: två", "2");
    d.send("kaldor@game.test", "Kaldor till SL: tre", "3");
    wait_until("the new player's mail is answered", 30, || {
        answered("ny@kaldor.example", "Kaldor till SL: två")
    });
    wait_until("the old address's mail is in the GM queue", 30, || {
        d.ok(&["gm", "queue"]).contains("unknown_sender")
    });
    assert!(!answered("kaldor@game.test", "Kaldor till SL: tre"));
    Command::new("kill")
        .args(["-TERM", &daemon.0.id().to_string()])
        .status()
        .unwrap();
    let status = daemon.0.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// The daemon this test started; killed if the test fails before it stops it.
struct Daemon(std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
