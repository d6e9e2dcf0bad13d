//! Step 3, case by case: each test a small state, the orders and the expected
//! positions, named by the rule it pins (docs/rules.md).

#[path = "weekend_common/military.rs"]
mod common;

use common::*;
use pbemd::game::orders::{Group, Order, Piece};
use pbemd::game::weekend::military::{MilitaryEvent, MoveRefusal, MoveStop};
use pbemd::game::{Lang, ShipKind, UnitKind};

use UnitKind::{LattInfanteri, LattKavalleri, Veteran};

fn stops(events: &[pbemd::game::event::Event]) -> Vec<Option<MoveStop>> {
    military(events)
        .into_iter()
        .filter_map(|m| match m {
            MilitaryEvent::Moved { stop, .. } => Some(stop.clone()),
            _ => None,
        })
        .collect()
}

fn battles(events: &[pbemd::game::event::Event]) -> usize {
    military(events)
        .iter()
        .filter(|m| matches!(m, MilitaryEvent::Battle(_)))
        .count()
}

#[test]
fn r_move_1_a_group_moves_as_far_as_its_fastest_unit() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "B7",
        units(&[(1, LattKavalleri), (1, LattInfanteri)], false),
    );
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["C7", "D7", "E7"])])]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("E7"));
    assert_eq!(stops(&events), [None]);
    let en = pbemd::render::weekend::report(&events, &after, "Fugandri", Lang::En);
    assert_eq!(en, ["Army 1 moved from B7 to E7."]);
}

#[test]
fn rulings_24_group_movement_min_moves_a_group_as_far_as_its_slowest_unit() {
    let mut gs = game();
    gs.settings.group_movement = pbemd::game::state::GroupMovement::Min;
    army(
        &mut gs,
        "Fugandri",
        1,
        "B7",
        units(&[(1, LattKavalleri), (1, LattInfanteri)], false),
    );
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["C7", "D7", "E7"])])]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("C7"));
    assert_eq!(stops(&events), [Some(MoveStop::OutOfPoints)]);
}

#[test]
fn r_move_1_a_move_stops_where_the_points_run_out() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "B7",
        units(&[(2, LattInfanteri)], false),
    );
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["C7", "D7"])])]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("C7"));
    assert_eq!(stops(&events), [Some(MoveStop::OutOfPoints)]);
}

#[test]
fn r_move_1_a_group_moved_on_two_lines_spends_one_weekends_points() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "B7",
        units(&[(1, LattKavalleri)], false),
    );
    let first = mv(Group::Army(1), &["C7", "D7"]);
    let second = mv(Group::Army(1), &["E7", "F7"]);
    let o = orders(&[("Fugandri", vec![first, second])]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    // Three points: two on the first line, the one left on the second.
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("E7"));
    assert_eq!(stops(&events), [None, Some(MoveStop::OutOfPoints)]);
}

#[test]
fn r_move_10_an_army_does_not_walk_into_the_sea() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "C7",
        units(&[(1, LattKavalleri)], false),
    );
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["C6"])])]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("C7"));
    assert_eq!(
        stops(&events),
        [Some(MoveStop::Blocked { square: sq("C6") })]
    );
}

/// Fugandri's army 1 on C7, of `troops`, ordered onto the sea square C6: where it ends.
fn onto_the_sea(troops: &[(u32, UnitKind)]) -> pbemd::game::Square {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C7", units(troops, false));
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["C6"])])]);
    let (after, _) = move_and_fight(&gs, &o, &[]);
    group_of(&after, "Fugandri", 1).unwrap().square
}

#[test]
fn r_unit_4_a_group_with_a_water_elemental_crosses_water() {
    let troops = [(1, LattKavalleri), (1, UnitKind::Vattenelementar)];
    assert_eq!(onto_the_sea(&troops), sq("C6"));
}

/// Fugandri's army 1 at sea on C6, carried by `elementals` water elementals, light
/// cavalry in front; Fugandri's Besvärjare 0 and overflow disbanded, so step 8
/// disbands every elemental over the cap of none. A whole weekend.
fn at_sea_over_the_elemental_cap(
    elementals: u32,
) -> (pbemd::game::GameState, Vec<pbemd::game::event::Event>) {
    let mut gs = game();
    let troops = [(2, LattKavalleri), (elementals, UnitKind::Vattenelementar)];
    army(&mut gs, "Fugandri", 1, "C6", units(&troops, false));
    gs.realm_mut("Fugandri").unwrap().positions.befalhavare = 2;
    gs.settings.army_overflow = pbemd::game::state::ArmyOverflow::Disband;
    let res = pbemd::game::weekend::resolve(&gs, &orders(&[]), &gs.settings, 1);
    (res.state, res.events)
}

#[test]
fn r_unit_4_an_army_whose_water_elemental_dies_at_sea_drowns_whole() {
    let (after, events) = at_sea_over_the_elemental_cap(1);
    assert!(
        group_of(&after, "Fugandri", 1).is_none(),
        "the army drowned"
    );
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::Drowned {
            army: 1,
            units: 2,
            ..
        }
    )));
    let report = pbemd::render::weekend::report(&events, &after, "Fugandri", Lang::En);
    assert!(
        report
            .iter()
            .any(|l| l.contains("the whole army (2 units) drowned")),
        "{report:?}"
    );
}

#[test]
fn r_unit_4_an_army_that_keeps_a_water_elemental_at_sea_does_not_drown() {
    // Besvärjare 1 allows three elementals: of four, one is disbanded in step 8 and
    // the three left carry the army on.
    let mut gs = game();
    let troops = [(2, LattKavalleri), (4, UnitKind::Vattenelementar)];
    army(&mut gs, "Fugandri", 1, "C6", units(&troops, false));
    let p = &mut gs.realm_mut("Fugandri").unwrap().positions;
    (p.befalhavare, p.besvarjare) = (2, 1);
    gs.settings.army_overflow = pbemd::game::state::ArmyOverflow::Disband;
    let res = pbemd::game::weekend::resolve(&gs, &orders(&[]), &gs.settings, 1);
    let kept = group_of(&res.state, "Fugandri", 1).expect("the army floats on");
    let water = kept
        .units
        .iter()
        .filter(|u| u.kind == UnitKind::Vattenelementar);
    assert_eq!(water.count(), 3);
}

#[test]
fn r_unit_4_an_army_on_land_that_loses_its_water_elemental_stays() {
    let mut gs = game();
    let troops = [(2, LattKavalleri), (1, UnitKind::Vattenelementar)];
    army(&mut gs, "Fugandri", 1, "C7", units(&troops, false));
    gs.realm_mut("Fugandri").unwrap().positions.befalhavare = 2;
    gs.settings.army_overflow = pbemd::game::state::ArmyOverflow::Disband;
    let res = pbemd::game::weekend::resolve(&gs, &orders(&[]), &gs.settings, 1);
    assert_eq!(group_of(&res.state, "Fugandri", 1).unwrap().units.len(), 2);
}

#[test]
fn r_unit_5_a_group_of_air_elementals_only_crosses_water() {
    assert_eq!(onto_the_sea(&[(2, UnitKind::Luftelementar)]), sq("C6"));
}

#[test]
fn r_unit_5_air_elementals_with_other_troops_stay_on_land() {
    let troops = [(1, LattKavalleri), (1, UnitKind::Luftelementar)];
    assert_eq!(onto_the_sea(&troops), sq("C7"));
}

#[test]
fn r_move_6_a_move_stops_on_enemy_troops_and_they_fight_in_step_4() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "D7",
        units(&[(3, LattKavalleri)], false),
    );
    army(
        &mut gs,
        "Kaldor",
        1,
        "E7",
        units(&[(1, LattInfanteri)], false),
    );
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["E7", "E8"])])]);
    let (after, events) = move_and_fight(&gs, &o, &[20, 1]);
    assert_eq!(
        stops(&events),
        [Some(MoveStop::Enemy {
            realm: "Kaldor".into()
        })]
    );
    assert_eq!(battles(&events), 1, "the mover attacks (RULINGS 37)");
    assert!(group_of(&after, "Kaldor", 1).is_none());
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("E7"));
}

/// R-MOVE-6: an army that is attacked cannot move that round. Fugandri's form comes
/// first and its army stops on Kaldor's; Kaldor's later order to move that army away is
/// refused, and the two fight on E7 in step 4.
#[test]
fn r_move_6_an_army_that_is_met_cannot_move_away() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "D7",
        units(&[(3, LattKavalleri)], false),
    );
    army(
        &mut gs,
        "Kaldor",
        1,
        "E7",
        units(&[(1, LattInfanteri)], false),
    );
    let o = orders(&[
        ("Fugandri", vec![mv(Group::Army(1), &["E7"])]),
        ("Kaldor", vec![mv(Group::Army(1), &["F7"])]),
    ]);
    let (after, events) = move_and_fight(&gs, &o, &[1, 20]);
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::MoveRefused {
            realm,
            reason: MoveRefusal::Engaged,
            ..
        } if realm == "Kaldor"
    )));
    let b: Vec<_> = military(&events)
        .into_iter()
        .filter_map(|m| match m {
            MilitaryEvent::Battle(b) => Some(&**b),
            _ => None,
        })
        .collect();
    assert_eq!(b.len(), 1);
    assert_eq!(
        (b[0].square, b[0].defender.as_deref()),
        (sq("E7"), Some("Kaldor"))
    );
    assert!(
        !b[0].result.rounds.is_empty(),
        "a real battle, not a walk-over"
    );
    assert_eq!(group_of(&after, "Kaldor", 1).unwrap().square, sq("E7"));
    let report = |lang| pbemd::render::weekend::report(&events, &after, "Kaldor", lang).join("\n");
    assert!(
        report(Lang::Sv).contains("den flyttar inte mer"),
        "{}",
        report(Lang::Sv)
    );
    assert!(
        report(Lang::En).contains("it moves no more"),
        "{}",
        report(Lang::En)
    );
}

/// RULINGS 31 for troops that met in step 3: at the round limit the mover withdraws to
/// the square it came from, so enemies never share a square after the weekend.
#[test]
fn rulings_31_at_the_round_limit_a_mover_that_met_enemies_goes_back() {
    let mut gs = game();
    gs.settings.max_battle_rounds = 1;
    army(
        &mut gs,
        "Fugandri",
        1,
        "C7",
        units(&[(1, LattKavalleri)], false),
    );
    army(
        &mut gs,
        "Kaldor",
        1,
        "E7",
        units(&[(1, LattInfanteri)], false),
    );
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["D7", "E7"])])]);
    let (after, events) = move_and_fight(&gs, &o, &[10, 10]);
    assert_eq!(battles(&events), 1);
    assert_eq!(
        group_of(&after, "Fugandri", 1).unwrap().square,
        sq("D7"),
        "back to the square it came from"
    );
    assert_eq!(group_of(&after, "Kaldor", 1).unwrap().square, sq("E7"));
}

#[test]
fn r_ally_1_friends_pass_each_other() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "D7",
        units(&[(3, LattKavalleri)], false),
    );
    army(
        &mut gs,
        "Kaldor",
        1,
        "E7",
        units(&[(1, LattInfanteri)], false),
    );
    gs.realm_mut("Fugandri").unwrap().friends = vec!["Kaldor".into()];
    gs.realm_mut("Kaldor").unwrap().friends = vec!["Fugandri".into()];
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["E7", "E8"])])]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("E8"));
    assert_eq!(battles(&events), 0);
}

/// Fugandri's army 1 on H8 and Kaldor's army 1 next to it on I8, one light
/// infantry each.
fn face_to_face() -> pbemd::game::GameState {
    let mut gs = game();
    let one = || units(&[(1, LattInfanteri)], false);
    army(&mut gs, "Fugandri", 1, "H8", one());
    army(&mut gs, "Kaldor", 1, "I8", one());
    gs
}

/// Step 3 alone: the state after the moves, and their events.
fn step3(
    gs: &pbemd::game::GameState,
    o: &pbemd::game::weekend::Orders,
) -> (pbemd::game::GameState, Vec<pbemd::game::event::Event>) {
    let mut w = pbemd::game::weekend::Weekend::new(gs, o, &gs.settings, gs.game.seed);
    pbemd::game::weekend::military::movement(&mut w);
    (w.state, w.events)
}

#[test]
fn r_move_7_moves_inside_ones_own_land_go_first() {
    let gs = face_to_face();
    // Fugandri's form came first, but Kaldor's move stays in Kaldor and goes first.
    let o = orders(&[
        ("Fugandri", vec![mv(Group::Army(1), &["I8"])]),
        ("Kaldor", vec![mv(Group::Army(1), &["J8"])]),
    ]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Kaldor", 1).unwrap().square, sq("J8"));
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("I8"));
    assert_eq!(battles(&events), 0);
}

#[test]
fn r_move_5_embark_sail_and_land() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C7", units(&[(3, Veteran)], false));
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "C6",
        ships(&[(1, ShipKind::Transportskepp)], false),
        &[],
    );
    let o = orders(&[(
        "Fugandri",
        vec![
            Order::Embark { army: 1, fleet: 1 },
            mv(Group::Fleet(1), &["D6", "E6"]),
            Order::Disembark {
                army: 1,
                square: Some(sq("E5")),
            },
        ],
    )]);
    let (after, _) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("E5"));
    assert_eq!(after.fleets[0].square, sq("E6"));
    assert!(after.fleets[0].cargo.is_empty());
}

/// Some move order was refused for want of room aboard (R-NAV-3).
fn refused_for_no_room(events: &[pbemd::game::event::Event]) -> bool {
    military(events).iter().any(|m| {
        matches!(
            m,
            MilitaryEvent::MoveRefused {
                reason: MoveRefusal::NoRoom,
                ..
            }
        )
    })
}

#[test]
fn r_nav_3_an_army_too_big_for_the_transports_stays_ashore() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C7", units(&[(6, Veteran)], false));
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "C6",
        ships(&[(1, ShipKind::Transportskepp)], false),
        &[],
    );
    let o = orders(&[("Fugandri", vec![Order::Embark { army: 1, fleet: 1 }])]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert!(after.fleets[0].cargo.is_empty());
    assert!(refused_for_no_room(&events));
}

/// Fugandri's fleet 1 on C6, two transports and a light warship, with army 1 (six
/// veterans) aboard; the fleet splits off `pieces` in step 3.
fn split_loaded_fleet(
    pieces: Vec<(u32, Piece)>,
) -> (pbemd::game::GameState, Vec<pbemd::game::event::Event>) {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C6", units(&[(6, Veteran)], false));
    let mut s = ships(&[(2, ShipKind::Transportskepp)], false);
    s.extend(ships(&[(1, ShipKind::LattKrigsskepp)], false));
    fleet(&mut gs, "Fugandri", 1, "C6", s, &[1]);
    let split = Order::Split {
        group: Group::Fleet(1),
        pieces,
    };
    move_and_fight(&gs, &orders(&[("Fugandri", vec![split])]), &[])
}

#[test]
fn r_nav_3_a_fleet_split_that_would_leave_its_cargo_without_room_is_refused() {
    // Six aboard, and one transport left carries five: refused, the fleet stays whole.
    let (after, events) = split_loaded_fleet(vec![(1, Piece::Ship(ShipKind::Transportskepp))]);
    assert_eq!(after.fleets.len(), 1);
    assert_eq!(after.fleets[0].ships.len(), 3);
    assert_eq!(after.fleets[0].cargo, [1]);
    assert!(refused_for_no_room(&events));
    assert_eq!(after.validate(), Ok(()));
}

#[test]
fn r_nav_3_a_fleet_split_that_keeps_room_for_its_cargo_goes_ahead() {
    // The warship leaves; the two transports keep the six veterans.
    let (after, _) = split_loaded_fleet(vec![(1, Piece::Ship(ShipKind::LattKrigsskepp))]);
    assert_eq!(after.fleets.len(), 2);
    let kept = after.fleets.iter().find(|f| f.id == 1).expect("fleet 1");
    assert_eq!((kept.ships.len(), kept.cargo.as_slice()), (2, &[1][..]));
}

#[test]
fn r_nav_3_the_form_refuses_a_fleet_split_that_would_leave_its_cargo_without_room() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C6", units(&[(6, Veteran)], false));
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "C6",
        ships(&[(2, ShipKind::Transportskepp)], false),
        &[1],
    );
    let split = Order::Split {
        group: Group::Fleet(1),
        pieces: vec![(1, Piece::Ship(ShipKind::Transportskepp))],
    };
    let checked = pbemd::forms::check::check_orders(&gs, "Fugandri", &[split]);
    let refusal = checked.lines[0].refusal.as_ref().expect("refused");
    assert_eq!(refusal.rule(), Some("R-NAV-3"));
    let text = refusal.text(Lang::En);
    assert!(
        text.contains("the ships left carry 5 units, but 6 are aboard"),
        "{text}"
    );
}

/// Fugandri's fleets 1 and 2 on C6, one transport each, army 1 (three veterans) aboard
/// fleet 1 and army 2 (`n` veterans) aboard fleet 2.
fn two_loaded_transports(n: u32) -> pbemd::game::GameState {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C6", units(&[(3, Veteran)], false));
    army(&mut gs, "Fugandri", 2, "C6", units(&[(n, Veteran)], false));
    for (f, a) in [(1, 1), (2, 2)] {
        let s = ships(&[(1, ShipKind::Transportskepp)], false);
        fleet(&mut gs, "Fugandri", f, "C6", s, &[a]);
    }
    gs
}

/// Army 2 joins army 1.
fn merge_two() -> Order {
    Order::Merge {
        group: Group::Army(1),
        other: 2,
    }
}

/// `two_loaded_transports(n)`, and army 2 joins army 1 in step 3.
fn merge_aboard(n: u32) -> (pbemd::game::GameState, Vec<pbemd::game::event::Event>) {
    let gs = two_loaded_transports(n);
    move_and_fight(&gs, &orders(&[("Fugandri", vec![merge_two()])]), &[])
}

#[test]
fn r_nav_3_an_army_that_would_overfill_the_fleet_it_joins_aboard_is_refused() {
    // Three aboard fleet 1 and three more would be six on one transport.
    let (after, events) = merge_aboard(3);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().units.len(), 3);
    assert_eq!(group_of(&after, "Fugandri", 2).unwrap().units.len(), 3);
    assert!(refused_for_no_room(&events));
    assert_eq!(after.validate(), Ok(()));
}

#[test]
fn r_nav_3_the_form_refuses_an_army_that_would_overfill_the_fleet_it_joins_aboard() {
    let gs = two_loaded_transports(3);
    let checked = pbemd::forms::check::check_orders(&gs, "Fugandri", &[merge_two()]);
    let refusal = checked.lines[0].refusal.as_ref().expect("refused");
    assert_eq!(refusal.rule(), Some("R-NAV-3"));
}

#[test]
fn r_nav_3_an_army_that_fits_the_fleet_it_joins_aboard_merges() {
    let (after, _) = merge_aboard(2);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().units.len(), 5);
    assert!(group_of(&after, "Fugandri", 2).is_none());
    assert_eq!(after.validate(), Ok(()));
}

#[test]
fn r_move_8_armies_of_one_realm_that_stop_together_are_merged() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "B7", units(&[(1, Veteran)], false));
    army(
        &mut gs,
        "Fugandri",
        2,
        "D7",
        units(&[(2, LattInfanteri)], false),
    );
    let o = orders(&[(
        "Fugandri",
        vec![mv(Group::Army(1), &["C7"]), mv(Group::Army(2), &["C7"])],
    )]);
    let (after, _) = move_and_fight(&gs, &o, &[]);
    assert!(group_of(&after, "Fugandri", 2).is_none());
    assert_eq!(
        kinds(group_of(&after, "Fugandri", 1).unwrap()),
        [Veteran, LattInfanteri, LattInfanteri]
    );
}

#[test]
fn r_move_8_a_split_makes_a_new_group_that_stays_until_it_moves() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "B7",
        units(&[(2, Veteran), (2, LattInfanteri)], false),
    );
    let o = orders(&[(
        "Fugandri",
        vec![Order::Split {
            group: Group::Army(1),
            pieces: vec![(1, Piece::Unit(Veteran))],
        }],
    )]);
    let mut w_gs = gs.clone();
    let mut w = pbemd::game::weekend::Weekend::new(&w_gs, &o, &gs.settings, 1);
    pbemd::game::weekend::military::movement(&mut w);
    w_gs = w.state;
    assert_eq!(
        kinds(group_of(&w_gs, "Fugandri", 1).unwrap()),
        [Veteran, LattInfanteri, LattInfanteri]
    );
    assert_eq!(kinds(group_of(&w_gs, "Fugandri", 2).unwrap()), [Veteran]);
}

#[test]
fn r_combat_9_a_new_order_of_the_line_decides_who_falls_first() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "B7",
        units(&[(2, Veteran), (2, LattInfanteri)], false),
    );
    let o = orders(&[(
        "Fugandri",
        vec![Order::Reorder {
            group: Group::Army(1),
            pieces: vec![(2, Piece::Unit(LattInfanteri)), (2, Piece::Unit(Veteran))],
        }],
    )]);
    let (after, _) = move_and_fight(&gs, &o, &[]);
    assert_eq!(
        kinds(group_of(&after, "Fugandri", 1).unwrap()),
        [LattInfanteri, LattInfanteri, Veteran, Veteran]
    );
}

#[test]
fn r_move_6_a_move_stops_before_an_enemy_city_even_with_troops_in_it() {
    let mut gs = game();
    // Kaldorhem (J8) is Kaldor's capital, held by an army.
    army(
        &mut gs,
        "Kaldor",
        1,
        "J8",
        units(&[(1, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Fugandri",
        2,
        "H8",
        units(&[(1, LattKavalleri)], false),
    );
    let o = orders(&[("Fugandri", vec![mv(Group::Army(2), &["I8", "J8"])])]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 2).unwrap().square, sq("I8"));
    assert_eq!(
        stops(&events),
        [Some(MoveStop::EnemyCity { square: sq("J8") })]
    );
    assert_eq!(battles(&events), 0);
}

#[test]
fn r_move_8_a_split_of_nothing_is_refused() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "B7", units(&[(2, Veteran)], false));
    let o = orders(&[(
        "Fugandri",
        vec![Order::Split {
            group: Group::Army(1),
            pieces: vec![(0, Piece::Unit(Veteran))],
        }],
    )]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(after.armies.len(), 1);
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::MoveRefused {
            reason: MoveRefusal::NotThoseUnits,
            ..
        }
    )));
}

#[test]
fn r_city_8_a_fleet_that_stays_in_a_taken_city_passes_to_its_taker() {
    let mut gs = game();
    city(&mut gs, "D2").owner = "Fugandri".into();
    fleet(
        &mut gs,
        "Genogien",
        1,
        "D2",
        ships(&[(2, ShipKind::Transportskepp)], false),
        &[],
    );
    gs.fleets[0].must_leave_by_round = Some(ROUND);
    let o = orders(&[]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(after.fleets.len(), 1);
    assert_eq!(
        (after.fleets[0].owner.as_str(), after.fleets[0].id),
        ("Fugandri", 1)
    );
    assert_eq!(after.fleets[0].must_leave_by_round, None);
    assert!(military(&events)
        .iter()
        .any(|m| matches!(m, MilitaryEvent::FleetTaken { .. })));
}

#[test]
fn r_city_8_a_fleet_that_sails_out_of_a_taken_city_stays_its_owners() {
    let mut gs = game();
    city(&mut gs, "D2").owner = "Fugandri".into();
    fleet(
        &mut gs,
        "Genogien",
        1,
        "D2",
        ships(&[(2, ShipKind::Transportskepp)], false),
        &[],
    );
    gs.fleets[0].must_leave_by_round = Some(ROUND);
    let o = orders(&[("Genogien", vec![mv(Group::Fleet(1), &["E2"])])]);
    let (after, _) = move_and_fight(&gs, &o, &[]);
    assert_eq!(
        (after.fleets[0].owner.as_str(), after.fleets[0].square),
        ("Genogien", sq("E2"))
    );
    assert_eq!(after.fleets[0].must_leave_by_round, None);
}

#[test]
fn r_combat_11_the_loser_keeps_home_ground_one_more_weekend_then_the_border_moves() {
    let mut gs = game();
    city(&mut gs, "C4").owner = "Fugandri".into();
    gs.conquests.push(pbemd::game::state::Conquest {
        square: sq("C4"),
        from: "Genogien".into(),
        to: "Fugandri".into(),
        round: ROUND - 2,
    });
    gs.conquests.push(pbemd::game::state::Conquest {
        square: sq("B4"),
        from: "Genogien".into(),
        to: "Fugandri".into(),
        round: ROUND - 1,
    });
    let (after, _) = move_and_fight(&gs, &orders(&[]), &[]);
    assert_eq!(
        after.map.get(sq("C4")).unwrap().owner.as_deref(),
        Some("Fugandri")
    );
    assert_eq!(
        after.map.get(sq("B4")).unwrap().owner.as_deref(),
        Some("Genogien"),
        "last weekend's conquest is still the loser's home ground"
    );
    assert_eq!(after.conquests.len(), 1);
}

#[test]
fn rulings_26_the_voting_winner_who_chose_it_moves_before_earlier_forms() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "C5",
        units(&[(1, LattKavalleri)], false),
    );
    army(
        &mut gs,
        "Kaldor",
        1,
        "E5",
        units(&[(1, LattKavalleri)], false),
    );
    gs.ruler = Some(pbemd::game::state::Ruler {
        realm: "Kaldor".into(),
        benefit: Some(pbemd::game::state::RulerBenefit::MoveFirst),
        from_round: ROUND,
        until_round: ROUND + 4,
    });
    // Both head for D5. Kaldor's form came later, but Kaldor moves first, so it is
    // Fugandri that runs into Kaldor there.
    let o = orders(&[
        ("Fugandri", vec![mv(Group::Army(1), &["D5"])]),
        ("Kaldor", vec![mv(Group::Army(1), &["D5"])]),
    ]);
    let (_, events) = move_and_fight(&gs, &o, &[10, 10]);
    assert_eq!(
        stops(&events)[..2],
        [
            None,
            Some(MoveStop::Enemy {
                realm: "Kaldor".into()
            })
        ]
    );
}

#[test]
fn r_move_6_meeting_enemies_in_a_friends_city_is_a_fight_with_them_alone() {
    let mut gs = game();
    gs.realm_mut("Fugandri").unwrap().friends = vec!["Genogien".into()];
    gs.realm_mut("Genogien").unwrap().friends = vec!["Fugandri".into()];
    army(&mut gs, "Fugandri", 1, "C3", units(&[(5, Veteran)], false));
    army(
        &mut gs,
        "Kaldor",
        1,
        "C4",
        units(&[(1, LattInfanteri)], false),
    );
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["C4"])])]);
    let (after, events) = move_and_fight(&gs, &o, &[20, 1]);
    let b = military(&events)
        .into_iter()
        .find_map(|m| match m {
            MilitaryEvent::Battle(b) => Some(b.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(b.defender.as_deref(), Some("Kaldor"));
    assert_eq!(b.city, None, "no fight for Genogien's city");
    assert_eq!(b.battle.walls, 0);
    assert!(group_of(&after, "Kaldor", 1).is_none());
    assert_eq!(
        after
            .cities
            .iter()
            .find(|c| c.square == sq("C4"))
            .unwrap()
            .owner,
        "Genogien"
    );
    assert_eq!(vp(&after, "Fugandri"), vp(&gs, "Fugandri"));
}

// ---- Rules pinned by their own ID (docs/rules.md) ----------------------------

fn move_refusals(events: &[pbemd::game::event::Event]) -> Vec<MoveRefusal> {
    military(events)
        .into_iter()
        .filter_map(|m| match m {
            MilitaryEvent::MoveRefused { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect()
}

#[test]
fn r_move_3_boarding_from_next_to_the_fleet_landing_only_on_or_next_to_its_square() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "C7",
        units(&[(1, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Fugandri",
        2,
        "C8",
        units(&[(1, LattInfanteri)], false),
    );
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "C6",
        ships(&[(1, ShipKind::Transportskepp)], false),
        &[],
    );
    let o = orders(&[(
        "Fugandri",
        vec![
            // C7 touches C6: picked up. C8 is two squares off: it stays ashore.
            Order::PickUp { fleet: 1, army: 1 },
            Order::Embark { army: 2, fleet: 1 },
            // E7 is two squares from the fleet: no landing there.
            Order::Disembark {
                army: 1,
                square: Some(sq("E7")),
            },
        ],
    )]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(
        move_refusals(&events),
        [MoveRefusal::NotAtTheFleet, MoveRefusal::NoLandingThere]
    );
    assert_eq!(
        after.fleets[0].cargo,
        [1],
        "army 1 is aboard, army 2 is not"
    );
    assert_eq!(group_of(&after, "Fugandri", 2).unwrap().square, sq("C8"));
    // Landing on the square next to the fleet is allowed.
    let o = orders(&[(
        "Fugandri",
        vec![
            Order::PickUp { fleet: 1, army: 1 },
            Order::Disembark {
                army: 1,
                square: Some(sq("C7")),
            },
        ],
    )]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert!(move_refusals(&events).is_empty(), "{events:?}");
    assert!(after.fleets[0].cargo.is_empty());
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("C7"));
}

#[test]
fn r_move_9_a_merge_order_joins_groups_on_one_square_and_is_refused_apart() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "B7", units(&[(1, Veteran)], false));
    army(
        &mut gs,
        "Fugandri",
        2,
        "D7",
        units(&[(2, LattInfanteri)], false),
    );
    let merge = Order::Merge {
        group: Group::Army(1),
        other: 2,
    };
    // Apart: refused, both groups stay as they were.
    let (after, events) = move_and_fight(&gs, &orders(&[("Fugandri", vec![merge.clone()])]), &[]);
    assert_eq!(move_refusals(&events), [MoveRefusal::NotTogether]);
    assert_eq!(kinds(group_of(&after, "Fugandri", 1).unwrap()), [Veteran]);
    assert_eq!(group_of(&after, "Fugandri", 2).unwrap().units.len(), 2);
    // Army 1 walks to army 2 first: the merge then finds them together.
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["C7", "D7"]), merge])]);
    gs.armies[0].units = units(&[(1, LattKavalleri)], false).into();
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert!(move_refusals(&events).is_empty(), "{events:?}");
    assert!(group_of(&after, "Fugandri", 2).is_none());
    let g = group_of(&after, "Fugandri", 1).unwrap();
    assert_eq!(
        (g.square, kinds(g)),
        (sq("D7"), vec![LattKavalleri, LattInfanteri, LattInfanteri])
    );
}

#[test]
fn r_move_11_a_move_from_home_out_of_ones_land_waits_for_the_earlier_form() {
    let gs = face_to_face();
    // As r_move_7, but Kaldor's army leaves its land (I7 is no one's): no priority, so
    // Fugandri's earlier form moves first and meets it on I8.
    let o = orders(&[
        ("Fugandri", vec![mv(Group::Army(1), &["I8"])]),
        ("Kaldor", vec![mv(Group::Army(1), &["I7"])]),
    ]);
    let (after, events) = step3(&gs, &o);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("I8"));
    assert_eq!(group_of(&after, "Kaldor", 1).unwrap().square, sq("I8"));
    assert!(matches!(
        stops(&events).as_slice(),
        [Some(MoveStop::Enemy { .. })]
    ));
    assert_eq!(move_refusals(&events), [MoveRefusal::Engaged]);
}

#[test]
fn r_inv_4_an_invited_armys_move_inside_the_inviters_land_waits_its_turn() {
    let setup = || {
        let mut gs = game();
        // No city on K7 here: J7 and K7 are plain Kaldor land.
        gs.cities.retain(|c| c.square != sq("K7"));
        // Fugandri's army came by Kaldor's invitation last round and stands on J7.
        army(
            &mut gs,
            "Fugandri",
            1,
            "J7",
            units(&[(1, LattInfanteri)], false),
        );
        gs.armies[0].no_move_until_round = std::num::NonZeroU32::new(ROUND - 1);
        army(
            &mut gs,
            "Genogien",
            1,
            "I7",
            units(&[(1, LattInfanteri)], false),
        );
        gs
    };
    let fugandri = ("Fugandri", vec![mv(Group::Army(1), &["K7"])]);
    let genogien = ("Genogien", vec![mv(Group::Army(1), &["J7"])]);
    // Genogien's form came first: it moves first and meets the invited army on J7.
    let gs = setup();
    let (after, events) = step3(&gs, &orders(&[genogien.clone(), fugandri.clone()]));
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("J7"));
    assert_eq!(group_of(&after, "Genogien", 1).unwrap().square, sq("J7"));
    assert_eq!(move_refusals(&events), [MoveRefusal::Engaged]);
    // Fugandri's form first: the invited army leaves before Genogien comes.
    let (after, events) = step3(&gs, &orders(&[fugandri, genogien]));
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("K7"));
    assert_eq!(group_of(&after, "Genogien", 1).unwrap().square, sq("J7"));
    assert!(move_refusals(&events).is_empty());
}

#[test]
fn r_move_12_a_diagonal_step_needs_the_eight_neighbour_setting() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "D7",
        units(&[(1, LattInfanteri)], false),
    );
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["E8"])])]);
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("D7"));
    assert_eq!(
        stops(&events),
        [Some(MoveStop::Blocked { square: sq("E8") })]
    );
    gs.settings.adjacency = 8;
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("E8"));
    assert_eq!(stops(&events), [None]);
}

#[test]
fn r_city_12_friends_share_a_city_square_only_when_both_list_each_other() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(2, Veteran)], false));
    army(
        &mut gs,
        "Genogien",
        1,
        "C4",
        units(&[(1, LattInfanteri)], false),
    );
    gs.realm_mut("Fugandri").unwrap().friends = vec!["Genogien".into()];
    let o = orders(&[("Fugandri", vec![mv(Group::Army(1), &["C4"])])]);
    // Only Fugandri lists Genogien: Stenvik is not a friend's city, the move stops before it.
    let (after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("C3"));
    assert_eq!(
        stops(&events),
        [Some(MoveStop::EnemyCity { square: sq("C4") })]
    );
    // Both list each other: Fugandri's army moves in and shares the square, no battle.
    gs.realm_mut("Genogien").unwrap().friends = vec!["Fugandri".into()];
    let (mut after, events) = move_and_fight(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("C4"));
    assert_eq!(group_of(&after, "Genogien", 1).unwrap().square, sq("C4"));
    assert_eq!(stops(&events), [None]);
    assert_eq!(battles(&events), 0);
    assert_eq!(city(&mut after, "C4").owner, "Genogien");
}
