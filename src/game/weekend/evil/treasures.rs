//! Treasures (R-EVIL-5..8, Rulings 55): a normal realm's army that stops on a treasure
//! in the Evil dimension rolls the d8 table; the find is carried by the army
//! (`ArmyGroup::treasure`) and credited when the army stands in one of its realm's
//! cities; it is lost with the army. A taken treasure reappears on a random rock
//! square. On an 8 the GM decides (the GM is told; the army carries nothing).

use crate::game::dice::Dice;
use crate::game::event::Step;
use crate::game::state::{Dimension, EvilTerrain, GameState};
use crate::game::Name;
use crate::game::{Resource, Resources, Square};

use super::super::military::army_index;
use super::super::{Carried, Weekend};
use super::{emit, evil_realm, is_evil, EvilEvent};

/// The d8 table (R-EVIL-8): the resource and the fixed part added to a d20.
pub fn table(roll: u32) -> Option<(Resource, u32)> {
    Some(match roll {
        1 => (Resource::Jarn, 20),
        2 => (Resource::Guld, 20),
        3 => (Resource::Sten, 20),
        4 => (Resource::Eld, 10),
        5 => (Resource::Jord, 10),
        6 => (Resource::Luft, 10),
        7 => (Resource::Vatten, 10),
        _ => return None,
    })
}

/// After step 4, with the given dice: every normal army on a treasure picks it up.
pub fn pick_up_with(w: &mut Weekend, mut dice: Dice) {
    let finders: Vec<(Name, u32, Square)> = w
        .state
        .armies
        .iter()
        .filter(|a| a.dimension == Dimension::Evil && !a.units.is_empty())
        .filter(|a| w.state.map.get(a.square).is_some_and(|m| m.treasure))
        .map(|a| (a.owner.clone(), a.id, a.square))
        .collect();
    for (realm, army, square) in finders {
        let still = w.state.map.get(square).is_some_and(|m| m.treasure);
        if !still || is_evil(&w.state, &realm) {
            continue;
        }
        take(w, &mut dice, &realm, army, square);
    }
    w.keep(dice);
}

fn take(w: &mut Weekend, dice: &mut Dice, realm: &str, army: u32, square: Square) {
    let roll = dice.roll(8);
    let mut found = Resources::ZERO;
    if let Some((res, base)) = table(roll) {
        found.set(res, dice.d20().saturating_add(base));
    }
    if let Some(i) = army_index(&w.state, realm, army) {
        let a = &mut w.state.armies[i];
        a.treasure.add(&found);
        w.treasure_found = true;
    }
    if let Some(m) = w.state.map.squares.get_mut(&square) {
        m.treasure = false;
    }
    let ev = EvilEvent::TreasureFound {
        realm: realm.into(),
        army,
        square,
        roll,
        found: Box::new(found),
    };
    emit(w, Step::Combat, [realm.to_string()], ev);
    if table(roll).is_none() {
        let ev = EvilEvent::TreasureForGm {
            realm: realm.into(),
            army,
            square,
        };
        emit(w, Step::Combat, Vec::<Name>::new(), ev);
    }
    respawn(w, dice, square);
}

/// Rulings 55: a new treasure on a random free rock square (not the one just taken).
fn respawn(w: &mut Weekend, dice: &mut Dice, taken: Square) {
    let free: Vec<Square> = free_rock(&w.state, taken);
    if free.is_empty() {
        return;
    }
    let n = u32::try_from(free.len()).unwrap_or(u32::MAX);
    let at = free[(dice.roll(n) - 1) as usize];
    if let Some(m) = w.state.map.squares.get_mut(&at) {
        m.treasure = true;
    }
    let seen: Vec<String> = evil_realm(&w.state)
        .map(str::to_string)
        .into_iter()
        .collect();
    emit(w, Step::Combat, seen, EvilEvent::TreasureNew { square: at });
}

fn free_rock(gs: &GameState, taken: Square) -> Vec<Square> {
    let cities: std::collections::BTreeSet<Square> = gs
        .cities
        .iter()
        .filter(|c| c.dimension == Dimension::Evil)
        .map(|c| c.square)
        .collect();
    gs.map
        .squares
        .iter()
        .filter(|(sq, m)| {
            m.evil_terrain == EvilTerrain::Rock
                && !m.treasure
                && m.portal.is_none()
                && *sq != taken
                && !cities.contains(sq)
        })
        .map(|(sq, _)| sq)
        .collect()
}

/// R-EVIL-6: carried treasure is credited to an army standing in an own city.
pub fn credit(w: &mut Weekend) {
    if w.start_treasures().is_empty() && !w.treasure_found {
        return; // no group carries a treasure (see `Weekend::treasure_found`)
    }
    // The cities by square, gathered at the first group that carries a treasure (one
    // pass over the groups, which mostly carry none).
    let mut own: Option<std::collections::BTreeMap<Square, Name>> = None;
    let cities = &w.state.cities;
    let mut done = Vec::new();
    for a in w.state.armies.iter_mut() {
        if a.treasure.is_zero() || a.dimension != Dimension::Normal {
            continue;
        }
        let own = own.get_or_insert_with(|| {
            cities
                .iter()
                .filter(|c| c.dimension == Dimension::Normal)
                .map(|c| (c.square, c.owner.clone()))
                .collect()
        });
        let home = own.get(&a.square).is_some_and(|o| *o == a.owner);
        if home {
            done.push((a.owner.clone(), a.id, a.square, a.treasure.amount()));
            a.treasure = Default::default();
        }
    }
    for (realm, army, city, resources) in done {
        if let Some(r) = w.state.realm_mut(&realm) {
            r.stock = r.stock.plus(&resources);
        }
        let ev = EvilEvent::TreasureCredited {
            realm: realm.clone(),
            army,
            city,
            resources: Box::new(resources),
        };
        emit(w, Step::WrapUp, [realm], ev);
    }
}

/// Rulings 55: treasure carried by an army that is gone is lost.
pub(super) fn lost(w: &mut Weekend) {
    // The carriers as the forms found them, noted when the weekend copied the state
    // (not a second pass over every group of `start` here, long after).
    let gone: Vec<Carried> = w
        .start_treasures()
        .iter()
        .filter(|(owner, id, _)| army_index(&w.state, owner, *id).is_none())
        .cloned()
        .collect();
    for (realm, army, resources) in gone {
        let ev = EvilEvent::TreasureLost {
            realm: realm.clone(),
            army,
            resources: Box::new(resources),
        };
        emit(w, Step::WrapUp, [realm], ev);
    }
}
