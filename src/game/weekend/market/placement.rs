//! `PLACE` (R-FREE-9): troops won from the free merchants wait in
//! `Realm::unplaced_troops` until the realm names their cities. Each placement is
//! checked as a purchase is (an own city; the elemental, army-group and population
//! caps), joins the army group in that city or forms a new one (docs/rules.md,
//! Rulings 13), and may act this weekend: the troops were the realm's from Monday.
//! A placement that does not fit is refused and its troops keep waiting.

use std::collections::{BTreeMap, BTreeSet};

use super::{playing, tally, tell, MarketEvent, Tally, Why};
use crate::game::caps::Room;
use crate::game::orders::Order;
use crate::game::state::{ArmyGroup, Dimension, GameState, Unit, Units};
use crate::game::weekend::{Reads, Weekend};
use crate::game::{Square, UnitKind};

type Res<T> = Result<T, (&'static str, Why)>;

/// Where things are, found once for the step.
struct Book {
    /// Normal-dimension cities by square: their owner.
    cities: BTreeMap<Square, String>,
    /// A realm's first army group on a square, not aboard a fleet.
    armies: BTreeMap<(String, Square), usize>,
    /// The highest army-group number per realm.
    ids: BTreeMap<String, u32>,
    tally: BTreeMap<String, Tally>,
}

impl Book {
    fn new(gs: &GameState) -> Book {
        let aboard: BTreeSet<(&str, u32)> = gs
            .fleets
            .iter()
            .flat_map(|f| f.cargo.iter().map(move |id| (f.owner.as_str(), *id)))
            .collect();
        let mut b = Book {
            cities: BTreeMap::new(),
            armies: BTreeMap::new(),
            ids: BTreeMap::new(),
            tally: tally(gs),
        };
        for c in gs
            .cities
            .iter()
            .filter(|c| c.dimension == Dimension::Normal)
        {
            b.cities.insert(c.square, c.owner.to_string());
        }
        for (i, a) in gs.armies.iter().enumerate() {
            let id = b.ids.entry(a.owner.to_string()).or_default();
            *id = (*id).max(a.id);
            if a.dimension == Dimension::Normal && !aboard.contains(&(a.owner.as_str(), a.id)) {
                b.armies.entry((a.owner.to_string(), a.square)).or_insert(i);
            }
        }
        b
    }
}

pub(super) fn run(w: &mut Weekend) {
    let reading = w.reading(Reads::Placement);
    if reading.forms().next().is_none() {
        return;
    }
    let mut book = Book::new(&w.state);
    for lines in reading.forms() {
        let form = lines.form;
        let Some(idx) = playing(w, &form.realm) else {
            continue;
        };
        for o in lines.orders() {
            let Order::PlaceTroops { placements } = o else {
                continue;
            };
            for &(count, unit, city) in placements {
                let ev = match place(&mut w.state, &mut book, idx, count, unit, city) {
                    Ok(army) => MarketEvent::Placed {
                        realm: form.realm.clone(),
                        count,
                        unit,
                        city,
                        army,
                    },
                    Err((rule, why)) => MarketEvent::PlaceRefused {
                        realm: form.realm.clone(),
                        count,
                        unit,
                        city,
                        rule: rule.to_string(),
                        why,
                    },
                };
                tell(w, ev);
            }
        }
    }
}

/// Place `count` waiting `unit`s of realm `idx` in `city`: the army group's number.
fn place(
    gs: &mut GameState,
    book: &mut Book,
    idx: usize,
    count: u32,
    unit: UnitKind,
    city: Square,
) -> Res<u32> {
    if count == 0 {
        return Err(("R-FREE-9", Why::Nothing));
    }
    let realm = gs.realms[idx].name.clone();
    let waiting = gs.realms[idx]
        .unplaced_troops
        .iter()
        .filter(|(k, _)| *k == unit)
        .fold(0u32, |acc, (_, n)| acc.saturating_add(*n));
    if count > waiting {
        return Err(("R-FREE-9", Why::NotWaiting { waiting }));
    }
    if book.cities.get(&city) != Some(&realm) {
        return Err(("R-CITY-1", Why::NotOwnCity { city }));
    }
    let key = (realm.clone(), city);
    let group = book.armies.get(&key).copied();
    check_caps(gs, book, idx, count, unit, group.is_none())?;
    take_waiting(&mut gs.realms[idx].unplaced_troops, unit, count);
    let t = book.tally.entry(realm.clone()).or_default();
    t.counted = t.counted.saturating_add(count);
    if unit.is_elemental() {
        t.elementals = t.elementals.saturating_add(count);
    }
    // Won from the merchants before this weekend: they may attack (R-UNIT-7).
    let new = Unit {
        kind: unit,
        built_round: gs.round.saturating_sub(1),
    };
    if let Some(i) = group {
        gs.armies[i].units.extend((0..count).map(|_| new));
        return Ok(gs.armies[i].id);
    }
    t.army_groups = t.army_groups.saturating_add(1);
    let id = book.ids.entry(realm.clone()).or_default();
    *id = id.saturating_add(1);
    let id = *id;
    book.armies.insert(key, gs.armies.len());
    gs.armies.push(ArmyGroup {
        id,
        owner: realm.into(),
        square: city,
        dimension: Dimension::Normal,
        units: Units::from_elem(new, count as usize),
        treasure: Default::default(),
        no_move_until_round: None,
    });
    Ok(id)
}

/// The caps a purchase of the same troops would meet (`game::caps`, which the receipt
/// checks too).
fn check_caps(
    gs: &GameState,
    book: &Book,
    idx: usize,
    count: u32,
    unit: UnitKind,
    new_group: bool,
) -> Res<()> {
    let r = &gs.realms[idx];
    let t = book.tally.get(&r.name).copied().unwrap_or_default();
    let room = Room {
        counted: t.counted,
        elementals: t.elementals,
        army_groups: t.army_groups,
        population: t.population,
        ..Room::default()
    };
    room.troops(&r.positions, count, unit, new_group)
        .map_err(|o| {
            let why = Why::Over {
                cap: o.cap,
                have: o.have,
                add: o.add,
                limit: o.limit,
            };
            (o.cap.rule(), why)
        })
}

/// Take `count` of `unit` off the waiting list (the caller checked there are enough).
fn take_waiting(list: &mut Vec<(UnitKind, u32)>, unit: UnitKind, mut count: u32) {
    for (_, n) in list.iter_mut().filter(|(k, _)| *k == unit) {
        let take = count.min(*n);
        *n -= take;
        count -= take;
    }
    list.retain(|(_, n)| *n > 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_free_9_placing_takes_from_the_waiting_list_and_drops_what_is_used_up() {
        let mut list = vec![
            (UnitKind::Bagskyttar, 2),
            (UnitKind::TungtKavalleri, 5),
            (UnitKind::Bagskyttar, 3),
        ];
        take_waiting(&mut list, UnitKind::Bagskyttar, 4);
        assert_eq!(
            list,
            vec![(UnitKind::TungtKavalleri, 5), (UnitKind::Bagskyttar, 1)]
        );
        take_waiting(&mut list, UnitKind::TungtKavalleri, 5);
        assert_eq!(list, vec![(UnitKind::Bagskyttar, 1)]);
    }
}
