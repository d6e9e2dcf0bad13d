//! Hostile orders never stop the military steps: any mix of moves, attacks, boarding,
//! landing, splits, merges, reorders and invitations, with any numbers and squares, on
//! the demo game with troops everywhere, resolves without a panic and twice the same.

#[path = "weekend_common/military.rs"]
mod common;

use common::*;
use pbemd::game::orders::{Group, Order, Outcome, Piece, Wave};
use pbemd::game::{ShipKind, Square, UnitKind};
use proptest::prelude::*;

const REALMS: [&str; 6] = [
    "Genogien", "Afani", "Fugandri", "Kaldor", "Mirandel", "Ostvik",
];

fn square() -> impl Strategy<Value = Square> {
    (0u16..14, 0u16..14).prop_map(|(c, r)| Square::new(c, r).unwrap_or_else(|| sq("A1")))
}

fn group() -> impl Strategy<Value = Group> {
    prop_oneof![
        (0u32..5).prop_map(Group::Army),
        (0u32..4).prop_map(Group::Fleet)
    ]
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        Just(Piece::Unit(UnitKind::Veteran)),
        Just(Piece::Unit(UnitKind::LattInfanteri)),
        Just(Piece::Ship(ShipKind::Transportskepp)),
    ]
}

fn order() -> impl Strategy<Value = Order> {
    prop_oneof![
        (group(), proptest::collection::vec(square(), 0..6))
            .prop_map(|(group, path)| Order::Move { group, path }),
        (group(), square(), 0u8..4, 0u8..3).prop_map(|(group, square, o, v)| Order::Attack {
            group,
            square,
            outcome: [
                None,
                Some(Outcome::Plunder),
                Some(Outcome::Takeover),
                Some(Outcome::Raze)
            ][o as usize],
            wave: [None, Some(Wave::First), Some(Wave::Second)][v as usize],
        }),
        (0u32..5, 0u32..4).prop_map(|(army, fleet)| Order::Embark { army, fleet }),
        (0u32..5, proptest::option::of(square()))
            .prop_map(|(army, square)| Order::Disembark { army, square }),
        (group(), 0u32..5).prop_map(|(group, other)| Order::Merge { group, other }),
        (
            group(),
            proptest::collection::vec((any::<u32>(), piece()), 0..3)
        )
            .prop_map(|(group, pieces)| Order::Split { group, pieces }),
        (group(), proptest::collection::vec((0u32..5, piece()), 0..3))
            .prop_map(|(group, pieces)| Order::Reorder { group, pieces }),
        (0usize..6, group()).prop_map(|(r, group)| Order::UseInvitation {
            from: REALMS[r].to_string(),
            group
        }),
        group().prop_map(|group| Order::HomeInvitation { group }),
    ]
}

fn troops() -> pbemd::game::GameState {
    let mut gs = game();
    let land: Vec<Square> = gs
        .map
        .squares
        .iter()
        .filter(|(_, m)| m.terrain == pbemd::game::state::Terrain::Land)
        .map(|(s, _)| s)
        .collect();
    for (i, r) in REALMS.iter().enumerate() {
        for id in 1..4u32 {
            let s = land[(i * 7 + id as usize * 3) % land.len()].to_string();
            army(
                &mut gs,
                r,
                id,
                &s,
                units(
                    &[(2, UnitKind::Veteran), (2, UnitKind::LattInfanteri)],
                    id == 3,
                ),
            );
        }
        invite(&mut gs, r, REALMS[(i + 1) % 6], &land[i].to_string());
    }
    fleet(
        &mut gs,
        "Genogien",
        1,
        "E2",
        ships(&[(2, ShipKind::Transportskepp)], false),
        &[],
    );
    fleet(
        &mut gs,
        "Afani",
        1,
        "E2",
        ships(&[(1, ShipKind::Galeas)], false),
        &[],
    );
    gs
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_military_orders_resolve_without_a_panic_and_the_same_twice(
        forms in proptest::collection::vec((0usize..6, proptest::collection::vec(order(), 0..12)), 0..6)
    ) {
        let gs = troops();
        let forms: Vec<(&str, Vec<Order>)> = forms.into_iter().map(|(r, o)| (REALMS[r], o)).collect();
        let o = orders(&forms);
        let a = pbemd::game::weekend::resolve(&gs, &o, &gs.settings, 5);
        let b = pbemd::game::weekend::resolve(&gs, &o, &gs.settings, 5);
        prop_assert_eq!(&a, &b);
        for r in REALMS {
            for lang in [pbemd::game::Lang::Sv, pbemd::game::Lang::En] {
                let _ = pbemd::render::weekend::report(&a.events, &a.state, r, lang);
            }
        }
    }
}
