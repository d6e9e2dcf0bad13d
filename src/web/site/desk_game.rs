//! The GM's desk, the game's side: the week at a glance (`/gm`), the drafted Monday
//! results (`/gm/drafts`), every realm's state (`/gm/realms`, `/gm/realm/{name}`), the
//! whole map (`/gm/map`) and the season tools (`/gm/season`).
//!
//! Every page needs the GM's session; every button is a POST form carrying the
//! session's CSRF token and calls the same app function as its `gm` command, so the
//! desk and the terminal cannot disagree. A refusal is shown on the page it came from.

mod drafts;
mod map;
mod realms;
mod season;
mod week;

use std::fmt::Write;
use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use super::html;
use crate::app::{App, AppError};
use crate::game::GameState;

/// The pages and their buttons.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/gm", get(week::page))
        .route("/gm/drafts", get(drafts::page))
        .route("/gm/drafts/rollback", post(drafts::rollback))
        .route("/gm/drafts/resolve", post(drafts::resolve))
        .route("/gm/drafts/release", post(drafts::release))
        .route("/gm/drafts/results-hold", post(drafts::results_hold))
        .route("/gm/drafts/results-release", post(drafts::results_release))
        .route("/gm/realms", get(realms::list))
        .route("/gm/realm/{name}", get(realms::one))
        .route("/gm/map", get(map::page))
        .route("/gm/season", get(season::page))
        .route("/gm/season/pause", post(season::pause))
        .route("/gm/season/resume", post(season::resume))
        .route("/gm/season/extend", post(season::extend))
        .route("/gm/season/notice", post(season::notice))
        .route("/gm/season/absence", post(season::absence))
        .route("/gm/season/replace", post(season::replace))
        .route("/gm/season/address", post(season::address))
}

/// What a button did, shown above the page it returns to.
pub(crate) enum Done {
    /// It was done: what the command would have printed.
    Ok(String),
    /// It was refused (or failed): why, as the command would have said it.
    Refused(String),
}

impl Done {
    /// The outcome of an app call: `ok` describes success.
    fn of<T>(r: crate::app::Result<T>, ok: impl FnOnce(T) -> String) -> Done {
        match r {
            Ok(v) => Done::Ok(ok(v)),
            Err(e) => Done::Refused(e.to_string()),
        }
    }

    fn banner(&self) -> String {
        match self {
            Done::Ok(t) => format!("<p class=\"ok\" id=\"done\">{}</p>\n", html::escape(t)),
            Done::Refused(t) => {
                format!(
                    "<p class=\"error\" id=\"refused\">{}</p>\n",
                    html::escape(t)
                )
            }
        }
    }

    fn status(&self) -> StatusCode {
        match self {
            Done::Ok(_) => StatusCode::OK,
            Done::Refused(_) => StatusCode::UNPROCESSABLE_ENTITY,
        }
    }
}

/// A desk page, with what a button just did above it.
fn respond(title: &str, body: crate::app::Result<String>, done: Option<Done>) -> Response {
    let body = match body {
        Ok(b) => b,
        Err(e) => return failed(title, &e),
    };
    let banner = done.as_ref().map(Done::banner).unwrap_or_default();
    let status = done.as_ref().map_or(StatusCode::OK, Done::status);
    let page = html::page("en", title, html::DESK_NAV, &format!("{banner}{body}"));
    (status, page).into_response()
}

/// A page that could not be built: the error, escaped; 404 for what is not there (a
/// realm, a dimension), 500 otherwise.
fn failed(title: &str, e: &AppError) -> Response {
    let status = match e {
        AppError::Refused(_) => StatusCode::NOT_FOUND,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let body = format!("<p class=\"error\">{}</p>", html::escape(&e.to_string()));
    let page = html::page("en", title, html::DESK_NAV, &body);
    (status, page).into_response()
}

/// The state as it stands.
async fn state(app: &App) -> crate::app::Result<Arc<GameState>> {
    let mut conn = app.store.conn().await?;
    Ok(app.state(&mut conn).await?.1)
}

/// A realm's name as the state spells it (names compare folded, as in mail), or a
/// refusal that lists the realms.
fn canonical(gs: &GameState, name: &str) -> crate::app::Result<String> {
    let fold = crate::game::text::fold;
    let wanted = fold(name);
    gs.realm_names()
        .into_iter()
        .find(|n| fold(n) == wanted)
        .map(str::to_string)
        .ok_or_else(|| {
            AppError::Refused(format!(
                "no realm named {name}; realms: {}",
                gs.realm_names().join(", ")
            ))
        })
}

/// A POST form: `action` and `button` are plain text; `fields` is markup built from
/// escaped parts. The session's CSRF token goes with it.
fn form(action: &str, csrf: &str, fields: &str, button: &str) -> String {
    format!(
        "<form method=\"post\" action=\"{}\" class=\"inline\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{}\">{fields}\
         <button type=\"submit\">{}</button></form>\n",
        html::escape(action),
        html::escape(csrf),
        html::escape(button)
    )
}

/// A `<select name=…>` of every realm (with `first` as an empty choice when given).
fn realm_select(gs: &GameState, name: &str, first: Option<&str>) -> String {
    let mut out = format!("<select name=\"{}\">", html::escape(name));
    if let Some(label) = first {
        let _ = write!(out, "<option value=\"\">{}</option>", html::escape(label));
    }
    for r in &gs.realms {
        let n = html::escape(&r.name);
        let _ = write!(out, "<option value=\"{n}\">{n}</option>");
    }
    out.push_str("</select>");
    out
}

/// A list for a sentence: `a, b` or `-`.
fn list(v: &[String]) -> String {
    if v.is_empty() {
        "-".into()
    } else {
        v.join(", ")
    }
}

/// A value's JSON spelling, strings without their quotes (enum names, resources).
fn plain<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".into(),
    }
}

/// The non-empty form field, trimmed.
fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}
