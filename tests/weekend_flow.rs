//! Whole weekends through the real binary (issue 8, section 6): `pbemd new`, `init`,
//! weekend forms mailed into the inbox Maildir, `tick` on Saturday, then `tick` across
//! the Sunday 15:00 deadline to Monday 12:00. The results are read back the way a player
//! and the GM see them: the "last weekend" section of each realm's Monday form in the
//! outbox, and `state --json`.
//!
//! The game is the demo scenario (`pbemd new`); the orders are the demo week's.

mod common;

#[path = "weekend_common/binary_game.rs"]
mod binary_game;

use binary_game::*;

use pbemd::game::{GameState, Square, UnitKind};

const SATURDAY: &str = "2026-11-28T10:00:00+01:00";
const SUNDAY_LATE: &str = "2026-11-29T16:00:00+01:00";
const MONDAY: &str = "2026-11-30T12:00:00+01:00";

impl Game {
    /// The played week: the forms on Saturday, a late form on Sunday, then Monday.
    fn play_the_demo_weekend(&self) {
        for (from, subject, body) in FORMS {
            self.mail(from, subject, body);
        }
        self.tick(SATURDAY);
        self.mail(
            "ostvik@game.test",
            "Ostvik form",
            "BUY 1 light infantry I11\n",
        );
        self.tick(SUNDAY_LATE);
        self.tick(MONDAY);
    }
}

/// The "last weekend" section of a result form: from its heading to the orders line.
fn last_weekend(form: &str) -> String {
    let start = form
        .find("-- FÖRRA HELGEN --")
        .or_else(|| form.find("-- LAST WEEKEND --"))
        .unwrap_or_else(|| panic!("no last-weekend section:\n{form}"));
    let rest = &form[start..];
    let body = rest.split_once('\n').map_or("", |(_, b)| b);
    let end = body.find("=== ").unwrap_or(body.len());
    body[..end].trim().to_string()
}

fn nothing_happened(section: &str) -> bool {
    section.is_empty()
        || section == "Inget hände förra helgen."
        || section == "Nothing happened last weekend."
}

/// Every realm of the demo, and whether it took part in the demo week's battle on H7.
const IN_THE_BATTLE_ON_H7: [(&str, bool); 6] = [
    ("kaldor@game.test", true),
    ("ostvik@game.test", true),
    ("afani@game.test", false),
    ("fugandri@game.test", false),
    ("genogien@game.test", false),
    ("mirandel@game.test", false),
];

/// The demo week's weekend forms (the same orders as `pbemd demo`).
const FORMS: &[(&str, &str, &str)] = &[
    (
        "fugandri@game.test",
        "Fugandri helgformulär",
        "KÖP 2 lätt infanteri\nKÖP 1 mur C7\nUPPGRADERA amiral 5 vatten\n",
    ),
    (
        "afani@game.test",
        "Afani form",
        "BUY 1 spy\nBUY 2 light infantry\nBUY 1 population K3\n",
    ),
    (
        "kaldor@game.test",
        "Kaldor helgformulär",
        "ANFALL armé 2 H7\nKÖP 2 tungt infanteri J8\nPRODUKTION J9 sten\n",
    ),
    (
        "genogien@game.test",
        "Genogien helgformulär",
        "KÖP 3 tungt infanteri B2\nKÖP 1 mur D2\nUPPGRADERA befälhavare 5 eld\n",
    ),
];

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

fn units_at(gs: &GameState, realm: &str, at: &str, kind: UnitKind) -> usize {
    gs.armies_of(realm)
        .filter(|a| a.square == sq(at))
        .flat_map(|a| a.units.iter())
        .filter(|u| u.kind == kind)
        .count()
}

fn all_units(gs: &GameState, realm: &str) -> usize {
    gs.armies_of(realm).map(|a| a.units.len()).sum()
}

#[test]
fn r_phase_1_a_whole_weekend_resolves_at_the_deadline_and_round_2_begins() {
    let g = Game::start();
    let before = g.state();
    g.play_the_demo_weekend();
    let after = g.state();
    assert_eq!(after.round, before.round + 1);
    // Every playing realm gets its Monday form, and each tells a weekend.
    for realm in &after.realms {
        let form = g.monday_form(&realm.emails[0]);
        assert!(
            form.contains("runda 2") || form.contains("round 2"),
            "{}: {form}",
            realm.name
        );
    }
}

/// The line that names the other realms on a Swedish form, with its continuation lines.
fn other_realms(form: &str) -> String {
    let start = form
        .find("Övriga riken: ")
        .unwrap_or_else(|| panic!("no other realms:\n{form}"));
    let rest = &form[start..];
    let end = rest.find("\nInbjudningar").unwrap_or(rest.len());
    rest[..end].split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn opening_forms_name_every_realm_and_monday_forms_beyond_the_limit_the_neighbours() {
    let g = Game::start_with_config("render:\n  realms_listed: 2\n");
    let gs = g.state();
    let kaldor = gs.realm("Kaldor").expect("Kaldor");
    let others: Vec<&str> = gs
        .realms
        .iter()
        .map(|r| r.name.as_str())
        .filter(|n| *n != "Kaldor")
        .collect();
    g.tick(START); // sends the opening forms init queued
    let opening = g.monday_form(&kaldor.emails[0]);
    assert_eq!(
        other_realms(&opening),
        format!("Övriga riken: {}", others.join(", "))
    );
    g.play_the_demo_weekend();
    let monday = g.monday_form(&kaldor.emails[0]);
    let line = other_realms(&monday);
    assert!(
        line.starts_with(&format!(
            "Övriga riken: {}, fler än formuläret räknar upp (alla stod i ert första formulär). \
             Grannar, med land inom 3 rutor från ert: ",
            others.len()
        )),
        "{line}"
    );
    // The neighbours named are other realms (Afani's and Ostvik's land lies within three
    // squares of Kaldor's on the demo's map).
    let near = line.rsplit_once(": ").map_or("", |(_, n)| n);
    assert_eq!(near, "Afani, Ostvik", "{line}");
}

#[test]
fn r_build_1_purchases_appear_and_are_paid_as_the_receipt_promised() {
    let g = Game::start();
    let before = g.state();
    g.play_the_demo_weekend();
    let after = g.state();
    // Genogien: 3 heavy infantry in B2, a wall in D2, Befälhavare 4 → 5.
    assert_eq!(
        units_at(&after, "Genogien", "B2", UnitKind::TungtInfanteri),
        units_at(&before, "Genogien", "B2", UnitKind::TungtInfanteri) + 3
    );
    let walls =
        |gs: &GameState, at: &str| gs.cities.iter().find(|c| c.square == sq(at)).unwrap().walls;
    assert_eq!(walls(&after, "D2"), walls(&before, "D2") + 1);
    let pos = |gs: &GameState| gs.realm("Genogien").unwrap().positions.befalhavare;
    assert_eq!(pos(&after), pos(&before) + 1);
    // R-UNIT-7: the new units carry the round they were built in.
    assert!(after
        .armies_of("Genogien")
        .flat_map(|a| a.units.iter())
        .any(|u| u.kind == UnitKind::TungtInfanteri && u.built_round == before.round));
    // Afani: a spy, two light infantry in the capital J2, +10 population in K3.
    let afani = |gs: &GameState| gs.realm("Afani").unwrap().spies;
    assert_eq!(afani(&after), afani(&before) + 1);
    assert_eq!(
        units_at(&after, "Afani", "J2", UnitKind::LattInfanteri),
        units_at(&before, "Afani", "J2", UnitKind::LattInfanteri) + 2
    );
    let pop = |gs: &GameState, at: &str| {
        gs.cities
            .iter()
            .find(|c| c.square == sq(at))
            .unwrap()
            .population
    };
    assert_eq!(pop(&after, "K3"), pop(&before, "K3") + 10);
    // Genogien's gold: 40 − 3 × 2 (heavy infantry) − 15 (upgrade), no gold produced.
    assert_eq!(after.realm("Genogien").unwrap().stock.guld, 19);
    // The Monday form tells the buyer.
    let section = last_weekend(&g.monday_form("genogien@game.test"));
    assert!(!nothing_happened(&section), "{section}");
}

#[test]
fn r_res_6_every_realm_produces_form_or_not() {
    let g = Game::start();
    let before = g.state();
    g.play_the_demo_weekend();
    let after = g.state();
    // Mirandel sent no form: its stock grows by exactly its production.
    let m0 = before.realm("Mirandel").unwrap();
    let m1 = after.realm("Mirandel").unwrap();
    let produced = m0.production(&before);
    assert_eq!(m1.stock, m0.stock.plus(&produced), "Mirandel");
    // Its Monday form tells the production.
    let section = last_weekend(&g.monday_form("mirandel@game.test"));
    assert!(!nothing_happened(&section), "{section}");
}

#[test]
fn r_combat_3_an_ordered_attack_is_fought_and_told_only_to_those_in_it() {
    let g = Game::start();
    let before = g.state();
    g.play_the_demo_weekend();
    let after = g.state();
    // Ostvik's archers shoot first at a side without archers (RULINGS 12): Kaldor's
    // army 2 (3 units) loses at least one, whoever wins.
    let kaldor2 = |gs: &GameState| {
        gs.armies_of("Kaldor")
            .find(|a| a.id == 2)
            .map_or(0, |a| a.units.len())
    };
    assert_eq!(kaldor2(&before), 3);
    assert!(kaldor2(&after) < 3, "Kaldor's army 2 lost units");
    let fought = all_units(&after, "Ostvik") < all_units(&before, "Ostvik") || kaldor2(&after) == 0;
    assert!(fought, "someone lost the battle on H7");
    for (addr, in_it) in IN_THE_BATTLE_ON_H7 {
        let section = last_weekend(&g.monday_form(addr));
        assert_eq!(section.contains("H7"), in_it, "{addr}: {section}");
    }
}

/// The next week's reminders carry each realm's current form with its own report of
/// the last weekend: the battle on H7 only to the two realms in it (the forms of all
/// the reminded realms are written from one index of the state and the events).
#[test]
fn next_weeks_reminders_tell_each_realm_only_its_own_last_weekend() {
    let g = Game::start();
    g.play_the_demo_weekend();
    g.tick("2026-12-06T09:00:00+01:00");
    let reminders: Vec<_> = g
        .outbox()
        .into_iter()
        .filter(|m| m.text.starts_with("Påminnelse") || m.text.starts_with("Reminder"))
        .collect();
    for (addr, in_it) in IN_THE_BATTLE_ON_H7 {
        let mine: Vec<_> = reminders.iter().filter(|m| m.to_is(addr)).collect();
        assert_eq!(mine.len(), 1, "{addr}: one reminder in round 2");
        assert!(mine[0].text.contains("runda 2") || mine[0].text.contains("round 2"));
        let section = last_weekend(&mine[0].text);
        assert!(!nothing_happened(&section), "{addr}: {section}");
        assert_eq!(section.contains("H7"), in_it, "{addr}: {section}");
        assert_eq!(section, last_weekend(&g.monday_form(addr)), "{addr}");
    }
}

/// R-POS-3 through the binary: the GM set Genogien's Befälhavare to 10 (edited state);
/// its form raises it to 11; Monday's form tells Genogien the GM's secret text, and
/// no other realm; the GM is mailed it to apply.
#[test]
fn r_pos_3_a_realm_at_11_reads_its_secret_advantage_and_the_gm_is_mailed_it() {
    let g = Game::start();
    let mut gs = g.state();
    gs.realm_mut("Genogien").unwrap().positions.befalhavare = 10;
    g.import_state(&gs);
    g.play_the_demo_weekend();
    let text = "En gång per runda får en armé flytta efter strid.";
    let genogien = g.monday_form("genogien@game.test");
    // The section is word-wrapped: read it as one line.
    let section = last_weekend(&genogien)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        section.contains(&format!("Hemlig fördel (Befälhavare 11): {text}")),
        "{genogien}"
    );
    assert!(
        genogien.contains(&format!("Befälhavare 11+: {text}")),
        "{genogien}"
    );
    for other in ["afani@game.test", "kaldor@game.test", "ostvik@game.test"] {
        assert!(!g.monday_form(other).contains(text), "{other}");
    }
    let gm = g.for_the_gm();
    assert_eq!(gm.len(), 1, "one mail to the GM");
    assert!(
        gm[0].text.contains("Genogien har nått Befälhavare 11") && gm[0].text.contains(text),
        "{}",
        gm[0].text
    );
    assert_eq!(
        g.state().realm("Genogien").unwrap().secret_bonuses.len(),
        1,
        "kept in the state"
    );
}

#[test]
fn r_mail_11_a_form_after_the_deadline_changes_nothing() {
    let g = Game::start();
    let before = g.state();
    g.play_the_demo_weekend();
    let after = g.state();
    assert_eq!(
        units_at(&after, "Ostvik", "I11", UnitKind::LattInfanteri),
        units_at(&before, "Ostvik", "I11", UnitKind::LattInfanteri),
        "the late form bought nothing"
    );
}

#[test]
fn a_weekend_is_resolved_once_a_second_tick_changes_nothing() {
    let g = Game::start();
    g.play_the_demo_weekend();
    let once = g.state();
    let forms = g.outbox().iter().filter(|m| is_result_form(m)).count();
    g.tick("2026-11-30T12:05:00+01:00");
    assert_eq!(g.state(), once);
    assert_eq!(
        g.outbox().iter().filter(|m| is_result_form(m)).count(),
        forms,
        "no result form twice"
    );
}

#[test]
fn r_free_1_next_weeks_lot_is_announced_on_every_monday_form() {
    let g = Game::start();
    g.play_the_demo_weekend();
    let after = g.state();
    let offer = after.free_merchant.clone().expect("a lot was drawn");
    assert_eq!(
        offer.round, after.round,
        "the lot is for the week that begins"
    );
    for realm in after.realms.iter().filter(|r| !r.eliminated) {
        let form = g.monday_form(&realm.emails[0]);
        let box_line = form.contains("De fria köpmännen erbjuder:")
            || form.contains("The free merchants offer:");
        let report = last_weekend(&form);
        let reported = report.contains("De fria köpmännen erbjuder nästa vecka")
            || report.contains("Next week the free merchants offer");
        assert!(box_line && reported, "{}: {form}", realm.name);
    }
}
