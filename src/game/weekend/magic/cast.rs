//! One cast: the once-a-round limit (R-SPELL-4, with the weekday Reveal, Rulings 18),
//! the target as the form names it (R-SPELL-11), the limits between the dimensions
//! (R-EVIL-14/15), the price (Rulings 17), the roll (R-SPELL-3) and Antimagic's
//! protection (R-SPELL-12, Rulings 21); then the spell's effect.

use std::collections::BTreeSet;

use super::{harm, tell, troops, Effect, Line, MagicEvent, Why};
use crate::game::dice::Dice;
use crate::game::hash::FastSet;
use crate::game::orders::{GroupSel, Target};
use crate::game::state::{Dimension, GameState, GroupRef, SpellEffect, SpellTarget};
use crate::game::weekend::military::{self, index::Index};
use crate::game::weekend::Weekend;
use crate::game::Name;
use crate::game::{Resources, Spell, Square};

/// What a cast acts on, found in the state.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Aim {
    /// The caster itself (boosts, Reveal).
    Own,
    Realm(String),
    /// Index into `cities`.
    City(usize),
    /// Index into `armies`.
    Army(usize),
    /// Index into `fleets`.
    Fleet(usize),
    /// Teleport: the army and where it lands.
    Teleport(usize, Square),
    Square(Square),
    /// Armageddon: every realm.
    All,
}

/// The realm a cast acts on, if one.
pub(super) fn victim(gs: &GameState, caster: &str, aim: &Aim) -> Option<String> {
    match aim {
        Aim::Own => Some(caster.to_string()),
        Aim::Realm(r) => Some(r.clone()),
        Aim::City(i) => Some(gs.cities[*i].owner.to_string()),
        Aim::Army(i) | Aim::Teleport(i, _) => Some(gs.armies[*i].owner.to_string()),
        Aim::Fleet(i) => Some(gs.fleets[*i].owner.to_string()),
        Aim::Square(_) | Aim::All => None,
    }
}

/// What step 2 keeps between casts: the casts made, the groups indexed by square (the
/// military index, so Teleport moves a group the one way groups are moved) and the
/// realms with an open portal in their land (R-EVIL-14).
pub(super) struct Cx {
    pub done: FastSet<(String, Spell)>,
    pub ix: Index,
    pub portals: BTreeSet<Name>,
    /// The realms with a portal the Evil opened in their land: the Evil casts only on
    /// these (R-EVIL-14, "where it has first opened a portal").
    pub evil_portals: BTreeSet<Name>,
    /// Groups emptied this step, by (owner, number); removed once at its end.
    pub dead_armies: FastSet<(Name, u32)>,
    pub dead_fleets: FastSet<(Name, u32)>,
}

impl Cx {
    /// The context of step 2 in `gs` (its forces sorted, `Weekend::sort_forces`), whose
    /// open portals stand on `portal_squares`.
    pub fn new(gs: &GameState, portal_squares: &[Square]) -> Cx {
        let evil = gs.realms.iter().find(|r| r.is_evil).map(|r| r.name.clone());
        let mut portals = BTreeSet::new();
        let mut evil_portals = BTreeSet::new();
        for m in portal_squares.iter().filter_map(|sq| gs.map.get(*sq)) {
            let (Some(p), Some(owner)) = (&m.portal, &m.owner) else {
                continue;
            };
            portals.insert(owner.clone());
            if evil.as_deref() == Some(p.opened_by.as_str()) {
                evil_portals.insert(owner.clone());
            }
        }
        Cx {
            done: FastSet::default(),
            ix: military::index::Index::build(gs),
            portals,
            evil_portals,
            dead_armies: FastSet::default(),
            dead_fleets: FastSet::default(),
        }
    }
}

pub(super) fn one(w: &mut Weekend, dice: &mut Dice, cx: &mut Cx, l: &Line) {
    let refuse = |w: &mut Weekend, why: Why| {
        let ev = MagicEvent::Refused {
            realm: l.realm.clone(),
            spell: l.spell,
            why,
        };
        tell(w, [l.realm.clone()], ev);
    };
    if cx.done.contains(&(l.realm.clone(), l.spell)) {
        return refuse(w, Why::AlreadyCast);
    }
    if l.spell == Spell::Avsloja && w.start.revealed_by_mail(&l.realm) {
        return refuse(w, Why::RevealUsed);
    }
    let aim = match aim(&w.state, cx, l)
        .and_then(|a| allowed(&w.state, &w.portals, cx, l, &a).map(|_| a))
    {
        Ok(a) => a,
        Err(why) => return refuse(w, why),
    };
    let Some(at) = cx.ix.realm_at(&w.state, &l.realm) else {
        return;
    };
    let Some(realm) = w.state.realms.get(at) else {
        return;
    };
    let (conjurer, stock) = (realm.positions.besvarjare, realm.stock);
    let cost = l.spell.cost();
    let Some(left) = stock.checked_sub(&cost) else {
        let short = shortfall(&stock, &cost);
        return refuse(w, Why::Short { cost, short });
    };
    cx.done.insert((l.realm.clone(), l.spell));
    let d10 = dice.d10();
    let success = d10 != 1 && conjurer.saturating_add(d10) > 10;
    let paid = if success || w.settings.spells.failed_cast_pays {
        if let Some(r) = w.state.realms.get_mut(at) {
            r.stock = left;
        }
        cost
    } else {
        Resources::ZERO
    };
    // The victim is named before the spell acts: a kill may remove its group.
    let hit = victim(&w.state, &l.realm, &aim);
    let effect = success.then(|| effect(w, cx, l, &aim, conjurer));
    let ev = MagicEvent::Cast {
        realm: l.realm.clone(),
        spell: l.spell,
        target: l.target.clone(),
        conjurer,
        d10,
        success,
        cost: paid,
        effect: effect.clone(),
    };
    tell(w, [l.realm.clone()], ev);
    if let Some(e) = effect {
        tell_victim(w, l, hit, e);
    }
}

/// The victim's own line, without the caster's name.
fn tell_victim(w: &mut Weekend, l: &Line, hit: Option<String>, effect: Effect) {
    if matches!(
        effect,
        Effect::Nothing | Effect::Blocked { .. } | Effect::Armageddon { .. }
    ) {
        return;
    }
    let Some(v) = hit.filter(|v| *v != l.realm) else {
        return;
    };
    let ev = MagicEvent::Suffered {
        realm: v.clone(),
        spell: l.spell,
        effect,
    };
    tell(w, [v], ev);
}

fn shortfall(stock: &Resources, cost: &Resources) -> Resources {
    let mut short = Resources::ZERO;
    for (r, n) in cost.iter() {
        short.set(r, n.saturating_sub(stock.get(r)));
    }
    short
}

/// The form's target, found in the state (R-SPELL-11).
fn aim(gs: &GameState, cx: &Cx, l: &Line) -> Result<Aim, Why> {
    if l.spell == Spell::Armageddon {
        return Ok(Aim::All);
    }
    match &l.target {
        Target::None => Ok(Aim::Own),
        Target::Spell(_) if l.spell == Spell::Avsloja => Ok(Aim::Own),
        Target::Spell(_) => Err(Why::NoTarget),
        Target::Realm(r) => cx
            .ix
            .realm(gs, r)
            .filter(|x| !x.eliminated)
            .map(|x| Aim::Realm(x.name.clone()))
            .ok_or(Why::NoTarget),
        Target::City(sq) => {
            let on = cx.ix.cities_on(gs, *sq);
            let normal = on
                .iter()
                .copied()
                .find(|&c| gs.cities[c].dimension == Dimension::Normal);
            normal
                .or(on.first().copied())
                .map(Aim::City)
                .ok_or(Why::NoTarget)
        }
        Target::Army(sel) => army(gs, cx, &l.realm, *sel).map(Aim::Army),
        Target::Fleet(sel) => fleet(gs, cx, &l.realm, *sel).map(Aim::Fleet),
        Target::ArmyTo { army: sel, to } => {
            army(gs, cx, &l.realm, *sel).map(|i| Aim::Teleport(i, *to))
        }
        Target::Square(sq) => gs
            .map
            .get(*sq)
            .map(|_| Aim::Square(*sq))
            .ok_or(Why::NoTarget),
    }
}

/// An own army by number, or the army on a square (another realm's first, R-SPELL-10).
fn army(gs: &GameState, cx: &Cx, caster: &str, sel: GroupSel) -> Result<usize, Why> {
    let found = match sel {
        GroupSel::Id(id) => military::army_at(gs, caster, id),
        GroupSel::At(sq) => {
            let on = cx.ix.armies_on(gs, sq);
            let pick = |foreign: bool| {
                on.iter().copied().find(|&i| {
                    let a = &gs.armies[i];
                    !a.units.is_empty() && (a.owner != caster) == foreign
                })
            };
            pick(true).or_else(|| pick(false))
        }
    };
    found.ok_or(Why::NoTarget)
}

fn fleet(gs: &GameState, cx: &Cx, caster: &str, sel: GroupSel) -> Result<usize, Why> {
    let found = match sel {
        GroupSel::Id(id) => military::fleet_at(gs, caster, id),
        GroupSel::At(sq) => {
            let on = cx.ix.fleets_on(gs, sq);
            let pick = |foreign: bool| {
                on.iter().copied().find(|&i| {
                    let f = &gs.fleets[i];
                    !f.ships.is_empty() && (f.owner != caster) == foreign
                })
            };
            pick(true).or_else(|| pick(false))
        }
    };
    found.ok_or(Why::NoTarget)
}

/// The limits checked before the roll: R-EVIL-14/15 and Antimagic's "outside your
/// country" (R-SPELL-12). `portals`: the squares with an open portal.
fn allowed(gs: &GameState, portals: &[Square], cx: &Cx, l: &Line, aim: &Aim) -> Result<(), Why> {
    if l.spell == Spell::OppnaPortal {
        return troops::portal_allowed(gs, portals, &l.realm, aim);
    }
    if l.spell == Spell::Antimagi {
        let abroad = |sq: Square| gs.map.get(sq).and_then(|m| m.owner.as_deref()) != Some(&l.realm);
        match aim {
            Aim::Army(i) if !abroad(gs.armies[*i].square) => return Err(Why::AtHome),
            Aim::Fleet(i) if !abroad(gs.fleets[*i].square) => return Err(Why::AtHome),
            _ => {}
        }
    }
    if l.spell == Spell::Armageddon {
        return Ok(());
    }
    let Some(v) = victim(gs, &l.realm, aim).filter(|v| *v != l.realm) else {
        return Ok(());
    };
    let evil = |r: &str| cx.ix.realm(gs, r).is_some_and(|x| x.is_evil);
    if evil(&l.realm) && !evil(&v) && !cx.evil_portals.contains(v.as_str()) {
        return Err(Why::NoPortal { realm: v });
    }
    if !evil(&l.realm) && evil(&v) && !cx.portals.contains(l.realm.as_str()) {
        return Err(Why::NoPortal {
            realm: l.realm.clone(),
        });
    }
    Ok(())
}

/// The realm whose Antimagic stops `caster`'s spell on `aim`, if any (Rulings 21).
pub(super) fn protector(w: &Weekend, caster: &str, aim: &Aim) -> Option<String> {
    let group = match aim {
        Aim::Army(i) | Aim::Teleport(i, _) => {
            let a = &w.state.armies[*i];
            Some(GroupRef::Army {
                owner: a.owner.clone(),
                id: a.id,
            })
        }
        Aim::Fleet(i) => {
            let f = &w.state.fleets[*i];
            Some(GroupRef::Fleet {
                owner: f.owner.clone(),
                id: f.id,
            })
        }
        _ => None,
    };
    let realm = victim(&w.state, caster, aim);
    shield_of(w, caster, realm.as_deref(), group.as_ref())
}

/// Antimagic cast this round on `realm` or on `group`, not by-passed by `caster`.
pub(super) fn shield_of(
    w: &Weekend,
    caster: &str,
    realm: Option<&str>,
    group: Option<&GroupRef>,
) -> Option<String> {
    let own_too = w.settings.spells.antimagic_blocks_own;
    w.magic.shield(caster, realm, group, own_too)
}

pub(super) fn group_owner(g: &GroupRef) -> &str {
    match g {
        GroupRef::Army { owner, .. } | GroupRef::Fleet { owner, .. } => owner,
    }
}

/// Keep `target` as a spell of this round, until the next weekend.
pub(super) fn record(w: &mut Weekend, spell: Spell, caster: &str, target: SpellTarget) {
    let round = w.round();
    w.state.effects.push(SpellEffect {
        spell,
        caster: caster.to_string(),
        target,
        cast_round: round,
        expires_round: round.saturating_add(1),
    });
}

/// The effect of a cast that worked.
fn effect(w: &mut Weekend, cx: &mut Cx, l: &Line, aim: &Aim, conjurer: u32) -> Effect {
    if l.spell != Spell::Armageddon {
        if let Some(realm) = protector(w, &l.realm, aim) {
            return Effect::Blocked { realm };
        }
    }
    if troops::handles(l.spell) {
        troops::apply(w, cx, l, aim, conjurer)
    } else {
        harm::apply(w, l, aim, conjurer)
    }
}
