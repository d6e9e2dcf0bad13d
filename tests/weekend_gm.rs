//! docs/gm/weekend.md: the weekend resolved exactly once at its deadline, stored
//! with its inputs and outputs, told at the results event, and corrected by the GM
//! (`resolve --dry-run`, `gm preview`, `gm rollback`, `gm resolve`, `gm replay`),
//! driven through the real binary.

mod common;

use std::path::Path;

#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use game_dir::*;

fn versions(db: &Path) -> i64 {
    let url = format!("sqlite://{}?mode=ro", db.display());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let store = pbemd::store::Store::open(&url).await.unwrap();
        let mut c = store.conn().await.unwrap();
        pbemd::store::state::count(&mut c).await.unwrap()
    })
}

#[test]
fn a_crash_mid_resolution_leaves_the_previous_state_and_the_rerun_is_identical() {
    let crashed = Dir::start();
    crashed.weekend_with_a_form();
    let clean = crashed.copy();
    let before = crashed.state();
    let versions_before = versions(&crashed.dir.join("pbemd.db"));

    let out = crashed.cmd(
        &["tick", "--now", DEADLINE],
        &[("PBEMD_TEST_CRASH_RESOLVE", "1")],
    );
    assert!(!out.status.success(), "the process died mid-resolution");
    assert_eq!(crashed.state(), before, "the previous state stands");
    assert_eq!(versions(&crashed.dir.join("pbemd.db")), versions_before);
    let none = failed(&crashed.cmd(&["gm", "replay", "--round", "1"], &[]));
    assert!(none.contains("no stored resolution"), "{none}");

    let rerun = crashed.tick(DEADLINE);
    assert!(
        rerun.contains("fired 2026-11-29T15:00:00+01:00 resolve"),
        "{rerun}"
    );
    clean.tick(DEADLINE);
    assert_eq!(crashed.state(), clean.state(), "bit for bit the same state");
    assert_eq!(crashed.state()["round"], 2);
    let log = crashed.ok(&["gm", "log", "--round", "1"]);
    let clean_log = clean.ok(&["gm", "log", "--round", "1"]);
    let resolved = |l: &str| {
        l.lines()
            .find(|l| l.contains("weekend_resolved"))
            .map(|l| l.split_once("weekend_resolved").unwrap().1.to_string())
    };
    assert_eq!(resolved(&log), resolved(&clean_log));
    assert!(
        resolved(&log)
            .unwrap()
            .contains(r#""forms_from":["Afani"]"#),
        "{log}"
    );
    let replay = crashed.ok(&["gm", "replay", "--round", "1"]);
    assert!(replay.contains("identical"), "{replay}");
}

/// The game's latest time, as stored.
fn last_now(db: &Path) -> i64 {
    let url = format!("sqlite://{}?mode=ro", db.display());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let store = pbemd::store::Store::open(&url).await.unwrap();
        let mut c = store.conn().await.unwrap();
        pbemd::store::meta::get_i64(&mut c, pbemd::store::meta::LAST_NOW)
            .await
            .unwrap()
            .expect("the game's latest time")
    })
}

/// The game's latest time moves with each schedule event, in the event's transaction,
/// and stops short of an instant whose events are not all done: when the process dies
/// in the resolution at 15:00, the forms' close at 15:00 has committed and the time
/// stands a millisecond before 15:00 (the resolution is still due); once the resolution
/// commits it stands at 15:00, so mail stored after it is never taken as received
/// before it (it would count in a weekend already resolved).
#[test]
fn the_games_latest_time_moves_with_each_event_in_its_transaction() {
    let d = Dir::start();
    d.weekend_with_a_form();
    let db = d.dir.join("pbemd.db");
    let before = last_now(&db);
    let deadline = pbemd::clock::to_ms(common::at(DEADLINE));
    assert!(before < deadline);
    let out = d.cmd(
        &["tick", "--now", DEADLINE],
        &[("PBEMD_TEST_CRASH_RESOLVE", "1")],
    );
    assert!(!out.status.success(), "the process died mid-resolution");
    assert_eq!(
        last_now(&db),
        deadline - 1,
        "the form close committed with the time; the resolution at the same instant is due"
    );
    let rerun = d.tick(DEADLINE);
    assert!(
        rerun.contains("fired 2026-11-29T15:00:00+01:00 resolve"),
        "{rerun}"
    );
    assert_eq!(last_now(&db), deadline);
}

#[tokio::test]
async fn the_resolution_stores_the_latest_form_per_realm_with_the_seed_and_settings() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    let store = d.store().await;
    let mut c = store.conn().await.unwrap();
    let r = pbemd::store::resolutions::standing(&mut c, 1)
        .await
        .unwrap()
        .expect("round 1 resolved");
    let form = pbemd::store::forms::standing(&mut c, "Afani", 1)
        .await
        .unwrap()
        .unwrap();
    let checked: pbemd::forms::Checked = serde_json::from_str(&form.orders.unwrap()).unwrap();
    assert!(
        checked.lines[0].text.contains("BUY 1 spy"),
        "the later form counts: {:?}",
        checked.lines
    );
    let orders: pbemd::game::weekend::Orders = serde_json::from_str(&r.orders).unwrap();
    let want: Vec<_> = checked.orders().into_iter().cloned().collect();
    assert_eq!(want.len(), 1, "the spy is bought");
    assert_eq!(orders.of("Afani"), want.as_slice());
    assert_eq!(orders.forms.len(), 1, "only Afani sent a form");
    assert_eq!(r.seed, 1, "the state's seed (from the config at init)");
    assert_eq!(r.base_version + 1, r.new_version);
    let gs: pbemd::game::GameState = serde_json::from_str(
        &pbemd::store::state::get(&mut c, r.base_version)
            .await
            .unwrap()
            .unwrap()
            .doc,
    )
    .unwrap();
    assert_eq!(r.settings, serde_json::to_string(&gs.settings).unwrap());
    drop(c);
    // Exactly once: the resolve event never fires again, and resolving the round
    // again is refused while this resolution stands.
    let again = d.tick(DEADLINE);
    assert!(!again.contains("resolve"), "{again}");
    let refused = failed(&d.cmd(&["gm", "resolve"], &[]));
    assert!(refused.contains("no rolled-back resolution"), "{refused}");
}

#[tokio::test]
async fn replay_reports_a_difference_from_an_altered_stored_output() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    let store = d.store().await;
    sqlx::query("UPDATE resolutions SET output_state = replace(output_state, '\"round\":1,', '\"round\":7,')")
        .execute(store.pool())
        .await
        .unwrap();
    store.close().await;
    let out = d.cmd(&["gm", "replay", "--round", "1"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("state.round: stored 7 → rerun 1"), "{text}");
}

#[test]
fn rollback_after_the_results_and_resolving_again_mails_corrected_forms() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    d.tick(MONDAY);
    let monday = d.outbox();
    let is_form = |m: &&common::Sent| {
        !m.subject.starts_with("Re:")
            && (m.subject.ends_with(" form") || m.subject.ends_with(" helgformulär"))
    };
    assert_eq!(monday.iter().filter(is_form).count(), REALMS.len());
    assert_eq!(d.state()["phase"], "weekday", "the results are out");

    let out = d.ok(&["gm", "rollback"]);
    assert!(out.contains("round 1 rolled back"), "{out}");
    assert_eq!(
        d.state()["round"],
        1,
        "the state before the weekend is back"
    );
    let out = d.ok(&["gm", "resolve"]);
    assert!(
        out.contains("forms from Afani") && out.contains("corrected forms mailed"),
        "{out}"
    );
    assert_eq!(d.state()["round"], 2);
    let corrections: Vec<_> = d
        .outbox()
        .into_iter()
        .filter(|m| m.text.contains("CORRECTION") || m.text.contains("RÄTTELSE"))
        .collect();
    assert_eq!(
        corrections.len(),
        REALMS.len(),
        "every realm gets its corrected form"
    );
    for m in &corrections {
        let form = pbemd::forms::parse_form_view(&m.text);
        assert!(form.is_ok(), "a corrected form still reads back: {form:?}");
    }
    let afani = corrections
        .iter()
        .find(|m| m.to_is("afani@game.test"))
        .unwrap();
    assert_eq!(afani.subject, "Afani form", "a reply to it is Afani's form");
    let replay = d.ok(&["gm", "replay", "--round", "1"]);
    assert!(
        replay.contains("resolution 2") && replay.contains("identical"),
        "{replay}"
    );
}

#[test]
fn results_wait_while_the_weekend_is_rolled_back_and_gm_resolve_sends_them() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    let out = d.ok(&["gm", "rollback"]);
    assert!(out.contains("resolves it again"), "{out}");
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    d.tick(MONDAY);
    let new = d.outbox_since(&seen);
    assert_eq!(new.len(), 1, "no realm's form, one notice: {new:?}");
    assert!(
        new[0].to_is("gm@game.test") && new[0].text.contains("gm resolve"),
        "{:?} {}",
        new[0].to,
        new[0].text
    );
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    let out = d.ok(&["gm", "resolve"]);
    assert!(out.contains("held Monday forms mailed"), "{out}");
    // The held forms, and the GM's report of the new resolution.
    let (gm, forms): (Vec<_>, Vec<_>) = d
        .outbox_since(&seen)
        .into_iter()
        .partition(|m| m.to_is("gm@game.test"));
    assert_eq!(gm.len(), 1, "{gm:?}");
    assert_eq!(forms.len(), REALMS.len());
    assert!(forms
        .iter()
        .all(|m| !m.text.contains("CORRECTION") && !m.text.contains("RÄTTELSE")));
    assert!(forms
        .iter()
        .all(|m| m.text.contains("round 2") || m.text.contains("runda 2")));
}

#[test]
fn resolve_dry_run_prints_every_realms_report_and_saves_nothing() {
    let d = Dir::start();
    d.weekend_with_a_form();
    let before = d.state();
    let versions_before = versions(&d.dir.join("pbemd.db"));
    let out = d.ok(&["resolve", "--dry-run"]);
    assert!(
        out.contains("dry run of round 1: forms from Afani"),
        "{out}"
    );
    assert!(out.contains("nothing was saved"), "{out}");
    for realm in REALMS {
        assert!(out.contains(&format!("== {realm} ==")), "{realm}: {out}");
    }
    assert_eq!(d.state(), before);
    assert_eq!(versions(&d.dir.join("pbemd.db")), versions_before);
    let refused = failed(&d.cmd(&["resolve"], &[]));
    assert!(refused.contains("--dry-run"), "{refused}");
}

#[test]
fn gm_preview_prints_the_drafted_monday_form_that_reads_back() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    let out = d.ok(&["gm", "preview", "--realm", "afani"]);
    assert!(out.starts_with("===== Afani ====="), "{out}");
    assert!(out.contains("weekend form for Afani, round 2"), "{out}");
    let form = out.split_once('\n').unwrap().1;
    assert!(pbemd::forms::parse_form_view(form).is_ok(), "{form}");
    let all = d.ok(&["gm", "preview"]);
    assert_eq!(all.matches("===== ").count(), REALMS.len());
    let err = failed(&d.cmd(&["gm", "preview", "--realm", "Narnia"], &[]));
    assert!(err.contains("no realm named Narnia"), "{err}");
}

#[test]
fn gm_preview_prints_word_for_word_the_monday_form_that_results_mails() {
    let d = Dir::start();
    // Everything a Monday form carries besides the report: a skipped span within four
    // weeks (its note on top), a notice from the GM, the realm's site link below.
    let cfg = d.dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg).unwrap()
        + "http: {public_url: \"https://game.example.org\"}\n";
    std::fs::write(&cfg, text).unwrap();
    let sched = d.dir.join("schedule.yaml");
    let text = std::fs::read_to_string(&sched).unwrap()
        + "\nskip:\n  - { from: 2026-12-21, to: 2027-01-03, reason: \"Jul\" }\n";
    std::fs::write(&sched, text).unwrap();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    d.ok(&["gm", "notice", "--realm", "Afani", "Glöm inte murarna."]);
    let out = d.ok(&["gm", "preview", "--realm", "Afani", "--at", MONDAY]);
    let preview = out
        .strip_prefix("===== Afani =====\n")
        .expect(&out)
        .replace("\r\n", "\n");
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    d.tick(MONDAY);
    let mailed: Vec<_> = d
        .outbox_since(&seen)
        .into_iter()
        .filter(|m| m.to_is("afani@game.test") && m.subject == "Afani form")
        .collect();
    assert_eq!(mailed.len(), 1, "one Monday form to Afani");
    let mailed = mailed[0].text.replace("\r\n", "\n");
    assert_eq!(preview.trim_end(), mailed.trim_end());
    for part in [
        "No game 21 Dec 2026",
        "Glöm inte murarna.",
        "https://game.example.org/realm/login?token=",
        "weekend form for Afani, round 2",
    ] {
        assert!(preview.contains(part), "{part}: {preview}");
    }
}

/// Afani's orders in the resolution of `round` (standing, else newest), as JSON.
async fn afani_orders(d: &Dir, round: i64) -> serde_json::Value {
    let store = d.store().await;
    let mut c = store.conn().await.unwrap();
    let r = pbemd::store::resolutions::latest_of(&mut c, round)
        .await
        .unwrap()
        .expect("a resolution");
    let orders: pbemd::game::weekend::Orders = serde_json::from_str(&r.orders).unwrap();
    serde_json::to_value(orders.of("Afani")).unwrap()
}

#[tokio::test]
async fn gm_edit_of_a_form_after_a_rollback_counts_when_the_gm_resolves_again() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    let before = afani_orders(&d, 1).await;
    let store = d.store().await;
    let mut c = store.conn().await.unwrap();
    let form = pbemd::store::forms::standing(&mut c, "Afani", 1)
        .await
        .unwrap()
        .unwrap();
    drop(c);
    store.close().await;
    let file = d.dir.join("corrected.txt");
    std::fs::write(&file, "NO ORDERS\n").unwrap();
    let id = form.message_id.to_string();
    let edit = ["gm", "edit", &id, "--file", file.to_str().unwrap()];
    let refused = failed(&d.cmd(&edit, &[]));
    assert!(refused.contains("gm rollback"), "{refused}");

    d.ok(&["gm", "rollback"]);
    let out = d.ok(&edit);
    assert!(out.contains("0 accepted, 0 refused"), "{out}");
    let out = d.ok(&["gm", "resolve"]);
    assert!(
        out.contains("the Monday forms go out at the results event"),
        "{out}"
    );
    let after = afani_orders(&d, 1).await;
    assert_eq!(before.as_array().map(Vec::len), Some(1), "{before}");
    assert_eq!(after, serde_json::json!([]), "the corrected form counted");
    let log = d.ok(&["gm", "log", "--realm", "Afani"]);
    assert!(log.contains("gm_edited"), "{log}");
}

#[tokio::test]
async fn with_reuse_last_a_realm_without_a_form_keeps_last_rounds_orders() {
    let d = Dir::start();
    let cfg = d.dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg).unwrap() + "forms:\n  missing: reuse-last\n";
    std::fs::write(&cfg, text).unwrap();
    // An order that is as valid in round 2 as in round 1 (a bought spy would meet the
    // spy cap when checked again).
    d.send(
        "afani@game.test",
        "Afani form",
        "WISHLIST buy horses gold sell stone food",
    );
    d.tick(SATURDAY);
    d.tick(DEADLINE);
    d.tick(MONDAY);
    d.tick("2026-12-06T15:00:00+01:00");
    let round1 = afani_orders(&d, 1).await;
    let round2 = afani_orders(&d, 2).await;
    assert!(!round2.as_array().unwrap().is_empty(), "{round2}");
    assert_eq!(round1, round2);
}

#[tokio::test]
async fn a_finished_game_mails_the_gm_the_victory_with_the_results() {
    let g = common::Game::start(TUESDAY).await;
    g.tick(DEADLINE).await;
    g.edit_state(|s| s.phase = pbemd::game::state::Phase::Finished)
        .await;
    g.tick(MONDAY).await;
    let to_gm: Vec<_> = g
        .outbox()
        .into_iter()
        .filter(|m| m.to_is("gm@game.test") && m.subject.contains("victory"))
        .collect();
    assert_eq!(to_gm.len(), 1, "one victory mail to the GM");
    assert!(to_gm[0].text.contains("Genogien"), "{}", to_gm[0].text);
    assert_eq!(g.state().await.phase, pbemd::game::state::Phase::Finished);
    // A won game is not played on: no resolution, no more forms.
    let forms = |g: &common::Game| {
        g.outbox()
            .into_iter()
            .filter(|m| m.subject.ends_with(" form") || m.subject.ends_with(" helgformulär"))
            .count()
    };
    let sent = forms(&g);
    g.tick("2026-12-07T12:00:00+01:00").await;
    assert_eq!(g.state().await.round, 2);
    assert_eq!(forms(&g), sent);
}

#[test]
fn gm_results_hold_keeps_the_monday_forms_back_and_release_sends_them_once() {
    let d = Dir::start();
    let early = failed(&d.cmd(&["gm", "results", "hold"], &[]));
    assert!(early.contains("no resolved weekend waits"), "{early}");
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    let none = failed(&d.cmd(&["gm", "results", "release"], &[]));
    assert!(none.contains("no results are held"), "{none}");
    let out = d.ok(&["gm", "results", "hold"]);
    assert!(out.contains("the results of round 1 are held"), "{out}");
    let twice = failed(&d.cmd(&["gm", "results", "hold"], &[]));
    assert!(twice.contains("already held"), "{twice}");
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    d.tick(MONDAY);
    let new = d.outbox_since(&seen);
    assert_eq!(new.len(), 1, "no realm's form, one notice: {new:?}");
    assert!(
        new[0].to_is("gm@game.test") && new[0].text.contains("gm results release"),
        "{}",
        new[0].text
    );
    assert_eq!(d.state()["phase"], "resolving", "the results are not out");
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    let out = d.ok(&["gm", "results", "release"]);
    assert!(out.contains("the results of round 1 mailed to"), "{out}");
    let forms = d.outbox_since(&seen);
    assert_eq!(forms.len(), REALMS.len(), "{forms:?}");
    assert!(REALMS.iter().all(|r| forms
        .iter()
        .any(|m| m.to_is(&format!("{}@game.test", r.to_lowercase())))));
    assert_eq!(d.state()["phase"], "weekday");
    let again = failed(&d.cmd(&["gm", "results", "release"], &[]));
    assert!(again.contains("no results are held"), "{again}");
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    d.tick("2026-11-30T13:00:00+01:00");
    assert!(d.outbox_since(&seen).is_empty(), "nothing goes out twice");
    let log = d.ok(&["gm", "log"]);
    assert!(
        log.contains("gm_results_hold") && log.contains("gm_results_release"),
        "{log}"
    );
}

#[test]
fn gm_results_release_before_the_results_event_only_lifts_the_hold() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    d.ok(&["gm", "results", "hold"]);
    let out = d.ok(&["gm", "results", "release"]);
    assert!(out.contains("hold on round 1's results is lifted"), "{out}");
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    d.tick(MONDAY);
    let forms: Vec<_> = d
        .outbox_since(&seen)
        .into_iter()
        .filter(|m| !m.to_is("gm@game.test"))
        .collect();
    assert_eq!(forms.len(), REALMS.len(), "the results event sends them");
}

/// Every mail to a realm among `mails`.
fn to_realms(mails: &[common::Sent]) -> Vec<&common::Sent> {
    mails.iter().filter(|m| !m.to_is("gm@game.test")).collect()
}

/// Afani's standing form of round 1 is corrected to NO ORDERS (`gm edit`).
async fn edit_afanis_form(d: &Dir) {
    let store = d.store().await;
    let mut c = store.conn().await.unwrap();
    let form = pbemd::store::forms::standing(&mut c, "Afani", 1)
        .await
        .unwrap()
        .unwrap();
    drop(c);
    store.close().await;
    let file = d.dir.join("corrected.txt");
    std::fs::write(&file, "NO ORDERS\n").unwrap();
    let id = form.message_id.to_string();
    d.ok(&["gm", "edit", &id, "--file", file.to_str().unwrap()]);
}

/// The GM holds the results, the `results` event keeps the forms back, and then the GM
/// rolls the weekend back, corrects a form and resolves again: the forms stay held, as
/// the GM asked, and `gm resolve` says that `gm results release` sends them (the results
/// event has passed). The release mails the corrected weekend's forms, once.
#[tokio::test]
async fn results_held_by_the_gm_stay_held_through_a_rollback_after_the_results_event() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    d.ok(&["gm", "results", "hold"]);
    d.tick(MONDAY);
    d.ok(&["gm", "rollback"]);
    edit_afanis_form(&d).await;
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    let out = d.ok(&["gm", "resolve"]);
    assert!(
        out.contains("the Monday forms stay held") && out.contains("gm results release"),
        "{out}"
    );
    assert!(!out.contains("results event"), "it has passed: {out}");
    assert!(to_realms(&d.outbox_since(&seen)).is_empty());
    assert_eq!(afani_orders(&d, 1).await, serde_json::json!([]));
    let out = d.ok(&["gm", "results", "release"]);
    assert!(out.contains("the results of round 1 mailed to"), "{out}");
    let mailed = d.outbox_since(&seen);
    let forms = to_realms(&mailed);
    assert_eq!(forms.len(), REALMS.len(), "{forms:?}");
    assert!(forms
        .iter()
        .all(|m| m.text.contains("round 2") || m.text.contains("runda 2")));
    assert_eq!(d.state()["phase"], "weekday");
    let again = failed(&d.cmd(&["gm", "results", "release"], &[]));
    assert!(again.contains("no results are held"), "{again}");
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    d.tick("2026-11-30T13:00:00+01:00");
    assert!(d.outbox_since(&seen).is_empty(), "nothing goes out twice");
}

/// The GM holds the results and rolls the weekend back before Monday: the `results`
/// event holds the forms and tells the GM both steps; `gm resolve` keeps them back, as
/// the GM asked, and `gm results release` sends them.
#[test]
fn results_held_by_the_gm_stay_held_when_the_weekend_is_rolled_back_before_monday() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    d.ok(&["gm", "results", "hold"]);
    d.ok(&["gm", "rollback"]);
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    d.tick(MONDAY);
    let new = d.outbox_since(&seen);
    assert_eq!(new.len(), 1, "no realm's form, one notice: {new:?}");
    assert!(
        new[0].to_is("gm@game.test")
            && new[0].text.contains("gm resolve")
            && new[0].text.contains("gm results release"),
        "{}",
        new[0].text
    );
    let out = d.ok(&["gm", "resolve"]);
    assert!(
        out.contains("the Monday forms stay held") && out.contains("gm results release"),
        "{out}"
    );
    assert!(
        to_realms(&d.outbox_since(&seen)).is_empty(),
        "the GM's hold stands"
    );
    assert_eq!(d.state()["phase"], "resolving", "the results are not out");
    let out = d.ok(&["gm", "results", "release"]);
    assert!(out.contains("the results of round 1 mailed to"), "{out}");
    assert_eq!(to_realms(&d.outbox_since(&seen)).len(), REALMS.len());
    let again = failed(&d.cmd(&["gm", "results", "hold"], &[]));
    assert!(again.contains("no resolved weekend waits"), "{again}");
}

/// A hold asked for while the weekend is rolled back (before its results went out) holds
/// its Monday forms as one asked between the resolution and the results does.
#[test]
fn results_can_be_held_while_the_weekend_is_rolled_back() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    d.ok(&["gm", "rollback"]);
    let out = d.ok(&["gm", "results", "hold"]);
    assert!(out.contains("the results of round 1 are held"), "{out}");
    let out = d.ok(&["gm", "resolve"]);
    assert!(
        out.contains("the GM holds the Monday forms: the results event keeps them back"),
        "{out}"
    );
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    d.tick(MONDAY);
    let new = d.outbox_since(&seen);
    assert_eq!(new.len(), 1, "no realm's form, one notice: {new:?}");
    assert!(
        new[0].text.contains("gm results release"),
        "{}",
        new[0].text
    );
    let out = d.ok(&["gm", "results", "release"]);
    assert!(out.contains("the results of round 1 mailed to"), "{out}");
    assert_eq!(to_realms(&d.outbox_since(&seen)).len(), REALMS.len());
}

/// The victory mails to the GM, as (subject, text).
fn victory_mails(g: &common::Game) -> Vec<(String, String)> {
    g.outbox()
        .into_iter()
        .filter(|m| m.to_is("gm@game.test") && m.subject.contains("victory"))
        .map(|m| (m.subject, m.text))
        .collect()
}

/// The message ids of every mail written so far.
fn ids(g: &common::Game) -> Vec<String> {
    g.outbox().into_iter().map(|m| m.message_id).collect()
}

/// The mails written since those with `seen` message ids.
fn since(g: &common::Game, seen: &[String]) -> Vec<common::Sent> {
    g.outbox()
        .into_iter()
        .filter(|m| !seen.contains(&m.message_id))
        .collect()
}

/// How many of `mails` are Monday forms to realms.
fn realm_forms(mails: &[common::Sent]) -> usize {
    mails
        .iter()
        .filter(|m| m.subject.ends_with(" form") || m.subject.ends_with(" helgformulär"))
        .count()
}

/// Genogien reaches the victory line in the state the weekend is resolved from.
async fn genogien_at_the_victory_line(g: &common::Game) {
    g.edit_state(|s| {
        let line = s.settings.victory_vp;
        s.realm_mut("Genogien").unwrap().vp = line;
    })
    .await;
}

/// A weekend rolled back over the `results` event and resolved again by `gm resolve`
/// ends the game: the held forms go out, and the GM gets the victory mail with them
/// (once; the next results event stays silent).
#[tokio::test]
async fn gm_resolve_of_held_results_that_end_the_game_mails_the_gm_the_victory() {
    let g = common::Game::start(TUESDAY).await;
    g.tick(DEADLINE).await;
    pbemd::app::weekend::rollback(&g.app, false).await.unwrap();
    g.tick(MONDAY).await;
    genogien_at_the_victory_line(&g).await;
    let seen = ids(&g);
    pbemd::app::weekend::gm_resolve(&g.app).await.unwrap();
    pbemd::app::sender::flush_all(&g.app).await.unwrap();
    assert_eq!(
        realm_forms(&since(&g, &seen)),
        REALMS.len(),
        "the held forms"
    );
    assert_eq!(g.state().await.phase, pbemd::game::state::Phase::Finished);
    let won = victory_mails(&g);
    assert_eq!(won.len(), 1, "{won:?}");
    assert!(won[0].1.contains("Genogien"), "{}", won[0].1);
    g.tick("2026-12-07T12:00:00+01:00").await;
    assert_eq!(victory_mails(&g).len(), 1, "told once");
}

/// A correction (rollback after the results, `gm resolve`) that first ends the game:
/// the corrected forms go out, and the GM gets the victory mail, marked as a correction.
#[tokio::test]
async fn a_correction_that_ends_the_game_mails_the_gm_the_victory() {
    let g = common::Game::start(TUESDAY).await;
    g.tick(DEADLINE).await;
    g.tick(MONDAY).await;
    assert!(victory_mails(&g).is_empty());
    pbemd::app::weekend::rollback(&g.app, false).await.unwrap();
    genogien_at_the_victory_line(&g).await;
    let seen = ids(&g);
    pbemd::app::weekend::gm_resolve(&g.app).await.unwrap();
    pbemd::app::sender::flush_all(&g.app).await.unwrap();
    let corrected = since(&g, &seen);
    assert_eq!(realm_forms(&corrected), REALMS.len(), "the corrected forms");
    assert!(corrected
        .iter()
        .filter(|m| !m.to_is("gm@game.test"))
        .all(|m| m.text.contains("CORRECTION") || m.text.contains("RÄTTELSE")));
    let won = victory_mails(&g);
    assert_eq!(won.len(), 1, "{won:?}");
    assert!(
        won[0].0.starts_with("RÄTTELSE / CORRECTION: "),
        "{}",
        won[0].0
    );
    assert!(won[0].1.contains("Genogien"), "{}", won[0].1);
}

/// A rollback left standing into the next weekend: a realm answering the Monday form of
/// the weekend undone (round 2) is refused, and the GM told; round 1's standing form is
/// untouched and counts when the GM resolves again.
#[tokio::test]
async fn a_form_for_the_next_round_is_refused_while_the_weekend_is_rolled_back() {
    let d = Dir::start();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    d.tick(MONDAY);
    let monday = d
        .outbox()
        .into_iter()
        .rfind(|m| m.to_is("afani@game.test") && m.subject == "Afani form")
        .unwrap()
        .text;
    assert!(monday.contains("round 2"), "{monday}");
    d.ok(&["gm", "rollback"]);
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    let quoted: String = monday.lines().map(|l| format!("> {l}\n")).collect();
    d.send(
        "afani@game.test",
        "Re: Afani form",
        &format!("NO ORDERS\n\nOn Mon 30 Nov, sl@game.test wrote:\n{quoted}"),
    );
    d.tick("2026-12-05T10:00:00+01:00");
    let new = d.outbox_since(&seen);
    let reply = new
        .iter()
        .find(|m| m.to_is("afani@game.test"))
        .expect("a reply");
    assert!(
        reply
            .text
            .contains("the GM is correcting the weekend of round 1"),
        "{}",
        reply.text
    );
    assert!(
        new.iter()
            .any(|m| m.to_is("gm@game.test") && m.subject.contains("form for round 2 refused")),
        "{new:?}"
    );
    let standing = afani_orders_standing(&d).await;
    assert!(
        standing.contains("BUY 1 spy"),
        "round 1's form stands: {standing}"
    );
    let out = d.ok(&["gm", "resolve"]);
    assert!(out.contains("corrected forms mailed"), "{out}");
    assert_eq!(afani_orders(&d, 1).await.as_array().map(Vec::len), Some(1));
}

/// The first order line of Afani's standing form of round 1.
async fn afani_orders_standing(d: &Dir) -> String {
    let store = d.store().await;
    let mut c = store.conn().await.unwrap();
    let form = pbemd::store::forms::standing(&mut c, "Afani", 1)
        .await
        .unwrap()
        .unwrap();
    let checked: pbemd::forms::Checked = serde_json::from_str(&form.orders.unwrap()).unwrap();
    checked.lines[0].text.clone()
}

/// A marker of held results stored by an older pbemd (the state's round while the weekend
/// is rolled back, not the Monday forms' round) still holds them: `gm resolve` sends them.
#[tokio::test]
async fn results_held_by_an_older_pbemd_for_a_rolled_back_weekend_are_sent_by_gm_resolve() {
    let g = common::Game::start(TUESDAY).await;
    g.tick(DEADLINE).await;
    pbemd::app::weekend::rollback(&g.app, false).await.unwrap();
    g.tick(MONDAY).await;
    let mut c = g.app.store.conn().await.unwrap();
    let key = pbemd::app::weekend::RESULTS_HELD;
    assert_eq!(
        pbemd::store::meta::get_i64(&mut c, key).await.unwrap(),
        Some(2)
    );
    pbemd::store::meta::set(&mut c, key, "1").await.unwrap();
    drop(c);
    let seen = ids(&g);
    let r = pbemd::app::weekend::gm_resolve(&g.app).await.unwrap();
    pbemd::app::sender::flush_all(&g.app).await.unwrap();
    assert!(
        matches!(r.forms, pbemd::app::weekend::FormsAfter::Held(_)),
        "{:?}",
        r.forms
    );
    assert_eq!(realm_forms(&since(&g, &seen)), REALMS.len());
}
