//! The GM's own report (docs/gm/season.md, The GM's report): after each resolution — the
//! `resolve` event, or `gm resolve` after a rollback — the GM gets one mail with who
//! sent forms and when, who sent nothing, the battles and city changes, the VP
//! standings, what is parked or failed, and the next deadlines. `pbemd gm report`
//! prints the same text.
//!
//! Exactly once per resolution: the mail is queued in the resolution's own transaction
//! under the outbox key `gm_report:<resolution id>`, and its text is kept in the audit
//! event `gm_report` (which `gm report` prints), so a re-run tick adds nothing and the
//! command shows what the GM was sent.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use super::{App, AppError, Result};
use crate::clock::{self, from_ms};
use crate::game::event::{Event, What};
use crate::game::weekend::Orders;
use crate::game::GameState;
use crate::mail::compose::Outgoing;
use crate::render::season_report::{
    self as render, FailedLine, FormLine, ParkedLine, ReportView, StandingLine,
};
use crate::schedule::EventKind;
use crate::store::messages::{self, state};
use crate::store::resolutions::{self, Resolution};
use crate::store::{events, outbox, Conn};

/// The audit event that holds each report's text.
pub const EVENT: &str = "gm_report";

/// How far ahead the next deadlines are looked for.
const DEADLINE_HORIZON_DAYS: i64 = 15;

/// The schedule events the report lists, each at its next firing.
const DEADLINE_KINDS: [EventKind; 4] = [
    EventKind::Results,
    EventKind::WeekdayOpen,
    EventKind::FormClose,
    EventKind::Resolve,
];

fn json_err(e: serde_json::Error) -> AppError {
    AppError::BadState(e.to_string())
}

/// Mail the GM the report and keep its text in the audit log.
async fn send(app: &App, conn: &mut Conn, round: i64, id: i64, view: &ReportView) -> Result<()> {
    let lang = app.cfg.gm_language;
    let body = render::report(view, lang);
    let o = Outgoing {
        kind: "gm_report",
        dedup_key: format!("gm_report:{id}"),
        to: vec![app.cfg.gm_address.clone()],
        subject: render::subject(round, lang),
        body: body.clone(),
        in_reply_to: None,
    };
    let outbox_id = app.enqueue(conn, &o).await?;
    let d = json!({"resolution": id, "outbox": outbox_id, "lang": lang.code(), "body": body});
    let now = clock::to_ms(app.now());
    events::log(conn, now, round, EVENT, None, Some(id), &d.to_string()).await?;
    Ok(())
}

/// The report of round `round` (default: the latest round resolved) as the GM was
/// mailed it: `(round, text)`. Refused when the round has no standing resolution.
pub async fn text(app: &App, round: Option<i64>) -> Result<(i64, String)> {
    let mut conn = app.store.conn().await?;
    let res = which(&mut conn, round).await?;
    let stored = events::filtered(&mut conn, None, Some(res.round))
        .await?
        .into_iter()
        .rfind(|e| e.kind == EVENT && e.ref_id == Some(res.id));
    if let Some(e) = stored {
        let d: serde_json::Value = serde_json::from_str(&e.detail).map_err(json_err)?;
        if let Some(body) = d["body"].as_str() {
            return Ok((res.round, body.to_string()));
        }
    }
    // A round resolved before the report existed: written now from what is stored.
    let view = gather(app, &mut conn, &res, from_ms(res.created_at)).await?;
    Ok((res.round, render::report(&view, app.cfg.gm_language)))
}

/// The standing resolution of `round`, or of the latest round resolved.
async fn which(conn: &mut Conn, round: Option<i64>) -> Result<Resolution> {
    let latest = match round {
        Some(n) => Some(n),
        None => resolutions::latest(conn)
            .await?
            .map(|r| match r.rolled_back_at {
                None => r.round,
                Some(_) => r.round.saturating_sub(1),
            }),
    };
    let Some(round) = latest.filter(|n| round.is_some() || *n >= 1) else {
        return Err(AppError::Refused(
            "no round has been resolved yet: the GM's report comes with the first resolution"
                .into(),
        ));
    };
    if let Some(r) = resolutions::standing(conn, round).await? {
        return Ok(r);
    }
    let why = match resolutions::latest_of(conn, round).await? {
        Some(_) => format!(
            "round {round} has no resolution: it was rolled back and not resolved again \
             (`pbemd gm resolve` resolves it)"
        ),
        None => {
            format!("round {round} has no resolution (`pbemd gm log` shows the rounds resolved)")
        }
    };
    Err(AppError::Refused(why))
}

/// Everything the report tells about resolution `res`, deadlines after `at`.
async fn gather(
    app: &App,
    conn: &mut Conn,
    res: &Resolution,
    at: DateTime<Utc>,
) -> Result<ReportView> {
    let base = crate::store::state::get(conn, res.base_version)
        .await?
        .ok_or_else(|| AppError::BadState(format!("state version {} is gone", res.base_version)))?;
    let base: GameState = serde_json::from_str(&base.doc).map_err(json_err)?;
    let after: GameState = serde_json::from_str(&res.output_state).map_err(json_err)?;
    let orders: Orders = serde_json::from_str(&res.orders).map_err(json_err)?;
    let events: Vec<Event> = serde_json::from_str(&res.events).map_err(json_err)?;
    let w = Weekend {
        round: res.round,
        id: res.id,
        created_at: res.created_at,
        base: &base,
        after: &after,
        orders: &orders,
        events: &events,
    };
    gather_from(app, conn, &w, at).await
}

/// A resolution as the engine left it in memory (the report of a resolution just made
/// reads nothing back from the store).
pub struct Weekend<'a> {
    pub round: i64,
    /// The resolution row's id.
    pub id: i64,
    /// When it was stored (ms).
    pub created_at: i64,
    pub base: &'a GameState,
    pub after: &'a GameState,
    pub orders: &'a Orders,
    pub events: &'a [Event],
}

/// Queue the GM's report of a resolution just made, from what the engine returned,
/// inside the transaction that stores it (so exactly once); the next deadlines are
/// those after `at` (the `resolve` event's instant, or the game's time for `gm resolve`).
pub async fn queue_fresh(
    app: &App,
    conn: &mut Conn,
    w: &Weekend<'_>,
    at: DateTime<Utc>,
) -> Result<()> {
    let view = gather_from(app, conn, w, at).await?;
    send(app, conn, w.round, w.id, &view).await
}

async fn gather_from(
    app: &App,
    conn: &mut Conn,
    w: &Weekend<'_>,
    at: DateTime<Utc>,
) -> Result<ReportView> {
    let lang = app.cfg.gm_language;
    let reused = reused_forms(conn, w.round).await?;
    let forms: Vec<FormLine> = w
        .orders
        .forms
        .iter()
        .map(|f| FormLine {
            realm: f.realm.clone(),
            received: app.game_time(f.received_at),
            orders: f.orders.len(),
            reused: reused.contains(&f.realm),
        })
        .collect();
    let sent: HashSet<&str> = w.orders.forms.iter().map(|f| f.realm.as_str()).collect();
    let missing = w
        .base
        .realms
        .iter()
        .filter(|r| !r.emails.is_empty() && !r.eliminated && !sent.contains(r.name.as_str()))
        .map(|r| match r.season.absent_in(w.base.round) {
            // An absence the realm announced (docs/gm/season.md).
            true if lang == crate::game::Lang::Sv => format!("{} (frånvarande)", r.name),
            true => format!("{} (away)", r.name),
            false => r.name.clone(),
        })
        .collect();
    let (parked, failed, waiting) = trouble(conn).await?;
    // Only battles and city changes are told: the rest is not copied.
    let events = w
        .events
        .iter()
        .filter(|e| matches!(e.what, What::Military(_)))
        .cloned()
        .collect();
    Ok(ReportView {
        round: w.round,
        resolution: w.id,
        resolved_at: app.game_time(from_ms(w.created_at)),
        forms,
        missing,
        events,
        standings: standings(w.base, w.after),
        parked,
        failed,
        waiting,
        deadlines: deadlines(app, at, lang),
    })
}

/// Realms whose form of `round` was last round's, reused at the deadline.
async fn reused_forms(conn: &mut Conn, round: i64) -> Result<HashSet<String>> {
    Ok(events::filtered(conn, None, Some(round))
        .await?
        .into_iter()
        .filter(|e| e.kind == "form_reused")
        .filter_map(|e| e.realm)
        .collect())
}

/// Every realm still in the game, most VP first (then by name), with its change over
/// the weekend.
fn standings(base: &GameState, after: &GameState) -> Vec<StandingLine> {
    let before: HashMap<&str, i64> = base
        .realms
        .iter()
        .map(|r| (r.name.as_str(), r.vp))
        .collect();
    let mut out: Vec<StandingLine> = after
        .realms
        .iter()
        .filter(|r| !r.eliminated)
        .map(|r| StandingLine {
            realm: r.name.clone(),
            vp: r.vp,
            change: r
                .vp
                .saturating_sub(before.get(r.name.as_str()).copied().unwrap_or(0)),
        })
        .collect();
    out.sort_by(|a, b| b.vp.cmp(&a.vp).then_with(|| a.realm.cmp(&b.realm)));
    out
}

/// Parked units of work, outgoing mail that failed or is retried, and how many
/// messages wait in the GM queue.
async fn trouble(conn: &mut Conn) -> Result<(Vec<ParkedLine>, Vec<FailedLine>, usize)> {
    let parked = messages::in_states(conn, &[state::PARKED])
        .await?
        .into_iter()
        .map(|m| ParkedLine {
            id: m.id,
            kind: m.kind,
            who: m
                .realm
                .or(m.from_addr)
                .map_or("-".into(), |w| one_line(&w, 60)),
            subject: one_line(&m.subject, 60),
        })
        .collect();
    let failed = outbox::failed_or_retrying(conn)
        .await?
        .into_iter()
        .map(|f| FailedLine {
            id: f.id,
            kind: f.kind,
            to: one_line(&f.to_addrs, 80),
            state: f.state,
            attempts: f.attempts,
            error: one_line(f.last_error.as_deref().unwrap_or(""), 80),
        })
        .collect();
    let waiting = messages::in_states(conn, &[state::GM_QUEUE, state::HELD])
        .await?
        .len();
    Ok((parked, failed, waiting))
}

/// The next firing after `at` of each deadline the report lists, earliest first.
pub fn deadlines(app: &App, at: DateTime<Utc>, lang: crate::game::Lang) -> Vec<(String, String)> {
    let until = at
        .checked_add_signed(Duration::days(DEADLINE_HORIZON_DAYS))
        .unwrap_or(at);
    let mut seen = HashSet::new();
    app.schedule
        .due(at, until)
        .into_iter()
        .filter(|d| DEADLINE_KINDS.contains(&d.kind) && seen.insert(d.kind))
        .map(|d| (d.kind.as_str().to_string(), app.local(d.at, lang)))
        .collect()
}

/// Player text on one line: control characters become spaces, at most `max`
/// characters (then `…`).
fn one_line(s: &str, max: usize) -> String {
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() > max {
        let cut: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn player_text_in_the_report_is_one_short_line() {
        assert_eq!(one_line("a\r\nb\x1bc", 60), "a  b c");
        assert_eq!(
            one_line(&"x".repeat(100), 10),
            format!("{}…", "x".repeat(9))
        );
    }
}
