//! Step 8: army overflow (docs/rules.md, Rulings 51). Each realm over its population
//! cap (R-POP-1) or a position cap (R-POS-4: ships, army groups, elementals, spies) is
//! told so on its form. With `army_overflow: disband` the excess goes: from the end
//! of the realm's largest groups (armies and fleets; ties to armies, then the lowest
//! number), spies from those held at home last. Over the army-group cap only a
//! warning is given: no group is broken up. Troops aboard a fleet that lost ships
//! drown as they do when a fleet sinks or has too few transports left (RULINGS 32).
//!
//! The step costs time in proportion to the game's size, however many realms are over
//! a cap: each realm's groups are listed once, in one pass over the state, and what is
//! disbanded or drowned is emptied in place and removed once, at the step's end.

use super::tally::{add_army, len, populations, unit_counts};
use super::{tell, Cap, EconomyEvent};
use crate::game::event::{Step, What};
use crate::game::hash::FastSet;
use crate::game::state::{places_by_owner, ArmyOverflow, GameState, Positions, UnitCount};
use crate::game::weekend::military::{forces, MilitaryEvent};
use crate::game::weekend::Weekend;
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
    // Every realm's groups, by place in the state's lists: made at the first disband,
    // and good to the step's end, since nothing is removed from the lists before then.
    let mut lists: Option<Lists> = None;
    let mut emptied = false;
    for i in 0..w.state.realms.len() {
        let (realm, positions, held) = match &w.state.realms[i] {
            r if r.eliminated => continue,
            r => (r.name.clone(), r.positions, r.spies),
        };
        let Some(mut n) = counts.get(i).copied() else {
            continue;
        };
        // The realm's spies out on a mission: this step never changes them.
        let away = n.spies.saturating_sub(held);
        let pop = pops.get(i).copied().unwrap_or(0);
        for cap in CAPS {
            let (have, limit) = measure(&positions, pop, &n, cap);
            if have <= limit {
                continue;
            }
            let mut disbanded = 0;
            let mut drowned = Vec::new();
            if disband && cap != Cap::ArmyGroups {
                let lists = lists.get_or_insert_with(|| Lists::of(&w.state));
                let g = lists.of_realm(i);
                disbanded = remove(&mut w.state, &g, &realm, cap, have - limit);
                if disbanded > 0 {
                    drowned = drown_aboard(w, &g, &realm);
                    emptied = true;
                    n = count(&w.state, &g, i, away);
                }
            }
            let over = EconomyEvent::Overflow {
                realm: realm.clone(),
                cap,
                have,
                limit,
                disbanded,
            };
            report(w, over, drowned);
        }
    }
    if emptied {
        tidy(&mut w.state);
    }
}

/// Tell the realm it is over a cap (`Overflow`), then of the troops that drowned with
/// the disband.
fn report(w: &mut Weekend, over: EconomyEvent, drowned: Vec<MilitaryEvent>) {
    let realm = w.name(over.realm());
    tell(w, Step::Overflow, over);
    for ev in drowned {
        w.emit(Step::Overflow, [realm.clone()], What::Military(ev));
    }
}

/// Every realm's army groups and fleets, as places in the state's lists, by the realm's
/// place in `GameState::realms`.
struct Lists {
    armies: Vec<Vec<usize>>,
    fleets: Vec<Vec<usize>>,
}

impl Lists {
    fn of(gs: &GameState) -> Lists {
        Lists {
            armies: places_by_owner(gs, gs.armies.iter().map(|a| a.owner.as_str())),
            fleets: places_by_owner(gs, gs.fleets.iter().map(|f| f.owner.as_str())),
        }
    }

    fn of_realm(&self, place: usize) -> Groups<'_> {
        Groups {
            armies: self.armies.get(place).map_or(&[], Vec::as_slice),
            fleets: self.fleets.get(place).map_or(&[], Vec::as_slice),
        }
    }
}

/// What `GameState::counted_units` says of the realm at `place` once its emptied
/// groups are gone: its groups that still hold units, its ships, and its spies (those
/// at home now and the `away` ones).
fn count(gs: &GameState, g: &Groups, place: usize, away: u32) -> UnitCount {
    let mut n = UnitCount {
        army_units: 0,
        elementals: 0,
        ships: 0,
        spies: gs
            .realms
            .get(place)
            .map_or(0, |r| r.spies)
            .saturating_add(away),
        army_groups: 0,
    };
    for a in g.armies.iter().filter_map(|&i| gs.armies.get(i)) {
        if !forces::gone(a) {
            add_army(&mut n, a);
        }
    }
    for f in g.fleets.iter().filter_map(|&i| gs.fleets.get(i)) {
        n.ships = n.ships.saturating_add(len(f.ships.len()));
    }
    n
}

/// The troops aboard the realm's fleets that their ships left after a disband can no
/// longer carry drown, from the tail of the last army aboard; a fleet left without
/// ships drowns all its cargo (R-COMBAT-8, RULINGS 32). The groups emptied stay in
/// place until `tidy`. The losses, to tell.
fn drown_aboard(w: &mut Weekend, g: &Groups, realm: &str) -> Vec<MilitaryEvent> {
    let mut out = Vec::new();
    for &fi in g.fleets {
        let Some(f) = w.state.fleets.get(fi).filter(|f| !f.cargo.is_empty()) else {
            continue;
        };
        let (id, sunk) = (f.id, f.ships.is_empty());
        let (units, _) = forces::cut_cargo(&mut w.state, w.settings, fi);
        out.extend(cargo_lost(w, realm, id, units, sunk));
    }
    out
}

/// The event of `units` drowned aboard the realm's fleet `fleet`, when any did.
fn cargo_lost(
    w: &Weekend,
    realm: &str,
    fleet: u32,
    units: u64,
    sunk: bool,
) -> Option<MilitaryEvent> {
    (units > 0).then(|| MilitaryEvent::CargoLost {
        realm: w.name(realm),
        fleet,
        units,
        fleet_sunk: sunk,
    })
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

/// The realm's army groups and fleets, as places in the state's lists.
struct Groups<'a> {
    armies: &'a [usize],
    fleets: &'a [usize],
}

/// Remove up to `n` of what `cap` counts; returns how many went. Emptied groups
/// stay until `tidy`, which the step runs at its end.
fn remove(gs: &mut GameState, g: &Groups, realm: &str, cap: Cap, n: u32) -> u32 {
    let mut gone = 0;
    while gone < n {
        let ok = match cap {
            Cap::Elementals => drop_unit(gs, g, |k| k.is_elemental()),
            Cap::Ships => drop_ship(gs, g),
            Cap::Spies => drop_spy(gs, realm),
            _ => drop_any(gs, g, realm),
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
    gs.armies.retain(|a| !forces::gone(a));
    let armies: FastSet<(&str, u32)> = gs.armies.iter().map(|a| (a.owner.as_str(), a.id)).collect();
    for f in gs.fleets.iter_mut() {
        let owner = f.owner.as_str();
        f.cargo.retain(|id| armies.contains(&(owner, *id)));
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

#[cfg(test)]
mod tests {
    use super::{cargo_lost, drop_any, drop_ship, drop_spy, drop_unit, measure, report};
    use super::{Cap, EconomyEvent};
    use super::{Groups, CAPS};
    use crate::game::event::What;
    use crate::game::state::{
        ArmyGroup, ArmyOverflow, Dimension, Fleet, GameState, Ship, Unit, Units,
    };
    use crate::game::weekend::military::{forces, MilitaryEvent};
    use crate::game::weekend::{Orders, Weekend};
    use crate::game::{Name, ShipKind, UnitKind};
    use std::collections::BTreeSet;

    /// Step 8 as it was first written, plainly: each realm over a cap lists its groups
    /// with a pass over all of them, and every disband removes the dead groups of the
    /// whole state at once and counts the realm again from the state. The reference
    /// the step must match, result for result and event for event.
    fn by_the_rule(w: &mut Weekend) {
        let disband = w.settings.army_overflow == ArmyOverflow::Disband;
        for i in 0..w.state.realms.len() {
            let (realm, positions) = match &w.state.realms[i] {
                r if r.eliminated => continue,
                r => (r.name.clone(), r.positions),
            };
            let mut n = w.state.counted_units(&realm);
            let pop = w.state.population(&realm);
            for cap in CAPS {
                let (have, limit) = measure(&positions, pop, &n, cap);
                if have <= limit {
                    continue;
                }
                let mut disbanded = 0;
                let mut drowned = Vec::new();
                if disband && cap != Cap::ArmyGroups {
                    disbanded = remove_listing(&mut w.state, &realm, cap, have - limit);
                    if disbanded > 0 {
                        drowned = drown_and_remove(w, &realm);
                        tidy_by_name(&mut w.state);
                        n = w.state.counted_units(&realm);
                    }
                }
                let over = EconomyEvent::Overflow {
                    realm: realm.clone(),
                    cap,
                    have,
                    limit,
                    disbanded,
                };
                report(w, over, drowned);
            }
        }
    }

    fn remove_listing(gs: &mut GameState, realm: &str, cap: Cap, n: u32) -> u32 {
        let armies: Vec<usize> = (0..gs.armies.len())
            .filter(|i| gs.armies[*i].owner == realm)
            .collect();
        let fleets: Vec<usize> = (0..gs.fleets.len())
            .filter(|i| gs.fleets[*i].owner == realm)
            .collect();
        let g = Groups {
            armies: &armies,
            fleets: &fleets,
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

    fn drown_and_remove(w: &mut Weekend, realm: &str) -> Vec<MilitaryEvent> {
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
            out.extend(cargo_lost(w, realm, id, units, sunk));
        }
        out
    }

    fn tidy_by_name(gs: &mut GameState) {
        gs.armies.retain(|a| !a.units.is_empty());
        let armies: BTreeSet<(String, u32)> = gs
            .armies
            .iter()
            .map(|a| (a.owner.to_string(), a.id))
            .collect();
        for f in gs.fleets.iter_mut() {
            let owner = f.owner.to_string();
            f.cargo.retain(|id| armies.contains(&(owner.clone(), *id)));
        }
        gs.fleets.retain(|f| !f.ships.is_empty());
    }

    /// A small deterministic generator (the test needs no statistics, only variety).
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: u32) -> u32 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) % u64::from(n.max(1))) as u32
        }
    }

    const KINDS: [UnitKind; 5] = [
        UnitKind::LattInfanteri,
        UnitKind::TungtInfanteri,
        UnitKind::Bagskyttar,
        UnitKind::Eldelementar,
        UnitKind::Vattenelementar,
    ];

    /// The demo with its realms pushed over their caps: small cities, low position
    /// values, new army groups (elementals among them) and fleets carrying some of them,
    /// spies at home. Every group holds something, as after the military steps, which
    /// leave no empty group or fleet behind.
    fn crowded(seed: u64) -> GameState {
        let mut gs = crate::game::load_scenario(include_str!("../../../../scenarios/demo.yaml"))
            .expect("demo");
        gs.settings.army_overflow = ArmyOverflow::Disband;
        let mut rng = Lcg(seed);
        for c in gs.cities.iter_mut() {
            c.population = rng.below(120);
        }
        let realms: Vec<(Name, Vec<crate::game::Square>)> = gs
            .realms
            .iter()
            .map(|r| {
                let squares = gs.cities.iter().filter(|c| c.owner == r.name);
                (r.name.as_str().into(), squares.map(|c| c.square).collect())
            })
            .collect();
        for (k, (name, squares)) in realms.iter().enumerate() {
            let r = &mut gs.realms[k];
            r.positions.besvarjare = rng.below(3);
            r.positions.amiral = rng.below(3);
            r.positions.informator = rng.below(3);
            r.spies = rng.below(4);
            let Some(&home) = squares.first() else {
                continue;
            };
            let top = gs.armies.iter().filter(|a| a.owner == *name).map(|a| a.id);
            let mut next = top.max().unwrap_or(0);
            let mut new_ids = Vec::new();
            for _ in 0..rng.below(6) {
                next += 1;
                let units: Units = (0..=rng.below(6))
                    .map(|_| Unit {
                        kind: KINDS[rng.below(KINDS.len() as u32) as usize],
                        built_round: 0,
                    })
                    .collect();
                let sq = squares[rng.below(squares.len() as u32) as usize];
                gs.armies.push(ArmyGroup {
                    id: next,
                    owner: name.clone(),
                    square: sq,
                    dimension: Dimension::Normal,
                    units,
                    treasure: Default::default(),
                    no_move_until_round: None,
                });
                new_ids.push(next);
            }
            let top = gs.fleets.iter().filter(|f| f.owner == *name).map(|f| f.id);
            let first = top.max().unwrap_or(0) + 1;
            for fleet_id in first..first + rng.below(3) {
                let ships: Vec<Ship> = (0..=rng.below(3))
                    .map(|_| Ship {
                        kind: ShipKind::ALL[rng.below(3) as usize],
                        built_round: 0,
                    })
                    .collect();
                let cargo: Vec<u32> = new_ids
                    .iter()
                    .copied()
                    .filter(|_| rng.below(2) == 0)
                    .collect();
                gs.fleets.push(Fleet {
                    id: fleet_id,
                    owner: name.clone(),
                    square: home,
                    dimension: Dimension::Normal,
                    ships,
                    cargo,
                    must_leave_by_round: None,
                });
            }
        }
        // In the order the military steps leave the lists, by owner and number, where
        // the plain reading's look-ups by number find the groups.
        forces::sort(&mut gs);
        gs
    }

    /// Each group as owner, number and size (a fleet's cargo too), and the spies held.
    fn brief(gs: &GameState) -> Vec<String> {
        let armies = gs
            .armies
            .iter()
            .map(|a| format!("{} a{}: {}", a.owner, a.id, a.units.len()));
        let fleets = gs.fleets.iter().map(|f| {
            let (o, id, n) = (&f.owner, f.id, f.ships.len());
            format!("{o} f{id}: {n} {:?}", f.cargo)
        });
        let spies = gs
            .realms
            .iter()
            .map(|r| format!("{} spies: {}", r.name, r.spies));
        armies.chain(fleets).chain(spies).collect()
    }

    #[test]
    fn rulings_51_disband_in_one_pass_matches_the_step_read_plainly() {
        let orders = Orders::default();
        let (mut disbands, mut drownings) = (0, 0);
        for seed in 0..300 {
            let gs = crowded(seed);
            let mut fast = Weekend::new(&gs, &orders, &gs.settings, seed);
            let mut plain = Weekend::new(&gs, &orders, &gs.settings, seed);
            super::run(&mut fast);
            by_the_rule(&mut plain);
            // The groups and spies first, briefly: a whole state is too long to read.
            assert_eq!(brief(&fast.state), brief(&plain.state), "seed {seed}");
            assert_eq!(fast.state, plain.state, "seed {seed}: the state");
            assert_eq!(fast.events, plain.events, "seed {seed}: the events");
            for e in &fast.events {
                match &e.what {
                    What::Economy(ev) => {
                        if let EconomyEvent::Overflow { disbanded: 1.., .. } = ev.as_ref() {
                            disbands += 1;
                        }
                    }
                    What::Military(MilitaryEvent::CargoLost { .. }) => drownings += 1,
                    _ => {}
                }
            }
        }
        // The seeds reach what the step does: many disbands, and troops drowned.
        assert!(disbands > 1_000, "{disbands} disbands");
        assert!(drownings > 300, "{drownings} drownings");
    }
}
