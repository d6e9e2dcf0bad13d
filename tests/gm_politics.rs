//! The GM's hand on missions and random events through the binary:
//! `pbemd gm mission REALM done | set TEXT` (R-MISSION-3, Rulings 48) and
//! `pbemd gm event REALM good N | bad N | none` (R-RAND-1, Rulings 50).

#![allow(dead_code)]

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

const TUESDAY: &str = "2026-11-24T09:00:00+01:00";
const SATURDAY: &str = "2026-11-28T10:00:00+01:00";
const DEADLINE: &str = "2026-11-29T15:00:00+01:00";
const MONDAY: &str = "2026-11-30T12:00:00+01:00";
const REALMS: [&str; 6] = [
    "Genogien", "Afani", "Fugandri", "Kaldor", "Mirandel", "Ostvik",
];

/// A game directory made by `pbemd new` and started by `pbemd init`.
struct Dir {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    mails: std::cell::Cell<u32>,
}

impl Dir {
    fn start() -> Dir {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("game");
        ok(&run(&["new", dir.to_str().unwrap()], &[]));
        let d = Dir {
            _tmp: tmp,
            dir,
            mails: Default::default(),
        };
        d.ok(&["init", "--quiet", "--now", TUESDAY]);
        d
    }

    /// A copy of this game (every file, the database included) in a new directory.
    fn copy(&self) -> Dir {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("game");
        let st = Command::new("cp")
            .arg("-a")
            .arg(&self.dir)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(st.success());
        Dir {
            _tmp: tmp,
            dir,
            mails: self.mails.clone(),
        }
    }

    fn cmd(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let cfg = self.dir.join("pbemd.yaml");
        let mut all = vec!["--config", cfg.to_str().unwrap()];
        all.extend_from_slice(args);
        run(&all, env)
    }

    fn ok(&self, args: &[&str]) -> String {
        ok(&self.cmd(args, &[]))
    }

    fn tick(&self, now: &str) -> String {
        self.ok(&["tick", "--now", now])
    }

    fn send(&self, from: &str, subject: &str, body: &str) {
        let n = self.mails.get() + 1;
        self.mails.set(n);
        let raw = common::mail(from, subject, body, &format!("w{n}@players.test"));
        std::fs::write(self.dir.join("inbox/new").join(format!("{n}.m")), raw).unwrap();
    }

    /// The mails written since the mails with `seen` message ids.
    fn outbox_since(&self, seen: &[String]) -> Vec<common::Sent> {
        self.outbox()
            .into_iter()
            .filter(|m| !seen.contains(&m.message_id))
            .collect()
    }

    fn state(&self) -> serde_json::Value {
        serde_json::from_str(&self.ok(&["state", "--json"])).unwrap()
    }

    fn outbox(&self) -> Vec<common::Sent> {
        let mut names: Vec<_> = std::fs::read_dir(self.dir.join("outbox/new"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| common::Sent::parse(&std::fs::read(p).unwrap()))
            .collect()
    }

    async fn store(&self) -> pbemd::store::Store {
        let url = format!("sqlite://{}", self.dir.join("pbemd.db").display());
        pbemd::store::Store::open(&url).await.unwrap()
    }

    /// Afani sends two forms on Saturday (the later one, buying a spy, counts).
    fn weekend_with_a_form(&self) {
        self.send("afani@game.test", "Afani form", "BUY 2 spy");
        self.tick(SATURDAY);
        self.send("afani@game.test", "Re: Afani form", "BUY 1 spy");
        self.tick(SATURDAY.replace("10:00", "11:00").as_str());
    }
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pbemd"));
    c.args(args).env_remove("PBEMD_TEST_CRASH_RESOLVE");
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

fn failed(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "expected a failure: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout)
}

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
