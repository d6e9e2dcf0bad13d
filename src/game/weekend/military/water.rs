//! R-UNIT-4: an army group that a water elemental carries over the sea drowns whole
//! when its last water elemental dies there, for whatever reason: a spell in step 2, a
//! battle in step 4, a disband over the elementals' cap in step 8, a random event after
//! step 9. The pipeline notes the carried groups before each of those steps and drowns
//! those the step left at sea without one.

use crate::game::event::{Step, What};
use crate::game::state::{ArmyGroup, Dimension, GameState, Terrain};
use crate::game::{Name, UnitKind};

use super::super::Weekend;
use super::{forces, MilitaryEvent};

fn carries(a: &ArmyGroup) -> bool {
    a.units.iter().any(|u| u.kind == UnitKind::Vattenelementar)
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
    gs.armies
        .iter()
        .filter(|a| carries(a) && at_sea(gs, a))
        .filter(|a| forces::carrier(gs, &a.owner, a.id).is_none())
        .map(|a| (a.owner.clone(), a.id))
        .collect()
}

/// Of the groups `carried` (as `carried_at_sea` found them before `step`), those the
/// step left at sea, not aboard, with units but no water elemental drown whole; each
/// owner is told.
pub fn drown_stranded(w: &mut Weekend, step: Step, carried: &[(Name, u32)]) {
    for (owner, id) in carried {
        let Some(i) = forces::army_at(&w.state, owner, *id) else {
            continue;
        };
        let a = &w.state.armies[i];
        if a.units.is_empty() || carries(a) || !at_sea(&w.state, a) {
            continue;
        }
        if forces::carrier(&w.state, owner, *id).is_some() {
            continue;
        }
        let (square, units) = (a.square, a.units.len() as u64);
        forces::remove_army(&mut w.state, owner, *id);
        let ev = MilitaryEvent::Drowned {
            realm: owner.clone(),
            army: *id,
            square,
            units,
        };
        w.emit(step, [owner.clone()], What::Military(ev));
    }
}
