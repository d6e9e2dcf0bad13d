//! One message on the GM's desk (`/gm/message/{id}`), as `pbemd gm show` prints it:
//! its facts, the classified text, what happened to it (its audit trail), the actions
//! its state allows, an edit form, for a realm's mail to the GM an answer form, and
//! the raw mail — every part escaped.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::auth::{self, Client, GmSession};
use super::desk::{actions, failed, who};
use super::html;
use crate::app::desk::MessageView;
use crate::app::{desk, App, AppError};
use crate::clock::from_ms;
use crate::store::messages::state;

/// The most of a raw mail the page shows.
const RAW_SHOWN: usize = 64 * 1024;

pub async fn message_page(
    State(app): State<Arc<App>>,
    s: GmSession,
    client: Client,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Response {
    let view = match desk::message(&app, id).await {
        Ok(v) => v,
        Err(AppError::Refused(why)) => {
            let body = format!("<p class=\"error\">{}</p>", html::escape(&why));
            let page = html::page("en", "No such message", html::DESK_NAV, &body);
            return (StatusCode::NOT_FOUND, page).into_response();
        }
        Err(e) => return failed(&e),
    };
    let flash = auth::take_flash(&app, &client, &headers).await;
    let mut body = auth::flash_html(&flash);
    body.push_str(&facts(&app, &view));
    let acts = actions(&s.csrf, &view.message, "message");
    if !acts.is_empty() {
        body.push_str(&format!("<p id=\"actions\">{acts}</p>\n"));
    }
    body.push_str(&format!(
        "<h2>Classified text</h2>\n<pre id=\"body\">{}</pre>\n",
        html::escape(&view.message.body)
    ));
    body.push_str(&answer_form(&s.csrf, &view));
    body.push_str(&edit_form(&s.csrf, &view));
    body.push_str(&trail(&app, &view));
    body.push_str(&raw(&view));
    let title = format!("Message {id}");
    auth::page_clearing_flash(html::page("en", &title, html::DESK_NAV, &body), &flash)
}

fn facts(app: &App, v: &MessageView) -> String {
    let m = &v.message;
    let mut rows = vec![
        ("Kind", m.kind.clone()),
        ("State", m.state.clone()),
        ("Received", app.game_time(from_ms(m.created_at))),
        ("From", m.from_addr.clone().unwrap_or_else(|| "-".into())),
        ("Realm", who(m)),
        ("Round", m.round.to_string()),
        ("Subject", m.subject.clone()),
    ];
    if let Some(r) = &m.reason {
        let label = if m.state == state::PARKED {
            "Error"
        } else {
            "Reason"
        };
        rows.push((label, r.clone()));
    }
    let mut out = String::from("<table id=\"facts\"><tbody>\n");
    for (k, v) in rows {
        out.push_str(&format!(
            "<tr><th>{}</th><td>{}</td></tr>\n",
            html::escape(k),
            html::escape(&v)
        ));
    }
    out.push_str("</tbody></table>\n");
    out
}

/// The edit form, for the messages `gm edit` takes: held or queued ones and weekend
/// forms (the app refuses a form that is not the standing one of an open round).
fn edit_form(csrf: &str, v: &MessageView) -> String {
    let m = &v.message;
    let editable = matches!(m.state.as_str(), state::HELD | state::QUEUED) || m.kind == "form";
    if !editable {
        return String::new();
    }
    format!(
        "<h2 id=\"edit\">Correct the text</h2>\n\
         <form method=\"post\" action=\"/gm/queue/{id}/edit\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
         <input type=\"hidden\" name=\"back\" value=\"message\">\
         <textarea name=\"text\" rows=\"12\" cols=\"80\">{text}</textarea><br>\
         <button type=\"submit\" id=\"edit-{id}\">Save the corrected text</button></form>\n",
        id = m.id,
        csrf = html::escape(csrf),
        text = html::escape(&m.body),
    )
}

/// The answer form, for a realm's mail to the GM (`gm answer`): waiting, or answered
/// or closed already (a second answer adds to the first).
fn answer_form(csrf: &str, v: &MessageView) -> String {
    let m = &v.message;
    let open = matches!(
        m.state.as_str(),
        state::GM_QUEUE | state::ANSWERED | state::DONE
    );
    if m.kind != crate::app::gm::TO_GM || !open {
        return String::new();
    }
    let realm = m.realm.as_deref().unwrap_or("the realm");
    let again = if m.state == state::GM_QUEUE {
        ""
    } else {
        " (it was answered or closed before; this is one more answer)"
    };
    format!(
        "<h2 id=\"answer\">Answer {realm}</h2>\n\
         <p>The text goes to every address of {realm}, from the game's address, in the \
         realm's language{again}.</p>\n\
         <form method=\"post\" action=\"/gm/queue/{id}/answer\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
         <input type=\"hidden\" name=\"back\" value=\"message\">\
         <textarea name=\"text\" rows=\"12\" cols=\"80\" required></textarea><br>\
         <button type=\"submit\" id=\"answer-{id}\">Send the answer</button></form>\n",
        id = m.id,
        realm = html::escape(realm),
        csrf = html::escape(csrf),
    )
}

fn trail(app: &App, v: &MessageView) -> String {
    if v.trail.is_empty() {
        return "<h2>What happened</h2>\n<p>Nothing yet beyond its state.</p>\n".into();
    }
    let rows: Vec<Vec<String>> = v
        .trail
        .iter()
        .map(|e| {
            vec![
                html::escape(&app.game_time(from_ms(e.at))),
                html::escape(&e.kind),
                html::escape(e.realm.as_deref().unwrap_or("-")),
                super::desk::detail_cell(&e.detail, 400),
            ]
        })
        .collect();
    format!(
        "<h2>What happened</h2>\n<div id=\"trail\">{}</div>",
        html::table(&["When", "What", "Realm", "Detail"], &rows)
    )
}

fn raw(v: &MessageView) -> String {
    let Some(raw) = &v.raw else {
        return String::new();
    };
    let shown = &raw[..raw.len().min(RAW_SHOWN)];
    let text = String::from_utf8_lossy(shown).replace("\r\n", "\n");
    let cut = if raw.len() > RAW_SHOWN {
        format!(" (the first {RAW_SHOWN} shown)")
    } else {
        String::new()
    };
    format!(
        "<h2>Raw mail ({} bytes{cut})</h2>\n<pre id=\"raw\">{}</pre>\n",
        raw.len(),
        html::escape(&text)
    )
}
