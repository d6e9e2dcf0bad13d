//! The weekend's magic step (step 2) as a rules case table: each case a small state,
//! the `CAST` lines, scripted casting rolls and what must come out, one test per case,
//! named by rule ID (docs/rules.md cites them).

#[path = "weekend_common/military.rs"]
mod common;

use common::*;
use pbemd::game::dice::Dice;
use pbemd::game::event::{Event, What};
use pbemd::game::orders::{Group, GroupSel, Order, Target};
use pbemd::game::state::{Dimension, Portal, SpellEffect, SpellTarget};
use pbemd::game::weekend::magic::{self, Effect, MagicEvent, Why};
use pbemd::game::weekend::military::{MilitaryEvent, MoveStop};
use pbemd::game::weekend::{economy, military, resolve, Orders, Weekend};
use pbemd::game::{GameState, Lang, Resource, Resources, ShipKind, Spell, UnitKind};

use UnitKind::{LattInfanteri, TungtInfanteri};

fn cast(spell: Spell, target: Target) -> Order {
    Order::Cast { spell, target }
}

fn on(realm: &str) -> Target {
    Target::Realm(realm.to_string())
}

fn army_at(s: &str) -> Target {
    Target::Army(GroupSel::At(sq(s)))
}

/// `realm` with Besvärjare `conjurer` and 50 of every crystal and ordinary resource.
fn mage(gs: &mut GameState, realm: &str, conjurer: u32) {
    let r = gs.realm_mut(realm).expect("realm");
    r.positions.besvarjare = conjurer;
    r.stock = Resources::from_pairs(&Resource::ALL.map(|x| (x, 50)));
}

/// Step 2 alone, with scripted casting rolls.
fn magic_with(
    gs: &GameState,
    forms: &[(&str, Vec<Order>)],
    rolls: &[u32],
) -> (GameState, Vec<Event>) {
    let orders = orders(forms);
    let mut w = Weekend::new(gs, &orders, &gs.settings, gs.game.seed);
    magic::run_with(&mut w, Dice::scripted("test", rolls));
    (w.state, w.events)
}

fn spells(events: &[Event]) -> Vec<&MagicEvent> {
    events.iter().filter_map(|e| e.what.magic()).collect()
}

/// The caster's `Cast` events: (success, effect).
fn casts(events: &[Event]) -> Vec<(Spell, bool, Option<Effect>)> {
    spells(events)
        .into_iter()
        .filter_map(|m| match m {
            MagicEvent::Cast {
                spell,
                success,
                effect,
                ..
            } => Some((*spell, *success, effect.clone())),
            _ => None,
        })
        .collect()
}

fn refused(events: &[Event]) -> Vec<Why> {
    spells(events)
        .into_iter()
        .filter_map(|m| match m {
            MagicEvent::Refused { why, .. } => Some(why.clone()),
            _ => None,
        })
        .collect()
}

fn stock(gs: &GameState, realm: &str, r: Resource) -> u32 {
    gs.realm(realm).expect("realm").stock.get(r)
}

fn famine_by_fugandri(conjurer: u32, rolls: &[u32]) -> (GameState, Vec<Event>) {
    let mut gs = game();
    mage(&mut gs, "Fugandri", conjurer);
    magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Svalt, on("Genogien"))])],
        rolls,
    )
}

// ------------------------------------------------------------ casting (R-SPELL-3/4)

#[test]
fn r_spell_3_conjurer_plus_roll_over_ten_succeeds() {
    let (_, ev) = famine_by_fugandri(5, &[6]);
    assert!(casts(&ev)[0].1, "5 + 6 = 11 > 10");
}

#[test]
fn r_spell_3_conjurer_plus_roll_of_exactly_ten_fails() {
    let (gs, ev) = famine_by_fugandri(5, &[5]);
    assert_eq!(casts(&ev)[0], (Spell::Svalt, false, None));
    assert!(gs.effects.is_empty(), "a failed spell leaves no effect");
}

#[test]
fn r_spell_3_natural_one_fails() {
    let (_, ev) = famine_by_fugandri(10, &[1]);
    assert!(!casts(&ev)[0].1, "10 + 1 = 11, but a natural 1 fails");
}

#[test]
fn rulings_17_a_failed_cast_is_still_paid() {
    let (gs, _) = famine_by_fugandri(5, &[2]);
    assert_eq!(
        stock(&gs, "Fugandri", Resource::Vatten),
        48,
        "Famine costs 2 water"
    );
}

#[test]
fn rulings_17_setting_off_a_failed_cast_costs_nothing() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    gs.settings.spells.failed_cast_pays = false;
    let (gs, _) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Svalt, on("Genogien"))])],
        &[2],
    );
    assert_eq!(stock(&gs, "Fugandri", Resource::Vatten), 50);
}

#[test]
fn r_spell_3_a_cast_the_stock_cannot_pay_is_refused_and_not_rolled() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    gs.realm_mut("Fugandri")
        .unwrap()
        .stock
        .set(Resource::Vatten, 1);
    let (gs, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Svalt, on("Genogien"))])],
        &[6],
    );
    assert!(matches!(refused(&ev)[..], [Why::Short { .. }]));
    assert!(casts(&ev).is_empty());
    assert_eq!(stock(&gs, "Fugandri", Resource::Vatten), 1);
}

#[test]
fn r_spell_4_second_cast_of_a_spell_is_refused() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    let lines = vec![
        cast(Spell::Svalt, on("Genogien")),
        cast(Spell::Svalt, on("Kaldor")),
    ];
    let (gs, ev) = magic_with(&gs, &[("Fugandri", lines)], &[6, 6]);
    assert_eq!(refused(&ev), vec![Why::AlreadyCast]);
    assert_eq!(casts(&ev).len(), 1);
    assert_eq!(stock(&gs, "Fugandri", Resource::Vatten), 48, "paid once");
}

#[test]
fn rulings_18_a_weekday_reveal_uses_the_rounds_reveal() {
    let mut gs = game();
    mage(&mut gs, "Mirandel", 5);
    gs.courier.round = ROUND;
    gs.courier.reveals.push("Mirandel".into());
    let (_, ev) = magic_with(
        &gs,
        &[("Mirandel", vec![cast(Spell::Avsloja, Target::None)])],
        &[6],
    );
    assert_eq!(refused(&ev), vec![Why::RevealUsed]);
}

// ---------------------------------------------------- production (bans and boosts)

#[test]
fn r_spell_13_famine_bans_the_targets_food_in_step_6() {
    let (gs, ev) = famine_by_fugandri(5, &[6]);
    assert_eq!(
        casts(&ev)[0].2,
        Some(Effect::Banned {
            realm: "Genogien".into(),
            resource: Resource::Mat
        })
    );
    let before = stock(&gs, "Genogien", Resource::Mat);
    let iron = stock(&gs, "Genogien", Resource::Jarn);
    let orders = orders(&[]);
    let mut w = Weekend::new(&gs, &orders, &gs.settings, 1);
    economy::production(&mut w);
    assert_eq!(
        stock(&w.state, "Genogien", Resource::Mat),
        before,
        "no food this weekend"
    );
    assert!(
        stock(&w.state, "Genogien", Resource::Jarn) > iron,
        "iron still comes"
    );
}

#[test]
fn r_spell_6_harvest_adds_conjurer_food_in_step_6_not_on_this_form() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 7);
    let (gs, _) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Skord, Target::None)])],
        &[6],
    );
    assert_eq!(
        stock(&gs, "Fugandri", Resource::Mat),
        50,
        "not in stock during steps 1–2"
    );
    let made: u32 = gs
        .cities
        .iter()
        .filter(|c| c.owner == "Fugandri")
        .map(|c| c.production.get(Resource::Mat))
        .sum();
    let orders = orders(&[]);
    let mut w = Weekend::new(&gs, &orders, &gs.settings, 1);
    economy::production(&mut w);
    assert_eq!(stock(&w.state, "Fugandri", Resource::Mat), 50 + made + 7);
}

// ------------------------------------------------------------- movement (step 3)

#[test]
fn r_spell_13_whirlwind_gives_one_more_step() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    army(
        &mut gs,
        "Fugandri",
        1,
        "D7",
        units(&[(1, LattInfanteri)], false),
    );
    let forms = [(
        "Fugandri",
        vec![
            cast(Spell::Virvelvind, Target::Army(GroupSel::Id(1))),
            mv(Group::Army(1), &["E7", "E8"]),
        ],
    )];
    let (gs2, _) = magic_with(&gs, &forms, &[6]);
    let o = orders(&forms);
    let mut w = Weekend::new(&gs2, &o, &gs2.settings, 1);
    military::movement(&mut w);
    assert_eq!(
        group_of(&w.state, "Fugandri", 1).unwrap().square,
        sq("E8"),
        "1 + 1 steps"
    );
    let (gs3, _) = magic_with(&gs, &forms, &[2]);
    let mut w = Weekend::new(&gs3, &o, &gs3.settings, 1);
    military::movement(&mut w);
    assert_eq!(
        group_of(&w.state, "Fugandri", 1).unwrap().square,
        sq("E7"),
        "failed: 1 step"
    );
}

/// Fugandri's army 1 (`list`) on E7 and a form that casts Waterway on it and moves it
/// onto F7, the sea (one step: the army's one movement point): the state before step 2,
/// the state after a successful cast, and the orders.
fn waterway_onto_f7(list: &[(u32, UnitKind)]) -> (GameState, GameState, Orders) {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    army(&mut gs, "Fugandri", 1, "E7", units(list, false));
    let forms = [(
        "Fugandri",
        vec![
            cast(Spell::Vattenvag, Target::Army(GroupSel::Id(1))),
            mv(Group::Army(1), &["F7"]),
        ],
    )];
    let (cast_on, _) = magic_with(&gs, &forms, &[6]);
    (gs, cast_on, orders(&forms))
}

#[test]
fn r_spell_1_waterway_lets_an_army_cross_water_this_weekend() {
    let (gs, gs2, o) = waterway_onto_f7(&[(1, LattInfanteri)]);
    let mut w = Weekend::new(&gs2, &o, &gs2.settings, 1);
    military::movement(&mut w);
    assert_eq!(group_of(&w.state, "Fugandri", 1).unwrap().square, sq("F7"));
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    military::movement(&mut w);
    assert_eq!(
        group_of(&w.state, "Fugandri", 1).unwrap().square,
        sq("E7"),
        "no spell: blocked"
    );
}

/// As `waterway_onto_f7`, the army stopping on F7; then the weekend ends.
fn left_on_the_water_by_waterway(list: &[(u32, UnitKind)]) -> (GameState, Vec<Event>) {
    let (_, gs2, o) = waterway_onto_f7(list);
    let mut w = Weekend::new(&gs2, &o, &gs2.settings, 1);
    military::movement(&mut w);
    assert_eq!(group_of(&w.state, "Fugandri", 1).unwrap().square, sq("F7"));
    military::water::waterway_lapses(&mut w);
    (w.state, w.events)
}

#[test]
fn r_unit_4_an_army_waterway_left_on_the_water_drowns_when_the_weekend_ends() {
    let (after, events) = left_on_the_water_by_waterway(&[(2, LattInfanteri)]);
    assert!(group_of(&after, "Fugandri", 1).is_none(), "drowned");
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::Drowned {
            army: 1,
            units: 2,
            ..
        }
    )));
}

#[test]
fn r_unit_4_an_army_on_the_water_with_a_water_elemental_outlasts_waterway() {
    let (after, events) =
        left_on_the_water_by_waterway(&[(1, LattInfanteri), (1, UnitKind::Vattenelementar)]);
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("F7"));
    assert!(!military(&events)
        .iter()
        .any(|m| matches!(m, MilitaryEvent::Drowned { .. })));
}

#[test]
fn rulings_22_teleport_moves_the_army_before_movement() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    army(
        &mut gs,
        "Fugandri",
        1,
        "C8",
        units(&[(2, LattInfanteri)], false),
    );
    let to = Target::ArmyTo {
        army: GroupSel::Id(1),
        to: sq("E4"),
    };
    let (gs, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Teleportera, to)])],
        &[6],
    );
    assert_eq!(group_of(&gs, "Fugandri", 1).unwrap().square, sq("E4"));
    assert!(matches!(
        &casts(&ev)[0].2,
        Some(Effect::Teleported { enemy: None, .. })
    ));
}

#[test]
fn rulings_22_teleport_onto_enemies_means_combat_in_step_4() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    army(
        &mut gs,
        "Fugandri",
        1,
        "C8",
        units(&[(2, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "E4",
        units(&[(1, LattInfanteri)], false),
    );
    let to = Target::ArmyTo {
        army: GroupSel::Id(1),
        to: sq("E4"),
    };
    let (_, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Teleportera, to)])],
        &[6],
    );
    assert!(military(&ev).iter().any(|m| matches!(
        m,
        MilitaryEvent::Moved { stop: Some(MoveStop::Enemy { realm }), .. } if realm == "Genogien"
    )));
}

// --------------------------------------------------------------- combat (step 4)

/// Fugandri's army 1 on C3 attacks Genogien's army 1 on D3, after `lines` of magic.
fn battle_after(lines: Vec<(&str, Vec<Order>)>, rolls: &[u32]) -> (GameState, Vec<Event>) {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    mage(&mut gs, "Genogien", 4);
    army(
        &mut gs,
        "Fugandri",
        1,
        "C3",
        units(&[(5, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(5, TungtInfanteri)], false),
    );
    let mut forms = lines;
    let atk = attack(Group::Army(1), "D3", None, None);
    match forms.iter_mut().find(|f| f.0 == "Fugandri") {
        Some(f) => f.1.push(atk),
        None => forms.push(("Fugandri", vec![atk])),
    }
    let o = orders(&forms);
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    magic::run_with(&mut w, Dice::scripted("test", rolls));
    military::combat_with(&mut w, Dice::scripted("fight", &[10; 200]));
    (w.state, w.events)
}

fn first_battle(ev: &[Event]) -> Option<&pbemd::game::weekend::military::BattleReport> {
    military(ev).into_iter().find_map(|m| match m {
        MilitaryEvent::Battle(b) => Some(&**b),
        _ => None,
    })
}

#[test]
fn r_spell_13_attack_adds_conjurer_to_the_attackers_side() {
    let lines = vec![(
        "Fugandri",
        vec![cast(Spell::Anfall, Target::Army(GroupSel::Id(1)))],
    )];
    let (_, ev) = battle_after(lines, &[6]);
    assert_eq!(first_battle(&ev).unwrap().battle.attacker_bonus, 5);
}

#[test]
fn r_spell_13_defence_adds_conjurer_to_the_defenders_side() {
    let lines = vec![(
        "Genogien",
        vec![cast(Spell::Forsvar, Target::Army(GroupSel::Id(1)))],
    )];
    let (_, ev) = battle_after(lines, &[7]);
    assert_eq!(first_battle(&ev).unwrap().battle.defender_bonus, 4);
}

#[test]
fn rulings_22_swamp_stops_army_attacks_in_the_realm() {
    let lines = vec![
        ("Mirandel", vec![cast(Spell::Trask, on("Genogien"))]),
        ("Fugandri", vec![]),
    ];
    let (_, ev) = battle_after_with_mirandel(lines.clone(), &[2]);
    assert!(
        first_battle(&ev).is_some(),
        "the spell failed: the battle is fought"
    );
    let (_, ev) = battle_after_with_mirandel(lines, &[6]);
    assert!(first_battle(&ev).is_none(), "no battle");
    assert!(spells(&ev).iter().any(|m| matches!(
        m,
        MagicEvent::AttackStopped {
            spell: Spell::Trask,
            ..
        }
    )));
}

fn battle_after_with_mirandel(
    lines: Vec<(&str, Vec<Order>)>,
    rolls: &[u32],
) -> (GameState, Vec<Event>) {
    let mut gs = game();
    mage(&mut gs, "Mirandel", 5);
    mage(&mut gs, "Fugandri", 5);
    army(
        &mut gs,
        "Fugandri",
        1,
        "C3",
        units(&[(5, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(5, TungtInfanteri)], false),
    );
    let mut forms = lines;
    if let Some(f) = forms.iter_mut().find(|f| f.0 == "Fugandri") {
        f.1.push(attack(Group::Army(1), "D3", None, None));
    }
    let o = orders(&forms);
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    magic::run_with(&mut w, Dice::scripted("test", rolls));
    military::combat_with(&mut w, Dice::scripted("fight", &[10; 200]));
    (w.state, w.events)
}

/// Mirandel casts Storm on Genogien (casting roll `roll`) while Fugandri's fleet at
/// `from` attacks Genogien's at `at`, both two light warships: the weekend's events.
fn storm_over_a_fleet_attack(mut gs: GameState, at: &str, from: &str, roll: u32) -> Vec<Event> {
    mage(&mut gs, "Mirandel", 5);
    let two_light = || ships(&[(2, ShipKind::LattKrigsskepp)], false);
    fleet(&mut gs, "Genogien", 1, at, two_light(), &[]);
    fleet(&mut gs, "Fugandri", 1, from, two_light(), &[]);
    let forms = [
        ("Mirandel", vec![cast(Spell::Storm, on("Genogien"))]),
        ("Fugandri", vec![attack(Group::Fleet(1), at, None, None)]),
    ];
    let o = orders(&forms);
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    magic::run_with(&mut w, Dice::scripted("test", &[roll]));
    military::combat_with(&mut w, Dice::scripted("fight", &[10; 200]));
    w.events
}

/// No battle was fought, and Storm is told as what stopped it.
fn stopped_by_storm(events: &[Event]) -> bool {
    first_battle(events).is_none()
        && spells(events).iter().any(|m| {
            matches!(
                m,
                MagicEvent::AttackStopped {
                    spell: Spell::Storm,
                    ..
                }
            )
        })
}

#[test]
fn rulings_22_storm_stops_ship_attacks_next_to_the_realm() {
    let failed = storm_over_a_fleet_attack(game(), "E2", "F2", 2);
    assert!(
        first_battle(&failed).is_some(),
        "the spell failed: the ships fight"
    );
    assert!(stopped_by_storm(&storm_over_a_fleet_attack(
        game(),
        "E2",
        "F2",
        6
    )));
}

#[test]
fn rulings_22_with_adjacency_8_storm_covers_a_sea_square_at_a_corner_of_the_land() {
    let mut gs = game();
    gs.settings.adjacency = 8;
    // E1 is sea touching Genogien's D2 only at a corner.
    assert!(stopped_by_storm(&storm_over_a_fleet_attack(
        gs, "E1", "F1", 6
    )));
}

/// Genogien casts Mountain Wall on its city D2 (the casting roll 6 works) and
/// Fugandri's army 1 attacks D2: the state and events after steps 2 and 4.
fn walled_d2_attacked(gs: &GameState) -> (GameState, Vec<Event>) {
    let forms = [
        (
            "Genogien",
            vec![cast(Spell::Bergvagg, Target::City(sq("D2")))],
        ),
        ("Fugandri", vec![attack(Group::Army(1), "D2", None, None)]),
    ];
    let o = orders(&forms);
    let mut w = Weekend::new(gs, &o, &gs.settings, 1);
    magic::run_with(&mut w, Dice::scripted("test", &[6]));
    military::combat_with(&mut w, Dice::scripted("fight", &[10; 200]));
    (w.state, w.events)
}

#[test]
fn r_spell_13_mountain_wall_is_one_more_wall_for_the_weekend_only() {
    let mut gs = game();
    mage(&mut gs, "Genogien", 5);
    army(
        &mut gs,
        "Fugandri",
        1,
        "D3",
        units(&[(5, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "D2",
        units(&[(1, LattInfanteri)], false),
    );
    let walls = city(&mut gs, "D2").walls;
    let (after, events) = walled_d2_attacked(&gs);
    assert_eq!(
        first_battle(&events).unwrap().battle.walls,
        u64::from(walls) + 1
    );
    let after = after
        .cities
        .iter()
        .find(|c| c.square == sq("D2"))
        .unwrap()
        .walls;
    assert!(after <= walls, "the spell's wall is gone after the weekend");
}

/// Rulings 36 with Rulings 34: a siege tower that brings Mountain Wall's wall down
/// brings it down for the weekend; the 2nd attacker meets the city as the 1st left it,
/// without the spell's wall.
#[test]
fn rulings_36_a_mountain_wall_a_tower_brought_down_stays_down_for_the_next_battle() {
    use pbemd::game::orders::{Outcome, Wave};
    let mut gs = game();
    mage(&mut gs, "Genogien", 5);
    army(
        &mut gs,
        "Fugandri",
        1,
        "D3",
        units(&[(1, UnitKind::Belagringstorn), (1, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Fugandri",
        2,
        "E2",
        units(&[(1, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "D2",
        units(&[(3, TungtInfanteri)], false),
    );
    let walls = u64::from(city(&mut gs, "D2").walls);
    let forms = [
        (
            "Genogien",
            vec![cast(Spell::Bergvagg, Target::City(sq("D2")))],
        ),
        (
            "Fugandri",
            vec![
                attack(
                    Group::Army(1),
                    "D2",
                    Some(Outcome::Takeover),
                    Some(Wave::First),
                ),
                attack(
                    Group::Army(2),
                    "D2",
                    Some(Outcome::Takeover),
                    Some(Wave::Second),
                ),
            ],
        ),
    ];
    let o = orders(&forms);
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    magic::run_with(&mut w, Dice::scripted("test", &[6]));
    // The attacker rolls 1, the defender 20: the 1st falls in its first round.
    let rolls: Vec<u32> = [1, 20].repeat(50);
    military::combat_with(&mut w, Dice::scripted("fight", &rolls));
    let battles: Vec<_> = military(&w.events)
        .into_iter()
        .filter_map(|m| match m {
            MilitaryEvent::Battle(b) => Some(&**b),
            _ => None,
        })
        .collect();
    assert_eq!(battles.len(), 2, "the 1st fell, so the 2nd attacked");
    assert_eq!(
        battles[0].battle.walls,
        walls + 1,
        "the city's walls and the spell's"
    );
    assert_eq!(
        battles[0].result.pre_battle.walls_removed, 1,
        "the tower took one"
    );
    assert_eq!(
        battles[1].battle.walls, walls,
        "the spell's wall stayed down for the 2nd attacker"
    );
}

// ------------------------------------------------------- kills (R-SPELL-10) and more

#[test]
fn r_spell_10_fireball_kills_the_last_unit_on_the_named_square() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(1, LattInfanteri), (1, TungtInfanteri)], false),
    );
    let (gs, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Eldklot, army_at("D3"))])],
        &[6],
    );
    assert_eq!(
        kinds(group_of(&gs, "Genogien", 1).unwrap()),
        vec![LattInfanteri]
    );
    assert!(spells(&ev).iter().any(|m| matches!(
        m,
        MagicEvent::Suffered { realm, spell: Spell::Eldklot, .. } if realm == "Genogien"
    )));
}

/// R-EVIL-10 with Rulings 56: a slain higher demon turns into two lower demons whatever
/// slays it — a Fireball on the Evil's army too.
#[test]
fn r_evil_10_a_higher_demon_a_fireball_slays_stands_on_as_two_lower_demons() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(1, LattInfanteri), (1, UnitKind::HogreDemon)], false),
    );
    let (gs, _) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Eldklot, army_at("D3"))])],
        &[6],
    );
    assert_eq!(
        kinds(group_of(&gs, "Genogien", 1).unwrap()),
        vec![LattInfanteri, UnitKind::LagreDemon, UnitKind::LagreDemon]
    );
}

/// R-EVIL-10 with Rulings 20 and 56: Armageddon's losses from the tail split a higher
/// demon as a battle's do (the demon is one loss, two lower demons stand in its place,
/// the next loss takes one of them).
#[test]
fn r_evil_10_armageddon_splits_a_higher_demon_as_a_battle_does() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    gs.realm_mut("Fugandri").unwrap().stock = Resources::each_crystal(20);
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(2, LattInfanteri), (1, UnitKind::HogreDemon)], false),
    );
    let (gs, _) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Armageddon, Target::None)])],
        &[6],
    );
    assert_eq!(
        kinds(group_of(&gs, "Genogien", 1).unwrap()),
        vec![LattInfanteri, LattInfanteri, UnitKind::LagreDemon]
    );
}

#[test]
fn r_spell_10_whirlpool_sinks_the_last_ship_and_an_empty_fleet_drowns_its_cargo() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    fleet(
        &mut gs,
        "Genogien",
        1,
        "E2",
        ships(&[(1, ShipKind::Transportskepp)], false),
        &[2],
    );
    army(
        &mut gs,
        "Genogien",
        2,
        "E2",
        units(&[(3, LattInfanteri)], false),
    );
    let target = Target::Fleet(GroupSel::At(sq("E2")));
    let (gs, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Virvelstrom, target)])],
        &[6],
    );
    assert!(gs.fleets.iter().all(|f| f.owner != "Genogien"));
    assert!(group_of(&gs, "Genogien", 2).is_none());
    assert!(matches!(
        &casts(&ev)[0].2,
        Some(Effect::Killed {
            drowned: 3,
            afloat: false,
            ..
        })
    ));
}

/// `realm`'s fleet 1 of `transports` transports on `square`, carrying army groups of
/// light infantry, given as (number, units).
fn transports_carrying(
    gs: &mut GameState,
    (realm, square): (&str, &str),
    transports: u32,
    armies: &[(u32, u32)],
) {
    let ids: Vec<u32> = armies.iter().map(|&(id, _)| id).collect();
    let line = ships(&[(transports, ShipKind::Transportskepp)], false);
    fleet(gs, realm, 1, square, line, &ids);
    for &(id, n) in armies {
        army(gs, realm, id, square, units(&[(n, LattInfanteri)], false));
    }
}

#[test]
fn r_spell_10_whirlpool_drowns_the_cargo_the_ships_left_cannot_carry() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    // Two transports (room for 10) carry 3 + 4 light infantry.
    transports_carrying(&mut gs, ("Genogien", "E2"), 2, &[(2, 3), (3, 4)]);
    let target = Target::Fleet(GroupSel::At(sq("E2")));
    let (gs, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Virvelstrom, target)])],
        &[6],
    );
    let f = gs.fleets.iter().find(|f| f.owner == "Genogien").unwrap();
    assert_eq!(f.ships.len(), 1, "one transport left: room for 5");
    assert_eq!(group_of(&gs, "Genogien", 2).unwrap().units.len(), 3);
    assert_eq!(
        group_of(&gs, "Genogien", 3).unwrap().units.len(),
        2,
        "the 2 over the room drown from the tail of the last army aboard"
    );
    assert!(matches!(
        &casts(&ev)[0].2,
        Some(Effect::Killed {
            drowned: 2,
            afloat: true,
            ..
        })
    ));
}

#[test]
fn rulings_22_plague_takes_ten_population_never_below_zero() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    mage(&mut gs, "Kaldor", 5);
    city(&mut gs, "C4").population = 40;
    city(&mut gs, "J2").population = 4;
    let forms = [
        ("Fugandri", vec![cast(Spell::Pest, Target::City(sq("C4")))]),
        ("Kaldor", vec![cast(Spell::Pest, Target::City(sq("J2")))]),
    ];
    let (mut gs, _) = magic_with(&gs, &forms, &[6, 6]);
    assert_eq!(city(&mut gs, "C4").population, 30);
    assert_eq!(city(&mut gs, "J2").population, 0);
}

#[test]
fn r_spell_2_shield_and_isolation_last_until_the_next_weekend() {
    let mut gs = game();
    mage(&mut gs, "Afani", 5);
    mage(&mut gs, "Kaldor", 5);
    let forms = [
        ("Afani", vec![cast(Spell::Skold, on("Afani"))]),
        ("Kaldor", vec![cast(Spell::Isolering, on("Mirandel"))]),
    ];
    let (mut gs, _) = magic_with(&gs, &forms, &[6, 6]);
    gs.round = ROUND + 1;
    assert!(pbemd::courier::active_on(&gs, Spell::Skold, "Afani").is_some());
    assert!(pbemd::courier::active_on(&gs, Spell::Isolering, "Mirandel").is_some());
    gs.round = ROUND + 2;
    assert!(pbemd::courier::active_on(&gs, Spell::Skold, "Afani").is_none());
}

#[test]
fn rulings_20_armageddon_halves_every_group_rounding_the_loss_up_in_both_dimensions() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    gs.realm_mut("Fugandri").unwrap().stock = Resources::each_crystal(20);
    army(
        &mut gs,
        "Fugandri",
        1,
        "C8",
        units(&[(3, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(1, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Kaldor",
        1,
        "J8",
        units(&[(4, LattInfanteri)], false),
    );
    gs.armies.last_mut().unwrap().dimension = Dimension::Evil;
    fleet(
        &mut gs,
        "Afani",
        1,
        "L2",
        ships(&[(2, ShipKind::LattKrigsskepp)], false),
        &[],
    );
    let (gs, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Armageddon, Target::None)])],
        &[6],
    );
    assert_eq!(
        group_of(&gs, "Fugandri", 1).unwrap().units.len(),
        1,
        "3 lose 2"
    );
    assert!(group_of(&gs, "Genogien", 1).is_none(), "1 loses 1");
    assert_eq!(
        group_of(&gs, "Kaldor", 1).unwrap().units.len(),
        2,
        "the Evil dimension too"
    );
    assert_eq!(gs.fleets[0].ships.len(), 1, "fleets too");
    assert_eq!(
        casts(&ev)[0].2,
        Some(Effect::Armageddon { units: 5, ships: 1 })
    );
}

#[test]
fn rulings_22_embezzlement_keeps_half_of_each_resource_rounded_up() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    gs.realm_mut("Genogien").unwrap().stock =
        Resources::from_pairs(&[(Resource::Mat, 7), (Resource::Eld, 3)]);
    let (gs, _) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Forskingring, on("Genogien"))])],
        &[6],
    );
    assert_eq!(stock(&gs, "Genogien", Resource::Mat), 4);
    assert_eq!(stock(&gs, "Genogien", Resource::Eld), 2);
}

#[test]
fn r_spell_13_maelstrom_empties_the_crystal_stock() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    gs.realm_mut("Genogien").unwrap().stock =
        Resources::from_pairs(&[(Resource::Mat, 7), (Resource::Eld, 3), (Resource::Luft, 9)]);
    let (gs, _) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Malstrom, on("Genogien"))])],
        &[6],
    );
    assert_eq!(stock(&gs, "Genogien", Resource::Mat), 7);
    assert_eq!(stock(&gs, "Genogien", Resource::Eld), 0);
    assert_eq!(stock(&gs, "Genogien", Resource::Luft), 0);
}

#[test]
fn r_spell_5_reveal_at_the_weekend_names_the_latest_caster_on_you() {
    let mut gs = game();
    mage(&mut gs, "Kaldor", 5);
    mage(&mut gs, "Mirandel", 5);
    gs.effects.push(SpellEffect {
        spell: Spell::Svalt,
        caster: "Afani".into(),
        target: SpellTarget::Realm("Mirandel".into()),
        cast_round: ROUND - 1,
        expires_round: ROUND,
    });
    army(
        &mut gs,
        "Mirandel",
        1,
        "D11",
        units(&[(2, LattInfanteri)], false),
    );
    let forms = [
        ("Kaldor", vec![cast(Spell::Eldklot, army_at("D11"))]),
        ("Mirandel", vec![cast(Spell::Avsloja, Target::None)]),
    ];
    let (_, ev) = magic_with(&gs, &forms, &[6, 6]);
    assert_eq!(
        casts(&ev)[1].2,
        Some(Effect::Revealed {
            found: Some((Spell::Eldklot, "Kaldor".into()))
        })
    );
}

#[test]
fn r_spell_5_reveal_naming_a_spell_on_the_form_finds_that_spell_not_the_latest() {
    let mut gs = game();
    mage(&mut gs, "Kaldor", 5);
    mage(&mut gs, "Mirandel", 5);
    gs.effects.push(SpellEffect {
        spell: Spell::Svalt,
        caster: "Afani".into(),
        target: SpellTarget::Realm("Mirandel".into()),
        cast_round: ROUND - 1,
        expires_round: ROUND,
    });
    army(
        &mut gs,
        "Mirandel",
        1,
        "D11",
        units(&[(2, LattInfanteri)], false),
    );
    let forms = [
        ("Kaldor", vec![cast(Spell::Eldklot, army_at("D11"))]),
        (
            "Mirandel",
            vec![cast(Spell::Avsloja, Target::Spell(Spell::Svalt))],
        ),
    ];
    let (_, ev) = magic_with(&gs, &forms, &[6, 6]);
    assert_eq!(
        casts(&ev)[1].2,
        Some(Effect::Revealed {
            found: Some((Spell::Svalt, "Afani".into()))
        })
    );
}

#[test]
fn r_spell_5_reveal_naming_a_spell_nobody_cast_on_you_finds_nothing() {
    let mut gs = game();
    mage(&mut gs, "Kaldor", 5);
    mage(&mut gs, "Mirandel", 5);
    army(
        &mut gs,
        "Mirandel",
        1,
        "D11",
        units(&[(2, LattInfanteri)], false),
    );
    let forms = [
        ("Kaldor", vec![cast(Spell::Eldklot, army_at("D11"))]),
        (
            "Mirandel",
            vec![cast(Spell::Avsloja, Target::Spell(Spell::Pest))],
        ),
    ];
    let (_, ev) = magic_with(&gs, &forms, &[6, 6]);
    assert_eq!(casts(&ev)[1].2, Some(Effect::Revealed { found: None }));
}

// ------------------------------------------------------------- Antimagic (R-SPELL-12)

#[test]
fn r_spell_12_antimagic_blocks_a_foreign_fireball() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    mage(&mut gs, "Genogien", 5);
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(2, LattInfanteri)], false),
    );
    let forms = [
        ("Fugandri", vec![cast(Spell::Eldklot, army_at("D3"))]),
        ("Genogien", vec![cast(Spell::Antimagi, on("Genogien"))]),
    ];
    let (gs, ev) = magic_with(&gs, &forms, &[6, 6]);
    assert_eq!(group_of(&gs, "Genogien", 1).unwrap().units.len(), 2);
    let fireball = casts(&ev)
        .into_iter()
        .find(|c| c.0 == Spell::Eldklot)
        .unwrap();
    assert_eq!(
        fireball.2,
        Some(Effect::Blocked {
            realm: "Genogien".into()
        })
    );
}

#[test]
fn rulings_21_antimagic_lets_the_protected_realms_own_spells_through() {
    let mut gs = game();
    mage(&mut gs, "Genogien", 5);
    let forms = [(
        "Genogien",
        vec![
            cast(Spell::Antimagi, on("Genogien")),
            cast(Spell::Skord, Target::None),
        ],
    )];
    let (_, ev) = magic_with(&gs, &forms, &[6, 6]);
    assert!(matches!(
        casts(&ev)[1],
        (Spell::Skord, true, Some(Effect::Boosted { .. }))
    ));
}

#[test]
fn r_spell_12_antimagic_on_a_group_only_outside_the_casters_land() {
    let mut gs = game();
    mage(&mut gs, "Genogien", 5);
    army(
        &mut gs,
        "Genogien",
        1,
        "C3",
        units(&[(2, LattInfanteri)], false),
    );
    let t = Target::Army(GroupSel::Id(1));
    let (_, ev) = magic_with(&gs, &[("Genogien", vec![cast(Spell::Antimagi, t)])], &[6]);
    assert_eq!(refused(&ev), vec![Why::AtHome]);
}

// ------------------------------------------------------------------ the Evil (R-EVIL)

fn evil_ostvik(gs: &mut GameState) {
    gs.realm_mut("Ostvik").unwrap().is_evil = true;
}

#[test]
fn r_evil_14_the_evil_casts_only_on_realms_with_a_portal() {
    let mut gs = game();
    evil_ostvik(&mut gs);
    mage(&mut gs, "Ostvik", 5);
    let forms = [("Ostvik", vec![cast(Spell::Svalt, on("Genogien"))])];
    let (_, ev) = magic_with(&gs, &forms, &[6]);
    assert_eq!(
        refused(&ev),
        vec![Why::NoPortal {
            realm: "Genogien".into()
        }]
    );
    gs.map.squares.get_mut(&sq("C3")).unwrap().portal = Some(Box::new(Portal {
        opened_by: "Ostvik".into(),
        opened_round: ROUND - 1,
        closes_after_round: None,
    }));
    let (_, ev) = magic_with(&gs, &forms, &[6]);
    assert!(casts(&ev)[0].1);
}

/// R-EVIL-14: the Evil casts "only on realms where it has first opened a portal": a
/// portal another realm opened in Genogien's land does not let the Evil cast there.
#[test]
fn r_evil_14_a_portal_another_realm_opened_does_not_open_a_realm_to_the_evils_spells() {
    let mut gs = game();
    evil_ostvik(&mut gs);
    mage(&mut gs, "Ostvik", 5);
    let portal = |by: &str| Portal {
        opened_by: by.into(),
        opened_round: ROUND - 1,
        closes_after_round: None,
    };
    gs.map.squares.get_mut(&sq("C3")).unwrap().portal = Some(Box::new(portal("Fugandri")));
    let forms = [("Ostvik", vec![cast(Spell::Svalt, on("Genogien"))])];
    let (_, ev) = magic_with(&gs, &forms, &[6]);
    assert_eq!(
        refused(&ev),
        vec![Why::NoPortal {
            realm: "Genogien".into()
        }]
    );
    gs.map.squares.get_mut(&sq("C3")).unwrap().portal = Some(Box::new(portal("Ostvik")));
    let (_, ev) = magic_with(&gs, &forms, &[6]);
    assert!(casts(&ev)[0].1, "its own portal");
}

#[test]
fn r_evil_14_only_realms_with_a_portal_cast_on_the_evil() {
    let mut gs = game();
    evil_ostvik(&mut gs);
    mage(&mut gs, "Genogien", 5);
    let (_, ev) = magic_with(
        &gs,
        &[("Genogien", vec![cast(Spell::Svalt, on("Ostvik"))])],
        &[6],
    );
    assert_eq!(
        refused(&ev),
        vec![Why::NoPortal {
            realm: "Genogien".into()
        }]
    );
}

#[test]
fn r_evil_15_open_portal_only_from_the_evil_dimension() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    let t = Target::Square(sq("E4"));
    let (_, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::OppnaPortal, t.clone())])],
        &[6],
    );
    assert_eq!(refused(&ev), vec![Why::NotInEvilDimension]);
    army(
        &mut gs,
        "Fugandri",
        1,
        "E4",
        units(&[(1, LattInfanteri)], false),
    );
    gs.armies[0].dimension = Dimension::Evil;
    let (gs, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::OppnaPortal, t)])],
        &[6],
    );
    assert_eq!(casts(&ev)[0].2, Some(Effect::Portal { square: sq("E4") }));
    assert_eq!(
        gs.map
            .get(sq("E4"))
            .unwrap()
            .portal
            .as_ref()
            .unwrap()
            .opened_by,
        "Fugandri"
    );
}

#[test]
fn r_evil_15_never_on_a_city_square() {
    let mut gs = game();
    evil_ostvik(&mut gs);
    mage(&mut gs, "Ostvik", 6);
    let t = Target::Square(sq("C4"));
    let (_, ev) = magic_with(&gs, &[("Ostvik", vec![cast(Spell::OppnaPortal, t)])], &[6]);
    assert_eq!(refused(&ev), vec![Why::CitySquare]);
}

#[test]
fn r_evil_15_the_evils_portals_are_at_most_half_its_conjurer() {
    let mut gs = game();
    evil_ostvik(&mut gs);
    mage(&mut gs, "Ostvik", 3);
    gs.map.squares.get_mut(&sq("D4")).unwrap().portal = Some(Box::new(Portal {
        opened_by: "Ostvik".into(),
        opened_round: ROUND - 1,
        closes_after_round: None,
    }));
    let t = Target::Square(sq("E4"));
    let (_, ev) = magic_with(&gs, &[("Ostvik", vec![cast(Spell::OppnaPortal, t)])], &[9]);
    assert_eq!(refused(&ev), vec![Why::PortalCap { limit: 1 }]);
}

// ------------------------------------------------------------------------ reports

#[test]
fn r_spell_13_the_victim_learns_what_it_suffered_not_who_cast_it() {
    let (gs, ev) = famine_by_fugandri(5, &[6]);
    for lang in [Lang::Sv, Lang::En] {
        let lines = pbemd::render::weekend::report(&ev, &gs, "Genogien", lang);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(!lines[0].contains("Fugandri"), "{}", lines[0]);
        let own = pbemd::render::weekend::report(&ev, &gs, "Fugandri", lang);
        assert!(
            own[0].contains("6 + "),
            "the caster reads its roll: {}",
            own[0]
        );
    }
    let sv = pbemd::render::weekend::report(&ev, &gs, "Genogien", Lang::Sv);
    assert!(
        sv[0].contains("Svält") && sv[0].contains("mat"),
        "{}",
        sv[0]
    );
    let en = pbemd::render::weekend::report(&ev, &gs, "Genogien", Lang::En);
    assert!(en[0].contains("Famine"), "{}", en[0]);
}

#[test]
fn r_spell_1_a_cast_on_the_form_is_rolled_paid_and_reported_by_resolve() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 10);
    let o = orders(&[("Fugandri", vec![cast(Spell::Svalt, on("Genogien"))])]);
    let res = resolve(&gs, &o, &gs.settings, gs.game.seed);
    assert!(res
        .rolls
        .iter()
        .any(|r| r.purpose == "weekend/magic" && r.sides == 10));
    assert_eq!(casts(&res.events).len(), 1);
    let paid = spells(&res.events).into_iter().find_map(|m| match m {
        MagicEvent::Cast { cost, .. } => Some(*cost),
        _ => None,
    });
    assert_eq!(paid, Some(Spell::Svalt.cost()));
    assert_eq!(
        res,
        resolve(&gs, &o, &gs.settings, gs.game.seed),
        "replays bit for bit"
    );
}

#[test]
fn r_spell_11_a_target_gone_by_the_weekend_is_refused_and_not_paid() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    let (gs, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Eldklot, army_at("D3"))])],
        &[6],
    );
    assert_eq!(refused(&ev), vec![Why::NoTarget]);
    assert_eq!(stock(&gs, "Fugandri", Resource::Eld), 50);
}

#[test]
fn rulings_21_setting_antimagic_blocks_the_protected_realms_own_spells_too() {
    let mut gs = game();
    mage(&mut gs, "Genogien", 5);
    gs.settings.spells.antimagic_blocks_own = true;
    let forms = [(
        "Genogien",
        vec![
            cast(Spell::Antimagi, on("Genogien")),
            cast(Spell::Skord, Target::None),
        ],
    )];
    let (_, ev) = magic_with(&gs, &forms, &[6, 6]);
    assert_eq!(
        casts(&ev)[1].2,
        Some(Effect::Blocked {
            realm: "Genogien".into()
        })
    );
}

#[test]
fn rulings_20_setting_armageddon_spares_fleets() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    gs.settings.spells.armageddon_fleets = false;
    fleet(
        &mut gs,
        "Afani",
        1,
        "L2",
        ships(&[(2, ShipKind::LattKrigsskepp)], false),
        &[],
    );
    let (gs, _) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Armageddon, Target::None)])],
        &[6],
    );
    assert_eq!(gs.fleets[0].ships.len(), 2);
}

/// Fugandri (a mage) with army 1, four light infantry, on `from`, and Genogien's army
/// 1, a veteran, on D3 (Genogien's land, no city); Mirandel a mage too.
fn facing_genogien_on_d3(from: &str) -> GameState {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    mage(&mut gs, "Mirandel", 5);
    army(
        &mut gs,
        "Fugandri",
        1,
        from,
        units(&[(4, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(1, UnitKind::Veteran)], false),
    );
    gs
}

/// Fugandri's army 1 (four light infantry) on C8 is teleported onto Genogien's army on
/// D3 (Genogien's land, no city), with `more` on the forms too and battles of at most
/// `rounds` rounds; every cast succeeds and every battle roll is a 10. Steps 2 and 4.
fn teleported_onto_genogien(more: Vec<(&str, Vec<Order>)>, rounds: u32) -> (GameState, Vec<Event>) {
    let mut gs = facing_genogien_on_d3("C8");
    gs.settings.max_battle_rounds = rounds;
    let to = Target::ArmyTo {
        army: GroupSel::Id(1),
        to: sq("D3"),
    };
    let mut forms = vec![("Fugandri", vec![cast(Spell::Teleportera, to)])];
    forms.extend(more);
    let o = orders(&forms);
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    magic::run_with(&mut w, Dice::scripted("test", &[6, 6]));
    military::combat_with(&mut w, Dice::scripted("fight", &[10; 200]));
    (w.state, w.events)
}

#[test]
fn rulings_22_a_teleported_army_on_enemies_fights_in_step_4() {
    let (_, ev) = teleported_onto_genogien(Vec::new(), 50);
    let b = first_battle(&ev).expect("a battle on D3");
    assert_eq!((b.attacker.as_str(), b.square), ("Fugandri", sq("D3")));
}

#[test]
fn rulings_31_an_army_teleported_onto_enemies_goes_back_when_swamp_stops_its_attack() {
    let swamp = ("Mirandel", vec![cast(Spell::Trask, on("Genogien"))]);
    let (after, ev) = teleported_onto_genogien(vec![swamp], 50);
    assert!(first_battle(&ev).is_none(), "no battle under the swamp");
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("C8"));
    assert_eq!(group_of(&after, "Genogien", 1).unwrap().square, sq("D3"));
}

#[test]
fn rulings_31_a_mover_that_met_enemies_goes_back_when_swamp_stops_its_attack() {
    let gs = facing_genogien_on_d3("E3");
    let o = orders(&[
        ("Mirandel", vec![cast(Spell::Trask, on("Genogien"))]),
        (
            "Fugandri",
            vec![Order::Move {
                group: Group::Army(1),
                path: vec![sq("D3")],
            }],
        ),
    ]);
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    magic::run_with(&mut w, Dice::scripted("test", &[6]));
    military::movement(&mut w);
    military::combat_with(&mut w, Dice::scripted("fight", &[10; 200]));
    assert!(military(&w.events).iter().any(|m| matches!(
        m,
        MilitaryEvent::Moved { to, stop: Some(MoveStop::Enemy { .. }), .. } if *to == sq("D3")
    )));
    assert!(
        first_battle(&w.events).is_none(),
        "no battle under the swamp"
    );
    assert_eq!(group_of(&w.state, "Fugandri", 1).unwrap().square, sq("E3"));
}

#[test]
fn rulings_31_an_army_teleported_onto_enemies_goes_back_at_the_round_limit() {
    // One round only, of rolls of 10: neither side is gone after it, so the limit ends
    // the battle with no winner.
    let (after, ev) = teleported_onto_genogien(Vec::new(), 1);
    let b = first_battle(&ev).expect("a battle on D3");
    assert_eq!(b.square, sq("D3"));
    assert!(group_of(&after, "Genogien", 1).is_some(), "no winner");
    assert_eq!(group_of(&after, "Fugandri", 1).unwrap().square, sq("C8"));
}

/// `facing_genogien_on_d3` with Fugandri's army 1 aboard its fleet 1 (one transport:
/// room for five) on C6.
fn aboard_on_c6_facing_genogien() -> GameState {
    let mut gs = facing_genogien_on_d3("C6");
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "C6",
        ships(&[(1, ShipKind::Transportskepp)], false),
        &[1],
    );
    gs
}

/// Fugandri's cast: Teleport its army 1 onto D3.
fn teleport_army_1_to_d3() -> Order {
    let to = Target::ArmyTo {
        army: GroupSel::Id(1),
        to: sq("D3"),
    };
    cast(Spell::Teleportera, to)
}

#[test]
fn rulings_31_an_army_going_back_aboard_a_fleet_that_filled_up_loses_what_it_cannot_carry() {
    // Fugandri's army 1 (four light infantry) is teleported off its fleet on C6 (one
    // transport: room for five) onto Genogien on D3; army 2 (three) boards the fleet in
    // step 3; the swamp stops the attack, and army 1 goes back aboard, where only two
    // of its four fit: the other two drown, from the tail (R-COMBAT-8).
    let mut gs = aboard_on_c6_facing_genogien();
    army(
        &mut gs,
        "Fugandri",
        2,
        "C7",
        units(&[(3, LattInfanteri)], false),
    );
    let o = orders(&[
        (
            "Fugandri",
            vec![teleport_army_1_to_d3(), Order::Embark { army: 2, fleet: 1 }],
        ),
        ("Mirandel", vec![cast(Spell::Trask, on("Genogien"))]),
    ]);
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    magic::run_with(&mut w, Dice::scripted("test", &[6, 6]));
    military::movement(&mut w);
    military::combat_with(&mut w, Dice::scripted("fight", &[10; 200]));
    assert!(
        first_battle(&w.events).is_none(),
        "no battle under the swamp"
    );
    let f = &w.state.fleets[0];
    assert_eq!(f.cargo, vec![2, 1], "army 2 boarded, army 1 came back");
    let one = group_of(&w.state, "Fugandri", 1).expect("army 1 kept two units");
    assert_eq!((one.square, one.units.len()), (sq("C6"), 2));
    assert_eq!(group_of(&w.state, "Fugandri", 2).unwrap().units.len(), 3);
    assert!(military(&w.events).iter().any(|m| matches!(
        m,
        MilitaryEvent::CargoLost {
            fleet: 1,
            units: 2,
            fleet_sunk: false,
            ..
        }
    )));
}

/// Fugandri's army 1 (four light infantry, or what `more` adds) is teleported off its
/// fleet on C6 (one transport) onto Genogien on D3, and Mirandel's swamp stops the
/// attack there, so the army must go back aboard (Rulings 31); but Genogien's three
/// heavy warships on C6 sink the transport first (step 4's naval battles come first).
fn back_to_a_sunk_fleet(more: &[(u32, UnitKind)]) -> (GameState, Vec<Event>) {
    let mut gs = aboard_on_c6_facing_genogien();
    if let Some(a) = gs
        .armies
        .iter_mut()
        .find(|a| a.owner == "Fugandri" && a.id == 1)
    {
        a.units.extend(units(more, false));
    }
    fleet(
        &mut gs,
        "Genogien",
        1,
        "C6",
        ships(&[(3, ShipKind::TungtKrigsskepp)], false),
        &[],
    );
    let o = orders(&[
        ("Fugandri", vec![teleport_army_1_to_d3()]),
        ("Mirandel", vec![cast(Spell::Trask, on("Genogien"))]),
        ("Genogien", vec![attack(Group::Fleet(1), "C6", None, None)]),
    ]);
    let mut w = Weekend::new(&gs, &o, &gs.settings, 1);
    magic::run_with(&mut w, Dice::scripted("test", &[6, 6]));
    military::movement(&mut w);
    military::combat_with(&mut w, Dice::scripted("fight", &[20, 1, 20, 1, 20, 1]));
    (w.state, w.events)
}

#[test]
fn rulings_31_an_army_going_back_to_a_fleet_that_sank_drowns_on_its_water() {
    let (after, ev) = back_to_a_sunk_fleet(&[]);
    assert!(
        after.fleets.iter().all(|f| f.owner != "Fugandri"),
        "the transport sank"
    );
    assert!(
        group_of(&after, "Fugandri", 1).is_none(),
        "no army left beside Genogien on D3"
    );
    assert_eq!(group_of(&after, "Genogien", 1).unwrap().square, sq("D3"));
    assert!(military(&ev).iter().any(|m| matches!(
        m,
        MilitaryEvent::Drowned { army: 1, units: 4, square, .. } if *square == sq("C6")
    )));
}

#[test]
fn rulings_31_an_army_a_water_elemental_carries_goes_back_to_the_water_of_its_sunk_fleet() {
    let (after, ev) = back_to_a_sunk_fleet(&[(1, UnitKind::Vattenelementar)]);
    assert!(after.fleets.iter().all(|f| f.owner != "Fugandri"));
    let one = group_of(&after, "Fugandri", 1).expect("afloat, it lives");
    assert_eq!((one.square, one.units.len()), (sq("C6"), 5));
    assert!(!military(&ev)
        .iter()
        .any(|m| matches!(m, MilitaryEvent::Drowned { .. })));
}

// ------------------------------------------------------------------ hostile casts

mod hostile {
    use super::*;
    use pbemd::game::Square;
    use proptest::prelude::*;

    const REALMS: [&str; 7] = [
        "Genogien", "Afani", "Fugandri", "Kaldor", "Mirandel", "Ostvik", "Nowhere",
    ];

    fn square() -> impl Strategy<Value = Square> {
        (0u16..14, 0u16..14).prop_map(|(c, r)| Square::new(c, r).unwrap_or_else(|| sq("A1")))
    }

    fn sel() -> impl Strategy<Value = GroupSel> {
        prop_oneof![
            (0u32..4).prop_map(GroupSel::Id),
            square().prop_map(GroupSel::At)
        ]
    }

    fn target() -> impl Strategy<Value = Target> {
        prop_oneof![
            Just(Target::None),
            (0usize..7).prop_map(|i| Target::Realm(REALMS[i].to_string())),
            square().prop_map(Target::City),
            sel().prop_map(Target::Army),
            sel().prop_map(Target::Fleet),
            square().prop_map(Target::Square),
            (sel(), square()).prop_map(|(army, to)| Target::ArmyTo { army, to }),
        ]
    }

    fn line() -> impl Strategy<Value = Order> {
        prop_oneof![
            4 => ((0usize..39), target()).prop_map(|(i, t)| cast(Spell::ALL[i], t)),
            1 => ((0u32..4), square()).prop_map(|(g, s)| attack(Group::Army(g), &s.to_string(), None, None)),
            1 => ((0u32..4), proptest::collection::vec(square(), 0..3))
                .prop_map(|(g, p)| Order::Move { group: Group::Army(g), path: p }),
        ]
    }

    /// Mages everywhere, the Evil (Ostvik) with a portal, troops in both dimensions,
    /// a fleet with cargo.
    fn world() -> GameState {
        let mut gs = game();
        for (i, r) in REALMS[..6].iter().enumerate() {
            mage(&mut gs, r, 10);
            let c = gs
                .cities
                .iter()
                .find(|c| c.owner == *r)
                .unwrap()
                .square
                .to_string();
            army(
                &mut gs,
                r,
                1,
                &c,
                units(&[(2, LattInfanteri), (1, TungtInfanteri)], false),
            );
            army(&mut gs, r, 2, &c, units(&[(1, LattInfanteri)], false));
            gs.armies.last_mut().unwrap().dimension = if i % 2 == 0 {
                Dimension::Evil
            } else {
                Dimension::Normal
            };
        }
        gs.realm_mut("Ostvik").unwrap().is_evil = true;
        gs.map.squares.get_mut(&sq("E4")).unwrap().portal = Some(Box::new(Portal {
            opened_by: "Ostvik".into(),
            opened_round: ROUND - 1,
            closes_after_round: None,
        }));
        army(
            &mut gs,
            "Genogien",
            3,
            "E2",
            units(&[(2, LattInfanteri)], false),
        );
        fleet(
            &mut gs,
            "Genogien",
            1,
            "E2",
            ships(&[(1, ShipKind::Transportskepp)], false),
            &[3],
        );
        fleet(
            &mut gs,
            "Afani",
            1,
            "H2",
            ships(&[(2, ShipKind::LattKrigsskepp)], false),
            &[],
        );
        gs
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn r_spell_11_any_casts_resolve_without_a_panic_the_same_twice_into_a_valid_state(
            forms in proptest::collection::vec((0usize..6, proptest::collection::vec(line(), 0..10)), 0..6)
        ) {
            let gs = world();
            let forms: Vec<(&str, Vec<Order>)> = forms.into_iter().map(|(r, o)| (REALMS[r], o)).collect();
            let o = orders(&forms);
            let a = resolve(&gs, &o, &gs.settings, 5);
            let b = resolve(&gs, &o, &gs.settings, 5);
            prop_assert_eq!(&a, &b);
            // The test world lacks the Evil's block; nothing else may go wrong.
            let errors = |g: &GameState| g.validate().err().unwrap_or_default();
            prop_assert_eq!(errors(&a.state), errors(&gs));
            for r in REALMS {
                for lang in [Lang::Sv, Lang::En] {
                    let _ = pbemd::render::weekend::report(&a.events, &a.state, r, lang);
                }
            }
        }
    }
}

#[test]
fn rulings_53_teleport_does_not_move_an_army_in_the_evil_dimension() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    army(
        &mut gs,
        "Fugandri",
        1,
        "C8",
        units(&[(2, LattInfanteri)], false),
    );
    gs.armies.last_mut().unwrap().dimension = Dimension::Evil;
    let to = Target::ArmyTo {
        army: GroupSel::Id(1),
        to: sq("E4"),
    };
    let (gs, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::Teleportera, to)])],
        &[6],
    );
    let a = group_of(&gs, "Fugandri", 1).unwrap();
    assert_eq!((a.square, a.dimension), (sq("C8"), Dimension::Evil));
    assert!(matches!(&casts(&ev)[0].2, Some(Effect::Nothing)));
}

/// R-EVIL-17: Teleport puts the Evil's demons no farther from a portal than they may
/// walk: beyond the leash the spell does nothing; within it, they go.
#[test]
fn r_evil_17_teleport_does_not_put_the_evils_demons_beyond_the_leash() {
    let mut gs = game();
    evil_ostvik(&mut gs);
    gs.evil = Some(pbemd::game::state::EvilInfo {
        realm: "Ostvik".into(),
        leash: 5,
    });
    mage(&mut gs, "Ostvik", 5);
    gs.map.squares.get_mut(&sq("I11")).unwrap().portal = Some(Box::new(Portal {
        opened_by: "Ostvik".into(),
        opened_round: ROUND - 1,
        closes_after_round: None,
    }));
    army(
        &mut gs,
        "Ostvik",
        1,
        "I11",
        units(&[(1, UnitKind::LagreDemon)], false),
    );
    let teleport = |to: &str| {
        let t = Target::ArmyTo {
            army: GroupSel::Id(1),
            to: sq(to),
        };
        [("Ostvik", vec![cast(Spell::Teleportera, t)])]
    };
    let (far, _) = magic_with(&gs, &teleport("D4"), &[6]);
    assert_eq!(group_of(&far, "Ostvik", 1).unwrap().square, sq("I11"));
    let (near, _) = magic_with(&gs, &teleport("H8"), &[6]);
    assert_eq!(group_of(&near, "Ostvik", 1).unwrap().square, sq("H8"));
}

// ---- Rules pinned by their own ID (docs/rules.md) ----------------------------

#[test]
fn r_wall_8_mountain_wall_passes_the_population_cap_and_needs_defenders() {
    let mut gs = game();
    mage(&mut gs, "Genogien", 5);
    let pop = city(&mut gs, "D2").population;
    // Nordhamn already has all the walls its population allows (RULINGS 36).
    city(&mut gs, "D2").walls = pop / 10;
    army(
        &mut gs,
        "Fugandri",
        1,
        "D3",
        units(&[(5, LattInfanteri)], false),
    );
    let forms = |defended: bool| {
        let mut gs = gs.clone();
        if defended {
            army(
                &mut gs,
                "Genogien",
                1,
                "D2",
                units(&[(1, LattInfanteri)], false),
            );
        }
        let (_, events) = walled_d2_attacked(&gs);
        first_battle(&events).unwrap().clone()
    };
    let b = forms(true);
    assert_eq!(b.battle.walls, u64::from(pop / 10) + 1, "one over the cap");
    assert_eq!(
        b.result.rounds[0].defender_value,
        u64::from(LattInfanteri.stats().defence) + 10 * (u64::from(pop / 10) + 1)
    );
    // Without army units in the city no wall counts, the spell's neither.
    let b = forms(false);
    assert!(b.result.undefended_city);
    assert_eq!(b.result.rounds[0].defender_value, u64::from(pop) / 10);
}

#[test]
fn r_spell_9_armageddon_cuts_from_the_tail_sinks_cargo_with_its_fleet_and_spares_antimagic() {
    use UnitKind::Veteran;
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    mage(&mut gs, "Genogien", 5);
    army(
        &mut gs,
        "Kaldor",
        1,
        "I8",
        units(&[(2, Veteran), (2, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Genogien",
        1,
        "C3",
        units(&[(2, LattInfanteri)], false),
    );
    army(
        &mut gs,
        "Afani",
        1,
        "L2",
        units(&[(4, LattInfanteri)], false),
    );
    fleet(
        &mut gs,
        "Afani",
        1,
        "L2",
        ships(&[(1, ShipKind::Transportskepp)], false),
        &[1],
    );
    let forms = [
        ("Fugandri", vec![cast(Spell::Armageddon, Target::None)]),
        ("Genogien", vec![cast(Spell::Antimagi, on("Genogien"))]),
    ];
    let (after, _) = magic_with(&gs, &forms, &[6, 6]);
    assert_eq!(
        kinds(group_of(&after, "Kaldor", 1).unwrap()),
        [Veteran, Veteran],
        "the two at the tail fell"
    );
    assert_eq!(
        group_of(&after, "Genogien", 1).unwrap().units.len(),
        2,
        "Antimagic spares Genogien's army"
    );
    assert!(
        after.fleets.iter().all(|f| f.owner != "Afani"),
        "one ship, half rounded up: sunk"
    );
    assert!(
        group_of(&after, "Afani", 1).is_none(),
        "the army aboard drowned with it"
    );
}

#[test]
fn r_unit_4_armageddon_that_kills_the_water_elemental_at_sea_drowns_the_army() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    // Kaldor's army at sea on C6: two light cavalry carried by a water elemental at the
    // tail, where Armageddon's halving cuts first.
    let troops = [(2, UnitKind::LattKavalleri), (1, UnitKind::Vattenelementar)];
    army(&mut gs, "Kaldor", 1, "C6", units(&troops, false));
    let forms = [("Fugandri", vec![cast(Spell::Armageddon, Target::None)])];
    let o = orders(&forms);
    // The whole weekend, with a seed whose casting roll succeeds.
    let res = (0..200u64)
        .map(|seed| resolve(&gs, &o, &gs.settings, seed))
        .find(|r| {
            casts(&r.events)
                .iter()
                .any(|(s, ok, _)| *s == Spell::Armageddon && *ok)
        })
        .expect("some seed casts it");
    assert!(res.state.army("Kaldor", 1).is_none(), "the army drowned");
    assert!(res.events.iter().any(|e| matches!(
        &e.what,
        What::Military(MilitaryEvent::Drowned {
            army: 1,
            units: 1,
            ..
        })
    )));
}

#[test]
fn r_spell_9_armageddon_drowns_the_cargo_a_halved_fleet_cannot_carry() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 5);
    // Three transports (room for 15) carry 6 + 8 light infantry.
    transports_carrying(&mut gs, ("Afani", "L2"), 3, &[(1, 6), (2, 8)]);
    let forms = [("Fugandri", vec![cast(Spell::Armageddon, Target::None)])];
    let (after, ev) = magic_with(&gs, &forms, &[6]);
    // The armies halve to 3 + 4; the fleet loses 2 of its 3 ships, room for 5: the 2
    // over it drown from the tail of the last army aboard.
    assert_eq!(
        after
            .fleets
            .iter()
            .find(|f| f.owner == "Afani")
            .unwrap()
            .ships
            .len(),
        1
    );
    assert_eq!(group_of(&after, "Afani", 1).unwrap().units.len(), 3);
    assert_eq!(group_of(&after, "Afani", 2).unwrap().units.len(), 2);
    let afani = ev.iter().find_map(|e| match e.what.magic() {
        Some(MagicEvent::Suffered {
            realm,
            effect: Effect::Armageddon { units, ships },
            ..
        }) if realm == "Afani" => Some((*units, *ships)),
        _ => None,
    });
    assert_eq!(
        afani,
        Some((3 + 4 + 2, 2)),
        "halved, drowned, and the ships"
    );
}

/// R-EVIL-16 (RULINGS 58): the cap of floor(Besvärjare / 2) portals is the Evil's
/// alone; a normal realm with Besvärjare 1 and a portal of its own opens another.
#[test]
fn r_evil_16_a_normal_realms_portals_are_not_capped_by_half_its_conjurer() {
    let mut gs = game();
    mage(&mut gs, "Fugandri", 1);
    army(
        &mut gs,
        "Fugandri",
        1,
        "E4",
        units(&[(1, LattInfanteri)], false),
    );
    gs.armies[0].dimension = Dimension::Evil;
    gs.map.squares.get_mut(&sq("D4")).unwrap().portal = Some(Box::new(Portal {
        opened_by: "Fugandri".into(),
        opened_round: ROUND - 1,
        closes_after_round: None,
    }));
    let t = Target::Square(sq("E4"));
    // 1 + 10 > 10.
    let (gs, ev) = magic_with(
        &gs,
        &[("Fugandri", vec![cast(Spell::OppnaPortal, t)])],
        &[10],
    );
    assert!(refused(&ev).is_empty(), "{ev:?}");
    assert_eq!(casts(&ev)[0].2, Some(Effect::Portal { square: sq("E4") }));
    let opened: Vec<_> = gs
        .map
        .squares
        .iter()
        .filter(|(_, m)| m.portal.as_ref().is_some_and(|p| p.opened_by == "Fugandri"))
        .map(|(s, _)| s)
        .collect();
    assert_eq!(opened.len(), 2);
}

/// R-POS-5: the Besvärjare roll is pbemd's own, from the game's seed: the d10 of the
/// cast is the one logged, and it is the seeded source's first face.
#[test]
fn r_pos_5_the_casting_d10_comes_from_the_games_seed_and_is_logged() {
    for seed in [1_u64, 2, 3, 20261122] {
        let mut gs = game();
        gs.game.seed = seed;
        mage(&mut gs, "Fugandri", 4);
        let o = orders(&[("Fugandri", vec![cast(Spell::Svalt, on("Genogien"))])]);
        let res = resolve(&gs, &o, &gs.settings, gs.game.seed);
        let logged: Vec<u32> = res
            .rolls
            .iter()
            .filter(|r| r.purpose == "weekend/magic" && r.sides == 10)
            .map(|r| r.value)
            .collect();
        let expected = Dice::new(seed, gs.round, "weekend/magic").d10();
        assert_eq!(logged, [expected], "seed {seed}");
        let (d10, success) = spells(&res.events)
            .into_iter()
            .find_map(|m| match m {
                MagicEvent::Cast { d10, success, .. } => Some((*d10, *success)),
                _ => None,
            })
            .unwrap();
        assert_eq!(d10, expected);
        assert_eq!(success, expected != 1 && 4 + expected > 10);
    }
}
