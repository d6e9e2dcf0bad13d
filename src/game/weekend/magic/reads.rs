//! What the later steps read of this weekend's spells: step 3 (Whirlwind, Waterway),
//! step 4 (Mountain Wall, Attack, Defence, Swamp, Storm) and step 6 (bans and boosts).
//! `Spells` indexes the `SpellEffect`s cast in the state's round once (`Weekend::magic`),
//! so each read is a lookup, not a pass over every effect.

use std::collections::BTreeSet;

use crate::game::hash::{name_hash, FastMap};
use crate::game::orders::Group;
use crate::game::state::{GameState, GroupRef, SpellEffect, SpellTarget, Terrain};
use crate::game::{Resources, Spell, Square};

/// What an effect acted on, as the index finds it: a realm or a group's owner by a
/// hash of the name (the name itself is kept in `Spells::text` and compared on every
/// look, so two names of one hash never mix), a city by its square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Realm(u64),
    Group(u64, Group),
    City(Square),
}

/// A place in `Spells::text` or `Spells::on`, kept in 32 bits.
fn span(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One effect: its target, the spell, and where in `Spells::text` the target's name
/// (empty for a city) and the caster's are.
#[derive(Debug, Clone, PartialEq)]
struct On {
    key: Key,
    spell: Spell,
    name: (u32, u32),
    caster: (u32, u32),
}

/// This round's spell effects by target, each with its casters in order. The effects
/// are only looked up, never read in order: one list of them, sorted by target, and a
/// hash map from each target to its stretch of the list. The names are kept in one
/// text, so the whole index is four allocations however many spells a large game
/// casts (it is built at step 2 and read through step 6, and a large game's weekend
/// would otherwise find each of many small pieces gone from the cache, to read and
/// again to free). Realms and groups are found by the name as it is asked for (a
/// lookup copies no name), cities by their square. A spell on a square (Open Portal)
/// is read from the effects where they act, not here.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spells {
    on: Vec<On>,
    text: String,
    targets: FastMap<Key, (u32, u32)>,
    cast: BTreeSet<Spell>,
}

impl Spells {
    /// The index of the effects cast in `gs.round`.
    pub fn of(gs: &GameState) -> Spells {
        let mut s = Spells::default();
        let mut text = String::new();
        let mut keep = |t: &str| {
            let from = text.len();
            text.push_str(t);
            (span(from), span(text.len()))
        };
        for e in gs.effects.iter().filter(|e| e.cast_round == gs.round) {
            s.cast.insert(e.spell);
            let (key, name) = match &e.target {
                SpellTarget::Realm(r) => (Key::Realm(name_hash(r)), keep(r)),
                SpellTarget::City(sq) => (Key::City(*sq), (0, 0)),
                SpellTarget::Square(_) => continue,
                SpellTarget::Group(g) => {
                    let (owner, group) = owner_and_group(g);
                    (Key::Group(name_hash(owner), group), keep(owner))
                }
            };
            let caster = keep(&e.caster);
            let spell = e.spell;
            s.on.push(On {
                key,
                spell,
                name,
                caster,
            });
        }
        s.text = text;
        // Stable: one target's casters of a spell stay in the order cast.
        s.on.sort_by_key(|o| o.key);
        let mut from = 0;
        while let Some(first) = s.on.get(from) {
            let key = first.key;
            let len = s.on[from..].iter().take_while(|o| o.key == key).count();
            s.targets.insert(key, (span(from), span(from + len)));
            from += len;
        }
        s
    }

    fn text(&self, (from, to): (u32, u32)) -> &str {
        self.text.get(from as usize..to as usize).unwrap_or("")
    }

    /// The casters of `spell` on the target `key` named `name` (a city: "").
    fn casters<'s>(
        &'s self,
        spell: Spell,
        key: Key,
        name: &'s str,
    ) -> impl Iterator<Item = &'s str> + 's {
        let on = if self.cast.contains(&spell) {
            self.targets.get(&key)
        } else {
            None
        };
        let on = on.and_then(|&(from, to)| self.on.get(from as usize..to as usize));
        on.unwrap_or(&[])
            .iter()
            .filter(move |o| o.spell == spell && self.text(o.name) == name)
            .map(|o| self.text(o.caster))
    }

    /// The casters of `spell` on `realm` this round.
    fn on_realm<'s>(&'s self, spell: Spell, realm: &'s str) -> impl Iterator<Item = &'s str> {
        self.casters(spell, Key::Realm(name_hash(realm)), realm)
    }

    /// The casters of `spell` on `owner`'s `group` this round.
    fn on_group<'s>(
        &'s self,
        spell: Spell,
        owner: &'s str,
        group: Group,
    ) -> impl Iterator<Item = &'s str> {
        self.casters(spell, Key::Group(name_hash(owner), group), owner)
    }

    /// The casters of `spell` on the city on `sq` this round.
    fn on_city(&self, spell: Spell, sq: Square) -> impl Iterator<Item = &str> {
        self.casters(spell, Key::City(sq), "")
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
        let by_realm = realm.filter(|r| self.on_realm(Spell::Antimagi, r).next().is_some());
        let by_group = group.map(owner_and_group).and_then(|(owner, g)| {
            (self.on_group(Spell::Antimagi, owner, g).next().is_some()).then_some(owner)
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
    u32::from(s.on_group(Spell::Virvelvind, realm, group).next().is_some())
}

/// Waterway: the army may cross water this weekend (R-SPELL-1).
pub fn waterway(s: &Spells, realm: &str, army: u32) -> bool {
    s.on_group(Spell::Vattenvag, realm, Group::Army(army))
        .next()
        .is_some()
}

/// Mountain Wall: one wall more in the city on `sq` this weekend (Rulings 36).
pub fn extra_walls(s: &Spells, sq: Square) -> u64 {
    u64::from(s.on_city(Spell::Bergvagg, sq).next().is_some())
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
        .any(|o| s.on_realm(spell, o).next().is_some())
        .then_some(spell)
}

/// Step 6: `made` without the resources banned on `realm` this weekend (spells 1–12),
/// plus Besvärjare of each boost it cast (spells 31–38, R-SPELL-6, Rulings 22).
pub fn production(s: &Spells, gs: &GameState, realm: &str, made: Resources) -> Resources {
    let mut out = made;
    // Only the spells cast this round can act: no key made for the others.
    for spell in Spell::ALL.into_iter().filter(|sp| s.cast.contains(sp)) {
        if s.on_realm(spell, realm).next().is_none() {
            continue;
        }
        if let Some(r) = spell.bans() {
            out.set(r, 0);
        }
    }
    let conjurer = gs.realm(realm).map_or(0, |x| x.positions.besvarjare);
    for spell in Spell::ALL.into_iter().filter(|sp| s.cast.contains(sp)) {
        if let Some(r) = spell.boosts() {
            if s.on_realm(spell, realm).any(|c| c == realm) {
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
