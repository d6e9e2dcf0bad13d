//! Espionage at the weekend (R-SPY, docs/rules.md Rulings 43–46): spies bought on the
//! form, the passive roll against foreign troops (R-SPY-9, Rulings 45), and what the
//! spy missions read of the weekend. One test per case, named by rule ID.

#[path = "weekend_common/economy.rs"]
mod economy;

use economy::*;
use pbemd::courier::mission::gather;
use pbemd::courier::Intel;
use pbemd::game::event::{Step, What};
use pbemd::game::orders::{Group, Order};
use pbemd::game::state::{ArmyGroup, Dimension, EvilInfo, SpyMission, Unit, Vote};
use pbemd::game::weekend::economy::{EconomyEvent, Purchase};
use pbemd::game::weekend::espionage::{Detection, EspionageEvent};
use pbemd::game::weekend::{resolve, Resolution};
use pbemd::game::{GameState, Lang, UnitKind};

/// Alfa's informant value `informator`; a Beta army of light cavalry on E3 (no one's
/// land) marching into Alfa's D3 when `march`.
fn border(informator: u32) -> GameState {
    let mut gs = game();
    for c in gs.cities.iter_mut() {
        c.production.set(pbemd::game::Resource::Slavar, 0);
    }
    gs.realm_mut("Alfa").expect("Alfa").positions.informator = informator;
    gs.armies.push(ArmyGroup {
        id: 1,
        owner: "Beta".into(),
        square: sq("E3"),
        dimension: Dimension::Normal,
        units: smallvec::smallvec![
            Unit {
                kind: UnitKind::LattKavalleri,
                built_round: 0,
            };
            2
        ],
        treasure: Default::default(),
        no_move_until_round: None,
    });
    gs
}

fn march() -> pbemd::game::weekend::Orders {
    forms(vec![(
        "Beta",
        vec![Order::Move {
            group: Group::Army(1),
            path: vec![sq("D3")],
        }],
    )])
}

/// The passive roll's event (seen or not) and the roll recorded for it.
fn passive(res: &Resolution) -> Option<(EspionageEvent, Vec<String>, u32)> {
    let e = res.events.iter().find_map(|e| match &e.what {
        What::Espionage(ev) => Some((
            ev.clone(),
            e.seen_by.iter().map(|n| n.to_string()).collect(),
            e.step,
        )),
        _ => None,
    })?;
    assert_eq!(e.2, Step::Espionage);
    let roll = res
        .rolls
        .iter()
        .find(|r| r.purpose == "weekend/spy/passive/Alfa")
        .map(|r| r.value)
        .expect("the passive roll is recorded");
    Some((e.0, e.1, roll))
}

/// Under the first seed whose passive roll satisfies `want`, the weekend.
fn rolling(gs: &GameState, want: impl Fn(u32) -> bool) -> Resolution {
    (0..500)
        .map(|seed| resolve(gs, &march(), &gs.settings, seed))
        .find(|res| passive(res).is_some_and(|p| want(p.2)))
        .expect("some seed rolls it")
}

fn report(res: &Resolution) -> Detection {
    match passive(res).expect("a passive roll").0 {
        EspionageEvent::Passive { report, .. } => report,
    }
}

#[test]
fn r_spy_1_spies_bought_on_the_form_join_the_realms_pool() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let res = weekend(
        &gs,
        &forms(vec![("Alfa", vec![Order::BuySpies { count: 2 }])]),
    );
    assert_eq!(res.state.realm("Alfa").expect("Alfa").spies, 2);
    assert!(told(&res, "Alfa").iter().any(|e| matches!(
        e,
        EconomyEvent::Bought {
            purchase: Purchase::Spies { count: 2 },
            ..
        }
    )));
}

/// Beta as the Evil.
fn evil_beta(gs: &mut GameState) {
    gs.realm_mut("Beta").expect("Beta").is_evil = true;
    gs.evil = Some(EvilInfo {
        realm: "Beta".into(),
        leash: 5,
    });
}

#[test]
fn r_spy_12_the_evil_cannot_build_spies_at_the_weekend() {
    let mut gs = game();
    evil_beta(&mut gs);
    rich(&mut gs, "Beta");
    let res = weekend(
        &gs,
        &forms(vec![("Beta", vec![Order::BuySpies { count: 1 }])]),
    );
    assert_eq!(res.state.realm("Beta").expect("Beta").spies, 0);
    assert!(told(&res, "Beta")
        .iter()
        .any(|e| matches!(e, EconomyEvent::Refused { rule, .. } if rule == "R-EVIL-19")));
}

#[test]
fn r_evil_19_the_form_refuses_spies_for_the_evil() {
    let mut gs = game();
    evil_beta(&mut gs);
    rich(&mut gs, "Beta");
    let checked = pbemd::forms::check_orders(&gs, "Beta", &[Order::BuySpies { count: 1 }]);
    let refusal = checked.lines[0].refusal.as_ref().expect("refused");
    assert_eq!(refusal.rule(), Some("R-EVIL-19"));
    assert!(
        refusal.text(Lang::En).contains("Evil"),
        "{}",
        refusal.text(Lang::En)
    );
}

#[test]
fn r_spy_9_troops_marching_in_over_15_tell_where_they_are() {
    let gs = border(14);
    let res = rolling(&gs, |r| r > 1);
    assert_eq!(
        report(&res),
        Detection::TroopsAt {
            squares: vec![sq("D3")]
        }
    );
    let (_, seen_by, _) = passive(&res).expect("a roll");
    assert_eq!(seen_by, vec!["Alfa".to_string()]);
    let lines = pbemd::render::weekend::report(&res.events, &res.state, "Alfa", Lang::Sv);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Spionrapport") && l.contains("D3")),
        "{lines:?}"
    );
    let beta = pbemd::render::weekend::report(&res.events, &res.state, "Beta", Lang::En);
    assert!(!beta.iter().any(|l| l.contains("Spy report")), "{beta:?}");
}

#[test]
fn rulings_45_over_10_and_under_15_tells_only_that_troops_are_there() {
    let gs = border(9);
    let res = rolling(&gs, |r| (2..=5).contains(&r));
    assert_eq!(report(&res), Detection::Troops);
}

#[test]
fn rulings_45_the_detail_threshold_is_a_setting() {
    let mut gs = border(9);
    gs.settings.passive_spy_squares_at = 11;
    let res = rolling(&gs, |r| (2..=5).contains(&r));
    assert!(matches!(report(&res), Detection::TroopsAt { .. }));
}

#[test]
fn r_spy_9_a_roll_of_10_or_less_tells_nothing() {
    let gs = border(3);
    let res = rolling(&gs, |r| (2..=7).contains(&r));
    assert_eq!(report(&res), Detection::Nothing);
    let (_, seen_by, _) = passive(&res).expect("a roll");
    assert!(seen_by.is_empty(), "no realm reads a failed roll");
    let lines = pbemd::render::weekend::report(&res.events, &res.state, "Alfa", Lang::En);
    assert!(!lines.iter().any(|l| l.contains("Spy report")), "{lines:?}");
}

#[test]
fn rulings_45_natural_one_gives_a_false_report() {
    let gs = border(20);
    let res = rolling(&gs, |r| r == 1);
    let (ev, seen_by, _) = passive(&res).expect("a roll");
    let EspionageEvent::Passive {
        report,
        false_report,
        ..
    } = ev;
    assert!(false_report);
    assert_eq!(seen_by, vec!["Alfa".to_string()]);
    let Detection::TroopsAt { squares } = report else {
        panic!("a false report names a square: {report:?}");
    };
    assert_eq!(squares.len(), 1);
    let owner = res.state.map.get(squares[0]).and_then(|m| m.owner.clone());
    assert_eq!(owner.as_deref(), Some("Alfa"), "a square of its own");
}

#[test]
fn rulings_45_false_reports_are_a_setting() {
    let mut gs = border(20);
    gs.settings.passive_spy_false_reports = false;
    let res = rolling(&gs, |r| r == 1);
    assert_eq!(report(&res), Detection::Nothing);
}

#[test]
fn r_spy_9_no_roll_without_foreign_troops_coming_in() {
    let gs = border(14);
    let res = resolve(&gs, &forms(vec![]), &gs.settings, 7);
    assert!(passive(&res).is_none());
    assert!(!res.rolls.iter().any(|r| r.purpose.contains("spy/passive")));
}

#[test]
fn r_spy_9_troops_already_in_the_land_bring_no_new_roll() {
    let mut gs = border(14);
    gs.armies.last_mut().expect("Beta's army").square = sq("D3");
    let res = resolve(&gs, &forms(vec![]), &gs.settings, 7);
    assert!(passive(&res).is_none());
}

/// R-COMBAT-11 meets R-SPY-9: the square Beta's army stands on (E3, no one's land)
/// becomes Alfa's land this weekend, two rounds after Alfa took it, so foreign troops
/// now stand in Alfa's land that were not in it when the forms came in: Alfa rolls,
/// though no army moved.
#[test]
fn r_spy_9_a_border_redrawn_this_weekend_brings_the_new_owner_a_roll() {
    let mut gs = border(14);
    assert!(gs.map.get(sq("E3")).is_some_and(|m| m.owner.is_none()));
    gs.round = 3;
    let round = gs.round;
    gs.conquests.push(pbemd::game::state::Conquest {
        square: sq("E3"),
        from: "Beta".into(),
        to: "Alfa".into(),
        round: round - 2,
    });
    let res = resolve(&gs, &forms(vec![]), &gs.settings, 7);
    assert_eq!(
        res.state.map.get(sq("E3")).and_then(|m| m.owner.as_deref()),
        Some("Alfa")
    );
    let (ev, _, _) = passive(&res).expect("Alfa rolls");
    assert!(matches!(ev, EspionageEvent::Passive { ref realm, .. } if realm.as_str() == "Alfa"));
}

#[test]
fn r_evil_19_the_evils_troops_are_not_spied_on() {
    let mut gs = border(14);
    evil_beta(&mut gs);
    let res = resolve(&gs, &march(), &gs.settings, 7);
    assert!(res.state.armies_of("Beta").any(|a| a.square == sq("D3")));
    assert!(passive(&res).is_none());
}

// ---- missions that read the weekend ------------------------------------------------

#[test]
fn r_spy_4_mission_9_reads_the_latest_vote_from_the_state() {
    let mut gs = game();
    let vote = |round, voter: &str, candidate: &str| Vote {
        round,
        voter: voter.into(),
        candidate: candidate.into(),
    };
    gs.votes = vec![vote(4, "Beta", "Alfa"), vote(8, "Alfa", "Beta")];
    let intel = gather(&gs, "Alfa", "Alfa", &SpyMission::WhoVoted, &[]);
    assert_eq!(
        intel,
        Some(Intel::WhoVoted {
            round: Some(8),
            voters: vec![]
        })
    );
    let intel = gather(&gs, "Beta", "Beta", &SpyMission::WhoVoted, &[]);
    assert_eq!(
        intel,
        Some(Intel::WhoVoted {
            round: Some(8),
            voters: vec!["Alfa".into()]
        })
    );
}

#[test]
fn r_spy_4_mission_10_sees_the_troops_the_weekend_left_in_the_land() {
    let gs = border(0);
    let res = resolve(&gs, &march(), &gs.settings, 7);
    let intel = gather(&res.state, "Alfa", "Alfa", &SpyMission::ForeignTroops, &[]);
    let Some(Intel::ForeignTroops { armies }) = intel else {
        panic!("{intel:?}");
    };
    assert_eq!(armies.len(), 1);
    assert_eq!(
        (armies[0].owner.as_str(), armies[0].square),
        ("Beta", sq("D3"))
    );
}

#[test]
fn r_evil_19_mission_10_does_not_see_the_evil() {
    let mut gs = border(0);
    gs.armies.last_mut().expect("Beta's army").square = sq("D3");
    evil_beta(&mut gs);
    let intel = gather(&gs, "Alfa", "Alfa", &SpyMission::ForeignTroops, &[]);
    assert_eq!(intel, Some(Intel::ForeignTroops { armies: vec![] }));
}

#[test]
fn r_evil_19_the_evil_makes_no_passive_roll() {
    let mut gs = border(14);
    gs.realm_mut("Alfa").expect("Alfa").is_evil = true;
    gs.evil = Some(EvilInfo {
        realm: "Alfa".into(),
        leash: 5,
    });
    let res = resolve(&gs, &march(), &gs.settings, 7);
    assert!(res.state.armies_of("Beta").any(|a| a.square == sq("D3")));
    assert!(passive(&res).is_none());
}

/// A stored state whose groups are not in (owner, number) order: Beta's army first.
fn beta_first(gs: &mut GameState) {
    let beta = gs.armies.pop().expect("Beta's army");
    assert!(
        gs.armies.iter().any(|a| a.owner.as_str() < "Beta"),
        "the test needs a group that sorts before Beta's"
    );
    gs.armies.insert(0, beta);
}

#[test]
fn r_spy_9_troops_already_in_the_land_bring_no_new_roll_from_an_unsorted_state() {
    let mut gs = border(14);
    gs.armies.last_mut().expect("Beta's army").square = sq("D3");
    beta_first(&mut gs);
    let res = resolve(&gs, &forms(vec![]), &gs.settings, 7);
    assert!(passive(&res).is_none());
}

#[test]
fn r_spy_9_troops_marching_in_bring_a_roll_from_an_unsorted_state() {
    let mut gs = border(14);
    beta_first(&mut gs);
    let res = resolve(&gs, &march(), &gs.settings, 7);
    assert!(passive(&res).is_some());
}
