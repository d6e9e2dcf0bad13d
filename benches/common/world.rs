//! The generated game of the weekend bench (and of the test that the indexed engine
//! resolves it exactly as before): `n` realms, each with 100 army groups on a 10 × 10
//! block, three cities, and a full form (purchases, spells, a free-merchant bid, a vote,
//! moves, a step through a portal into the Evil's dimension, attacks on its
//! neighbour). From three realms on, the last realm is the Evil: its groups are demons
//! in its own dimension, and a portal it opened stands in every other realm's block.

#![allow(dead_code)]

use chrono::{DateTime, Utc};
use pbemd::app::setup;
use pbemd::forms;
use pbemd::game::orders::{Amount, Group, GroupSel, Order, Outcome, Target};
use pbemd::game::state::{
    ArmyGroup, City, Dimension, EvilInfo, EvilTerrain, FreeMerchantOffer, Lot, Map, MapSquare,
    Portal, Positions, Terrain, Unit,
};
use pbemd::game::weekend::{FormOrders, Orders};
use pbemd::game::{GameState, Lang, Name, Position, Resource, Resources, Spell, Square, UnitKind};

/// Army groups per realm stand on a 10 × 10 block; the block's 11th row is free land
/// for the moves (with the main harbour), its 12th is sea.
pub const SIDE: u16 = 10;
pub const BLOCK_ROWS: u16 = SIDE + 2;
pub const GROUPS: u32 = (SIDE as u32) * (SIDE as u32);

/// From three realms on, the last one is the Evil.
pub fn is_evil(k: usize, n: usize) -> bool {
    n >= 3 && k + 1 == n
}

/// The square of each normal realm's last army group, where the Evil's portal stands.
pub fn portal_square(k: usize, pr: usize) -> Square {
    let (c0, r0) = origin(k, pr);
    sq(c0 + SIDE - 1, r0 + SIDE - 1)
}

pub fn name(k: usize) -> String {
    format!("Rike{k:04}")
}

pub fn sq(col: u16, row: u16) -> Square {
    Square::new(col, row).expect("the generated map fits the square range")
}

/// Blocks per row of the map: close to square up to 100 realms, never more than ten. A
/// larger game is more rows of the same width, so that ten times the realms is the
/// 100-realm game ten times over: the same share of realms on the east edge, which have
/// no neighbour to attack (with a square map they were 10 % of 100 realms but 3 % of
/// 1,000, so the larger game had 10.9 times the battles).
pub fn per_row(realms: usize) -> usize {
    let mut n = 1;
    while n * n < realms {
        n += 1;
    }
    n.min(MAX_PER_ROW)
}

/// The widest row of blocks (100 columns; the column range would allow 70).
pub const MAX_PER_ROW: usize = 10;

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
        // One name a realm, mentioned by each of its squares, cities and groups: a
        // state read from the store shares its names so (`name::sharing`).
        let shared: Name = realm.as_str().into();
        let (c0, r0) = origin(k, pr);
        for dr in 0..=SIDE {
            for dc in 0..SIDE {
                if let Some(m) = map.squares.get_mut(&sq(c0 + dc, r0 + dr)) {
                    m.owner = Some(shared.clone());
                }
            }
        }
        let capital = sq(c0 + 1, r0 + 1);
        let harbour = sq(c0 + 3, r0 + SIDE);
        for (i, (dc, dr)) in [(1, 1), (5, 5), (3, SIDE)].into_iter().enumerate() {
            cities.push(City {
                square: sq(c0 + dc, r0 + dr),
                name: format!("{realm}-{i}"),
                owner: shared.clone(),
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
        let evil = is_evil(k, n);
        if n >= 3 && !evil {
            if let Some(m) = map.squares.get_mut(&portal_square(k, pr)) {
                m.portal = Some(Box::new(Portal {
                    opened_by: name(n - 1),
                    opened_round: 0,
                    closes_after_round: None,
                }));
            }
            if let Some(m) = map.squares.get_mut(&sq(c0 + SIDE - 1, r0 + SIDE + 1)) {
                m.treasure = true;
            }
        }
        let kinds = if evil {
            [
                UnitKind::HogreDemon,
                UnitKind::LagreDemon,
                UnitKind::LagreDemon,
            ]
        } else {
            [
                UnitKind::TungtInfanteri,
                UnitKind::Bagskyttar,
                UnitKind::LattInfanteri,
            ]
        };
        for id in 1..=GROUPS {
            let i = (id - 1) as u16;
            armies.push(ArmyGroup {
                id,
                owner: shared.clone(),
                square: sq(c0 + i % SIDE, r0 + i / SIDE),
                dimension: if evil {
                    Dimension::Evil
                } else {
                    Dimension::Normal
                },
                units: kinds
                    .into_iter()
                    .map(|kind| Unit {
                        kind,
                        built_round: 0,
                    })
                    .collect(),
                treasure: Default::default(),
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
        r.is_evil = evil;
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
    gs.evil = (n >= 3).then(|| EvilInfo {
        realm: name(n - 1),
        leash: 5,
    });
    // A voting round, with a free-merchant lot on offer.
    gs.round = gs.settings.vote_every.max(1);
    gs.free_merchant = Some(FreeMerchantOffer {
        round: gs.round,
        lot: Lot::Resource {
            resource: Resource::Jarn,
            amount: 20,
        },
        min_bid: 20,
    });
    // The demo's state looked its realms up when it was read, so its cache of where
    // each realm stands holds the demo's realms: start both caches afresh for the
    // realms, armies and fleets put in here, as a state read from the store starts
    // (with the demo's cache, every lookup of a realm in the game as the forms found
    // it missed and searched all the realms, which made the large game slower for
    // no reason of the engine's).
    gs.realm_places = Default::default();
    gs.army_places = Default::default();
    if let Err(problems) = gs.validate() {
        panic!("the generated game is not valid: {problems:?}");
    }
    gs
}

/// Realm `k`'s full form: purchases, spells, a bid and a vote, the bottom row of armies
/// one step down onto the free row (the last of them through the Evil's portal instead),
/// the east column attacking the neighbour's west column (with a Fireball and Attack).
pub fn form(gs: &GameState, k: usize, pr: usize, n: usize) -> Vec<Order> {
    let (c0, r0) = origin(k, pr);
    let evil = is_evil(k, n);
    let mut orders = vec![
        Order::BuyUnits {
            count: if evil { 1 } else { 5 },
            kind: if evil {
                UnitKind::HogreDemon
            } else {
                UnitKind::LattInfanteri
            },
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
        cast(Spell::Skord, Target::None),
    ];
    if !evil {
        orders.extend(part_two(k, n));
    }
    for col in 0..SIDE {
        let id = (SIDE * (SIDE - 1) + col + 1) as u32;
        // The last one goes through the portal it stands on instead.
        let path = if col + 1 == SIDE && n >= 3 && !evil {
            vec![portal_square(k, pr)]
        } else {
            vec![sq(c0 + col, r0 + SIDE)]
        };
        orders.push(Order::Move {
            group: Group::Army(id),
            path,
        });
    }
    let east = k % pr + 1 < pr && k + 1 < n && !evil && !is_evil(k + 1, n);
    for row in 0..SIDE - 1 {
        if !east {
            break;
        }
        let id = (row * SIDE + SIDE) as u32;
        let target = sq(c0 + SIDE, r0 + row);
        let city = gs.cities.iter().any(|c| c.square == target);
        if row == 0 {
            orders.push(cast(Spell::Anfall, Target::Army(GroupSel::Id(id))));
            orders.push(cast(Spell::Eldklot, Target::Army(GroupSel::At(target))));
        }
        orders.push(Order::Attack {
            group: Group::Army(id),
            square: target,
            outcome: city.then_some(Outcome::Plunder),
            wave: None,
        });
    }
    orders
}

fn cast(spell: Spell, target: Target) -> Order {
    Order::Cast { spell, target }
}

/// A normal realm's part-two lines: a ban on its neighbour's food, a bid for the
/// free merchants' lot, a vote for its neighbour.
fn part_two(k: usize, n: usize) -> Vec<Order> {
    let normal = if n >= 3 { n - 1 } else { n };
    let mut out = vec![Order::Bid {
        offer: vec![Amount {
            count: 20 + (k % 7) as u32,
            resource: Resource::Guld,
        }],
    }];
    if normal >= 2 {
        let next = name((k + 1) % normal);
        out.push(cast(Spell::Svalt, Target::Realm(next.clone())));
        out.push(Order::Vote { realm: next });
    }
    out
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
