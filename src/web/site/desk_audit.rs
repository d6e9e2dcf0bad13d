//! The audit log on the GM's desk (`/gm/audit`): newest first, a page of
//! [`PAGE_SIZE`] at a time, filtered by realm, round and kind (query parameters, so a
//! filtered page can be bookmarked), "older" continues below the page's last entry.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};

use super::auth::GmSession;
use super::desk::failed;
use super::html;
use crate::app::{App, AppError};
use crate::clock::from_ms;
use crate::store::desk::{self, AuditFilter};
use crate::store::events::Event;

/// Entries on one page.
pub const PAGE_SIZE: i64 = 100;

/// The page's query; every field is text so that a bad value is explained, not a 400.
#[derive(Debug, Default, serde::Deserialize)]
pub struct AuditQuery {
    pub realm: Option<String>,
    pub round: Option<String>,
    pub kind: Option<String>,
    pub before: Option<String>,
}

fn nonempty(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.chars().take(200).collect())
}

/// The filter and the paging point, and what of the query could not be read.
fn filter_of(q: &AuditQuery) -> (AuditFilter, Option<i64>, Vec<String>) {
    let mut problems = Vec::new();
    let mut number = |name: &str, v: &Option<String>| {
        let v = nonempty(v)?;
        match v.parse::<i64>() {
            Ok(n) if n >= 0 => Some(n),
            _ => {
                problems.push(format!("{name} {v:?} is not a number; it was ignored"));
                None
            }
        }
    };
    let round = number("round", &q.round);
    let before = number("before", &q.before);
    let f = AuditFilter {
        realm: nonempty(&q.realm),
        round,
        kind: nonempty(&q.kind),
    };
    (f, before, problems)
}

pub async fn audit_page(
    State(app): State<Arc<App>>,
    _s: GmSession,
    Query(q): Query<AuditQuery>,
) -> Response {
    let (f, before, problems) = filter_of(&q);
    let read = async {
        let mut conn = app.store.conn().await?;
        let entries = desk::audit_page(&mut conn, &f, before, PAGE_SIZE).await?;
        let kinds = desk::audit_kinds(&mut conn).await?;
        let realms = match app.state(&mut conn).await {
            Ok((_, gs)) => gs.realm_names().into_iter().map(str::to_string).collect(),
            Err(_) => Vec::new(),
        };
        Ok::<_, AppError>((entries, kinds, realms))
    };
    let (entries, kinds, realms) = match read.await {
        Ok(r) => r,
        Err(e) => return failed(&e),
    };
    let mut body = String::new();
    for p in &problems {
        body.push_str(&format!("<p class=\"error\">{}</p>\n", html::escape(p)));
    }
    body.push_str(&filter_form(&f, &kinds, &realms));
    body.push_str(&entries_table(&app, &entries));
    if entries.len() as i64 == PAGE_SIZE {
        if let Some(last) = entries.last() {
            body.push_str(&format!(
                "<p><a id=\"older\" href=\"/gm/audit?{}\">Older entries</a></p>\n",
                query_string(&f, Some(last.id))
            ));
        }
    }
    html::page("en", "Audit log", html::DESK_NAV, &body).into_response()
}

/// The filter's query string (escaped for an attribute), continuing below `before`.
fn query_string(f: &AuditFilter, before: Option<i64>) -> String {
    let mut parts = Vec::new();
    if let Some(r) = &f.realm {
        parts.push(format!("realm={}", html::url_part(r)));
    }
    if let Some(r) = f.round {
        parts.push(format!("round={r}"));
    }
    if let Some(k) = &f.kind {
        parts.push(format!("kind={}", html::url_part(k)));
    }
    if let Some(b) = before {
        parts.push(format!("before={b}"));
    }
    html::escape(&parts.join("&"))
}

fn options(all: &[String], chosen: Option<&str>) -> String {
    let mut out = String::from("<option value=\"\">any</option>");
    for v in all {
        let sel = if Some(v.as_str()) == chosen {
            " selected"
        } else {
            ""
        };
        out.push_str(&format!(
            "<option value=\"{0}\"{sel}>{0}</option>",
            html::escape(v)
        ));
    }
    out
}

fn filter_form(f: &AuditFilter, kinds: &[String], realms: &[String]) -> String {
    let round = f.round.map(|r| r.to_string()).unwrap_or_default();
    format!(
        "<form method=\"get\" action=\"/gm/audit\" id=\"filter\">\
         <label>Realm <select name=\"realm\">{}</select></label> \
         <label>Round <input name=\"round\" size=\"4\" value=\"{}\"></label> \
         <label>Kind <select name=\"kind\">{}</select></label> \
         <button type=\"submit\">Show</button> <a href=\"/gm/audit\">All</a></form>\n",
        options(realms, f.realm.as_deref()),
        html::escape(&round),
        options(kinds, f.kind.as_deref()),
    )
}

fn entries_table(app: &App, entries: &[Event]) -> String {
    if entries.is_empty() {
        return "<p id=\"audit-empty\">No entries.</p>\n".into();
    }
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            let reference = match e.ref_id {
                Some(r) if is_message_kind(&e.kind) => {
                    format!("<a href=\"/gm/message/{r}\">message {r}</a>")
                }
                Some(r) => r.to_string(),
                None => String::new(),
            };
            vec![
                e.id.to_string(),
                html::escape(&app.game_time(from_ms(e.at))),
                e.round.to_string(),
                html::escape(&e.kind),
                html::escape(e.realm.as_deref().unwrap_or("-")),
                reference,
                super::desk::detail_cell(&e.detail, 300),
            ]
        })
        .collect();
    let head = ["#", "When", "Round", "Kind", "Realm", "Refers to", "Detail"];
    format!("<div id=\"audit\">{}</div>", html::table(&head, &rows))
}

/// Kinds whose reference is a message id (linked to its page).
fn is_message_kind(kind: &str) -> bool {
    matches!(
        kind,
        "gm_queued"
            | "gm_approved"
            | "gm_rejected"
            | "gm_retried"
            | "gm_held"
            | "gm_edited"
            | "courier"
            | "courier_refused"
            | "courier_held"
            | "mail_refused"
            | "form_received"
            | "form_stale"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_number_in_the_query_is_ignored_and_said() {
        let q = AuditQuery {
            realm: Some(" Afani ".into()),
            round: Some("x1".into()),
            kind: Some("".into()),
            before: Some("40".into()),
        };
        let (f, before, problems) = filter_of(&q);
        assert_eq!(f.realm.as_deref(), Some("Afani"));
        assert_eq!((f.round, f.kind.as_deref(), before), (None, None, Some(40)));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(query_string(&f, Some(7)), "realm=Afani&amp;before=7");
    }
}
