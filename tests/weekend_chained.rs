//! Any orders over weekends in a row: every kind of order, with numbers from nothing to
//! the largest a line can hold, squares on and off the map, groups that exist and
//! groups that do not, from realms with and without the stock to pay, on the demo, the
//! Evil scenario and the weekend bench's generated world. After each weekend the state
//! must still be one the store would take (`GameState::validate`), read back from its
//! JSON unchanged, and give every realm its Monday form; the next weekend starts from
//! it. The orders are not checked by the form room first, so the engine meets what a
//! form could never send, too.

#[path = "../benches/common/world.rs"]
mod world;

#[path = "weekend_common/rng.rs"]
mod rng;

use pbemd::game::orders::*;
use pbemd::game::state::{Phase, Researched, RulerBenefit};
use pbemd::game::weekend::{resolve, FormOrders, Orders};
use pbemd::game::{GameState, Position, Resource, ShipKind, Spell, Square, UnitKind};
use rng::Rng;

/// Games played.
const CASES: u64 = 120;
/// Weekends in a row in each.
const WEEKS: u64 = 3;

/// A player's number: often small, sometimes none, huge or the largest.
fn num(rng: &mut Rng) -> u32 {
    match rng.below(10) {
        0 => 0,
        1 => u32::MAX,
        2 => u32::MAX / 2 + 1,
        3 => rng.next() as u32,
        4 => 1000,
        _ => rng.below(6) as u32,
    }
}

/// A square: mostly on the map (often where a city, army or fleet stands), sometimes
/// anywhere in the square range.
fn square(rng: &mut Rng, gs: &GameState) -> Square {
    let all: Vec<Square> = gs.map.squares.iter().map(|(s, _)| s).collect();
    match rng.below(12) {
        0 => Square::new(rng.below(80) as u16, rng.below(200) as u16).unwrap_or(all[0]),
        1 if !gs.cities.is_empty() => rng.pick(&gs.cities).square,
        2 | 3 if !gs.armies.is_empty() => rng.pick(&gs.armies).square,
        4 if !gs.fleets.is_empty() => rng.pick(&gs.fleets).square,
        _ => rng.pick(&all),
    }
}

/// One of the realm's groups, or any number.
fn group(rng: &mut Rng, gs: &GameState, realm: &str) -> Group {
    let own: Vec<u32> = gs.armies_of(realm).map(|a| a.id).collect();
    let fl: Vec<u32> = gs.fleets_of(realm).map(|a| a.id).collect();
    match rng.below(6) {
        0 => Group::Fleet(if fl.is_empty() {
            num(rng)
        } else {
            rng.pick(&fl)
        }),
        1 => Group::Army(num(rng)),
        2 => Group::Fleet(num(rng)),
        _ => Group::Army(if own.is_empty() {
            num(rng)
        } else {
            rng.pick(&own)
        }),
    }
}

/// Up to three amounts of any resource.
fn amounts(rng: &mut Rng) -> Vec<Amount> {
    (0..rng.below(4))
        .map(|_| Amount {
            count: num(rng),
            resource: rng.pick(&Resource::ALL),
        })
        .collect()
}

/// Any unit or ship.
fn piece(rng: &mut Rng) -> Piece {
    if rng.below(3) == 0 {
        Piece::Ship(rng.pick(&ShipKind::ALL))
    } else {
        Piece::Unit(rng.pick(&UnitKind::ALL))
    }
}

/// A spell's group target: by number or by square.
fn sel(rng: &mut Rng, gs: &GameState, realm: &str) -> GroupSel {
    if rng.below(2) == 0 {
        GroupSel::Id(group(rng, gs, realm).id())
    } else {
        GroupSel::At(square(rng, gs))
    }
}

/// A realm of the game, or a name that is none.
fn realm_name(rng: &mut Rng, gs: &GameState) -> String {
    match rng.below(8) {
        0 => "Nowhere".into(),
        1 => String::new(),
        _ => rng.pick(&gs.realms).name.clone(),
    }
}

/// Any order of any kind, aimed at what `realm` and the game hold.
fn order(rng: &mut Rng, gs: &GameState, realm: &str) -> Order {
    match rng.below(34) {
        0 => Order::BuyUnits {
            count: num(rng),
            kind: rng.pick(&UnitKind::ALL),
            city: if rng.below(2) == 0 {
                None
            } else {
                Some(square(rng, gs))
            },
        },
        1 => Order::BuyShips {
            count: num(rng),
            kind: rng.pick(&ShipKind::ALL),
            city: if rng.below(2) == 0 {
                None
            } else {
                Some(square(rng, gs))
            },
        },
        2 => Order::BuySpies { count: num(rng) },
        3 => Order::BuyWalls {
            count: num(rng),
            city: square(rng, gs),
        },
        4 => Order::BuyCity {
            square: square(rng, gs),
            production: amounts(rng),
        },
        5 => Order::BuyPopulation {
            count: num(rng),
            city: square(rng, gs),
        },
        6 => Order::UpgradePosition {
            position: rng.pick(&Position::ALL),
            crystals: amounts(rng),
        },
        7 => Order::UpgradeProduction {
            city: square(rng, gs),
            resource: rng.pick(&Resource::ALL),
        },
        8 => Order::ConvertSlaves {
            count: num(rng),
            resource: rng.pick(&Resource::ALL),
        },
        9..=13 => {
            let spell = rng.pick(&Spell::ALL);
            let target = match rng.below(9) {
                0 => Target::None,
                1 => Target::Realm(realm_name(rng, gs)),
                2 => Target::City(square(rng, gs)),
                3 => Target::Army(sel(rng, gs, realm)),
                4 => Target::Fleet(sel(rng, gs, realm)),
                5 => Target::Square(square(rng, gs)),
                6 => Target::Spell(rng.pick(&Spell::ALL)),
                _ => Target::ArmyTo {
                    army: sel(rng, gs, realm),
                    to: square(rng, gs),
                },
            };
            Order::Cast { spell, target }
        }
        14..=16 => Order::Move {
            group: group(rng, gs, realm),
            path: (0..rng.below(6)).map(|_| square(rng, gs)).collect(),
        },
        17 => Order::Embark {
            army: group(rng, gs, realm).id(),
            fleet: group(rng, gs, realm).id(),
        },
        18 => Order::Disembark {
            army: group(rng, gs, realm).id(),
            square: if rng.below(2) == 0 {
                None
            } else {
                Some(square(rng, gs))
            },
        },
        19 => Order::PickUp {
            fleet: group(rng, gs, realm).id(),
            army: group(rng, gs, realm).id(),
        },
        20 => Order::Merge {
            group: group(rng, gs, realm),
            other: group(rng, gs, realm).id(),
        },
        21 => Order::Split {
            group: group(rng, gs, realm),
            pieces: (0..rng.below(4)).map(|_| (num(rng), piece(rng))).collect(),
        },
        22 => Order::Reorder {
            group: group(rng, gs, realm),
            pieces: (0..rng.below(4)).map(|_| (num(rng), piece(rng))).collect(),
        },
        23..=25 => Order::Attack {
            group: group(rng, gs, realm),
            square: square(rng, gs),
            outcome: [
                None,
                Some(Outcome::Plunder),
                Some(Outcome::Takeover),
                Some(Outcome::Raze),
            ][rng.below(4)],
            wave: [None, Some(Wave::First), Some(Wave::Second)][rng.below(3)],
        },
        26 => Order::UseInvitation {
            from: realm_name(rng, gs),
            group: group(rng, gs, realm),
        },
        27 => Order::HomeInvitation {
            group: group(rng, gs, realm),
        },
        28 => Order::Bid {
            offer: amounts(rng),
        },
        29 => Order::Engineers { pay: amounts(rng) },
        30 => Order::Research {
            kind: if rng.below(2) == 0 {
                Researched::Fregatt
            } else {
                Researched::BeridnaBagskyttar
            },
        },
        31 => match rng.below(7) {
            0 => Order::Vote {
                realm: realm_name(rng, gs),
            },
            1 => Order::Friend {
                realm: realm_name(rng, gs),
            },
            2 => Order::NotFriend {
                realm: realm_name(rng, gs),
            },
            3 => Order::Capital {
                city: square(rng, gs),
            },
            4 => Order::MainHarbour {
                city: square(rng, gs),
            },
            5 => Order::TradeWishes {
                buy: vec![rng.pick(&Resource::ALL)],
                sell: vec![rng.pick(&Resource::ALL)],
            },
            _ => Order::RulerBenefit {
                benefit: rng.pick(&[
                    RulerBenefit::DoubleBids,
                    RulerBenefit::MoveFirst,
                    RulerBenefit::FreeSpies,
                    RulerBenefit::Population,
                ]),
            },
        },
        32 => Order::VpReward {
            reward: match rng.below(3) {
                0 => Reward::Position(rng.pick(&Position::ALL)),
                1 => Reward::Production {
                    city: square(rng, gs),
                    resource: rng.pick(&Resource::ALL),
                },
                _ => Reward::Resources(amounts(rng)),
            },
        },
        _ => Order::PlaceTroops {
            placements: (0..rng.below(3))
                .map(|_| (num(rng), rng.pick(&UnitKind::ALL), square(rng, gs)))
                .collect(),
        },
    }
}

/// The demo, the Evil scenario or a small bench world; often every realm made rich
/// (some to the brim of the stock) with random position values.
fn start(rng: &mut Rng) -> GameState {
    let mut gs = match rng.below(3) {
        0 => pbemd::game::load_scenario(include_str!("../scenarios/demo.yaml")).expect("demo"),
        1 => pbemd::game::load_scenario(include_str!("../scenarios/evil.yaml")).expect("evil"),
        _ => world::world(4 + rng.below(4)),
    };
    if rng.below(2) == 0 {
        for r in &mut gs.realms {
            for res in Resource::ALL {
                r.stock
                    .set(res, if rng.below(5) == 0 { u32::MAX - 3 } else { 500 });
            }
            for p in Position::ALL {
                *r.positions.get_mut(p) = rng.below(8) as u32;
            }
            r.spies = rng.below(5) as u32;
        }
    }
    if rng.below(4) == 0 {
        gs.settings.adjacency = 8;
    }
    gs
}

#[test]
fn any_orders_over_weekends_in_a_row_leave_a_state_that_validates_reads_back_and_renders() {
    let renderer = pbemd::render::Renderer::new().expect("templates");
    let ctx = pbemd::render::FormContext {
        deadline_local: "söndag 29 november 2026 15:00".into(),
        window_local: String::new(),
        game_address: "sl@game.test".into(),
        realms_listed: None,
    };
    for seed in 0..CASES {
        let mut rng = Rng(seed);
        let mut gs = start(&mut rng);
        assert_eq!(gs.validate(), Ok(()), "game {seed} starts valid");
        for week in 0..WEEKS {
            let names: Vec<String> = gs.realms.iter().map(|r| r.name.clone()).collect();
            let mut forms = Vec::new();
            for (k, realm) in names.iter().enumerate() {
                if rng.below(3) == 0 {
                    continue; // no form this weekend
                }
                let list = (0..rng.below(25))
                    .map(|_| order(&mut rng, &gs, realm))
                    .collect();
                let at = chrono::DateTime::from_timestamp(1_800_000_000 + k as i64, 0);
                forms.push(FormOrders {
                    realm: realm.clone(),
                    received_at: at.expect("time"),
                    orders: list,
                });
            }
            let res = resolve(&gs, &Orders { forms }, &gs.settings, seed ^ week);
            let case = format!("game {seed}, weekend {week}");
            assert_eq!(res.state.validate(), Ok(()), "{case}");
            for r in &res.state.realms {
                let form = renderer.result_form_with(&res.state, &r.name, &ctx, &res.events);
                assert!(form.is_ok(), "{case}: {}'s form: {form:?}", r.name);
            }
            let json = serde_json::to_string(&res.state).expect("json");
            let back: GameState = serde_json::from_str(&json).expect("reads back");
            assert_eq!(back, res.state, "{case}: read back");
            gs = back;
            pbemd::app::weekend::advance(&mut gs);
            gs.phase = Phase::Weekend;
        }
    }
}
