//! View models for the templates. All arithmetic, lookups, column padding
//! and word wrapping happen here so the templates stay dumb: they hold the
//! prose and headings of one language and print these fields. Reads the
//! state; never changes it.

use serde::Serialize;

use crate::game::state::{Dimension, GameState, GroupRef, Realm};
use crate::game::text::{wrap, wrap_items, WIDTH};
use crate::game::units::{Position, ShipKind};
use crate::game::{Lang, Resource, Resources, Square};

/// Per-call data for the result form that is not in the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormContext {
    /// The form deadline in the game's time zone, already in words, e.g.
    /// `söndag 29 november 2026 15:00`.
    pub deadline_local: String,
    /// Where forms are sent (`sl@game.test`).
    pub game_address: String,
}

/// Everything the result form template prints.
#[derive(Debug, Clone, Serialize)]
pub struct FormView {
    pub game: String,
    pub realm: String,
    pub round: u32,
    pub deadline: String,
    pub game_address: String,
    pub subject: String,
    pub rule: String,
    pub stock_rows: Vec<String>,
    pub prod_header: String,
    pub prod_rows: Vec<String>,
    pub prod_total: String,
    pub positions: Vec<PositionRow>,
    pub population: PopulationView,
    pub armies: Vec<ArmyView>,
    pub has_armies: bool,
    pub fleets: Vec<FleetView>,
    pub has_fleets: bool,
    pub city_rows: Vec<String>,
    pub spies: SpyView,
    pub friends: String,
    pub mutual: String,
    pub others: String,
    pub invitations: Vec<String>,
    pub has_invitations: bool,
    /// Recalls (R-INV-8) the realm has sent, for the coming weekend.
    pub home_invitations: Vec<String>,
    pub vp: i64,
    pub victory_vp: i64,
    pub next_threshold: i64,
    pub mission_lines: Vec<String>,
    pub mission_done: bool,
    pub trade_buy: String,
    pub trade_sell: String,
    pub bonuses: Vec<String>,
    pub has_bonuses: bool,
    pub portals: Vec<String>,
    pub has_portals: bool,
    pub free_merchant: String,
    pub has_free_merchant: bool,
    pub last_weekend: Vec<String>,
    pub has_last_weekend: bool,
    pub examples: Examples,
}

/// One position value and what it allows.
#[derive(Debug, Clone, Serialize)]
pub struct PositionRow {
    /// Title padded to a fixed column, value right-aligned.
    pub label: String,
    pub key: &'static str,
    pub value: u32,
    /// The cap or allowance the value gives.
    pub cap: u32,
    /// What the realm has (or has used) of it.
    pub have: u32,
    pub over: bool,
    pub is_amiral: bool,
    pub is_befalhavare: bool,
    pub is_besvarjare: bool,
    pub is_informator: bool,
    pub is_forskare: bool,
    pub is_skattmastare: bool,
    pub is_sprakror: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct PopulationView {
    pub total: u32,
    pub cap: u32,
    pub counted: u32,
    pub army_units: u32,
    pub ships: u32,
    pub spies: u32,
    pub over: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArmyView {
    pub id: u32,
    pub square: String,
    /// ` (Genborg)` when in a city, else empty.
    pub place: String,
    pub units: u32,
    pub unit_attack: u32,
    pub unit_defence: u32,
    pub commander: u32,
    pub attack: u32,
    pub defence: u32,
    pub movement: u32,
    pub lines: Vec<String>,
    pub evil_dimension: bool,
    /// Fleet id it is aboard, 0 when on land.
    pub aboard: u32,
    pub new_units: u32,
    pub treasure: String,
    pub has_treasure: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct FleetView {
    pub id: u32,
    pub square: String,
    pub place: String,
    pub ship_attack: u32,
    pub admiral: u32,
    pub attack: u32,
    pub defence: u32,
    pub movement: u32,
    pub lines: Vec<String>,
    pub cargo: String,
    pub has_cargo: bool,
    pub load: u32,
    pub capacity: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct SpyView {
    pub held: u32,
    pub cap: u32,
    pub stationed: Vec<String>,
    pub has_stationed: bool,
}

/// Squares, names and ids used in the order reminder.
#[derive(Debug, Clone, Serialize)]
pub struct Examples {
    pub capital: String,
    /// A unit kind the realm can buy (demons for the Evil).
    pub unit: String,
    pub army: u32,
    pub step1: String,
    pub step2: String,
    pub other_realm: String,
}

impl FormView {
    /// The view of `realm` with the "last weekend" section told from the weekend's
    /// `events` (only those the realm may know, in its language), after the GM's
    /// entries; `None` when the realm does not exist.
    pub fn build_with_weekend(
        state: &GameState,
        name: &str,
        ctx: &FormContext,
        events: &[crate::game::event::Event],
    ) -> Option<FormView> {
        let mut view = Self::build(state, name, ctx)?;
        let lang = state.realm(name)?.language;
        let lines = crate::render::weekend::report(events, state, name, lang);
        view.last_weekend
            .extend(lines.iter().flat_map(|l| wrap(l, WIDTH, 2)));
        view.has_last_weekend = !view.last_weekend.is_empty();
        Some(view)
    }

    /// Build the view of `realm`; `None` when the realm does not exist.
    pub fn build(state: &GameState, name: &str, ctx: &FormContext) -> Option<FormView> {
        let realm = state.realm(name)?;
        let lang = realm.language;
        let production = realm.production(state);
        let count = state.counted_units(name);
        let pos = realm.positions;
        let pop_total = state.population(name);

        let stock_rows = Resource::ALL
            .iter()
            .map(|&r| {
                format!(
                    "{:<14}{:>7}{:>12}",
                    starred(realm, r, lang),
                    realm.stock.get(r),
                    production.get(r)
                )
            })
            .collect();

        let cities: Vec<_> = state.cities_of(name).collect();
        let prod_header = format!(
            "{:<18}{}",
            "",
            Resource::ALL
                .iter()
                .map(|r| format!("{:>4}", r.abbrev(lang)))
                .collect::<String>()
        );
        let prod_row = |label: &str, p: &Resources| {
            format!(
                "{:<18}{}",
                clip(label, 17),
                Resource::ALL
                    .iter()
                    .map(|&r| match p.get(r) {
                        0 => format!("{:>4}", "."),
                        n => format!("{n:>4}"),
                    })
                    .collect::<String>()
            )
        };
        let prod_rows = cities
            .iter()
            .map(|c| prod_row(&format!("{} {}", c.square, c.name), &c.production))
            .collect();
        let prod_total = prod_row(
            match lang {
                Lang::Sv => "Summa",
                Lang::En => "Total",
            },
            &production,
        );

        let elementals = count.elementals;
        let positions = Position::ALL
            .iter()
            .map(|&p| {
                let value = pos.get(p);
                let (cap, have) = match p {
                    Position::Amiral => (5 * value, count.ships),
                    Position::Befalhavare => (2 * value, count.army_groups),
                    Position::Besvarjare => (3 * value, elementals),
                    Position::Informator => (value, count.spies),
                    Position::Forskare => (value, 0),
                    Position::Skattmastare => (value, realm.sent.merchants),
                    Position::Sprakror => (value, realm.sent.envoys),
                };
                PositionRow {
                    label: format!("{:<14}{:>3}", p.name(lang), value),
                    key: key_of(p),
                    value,
                    cap,
                    have,
                    over: have > cap,
                    is_amiral: p == Position::Amiral,
                    is_befalhavare: p == Position::Befalhavare,
                    is_besvarjare: p == Position::Besvarjare,
                    is_informator: p == Position::Informator,
                    is_forskare: p == Position::Forskare,
                    is_skattmastare: p == Position::Skattmastare,
                    is_sprakror: p == Position::Sprakror,
                }
            })
            .collect();

        let population = PopulationView {
            total: pop_total,
            cap: pop_total / 10,
            counted: count.counted(),
            army_units: count.army_units,
            ships: count.ships,
            spies: count.spies,
            over: count.counted() > pop_total / 10,
        };

        let city_name = |sq: Square, dim: Dimension| {
            state
                .city_at(sq, dim)
                .map(|c| format!(" ({})", clip(&c.name, 20)))
                .unwrap_or_default()
        };
        let aboard = |id: u32| {
            state
                .fleets_of(name)
                .find(|f| f.cargo.contains(&id))
                .map_or(0, |f| f.id)
        };
        let armies: Vec<ArmyView> = state
            .armies_of(name)
            .map(|a| {
                let items: Vec<String> = runs(a.units.iter().map(|u| u.kind))
                    .iter()
                    .map(|(k, n)| k.count_text(*n, lang))
                    .collect();
                let commander = pos.befalhavare;
                ArmyView {
                    id: a.id,
                    square: a.square.to_string(),
                    place: city_name(a.square, a.dimension),
                    units: a.units.len() as u32,
                    unit_attack: a.unit_attack(),
                    unit_defence: a.unit_defence(),
                    commander,
                    attack: a.unit_attack() + commander,
                    defence: a.unit_defence() + commander,
                    movement: a.movement(state.settings.group_movement),
                    lines: wrap_items(&items, WIDTH, 4),
                    evil_dimension: a.dimension == Dimension::Evil,
                    aboard: aboard(a.id),
                    new_units: a
                        .units
                        .iter()
                        .filter(|u| u.built_round == state.round)
                        .count() as u32,
                    treasure: a.treasure.describe(lang),
                    has_treasure: !a.treasure.is_zero(),
                }
            })
            .collect();

        let fleets: Vec<FleetView> = state
            .fleets_of(name)
            .map(|f| {
                let items: Vec<String> = runs(f.ships.iter().map(|s| s.kind))
                    .iter()
                    .map(|(k, n): &(ShipKind, usize)| k.count_text(*n, lang))
                    .collect();
                let load: u32 = f
                    .cargo
                    .iter()
                    .filter_map(|id| state.army(name, *id))
                    .map(|a| a.units.len() as u32)
                    .sum();
                let army_word = match lang {
                    Lang::Sv => "armé",
                    Lang::En => "army",
                };
                let cargo = f
                    .cargo
                    .iter()
                    .map(|id| format!("{army_word} {id}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                FleetView {
                    id: f.id,
                    square: f.square.to_string(),
                    place: city_name(f.square, Dimension::Normal),
                    ship_attack: f.attack(),
                    admiral: pos.amiral,
                    attack: f.attack() + pos.amiral,
                    defence: f.defence() + pos.amiral,
                    movement: f.movement(state.settings.group_movement),
                    lines: wrap_items(&items, WIDTH, 4),
                    has_cargo: !f.cargo.is_empty(),
                    cargo,
                    load,
                    capacity: f.capacity(&state.settings),
                }
            })
            .collect();

        let city_rows = cities
            .iter()
            .map(|c| {
                let mut marks = Vec::new();
                if c.capital {
                    marks.push(match lang {
                        Lang::Sv => "huvudstad",
                        Lang::En => "capital",
                    });
                }
                if c.harbour {
                    marks.push(match lang {
                        Lang::Sv => "huvudhamn",
                        Lang::En => "main harbour",
                    });
                }
                if c.coastal {
                    marks.push(match lang {
                        Lang::Sv => "kust",
                        Lang::En => "coastal",
                    });
                }
                if c.dimension == Dimension::Evil {
                    marks.push(match lang {
                        Lang::Sv => "ondskans dimension",
                        Lang::En => "Evil dimension",
                    });
                }
                if c.plundered {
                    marks.push(match lang {
                        Lang::Sv => "plundrad",
                        Lang::En => "plundered",
                    });
                }
                let walls = format!("{}/{}", c.walls, c.wall_cap());
                format!(
                    "{:<5}{:<17}{:>8}{:>7}  {}",
                    c.square.to_string(),
                    clip(&c.name, 16),
                    c.population,
                    walls,
                    marks.join(", ")
                )
            })
            .collect();

        let stationed: Vec<String> = state
            .spies
            .iter()
            .filter(|s| s.owner == name)
            .map(|s| {
                let state_word = match (lang, s.state) {
                    (Lang::Sv, crate::game::state::SpyState::Waiting) => "väntar",
                    (Lang::Sv, _) => "klar",
                    (Lang::En, crate::game::state::SpyState::Waiting) => "waiting",
                    (Lang::En, _) => "done",
                };
                match lang {
                    Lang::Sv => format!(
                        "Spion i {}: uppdrag {}, placerad {} ({state_word})",
                        s.realm,
                        s.mission.number(),
                        s.placed_at.format("%Y-%m-%d %H:%M UTC")
                    ),
                    Lang::En => format!(
                        "Spy in {}: mission {}, placed {} ({state_word})",
                        s.realm,
                        s.mission.number(),
                        s.placed_at.format("%Y-%m-%d %H:%M UTC")
                    ),
                }
            })
            .collect();

        let none = match lang {
            Lang::Sv => "inga",
            Lang::En => "none",
        };
        let list_or_none = |v: Vec<String>| {
            if v.is_empty() {
                none.to_string()
            } else {
                v.join(", ")
            }
        };
        let mutual: Vec<String> = realm
            .friends
            .iter()
            .filter(|f| {
                state
                    .realm(f)
                    .is_some_and(|o| o.friends.iter().any(|x| x == name))
            })
            .cloned()
            .collect();
        let others: Vec<String> = state
            .realms
            .iter()
            .filter(|r| r.name != name && !r.eliminated)
            .map(|r| r.name.clone())
            .collect();

        let invitations: Vec<String> = realm
            .invitations
            .iter()
            .filter(|i| !i.used && i.valid_until_round >= state.round)
            .map(|i| match lang {
                Lang::Sv => format!(
                    "Från {} till {}, giltig t.o.m. runda {}",
                    i.from, i.square, i.valid_until_round
                ),
                Lang::En => format!(
                    "From {} to {}, valid through round {}",
                    i.from, i.square, i.valid_until_round
                ),
            })
            .collect();

        let home_invitations: Vec<String> = state
            .home_invitations
            .iter()
            .filter(|h| h.realm == name && h.valid_until_round >= state.round)
            .map(|h| {
                let (army, id) = match &h.target {
                    GroupRef::Army { id, .. } => (true, *id),
                    GroupRef::Fleet { id, .. } => (false, *id),
                };
                match (lang, army) {
                    (Lang::Sv, true) => format!(
                        "Hembjudan: armé {id}, gäller t.o.m. runda {}",
                        h.valid_until_round
                    ),
                    (Lang::Sv, false) => format!(
                        "Hembjudan: flotta {id}, gäller t.o.m. runda {}",
                        h.valid_until_round
                    ),
                    (Lang::En, true) => format!(
                        "Home-invitation: army {id}, valid through round {}",
                        h.valid_until_round
                    ),
                    (Lang::En, false) => format!(
                        "Home-invitation: fleet {id}, valid through round {}",
                        h.valid_until_round
                    ),
                }
            })
            .collect();

        let step = state.settings.vp_threshold_step.max(1);
        let next_threshold = (realm.vp.div_euclid(step) + 1) * step;
        let mission_lines = wrap(&realm.mission, WIDTH, 2);

        let bonuses: Vec<String> = realm
            .secret_bonuses
            .iter()
            .flat_map(|(p, text)| wrap(&format!("{} 11+: {text}", p.name(lang)), WIDTH, 2))
            .collect();

        let portals: Vec<String> = state
            .map
            .squares
            .iter()
            .filter(|(_, m)| {
                m.portal
                    .as_ref()
                    .is_some_and(|p| m.owner.as_deref() == Some(name) || p.opened_by == name)
            })
            .map(|(sq, _)| sq.to_string())
            .collect();

        let free_merchant = state
            .free_merchant
            .as_ref()
            .map(|o| {
                let lot = match &o.lot {
                    crate::game::state::Lot::Resource { resource, amount } => {
                        format!("{amount} {}", resource.name(lang))
                    }
                    crate::game::state::Lot::Units { kind, count } => {
                        kind.count_text(*count as usize, lang)
                    }
                    crate::game::state::Lot::Other(t) => t.get(lang).to_string(),
                };
                match lang {
                    Lang::Sv => format!("{lot} (lägsta bud {})", o.min_bid),
                    Lang::En => format!("{lot} (minimum bid {})", o.min_bid),
                }
            })
            .unwrap_or_default();

        let last_weekend: Vec<String> = state
            .last_weekend
            .iter()
            .filter(|e| e.visible_to.is_empty() || e.visible_to.iter().any(|v| v == name))
            .flat_map(|e| wrap(e.text.get(lang), WIDTH, 2))
            .collect();

        let first_army = state.armies_of(name).next();
        let (army, step1, step2) = match first_army {
            Some(a) => {
                let (w, h) = (state.map.width, state.map.height);
                let land = |s: &Square| {
                    state
                        .map
                        .get(*s)
                        .is_some_and(|m| m.terrain == crate::game::state::Terrain::Land)
                };
                let n1 = a
                    .square
                    .neighbours(w, h, false)
                    .into_iter()
                    .find(land)
                    .unwrap_or(a.square);
                let n2 = n1
                    .neighbours(w, h, false)
                    .into_iter()
                    .find(|s| *s != a.square && land(s))
                    .unwrap_or(n1);
                (a.id, n1.to_string(), n2.to_string())
            }
            None => (1, "A1".to_string(), "A2".to_string()),
        };
        let capital = realm
            .capital
            .map(|c| c.to_string())
            .or_else(|| cities.first().map(|c| c.square.to_string()))
            .unwrap_or_else(|| "A1".to_string());
        let other_realm = state
            .realms
            .iter()
            .find(|r| r.name != name && !r.is_evil)
            .map(|r| r.name.clone())
            .unwrap_or_default();

        Some(FormView {
            game: state.game.name.clone(),
            realm: realm.name.clone(),
            round: state.round,
            deadline: ctx.deadline_local.clone(),
            game_address: ctx.game_address.clone(),
            subject: match lang {
                Lang::Sv => format!("{} formulär", realm.name),
                Lang::En => format!("{} form", realm.name),
            },
            rule: "=".repeat(WIDTH),
            stock_rows,
            prod_header,
            prod_rows,
            prod_total,
            positions,
            population,
            has_armies: !armies.is_empty(),
            armies,
            has_fleets: !fleets.is_empty(),
            fleets,
            city_rows,
            spies: SpyView {
                held: realm.spies,
                cap: pos.informator,
                has_stationed: !stationed.is_empty(),
                stationed,
            },
            friends: list_or_none(realm.friends.clone()),
            mutual: list_or_none(mutual),
            others: others.join(", "),
            has_invitations: !invitations.is_empty(),
            invitations,
            home_invitations,
            vp: realm.vp,
            victory_vp: state.settings.victory_vp,
            next_threshold,
            mission_lines,
            mission_done: realm.mission_done,
            trade_buy: list_or_none(names(&realm.trade_wishes.buy, lang)),
            trade_sell: list_or_none(names(&realm.trade_wishes.sell, lang)),
            has_bonuses: !bonuses.is_empty(),
            bonuses,
            has_portals: !portals.is_empty(),
            portals,
            has_free_merchant: !free_merchant.is_empty(),
            free_merchant,
            has_last_weekend: !last_weekend.is_empty(),
            last_weekend,
            examples: Examples {
                capital,
                unit: if realm.is_evil {
                    crate::game::UnitKind::LagreDemon.names(lang).1
                } else {
                    crate::game::UnitKind::LattInfanteri.names(lang).1
                }
                .to_string(),
                army,
                step1,
                step2,
                other_realm,
            },
        })
    }
}

fn key_of(p: Position) -> &'static str {
    match p {
        Position::Amiral => "amiral",
        Position::Befalhavare => "befalhavare",
        Position::Besvarjare => "besvarjare",
        Position::Informator => "informator",
        Position::Forskare => "forskare",
        Position::Skattmastare => "skattmastare",
        Position::Sprakror => "sprakror",
    }
}

/// Resource name with `*` when it is one of the realm's standard resources.
fn starred(realm: &Realm, r: Resource, lang: Lang) -> String {
    if realm.standard.contains(&r) {
        format!("{}*", r.name(lang))
    } else {
        r.name(lang).to_string()
    }
}

fn names(v: &[Resource], lang: Lang) -> Vec<String> {
    v.iter().map(|r| r.name(lang).to_string()).collect()
}

/// Consecutive equal kinds as `(kind, count)`, order kept — the grouping
/// keeps the cannon-fodder order readable.
fn runs<K: PartialEq + Copy>(it: impl Iterator<Item = K>) -> Vec<(K, usize)> {
    let mut out: Vec<(K, usize)> = Vec::new();
    for k in it {
        match out.last_mut() {
            Some((last, n)) if *last == k => *n += 1,
            _ => out.push((k, 1)),
        }
    }
    out
}

/// Cut `s` to at most `n` characters.
fn clip(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_keep_order() {
        use crate::game::UnitKind;
        use UnitKind::*;
        let r = runs([TungtInfanteri, TungtInfanteri, Bagskyttar, TungtInfanteri].into_iter());
        assert_eq!(
            r,
            vec![(TungtInfanteri, 2), (Bagskyttar, 1), (TungtInfanteri, 1)]
        );
    }
}
