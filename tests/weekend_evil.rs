//! The Evil at the weekend (R-EVIL-1..21, docs/rules.md Rulings 53–59), case by case:
//! each test a small state built on the Evil scenario, the orders and fixed dice, and
//! the numbers the rule gives.

#[path = "weekend_common/military.rs"]
mod military_cases;
use military_cases::{orders, sq};
use pbemd::game::combat::Line;
use pbemd::game::dice::Dice;
use pbemd::game::event::{Event, What};
use pbemd::game::orders::{Group, Order, Outcome, Piece};
use pbemd::game::state::{ArmyGroup, Dimension, EvilTerrain, Portal, Positions, Unit};
use pbemd::game::weekend::economy::{self, EconomyEvent, Why};
use pbemd::game::weekend::evil::{self, EvilEvent};
use pbemd::game::weekend::military;
use pbemd::game::weekend::{Orders, Weekend};
use pbemd::game::{load_scenario, GameState, Lang, Resource, Square, UnitKind};

use UnitKind::{HogreDemon, LagreDemon, LattInfanteri, TungtInfanteri};

const ROUND: u32 = 3;
const EVIL: &str = "Ondskan";
const GEN: &str = "Genogien";

/// The Evil scenario without troops, positions 0, no friends, round 3; the portal on
/// B4 opened in round 1.
fn game() -> GameState {
    let mut gs = load_scenario(include_str!("../scenarios/evil.yaml")).expect("evil");
    gs.round = ROUND;
    gs.armies.clear();
    gs.fleets.clear();
    for r in &mut gs.realms {
        r.positions = Positions::default();
        r.friends.clear();
    }
    portal(&mut gs, "B4", 1);
    gs
}

fn portal(gs: &mut GameState, at: &str, opened_round: u32) {
    gs.map.squares.get_mut(&sq(at)).expect("square").portal = Some(Box::new(Portal {
        opened_by: EVIL.to_string(),
        opened_round,
        closes_after_round: None,
    }));
}

fn units(list: &[(u32, UnitKind)]) -> Vec<Unit> {
    list.iter()
        .flat_map(|(n, k)| {
            (0..*n).map(move |_| Unit {
                kind: *k,
                built_round: ROUND - 1,
            })
        })
        .collect()
}

fn army(gs: &mut GameState, owner: &str, id: u32, at: &str, dim: Dimension, u: Vec<Unit>) {
    gs.armies.push(ArmyGroup {
        id,
        owner: owner.into(),
        square: sq(at),
        dimension: dim,
        units: u.into(),
        treasure: Default::default(),
        no_move_until_round: None,
    });
    gs.armies
        .sort_by(|a, b| (a.owner.as_str(), a.id).cmp(&(b.owner.as_str(), b.id)));
}

fn group<'a>(gs: &'a GameState, owner: &str, id: u32) -> &'a ArmyGroup {
    gs.army(owner, id).expect("army")
}

fn kinds(g: &ArmyGroup) -> Vec<UnitKind> {
    g.units.iter().map(|u| u.kind).collect()
}

fn mv(id: u32, path: &[&str]) -> Order {
    Order::Move {
        group: Group::Army(id),
        path: path.iter().map(|s| sq(s)).collect(),
    }
}

fn evil_events(events: &[Event]) -> Vec<&EvilEvent> {
    events
        .iter()
        .filter_map(|e| match &e.what {
            What::Evil(ev) => Some(ev),
            _ => None,
        })
        .collect()
}

/// Step 3 with the weekend's own dice.
fn movement(gs: &GameState, o: &Orders) -> (GameState, Vec<Event>) {
    let mut w = Weekend::new(gs, o, &gs.settings, gs.game.seed);
    military::movement(&mut w);
    (w.state, w.events)
}

/// Step 4 with d20 faces `rolls`.
fn fight(gs: &GameState, o: &Orders, rolls: &[u32]) -> (GameState, Vec<Event>) {
    let mut w = Weekend::new(gs, o, &gs.settings, gs.game.seed);
    military::combat_with(&mut w, Dice::scripted("test", rolls));
    (w.state, w.events)
}

// ------------------------------------------------------------ the dimension, lava

/// R-EVIL-2 with RULINGS 53: a realm's armies on one square but in the two dimensions
/// never merge, neither by the rule that merges groups standing together (R-MOVE-8)
/// nor by a merge order; troops and treasure cross only by a portal.
#[test]
fn r_evil_2_groups_on_one_square_in_the_two_dimensions_never_merge() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "E4",
        Dimension::Evil,
        units(&[(2, LattInfanteri)]),
    );
    army(
        &mut gs,
        GEN,
        2,
        "E4",
        Dimension::Normal,
        units(&[(3, TungtInfanteri)]),
    );
    gs.armies
        .iter_mut()
        .find(|a| a.owner == GEN && a.id == 1)
        .unwrap()
        .treasure
        .set(Resource::Guld, 20);
    let merge = Order::Merge {
        group: Group::Army(2),
        other: 1,
    };
    let o = orders(&[(GEN, vec![merge])]);
    let (after, _) = movement(&gs, &o);
    let (after, _) = fight(&after, &orders(&[]), &[]);
    let (one, two) = (group(&after, GEN, 1), group(&after, GEN, 2));
    assert_eq!((one.dimension, one.units.len()), (Dimension::Evil, 2));
    assert_eq!((two.dimension, two.units.len()), (Dimension::Normal, 3));
    assert_eq!(
        one.treasure.get(Resource::Guld),
        20,
        "the treasure stays in the Evil's"
    );
    assert!(two.treasure.is_zero());
}

#[test]
fn r_evil_1_rulings_53_sea_is_rock_and_land_is_lava_in_the_evil_dimension() {
    let gs = game();
    assert_eq!(
        gs.map.get(sq("B4")).unwrap().evil_terrain,
        EvilTerrain::Lava
    );
    assert_eq!(
        gs.map.get(sq("A1")).unwrap().evil_terrain,
        EvilTerrain::Rock
    );
}

#[test]
fn r_evil_3_rulings_54_a_lava_roll_of_2_kills_the_last_unit() {
    let mut gs = game();
    let u = units(&[(1, TungtInfanteri), (1, LattInfanteri)]);
    army(&mut gs, GEN, 1, "C4", Dimension::Evil, u);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    let mut dice = Dice::scripted("test", &[2]);
    assert!(evil::lava_roll(&mut w, &mut dice, GEN, 1, sq("C4")));
    assert_eq!(kinds(group(&w.state, GEN, 1)), [TungtInfanteri]);
    let en = pbemd::render::weekend::report(&w.events, &w.state, GEN, Lang::En);
    assert_eq!(
        en,
        ["Army 1 went onto the lava on C4 (1d10: 2); 1 light infantry died (R-EVIL-3)."]
    );
}

#[test]
fn r_evil_3_rulings_54_a_lava_roll_of_3_spares_the_army() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "C4",
        Dimension::Evil,
        units(&[(2, LattInfanteri)]),
    );
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    let mut dice = Dice::scripted("test", &[3]);
    assert!(evil::lava_roll(&mut w, &mut dice, GEN, 1, sq("C4")));
    assert_eq!(group(&w.state, GEN, 1).units.len(), 2);
}

#[test]
fn r_evil_3_the_lava_takes_the_last_unit_and_the_army_is_gone() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "C4",
        Dimension::Evil,
        units(&[(1, LattInfanteri)]),
    );
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    let mut dice = Dice::scripted("test", &[1]);
    assert!(!evil::lava_roll(&mut w, &mut dice, GEN, 1, sq("C4")));
    assert!(w.state.army(GEN, 1).is_none());
}

#[test]
fn r_evil_3_rulings_54_each_lava_square_entered_is_rolled_once() {
    let mut gs = game();
    gs.realm_mut(GEN).unwrap().positions.befalhavare = 0;
    let u = units(&[(3, UnitKind::LattKavalleri)]);
    army(&mut gs, GEN, 1, "C3", Dimension::Evil, u);
    // C3 → D3 (lava) → E3 (lava): two lava squares, two rolls.
    let (after, events) = movement(&gs, &orders(&[(GEN, vec![mv(1, &["D3", "E3"])])]));
    let rolls: Vec<(u32, bool)> = evil_events(&events)
        .iter()
        .filter_map(|e| match e {
            EvilEvent::Lava { roll, lost, .. } => Some((*roll, lost.is_some())),
            _ => None,
        })
        .collect();
    assert_eq!(rolls.len(), 2);
    for (roll, lost) in &rolls {
        assert_eq!(*lost, *roll <= 2, "1–2 on the d10 kills (20 %)");
    }
    let dead = rolls.iter().filter(|(_, l)| *l).count();
    assert_eq!(group(&after, GEN, 1).units.len(), 3 - dead);
}

#[test]
fn r_evil_3_the_evils_demons_are_immune_to_lava() {
    let mut gs = game();
    army(
        &mut gs,
        EVIL,
        1,
        "C3",
        Dimension::Evil,
        units(&[(1, HogreDemon)]),
    );
    let (after, events) = movement(&gs, &orders(&[(EVIL, vec![mv(1, &["D3", "E3"])])]));
    assert_eq!(group(&after, EVIL, 1).square, sq("E3"));
    assert!(!evil_events(&events)
        .iter()
        .any(|e| matches!(e, EvilEvent::Lava { .. })));
}

// ------------------------------------------------------------ portals

#[test]
fn r_evil_15_an_army_steps_through_a_portal_by_naming_its_square() {
    let mut gs = game();
    // E3 is Genogien's land; the portal on B4 lies in it too.
    army(
        &mut gs,
        GEN,
        1,
        "B4",
        Dimension::Normal,
        units(&[(3, TungtInfanteri)]),
    );
    let (after, events) = movement(&gs, &orders(&[(GEN, vec![mv(1, &["B4"])])]));
    let g = group(&after, GEN, 1);
    assert_eq!(g.dimension, Dimension::Evil);
    assert_eq!(g.square, sq("B4"));
    let ev = evil_events(&events);
    assert!(matches!(
        ev[0],
        EvilEvent::ThroughPortal {
            to: Dimension::Evil,
            ..
        }
    ));
    // Arriving on the lava of B4 is entering a lava square (Rulings 54).
    assert!(matches!(ev[1], EvilEvent::Lava { .. }));
}

#[test]
fn r_evil_15_an_army_comes_back_through_the_portal() {
    let mut gs = game();
    // Light cavalry: one point for the portal, one for the step.
    let u = units(&[(1, UnitKind::LattKavalleri)]);
    army(&mut gs, GEN, 1, "B4", Dimension::Evil, u);
    let (after, _) = movement(&gs, &orders(&[(GEN, vec![mv(1, &["B4", "C4"])])]));
    let g = group(&after, GEN, 1);
    assert_eq!((g.dimension, g.square), (Dimension::Normal, sq("C4")));
}

#[test]
fn r_evil_15_no_troops_pass_a_portal_in_the_round_it_was_opened() {
    let mut gs = game();
    portal(&mut gs, "B4", ROUND);
    army(
        &mut gs,
        GEN,
        1,
        "B4",
        Dimension::Normal,
        units(&[(1, TungtInfanteri)]),
    );
    let (after, events) = movement(&gs, &orders(&[(GEN, vec![mv(1, &["B4"])])]));
    assert_eq!(group(&after, GEN, 1).dimension, Dimension::Normal);
    assert!(matches!(
        evil_events(&events)[0],
        EvilEvent::PortalTooNew { .. }
    ));
}

#[test]
fn r_evil_15_without_a_portal_naming_the_own_square_goes_nowhere() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "C4",
        Dimension::Normal,
        units(&[(1, TungtInfanteri)]),
    );
    let (after, _) = movement(&gs, &orders(&[(GEN, vec![mv(1, &["C4"])])]));
    assert_eq!(group(&after, GEN, 1).dimension, Dimension::Normal);
}

#[test]
fn r_evil_2_troops_of_the_two_dimensions_do_not_meet() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "D4",
        Dimension::Normal,
        units(&[(1, TungtInfanteri)]),
    );
    army(
        &mut gs,
        EVIL,
        1,
        "D3",
        Dimension::Evil,
        units(&[(1, LagreDemon)]),
    );
    let (after, events) = movement(&gs, &orders(&[(EVIL, vec![mv(1, &["D4"])])]));
    assert_eq!(group(&after, EVIL, 1).square, sq("D4"));
    assert!(!events.iter().any(|e| matches!(
        &e.what,
        What::Military(military::MilitaryEvent::Moved { stop: Some(_), .. })
    )));
}

#[test]
fn r_evil_18_rulings_58_a_portal_with_no_evil_troops_near_closes_after_1d4_rounds() {
    let gs = game();
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::lifetime_with(&mut w, Dice::scripted("test", &[3]));
    let p = w.state.map.get(sq("B4")).unwrap().portal.clone().unwrap();
    assert_eq!(p.closes_after_round, Some(ROUND + 3));
    // Three rounds on, it closes.
    let mut later = w.state.clone();
    later.round = ROUND + 3;
    let mut w = Weekend::new(&later, &o, &later.settings, 1);
    evil::lifetime_with(&mut w, Dice::scripted("test", &[]));
    assert!(w.state.map.get(sq("B4")).unwrap().portal.is_none());
    assert!(matches!(
        evil_events(&w.events)[0],
        EvilEvent::PortalClosed { .. }
    ));
}

#[test]
fn r_evil_18_a_fading_portal_is_still_open_before_its_round() {
    let mut gs = game();
    gs.map
        .squares
        .get_mut(&sq("B4"))
        .unwrap()
        .portal
        .as_mut()
        .unwrap()
        .closes_after_round = Some(ROUND + 1);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::lifetime_with(&mut w, Dice::scripted("test", &[]));
    assert!(w.state.map.get(sq("B4")).unwrap().portal.is_some());
}

#[test]
fn r_evil_18_rulings_58_evil_troops_five_king_moves_away_keep_it_open() {
    let mut gs = game();
    // G9 is 5 columns and 5 rows from B4: within 5 king moves.
    army(
        &mut gs,
        EVIL,
        1,
        "G9",
        Dimension::Normal,
        units(&[(1, LagreDemon)]),
    );
    gs.map
        .squares
        .get_mut(&sq("B4"))
        .unwrap()
        .portal
        .as_mut()
        .unwrap()
        .closes_after_round = Some(ROUND);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::lifetime_with(&mut w, Dice::scripted("test", &[]));
    let p = w.state.map.get(sq("B4")).unwrap().portal.clone().unwrap();
    assert_eq!(p.closes_after_round, None, "the fading stops");
    assert!(matches!(
        evil_events(&w.events)[0],
        EvilEvent::PortalHeld { .. }
    ));
}

#[test]
fn r_evil_18_evil_troops_six_squares_away_do_not_keep_it_open() {
    let mut gs = game();
    army(
        &mut gs,
        EVIL,
        1,
        "H4",
        Dimension::Normal,
        units(&[(1, LagreDemon)]),
    );
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::lifetime_with(&mut w, Dice::scripted("test", &[1]));
    let p = w.state.map.get(sq("B4")).unwrap().portal.clone().unwrap();
    assert_eq!(p.closes_after_round, Some(ROUND + 1));
}

// ------------------------------------------------------------ demons

#[test]
fn r_evil_17_rulings_58_demons_stay_within_five_squares_of_a_portal() {
    let mut gs = game();
    army(
        &mut gs,
        EVIL,
        1,
        "F4",
        Dimension::Normal,
        units(&[(1, HogreDemon)]),
    );
    // G4 is 5 squares from B4, H4 is 6.
    let (after, events) = movement(&gs, &orders(&[(EVIL, vec![mv(1, &["G4", "H4"])])]));
    assert_eq!(group(&after, EVIL, 1).square, sq("G4"));
    assert!(matches!(
        evil_events(&events)[0],
        EvilEvent::Leash { leash: 5, .. }
    ));
}

#[test]
fn r_evil_10_rulings_56_a_higher_demon_carries_its_army_over_water() {
    let mut gs = game();
    let u = units(&[(1, HogreDemon), (2, LagreDemon)]);
    army(&mut gs, EVIL, 1, "C5", Dimension::Normal, u);
    // B5 and A5 are sea.
    let (after, _) = movement(&gs, &orders(&[(EVIL, vec![mv(1, &["B5", "A5"])])]));
    assert_eq!(group(&after, EVIL, 1).square, sq("A5"));
}

#[test]
fn r_evil_10_lower_demons_alone_do_not_cross_water() {
    let mut gs = game();
    army(
        &mut gs,
        EVIL,
        1,
        "C5",
        Dimension::Normal,
        units(&[(1, LagreDemon)]),
    );
    let (after, _) = movement(&gs, &orders(&[(EVIL, vec![mv(1, &["B5"])])]));
    assert_eq!(group(&after, EVIL, 1).square, sq("C5"));
}

#[test]
fn r_evil_10_rulings_56_a_slain_higher_demon_stands_on_as_two_lower_demons() {
    let h = Piece::Unit(HogreDemon);
    let l = Piece::Unit(LagreDemon);
    let mut line = Line::new([(h, 2)]);
    assert_eq!(line.lose(1), 1);
    assert_eq!(line.runs(), [(h, 1), (l, 2)]);
    assert_eq!(
        line.lose(3),
        3,
        "the two lower demons, then the next higher one"
    );
    assert_eq!(line.runs(), [(l, 2)]);
}

#[test]
fn r_evil_10_rulings_56_in_battle_the_split_demons_stay_in_the_group() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "C4",
        Dimension::Normal,
        units(&[(1, LattInfanteri)]),
    );
    army(
        &mut gs,
        EVIL,
        1,
        "C5",
        Dimension::Normal,
        units(&[(1, HogreDemon)]),
    );
    let o = orders(&[(
        GEN,
        vec![Order::Attack {
            group: Group::Army(1),
            square: sq("C5"),
            outcome: None,
            wave: None,
        }],
    )]);
    // Round 1: 1 + 10 against 2 + 1: one loss, the higher demon splits. Round 2:
    // 1 + 1 against 4 + 20: the attacker falls.
    let (after, _) = fight(&gs, &o, &[10, 1, 1, 20]);
    assert_eq!(kinds(group(&after, EVIL, 1)), [LagreDemon, LagreDemon]);
    assert!(after.army(GEN, 1).is_none());
}

#[test]
fn r_evil_9_the_evil_builds_demons_in_its_own_city_in_its_dimension() {
    let mut gs = game();
    gs.realm_mut(EVIL).unwrap().positions.befalhavare = 2;
    let buy = Order::BuyUnits {
        count: 1,
        kind: LagreDemon,
        city: None,
    };
    let o = orders(&[(EVIL, vec![buy])]);
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    economy::purchases(&mut w);
    let g = w.state.armies_of(EVIL).next().expect("a new group");
    assert_eq!((g.square, g.dimension), (sq("F6"), Dimension::Evil));
    assert_eq!(kinds(g), [LagreDemon]);
}

#[test]
fn rulings_29_the_evil_keeps_its_capital_in_its_own_dimension_over_a_weekend() {
    let gs = game();
    assert_eq!(gs.realm(EVIL).unwrap().capital, Some(sq("F6")));
    let res = pbemd::game::weekend::resolve(&gs, &Orders::default(), &gs.settings, 1);
    // Its one city stands in its own dimension; the wrap-up must not take it away.
    assert_eq!(res.state.realm(EVIL).unwrap().capital, Some(sq("F6")));
    let city = res.state.cities_of(EVIL).next().expect("the Evil's city");
    assert!(city.capital, "the city keeps its capital flag");
    assert_eq!(res.state.validate(), Ok(()));
    // So a demon bought the next weekend without naming a city comes, in F6.
    let mut next = res.state.clone();
    pbemd::app::weekend::advance(&mut next);
    next.realm_mut(EVIL).unwrap().positions.befalhavare = 2;
    let buy = Order::BuyUnits {
        count: 1,
        kind: LagreDemon,
        city: None,
    };
    let o = orders(&[(EVIL, vec![buy])]);
    let mut w = Weekend::new(&next, &o, &next.settings, 2);
    economy::purchases(&mut w);
    let g = w.state.armies_of(EVIL).next().expect("a new group");
    assert_eq!((g.square, g.dimension), (sq("F6"), Dimension::Evil));
}

#[test]
fn rulings_29_the_evil_may_name_a_city_in_its_own_dimension_as_capital() {
    let mut gs = game();
    let mut second = gs.cities_of(EVIL).next().expect("the Evil's city").clone();
    second.square = sq("G5");
    second.name = "Askborg".into();
    (second.capital, second.population) = (false, 10);
    gs.cities.push(second);
    let o = orders(&[(EVIL, vec![Order::Capital { city: sq("G5") }])]);
    assert_eq!(
        form_refusal(&gs, EVIL, Order::Capital { city: sq("G5") }),
        None
    );
    let res = pbemd::game::weekend::resolve(&gs, &o, &gs.settings, 1);
    assert_eq!(res.state.realm(EVIL).unwrap().capital, Some(sq("G5")));
    let flagged: Vec<&str> = res
        .state
        .cities_of(EVIL)
        .filter(|c| c.capital)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(flagged, ["Askborg"]);
}

#[test]
fn rulings_29_a_normal_realm_may_not_name_a_city_in_the_evils_dimension_as_capital() {
    let mut gs = game();
    let mut deep = gs.cities_of(EVIL).next().expect("the Evil's city").clone();
    deep.square = sq("G5");
    deep.name = "Djupborg".into();
    deep.owner = GEN.into();
    deep.capital = false;
    gs.cities.push(deep);
    let seat = Order::Capital { city: sq("G5") };
    assert_eq!(
        form_refusal(&gs, GEN, seat.clone()).as_deref(),
        Some("RULINGS 29")
    );
    let before = gs.realm(GEN).unwrap().capital;
    let res = pbemd::game::weekend::resolve(&gs, &orders(&[(GEN, vec![seat])]), &gs.settings, 1);
    assert_eq!(res.state.realm(GEN).unwrap().capital, before);
}

#[test]
fn r_evil_9_the_evil_builds_nothing_but_demons() {
    let mut gs = game();
    gs.realm_mut(EVIL).unwrap().positions.befalhavare = 2;
    let buy = Order::BuyUnits {
        count: 1,
        kind: LattInfanteri,
        city: None,
    };
    let o = orders(&[(EVIL, vec![buy])]);
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    economy::purchases(&mut w);
    assert!(w.state.armies_of(EVIL).next().is_none());
    assert!(w.events.iter().any(|e| matches!(
        e.what.economy(),
        Some(EconomyEvent::Refused {
            why: Why::DemonsOnly,
            ..
        })
    )));
}

// ------------------------------------------------------------ treasures

fn on_treasure(gs: &mut GameState) {
    // E6 is sea in the normal dimension: rock, with a treasure.
    army(
        gs,
        GEN,
        1,
        "E6",
        Dimension::Evil,
        units(&[(2, TungtInfanteri)]),
    );
    assert!(gs.map.get(sq("E6")).unwrap().treasure);
}

#[test]
fn r_evil_8_a_treasure_roll_of_2_is_1d20_plus_20_gold() {
    let mut gs = game();
    on_treasure(&mut gs);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::pick_up_with(&mut w, Dice::scripted("test", &[2, 7, 1]));
    assert_eq!(group(&w.state, GEN, 1).treasure.get(Resource::Guld), 27);
    assert!(!w.state.map.get(sq("E6")).unwrap().treasure);
}

#[test]
fn r_evil_8_a_treasure_roll_of_5_is_1d20_plus_10_earth_crystals() {
    let mut gs = game();
    on_treasure(&mut gs);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::pick_up_with(&mut w, Dice::scripted("test", &[5, 20, 1]));
    assert_eq!(group(&w.state, GEN, 1).treasure.get(Resource::Jord), 30);
}

#[test]
fn r_evil_8_a_treasure_roll_of_8_goes_to_the_gm() {
    let mut gs = game();
    on_treasure(&mut gs);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::pick_up_with(&mut w, Dice::scripted("test", &[8, 1]));
    assert!(group(&w.state, GEN, 1).treasure.is_zero());
    let gm = w
        .events
        .iter()
        .find(|e| matches!(&e.what, What::Evil(EvilEvent::TreasureForGm { .. })))
        .expect("the GM's event");
    assert!(gm.seen_by.is_empty(), "no realm reads it; the GM is told");
    let lines = pbemd::render::weekend::evil::gm_lines(&w.events, Lang::En);
    assert_eq!(
        lines,
        ["Treasure for the GM: Genogien's army 1 on E6 rolled 8."]
    );
}

#[test]
fn r_evil_7_rulings_55_a_taken_treasure_reappears_on_another_rock_square() {
    let mut gs = game();
    on_treasure(&mut gs);
    let before = gs.map.squares.values().filter(|m| m.treasure).count();
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::pick_up_with(&mut w, Dice::scripted("test", &[1, 1]));
    let now: Vec<Square> = w
        .state
        .map
        .squares
        .iter()
        .filter(|(_, m)| m.treasure)
        .map(|(s, _)| s)
        .collect();
    assert_eq!(now.len(), before);
    let new = evil_events(&w.events)
        .iter()
        .find_map(|e| match e {
            EvilEvent::TreasureNew { square } => Some(*square),
            _ => None,
        })
        .expect("a new treasure");
    assert_ne!(new, sq("E6"));
    assert!(now.contains(&new));
    assert_eq!(
        w.state.map.get(new).unwrap().evil_terrain,
        EvilTerrain::Rock
    );
}

#[test]
fn r_evil_6_treasure_is_credited_when_the_army_stands_in_an_own_city() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "B2",
        Dimension::Normal,
        units(&[(1, TungtInfanteri)]),
    );
    gs.armies[0].treasure.set(Resource::Guld, 27);
    let gold = gs.realm(GEN).unwrap().stock.get(Resource::Guld);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::credit(&mut w);
    assert_eq!(
        w.state.realm(GEN).unwrap().stock.get(Resource::Guld),
        gold + 27
    );
    assert!(group(&w.state, GEN, 1).treasure.is_zero());
}

/// A treasure found in step 4 by an army that is home in an own city by the end of the
/// weekend (a home-invitation, step 9) is credited that same weekend, though no group
/// carried one when the forms came in.
#[test]
fn r_evil_6_a_treasure_found_this_weekend_is_credited_the_same_weekend() {
    let mut gs = game();
    on_treasure(&mut gs);
    assert!(gs.armies.iter().all(|a| a.treasure.is_zero()));
    let soil = gs.realm(GEN).unwrap().stock.get(Resource::Jord);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::pick_up_with(&mut w, Dice::scripted("test", &[5, 20, 1]));
    let finder = w
        .state
        .armies
        .iter_mut()
        .find(|a| a.owner == GEN && a.id == 1)
        .expect("the finder");
    finder.square = sq("B2");
    finder.dimension = Dimension::Normal;
    evil::credit(&mut w);
    assert_eq!(
        w.state.realm(GEN).unwrap().stock.get(Resource::Jord),
        soil + 30
    );
    assert!(group(&w.state, GEN, 1).treasure.is_zero());
}

#[test]
fn r_evil_6_treasure_is_not_credited_outside_an_own_city() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "C3",
        Dimension::Normal,
        units(&[(1, TungtInfanteri)]),
    );
    gs.armies[0].treasure.set(Resource::Guld, 27);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    evil::credit(&mut w);
    assert_eq!(group(&w.state, GEN, 1).treasure.get(Resource::Guld), 27);
}

#[test]
fn rulings_55_treasure_is_lost_with_the_army_that_carried_it() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "C4",
        Dimension::Evil,
        units(&[(1, LattInfanteri)]),
    );
    gs.armies[0].treasure.set(Resource::Guld, 27);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    let mut dice = Dice::scripted("test", &[1]);
    evil::lava_roll(&mut w, &mut dice, GEN, 1, sq("C4"));
    evil::end_of_weekend(&mut w);
    let lost = evil_events(&w.events)
        .iter()
        .find_map(|e| match e {
            EvilEvent::TreasureLost { resources, .. } => Some(resources.get(Resource::Guld)),
            _ => None,
        })
        .expect("told");
    assert_eq!(lost, 27);
}

// ------------------------------------------------------------ plunder and razing

fn evil_attacks_stenvik(gs: &mut GameState, outcome: Outcome) -> Orders {
    army(
        gs,
        EVIL,
        1,
        "C5",
        Dimension::Normal,
        units(&[(1, HogreDemon)]),
    );
    orders(&[(
        EVIL,
        vec![Order::Attack {
            group: Group::Army(1),
            square: sq("C4"),
            outcome: Some(outcome),
            wave: None,
        }],
    )])
}

#[test]
fn r_evil_12_rulings_57_the_evil_plunders_the_whole_population_and_25_vp() {
    let mut gs = game();
    let o = evil_attacks_stenvik(&mut gs, Outcome::Takeover);
    let (vp_e, vp_g) = (gs.realm(EVIL).unwrap().vp, gs.realm(GEN).unwrap().vp);
    let stone = gs.realm(EVIL).unwrap().stock.get(Resource::Sten);
    // Stenvik (population 30) stands undefended: 10 + 10 against 3 + 1.
    let (after, events) = fight(&gs, &o, &[10, 1]);
    let c4 = after.cities.iter().find(|c| c.square == sq("C4")).unwrap();
    assert_eq!(c4.owner, GEN, "no takeover by the Evil");
    assert_eq!(c4.population, 0);
    assert!(c4.plundered);
    let f6 = after.cities.iter().find(|c| c.square == sq("F6")).unwrap();
    assert_eq!(f6.population, 70 + 30);
    assert_eq!(after.realm(EVIL).unwrap().vp, vp_e + 25);
    assert_eq!(after.realm(GEN).unwrap().vp, vp_g - 25);
    assert_eq!(
        after.realm(EVIL).unwrap().stock.get(Resource::Sten),
        stone + 2
    );
    let sv = pbemd::render::weekend::report(&events, &after, GEN, Lang::Sv);
    assert!(
        sv.iter().any(|l| l.contains("hela befolkningen (30)")),
        "{sv:?}"
    );
}

#[test]
fn r_evil_12_razing_costs_the_razer_five_of_each_crystal() {
    let mut gs = game();
    let o = evil_attacks_stenvik(&mut gs, Outcome::Raze);
    let fire = gs.realm(EVIL).unwrap().stock.get(Resource::Eld);
    assert!(fire >= 5);
    let (after, _) = fight(&gs, &o, &[10, 1]);
    assert!(!after.cities.iter().any(|c| c.square == sq("C4")));
    for r in [
        Resource::Eld,
        Resource::Jord,
        Resource::Luft,
        Resource::Vatten,
    ] {
        assert_eq!(
            after.realm(EVIL).unwrap().stock.get(r),
            gs.realm(EVIL).unwrap().stock.get(r) - 5
        );
    }
}

#[test]
fn r_evil_12_a_razer_without_the_crystals_plunders_instead() {
    let mut gs = game();
    let o = evil_attacks_stenvik(&mut gs, Outcome::Raze);
    gs.realm_mut(EVIL).unwrap().stock.set(Resource::Luft, 4);
    let (after, events) = fight(&gs, &o, &[10, 1]);
    let c4 = after.cities.iter().find(|c| c.square == sq("C4")).unwrap();
    assert_eq!(c4.population, 0);
    assert!(evil_events(&events)
        .iter()
        .any(|e| matches!(e, EvilEvent::RazeCost { paid: false, .. })));
    assert_eq!(after.realm(EVIL).unwrap().stock.get(Resource::Luft), 4);
}

#[test]
fn r_evil_12_rulings_57_a_plundered_city_produces_nothing_until_it_has_people() {
    let mut gs = game();
    let c4 = gs.cities.iter_mut().find(|c| c.square == sq("C4")).unwrap();
    c4.population = 0;
    c4.plundered = true;
    let stone = gs.realm(GEN).unwrap().stock.get(Resource::Sten);
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    economy::production(&mut w);
    // Genborg's 2 stone only; Stenvik's 2 are not made.
    assert_eq!(
        w.state.realm(GEN).unwrap().stock.get(Resource::Sten),
        stone + 2
    );
}

// ------------------------------------------------------------ sight

fn sight(gs: &GameState) -> Vec<Event> {
    let o = Orders::default();
    let mut w = Weekend::new(gs, &o, &gs.settings, 1);
    evil::end_of_weekend(&mut w);
    w.events
}

fn sighted(events: &[Event], viewer: &str) -> Vec<(String, u32)> {
    evil_events(events)
        .iter()
        .filter_map(|e| match e {
            EvilEvent::Sighted {
                realm, owner, army, ..
            } if realm == viewer => Some((owner.to_string(), *army)),
            _ => None,
        })
        .collect()
}

#[test]
fn r_evil_19_the_evil_sees_armies_within_five_squares_of_a_portal() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "C4",
        Dimension::Normal,
        units(&[(1, TungtInfanteri)]),
    );
    army(
        &mut gs,
        "Kaldor",
        1,
        "J8",
        Dimension::Normal,
        units(&[(1, TungtInfanteri)]),
    );
    let events = sight(&gs);
    assert_eq!(sighted(&events, EVIL), [(GEN.to_string(), 1)]);
    let sv = pbemd::render::weekend::report(&events, &gs, EVIL, Lang::En);
    assert!(
        sv.contains(
            &"Seen: Genogien's army 1 on C4 (the normal dimension): 1 heavy infantry.".to_string()
        ),
        "{sv:?}"
    );
}

#[test]
fn r_evil_19_realms_near_a_portal_see_the_evil_armies_there() {
    let mut gs = game();
    army(
        &mut gs,
        EVIL,
        1,
        "C5",
        Dimension::Normal,
        units(&[(1, HogreDemon)]),
    );
    let events = sight(&gs);
    // Genogien's cities B2 and C4 are within 5 squares of B4; Kaldor's are not.
    assert_eq!(sighted(&events, GEN), [(EVIL.to_string(), 1)]);
    assert!(sighted(&events, "Kaldor").is_empty());
}

#[test]
fn r_evil_19_a_portal_is_shown_only_to_the_realm_it_lies_in() {
    let gs = game();
    let events = sight(&gs);
    let seen: Vec<&str> = events
        .iter()
        .filter(|e| matches!(&e.what, What::Evil(EvilEvent::PortalSeen { .. })))
        .flat_map(|e| e.seen_by.iter().map(|n| n.as_str()))
        .collect();
    assert_eq!(seen, [GEN]);
}

#[test]
fn r_evil_19_an_army_in_the_evil_dimension_sees_and_is_seen() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "E6",
        Dimension::Evil,
        units(&[(1, TungtInfanteri)]),
    );
    let events = sight(&gs);
    // Mörkborg (F6) is next to it: Genogien sees the city, the Evil sees the army.
    assert!(evil_events(&events).iter().any(|e| matches!(
        e,
        EvilEvent::CitySighted { realm, square, .. } if realm == GEN && *square == sq("F6")
    )));
    assert_eq!(sighted(&events, EVIL), [(GEN.to_string(), 1)]);
}

// ------------------------------------------------------------ the form

/// The rule a refused line cites ("refused" when it cites none), or None when accepted.
fn form_refusal(gs: &GameState, realm: &str, order: Order) -> Option<String> {
    let checked = pbemd::forms::check::check_orders(gs, realm, &[order]);
    let refusal = checked.lines[0].refusal.as_ref()?;
    Some(refusal.rule().unwrap_or("refused").to_string())
}

#[test]
fn r_evil_15_the_form_takes_a_step_through_an_open_portal() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "B4",
        Dimension::Normal,
        units(&[(1, UnitKind::LattKavalleri)]),
    );
    army(
        &mut gs,
        GEN,
        2,
        "C4",
        Dimension::Normal,
        units(&[(1, UnitKind::LattKavalleri)]),
    );
    assert_eq!(form_refusal(&gs, GEN, mv(1, &["B4", "B5"])), None);
    // Without a portal, the army's own square is no step.
    assert!(form_refusal(&gs, GEN, mv(2, &["C4", "C5"])).is_some());
}

#[test]
fn r_evil_9_the_form_refuses_the_evil_anything_but_demons() {
    let gs = game();
    let buy = |kind| Order::BuyUnits {
        count: 1,
        kind,
        city: None,
    };
    assert_eq!(
        form_refusal(&gs, EVIL, buy(LattInfanteri)).as_deref(),
        Some("R-EVIL-9")
    );
    let ship = Order::BuyShips {
        count: 1,
        kind: pbemd::game::ShipKind::Transportskepp,
        city: None,
    };
    assert_eq!(form_refusal(&gs, EVIL, ship).as_deref(), Some("R-EVIL-9"));
}

#[test]
fn r_evil_4_an_army_in_the_evil_dimension_does_not_board_a_fleet() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "D2",
        Dimension::Evil,
        units(&[(1, TungtInfanteri)]),
    );
    gs.fleets.push(pbemd::game::state::Fleet {
        id: 1,
        owner: GEN.into(),
        square: sq("D2"),
        dimension: Dimension::Normal,
        ships: vec![pbemd::game::state::Ship {
            kind: pbemd::game::ShipKind::Transportskepp,
            built_round: 1,
        }],
        cargo: vec![],
        must_leave_by_round: None,
    });
    let o = orders(&[(GEN, vec![Order::Embark { army: 1, fleet: 1 }])]);
    let (after, _) = movement(&gs, &o);
    assert!(after.fleets[0].cargo.is_empty());
}

#[test]
fn r_evil_2_a_realm_called_home_from_the_evil_dimension_arrives_in_the_normal_one() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "B5",
        Dimension::Evil,
        units(&[(1, TungtInfanteri)]),
    );
    gs.home_invitations
        .push(pbemd::game::state::HomeInvitation {
            id: 1,
            realm: GEN.to_string(),
            target: pbemd::game::state::GroupRef::Army {
                owner: GEN.into(),
                id: 1,
            },
            sent_round: ROUND,
            valid_until_round: ROUND,
        });
    let o = Orders::default();
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    military::home_invitations(&mut w);
    let g = group(&w.state, GEN, 1);
    assert_eq!((g.square, g.dimension), (sq("B2"), Dimension::Normal));
}

#[test]
fn r_evil_15_troops_on_the_far_side_of_a_portal_stop_the_move_and_fight() {
    let mut gs = game();
    army(
        &mut gs,
        GEN,
        1,
        "B4",
        Dimension::Normal,
        units(&[(1, TungtInfanteri)]),
    );
    army(
        &mut gs,
        EVIL,
        1,
        "B4",
        Dimension::Evil,
        units(&[(1, HogreDemon)]),
    );
    let o = orders(&[(EVIL, vec![mv(1, &["B4", "C4"])])]);
    let (after, events) = movement(&gs, &o);
    let g = group(&after, EVIL, 1);
    assert_eq!((g.square, g.dimension), (sq("B4"), Dimension::Normal));
    assert!(events.iter().any(|e| matches!(
        &e.what,
        What::Military(military::MilitaryEvent::Moved {
            stop: Some(military::MoveStop::Enemy { .. }),
            ..
        })
    )));
}

// ---- Rules pinned by their own ID (docs/rules.md) ----------------------------

#[test]
fn r_evil_5_treasures_stand_where_the_scenario_puts_them_and_never_on_lava() {
    let gs = game();
    let mut marked: Vec<Square> = gs
        .map
        .squares
        .iter()
        .filter(|(_, m)| m.treasure)
        .map(|(s, _)| s)
        .collect();
    marked.sort();
    let mut want: Vec<Square> = ["B5", "E6", "H6", "A12"].iter().map(|s| sq(s)).collect();
    want.sort();
    assert_eq!(marked, want);
    // C3 is land, so lava in the Evil's dimension: the scenario does not load.
    let yaml = include_str!("../scenarios/evil.yaml").replace(
        "treasures: [B5, E6, H6, A12]",
        "treasures: [B5, E6, H6, A12, C3]",
    );
    let err = load_scenario(&yaml)
        .expect_err("a treasure on lava")
        .to_string();
    assert!(err.contains("evil.treasures[4]"), "{err}");
    assert!(err.contains("C3 is lava"), "{err}");
}

#[test]
fn r_evil_11_the_leash_counts_from_every_open_portal_and_follows_the_state() {
    let setup = || {
        let mut gs = game();
        army(
            &mut gs,
            EVIL,
            1,
            "F4",
            Dimension::Normal,
            units(&[(1, HogreDemon)]),
        );
        gs
    };
    let o = orders(&[(EVIL, vec![mv(1, &["G4", "H4"])])]);
    // From B4 alone, H4 is 6 away: the demon stops on G4.
    let (after, _) = movement(&setup(), &o);
    assert_eq!(group(&after, EVIL, 1).square, sq("G4"));
    // A second portal on H3 puts H4 within the leash.
    let mut gs = setup();
    portal(&mut gs, "H3", 1);
    let (after, events) = movement(&gs, &o);
    assert_eq!(group(&after, EVIL, 1).square, sq("H4"));
    assert!(!evil_events(&events)
        .iter()
        .any(|e| matches!(e, EvilEvent::Leash { .. })));
    // A longer leash in the state lets it go too.
    let mut gs = setup();
    gs.evil.as_mut().unwrap().leash = 6;
    let (after, _) = movement(&gs, &o);
    assert_eq!(group(&after, EVIL, 1).square, sq("H4"));
}

#[test]
fn r_evil_13_the_plundered_population_goes_to_the_evils_most_populous_other_city() {
    let mut gs = game();
    let mut big = gs
        .cities
        .iter()
        .find(|c| c.square == sq("F6"))
        .unwrap()
        .clone();
    big.square = sq("G6");
    big.name = "Svartborg".into();
    big.population = 500;
    big.capital = false;
    big.harbour = false;
    gs.cities.push(big);
    let o = evil_attacks_stenvik(&mut gs, Outcome::Plunder);
    let gen_stock = gs.realm(GEN).unwrap().stock;
    let (after, _) = fight(&gs, &o, &[10, 1]);
    let pop = |s: &str| {
        after
            .cities
            .iter()
            .find(|c| c.square == sq(s))
            .unwrap()
            .population
    };
    assert_eq!(pop("C4"), 0);
    assert_eq!(pop("G6"), 530, "no limit on the taker's city");
    assert_eq!(pop("F6"), 70);
    assert_eq!(
        after.realm(GEN).unwrap().stock,
        gen_stock,
        "no 5 of the most-held resource"
    );
}

/// R-PHASE-3 (RULINGS 52): treasures are found right after the battles of step 4 and
/// before production (step 6); a portal starts to fade after step 9.
#[test]
fn r_phase_3_treasure_after_the_battles_portal_fading_after_step_9() {
    use pbemd::game::event::Step;
    let mut gs = game();
    on_treasure(&mut gs);
    army(
        &mut gs,
        GEN,
        2,
        "C3",
        Dimension::Normal,
        units(&[(5, TungtInfanteri)]),
    );
    army(
        &mut gs,
        "Afani",
        1,
        "D3",
        Dimension::Normal,
        units(&[(1, LattInfanteri)]),
    );
    let o = orders(&[(
        GEN,
        vec![Order::Attack {
            group: Group::Army(2),
            square: sq("D3"),
            outcome: None,
            wave: None,
        }],
    )]);
    let res = pbemd::game::weekend::resolve(&gs, &o, &gs.settings, 7);
    let at = |f: &dyn Fn(&What) -> bool| {
        res.events
            .iter()
            .position(|e| f(&e.what))
            .expect("the event")
    };
    let battle = at(&|w| {
        matches!(
            w,
            What::Military(pbemd::game::weekend::military::MilitaryEvent::Battle(_))
        )
    });
    let treasure = at(&|w| {
        matches!(
            w,
            What::Evil(
                EvilEvent::TreasureFound { .. }
                    | EvilEvent::TreasureForGm { .. }
                    | EvilEvent::TreasureLost { .. }
            )
        )
    });
    let produced = at(&|w| matches!(w.economy(), Some(EconomyEvent::Produced { .. })));
    let fading = at(&|w| matches!(w, What::Evil(EvilEvent::PortalFading { .. })));
    assert!(battle < treasure, "{battle} < {treasure}");
    assert!(treasure < produced, "{treasure} < {produced}");
    assert!(produced < fading, "{produced} < {fading}");
    assert!(res.events[fading].step > Step::HomeInvitations);
}
