//! The generated game of the weekend bench (and of the test that the indexed engine
//! resolves it exactly as before): `n` realms, each with 100 army groups on a 10 × 10
//! block, three cities, and a full form (purchases, moves, attacks on its neighbour).

#![allow(dead_code)]

use chrono::{DateTime, Utc};
use pbemd::app::setup;
use pbemd::forms;
use pbemd::game::orders::{Group, Order, Outcome};
use pbemd::game::state::{
    ArmyGroup, City, Dimension, EvilTerrain, Map, MapSquare, Positions, Terrain, Unit,
};
use pbemd::game::weekend::{FormOrders, Orders};
use pbemd::game::{GameState, Lang, Position, Resource, Resources, Square, UnitKind};

/// Army groups per realm stand on a 10 × 10 block; the block's 11th row is free land
/// for the moves (with the main harbour), its 12th is sea.
pub const SIDE: u16 = 10;
pub const BLOCK_ROWS: u16 = SIDE + 2;
pub const GROUPS: u32 = (SIDE as u32) * (SIDE as u32);

pub fn name(k: usize) -> String {
    format!("Rike{k:04}")
}

pub fn sq(col: u16, row: u16) -> Square {
    Square::new(col, row).expect("the generated map fits the square range")
}

/// Blocks per row of the map: close to square, at most 70 (the column range).
pub fn per_row(realms: usize) -> usize {
    let mut n = 1;
    while n * n < realms {
        n += 1;
    }
    n.min(70)
}

/// The top-left square of realm `k`'s block.
pub fn origin(k: usize, per_row: usize) -> (u16, u16) {
    let bx = (k % per_row) as u16;
    let by = (k / per_row) as u16;
    (bx * SIDE, by * BLOCK_ROWS + 1)
}

/// A game of `n` realms with `GROUPS` army groups each, from the demo's first realm
/// as the template.
pub fn world(n: usize) -> GameState {
    let mut gs = pbemd::game::load_scenario(setup::DEMO_SCENARIO).expect("demo");
    let template = gs.realms[0].clone();
    let pr = per_row(n);
    let rows = n.div_ceil(pr);
    let mut map = Map {
        width: (pr as u16) * SIDE,
        height: (rows as u16) * BLOCK_ROWS,
        squares: Default::default(),
    };
    for row in 1..=map.height {
        let sea = row % BLOCK_ROWS == 0;
        for col in 0..map.width {
            map.squares.insert(
                sq(col, row),
                MapSquare {
                    terrain: if sea { Terrain::Sea } else { Terrain::Land },
                    owner: None,
                    evil_terrain: if sea {
                        EvilTerrain::Rock
                    } else {
                        EvilTerrain::Lava
                    },
                    evil_owner: None,
                    portal: None,
                    treasure: false,
                },
            );
        }
    }
    let mut realms = Vec::with_capacity(n);
    let mut cities = Vec::new();
    let mut armies = Vec::new();
    for k in 0..n {
        let realm = name(k);
        let (c0, r0) = origin(k, pr);
        for dr in 0..=SIDE {
            for dc in 0..SIDE {
                if let Some(m) = map.squares.get_mut(&sq(c0 + dc, r0 + dr)) {
                    m.owner = Some(realm.clone());
                }
            }
        }
        let capital = sq(c0 + 1, r0 + 1);
        let harbour = sq(c0 + 3, r0 + SIDE);
        for (i, (dc, dr)) in [(1, 1), (5, 5), (3, SIDE)].into_iter().enumerate() {
            cities.push(City {
                square: sq(c0 + dc, r0 + dr),
                name: format!("{realm}-{i}"),
                owner: realm.clone(),
                dimension: Dimension::Normal,
                population: 1500,
                production: Resources::from_pairs(&[
                    (Resource::Mat, 3),
                    (Resource::Guld, 3),
                    (Resource::Jarn, 2),
                    (Resource::Tyg, 2),
                ]),
                walls: 1,
                capital: i == 0,
                harbour: i == 2,
                coastal: i == 2,
                plundered: false,
            });
        }
        for id in 1..=GROUPS {
            let i = (id - 1) as u16;
            armies.push(ArmyGroup {
                id,
                owner: realm.clone(),
                square: sq(c0 + i % SIDE, r0 + i / SIDE),
                dimension: Dimension::Normal,
                units: [
                    UnitKind::TungtInfanteri,
                    UnitKind::Bagskyttar,
                    UnitKind::LattInfanteri,
                ]
                .into_iter()
                .map(|kind| Unit {
                    kind,
                    built_round: 0,
                })
                .collect(),
                treasure: Resources::ZERO,
                no_move_until_round: None,
            });
        }
        let mut r = template.clone();
        r.name = realm.clone();
        r.emails = vec![format!("{}@bench.test", realm.to_lowercase())];
        r.language = Lang::Sv;
        r.token = None;
        r.positions = Positions {
            amiral: 5,
            befalhavare: 5,
            besvarjare: 5,
            informator: 5,
            forskare: 5,
            skattmastare: 5,
            sprakror: 5,
        };
        r.stock = Resources::from_pairs(&Resource::ALL.map(|res| (res, 10_000)));
        r.capital = Some(capital);
        r.main_harbour = Some(harbour);
        r.friends = Vec::new();
        r.invitations = Vec::new();
        r.spies = 0;
        realms.push(r);
    }
    gs.realms = realms;
    gs.map = map;
    gs.cities = cities;
    gs.armies = armies;
    gs.fleets = Vec::new();
    gs.spies = Vec::new();
    gs.home_invitations = Vec::new();
    gs.contacts = Vec::new();
    gs.last_weekend = Vec::new();
    gs.conquests = Vec::new();
    if let Err(problems) = gs.validate() {
        panic!("the generated game is not valid: {problems:?}");
    }
    gs
}

/// Realm `k`'s full form: purchases, the bottom row of armies one step down onto the
/// free row, the east column attacking the neighbour's west column.
pub fn form(gs: &GameState, k: usize, pr: usize, n: usize) -> Vec<Order> {
    let (c0, r0) = origin(k, pr);
    let mut orders = vec![
        Order::BuyUnits {
            count: 5,
            kind: UnitKind::LattInfanteri,
            city: None,
        },
        Order::BuyWalls {
            count: 1,
            city: sq(c0 + 1, r0 + 1),
        },
        Order::BuyPopulation {
            count: 1,
            city: sq(c0 + 5, r0 + 5),
        },
        Order::UpgradePosition {
            position: Position::Befalhavare,
            crystals: vec![],
        },
    ];
    for col in 0..SIDE {
        let id = (SIDE * (SIDE - 1) + col + 1) as u32;
        orders.push(Order::Move {
            group: Group::Army(id),
            path: vec![sq(c0 + col, r0 + SIDE)],
        });
    }
    let east = k % pr + 1 < pr && k + 1 < n;
    for row in 0..SIDE - 1 {
        if !east {
            break;
        }
        let id = (row * SIDE + SIDE) as u32;
        let target = sq(c0 + SIDE, r0 + row);
        let city = gs.cities.iter().any(|c| c.square == target);
        orders.push(Order::Attack {
            group: Group::Army(id),
            square: target,
            outcome: city.then_some(Outcome::Plunder),
            wave: None,
        });
    }
    orders
}

/// Every realm's form, keeping only the lines the form check accepts; also the number
/// of lines it refused (0 when the generator is right).
pub fn forms_of(gs: &GameState, at: DateTime<Utc>) -> (Orders, usize) {
    let n = gs.realms.len();
    let pr = per_row(n);
    let mut refused = 0;
    let mut out = Orders::default();
    for k in 0..n {
        let realm = name(k);
        let checked = forms::check_orders(gs, &realm, &form(gs, k, pr, n));
        refused += checked.lines.iter().filter(|l| !l.accepted()).count();
        out.forms.push(FormOrders {
            realm,
            received_at: at + chrono::Duration::seconds(k as i64),
            orders: checked
                .lines
                .into_iter()
                .filter(|l| l.refusal.is_none())
                .filter_map(|l| l.order)
                .collect(),
        });
    }
    (out, refused)
}
