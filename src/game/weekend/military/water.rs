//! R-UNIT-4: an army group that a water elemental carries over the sea drowns whole
//! when its last water elemental dies there, for whatever reason: a spell in step 2, a
//! battle in step 4, a disband over the elementals' cap in step 8, a random event after
//! step 9. The pipeline notes the carried groups before those steps and drowns those a
//! step left at sea without one. Neither needs the armies or fleets sorted: they are
//! read between the steps, where new groups may stand at the end of the lists.
//!
//! Waterway carries an army over the water for the weekend only (R-SPELL table 17): an
//! army it leaves standing on the water when the weekend ends (out of movement points
//! or stopped on the way) drowns whole in the same way (`waterway_lapses`; D-85).

use crate::game::event::{Step, What};
use crate::game::hash::FastMap;
use crate::game::orders::Order;
use crate::game::state::{ArmyGroup, Dimension, GameState, GroupRef, SpellTarget, Terrain};
use crate::game::{Name, Spell, UnitKind};

use super::super::{evil, magic, Weekend};
use super::{forces, MilitaryEvent};

/// The group holds a water elemental.
pub(crate) fn carries(a: &ArmyGroup) -> bool {
    a.units.iter().any(|u| u.kind == UnitKind::Vattenelementar)
}

/// The line buys or places a water elemental (see `Weekend::water_elementals`).
pub(crate) fn raises_a_water_elemental(o: &Order) -> bool {
    match o {
        Order::BuyUnits { kind, .. } => *kind == UnitKind::Vattenelementar,
        Order::PlaceTroops { placements } => placements
            .iter()
            .any(|(_, kind, _)| *kind == UnitKind::Vattenelementar),
        _ => false,
    }
}

/// `carried_at_sea` in the weekend, before step 4 ends: nothing to look for, and no
/// pass over every group, when no group can hold a water elemental (a debug build
/// checks that none does).
pub fn carried(w: &Weekend) -> Vec<(Name, u32)> {
    if !w.water_elementals {
        debug_assert!(
            !w.state.armies.iter().any(carries),
            "a water elemental the weekend did not expect"
        );
        return Vec::new();
    }
    carried_at_sea(&w.state)
}

/// Can the group stand on the water with no fleet under it: a water elemental carries
/// it (R-UNIT-4), a higher demon does (R-EVIL-10), or it is all air elementals.
pub fn afloat(a: &ArmyGroup) -> bool {
    carries(a)
        || evil::goes_anywhere(a)
        || a.units.iter().all(|u| u.kind == UnitKind::Luftelementar)
}

/// On the sea of the normal map with nothing to keep it afloat (see `afloat`): an army
/// group there without a fleet under it drowns.
pub fn stranded(gs: &GameState, a: &ArmyGroup) -> bool {
    at_sea(gs, a) && !afloat(a)
}

fn at_sea(gs: &GameState, a: &ArmyGroup) -> bool {
    a.dimension == Dimension::Normal
        && gs
            .map
            .get(a.square)
            .is_some_and(|m| m.terrain == Terrain::Sea)
}

/// The army groups standing on the sea of the normal map, not aboard a fleet, with a
/// water elemental: (owner, number).
pub fn carried_at_sea(gs: &GameState) -> Vec<(Name, u32)> {
    // The units first: they sit beside the group in memory, where the map square is
    // somewhere else on a large map, and few groups hold a water elemental.
    let found: Vec<&ArmyGroup> = gs
        .armies
        .iter()
        .filter(|a| a.dimension == Dimension::Normal && carries(a) && at_sea(gs, a))
        .collect();
    if found.is_empty() {
        return Vec::new();
    }
    let aboard = forces::all_aboard(gs);
    found
        .into_iter()
        .filter(|a| !aboard.contains(&(a.owner.clone(), a.id)))
        .map(|a| (a.owner.clone(), a.id))
        .collect()
}

/// Of the groups `carried` (as `carried_at_sea` found them before `step`), those the
/// step left at sea, not aboard, with units but no water elemental drown whole; each
/// owner is told.
pub fn drown_stranded(w: &mut Weekend, step: Step, carried: &[(Name, u32)]) {
    if carried.is_empty() {
        return;
    }
    let gs = &w.state;
    let aboard = forces::all_aboard(gs);
    let carried: std::collections::BTreeSet<(&str, u32)> =
        carried.iter().map(|(o, id)| (o.as_str(), *id)).collect();
    let stranded: Vec<usize> = (0..gs.armies.len())
        .filter(|&i| {
            let a = &gs.armies[i];
            carried.contains(&(a.owner.as_str(), a.id))
                && !a.units.is_empty()
                && !carries(a)
                && at_sea(gs, a)
                && !aboard.contains(&(a.owner.clone(), a.id))
        })
        .collect();
    drown_whole(w, step, &stranded);
}

/// The army groups at `places` (ascending) drown whole in `step`; each owner is told.
fn drown_whole(w: &mut Weekend, step: Step, places: &[usize]) {
    let mut drowned = Vec::new();
    for &i in places.iter().rev() {
        drowned.push(w.state.armies.remove(i));
    }
    for a in drowned.into_iter().rev() {
        let ev = MilitaryEvent::Drowned {
            realm: a.owner.clone(),
            army: a.id,
            square: a.square,
            units: a.units.len() as u64,
        };
        w.emit(step, [a.owner], What::Military(ev));
    }
}

/// At the end of the weekend Waterway lapses: an army on the sea of the normal map, not
/// aboard a fleet, that neither a water elemental nor a higher demon carries nor is all
/// air elementals, and that Waterway carried this weekend, drowns whole; its owner is
/// told.
pub fn waterway_lapses(w: &mut Weekend) {
    // The armies Waterway carried this weekend, by number (few, when any): a group is
    // looked at further only when its number is among them.
    let mut carried: FastMap<u32, Vec<Name>> = Default::default();
    for e in magic::reads::this_weekend(&w.state, Spell::Vattenvag) {
        if let SpellTarget::Group(GroupRef::Army { owner, id }) = &e.target {
            carried.entry(*id).or_default().push(owner.clone());
        }
    }
    if carried.is_empty() {
        return;
    }
    let gs = &w.state;
    let left: Vec<usize> = (0..gs.armies.len())
        .filter(|&i| {
            let a = &gs.armies[i];
            carried
                .get(&a.id)
                .is_some_and(|owners| owners.contains(&a.owner))
                && at_sea(gs, a)
                && !afloat(a)
        })
        .collect();
    if left.is_empty() {
        return;
    }
    let aboard = forces::all_aboard(gs);
    let left: Vec<usize> = left
        .into_iter()
        .filter(|&i| !aboard.contains(&(gs.armies[i].owner.clone(), gs.armies[i].id)))
        .collect();
    drown_whole(w, Step::WrapUp, &left);
}
