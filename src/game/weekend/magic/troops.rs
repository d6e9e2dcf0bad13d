//! The spells on armies and fleets: Fireball and Whirlpool (R-SPELL-10, the last of the
//! line falls), Teleport (Rulings 22), Armageddon (Rulings 20), the gifts kept for
//! steps 3 and 4 (Whirlwind, Waterway, Attack, Defence), Antimagic (R-SPELL-12) and
//! Open Portal (R-EVIL-15).

use std::collections::{BTreeMap, BTreeSet};

use super::cast::{record, shield_of, Aim, Cx};
use super::{tell, Effect, Line, MagicEvent, Why};
use crate::game::event::{Step, What};
use crate::game::orders::{Group, Piece};
use crate::game::state::{
    Dimension, GameState, GroupRef, Portal, RuleSettings, SpellTarget, Terrain,
};
use crate::game::weekend::military::{self, index, MilitaryEvent, MoveStop};
use crate::game::weekend::Weekend;
use crate::game::Name;
use crate::game::{Spell, Square};

/// The spells this file carries out.
pub(super) fn handles(spell: Spell) -> bool {
    matches!(
        spell,
        Spell::Eldklot
            | Spell::Virvelstrom
            | Spell::Teleportera
            | Spell::Armageddon
            | Spell::OppnaPortal
            | Spell::Virvelvind
            | Spell::Vattenvag
            | Spell::Anfall
            | Spell::Forsvar
            | Spell::Antimagi
    )
}

pub(super) fn apply(w: &mut Weekend, cx: &mut Cx, l: &Line, aim: &Aim, conjurer: u32) -> Effect {
    match (l.spell, aim) {
        (Spell::Armageddon, _) => armageddon(w, cx, &l.realm),
        (Spell::OppnaPortal, Aim::Square(sq)) => portal(w, cx, &l.realm, *sq),
        (Spell::Eldklot, Aim::Army(i)) => fireball(w, cx, &l.realm, *i),
        (Spell::Virvelstrom, Aim::Fleet(i)) => whirlpool(w, cx, &l.realm, *i),
        (Spell::Teleportera, Aim::Teleport(i, to)) => teleport(w, cx, &l.realm, *i, *to),
        (Spell::Antimagi, Aim::Realm(r)) => {
            record(w, l.spell, &l.realm, SpellTarget::Realm(r.clone()));
            Effect::Protected {
                realm: r.clone(),
                group: None,
            }
        }
        (_, Aim::Army(_) | Aim::Fleet(_)) => bless(w, l, aim, conjurer),
        _ => Effect::Nothing,
    }
}

fn group_ref(gs: &GameState, aim: &Aim) -> Option<(GroupRef, Group)> {
    match aim {
        Aim::Army(i) | Aim::Teleport(i, _) => {
            let a = &gs.armies[*i];
            let r = GroupRef::Army {
                owner: a.owner.clone(),
                id: a.id,
            };
            Some((r, Group::Army(a.id)))
        }
        Aim::Fleet(i) => {
            let f = &gs.fleets[*i];
            let r = GroupRef::Fleet {
                owner: f.owner.clone(),
                id: f.id,
            };
            Some((r, Group::Fleet(f.id)))
        }
        _ => None,
    }
}

/// Whirlwind (+1 movement), Waterway, Attack and Defence (+Besvärjare), Antimagic on a
/// group: kept for the later steps.
fn bless(w: &mut Weekend, l: &Line, aim: &Aim, conjurer: u32) -> Effect {
    let Some((r, group)) = group_ref(&w.state, aim) else {
        return Effect::Nothing;
    };
    let owner = super::cast::group_owner(&r).to_string();
    record(w, l.spell, &l.realm, SpellTarget::Group(r));
    match l.spell {
        Spell::Antimagi => Effect::Protected {
            realm: owner,
            group: Some(group),
        },
        _ => Effect::GroupBlessed {
            owner: owner.into(),
            group,
            amount: match l.spell {
                Spell::Virvelvind => 1,
                Spell::Anfall | Spell::Forsvar => conjurer,
                _ => 0,
            },
        },
    }
}

/// Fireball: the last unit of the army's line dies (R-SPELL-10).
fn fireball(w: &mut Weekend, cx: &mut Cx, caster: &str, i: usize) -> Effect {
    let a = &mut w.state.armies[i];
    // A slain higher demon stands on as two lower ones (R-EVIL-10).
    let Some(&slain) = crate::game::weekend::evil::slay_from_tail(&mut a.units, 1).first() else {
        return Effect::Nothing;
    };
    let (owner, square, id) = (a.owner.clone(), a.square, a.id);
    if a.units.is_empty() {
        cx.dead_armies.insert((owner.clone(), id));
    }
    let r = GroupRef::Army {
        owner: owner.clone(),
        id,
    };
    record(w, Spell::Eldklot, caster, SpellTarget::Group(r));
    Effect::Killed {
        owner,
        square,
        piece: Piece::Unit(slain),
        drowned: 0,
        afloat: false,
    }
}

/// Whirlpool: the last ship of the fleet's line sinks; the cargo the ships left cannot
/// carry drowns, all of it with the last ship (R-COMBAT-8).
fn whirlpool(w: &mut Weekend, cx: &mut Cx, caster: &str, i: usize) -> Effect {
    let f = &mut w.state.fleets[i];
    let Some(ship) = f.ships.pop() else {
        return Effect::Nothing;
    };
    let (owner, square, id) = (f.owner.clone(), f.square, f.id);
    let r = GroupRef::Fleet {
        owner: owner.clone(),
        id,
    };
    record(w, Spell::Virvelstrom, caster, SpellTarget::Group(r));
    let drowned = drown_cargo(&mut w.state, w.settings, cx, i);
    Effect::Killed {
        owner,
        square,
        piece: Piece::Ship(ship.kind),
        drowned,
        afloat: !w.state.fleets[i].ships.is_empty(),
    }
}

/// A fleet at place `i` that lost ships: the army units its ships left cannot carry
/// drown from the tail of the last army aboard, as in a sea battle (R-COMBAT-8); a
/// fleet left without ships takes all its cargo down and is marked for removal, as
/// are the armies emptied. Returns the army units drowned.
fn drown_cargo(gs: &mut GameState, settings: &RuleSettings, cx: &mut Cx, i: usize) -> u64 {
    let Some(f) = gs.fleets.get(i) else {
        return 0;
    };
    let (owner, id, sunk) = (f.owner.clone(), f.id, f.ships.is_empty());
    let (drowned, emptied) = military::forces::cut_cargo(gs, settings, i);
    for army in emptied {
        cx.dead_armies.insert((owner.clone(), army));
    }
    if sunk {
        cx.dead_fleets.insert((owner, id));
    }
    drowned
}

/// Remove the groups emptied this step, in one pass each (the end of step 2).
pub(super) fn sweep(gs: &mut GameState, cx: &mut Cx) {
    let key = |o: &Name, id: u32| (o.clone(), id);
    if !cx.dead_fleets.is_empty() {
        let dead = &cx.dead_fleets;
        gs.fleets
            .retain(|f| !(f.ships.is_empty() && dead.contains(&key(&f.owner, f.id))));
    }
    if !cx.dead_armies.is_empty() {
        let dead = &cx.dead_armies;
        gs.armies
            .retain(|a| !(a.units.is_empty() && dead.contains(&key(&a.owner, a.id))));
        for f in gs.fleets.iter_mut() {
            let owner = f.owner.clone();
            f.cargo.retain(|id| !dead.contains(&key(&owner, *id)));
        }
    }
}

/// Teleport: the army stands on `to` before step 3 (Rulings 22): any land square but
/// another realm's city; it leaves a fleet it was aboard; met enemies fight in step 4.
/// It stays in the normal dimension: an army in the Evil's is not moved (troops cross
/// only by a portal, Rulings 53), nor the Evil's demons beyond their leash (R-EVIL-17).
fn teleport(w: &mut Weekend, cx: &mut Cx, caster: &str, i: usize, to: Square) -> Effect {
    let gs = &w.state;
    let land = gs.map.get(to).is_some_and(|m| m.terrain == Terrain::Land);
    let (owner, id, from) = (
        gs.armies[i].owner.clone(),
        gs.armies[i].id,
        gs.armies[i].square,
    );
    if gs.armies[i].dimension != Dimension::Normal
        || crate::game::weekend::evil::beyond_leash(w, &owner, id, to)
    {
        return Effect::Nothing;
    }
    let foreign_city = cx.ix.cities_on(gs, to).into_iter().any(|c| {
        let c = &gs.cities[c];
        c.dimension == Dimension::Normal && !friends(gs, &owner, &c.owner)
    });
    if !land || foreign_city {
        return Effect::Nothing;
    }
    let enemy = cx
        .ix
        .armies_on(gs, to)
        .into_iter()
        .map(|j| &gs.armies[j])
        .find(|a| {
            a.dimension == Dimension::Normal
                && !a.units.is_empty()
                && !friends(gs, &owner, &a.owner)
        })
        .map(|a| a.owner.clone());
    // Where it goes back to if it meets enemies there and does not win (Rulings 31).
    let came_from = match military::forces::carrier(gs, &owner, id) {
        Some(f) => military::Entered::Fleet {
            fleet: gs.fleets[f].id,
            square: gs.fleets[f].square,
        },
        None => military::Entered::Square(from),
    };
    military::unload(&mut w.state, &owner, id);
    index::relocate(&mut w.state, &mut cx.ix, &owner, Group::Army(id), to);
    if let Some(j) = military::army_at(&w.state, &owner, id) {
        w.state.armies[j].dimension = Dimension::Normal;
    }
    let r = GroupRef::Army {
        owner: owner.clone(),
        id,
    };
    record(w, Spell::Teleportera, caster, SpellTarget::Group(r));
    if let Some(e) = &enemy {
        w.entered_from
            .insert((owner.clone(), Group::Army(id)), came_from);
        // Step 4 fights the contact, the teleported army attacking (Rulings 22, 37).
        let moved = MilitaryEvent::Moved {
            realm: owner.clone(),
            group: Group::Army(id),
            from,
            to,
            stop: Some(MoveStop::Enemy { realm: e.clone() }),
        };
        w.emit(Step::Magic, vec![owner], What::Military(moved));
    }
    Effect::Teleported {
        army: id,
        to,
        enemy,
    }
}

fn friends(gs: &GameState, a: &str, b: &str) -> bool {
    let lists = |x: &str, y: &str| {
        gs.realm(x)
            .is_some_and(|r| r.friends.iter().any(|f| f == y))
    };
    a == b || (lists(a, b) && lists(b, a))
}

/// Armageddon: every army group and fleet of every realm, both dimensions, loses half
/// its line rounded up, from the tail (Rulings 20); Antimagic spares what it protects.
fn armageddon(w: &mut Weekend, cx: &mut Cx, caster: &str) -> Effect {
    let fleets_too = w.settings.spells.armageddon_fleets;
    let spared = spared(w, caster);
    let mut lost: BTreeMap<Name, (u64, u64)> = BTreeMap::new();
    for a in w.state.armies.iter_mut() {
        if spared.contains(&(a.owner.clone(), Group::Army(a.id))) || a.units.is_empty() {
            continue;
        }
        let dead = a.units.len().div_ceil(2);
        // A slain higher demon stands on as two lower ones (R-EVIL-10).
        crate::game::weekend::evil::slay_from_tail(&mut a.units, dead);
        lost.entry(a.owner.clone()).or_default().0 += dead as u64;
        if a.units.is_empty() {
            cx.dead_armies.insert((a.owner.clone(), a.id));
        }
    }
    let mut thinned = Vec::new();
    for (i, f) in w.state.fleets.iter_mut().enumerate().filter(|_| fleets_too) {
        if spared.contains(&(f.owner.clone(), Group::Fleet(f.id))) || f.ships.is_empty() {
            continue;
        }
        let dead = f.ships.len().div_ceil(2);
        f.ships.truncate(f.ships.len() - dead);
        lost.entry(f.owner.clone()).or_default().1 += dead as u64;
        thinned.push(i);
    }
    for i in thinned {
        let owner = w.state.fleets[i].owner.clone();
        let drowned = drown_cargo(&mut w.state, w.settings, cx, i);
        lost.entry(owner).or_default().0 += drowned;
    }
    record(
        w,
        Spell::Armageddon,
        caster,
        SpellTarget::Realm(caster.to_string()),
    );
    let (mut units, mut ships) = (0u64, 0u64);
    for (realm, (u, s)) in lost {
        units += u;
        ships += s;
        if realm != caster {
            record(
                w,
                Spell::Armageddon,
                caster,
                SpellTarget::Realm(realm.to_string()),
            );
        }
        let ev = MagicEvent::Suffered {
            realm: realm.to_string(),
            spell: Spell::Armageddon,
            effect: Effect::Armageddon { units: u, ships: s },
        };
        tell(w, [realm], ev);
    }
    Effect::Armageddon { units, ships }
}

/// The groups Antimagic keeps out of `caster`'s Armageddon.
fn spared(w: &Weekend, caster: &str) -> BTreeSet<(Name, Group)> {
    let gs = &w.state;
    let armies = gs.armies.iter().map(|a| {
        let r = GroupRef::Army {
            owner: a.owner.clone(),
            id: a.id,
        };
        (a.owner.clone(), Group::Army(a.id), r)
    });
    let fleets = gs.fleets.iter().map(|f| {
        let r = GroupRef::Fleet {
            owner: f.owner.clone(),
            id: f.id,
        };
        (f.owner.clone(), Group::Fleet(f.id), r)
    });
    armies
        .chain(fleets)
        .filter(|(owner, _, r)| shield_of(w, caster, Some(owner), Some(r)).is_some())
        .map(|(owner, g, _)| (owner, g))
        .collect()
}

/// R-EVIL-15: cast from the Evil's dimension (the Evil, or a realm with an army
/// there, Rulings 53), never on a city square of either dimension, the Evil's
/// portals at most floor(Besvärjare / 2). `portals`: the squares with an open portal.
pub(super) fn portal_allowed(
    gs: &GameState,
    portals: &[Square],
    caster: &str,
    aim: &Aim,
) -> Result<(), Why> {
    let Aim::Square(sq) = aim else {
        return Err(Why::NoTarget);
    };
    let Some(r) = gs.realm(caster) else {
        return Err(Why::NoTarget);
    };
    let inside = r.is_evil
        || gs
            .armies
            .iter()
            .any(|a| a.owner == caster && a.dimension == Dimension::Evil);
    if !inside {
        return Err(Why::NotInEvilDimension);
    }
    if gs.cities.iter().any(|c| c.square == *sq) {
        return Err(Why::CitySquare);
    }
    if r.is_evil {
        let limit = r.positions.besvarjare / 2;
        let open = portals
            .iter()
            .filter_map(|sq| gs.map.get(*sq)?.portal.as_ref())
            .filter(|p| p.opened_by == caster)
            .count();
        if open >= limit as usize {
            return Err(Why::PortalCap { limit });
        }
    }
    Ok(())
}

/// Open Portal: a portal between the two squares (R-EVIL-15); what it then does is
/// the Evil's step.
fn portal(w: &mut Weekend, cx: &mut Cx, caster: &str, sq: Square) -> Effect {
    let round = w.round();
    let Some(m) = w.state.map.squares.get_mut(&sq) else {
        return Effect::Nothing;
    };
    if m.portal.is_some() {
        return Effect::Nothing;
    }
    cx.portals.extend(m.owner.clone());
    m.portal = Some(Box::new(Portal {
        opened_by: caster.to_string(),
        opened_round: round,
        closes_after_round: None,
    }));
    w.portal_opened(sq);
    record(w, Spell::OppnaPortal, caster, SpellTarget::Square(sq));
    Effect::Portal { square: sq }
}
