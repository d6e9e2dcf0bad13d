//! `/gm/realms` (every realm in a line) and `/gm/realm/{name}` (one realm's state:
//! treasury and positions, cities, army groups, fleets, spies, addresses, season).
//! Everything from the state is escaped: realm, city and player names are the
//! players' and the scenario's text.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::Response;

use super::{canonical, plain, respond, state};
use crate::app::App;
use crate::game::state::Realm;
use crate::game::GameState;
use crate::web::site::auth::GmSession;
use crate::web::site::html::{escape, table, url_part};

pub(super) async fn list(_gm: GmSession, State(app): State<Arc<App>>) -> Response {
    let body = state(&app).await.map(|gs| realms_table(&gs));
    respond("Realms", body, None)
}

fn realms_table(gs: &GameState) -> String {
    let rows: Vec<Vec<String>> = gs
        .realms
        .iter()
        .map(|r| {
            vec![
                realm_link(&r.name),
                r.vp.to_string(),
                gs.cities_of(&r.name).count().to_string(),
                gs.armies
                    .iter()
                    .filter(|a| a.owner == r.name)
                    .count()
                    .to_string(),
                gs.fleets
                    .iter()
                    .filter(|f| f.owner == r.name)
                    .count()
                    .to_string(),
                escape(&r.emails.join(", ")),
                escape(&standing(gs, r)),
            ]
        })
        .collect();
    table(
        &[
            "Realm",
            "VP",
            "Cities",
            "Armies",
            "Fleets",
            "Addresses",
            "Season",
        ],
        &rows,
    )
}

/// A link to a realm's page.
pub(super) fn realm_link(name: &str) -> String {
    format!(
        "<a href=\"/gm/realm/{}\">{}</a>",
        escape(&url_part(name)),
        escape(name)
    )
}

/// The realm's season in a few words.
fn standing(gs: &GameState, r: &Realm) -> String {
    let s = &r.season;
    let mut parts = Vec::new();
    if r.eliminated {
        parts.push("eliminated".to_string());
    }
    if r.is_evil {
        parts.push("the Evil".to_string());
    }
    if let Some(a) = s.absent {
        let now = if s.absent_in(gs.round) {
            "away"
        } else {
            "absence"
        };
        parts.push(format!("{now} rounds {}–{}", a.from_round, a.to_round));
    }
    if s.absences_used > 0 {
        parts.push(format!("{} absence(s) used", s.absences_used));
    }
    if s.missed_in_row > 0 {
        parts.push(format!("missed {} in a row", s.missed_in_row));
    }
    if s.seeking_replacement {
        parts.push("seeks a replacement".to_string());
    }
    if let Some(p) = &s.player {
        parts.push(format!("player {p}"));
    }
    parts.join("; ")
}

pub(super) async fn one(
    _gm: GmSession,
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
) -> Response {
    let body = match state(&app).await {
        Ok(gs) => canonical(&gs, &name).map(|n| realm_page(&gs, &n)),
        Err(e) => Err(e),
    };
    let title = format!("Realm {name}");
    respond(&title, body, None)
}

fn realm_page(gs: &GameState, name: &str) -> String {
    let Some(r) = gs.realms.iter().find(|r| r.name == name) else {
        return String::new();
    };
    let mut out = format!(
        "<p>{} VP, language {}; mission: {}{}</p>\n",
        r.vp,
        escape(r.language.code()),
        escape(&r.mission),
        if r.mission_done { " (done)" } else { "" }
    );
    let _ = writeln!(
        out,
        "<p>Addresses: {}. Season: {}.</p>",
        escape(&r.emails.join(", ")),
        escape(&or_dash(standing(gs, r)))
    );
    out.push_str("<h2>Treasury</h2>\n");
    out.push_str(&pairs(&r.stock));
    out.push_str("<h2>Positions</h2>\n");
    out.push_str(&pairs(&r.positions));
    let _ = writeln!(
        out,
        "<p>Trade wishes: buy {}, sell {}.</p>",
        escape(&names(&r.trade_wishes.buy)),
        escape(&names(&r.trade_wishes.sell))
    );
    out.push_str(&cities(gs, name));
    out.push_str(&armies(gs, name));
    out.push_str(&fleets(gs, name));
    out.push_str(&spies(gs, r));
    out
}

fn or_dash(s: String) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s
    }
}

fn names<T: serde::Serialize>(v: &[T]) -> String {
    or_dash(v.iter().map(plain).collect::<Vec<_>>().join(", "))
}

/// A struct of numbers (resources, positions) as a two-row table.
fn pairs<T: serde::Serialize>(v: &T) -> String {
    let map: BTreeMap<String, serde_json::Value> = serde_json::to_value(v)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let head: Vec<&str> = map.keys().map(String::as_str).collect();
    let row = map.values().map(|v| escape(&v.to_string())).collect();
    table(&head, &[row])
}

/// Kinds with their counts: `3 fotsoldat, 1 riddare`.
fn counted<T: serde::Serialize>(kinds: impl Iterator<Item = T>) -> String {
    let mut n: BTreeMap<String, u32> = BTreeMap::new();
    for k in kinds {
        *n.entry(plain(&k)).or_default() += 1;
    }
    let v: Vec<String> = n.iter().map(|(k, c)| format!("{c} {k}")).collect();
    or_dash(v.join(", "))
}

fn cities(gs: &GameState, name: &str) -> String {
    let rows: Vec<Vec<String>> = gs
        .cities_of(name)
        .map(|c| {
            let mut marks = Vec::new();
            for (on, m) in [
                (c.capital, "capital"),
                (c.harbour, "main harbour"),
                (c.coastal, "coastal"),
                (c.plundered, "plundered"),
            ] {
                if on {
                    marks.push(m);
                }
            }
            vec![
                escape(&c.name),
                escape(&c.square.to_string()),
                escape(&plain(&c.dimension)),
                c.population.to_string(),
                c.walls.to_string(),
                escape(&marks.join(", ")),
            ]
        })
        .collect();
    let head = ["City", "Square", "Dimension", "Population", "Walls", ""];
    format!("<h2>Cities</h2>\n{}", table(&head, &rows))
}

fn armies(gs: &GameState, name: &str) -> String {
    let rows: Vec<Vec<String>> = gs
        .armies
        .iter()
        .filter(|a| a.owner == name)
        .map(|a| {
            vec![
                a.id.to_string(),
                escape(&a.square.to_string()),
                escape(&plain(&a.dimension)),
                escape(&counted(a.units.iter().map(|u| u.kind))),
            ]
        })
        .collect();
    let head = ["Army group", "Square", "Dimension", "Units"];
    format!("<h2>Army groups</h2>\n{}", table(&head, &rows))
}

fn fleets(gs: &GameState, name: &str) -> String {
    let rows: Vec<Vec<String>> = gs
        .fleets
        .iter()
        .filter(|f| f.owner == name)
        .map(|f| {
            let cargo: Vec<String> = f.cargo.iter().map(u32::to_string).collect();
            vec![
                f.id.to_string(),
                escape(&f.square.to_string()),
                escape(&plain(&f.dimension)),
                escape(&counted(f.ships.iter().map(|s| s.kind))),
                escape(&or_dash(cargo.join(", "))),
            ]
        })
        .collect();
    let head = [
        "Fleet",
        "Square",
        "Dimension",
        "Ships",
        "Army groups aboard",
    ];
    format!("<h2>Fleets</h2>\n{}", table(&head, &rows))
}

fn spies(gs: &GameState, r: &Realm) -> String {
    let rows: Vec<Vec<String>> = gs
        .spies
        .iter()
        .filter(|s| s.owner == r.name)
        .map(|s| {
            vec![
                s.id.to_string(),
                escape(&s.realm),
                escape(&mission(&s.mission)),
                escape(&plain(&s.state)),
            ]
        })
        .collect();
    format!(
        "<h2>Spies</h2>\n<p>{} at home.</p>\n{}",
        r.spies,
        table(&["Spy", "In realm", "Mission", "State"], &rows)
    )
}

/// A spy's mission: its kind and target, if any.
fn mission<T: serde::Serialize>(m: &T) -> String {
    match serde_json::to_value(m) {
        Ok(serde_json::Value::Object(o)) => o
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) if k == "kind" => s.clone(),
                serde_json::Value::String(s) => format!("{k} {s}"),
                other => format!("{k} {other}"),
            })
            .collect::<Vec<_>>()
            .join(" "),
        _ => plain(m),
    }
}
