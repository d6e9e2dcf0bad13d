//! What the later steps read of this weekend's spells: step 3 (Whirlwind, Waterway),
//! step 4 (Mountain Wall, Attack, Defence, Swamp, Storm) and step 6 (bans and boosts).
//! Each reads the `SpellEffect`s cast in the state's round.

use crate::game::orders::Group;
use crate::game::state::{GameState, GroupRef, SpellEffect, SpellTarget, Terrain};
use crate::game::{Resources, Spell, Square};

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
            .map(|c| c.owner.clone()),
        SpellTarget::Group(GroupRef::Army { owner, .. } | GroupRef::Fleet { owner, .. }) => {
            Some(owner.clone())
        }
        SpellTarget::Square(sq) => gs.map.get(*sq).and_then(|m| m.owner.clone()),
    }
}

fn on_group(gs: &GameState, spell: Spell, realm: &str, group: Group) -> Option<String> {
    let want = match group {
        Group::Army(id) => GroupRef::Army {
            owner: realm.to_string(),
            id,
        },
        Group::Fleet(id) => GroupRef::Fleet {
            owner: realm.to_string(),
            id,
        },
    };
    this_weekend(gs, spell)
        .find(|e| e.target == SpellTarget::Group(want.clone()))
        .map(|e| e.caster.clone())
}

/// Whirlwind: +1 movement this weekend (R-SPELL table 13).
pub fn extra_points(gs: &GameState, realm: &str, group: Group) -> u32 {
    u32::from(on_group(gs, Spell::Virvelvind, realm, group).is_some())
}

/// Waterway: the army may cross water this weekend (R-SPELL-1).
pub fn waterway(gs: &GameState, realm: &str, army: u32) -> bool {
    on_group(gs, Spell::Vattenvag, realm, Group::Army(army)).is_some()
}

/// Mountain Wall: one wall more in the city on `sq` this weekend (Rulings 36).
pub fn extra_walls(gs: &GameState, sq: Square) -> u64 {
    u64::from(this_weekend(gs, Spell::Bergvagg).any(|e| e.target == SpellTarget::City(sq)))
}

/// Attack (`attack`) or Defence: the caster's Besvärjare added to the group's side in
/// this weekend's combat (R-SPELL table 23/24).
pub fn combat_bonus(gs: &GameState, realm: &str, group: Group, attack: bool) -> u64 {
    let spell = if attack {
        Spell::Anfall
    } else {
        Spell::Forsvar
    };
    on_group(gs, spell, realm, group)
        .and_then(|caster| gs.realm(&caster))
        .map_or(0, |r| u64::from(r.positions.besvarjare))
}

/// Swamp (armies) or Storm (ships) on the realm whose land `sq` is: no attacks there
/// this weekend (Rulings 22). A sea square counts as the land of every realm whose
/// land touches it, for Storm.
pub fn attacks_stopped(gs: &GameState, sq: Square, naval: bool) -> Option<Spell> {
    let spell = if naval { Spell::Storm } else { Spell::Trask };
    let mut effects = this_weekend(gs, spell).peekable();
    effects.peek()?;
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
        for n in sq.neighbours(gs.map.width, gs.map.height, false) {
            owners.extend(gs.map.get(n).and_then(|m| m.owner.as_deref()));
        }
    }
    effects
        .any(|e| matches!(&e.target, SpellTarget::Realm(r) if owners.contains(&r.as_str())))
        .then_some(spell)
}

/// Step 6: `made` without the resources banned on `realm` this weekend (spells 1–12),
/// plus Besvärjare of each boosted one (spells 31–38, R-SPELL-6, Rulings 22).
pub fn production(gs: &GameState, realm: &str, made: Resources) -> Resources {
    let mut out = made;
    let round = gs.round;
    let on_realm = SpellTarget::Realm(realm.to_string());
    for e in gs
        .effects
        .iter()
        .filter(|e| e.cast_round == round && e.target == on_realm)
    {
        if let Some(r) = e.spell.bans() {
            out.set(r, 0);
        }
    }
    for e in gs
        .effects
        .iter()
        .filter(|e| e.cast_round == round && e.target == on_realm && e.caster == realm)
    {
        if let Some(r) = e.spell.boosts() {
            let add = gs.realm(realm).map_or(0, |x| x.positions.besvarjare);
            out.set(r, out.get(r).saturating_add(add));
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
        let out = production(&gs, "Kaldor", made);
        assert_eq!(out.get(Resource::Jarn), 0);
        assert_eq!(out.get(Resource::Guld), 3);
        assert_eq!(out.get(Resource::Hastar), 6);
        assert_eq!(production(&gs, "Afani", made), made, "only the target's");
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
        assert_eq!(extra_walls(&gs, sq("J8")), 1);
        gs.round += 1;
        assert_eq!(extra_walls(&gs, sq("J8")), 0);
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
        assert_eq!(attacks_stopped(&gs, sq("E2"), true), Some(Spell::Storm));
        assert_eq!(attacks_stopped(&gs, sq("H2"), true), None);
        assert_eq!(attacks_stopped(&gs, sq("C3"), false), Some(Spell::Trask));
        assert_eq!(attacks_stopped(&gs, sq("E3"), false), None, "no one's land");
    }
}
