//! The weekend's economy steps as a rules case table: each case a small state, the
//! orders, and what must come out, one test per case, named by rule ID
//! (docs/rules.md cites them).

#[path = "weekend_common/economy.rs"]
mod economy;

use economy::*;
use pbemd::game::orders::{Amount, Order};
use pbemd::game::state::Phase;
use pbemd::game::state::{
    ArmyOverflow, Invitation, SlaveRevoltLoss, SpellEffect, SpellTarget, Unit,
};
use pbemd::game::units::build_cost;
use pbemd::game::weekend::economy::{self as eco, Cap, EconomyEvent, Purchase, Why};
use pbemd::game::weekend::Weekend;
use pbemd::game::{Position, Resource, Resources, ShipKind, Spell, UnitKind};

use Resource::*;

fn units(count: u32, kind: UnitKind, city: Option<&str>) -> Order {
    Order::BuyUnits {
        count,
        kind,
        city: city.map(sq),
    }
}

fn refusals(ev: &[EconomyEvent]) -> Vec<(String, Why)> {
    ev.iter()
        .filter_map(|e| match e {
            EconomyEvent::Refused { rule, why, .. } => Some((rule.clone(), why.clone())),
            _ => None,
        })
        .collect()
}

fn bought(ev: &[EconomyEvent]) -> Vec<Purchase> {
    ev.iter()
        .filter_map(|e| match e {
            EconomyEvent::Bought { purchase, .. } => Some(purchase.clone()),
            _ => None,
        })
        .collect()
}

/// A new city on `square` producing 5 mat and 5 järn.
fn city_of_mat_and_jarn(square: &str) -> Order {
    let five = |resource| Amount { count: 5, resource };
    Order::BuyCity {
        square: sq(square),
        production: vec![five(Mat), five(Jarn)],
    }
}

/// Alfa with `n` light infantry in its capital's army.
fn with_army(gs: &mut pbemd::game::GameState, n: usize) {
    let a = gs.armies.iter_mut().find(|a| a.owner == "Alfa").unwrap();
    a.units = smallvec::smallvec![
        Unit {
            kind: UnitKind::LattInfanteri,
            built_round: 0
        };
        n
    ];
}

/// Ten slaves for upgrades, and ten army units so they do not revolt.
fn slaves_kept_in_check(gs: &mut pbemd::game::GameState) {
    gs.realm_mut("Alfa").unwrap().stock.set(Slavar, 10);
    with_army(gs, 10);
}

// ---- Step 1: purchases -------------------------------------------------------

#[test]
fn r_build_4_purchases_are_paid_in_list_order_an_overdraw_is_refused_and_later_lines_pass() {
    let mut gs = game();
    // Two light infantry (2 each of mat, guld, tyg, järn); then a wall (15 sten, 5 timmer,
    // 5 tyg) that the tyg left no longer covers; then a spy (4 mat, 5 guld, 1 hästar).
    stock(
        &mut gs,
        "Alfa",
        &[
            (Mat, 6),
            (Guld, 7),
            (Tyg, 6),
            (Jarn, 2),
            (Sten, 15),
            (Timmer, 5),
            (Hastar, 1),
        ],
    );
    let orders = forms(vec![(
        "Alfa",
        vec![
            units(2, UnitKind::LattInfanteri, None),
            Order::BuyWalls {
                count: 1,
                city: sq("B2"),
            },
            Order::BuySpies { count: 1 },
        ],
    )]);
    let res = weekend(&gs, &orders);
    let ev = told(&res, "Alfa");
    assert_eq!(bought(&ev).len(), 2, "{ev:?}");
    assert_eq!(
        refusals(&ev),
        vec![(
            "R-BUILD-4".to_string(),
            Why::Short {
                cost: build_cost::wall(),
                short: of(&[(Tyg, 1)])
            }
        )]
    );
    let alfa = res.state.realm("Alfa").unwrap();
    assert_eq!(alfa.spies, 1);
    // Production (mat 2, slavar 3, järn 1) comes after the purchases.
    assert_eq!(
        alfa.stock,
        of(&[
            (Mat, 2),
            (Tyg, 4),
            (Sten, 15),
            (Timmer, 5),
            (Slavar, 3),
            (Jarn, 1)
        ])
    );
    assert!(
        told(&res, "Beta").iter().all(|e| !matches!(
            e,
            EconomyEvent::Bought { .. } | EconomyEvent::Refused { .. }
        )),
        "Beta learns nothing of Alfa's purchases"
    );
}

#[test]
fn rulings_13_new_units_join_the_army_in_the_capital_or_form_a_group_in_the_named_city() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let orders = forms(vec![(
        "Alfa",
        vec![
            units(2, UnitKind::TungtInfanteri, None),
            units(1, UnitKind::Bagskyttar, Some("C3")),
        ],
    )]);
    let res = weekend(&gs, &orders);
    let capital = res.state.army("Alfa", 1).unwrap();
    assert_eq!(capital.square, sq("B2"));
    assert_eq!(capital.units.len(), 4);
    let inland = res.state.army("Alfa", 2).unwrap();
    assert_eq!(inland.square, sq("C3"));
    assert_eq!(
        inland.units.iter().map(|u| u.kind).collect::<Vec<_>>(),
        vec![UnitKind::Bagskyttar]
    );
    assert_eq!(
        bought(&told(&res, "Alfa"))[1],
        Purchase::Units {
            count: 1,
            unit: UnitKind::Bagskyttar,
            city: sq("C3"),
            army: 2
        }
    );
}

/// Units bought in a city founded earlier on the same form join the army group that
/// already stood on its square, as they would in any other city of the realm.
#[test]
fn rulings_13_units_bought_in_a_city_founded_on_the_form_join_the_army_standing_there() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let mut there = gs.army("Alfa", 1).unwrap().clone();
    there.id = 7;
    there.square = sq("D3");
    gs.armies.push(there);
    let orders = forms(vec![(
        "Alfa",
        vec![
            city_of_mat_and_jarn("D3"),
            units(3, UnitKind::Bagskyttar, Some("D3")),
        ],
    )]);
    let res = weekend(&gs, &orders);
    assert!(refusals(&told(&res, "Alfa")).is_empty());
    assert_eq!(
        bought(&told(&res, "Alfa"))[1],
        Purchase::Units {
            count: 3,
            unit: UnitKind::Bagskyttar,
            city: sq("D3"),
            army: 7
        }
    );
    let on_d3: Vec<_> = res
        .state
        .armies
        .iter()
        .filter(|a| a.square == sq("D3"))
        .collect();
    assert_eq!(on_d3.len(), 1, "no new group beside the one standing there");
    assert_eq!(on_d3[0].units.len(), 2 + 3);
}

/// R-UNIT-8: new units appear in an own city, checked on the form: the receipt refuses
/// a city of another realm's, and the weekend buys nothing there either.
#[test]
fn r_unit_8_new_units_appear_only_in_an_own_city_checked_on_the_form() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let order = units(1, UnitKind::LattInfanteri, Some("E2"));
    let receipt = pbemd::forms::check::check_orders(&gs, "Alfa", std::slice::from_ref(&order));
    assert!(
        matches!(
            receipt.lines[0].refusal,
            Some(pbemd::forms::refusal::Refusal::NotOwnCity { square }) if square == sq("E2")
        ),
        "{:?}",
        receipt.lines[0].refusal
    );
    let res = weekend(&gs, &forms(vec![("Alfa", vec![order])]));
    assert_eq!(
        refusals(&told(&res, "Alfa")),
        vec![("R-CITY-1".to_string(), Why::NotOwnCity { city: sq("E2") })]
    );
    assert!(res.state.armies.iter().all(|a| a.square != sq("E2")));
    assert_eq!(res.state.army("Alfa", 1).unwrap().units.len(), 2);
}

#[test]
fn r_unit_7_units_and_ships_bought_this_round_carry_the_round_they_were_built() {
    let mut gs = game();
    gs.round = 3;
    rich(&mut gs, "Alfa");
    let orders = forms(vec![(
        "Alfa",
        vec![
            units(1, UnitKind::LattKavalleri, None),
            Order::BuyShips {
                count: 1,
                kind: ShipKind::LattKrigsskepp,
                city: None,
            },
        ],
    )]);
    let res = weekend(&gs, &orders);
    let army = res.state.army("Alfa", 1).unwrap();
    assert_eq!(army.units.last().unwrap().built_round, 3);
    assert_eq!(army.units[0].built_round, 0, "the old units keep theirs");
    let fleet = res.state.fleets_of("Alfa").next().unwrap();
    assert_eq!(fleet.ships[0].built_round, 3);
}

#[test]
fn rulings_13_new_ships_go_to_the_main_harbour_and_only_to_a_coastal_city() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let orders = forms(vec![(
        "Alfa",
        vec![
            Order::BuyShips {
                count: 2,
                kind: ShipKind::Transportskepp,
                city: None,
            },
            Order::BuyShips {
                count: 1,
                kind: ShipKind::Transportskepp,
                city: Some(sq("C3")),
            },
        ],
    )]);
    let res = weekend(&gs, &orders);
    let fleet = res.state.fleets_of("Alfa").next().unwrap();
    assert_eq!((fleet.square, fleet.ships.len()), (sq("B2"), 2));
    assert_eq!(
        refusals(&told(&res, "Alfa")),
        vec![("RULINGS 13".to_string(), Why::NotCoastal { city: sq("C3") })]
    );
}

#[test]
fn r_spy_3_bought_spies_appear_in_the_realms_count_up_to_the_informant_cap() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let orders = forms(vec![(
        "Alfa",
        vec![Order::BuySpies { count: 2 }, Order::BuySpies { count: 1 }],
    )]);
    let res = weekend(&gs, &orders);
    assert_eq!(res.state.realm("Alfa").unwrap().spies, 2);
    assert_eq!(res.state.counted_units("Alfa").spies, 2);
    assert_eq!(
        refusals(&told(&res, "Alfa")),
        vec![(
            "RULINGS 43".to_string(),
            Why::Over {
                cap: Cap::Spies,
                have: 2,
                add: 1,
                limit: 2
            }
        )]
    );
}

#[test]
fn r_wall_3_walls_stop_at_a_tenth_of_the_population_and_r_wall_1_each_costs_its_price() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let orders = forms(vec![(
        "Alfa",
        vec![
            Order::BuyWalls {
                count: 6,
                city: sq("C3"),
            },
            Order::BuyWalls {
                count: 5,
                city: sq("C3"),
            },
        ],
    )]);
    let res = weekend(&gs, &orders);
    let c3 = res.state.city_at(sq("C3"), Default::default()).unwrap();
    assert_eq!(c3.walls, 5);
    let ev = told(&res, "Alfa");
    assert_eq!(
        refusals(&ev),
        vec![(
            "R-WALL-3".to_string(),
            Why::Over {
                cap: Cap::Walls,
                have: 0,
                add: 6,
                limit: 5
            }
        )]
    );
    assert!(ev.iter().any(
        |e| matches!(e, EconomyEvent::Bought { cost, .. } if *cost == build_cost::wall().times(5))
    ));
}

#[test]
fn r_city_2_a_new_city_has_population_10_and_the_ten_points_it_was_given() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let orders = forms(vec![("Alfa", vec![city_of_mat_and_jarn("D3")])]);
    let res = weekend(&gs, &orders);
    let city = res
        .state
        .city_at(sq("D3"), Default::default())
        .expect("the city is built");
    assert_eq!((city.owner.as_str(), city.population), ("Alfa", 10));
    assert_eq!(city.production, of(&[(Mat, 5), (Jarn, 5)]));
    assert!(!city.capital && !city.harbour);
    assert!(res.state.validate().is_ok(), "{:?}", res.state.validate());
    // It produces in step 6 of the weekend it was bought.
    let got = told(&res, "Alfa").into_iter().find_map(|e| match e {
        EconomyEvent::Produced { resources, .. } => Some(resources),
        _ => None,
    });
    assert_eq!(got.unwrap().get(Jarn), 6);
}

#[test]
fn rulings_27_a_new_city_only_on_own_land_without_a_city_and_r_city_2_points_checked() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let ten = vec![
        Amount {
            count: 5,
            resource: Mat,
        },
        Amount {
            count: 5,
            resource: Tyg,
        },
    ];
    let six = vec![
        Amount {
            count: 6,
            resource: Mat,
        },
        Amount {
            count: 4,
            resource: Tyg,
        },
    ];
    let orders = forms(vec![(
        "Alfa",
        vec![
            Order::BuyCity {
                square: sq("E3"),
                production: ten.clone(),
            },
            Order::BuyCity {
                square: sq("B2"),
                production: ten,
            },
            Order::BuyCity {
                square: sq("D4"),
                production: six,
            },
        ],
    )]);
    let res = weekend(&gs, &orders);
    assert_eq!(
        refusals(&told(&res, "Alfa")),
        vec![
            (
                "RULINGS 27".to_string(),
                Why::NotOwnLand { square: sq("E3") }
            ),
            (
                "RULINGS 27".to_string(),
                Why::CityThere { square: sq("B2") }
            ),
            ("R-CITY-2".to_string(), Why::BadProduction),
        ]
    );
    assert_eq!(res.state.cities.len(), gs.cities.len());
    assert_eq!(
        res.state.realm("Alfa").unwrap().stock.get(Sten),
        1000,
        "nothing was charged"
    );
}

#[test]
fn r_pop_4_each_population_purchase_adds_ten_to_the_city() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let orders = forms(vec![(
        "Alfa",
        vec![Order::BuyPopulation {
            count: 2,
            city: sq("C3"),
        }],
    )]);
    let res = weekend(&gs, &orders);
    assert_eq!(
        res.state
            .city_at(sq("C3"), Default::default())
            .unwrap()
            .population,
        70
    );
    assert_eq!(res.state.realm("Alfa").unwrap().stock.get(Hastar), 990);
}

#[test]
fn r_pos_2_one_step_per_position_and_rulings_9_at_most_forskare_steps_in_all() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    slaves_kept_in_check(&mut gs);
    let up = |position| Order::UpgradePosition {
        position,
        crystals: vec![],
    };
    let orders = forms(vec![(
        "Alfa",
        vec![
            up(Position::Amiral),
            up(Position::Amiral),
            Order::UpgradeProduction {
                city: sq("C3"),
                resource: Mat,
            },
            up(Position::Informator),
        ],
    )]);
    let res = weekend(&gs, &orders);
    let alfa = res.state.realm("Alfa").unwrap();
    assert_eq!(alfa.positions.amiral, 3);
    assert_eq!(
        alfa.positions.informator, 2,
        "Forskare 2: the third step is refused"
    );
    assert_eq!(
        refusals(&told(&res, "Alfa")),
        vec![
            ("R-POS-2".to_string(), Why::OneStep),
            ("RULINGS 9".to_string(), Why::StepLimit { limit: 2 }),
        ]
    );
    // The five crystals came from the stock in resource order: all eld.
    assert_eq!(alfa.stock.get(Eld), 995);
}

#[test]
fn rulings_9_a_vp_reward_counts_against_neither_upgrade_limit() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    slaves_kept_in_check(&mut gs);
    gs.realm_mut("Alfa").unwrap().vp = 500;
    let up = |position| Order::UpgradePosition {
        position,
        crystals: vec![],
    };
    let orders = forms(vec![(
        "Alfa",
        vec![
            Order::VpReward {
                reward: pbemd::game::orders::Reward::Position(Position::Amiral),
            },
            up(Position::Amiral),
            up(Position::Informator),
        ],
    )]);
    let res = weekend(&gs, &orders);
    let alfa = res.state.realm("Alfa").unwrap();
    // Amiral 2 + the reward + one step; Forskare 2 still allows the second step.
    assert_eq!(alfa.positions.amiral, 4);
    assert_eq!(alfa.positions.informator, 3);
    assert_eq!(refusals(&told(&res, "Alfa")), vec![]);
}

fn secret_bonuses(res: &pbemd::game::weekend::Resolution, realm: &str) -> Vec<EconomyEvent> {
    told(res, realm)
        .into_iter()
        .filter(|e| matches!(e, EconomyEvent::SecretBonus { .. }))
        .collect()
}

/// Alfa at 10 in Amiral, with the GM's texts for Amiral and Informatör only.
fn alfa_one_step_from_a_secret() -> pbemd::game::GameState {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    slaves_kept_in_check(&mut gs);
    gs.realm_mut("Alfa").unwrap().positions.amiral = 10;
    gs.realm_mut("Alfa").unwrap().positions.forskare = 3;
    let texts = &mut gs.settings.secret_bonus_texts;
    texts.insert(Position::Amiral, "Skeppen seglar längre.".into());
    texts.insert(Position::Informator, "Spionerna ser mer.".into());
    gs
}

#[test]
fn r_pos_3_reaching_11_gives_the_gms_secret_text_and_tells_only_that_realm() {
    let gs = alfa_one_step_from_a_secret();
    let up = |position| Order::UpgradePosition {
        position,
        crystals: vec![],
    };
    let orders = forms(vec![("Alfa", vec![up(Position::Amiral)])]);
    let res = weekend(&gs, &orders);
    let alfa = res.state.realm("Alfa").unwrap();
    assert_eq!(alfa.positions.amiral, 11);
    assert_eq!(
        alfa.secret_bonuses
            .get(&Position::Amiral)
            .map(String::as_str),
        Some("Skeppen seglar längre.")
    );
    assert_eq!(alfa.secret_bonuses.len(), 1);
    assert_eq!(
        secret_bonuses(&res, "Alfa"),
        vec![EconomyEvent::SecretBonus {
            realm: "Alfa".into(),
            position: Position::Amiral,
            value: 11,
            text: "Skeppen seglar längre.".into(),
        }]
    );
    assert!(secret_bonuses(&res, "Beta").is_empty(), "only Alfa is told");
}

#[test]
fn r_pos_3_a_secret_is_given_once_and_a_position_without_a_text_gives_none() {
    let mut gs = alfa_one_step_from_a_secret();
    gs.realm_mut("Alfa").unwrap().positions.amiral = 11;
    gs.realm_mut("Alfa").unwrap().positions.besvarjare = 12;
    gs.realm_mut("Alfa").unwrap().positions.informator = 10;
    // Raised to 11 by the GM's edit of the state: told at the next weekend.
    let res = weekend(&gs, &forms(vec![]));
    let given: Vec<Position> = secret_bonuses(&res, "Alfa")
        .iter()
        .filter_map(|e| match e {
            EconomyEvent::SecretBonus { position, .. } => Some(*position),
            _ => None,
        })
        .collect();
    assert_eq!(given, vec![Position::Amiral], "Besvärjare has no text");
    // The next weekend: Amiral to 12 and Informatör to 11; only the new one is told.
    let up = |position| Order::UpgradePosition {
        position,
        crystals: vec![],
    };
    let orders = forms(vec![(
        "Alfa",
        vec![up(Position::Amiral), up(Position::Informator)],
    )]);
    let next = weekend(&res.state, &orders);
    let alfa = next.state.realm("Alfa").unwrap();
    assert_eq!((alfa.positions.amiral, alfa.positions.informator), (12, 11));
    assert_eq!(
        secret_bonuses(&next, "Alfa"),
        vec![EconomyEvent::SecretBonus {
            realm: "Alfa".into(),
            position: Position::Informator,
            value: 11,
            text: "Spionerna ser mer.".into(),
        }]
    );
    assert_eq!(alfa.secret_bonuses.len(), 2);
}

#[test]
fn rulings_23_a_production_upgrade_may_add_a_resource_the_city_lacks() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    slaves_kept_in_check(&mut gs);
    let orders = forms(vec![(
        "Alfa",
        vec![
            Order::UpgradeProduction {
                city: sq("C3"),
                resource: Tyg,
            },
            Order::UpgradeProduction {
                city: sq("B2"),
                resource: Slavar,
            },
        ],
    )]);
    let res = weekend(&gs, &orders);
    let c3 = res.state.city_at(sq("C3"), Default::default()).unwrap();
    assert_eq!(c3.production.get(Tyg), 1);
    assert_eq!(
        res.state
            .city_at(sq("B2"), Default::default())
            .unwrap()
            .production
            .get(Slavar),
        4
    );
    let costs: Vec<Resources> = told(&res, "Alfa")
        .into_iter()
        .filter_map(|e| match e {
            EconomyEvent::Bought { cost, .. } => Some(cost),
            _ => None,
        })
        .collect();
    assert_eq!(
        costs,
        vec![
            build_cost::production_ordinary(),
            build_cost::production_slave_or_crystal()
        ]
    );
}

#[test]
fn rulings_2_slaves_convert_one_for_one_into_a_produced_ordinary_resource_only() {
    let mut gs = game();
    stock(&mut gs, "Alfa", &[(Slavar, 10)]);
    with_army(&mut gs, 20);
    let convert = |count, resource| Order::ConvertSlaves { count, resource };
    let orders = forms(vec![(
        "Alfa",
        vec![
            convert(4, Mat),
            convert(1, Guld),
            convert(1, Eld),
            convert(7, Jarn),
        ],
    )]);
    let res = weekend(&gs, &orders);
    let ev = told(&res, "Alfa");
    let rules: Vec<String> = refusals(&ev).into_iter().map(|(r, _)| r).collect();
    assert_eq!(rules, vec!["RULINGS 2", "RULINGS 2", "R-BUILD-4"]);
    // 4 slaves became 4 mat; production then adds mat 2, slavar 3, järn 1.
    assert_eq!(
        res.state.realm("Alfa").unwrap().stock,
        of(&[(Mat, 6), (Slavar, 9), (Jarn, 1)])
    );
}

#[test]
fn r_pop_2_a_purchase_over_the_population_cap_is_refused_at_the_weekend() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    // Population 150: 15 counted units; 2 held.
    let orders = forms(vec![(
        "Alfa",
        vec![
            units(14, UnitKind::LattInfanteri, None),
            units(13, UnitKind::LattInfanteri, None),
        ],
    )]);
    let res = weekend(&gs, &orders);
    assert_eq!(
        refusals(&told(&res, "Alfa")),
        vec![(
            "R-POP-2".to_string(),
            Why::Over {
                cap: Cap::Population,
                have: 2,
                add: 14,
                limit: 15
            }
        )]
    );
    assert_eq!(res.state.army("Alfa", 1).unwrap().units.len(), 15);
}

#[test]
fn r_build_4_a_huge_count_is_refused_without_overflowing() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    gs.cities[0].population = 1_000_000;
    let orders = forms(vec![(
        "Alfa",
        vec![
            units(u32::MAX, UnitKind::LattInfanteri, None),
            Order::BuyPopulation {
                count: u32::MAX,
                city: sq("C3"),
            },
            Order::BuyWalls {
                count: u32::MAX,
                city: sq("B2"),
            },
        ],
    )]);
    let res = weekend(&gs, &orders);
    assert_eq!(refusals(&told(&res, "Alfa")).len(), 3);
}

// ---- Step 6: production --------------------------------------------------------

#[test]
fn r_res_6_each_city_adds_its_production_to_its_owners_stock() {
    let gs = game();
    let res = weekend(&gs, &forms(vec![]));
    assert_eq!(
        res.state.realm("Alfa").unwrap().stock,
        of(&[(Mat, 2), (Slavar, 3), (Jarn, 1)])
    );
    assert_eq!(res.state.realm("Beta").unwrap().stock, of(&[(Guld, 2)]));
}

#[test]
fn r_res_6_a_city_taken_in_the_weekend_produces_for_its_new_owner() {
    let gs = game();
    let orders = forms(vec![]);
    let mut w = Weekend::new(&gs, &orders, &gs.settings, 7);
    // Step 4 gave C3 to Beta.
    w.state
        .cities
        .iter_mut()
        .find(|c| c.square == sq("C3"))
        .unwrap()
        .owner = "Beta".into();
    eco::production(&mut w);
    assert_eq!(
        w.state.realm("Beta").unwrap().stock,
        of(&[(Guld, 2), (Jarn, 1)])
    );
    assert_eq!(
        w.state.realm("Alfa").unwrap().stock,
        of(&[(Mat, 2), (Slavar, 3)])
    );
}

#[test]
fn r_city_5_a_city_plundered_in_the_weekend_gives_its_owner_nothing() {
    let gs = game();
    let orders = forms(vec![]);
    let mut w = Weekend::new(&gs, &orders, &gs.settings, 7);
    w.plundered.insert(sq("B2"));
    eco::production(&mut w);
    assert_eq!(w.state.realm("Alfa").unwrap().stock, of(&[(Jarn, 1)]));
    let ev: Vec<&EconomyEvent> = w
        .events
        .iter()
        .filter(|e| e.seen_by("Alfa"))
        .filter_map(|e| e.what.economy())
        .collect();
    assert_eq!(
        ev,
        vec![&EconomyEvent::Produced {
            realm: "Alfa".into(),
            resources: of(&[(Jarn, 1)]),
            idle: vec![sq("B2")]
        }]
    );
}

#[test]
fn rulings_57_a_city_the_evil_emptied_produces_again_once_it_has_people() {
    let mut gs = game();
    let c3 = gs.cities.iter_mut().find(|c| c.square == sq("C3")).unwrap();
    c3.plundered = true;
    c3.population = 0;
    let res = weekend(&gs, &forms(vec![]));
    assert_eq!(res.state.realm("Alfa").unwrap().stock.get(Jarn), 0);
    assert!(
        res.state
            .city_at(sq("C3"), Default::default())
            .unwrap()
            .plundered
    );
    // Population bought in step 1 brings it back this very weekend.
    let mut gs = res.state.clone();
    rich(&mut gs, "Alfa");
    let orders = forms(vec![(
        "Alfa",
        vec![Order::BuyPopulation {
            count: 1,
            city: sq("C3"),
        }],
    )]);
    let res = weekend(&gs, &orders);
    assert_eq!(res.state.realm("Alfa").unwrap().stock.get(Jarn), 1001);
    assert!(
        !res.state
            .city_at(sq("C3"), Default::default())
            .unwrap()
            .plundered
    );
}

// ---- Step 7: the slave revolt --------------------------------------------------

/// The rulebook's country A: 30 slaves held, 3 produced a round, 22 army units, and
/// some of every ordinary resource.
fn country_a() -> pbemd::game::GameState {
    let mut gs = game();
    with_army(&mut gs, 22);
    let mut s: Vec<(Resource, u32)> = Resource::ALL
        .iter()
        .filter(|r| r.is_ordinary())
        .map(|r| (*r, 10))
        .collect();
    s.push((Slavar, 30));
    s.push((Eld, 4));
    stock(&mut gs, "Alfa", &s);
    gs
}

#[test]
fn r_res_7_slave_revolt_worked_example() {
    let gs = country_a();
    let res = weekend(&gs, &forms(vec![]));
    let revolt = told(&res, "Alfa")
        .into_iter()
        .find(|e| matches!(e, EconomyEvent::SlaveRevolt { .. }))
        .expect("the slaves revolt");
    let lost = of(&[
        (Mat, 2),
        (Tyg, 2),
        (Timmer, 2),
        (Jarn, 2),
        (Guld, 1),
        (Hastar, 1),
        (Sten, 1),
    ]);
    assert_eq!(
        revolt,
        EconomyEvent::SlaveRevolt {
            realm: "Alfa".into(),
            slaves: 30,
            produced: 3,
            army_units: 22,
            lost
        }
    );
    let stock = res.state.realm("Alfa").unwrap().stock;
    assert_eq!(stock.get(Slavar), 0, "the slave box is empty on Monday");
    assert_eq!(
        stock.get(Eld),
        4,
        "crystals are untouched while ordinary resources cover it"
    );
    // 10 + 2 produced − 2 lost.
    assert_eq!(stock.get(Mat), 10);
    assert!(told(&res, "Beta")
        .iter()
        .all(|e| !matches!(e, EconomyEvent::SlaveRevolt { .. })));
}

#[test]
fn r_res_7_no_revolt_while_the_army_is_as_large_as_the_slave_stock() {
    let mut gs = country_a();
    with_army(&mut gs, 30);
    let res = weekend(&gs, &forms(vec![]));
    assert!(told(&res, "Alfa")
        .iter()
        .all(|e| !matches!(e, EconomyEvent::SlaveRevolt { .. })));
    assert_eq!(res.state.realm("Alfa").unwrap().stock.get(Slavar), 33);
}

#[test]
fn rulings_6_slave_revolt_loss_all_takes_as_many_as_the_slaves() {
    let mut gs = country_a();
    gs.settings.slave_revolt_loss = SlaveRevoltLoss::All;
    let res = weekend(&gs, &forms(vec![]));
    let lost = told(&res, "Alfa").into_iter().find_map(|e| match e {
        EconomyEvent::SlaveRevolt { lost, .. } => Some(lost),
        _ => None,
    });
    assert_eq!(lost.unwrap().total(), 33);
}

/// Alfa's cities produce nothing this weekend and its army has two units, so a
/// revolt's loss is counted from the stock alone.
fn revolt_with_nothing_produced() -> pbemd::game::GameState {
    let mut gs = game();
    for c in gs.cities.iter_mut() {
        c.production = Resources::ZERO;
    }
    with_army(&mut gs, 2);
    gs
}

#[test]
fn rulings_7_the_loss_takes_crystals_only_when_the_ordinary_resources_run_out() {
    let mut gs = revolt_with_nothing_produced();
    stock(
        &mut gs,
        "Alfa",
        &[(Slavar, 9), (Mat, 1), (Sten, 2), (Eld, 1), (Luft, 9)],
    );
    let res = weekend(&gs, &forms(vec![]));
    // 9 − 2 = 7: mat 1, sten 2 (all the ordinary ones), then eld 1, luft 3.
    assert_eq!(res.state.realm("Alfa").unwrap().stock, of(&[(Luft, 6)]));
}

#[test]
fn rulings_5_the_revolt_counts_the_army_as_the_form_found_it() {
    let mut gs = country_a();
    with_army(&mut gs, 2);
    stock(
        &mut gs,
        "Alfa",
        &[
            (Slavar, 5),
            (Mat, 100),
            (Guld, 100),
            (Tyg, 100),
            (Jarn, 100),
        ],
    );
    // Ten units bought in step 1 do not stop the revolt of slaves that outnumbered two.
    let orders = forms(vec![(
        "Alfa",
        vec![units(10, UnitKind::LattInfanteri, None)],
    )]);
    let res = weekend(&gs, &orders);
    let revolt = told(&res, "Alfa").into_iter().find_map(|e| match e {
        EconomyEvent::SlaveRevolt {
            army_units, lost, ..
        } => Some((army_units, lost.total())),
        _ => None,
    });
    assert_eq!(revolt, Some((2, 5 + 3 - 2)));
}

// ---- Step 8: army overflow -----------------------------------------------------

#[test]
fn rulings_51_overflow_warns_and_keeps_every_unit() {
    let mut gs = game();
    with_army(&mut gs, 20);
    let res = weekend(&gs, &forms(vec![]));
    assert!(told(&res, "Alfa").contains(&EconomyEvent::Overflow {
        realm: "Alfa".into(),
        cap: Cap::Population,
        have: 20,
        limit: 15,
        disbanded: 0
    }));
    assert_eq!(res.state.army("Alfa", 1).unwrap().units.len(), 20);
}

#[test]
fn rulings_51_disband_removes_the_excess_from_the_end_of_the_largest_group() {
    let mut gs = game();
    gs.settings.army_overflow = ArmyOverflow::Disband;
    with_army(&mut gs, 18);
    gs.armies[0].units[17].kind = UnitKind::TungtInfanteri;
    let mut small = gs.armies[0].clone();
    small.id = 2;
    small.square = sq("C3");
    small.units.truncate(2);
    gs.armies.push(small);
    let res = weekend(&gs, &forms(vec![]));
    // 20 counted, cap 15: five go, all from the tail of army 1.
    assert_eq!(res.state.army("Alfa", 1).unwrap().units.len(), 13);
    assert_eq!(res.state.army("Alfa", 2).unwrap().units.len(), 2);
    assert!(res
        .state
        .army("Alfa", 1)
        .unwrap()
        .units
        .iter()
        .all(|u| u.kind == UnitKind::LattInfanteri));
    assert!(told(&res, "Alfa")
        .iter()
        .any(|e| matches!(e, EconomyEvent::Overflow { disbanded: 5, .. })));
}

/// Alfa's army 1 (`units` light infantry) aboard fleet 1 of `ships` transports on the
/// sea at A2, with Amiral `amiral` (five ships a step).
fn alfa_at_sea(units: usize, ships: usize, amiral: u32) -> pbemd::game::GameState {
    let mut gs = game();
    gs.settings.army_overflow = ArmyOverflow::Disband;
    gs.realm_mut("Alfa").unwrap().positions.amiral = amiral;
    with_army(&mut gs, units);
    gs.armies[0].square = sq("A2");
    let ship = pbemd::game::state::Ship {
        kind: ShipKind::Transportskepp,
        built_round: 0,
    };
    gs.fleets.push(pbemd::game::state::Fleet {
        id: 1,
        owner: "Alfa".into(),
        square: sq("A2"),
        dimension: Default::default(),
        ships: vec![ship; ships],
        cargo: vec![1],
        must_leave_by_round: None,
    });
    gs
}

fn cargo_lost(res: &pbemd::game::weekend::Resolution) -> Vec<(u32, u64, bool)> {
    use pbemd::game::event::What;
    use pbemd::game::weekend::military::MilitaryEvent;
    res.events
        .iter()
        .filter(|e| e.seen_by("Alfa"))
        .filter_map(|e| match &e.what {
            What::Military(MilitaryEvent::CargoLost {
                fleet,
                units,
                fleet_sunk,
                ..
            }) => Some((*fleet, *units, *fleet_sunk)),
            _ => None,
        })
        .collect()
}

#[test]
fn rulings_51_the_troops_aboard_a_disbanded_fleet_drown_with_it() {
    // Amiral 0: no ship allowed; the one transport goes, and the army aboard with it.
    let res = weekend(&alfa_at_sea(2, 1, 0), &forms(vec![]));
    assert!(res.state.fleets_of("Alfa").next().is_none());
    assert!(
        res.state.army("Alfa", 1).is_none(),
        "no army is left on the sea"
    );
    assert_eq!(cargo_lost(&res), vec![(1, 2, true)]);
    assert!(res.state.validate().is_ok(), "{:?}", res.state.validate());
}

#[test]
fn rulings_51_a_thinned_fleet_drowns_what_its_ships_left_cannot_carry() {
    // Amiral 1: five transports allowed of seven; 5 × 5 = 25 places for 30 aboard.
    let per_ship = ShipKind::Transportskepp.cargo_capacity() as usize;
    let aboard = 5 * per_ship + 5;
    let mut gs = alfa_at_sea(aboard, 7, 1);
    // Population enough for every unit and ship: only the ship cap is over.
    gs.cities.iter_mut().for_each(|c| c.population = 1000);
    let res = weekend(&gs, &forms(vec![]));
    let fleet = res.state.fleets_of("Alfa").next().unwrap();
    assert_eq!(fleet.ships.len(), 5);
    assert_eq!(
        res.state.army("Alfa", 1).unwrap().units.len(),
        5 * per_ship,
        "the army fills what is left"
    );
    assert_eq!(cargo_lost(&res), vec![(1, 5, false)]);
}

#[test]
fn r_pos_7_over_the_ship_cap_is_reported_and_disbanded_by_the_setting() {
    let mut gs = game();
    gs.settings.army_overflow = ArmyOverflow::Disband;
    gs.realm_mut("Alfa").unwrap().positions.amiral = 1;
    let ship = pbemd::game::state::Ship {
        kind: ShipKind::Transportskepp,
        built_round: 0,
    };
    gs.fleets.push(pbemd::game::state::Fleet {
        id: 1,
        owner: "Alfa".into(),
        square: sq("B2"),
        dimension: Default::default(),
        ships: vec![ship; 7],
        cargo: vec![],
        must_leave_by_round: None,
    });
    let res = weekend(&gs, &forms(vec![]));
    assert_eq!(res.state.fleets_of("Alfa").next().unwrap().ships.len(), 5);
    assert!(told(&res, "Alfa").contains(&EconomyEvent::Overflow {
        realm: "Alfa".into(),
        cap: Cap::Ships,
        have: 7,
        limit: 5,
        disbanded: 2
    }));
}

#[test]
fn rulings_51_disband_over_the_army_group_cap_only_warns() {
    let mut gs = game();
    gs.settings.army_overflow = ArmyOverflow::Disband;
    gs.realm_mut("Alfa").unwrap().positions.befalhavare = 1;
    with_army(&mut gs, 2);
    for (id, square) in [(2, "C3"), (3, "B3")] {
        let mut other = gs.armies[0].clone();
        other.id = id;
        other.square = sq(square);
        gs.armies.push(other);
    }
    let res = weekend(&gs, &forms(vec![]));
    assert!(told(&res, "Alfa").contains(&EconomyEvent::Overflow {
        realm: "Alfa".into(),
        cap: Cap::ArmyGroups,
        have: 3,
        limit: 2,
        disbanded: 0
    }));
    for id in 1..=3 {
        assert_eq!(
            res.state.army("Alfa", id).unwrap().units.len(),
            2,
            "group {id}"
        );
    }
}

#[test]
fn rulings_51_disband_takes_the_units_of_the_groups_before_the_spies_held() {
    let mut gs = game();
    gs.settings.army_overflow = ArmyOverflow::Disband;
    with_army(&mut gs, 15);
    gs.realm_mut("Alfa").unwrap().spies = 2;
    let res = weekend(&gs, &forms(vec![]));
    // 15 army units and 2 spies against a cap of 15: two units go, the spies stay.
    assert!(told(&res, "Alfa").contains(&EconomyEvent::Overflow {
        realm: "Alfa".into(),
        cap: Cap::Population,
        have: 17,
        limit: 15,
        disbanded: 2
    }));
    assert_eq!(res.state.army("Alfa", 1).unwrap().units.len(), 13);
    assert_eq!(res.state.realm("Alfa").unwrap().spies, 2);
}

#[test]
fn rulings_51_disband_takes_the_last_elementals_of_the_largest_group() {
    use UnitKind::{Eldelementar as E, LattInfanteri as L};
    let mut gs = game();
    gs.settings.army_overflow = ArmyOverflow::Disband;
    let unit = |kind| Unit {
        kind,
        built_round: 0,
    };
    gs.armies[0].units = [L, E, E, L, E, E, L].into_iter().map(unit).collect();
    let mut small = gs.armies[0].clone();
    small.id = 2;
    small.square = sq("C3");
    small.units = [E, L].into_iter().map(unit).collect();
    gs.armies.push(small);
    let res = weekend(&gs, &forms(vec![]));
    // Five elementals against Besvärjare 1 (three at most): two go.
    assert!(told(&res, "Alfa").contains(&EconomyEvent::Overflow {
        realm: "Alfa".into(),
        cap: Cap::Elementals,
        have: 5,
        limit: 3,
        disbanded: 2
    }));
    let kinds = |id| -> Vec<UnitKind> {
        let a = res.state.army("Alfa", id).unwrap();
        a.units.iter().map(|u| u.kind).collect()
    };
    assert_eq!(kinds(1), vec![L, E, E, L, L]);
    assert_eq!(kinds(2), vec![E, L]);
}

// ---- Wrap-up ---------------------------------------------------------------------

#[test]
fn r_ally_1_friend_and_unfriend_lines_change_the_relations_box() {
    let gs = game();
    let orders = forms(vec![
        (
            "Alfa",
            vec![Order::Friend {
                realm: "BETA".into(),
            }],
        ),
        (
            "Beta",
            vec![
                Order::Friend {
                    realm: "alfa".into(),
                },
                Order::NotFriend {
                    realm: "Alfa".into(),
                },
            ],
        ),
    ]);
    let res = weekend(&gs, &orders);
    assert_eq!(
        res.state.realm("Alfa").unwrap().friends,
        vec!["Beta".to_string()]
    );
    assert!(res.state.realm("Beta").unwrap().friends.is_empty());
    assert!(told(&res, "Alfa").contains(&EconomyEvent::Relation {
        realm: "Alfa".into(),
        other: "Beta".into(),
        friend: true
    }));
}

#[test]
fn r_city_9_a_capital_line_moves_the_capital_and_its_flag() {
    let gs = game();
    let orders = forms(vec![("Alfa", vec![Order::Capital { city: sq("C3") }])]);
    let res = weekend(&gs, &orders);
    assert_eq!(res.state.realm("Alfa").unwrap().capital, Some(sq("C3")));
    assert!(
        res.state
            .city_at(sq("C3"), Default::default())
            .unwrap()
            .capital
    );
    assert!(
        !res.state
            .city_at(sq("B2"), Default::default())
            .unwrap()
            .capital
    );
    assert!(res.state.validate().is_ok(), "{:?}", res.state.validate());
}

#[test]
fn r_city_10_a_main_harbour_must_be_coastal() {
    let gs = game();
    let orders = forms(vec![("Alfa", vec![Order::MainHarbour { city: sq("C3") }])]);
    let res = weekend(&gs, &orders);
    assert_eq!(
        res.state.realm("Alfa").unwrap().main_harbour,
        Some(sq("B2"))
    );
}

#[test]
fn rulings_29_a_lost_capital_is_stood_in_for_by_the_most_populous_city() {
    let mut gs = game();
    // B2 fell to Beta in the weekend (set up here as already taken).
    gs.cities[0].owner = "Beta".into();
    let res = weekend(&gs, &forms(vec![]));
    let alfa = res.state.realm("Alfa").unwrap();
    assert_eq!(alfa.capital, Some(sq("C3")));
    assert_eq!(
        alfa.main_harbour, None,
        "C3 is inland: no harbour to stand in"
    );
    assert!(told(&res, "Alfa").contains(&EconomyEvent::Capital {
        realm: "Alfa".into(),
        city: sq("C3"),
        stand_in: true
    }));
    assert!(
        !res.state
            .city_at(sq("B2"), Default::default())
            .unwrap()
            .capital,
        "the old flag goes"
    );
}

#[test]
fn r_res_3_a_wish_list_replaces_the_published_one() {
    let gs = game();
    let orders = forms(vec![(
        "Beta",
        vec![Order::TradeWishes {
            buy: vec![Mat, Sten],
            sell: vec![Guld],
        }],
    )]);
    let res = weekend(&gs, &orders);
    let w = &res.state.realm("Beta").unwrap().trade_wishes;
    assert_eq!(
        (w.buy.clone(), w.sell.clone()),
        (vec![Mat, Sten], vec![Guld])
    );
}

/// A spy whose work ended is listed as done on the Monday form after its week, then
/// dropped at the weekend after; a waiting spy stays (D-53).
#[test]
fn spies_done_before_this_round_are_dropped_at_the_weekend() {
    use pbemd::game::state::{SpyMission, SpyState, StationedSpy};
    let mut gs = game();
    gs.round = 4;
    let spy = |id, state, done_round| StationedSpy {
        id,
        owner: "Alfa".into(),
        realm: "Beta".into(),
        placed_at: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
        mission: SpyMission::Armies,
        state,
        done_round,
        saw: None,
    };
    gs.spies = vec![
        spy(1, SpyState::Succeeded, Some(3)),
        spy(2, SpyState::Failed, Some(4)),
        spy(3, SpyState::Blocked, Some(2)),
        spy(4, SpyState::Waiting, None),
        spy(5, SpyState::Succeeded, None),
    ];
    let res = weekend(&gs, &forms(vec![]));
    let kept: Vec<u64> = res.state.spies.iter().map(|s| s.id).collect();
    assert_eq!(kept, [2, 4], "done this round, and waiting");
}

#[test]
fn r_inv_3_expired_invitations_and_spell_effects_are_pruned() {
    let mut gs = game();
    gs.round = 4;
    let inv = |id, valid_until_round| Invitation {
        id,
        from: "Beta".into(),
        square: sq("E2"),
        sent_round: 3,
        valid_until_round,
        intercepted_from: None,
        used: false,
    };
    gs.realm_mut("Alfa").unwrap().invitations = vec![inv(1, 4), inv(2, 5)];
    let effect = |expires_round| SpellEffect {
        spell: Spell::ALL[0],
        caster: "Beta".into(),
        target: SpellTarget::Realm("Alfa".into()),
        cast_round: 4,
        expires_round,
    };
    gs.effects = vec![effect(4), effect(5)];
    let res = weekend(&gs, &forms(vec![]));
    let ids: Vec<u64> = res
        .state
        .realm("Alfa")
        .unwrap()
        .invitations
        .iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(ids, vec![2]);
    assert_eq!(
        res.state
            .effects
            .iter()
            .map(|e| e.expires_round)
            .collect::<Vec<_>>(),
        vec![5]
    );
}

#[test]
fn r_vp_3_the_ledger_tells_each_realm_its_vp_before_and_after() {
    let gs = game();
    let orders = forms(vec![]);
    let mut w = Weekend::new(&gs, &orders, &gs.settings, 7);
    w.state.realm_mut("Alfa").unwrap().vp += 50; // a city taken in step 4
    eco::wrap_up(&mut w);
    let vp: Vec<&EconomyEvent> = w
        .events
        .iter()
        .filter_map(|e| e.what.economy())
        .filter(|ev| matches!(ev, EconomyEvent::Vp { .. }))
        .collect();
    assert_eq!(
        vp,
        vec![&EconomyEvent::Vp {
            realm: "Alfa".into(),
            before: 300,
            after: 350
        }]
    );
    assert_eq!(w.events[0].seen_by, vec!["Alfa".to_string()]);
}

#[test]
fn r_vp_1_the_first_at_the_line_wins_and_everyone_is_told() {
    let mut gs = game();
    gs.realm_mut("Alfa").unwrap().vp = 1999;
    gs.realm_mut("Beta").unwrap().vp = 2000;
    let res = weekend(&gs, &forms(vec![]));
    let victory = EconomyEvent::Victory {
        realm: "Beta".into(),
        vp: 2000,
    };
    assert!(told(&res, "Alfa").contains(&victory));
    assert!(told(&res, "Beta").contains(&victory));
    assert_eq!(res.state.phase, Phase::Finished);
}

#[test]
fn rulings_47_several_over_the_line_most_vp_then_the_earliest_form() {
    let mut gs = game();
    gs.realm_mut("Alfa").unwrap().vp = 2100;
    gs.realm_mut("Beta").unwrap().vp = 2100;
    let orders = forms(vec![("Beta", vec![]), ("Alfa", vec![])]);
    let res = weekend(&gs, &orders);
    assert!(told(&res, "Alfa").contains(&EconomyEvent::Victory {
        realm: "Beta".into(),
        vp: 2100
    }));
    gs.realm_mut("Alfa").unwrap().vp = 2101;
    let res = weekend(&gs, &orders);
    assert!(told(&res, "Alfa").contains(&EconomyEvent::Victory {
        realm: "Alfa".into(),
        vp: 2101
    }));
}

#[test]
fn r_phase_1_without_a_winner_the_phase_stays_resolving() {
    let res = weekend(&game(), &forms(vec![]));
    assert_eq!(res.state.phase, Phase::Resolving);
    assert!(res
        .events
        .iter()
        .all(|e| !matches!(e.what.economy(), Some(EconomyEvent::Victory { .. }))));
}

#[test]
fn r_res_10_each_realm_reads_its_own_economy_on_monday_in_its_language() {
    let mut gs = country_a();
    // No free-merchant lot, so Beta's report is its economy alone.
    gs.settings.free_merchant_goods.clear();
    let orders = forms(vec![(
        "Alfa",
        vec![Order::BuyPopulation {
            count: 1,
            city: sq("B2"),
        }],
    )]);
    let res = weekend(&gs, &orders);
    let alfa =
        pbemd::render::weekend::report(&res.events, &res.state, "Alfa", pbemd::game::Lang::Sv);
    assert!(
        alfa.iter()
            .any(|l| l.starts_with("Köpt: +10 befolkning i B2 (nu 110)")),
        "{alfa:?}"
    );
    assert!(
        alfa.iter()
            .any(|l| l.starts_with("Slavuppror: 30 slavar mot 22 arméenheter")),
        "{alfa:?}"
    );
    let beta =
        pbemd::render::weekend::report(&res.events, &res.state, "Beta", pbemd::game::Lang::En);
    assert_eq!(beta, vec!["Production: 2 gold.".to_string()]);
}

// ---- Hostile numbers and the state's invariants ----------------------------------

mod hostile {
    use super::*;
    use proptest::prelude::*;

    fn square() -> impl Strategy<Value = pbemd::game::Square> {
        (0u16..7, 0u16..7).prop_map(|(c, r)| pbemd::game::Square::new(c, r).unwrap_or(sq("A1")))
    }

    fn resource() -> impl Strategy<Value = Resource> {
        (0usize..12).prop_map(|i| Resource::ALL[i])
    }

    fn amount() -> impl Strategy<Value = u32> {
        prop_oneof![
            0u32..20,
            Just(u32::MAX),
            Just(u32::MAX / 10 + 1),
            any::<u32>()
        ]
    }

    fn purchase() -> impl Strategy<Value = Order> {
        prop_oneof![
            (amount(), 0usize..14, proptest::option::of(square())).prop_map(|(count, k, city)| {
                Order::BuyUnits {
                    count,
                    kind: UnitKind::ALL[k],
                    city,
                }
            }),
            (amount(), 0usize..5, proptest::option::of(square())).prop_map(|(count, k, city)| {
                Order::BuyShips {
                    count,
                    kind: ShipKind::ALL[k],
                    city,
                }
            }),
            amount().prop_map(|count| Order::BuySpies { count }),
            (amount(), square()).prop_map(|(count, city)| Order::BuyWalls { count, city }),
            (
                square(),
                proptest::collection::vec((amount(), resource()), 0..4)
            )
                .prop_map(|(square, v)| {
                    Order::BuyCity {
                        square,
                        production: v
                            .into_iter()
                            .map(|(count, resource)| Amount { count, resource })
                            .collect(),
                    }
                }),
            (amount(), square()).prop_map(|(count, city)| Order::BuyPopulation { count, city }),
            (
                0usize..7,
                proptest::collection::vec((amount(), resource()), 0..3)
            )
                .prop_map(|(p, v)| {
                    Order::UpgradePosition {
                        position: Position::ALL[p],
                        crystals: v
                            .into_iter()
                            .map(|(count, resource)| Amount { count, resource })
                            .collect(),
                    }
                }),
            (square(), resource())
                .prop_map(|(city, resource)| Order::UpgradeProduction { city, resource }),
            (amount(), resource())
                .prop_map(|(count, resource)| Order::ConvertSlaves { count, resource }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever purchases a form holds, the weekend neither panics nor leaves a
        /// state that fails its own checks, and the stock only pays what it holds.
        #[test]
        fn r_build_4_any_purchases_leave_a_valid_state(
            orders in proptest::collection::vec(purchase(), 0..12),
            disband in any::<bool>(),
            stock_each in prop_oneof![Just(0u32), Just(50), Just(u32::MAX)],
        ) {
            let mut gs = game();
            if disband {
                gs.settings.army_overflow = ArmyOverflow::Disband;
            }
            let all: Vec<(Resource, u32)> = Resource::ALL.iter().map(|r| (*r, stock_each)).collect();
            stock(&mut gs, "Alfa", &all);
            let res = weekend(&gs, &forms(vec![("Alfa", orders)]));
            prop_assert!(res.state.validate().is_ok(), "{:?}", res.state.validate());
        }
    }
}

#[test]
fn r_build_4_a_count_of_nothing_buys_nothing_and_leaves_no_empty_group() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    let orders = forms(vec![(
        "Alfa",
        vec![
            Order::BuyShips {
                count: 0,
                kind: ShipKind::Transportskepp,
                city: None,
            },
            units(0, UnitKind::LattInfanteri, Some("C3")),
        ],
    )]);
    let res = weekend(&gs, &orders);
    assert_eq!(
        refusals(&told(&res, "Alfa")),
        vec![
            ("R-BUILD-4".to_string(), Why::Nothing),
            ("R-BUILD-4".to_string(), Why::Nothing)
        ]
    );
    assert!(res.state.validate().is_ok(), "{:?}", res.state.validate());
}

// ---- Rules pinned by their own ID (docs/rules.md) ----------------------------

#[test]
fn r_build_2_one_step_per_city_and_resource_a_second_city_may_take_the_same_resource() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    slaves_kept_in_check(&mut gs);
    let up = |city: &str, resource| Order::UpgradeProduction {
        city: sq(city),
        resource,
    };
    // Forskare 2: two steps in all; the second mat step in C3 is the refused one.
    let orders = forms(vec![(
        "Alfa",
        vec![up("C3", Mat), up("C3", Mat), up("B2", Mat)],
    )]);
    let res = weekend(&gs, &orders);
    let production = |s: &str| {
        res.state
            .city_at(sq(s), Default::default())
            .unwrap()
            .production
            .get(Mat)
    };
    assert_eq!(production("C3"), 1, "one step in C3, not two");
    assert_eq!(production("B2"), 3, "B2 may take a mat step of its own");
    assert_eq!(
        refusals(&told(&res, "Alfa")),
        vec![("R-BUILD-2".to_string(), Why::OneStep)]
    );
}

#[test]
fn r_build_3_a_city_may_take_up_a_crystal_no_city_of_the_realm_makes() {
    let mut gs = game();
    rich(&mut gs, "Alfa");
    slaves_kept_in_check(&mut gs);
    assert!(gs
        .cities
        .iter()
        .filter(|c| c.owner == "Alfa")
        .all(|c| c.production.get(Luft) == 0));
    let orders = forms(vec![(
        "Alfa",
        vec![Order::UpgradeProduction {
            city: sq("C3"),
            resource: Luft,
        }],
    )]);
    let res = weekend(&gs, &orders);
    assert!(refusals(&told(&res, "Alfa")).is_empty());
    let c3 = res.state.city_at(sq("C3"), Default::default()).unwrap();
    assert_eq!(c3.production, of(&[(Jarn, 1), (Luft, 1)]));
    let cost = told(&res, "Alfa").into_iter().find_map(|e| match e {
        EconomyEvent::Bought { cost, .. } => Some(cost),
        _ => None,
    });
    assert_eq!(cost, Some(build_cost::production_slave_or_crystal()));
}

#[test]
fn r_res_2_slaves_converted_in_step_1_pay_for_a_purchase_below_them() {
    let price = UnitKind::LattInfanteri.cost().expect("a price");
    let need = price.get(Mat);
    assert!(need > 0, "light infantry costs food");
    let base = |gs: &mut pbemd::game::GameState| {
        // As many army units as slaves (no revolt), well under the population cap.
        with_army(gs, need as usize);
        let mut s = price;
        s.set(Mat, 0);
        s.set(Slavar, need);
        gs.realm_mut("Alfa").unwrap().stock = s;
    };
    let mut gs = game();
    base(&mut gs);
    let buy = units(1, UnitKind::LattInfanteri, None);
    let with_convert = forms(vec![(
        "Alfa",
        vec![
            Order::ConvertSlaves {
                count: need,
                resource: Mat,
            },
            buy.clone(),
        ],
    )]);
    let res = weekend(&gs, &with_convert);
    assert!(refusals(&told(&res, "Alfa")).is_empty());
    assert_eq!(
        bought(&told(&res, "Alfa")).len(),
        2,
        "the convert and the unit"
    );
    let army_units: usize = res
        .state
        .armies
        .iter()
        .filter(|a| a.owner == "Alfa")
        .map(|a| a.units.len())
        .sum();
    assert_eq!(army_units, need as usize + 1);
    // Without the convert line the same purchase is short of food.
    let res = weekend(&gs, &forms(vec![("Alfa", vec![buy])]));
    let rules: Vec<String> = refusals(&told(&res, "Alfa"))
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert_eq!(rules, vec!["R-BUILD-4"]);
}

#[test]
fn r_res_8_the_slaves_produced_that_weekend_go_too_and_count_in_the_loss() {
    let lost_with = |slaves_made: u32| {
        let mut gs = country_a();
        let b2 = gs.cities.iter_mut().find(|c| c.square == sq("B2")).unwrap();
        b2.production.set(Slavar, slaves_made);
        let res = weekend(&gs, &forms(vec![]));
        assert_eq!(res.state.realm("Alfa").unwrap().stock.get(Slavar), 0);
        told(&res, "Alfa")
            .into_iter()
            .find_map(|e| match e {
                EconomyEvent::SlaveRevolt { produced, lost, .. } => Some((produced, lost.total())),
                _ => None,
            })
            .expect("the slaves revolt")
    };
    // 30 held against 22 army units: 30 + made − 22 are lost besides the slaves.
    assert_eq!(lost_with(0), (0, 8));
    assert_eq!(lost_with(3), (3, 11));
    assert_eq!(lost_with(5), (5, 13));
}

#[test]
fn r_res_9_the_loss_goes_round_the_ordinary_resources_one_at_a_time_skipping_empty_ones() {
    let mut gs = revolt_with_nothing_produced();
    stock(
        &mut gs,
        "Alfa",
        &[
            (Slavar, 7),
            (Mat, 1),
            (Timmer, 3),
            (Jarn, 3),
            (Hastar, 1),
            (Eld, 2),
        ],
    );
    let res = weekend(&gs, &forms(vec![]));
    // 7 − 2 = 5: mat, timmer, järn, hästar; then timmer again (mat and hästar are out).
    assert_eq!(
        res.state.realm("Alfa").unwrap().stock,
        of(&[(Timmer, 1), (Jarn, 2), (Eld, 2)])
    );
}

#[test]
fn r_gen_3_the_victory_line_is_the_setting_shown_on_the_form_and_reaching_it_wins() {
    let mut gs = game();
    gs.settings.victory_vp = 700;
    gs.realm_mut("Alfa").unwrap().vp = 700;
    gs.realm_mut("Beta").unwrap().vp = 699;
    let ctx = pbemd::render::FormContext {
        deadline_local: "söndag 29 november 2026 15:00".into(),
        window_local: String::new(),
        game_address: "sl@game.test".into(),
        realms_listed: None,
    };
    let r = pbemd::render::Renderer::new().unwrap();
    let sv = r.result_form(&gs, "Alfa", &ctx).unwrap();
    assert!(sv.contains("Segerpoäng: 700 (seger vid 700,"), "{sv}");
    let en = r.result_form(&gs, "Beta", &ctx).unwrap();
    assert!(en.contains("Victory points: 699 (victory at 700,"), "{en}");
    let res = weekend(&gs, &forms(vec![]));
    let victory = EconomyEvent::Victory {
        realm: "Alfa".into(),
        vp: 700,
    };
    assert!(told(&res, "Beta").contains(&victory));
    assert_eq!(res.state.phase, Phase::Finished);
}
