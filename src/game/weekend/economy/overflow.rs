//! Step 8: army overflow (docs/rules.md, Rulings 51). Each realm over its population
//! cap (R-POP-1) or a position cap (R-POS-4: ships, army groups, elementals, spies) is
//! told so on its form. With `army_overflow: disband` the excess goes: from the end
//! of the realm's largest groups (armies and fleets; ties to armies, then the lowest
//! number), spies from those held at home last. Over the army-group cap only a
//! warning is given: no group is broken up.

use super::{playing, tell, Cap, EconomyEvent};
use crate::game::event::Step;
use crate::game::state::{ArmyOverflow, GameState, UnitCount};
use crate::game::weekend::Weekend;

pub(super) fn run(w: &mut Weekend) {
    let disband = w.settings.army_overflow == ArmyOverflow::Disband;
    for realm in playing(w) {
        let mut counts = w.state.counted_units(&realm);
        for cap in [
            Cap::Elementals,
            Cap::Ships,
            Cap::Spies,
            Cap::ArmyGroups,
            Cap::Population,
        ] {
            let (have, limit) = measure(&w.state, &realm, &counts, cap);
            if have <= limit {
                continue;
            }
            let disbanded = if disband && cap != Cap::ArmyGroups {
                remove(&mut w.state, &realm, cap, have - limit)
            } else {
                0
            };
            if disbanded > 0 {
                counts = w.state.counted_units(&realm);
            }
            let ev = EconomyEvent::Overflow {
                realm: realm.clone(),
                cap,
                have,
                limit,
                disbanded,
            };
            tell(w, Step::Overflow, ev);
        }
    }
}

/// What the realm has of the capped thing, and its cap.
fn measure(gs: &GameState, realm: &str, n: &UnitCount, cap: Cap) -> (u32, u32) {
    let p = gs.realm(realm).map(|r| r.positions).unwrap_or_default();
    match cap {
        Cap::Population => (n.counted(), gs.population(realm) / 10),
        Cap::Ships => (n.ships, p.amiral.saturating_mul(5)),
        Cap::ArmyGroups => (n.army_groups, p.befalhavare.saturating_mul(2)),
        Cap::Elementals => (n.elementals, p.besvarjare.saturating_mul(3)),
        Cap::Spies => (n.spies, p.informator),
        Cap::Walls => (0, 0),
    }
}

/// Remove up to `n` of what `cap` counts; returns how many went.
fn remove(gs: &mut GameState, realm: &str, cap: Cap, n: u32) -> u32 {
    let mut gone = 0;
    while gone < n {
        let ok = match cap {
            Cap::Elementals => drop_unit(gs, realm, |k| k.is_elemental()),
            Cap::Ships => drop_ship(gs, realm),
            Cap::Spies => drop_spy(gs, realm),
            _ => drop_any(gs, realm),
        };
        if !ok {
            break;
        }
        gone += 1;
    }
    gs.armies.retain(|a| !a.units.is_empty());
    let armies: Vec<(String, u32)> = gs.armies.iter().map(|a| (a.owner.clone(), a.id)).collect();
    for f in gs.fleets.iter_mut() {
        f.cargo
            .retain(|id| armies.iter().any(|(o, i)| o == &f.owner && i == id));
    }
    gs.fleets.retain(|f| !f.ships.is_empty());
    gone
}

/// The realm's largest army group holding a unit `pick` accepts; its last such unit goes.
fn drop_unit(
    gs: &mut GameState,
    realm: &str,
    pick: impl Fn(crate::game::UnitKind) -> bool,
) -> bool {
    let best = gs
        .armies
        .iter()
        .enumerate()
        .filter(|(_, a)| a.owner == realm && a.units.iter().any(|u| pick(u.kind)))
        .max_by(|(_, a), (_, b)| a.units.len().cmp(&b.units.len()).then(b.id.cmp(&a.id)))
        .map(|(i, _)| i);
    let Some(i) = best else { return false };
    let units = &mut gs.armies[i].units;
    match units.iter().rposition(|u| pick(u.kind)) {
        Some(j) => {
            units.remove(j);
            true
        }
        None => false,
    }
}

fn largest_fleet(gs: &GameState, realm: &str) -> Option<(usize, usize)> {
    gs.fleets
        .iter()
        .enumerate()
        .filter(|(_, f)| f.owner == realm && !f.ships.is_empty())
        .max_by(|(_, a), (_, b)| a.ships.len().cmp(&b.ships.len()).then(b.id.cmp(&a.id)))
        .map(|(i, f)| (i, f.ships.len()))
}

fn drop_ship(gs: &mut GameState, realm: &str) -> bool {
    match largest_fleet(gs, realm) {
        Some((i, _)) => gs.fleets[i].ships.pop().is_some(),
        None => false,
    }
}

fn drop_spy(gs: &mut GameState, realm: &str) -> bool {
    match gs.realm_mut(realm) {
        Some(r) if r.spies > 0 => {
            r.spies -= 1;
            true
        }
        _ => false,
    }
}

/// Over the population cap: the tail of the largest army group or fleet, then a spy.
fn drop_any(gs: &mut GameState, realm: &str) -> bool {
    let army = gs
        .armies
        .iter()
        .filter(|a| a.owner == realm)
        .map(|a| a.units.len())
        .max()
        .unwrap_or(0);
    let fleet = largest_fleet(gs, realm).map_or(0, |(_, n)| n);
    if army > 0 && army >= fleet {
        drop_unit(gs, realm, |_| true)
    } else if fleet > 0 {
        drop_ship(gs, realm)
    } else {
        drop_spy(gs, realm)
    }
}
