//! `/gm/drafts`: the drafted Monday forms before they go out (what `gm preview` prints,
//! with the map pictures they carry, as SVG), whether the weekend's results are held,
//! the replies held by flood control, and the buttons `gm rollback`, `gm resolve` and
//! `gm release` (the same app functions).

use std::fmt::Write;
use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Form;
use serde::Deserialize;

use super::{form, list, respond, Done};
use crate::app::{map_pictures, sender, weekend, App, AppError, Result};
use crate::clock::from_ms;
use crate::game::state::Dimension;
use crate::store::notices::{self, Release};
use crate::store::resolutions;
use crate::web::site::auth::{check_csrf, GmSession};
use crate::web::site::html::{escape, table, url_part};

const TITLE: &str = "Monday results";

pub(super) async fn page(gm: GmSession, State(app): State<Arc<App>>) -> Response {
    respond(TITLE, body(&app, &gm.csrf).await, None)
}

async fn body(app: &App, csrf: &str) -> Result<String> {
    let mut out = status(app).await?;
    out.push_str(&form(
        "/gm/drafts/results-hold",
        csrf,
        "",
        "Hold the Monday results (gm results hold)",
    ));
    out.push_str(&form(
        "/gm/drafts/results-release",
        csrf,
        "",
        "Release the Monday results (gm results release)",
    ));
    out.push_str(&form(
        "/gm/drafts/rollback",
        csrf,
        "<label><input type=\"checkbox\" name=\"force\" value=\"1\"> even if the state \
         changed since (--force)</label> ",
        "Roll back the weekend (gm rollback)",
    ));
    out.push_str(&form(
        "/gm/drafts/resolve",
        csrf,
        "",
        "Resolve again (gm resolve)",
    ));
    out.push_str(&held(app, csrf).await?);
    out.push_str("<h2>Drafted Monday forms</h2>\n");
    let drafts = weekend::preview(app, None, None).await?;
    let links: Vec<String> = drafts
        .forms
        .iter()
        .map(|(realm, _)| {
            let id = escape(&url_part(realm));
            format!("<a href=\"#draft-{id}\">{}</a>", escape(realm))
        })
        .collect();
    let _ = writeln!(out, "<p>{}</p>", links.join(" · "));
    // The pictures the forms carry, drawn from the same state (none when
    // `render.map_pictures` is off, as in the mails).
    let pictures = map_pictures::Pictures::new(app, &drafts.state);
    for (realm, text) in &drafts.forms {
        let id = escape(&url_part(realm));
        let _ = write!(
            out,
            "<h3 id=\"draft-{id}\">{}</h3>\n<pre class=\"draft\">{}</pre>\n",
            escape(realm),
            escape(text)
        );
        let Some(r) = drafts.state.realm(realm) else {
            continue;
        };
        for (dim, svg) in pictures.svgs(r) {
            let which = match dim {
                Dimension::Normal => "normal",
                Dimension::Evil => "evil",
            };
            let _ = writeln!(
                out,
                "<div class=\"map\" id=\"draft-map-{id}-{which}\">{svg}</div>"
            );
        }
    }
    Ok(out)
}

/// The round, its weekend's resolution, and whether its results are held.
async fn status(app: &App) -> Result<String> {
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    let round = gs.round as i64;
    let mut out = format!("<p>The state is in round {round}.</p>\n");
    match resolutions::latest(&mut conn).await? {
        None => out.push_str("<p>No weekend has been resolved yet.</p>\n"),
        Some(r) => {
            let _ = writeln!(
                out,
                "<p id=\"resolution\">The last resolution ({}) resolved round {} at {}; {}.</p>",
                r.id,
                r.round,
                escape(&app.game_time(from_ms(r.created_at))),
                match (r.rolled_back_at, r.results_sent_at) {
                    (Some(_), _) => "it was rolled back: the round's forms count again",
                    (None, Some(_)) => "its results went out",
                    (None, None) => "its results wait for the results event",
                }
            );
        }
    }
    let w = crate::app::results_hold::waiting(&mut conn, &gs).await?;
    if w.asked {
        let _ = writeln!(
            out,
            "<p class=\"error\" id=\"results-hold\">The GM holds the Monday forms of round \
             {}'s weekend: {}{}</p>",
            w.weekend,
            if w.held {
                "the results event has passed; releasing them sends them"
            } else {
                "the results event keeps them back until they are released"
            },
            if w.rolled_back {
                " (once the weekend is resolved again)."
            } else {
                "."
            }
        );
    } else if w.held {
        out.push_str(
            "<p class=\"error\" id=\"results-held\">The Monday forms of this round are \
             held: the results event passed while the weekend was rolled back. \
             Resolving again sends them.</p>\n",
        );
    }
    Ok(out)
}

/// How many held replies the page lists one by one (the per-realm lines count all).
const HELD_ROWS: i64 = 200;

/// The replies flood control holds in the outbox, per realm and one by one, with their
/// buttons.
async fn held(app: &App, csrf: &str) -> Result<String> {
    let mut conn = app.store.conn().await?;
    let groups = notices::held(&mut conn).await?;
    let mut out = String::from("<h2>Held in the outbox</h2>\n");
    if groups.is_empty() {
        out.push_str("<p>No reply is held by flood control.</p>\n");
        return Ok(out);
    }
    let hidden = |name: &str, value: &str| {
        format!(
            "<input type=\"hidden\" name=\"{name}\" value=\"{}\">",
            escape(value)
        )
    };
    let rows: Vec<Vec<String>> = groups
        .iter()
        .map(|g| {
            let field = hidden("realm", &g.realm);
            vec![
                escape(&g.realm),
                g.count.to_string(),
                escape(&app.game_time(from_ms(g.first_held_at))),
                format!("{}–{}", g.first_id, g.last_id),
                form(
                    "/gm/drafts/release",
                    csrf,
                    &field,
                    "Release (gm release --realm)",
                ),
            ]
        })
        .collect();
    out.push_str(&table(&["Realm", "Held", "Since", "Outbox ids", ""], &rows));
    out.push_str(&form(
        "/gm/drafts/release",
        csrf,
        &hidden("all", "1"),
        "Release all (gm release --all)",
    ));
    let one = crate::store::desk_game::held_rows(&mut conn, HELD_ROWS).await?;
    let rows: Vec<Vec<String>> = one
        .iter()
        .map(|h| {
            vec![
                h.id.to_string(),
                escape(&h.realm),
                escape(&h.kind),
                escape(&h.subject),
                escape(&app.game_time(from_ms(h.held_at))),
                form(
                    "/gm/drafts/release",
                    csrf,
                    &hidden("id", &h.id.to_string()),
                    "Release (gm release ID)",
                ),
            ]
        })
        .collect();
    let head = ["Outbox id", "Realm", "Kind", "Subject", "Held since", ""];
    out.push_str(&table(&head, &rows));
    Ok(out)
}

#[derive(Debug, Deserialize)]
pub(super) struct RollbackForm {
    csrf: Option<String>,
    force: Option<String>,
}

pub(super) async fn rollback(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<RollbackForm>,
) -> Response {
    if let Err(r) = check_csrf(&gm.csrf, f.csrf.as_deref()) {
        return r.into_response();
    }
    let done = Done::of(weekend::rollback(&app, f.force.is_some()).await, |r| {
        let then = if r.results_had_gone_out {
            "its results had gone out: resolving again mails corrected forms"
        } else {
            "resolving again resolves it"
        };
        format!(
            "round {} rolled back: state version {} is the state before it; its forms \
             count again; {then}",
            r.round, r.state_version
        )
    });
    respond(TITLE, body(&app, &gm.csrf).await, Some(done))
}

#[derive(Debug, Deserialize)]
pub(super) struct CsrfOnly {
    csrf: Option<String>,
}

pub(super) async fn resolve(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<CsrfOnly>,
) -> Response {
    if let Err(r) = check_csrf(&gm.csrf, f.csrf.as_deref()) {
        return r.into_response();
    }
    let r = weekend::gm_resolve(&app).await;
    let flushed = match &r {
        Ok(_) => sender::flush_all(&app).await.err(),
        Err(_) => None,
    };
    let done = Done::of(r, |r| {
        let x = &r.resolved;
        let mailed = r.forms.said(&app);
        format!(
            "round {} resolved again (resolution {}, state version {}): forms from {}; \
             {} events; {mailed}",
            x.round,
            x.id,
            x.new_version,
            list(&x.forms_from),
            x.events
        )
    });
    let done = flushed.map_or(done, |e| Done::Refused(e.to_string()));
    respond(TITLE, body(&app, &gm.csrf).await, Some(done))
}

pub(super) async fn results_hold(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<CsrfOnly>,
) -> Response {
    if let Err(r) = check_csrf(&gm.csrf, f.csrf.as_deref()) {
        return r.into_response();
    }
    let done = Done::of(crate::app::results_hold::hold(&app).await, |round| {
        format!("the results of round {round} are held: the results event keeps them back")
    });
    respond(TITLE, body(&app, &gm.csrf).await, Some(done))
}

pub(super) async fn results_release(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<CsrfOnly>,
) -> Response {
    use crate::app::results_hold::{release, Released};
    if let Err(r) = check_csrf(&gm.csrf, f.csrf.as_deref()) {
        return r.into_response();
    }
    let r = release(&app).await;
    let flushed = match &r {
        Ok(Released::Sent { .. }) => sender::flush_all(&app).await.err(),
        _ => None,
    };
    let done = Done::of(r, |r| r.said());
    let done = flushed.map_or(done, |e| Done::Refused(e.to_string()));
    respond(TITLE, body(&app, &gm.csrf).await, Some(done))
}

#[derive(Debug, Deserialize)]
pub(super) struct ReleaseForm {
    csrf: Option<String>,
    realm: Option<String>,
    all: Option<String>,
    id: Option<String>,
}

pub(super) async fn release(
    gm: GmSession,
    State(app): State<Arc<App>>,
    Form(f): Form<ReleaseForm>,
) -> Response {
    if let Err(r) = check_csrf(&gm.csrf, f.csrf.as_deref()) {
        return r.into_response();
    }
    let done = Done::of(release_now(&app, &f).await, |n| {
        format!("{n} held replies released")
    });
    respond(TITLE, body(&app, &gm.csrf).await, Some(done))
}

async fn release_now(app: &App, f: &ReleaseForm) -> Result<u64> {
    let realm = match super::given(&f.realm) {
        Some(name) => Some(super::canonical(&*super::state(app).await?, name)?),
        None => None,
    };
    let id = match super::given(&f.id) {
        Some(s) => Some(s.parse::<i64>().map_err(|_| {
            AppError::Refused(format!("an outbox id is a whole number; got `{s}`"))
        })?),
        None => None,
    };
    let which = match (&realm, f.all.is_some(), id) {
        (Some(r), _, _) => Release::Realm(r),
        (None, true, _) => Release::All,
        (None, false, Some(id)) => Release::One(id),
        (None, false, None) => {
            return Err(AppError::Refused(
                "name what to release: an outbox id, a realm, or all".into(),
            ))
        }
    };
    let n = crate::app::season_notices::flood::release(app, &which).await?;
    if let (Release::One(id), 0) = (&which, n) {
        return Err(AppError::Refused(format!(
            "outbox {id} is not a held reply; the page lists the held ones"
        )));
    }
    sender::flush_all(app).await?;
    Ok(n)
}
