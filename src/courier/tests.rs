//! Rule cases for the courier, one test per rule ID, on the demo scenario
//! (`testdata/demo.yaml`, a copy of the main crate's). Dice are scripted
//! wherever a roll decides the case.

use chrono::{DateTime, TimeZone, Utc};

use super::batch::{route_batch, Context, Decision, Dispatch, Outcome, Queued, SpyResult};
use super::{Charge, Refusal, Shortage};
use crate::game::dice::Dice;
use crate::game::state::{Ruler, RulerBenefit, SpellEffect, SpellTarget, SpyState, Terrain, Vote};
use crate::game::text::MailKind;
use crate::game::{
    load_scenario, GameState, Lang, Resource, Resources, ShipKind, Spell, Square, UnitKind,
};
use crate::schedule::{Schedule, Window};

/// The demo game, round 3.
pub(crate) fn demo() -> GameState {
    let mut s = load_scenario(include_str!("testdata/demo.yaml")).expect("demo scenario loads");
    s.round = 3;
    s
}

/// The demo game with room in Afani for bought units (population 200 in J2).
fn roomy() -> GameState {
    let mut s = demo();
    let j2 = Square::parse("J2").unwrap();
    s.cities
        .iter_mut()
        .filter(|c| c.square == j2)
        .for_each(|c| c.population = 200);
    s
}

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

/// Tuesday 24 November 2026, `h`:`m` UTC.
fn tue(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 24, h, m, 0).unwrap()
}

fn mail(id: u64, kind: MailKind, from: &str, to: Option<&str>, body: &str) -> Queued {
    Queued {
        id,
        kind,
        from: from.into(),
        to: to.map(Into::into),
        topic: None,
        body: body.into(),
        received_at: tue(10, id as u32 % 60),
        window: Window::Weekday,
    }
}

fn envoy(id: u64, from: &str, to: &str, body: &str) -> Queued {
    mail(id, MailKind::Envoy, from, Some(to), body)
}

fn ctx() -> Context {
    Context {
        now: tue(18, 0),
        ..Context::default()
    }
}

fn run(state: &mut GameState, mails: &[Queued], faces: &[u32]) -> (Vec<Decision>, Dice) {
    let mut dice = Dice::scripted("test", faces);
    let mut c = ctx();
    let d = route_batch(state, mails, &mut c, &mut dice);
    (d, dice)
}

fn effect(spell: Spell, caster: &str, target: &str, round: u32) -> SpellEffect {
    SpellEffect {
        spell,
        caster: caster.into(),
        target: SpellTarget::Realm(target.into()),
        cast_round: round - 1,
        expires_round: round,
    }
}

fn refusal(d: &Decision) -> &Refusal {
    match &d.outcome {
        Outcome::Refused(r) => r,
        o => panic!("expected a refusal, got {o:?}"),
    }
}

fn envoy_price() -> Resources {
    Resources::from_pairs(&[(Resource::Mat, 1), (Resource::Tyg, 1), (Resource::Guld, 3)])
}

// ---------------------------------------------------------------- allowance

/// R-AGENT-4 / R-ENVOY-2 / RULINGS 15 — the Språkrör-th envoy is free, the
/// next costs its price, the one after the realm runs dry is refused with
/// nothing charged. Same table for merchants and Skattmästare.
#[test]
fn r_agent_4_allowance_boundary_free_paid_refused() {
    let merchant_price =
        Resources::from_pairs(&[(Resource::Mat, 1), (Resource::Tyg, 1), (Resource::Guld, 1)]);
    for (kind, price, body) in [
        (MailKind::Envoy, envoy_price(), "Hej"),
        (
            MailKind::Merchant,
            merchant_price,
            "Förslag\n****\nSkickar: ingenting",
        ),
    ] {
        let mut s = demo();
        let g = s.realm_mut("Genogien").unwrap();
        g.positions.sprakror = 2;
        g.positions.skattmastare = 2;
        g.stock = price; // exactly one paid agent
        let mails: Vec<Queued> = (1..=4)
            .map(|i| mail(i, kind, "Genogien", Some("Afani"), body))
            .collect();
        let (d, _) = run(&mut s, &mails, &[]);
        let r: Vec<_> = d.iter().map(|x| x.receipt.clone()).collect();
        let (r1, r2, r3) = (
            r[0].clone().unwrap(),
            r[1].clone().unwrap(),
            r[2].clone().unwrap(),
        );
        assert!(
            r1.free && r1.charged.is_zero() && r1.allowance_left == 1,
            "{kind:?}"
        );
        assert!(
            r2.free && r2.charged.is_zero() && r2.allowance_left == 0,
            "{kind:?}"
        );
        assert!(
            !r3.free && r3.charged == price && r3.stock_after.is_zero(),
            "{kind:?}"
        );
        assert_eq!(
            refusal(&d[3]),
            &Refusal::CannotPay {
                charge: if kind == MailKind::Envoy {
                    Charge::Envoy
                } else {
                    Charge::Merchant
                },
                price,
                lacks: price
            }
        );
        assert!(d[3].receipt.is_none() && d[3].dispatches.is_empty());
        let g = s.realm("Genogien").unwrap();
        assert!(g.stock.is_zero());
        assert_eq!(
            g.sent.envoys + g.sent.merchants,
            3,
            "the refused one is not counted"
        );
        let text = refusal(&d[3]).explain(Lang::Sv, None);
        assert!(
            text.contains("Det fattas 1 mat, 1 tyg") && text.contains("Inget har dragits"),
            "{text}"
        );
    }
}

// ---------------------------------------------------------------- windows

/// R-MAIL-8 / R-MAIL-11: Friday 23:59:59 (Stockholm) is inside the weekday
/// window, Saturday 00:00:00 is not; the window comes from `window_at`.
#[test]
fn r_mail_8_window_edges_friday_235959_in_saturday_000000_out() {
    let sched = Schedule::default_week();
    let fri = Utc.with_ymd_and_hms(2026, 11, 27, 22, 59, 59).unwrap(); // 23:59:59 CET
    let sat = Utc.with_ymd_and_hms(2026, 11, 27, 23, 0, 0).unwrap(); // 00:00:00 CET
    assert_eq!(sched.window_at(fri), Window::Weekday);
    assert_eq!(sched.window_at(sat), Window::Weekend);
    let mut s = demo();
    let mut a = envoy(1, "Genogien", "Afani", "Hej");
    a.received_at = fri;
    a.window = sched.window_at(fri);
    let mut b = envoy(2, "Genogien", "Afani", "Hej");
    b.received_at = sat;
    b.window = sched.window_at(sat);
    let mut gm = mail(3, MailKind::ToGm, "Genogien", None, "Fråga om regler");
    gm.received_at = sat;
    gm.window = sched.window_at(sat);
    let (d, _) = run(&mut s, &[a, b, gm], &[]);
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert!(matches!(
        refusal(&d[1]),
        Refusal::OutsideWindow {
            needed: Window::Weekday,
            held: Window::Weekend,
            ..
        }
    ));
    assert_eq!(d[2].outcome, Outcome::ToGm, "mail to the GM any time");
    assert_eq!(s.realm("Genogien").unwrap().sent.envoys, 1);
}

/// RULINGS 18 — Reveal by mail to the GM, weekday window, once per round.
#[test]
fn rulings_18_reveal_by_mail_once_per_round_in_the_weekday_window() {
    let mut s = demo();
    s.effects
        .push(effect(Spell::Isolering, "Kaldor", "Mirandel", 3));
    s.realm_mut("Mirandel").unwrap().stock = Spell::Avsloja.cost().times(3);
    let mut m1 = mail(1, MailKind::ToGm, "Mirandel", None, "");
    m1.topic = Some("Avslöja".into());
    let m2 = mail(2, MailKind::ToGm, "Mirandel", None, "Avslöja: Isolering");
    let mut m3 = m2.clone();
    m3.id = 3;
    m3.window = Window::Weekend;
    let (d, _) = run(&mut s, &[m1, m2, m3], &[5]);
    assert_eq!(d[0].outcome, Outcome::Reveal { success: true });
    assert!(
        matches!(&d[0].dispatches[0], Dispatch::RevealResult { found: Some((Spell::Isolering, c)), .. } if c == "Kaldor")
    );
    assert_eq!(refusal(&d[1]), &Refusal::RevealUsed);
    assert!(matches!(
        refusal(&d[2]),
        Refusal::RevealOutsideWindow { .. }
    ));
    assert_eq!(
        s.realm("Mirandel").unwrap().stock,
        Spell::Avsloja.cost().times(2)
    );
}

/// R-SPELL table 27 — the weekday Reveal finds a spell another realm cast on one of
/// the realm's cities, not only on its land, and never the realm's own casts.
#[test]
fn r_spell_5_a_weekday_reveal_finds_a_spell_on_the_realms_city() {
    let mut s = demo();
    let city = s
        .cities
        .iter()
        .find(|c| c.owner == "Mirandel")
        .unwrap()
        .square;
    let mut plague = effect(Spell::Pest, "Kaldor", "Mirandel", 3);
    plague.target = SpellTarget::City(city);
    s.effects.push(plague);
    s.effects
        .push(effect(Spell::Skold, "Mirandel", "Mirandel", 3));
    s.realm_mut("Mirandel").unwrap().stock = Spell::Avsloja.cost();
    let mut m = mail(1, MailKind::ToGm, "Mirandel", None, "");
    m.topic = Some("Avslöja".into());
    let (d, _) = run(&mut s, &[m], &[5]);
    assert_eq!(d[0].outcome, Outcome::Reveal { success: true });
    assert!(
        matches!(&d[0].dispatches[0], Dispatch::RevealResult { found: Some((Spell::Pest, c)), .. } if c == "Kaldor"),
        "{:?}",
        d[0].dispatches
    );
}

/// Mirandel's weekday Reveal rolled a natural 1: its stock after, and what the
/// receipt says was charged.
fn failed_weekday_reveal(failed_cast_pays: bool) -> (Decision, Resources) {
    let mut s = demo();
    s.settings.spells.failed_cast_pays = failed_cast_pays;
    s.realm_mut("Mirandel").unwrap().stock = Spell::Avsloja.cost();
    let mut m = mail(1, MailKind::ToGm, "Mirandel", None, "");
    m.topic = Some("Avslöja".into());
    let (mut d, _) = run(&mut s, &[m], &[1]);
    assert_eq!(d[0].outcome, Outcome::Reveal { success: false });
    (d.remove(0), s.realm("Mirandel").unwrap().stock)
}

/// RULINGS 17 — a weekday Reveal that fails is still paid for.
#[test]
fn rulings_17_a_failed_weekday_reveal_is_still_paid() {
    let (d, stock) = failed_weekday_reveal(true);
    assert_eq!(stock, Resources::ZERO);
    assert_eq!(d.receipt.unwrap().charged, Spell::Avsloja.cost());
}

/// RULINGS 17 — with `failed_cast_pays: false` a failed weekday Reveal costs
/// nothing, as a failed cast at the weekend.
#[test]
fn rulings_17_setting_off_a_failed_weekday_reveal_costs_nothing() {
    let (d, stock) = failed_weekday_reveal(false);
    assert_eq!(stock, Spell::Avsloja.cost());
    assert_eq!(d.receipt.unwrap().charged, Resources::ZERO);
}

// ---------------------------------------------------------------- spies

/// Kaldor, then Mirandel, station a spy in Afani; Genogien's envoy to Afani
/// passes. Returns the state after stationing.
fn two_thieves_in_afani() -> GameState {
    let mut s = demo();
    s.realm_mut("Genogien").unwrap().stock = Resources::ZERO;
    let mails = vec![
        mail(
            1,
            MailKind::Spy,
            "Kaldor",
            Some("Afani"),
            "Uppdrag: stjäl sändebud",
        ),
        mail(2, MailKind::Spy, "Mirandel", Some("Afani"), "Uppdrag: 8"),
    ];
    let (d, _) = run(&mut s, &mails, &[]);
    assert!(d
        .iter()
        .all(|x| matches!(x.outcome, Outcome::SpyStationed { .. })));
    s
}

/// R-SPY-4 and the map pictures: a successful report of places (mission 3) is kept with
/// the spy as it was made (the round, each group on its square with its units); a
/// failed spy and a mission without places keep nothing.
#[test]
fn r_spy_4_a_successful_report_of_places_is_kept_with_the_spy() {
    let mut s = demo();
    s.realm_mut("Genogien").unwrap().spies = 3;
    let mails = vec![
        mail(
            1,
            MailKind::Spy,
            "Genogien",
            Some("Afani"),
            "Uppdrag: arméer",
        ),
        mail(
            2,
            MailKind::Spy,
            "Genogien",
            Some("Afani"),
            "Uppdrag: arméer",
        ),
        mail(3, MailKind::Spy, "Genogien", Some("Afani"), "Uppdrag: 4"),
    ];
    // Informatör 5: 5 + 9 succeeds, a natural 1 fails, 5 + 8 succeeds.
    let (d, _) = run(&mut s, &mails, &[9, 1, 8]);
    let spy = |k: usize| match d[k].outcome {
        Outcome::SpyDone { spy, .. } => s.spies.iter().find(|x| x.id == spy).unwrap(),
        ref o => panic!("{o:?}"),
    };
    let saw = spy(0).saw.as_ref().expect("the report's places are kept");
    assert_eq!(saw.round, s.round);
    let afani: Vec<_> = s.armies_of("Afani").collect();
    assert_eq!(saw.armies.len(), afani.len());
    for (g, a) in saw.armies.iter().zip(&afani) {
        assert_eq!(
            (g.owner.as_str(), g.id, g.square, g.units),
            ("Afani", a.id, a.square, a.units.len() as u32)
        );
    }
    assert_eq!(saw.fleets.len(), s.fleets_of("Afani").count());
    assert!(saw.cities.is_empty());
    assert_eq!(spy(1).state, SpyState::Failed);
    assert_eq!(spy(1).saw, None, "a failed spy saw nothing");
    for k in 0..3 {
        assert_eq!(
            spy(k).done_round,
            Some(s.round),
            "its work ended this round"
        );
    }
    assert_eq!(spy(2).saw, None, "position values have no places");
}

fn spy_of<'a>(s: &'a GameState, owner: &str) -> &'a crate::game::state::StationedSpy {
    s.spies.iter().find(|x| x.owner == owner).unwrap()
}

/// R-SPY-10 / RULINGS 46 — the spy placed first tries first; its failure
/// spends it and the second tries the same envoy.
#[test]
fn r_spy_10_first_placed_tries_first() {
    let mut s = two_thieves_in_afani();
    let e = envoy(10, "Genogien", "Afani", "Hemligt: vi anfaller i morgon.");
    // Kaldor (Informatör 4) rolls a natural 1; Mirandel (6) rolls 5: 11 > 10.
    let (d, dice) = run(&mut s, &[e], &[1, 5]);
    assert_eq!(dice.rolls().len(), 2);
    assert_eq!(spy_of(&s, "Kaldor").state, SpyState::Failed);
    assert_eq!(spy_of(&s, "Mirandel").state, SpyState::Succeeded);
    assert!(matches!(&d[0].outcome, Outcome::Intercepted { thief, .. } if thief == "Mirandel"));
    let stolen = d[0].dispatches.iter().find_map(|x| match x {
        Dispatch::Stolen { thief, text, .. } => Some((thief.clone(), text.clone())),
        _ => None,
    });
    assert_eq!(
        stolen,
        Some(("Mirandel".into(), "Hemligt: vi anfaller i morgon.".into()))
    );
    assert!(
        !d[0]
            .dispatches
            .iter()
            .any(|x| matches!(x, Dispatch::Envoy { .. })),
        "Afani gets nothing"
    );
    assert!(d[0].dispatches.iter().any(|x| matches!(x, Dispatch::SpyReport { owner, result: SpyResult::InterceptionFailed, .. } if owner == "Kaldor")));
    // The sender's receipt is that of any accepted envoy.
    let r = d[0].receipt.as_ref().unwrap();
    assert!(r.free && r.allowance_left == 5);
}

/// R-SPY-10: a success leaves the other spy waiting, unaware; it tries the
/// next envoy.
#[test]
fn r_spy_10_success_leaves_the_second_waiting_unaware() {
    let mut s = two_thieves_in_afani();
    let (d, _) = run(&mut s, &[envoy(10, "Genogien", "Afani", "Ett")], &[10]);
    assert!(matches!(&d[0].outcome, Outcome::Intercepted { thief, .. } if thief == "Kaldor"));
    assert_eq!(spy_of(&s, "Mirandel").state, SpyState::Waiting);
    assert!(!d[0].dispatches.iter().any(|x| matches!(x,
        Dispatch::SpyReport { owner, .. } | Dispatch::Stolen { thief: owner, .. } if owner == "Mirandel")));
    let (d, _) = run(&mut s, &[envoy(11, "Afani", "Ostvik", "Två")], &[10]);
    assert!(matches!(&d[0].outcome, Outcome::Intercepted { thief, .. } if thief == "Mirandel"));
}

/// R-SPY-8 (b): a filtered thief only takes envoys to/from its realm; the
/// owner's own envoys are not taken; merchants are never stolen (RULINGS 44).
#[test]
fn r_spy_8_filter_own_mail_and_merchants_are_not_stolen() {
    let mut s = demo();
    let station = mail(
        1,
        MailKind::Spy,
        "Kaldor",
        Some("Afani"),
        "Mission: steal envoys to/from Ostvik",
    );
    let a = envoy(2, "Genogien", "Afani", "Not for Kaldor");
    let b = envoy(3, "Kaldor", "Afani", "Kaldor's own");
    let c = mail(
        4,
        MailKind::Merchant,
        "Ostvik",
        Some("Afani"),
        "****\nSends: nothing",
    );
    let e = envoy(5, "Ostvik", "Afani", "This one");
    let (d, dice) = run(&mut s, &[station, a, b, c, e], &[10]);
    assert_eq!(d[1].outcome, Outcome::Delivered);
    assert_eq!(d[2].outcome, Outcome::Delivered);
    assert_eq!(d[3].outcome, Outcome::Delivered);
    assert!(matches!(&d[4].outcome, Outcome::Intercepted { thief, .. } if thief == "Kaldor"));
    assert_eq!(dice.rolls().len(), 1);
}

/// R-SPY-7 / R-SPELL-7: Shield sends a spy home empty-handed (spent); it
/// does not stop a forgery, which arrives like any envoy.
#[test]
fn r_spy_7_shield_stops_a_spy_not_a_forgery() {
    let mut s = demo();
    s.effects.push(effect(Spell::Skold, "Afani", "Afani", 3));
    let spy = mail(
        1,
        MailKind::Spy,
        "Kaldor",
        Some("Afani"),
        "Uppdrag: resurser",
    );
    let forge = mail(
        2,
        MailKind::Spy,
        "Kaldor",
        Some("Afani"),
        "Uppdrag: förfalskning\nAvsändare: Genogien\nVi bryter vår allians.",
    );
    let (d, _) = run(&mut s, &[spy, forge], &[7]);
    assert!(matches!(d[0].outcome, Outcome::SpyBlocked { .. }));
    assert!(d[0].dispatches.iter().any(|x| matches!(
        x,
        Dispatch::SpyReport {
            result: SpyResult::EmptyHanded,
            ..
        }
    )));
    assert!(matches!(
        d[1].outcome,
        Outcome::SpyDone { success: true, .. }
    ));
    let forged = d[1]
        .dispatches
        .iter()
        .find(|x| matches!(x, Dispatch::Envoy { .. }))
        .unwrap();
    assert_eq!(
        forged,
        &Dispatch::Envoy {
            to: "Afani".into(),
            shown_from: "Genogien".into(),
            text: "Vi bryter vår allians.".into(),
            gift: None,
            invitation: None,
            due_at: tue(18, 0),
        },
        "indistinguishable from a real envoy"
    );
    assert_eq!(s.realm("Kaldor").unwrap().spies, 0, "both spies used");
}

/// R-SPELL-8 / RULINGS 19 — Isolation returns the isolated realm's envoys,
/// spent (charged, counted), forged ones too; home-invitations pass.
#[test]
fn r_spell_8_isolation_returns_envoys_forged_too_not_home_invitations() {
    let mut s = demo();
    s.effects
        .push(effect(Spell::Isolering, "Afani", "Kaldor", 3));
    let real = envoy(1, "Kaldor", "Genogien", "Hej\n***\nSkickar: 2 järn");
    let before = s.realm("Kaldor").unwrap().stock;
    let forged = mail(
        2,
        MailKind::Spy,
        "Kaldor",
        Some("Genogien"),
        "Uppdrag: 6\nAvsändare: Afani\nFalskt",
    );
    let home = mail(3, MailKind::ToGm, "Kaldor", None, "Hembjudan: armé 2");
    let (d, _) = run(&mut s, &[real, forged, home], &[10]);
    assert_eq!(
        d[0].outcome,
        Outcome::Returned {
            caster: "Afani".into()
        }
    );
    assert!(matches!(&d[0].dispatches[0], Dispatch::Returned { to, .. } if to == "Kaldor"));
    assert!(d[1]
        .dispatches
        .iter()
        .any(|x| matches!(x, Dispatch::Returned { .. })));
    assert!(!d[1]
        .dispatches
        .iter()
        .any(|x| matches!(x, Dispatch::Envoy { .. })));
    assert!(matches!(d[2].outcome, Outcome::HomeInvitation { .. }));
    assert_eq!(s.home_invitations.len(), 1);
    assert_eq!(
        s.realm("Kaldor").unwrap().sent.envoys,
        2,
        "the returned envoy is spent"
    );
    assert_eq!(
        s.realm("Kaldor").unwrap().stock,
        before,
        "free envoys; the gift stayed home"
    );
}

/// R-INV-7 / R-ENVOY-4: an intercepted invitation becomes the thief's, not
/// the recipient's; the thief may then forge one envoy to the recipient free.
#[test]
fn r_inv_7_intercepted_invitation_is_the_thiefs_and_one_free_forgery() {
    let mut s = demo();
    let station = mail(
        1,
        MailKind::Spy,
        "Kaldor",
        Some("Genogien"),
        "Uppdrag: stjäl sändebud",
    );
    let inv = envoy(2, "Genogien", "Afani", "Kom och hjälp oss!\nInbjudan: C3");
    let (d, _) = run(&mut s, &[station, inv], &[9]);
    assert!(matches!(&d[1].outcome, Outcome::Intercepted { thief, .. } if thief == "Kaldor"));
    let k = &s.realm("Kaldor").unwrap().invitations;
    assert_eq!(k.len(), 1);
    assert_eq!(
        (k[0].from.as_str(), k[0].square, k[0].valid_until_round),
        ("Genogien", sq("C3"), 3)
    );
    assert_eq!(k[0].intercepted_from.as_deref(), Some("Afani"));
    assert!(s.realm("Afani").unwrap().invitations.is_empty());

    let before = s.realm("Kaldor").unwrap().clone();
    let f1 = envoy(3, "Kaldor", "Afani", "Avsändare: Genogien\nGlöm inbjudan.");
    let f2 = envoy(4, "Kaldor", "Afani", "Avsändare: Genogien\nEn till.");
    let f3 = envoy(5, "Kaldor", "Ostvik", "Avsändare: Genogien\nFel mottagare.");
    let mut c = ctx();
    let mut dice = Dice::scripted("t", &[9]);
    let mut first = route_batch(
        &mut s,
        &[envoy(9, "Genogien", "Afani", "Inbjudan: C3")],
        &mut c,
        &mut dice,
    );
    assert!(
        matches!(first.remove(0).outcome, Outcome::Delivered),
        "the spy was used up"
    );
    // The right lives in the ledger of the first batch; carry it over.
    let mut c2 = ctx();
    c2.ledger.round = 3;
    c2.ledger.forgery_rights.push(super::batch::ForgeryRight {
        holder: "Kaldor".into(),
        recipient: "Afani".into(),
        original_sender: "Genogien".into(),
        used: false,
    });
    let d = route_batch(
        &mut s,
        &[f1, f2, f3],
        &mut c2,
        &mut Dice::scripted("t", &[]),
    );
    assert!(
        matches!(&d[0].dispatches[0], Dispatch::Envoy { shown_from, .. } if shown_from == "Genogien")
    );
    assert!(d[0].receipt.as_ref().unwrap().charged.is_zero());
    assert_eq!(refusal(&d[1]), &Refusal::ForgeryNeedsSpy);
    assert_eq!(refusal(&d[2]), &Refusal::ForgeryNeedsSpy);
    assert_eq!(
        s.realm("Kaldor").unwrap().sent,
        before.sent,
        "free, outside the allowance"
    );
    assert_eq!(
        s.realm("Afani").unwrap().invitations.len(),
        1,
        "the later real one arrived"
    );
}

/// R-INV-1: an invitation is recorded for the recipient, valid through the
/// coming weekend; a square outside the inviter's land is refused.
#[test]
fn r_inv_1_invitation_recorded_and_bad_square_refused() {
    let mut s = demo();
    let ok = envoy(1, "Genogien", "Afani", "Invitation: c3");
    let bad = envoy(2, "Genogien", "Afani", "Inbjudan: J2");
    let (d, _) = run(&mut s, &[ok, bad], &[]);
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert_eq!(
        refusal(&d[1]),
        &Refusal::InvitationNotYourLand { square: sq("J2") }
    );
    let inv = &s.realm("Afani").unwrap().invitations;
    assert_eq!(
        (inv.len(), inv[0].square, inv[0].valid_until_round),
        (1, sq("C3"), 3)
    );
}

/// R-INV-2: "fleets work in the same way" — an invitation may name the sea off the
/// inviter's land (sea belongs to no realm), for a fleet; sea away from it is refused.
#[test]
fn r_inv_2_an_invitation_may_name_the_sea_off_the_inviters_land_for_a_fleet() {
    let mut s = demo();
    let (w, h, diagonal) = (s.map.width, s.map.height, s.settings.adjacency == 8);
    let own = |s: &GameState, q: Square| {
        s.map
            .get(q)
            .is_some_and(|m| m.terrain == Terrain::Land && m.owner.as_deref() == Some("Genogien"))
    };
    let sea: Vec<Square> = s
        .map
        .squares
        .iter()
        .filter(|(_, m)| m.terrain == Terrain::Sea)
        .map(|(q, _)| q)
        .collect();
    let off = *sea
        .iter()
        .find(|q| q.neighbours(w, h, diagonal).into_iter().any(|n| own(&s, n)))
        .expect("sea off Genogien's coast");
    let far = *sea
        .iter()
        .find(|q| !q.neighbours(w, h, diagonal).into_iter().any(|n| own(&s, n)))
        .expect("sea away from Genogien");
    let ok = envoy(1, "Genogien", "Afani", &format!("Inbjudan: {off}"));
    let bad = envoy(2, "Genogien", "Afani", &format!("Inbjudan: {far}"));
    let (d, _) = run(&mut s, &[ok, bad], &[]);
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert_eq!(
        refusal(&d[1]),
        &Refusal::InvitationNotYourLand { square: far }
    );
    let inv = &s.realm("Afani").unwrap().invitations;
    assert_eq!(inv.iter().map(|i| i.square).collect::<Vec<_>>(), [off]);
}

/// R-SPY-4 / RULINGS 43 — a mission rolls, uses the spy either way, and a
/// success reports the data; contacts come from history plus this batch.
#[test]
fn r_spy_4_missions_roll_use_the_spy_and_report_data() {
    let mut s = demo();
    s.votes.push(Vote {
        round: 2,
        voter: "Afani".into(),
        candidate: "Mirandel".into(),
    });
    let history = vec![super::mission::Contact {
        round: 2,
        from: "Fugandri".into(),
        to: "Afani".into(),
        kind: super::mission::ContactKind::Merchant,
    }];
    let mails = vec![
        envoy(1, "Ostvik", "Afani", "Hej"),
        mail(
            2,
            MailKind::Spy,
            "Mirandel",
            Some("Afani"),
            "Uppdrag: kontakter",
        ),
        mail(3, MailKind::Spy, "Mirandel", Some("Afani"), "Uppdrag: 1"),
        mail(
            4,
            MailKind::Spy,
            "Mirandel",
            Some("Afani"),
            "Uppdrag: röster",
        ),
        mail(5, MailKind::Spy, "Mirandel", Some("Afani"), "Uppdrag: 4"),
    ];
    let mut c = ctx();
    c.contacts = history;
    // 5+6 > 10 succeeds; natural 1 fails; 9 succeeds.
    let d = route_batch(&mut s, &mails, &mut c, &mut Dice::scripted("t", &[5, 1, 9]));
    let intel = |x: &Decision| {
        x.dispatches.iter().find_map(|y| match y {
            Dispatch::SpyReport { result, .. } => Some(result.clone()),
            _ => None,
        })
    };
    match intel(&d[1]) {
        Some(SpyResult::Learned {
            intel: super::Intel::Contacts { with, .. },
        }) => {
            assert_eq!(with, vec!["Fugandri".to_string(), "Ostvik".to_string()])
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(intel(&d[2]), Some(SpyResult::Failed));
    match intel(&d[3]) {
        Some(SpyResult::Learned {
            intel: super::Intel::WhoVoted { voters, .. },
        }) => {
            assert_eq!(voters, vec!["Afani".to_string()])
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(refusal(&d[4]), &Refusal::NoSpies);
    assert_eq!(s.realm("Mirandel").unwrap().spies, 0);
    assert_eq!(s.spies.len(), 3);
}

/// RULINGS 16 — the voting winner sends up to Informatör spies free.
#[test]
fn rulings_16_voting_winner_sends_free_spies() {
    let mut s = demo();
    s.ruler = Some(Ruler {
        realm: "Ostvik".into(),
        benefit: Some(RulerBenefit::FreeSpies),
        from_round: 2,
        until_round: 6,
    });
    // Ostvik: Informatör 1, no held spies.
    let a = mail(
        1,
        MailKind::Spy,
        "Ostvik",
        Some("Afani"),
        "Mission: positions",
    );
    let b = mail(
        2,
        MailKind::Spy,
        "Ostvik",
        Some("Afani"),
        "Mission: positions",
    );
    let (d, _) = run(&mut s, &[a, b], &[10]);
    assert!(d[0].receipt.as_ref().unwrap().free);
    assert_eq!(refusal(&d[1]), &Refusal::NoSpies);
}

// ---------------------------------------------------------------- goods

/// R-TRADE-5 / docs/reference/mail.md, The courier — resources, a unit and a ship leave the sender
/// and arrive: units in the buyer's capital, ships in its main harbour.
#[test]
fn r_trade_5_goods_arrive_in_capital_and_main_harbour() {
    let mut s = roomy();
    s.realm_mut("Genogien").unwrap().stock = Resources::from_pairs(&[(Resource::Mat, 10)]);
    // Army 2 disembarks first: a transport carrying troops cannot be sold.
    s.fleets
        .iter_mut()
        .filter(|f| f.owner == "Genogien")
        .for_each(|f| f.cargo.clear());
    let afani_mat = s.realm("Afani").unwrap().stock.mat;
    let body =
        "Här är varorna.\n****\nSkickar: 5 mat, 1 bågskytt\n1 transportskepp\nVäntar: 3 guld";
    let (d, _) = run(
        &mut s,
        &[mail(1, MailKind::Merchant, "Genogien", Some("Afani"), body)],
        &[],
    );
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert_eq!(s.realm("Genogien").unwrap().stock.mat, 5);
    assert_eq!(s.realm("Afani").unwrap().stock.mat, afani_mat + 5);
    let count_units = |s: &GameState, owner: &str, at: &str, k: UnitKind| {
        s.armies_of(owner)
            .filter(|a| a.square == sq(at))
            .flat_map(|a| &a.units)
            .filter(|u| u.kind == k)
            .count()
    };
    let count_ships = |s: &GameState, owner: &str, at: &str, k: ShipKind| {
        s.fleets_of(owner)
            .filter(|f| f.square == sq(at))
            .flat_map(|f| &f.ships)
            .filter(|x| x.kind == k)
            .count()
    };
    assert_eq!(count_units(&s, "Genogien", "B2", UnitKind::Bagskyttar), 1);
    assert_eq!(count_units(&s, "Afani", "J2", UnitKind::Bagskyttar), 2);
    assert_eq!(
        count_ships(&s, "Genogien", "D2", ShipKind::Transportskepp),
        0
    );
    assert_eq!(count_ships(&s, "Afani", "K3", ShipKind::Transportskepp), 2);
    match &d[0].dispatches[0] {
        Dispatch::Merchant { text, expects, .. } => {
            assert_eq!(text, "Här är varorna.");
            assert_eq!(expects.resources.guld, 3);
        }
        x => panic!("{x:?}"),
    }
    assert!(s.validate().is_ok(), "{:?}", s.validate());
}

/// R-TRADE-5: `Från:` names the source city.
#[test]
fn r_trade_5_source_city_from_line() {
    let mut s = demo();
    let body = "****\nSkickar: 1 lätt kavalleri\nFrån: Nordhamn";
    let (d, _) = run(
        &mut s,
        &[mail(1, MailKind::Merchant, "Genogien", Some("Afani"), body)],
        &[],
    );
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert!(s
        .armies_of("Genogien")
        .all(|a| a.units.iter().all(|u| u.kind != UnitKind::LattKavalleri)));
}

/// R-TRADE-5 / docs/reference/mail.md, The courier — more than the sender holds → refused whole,
/// nothing charged, nothing moved.
#[test]
fn r_trade_5_more_than_held_is_refused_whole() {
    let mut s = roomy();
    s.realm_mut("Genogien").unwrap().positions.skattmastare = 0;
    s.realm_mut("Genogien").unwrap().stock =
        Resources::from_pairs(&[(Resource::Mat, 10), (Resource::Tyg, 1), (Resource::Guld, 1)]);
    let before = s.clone();
    let body = "****\nSkickar: 11 mat, 2 veteraner, 30 segerpoäng\nVäntar: 1 mat";
    let (d, _) = run(
        &mut s,
        &[mail(1, MailKind::Merchant, "Genogien", Some("Afani"), body)],
        &[],
    );
    assert_eq!(
        refusal(&d[0]),
        &Refusal::GoodsNotHeld {
            shortages: vec![
                Shortage::Resources {
                    lacks: Resources::from_pairs(&[(Resource::Mat, 2)])
                },
                Shortage::Units {
                    kind: UnitKind::Veteran,
                    want: 2,
                    have: 0
                },
            ]
        }
    );
    assert_eq!(s, before, "nothing charged, nothing moved");
    let t = refusal(&d[0]).explain(Lang::Sv, None);
    assert!(t.contains("2 veteraner begärda, 0 finns"), "{t}");
}

/// RULINGS 8 (R-TRADE-5): a trade that would put the buyer over its
/// population or ship cap is refused whole.
#[test]
fn rulings_8_buyer_caps_refuse_the_trade() {
    let mut s = demo(); // Afani: 13 counted units, population 140 → cap 14
    s.realm_mut("Afani").unwrap().positions.amiral = 0;
    let body = "****\nSkickar: 1 bågskytt, 1 lätt krigsskepp";
    let before = s.clone();
    let (d, _) = run(
        &mut s,
        &[mail(1, MailKind::Merchant, "Genogien", Some("Afani"), body)],
        &[],
    );
    assert_eq!(
        refusal(&d[0]),
        &Refusal::GoodsNotHeld {
            shortages: vec![
                Shortage::BuyerPopulationCap {
                    cap: 14,
                    would_have: 15
                },
                Shortage::BuyerShipCap {
                    cap: 0,
                    would_have: 5
                },
            ]
        }
    );
    assert_eq!(s, before);
}

/// A refused merchant costs nothing, so the seller learns which of the buyer's limits
/// the trade would pass, never its numbers (the buyer's units, ships or caps).
#[test]
fn rulings_8_the_seller_of_a_refused_trade_does_not_learn_the_buyers_numbers() {
    let mut s = demo(); // Afani: 13 counted units, population 140 → cap 14
    s.realm_mut("Afani").unwrap().positions.amiral = 0;
    let body = "****\nSkickar: 1 bågskytt, 1 lätt krigsskepp";
    let (d, _) = run(
        &mut s,
        &[mail(1, MailKind::Merchant, "Genogien", Some("Afani"), body)],
        &[],
    );
    for lang in [Lang::Sv, Lang::En] {
        let t = refusal(&d[0]).explain(lang, None);
        for number in ["14", "15", " 0 ", " 5 "] {
            assert!(!t.contains(number), "{number:?} in {t}");
        }
        let limits = match lang {
            Lang::Sv => ["befolkning", "Amiral"],
            Lang::En => ["population", "Admiral"],
        };
        for limit in limits {
            assert!(t.contains(limit), "{limit} named in {t}");
        }
    }
}

/// R-TRADE-4: cities and border squares change hands; an inland square
/// or a capital cannot be sold.
#[test]
fn r_trade_4_cities_and_border_squares_change_hands() {
    let mut s = demo();
    // E3 becomes Genogien land bordering Afani (F3); B3 is inland; C4 is Stenvik.
    let ok = "****\nSkickar: stad Stenvik\nSkickar: ruta E3";
    s.map.squares.get_mut(&sq("E3")).unwrap().owner = Some("Genogien".into());
    s.map.squares.get_mut(&sq("F3")).unwrap().terrain = crate::game::state::Terrain::Land;
    s.map.squares.get_mut(&sq("F3")).unwrap().owner = Some("Afani".into());
    let bad = "****\nSkickar: ruta B3, stad Genborg";
    let (d, _) = run(
        &mut s,
        &[
            mail(1, MailKind::Merchant, "Genogien", Some("Afani"), bad),
            mail(2, MailKind::Merchant, "Genogien", Some("Afani"), ok),
        ],
        &[],
    );
    assert_eq!(
        refusal(&d[0]),
        &Refusal::GoodsNotHeld {
            shortages: vec![
                Shortage::CapitalOrHarbour {
                    city: "Genborg".into()
                },
                Shortage::NotABorderSquare { square: sq("B3") },
            ]
        }
    );
    assert_eq!(d[1].outcome, Outcome::Delivered);
    let c4 = s.cities.iter().find(|c| c.square == sq("C4")).unwrap();
    assert_eq!(c4.owner, "Afani");
    assert_eq!(s.map.get(sq("C4")).unwrap().owner.as_deref(), Some("Afani"));
    assert_eq!(s.map.get(sq("E3")).unwrap().owner.as_deref(), Some("Afani"));
}

/// R-SPY-6: a failed forgery spy is spent and nothing is sent.
#[test]
fn r_spy_6_failed_forgery_sends_nothing() {
    let mut s = demo();
    let f = mail(
        1,
        MailKind::Spy,
        "Fugandri",
        Some("Afani"),
        "Uppdrag: förfalskning\nAvsändare: Kaldor\nText",
    );
    let (d, _) = run(&mut s, &[f], &[8]); // Informatör 2 + 8 = 10, not > 10
    assert!(matches!(
        d[0].outcome,
        Outcome::SpyDone { success: false, .. }
    ));
    assert!(!d[0]
        .dispatches
        .iter()
        .any(|x| matches!(x, Dispatch::Envoy { .. })));
    assert_eq!(s.realm("Fugandri").unwrap().spies, 0);
}

/// Every refusal explains itself in both languages and says nothing was
/// charged.
#[test]
fn every_refusal_explains_itself_in_both_languages() {
    let all = vec![
        Refusal::OutsideWindow {
            kind: MailKind::Spy,
            needed: Window::Weekday,
            held: Window::Closed,
        },
        Refusal::CannotPay {
            charge: Charge::Reveal,
            price: Spell::Avsloja.cost(),
            lacks: Spell::Avsloja.cost(),
        },
        Refusal::GoodsNotHeld {
            shortages: vec![
                Shortage::BuyerHasNoCapital,
                Shortage::BuyerArmyGroupCap { cap: 4 },
            ],
        },
        Refusal::NoTrailer,
        Refusal::ExpectsInEnvoy,
        Refusal::NoDestination,
        Refusal::UnknownRealm {
            name: "Atlantis".into(),
        },
        Refusal::ForgeryNeedsSpy,
        Refusal::ForgeryNeedsClaimedSender,
        Refusal::ForgeryCarriesNoGoods,
        Refusal::NoSpies,
        Refusal::EvilCannotBeSpied,
        Refusal::InvitationNotYourLand { square: sq("A1") },
        Refusal::RevealOutsideWindow {
            held: Window::Weekend,
        },
        Refusal::RevealUsed,
        Refusal::UnknownSpell {
            line: "Avslöja: Blixt".into(),
        },
        Refusal::BadHomeInvitation {
            line: "Hembjudan: alla".into(),
        },
        Refusal::NoSuchGroup { army: true, id: 9 },
    ];
    for r in all {
        let sv = r.explain(Lang::Sv, None);
        let en = r.explain(Lang::En, None);
        assert!(
            sv.contains("Inget har dragits") || sv.contains("inget har dragits"),
            "{sv}"
        );
        assert!(en.contains("othing was charged"), "{en}");
        assert_ne!(sv, en);
    }
}

/// R-MAIL-5: a merchant without a trailer, or with a garbage line, is
/// refused with the line quoted.
#[test]
fn r_mail_5_merchant_trailer_missing_or_garbage_is_refused() {
    let mut s = demo();
    let a = mail(
        1,
        MailKind::Merchant,
        "Genogien",
        Some("Afani"),
        "Skickar: 5 mat",
    );
    let b = mail(
        2,
        MailKind::Merchant,
        "Genogien",
        Some("Afani"),
        "****\nSkickar: 5 mat\nHälsningar, kungen",
    );
    let (d, _) = run(&mut s, &[a, b], &[]);
    assert_eq!(refusal(&d[0]), &Refusal::NoTrailer);
    let t = refusal(&d[1]).explain(Lang::En, None);
    assert!(t.contains("`Hälsningar, kungen`"), "{t}");
}

/// R-ENVOY-6 / RULINGS 42 — an envoy's gift arrives; an intercepted envoy's
/// gift goes to the interceptor; `Väntar:` has no place in an envoy.
#[test]
fn r_envoy_6_gift_arrives_or_goes_to_the_thief() {
    let mut s = demo();
    s.realm_mut("Genogien").unwrap().stock = Resources::from_pairs(&[(Resource::Jarn, 10)]);
    let kaldor_jarn = s.realm("Kaldor").unwrap().stock.jarn;
    let afani_jarn = s.realm("Afani").unwrap().stock.jarn;
    let gift = envoy(1, "Genogien", "Afani", "En gåva\n***\nSkickar: 2 järn");
    let station = mail(2, MailKind::Spy, "Kaldor", Some("Afani"), "Uppdrag: stjäl");
    let gift2 = envoy(3, "Genogien", "Afani", "En till\n***\nSkickar: 3 järn");
    let asks = envoy(
        4,
        "Genogien",
        "Afani",
        "***\nSkickar: 1 järn\nVäntar: 1 guld",
    );
    let (d, _) = run(&mut s, &[gift, station, gift2, asks], &[10]);
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert!(matches!(d[2].outcome, Outcome::Intercepted { .. }));
    assert_eq!(refusal(&d[3]), &Refusal::ExpectsInEnvoy);
    assert_eq!(s.realm("Genogien").unwrap().stock.jarn, 5);
    assert_eq!(s.realm("Afani").unwrap().stock.jarn, afani_jarn + 2);
    assert_eq!(s.realm("Kaldor").unwrap().stock.jarn, kaldor_jarn + 3);
}

/// Rulings 42: a stolen gift is the thief's — but ships a thief without a main harbour
/// cannot take go back to the sender, never out of the game, and the thief is told only
/// of what it got.
#[test]
fn rulings_42_ships_a_thief_cannot_harbour_go_back_to_the_sender() {
    let mut s = demo();
    s.realm_mut("Kaldor").unwrap().main_harbour = None;
    let ships_of = |s: &GameState, realm: &str| {
        s.fleets_of(realm)
            .flat_map(|f| f.ships.iter())
            .filter(|x| x.kind == ShipKind::LattKrigsskepp)
            .count()
    };
    s.realm_mut("Genogien").unwrap().stock = Resources::from_pairs(&[(Resource::Jarn, 10)]);
    let (genogien, kaldor) = (ships_of(&s, "Genogien"), ships_of(&s, "Kaldor"));
    assert!(genogien >= 1, "Genogien has a warship to give");
    let kaldor_jarn = s.realm("Kaldor").unwrap().stock.jarn;
    let station = mail(1, MailKind::Spy, "Kaldor", Some("Afani"), "Uppdrag: stjäl");
    let gift = envoy(
        2,
        "Genogien",
        "Afani",
        "En gåva\n***\nSkickar: 1 lätt krigsskepp, 2 järn",
    );
    let (d, _) = run(&mut s, &[station, gift], &[10]);
    assert!(
        matches!(d[1].outcome, Outcome::Intercepted { .. }),
        "{:?}",
        d[1].outcome
    );
    assert_eq!(ships_of(&s, "Genogien"), genogien, "the ship came back");
    assert_eq!(
        ships_of(&s, "Kaldor"),
        kaldor,
        "the thief has no harbour for it"
    );
    assert_eq!(
        s.realm("Kaldor").unwrap().stock.jarn,
        kaldor_jarn + 2,
        "the iron is its"
    );
    let told = d[1].dispatches.iter().find_map(|x| match x {
        Dispatch::Stolen { gift, .. } => gift.clone(),
        _ => None,
    });
    let told = told.expect("the thief's gift");
    assert!(
        told.ships.is_empty() && told.resources.jarn == 2,
        "{told:?}"
    );
}

/// R-SPY-12: the Evil cannot be spied on; unknown spy missions are refused
/// with the line quoted; a spy without held spies is refused.
#[test]
fn r_spy_3_no_held_spies_and_bad_missions_are_refused() {
    let mut s = demo();
    let a = mail(1, MailKind::Spy, "Afani", Some("Kaldor"), "Uppdrag: 1");
    let b = mail(
        2,
        MailKind::Spy,
        "Kaldor",
        Some("Afani"),
        "Uppdrag: dansa polka",
    );
    let (d, _) = run(&mut s, &[a, b], &[]);
    assert_eq!(refusal(&d[0]), &Refusal::NoSpies);
    assert!(refusal(&d[1])
        .explain(Lang::Sv, None)
        .contains("Uppdrag: dansa polka"));
    assert_eq!(
        s.realm("Kaldor").unwrap().spies,
        2,
        "a refused spy is not used"
    );
}

/// The batch is replayable: the same state, mail and seed give the same
/// decisions and state.
#[test]
fn batches_replay_bit_for_bit() {
    let go = || {
        let mut s = two_thieves_in_afani();
        let mut dice = Dice::new(s.game.seed, s.round, "courier/2026-11-24T18:00Z");
        let mut c = ctx();
        let d = route_batch(
            &mut s,
            &[
                envoy(10, "Genogien", "Afani", "x"),
                envoy(11, "Afani", "Kaldor", "y"),
            ],
            &mut c,
            &mut dice,
        );
        (serde_json::to_string(&d).unwrap(), s, dice.rolls().to_vec())
    };
    let (a, sa, ra) = go();
    let (b, sb, rb) = go();
    assert_eq!(a, b);
    assert_eq!(sa, sb);
    assert_eq!(ra, rb);
}

/// R-SPY-7 (courier's reading): a thief waiting in a realm that is under
/// Shield when an envoy passes comes back empty-handed, spent, without a
/// roll; the envoy goes on.
#[test]
fn r_spy_7_shield_sends_a_waiting_thief_home() {
    let mut s = two_thieves_in_afani();
    s.effects.push(effect(Spell::Skold, "Afani", "Afani", 3));
    let (d, dice) = run(&mut s, &[envoy(10, "Genogien", "Afani", "x")], &[]);
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert!(dice.rolls().is_empty());
    assert!(s.spies.iter().all(|x| x.state == SpyState::Blocked));
}

// ------------------------------------------------------------ hostile input

/// A merchant whose amount would wrap the seller's shortage total is refused with
/// a reason (it used to panic on `checked`), and nothing moves.
#[test]
fn a_merchant_amount_that_would_wrap_is_refused_not_a_panic() {
    let mut s = demo();
    let before = s.realm("Genogien").unwrap().stock;
    let m = mail(
        1,
        MailKind::Merchant,
        "Genogien",
        Some("Afani"),
        "Handel\n****\nSkickar: 4294967295 guld, 1 hästar",
    );
    let (d, _) = run(&mut s, &[m], &[]);
    let r = refusal(&d[0]);
    assert!(
        matches!(r, Refusal::Trailer(e) if matches!(e.kind, super::TrailerErrorKind::TooLarge { .. })),
        "{r:?}"
    );
    let sv = r.explain(Lang::Sv, None);
    assert!(
        sv.contains("4294967295 guld") && sv.contains("mer än"),
        "{sv}"
    );
    let en = r.explain(Lang::En, None);
    assert!(en.contains("more than 1000000"), "{en}");
    assert_eq!(s.realm("Genogien").unwrap().stock, before);
}

/// Gifts at the bound on top of a price cannot wrap either.
#[test]
fn an_envoy_gift_at_the_bound_is_refused_as_not_held() {
    let mut s = demo();
    let body = format!(
        "Gåva\n****\nSkickar: {} guld, {} mat",
        super::trailer::MAX_AMOUNT,
        super::trailer::MAX_AMOUNT
    );
    let (d, _) = run(&mut s, &[envoy(1, "Genogien", "Afani", &body)], &[]);
    assert!(
        matches!(refusal(&d[0]), Refusal::GoodsNotHeld { .. }),
        "{:?}",
        d[0]
    );
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn body() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            Just("****".to_string()),
            "(Skickar|Väntar|Från|Uppdrag|Mission|Inbjudan|Avsändare|Hembjudan): [0-9A-Za-zåäö ,.]{0,30}",
            "(Skickar|Uppdrag): [0-9]{1,11} [a-zåäö ]{0,16}",
            "(Uppdrag|Mission): (1|2|3|4|5|6|7|8|9|10|stad [A-Z][0-9]{1,2}|stjäl sändebud till [A-Za-z]{1,8})",
            "(?s).{0,60}",
        ];
        proptest::collection::vec(line, 0..6).prop_map(|v| v.join("\n"))
    }

    fn queued() -> impl Strategy<Value = (u8, u8, u8, String)> {
        (0u8..4, 0u8..4, 0u8..5, body())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn parse_mission_never_panics(body in body()) {
            let s = demo();
            let _ = super::super::parse_mission(&body, &s);
        }

        #[test]
        fn a_batch_of_arbitrary_mail_never_panics(mails in proptest::collection::vec(queued(), 1..5)) {
            let realms = ["Genogien", "Afani", "Ostvik", "Nowhere"];
            let kinds = [MailKind::Envoy, MailKind::Merchant, MailKind::Spy, MailKind::ToGm];
            let queued: Vec<Queued> = mails
                .iter()
                .enumerate()
                .map(|(i, (k, f, t, b))| {
                    let to = realms.get(*t as usize).copied();
                    mail(i as u64 + 1, kinds[*k as usize], realms[(*f as usize) % 3], to, b)
                })
                .collect();
            let mut s = demo();
            let faces: Vec<u32> = (0..64).map(|i| i % 10 + 1).collect();
            let _ = run(&mut s, &queued, &faces);
        }
    }
}

/// R-SPELL-7: Shield guards the realm it is on, and only while it lasts.
#[test]
fn r_spell_7_shield_stops_spies_only_to_its_realm_and_only_until_it_expires() {
    let mut s = demo();
    s.round = 5;
    s.realm_mut("Kaldor").unwrap().spies = 3;
    s.effects.push(effect(Spell::Skold, "Afani", "Afani", 5));
    // Genogien's shield was for last round.
    s.effects
        .push(effect(Spell::Skold, "Genogien", "Genogien", 4));
    let spy = |id, to| mail(id, MailKind::Spy, "Kaldor", Some(to), "Uppdrag: resurser");
    let (d, _) = run(
        &mut s,
        &[spy(1, "Afani"), spy(2, "Genogien"), spy(3, "Mirandel")],
        &[7, 7, 7],
    );
    assert!(
        matches!(d[0].outcome, Outcome::SpyBlocked { .. }),
        "{:?}",
        d[0]
    );
    assert!(
        matches!(d[1].outcome, Outcome::SpyDone { .. }),
        "{:?}",
        d[1]
    );
    assert!(
        matches!(d[2].outcome, Outcome::SpyDone { .. }),
        "{:?}",
        d[2]
    );
    assert_eq!(s.realm("Kaldor").unwrap().spies, 0, "all three spent");
}

/// R-ALLY-3: anyone may invite anyone; the courier does not ask for friendship.
#[test]
fn r_ally_3_a_realm_invites_one_that_is_no_friend_of_it() {
    let mut s = demo();
    for (a, b) in [("Genogien", "Kaldor"), ("Kaldor", "Genogien")] {
        assert!(!s.realm(a).unwrap().friends.iter().any(|f| f == b));
    }
    let inv = envoy(1, "Genogien", "Kaldor", "Inbjudan: C3");
    let (d, _) = run(&mut s, &[inv], &[]);
    assert_eq!(d[0].outcome, Outcome::Delivered);
    let held = &s.realm("Kaldor").unwrap().invitations;
    assert_eq!(
        held.iter()
            .map(|i| (i.from.as_str(), i.square))
            .collect::<Vec<_>>(),
        [("Genogien", sq("C3"))]
    );
}

/// R-VP-2: VP go in a merchant's trailer like goods: the sender pays them, the
/// recipient gets them, as the trailer says.
#[test]
fn r_vp_2_victory_points_in_a_trailer_move_from_sender_to_recipient() {
    let mut s = demo();
    let (gen, afani) = (
        s.realm("Genogien").unwrap().vp,
        s.realm("Afani").unwrap().vp,
    );
    let body = "Som avtalat.\n****\nSkickar: 100 segerpoäng\nVäntar: 3 guld";
    let (d, _) = run(
        &mut s,
        &[mail(1, MailKind::Merchant, "Genogien", Some("Afani"), body)],
        &[],
    );
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert_eq!(s.realm("Genogien").unwrap().vp, gen - 100);
    assert_eq!(s.realm("Afani").unwrap().vp, afani + 100);
}
