//! A small builder for the military cases: the demo map and realms with no armies or
//! fleets, every position value 0 (so the numbers are the units' own), no friends,
//! round 3. Add groups with `army`/`fleet`, fight step 4 with fixed dice with `fight`.

#![allow(dead_code)]

use pbemd::game::event::{Event, What};
use pbemd::game::orders::{Group, Order, Outcome, Wave};
use pbemd::game::state::{ArmyGroup, City, Fleet, Positions, Ship, Unit};
use pbemd::game::weekend::military::{self, MilitaryEvent};
use pbemd::game::weekend::{FormOrders, Orders, Weekend};
use pbemd::game::{load_scenario, GameState, ShipKind, Square, UnitKind};

pub const ROUND: u32 = 3;

pub fn sq(s: &str) -> Square {
    Square::parse(s).expect("square")
}

/// The demo game, emptied of troops, positions 0, no friends, round 3.
pub fn game() -> GameState {
    let mut gs = load_scenario(include_str!("../../scenarios/demo.yaml")).expect("demo");
    gs.round = ROUND;
    gs.armies.clear();
    gs.fleets.clear();
    for r in &mut gs.realms {
        r.positions = Positions::default();
        r.friends.clear();
    }
    gs
}

/// Units, front first; `new` marks units built this round (R-UNIT-7).
pub fn units(list: &[(u32, UnitKind)], new: bool) -> Vec<Unit> {
    let built_round = if new { ROUND } else { ROUND - 1 };
    list.iter()
        .flat_map(|(n, k)| {
            (0..*n).map(move |_| Unit {
                kind: *k,
                built_round,
            })
        })
        .collect()
}

pub fn ships(list: &[(u32, ShipKind)], new: bool) -> Vec<Ship> {
    let built_round = if new { ROUND } else { ROUND - 1 };
    list.iter()
        .flat_map(|(n, k)| {
            (0..*n).map(move |_| Ship {
                kind: *k,
                built_round,
            })
        })
        .collect()
}

pub fn army(gs: &mut GameState, owner: &str, id: u32, square: &str, units: Vec<Unit>) {
    gs.armies.push(ArmyGroup {
        id,
        owner: owner.into(),
        square: sq(square),
        dimension: Default::default(),
        units: units.into(),
        treasure: Default::default(),
        no_move_until_round: None,
    });
}

pub fn fleet(
    gs: &mut GameState,
    owner: &str,
    id: u32,
    square: &str,
    ships: Vec<Ship>,
    cargo: &[u32],
) {
    gs.fleets.push(Fleet {
        id,
        owner: owner.into(),
        square: sq(square),
        dimension: Default::default(),
        ships,
        cargo: cargo.to_vec(),
        must_leave_by_round: None,
    });
}

pub fn city<'a>(gs: &'a mut GameState, square: &str) -> &'a mut City {
    let s = sq(square);
    gs.cities.iter_mut().find(|c| c.square == s).expect("city")
}

pub fn attack(group: Group, square: &str, outcome: Option<Outcome>, wave: Option<Wave>) -> Order {
    Order::Attack {
        group,
        square: sq(square),
        outcome,
        wave,
    }
}

/// Forms in the order given (earliest first).
pub fn orders(forms: &[(&str, Vec<Order>)]) -> Orders {
    let t0 = chrono::DateTime::from_timestamp(1_800_000_000, 0).expect("time");
    Orders {
        forms: forms
            .iter()
            .enumerate()
            .map(|(i, (realm, orders))| FormOrders {
                realm: realm.to_string(),
                received_at: t0 + chrono::Duration::minutes(i as i64),
                orders: orders.clone(),
            })
            .collect(),
    }
}

/// Step 4 on `gs` with `orders` and d20 faces `rolls` (attacker, defender, …).
pub fn fight(gs: &GameState, orders: &Orders, rolls: &[u32]) -> (GameState, Vec<Event>) {
    let mut w = Weekend::new(gs, orders, &gs.settings, gs.game.seed);
    military::combat_with(&mut w, pbemd::game::dice::Dice::scripted("test", rolls));
    (w.state, w.events)
}

pub fn military(events: &[Event]) -> Vec<&MilitaryEvent> {
    events
        .iter()
        .filter_map(|e| match &e.what {
            What::Military(m) => Some(m),
            _ => None,
        })
        .collect()
}

pub fn group_of<'a>(gs: &'a GameState, owner: &str, id: u32) -> Option<&'a ArmyGroup> {
    gs.armies.iter().find(|a| a.owner == owner && a.id == id)
}

pub fn kinds(g: &ArmyGroup) -> Vec<UnitKind> {
    g.units.iter().map(|u| u.kind).collect()
}

pub fn vp(gs: &GameState, realm: &str) -> i64 {
    gs.realm(realm).expect("realm").vp
}

/// Steps 3 and 4 on `gs` with `orders`, step 4 with d20 faces `rolls`.
pub fn move_and_fight(gs: &GameState, orders: &Orders, rolls: &[u32]) -> (GameState, Vec<Event>) {
    let mut w = Weekend::new(gs, orders, &gs.settings, gs.game.seed);
    military::movement(&mut w);
    military::combat_with(&mut w, pbemd::game::dice::Dice::scripted("test", rolls));
    (w.state, w.events)
}

pub fn mv(group: Group, path: &[&str]) -> Order {
    Order::Move {
        group,
        path: path.iter().map(|s| sq(s)).collect(),
    }
}

/// Give `holder` an invitation from `from` to `square`, valid this round.
pub fn invite(gs: &mut GameState, holder: &str, from: &str, square: &str) {
    let id = gs.next_id;
    gs.next_id += 1;
    gs.realm_mut(holder)
        .expect("realm")
        .invitations
        .push(pbemd::game::state::Invitation {
            id,
            from: from.to_string(),
            square: sq(square),
            sent_round: ROUND,
            valid_until_round: ROUND,
            intercepted_from: None,
            used: false,
        });
}

/// Step 5 with d20 faces `rolls`, then step 9.
pub fn invitations(gs: &GameState, orders: &Orders, rolls: &[u32]) -> (GameState, Vec<Event>) {
    let mut w = Weekend::new(gs, orders, &gs.settings, gs.game.seed);
    military::invitations_with(&mut w, pbemd::game::dice::Dice::scripted("test", rolls));
    military::home_invitations(&mut w);
    (w.state, w.events)
}
