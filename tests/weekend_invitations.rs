//! Steps 5 and 9, case by case: invitations and home-invitations (docs/rules.md, R-INV).

#[path = "weekend_common/military.rs"]
mod common;

use common::*;
use pbemd::game::orders::{Group, Order};
use pbemd::game::state::{GroupRef, HomeInvitation};
use pbemd::game::weekend::military::{InvitationRefusal, MilitaryEvent};
use pbemd::game::{Lang, ShipKind, UnitKind};

use UnitKind::{LattInfanteri, Veteran};

fn use_inv(from: &str, group: Group) -> Order {
    Order::UseInvitation {
        from: from.to_string(),
        group,
    }
}

#[test]
fn r_inv_2_an_invited_army_arrives_on_the_chosen_square_and_may_not_move() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "B7", units(&[(2, Veteran)], false));
    invite(&mut gs, "Fugandri", "Genogien", "C3");
    let o = orders(&[("Fugandri", vec![use_inv("genogien", Group::Army(1))])]);
    let (after, events) = invitations(&gs, &o, &[]);
    let g = group_of(&after, "Fugandri", 1).unwrap();
    assert_eq!(g.square, sq("C3"));
    assert_eq!(g.no_move_until_round.map(|r| r.get()), Some(ROUND));
    assert!(
        after.realm("Fugandri").unwrap().invitations.is_empty(),
        "used up (R-INV-3)"
    );
    assert_eq!(events[0].seen_by, ["Fugandri", "Genogien"]);
    let sv = pbemd::render::weekend::report(&events, &after, "Genogien", Lang::Sv);
    assert_eq!(sv, ["Fugandris armé 1 kom till C3 på din inbjudan."]);
}

/// R-INV-2: "fleets work in the same way" — a fleet invited to the sea off the inviter's
/// land arrives there; an army cannot use a sea invitation, a fleet a land one.
#[test]
fn r_inv_2_an_invited_fleet_arrives_on_the_sea_named() {
    let mut gs = game();
    fleet(
        &mut gs,
        "Fugandri",
        1,
        "B9",
        ships(&[(2, ShipKind::LattKrigsskepp)], false),
        &[],
    );
    army(&mut gs, "Fugandri", 1, "B7", units(&[(2, Veteran)], false));
    let sea = gs
        .map
        .squares
        .iter()
        .find(|(q, m)| {
            m.terrain == pbemd::game::state::Terrain::Sea
                && q.neighbours(gs.map.width, gs.map.height, false)
                    .into_iter()
                    .any(|n| {
                        gs.map
                            .get(n)
                            .is_some_and(|x| x.owner.as_deref() == Some("Genogien"))
                    })
        })
        .expect("sea off Genogien's land")
        .0;
    invite(&mut gs, "Fugandri", "Genogien", &sea.to_string());
    invite(&mut gs, "Fugandri", "Genogien", &sea.to_string());
    let o = orders(&[(
        "Fugandri",
        vec![
            use_inv("Genogien", Group::Army(1)),
            use_inv("Genogien", Group::Fleet(1)),
        ],
    )]);
    let (after, events) = invitations(&gs, &o, &[]);
    let f = after
        .fleets
        .iter()
        .find(|f| f.owner == "Fugandri" && f.id == 1)
        .unwrap();
    assert_eq!(f.square, sea, "the fleet arrived");
    assert_eq!(
        group_of(&after, "Fugandri", 1).unwrap().square,
        sq("B7"),
        "an army does not go to sea"
    );
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::InvitationRefused {
            reason: InvitationRefusal::WrongGround,
            ..
        }
    )));
}

#[test]
fn r_inv_3_an_invitation_is_used_once() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "B7", units(&[(2, Veteran)], false));
    army(&mut gs, "Fugandri", 2, "B8", units(&[(2, Veteran)], false));
    invite(&mut gs, "Fugandri", "Genogien", "C3");
    let o = orders(&[(
        "Fugandri",
        vec![
            use_inv("Genogien", Group::Army(1)),
            use_inv("Genogien", Group::Army(2)),
        ],
    )]);
    let (after, events) = invitations(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Fugandri", 2).unwrap().square, sq("B8"));
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::InvitationRefused {
            reason: InvitationRefusal::NoValidInvitation,
            ..
        }
    )));
}

#[test]
fn r_inv_5_invited_troops_landing_on_enemies_attack_them() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "B7", units(&[(3, Veteran)], false));
    army(
        &mut gs,
        "Kaldor",
        1,
        "D3",
        units(&[(1, LattInfanteri)], false),
    );
    invite(&mut gs, "Fugandri", "Genogien", "D3");
    let o = orders(&[("Fugandri", vec![use_inv("Genogien", Group::Army(1))])]);
    let (after, events) = invitations(&gs, &o, &[20, 1]);
    assert!(military(&events).iter().any(|m| matches!(m, MilitaryEvent::Battle(b) if b.attacker == "Fugandri" && b.defender.as_deref() == Some("Kaldor"))));
    assert!(group_of(&after, "Kaldor", 1).is_none());
}

#[test]
fn r_inv_5_the_inviters_own_troops_are_not_attacked() {
    let mut gs = game();
    army(&mut gs, "Fugandri", 1, "B7", units(&[(3, Veteran)], false));
    army(
        &mut gs,
        "Genogien",
        1,
        "D3",
        units(&[(1, LattInfanteri)], false),
    );
    invite(&mut gs, "Fugandri", "Genogien", "D3");
    let o = orders(&[("Fugandri", vec![use_inv("Genogien", Group::Army(1))])]);
    let (after, events) = invitations(&gs, &o, &[20, 1]);
    assert!(!military(&events)
        .iter()
        .any(|m| matches!(m, MilitaryEvent::Battle(_))));
    assert!(group_of(&after, "Genogien", 1).is_some());
}

/// R-INV-8 with Rulings 15: a home-invitation on the form is an envoy — free within the
/// realm's Språkrör envoys, then an envoy's price (1 mat, 1 tyg, 3 guld), as the receipt
/// charged it; a realm that cannot pay keeps its group where it is.
#[test]
fn r_inv_8_a_forms_home_invitation_beyond_the_free_envoys_costs_an_envoy() {
    use pbemd::game::{Resource, Resources};
    let recall = |id| Order::HomeInvitation {
        group: Group::Army(id),
    };
    let mut gs = game();
    army(&mut gs, "Genogien", 1, "I7", units(&[(2, Veteran)], false));
    army(&mut gs, "Genogien", 2, "I8", units(&[(2, Veteran)], false));
    let g = gs.realm_mut("Genogien").unwrap();
    g.positions.sprakror = 1;
    g.sent.envoys = 0;
    g.stock = Resources::from_pairs(&[(Resource::Mat, 1), (Resource::Tyg, 1), (Resource::Guld, 3)]);
    let o = orders(&[("Genogien", vec![recall(1), recall(2)])]);
    let (after, _) = invitations(&gs, &o, &[]);
    let capital = gs.realm("Genogien").unwrap().capital.unwrap();
    assert_eq!(
        group_of(&after, "Genogien", 1).unwrap().square,
        capital,
        "the free one"
    );
    assert_eq!(
        group_of(&after, "Genogien", 2).unwrap().square,
        capital,
        "the paid one"
    );
    let r = after.realm("Genogien").unwrap();
    assert!(r.stock.is_zero(), "one envoy's price: {:?}", r.stock);
    assert_eq!(r.sent.envoys, 2);
    // Without the price the second stays where it is, and nothing is taken.
    let mut poor = gs.clone();
    poor.realm_mut("Genogien").unwrap().stock = Resources::ZERO;
    let (after, events) = invitations(&poor, &o, &[]);
    assert_eq!(group_of(&after, "Genogien", 2).unwrap().square, sq("I8"));
    assert!(military(&events).iter().any(|m| matches!(
        m,
        MilitaryEvent::InvitationRefused {
            reason: InvitationRefusal::CannotPay,
            ..
        }
    )));
    let report =
        |lang| pbemd::render::weekend::report(&events, &after, "Genogien", lang).join("\n");
    assert!(
        report(Lang::Sv).contains("förrådet räcker inte"),
        "{}",
        report(Lang::Sv)
    );
    assert!(
        report(Lang::En).contains("the stock does not cover it"),
        "{}",
        report(Lang::En)
    );
}

/// A group called home twice (twice on the form, or by mail and on the form) comes
/// home once and costs one envoy at most: the courier's call is paid by mail, a form's
/// first line for it in step 9.
#[test]
fn r_inv_8_a_group_called_home_twice_comes_home_once_and_pays_one_envoy_at_most() {
    use pbemd::game::units::AgentKind;
    let recall = |id| Order::HomeInvitation {
        group: Group::Army(id),
    };
    let mut gs = game();
    army(&mut gs, "Genogien", 1, "I7", units(&[(2, Veteran)], false));
    army(&mut gs, "Genogien", 2, "I8", units(&[(2, Veteran)], false));
    let g = gs.realm_mut("Genogien").unwrap();
    g.positions.sprakror = 1;
    g.sent.envoys = 1;
    let envoy = AgentKind::Sandebud.cost();
    g.stock = envoy.plus(&envoy).plus(&envoy);
    let o = orders(&[("Genogien", vec![recall(1), recall(2), recall(1)])]);
    let (after, _) = invitations(&gs, &o, &[]);
    let capital = gs.realm("Genogien").unwrap().capital.unwrap();
    assert_eq!(group_of(&after, "Genogien", 1).unwrap().square, capital);
    assert_eq!(group_of(&after, "Genogien", 2).unwrap().square, capital);
    let r = after.realm("Genogien").unwrap();
    assert_eq!(r.stock, envoy, "two envoys paid, not three");
    assert_eq!(r.sent.envoys, 3);
    // Army 1 called home by mail too: the form's line for it is not paid again.
    gs.home_invitations.push(HomeInvitation {
        id: 99,
        realm: "Genogien".into(),
        target: GroupRef::Army {
            owner: "Genogien".into(),
            id: 1,
        },
        sent_round: ROUND,
        valid_until_round: ROUND,
    });
    let o = orders(&[("Genogien", vec![recall(2), recall(1)])]);
    let (after, _) = invitations(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Genogien", 1).unwrap().square, capital);
    let r = after.realm("Genogien").unwrap();
    assert_eq!(r.stock, envoy.plus(&envoy), "army 2's envoy alone");
}

#[test]
fn r_inv_8_a_home_invitation_brings_an_army_to_the_capital_and_a_fleet_to_the_harbour() {
    let mut gs = game();
    army(&mut gs, "Genogien", 1, "I7", units(&[(2, Veteran)], false));
    fleet(
        &mut gs,
        "Genogien",
        1,
        "F6",
        ships(&[(1, ShipKind::Transportskepp)], false),
        &[],
    );
    gs.home_invitations.push(HomeInvitation {
        id: 99,
        realm: "Genogien".into(),
        target: GroupRef::Fleet {
            owner: "Genogien".into(),
            id: 1,
        },
        sent_round: ROUND,
        valid_until_round: ROUND,
    });
    let o = orders(&[(
        "Genogien",
        vec![Order::HomeInvitation {
            group: Group::Army(1),
        }],
    )]);
    let (after, events) = invitations(&gs, &o, &[]);
    assert_eq!(group_of(&after, "Genogien", 1).unwrap().square, sq("B2"));
    assert_eq!(after.fleets[0].square, sq("D2"));
    assert!(after.home_invitations.is_empty(), "spent");
    let en = pbemd::render::weekend::report(&events, &after, "Genogien", Lang::En);
    assert!(
        en.contains(&"Army 1 came home to B2 and may not move this round.".to_string()),
        "{en:?}"
    );
}
