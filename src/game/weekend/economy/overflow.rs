//! Step 8: army overflow (docs/rules.md, Rulings 51). Each realm over its population
//! cap (R-POP-1) or a position cap (R-POS-4: ships, army groups, elementals, spies) is
//! told so on its form. With `army_overflow: disband` the excess goes: from the end
//! of the realm's largest groups (armies and fleets; ties to armies, then the lowest
//! number), spies from those held at home last. Over the army-group cap only a
//! warning is given: no group is broken up. Troops aboard a fleet that lost ships
//! drown as they do when a fleet sinks or has too few transports left (RULINGS 32).

use std::collections::BTreeSet;

use super::tally::{populations, unit_counts};
use super::{tell, Cap, EconomyEvent};
use crate::game::event::{Step, What};
use crate::game::state::{ArmyOverflow, GameState, Positions, UnitCount};
use crate::game::weekend::military::{forces, MilitaryEvent};
use crate::game::weekend::Weekend;
use crate::game::Name;
use crate::game::UnitKind;

const CAPS: [Cap; 5] = [
    Cap::Elementals,
    Cap::Ships,
    Cap::Spies,
    Cap::ArmyGroups,
    Cap::Population,
];

pub(super) fn run(w: &mut Weekend) {
    let disband = w.settings.army_overflow == ArmyOverflow::Disband;
    let counts = unit_counts(&w.state);
    let pops = populations(&w.state);
    for i in 0..w.state.realms.len() {
        let (realm, positions) = match &w.state.realms[i] {
            r if r.eliminated => continue,
            r => (r.name.clone(), r.positions),
        };
        let Some(mut n) = counts.get(i).copied() else {
            continue;
        };
        let pop = pops.get(i).copied().unwrap_or(0);
        for cap in CAPS {
            let (have, limit) = measure(&positions, pop, &n, cap);
            if have <= limit {
                continue;
            }
            let disbanded = if disband && cap != Cap::ArmyGroups {
                remove(&mut w.state, &realm, cap, have - limit)
            } else {
                0
            };
            let mut drowned = Vec::new();
            if disbanded > 0 {
                drowned = drown_aboard(w, &realm);
                tidy(&mut w.state);
                n = w.state.counted_units(&realm);
            }
            let ev = EconomyEvent::Overflow {
                realm: realm.clone(),
                cap,
                have,
                limit,
                disbanded,
            };
            tell(w, Step::Overflow, ev);
            for ev in drowned {
                let seen_by = [w.name(&realm)];
                w.emit(Step::Overflow, seen_by, What::Military(ev));
            }
        }
    }
}

/// The troops aboard `realm`'s fleets that their ships left after a disband can no
/// longer carry drown, from the tail of the last army aboard; a fleet left without
/// ships goes with all its cargo (R-COMBAT-8, RULINGS 32). The losses, to tell.
fn drown_aboard(w: &mut Weekend, realm: &str) -> Vec<MilitaryEvent> {
    let fleets: Vec<(u32, bool)> = w
        .state
        .fleets
        .iter()
        .filter(|f| f.owner == realm && !f.cargo.is_empty())
        .map(|f| (f.id, f.ships.is_empty()))
        .collect();
    let mut out = Vec::new();
    for (id, sunk) in fleets {
        let units = forces::drown_excess(&mut w.state, w.settings, realm, id);
        if units > 0 {
            out.push(MilitaryEvent::CargoLost {
                realm: w.name(realm),
                fleet: id,
                units,
                fleet_sunk: sunk,
            });
        }
    }
    out
}

/// What the realm has of the capped thing, and its cap.
fn measure(p: &Positions, population: u32, n: &UnitCount, cap: Cap) -> (u32, u32) {
    match cap {
        Cap::Population => (n.counted(), population / 10),
        Cap::Ships => (n.ships, p.amiral.saturating_mul(5)),
        Cap::ArmyGroups => (n.army_groups, p.befalhavare.saturating_mul(2)),
        Cap::Elementals => (n.elementals, p.besvarjare.saturating_mul(3)),
        Cap::Spies => (n.spies, p.informator),
        Cap::Walls => (0, 0),
    }
}

/// The realm's army groups and fleets, as indexes into the state's lists.
struct Groups {
    armies: Vec<usize>,
    fleets: Vec<usize>,
}

/// Remove up to `n` of what `cap` counts; returns how many went. Emptied groups
/// stay until `tidy`, which the caller runs after.
fn remove(gs: &mut GameState, realm: &str, cap: Cap, n: u32) -> u32 {
    let g = Groups {
        armies: (0..gs.armies.len())
            .filter(|i| gs.armies[*i].owner == realm)
            .collect(),
        fleets: (0..gs.fleets.len())
            .filter(|i| gs.fleets[*i].owner == realm)
            .collect(),
    };
    let mut gone = 0;
    while gone < n {
        let ok = match cap {
            Cap::Elementals => drop_unit(gs, &g, |k| k.is_elemental()),
            Cap::Ships => drop_ship(gs, &g),
            Cap::Spies => drop_spy(gs, realm),
            _ => drop_any(gs, &g, realm),
        };
        if !ok {
            break;
        }
        gone += 1;
    }
    gone
}

/// Empty army groups and fleets go, and no fleet carries an army that is gone.
fn tidy(gs: &mut GameState) {
    gs.armies.retain(|a| !a.units.is_empty());
    let armies: BTreeSet<(Name, u32)> = gs.armies.iter().map(|a| (a.owner.clone(), a.id)).collect();
    for f in gs.fleets.iter_mut() {
        let owner = f.owner.clone();
        f.cargo.retain(|id| armies.contains(&(owner.clone(), *id)));
    }
    gs.fleets.retain(|f| !f.ships.is_empty());
}

/// The largest army group holding a unit `pick` accepts; its last such unit goes.
fn drop_unit(gs: &mut GameState, g: &Groups, pick: impl Fn(UnitKind) -> bool) -> bool {
    let best = g
        .armies
        .iter()
        .copied()
        .filter(|i| gs.armies[*i].units.iter().any(|u| pick(u.kind)))
        .max_by(|a, b| {
            let (a, b) = (&gs.armies[*a], &gs.armies[*b]);
            a.units.len().cmp(&b.units.len()).then(b.id.cmp(&a.id))
        });
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

/// The largest fleet with ships, and its size.
fn largest_fleet(gs: &GameState, g: &Groups) -> Option<(usize, usize)> {
    g.fleets
        .iter()
        .copied()
        .filter(|i| !gs.fleets[*i].ships.is_empty())
        .max_by(|a, b| {
            let (a, b) = (&gs.fleets[*a], &gs.fleets[*b]);
            a.ships.len().cmp(&b.ships.len()).then(b.id.cmp(&a.id))
        })
        .map(|i| (i, gs.fleets[i].ships.len()))
}

fn drop_ship(gs: &mut GameState, g: &Groups) -> bool {
    match largest_fleet(gs, g) {
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
fn drop_any(gs: &mut GameState, g: &Groups, realm: &str) -> bool {
    let army = g
        .armies
        .iter()
        .map(|i| gs.armies[*i].units.len())
        .max()
        .unwrap_or(0);
    let fleet = largest_fleet(gs, g).map_or(0, |(_, n)| n);
    if army > 0 && army >= fleet {
        drop_unit(gs, g, |_| true)
    } else if fleet > 0 {
        drop_ship(gs, g)
    } else {
        drop_spy(gs, realm)
    }
}
