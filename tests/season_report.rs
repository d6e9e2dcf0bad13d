//! docs/gm/season.md (the GM's report) and docs/gm/many-games.md: after each resolution the GM
//! gets exactly one mail (forms and when, who sent nothing, battles and cities, VP,
//! parked and failed, the next deadlines); `pbemd gm report [--round N]` prints it; and
//! the systemd template unit for one pbemd per game. Driven through the real binary.

mod common;

#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use game_dir::*;

const SATURDAY_11: &str = "2026-11-28T11:00:00+01:00";
const SECOND_SATURDAY: &str = "2026-12-05T10:00:00+01:00";
const SECOND_DEADLINE: &str = "2026-12-06T15:00:00+01:00";

/// The GM's reports in the outbox, by resolution (lines end in `\n`).
fn gm_reports(d: &Dir) -> Vec<common::Sent> {
    let mut out: Vec<common::Sent> = d
        .outbox()
        .into_iter()
        .filter(|m| m.to_is("gm@game.test") && m.subject.starts_with("SL-rapport"))
        .map(|mut m| {
            m.text = m.text.replace("\r\n", "\n");
            m
        })
        .collect();
    out.sort_by_key(|m| resolution_of(&m.text));
    out
}

/// The resolution number in a report's first line.
fn resolution_of(text: &str) -> i64 {
    let first = text.lines().next().unwrap_or_default();
    let n = first
        .split_once("avgörande ")
        .or_else(|| first.split_once("resolution "))
        .and_then(|(_, rest)| rest.split(',').next())
        .unwrap_or_else(|| panic!("no resolution number in {first}"));
    n.parse().unwrap()
}

/// Round 1: Afani and Kaldor send forms on Saturday (Kaldor attacks H7), Mirandel's
/// mail is parked (its handling fails), the others send nothing; the deadline passes.
fn first_weekend(d: &Dir) {
    d.send("afani@game.test", "Afani form", "BUY 1 spy");
    d.send(
        "kaldor@game.test",
        "Kaldor helgformulär",
        "ANFALL armé 2 H7\nKÖP 2 tungt infanteri J8\n",
    );
    d.tick(SATURDAY);
    d.send("mirandel@game.test", "Mirandel giftig", "BUY 1 spy");
    let out = d.cmd(
        &["tick", "--now", SATURDAY_11],
        &[("PBEMD_TEST_FAIL_SUBJECT", "giftig")],
    );
    let printed = ok(&out);
    assert!(printed.contains("1 failed and parked"), "{printed}");
    d.tick(DEADLINE);
}

fn audit_reports(d: &Dir, round: &str) -> usize {
    d.ok(&["gm", "log", "--round", round])
        .lines()
        .filter(|l| l.contains(" gm_report "))
        .count()
}

#[test]
fn after_the_resolve_event_the_gm_gets_one_report_with_forms_battles_vp_and_deadlines() {
    let d = Dir::start();
    first_weekend(&d);
    let reports = gm_reports(&d);
    assert_eq!(reports.len(), 1, "one report per resolution");
    let r = &reports[0].text;
    assert_eq!(reports[0].subject, "SL-rapport runda 1");
    // Who sent forms and when (received_at in the game's zone), and who sent nothing.
    assert!(r.contains("Skickade (2 av 6):"), "{r}");
    assert!(
        r.contains("Afani            2026-11-28T10:00:00+01:00  1 order"),
        "{r}"
    );
    assert!(
        r.contains("Kaldor           2026-11-28T10:00:00+01:00  2 order"),
        "{r}"
    );
    assert!(
        r.contains("Skickade inget (4): Genogien, Fugandri, Mirandel, Ostvik"),
        "{r}"
    );
    // The battle: where, who, winner, losses.
    let battle = r
        .lines()
        .find(|l| l.contains("Slag vid") && l.contains("H7"))
        .unwrap_or_else(|| panic!("no battle line:\n{r}"));
    assert!(
        battle.contains("Kaldor (armé 2) mot Ostvik; vinnare ")
            && battle.contains("förluster Kaldor "),
        "{battle}"
    );
    // VP standings, sorted, with the weekend's change.
    let state = d.state();
    let mut vp: Vec<(i64, String)> = state["realms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["vp"].as_i64().unwrap(),
                x["name"].as_str().unwrap().into(),
            )
        })
        .collect();
    vp.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let first = format!(" 1. {:<16} {:>5} VP", vp[0].1, vp[0].0);
    assert!(r.contains(&first), "{first}\n{r}");
    // What is parked, and the next deadlines from the schedule.
    assert!(
        r.contains("parkerat") && r.contains("\"Mirandel giftig\""),
        "{r}"
    );
    assert!(
        r.contains("resultaten går ut:         måndag 30 november 2026 12:00"),
        "{r}"
    );
    assert!(
        r.contains("formulärstopp:             söndag 6 december 2026 15:00"),
        "{r}"
    );
    assert!(
        r.contains("helgen avgörs:             söndag 6 december 2026 15:00"),
        "{r}"
    );
    // The state moved on and the audit log holds the report.
    assert_eq!(state["round"], 2);
    assert_eq!(audit_reports(&d, "1"), 1);
}

#[test]
fn re_running_the_tick_adds_no_second_report_and_gm_report_prints_the_same_body() {
    let d = Dir::start();
    first_weekend(&d);
    let again = d.tick(DEADLINE);
    assert!(!again.contains("resolve"), "{again}");
    d.tick(MONDAY);
    let reports = gm_reports(&d);
    assert_eq!(reports.len(), 1, "re-running tick adds no report");
    assert_eq!(audit_reports(&d, "1"), 1);
    let printed = d.ok(&["gm", "report"]);
    assert_eq!(printed.trim_end(), reports[0].text.trim_end());
    let by_round = d.ok(&["gm", "report", "--round", "1"]);
    assert_eq!(by_round, printed);
}

#[test]
fn gm_report_round_shows_an_older_round_and_an_unknown_round_exits_1() {
    let d = Dir::start();
    first_weekend(&d);
    d.tick(MONDAY);
    d.send("ostvik@game.test", "Ostvik form", "BUY 1 spy");
    d.tick(SECOND_SATURDAY);
    d.tick(SECOND_DEADLINE);
    let reports = gm_reports(&d);
    assert_eq!(reports.len(), 2, "one report per resolution");
    assert_eq!(reports[1].subject, "SL-rapport runda 2");
    assert!(
        reports[1].text.contains("Skickade (1 av 6):"),
        "{}",
        reports[1].text
    );
    let latest = d.ok(&["gm", "report"]);
    assert!(latest.starts_with("SL-RAPPORT — runda 2"), "{latest}");
    let older = d.ok(&["gm", "report", "--round", "1"]);
    assert_eq!(older.trim_end(), reports[0].text.trim_end());
    assert!(older.contains("Skickade (2 av 6):"), "{older}");

    let out = d.cmd(&["gm", "report", "--round", "7"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("round 7 has no resolution"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn gm_report_before_any_resolution_exits_1_with_a_clear_line() {
    let d = Dir::start();
    let out = d.cmd(&["gm", "report"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no round has been resolved yet"), "{err}");
}

#[tokio::test]
async fn gm_report_writes_a_report_for_a_round_resolved_before_reports_were_kept() {
    let d = Dir::start();
    first_weekend(&d);
    let mailed = gm_reports(&d).remove(0).text;
    let store = d.store().await;
    sqlx::query("DELETE FROM events WHERE kind = 'gm_report'")
        .execute(store.pool())
        .await
        .unwrap();
    store.close().await;
    let printed = d.ok(&["gm", "report", "--round", "1"]);
    assert!(
        printed.starts_with("SL-RAPPORT — runda 1 (avgörande 1, "),
        "{printed}"
    );
    // Written again from the stored resolution: the same forms, battle and VP.
    let part = |t: &str| t[..t.find("-- PARKERAT").unwrap()].to_string();
    assert_eq!(part(&printed), part(&mailed));
}

#[test]
fn a_rollback_and_gm_resolve_send_a_report_of_the_new_resolution() {
    let d = Dir::start();
    first_weekend(&d);
    d.ok(&["gm", "rollback"]);
    let out = d.cmd(&["gm", "report", "--round", "1"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rolled back"), "{err}");
    // With the only resolution rolled back, no round is resolved.
    let none = d.cmd(&["gm", "report"], &[]);
    assert_eq!(none.status.code(), Some(1));
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(err.contains("no round has been resolved yet"), "{err}");
    d.ok(&["gm", "resolve"]);
    let reports = gm_reports(&d);
    assert_eq!(reports.len(), 2, "the new resolution is reported too");
    assert_eq!(resolution_of(&reports[1].text), 2, "the new resolution");
    // Its deadlines are the schedule's next ones after the game's time, not the clock's.
    assert!(
        reports[1]
            .text
            .contains("resultaten går ut:         måndag 30 november 2026 12:00"),
        "{}",
        reports[1].text
    );
    let printed = d.ok(&["gm", "report", "--round", "1"]);
    assert_eq!(printed.trim_end(), reports[1].text.trim_end());
    assert_eq!(audit_reports(&d, "1"), 2);
}

#[tokio::test]
async fn a_failed_outgoing_mail_is_in_the_report() {
    let d = Dir::start();
    d.send("afani@game.test", "Afani form", "BUY 1 spy");
    d.tick(SATURDAY);
    let store = d.store().await;
    sqlx::query(
        "UPDATE outbox SET state = 'failed', attempts = 12, \
         last_error = '550 mailbox unavailable' WHERE kind = 'form_receipt'",
    )
    .execute(store.pool())
    .await
    .unwrap();
    store.close().await;
    d.tick(DEADLINE);
    let r = &gm_reports(&d)[0].text;
    let line = r
        .lines()
        .find(|l| l.contains("utgående"))
        .unwrap_or_else(|| panic!("no failed mail:\n{r}"));
    assert!(
        line.contains(
            "form_receipt till afani@game.test, failed efter 12 försök: 550 mailbox unavailable"
        ),
        "{line}"
    );
}

#[test]
fn the_report_is_in_english_when_the_config_says_so() {
    let d = Dir::start();
    let cfg = d.dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let text = text.replace(
        "gm_address: gm@game.test\n",
        "gm_address: gm@game.test\n  gm_language: en\n",
    );
    assert!(text.contains("gm_language: en"), "{text}");
    std::fs::write(&cfg, text).unwrap();
    first_weekend(&d);
    let reports: Vec<_> = d
        .outbox()
        .into_iter()
        .filter(|m| m.to_is("gm@game.test") && m.subject == "GM report round 1")
        .collect();
    assert_eq!(reports.len(), 1);
    let r = &reports[0].text;
    assert!(r.contains("Sent (2 of 6):"), "{r}");
    assert!(r.contains("Sent nothing (4):"), "{r}");
    assert!(
        r.contains("results go out:            Monday 30 November 2026 12:00"),
        "{r}"
    );
    assert!(!r.contains("Skickade") && !r.contains("vinnare"), "{r}");
}

/// The keys a unit for one game per instance must have, as `(section, key, value)`.
const UNIT_KEYS: &[(&str, &str, &str)] = &[
    (
        "Unit",
        "Description",
        "pbemd play-by-email daemon for game %i",
    ),
    ("Service", "User", "pbemd"),
    ("Service", "WorkingDirectory", "/var/lib/pbemd/%i"),
    (
        "Service",
        "ExecStart",
        "/usr/local/bin/pbemd --config /etc/pbemd/%i.yaml run",
    ),
    ("Service", "EnvironmentFile", "-/etc/pbemd/%i.env"),
    ("Service", "ReadWritePaths", "/var/lib/pbemd/%i"),
    ("Service", "NoNewPrivileges", "true"),
    ("Service", "ProtectSystem", "strict"),
    ("Service", "KillSignal", "SIGTERM"),
    ("Install", "WantedBy", "multi-user.target"),
];

/// `(section, key, value)` of every assignment in a unit file.
fn unit_entries(text: &str) -> Vec<(String, String, String)> {
    let mut section = String::new();
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = s.to_string();
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("not a unit file line: {line}"));
        assert!(!section.is_empty(), "{line} is outside a section");
        out.push((section.clone(), k.trim().into(), v.trim().into()));
    }
    out
}

#[test]
fn the_template_unit_runs_one_game_per_instance_from_its_own_config() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/pbemd@.service");
    let text = std::fs::read_to_string(&path).expect("deploy/pbemd@.service");
    let entries = unit_entries(&text);
    for (section, key, value) in UNIT_KEYS {
        assert!(
            entries
                .iter()
                .any(|(s, k, v)| s == section && k == key && v == value),
            "[{section}] {key}={value} missing from {}",
            path.display()
        );
    }
    for (s, k, _) in &entries {
        let n = entries
            .iter()
            .filter(|(s2, k2, _)| s2 == s && k2 == k)
            .count();
        let repeatable = ["ReadWritePaths", "After", "Wants", "Environment"];
        assert!(
            n == 1 || repeatable.contains(&k.as_str()),
            "[{s}] {k} set {n} times"
        );
    }
}

#[test]
fn the_template_unit_passes_systemd_analyze_verify_when_available() {
    let which = std::process::Command::new("systemd-analyze")
        .arg("--version")
        .output();
    if which.map(|o| !o.status.success()).unwrap_or(true) {
        eprintln!("systemd-analyze is not installed: the unit is checked by the key test only");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let unit = tmp.path().join("pbemd@vss-autumn.service");
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/pbemd@.service"),
    )
    .unwrap();
    // The binary path must exist for `verify`; point it at this build's binary.
    let text = text.replace("/usr/local/bin/pbemd", env!("CARGO_BIN_EXE_pbemd"));
    std::fs::write(&unit, text).unwrap();
    let out = std::process::Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&unit)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // Unknown keys and bad values are warnings naming the file (exit 0 all the same).
    let ours: Vec<&str> = err.lines().filter(|l| l.contains("pbemd@")).collect();
    assert!(
        out.status.success() && ours.is_empty(),
        "systemd-analyze verify:\n{err}"
    );
}

/// A fresh PostgreSQL database's URL, if `PBEMD_TEST_PG_URL` points at a server.
fn pg_url() -> Option<String> {
    common::pg_database_url_blocking()
}

#[test]
fn on_postgres_the_report_goes_out_once_and_gm_report_prints_it() {
    let Some(url) = pg_url() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    ok(&run(&["new", dir.to_str().unwrap()], &[]));
    let cfg = dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("database: sqlite:pbemd.db", &format!("database: {url}"));
    std::fs::write(&cfg, text).unwrap();
    let d = Dir {
        _tmp: tmp,
        dir,
        mails: Default::default(),
    };
    d.ok(&["init", "--quiet", "--now", TUESDAY]);
    first_weekend(&d);
    d.tick(DEADLINE);
    let reports = gm_reports(&d);
    assert_eq!(reports.len(), 1);
    assert!(
        reports[0]
            .text
            .contains("Skickade inget (4): Genogien, Fugandri, Mirandel, Ostvik"),
        "{}",
        reports[0].text
    );
    let printed = d.ok(&["gm", "report", "--round", "1"]);
    assert_eq!(printed.trim_end(), reports[0].text.trim_end());
    assert_eq!(audit_reports(&d, "1"), 1);
}
