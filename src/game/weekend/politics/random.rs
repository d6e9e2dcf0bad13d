//! Random events (R-RAND-1, docs/rules.md Rulings 50): after step 9 a d10 for every
//! realm that plays; 1 draws an entry of the scenario's good table, 10 one of its bad
//! table (a second die picks the entry). An entry is a mechanical effect with a text:
//! a good one adds its resources, units (to the army at the capital) and VP; a bad
//! one takes them (as far as there are any). The GM's choice for a realm and round
//! (`pbemd gm event`) replaces what the dice drew; the dice are rolled all the same,
//! so every other realm's roll stays as it was.

use std::collections::BTreeMap;

use super::{add_vp, playing, tell, PoliticsEvent};
use crate::game::event::Step;
use crate::game::state::{ArmyGroup, DrawnEvent, EventEntry, GameState, Unit};
use crate::game::weekend::Weekend;
use crate::game::{Resources, UnitKind};

/// The d10's good and bad faces.
pub const GOOD_FACE: u32 = 1;
pub const BAD_FACE: u32 = 10;

pub(super) fn run(w: &mut Weekend) {
    let round = w.round();
    let chosen: BTreeMap<String, Option<DrawnEvent>> = w
        .state
        .gm_events
        .iter()
        .filter(|g| g.round == round)
        .map(|g| (g.realm.clone(), g.event.clone()))
        .collect();
    for i in playing(w) {
        let name = w.state.realms[i].name.clone();
        let mut dice = w.dice(&format!("random/{name}"));
        let roll = dice.d10();
        let table = match roll {
            GOOD_FACE => Some((true, &w.settings.good_events)),
            BAD_FACE => Some((false, &w.settings.bad_events)),
            _ => None,
        };
        let drawn = table.filter(|(_, t)| !t.is_empty()).map(|(good, t)| {
            let sides = u32::try_from(t.len()).unwrap_or(u32::MAX);
            let k = usize::try_from(dice.roll(sides))
                .unwrap_or(1)
                .saturating_sub(1);
            DrawnEvent {
                good,
                entry: t[k.min(t.len() - 1)].clone(),
            }
        });
        w.keep(dice);
        let by_gm = chosen.contains_key(&name);
        let event = match chosen.get(&name) {
            Some(c) => c.clone(),
            None => drawn,
        };
        if let Some(d) = event {
            let ev = apply(&mut w.state, i, &d, round, roll, by_gm);
            tell(w, Step::Politics, ev);
        }
    }
    w.state.gm_events.retain(|g| g.round > round);
}

/// Apply one event to realm `i` and say what it did.
fn apply(
    gs: &mut GameState,
    i: usize,
    d: &DrawnEvent,
    round: u32,
    roll: u32,
    by_gm: bool,
) -> PoliticsEvent {
    let (resources, units, vp) = apply_entry(gs, i, d.good, &d.entry, round);
    PoliticsEvent::Random {
        realm: gs.realms[i].name.clone(),
        roll,
        good: d.good,
        text: d.entry.text.clone(),
        resources,
        units,
        vp,
        by_gm,
    }
}

/// The effect of `entry` on realm `i`: the resources, units and VP really gained
/// (good) or lost (bad), the VP signed.
pub fn apply_entry(
    gs: &mut GameState,
    i: usize,
    good: bool,
    entry: &EventEntry,
    round: u32,
) -> (Resources, Vec<UnitKind>, i64) {
    let resources = if good {
        gain(&mut gs.realms[i].stock, &entry.resources)
    } else {
        lose(&mut gs.realms[i].stock, &entry.resources)
    };
    let units = if good {
        join_capital(gs, i, &entry.units, round)
    } else {
        desert(gs, i, &entry.units)
    };
    let vp = if good {
        entry.vp
    } else {
        entry.vp.saturating_neg()
    };
    let r = &mut gs.realms[i];
    r.vp = add_vp(r.vp, vp);
    (resources, units, vp)
}

fn gain(stock: &mut Resources, add: &Resources) -> Resources {
    for (res, n) in add.iter() {
        let v = stock.get(res).saturating_add(n);
        stock.set(res, v);
    }
    *add
}

/// Take `take` from the stock, as far as it goes; what was taken.
fn lose(stock: &mut Resources, take: &Resources) -> Resources {
    let mut lost = Resources::ZERO;
    for (res, n) in take.iter() {
        let have = stock.get(res);
        let gone = have.min(n);
        stock.set(res, have - gone);
        lost.set(res, gone);
    }
    lost
}

/// Good units join the realm's army group in its capital (a new group when there is
/// none there); without a capital they do not come.
fn join_capital(gs: &mut GameState, i: usize, kinds: &[UnitKind], round: u32) -> Vec<UnitKind> {
    let name = gs.realms[i].name.clone();
    let Some(cap) = gs.realms[i].capital else {
        return Vec::new();
    };
    let Some(dim) = gs
        .cities_of(&name)
        .find(|c| c.square == cap)
        .map(|c| c.dimension)
    else {
        return Vec::new();
    };
    if kinds.is_empty() {
        return Vec::new();
    }
    let new = kinds.iter().map(|&kind| Unit {
        kind,
        built_round: round,
    });
    let at = gs
        .armies
        .iter()
        .position(|a| a.owner == name && a.square == cap && a.dimension == dim);
    match at {
        Some(k) => gs.armies[k].units.extend(new),
        None => {
            let id = gs.armies_of(&name).map(|a| a.id).max().unwrap_or(0);
            gs.armies.push(ArmyGroup {
                id: id.saturating_add(1),
                owner: name,
                square: cap,
                dimension: dim,
                units: new.collect(),
                treasure: Resources::ZERO,
                no_move_until_round: None,
            });
        }
    }
    kinds.to_vec()
}

/// Bad units leave: for each kind listed, the last such unit of the realm's first
/// army group that has one; emptied groups are gone.
fn desert(gs: &mut GameState, i: usize, kinds: &[UnitKind]) -> Vec<UnitKind> {
    if kinds.is_empty() {
        return Vec::new();
    }
    let name = gs.realms[i].name.clone();
    let own: Vec<usize> = (0..gs.armies.len())
        .filter(|&k| gs.armies[k].owner == name)
        .collect();
    let mut gone = Vec::new();
    for &kind in kinds {
        for &k in &own {
            let units = &mut gs.armies[k].units;
            if let Some(p) = units.iter().rposition(|u| u.kind == kind) {
                units.remove(p);
                gone.push(kind);
                break;
            }
        }
    }
    let emptied: Vec<u32> = own
        .iter()
        .filter(|&&k| gs.armies[k].units.is_empty())
        .map(|&k| gs.armies[k].id)
        .collect();
    if !emptied.is_empty() {
        gs.armies
            .retain(|a| !(a.owner == name && a.units.is_empty()));
        for f in gs.fleets.iter_mut().filter(|f| f.owner == name) {
            f.cargo.retain(|id| !emptied.contains(id));
        }
    }
    gone
}
