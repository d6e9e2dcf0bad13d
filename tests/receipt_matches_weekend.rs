//! The receipt promises what the weekend does: a form checked on arrival
//! (`forms::check::check_orders`) and the weekend resolved from the same state
//! (`game::weekend::resolve`) with the orders the receipt accepted agree. Every
//! accepted line is carried out and none is refused at the weekend, and the stock the
//! receipt left is the stock the weekend left before production. One test per case,
//! named by rule ID (docs/rules.md cites them).

#[path = "weekend_common/economy.rs"]
mod economy;

use economy::*;
use pbemd::forms::check::{check_orders, Checked};
use pbemd::forms::parse_line;
use pbemd::forms::refusal::{Capped, Refusal};
use pbemd::game::event::What;
use pbemd::game::orders::Order;
use pbemd::game::state::{
    ArmyGroup, Dimension, Fleet, FreeMerchantOffer, GroupRef, HomeInvitation, Ledger, Lot, Ruler,
    RulerBenefit, Ship, Unit,
};
use pbemd::game::weekend::economy::EconomyEvent;
use pbemd::game::weekend::magic::MagicEvent;
use pbemd::game::weekend::market::MarketEvent;
use pbemd::game::weekend::military::MilitaryEvent;
use pbemd::game::weekend::politics::PoliticsEvent;
use pbemd::game::weekend::Resolution;
use pbemd::game::{GameState, Resource, Resources, ShipKind, UnitKind};

use Resource::*;

/// The form's lines as orders (each must parse).
fn orders(lines: &[&str]) -> Vec<Order> {
    lines
        .iter()
        .map(|l| parse_line(l, None).unwrap_or_else(|e| panic!("{l}: {e:?}")))
        .collect()
}

/// What the weekend refused of `realm`'s orders, as text for the assertion message.
fn refused_at_the_weekend(res: &Resolution, realm: &str) -> Vec<String> {
    res.events
        .iter()
        .filter(|e| e.seen_by(realm))
        .filter(|e| match &e.what {
            What::Economy(ev) => matches!(**ev, EconomyEvent::Refused { .. }),
            What::Magic(ev) => matches!(**ev, MagicEvent::Refused { .. }),
            What::Market(ev) => matches!(
                **ev,
                MarketEvent::BidRefused { .. }
                    | MarketEvent::PlaceRefused { .. }
                    | MarketEvent::EngineersRefused { .. }
                    | MarketEvent::ResearchRefused { .. }
            ),
            What::Politics(ev) => matches!(**ev, PoliticsEvent::NotApplied { .. }),
            What::Military(ev) => matches!(
                ev,
                MilitaryEvent::MoveRefused { .. }
                    | MilitaryEvent::InvitationRefused { .. }
                    | MilitaryEvent::AttackRefused { .. }
            ),
            _ => false,
        })
        .map(|e| format!("{:?}", e.what))
        .collect()
}

/// How many of `realm`'s orders with a price or a claim the weekend carried out.
fn carried_out(res: &Resolution, realm: &str) -> usize {
    res.events
        .iter()
        .filter(|e| e.seen_by(realm))
        .map(|e| match &e.what {
            What::Economy(ev) => usize::from(matches!(**ev, EconomyEvent::Bought { .. })),
            What::Magic(ev) => usize::from(matches!(**ev, MagicEvent::Cast { .. })),
            What::Market(ev) => usize::from(matches!(
                **ev,
                MarketEvent::Won { .. }
                    | MarketEvent::Engineers { .. }
                    | MarketEvent::Research { .. }
            )),
            What::Politics(ev) => usize::from(matches!(
                **ev,
                PoliticsEvent::Benefit { .. } | PoliticsEvent::Reward { .. }
            )),
            _ => 0,
        })
        .sum::<usize>()
        + placed_lines(res, realm)
}

/// PLACE lines carried out (a line places one or more kinds; the cases place one).
fn placed_lines(res: &Resolution, realm: &str) -> usize {
    res.events
        .iter()
        .filter(|e| e.seen_by(realm))
        .filter(|e| matches!(e.what.market(), Some(MarketEvent::Placed { .. })))
        .count()
}

/// The receipt's accepted lines that the weekend reports on one by one.
fn priced_or_claimed(c: &Checked) -> usize {
    c.orders()
        .iter()
        .filter(|o| {
            matches!(
                o,
                Order::BuyUnits { .. }
                    | Order::BuyShips { .. }
                    | Order::BuySpies { .. }
                    | Order::BuyWalls { .. }
                    | Order::BuyCity { .. }
                    | Order::BuyPopulation { .. }
                    | Order::UpgradePosition { .. }
                    | Order::UpgradeProduction { .. }
                    | Order::ConvertSlaves { .. }
                    | Order::Cast { .. }
                    | Order::Bid { .. }
                    | Order::Engineers { .. }
                    | Order::Research { .. }
                    | Order::RulerBenefit { .. }
                    | Order::VpReward { .. }
                    | Order::PlaceTroops { .. }
            )
        })
        .count()
}

/// The realm's stock after the weekend less what steps 6 on and the lot won added:
/// the stock the purchases, the free merchants and the spells left (the cases make
/// no slaves, draw no random event and fight no battle).
fn stock_before_production(res: &Resolution, realm: &str) -> Resources {
    let mut stock = res.state.realm(realm).expect("realm").stock;
    for e in res.events.iter().filter(|e| e.seen_by(realm)) {
        let gained = match (e.what.economy(), e.what.market()) {
            (Some(EconomyEvent::Produced { resources, .. }), _) => *resources,
            (Some(EconomyEvent::SlaveRevolt { .. }), _) => panic!("no revolt in the cases"),
            (
                _,
                Some(MarketEvent::Won {
                    lot: Lot::Resource { resource, amount },
                    ..
                }),
            ) => Resources::from_pairs(&[(*resource, *amount)]),
            _ => Resources::ZERO,
        };
        stock = stock
            .checked_sub(&gained)
            .expect("the gain is in the stock");
    }
    stock
}

/// Check `lines` for `realm` and resolve the weekend with what the receipt accepted;
/// assert they agree, and hand both back for the case's own assertions.
fn receipt_and_weekend(gs: &GameState, realm: &str, lines: &[&str]) -> (Checked, Resolution) {
    let checked = check_orders(gs, realm, &orders(lines));
    let accepted: Vec<Order> = checked.orders().into_iter().cloned().collect();
    let res = weekend(gs, &forms(vec![(realm, accepted)]));
    let receipt: Vec<String> = checked
        .lines
        .iter()
        .map(|l| format!("{} → {:?}", l.text, l.refusal))
        .collect();
    assert_eq!(
        refused_at_the_weekend(&res, realm),
        Vec::<String>::new(),
        "the weekend refused what the receipt accepted: {receipt:#?}"
    );
    assert_eq!(
        carried_out(&res, realm),
        priced_or_claimed(&checked),
        "every accepted line is carried out: {receipt:#?}"
    );
    assert_eq!(
        stock_before_production(&res, realm),
        checked.stock_after,
        "the stock the receipt left is the weekend's: {receipt:#?}"
    );
    (checked, res)
}

/// The receipt's verdict on each line: `None` accepted, else the refusal.
fn verdicts(c: &Checked) -> Vec<Option<Refusal>> {
    c.lines.iter().map(|l| l.refusal.clone()).collect()
}

/// The test game without slaves made or held (no revolt muddles the stocks).
fn quiet() -> GameState {
    let mut gs = game();
    for c in gs.cities.iter_mut() {
        c.production.set(Slavar, 0);
    }
    gs
}

fn army(id: u32, owner: &str, square: &str, n: usize) -> ArmyGroup {
    ArmyGroup {
        id,
        owner: owner.into(),
        square: sq(square),
        dimension: Dimension::Normal,
        units: smallvec::smallvec![
            Unit {
                kind: UnitKind::LattInfanteri,
                built_round: 0,
            };
            n
        ],
        treasure: Default::default(),
        no_move_until_round: None,
    }
}

/// A lot of `n` iron this week, minimum `n`.
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

fn alfa_rules(gs: &mut GameState, benefit: Option<RulerBenefit>) {
    gs.ruler = Some(Ruler {
        realm: "Alfa".into(),
        benefit,
        from_round: gs.round,
        until_round: gs.round + 4,
    });
}

// ---- A1: the weekday Reveal -------------------------------------------------------

#[test]
fn rulings_18_a_weekday_reveal_refuses_the_forms_reveal_on_the_receipt() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    gs.courier = Ledger {
        round: gs.round,
        reveals: vec!["Alfa".into()],
        ..Ledger::default()
    };
    let (c, _) = receipt_and_weekend(&gs, "Alfa", &["FORMEL avslöja", "FORMEL skörd"]);
    assert_eq!(verdicts(&c), vec![Some(Refusal::RevealUsedByMail), None]);
    // Last round's weekday Reveal does not count.
    gs.courier.round = gs.round - 1;
    let (c, _) = receipt_and_weekend(&gs, "Alfa", &["FORMEL avslöja"]);
    assert_eq!(verdicts(&c), vec![None]);
}

// ---- A2: the crystals of an upgrade that names none -------------------------------

#[test]
fn r_build_1_an_upgrade_naming_no_crystals_is_charged_the_crystals_the_receipt_chose() {
    let mut gs = quiet();
    stock(
        &mut gs,
        "Alfa",
        &[(Eld, 4), (Jord, 5), (Guld, 15), (Mat, 5)],
    );
    let (c, res) = receipt_and_weekend(
        &gs,
        "Alfa",
        &["FORMEL eldklot armé 1", "UPPGRADERA befälhavare"],
    );
    assert_eq!(verdicts(&c), vec![None, None]);
    assert_eq!(c.lines[1].cost, of(&[(Guld, 15), (Mat, 5), (Jord, 5)]));
    assert_eq!(
        c.orders()[1],
        &orders(&["UPPGRADERA befälhavare 5 jord"])[0],
        "the weekend gets the receipt's choice"
    );
    assert_eq!(
        res.state.realm("Alfa").unwrap().positions.befalhavare,
        gs.realm("Alfa").unwrap().positions.befalhavare + 1
    );
}

// ---- A3: placements ---------------------------------------------------------------

#[test]
fn r_free_9_placements_meet_the_caps_on_the_receipt_and_count_for_the_lines_below() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    // Population 150: 15 counted units at most; 2 held.
    gs.realm_mut("Alfa").unwrap().unplaced_troops = vec![(UnitKind::TungtKavalleri, 20)];
    let (c, res) = receipt_and_weekend(
        &gs,
        "Alfa",
        &[
            "PLACERA 14 tungt kavalleri B2",
            "PLACERA 10 tungt kavalleri B2",
            "KÖP 5 lätt infanteri B2",
            "KÖP 3 lätt infanteri B2",
        ],
    );
    assert_eq!(
        verdicts(&c),
        vec![
            Some(Refusal::PopulationCap {
                counted: 2,
                n: 14,
                cap: 15
            }),
            None,
            Some(Refusal::PopulationCap {
                counted: 12,
                n: 5,
                cap: 15
            }),
            None,
        ]
    );
    assert_eq!(res.state.army("Alfa", 1).unwrap().units.len(), 15);
}

#[test]
fn r_free_9_a_placement_forming_a_new_group_meets_the_army_group_cap_on_the_receipt() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    // Befälhavare 2: four army groups at most; four held, none in C3.
    for (id, at) in [(2, "B3"), (3, "B4"), (4, "D3")] {
        gs.armies.push(army(id, "Alfa", at, 1));
    }
    gs.realm_mut("Alfa").unwrap().unplaced_troops = vec![(UnitKind::TungtKavalleri, 2)];
    let (c, _) = receipt_and_weekend(
        &gs,
        "Alfa",
        &[
            "PLACERA 1 tungt kavalleri C3",
            "PLACERA 1 tungt kavalleri B2",
        ],
    );
    assert_eq!(
        verdicts(&c),
        vec![
            Some(Refusal::PositionCap {
                what: Capped::ArmyGroups,
                have: 4,
                n: 1,
                cap: 4
            }),
            None
        ]
    );
}

// ---- A4: a bid's value ------------------------------------------------------------

#[test]
fn rulings_40_a_bid_after_a_battle_last_weekend_is_valued_on_the_receipt_as_at_the_weekend() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    iron_lot(&mut gs, 10);
    gs.realm_mut("Alfa").unwrap().fought_last_weekend = true;
    let (c, _) = receipt_and_weekend(&gs, "Alfa", &["BUD 12 mat", "BUD 15 mat"]);
    assert_eq!(
        verdicts(&c),
        vec![
            Some(Refusal::BidTooLow {
                value: 7,
                min: 10,
                offer: pbemd::game::Resources::from_pairs(&[(pbemd::game::Resource::Mat, 12)]),
                doubled: false,
                penalty: 5,
            }),
            None
        ]
    );
}

#[test]
fn rulings_40_the_rulers_double_bid_is_valued_on_the_receipt_as_at_the_weekend() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    iron_lot(&mut gs, 10);
    alfa_rules(&mut gs, Some(RulerBenefit::DoubleBids));
    let (c, res) = receipt_and_weekend(&gs, "Alfa", &["BUD 6 mat"]);
    assert_eq!(verdicts(&c), vec![None]);
    assert_eq!(
        res.state.realm("Alfa").unwrap().stock.get(Mat),
        1000 - 6 + 2
    );
}

#[test]
fn r_vote_5_double_bids_chosen_on_the_form_count_for_its_bid_on_the_receipt_and_at_the_weekend() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    iron_lot(&mut gs, 10);
    alfa_rules(&mut gs, None);
    let (c, res) = receipt_and_weekend(&gs, "Alfa", &["BUD 6 mat", "FÖRMÅN dubbla bud"]);
    assert_eq!(verdicts(&c), vec![None, None]);
    let won = res.events.iter().find_map(|e| match e.what.market() {
        Some(MarketEvent::Won { value, .. }) => Some(*value),
        _ => None,
    });
    assert_eq!(won, Some(12));
}

#[test]
fn rulings_8_a_troop_lot_over_the_population_cap_is_refused_on_the_receipt() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    gs.free_merchant = Some(FreeMerchantOffer {
        round: gs.round,
        lot: Lot::Units {
            kind: UnitKind::TungtKavalleri,
            count: 5,
        },
        min_bid: 5,
    });
    // 2 held and 10 bought (below the bid, bought before the auction) leave room for 3.
    let (c, _) = receipt_and_weekend(&gs, "Alfa", &["BUD 5 mat", "KÖP 10 lätt infanteri"]);
    assert_eq!(
        verdicts(&c),
        vec![
            Some(Refusal::PopulationCap {
                counted: 12,
                n: 5,
                cap: 15
            }),
            None
        ]
    );
    let (c, _) = receipt_and_weekend(&gs, "Alfa", &["BUD 5 mat", "KÖP 8 lätt infanteri"]);
    assert_eq!(verdicts(&c), vec![None, None]);
}

// ---- A5: an army aboard a fleet ---------------------------------------------------

#[test]
fn r_pos_4_an_army_aboard_a_fleet_is_no_group_for_new_units_in_its_city() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    // Befälhavare 2: four army groups at most. Army 1 is aboard fleet 1 in B2.
    for (id, at) in [(2, "B3"), (3, "B4"), (4, "C3")] {
        gs.armies.push(army(id, "Alfa", at, 1));
    }
    gs.fleets.push(Fleet {
        id: 1,
        owner: "Alfa".into(),
        square: sq("B2"),
        dimension: Dimension::Normal,
        ships: vec![Ship {
            kind: ShipKind::Transportskepp,
            built_round: 0,
        }],
        cargo: vec![1],
        must_leave_by_round: None,
    });
    let (c, _) = receipt_and_weekend(
        &gs,
        "Alfa",
        &["KÖP 1 lätt infanteri B2", "KÖP 1 lätt infanteri C3"],
    );
    assert_eq!(
        verdicts(&c),
        vec![
            Some(Refusal::PositionCap {
                what: Capped::ArmyGroups,
                have: 4,
                n: 1,
                cap: 4
            }),
            None
        ]
    );
}

// ---- A6: a home-invitation on the form --------------------------------------------

/// R-INV-8 calls a home-invitation an envoy, and Rulings 15 charges an envoy beyond
/// the free Språkrör ones: the receipt charges it, and step 9
/// (`weekend::military::invitations::home`) takes the same price.
#[test]
fn r_inv_8_a_forms_home_invitation_beyond_the_free_envoys_is_charged_as_on_the_receipt() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    gs.armies.push(army(2, "Alfa", "E3", 1));
    // Språkrör 1, and the free envoy was sent on Tuesday.
    gs.realm_mut("Alfa").unwrap().sent.envoys = 1;
    let (c, res) = receipt_and_weekend(&gs, "Alfa", &["HEMBJUDAN armé 2"]);
    assert_eq!(c.lines[0].cost, of(&[(Mat, 1), (Tyg, 1), (Guld, 3)]));
    assert_eq!(res.state.army("Alfa", 2).unwrap().square, sq("B2"));
}

/// Step 9 brings a group home once, so an envoy is paid for it once: a second line
/// for the same group, or a line for a group the courier already has a home-invitation
/// for this round, is refused on the receipt and costs nothing.
#[test]
fn r_inv_8_a_group_called_home_twice_is_charged_once_on_the_receipt_as_at_the_weekend() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    gs.armies.push(army(2, "Alfa", "E3", 1));
    gs.armies.push(army(3, "Alfa", "E4", 1));
    gs.realm_mut("Alfa").unwrap().sent.envoys = 1;
    let envoy = of(&[(Mat, 1), (Tyg, 1), (Guld, 3)]);
    let (c, _) = receipt_and_weekend(
        &gs,
        "Alfa",
        &["HEMBJUDAN armé 2", "HEMBJUDAN armé 2", "HEMBJUDAN armé 3"],
    );
    assert_eq!(verdicts(&c), vec![None, Some(Refusal::CalledHome), None]);
    assert_eq!(
        c.stock_before.checked_sub(&c.stock_after),
        Some(envoy.plus(&envoy))
    );
    // Army 2 called home by mail on Tuesday (the courier charged it).
    gs.home_invitations.push(HomeInvitation {
        id: 1,
        realm: "Alfa".into(),
        target: GroupRef::Army {
            owner: "Alfa".into(),
            id: 2,
        },
        sent_round: gs.round,
        valid_until_round: gs.round,
    });
    let (c, res) = receipt_and_weekend(&gs, "Alfa", &["HEMBJUDAN armé 2", "HEMBJUDAN armé 3"]);
    assert_eq!(verdicts(&c), vec![Some(Refusal::CalledHome), None]);
    assert_eq!(c.stock_before.checked_sub(&c.stock_after), Some(envoy));
    assert_eq!(res.state.army("Alfa", 2).unwrap().square, sq("B2"));
}

/// Step 9 refuses a home-invitation for an army when the realm has no capital (it
/// holds no city), and for a fleet without a main harbour: so does the receipt,
/// before it charges an envoy.
#[test]
fn r_inv_8_a_home_invitation_with_no_capital_to_come_to_is_refused_on_the_receipt() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    gs.armies.push(army(2, "Alfa", "E3", 1));
    gs.realm_mut("Alfa").unwrap().sent.envoys = 1;
    let (c, _) = receipt_and_weekend(&gs, "Alfa", &["HEMBJUDAN armé 2"]);
    assert_eq!(verdicts(&c), vec![None], "with a capital");
    gs.cities.retain(|c| c.owner != "Alfa");
    let alfa = gs.realm_mut("Alfa").unwrap();
    alfa.capital = None;
    alfa.main_harbour = None;
    let (c, res) = receipt_and_weekend(&gs, "Alfa", &["HEMBJUDAN armé 2"]);
    assert_eq!(verdicts(&c), vec![Some(Refusal::NoSeat { army: true })]);
    assert_eq!(c.stock_after, c.stock_before);
    assert_eq!(res.state.army("Alfa", 2).unwrap().square, sq("E3"));
}

/// Step 9 counts the free envoys after step 1, so a Språkrör upgrade on the form frees
/// a home-invitation wherever the two lines stand; the receipt charges none either.
#[test]
fn r_inv_8_a_sprakror_upgrade_on_the_form_frees_a_home_invitation_wherever_it_stands() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    gs.armies.push(army(2, "Alfa", "E3", 1));
    // Språkrör 1, and the free envoy was sent on Tuesday.
    gs.realm_mut("Alfa").unwrap().sent.envoys = 1;
    for lines in [
        ["HEMBJUDAN armé 2", "UPPGRADERA språkrör 5 eld"],
        ["UPPGRADERA språkrör 5 eld", "HEMBJUDAN armé 2"],
    ] {
        let (c, _) = receipt_and_weekend(&gs, "Alfa", &lines);
        assert_eq!(verdicts(&c), vec![None, None], "{lines:?}");
        let home = lines
            .iter()
            .position(|l| l.starts_with("HEMBJUDAN"))
            .unwrap();
        assert_eq!(c.lines[home].cost, Resources::ZERO, "{lines:?}");
    }
}

// ---- A7: lines the receipt refused that the weekend carries out -------------------

#[test]
fn rulings_2_converted_slaves_pay_for_the_lines_below_on_the_receipt() {
    let mut gs = quiet();
    // Ten army units keep four slaves from revolting; C3 produces iron.
    gs.armies[0].units = army(1, "Alfa", "B2", 10).units;
    stock(
        &mut gs,
        "Alfa",
        &[(Slavar, 4), (Mat, 4), (Guld, 4), (Tyg, 4)],
    );
    let (c, _) = receipt_and_weekend(&gs, "Alfa", &["OMVANDLA 4 järn", "KÖP 4 lätt infanteri"]);
    assert_eq!(verdicts(&c), vec![None, None]);
    assert_eq!(c.stock_after, Resources::ZERO);
}

#[test]
fn r_pop_4_population_bought_raises_the_caps_for_the_lines_below_on_the_receipt() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    // Population 150 (B2 100 with 1 wall, C3 50): 15 counted units, 10 walls in B2.
    let (c, res) = receipt_and_weekend(
        &gs,
        "Alfa",
        &[
            "KÖP 2 befolkning B2",
            "KÖP 15 lätt infanteri",
            "KÖP 11 mur B2",
        ],
    );
    assert_eq!(verdicts(&c), vec![None, None, None]);
    assert_eq!(res.state.army("Alfa", 1).unwrap().units.len(), 17);
}

#[test]
fn r_city_2_a_new_city_is_an_own_city_and_ten_more_population_for_the_lines_below() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    let (c, res) = receipt_and_weekend(
        &gs,
        "Alfa",
        &[
            "KÖP stad D3 5 mat 5 järn",
            "KÖP 14 lätt infanteri D3",
            "KÖP 1 mur D3",
        ],
    );
    assert_eq!(verdicts(&c), vec![None, None, None]);
    let d3 = res.state.armies.iter().find(|a| a.square == sq("D3"));
    assert_eq!(d3.map(|a| a.units.len()), Some(14));
}

#[test]
fn r_vote_5_the_population_benefit_raises_the_caps_on_the_receipt_wherever_it_stands() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    alfa_rules(&mut gs, None);
    // +10 in B2 and in C3 before step 1: 170, so 17 counted units.
    let (c, _) = receipt_and_weekend(&gs, "Alfa", &["KÖP 15 lätt infanteri", "FÖRMÅN befolkning"]);
    assert_eq!(verdicts(&c), vec![None, None]);
}

#[test]
fn r_eng_2_research_may_use_the_engineers_the_same_form_buys() {
    let mut gs = quiet();
    rich(&mut gs, "Alfa");
    let (c, res) = receipt_and_weekend(&gs, "Alfa", &["FORSKA fregatt", "INGENJÖRER 30 mat"]);
    assert_eq!(verdicts(&c), vec![None, None]);
    assert!(res.state.realm("Alfa").unwrap().engineers);
    // Without the engineers' line the research is refused, as at the weekend.
    let (c, _) = receipt_and_weekend(&gs, "Alfa", &["FORSKA fregatt"]);
    assert_eq!(verdicts(&c), vec![Some(Refusal::NeedsEngineers)]);
}
