//! `/gm/season`: the season tools, each a form calling the same app function as its
//! `gm` command — pause and resume, extend, notice, a realm's absence, replacing a
//! player, adding and removing an address. Refusals are shown on the page.

use std::fmt::Write;
use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Form;
use serde::Deserialize;

use super::{canonical, form, given, list, realm_select, respond, state, Done};
use crate::app::season_calendar as cal;
use crate::app::{season_notices, season_realms, sender, App, AppError, Result};
use crate::web::site::auth::{check_csrf, GmSession};
use crate::web::site::html::escape;

const TITLE: &str = "Season";

pub(super) async fn page(gm: GmSession, State(app): State<Arc<App>>) -> Response {
    respond(TITLE, body(&app, &gm.csrf).await, None)
}

async fn body(app: &App, csrf: &str) -> Result<String> {
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    let mut out = match &gs.calendar.pause {
        Some(p) => format!(
            "<p class=\"error\" id=\"paused\">Paused since {} until {}{}.</p>\n",
            escape(&app.game_time(p.since)),
            escape(&app.game_time(p.until)),
            if p.reason.is_empty() {
                String::new()
            } else {
                format!(": {}", escape(&p.reason))
            }
        ),
        None => "<p id=\"running\">The game runs.</p>\n".to_string(),
    };
    let waiting = crate::store::notices::for_round(&mut conn, gs.round as i64).await?;
    for n in waiting.iter().filter(|n| n.printed_round.is_none()) {
        let _ = writeln!(
            out,
            "<p>Notice {} for {} waits for the next Monday forms: <q>{}</q></p>",
            n.id,
            escape(n.realm.as_deref().unwrap_or("every realm")),
            escape(&n.text)
        );
    }
    out.push_str(&tools(&gs, csrf));
    Ok(out)
}

/// The forms, one per `gm` command.
fn tools(gs: &crate::game::GameState, csrf: &str) -> String {
    let mut out = String::new();
    for (heading, action, fields, button) in &tool_list(gs) {
        if let Some(h) = heading {
            let _ = writeln!(out, "<h2>{}</h2>", escape(h));
        }
        let _ = writeln!(
            out,
            "<div class=\"tool\">{}</div>",
            form(action, csrf, fields, button)
        );
    }
    out
}

/// A season tool: the heading above it, its URL, its fields (markup), its button.
type Tool = (Option<&'static str>, &'static str, String, &'static str);

fn tool_list(gs: &crate::game::GameState) -> [Tool; 7] {
    let every = realm_select(gs, "realm", Some("every realm"));
    let one = realm_select(gs, "realm", None);
    let text = |name: &str, label: &str| {
        format!("<label>{label} <input type=\"text\" name=\"{name}\"></label> ")
    };
    let until = "until (YYYY-MM-DD or RFC 3339, empty: the longest pause)";
    let notice = "<label>text <textarea name=\"text\" rows=\"2\" cols=\"50\"></textarea>\
                  </label> <label><input type=\"checkbox\" name=\"now\" value=\"1\"> mail it \
                  now (--now)</label> ";
    let op = "<select name=\"op\"><option value=\"add\">add</option>\
              <option value=\"remove\">remove</option></select> ";
    [
        (
            Some("Pause and resume"),
            "/gm/season/pause",
            format!("{}{}", text("until", until), text("reason", "reason")),
            "Pause (gm pause)",
        ),
        (
            None,
            "/gm/season/resume",
            String::new(),
            "Resume (gm resume)",
        ),
        (
            Some("Extend this weekend's deadline"),
            "/gm/season/extend",
            format!("{every} {}", text("hours", "hours")),
            "Extend (gm extend)",
        ),
        (
            Some("Notice"),
            "/gm/season/notice",
            format!("{every} {notice}"),
            "Give notice (gm notice)",
        ),
        (
            Some("A realm"),
            "/gm/season/absence",
            format!("{one} {}", text("weekends", "weekends (0 ends it)")),
            "Grant absence (gm realm NAME absence N)",
        ),
        (
            None,
            "/gm/season/replace",
            format!(
                "{one} {}{}",
                text("address", "new address"),
                text("display", "player's name")
            ),
            "Replace the player (gm realm NAME replace)",
        ),
        (
            None,
            "/gm/season/address",
            format!("{one} {op}{}", text("address", "address")),
            "Change addresses (gm realm NAME address)",
        ),
    ]
}

/// Check the token, do `act`, send what it queued, show the page with its outcome.
async fn act<F, Fut>(gm: GmSession, app: Arc<App>, csrf: Option<&str>, f: F) -> Response
where
    F: FnOnce(Arc<App>) -> Fut,
    Fut: std::future::Future<Output = Result<String>>,
{
    if let Err(r) = check_csrf(&gm.csrf, csrf) {
        return r.into_response();
    }
    let mut done = Done::of(f(app.clone()).await, |s| s);
    if let Done::Ok(_) = done {
        if let Err(e) = sender::flush_all(&app).await {
            done = Done::Refused(e.to_string());
        }
    }
    respond(TITLE, body(&app, &gm.csrf).await, Some(done))
}

/// The named realm as the state spells it.
async fn realm_of(app: &App, name: Option<&str>) -> Result<Option<String>> {
    match name {
        None => Ok(None),
        Some(n) => Ok(Some(canonical(&*state(app).await?, n)?)),
    }
}

/// A required realm.
async fn the_realm(app: &App, name: &Option<String>) -> Result<String> {
    realm_of(app, given(name))
        .await?
        .ok_or_else(|| AppError::Refused("choose a realm".into()))
}

/// A whole number field, refused (quoted) when it is not one.
fn number(field: &str, v: &Option<String>) -> Result<u32> {
    let s = given(v).unwrap_or("");
    s.parse()
        .map_err(|_| AppError::Refused(format!("{field} must be a whole number; got `{s}`")))
}

#[derive(Debug, Deserialize)]
pub(super) struct PauseForm {
    csrf: Option<String>,
    until: Option<String>,
    reason: Option<String>,
}

pub(super) async fn pause(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<PauseForm>,
) -> Response {
    let csrf = f.csrf.clone();
    act(gm, app, csrf.as_deref(), |app| async move {
        let tz = app.schedule.timezone();
        let until = given(&f.until)
            .map(|u| cal::parse_until(u, tz))
            .transpose()?;
        let reason = f.reason.as_deref().unwrap_or("");
        let p = cal::pause(&app, until, reason, None).await?;
        Ok(format!(
            "the game is paused from {} until {}; told: {}",
            app.game_time(p.since),
            app.game_time(p.until),
            list(&p.told)
        ))
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct CsrfOnly {
    csrf: Option<String>,
}

pub(super) async fn resume(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<CsrfOnly>,
) -> Response {
    act(gm, app, f.csrf.as_deref(), |app| async move {
        let r = cal::resume(&app, None).await?;
        let minutes = cal::wall_minutes(&app, r.since, r.resumed_at);
        Ok(format!(
            "the game resumes at {} after a pause of {} h {:02} min; next form deadline {}; \
             told: {}",
            app.game_time(r.resumed_at),
            minutes / 60,
            minutes % 60,
            r.deadline.map_or("-".into(), |d| app.game_time(d)),
            list(&r.told)
        ))
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct ExtendForm {
    csrf: Option<String>,
    realm: Option<String>,
    hours: Option<String>,
}

pub(super) async fn extend(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<ExtendForm>,
) -> Response {
    let csrf = f.csrf.clone();
    act(gm, app, csrf.as_deref(), |app| async move {
        let hours = number("hours", &f.hours)?;
        let realm = realm_of(&app, given(&f.realm)).await?;
        let e = cal::extend(&app, realm.as_deref(), hours, None).await?;
        let whom = realm.map_or("every realm".to_string(), |r| format!("{r}'s form"));
        Ok(format!(
            "deadline {} extended for {whom} until {}; told: {}",
            app.game_time(e.deadline),
            app.game_time(e.until),
            list(&e.told)
        ))
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct NoticeForm {
    csrf: Option<String>,
    realm: Option<String>,
    text: Option<String>,
    now: Option<String>,
}

pub(super) async fn notice(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<NoticeForm>,
) -> Response {
    let csrf = f.csrf.clone();
    act(gm, app, csrf.as_deref(), |app| async move {
        let realm = realm_of(&app, given(&f.realm)).await?;
        let text = f.text.as_deref().unwrap_or("");
        let g = season_notices::give(&app, realm.as_deref(), text, f.now.is_some()).await?;
        let who = g.realms.join(", ");
        Ok(if g.mailed {
            format!("notice {} mailed now to {who}", g.id)
        } else {
            format!("notice {} waits for the next Monday forms of {who}", g.id)
        })
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct AbsenceForm {
    csrf: Option<String>,
    realm: Option<String>,
    weekends: Option<String>,
}

pub(super) async fn absence(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<AbsenceForm>,
) -> Response {
    let csrf = f.csrf.clone();
    act(gm, app, csrf.as_deref(), |app| async move {
        let realm = the_realm(&app, &f.realm).await?;
        let n = number("weekends", &f.weekends)?;
        Ok(match season_realms::gm_absence(&app, &realm, n).await? {
            Some(a) => format!(
                "{realm} is away for rounds {}–{}; the realm was told",
                a.from_round, a.to_round
            ),
            None => format!("{realm}'s absence is ended"),
        })
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct ReplaceForm {
    csrf: Option<String>,
    realm: Option<String>,
    address: Option<String>,
    display: Option<String>,
}

pub(super) async fn replace(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<ReplaceForm>,
) -> Response {
    let csrf = f.csrf.clone();
    act(gm, app, csrf.as_deref(), |app| async move {
        let realm = the_realm(&app, &f.realm).await?;
        let address = f.address.as_deref().unwrap_or("");
        let r = season_realms::replace(&app, &realm, address, given(&f.display)).await?;
        Ok(format!(
            "{realm} is now played from {address} (state version {}); the old address(es) \
             {} are no longer the realm's; the current form was mailed to the new player",
            r.state_version,
            r.old.join(", ")
        ))
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct AddressForm {
    csrf: Option<String>,
    realm: Option<String>,
    op: Option<String>,
    address: Option<String>,
}

pub(super) async fn address(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<AddressForm>,
) -> Response {
    let csrf = f.csrf.clone();
    act(gm, app, csrf.as_deref(), |app| async move {
        let realm = the_realm(&app, &f.realm).await?;
        let address = f.address.as_deref().unwrap_or("");
        match f.op.as_deref().map(str::trim) {
            Some("add") => {
                season_realms::address_add(&app, &realm, address).await?;
                Ok(format!(
                    "{address} is now also {realm}'s address; the realm was told"
                ))
            }
            Some("remove") => {
                season_realms::address_remove(&app, &realm, address).await?;
                Ok(format!(
                    "{address} is no longer {realm}'s address; mail from it is now from an \
                     unknown sender"
                ))
            }
            other => Err(AppError::Refused(format!(
                "the address change must be add or remove; got `{}`",
                other.unwrap_or("")
            ))),
        }
    })
    .await
}
