//! Scenario loading: the GM's YAML game definition → a fresh, validated
//! `GameState` in round 1. Applies RULINGS 3 (a realm without
//! `stock` starts with 7 × its production). Takes the YAML text; reading the file
//! is the caller's job. Errors name the key (and realm) and the fix.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use super::resource::{Resource, Resources};
use super::square::Square;
use super::state::*;
use super::units::{ShipKind, UnitKind};
use super::Lang;
use crate::game::Name;

/// Why a scenario could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// Not YAML, or a field that does not exist / has the wrong type.
    #[error("scenario YAML: {0}")]
    Syntax(String),
    /// One value is wrong; `key` is its path, e.g. `realms[Afani].cities[0].square`.
    #[error("scenario key {key}: {problem}")]
    Key { key: String, problem: String },
    /// The assembled state fails cross-reference validation.
    #[error("scenario is inconsistent:\n  {}", .0.join("\n  "))]
    Invalid(Vec<String>),
}

fn key_err(key: impl Into<String>, problem: impl Into<String>) -> ScenarioError {
    ScenarioError::Key {
        key: key.into(),
        problem: problem.into(),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    game: GameInfo,
    #[serde(default)]
    settings: RuleSettings,
    #[serde(default)]
    round: Option<u32>,
    map: MapDoc,
    #[serde(default)]
    evil: Option<EvilDoc>,
    realms: Vec<RealmDoc>,
    /// Missions drawn after each vote (R-MISSION-2), each in both languages.
    #[serde(default)]
    missions: Vec<LocalText>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MapDoc {
    width: u16,
    height: u16,
    /// One character → `sea`, `land` or a realm name.
    legend: BTreeMap<String, String>,
    /// Row 1 first; one character per column, column A first.
    rows: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EvilDoc {
    realm: String,
    #[serde(default)]
    portals: Vec<PortalDoc>,
    #[serde(default)]
    treasures: Vec<String>,
    /// Rock squares the Evil holds (its cities' squares are added).
    #[serde(default)]
    territory: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PortalDoc {
    square: String,
    #[serde(default)]
    opened_round: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RealmDoc {
    name: String,
    emails: Vec<String>,
    #[serde(default)]
    language: Lang,
    #[serde(default)]
    token: Option<String>,
    positions: Positions,
    #[serde(default)]
    standard: Vec<String>,
    /// Absent → 7 × production (RULINGS 3). Given → exactly this.
    #[serde(default)]
    stock: Option<BTreeMap<String, u32>>,
    #[serde(default)]
    vp: Option<i64>,
    #[serde(default)]
    mission: String,
    capital: Option<String>,
    main_harbour: Option<String>,
    #[serde(default)]
    friends: Vec<String>,
    #[serde(default)]
    trade_wishes: TradeWishDoc,
    #[serde(default)]
    spies: u32,
    #[serde(default)]
    evil: bool,
    #[serde(default)]
    cities: Vec<CityDoc>,
    #[serde(default)]
    armies: Vec<GroupDoc>,
    #[serde(default)]
    fleets: Vec<FleetDoc>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TradeWishDoc {
    #[serde(default)]
    buy: Vec<String>,
    #[serde(default)]
    sell: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CityDoc {
    square: String,
    name: String,
    population: u32,
    #[serde(default)]
    production: BTreeMap<String, u32>,
    #[serde(default)]
    walls: u32,
    /// Absent → true when a sea square borders it.
    #[serde(default)]
    coastal: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupDoc {
    #[serde(default)]
    id: Option<u32>,
    square: String,
    /// Cannon-fodder order, e.g. `["2 tungt infanteri", "bågskyttar"]`.
    units: Vec<String>,
    #[serde(default)]
    dimension: Option<Dimension>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FleetDoc {
    #[serde(default)]
    id: Option<u32>,
    square: String,
    ships: Vec<String>,
    #[serde(default)]
    cargo: Vec<u32>,
}

/// Parse a scenario and build round 1's state.
pub fn load_scenario(yaml: &str) -> Result<GameState, ScenarioError> {
    let doc: Doc = serde_yaml::from_str(yaml).map_err(|e| ScenarioError::Syntax(e.to_string()))?;
    let round = doc.round.unwrap_or(1).max(1);

    // Realm names first: everything else refers to them.
    let mut names = BTreeSet::new();
    for (i, r) in doc.realms.iter().enumerate() {
        if r.name.trim().is_empty() {
            return Err(key_err(
                format!("realms[{i}].name"),
                "is empty; give the realm a name",
            ));
        }
        if !names.insert(r.name.clone()) {
            return Err(key_err(
                format!("realms[{i}].name"),
                format!(
                    "realm `{}` is defined twice; give each realm a unique name",
                    r.name
                ),
            ));
        }
    }
    let map = build_map(&doc.map, &names)?;
    let sq = |key: &str, s: &str| -> Result<Square, ScenarioError> {
        let parsed = Square::parse(s).map_err(|e| key_err(key, e.to_string()))?;
        if map.get(parsed).is_none() {
            return Err(key_err(
                key,
                format!(
                    "square `{s}` is not on the {}×{} map ({}); fix the square or the map size",
                    map.width,
                    map.height,
                    last_square_hint(&map)
                ),
            ));
        }
        Ok(parsed)
    };

    let mut state = GameState {
        schema_version: SCHEMA_VERSION,
        game: doc.game,
        settings: doc.settings,
        round,
        phase: Phase::Weekday,
        realms: Vec::new(),
        map: map.clone(),
        cities: Vec::new(),
        armies: Vec::new(),
        fleets: Vec::new(),
        spies: Vec::new(),
        effects: Vec::new(),
        home_invitations: Vec::new(),
        courier: Default::default(),
        contacts: Vec::new(),
        missions: doc.missions.clone(),
        missions_done: Vec::new(),
        gm_events: Vec::new(),
        votes: Vec::new(),
        ruler: None,
        free_merchant: None,
        conquests: Vec::new(),
        evil: None,
        last_weekend: Vec::new(),
        next_id: 1,
        calendar: Default::default(),
        realm_places: Default::default(),
        army_places: Default::default(),
    };

    for rd in &doc.realms {
        let k = format!("realms[{}]", rd.name);
        let dim = if rd.evil {
            Dimension::Evil
        } else {
            Dimension::Normal
        };
        let mut production = Resources::ZERO;
        for (ci, cd) in rd.cities.iter().enumerate() {
            let ck = format!("{k}.cities[{ci}]");
            let square = sq(&format!("{ck}.square"), &cd.square)?;
            let prod = resources(&format!("{ck}.production"), &cd.production)?;
            production = production.plus(&prod);
            // Evil cities stand on rock; "coastal" means nothing there.
            let coastal = cd
                .coastal
                .unwrap_or_else(|| !rd.evil && map.touches_sea(square));
            state.cities.push(City {
                square,
                name: cd.name.clone(),
                owner: rd.name.as_str().into(),
                dimension: dim,
                population: cd.population,
                production: prod,
                walls: cd.walls,
                capital: false,
                harbour: false,
                coastal,
                plundered: false,
            });
        }
        let stock = match &rd.stock {
            Some(m) => resources(&format!("{k}.stock"), m)?,
            None => production.times(7),
        };
        let capital = rd
            .capital
            .as_deref()
            .map(|s| sq(&format!("{k}.capital"), s))
            .transpose()?;
        let main_harbour = rd
            .main_harbour
            .as_deref()
            .map(|s| sq(&format!("{k}.main_harbour"), s))
            .transpose()?;
        for c in state.cities.iter_mut().filter(|c| c.owner == rd.name) {
            c.capital = Some(c.square) == capital;
            c.harbour = Some(c.square) == main_harbour;
        }
        for f in &rd.friends {
            if !names.contains(f) {
                return Err(key_err(
                    format!("{k}.friends"),
                    format!("`{f}` is not a realm; use one of {}", join(&names)),
                ));
            }
        }
        let list = |key: String, v: &[String]| -> Result<Vec<Resource>, ScenarioError> {
            v.iter()
                .map(|s| Resource::parse(s).map_err(|e| key_err(key.clone(), e.to_string())))
                .collect()
        };
        let standard = list(format!("{k}.standard"), &rd.standard)?;
        let trade_wishes = TradeWishes {
            buy: list(format!("{k}.trade_wishes.buy"), &rd.trade_wishes.buy)?,
            sell: list(format!("{k}.trade_wishes.sell"), &rd.trade_wishes.sell)?,
        };
        for (ai, gd) in rd.armies.iter().enumerate() {
            let ak = format!("{k}.armies[{ai}]");
            let square = sq(&format!("{ak}.square"), &gd.square)?;
            let mut units = Vec::new();
            for (ui, u) in gd.units.iter().enumerate() {
                let (n, name) = split_count(u);
                let kind = UnitKind::parse(name).map_err(|e| {
                    key_err(
                        format!("{ak}.units[{ui}]"),
                        format!("{e}; write e.g. `3 lätt infanteri` or `bågskyttar`"),
                    )
                })?;
                units.extend((0..n).map(|_| Unit {
                    kind,
                    built_round: 0,
                }));
            }
            state.armies.push(ArmyGroup {
                id: gd.id.unwrap_or(ai as u32 + 1),
                owner: rd.name.as_str().into(),
                square,
                dimension: gd.dimension.unwrap_or(dim),
                units: units.into(),
                treasure: Default::default(),
                no_move_until_round: None,
            });
        }
        for (fi, fd) in rd.fleets.iter().enumerate() {
            let fk = format!("{k}.fleets[{fi}]");
            let square = sq(&format!("{fk}.square"), &fd.square)?;
            let mut ships = Vec::new();
            for (si, s) in fd.ships.iter().enumerate() {
                let (n, name) = split_count(s);
                let kind = ShipKind::parse(name).map_err(|e| {
                    key_err(
                        format!("{fk}.ships[{si}]"),
                        format!("{e}; write e.g. `2 transportskepp` or `galeas`"),
                    )
                })?;
                ships.extend((0..n).map(|_| Ship {
                    kind,
                    built_round: 0,
                }));
            }
            state.fleets.push(Fleet {
                id: fd.id.unwrap_or(fi as u32 + 1),
                owner: rd.name.as_str().into(),
                square,
                dimension: Dimension::Normal,
                ships,
                cargo: fd.cargo.clone(),
                must_leave_by_round: None,
            });
        }
        state.realms.push(Realm {
            name: rd.name.clone(),
            emails: rd.emails.clone(),
            language: rd.language,
            token: rd.token.clone(),
            positions: rd.positions,
            stock,
            standard,
            vp: rd.vp.unwrap_or(state.settings.starting_vp),
            mission: rd.mission.trim().to_string(),
            mission_done: false,
            capital,
            main_harbour,
            friends: rd.friends.clone(),
            trade_wishes,
            spies: rd.spies,
            sent: AgentsSent::default(),
            invitations: Vec::new(),
            secret_bonuses: BTreeMap::new(),
            engineers: false,
            researched: Vec::new(),
            vp_rewards_taken: Vec::new(),
            unplaced_troops: Vec::new(),
            fought_last_weekend: false,
            eliminated: false,
            is_evil: rd.evil,
            season: Default::default(),
        });
    }

    if let Some(ed) = &doc.evil {
        if !doc.realms.iter().any(|r| r.name == ed.realm && r.evil) {
            return Err(key_err(
                "evil.realm",
                format!(
                    "`{}` must name a realm in `realms` that has `evil: true`",
                    ed.realm
                ),
            ));
        }
        for (i, p) in ed.portals.iter().enumerate() {
            let s = sq(&format!("evil.portals[{i}].square"), &p.square)?;
            if let Some(m) = state.map.squares.get_mut(&s) {
                m.portal = Some(Box::new(Portal {
                    opened_by: ed.realm.clone(),
                    opened_round: p.opened_round,
                    closes_after_round: None,
                }));
            }
        }
        for (i, t) in ed.treasures.iter().enumerate() {
            let s = sq(&format!("evil.treasures[{i}]"), t)?;
            if let Some(m) = state.map.squares.get_mut(&s) {
                if m.evil_terrain != EvilTerrain::Rock {
                    return Err(key_err(
                        format!("evil.treasures[{i}]"),
                        format!("{s} is lava in the Evil dimension; put treasures on rock (normal-dimension sea)"),
                    ));
                }
                m.treasure = true;
            }
        }
        let mut held: Vec<Square> = Vec::new();
        for (i, t) in ed.territory.iter().enumerate() {
            held.push(sq(&format!("evil.territory[{i}]"), t)?);
        }
        held.extend(
            state
                .cities
                .iter()
                .filter(|c| c.owner == ed.realm)
                .map(|c| c.square),
        );
        for s in held {
            if let Some(m) = state.map.squares.get_mut(&s) {
                m.evil_owner = Some(ed.realm.as_str().into());
            }
        }
        state.evil = Some(EvilInfo {
            realm: ed.realm.clone(),
            leash: 5,
        });
    } else if let Some(r) = doc.realms.iter().find(|r| r.evil) {
        return Err(key_err(
            "evil",
            format!(
                "realm {} has `evil: true` but there is no `evil:` block; add `evil: {{ realm: {} }}`",
                r.name, r.name
            ),
        ));
    }

    state.validate().map_err(ScenarioError::Invalid)?;
    // A realm that starts at 11 or more in a position holds its secret bonus from its
    // opening form on (R-POS-3).
    state.grant_secret_bonuses();
    Ok(state)
}

fn build_map(doc: &MapDoc, names: &BTreeSet<String>) -> Result<Map, ScenarioError> {
    if doc.width == 0 || doc.height == 0 || doc.width > 52 {
        return Err(key_err("map.width", "width must be 1..=52 and height ≥ 1"));
    }
    let mut legend: BTreeMap<char, Option<Option<String>>> = BTreeMap::new();
    for (ch, what) in &doc.legend {
        let mut chars = ch.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return Err(key_err(
                format!("map.legend.{ch}"),
                "legend keys must be one character",
            ));
        };
        let entry = match what.as_str() {
            "sea" => None,
            "land" => Some(None),
            realm if names.contains(realm) => Some(Some(realm.to_string())),
            other => {
                return Err(key_err(
                    format!("map.legend.{ch}"),
                    format!(
                        "`{other}` is neither `sea`, `land` nor a realm name ({})",
                        join(names)
                    ),
                ))
            }
        };
        legend.insert(c, entry);
    }
    if doc.rows.len() != doc.height as usize {
        return Err(key_err(
            "map.rows",
            format!(
                "has {} rows but map.height is {}",
                doc.rows.len(),
                doc.height
            ),
        ));
    }
    let mut squares = crate::game::grid::Squares::default();
    for (ri, row) in doc.rows.iter().enumerate() {
        let cells: Vec<char> = row.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.len() != doc.width as usize {
            return Err(key_err(
                format!("map.rows[{ri}]"),
                format!(
                    "row {} has {} squares but map.width is {}",
                    ri + 1,
                    cells.len(),
                    doc.width
                ),
            ));
        }
        for (ci, c) in cells.into_iter().enumerate() {
            let square = Square::new(ci as u16, ri as u16 + 1).expect("within grid");
            let entry = legend.get(&c).ok_or_else(|| {
                key_err(
                    format!("map.rows[{ri}]"),
                    format!("character `{c}` at {square} is not in map.legend"),
                )
            })?;
            let (terrain, owner) = match entry {
                None => (Terrain::Sea, None),
                Some(o) => (Terrain::Land, o.as_deref().map(Name::from)),
            };
            squares.insert(
                square,
                MapSquare {
                    terrain,
                    owner,
                    evil_terrain: terrain.evil(),
                    evil_owner: None,
                    portal: None,
                    treasure: false,
                },
            );
        }
    }
    Ok(Map {
        width: doc.width,
        height: doc.height,
        squares,
    })
}

fn resources(key: &str, m: &BTreeMap<String, u32>) -> Result<Resources, ScenarioError> {
    let mut r = Resources::ZERO;
    for (name, n) in m {
        let res =
            Resource::parse(name).map_err(|e| key_err(format!("{key}.{name}"), e.to_string()))?;
        let v = r.get_mut(res);
        *v = v.saturating_add(*n);
    }
    Ok(r)
}

/// `"3 lätt infanteri"` → (3, "lätt infanteri"); no number → 1.
fn split_count(s: &str) -> (usize, &str) {
    let s = s.trim();
    match s.split_once(' ') {
        Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => {
            (n.parse().unwrap_or(1), rest.trim())
        }
        _ => (1, s),
    }
}

fn join(names: &BTreeSet<String>) -> String {
    names.iter().cloned().collect::<Vec<_>>().join(", ")
}

fn last_square_hint(map: &Map) -> String {
    match Square::new(map.width - 1, map.height) {
        Some(last) => format!("A1..{last}"),
        None => String::new(),
    }
}
