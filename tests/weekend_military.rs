//! The weekend's military steps, case by case in the style of the Diplomacy test cases:
//! each test a small state, the orders, fixed dice and the expected outcome, named by
//! the rule it pins (docs/rules.md).

#[path = "weekend_common/military.rs"]
mod common;

use common::*;
use pbemd::game::combat::Winner;
use pbemd::game::orders::{Group, Outcome, Wave};
use pbemd::game::weekend::military::{AttackRefusal, MilitaryEvent, Seat};
use pbemd::game::{Lang, Resource, Resources, ShipKind, UnitKind};

use UnitKind::{Belagringstorn, LattInfanteri, TungtInfanteri, Veteran};

fn battles(
    events: &[pbemd::game::event::Event],
) -> Vec<&pbemd::game::weekend::military::BattleReport> {
    military(events)
        .into_iter()
        .filter_map(|m| match m {
            MilitaryEvent::Battle(b) => Some(&**b),
            _ => None,
        })
        .collect()
}

fn refusals(events: &[pbemd::game::event::Event]) -> Vec<AttackRefusal> {
    military(events)
        .into_iter()
        .filter_map(|m| match m {
            MilitaryEvent::AttackRefused { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect()
}

/// Fugandri's army 1 on C3 and Genogien's army 1 on D3 (no city there).
fn field(att: &[(u32, UnitKind)], def: &[(u32, UnitKind)]) -> pbemd::game::GameState {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(att, false));
    army(&mut gs, "Genogien", 1, "D3", units(def, false));
    gs
}

#[test]
fn r_combat_6_worked_example_19_against_14_through_the_weekend() {
    let mut gs = field(&[(5, LattInfanteri)], &[(5, TungtInfanteri)]);
    gs.realm_mut("Fugandri").unwrap().positions.befalhavare = 6;
    gs.realm_mut("Genogien").unwrap().positions.befalhavare = 3;
    let (_, events) = fugandri_attacks(&gs, "D3", None, &[8, 1]);
    let b = battles(&events);
    assert_eq!(b.len(), 1);
    let r = b[0].result.rounds[0];
    assert_eq!((r.attacker_total, r.defender_total), (19, 14));
    assert_eq!((r.attacker_losses, r.defender_losses), (0, 1));
}

#[test]
fn r_combat_3_a_battle_is_seen_only_by_the_realms_that_fought() {
    let gs = field(&[(3, Veteran)], &[(1, LattInfanteri)]);
    let (after, events) = fugandri_attacks(&gs, "D3", None, &[20, 1]);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].seen_by, ["Fugandri", "Genogien"]);
    let report = |realm| pbemd::render::weekend::report(&events, &after, realm, Lang::Sv);
    assert!(report("Kaldor").is_empty(), "Kaldor was not in the battle");
    let sv = report("Genogien").join("\n");
    assert!(
        sv.contains("Slag vid D3: Fugandri med armé 1 mot Genogien (du försvarade)."),
        "{sv}"
    );
    assert!(
        sv.contains("Runda 1: anfall 12 + 20 = 32, försvar 1 + 1 = 2"),
        "{sv}"
    );
    let en = pbemd::render::weekend::report(&events, &after, "Fugandri", Lang::En).join("\n");
    assert!(
        en.contains("Battle at D3: Fugandri with army 1 against Genogien (you attacked)."),
        "{en}"
    );
    assert!(
        en.contains("Round 1: attack 12 + 20 = 32, defence 1 + 1 = 2"),
        "{en}"
    );
}

#[test]
fn r_combat_3_the_winner_of_a_field_battle_moves_onto_the_square() {
    let gs = field(&[(3, Veteran)], &[(1, LattInfanteri)]);
    let (after, _) = fugandri_attacks(&gs, "D3", None, &[20, 1]);
    assert!(
        group_of(&after, "Genogien", 1).is_none(),
        "the defender is gone"
    );
    let g = group_of(&after, "Fugandri", 1).unwrap();
    assert_eq!(g.square, sq("D3"));
    assert_eq!(g.units.len(), 3);
    assert!(after.realm("Genogien").unwrap().fought_last_weekend);
    assert!(after.realm("Fugandri").unwrap().fought_last_weekend);
}

#[test]
fn r_combat_9_the_defenders_losses_come_from_the_tail_of_its_line() {
    let gs = field(&[(1, LattInfanteri)], &[(2, Veteran), (3, LattInfanteri)]);
    let o = orders(&[("Fugandri", vec![attack(Group::Army(1), "D3", None, None)])]);
    // 1+20 = 21 against 7+1 = 8: two light infantry go; then 1+1 against 5+20: attacker gone.
    let (after, _) = fight(&gs, &o, &[20, 1, 1, 20]);
    let g = group_of(&after, "Genogien", 1).unwrap();
    assert_eq!(kinds(g), [Veteran, Veteran, LattInfanteri]);
    assert!(group_of(&after, "Fugandri", 1).is_none());
}

#[test]
fn r_unit_7_an_army_built_this_round_cannot_attack() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(5, Veteran)], true));
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(1, LattInfanteri)], false),
    );
    let (after, events) = fugandri_attacks(&gs, "D3", None, &[20, 1]);
    assert!(battles(&events).is_empty());
    assert_eq!(refusals(&events), [AttackRefusal::BuiltThisRound]);
    assert_eq!(after.armies, gs.armies);
    let en = pbemd::render::weekend::report(&events, &after, "Fugandri", Lang::En).join("\n");
    assert!(en.contains("may defend but not attack (R-UNIT-7)"), "{en}");
}

#[test]
fn r_unit_7_new_units_stay_behind_while_the_old_ones_attack() {
    let mut gs = game();
    let mut u = units(&[(3, Veteran)], false);
    u.extend(units(&[(2, LattInfanteri)], true));
    army(&mut gs, "Fugandri", 1, "C3", u);
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(1, LattInfanteri)], false),
    );
    let (after, events) = fugandri_attacks(&gs, "D3", None, &[20, 1]);
    assert_eq!(
        battles(&events)[0].result.rounds[0].attacker_value,
        12,
        "3 veterans only (attack 4 each)"
    );
    let home = group_of(&after, "Fugandri", 1).unwrap();
    assert_eq!(
        (home.square, kinds(home)),
        (sq("C3"), vec![LattInfanteri, LattInfanteri])
    );
    let away = group_of(&after, "Fugandri", 2).unwrap();
    assert_eq!(
        (away.square, kinds(away)),
        (sq("D3"), vec![Veteran, Veteran, Veteran])
    );
}

#[test]
fn r_move_4_an_attack_beyond_the_neighbouring_squares_is_refused() {
    let gs = field(&[(3, Veteran)], &[(1, LattInfanteri)]);
    let (_, events) = fugandri_attacks(&gs, "E4", None, &[20, 1]);
    assert_eq!(refusals(&events), [AttackRefusal::TooFar]);
}

#[test]
fn rulings_26_adjacency_8_lets_an_army_attack_a_diagonal_neighbour() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(3, Veteran)], false));
    army(
        &mut gs,
        "Genogien",
        1,
        "D4",
        units(&[(1, LattInfanteri)], false),
    );
    let (_, events) = fugandri_attacks(&gs, "D4", None, &[20, 1]);
    assert_eq!(refusals(&events), [AttackRefusal::TooFar]);
    assert!(battles(&events).is_empty());
    gs.settings.adjacency = 8;
    let (_, events) = fugandri_attacks(&gs, "D4", None, &[20, 1]);
    assert!(refusals(&events).is_empty());
    assert_eq!(battles(&events).len(), 1);
}

#[test]
fn r_combat_3_an_attack_on_an_empty_square_finds_no_enemy() {
    let gs = field(&[(3, Veteran)], &[(1, LattInfanteri)]);
    let (_, events) = fugandri_attacks(&gs, "C2", None, &[20, 1]);
    assert!(battles(&events).is_empty());
    assert_eq!(refusals(&events), [AttackRefusal::NoEnemy]);
}

#[test]
fn r_city_5_plunder_takes_the_production_five_of_the_most_held_and_25_vp() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(10, Veteran)], false));
    gs.realm_mut("Genogien").unwrap().stock = Resources::from_pairs(&[
        (Resource::Mat, 10),
        (Resource::Jarn, 12),
        (Resource::Sten, 12),
    ]);
    let before = gs.realm("Fugandri").unwrap().stock;
    let (after, events) = fugandri_attacks(&gs, "C4", Some(Outcome::Plunder), &[20, 1]);
    let got = after.realm("Fugandri").unwrap().stock;
    // Stenvik makes 2 sten, 1 järn, 1 slave; järn and sten tie at 12: järn comes first.
    assert_eq!(got.get(Resource::Jarn), before.get(Resource::Jarn) + 1 + 5);
    assert_eq!(got.get(Resource::Sten), before.get(Resource::Sten) + 2);
    assert_eq!(got.get(Resource::Slavar), before.get(Resource::Slavar) + 1);
    assert_eq!(
        after.realm("Genogien").unwrap().stock.get(Resource::Jarn),
        7
    );
    assert_eq!(vp(&after, "Fugandri"), vp(&gs, "Fugandri") + 25);
    assert_eq!(vp(&after, "Genogien"), vp(&gs, "Genogien"));
    assert_eq!(city(&mut after.clone(), "C4").owner, "Genogien");
    assert_eq!(
        group_of(&after, "Fugandri", 1).unwrap().square,
        sq("C3"),
        "plunderers go home"
    );
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::CityPlundered {
            taken: Some((Resource::Jarn, 5)),
            ..
        }
    )));
}

#[test]
fn r_city_6_taking_a_capital_gives_100_vp_and_costs_the_owner_100() {
    let mut gs = game();
    let mut u = units(&[(2, Belagringstorn)], false);
    u.extend(units(&[(10, Veteran)], false));
    army(&mut gs, "Fugandri", 1, "B3", u);
    army(
        &mut gs,
        "Genogien",
        1,
        "B2",
        units(&[(1, LattInfanteri)], false),
    );
    let (mut after, events) = fugandri_attacks(&gs, "B2", Some(Outcome::Takeover), &[20, 1]);
    let b = battles(&events)[0];
    assert_eq!(
        b.result.pre_battle.walls_removed, 2,
        "two towers, two walls (R-WALL-6)"
    );
    assert_eq!(b.result.winner, Winner::Attacker);
    assert_eq!(vp(&after, "Fugandri"), vp(&gs, "Fugandri") + 100);
    assert_eq!(vp(&after, "Genogien"), vp(&gs, "Genogien") - 100);
    let genborg = city(&mut after, "B2").clone();
    assert_eq!(
        (genborg.owner.as_str(), genborg.capital, genborg.walls),
        ("Fugandri", false, 0)
    );
    assert_eq!(
        after
            .conquests
            .last()
            .map(|c| (c.from.as_str(), c.to.as_str())),
        Some(("Genogien", "Fugandri"))
    );
    let g = group_of(&after, "Fugandri", 1).unwrap();
    assert_eq!(
        (g.square, g.units.len()),
        (sq("B2"), 10),
        "the towers were used up"
    );
}

/// Fugandri's towers and veterans on B3 take Genogien's capital B2 (the attack wins).
fn take_genogiens_capital(
    gs: &mut pbemd::game::GameState,
) -> (pbemd::game::GameState, Vec<pbemd::game::event::Event>) {
    army(
        gs,
        "Fugandri",
        1,
        "B3",
        units(&[(2, Belagringstorn), (10, Veteran)], false),
    );
    fugandri_attacks(gs, "B2", Some(Outcome::Takeover), &[20, 1])
}

/// Fugandri's army 1 attacks `square` ordering `outcome` (if any), fought with the scripted
/// `rolls`.
fn fugandri_attacks(
    gs: &pbemd::game::GameState,
    square: &str,
    outcome: Option<Outcome>,
    rolls: &[u32],
) -> (pbemd::game::GameState, Vec<pbemd::game::event::Event>) {
    let o = orders(&[(
        "Fugandri",
        vec![attack(Group::Army(1), square, outcome, None)],
    )]);
    fight(gs, &o, rolls)
}

#[test]
fn rulings_29_the_most_populous_city_stands_in_for_a_lost_capital() {
    let mut gs = game();
    let (mut after, events) = take_genogiens_capital(&mut gs);
    // Nordhamn (D2, 40) is more populous than Stenvik (C4, 30).
    assert_eq!(after.realm("Genogien").unwrap().capital, Some(sq("D2")));
    assert!(city(&mut after, "D2").capital);
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::SeatLost { seat: Seat::Capital, stand_in: Some(s), .. } if *s == sq("D2")
    )));
}

#[test]
fn rulings_29_a_city_in_the_evils_dimension_never_stands_in_for_a_lost_capital() {
    let mut gs = game();
    // Genogien also holds the most populous city of all, in the Evil's dimension: a
    // capital is a square of the normal map, so it cannot stand in there.
    let mut deep = gs.cities[0].clone();
    deep.square = sq("F5");
    deep.name = "Djupborg".into();
    deep.owner = "Genogien".into();
    deep.dimension = pbemd::game::state::Dimension::Evil;
    deep.population = 90;
    (deep.capital, deep.harbour, deep.coastal) = (false, false, false);
    gs.cities.push(deep);
    let (after, events) = take_genogiens_capital(&mut gs);
    assert_eq!(after.realm("Genogien").unwrap().capital, Some(sq("D2")));
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::SeatLost { seat: Seat::Capital, stand_in: Some(s), .. } if *s == sq("D2")
    )));
    let deep = after.cities.iter().find(|c| c.name == "Djupborg").unwrap();
    assert!(
        !deep.capital,
        "the city in the other dimension is no capital"
    );
}

#[test]
fn r_city_7_razing_a_capital_costs_its_owner_200_vp_and_the_city() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "B3",
        units(&[(2, Belagringstorn), (10, Veteran)], false),
    );
    let (after, _) = fugandri_attacks(&gs, "B2", Some(Outcome::Raze), &[20, 1]);
    assert!(after.cities.iter().all(|c| c.square != sq("B2")));
    assert_eq!(vp(&after, "Genogien"), vp(&gs, "Genogien") - 200);
    assert_eq!(
        vp(&after, "Fugandri"),
        vp(&gs, "Fugandri"),
        "razing earns nothing"
    );
}

#[test]
fn r_city_7_razing_an_ordinary_city_costs_its_owner_100_vp() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(10, Veteran)], false));
    let (after, _) = fugandri_attacks(&gs, "C4", Some(Outcome::Raze), &[20, 1]);
    assert_eq!(vp(&after, "Genogien"), vp(&gs, "Genogien") - 100);
}

#[test]
fn r_city_8_a_fleet_in_a_conquered_city_must_leave_next_round() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "D3", units(&[(4, Veteran)], false));
    fleet(
        &mut gs,
        "Genogien",
        1,
        "D2",
        ships(&[(1, ShipKind::Transportskepp)], false),
        &[],
    );
    let (after, events) = fugandri_attacks(&gs, "D2", Some(Outcome::Takeover), &[20, 1]);
    assert_eq!(after.fleets[0].must_leave_by_round, Some(ROUND + 1));
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::SeatLost {
            seat: Seat::Harbour,
            ..
        }
    )));
}

#[test]
fn rulings_30_an_undefended_city_that_is_five_ahead_costs_the_attacker() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "C3",
        units(&[(1, LattInfanteri)], false),
    );
    let o = orders(&[(
        "Fugandri",
        vec![attack(Group::Army(1), "C4", Some(Outcome::Takeover), None)],
    )]);
    // 1+3 = 4 against 30/10 + 10 = 13: the attacker loses its unit.
    let (mut after, events) = fight(&gs, &o, &[3, 10]);
    assert!(battles(&events)[0].result.undefended_city);
    assert!(group_of(&after, "Fugandri", 1).is_none());
    assert_eq!(city(&mut after, "C4").owner, "Genogien");
}

#[test]
fn r_combat_12_the_second_attacker_goes_in_when_the_first_is_destroyed() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "C3",
        units(&[(1, LattInfanteri)], false),
    );
    army(&mut gs, "Fugandri", 2, "B4", units(&[(5, Veteran)], false));
    let o = orders(&[(
        "Fugandri",
        vec![
            attack(
                Group::Army(2),
                "C4",
                Some(Outcome::Takeover),
                Some(Wave::Second),
            ),
            attack(
                Group::Army(1),
                "C4",
                Some(Outcome::Takeover),
                Some(Wave::First),
            ),
        ],
    )]);
    let (mut after, events) = fight(&gs, &o, &[3, 10, 20, 1]);
    let b = battles(&events);
    assert_eq!(b.len(), 2);
    assert_eq!(
        b[0].attacker_group,
        Group::Army(1),
        "the first attacker fights first"
    );
    assert_eq!(b[1].attacker_group, Group::Army(2));
    assert_eq!(city(&mut after, "C4").owner, "Fugandri");
}

#[test]
fn r_combat_12_the_second_attacker_joins_the_first_in_the_city_it_took() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(5, Veteran)], false));
    army(
        &mut gs,
        "Fugandri",
        2,
        "B4",
        units(&[(2, LattInfanteri)], false),
    );
    let o = orders(&[(
        "Fugandri",
        vec![
            attack(
                Group::Army(1),
                "C4",
                Some(Outcome::Takeover),
                Some(Wave::First),
            ),
            attack(
                Group::Army(2),
                "C4",
                Some(Outcome::Takeover),
                Some(Wave::Second),
            ),
        ],
    )]);
    let (after, events) = fight(&gs, &o, &[20, 1]);
    assert_eq!(battles(&events).len(), 1);
    assert!(
        group_of(&after, "Fugandri", 2).is_none(),
        "merged (R-MOVE-8)"
    );
    let g = group_of(&after, "Fugandri", 1).unwrap();
    assert_eq!(g.square, sq("C4"));
    assert_eq!(g.units.len(), 7);
}

/// R-COMBAT-12: the 2nd attacker moves into the city the 1st *conquered*; a plundered
/// city stays its owner's and the plunderers go back where they stood, so the 2nd
/// stays where it stands (and does not fight: the 1st did not fall).
#[test]
fn r_combat_12_the_second_attacker_stays_when_the_first_only_plundered() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(5, Veteran)], false));
    army(
        &mut gs,
        "Fugandri",
        2,
        "B4",
        units(&[(2, LattInfanteri)], false),
    );
    let o = orders(&[(
        "Fugandri",
        vec![
            attack(
                Group::Army(1),
                "C4",
                Some(Outcome::Plunder),
                Some(Wave::First),
            ),
            attack(
                Group::Army(2),
                "C4",
                Some(Outcome::Plunder),
                Some(Wave::Second),
            ),
        ],
    )]);
    let (mut after, events) = fight(&gs, &o, &[20, 1]);
    assert_eq!(battles(&events).len(), 1);
    assert_eq!(
        city(&mut after, "C4").owner,
        "Genogien",
        "plundered, not taken"
    );
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("C3"));
    assert_eq!(
        group_of(&after, "Fugandri", 2).unwrap().square,
        sq("B4"),
        "the 2nd does not walk into Genogien's city"
    );
    assert_eq!(refusals(&events), [AttackRefusal::SecondStoodDown]);
}

/// R-COMBAT-14 (no joint defence, RULINGS 35): a city is defended by its owner's army
/// groups on its square, both of them, in number order; a friend's army standing there
/// does not fight and loses nothing.
#[test]
fn r_combat_14_a_city_is_defended_by_its_owners_groups_alone() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(4, Veteran)], false));
    army(
        &mut gs,
        "Genogien",
        2,
        "C4",
        units(&[(1, TungtInfanteri)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "C4",
        units(&[(1, LattInfanteri)], false),
    );
    army(&mut gs, "Afani", 1, "C4", units(&[(5, Veteran)], false));
    gs.realm_mut("Genogien").unwrap().friends = vec!["Afani".into()];
    gs.realm_mut("Afani").unwrap().friends = vec!["Genogien".into()];
    let (after, events) = fugandri_attacks(&gs, "C4", Some(Outcome::Takeover), &[20, 1]);
    let b = battles(&events);
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].defender.as_deref(), Some("Genogien"));
    assert_eq!(b[0].defender_groups, [Group::Army(1), Group::Army(2)]);
    assert_eq!(
        b[0].result.rounds[0].defender_value,
        u64::from(LattInfanteri.stats().defence + TungtInfanteri.stats().defence),
        "both of the owner's groups, and nothing of Afani's"
    );
    assert_eq!(b[0].result.winner, Winner::Attacker);
    let afani = group_of(&after, "Afani", 1).expect("Afani's army is still there");
    assert_eq!((afani.square, afani.units.len()), (sq("C4"), 5));
    assert!(group_of(&after, "Genogien", 1).is_none() && group_of(&after, "Genogien", 2).is_none());
}

#[test]
fn r_combat_13_a_friends_attack_on_the_same_target_is_refused_as_a_joint_attack() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "C3",
        units(&[(1, LattInfanteri)], false),
    );
    army(&mut gs, "Kaldor", 1, "B4", units(&[(5, Veteran)], false));
    gs.realm_mut("Fugandri").unwrap().friends = vec!["Kaldor".into()];
    gs.realm_mut("Kaldor").unwrap().friends = vec!["Fugandri".into()];
    let o = orders(&[
        (
            "Fugandri",
            vec![attack(Group::Army(1), "C4", Some(Outcome::Raze), None)],
        ),
        (
            "Kaldor",
            vec![attack(Group::Army(1), "C4", Some(Outcome::Raze), None)],
        ),
    ]);
    let (after, events) = fight(&gs, &o, &[3, 10]);
    assert_eq!(battles(&events).len(), 1);
    assert_eq!(
        refusals(&events),
        [AttackRefusal::JointAttack {
            with: "Fugandri".into()
        }]
    );
    let en = pbemd::render::weekend::report(&events, &after, "Kaldor", Lang::En).join("\n");
    assert!(
        en.contains("joint attacks have no rules, so the GM settles them (R-COMBAT-13)"),
        "{en}"
    );
}

#[test]
fn rulings_31_at_the_round_limit_the_attacker_stays_where_it_stood() {
    let mut gs = field(&[(1, LattInfanteri)], &[(1, LattInfanteri)]);
    gs.settings.max_battle_rounds = 1;
    let (after, events) = fugandri_attacks(&gs, "D3", None, &[10, 10]);
    assert_eq!(battles(&events)[0].result.winner, Winner::None);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("C3"));
    assert_eq!(group_of(&after, "Genogien", 1).unwrap().units.len(), 1);
}

#[test]
fn r_combat_8_a_sunk_fleet_takes_its_army_down_with_it() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "E2", units(&[(3, Veteran)], false));
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "E2",
        ships(&[(1, ShipKind::Transportskepp)], false),
        &[1],
    );
    fleet(
        &mut gs,
        "Genogien",
        1,
        "E2",
        ships(&[(3, ShipKind::TungtKrigsskepp)], false),
        &[],
    );
    let o = orders(&[("Fugandri", vec![attack(Group::Fleet(1), "E2", None, None)])]);
    let (after, events) = fight(&gs, &o, &[1, 20]);
    assert!(battles(&events)[0].battle.naval);
    assert!(after.fleets.iter().all(|f| f.owner != "Fugandri"));
    assert!(group_of(&after, "Fugandri", 1).is_none());
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::CargoLost {
            units: 3,
            fleet_sunk: true,
            ..
        }
    )));
}

#[test]
fn r_combat_8_army_units_beyond_the_transports_left_drown_from_the_tail() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "E2",
        units(&[(5, Veteran), (3, LattInfanteri)], false),
    );
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "E2",
        ships(
            &[
                (1, ShipKind::TungtKrigsskepp),
                (2, ShipKind::Transportskepp),
            ],
            false,
        ),
        &[1],
    );
    fleet(
        &mut gs,
        "Genogien",
        1,
        "E2",
        ships(&[(1, ShipKind::LattKrigsskepp)], false),
        &[],
    );
    let o = orders(&[("Fugandri", vec![attack(Group::Fleet(1), "E2", None, None)])]);
    // 5+1 against 2+10: one transport sinks; then 4+20 against 2+1: the defender sinks.
    let (after, events) = fight(&gs, &o, &[1, 10, 20, 1]);
    assert_eq!(battles(&events)[0].result.winner, Winner::Attacker);
    let g = group_of(&after, "Fugandri", 1).unwrap();
    assert_eq!(
        kinds(g),
        vec![Veteran; 5],
        "the three light infantry at the tail drowned"
    );
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::CargoLost {
            units: 3,
            fleet_sunk: false,
            ..
        }
    )));
}

/// Fugandri's fleet 1 on E2 (two heavy warships and a transport) carrying its army 1
/// of `veterans` veterans, next to Genogien's D2.
fn fugandri_warships_carrying(gs: &mut pbemd::game::GameState, veterans: u32) {
    army(
        gs,
        "Fugandri",
        1,
        "E2",
        units(&[(veterans, Veteran)], false),
    );
    let warships = [
        (2, ShipKind::TungtKrigsskepp),
        (1, ShipKind::Transportskepp),
    ];
    fleet(gs, "Fugandri", 1, "E2", ships(&warships, false), &[1]);
}

#[test]
fn r_combat_10_the_fleet_that_attacked_backs_the_landing_with_its_ships_attack() {
    let mut gs = game();
    fugandri_warships_carrying(&mut gs, 2);
    let o = orders(&[(
        "Fugandri",
        vec![
            attack(Group::Fleet(1), "D2", None, None),
            attack(Group::Army(1), "D2", Some(Outcome::Takeover), None),
        ],
    )]);
    let (mut after, events) = fight(&gs, &o, &[10, 10]);
    let b = battles(&events);
    assert_eq!(b.len(), 1, "no enemy ships: no naval battle");
    assert_eq!(b[0].battle.attacker_support, 7);
    assert_eq!(
        b[0].result.rounds[0].attacker_value,
        8 + 7,
        "2 veterans and the ships"
    );
    assert_eq!(city(&mut after, "D2").owner, "Fugandri");
    assert!(after.fleets[0].cargo.is_empty(), "the army went ashore");
    assert!(refusals(&events).is_empty());
}

#[test]
fn rulings_14_ships_alone_never_take_a_city() {
    let mut gs = game();
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "E2",
        ships(&[(2, ShipKind::TungtKrigsskepp)], false),
        &[],
    );
    let o = orders(&[("Fugandri", vec![attack(Group::Fleet(1), "D2", None, None)])]);
    let (mut after, events) = fight(&gs, &o, &[20, 1]);
    assert_eq!(refusals(&events), [AttackRefusal::FleetCannotTakeCity]);
    assert_eq!(city(&mut after, "D2").owner, "Genogien");
}

#[test]
fn step_4_is_the_same_twice_from_the_same_seed() {
    let gs = field(&[(6, LattInfanteri), (2, Veteran)], &[(5, TungtInfanteri)]);
    let o = orders(&[("Fugandri", vec![attack(Group::Army(1), "D3", None, None)])]);
    let a = pbemd::game::weekend::resolve(&gs, &o, &gs.settings, gs.game.seed);
    let b = pbemd::game::weekend::resolve(&gs, &o, &gs.settings, gs.game.seed);
    assert_eq!(a, b);
    assert!(!a.rolls.is_empty(), "the battle's rolls are kept");
}

#[test]
fn military_events_round_trip_through_json_for_storage() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "B3",
        units(&[(2, Belagringstorn), (10, Veteran)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "B2",
        units(&[(1, LattInfanteri)], false),
    );
    fleet(
        &mut gs,
        "Genogien",
        1,
        "B2",
        ships(&[(1, ShipKind::Galeas)], false),
        &[],
    );
    let o = orders(&[(
        "Fugandri",
        vec![
            attack(Group::Army(1), "B2", Some(Outcome::Takeover), None),
            attack(Group::Army(7), "B2", Some(Outcome::Takeover), None),
        ],
    )]);
    let (_, events) = fight(&gs, &o, &[20, 1]);
    assert!(
        events.len() >= 4,
        "battle, takeover, fleet, seats, refusal: {events:?}"
    );
    let json = serde_json::to_string(&events).unwrap();
    let back: Vec<pbemd::game::event::Event> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, events);
}

#[test]
fn r_city_5_a_plundered_city_produces_nothing_for_its_owner_in_step_6() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(10, Veteran)], false));
    let o = orders(&[(
        "Fugandri",
        vec![attack(Group::Army(1), "C4", Some(Outcome::Plunder), None)],
    )]);
    let mut w = pbemd::game::weekend::Weekend::new(&gs, &o, &gs.settings, gs.game.seed);
    pbemd::game::weekend::military::combat_with(
        &mut w,
        pbemd::game::dice::Dice::scripted("test", &[20, 1]),
    );
    let before_production = w.state.realm("Genogien").unwrap().stock;
    pbemd::game::weekend::economy::production(&mut w);
    let after = w.state.realm("Genogien").unwrap().stock;
    let stenvik = city(&mut w.state.clone(), "C4").production;
    let others = w
        .state
        .cities
        .iter()
        .filter(|c| c.owner == "Genogien" && c.square != sq("C4"))
        .fold(Resources::default(), |acc, c| acc.plus(&c.production));
    for r in Resource::ALL {
        assert_eq!(
            after.get(r),
            before_production.get(r) + others.get(r),
            "{r:?}: Stenvik ({}) gave its owner nothing",
            stenvik.get(r)
        );
    }
}

#[test]
fn r_city_5_the_plunder_line_names_the_goods_in_the_readers_language() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(10, Veteran)], false));
    gs.realm_mut("Genogien").unwrap().stock = Resources::from_pairs(&[(Resource::Mat, 1)]);
    let (after, events) = fugandri_attacks(&gs, "C4", Some(Outcome::Plunder), &[20, 1]);
    let en = pbemd::render::weekend::report(&events, &after, "Genogien", Lang::En);
    let line = en.iter().find(|l| l.contains("plundered")).unwrap();
    assert!(
        line.starts_with("Fugandri plundered Stenvik (C4) and took "),
        "{line}"
    );
    assert!(
        line.contains(", 1 food;"),
        "one unit of food, singular, last: {line}"
    );
    assert!(line.ends_with("Fugandri +25 VP."), "{line}");
}

#[test]
fn r_move_6_a_group_attacks_once_a_weekend() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(10, Veteran)], false));
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(1, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Genogien",
        2,
        "B3",
        units(&[(1, LattInfanteri)], false),
    );
    let o = orders(&[(
        "Fugandri",
        vec![
            attack(Group::Army(1), "D3", None, None),
            attack(Group::Army(1), "B3", None, None),
        ],
    )]);
    let (after, events) = fight(&gs, &o, &[20, 1, 20, 1]);
    assert_eq!(battles(&events).len(), 1);
    assert_eq!(refusals(&events), [AttackRefusal::AlreadyFought]);
    assert!(group_of(&after, "Genogien", 2).is_some());
}

#[test]
fn r_move_6_an_attack_that_found_no_one_does_not_use_up_the_group() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "C3", units(&[(10, Veteran)], false));
    army(
        &mut gs,
        "Genogien",
        2,
        "B3",
        units(&[(1, LattInfanteri)], false),
    );
    let o = orders(&[(
        "Fugandri",
        vec![
            attack(Group::Army(1), "D3", None, None),
            attack(Group::Army(1), "B3", None, None),
        ],
    )]);
    let (after, events) = fight(&gs, &o, &[20, 1]);
    assert_eq!(refusals(&events), [AttackRefusal::NoEnemy]);
    assert_eq!(battles(&events).len(), 1);
    assert!(group_of(&after, "Genogien", 2).is_none());
}

// ---- Rules pinned by their own ID (docs/rules.md) ----------------------------

/// R-ALLY-2 (RULINGS 35): only a *friend's* attack on a target already attacked is a
/// joint attack; a realm that is no friend of the first attacker fights its own battle.
#[test]
fn r_ally_2_a_second_attack_by_a_realm_that_is_no_friend_is_fought_not_refused() {
    let mut gs = game();
    army(
        &mut gs,
        "Fugandri",
        1,
        "C3",
        units(&[(1, LattInfanteri)], false),
    );
    army(&mut gs, "Kaldor", 1, "B4", units(&[(5, Veteran)], false));
    let o = orders(&[
        (
            "Fugandri",
            vec![attack(Group::Army(1), "C4", Some(Outcome::Takeover), None)],
        ),
        (
            "Kaldor",
            vec![attack(Group::Army(1), "C4", Some(Outcome::Takeover), None)],
        ),
    ]);
    // Fugandri: 1 + 3 against 30/10 + 10, loses its unit; Kaldor: 20 + 20 against 3 + 1.
    let (mut after, events) = fight(&gs, &o, &[3, 10, 20, 1]);
    let b = battles(&events);
    assert_eq!(b.len(), 2);
    assert_eq!(
        (b[0].attacker.as_str(), b[0].result.winner),
        ("Fugandri", Winner::Defender)
    );
    assert_eq!(
        (b[1].attacker.as_str(), b[1].result.winner),
        ("Kaldor", Winner::Attacker)
    );
    assert!(refusals(&events).is_empty());
    assert_eq!(city(&mut after, "C4").owner, "Kaldor");
}

#[test]
fn r_combat_1_groups_are_numbered_per_realm_and_a_new_one_takes_its_realms_next_number() {
    use pbemd::game::orders::{Order, Piece};
    let mut gs = game();
    for id in 1..=3 {
        army(&mut gs, "Genogien", id, "B2", units(&[(2, Veteran)], false));
    }
    army(&mut gs, "Fugandri", 1, "B8", units(&[(2, Veteran)], false));
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "C6",
        ships(&[(2, ShipKind::Transportskepp)], false),
        &[],
    );
    let o = orders(&[
        (
            "Fugandri",
            vec![
                Order::Split {
                    group: Group::Army(1),
                    pieces: vec![(1, Piece::Unit(Veteran))],
                },
                Order::Split {
                    group: Group::Fleet(1),
                    pieces: vec![(1, Piece::Ship(ShipKind::Transportskepp))],
                },
            ],
        ),
        (
            "Genogien",
            vec![Order::Split {
                group: Group::Army(3),
                pieces: vec![(1, Piece::Unit(Veteran))],
            }],
        ),
    ]);
    let mut w = pbemd::game::weekend::Weekend::new(&gs, &o, &gs.settings, gs.game.seed);
    pbemd::game::weekend::military::movement(&mut w);
    let ids = |owner: &str| {
        let mut a: Vec<u32> = w
            .state
            .armies
            .iter()
            .filter(|g| g.owner == owner)
            .map(|g| g.id)
            .collect();
        a.sort();
        a
    };
    assert_eq!(ids("Fugandri"), [1, 2], "Fugandri's own next number");
    assert_eq!(ids("Genogien"), [1, 2, 3, 4]);
    let mut fleets: Vec<u32> = w
        .state
        .fleets
        .iter()
        .filter(|f| f.owner == "Fugandri")
        .map(|f| f.id)
        .collect();
    fleets.sort();
    assert_eq!(fleets, [1, 2], "fleets count apart from armies");
    let splits: Vec<(String, Group, u32)> = military(&w.events)
        .into_iter()
        .filter_map(|m| match m {
            MilitaryEvent::Split { realm, group, new } => Some((realm.to_string(), *group, *new)),
            _ => None,
        })
        .collect();
    assert_eq!(
        splits,
        [
            ("Fugandri".to_string(), Group::Army(1), 2),
            ("Fugandri".to_string(), Group::Fleet(1), 2),
            ("Genogien".to_string(), Group::Army(3), 4),
        ]
    );
}

#[test]
fn r_combat_2_a_fleet_built_this_round_cannot_attack() {
    let mut gs = game();
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "E2",
        ships(&[(3, ShipKind::TungtKrigsskepp)], true),
        &[],
    );
    fleet(
        &mut gs,
        "Genogien",
        1,
        "E2",
        ships(&[(1, ShipKind::Transportskepp)], false),
        &[],
    );
    let o = orders(&[("Fugandri", vec![attack(Group::Fleet(1), "E2", None, None)])]);
    let (after, events) = fight(&gs, &o, &[20, 1]);
    assert!(battles(&events).is_empty());
    assert_eq!(refusals(&events), [AttackRefusal::BuiltThisRound]);
    assert_eq!(after.fleets, gs.fleets);
}

/// R-COMBAT-4: archers first, then siege towers, then the d20 rounds. The defender's
/// archers shoot the attacker's tower before it reaches the wall, so the wall still
/// counts (10) in the first round.
#[test]
fn r_combat_4_archers_shoot_before_the_towers_act_and_both_before_the_rounds() {
    use UnitKind::Bagskyttar;
    let mut gs = game();
    city(&mut gs, "C4").walls = 1;
    army(
        &mut gs,
        "Fugandri",
        1,
        "C3",
        units(&[(2, Veteran), (1, Belagringstorn), (1, Bagskyttar)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "C4",
        units(&[(3, Bagskyttar)], false),
    );
    let (_, events) = fugandri_attacks(&gs, "C4", Some(Outcome::Takeover), &[10, 10]);
    let b = battles(&events);
    assert_eq!(b.len(), 1);
    let pre = b[0].result.pre_battle;
    assert_eq!((pre.attacker_archers, pre.defender_archers), (1, 3));
    assert_eq!(
        (pre.attacker_losses, pre.defender_losses),
        (2, 0),
        "the archer and the tower at the tail fell to the arrows"
    );
    assert_eq!((pre.siege_towers_used, pre.walls_removed), (0, 0));
    let r = b[0].result.rounds[0];
    assert_eq!(r.attacker_value, 2 * u64::from(Veteran.stats().attack));
    assert_eq!(
        r.defender_value,
        3 * u64::from(Bagskyttar.stats().defence) + 10,
        "the wall still stands in round 1"
    );
    assert_eq!(b[0].result.walls_left, 1);
}

#[test]
fn r_combat_5_each_total_is_values_bonus_walls_and_the_d20_shown_on_the_report() {
    let mut gs = game();
    city(&mut gs, "C4").walls = 2;
    gs.realm_mut("Fugandri").unwrap().positions.befalhavare = 3;
    gs.realm_mut("Genogien").unwrap().positions.befalhavare = 2;
    army(&mut gs, "Fugandri", 1, "C3", units(&[(5, Veteran)], false));
    army(
        &mut gs,
        "Genogien",
        1,
        "C4",
        units(&[(1, TungtInfanteri)], false),
    );
    let (after, events) = fugandri_attacks(&gs, "C4", Some(Outcome::Takeover), &[7, 4]);
    let r = battles(&events)[0].result.rounds[0];
    let att = 5 * u64::from(Veteran.stats().attack) + 3;
    let def = u64::from(TungtInfanteri.stats().defence) + 2 + 2 * 10;
    assert_eq!((r.attacker_value, r.defender_value), (att, def));
    assert_eq!((r.attacker_roll, r.defender_roll), (7, 4));
    assert_eq!((r.attacker_total, r.defender_total), (att + 7, def + 4));
    let sv = pbemd::render::weekend::report(&events, &after, "Genogien", Lang::Sv).join("\n");
    let line = format!(
        "Runda 1: anfall {att} + 7 = {}, försvar {def} + 4 = {}",
        att + 7,
        def + 4
    );
    assert!(sv.contains(&line), "{line} in\n{sv}");
}

#[test]
fn r_unit_3_a_siege_tower_is_spent_only_on_a_wall() {
    // In the field the tower is just a unit of the line and comes home.
    let gs = field(&[(3, Veteran), (1, Belagringstorn)], &[(1, LattInfanteri)]);
    let (after, events) = fugandri_attacks(&gs, "D3", None, &[20, 1]);
    assert_eq!(battles(&events)[0].result.pre_battle.siege_towers_used, 0);
    assert_eq!(
        kinds(group_of(&after, "Fugandri", 1).unwrap()),
        [Veteran, Veteran, Veteran, Belagringstorn]
    );
    // Against one wall, one of two towers is spent and the other stays in the line.
    let mut gs = game();
    city(&mut gs, "C4").walls = 1;
    army(
        &mut gs,
        "Fugandri",
        1,
        "C3",
        units(&[(3, Veteran), (2, Belagringstorn)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "C4",
        units(&[(1, LattInfanteri)], false),
    );
    let (after, events) = fugandri_attacks(&gs, "C4", Some(Outcome::Takeover), &[20, 1]);
    let pre = battles(&events)[0].result.pre_battle;
    assert_eq!((pre.siege_towers_used, pre.walls_removed), (1, 1));
    assert_eq!(
        kinds(group_of(&after, "Fugandri", 1).unwrap()),
        [Veteran, Veteran, Veteran, Belagringstorn]
    );
}

#[test]
fn r_nav_4_a_fleet_with_an_army_aboard_still_takes_no_city_without_the_armys_attack() {
    let mut gs = game();
    fugandri_warships_carrying(&mut gs, 4);
    let o = orders(&[("Fugandri", vec![attack(Group::Fleet(1), "D2", None, None)])]);
    let (mut after, events) = fight(&gs, &o, &[20, 1]);
    assert_eq!(refusals(&events), [AttackRefusal::FleetCannotTakeCity]);
    assert!(battles(&events).is_empty());
    assert_eq!(city(&mut after, "D2").owner, "Genogien");
    assert_eq!(after.fleets[0].cargo, [1], "the army stayed aboard");
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("E2"));
}

/// R-GEN-4: `resolve` runs the steps in the rulebook's order: every event it reports
/// comes in step order, purchases before movement before combat before production.
#[test]
fn r_gen_4_resolve_reports_the_weekend_step_by_step_in_order() {
    use pbemd::game::event::Step;
    use pbemd::game::orders::Order;
    let mut gs = field(&[(3, Veteran)], &[(1, LattInfanteri)]);
    army(
        &mut gs,
        "Fugandri",
        2,
        "B8",
        units(&[(1, LattInfanteri)], false),
    );
    gs.realm_mut("Fugandri").unwrap().stock =
        Resources::from_pairs(&Resource::ALL.map(|r| (r, 50)));
    let o = orders(&[(
        "Fugandri",
        vec![
            Order::BuyWalls {
                count: 1,
                city: sq("B8"),
            },
            mv(Group::Army(2), &["C8"]),
            attack(Group::Army(1), "D3", None, None),
        ],
    )]);
    let res = pbemd::game::weekend::resolve(&gs, &o, &gs.settings, gs.game.seed);
    let steps: Vec<Step> = res.events.iter().map(|e| e.step).collect();
    assert!(
        steps.windows(2).all(|p| p[0] <= p[1]),
        "out of order: {steps:?}"
    );
    for s in [
        Step::Purchases,
        Step::Movement,
        Step::Combat,
        Step::Production,
        Step::WrapUp,
    ] {
        assert!(steps.contains(&s), "{s:?} missing: {steps:?}");
    }
    assert_eq!(res.state.round, gs.round, "the app advances the round");
}
