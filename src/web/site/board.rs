//! The public trade board (`/board`, no login): every playing realm's two resources
//! to buy and two to sell (R-RES-3), the round and the next deadlines in the game's
//! time zone, and the summary of the order grammar the forms use. Nothing else about
//! any realm. `?lang=en` for English (Swedish by default).

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;

use super::html::{escape, page, table};
use crate::app::{site_player, App};
use crate::forms::grammar::ORDER_TABLE;
use crate::game::{Lang, Resource};

pub fn routes() -> Router<Arc<App>> {
    Router::new().route("/board", get(board))
}

#[derive(Deserialize)]
struct BoardQuery {
    #[serde(default)]
    lang: Option<String>,
}

fn t(lang: Lang, sv: &'static str, en: &'static str) -> &'static str {
    match lang {
        Lang::Sv => sv,
        Lang::En => en,
    }
}

fn names(list: &[Resource], lang: Lang) -> String {
    let names: Vec<&str> = list.iter().map(|r| r.name(lang)).collect();
    escape(&names.join(", "))
}

async fn board(State(app): State<Arc<App>>, Query(q): Query<BoardQuery>) -> Response {
    let lang = match q.lang.as_deref() {
        Some("en") => Lang::En,
        _ => Lang::Sv,
    };
    let now = app.now();
    let b = match site_player::board(&app, now).await {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(error = %e, "the trade board failed");
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                "the trade board is not available",
            )
                .into_response();
        }
    };
    let mut body = deadlines(&app, &b, lang);
    let rows: Vec<Vec<String>> = b
        .rows
        .iter()
        .map(|r| vec![escape(&r.realm), names(&r.buy, lang), names(&r.sell, lang)])
        .collect();
    let head = match lang {
        Lang::Sv => ["Land", "Vill köpa", "Vill sälja"],
        Lang::En => ["Realm", "Wants to buy", "Wants to sell"],
    };
    body.push_str(&table(&head, &rows));
    body.push_str(&grammar(lang));
    let nav: [(&str, &str); 1] = match lang {
        Lang::Sv => [("/board?lang=en", "English")],
        Lang::En => [("/board?lang=sv", "Svenska")],
    };
    page(
        lang.code(),
        t(lang, "Handelstavlan", "The trade board"),
        &nav,
        &body,
    )
    .into_response()
}

/// The round and the next deadlines, in the game's time zone.
fn deadlines(app: &App, b: &site_player::Board, lang: Lang) -> String {
    let when = |t: Option<chrono::DateTime<chrono::Utc>>| {
        t.map(|t| escape(&app.local(t, lang)))
            .unwrap_or_else(|| "–".into())
    };
    let tz = app.schedule.timezone();
    format!(
        "<p>{} <strong id=\"round\">{}</strong></p>\n<ul>\n\
         <li>{}: {}</li>\n<li>{}: {}</li>\n<li>{}: {}</li>\n</ul>\n<p>{} {}</p>\n",
        t(lang, "Omgång", "Round"),
        b.round,
        t(
            lang,
            "Budbärare, spioner och köpmän till",
            "Envoys, spies and merchants until"
        ),
        when(b.weekday_close),
        t(lang, "Helgformuläret senast", "Weekend form deadline"),
        when(b.form_deadline),
        t(lang, "Nästa resultat", "Next results"),
        when(b.results),
        t(
            lang,
            "Tider i spelets tidszon:",
            "Times in the game's time zone:"
        ),
        escape(tz.name()),
    )
}

/// The order grammar summary: keyword, shape and example of every order.
fn grammar(lang: Lang) -> String {
    let rows: Vec<Vec<String>> = ORDER_TABLE
        .iter()
        .map(|o| {
            let (form, example) = match lang {
                Lang::Sv => (o.form_sv, o.example_sv),
                Lang::En => (o.form_en, o.example_en),
            };
            vec![
                format!("<code>{}</code>", escape(form)),
                format!("<code>{}</code>", escape(example)),
            ]
        })
        .collect();
    let head = match lang {
        Lang::Sv => ["Order", "Exempel"],
        Lang::En => ["Order", "Example"],
    };
    format!(
        "<h2>{}</h2>\n<p>{}</p>\n{}",
        t(lang, "Ordrarna i helgformuläret", "The orders of the weekend form"),
        t(
            lang,
            "En order per rad mellan formulärets två markeringsrader. Nyckelorden går att skriva på svenska eller engelska.",
            "One order per line between the form's two marker lines. Keywords may be written in Swedish or English."
        ),
        table(&head, &rows)
    )
}
