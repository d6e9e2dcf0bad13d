//! Spy missions (R-SPY-4): the `Uppdrag:` / `Mission:` line grammar, the
//! spy roll (RULINGS 43) and what a successful spy learns, as data for a
//! report template. Reads the state; never changes it (that is `batch`).
//!
//! Mission line (docs/reference/mail.md, The courier): `Uppdrag: <nummer eller namn> [mål]` /
//! `Mission: <number or name> [target]`, e.g. `Uppdrag: 1`, `Mission:
//! resources`, `Uppdrag: stad K5`, `Mission: 8 to/from Fugandri`, `Uppdrag:
//! stjäl sändebud`, `Mission: forgery` (with an `Avsändare:`/`Sender:` line
//! and the forged text). Country missions target the realm the subject
//! names; 9 and 10 are about the sender's own realm.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::game::state::{Dimension, Positions, SpiedCity, SpiedGroup, SpyFindings, SpyMission};
use crate::game::text::fold;
use crate::game::{GameState, Resources, ShipKind, Square, UnitKind};

/// Why a mission line was refused; `line` quotes it (empty when missing).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{kind}: `{line}`")]
pub struct MissionError {
    pub kind: MissionErrorKind,
    pub line: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum MissionErrorKind {
    #[error("the spy mail has no `Uppdrag:` / `Mission:` line")]
    Missing,
    #[error("not one of the ten missions (1–10)")]
    Unknown,
    #[error("mission 2 needs a city: its square or name")]
    NoCity,
    #[error("the filter names no known realm")]
    UnknownFilter,
}

/// Find and parse the mission line of a spy mail.
pub fn parse_mission(body: &str, state: &GameState) -> Result<SpyMission, MissionError> {
    let line = body
        .lines()
        .map(str::trim)
        .find(|l| {
            l.split_once(':')
                .is_some_and(|(k, _)| matches!(fold(k).as_str(), "uppdrag" | "mission"))
        })
        .ok_or(MissionError {
            kind: MissionErrorKind::Missing,
            line: String::new(),
        })?;
    let err = |kind| MissionError {
        kind,
        line: super::trailer::quote(line),
    };
    let value = line.split_once(':').map(|(_, v)| v.trim()).unwrap_or("");
    let f = fold(value);
    let words: Vec<&str> = f
        .split(|c: char| c.is_whitespace() || c == ',' || c == '.' || c == ':')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |keys: &[&str]| {
        keys.iter()
            .any(|k| words.iter().any(|w| w.starts_with(k)) || (k.contains(' ') && f.contains(k)))
    };
    let number = words
        .first()
        .and_then(|w| w.trim_end_matches(['.', ')']).parse::<u8>().ok());
    let n = match number {
        Some(n) if (1..=10).contains(&n) => n,
        Some(_) => return Err(err(MissionErrorKind::Unknown)),
        None if has(&["frammande", "foreign"]) => 10,
        None if has(&["stjal", "steal", "station", "intercept", "snappa"]) => 8,
        None if has(&["forfalsk", "forge", "forgery", "forged"]) => 6,
        None if has(&["kontakt", "contact"]) => 5,
        None if has(&["befattning", "position"]) => 4,
        None if has(&["segerpoang", "victory", "vp", "uppdrag", "mission"]) => 7,
        None if has(&["rost", "vote", "voted", "voting"]) => 9,
        None if has(&["stad", "city"]) => 2,
        None if has(&["arme", "army", "armies", "flott", "fleet"]) => 3,
        None if has(&["resurs", "resource"]) => 1,
        None => return Err(err(MissionErrorKind::Unknown)),
    };
    Ok(match n {
        1 => SpyMission::Resources,
        2 => {
            let raw: Vec<&str> = value.split_whitespace().collect();
            let sq = raw
                .iter()
                .find_map(|w| Square::parse(w.trim_matches([',', '.'])).ok())
                .filter(|sq| state.cities.iter().any(|c| c.square == *sq))
                .or_else(|| {
                    state
                        .cities
                        .iter()
                        .find(|c| {
                            let name = fold(&c.name);
                            words.iter().any(|w| *w == name)
                        })
                        .map(|c| c.square)
                })
                .ok_or_else(|| err(MissionErrorKind::NoCity))?;
            SpyMission::City { square: sq }
        }
        3 => SpyMission::Armies,
        4 => SpyMission::Positions,
        5 => SpyMission::Contacts,
        6 => SpyMission::Forgery,
        7 => SpyMission::VictoryPoints,
        8 => {
            let wants_filter = has(&["till", "fran", "to", "from", "med", "with"])
                || (number.is_some() && words.len() > 1);
            let filter = state
                .realms
                .iter()
                .find(|r| {
                    let name = fold(&r.name);
                    words.iter().any(|w| *w == name)
                })
                .map(|r| r.name.clone());
            if wants_filter && filter.is_none() {
                return Err(err(MissionErrorKind::UnknownFilter));
            }
            SpyMission::Steal { filter }
        }
        9 => SpyMission::WhoVoted,
        _ => SpyMission::ForeignTroops,
    })
}

/// The spy roll (RULINGS 43): `Informatör + d10 > 10`, a natural 1 fails.
pub fn spy_roll_succeeds(informator: u32, d10: u32) -> bool {
    d10 != 1 && informator + d10 > 10
}

/// One army group as a spy sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArmyIntel {
    pub owner: String,
    pub id: u32,
    pub square: Square,
    pub units: BTreeMap<UnitKind, u32>,
    pub total: u32,
}

/// One fleet as a spy sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FleetIntel {
    pub owner: String,
    pub id: u32,
    pub square: Square,
    pub ships: BTreeMap<ShipKind, u32>,
    /// Army groups aboard (ids of the owner's groups).
    pub cargo: Vec<u32>,
}

/// What a successful spy learns (data for the report template).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "intel")]
pub enum Intel {
    /// 1: stock and production per round.
    Resources {
        realm: String,
        stock: Resources,
        production: Resources,
    },
    /// 2: one city's resources, population, army and fleet.
    City {
        square: Square,
        name: String,
        owner: String,
        population: u32,
        walls: u32,
        production: Resources,
        armies: Vec<ArmyIntel>,
        fleets: Vec<FleetIntel>,
    },
    /// 3: armies and fleets.
    Armies {
        realm: String,
        armies: Vec<ArmyIntel>,
        fleets: Vec<FleetIntel>,
    },
    /// 4: position values.
    Positions { realm: String, positions: Positions },
    /// 5: realms it exchanged envoys or merchants with this round and last.
    Contacts { realm: String, with: Vec<String> },
    /// 7: victory points and mission.
    VictoryPoints {
        realm: String,
        vp: i64,
        mission: String,
    },
    /// 9: who voted for the spy's realm in the latest vote.
    WhoVoted {
        round: Option<u32>,
        voters: Vec<String>,
    },
    /// 10: foreign army groups in the spy's own land.
    ForeignTroops { armies: Vec<ArmyIntel> },
}

pub use crate::game::state::{Contact, ContactKind};

fn army_intel(a: &crate::game::state::ArmyGroup) -> ArmyIntel {
    let mut units = BTreeMap::new();
    for u in &a.units {
        *units.entry(u.kind).or_default() += 1;
    }
    ArmyIntel {
        owner: a.owner.to_string(),
        id: a.id,
        square: a.square,
        units,
        total: a.units.len() as u32,
    }
}

fn fleet_intel(f: &crate::game::state::Fleet) -> FleetIntel {
    let mut ships = BTreeMap::new();
    for s in &f.ships {
        *ships.entry(s.kind).or_default() += 1;
    }
    FleetIntel {
        owner: f.owner.to_string(),
        id: f.id,
        square: f.square,
        ships,
        cargo: f.cargo.clone(),
    }
}

/// What a report of `intel` told of cities, army groups and fleets on the map (missions
/// 2, 3 and 10), as they stand in `state` when the report is made in `state.round`:
/// the map pictures draw this, not where the groups stand later. `None` for the
/// missions that report no places.
pub fn findings(state: &GameState, intel: &Intel) -> Option<SpyFindings> {
    let dimension = |owner: &str, id: u32| {
        state
            .army(owner, id)
            .map_or(Dimension::Normal, |a| a.dimension)
    };
    let army = |a: &ArmyIntel| SpiedGroup {
        owner: a.owner.clone(),
        id: a.id,
        square: a.square,
        dimension: dimension(&a.owner, a.id),
        units: a.total,
    };
    let fleet = |f: &FleetIntel| SpiedGroup {
        owner: f.owner.clone(),
        id: f.id,
        square: f.square,
        dimension: state
            .fleets_of(&f.owner)
            .find(|x| x.id == f.id)
            .map_or(Dimension::Normal, |x| x.dimension),
        units: f.ships.values().fold(0, |n: u32, k| n.saturating_add(*k)),
    };
    let (cities, armies, fleets) = match intel {
        Intel::City {
            square,
            armies,
            fleets,
            ..
        } => {
            let city = state.cities.iter().find(|c| c.square == *square);
            let cities = city.map(|c| SpiedCity {
                square: c.square,
                name: c.name.clone(),
                owner: c.owner.to_string(),
                walls: c.walls,
                capital: c.capital,
                harbour: c.harbour,
            });
            (cities.into_iter().collect(), armies, fleets.as_slice())
        }
        Intel::Armies { armies, fleets, .. } => (Vec::new(), armies, fleets.as_slice()),
        Intel::ForeignTroops { armies } => (Vec::new(), armies, &[][..]),
        _ => return None,
    };
    Some(SpyFindings {
        round: state.round,
        cities,
        armies: armies.iter().map(army).collect(),
        fleets: fleets.iter().map(fleet).collect(),
    })
}

/// What `owner`'s spy learns on `mission` against `target` (mission 6 and 8
/// learn nothing here: they act on envoys). `None` when there is nothing to
/// learn about (unknown realm or city).
pub fn gather(
    state: &GameState,
    owner: &str,
    target: &str,
    mission: &SpyMission,
    contacts: &[Contact],
) -> Option<Intel> {
    let realm = || state.realm(target);
    Some(match mission {
        SpyMission::Resources => {
            let r = realm()?;
            Intel::Resources {
                realm: r.name.clone(),
                stock: r.stock,
                production: r.production(state),
            }
        }
        SpyMission::City { square } => {
            let c = state.cities.iter().find(|c| c.square == *square)?;
            Intel::City {
                square: c.square,
                name: c.name.clone(),
                owner: c.owner.to_string(),
                population: c.population,
                walls: c.walls,
                production: c.production,
                armies: state
                    .armies
                    .iter()
                    .filter(|a| a.square == c.square && a.dimension == c.dimension)
                    .map(army_intel)
                    .collect(),
                fleets: state
                    .fleets
                    .iter()
                    .filter(|f| f.square == c.square)
                    .map(fleet_intel)
                    .collect(),
            }
        }
        SpyMission::Armies => {
            let r = realm()?;
            Intel::Armies {
                realm: r.name.clone(),
                armies: state.armies_of(&r.name).map(army_intel).collect(),
                fleets: state.fleets_of(&r.name).map(fleet_intel).collect(),
            }
        }
        SpyMission::Positions => {
            let r = realm()?;
            Intel::Positions {
                realm: r.name.clone(),
                positions: r.positions,
            }
        }
        SpyMission::Contacts => {
            let r = realm()?;
            let since = state.round.saturating_sub(1);
            let mut with: Vec<String> = contacts
                .iter()
                .filter(|c| c.round >= since && c.round <= state.round)
                .filter_map(|c| {
                    if c.from == r.name {
                        Some(c.to.clone())
                    } else if c.to == r.name {
                        Some(c.from.clone())
                    } else {
                        None
                    }
                })
                .collect();
            with.sort();
            with.dedup();
            Intel::Contacts {
                realm: r.name.clone(),
                with,
            }
        }
        SpyMission::VictoryPoints => {
            let r = realm()?;
            Intel::VictoryPoints {
                realm: r.name.clone(),
                vp: r.vp,
                mission: r.mission.clone(),
            }
        }
        SpyMission::WhoVoted => {
            let latest = state.votes.iter().map(|v| v.round).max();
            let mut voters: Vec<String> = state
                .votes
                .iter()
                .filter(|v| Some(v.round) == latest && v.candidate == owner)
                .map(|v| v.voter.clone())
                .collect();
            voters.sort();
            Intel::WhoVoted {
                round: latest,
                voters,
            }
        }
        // The Evil cannot be spied on (R-EVIL-19); troops in the other dimension are
        // not in the owner's land.
        SpyMission::ForeignTroops => {
            let evil = state
                .realms
                .iter()
                .find(|r| r.is_evil)
                .map(|r| r.name.as_str());
            Intel::ForeignTroops {
                armies: state
                    .armies
                    .iter()
                    .filter(|a| a.owner != owner && a.dimension == Dimension::Normal)
                    .filter(|a| evil.is_none_or(|e| e != a.owner))
                    .filter(|a| {
                        state
                            .map
                            .get(a.square)
                            .is_some_and(|m| m.owner.as_deref() == Some(owner))
                    })
                    .map(army_intel)
                    .collect(),
            }
        }
        SpyMission::Forgery | SpyMission::Steal { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::courier::tests::demo;

    #[test]
    fn r_spy_4_the_ten_missions_by_number_and_by_name() {
        let s = demo();
        let k5 = s.cities[0].square;
        let cases: Vec<(String, SpyMission)> = vec![
            ("Uppdrag: 1".into(), SpyMission::Resources),
            ("Mission: resources".into(), SpyMission::Resources),
            (
                format!("Uppdrag: stad {k5}"),
                SpyMission::City { square: k5 },
            ),
            ("Uppdrag: 2 Genborg".into(), SpyMission::City { square: k5 }),
            ("Mission: armies and fleets".into(), SpyMission::Armies),
            ("Uppdrag: befattningsvärden".into(), SpyMission::Positions),
            ("Mission: contacts".into(), SpyMission::Contacts),
            ("Uppdrag: förfalskning".into(), SpyMission::Forgery),
            ("Mission: victory points".into(), SpyMission::VictoryPoints),
            (
                "Uppdrag: stjäl sändebud".into(),
                SpyMission::Steal { filter: None },
            ),
            (
                "Mission: steal envoys to/from fugandri".into(),
                SpyMission::Steal {
                    filter: Some("Fugandri".into()),
                },
            ),
            (
                "Uppdrag: 8 Kaldor".into(),
                SpyMission::Steal {
                    filter: Some("Kaldor".into()),
                },
            ),
            ("Mission: who voted for us".into(), SpyMission::WhoVoted),
            (
                "Uppdrag: främmande trupper".into(),
                SpyMission::ForeignTroops,
            ),
            ("Mission: 10".into(), SpyMission::ForeignTroops),
        ];
        for (line, want) in cases {
            assert_eq!(
                parse_mission(&format!("Hej\n{line}\n"), &s),
                Ok(want),
                "{line}"
            );
        }
        for (body, kind) in [
            ("hej", MissionErrorKind::Missing),
            ("Uppdrag: dansa", MissionErrorKind::Unknown),
            ("Uppdrag: 11", MissionErrorKind::Unknown),
            ("Uppdrag: stad Z99", MissionErrorKind::NoCity),
            (
                "Mission: steal from Atlantis",
                MissionErrorKind::UnknownFilter,
            ),
        ] {
            assert_eq!(parse_mission(body, &s).unwrap_err().kind, kind, "{body}");
        }
    }

    #[test]
    fn r_spy_5_roll_informator_plus_d10_over_10_natural_1_fails() {
        assert!(spy_roll_succeeds(5, 6));
        assert!(!spy_roll_succeeds(5, 5));
        assert!(!spy_roll_succeeds(20, 1));
        assert!(spy_roll_succeeds(1, 10));
    }
}
