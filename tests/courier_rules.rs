//! One test per courier-family rule ID (R-AGENT, R-ENVOY, R-TRADE, R-SPY, R-INV,
//! R-MAIL) that had none of its own. Most run one courier batch on the demo
//! scenario with scripted dice; the window and subject rules go through their
//! public functions.

mod common;

use chrono::{DateTime, TimeZone, Utc};

use common::Game;

use pbemd::courier::batch::{route_batch, Context, Decision, Dispatch, Outcome, Queued};
use pbemd::courier::{route, Charge, Incoming, Refusal, Route};
use pbemd::forms::grammar::{parse_line, ErrorKind};
use pbemd::game::dice::Dice;
use pbemd::game::state::{Ruler, RulerBenefit, SpellEffect, SpellTarget};
use pbemd::game::text::MailKind;
use pbemd::game::{load_scenario, GameState, Lang, Resource, Resources, Spell};
use pbemd::mail::subject::{parse_subject, SubjectError};
use pbemd::schedule::Window;
use pbemd::store::messages;

/// The demo game, round 3.
fn demo() -> GameState {
    let mut s = load_scenario(include_str!("../src/courier/testdata/demo.yaml"))
        .expect("demo scenario loads");
    s.round = 3;
    s
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

fn spy(id: u64, from: &str, to: &str, body: &str) -> Queued {
    mail(id, MailKind::Spy, from, Some(to), body)
}

fn merchant(id: u64, from: &str, to: &str, body: &str) -> Queued {
    mail(id, MailKind::Merchant, from, Some(to), body)
}

/// The batch instant: Tuesday 18:00 UTC.
fn batch_time() -> DateTime<Utc> {
    tue(18, 0)
}

fn run(state: &mut GameState, mails: &[Queued], faces: &[u32]) -> Vec<Decision> {
    let mut dice = Dice::scripted("test", faces);
    let mut c = Context {
        now: batch_time(),
        ..Context::default()
    };
    route_batch(state, mails, &mut c, &mut dice)
}

fn refusal(d: &Decision) -> &Refusal {
    match &d.outcome {
        Outcome::Refused(r) => r,
        o => panic!("expected a refusal, got {o:?}"),
    }
}

fn on(spell: Spell, caster: &str, target: &str, round: u32) -> SpellEffect {
    SpellEffect {
        spell,
        caster: caster.into(),
        target: SpellTarget::Realm(target.into()),
        cast_round: round - 1,
        expires_round: round,
    }
}

fn envoy_price() -> Resources {
    Resources::from_pairs(&[(Resource::Mat, 1), (Resource::Tyg, 1), (Resource::Guld, 3)])
}

fn envoy_sent(d: &Decision) -> Option<&Dispatch> {
    d.dispatches
        .iter()
        .find(|x| matches!(x, Dispatch::Envoy { .. }))
}

fn intake(kind: MailKind, window: Window) -> Route {
    route(&Incoming {
        kind,
        from: "Genogien",
        to: Some("Afani"),
        received_at: tue(10, 0),
        window,
    })
}

/// Put `realm`'s army `id` abroad, on a square of another realm's land without a city
/// (a home-invitation calls home only troops in other countries, R-INV-8).
fn abroad(s: &mut GameState, realm: &str, id: u32) {
    let sq = s
        .map
        .squares
        .iter()
        .find(|(sq, m)| {
            m.owner.as_deref().is_some_and(|o| o != realm)
                && s.cities.iter().all(|c| c.square != *sq)
        })
        .expect("another realm's land")
        .0;
    s.armies
        .iter_mut()
        .find(|a| a.owner == realm && a.id == id)
        .expect("the army")
        .square = sq;
}

fn free_spies_for(s: &mut GameState, realm: &str) {
    s.ruler = Some(Ruler {
        realm: realm.into(),
        benefit: Some(RulerBenefit::FreeSpies),
        from_round: 2,
        until_round: 6,
    });
}

// ---------------------------------------------------------------- R-AGENT

/// R-AGENT-2: an agent has no movement; the envoy mailed Tuesday morning is due
/// at the batch instant that carries it, whatever the distance.
#[test]
fn r_agent_2_an_envoy_arrives_when_the_batch_delivers_it() {
    let mut s = demo();
    let d = run(
        &mut s,
        &[envoy(1, "Genogien", "Mirandel", "Långt bort")],
        &[],
    );
    match envoy_sent(&d[0]) {
        Some(Dispatch::Envoy { to, due_at, .. }) => {
            assert_eq!(to, "Mirandel");
            assert_eq!(*due_at, batch_time());
        }
        other => panic!("expected an envoy, got {other:?}"),
    }
}

/// R-AGENT-3: each merchant is one agent used; a spy is spent by its mission
/// whether it succeeds or fails.
#[test]
fn r_agent_3_merchants_are_used_once_and_spies_are_spent_win_or_lose() {
    let mut s = demo();
    let before = s.realm("Kaldor").unwrap().spies;
    assert!(before >= 2, "the demo gives Kaldor two spies");
    let m1 = merchant(1, "Kaldor", "Afani", "Förslag\n****\nSkickar: ingenting");
    let m2 = merchant(2, "Kaldor", "Afani", "Förslag\n****\nSkickar: ingenting");
    // Kaldor has Informatör 4: 4 + 10 > 10 succeeds, a natural 1 fails.
    let won = spy(3, "Kaldor", "Afani", "Uppdrag: resurser");
    let lost = spy(4, "Kaldor", "Afani", "Uppdrag: resurser");
    let d = run(&mut s, &[m1, m2, won, lost], &[10, 1]);
    assert!(matches!(
        d[2].outcome,
        Outcome::SpyDone { success: true, .. }
    ));
    assert!(matches!(
        d[3].outcome,
        Outcome::SpyDone { success: false, .. }
    ));
    let k = s.realm("Kaldor").unwrap();
    assert_eq!(k.sent.merchants, 2, "one merchant per trade mail");
    assert_eq!(k.spies, before - 2, "both spies spent");
}

/// R-AGENT-5: the voting winner with the free-spies benefit sends a spy without
/// holding one, and pays nothing for it.
#[test]
fn r_agent_5_the_free_spies_winner_sends_a_spy_without_holding_one() {
    let mut s = demo();
    let o = s.realm_mut("Ostvik").unwrap();
    o.spies = 0;
    o.stock = Resources::ZERO;
    let m = spy(1, "Ostvik", "Afani", "Mission: positions");
    let d = run(&mut s.clone(), std::slice::from_ref(&m), &[10]);
    assert_eq!(refusal(&d[0]), &Refusal::NoSpies, "no benefit, no spy");
    free_spies_for(&mut s, "Ostvik");
    let d = run(&mut s, &[m], &[10]);
    let r = d[0].receipt.as_ref().expect("accepted");
    assert!(r.free && r.charged.is_zero());
    assert_eq!(s.realm("Ostvik").unwrap().spies, 0);
}

// ---------------------------------------------------------------- R-ENVOY

/// Rulings 49: the voting winner's free spies run up to, not including, the next voting
/// weekend; spies go on weekdays, so the voting round's own weekdays still count, and
/// the round after it does not.
#[test]
fn rulings_49_free_spies_last_through_the_weekdays_of_the_next_voting_round() {
    let mut s = demo();
    let o = s.realm_mut("Ostvik").unwrap();
    o.spies = 0;
    o.stock = Resources::ZERO;
    free_spies_for(&mut s, "Ostvik");
    let until = s.ruler.as_ref().unwrap().until_round;
    let m = spy(1, "Ostvik", "Afani", "Mission: positions");
    s.round = until;
    let d = run(&mut s.clone(), std::slice::from_ref(&m), &[10]);
    assert!(
        d[0].receipt.as_ref().is_some_and(|r| r.free),
        "the voting round's weekdays: {:?}",
        d[0].outcome
    );
    s.round = until + 1;
    let d = run(&mut s, &[m], &[10]);
    assert_eq!(refusal(&d[0]), &Refusal::NoSpies, "the term is over");
}

/// R-ENVOY-1: an envoy carries any text; the recipient gets it as written,
/// shown from the sending realm (its name, never its address).
#[test]
fn r_envoy_1_the_text_is_passed_on_as_from_the_realm() {
    let mut s = demo();
    let body = "Ers Majestät,\nvi föreslår fred. Svara till genogien@game.test.";
    let d = run(&mut s, &[envoy(1, "Genogien", "Afani", body)], &[]);
    match envoy_sent(&d[0]) {
        Some(Dispatch::Envoy {
            shown_from, text, ..
        }) => {
            assert_eq!(shown_from, "Genogien");
            assert_eq!(text, body);
        }
        other => panic!("expected an envoy, got {other:?}"),
    }
}

/// R-ENVOY-2: envoys beyond the Språkrör allowance cost 1 mat, 1 tyg, 3 guld.
#[test]
fn r_envoy_2_an_envoy_beyond_the_sprakror_allowance_costs_its_price() {
    let mut s = demo();
    let g = s.realm_mut("Genogien").unwrap();
    g.positions.sprakror = 1;
    g.stock = Resources::from_pairs(&[(Resource::Mat, 5), (Resource::Tyg, 5), (Resource::Guld, 5)]);
    let d = run(
        &mut s,
        &[
            envoy(1, "Genogien", "Afani", "Ett"),
            envoy(2, "Genogien", "Afani", "Två"),
        ],
        &[],
    );
    let (free, paid) = (d[0].receipt.clone().unwrap(), d[1].receipt.clone().unwrap());
    assert!(free.free && free.charged.is_zero());
    assert!(!paid.free);
    assert_eq!(paid.charged, envoy_price());
    assert_eq!(
        s.realm("Genogien").unwrap().stock,
        Resources::from_pairs(&[(Resource::Mat, 4), (Resource::Tyg, 4), (Resource::Guld, 2)])
    );
}

/// R-ENVOY-3: envoys go out only through the batch, after interception: a
/// waiting thief takes the envoy and the recipient gets nothing.
#[test]
fn r_envoy_3_a_waiting_thief_decides_before_the_envoy_is_delivered() {
    let mut s = demo();
    let station = spy(1, "Kaldor", "Afani", "Uppdrag: stjäl sändebud");
    let d = run(
        &mut s,
        &[station, envoy(2, "Genogien", "Afani", "Hemligt")],
        &[10],
    );
    assert!(matches!(&d[1].outcome, Outcome::Intercepted { thief, .. } if thief == "Kaldor"));
    assert!(envoy_sent(&d[1]).is_none(), "Afani gets nothing");
    // With the thief spent, the next envoy arrives at the batch.
    let d = run(&mut s, &[envoy(3, "Genogien", "Afani", "Öppet")], &[]);
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert!(envoy_sent(&d[0]).is_some());
}

/// R-ENVOY-4: an intercepted invitation is the thief's; a home-invitation to
/// the GM passes a waiting thief untouched.
#[test]
fn r_envoy_4_stolen_invitations_go_to_the_thief_home_invitations_cannot_be_stolen() {
    let mut s = demo();
    abroad(&mut s, "Genogien", 2);
    let station = spy(1, "Kaldor", "Genogien", "Uppdrag: stjäl sändebud");
    let home = mail(2, MailKind::ToGm, "Genogien", None, "Hembjudan: armé 2");
    let inv = envoy(3, "Genogien", "Afani", "Kom!\nInbjudan: C3");
    let d = run(&mut s, &[station, home, inv], &[10]);
    assert!(
        matches!(d[1].outcome, Outcome::HomeInvitation { .. }),
        "{:?}",
        d[1].outcome
    );
    assert!(matches!(&d[2].outcome, Outcome::Intercepted { thief, .. } if thief == "Kaldor"));
    assert_eq!(s.realm("Kaldor").unwrap().invitations.len(), 1);
    assert!(s.realm("Afani").unwrap().invitations.is_empty());
}

/// R-ENVOY-5: a forgery is an envoy: Shield on the target does not stop it,
/// Isolation on the forger's realm returns it.
#[test]
fn r_envoy_5_a_forgery_passes_shield_and_is_stopped_by_isolation() {
    let forge = spy(
        1,
        "Kaldor",
        "Afani",
        "Uppdrag: förfalskning\nAvsändare: Genogien\nVi bryter alliansen.",
    );
    let mut shielded = demo();
    shielded.effects.push(on(Spell::Skold, "Afani", "Afani", 3));
    let d = run(&mut shielded, std::slice::from_ref(&forge), &[10]);
    assert!(
        matches!(envoy_sent(&d[0]), Some(Dispatch::Envoy { shown_from, .. }) if shown_from == "Genogien")
    );
    let mut isolated = demo();
    isolated
        .effects
        .push(on(Spell::Isolering, "Afani", "Kaldor", 3));
    let d = run(&mut isolated, &[forge], &[10]);
    assert!(envoy_sent(&d[0]).is_none(), "{:?}", d[0]);
    assert!(d[0]
        .dispatches
        .iter()
        .any(|x| matches!(x, Dispatch::Returned { to, .. } if to == "Kaldor")));
}

/// R-AGENT-6: held and waiting spies count against the population cap;
/// envoys and merchants sent do not.
#[test]
fn r_agent_6_spies_count_toward_the_population_cap_envoys_and_merchants_do_not() {
    let mut s = demo();
    let base = s.counted_units("Kaldor").counted();
    s.realm_mut("Kaldor").unwrap().spies += 1;
    assert_eq!(
        s.counted_units("Kaldor").counted(),
        base + 1,
        "a held spy counts"
    );
    let station = spy(1, "Kaldor", "Afani", "Uppdrag: stjäl sändebud");
    let e = envoy(2, "Kaldor", "Afani", "Hej");
    let m = merchant(3, "Kaldor", "Afani", "Förslag\n****\nSkickar: ingenting");
    let d = run(&mut s, &[station, e, m], &[]);
    assert!(matches!(d[0].outcome, Outcome::SpyStationed { .. }));
    assert_eq!(d[1].outcome, Outcome::Delivered);
    assert_eq!(d[2].outcome, Outcome::Delivered);
    assert_eq!(
        s.counted_units("Kaldor").counted(),
        base + 1,
        "the waiting spy still counts; the envoy and merchant never did"
    );
}

// ---------------------------------------------------------------- R-TRADE

/// R-TRADE-1: every trade mail is a merchant, offer or delivery alike; beyond
/// the Skattmästare allowance a realm that cannot pay is refused.
#[test]
fn r_trade_1_every_trade_mail_uses_a_merchant() {
    let mut s = demo();
    let g = s.realm_mut("Genogien").unwrap();
    g.positions.skattmastare = 1;
    g.stock = Resources::ZERO;
    let offer = merchant(
        1,
        "Genogien",
        "Afani",
        "Ett förslag\n****\nSkickar: ingenting",
    );
    let again = merchant(2, "Genogien", "Afani", "Ett till\n****\nSkickar: ingenting");
    let d = run(&mut s, &[offer, again], &[]);
    assert!(d[0].receipt.as_ref().unwrap().free);
    assert!(matches!(
        refusal(&d[1]),
        Refusal::CannotPay {
            charge: Charge::Merchant,
            ..
        }
    ));
    assert_eq!(s.realm("Genogien").unwrap().sent.merchants, 1);
}

/// R-TRADE-2: merchants go on weekdays only, and their goods move in the batch.
#[test]
fn r_trade_2_merchants_go_on_weekdays_only() {
    assert_eq!(intake(MailKind::Merchant, Window::Weekday), Route::Queue);
    for closed in [Window::Weekend, Window::Closed] {
        assert!(matches!(
            intake(MailKind::Merchant, closed),
            Route::Refuse(Refusal::OutsideWindow {
                kind: MailKind::Merchant,
                needed: Window::Weekday,
                ..
            })
        ));
    }
    let mut s = demo();
    s.realm_mut("Genogien").unwrap().stock = Resources::from_pairs(&[(Resource::Mat, 3)]);
    let d = run(
        &mut s,
        &[merchant(1, "Genogien", "Afani", "****\nSkickar: 3 mat")],
        &[],
    );
    assert!(d[0]
        .dispatches
        .iter()
        .any(|x| matches!(x, Dispatch::Merchant { due_at, .. } if *due_at == batch_time())));
}

/// R-TRADE-3: the flourishes of a trade mail reach the other realm as written.
#[test]
fn r_trade_3_free_text_in_a_merchant_is_passed_on_as_written() {
    let mut s = demo();
    let words = "Ers Höghet, Konung av Afani!\nVi erbjuder er ingenting alls.";
    let body = format!("{words}\n****\nSkickar: ingenting");
    let d = run(&mut s, &[merchant(1, "Genogien", "Afani", &body)], &[]);
    let text = d[0]
        .dispatches
        .iter()
        .find_map(|x| match x {
            Dispatch::Merchant { text, .. } => Some(text.clone()),
            _ => None,
        })
        .expect("the merchant goes out");
    assert!(text.contains(words), "{text}");
}

/// R-TRADE-7: stocks change at the batch that carries the merchant, not at the
/// weekend.
#[test]
fn r_trade_7_stocks_change_when_the_courier_delivers() {
    let mut s = demo();
    s.realm_mut("Genogien").unwrap().stock = Resources::from_pairs(&[(Resource::Mat, 10)]);
    let afani = s.realm("Afani").unwrap().stock.mat;
    let d = run(
        &mut s,
        &[merchant(1, "Genogien", "Afani", "****\nSkickar: 4 mat")],
        &[],
    );
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert_eq!(s.realm("Genogien").unwrap().stock.mat, 6);
    assert_eq!(s.realm("Afani").unwrap().stock.mat, afani + 4);
}

// ---------------------------------------------------------------- R-SPY

/// R-SPY-2: spy mail is taken in the weekday window only.
#[test]
fn r_spy_2_spy_mail_is_taken_on_weekdays_only() {
    assert_eq!(intake(MailKind::Spy, Window::Weekday), Route::Queue);
    for closed in [Window::Weekend, Window::Closed] {
        assert!(matches!(
            intake(MailKind::Spy, closed),
            Route::Refuse(Refusal::OutsideWindow {
                kind: MailKind::Spy,
                ..
            })
        ));
    }
}

/// R-SPY-11: the free spies of the voting winner stop at Informatör a round.
#[test]
fn r_spy_11_free_spies_stop_at_the_informant_value() {
    let mut s = demo();
    free_spies_for(&mut s, "Kaldor");
    let k = s.realm_mut("Kaldor").unwrap();
    k.spies = 0;
    k.positions.informator = 2;
    let mails: Vec<Queued> = (1..=3)
        .map(|i| spy(i, "Kaldor", "Afani", "Uppdrag: resurser"))
        .collect();
    let d = run(&mut s, &mails, &[10, 10, 10]);
    assert!(d[0].receipt.as_ref().unwrap().free);
    assert!(d[1].receipt.as_ref().unwrap().free);
    assert_eq!(refusal(&d[2]), &Refusal::NoSpies);
}

/// R-SPY-12: the Evil cannot be spied on; the spy is not used.
#[test]
fn r_spy_12_a_spy_on_the_evil_is_refused_and_not_used() {
    let mut s = demo();
    s.realm_mut("Afani").unwrap().is_evil = true;
    let held = s.realm("Kaldor").unwrap().spies;
    let d = run(
        &mut s,
        &[spy(1, "Kaldor", "Afani", "Uppdrag: resurser")],
        &[10],
    );
    assert_eq!(refusal(&d[0]), &Refusal::EvilCannotBeSpied);
    assert_eq!(s.realm("Kaldor").unwrap().spies, held);
}

// ---------------------------------------------------------------- R-INV

/// R-INV-9: a home-invitation passes Isolation on its sender.
#[test]
fn r_inv_9_a_home_invitation_passes_isolation() {
    let mut s = demo();
    abroad(&mut s, "Genogien", 2);
    s.effects.push(on(Spell::Isolering, "Afani", "Genogien", 3));
    let home = mail(1, MailKind::ToGm, "Genogien", None, "Hembjudan: armé 2");
    let real = envoy(2, "Genogien", "Afani", "Hej");
    let d = run(&mut s, &[home, real], &[]);
    assert!(
        matches!(d[0].outcome, Outcome::HomeInvitation { .. }),
        "{:?}",
        d[0].outcome
    );
    assert!(
        matches!(d[1].outcome, Outcome::Returned { .. }),
        "the envoy is stopped"
    );
}

// ---------------------------------------------------------------- R-MAIL

/// R-MAIL-1: the subject names sender, recipient and kind, in Swedish or
/// English, forgiving case, accents and `Re:`.
#[test]
fn r_mail_1_subject_names_sender_recipient_and_kind_forgivingly() {
    let realms = ["Genogien", "Afani", "Östvik"];
    let s = parse_subject("Re: SV: genogien SKICKAR ett sandebud till ostvik", &realms).unwrap();
    assert_eq!(
        (s.kind, s.from.as_str(), s.to.as_deref()),
        (MailKind::Envoy, "Genogien", Some("Östvik"))
    );
    let s = parse_subject("Östvik sends a merchant to AFANI", &realms).unwrap();
    assert_eq!(
        (s.kind, s.from.as_str(), s.to.as_deref()),
        (MailKind::Merchant, "Östvik", Some("Afani"))
    );
    assert!(matches!(
        parse_subject("Genogien skickar ett sändebud till Narnia", &realms),
        Err(SubjectError::UnknownDestination { .. })
    ));
}

/// R-MAIL-2: mail to the GM keeps its topic as written.
#[test]
fn r_mail_2_mail_to_the_gm_keeps_its_topic() {
    let realms = ["Genogien", "Afani"];
    let s = parse_subject("Genogien till SL: Avslöja Sköld", &realms).unwrap();
    assert_eq!(s.kind, MailKind::ToGm);
    assert_eq!(s.to, None);
    assert_eq!(s.topic.as_deref(), Some("Avslöja Sköld"));
    let s = parse_subject("Afani to GM: spy report", &realms).unwrap();
    assert_eq!(s.topic.as_deref(), Some("spy report"));
}

/// R-MAIL-3: a merchant must end in the goods trailer; its words are not judged.
#[test]
fn r_mail_3_a_merchant_needs_its_trailer_and_its_text_is_not_judged() {
    let mut s = demo();
    let chatty = merchant(
        1,
        "Genogien",
        "Afani",
        "Vi anfaller i morgon!\n****\nSkickar: ingenting",
    );
    let bare = merchant(2, "Genogien", "Afani", "Vi anfaller i morgon!");
    let d = run(&mut s, &[chatty, bare], &[]);
    assert_eq!(d[0].outcome, Outcome::Delivered);
    assert_eq!(refusal(&d[1]), &Refusal::NoTrailer);
}

/// R-MAIL-4: a subject of no known kind is not taken as any mail.
#[test]
fn r_mail_4_a_subject_of_no_known_kind_is_not_taken() {
    let realms = ["Genogien", "Afani"];
    assert!(matches!(
        parse_subject("Genogien vill prata med Afani", &realms),
        Err(SubjectError::UnknownKind { .. })
    ));
    let kinds = [
        ("Genogien skickar ett sändebud till Afani", MailKind::Envoy),
        (
            "Genogien skickar en handelsman till Afani",
            MailKind::Merchant,
        ),
        ("Genogien skickar en spion till Afani", MailKind::Spy),
        ("Genogien formulär", MailKind::Form),
        ("Genogien till SL: fråga", MailKind::ToGm),
    ];
    for (subject, kind) in kinds {
        assert_eq!(
            parse_subject(subject, &realms).unwrap().kind,
            kind,
            "{subject}"
        );
    }
}

/// R-MAIL-12: each stationed spy keeps the time it was placed (the mail's
/// receipt time).
#[test]
fn r_mail_12_a_stationed_spy_keeps_its_placement_time() {
    let mut s = demo();
    let m = spy(7, "Kaldor", "Afani", "Uppdrag: stjäl sändebud");
    let at = m.received_at;
    run(&mut s, &[m], &[]);
    let placed: Vec<_> = s
        .spies
        .iter()
        .map(|x| (x.owner.as_str(), x.placed_at))
        .collect();
    assert_eq!(placed, vec![("Kaldor", at)]);
}

/// R-SPY-1: spies are bought on the weekend form, not sent there; a sending
/// line is refused pointing to the spy mail.
#[test]
fn r_spy_1_spies_are_bought_on_the_form_and_sent_only_by_mail() {
    assert!(parse_line("KÖP 1 spion", Some(Lang::Sv)).is_ok());
    let e = parse_line("SKICKA spion till Afani", Some(Lang::Sv)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::SpyByMail);
    assert!(
        e.message(Lang::Sv).contains("brev"),
        "{}",
        e.message(Lang::Sv)
    );
    let e = parse_line("SEND spy to Afani", Some(Lang::En)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::SpyByMail);
}

/// R-MOVE-2: agents have no movement. A move order names an army or a fleet; one
/// naming a spy, an envoy or a merchant is refused on the form, and agents reach
/// another realm only as mail (R-AGENT-2).
#[test]
fn r_move_2_agents_cannot_be_moved_on_the_form() {
    for (line, lang, word) in [
        ("FLYTTA spion 1: C3", Lang::Sv, "spion"),
        ("FLYTTA sändebud 1: C3", Lang::Sv, "sändebud"),
        ("MOVE spy 1: C3", Lang::En, "spy"),
        ("MOVE merchant 1: C3", Lang::En, "merchant"),
    ] {
        let e = parse_line(line, Some(lang)).unwrap_err();
        assert!(
            matches!(&e.kind, ErrorKind::Bad { found, .. } if found == word),
            "{line}: {:?}",
            e.kind
        );
    }
    assert!(parse_line("FLYTTA armé 1: C3", Some(Lang::Sv)).is_ok());
}

// ---------------------------------------------------------------- through the app

/// R-MAIL-7: on Monday at 12:00, not before, every realm gets its result form.
#[tokio::test]
async fn r_mail_7_every_realm_gets_its_result_form_on_monday_noon() {
    let g = Game::start("2026-11-23T11:00:00+01:00").await;
    g.tick("2026-11-23T11:59:00+01:00").await;
    assert!(g.outbox().is_empty(), "nothing before noon");
    g.tick("2026-11-23T12:00:00+01:00").await;
    let out = g.outbox();
    let s = g.state().await;
    let players: Vec<_> = s.realms.iter().filter(|r| !r.is_evil).collect();
    assert_eq!(out.len(), players.len());
    for r in players {
        let to = format!("{}@game.test", r.name.to_lowercase());
        assert!(
            out.iter()
                .any(|m| m.to_is(&to) && m.text.contains("=== ORDRAR / ORDERS")),
            "{} has no result form",
            r.name
        );
    }
}

/// R-MAIL-9: an envoy after the weekday window closes is refused with a reply
/// saying when the window opens, and the mail is kept.
#[tokio::test]
async fn r_mail_9_a_late_envoy_is_refused_with_the_opening_and_kept() {
    let g = Game::start("2026-11-28T09:00:00+01:00").await;
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "för sent i veckan",
    );
    g.tick("2026-11-28T10:00:00+01:00").await;
    let out = g.outbox();
    assert!(out.iter().all(|m| !m.to_is("afani@game.test")));
    let reply = out
        .iter()
        .find(|m| m.to_is("genogien@game.test"))
        .expect("the sender is answered");
    assert!(reply.text.contains("måndag 12:00"), "{}", reply.text);
    assert!(reply.text.contains("30 november"), "{}", reply.text);
    let mut c = g.app.store.conn().await.unwrap();
    let refused = messages::in_states(&mut c, &[messages::state::REFUSED])
        .await
        .unwrap();
    assert_eq!(refused.len(), 1);
    assert!(refused[0].body.contains("för sent i veckan"));
}

/// R-MAIL-10: the form deadline is Sunday 15:00 local time; a form at 15:00 is
/// refused and the one before it stays the standing form.
#[tokio::test]
async fn r_mail_10_the_form_deadline_is_sunday_15_local() {
    let g = Game::start("2026-11-29T14:00:00+01:00").await;
    g.send("genogien@game.test", "Genogien formulär", "KÖP 1 spion");
    g.tick("2026-11-29T14:59:59+01:00").await;
    g.send("genogien@game.test", "Genogien formulär", "KÖP 2 spion");
    g.tick("2026-11-29T15:00:00+01:00").await;
    let to_g: Vec<_> = g
        .outbox()
        .into_iter()
        .filter(|m| m.to_is("genogien@game.test"))
        .collect();
    assert_eq!(to_g.len(), 2, "a receipt and a refusal");
    let mut c = g.app.store.conn().await.unwrap();
    let current = pbemd::store::forms::current(&mut c, "Genogien", 1)
        .await
        .unwrap()
        .expect("the first form stands");
    assert_eq!(
        current.1,
        common::at("2026-11-29T14:59:59+01:00").timestamp_millis()
    );
}

// ---------------------------------------------------------------- R-EVIL

/// R-EVIL-20: envoys and merchants go to and from the Evil like any realm's: both
/// envoys arrive as written, and both merchants move their goods.
#[test]
fn r_evil_20_envoys_and_merchants_go_to_and_from_the_evil() {
    let mut s = load_scenario(include_str!("../scenarios/evil.yaml")).expect("evil scenario");
    s.round = 3;
    assert!(s.realm("Ondskan").unwrap().is_evil);
    s.realm_mut("Genogien").unwrap().stock = Resources::from_pairs(&[(Resource::Mat, 10)]);
    s.realm_mut("Ondskan").unwrap().stock = Resources::from_pairs(&[(Resource::Guld, 10)]);
    let d = run(
        &mut s,
        &[
            envoy(1, "Genogien", "Ondskan", "Vi söker fred med mörkret."),
            envoy(2, "Ondskan", "Genogien", "Mörkret svarar."),
            merchant(3, "Genogien", "Ondskan", "****\nSkickar: 4 mat"),
            merchant(4, "Ondskan", "Genogien", "****\nSkickar: 3 guld"),
        ],
        &[],
    );
    for (k, want) in [(0, "Vi söker fred med mörkret."), (1, "Mörkret svarar.")] {
        assert_eq!(d[k].outcome, Outcome::Delivered, "envoy {k}");
        match envoy_sent(&d[k]) {
            Some(Dispatch::Envoy { text, .. }) => assert_eq!(text, want),
            other => panic!("expected an envoy, got {other:?}"),
        }
    }
    assert_eq!(
        (&d[2].outcome, &d[3].outcome),
        (&Outcome::Delivered, &Outcome::Delivered)
    );
    let (g, o) = (s.realm("Genogien").unwrap(), s.realm("Ondskan").unwrap());
    assert_eq!((g.stock.mat, g.stock.guld), (6, 3));
    assert_eq!((o.stock.mat, o.stock.guld), (4, 7));
}
