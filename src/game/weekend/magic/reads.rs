//! What the later steps read of this weekend's spells: step 3 (Whirlwind, Waterway),
//! step 4 (Mountain Wall, Attack, Defence, Swamp, Storm) and step 6 (bans and boosts).
//! `Spells` indexes the `SpellEffect`s cast in the state's round once (`Weekend::magic`),
//! so each read is a lookup, not a pass over every effect.

use std::collections::BTreeSet;

use crate::game::hash::FastMap;
use crate::game::orders::Group;
use crate::game::state::{GameState, GroupRef, SpellEffect, SpellTarget, Terrain};
use crate::game::{Resources, Spell, Square};

/// The casters of each spell on one target, in the order cast; the spells in the
/// order first cast (one target meets few of the spells).
type OnTarget = Vec<(Spell, Vec<String>)>;

fn add(on: &mut OnTarget, spell: Spell, caster: String) {
    match on.iter_mut().find(|(s, _)| *s == spell) {
        Some((_, casters)) => casters.push(caster),
        None => on.push((spell, vec![caster])),
    }
}

fn casters_in(on: Option<&OnTarget>, spell: Spell) -> &[String] {
    on.and_then(|on| on.iter().find(|(s, _)| *s == spell))
        .map_or(&[], |(_, casters)| casters.as_slice())
}

/// This round's spell effects by target, each with its casters in order. The effects
/// are only looked up, never read in order: hash maps, since a large game's effects
/// make a deep search tree, read at every production and battle. Realms and groups are
/// found by the name as it is asked for (a lookup copies no name), cities by their
/// square. A spell on a square (Open Portal) is read from the
/// effects where they act, not here.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spells {
    realms: FastMap<String, OnTarget>,
    /// By the owner's name, then the group.
    groups: FastMap<String, FastMap<Group, OnTarget>>,
    cities: FastMap<Square, OnTarget>,
    cast: BTreeSet<Spell>,
}

impl Spells {
    /// The index of the effects cast in `gs.round`.
    pub fn of(gs: &GameState) -> Spells {
        let mut s = Spells::default();
        for e in gs.effects.iter().filter(|e| e.cast_round == gs.round) {
            s.cast.insert(e.spell);
            let on = match &e.target {
                SpellTarget::Realm(r) => s.realms.entry(r.clone()).or_default(),
                SpellTarget::City(sq) => s.cities.entry(*sq).or_default(),
                SpellTarget::Square(_) => continue,
                SpellTarget::Group(g) => {
                    let (owner, group) = owner_and_group(g);
                    let owned = s.groups.entry(owner.to_string()).or_default();
                    owned.entry(group).or_default()
                }
            };
            add(on, e.spell, e.caster.clone());
        }
        s
    }

    /// The casters of `spell` on `realm` this round.
    fn on_realm(&self, spell: Spell, realm: &str) -> &[String] {
        if !self.cast.contains(&spell) {
            return &[];
        }
        casters_in(self.realms.get(realm), spell)
    }

    /// The casters of `spell` on `owner`'s `group` this round.
    fn on_group(&self, spell: Spell, owner: &str, group: Group) -> &[String] {
        if !self.cast.contains(&spell) {
            return &[];
        }
        let owned = self.groups.get(owner);
        casters_in(owned.and_then(|o| o.get(&group)), spell)
    }

    /// The casters of `spell` on the city on `sq` this round.
    fn on_city(&self, spell: Spell, sq: Square) -> &[String] {
        if !self.cast.contains(&spell) {
            return &[];
        }
        casters_in(self.cities.get(&sq), spell)
    }

    /// Antimagic on `realm` or on `group` whose protected owner is not `caster` (or
    /// is, when `own_too`): that owner (Rulings 21).
    pub fn shield(
        &self,
        caster: &str,
        realm: Option<&str>,
        group: Option<&GroupRef>,
        own_too: bool,
    ) -> Option<String> {
        if !self.cast.contains(&Spell::Antimagi) {
            return None;
        }
        let by_realm = realm.filter(|r| !self.on_realm(Spell::Antimagi, r).is_empty());
        let by_group = group.map(owner_and_group).and_then(|(owner, g)| {
            (!self.on_group(Spell::Antimagi, owner, g).is_empty()).then_some(owner)
        });
        [by_realm, by_group]
            .into_iter()
            .flatten()
            .find(|owner| own_too || *owner != caster)
            .map(str::to_string)
    }
}

/// A group's owner and the group, as the index keys it.
fn owner_and_group(g: &GroupRef) -> (&str, Group) {
    match g {
        GroupRef::Army { owner, id } => (owner.as_str(), Group::Army(*id)),
        GroupRef::Fleet { owner, id } => (owner.as_str(), Group::Fleet(*id)),
    }
}

/// The effects of `spell` cast this round.
pub fn this_weekend(gs: &GameState, spell: Spell) -> impl Iterator<Item = &SpellEffect> {
    let round = gs.round;
    gs.effects
        .iter()
        .filter(move |e| e.spell == spell && e.cast_round == round)
}

/// The realm an effect acted on: the realm named, a city's or a group's owner, or
/// the owner of the land of a square.
pub fn victim_of(gs: &GameState, target: &SpellTarget) -> Option<String> {
    match target {
        SpellTarget::Realm(r) => Some(r.clone()),
        SpellTarget::City(sq) => gs
            .cities
            .iter()
            .find(|c| c.square == *sq)
            .map(|c| c.owner.to_string()),
        SpellTarget::Group(GroupRef::Army { owner, .. } | GroupRef::Fleet { owner, .. }) => {
            Some(owner.to_string())
        }
        SpellTarget::Square(sq) => gs
            .map
            .get(*sq)
            .and_then(|m| m.owner.as_deref().map(str::to_string)),
    }
}

/// Whirlwind: +1 movement this weekend (R-SPELL table 13).
pub fn extra_points(s: &Spells, realm: &str, group: Group) -> u32 {
    u32::from(!s.on_group(Spell::Virvelvind, realm, group).is_empty())
}

/// Waterway: the army may cross water this weekend (R-SPELL-1).
pub fn waterway(s: &Spells, realm: &str, army: u32) -> bool {
    !s.on_group(Spell::Vattenvag, realm, Group::Army(army))
        .is_empty()
}

/// Mountain Wall: one wall more in the city on `sq` this weekend (Rulings 36).
pub fn extra_walls(s: &Spells, sq: Square) -> u64 {
    u64::from(!s.on_city(Spell::Bergvagg, sq).is_empty())
}

/// Attack (`attack`) or Defence: the caster's Besvärjare added to the group's side in
/// this weekend's combat (R-SPELL table 23/24); the highest when several cast it.
pub fn combat_bonus(s: &Spells, gs: &GameState, realm: &str, group: Group, attack: bool) -> u64 {
    let spell = if attack {
        Spell::Anfall
    } else {
        Spell::Forsvar
    };
    s.on_group(spell, realm, group)
        .iter()
        .filter_map(|c| gs.realm(c))
        .map(|r| u64::from(r.positions.besvarjare))
        .max()
        .unwrap_or(0)
}

/// Swamp (armies) or Storm (ships) on the realm whose land `sq` is: no attacks there
/// this weekend (Rulings 22). A sea square counts as the land of every realm whose
/// land touches it (at a corner too with `adjacency: 8`, Rulings 26), for Storm.
pub fn attacks_stopped(
    s: &Spells,
    gs: &GameState,
    sq: Square,
    naval: bool,
    diagonal: bool,
) -> Option<Spell> {
    let spell = if naval { Spell::Storm } else { Spell::Trask };
    if !s.cast.contains(&spell) {
        return None;
    }
    let mut owners: Vec<&str> = gs
        .map
        .get(sq)
        .and_then(|m| m.owner.as_deref())
        .into_iter()
        .collect();
    owners.extend(
        gs.cities
            .iter()
            .filter(|c| c.square == sq)
            .map(|c| c.owner.as_str()),
    );
    let sea = gs.map.get(sq).is_none_or(|m| m.terrain == Terrain::Sea);
    if naval && sea {
        for n in sq.neighbours(gs.map.width, gs.map.height, diagonal) {
            owners.extend(gs.map.get(n).and_then(|m| m.owner.as_deref()));
        }
    }
    owners
        .iter()
        .any(|o| !s.on_realm(spell, o).is_empty())
        .then_some(spell)
}

/// Step 6: `made` without the resources banned on `realm` this weekend (spells 1–12),
/// plus Besvärjare of each boost it cast (spells 31–38, R-SPELL-6, Rulings 22).
pub fn production(s: &Spells, gs: &GameState, realm: &str, made: Resources) -> Resources {
    let mut out = made;
    // Only the spells cast this round can act: no key made for the others.
    for spell in Spell::ALL.into_iter().filter(|sp| s.cast.contains(sp)) {
        let casters = s.on_realm(spell, realm);
        if casters.is_empty() {
            continue;
        }
        if let Some(r) = spell.bans() {
            out.set(r, 0);
        }
    }
    let conjurer = gs.realm(realm).map_or(0, |x| x.positions.besvarjare);
    for spell in Spell::ALL.into_iter().filter(|sp| s.cast.contains(sp)) {
        if let Some(r) = spell.boosts() {
            if s.on_realm(spell, realm).iter().any(|c| c == realm) {
                out.set(r, out.get(r).saturating_add(conjurer));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Resource;

    fn demo() -> GameState {
        crate::game::load_scenario(include_str!("../../../../scenarios/demo.yaml")).expect("demo")
    }

    fn effect(gs: &mut GameState, spell: Spell, caster: &str, target: SpellTarget) {
        let round = gs.round;
        gs.effects.push(SpellEffect {
            spell,
            caster: caster.into(),
            target,
            cast_round: round,
            expires_round: round + 1,
        });
    }

    fn sq(s: &str) -> Square {
        Square::parse(s).expect("square")
    }

    #[test]
    fn a_ban_zeroes_the_resource_and_a_boost_adds_the_casters_besvarjare() {
        let mut gs = demo();
        gs.realm_mut("Kaldor").unwrap().positions.besvarjare = 6;
        effect(
            &mut gs,
            Spell::Gruvras,
            "Afani",
            SpellTarget::Realm("Kaldor".into()),
        );
        effect(
            &mut gs,
            Spell::Avel,
            "Kaldor",
            SpellTarget::Realm("Kaldor".into()),
        );
        let made = Resources::from_pairs(&[(Resource::Jarn, 4), (Resource::Guld, 3)]);
        let out = production(&Spells::of(&gs), &gs, "Kaldor", made);
        assert_eq!(out.get(Resource::Jarn), 0);
        assert_eq!(out.get(Resource::Guld), 3);
        assert_eq!(out.get(Resource::Hastar), 6);
        assert_eq!(
            production(&Spells::of(&gs), &gs, "Afani", made),
            made,
            "only the target's"
        );
    }

    #[test]
    fn last_rounds_effects_are_not_this_weekends() {
        let mut gs = demo();
        effect(
            &mut gs,
            Spell::Bergvagg,
            "Kaldor",
            SpellTarget::City(sq("J8")),
        );
        assert_eq!(extra_walls(&Spells::of(&gs), sq("J8")), 1);
        gs.round += 1;
        assert_eq!(extra_walls(&Spells::of(&gs), sq("J8")), 0);
    }

    #[test]
    fn storm_counts_the_sea_next_to_the_realm_swamp_only_its_land() {
        let mut gs = demo();
        effect(
            &mut gs,
            Spell::Storm,
            "Afani",
            SpellTarget::Realm("Genogien".into()),
        );
        effect(
            &mut gs,
            Spell::Trask,
            "Afani",
            SpellTarget::Realm("Genogien".into()),
        );
        assert_eq!(
            attacks_stopped(&Spells::of(&gs), &gs, sq("E2"), true, false),
            Some(Spell::Storm)
        );
        assert_eq!(
            attacks_stopped(&Spells::of(&gs), &gs, sq("H2"), true, false),
            None
        );
        assert_eq!(
            attacks_stopped(&Spells::of(&gs), &gs, sq("C3"), false, false),
            Some(Spell::Trask)
        );
        assert_eq!(
            attacks_stopped(&Spells::of(&gs), &gs, sq("E3"), false, false),
            None,
            "no one's land"
        );
    }
}
