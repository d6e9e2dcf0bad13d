//! Per-realm counts in one pass over the state, so each step costs time in
//! proportion to the game's size, not to realms × groups.

use std::collections::BTreeMap;

use crate::game::state::{GameState, SpyState, UnitCount};

/// `GameState::counted_units` for every realm at once.
pub(super) fn unit_counts(gs: &GameState) -> BTreeMap<String, UnitCount> {
    let mut m: BTreeMap<String, UnitCount> = gs
        .realms
        .iter()
        .map(|r| {
            let c = UnitCount {
                army_units: 0,
                elementals: 0,
                ships: 0,
                spies: r.spies,
                army_groups: 0,
            };
            (r.name.clone(), c)
        })
        .collect();
    for a in &gs.armies {
        if let Some(c) = m.get_mut(&a.owner) {
            let elementals = a.units.iter().filter(|u| u.kind.is_elemental()).count();
            c.army_units = c.army_units.saturating_add(len(a.units.len()));
            c.elementals = c.elementals.saturating_add(len(elementals));
            c.army_groups = c.army_groups.saturating_add(1);
        }
    }
    for f in &gs.fleets {
        if let Some(c) = m.get_mut(&f.owner) {
            c.ships = c.ships.saturating_add(len(f.ships.len()));
        }
    }
    for s in gs.spies.iter().filter(|s| s.state == SpyState::Waiting) {
        if let Some(c) = m.get_mut(&s.owner) {
            c.spies = c.spies.saturating_add(1);
        }
    }
    m
}

/// `GameState::population` for every realm at once.
pub(super) fn populations(gs: &GameState) -> BTreeMap<String, u32> {
    let mut m = BTreeMap::new();
    for c in &gs.cities {
        let p: &mut u32 = m.entry(c.owner.clone()).or_default();
        *p = p.saturating_add(c.population);
    }
    m
}

pub(super) fn len(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_pass_counts_agree_with_the_states_own() {
        let gs = crate::game::load_scenario(include_str!("../../../../scenarios/demo.yaml"))
            .expect("demo");
        let counts = unit_counts(&gs);
        let pops = populations(&gs);
        for r in &gs.realms {
            assert_eq!(counts[&r.name], gs.counted_units(&r.name), "{}", r.name);
            assert_eq!(
                pops.get(&r.name).copied().unwrap_or(0),
                gs.population(&r.name)
            );
        }
    }
}
