//! The Evil at the weekend (R-EVIL-1..21): the mirrored dimension and its lava,
//! portals (who passes, how long they stay open, who sees them), demons (a slain
//! higher demon splits, higher demons fly, the leash), treasures, the Evil's plunder
//! and razing cost, and what the Evil and its neighbours see. One file per topic; this
//! file holds the hooks the military steps call, the pipeline's entry points and the
//! family's events.

mod demons;
mod lava;
mod plunder;
mod portals;
mod sight;
mod treasures;

pub use demons::{beyond_leash, kept_in_place, slay_from_tail, survivors};
pub use lava::lava_roll;
pub use plunder::CityOutcome;
pub use portals::lifetime_with;
pub use sight::{sightings, Sightings, SIGHT};
pub use treasures::{credit, pick_up_with};

use serde::{Deserialize, Serialize};

use super::military::army_index;
use super::Weekend;
use crate::game::event::{Step, What};
use crate::game::orders::{Group, Outcome};
use crate::game::state::{ArmyGroup, City, Dimension, GameState};
use crate::game::Name;
use crate::game::{Resources, Square, UnitKind};

/// A seen group's units as (kind, count) runs in its order. Up to three runs (most
/// groups) are kept inside the event: the Evil's sight tells of every group near a
/// portal, so one allocation each would be the weekend's most.
pub type UnitRuns = smallvec::SmallVec<[(UnitKind, u32); 3]>;

/// What the Evil's rules did, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EvilEvent {
    /// R-EVIL-3: the lava roll (d10, 1–2 kills) for an army entering a lava square;
    /// `lost` is the unit that died, the last in its cannon-fodder order.
    Lava {
        realm: Name,
        army: u32,
        square: Square,
        roll: u32,
        lost: Option<UnitKind>,
    },
    /// R-EVIL-15: the army went through the portal on `square` into `to`.
    ThroughPortal {
        realm: Name,
        army: u32,
        square: Square,
        to: Dimension,
    },
    /// R-EVIL-15: no troops pass a portal in the round it was opened.
    PortalTooNew {
        realm: Name,
        army: u32,
        square: Square,
    },
    /// R-EVIL-11/17: demons stay within `leash` squares of a portal.
    Leash {
        realm: Name,
        army: u32,
        square: Square,
        leash: u16,
    },
    /// R-EVIL-18: no Evil troops near the portal; it closes after that round.
    PortalFading {
        square: Square,
        roll: u32,
        closes_after_round: u32,
    },
    /// R-EVIL-18: Evil troops came back near a fading portal; it stays open.
    PortalHeld {
        square: Square,
    },
    PortalClosed {
        square: Square,
    },
    /// R-EVIL-19: a portal in the realm's land, as the realm sees it.
    PortalSeen {
        realm: Name,
        square: Square,
        closes_after_round: Option<u32>,
    },
    /// R-EVIL-6/8: an army stopped on a treasure; `found` on 1–7.
    TreasureFound {
        realm: Name,
        army: u32,
        square: Square,
        roll: u32,
        found: Box<Resources>,
    },
    /// R-EVIL-8 result 8: the GM decides (seen by no realm; the GM is told).
    TreasureForGm {
        realm: Name,
        army: u32,
        square: Square,
    },
    /// R-EVIL-7: a new treasure lies on a rock square.
    TreasureNew {
        square: Square,
    },
    /// R-EVIL-6: carried treasure credited in one of the realm's cities.
    TreasureCredited {
        realm: Name,
        army: u32,
        city: Square,
        resources: Box<Resources>,
    },
    /// Rulings 55: the army carrying it is gone, and so is the treasure.
    TreasureLost {
        realm: Name,
        army: u32,
        resources: Box<Resources>,
    },
    /// R-EVIL-12: the Evil's plunder (or a plunder of the Evil): the city's production
    /// this round, its whole population into `into`, `vp` taken from the loser.
    Plundered {
        square: Square,
        city: Name,
        attacker: Name,
        defender: Name,
        production: Box<Resources>,
        population: u32,
        into: Option<Square>,
        vp: i64,
    },
    /// R-EVIL-12: razing costs the razer 5 of each crystal; `paid` false when it
    /// could not pay, and the city was plundered instead.
    RazeCost {
        realm: Name,
        square: Square,
        cost: Box<Resources>,
        paid: bool,
    },
    /// R-EVIL-19: an army within sight, with its units.
    Sighted {
        realm: Name,
        owner: Name,
        army: u32,
        square: Square,
        dimension: Dimension,
        units: UnitRuns,
    },
    /// R-EVIL-19: a city seen from the Evil dimension.
    CitySighted {
        realm: Name,
        owner: Name,
        square: Square,
        name: String,
    },
}

/// Record an Evil event seen by `seen_by`.
fn emit<S: Into<Name>>(
    w: &mut Weekend,
    step: Step,
    seen_by: impl IntoIterator<Item = S>,
    ev: EvilEvent,
) {
    w.emit(step, seen_by, What::Evil(ev));
}

/// The Evil realm's name, when the game has one.
/// (A valid state names it in `evil` exactly when one realm `is_evil`, so neither
/// looks through the realms.)
pub fn evil_realm(gs: &GameState) -> Option<&str> {
    gs.evil.as_ref().map(|e| e.realm.as_str())
}

fn is_evil(gs: &GameState, realm: &str) -> bool {
    evil_realm(gs) == Some(realm)
}

/// Movement hook: may this army stand on any square of its dimension? True in the
/// Evil dimension (rock and lava, Rulings 53) and for a group with a higher demon,
/// which carries it over water (R-EVIL-10, Rulings 56).
pub fn goes_anywhere(a: &ArmyGroup) -> bool {
    a.dimension == Dimension::Evil || a.units.iter().any(|u| u.kind == UnitKind::HogreDemon)
}

/// What the Evil's rules make of one step of a move.
pub enum Gate {
    /// The army went through the portal on its square (one movement point).
    Through,
    /// The move stops here: a portal that lets no one through, or the leash.
    Stop,
    /// The usual rules decide.
    Go,
}

/// Movement hook, before a step from `at` to `to`: a step onto the square the army
/// stands on is a step through its portal (R-EVIL-15); the Evil's demons keep to the
/// leash (R-EVIL-11/17).
pub fn gate(w: &mut Weekend, realm: &str, group: Group, at: Square, to: Square) -> Gate {
    let Group::Army(army) = group else {
        return Gate::Go;
    };
    if at == to {
        return match portals::pass(w, realm, army, at) {
            true => Gate::Through,
            false => Gate::Stop,
        };
    }
    match demons::leashed(w, realm, army, to) {
        true => Gate::Stop,
        false => Gate::Go,
    }
}

/// Movement hook, after a step onto `to`: normal troops on lava roll (R-EVIL-3).
/// Returns false when the army is gone.
pub fn entered(w: &mut Weekend, realm: &str, group: Group, to: Square) -> bool {
    match group {
        Group::Army(army) => lava::entered(w, realm, army, to),
        Group::Fleet(_) => true,
    }
}

/// The dimension a group is in; fleets are always in the normal one (Rulings 53).
pub fn group_dimension(gs: &GameState, realm: &str, group: Group) -> Dimension {
    match group {
        Group::Army(army) => dimension_of(gs, realm, army),
        Group::Fleet(_) => Dimension::Normal,
    }
}

/// The dimension an army is in (Normal when it is not found); a binary search of the
/// sorted armies, as the military steps keep them.
pub fn dimension_of(gs: &GameState, realm: &str, army: u32) -> Dimension {
    army_index(gs, realm, army).map_or(Dimension::Normal, |i| gs.armies[i].dimension)
}

/// Combat hook: a won city the Evil attacked, or the Evil's city a normal realm
/// attacked, is settled by R-EVIL-12; any other city the usual way.
pub fn settle_city(
    w: &mut Weekend,
    attacker: &str,
    city: &City,
    outcome: Option<Outcome>,
) -> CityOutcome {
    if !is_evil(&w.state, attacker) && !is_evil(&w.state, &city.owner) {
        return CityOutcome::Usual(outcome);
    }
    plunder::settle(w, attacker, city, outcome)
}

/// After step 4: treasures picked up (R-EVIL-6, docs/rules.md Rulings 52).
pub fn after_combat(w: &mut Weekend) {
    if w.state.evil.is_none() && !w.state.map.squares.values().any(|m| m.treasure) {
        return;
    }
    let dice = w.dice("evil/treasure");
    treasures::pick_up_with(w, dice);
}

/// Before the wrap-up: treasures credited or lost, portal lifetime, sight.
pub fn end_of_weekend(w: &mut Weekend) {
    treasures::credit(w);
    treasures::lost(w);
    let dice = w.dice("evil/portal");
    let open = portals::lifetime_with(w, dice);
    sight::run(w, &open);
}

/// Invitation hook: the dimension troops arriving on `square` by invitation or
/// home-invitation stand in: that of the city there, else the Evil's on land only the
/// Evil holds, else the normal one.
pub fn arrival_dimension(gs: &GameState, square: Square) -> Dimension {
    if let Some(c) = gs.cities.iter().find(|c| c.square == square) {
        return c.dimension;
    }
    match gs.map.get(square) {
        Some(m) if m.owner.is_none() && m.evil_owner.is_some() => Dimension::Evil,
        _ => Dimension::Normal,
    }
}

/// Squares within `r` king moves of `c` on the map.
fn around(gs: &GameState, c: Square, r: u16) -> impl Iterator<Item = Square> {
    let (w, h) = (gs.map.width, gs.map.height);
    let (c0, r0) = (c.col().saturating_sub(r), c.row().saturating_sub(r));
    let (c1, r1) = (c.col().saturating_add(r), c.row().saturating_add(r));
    (r0..=r1).flat_map(move |row| {
        (c0..=c1)
            .filter_map(move |col| Square::new(col, row).filter(|s| s.col() < w && s.row() <= h))
    })
}
