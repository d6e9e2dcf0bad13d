//! The GM's hand on missions and random events through the binary:
//! `pbemd gm mission REALM done | set TEXT` (R-MISSION-3, Rulings 48) and
//! `pbemd gm event REALM good N | bad N | none` (R-RAND-1, Rulings 50).

#![allow(dead_code)]

mod common;

#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use game_dir::*;

fn vp(state: &serde_json::Value, realm: &str) -> i64 {
    state["realms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == realm)
        .unwrap()["vp"]
        .as_i64()
        .unwrap()
}

fn realm<'a>(state: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    state["realms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap()
}

#[test]
fn r_mission_3_gm_mission_done_gives_300_vp_once_audited_and_told_on_the_next_form() {
    let d = Dir::start();
    let before = vp(&d.state(), "Afani");
    let out = d.ok(&["gm", "mission", "afani", "done"]);
    assert!(out.contains("+300 VP"), "{out}");
    let s = d.state();
    assert_eq!(vp(&s, "Afani"), before + 300);
    assert_eq!(realm(&s, "Afani")["mission_done"], true);
    let again = failed(&d.cmd(&["gm", "mission", "Afani", "done"], &[]));
    assert!(again.contains("already done"), "{again}");
    assert_eq!(vp(&d.state(), "Afani"), before + 300, "once");
    let log = d.ok(&["gm", "log", "--realm", "Afani"]);
    assert!(log.contains("gm_mission_done"), "{log}");

    d.tick(DEADLINE);
    d.tick(MONDAY);
    let form = forms_to(&d, "afani@game.test");
    assert!(
        form.contains("The GM has judged your mission done") && form.contains("+300"),
        "{form}"
    );
}

#[test]
fn r_mission_4_gm_mission_set_gives_a_new_secret_mission() {
    let d = Dir::start();
    d.ok(&["gm", "mission", "Afani", "done"]);
    let out = d.ok(&["gm", "mission", "Afani", "set", "Take", "Kustby."]);
    assert!(out.contains("Take Kustby."), "{out}");
    let s = d.state();
    assert_eq!(realm(&s, "Afani")["mission"], "Take Kustby.");
    assert_eq!(realm(&s, "Afani")["mission_done"], false);
    let log = d.ok(&["gm", "log", "--realm", "Afani"]);
    assert!(log.contains("gm_mission_set"), "{log}");
    let preview = d.ok(&["gm", "preview", "--realm", "Kaldor"]);
    assert!(!preview.contains("Take Kustby."), "secret to Afani");
}

#[test]
fn rulings_50_gm_event_before_the_weekend_waits_for_it() {
    let d = Dir::start();
    let listed = failed(&d.cmd(&["gm", "event", "Kaldor", "good"], &[]));
    assert!(
        listed.contains("Bards sing") && listed.contains("name the entry"),
        "{listed}"
    );
    let bad = failed(&d.cmd(&["gm", "event", "Kaldor", "good", "9"], &[]));
    assert!(bad.contains("no entry 9"), "{bad}");
    let before = vp(&d.state(), "Kaldor");
    let out = d.ok(&["gm", "event", "Kaldor", "good", "3"]);
    assert!(out.contains("the weekend applies it"), "{out}");
    assert_eq!(d.state()["gm_events"].as_array().unwrap().len(), 1);
    d.tick(DEADLINE);
    let s = d.state();
    assert!(s["gm_events"].as_array().unwrap().is_empty(), "used up");
    assert!(vp(&s, "Kaldor") >= before + 50, "the bards' 50 VP");
    let preview = d.ok(&["gm", "preview", "--realm", "Kaldor"]);
    assert!(
        preview.contains("Slumpen (spelledarens val): Skalderna sjunger"),
        "{preview}"
    );
}

#[test]
fn rulings_50_gm_event_after_the_resolution_resolves_again_before_the_results() {
    let d = Dir::start();
    d.tick(DEADLINE);
    let plain = d.state();
    let out = d.ok(&["gm", "event", "Mirandel", "bad", "3"]);
    assert!(out.contains("resolved again"), "{out}");
    let s = d.state();
    assert_eq!(s["round"], 2);
    assert_eq!(s["phase"], "resolving", "the results are still to go out");
    // Mirandel's d10 of round 1 drew a good event; the GM's scandal replaces it.
    assert!(vp(&s, "Mirandel") < vp(&plain, "Mirandel"));
    for other in ["Genogien", "Afani", "Kaldor", "Ostvik", "Fugandri"] {
        assert_eq!(vp(&s, other), vp(&plain, other), "{other}");
    }
    let preview = d.ok(&["gm", "preview", "--realm", "Mirandel"]);
    assert!(preview.contains("En skandal vid hovet"), "{preview}");
    let replay = d.ok(&["gm", "replay", "--round", "1"]);
    assert!(replay.contains("identical"), "{replay}");
    d.tick(MONDAY);
    let form = forms_to(&d, "mirandel@game.test");
    assert!(form.contains("En skandal vid hovet"), "{form}");
    assert!(
        !form.contains("RÄTTELSE"),
        "not a correction: the first results"
    );
}

#[test]
fn rulings_50_gm_event_after_a_later_change_is_refused_as_a_rollback_would_be() {
    let d = Dir::start();
    d.tick(DEADLINE);
    d.ok(&["gm", "mission", "Afani", "done"]);
    let before = d.state();
    let out = failed(&d.cmd(&["gm", "event", "Mirandel", "none"], &[]));
    assert!(
        out.contains("the state has changed") && out.contains("gm rollback --force"),
        "{out}"
    );
    assert_eq!(d.state(), before, "nothing changed");
}

/// The forms mailed to `addr`, joined (the outbox's file order is not the mailing order).
fn forms_to(d: &Dir, addr: &str) -> String {
    d.outbox()
        .into_iter()
        .filter(|m| {
            m.to_is(addr) && (m.subject.ends_with(" form") || m.subject.ends_with(" helgformulär"))
        })
        .map(|m| m.text)
        .collect::<Vec<_>>()
        .join("\n=====\n")
}

#[test]
fn r_vote_3_a_month_through_the_binary_the_vote_in_round_4_is_told_on_monday() {
    let d = Dir::start();
    // Rounds 1–3 without forms; the Monday of round 3's results announces the vote.
    for (deadline, monday) in [
        (DEADLINE, MONDAY),
        ("2026-12-06T15:00:00+01:00", "2026-12-07T12:00:00+01:00"),
        ("2026-12-13T15:00:00+01:00", "2026-12-14T12:00:00+01:00"),
    ] {
        d.tick(deadline);
        d.tick(monday);
    }
    assert_eq!(d.state()["round"], 4);
    let announced = forms_to(&d, "afani@game.test");
    assert!(announced.contains("A vote in round 4"), "{announced}");
    d.send("afani@game.test", "Afani form", "VOTE Kaldor");
    d.send("ostvik@game.test", "Ostvik form", "VOTE kaldor");
    d.tick("2026-12-19T10:00:00+01:00");
    d.tick("2026-12-20T15:00:00+01:00");
    d.tick("2026-12-21T12:00:00+01:00");
    let s = d.state();
    assert_eq!(s["ruler"]["realm"], "Kaldor");
    assert_eq!(s["ruler"]["until_round"], 8);
    let afani = forms_to(&d, "afani@game.test");
    assert!(
        afani.contains("Vote: you voted for Kaldor; you received 0 votes")
            && afani.contains("Most votes went to Kaldor")
            && afani.contains("New mission (secret):"),
        "{afani}"
    );
    let kaldor = forms_to(&d, "kaldor@game.test");
    assert!(
        kaldor.contains("du röstade inte (−50 segerpoäng); du fick 2 röster")
            && kaldor.contains("Du är härskare"),
        "{kaldor}"
    );
    let mut voters: Vec<String> = s["votes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["voter"].as_str().unwrap().to_string())
        .collect();
    voters.sort();
    assert_eq!(voters, ["Afani", "Ostvik"]);
}
