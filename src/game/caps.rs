//! The caps new troops, ships and spies meet when they come to a realm: bought on the
//! form (step 1) or placed from the free merchants (R-FREE-9). Elementals are capped by
//! Besvärjare (R-UNIT-6), army groups by Befälhavare (R-POS-4), ships by Amiral
//! (R-NAV-5), spies by Informatör (Rulings 43), and all of them together by the
//! population cap (R-POP-2, Rulings 8).
//!
//! One implementation for the receipt (`forms::check`) and the weekend
//! (`weekend::economy`, `weekend::market`), so that the two refuse the same lines.
//! Pure: counts in, a verdict out; the caller keeps the counts.

use serde::{Deserialize, Serialize};

use super::state::{Positions, UnitCount};
use super::UnitKind;

/// The caps of units (R-POP-1, R-POS-4, R-WALL-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cap {
    Population,
    Ships,
    ArmyGroups,
    Elementals,
    Spies,
    Walls,
}

impl Cap {
    /// The rule the cap answers to.
    pub fn rule(self) -> &'static str {
        match self {
            Cap::Population => "R-POP-2",
            Cap::Ships => "R-NAV-5",
            Cap::ArmyGroups => "R-POS-4",
            Cap::Elementals => "R-UNIT-6",
            Cap::Spies => "RULINGS 43",
            Cap::Walls => "R-WALL-3",
        }
    }
}

/// A cap that `add` more would pass: `have + add > limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Over {
    pub cap: Cap,
    pub have: u32,
    pub add: u32,
    pub limit: u32,
}

/// What a realm holds against its caps, as the lines above left it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Room {
    /// Army units, ships and spies (held and out on missions): the population cap's count.
    pub counted: u32,
    pub elementals: u32,
    pub army_groups: u32,
    pub ships: u32,
    pub spies: u32,
    /// The realm's whole population (the cap is a tenth of it).
    pub population: u32,
}

/// Refuse when `have + add` would pass `limit`.
fn within(cap: Cap, have: u32, add: u32, limit: u32) -> Result<(), Over> {
    if have.saturating_add(add) > limit {
        return Err(Over {
            cap,
            have,
            add,
            limit,
        });
    }
    Ok(())
}

impl Room {
    /// The counts of `count` and a population of `population`.
    pub fn of(count: &UnitCount, population: u32) -> Room {
        Room {
            counted: count.counted(),
            elementals: count.elementals,
            army_groups: count.army_groups,
            ships: count.ships,
            spies: count.spies,
            population,
        }
    }

    /// R-POP-2, Rulings 8: `n` more counted units under a tenth of the population.
    pub fn population_cap(&self, n: u32) -> Result<(), Over> {
        within(Cap::Population, self.counted, n, self.population / 10)
    }

    /// `n` army units of `kind`, forming a new army group when `new_group`: the
    /// elemental cap, then the army-group cap, then the population cap.
    pub fn troops(
        &self,
        positions: &Positions,
        n: u32,
        kind: UnitKind,
        new_group: bool,
    ) -> Result<(), Over> {
        if kind.is_elemental() {
            let limit = positions.besvarjare.saturating_mul(3);
            within(Cap::Elementals, self.elementals, n, limit)?;
        }
        if new_group {
            let limit = positions.befalhavare.saturating_mul(2);
            within(Cap::ArmyGroups, self.army_groups, 1, limit)?;
        }
        self.population_cap(n)
    }

    /// Count `n` army units of `kind` that came (and their new group).
    pub fn add_troops(&mut self, n: u32, kind: UnitKind, new_group: bool) {
        self.counted = self.counted.saturating_add(n);
        if kind.is_elemental() {
            self.elementals = self.elementals.saturating_add(n);
        }
        if new_group {
            self.army_groups = self.army_groups.saturating_add(1);
        }
    }

    /// `n` ships: the ship cap, then the population cap.
    pub fn ships(&self, positions: &Positions, n: u32) -> Result<(), Over> {
        let limit = positions.amiral.saturating_mul(5);
        within(Cap::Ships, self.ships, n, limit)?;
        self.population_cap(n)
    }

    /// Count `n` ships that came.
    pub fn add_ships(&mut self, n: u32) {
        self.ships = self.ships.saturating_add(n);
        self.counted = self.counted.saturating_add(n);
    }

    /// `n` spies: the spy cap, then the population cap.
    pub fn spies(&self, positions: &Positions, n: u32) -> Result<(), Over> {
        within(Cap::Spies, self.spies, n, positions.informator)?;
        self.population_cap(n)
    }

    /// Count `n` spies that came.
    pub fn add_spies(&mut self, n: u32) {
        self.spies = self.spies.saturating_add(n);
        self.counted = self.counted.saturating_add(n);
    }

    /// A new army group formed without units of its own (a split, R-MOVE-8).
    pub fn new_group(&self, positions: &Positions) -> Result<(), Over> {
        let limit = positions.befalhavare.saturating_mul(2);
        within(Cap::ArmyGroups, self.army_groups, 1, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions() -> Positions {
        Positions {
            amiral: 1,
            befalhavare: 1,
            besvarjare: 1,
            informator: 1,
            forskare: 1,
            skattmastare: 1,
            sprakror: 1,
        }
    }

    #[test]
    fn r_pos_4_troops_meet_the_elemental_then_the_group_then_the_population_cap() {
        let room = Room {
            counted: 8,
            elementals: 3,
            army_groups: 2,
            population: 100,
            ..Room::default()
        };
        let p = positions();
        let over = |n, kind, new| room.troops(&p, n, kind, new).unwrap_err().cap;
        assert_eq!(over(1, UnitKind::Eldelementar, true), Cap::Elementals);
        assert_eq!(over(1, UnitKind::LattInfanteri, true), Cap::ArmyGroups);
        assert_eq!(over(3, UnitKind::LattInfanteri, false), Cap::Population);
        assert_eq!(room.troops(&p, 2, UnitKind::LattInfanteri, false), Ok(()));
        let mut more = room;
        more.add_troops(2, UnitKind::LattInfanteri, false);
        assert_eq!(more.counted, 10);
        assert_eq!(more.population_cap(1).unwrap_err().limit, 10);
    }
}
