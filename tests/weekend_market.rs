//! The free merchants (R-FREE), engineers and research (R-ENG) at the weekend, as
//! rules cases: one test per case, named by rule ID (docs/rules.md cites them).

#[path = "weekend_common/economy.rs"]
mod economy;

use economy::*;
use pbemd::game::event::{Step, What};
use pbemd::game::orders::{Amount, Group, Order};
use pbemd::game::state::{
    FreeMerchantGood, FreeMerchantOffer, LocalText, Lot, Researched, Ruler, RulerBenefit, Unit,
};
use pbemd::game::weekend::economy::{Cap, EconomyEvent, Purchase};
use pbemd::game::weekend::market::{bid_value, MarketEvent, Why};
use pbemd::game::weekend::{resolve, Resolution};
use pbemd::game::{GameState, Resource, UnitKind};

use Resource::*;

fn amounts(pairs: &[(Resource, u32)]) -> Vec<Amount> {
    pairs
        .iter()
        .map(|&(resource, count)| Amount { count, resource })
        .collect()
}

fn bid(pairs: &[(Resource, u32)]) -> Order {
    Order::Bid {
        offer: amounts(pairs),
    }
}

/// This week's lot: `n` iron, minimum `n`.
fn iron_lot(gs: &mut GameState, n: u32) {
    gs.free_merchant = Some(FreeMerchantOffer {
        round: gs.round,
        lot: Lot::Resource {
            resource: Jarn,
            amount: n,
        },
        min_bid: n,
    });
}

/// This week's lot: `n` heavy cavalry, minimum `min`.
fn cavalry_lot(gs: &mut GameState, n: u32, min: u32) {
    gs.free_merchant = Some(FreeMerchantOffer {
        round: gs.round,
        lot: Lot::Units {
            kind: UnitKind::TungtKavalleri,
            count: n,
        },
        min_bid: min,
    });
}

/// The market events `realm` may read.
fn market(res: &Resolution, realm: &str) -> Vec<MarketEvent> {
    res.events
        .iter()
        .filter(|e| e.seen_by(realm))
        .filter_map(|e| match &e.what {
            What::Market(ev) => Some((**ev).clone()),
            _ => None,
        })
        .collect()
}

fn won(res: &Resolution, realm: &str) -> Option<(Lot, u64)> {
    market(res, realm).into_iter().find_map(|e| match e {
        MarketEvent::Won { lot, value, .. } => Some((lot, value)),
        _ => None,
    })
}

fn bid_refusal(res: &Resolution, realm: &str) -> Option<(String, Why)> {
    market(res, realm).into_iter().find_map(|e| match e {
        MarketEvent::BidRefused { rule, why, .. } => Some((rule, why)),
        _ => None,
    })
}

fn stock_of(res: &Resolution, realm: &str, r: Resource) -> u32 {
    res.state.realm(realm).expect("realm").stock.get(r)
}

/// Alfa's capital produces no slaves, so no revolt muddles the stocks.
fn no_revolt(gs: &mut GameState) {
    for c in gs.cities.iter_mut() {
        c.production.set(Slavar, 0);
    }
}

/// Alfa and Beta both rich, a lot of 10 iron on offer.
fn auction() -> GameState {
    let mut gs = game();
    no_revolt(&mut gs);
    rich(&mut gs, "Alfa");
    rich(&mut gs, "Beta");
    iron_lot(&mut gs, 10);
    gs
}

// ---- the offer ---------------------------------------------------------------------

#[test]
fn r_free_1_the_weekend_draws_next_weeks_lot_and_announces_it_to_every_realm() {
    let gs = game();
    let res = weekend(&gs, &forms(vec![]));
    let offer = res
        .state
        .free_merchant
        .clone()
        .expect("a lot for next week");
    assert_eq!(offer.round, gs.round + 1);
    let Lot::Resource { amount, .. } = offer.lot else {
        panic!("the default goods are resources: {offer:?}");
    };
    assert_eq!((amount, offer.min_bid), (10, 10));
    for realm in ["Alfa", "Beta"] {
        let told: Vec<MarketEvent> = market(&res, realm);
        assert!(
            told.iter().any(
                |e| matches!(e, MarketEvent::Offer { round, lot, min_bid: 10 }
                if *round == gs.round + 1 && *lot == offer.lot)
            ),
            "{realm}: {told:?}"
        );
    }
    let step = res
        .events
        .iter()
        .find(|e| matches!(e.what.market(), Some(MarketEvent::Offer { .. })))
        .map(|e| e.step);
    assert_eq!(step, Some(Step::FreeMerchants));
}

#[test]
fn r_free_1_the_lot_is_drawn_from_the_scenarios_goods_and_a_troop_lot_keeps_its_minimum() {
    let mut gs = game();
    gs.settings.free_merchant_goods = vec![FreeMerchantGood::Units {
        units: UnitKind::Bagskyttar,
        min_bid: 40,
    }];
    gs.settings.free_merchant_lot = 6;
    let res = weekend(&gs, &forms(vec![]));
    let offer = res.state.free_merchant.expect("a lot");
    assert_eq!(
        offer.lot,
        Lot::Units {
            kind: UnitKind::Bagskyttar,
            count: 6
        }
    );
    assert_eq!(offer.min_bid, 40);
}

#[test]
fn rulings_40_the_lot_size_is_a_setting_and_a_resource_lots_minimum_bid() {
    let mut gs = game();
    gs.settings.free_merchant_goods = vec![FreeMerchantGood::Resource { resource: Jarn }];
    gs.settings.free_merchant_lot = 6;
    let res = weekend(&gs, &forms(vec![]));
    let offer = res.state.free_merchant.expect("a lot");
    assert_eq!(
        offer.lot,
        Lot::Resource {
            resource: Jarn,
            amount: 6
        }
    );
    assert_eq!(offer.min_bid, 6);
}

#[test]
fn r_free_4_a_troop_lots_minimum_is_never_under_its_size() {
    let mut gs = game();
    gs.settings.free_merchant_goods = vec![FreeMerchantGood::Units {
        units: UnitKind::Bagskyttar,
        min_bid: 3,
    }];
    let res = weekend(&gs, &forms(vec![]));
    assert_eq!(res.state.free_merchant.expect("a lot").min_bid, 10);
}

#[test]
fn r_free_1_without_goods_there_is_no_lot() {
    let mut gs = game();
    gs.settings.free_merchant_goods.clear();
    iron_lot(&mut gs, 10);
    let res = weekend(&gs, &forms(vec![]));
    assert_eq!(res.state.free_merchant, None);
}

#[test]
fn r_free_1_the_draw_is_a_recorded_roll_and_replays_the_same() {
    let gs = game();
    let a = weekend(&gs, &forms(vec![]));
    let b = weekend(&gs, &forms(vec![]));
    assert_eq!(a.state.free_merchant, b.state.free_merchant);
    let roll = a
        .rolls
        .iter()
        .find(|r| r.purpose == "weekend/free_merchant/offer")
        .expect("the draw is recorded");
    assert_eq!(roll.sides, 12);
    let Some(Lot::Resource { resource, .. }) = a.state.free_merchant.map(|o| o.lot) else {
        panic!("a resource lot");
    };
    assert_eq!(resource, Resource::ALL[roll.value as usize - 1]);
}

#[test]
fn r_free_1_a_bid_without_a_lot_this_week_takes_no_part() {
    let mut gs = auction();
    gs.free_merchant = None;
    let res = weekend(&gs, &forms(vec![("Alfa", vec![bid(&[(Mat, 20)])])]));
    assert_eq!(
        bid_refusal(&res, "Alfa"),
        Some(("R-FREE-1".into(), Why::NoOffer))
    );
    assert_eq!(
        stock_of(&res, "Alfa", Mat),
        1000 + 2,
        "its own production only"
    );
}

// ---- valuing and winning -------------------------------------------------------

#[test]
fn r_free_4_crystals_count_double() {
    let mut gs = auction();
    // 5 fire is worth 10: enough for the lot, and more than Beta's 9 food.
    let res = weekend(
        &gs,
        &forms(vec![
            ("Beta", vec![bid(&[(Mat, 9), (Tyg, 0)])]),
            ("Alfa", vec![bid(&[(Eld, 5)])]),
        ]),
    );
    assert_eq!(won(&res, "Alfa").map(|w| w.1), Some(10));
    assert!(matches!(
        bid_refusal(&res, "Beta"),
        Some((
            _,
            Why::BelowMinimum {
                value: 9,
                min: 10,
                ..
            }
        ))
    ));
    gs.free_merchant = None;
    let offer = pbemd::game::Resources::from_pairs(&[(Eld, 5), (Slavar, 3), (Mat, 2)]);
    assert_eq!(bid_value(&gs, &gs.settings, "Alfa", &offer), 15);
}

#[test]
fn r_free_4_a_bid_worth_less_than_the_lot_takes_no_part_and_costs_nothing() {
    let gs = auction();
    let res = weekend(&gs, &forms(vec![("Alfa", vec![bid(&[(Mat, 9)])])]));
    assert_eq!(
        bid_refusal(&res, "Alfa"),
        Some((
            "R-FREE-4".into(),
            Why::BelowMinimum {
                value: 9,
                min: 10,
                offer: pbemd::game::Resources::from_pairs(&[(Mat, 9)]),
                doubled: false,
                penalty: 0,
            }
        ))
    );
    assert_eq!(won(&res, "Alfa"), None);
    assert_eq!(
        stock_of(&res, "Alfa", Mat),
        1000 + 2,
        "its own production only"
    );
}

#[test]
fn r_free_6_the_single_highest_bid_takes_the_whole_lot() {
    let gs = auction();
    let res = weekend(
        &gs,
        &forms(vec![
            ("Alfa", vec![bid(&[(Mat, 12)])]),
            ("Beta", vec![bid(&[(Guld, 13)])]),
        ]),
    );
    assert_eq!(
        won(&res, "Beta"),
        Some((
            Lot::Resource {
                resource: Jarn,
                amount: 10
            },
            13
        ))
    );
    assert_eq!(stock_of(&res, "Beta", Jarn), 1010);
    assert_eq!(
        stock_of(&res, "Alfa", Jarn),
        1000 + 1,
        "its own production only"
    );
    assert!(market(&res, "Alfa")
        .iter()
        .any(|e| matches!(e, MarketEvent::Lost { value: 12, .. })));
}

#[test]
fn r_free_8_the_winner_pays_its_bid_and_the_losers_pay_nothing() {
    let gs = auction();
    let res = weekend(
        &gs,
        &forms(vec![
            ("Alfa", vec![bid(&[(Mat, 12), (Eld, 1)])]),
            ("Beta", vec![bid(&[(Guld, 11)])]),
        ]),
    );
    assert!(won(&res, "Alfa").is_some());
    assert_eq!(stock_of(&res, "Alfa", Mat), 1000 - 12 + 2);
    assert_eq!(stock_of(&res, "Alfa", Eld), 999);
    assert_eq!(
        stock_of(&res, "Beta", Guld),
        1000 + 2,
        "Beta's own production only"
    );
}

#[test]
fn r_free_5_a_tie_goes_to_the_earliest_form() {
    let gs = auction();
    let res = weekend(
        &gs,
        &forms(vec![
            ("Beta", vec![bid(&[(Guld, 12)])]),
            ("Alfa", vec![bid(&[(Mat, 10), (Eld, 1)])]),
        ]),
    );
    assert_eq!(won(&res, "Beta").map(|w| w.1), Some(12));
    assert_eq!(won(&res, "Alfa"), None);
    let swapped = weekend(
        &gs,
        &forms(vec![
            ("Alfa", vec![bid(&[(Mat, 10), (Eld, 1)])]),
            ("Beta", vec![bid(&[(Guld, 12)])]),
        ]),
    );
    assert_eq!(won(&swapped, "Alfa").map(|w| w.1), Some(12));
}

#[test]
fn rulings_40_the_voting_winners_bid_counts_double() {
    let mut gs = auction();
    gs.ruler = Some(Ruler {
        realm: "Alfa".into(),
        benefit: Some(RulerBenefit::DoubleBids),
        from_round: gs.round,
        until_round: gs.round + 4,
    });
    let res = weekend(
        &gs,
        &forms(vec![
            ("Beta", vec![bid(&[(Guld, 19)])]),
            ("Alfa", vec![bid(&[(Mat, 10)])]),
        ]),
    );
    assert_eq!(won(&res, "Alfa").map(|w| w.1), Some(20));
    assert_eq!(
        stock_of(&res, "Alfa", Mat),
        1000 - 10 + 2,
        "pays 10, not 20"
    );
}

#[test]
fn rulings_49_double_bids_end_on_the_next_voting_weekend() {
    let mut gs = auction();
    gs.ruler = Some(Ruler {
        realm: "Alfa".into(),
        benefit: Some(RulerBenefit::DoubleBids),
        from_round: 1,
        until_round: gs.round,
    });
    let res = weekend(&gs, &forms(vec![("Alfa", vec![bid(&[(Mat, 10)])])]));
    assert_eq!(won(&res, "Alfa").map(|w| w.1), Some(10));
}

#[test]
fn rulings_40_armed_conflict_last_weekend_takes_five_after_the_doubling() {
    let mut gs = auction();
    gs.realm_mut("Alfa").expect("Alfa").fought_last_weekend = true;
    let res = weekend(
        &gs,
        &forms(vec![
            ("Alfa", vec![bid(&[(Mat, 15)])]),
            ("Beta", vec![bid(&[(Guld, 11)])]),
        ]),
    );
    assert_eq!(won(&res, "Beta").map(|w| w.1), Some(11));
    assert!(market(&res, "Alfa")
        .iter()
        .any(|e| matches!(e, MarketEvent::Lost { value: 10, .. })));
    gs.ruler = Some(Ruler {
        realm: "Alfa".into(),
        benefit: Some(RulerBenefit::DoubleBids),
        from_round: gs.round,
        until_round: gs.round + 4,
    });
    let offer = pbemd::game::Resources::from_pairs(&[(Mat, 10)]);
    assert_eq!(bid_value(&gs, &gs.settings, "Alfa", &offer), 15);
}

#[test]
fn rulings_40_the_conflict_penalty_looks_back_one_weekend_only() {
    let mut gs = auction();
    gs.realm_mut("Alfa").expect("Alfa").fought_last_weekend = true;
    let res = weekend(&gs, &forms(vec![]));
    assert!(
        !res.state.realm("Alfa").expect("Alfa").fought_last_weekend,
        "no battle this weekend: no penalty next weekend"
    );
}

#[test]
fn rulings_40_the_conflict_penalty_is_a_setting() {
    let mut gs = auction();
    gs.realm_mut("Alfa").expect("Alfa").fought_last_weekend = true;
    gs.settings.conflict_penalty = 0;
    let offer = pbemd::game::Resources::from_pairs(&[(Mat, 10)]);
    assert_eq!(bid_value(&gs, &gs.settings, "Alfa", &offer), 10);
}

#[test]
fn r_free_2_a_bid_the_stock_no_longer_covers_takes_no_part_and_the_next_best_wins() {
    let mut gs = auction();
    stock(
        &mut gs,
        "Alfa",
        &[(Mat, 20), (Tyg, 2), (Jarn, 2), (Guld, 2)],
    );
    // A light infantry costs 2 each of food, cloth, iron and gold; it leaves 18 food.
    let buy = Order::BuyUnits {
        count: 1,
        kind: UnitKind::LattInfanteri,
        city: None,
    };
    let res = weekend(
        &gs,
        &forms(vec![
            ("Alfa", vec![buy, bid(&[(Mat, 20)])]),
            ("Beta", vec![bid(&[(Guld, 11)])]),
        ]),
    );
    assert!(matches!(
        bid_refusal(&res, "Alfa"),
        Some((rule, Why::Short { .. })) if rule == "R-FREE-2"
    ));
    assert_eq!(won(&res, "Beta").map(|w| w.1), Some(11));
}

#[test]
fn rulings_8_a_lot_of_troops_over_the_population_cap_takes_no_part() {
    let mut gs = auction();
    cavalry_lot(&mut gs, 10, 10);
    // Beta: population 40, a cap of 4 counted units.
    let res = weekend(
        &gs,
        &forms(vec![
            ("Beta", vec![bid(&[(Guld, 50)])]),
            ("Alfa", vec![bid(&[(Mat, 10)])]),
        ]),
    );
    assert_eq!(
        bid_refusal(&res, "Beta"),
        Some((
            "R-POP-2".into(),
            Why::Over {
                cap: Cap::Population,
                have: 0,
                add: 10,
                limit: 4
            }
        ))
    );
    assert!(won(&res, "Alfa").is_some());
}

#[test]
fn r_free_9_troops_won_wait_for_their_cities() {
    let mut gs = auction();
    cavalry_lot(&mut gs, 10, 10);
    let res = weekend(&gs, &forms(vec![("Alfa", vec![bid(&[(Mat, 10)])])]));
    let alfa = res.state.realm("Alfa").expect("Alfa");
    assert_eq!(alfa.unplaced_troops, vec![(UnitKind::TungtKavalleri, 10)]);
    let cavalry = res
        .state
        .armies_of("Alfa")
        .flat_map(|a| a.units.iter())
        .filter(|u| u.kind == UnitKind::TungtKavalleri)
        .count();
    assert_eq!(cavalry, 0, "not on the map until placed");
}

#[test]
fn r_free_1_other_goods_are_won_and_left_to_the_gm() {
    let mut gs = auction();
    gs.free_merchant = Some(FreeMerchantOffer {
        round: gs.round,
        lot: Lot::Other(LocalText {
            sv: "en skattkarta".into(),
            en: "a treasure map".into(),
        }),
        min_bid: 30,
    });
    let res = weekend(&gs, &forms(vec![("Alfa", vec![bid(&[(Mat, 30)])])]));
    assert!(matches!(won(&res, "Alfa"), Some((Lot::Other(_), 30))));
    assert_eq!(stock_of(&res, "Alfa", Mat), 1000 - 30 + 2);
}

// ---- placement -------------------------------------------------------------

/// Alfa with cavalry waiting, rich, 2 light infantry in B2 (population 150: cap 15).
fn waiting(n: u32) -> GameState {
    let mut gs = game();
    no_revolt(&mut gs);
    rich(&mut gs, "Alfa");
    gs.realm_mut("Alfa").expect("Alfa").unplaced_troops = vec![(UnitKind::TungtKavalleri, n)];
    gs
}

fn place(list: &[(u32, &str)]) -> Order {
    Order::PlaceTroops {
        placements: list
            .iter()
            .map(|&(n, city)| (n, UnitKind::TungtKavalleri, sq(city)))
            .collect(),
    }
}

fn place_refusal(res: &Resolution) -> Option<(String, Why)> {
    market(res, "Alfa").into_iter().find_map(|e| match e {
        MarketEvent::PlaceRefused { rule, why, .. } => Some((rule, why)),
        _ => None,
    })
}

#[test]
fn r_free_9_place_joins_the_army_in_an_own_city() {
    let gs = waiting(5);
    let res = weekend(&gs, &forms(vec![("Alfa", vec![place(&[(3, "B2")])])]));
    let army = res
        .state
        .armies_of("Alfa")
        .find(|a| a.square == sq("B2"))
        .expect("the army in B2");
    let cavalry: Vec<&Unit> = army
        .units
        .iter()
        .filter(|u| u.kind == UnitKind::TungtKavalleri)
        .collect();
    assert_eq!(cavalry.len(), 3);
    assert!(
        cavalry.iter().all(|u| u.built_round < gs.round),
        "they may attack"
    );
    assert_eq!(
        res.state.realm("Alfa").expect("Alfa").unplaced_troops,
        vec![(UnitKind::TungtKavalleri, 2)]
    );
    assert!(market(&res, "Alfa").iter().any(|e| matches!(
        e,
        MarketEvent::Placed { count: 3, army, .. } if *army == army_id(&gs, "B2")
    )));
}

fn army_id(gs: &GameState, square: &str) -> u32 {
    gs.armies_of("Alfa")
        .find(|a| a.square == sq(square))
        .map(|a| a.id)
        .expect("army")
}

#[test]
fn r_free_9_place_in_a_city_without_an_army_forms_a_new_group() {
    let gs = waiting(4);
    let res = weekend(&gs, &forms(vec![("Alfa", vec![place(&[(4, "C3")])])]));
    let army = res
        .state
        .armies_of("Alfa")
        .find(|a| a.square == sq("C3"))
        .expect("a new army in C3");
    assert_eq!(army.units.len(), 4);
    assert!(res
        .state
        .realm("Alfa")
        .expect("Alfa")
        .unplaced_troops
        .is_empty());
}

#[test]
fn r_free_9_placing_more_than_wait_is_refused_and_they_keep_waiting() {
    let gs = waiting(2);
    let res = weekend(&gs, &forms(vec![("Alfa", vec![place(&[(3, "B2")])])]));
    assert_eq!(
        place_refusal(&res),
        Some(("R-FREE-9".into(), Why::NotWaiting { waiting: 2 }))
    );
    assert_eq!(
        res.state.realm("Alfa").expect("Alfa").unplaced_troops,
        vec![(UnitKind::TungtKavalleri, 2)]
    );
}

#[test]
fn r_free_9_placement_only_in_an_own_city() {
    let gs = waiting(2);
    let res = weekend(&gs, &forms(vec![("Alfa", vec![place(&[(1, "E2")])])]));
    assert_eq!(
        place_refusal(&res),
        Some(("R-CITY-1".into(), Why::NotOwnCity { city: sq("E2") }))
    );
}

#[test]
fn r_free_9_placement_over_the_population_cap_is_refused() {
    // Population 150: 15 counted units; 2 infantry stand already.
    let gs = waiting(20);
    let res = weekend(
        &gs,
        &forms(vec![("Alfa", vec![place(&[(13, "B2"), (1, "B2")])])]),
    );
    assert_eq!(
        place_refusal(&res),
        Some((
            "R-POP-2".into(),
            Why::Over {
                cap: Cap::Population,
                have: 15,
                add: 1,
                limit: 15
            }
        ))
    );
    assert_eq!(
        res.state.realm("Alfa").expect("Alfa").unplaced_troops,
        vec![(UnitKind::TungtKavalleri, 7)]
    );
}

#[test]
fn r_free_9_a_new_group_needs_room_under_the_army_group_cap() {
    let mut gs = waiting(2);
    gs.realm_mut("Alfa").expect("Alfa").positions.befalhavare = 0;
    let res = weekend(&gs, &forms(vec![("Alfa", vec![place(&[(1, "C3")])])]));
    assert!(matches!(
        place_refusal(&res),
        Some((rule, Why::Over { cap: Cap::ArmyGroups, .. })) if rule == "R-POS-4"
    ));
}

#[test]
fn r_free_9_placed_troops_move_the_weekend_they_are_placed() {
    let mut gs = waiting(3);
    gs.realm_mut("Alfa").expect("Alfa").positions.befalhavare = 2;
    let orders = forms(vec![(
        "Alfa",
        vec![
            place(&[(3, "C3")]),
            Order::Move {
                group: Group::Army(2),
                path: vec![sq("D3")],
            },
        ],
    )]);
    let res = resolve(&gs, &orders, &gs.settings, 7);
    let moved = res
        .state
        .armies_of("Alfa")
        .any(|a| a.square == sq("D3") && a.units.len() == 3);
    assert!(
        moved,
        "{:?}",
        res.state.armies_of("Alfa").collect::<Vec<_>>()
    );
}

// ---- engineers and research ------------------------------------------------------

fn engineers(pairs: &[(Resource, u32)]) -> Order {
    Order::Engineers {
        pay: amounts(pairs),
    }
}

#[test]
fn r_free_7_every_realm_that_pays_the_price_gets_engineers() {
    let gs = auction();
    let res = weekend(
        &gs,
        &forms(vec![
            ("Alfa", vec![engineers(&[(Mat, 20), (Sten, 10)])]),
            ("Beta", vec![engineers(&[(Guld, 30)])]),
        ]),
    );
    for realm in ["Alfa", "Beta"] {
        assert!(res.state.realm(realm).expect("realm").engineers, "{realm}");
    }
    assert_eq!(stock_of(&res, "Alfa", Sten), 990);
    assert_eq!(stock_of(&res, "Beta", Guld), 1000 - 30 + 2);
}

#[test]
fn rulings_40_engineers_cost_30_resources_with_crystals_counted_once() {
    let gs = auction();
    let res = weekend(
        &gs,
        &forms(vec![("Alfa", vec![engineers(&[(Eld, 15), (Mat, 14)])])]),
    );
    assert!(!res.state.realm("Alfa").expect("Alfa").engineers);
    assert!(market(&res, "Alfa").iter().any(|e| matches!(
        e,
        MarketEvent::EngineersRefused {
            why: Why::EngineersPrice {
                paid: 29,
                price: 30
            },
            ..
        }
    )));
    assert_eq!(stock_of(&res, "Alfa", Eld), 1000);
}

#[test]
fn rulings_40_the_engineers_price_is_a_setting() {
    let mut gs = auction();
    gs.settings.engineers_price = 40;
    let res = weekend(
        &gs,
        &forms(vec![
            ("Alfa", vec![engineers(&[(Mat, 35)])]),
            ("Beta", vec![engineers(&[(Guld, 40)])]),
        ]),
    );
    assert!(!res.state.realm("Alfa").expect("Alfa").engineers);
    assert!(market(&res, "Alfa").iter().any(|e| matches!(
        e,
        MarketEvent::EngineersRefused {
            why: Why::EngineersPrice {
                paid: 35,
                price: 40
            },
            ..
        }
    )));
    assert!(res.state.realm("Beta").expect("Beta").engineers);
    assert_eq!(stock_of(&res, "Beta", Guld), 1000 - 40 + 2);
}

#[test]
fn r_free_7_engineers_are_bought_once() {
    let mut gs = auction();
    gs.realm_mut("Alfa").expect("Alfa").engineers = true;
    let res = weekend(&gs, &forms(vec![("Alfa", vec![engineers(&[(Mat, 30)])])]));
    assert!(market(&res, "Alfa").iter().any(|e| matches!(
        e,
        MarketEvent::EngineersRefused {
            why: Why::HasEngineers,
            ..
        }
    )));
    assert_eq!(stock_of(&res, "Alfa", Mat), 1000 + 2);
}

fn research(kind: Researched) -> Order {
    Order::Research { kind }
}

/// The research event of Alfa, and the roll recorded for it.
fn research_roll(res: &Resolution) -> (bool, u32, u32) {
    let recorded = res
        .rolls
        .iter()
        .find(|r| r.purpose == "weekend/research/Alfa")
        .map(|r| r.value)
        .expect("the research roll is recorded");
    let (success, roll) = market(res, "Alfa")
        .into_iter()
        .find_map(|e| match e {
            MarketEvent::Research { success, roll, .. } => Some((success, roll)),
            _ => None,
        })
        .expect("a research event");
    (success, roll, recorded)
}

/// Alfa with engineers and Forskare `forskare`, trying mounted archers under `seed`.
fn try_research(forskare: u32, seed: u64, one_fails: bool) -> (Resolution, GameState) {
    let mut gs = auction();
    gs.settings.research_natural_one_fails = one_fails;
    let alfa = gs.realm_mut("Alfa").expect("Alfa");
    alfa.engineers = true;
    alfa.positions.forskare = forskare;
    let orders = forms(vec![(
        "Alfa",
        vec![
            research(Researched::BeridnaBagskyttar),
            research(Researched::Fregatt),
        ],
    )]);
    (resolve(&gs, &orders, &gs.settings, seed), gs)
}

#[test]
fn r_eng_2_research_succeeds_when_forskare_and_d10_pass_10() {
    let mut successes = 0;
    for seed in 0..40 {
        let (res, _) = try_research(6, seed, true);
        let (success, roll, recorded) = research_roll(&res);
        assert_eq!(roll, recorded);
        assert_eq!(success, roll > 4, "seed {seed}: roll {roll}");
        let alfa = res.state.realm("Alfa").expect("Alfa");
        assert_eq!(
            alfa.researched.contains(&Researched::BeridnaBagskyttar),
            success
        );
        successes += usize::from(success);
    }
    assert!(successes > 0 && successes < 40, "{successes}");
}

#[test]
fn rulings_41_a_natural_one_fails_even_with_forskare_10() {
    let seed = (0..500)
        .find(|s| research_roll(&try_research(10, *s, true).0).1 == 1)
        .expect("some seed rolls a 1");
    let (res, _) = try_research(10, seed, true);
    assert!(!research_roll(&res).0);
    assert!(res.state.realm("Alfa").expect("Alfa").researched.is_empty());
    let (res, _) = try_research(10, seed, false);
    assert!(research_roll(&res).0, "with the setting off, 10 + 1 passes");
}

#[test]
fn rulings_41_one_attempt_a_round_and_the_engineers_stay() {
    let (res, _) = try_research(10, 3, true);
    let attempts = market(&res, "Alfa")
        .iter()
        .filter(|e| matches!(e, MarketEvent::Research { .. }))
        .count();
    assert_eq!(attempts, 1);
    assert!(res.state.realm("Alfa").expect("Alfa").engineers);
}

#[test]
fn r_eng_1_research_needs_engineers() {
    let gs = auction();
    let orders = forms(vec![("Alfa", vec![research(Researched::Fregatt)])]);
    let res = weekend(&gs, &orders);
    assert!(market(&res, "Alfa").iter().any(|e| matches!(
        e,
        MarketEvent::ResearchRefused {
            why: Why::NeedsEngineers,
            ..
        }
    )));
    assert!(!res.rolls.iter().any(|r| r.purpose.contains("research")));
}

#[test]
fn r_eng_3_a_researched_kind_is_bought_the_next_weekend_at_the_scenarios_cost() {
    let seed = (0..100)
        .find(|s| research_roll(&try_research(10, *s, true).0).0)
        .expect("a successful seed");
    let (res, gs) = try_research(10, seed, true);
    let mut next = res.state.clone();
    next.round = gs.round + 1;
    let price = pbemd::game::Resources::from_pairs(&[(Guld, 4), (Hastar, 2)]);
    next.settings.research_costs.beridna_bagskyttar = Some(price);
    let told = market(&res, "Alfa");
    assert!(told
        .iter()
        .any(|e| matches!(e, MarketEvent::Research { success: true, .. })));
    let buy = Order::BuyUnits {
        count: 2,
        kind: UnitKind::BeridnaBagskyttar,
        city: None,
    };
    let after = resolve(&next, &forms(vec![("Alfa", vec![buy])]), &next.settings, 7);
    let bought = told_economy(&after, "Alfa");
    assert!(
        bought.iter().any(|e| matches!(
            e,
            EconomyEvent::Bought {
                purchase: Purchase::Units { count: 2, unit: UnitKind::BeridnaBagskyttar, .. },
                cost,
                ..
            } if cost.get(Guld) == 8 && cost.get(Hastar) == 4
        )),
        "{bought:?}"
    );
}

#[test]
fn rulings_41_a_researched_frigate_is_bought_at_the_scenarios_cost_and_refused_without_one() {
    let mut gs = auction();
    gs.realm_mut("Alfa").expect("Alfa").researched = vec![Researched::Fregatt];
    let buy = Order::BuyShips {
        count: 1,
        kind: pbemd::game::ShipKind::Fregatt,
        city: None,
    };
    let orders = forms(vec![("Alfa", vec![buy])]);
    let res = weekend(&gs, &orders);
    assert!(
        told_economy(&res, "Alfa").iter().any(|e| matches!(
            e,
            EconomyEvent::Refused { rule, .. } if rule == "RULINGS 41"
        )),
        "no cost set: no frigate"
    );
    let price = pbemd::game::Resources::from_pairs(&[(Timmer, 7), (Guld, 3)]);
    gs.settings.research_costs.fregatt = Some(price);
    let res = weekend(&gs, &orders);
    let bought = told_economy(&res, "Alfa");
    assert!(
        bought.iter().any(|e| matches!(
            e,
            EconomyEvent::Bought {
                purchase: Purchase::Ships { count: 1, ship: pbemd::game::ShipKind::Fregatt, .. },
                cost,
                ..
            } if *cost == price
        )),
        "{bought:?}"
    );
}

fn told_economy(res: &Resolution, realm: &str) -> Vec<EconomyEvent> {
    told(res, realm)
}

#[test]
fn rulings_52_the_auction_and_research_run_in_step_1_after_the_purchases() {
    let mut gs = auction();
    gs.realm_mut("Alfa").expect("Alfa").engineers = true;
    let orders = forms(vec![(
        "Alfa",
        vec![
            research(Researched::Fregatt),
            bid(&[(Mat, 10)]),
            Order::BuySpies { count: 1 },
        ],
    )]);
    let res = weekend(&gs, &orders);
    let steps: Vec<Step> = res.events.iter().map(|e| e.step).collect();
    let first_market = steps.iter().position(|s| *s == Step::FreeMerchants);
    let last_purchase = steps.iter().rposition(|s| *s == Step::Purchases);
    assert!(
        matches!((last_purchase, first_market), (Some(p), Some(m)) if p < m),
        "{steps:?}"
    );
    assert!(steps
        .iter()
        .skip_while(|s| **s != Step::FreeMerchants)
        .all(|s| *s >= Step::FreeMerchants));
    let kinds: Vec<&'static str> = market(&res, "Alfa")
        .iter()
        .map(|e| match e {
            MarketEvent::Won { .. } => "won",
            MarketEvent::Research { .. } => "research",
            MarketEvent::Offer { .. } => "offer",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, vec!["won", "research", "offer"]);
}

#[test]
fn r_evil_9_a_lot_of_demons_goes_only_to_the_evil() {
    let mut gs = auction();
    gs.free_merchant = Some(FreeMerchantOffer {
        round: gs.round,
        lot: Lot::Units {
            kind: UnitKind::LagreDemon,
            count: 2,
        },
        min_bid: 10,
    });
    let res = weekend(&gs, &forms(vec![("Alfa", vec![bid(&[(Mat, 10)])])]));
    assert_eq!(
        bid_refusal(&res, "Alfa"),
        Some(("R-EVIL-9".into(), Why::EvilOnly))
    );
    assert!(res
        .state
        .realm("Alfa")
        .expect("Alfa")
        .unplaced_troops
        .is_empty());
}

#[test]
fn r_free_2_a_bid_past_any_number_takes_no_part() {
    let gs = auction();
    let res = weekend(
        &gs,
        &forms(vec![(
            "Alfa",
            vec![bid(&[(Mat, u32::MAX), (Mat, u32::MAX), (Eld, u32::MAX)])],
        )]),
    );
    assert_eq!(
        bid_refusal(&res, "Alfa"),
        Some(("R-FREE-2".into(), Why::TooMany))
    );
    let offer = pbemd::game::Resources::from_pairs(&[(Eld, u32::MAX), (Mat, u32::MAX)]);
    assert_eq!(
        bid_value(&gs, &gs.settings, "Alfa", &offer),
        3 * u64::from(u32::MAX)
    );
}

// ---- Rules pinned by their own ID (docs/rules.md) ----------------------------

/// R-FREE-3 (RULINGS 40): the bid's worth, step by step: crystals double, then the
/// whole doubled for the ruler's double bids, then the conflict penalty, never below 0.
#[test]
fn r_free_3_a_bid_is_worth_crystals_double_then_doubled_then_less_the_penalty() {
    use pbemd::game::weekend::market::bid_worth;
    let offer = pbemd::game::Resources::from_pairs(&[(Mat, 3), (Eld, 2)]);
    assert_eq!(bid_worth(&offer, false, false, 5), 3 + 2 * 2);
    assert_eq!(bid_worth(&offer, true, false, 5), 14);
    assert_eq!(bid_worth(&offer, false, true, 5), 2);
    assert_eq!(
        bid_worth(&offer, true, true, 5),
        9,
        "the penalty after the doubling"
    );
    assert_eq!(
        bid_worth(&offer, true, true, 3),
        11,
        "the setting's penalty"
    );
    assert_eq!(bid_worth(&offer, true, true, 20), 0, "never below nothing");
}

#[test]
fn r_eng_4_a_failure_is_tried_again_next_round_and_a_success_is_the_researchers_alone() {
    // A failure (Forskare 3 needs more than 7) leaves the engineers for another try.
    let failed = (0..200)
        .find(|s| !research_roll(&try_research(3, *s, true).0).0)
        .expect("a failing seed");
    let (res, gs) = try_research(3, failed, true);
    let mut next = res.state.clone();
    next.round = gs.round + 1;
    let again = forms(vec![(
        "Alfa",
        vec![research(Researched::BeridnaBagskyttar)],
    )]);
    let res2 = resolve(&next, &again, &next.settings, 1);
    assert!(
        market(&res2, "Alfa")
            .iter()
            .any(|e| matches!(e, MarketEvent::Research { .. })),
        "a new attempt, not a refusal: {:?}",
        market(&res2, "Alfa")
    );
    // A success makes the kind Alfa's; Beta, with the same price set, cannot buy it.
    let won = (0..200)
        .find(|s| research_roll(&try_research(10, *s, true).0).0)
        .expect("a successful seed");
    let (res, gs) = try_research(10, won, true);
    let mut next = res.state.clone();
    next.round = gs.round + 1;
    next.settings.research_costs.beridna_bagskyttar = Some(pbemd::game::Resources::from_pairs(&[
        (Guld, 4),
        (Hastar, 2),
    ]));
    let buy = Order::BuyUnits {
        count: 1,
        kind: UnitKind::BeridnaBagskyttar,
        city: None,
    };
    let after = resolve(
        &next,
        &forms(vec![("Alfa", vec![buy.clone()]), ("Beta", vec![buy])]),
        &next.settings,
        7,
    );
    let refused = |realm| {
        told_economy(&after, realm)
            .into_iter()
            .filter_map(|e| match e {
                EconomyEvent::Refused { rule, .. } => Some(rule),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert!(refused("Alfa").is_empty(), "{:?}", refused("Alfa"));
    assert_eq!(refused("Beta"), ["R-ENG-3"]);
}

/// A refused bid's line shows how its value was summed, in the realm's language: the
/// offer (crystals ×2), the penalty after a battle, and what the lot needs.
#[test]
fn r_free_4_a_bid_under_the_minimum_shows_its_sum_in_the_realms_language() {
    let mut gs = auction();
    gs.realm_mut("Alfa").unwrap().fought_last_weekend = true;
    let res = weekend(
        &gs,
        &forms(vec![
            ("Alfa", vec![bid(&[(Guld, 12)])]),
            ("Beta", vec![bid(&[(Mat, 2), (Eld, 3)])]),
        ]),
    );
    let report = |realm: &str| {
        let lang = gs.realm(realm).unwrap().language;
        pbemd::render::weekend::report(&res.events, &res.state, realm, lang).join("\n")
    };
    let sv = report("Alfa");
    assert!(
        sv.contains("budet är värt 7: 12 guld − 5 efter strid; lotten kräver 10 (R-FREE-4)"),
        "{sv}"
    );
    let en = report("Beta");
    assert!(en.contains("the bid is worth 8: "), "{en}");
    assert!(en.contains("2 food"), "{en}");
    assert!(en.contains("3 fire × 2"), "{en}");
    assert!(en.contains("; the lot needs 10 (R-FREE-4)"), "{en}");
}
