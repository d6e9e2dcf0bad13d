//! `/gm`: the week at a glance — the round and phase, a pause, which realms sent their
//! weekend form (when it came, and its receipt: the orders accepted and each refused
//! line with its reason, linked to the form's message) and who is missing (between the
//! resolution and the results: of the weekend just resolved), and the next deadlines in
//! the game's time zone (the same list as the GM's report).

use std::fmt::Write;
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;

use super::{plain, respond};
use crate::app::{season_calendar, season_report, App, Result};
use crate::clock::from_ms;
use crate::game::state::Phase;
use crate::game::GameState;
use crate::web::site::auth::GmSession;
use crate::web::site::html::{escape, table};

pub(super) async fn page(_gm: GmSession, State(app): State<Arc<App>>) -> Response {
    respond("The week", body(&app).await, None)
}

async fn body(app: &App) -> Result<String> {
    let mut conn = app.store.conn().await?;
    let (version, gs) = app.state(&mut conn).await?;
    let mut out = format!(
        "<p>Round <strong id=\"round\">{}</strong>, phase <strong id=\"phase\">{}</strong> \
         (state version {version}); the game's time is {}.</p>\n",
        gs.round,
        escape(&plain(&gs.phase)),
        escape(&app.game_time(app.now()))
    );
    out.push_str(&pause_line(app, &gs));
    // Between the resolution and the results the state is in the next round already:
    // the forms that matter are those of the weekend just resolved.
    let (round, note) = match gs.phase {
        Phase::Resolving => (
            gs.round.saturating_sub(1),
            " (resolved; results not yet sent)",
        ),
        _ => (gs.round, ""),
    };
    let _ = writeln!(out, "<h2>Weekend forms of round {round}{note}</h2>");
    out.push_str(&forms(app, &mut conn, &gs, round).await?);
    out.push_str("<h2>Next deadlines</h2>\n");
    let rows: Vec<Vec<String>> = season_report::deadlines(app, app.now(), app.cfg.gm_language)
        .into_iter()
        .map(|(kind, when)| vec![escape(&kind), escape(&when)])
        .collect();
    if rows.is_empty() {
        out.push_str("<p>No schedule event in the next two weeks.</p>\n");
    } else {
        out.push_str(&table(&["Event", "When (game time)"], &rows));
    }
    Ok(out)
}

/// The pause in force, if any.
fn pause_line(app: &App, gs: &GameState) -> String {
    let Some(p) = &gs.calendar.pause else {
        return String::new();
    };
    let until = season_calendar::resume_at(gs).unwrap_or(p.until);
    let mut line = format!(
        "<p class=\"error\" id=\"paused\">The game is paused since {} until {}",
        escape(&app.game_time(p.since)),
        escape(&app.game_time(until))
    );
    if !p.reason.is_empty() {
        let _ = write!(line, ": {}", escape(&p.reason));
    }
    line.push_str(" (the season page resumes it).</p>\n");
    line
}

/// Every playing realm: its standing form of this round and when it came, or missing
/// (an absence marked).
async fn forms(
    app: &App,
    conn: &mut crate::store::Conn,
    gs: &GameState,
    round: u32,
) -> Result<String> {
    let mut rows = Vec::new();
    let (mut sent, mut missing) = (0, 0);
    for r in gs.realms.iter().filter(|r| !r.eliminated) {
        let standing = crate::store::forms::standing(conn, &r.name, i64::from(round)).await?;
        let away = r.season.absent_in(round);
        let (status, when) = match &standing {
            Some(f) => {
                sent += 1;
                ("sent".to_string(), app.game_time(from_ms(f.received_at)))
            }
            None if r.emails.is_empty() => ("no player".to_string(), String::new()),
            None => {
                missing += 1;
                let s = if away { "missing (away)" } else { "missing" };
                (s.to_string(), String::new())
            }
        };
        let receipt = standing
            .as_ref()
            .map_or_else(String::new, |f| receipt(app, f));
        let link = format!(
            "<a href=\"/gm/realm/{}\">{}</a>",
            escape(&crate::web::site::html::url_part(&r.name)),
            escape(&r.name)
        );
        let mut notes = Vec::new();
        if away {
            notes.push("away".to_string());
        }
        if r.season.seeking_replacement {
            notes.push("seeks a replacement".to_string());
        }
        if r.season.missed_in_row > 0 {
            notes.push(format!("missed {} in a row", r.season.missed_in_row));
        }
        let class = if standing.is_some() { "ok" } else { "error" };
        rows.push(vec![
            link,
            format!("<span class=\"{class}\">{}</span>", escape(&status)),
            escape(&when),
            receipt,
            escape(&notes.join("; ")),
        ]);
    }
    let mut out = format!("<p>{sent} sent, {missing} missing.</p>\n");
    out.push_str(&table(
        &["Realm", "Form", "Received", "Receipt", "Season"],
        &rows,
    ));
    Ok(out)
}

/// A standing form's receipt as the check gave it: the orders accepted and refused,
/// each refused line quoted with its reason in the GM's language, linked to the form's
/// message (its text and raw mail).
fn receipt(app: &App, f: &crate::store::forms::Standing) -> String {
    let checked: Option<crate::forms::Checked> = f
        .orders
        .as_deref()
        .and_then(|j| serde_json::from_str(j).ok());
    let link = format!("<a href=\"/gm/message/{0}\">message {0}</a>", f.message_id);
    let Some(c) = checked else {
        return link;
    };
    let mut out = if c.no_orders {
        format!("no orders on purpose; {link}")
    } else {
        format!(
            "<span class=\"receipt\">{} accepted, {} refused</span>; {link}",
            c.accepted(),
            c.refused()
        )
    };
    let refused: Vec<String> = c
        .lines
        .iter()
        .filter_map(|l| l.refusal.as_ref().map(|r| (l, r)))
        .map(|(l, r)| {
            format!(
                "<li><code>{}</code>: {}</li>",
                escape(&crate::web::site::desk::one_line(&l.text, 80)),
                escape(&r.text(app.cfg.gm_language))
            )
        })
        .collect();
    if !refused.is_empty() {
        let _ = write!(out, "<ul class=\"refused\">{}</ul>", refused.concat());
    }
    out
}
