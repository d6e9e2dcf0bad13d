//! The spells on a realm or a city: production bans and boosts (kept for step 6),
//! Swamp and Storm (kept for step 4), Mountain Wall (kept for step 4), Shield and
//! Isolation (kept for the courier until the next weekend), and what happens at once:
//! Plague, Embezzlement, Maelstrom, Reveal.

use super::cast::{record, victim, Aim};
use super::reads::victim_of;
use super::{Effect, Line};
use crate::game::orders::Target;
use crate::game::state::SpellTarget;
use crate::game::weekend::Weekend;
use crate::game::{Resource, Resources, Spell};

/// The effect of a realm, city or own spell that worked.
pub(super) fn apply(w: &mut Weekend, l: &Line, aim: &Aim, conjurer: u32) -> Effect {
    let Some(realm) = victim(&w.state, &l.realm, aim) else {
        return Effect::Nothing;
    };
    if let Some(resource) = l.spell.bans() {
        record(w, l.spell, &l.realm, SpellTarget::Realm(realm.clone()));
        return Effect::Banned { realm, resource };
    }
    if let Some(resource) = l.spell.boosts() {
        record(w, l.spell, &l.realm, SpellTarget::Realm(realm));
        return Effect::Boosted {
            resource,
            amount: conjurer,
        };
    }
    match (l.spell, aim) {
        (Spell::Bergvagg | Spell::Pest, Aim::City(i)) => city(w, l, *i),
        (Spell::Trask | Spell::Storm, _) => {
            record(w, l.spell, &l.realm, SpellTarget::Realm(realm.clone()));
            Effect::NoAttacks {
                realm,
                naval: l.spell == Spell::Storm,
            }
        }
        (Spell::Skold | Spell::Isolering, _) => {
            record(w, l.spell, &l.realm, SpellTarget::Realm(realm.clone()));
            Effect::Ward { realm }
        }
        (Spell::Forskingring | Spell::Malstrom, _) => stock(w, l, realm),
        (Spell::Avsloja, _) => reveal(w, &l.realm, named(&l.target)),
        _ => Effect::Nothing,
    }
}

/// Mountain Wall (one wall more this weekend) or Plague (−10 population, never below
/// 0, Rulings 22).
fn city(w: &mut Weekend, l: &Line, i: usize) -> Effect {
    let c = &mut w.state.cities[i];
    let (square, name) = (c.square, c.name.clone());
    let effect = if l.spell == Spell::Pest {
        let lost = c.population.min(10);
        c.population -= lost;
        Effect::Plague {
            square,
            city: name,
            lost,
        }
    } else {
        Effect::Wall { square, city: name }
    };
    record(w, l.spell, &l.realm, SpellTarget::City(square));
    effect
}

/// Embezzlement keeps `ceil(x/2)` of every stored resource (Rulings 22); Maelstrom
/// empties the crystals.
fn stock(w: &mut Weekend, l: &Line, realm: String) -> Effect {
    let Some(r) = w.state.realm_mut(&realm) else {
        return Effect::Nothing;
    };
    let mut lost = Resources::ZERO;
    for res in Resource::ALL {
        let have = r.stock.get(res);
        let take = match l.spell {
            Spell::Malstrom if res.is_crystal() => have,
            Spell::Forskingring => have / 2,
            _ => 0,
        };
        lost.set(res, take);
        r.stock.set(res, have - take);
    }
    record(w, l.spell, &l.realm, SpellTarget::Realm(realm.clone()));
    Effect::Stock { realm, lost }
}

/// The spell a Reveal names on the form, if it names one.
fn named(target: &Target) -> Option<Spell> {
    match target {
        Target::Spell(s) => Some(*s),
        _ => None,
    }
}

/// Reveal: the latest spell another realm cast on the caster (its realm, a city or a
/// group of it) that is still kept — or the latest of the spell the form names.
fn reveal(w: &Weekend, caster: &str, spell: Option<Spell>) -> Effect {
    let found = w
        .state
        .effects
        .iter()
        .rev()
        .filter(|e| e.caster != caster)
        .filter(|e| spell.is_none_or(|s| e.spell == s))
        .find(|e| victim_of(&w.state, &e.target).as_deref() == Some(caster))
        .map(|e| (e.spell, e.caster.clone()));
    Effect::Revealed { found }
}
