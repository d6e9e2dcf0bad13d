//! A small game for the economy cases, and helpers to set it up and read what the
//! weekend did. Two realms on a 5 × 5 map: Alfa (Swedish) holds B2 (capital and main
//! harbour, on the coast), C3 (inland) and the land around; Beta (English) holds E2.

#![allow(dead_code)]

use chrono::{TimeZone, Utc};

use pbemd::game::event::{Event, What};
use pbemd::game::orders::Order;
use pbemd::game::weekend::economy::EconomyEvent;
use pbemd::game::weekend::{resolve, FormOrders, Orders, Resolution};
use pbemd::game::{load_scenario, GameState, Resource, Resources, Square};

const SCENARIO: &str = r#"
game: {name: Testspelet, address: sl@game.test, gm: gm@game.test, seed: 7}
map:
  width: 5
  height: 5
  legend: {"~": sea, ".": land, A: Alfa, B: Beta}
  rows:
    - "~~~~~"
    - "~AA.B"
    - "~AAA."
    - "~AAA."
    - "~~~~~"
realms:
  - name: Alfa
    emails: [alfa@game.test]
    language: sv
    positions: {amiral: 2, befalhavare: 2, besvarjare: 1, informator: 2, forskare: 2, skattmastare: 1, sprakror: 1}
    standard: [mat, tyg, timmer, järn]
    mission: Ingen.
    capital: B2
    main_harbour: B2
    spies: 0
    stock: {}
    cities:
      - {square: B2, name: Alfaborg, population: 100, walls: 1, production: {mat: 2, slavar: 3}}
      - {square: C3, name: Inlandet, population: 50, production: {järn: 1}}
    armies:
      - square: B2
        units: ["2 lätt infanteri"]
  - name: Beta
    emails: [beta@game.test]
    language: en
    positions: {amiral: 1, befalhavare: 1, besvarjare: 1, informator: 1, forskare: 1, skattmastare: 1, sprakror: 1}
    standard: [guld, hästar, sten, tyg]
    mission: None.
    capital: E2
    main_harbour: E2
    spies: 0
    stock: {}
    cities:
      - {square: E2, name: Betaby, population: 40, production: {guld: 2}}
"#;

/// The test game, round 1.
pub fn game() -> GameState {
    load_scenario(SCENARIO).expect("the test scenario loads")
}

/// Set `realm`'s whole stock.
pub fn stock(gs: &mut GameState, realm: &str, pairs: &[(Resource, u32)]) {
    gs.realm_mut(realm).expect("realm").stock = Resources::from_pairs(pairs);
}

/// Plenty of everything but slaves (so no revolt).
pub fn rich(gs: &mut GameState, realm: &str) {
    let all: Vec<(Resource, u32)> = Resource::ALL
        .iter()
        .filter(|r| **r != Resource::Slavar)
        .map(|r| (*r, 1000))
        .collect();
    stock(gs, realm, &all);
}

/// One form per `(realm, orders)`, in arrival order.
pub fn forms(list: Vec<(&str, Vec<Order>)>) -> Orders {
    Orders {
        forms: list
            .into_iter()
            .enumerate()
            .map(|(i, (realm, orders))| FormOrders {
                realm: realm.to_string(),
                received_at: Utc.with_ymd_and_hms(2026, 11, 21, 10, i as u32, 0).unwrap(),
                orders,
            })
            .collect(),
    }
}

/// A square by name.
pub fn sq(name: &str) -> Square {
    Square::parse(name).expect("square")
}

/// Resolve with the state's own settings and a fixed seed.
pub fn weekend(gs: &GameState, orders: &Orders) -> Resolution {
    resolve(gs, orders, &gs.settings, 7)
}

/// The economy events `realm` may read.
pub fn told(res: &Resolution, realm: &str) -> Vec<EconomyEvent> {
    res.events
        .iter()
        .filter(|e: &&Event| e.seen_by(realm))
        .filter_map(|e| match &e.what {
            What::Economy(ev) => Some((**ev).clone()),
            _ => None,
        })
        .collect()
}

/// A stock as pairs, for comparing.
pub fn of(pairs: &[(Resource, u32)]) -> Resources {
    Resources::from_pairs(pairs)
}
