//! Random events (R-RAND-1, docs/rules.md Rulings 50): after step 9 a d10 for every
//! realm that plays; 1 draws an entry of the scenario's good table, 10 one of its bad
//! table (a second die picks the entry). An entry is a mechanical effect with a text:
//! a good one adds its resources, units (to the army at the capital) and VP; a bad
//! one takes them (as far as there are any). The GM's choice for a realm and round
//! (`pbemd gm event`) replaces what the dice drew; the dice are rolled all the same,
//! so every other realm's roll stays as it was.

use std::collections::{BTreeMap, BTreeSet};

use super::{add_vp, playing, tell, Cities, PoliticsEvent};
use crate::game::event::Step;
use crate::game::state::{places_by_owner, ArmyGroup, DrawnEvent, GameState, Unit};
use crate::game::weekend::Weekend;
use crate::game::{Name, Resources, UnitKind};

/// The d10's good and bad faces.
pub const GOOD_FACE: u32 = 1;
pub const BAD_FACE: u32 = 10;

/// The army groups of each realm by index, found once (on the first event that moves
/// units) for all the weekend's events; groups a bad event empties go at the end.
#[derive(Default)]
struct Groups {
    cities: Cities,
    /// Army indices per realm index; `None` until first asked.
    by_realm: Option<Vec<Vec<usize>>>,
    /// The armies aboard fleets, (owner, number); `None` until first asked.
    aboard: Option<BTreeSet<(Name, u32)>>,
    emptied: bool,
}

impl Groups {
    /// Whether `owner`'s army `id` is aboard a fleet (no event moves one aboard).
    fn aboard(&mut self, gs: &GameState, owner: &Name, id: u32) -> bool {
        let aboard = self
            .aboard
            .get_or_insert_with(|| crate::game::weekend::military::forces::all_aboard(gs));
        aboard.contains(&(owner.clone(), id))
    }

    /// The army indices of realm `i`.
    fn of(&mut self, gs: &GameState, i: usize) -> Vec<usize> {
        let all = self
            .by_realm
            .get_or_insert_with(|| places_by_owner(gs, gs.armies.iter().map(|a| a.owner.as_str())));
        all.get(i).cloned().unwrap_or_default()
    }

    fn add(&mut self, i: usize, k: usize) {
        if let Some(v) = self.by_realm.as_mut().and_then(|all| all.get_mut(i)) {
            v.push(k);
        }
    }

    /// Emptied groups go, and no fleet carries an army that is gone.
    fn tidy(self, gs: &mut GameState) {
        if !self.emptied {
            return;
        }
        gs.armies.retain(|a| !a.units.is_empty());
        let armies: crate::game::hash::FastSet<(&str, u32)> =
            gs.armies.iter().map(|a| (a.owner.as_str(), a.id)).collect();
        for f in gs.fleets.iter_mut() {
            let owner = f.owner.as_str();
            f.cargo.retain(|id| armies.contains(&(owner, *id)));
        }
    }
}

pub(super) fn run(w: &mut Weekend) {
    let round = w.round();
    let chosen: BTreeMap<String, Option<DrawnEvent>> = w
        .state
        .gm_events
        .iter()
        .filter(|g| g.round == round)
        .map(|g| (g.realm.clone(), g.event.clone()))
        .collect();
    let mut groups = Groups::default();
    for i in playing(w) {
        let name = w.state.realms[i].name.clone();
        let (roll, drawn) = draw(w, &name);
        let by_gm = chosen.contains_key(&name);
        let event = match chosen.get(&name) {
            Some(c) => c.clone(),
            None => drawn,
        };
        if let Some(d) = event {
            let (resources, units, vp) = effect(&mut w.state, &mut groups, i, &d, round);
            let ev = PoliticsEvent::Random {
                realm: name,
                roll,
                good: d.good,
                text: d.entry.text.clone(),
                resources,
                units,
                vp,
                by_gm,
            };
            tell(w, Step::Politics, ev);
        }
    }
    groups.tidy(&mut w.state);
    w.state.gm_events.retain(|g| g.round > round);
}

/// The realm's d10 and, on a 1 or a 10, the entry a second die picks from the table.
fn draw(w: &mut Weekend, name: &str) -> (u32, Option<DrawnEvent>) {
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
    (roll, drawn)
}

/// The effect of the event on realm `i`: the resources, units and VP really gained
/// (good) or lost (bad), the VP signed.
fn effect(
    gs: &mut GameState,
    groups: &mut Groups,
    i: usize,
    d: &DrawnEvent,
    round: u32,
) -> (Resources, Vec<UnitKind>, i64) {
    let entry = &d.entry;
    let resources = if d.good {
        gain(&mut gs.realms[i].stock, &entry.resources)
    } else {
        lose(&mut gs.realms[i].stock, &entry.resources)
    };
    let units = match (entry.units.is_empty(), d.good) {
        (true, _) => Vec::new(),
        (false, true) => join_capital(gs, groups, i, &entry.units, round),
        (false, false) => desert(gs, groups, i, &entry.units),
    };
    let vp = if d.good {
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
/// none there, or only groups aboard fleets in its harbour, which the units would
/// overfill); without a capital they do not come.
fn join_capital(
    gs: &mut GameState,
    groups: &mut Groups,
    i: usize,
    kinds: &[UnitKind],
    round: u32,
) -> Vec<UnitKind> {
    let name = gs.realms[i].name.clone();
    let Some(cap) = gs.realms[i].capital else {
        return Vec::new();
    };
    let Some(dim) = groups
        .cities
        .of(gs, &name)
        .into_iter()
        .find(|&k| gs.cities[k].square == cap)
        .map(|k| gs.cities[k].dimension)
    else {
        return Vec::new();
    };
    let new = kinds.iter().map(|&kind| Unit {
        kind,
        built_round: round,
    });
    let own = groups.of(gs, i);
    let at = own.iter().copied().find(|&k| {
        let a = &gs.armies[k];
        a.square == cap
            && a.dimension == dim
            && !a.units.is_empty()
            && !groups.aboard(gs, &a.owner, a.id)
    });
    match at {
        Some(k) => gs.armies[k].units.extend(new),
        None => {
            let id = own.iter().map(|&k| gs.armies[k].id).max().unwrap_or(0);
            groups.add(i, gs.armies.len());
            gs.armies.push(ArmyGroup {
                id: id.saturating_add(1),
                owner: name.into(),
                square: cap,
                dimension: dim,
                units: new.collect(),
                treasure: Default::default(),
                no_move_until_round: None,
            });
        }
    }
    kinds.to_vec()
}

/// Bad units leave: for each kind listed, the last such unit of the realm's first
/// army group that has one.
fn desert(gs: &mut GameState, groups: &mut Groups, i: usize, kinds: &[UnitKind]) -> Vec<UnitKind> {
    let own = groups.of(gs, i);
    let mut gone = Vec::new();
    for &kind in kinds {
        for &k in &own {
            let units = &mut gs.armies[k].units;
            if let Some(p) = units.iter().rposition(|u| u.kind == kind) {
                units.remove(p);
                groups.emptied |= units.is_empty();
                gone.push(kind);
                break;
            }
        }
    }
    gone
}
