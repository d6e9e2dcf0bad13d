//! The GM's desk, part A: the review queue (`/gm/queue`) with its actions, one message
//! (`/gm/message/{id}`) and the audit log (`/gm/audit`, in [`super::desk_audit`]).
//!
//! Every action is a POST form carrying the session's CSRF token and calls the same app
//! function as the matching `pbemd gm` command (approve, reject, hold, edit, retry,
//! answer, done, release, retry-mail); its result comes back on the next page as a one-time message. Everything
//! a player wrote goes through [`html::escape`].

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Router};

use super::auth::{self, check_csrf, Client, GmSession};
use super::html;
use crate::app::{desk, App, AppError};
use crate::clock::from_ms;
use crate::store::messages::{state, Message};

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/gm/queue", get(queue_page))
        .route("/gm/queue/release", post(release))
        .route("/gm/queue/{id}/{action}", post(act))
        .route("/gm/outbox/{id}/retry", post(retry_mail))
        .route("/gm/message/{id}", get(super::desk_message::message_page))
        .route("/gm/audit", get(super::desk_audit::audit_page))
}

/// A store or app failure as a page (the details go to the log, not the browser).
pub fn failed(e: &AppError) -> Response {
    tracing::error!(error = %e, "a desk page failed");
    let body = "<p class=\"error\">The database did not answer; try again.</p>";
    let page = html::page("en", "Error", html::DESK_NAV, body);
    (StatusCode::SERVICE_UNAVAILABLE, page).into_response()
}

#[derive(Debug, serde::Deserialize)]
pub struct QueueQuery {
    pub all: Option<String>,
}

async fn queue_page(
    State(app): State<Arc<App>>,
    s: GmSession,
    client: Client,
    headers: HeaderMap,
    Query(q): Query<QueueQuery>,
) -> Response {
    let all = q.all.is_some_and(|a| a == "1");
    let queue = match desk::queue(&app, all).await {
        Ok(queue) => queue,
        Err(e) => return failed(&e),
    };
    let flash = auth::take_flash(&app, &client, &headers).await;
    let mut body = auth::flash_html(&flash);
    body.push_str(&messages_table(&app, &s.csrf, &queue.messages));
    body.push_str(if all {
        "<p><a href=\"/gm/queue\">Hide refused messages</a></p>\n"
    } else {
        "<p><a href=\"/gm/queue?all=1\">Also show refused messages</a></p>\n"
    });
    body.push_str(&held_replies(&app, &s.csrf, &queue.held_replies));
    body.push_str(&undelivered(&app, &s.csrf, &queue.undelivered));
    let page = html::page("en", "Review queue", html::DESK_NAV, &body);
    auth::page_clearing_flash(page, &flash)
}

/// The most messages one queue page lists (a flood stays a page, not megabytes).
pub const MAX_ROWS: usize = 500;

fn messages_table(app: &App, csrf: &str, items: &[Message]) -> String {
    if items.is_empty() {
        return "<p id=\"queue-empty\">The GM queue is empty.</p>\n".into();
    }
    let rows: Vec<Vec<String>> = items
        .iter()
        .take(MAX_ROWS)
        .map(|m| {
            vec![
                format!("<a href=\"/gm/message/{0}\">{0}</a>", m.id),
                html::escape(&m.state),
                html::escape(&m.kind),
                html::escape(&who(m)),
                m.round.to_string(),
                html::escape(&app.game_time(from_ms(m.created_at))),
                html::escape(&one_line(&m.subject, 80)),
                html::escape(&one_line(&m.body, 160)),
                actions(csrf, m, "queue"),
            ]
        })
        .collect();
    let head = [
        "Id", "State", "Kind", "Who", "Round", "Received", "Subject", "Text", "Actions",
    ];
    let more = match items.len().saturating_sub(MAX_ROWS) {
        0 => String::new(),
        n => format!(
            "<p class=\"error\">{n} more not shown (oldest first): act on these first.</p>\n"
        ),
    };
    format!(
        "<div id=\"queue\">{}</div>{more}",
        html::table(&head, &rows)
    )
}

/// The action forms that fit message `m`'s state. `back` is where the result is shown:
/// `queue` or `message`.
pub fn actions(csrf: &str, m: &Message, back: &str) -> String {
    let form = |action: &str, inner: &str, label: &str| {
        format!(
            "<form class=\"inline\" method=\"post\" action=\"/gm/queue/{id}/{action}\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <input type=\"hidden\" name=\"back\" value=\"{back}\">{inner}\
             <button type=\"submit\" id=\"{action}-{id}\">{label}</button></form> ",
            id = m.id,
            csrf = html::escape(csrf),
            back = html::escape(back),
        )
    };
    let reject = form(
        "reject",
        &format!(
            "<input name=\"reason\" id=\"reason-{}\" placeholder=\"reason for the sender\" required> ",
            m.id
        ),
        "Reject",
    );
    let edit = format!("<a href=\"/gm/message/{}#edit\">Edit</a>", m.id);
    match m.state.as_str() {
        state::HELD => format!(
            "{}{reject}{edit}",
            form(
                "approve",
                "<label><input type=\"checkbox\" name=\"now\" value=\"1\" checked> decide now</label> ",
                "Approve"
            )
        ),
        state::QUEUED => format!("{}{reject}{edit}", form("hold", "", "Hold")),
        state::PARKED => format!("{}{reject}", form("retry", "", "Retry")),
        state::GM_QUEUE if m.kind == crate::app::gm::TO_GM => format!(
            "<a href=\"/gm/message/{}#answer\">Answer</a> {}",
            m.id,
            form("done", "", "Done")
        ),
        state::GM_QUEUE => format!("{reject}{}", form("done", "", "Done")),
        _ => String::new(),
    }
}

fn held_replies(app: &App, csrf: &str, held: &[crate::store::notices::HeldGroup]) -> String {
    if held.is_empty() {
        return String::new();
    }
    let rows: Vec<Vec<String>> = held
        .iter()
        .map(|g| {
            vec![
                html::escape(&g.realm),
                g.count.to_string(),
                html::escape(&app.game_time(from_ms(g.first_held_at))),
                format!("{}–{}", g.first_id, g.last_id),
                format!(
                    "<form class=\"inline\" method=\"post\" action=\"/gm/queue/release\">\
                     <input type=\"hidden\" name=\"csrf\" value=\"{}\">\
                     <input type=\"hidden\" name=\"realm\" value=\"{}\">\
                     <button type=\"submit\">Send them</button></form>",
                    html::escape(csrf),
                    html::escape(&g.realm)
                ),
            ]
        })
        .collect();
    let head = ["Realm", "Replies", "Held since", "Outbox ids", ""];
    format!(
        "<h2>Replies held by flood control</h2>\n{}",
        html::table(&head, &rows)
    )
}

fn undelivered(app: &App, csrf: &str, rows: &[crate::store::outbox::OutRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let rows: Vec<Vec<String>> = rows
        .iter()
        .take(MAX_ROWS)
        .map(|f| {
            vec![
                f.id.to_string(),
                html::escape(&f.state),
                f.attempts.to_string(),
                html::escape(&f.to_addrs),
                html::escape(&one_line(&f.subject, 60)),
                html::escape(&app.game_time(from_ms(f.created_at))),
                html::escape(&one_line(f.last_error.as_deref().unwrap_or(""), 120)),
                if f.given_up() {
                    format!(
                        "<form class=\"inline\" method=\"post\" action=\"/gm/outbox/{id}/retry\">\
                         <input type=\"hidden\" name=\"csrf\" value=\"{}\">\
                         <button type=\"submit\" id=\"retry-mail-{id}\">Send again</button></form>",
                        html::escape(csrf),
                        id = f.id,
                    )
                } else {
                    "tried again by itself".to_string()
                },
            ]
        })
        .collect();
    let head = [
        "Outbox",
        "State",
        "Attempts",
        "To",
        "Subject",
        "Queued",
        "Last error",
        "",
    ];
    format!(
        "<div id=\"undelivered\"><h2>Outgoing mail not yet delivered</h2>\n{}</div>\n",
        html::table(&head, &rows)
    )
}

/// Who sent a message (and to whom).
pub fn who(m: &Message) -> String {
    match (&m.realm, &m.to_realm, &m.from_addr) {
        (Some(r), Some(t), _) => format!("{r} → {t}"),
        (Some(r), None, _) => r.clone(),
        (None, _, Some(a)) => a.clone(),
        _ => "-".into(),
    }
}

/// An audit entry's detail (often JSON without spaces) as a table cell that wraps.
pub fn detail_cell(detail: &str, max: usize) -> String {
    format!(
        "<span style=\"word-break:break-all\">{}</span>",
        html::escape(&one_line(detail, max))
    )
}

/// Text on one line, at most `max` characters.
pub fn one_line(s: &str, max: usize) -> String {
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() > max {
        format!(
            "{}…",
            s.chars().take(max.saturating_sub(1)).collect::<String>()
        )
    } else {
        s
    }
}

/// An action's form fields (each optional: a missing one is refused with a message,
/// a missing CSRF token with 403).
#[derive(Debug, serde::Deserialize)]
pub struct ActionForm {
    pub csrf: Option<String>,
    pub reason: Option<String>,
    pub now: Option<String>,
    pub text: Option<String>,
    pub back: Option<String>,
}

async fn act(
    State(app): State<Arc<App>>,
    s: GmSession,
    client: Client,
    Path((id, action)): Path<(i64, String)>,
    Form(f): Form<ActionForm>,
) -> Response {
    if let Err(r) = check_csrf(&s.csrf, f.csrf.as_deref()) {
        return r.into_response();
    }
    let back = match f.back.as_deref() {
        Some("message") => format!("/gm/message/{id}"),
        _ => "/gm/queue".to_string(),
    };
    let (ok, text) = match run_action(&app, id, &action, &f).await {
        Ok(done) => (true, done),
        Err(AppError::Refused(why)) => (false, why),
        Err(e) => {
            tracing::error!(error = %e, id, action, "a desk action failed");
            (false, format!("{action} of message {id} failed: {e}"))
        }
    };
    auth::redirect_with_flash(&app, &client, &back, ok, &text).await
}

/// Do what `pbemd gm <action> <id>` does, through the same app functions; the result
/// as the CLI would say it.
async fn run_action(app: &App, id: i64, action: &str, f: &ActionForm) -> Result<String, AppError> {
    use crate::app::{gm, sender};
    match action {
        "approve" => {
            let r = gm::approve(app, id, f.now.is_some()).await?;
            sender::flush_all(app).await?;
            Ok(if r.decided > 0 {
                format!(
                    "message {id} approved; the courier decided {} message(s) now, {} delivered",
                    r.decided, r.delivered
                )
            } else {
                format!("message {id} approved; it goes out with the next courier batch")
            })
        }
        "reject" => {
            let reason = f.reason.as_deref().map(str::trim).unwrap_or_default();
            if reason.is_empty() {
                return Err(AppError::Refused(format!(
                    "message {id} was not rejected: give the sender a reason"
                )));
            }
            let r = gm::reject(app, id, reason).await?;
            sender::flush_all(app).await?;
            r.said(app).await
        }
        "answer" => {
            let text = f.text.as_deref().unwrap_or_default();
            let a = gm::answer(app, id, text, "desk").await?;
            sender::flush_all(app).await?;
            a.said(app).await
        }
        "done" => gm::done(app, id)
            .await
            .map(|()| format!("message {id} closed without any mail")),
        "hold" => gm::hold(app, id)
            .await
            .map(|()| format!("message {id} held")),
        "retry" => gm::retry(app, id).await.map(|()| {
            format!("message {id} will be tried again by the running daemon or the next tick")
        }),
        "edit" => edit(app, id, f).await,
        _ => Err(AppError::Refused(format!(
            "no action {action:?}: approve, reject, hold, edit, retry, answer or done"
        ))),
    }
}

async fn edit(app: &App, id: i64, f: &ActionForm) -> Result<String, AppError> {
    let text = f.text.as_deref().unwrap_or_default().replace("\r\n", "\n");
    if text.trim().is_empty() {
        return Err(AppError::Refused(format!(
            "message {id} was not edited: the new text is empty"
        )));
    }
    Ok(match crate::app::gm::edit(app, id, &text).await? {
        None => format!("message {id} edited (the change is in the audit log)"),
        Some(e) => format!(
            "weekend form {id} edited and checked again: {} accepted, {} refused; it counts \
             at the next resolution (the change is in the audit log)",
            e.accepted, e.refused
        ),
    })
}

/// `pbemd gm retry-mail ID`: send an undelivered outgoing mail again.
async fn retry_mail(
    State(app): State<Arc<App>>,
    s: GmSession,
    client: Client,
    Path(id): Path<i64>,
    Form(f): Form<auth::CsrfForm>,
) -> Response {
    if let Err(r) = check_csrf(&s.csrf, f.csrf.as_deref()) {
        return r.into_response();
    }
    let (ok, text) = match crate::app::gm::retry_mail(&app, id).await {
        Ok(r) => (r.mail.state == "sent", r.summary()),
        Err(AppError::Refused(why)) => (false, why),
        Err(e) => {
            tracing::error!(error = %e, id, "a desk retry of outgoing mail failed");
            (false, format!("outbox {id} was not sent again: {e}"))
        }
    };
    auth::redirect_with_flash(&app, &client, "/gm/queue", ok, &text).await
}

#[derive(Debug, serde::Deserialize)]
pub struct ReleaseForm {
    pub csrf: Option<String>,
    pub realm: Option<String>,
}

/// `pbemd gm release --realm NAME`: send the replies held by flood control.
async fn release(
    State(app): State<Arc<App>>,
    s: GmSession,
    client: Client,
    Form(f): Form<ReleaseForm>,
) -> Response {
    if let Err(r) = check_csrf(&s.csrf, f.csrf.as_deref()) {
        return r.into_response();
    }
    let realm = f.realm.unwrap_or_default();
    let which = crate::store::notices::Release::Realm(&realm);
    let done = async {
        let n = crate::app::season_notices::flood::release(&app, &which).await?;
        crate::app::sender::flush_all(&app).await?;
        Ok::<_, AppError>(n)
    };
    let (ok, text) = match done.await {
        Ok(n) => (true, format!("{n} held replies to {realm} released")),
        Err(e) => (false, format!("the held replies were not released: {e}")),
    };
    auth::redirect_with_flash(&app, &client, "/gm/queue", ok, &text).await
}
