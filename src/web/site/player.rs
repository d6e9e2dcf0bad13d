//! A realm's own pages, reached through its signed link (no password): `/realm/login`
//! turns the link into the realm's session cookie; `/realm` (its latest mailed form),
//! `/realm/map` and `/realm/map.svg` (its map picture), `/realm/receipts` (its forms of
//! the round and their receipts) and `/realm/wishes` (its trade wishes, with a form to
//! change them between weekends). The realm is taken ONLY from the session: no page
//! reads a realm from its URL, query or form. Pages are in the realm's language.
//!
//! The session cookie is `HttpOnly`, `Path=/`, `SameSite=Lax` (the link is followed
//! from a mail client, a cross-site navigation a `Strict` cookie would not survive the
//! first redirect of), and `Secure` as for every cookie of the site ([`auth::secure`]:
//! `http.secure_cookies`; under `auto` when `http.public_url` is `https://` or a
//! trusted proxy says `X-Forwarded-Proto: https`). Lax still keeps the cookie off
//! cross-site POSTs, and every POST carries the session's CSRF token besides, logging
//! out (`POST /realm/logout`) too.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Form, Router};
use serde::Deserialize;

use super::auth::{self, RealmSession, REALM_COOKIE, REALM_SESSION_SECS};
use super::html::{escape, page, table};
use crate::app::{site_links, site_player, App, AppError};
use crate::game::state::Dimension;
use crate::game::{Lang, Resource};
use crate::render::map::{self, Viewer};

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/realm/login", get(login))
        .route("/realm/logout", get(logout_page).post(logout))
        .route("/realm", get(form_page))
        .route("/realm/map", get(map_page))
        .route("/realm/map.svg", get(map_svg))
        .route("/realm/receipts", get(receipts_page))
        .route("/realm/wishes", get(wishes_page).post(wishes_post))
}

/// `sv` or `en` text.
fn t(lang: Lang, sv: &'static str, en: &'static str) -> &'static str {
    match lang {
        Lang::Sv => sv,
        Lang::En => en,
    }
}

fn nav(lang: Lang) -> [(&'static str, &'static str); 6] {
    [
        ("/realm", t(lang, "Formulär", "Form")),
        ("/realm/map", t(lang, "Karta", "Map")),
        ("/realm/receipts", t(lang, "Kvitton", "Receipts")),
        ("/realm/wishes", t(lang, "Handelsönskemål", "Trade wishes")),
        // The board is Swedish unless asked for in English.
        (
            t(lang, "/board", "/board?lang=en"),
            t(lang, "Handelstavlan", "Trade board"),
        ),
        ("/realm/logout", t(lang, "Logga ut", "Log out")),
    ]
}

/// A page of the realm in its language: never cached by anyone but the browser,
/// never sent on as a referrer.
fn realm_page(lang: Lang, title: &str, body: &str) -> Response {
    (PRIVATE, page(lang.code(), title, &nav(lang), body)).into_response()
}

/// The headers of every response carrying a realm's own data or its link.
const PRIVATE: [(header::HeaderName, &str); 2] = [
    (header::CACHE_CONTROL, "private, no-store"),
    (header::REFERRER_POLICY, "no-referrer"),
];

/// A failure the realm cannot help: logged, a short page.
fn failed(e: AppError) -> Response {
    tracing::warn!(error = %e, "a realm page failed");
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        "the page could not be made / sidan kunde inte visas",
    )
        .into_response()
}

/// The session's realm and its language; a realm no longer in the game is refused.
async fn realm_lang(app: &App, s: &RealmSession) -> Result<Lang, Response> {
    let gs = site_player::state(app).await.map_err(failed)?;
    match gs.realm(&s.realm) {
        Some(r) => Ok(r.language),
        None => Err((StatusCode::FORBIDDEN, "no such realm in this game").into_response()),
    }
}

/// The realm's language for a POST from its pages, or the refusal when the form did
/// not carry the session's CSRF token.
async fn realm_post(app: &App, s: &RealmSession, csrf: Option<&str>) -> Result<Lang, Response> {
    let lang = realm_lang(app, s).await?;
    if auth::check_csrf(&s.csrf, csrf).is_err() {
        return Err(csrf_refused(lang));
    }
    Ok(lang)
}

#[derive(Deserialize)]
struct LoginQuery {
    #[serde(default)]
    token: String,
}

/// Follow a realm's link: a valid one sets the session cookie and goes to `/realm`.
async fn login(
    State(app): State<Arc<App>>,
    client: auth::Client,
    Query(q): Query<LoginQuery>,
) -> Response {
    let (key, gs) = match (app.site_secret().await, site_player::state(&app).await) {
        (Ok(k), Ok(gs)) => (k, gs),
        (Err(e), _) | (_, Err(e)) => return failed(e),
    };
    let now = app.now().timestamp();
    let Some(realm) = site_links::link_realm(&key, &gs, q.token.trim(), now) else {
        return bad_link();
    };
    let value = match auth::realm_cookie(&app, &realm, now).await {
        Ok(v) => v,
        Err(e) => return failed(e),
    };
    let cookie = session_cookie(&app, &client, &value, REALM_SESSION_SECS);
    (
        PRIVATE,
        [(header::SET_COOKIE, cookie)],
        Redirect::to("/realm"),
    )
        .into_response()
}

/// The realm's session cookie line: `HttpOnly`, `Path=/`, `SameSite=Lax`, `Secure` as
/// for every cookie of the site ([`auth::secure`]); `max_age` 0 clears it, with the
/// same attributes as it was set with.
fn session_cookie(app: &App, client: &auth::Client, value: &str, max_age: i64) -> String {
    format!(
        "{REALM_COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{}",
        if auth::secure(app, client) {
            "; Secure"
        } else {
            ""
        }
    )
}

/// An expired, forged or wrong link: both languages, how to get a new one.
fn bad_link() -> Response {
    let body = "<p lang=\"sv\">Länken har gått ut eller gäller inte. Be om en ny genom att \
                mejla spelet med ämnet <code>&lt;Land&gt; länk</code> (till exempel \
                <code>Afani länk</code>); den finns också i varje måndagsformulär.</p>\n\
                <p lang=\"en\">The link has expired or is not valid. Ask for a new one by \
                mailing the game with the subject <code>&lt;Realm&gt; link</code> (for \
                example <code>Afani link</code>); every Monday form carries one too.</p>";
    let html = page(
        "sv",
        "Länken gäller inte / The link is not valid",
        &[],
        body,
    );
    (StatusCode::FORBIDDEN, html).into_response()
}

/// `/realm/logout`: a button that logs out (a POST with the session's CSRF token, so
/// no other site can log a realm out); without a session, that there is none.
async fn logout_page(State(app): State<Arc<App>>, s: Result<RealmSession, Response>) -> Response {
    let Ok(s) = s else {
        return logged_out();
    };
    let lang = match realm_lang(&app, &s).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let body = format!(
        "<form method=\"post\" action=\"/realm/logout\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{}\">\
         <button type=\"submit\" id=\"logout\">{}</button></form>\n",
        escape(&s.csrf),
        t(lang, "Logga ut", "Log out")
    );
    let title = format!("{} – {}", s.realm, t(lang, "logga ut", "log out"));
    realm_page(lang, &title, &body)
}

/// Forget the session: the cookie is cleared with the attributes it was set with.
async fn logout(
    State(app): State<Arc<App>>,
    s: RealmSession,
    client: auth::Client,
    Form(f): Form<auth::CsrfForm>,
) -> Response {
    if let Err(r) = realm_post(&app, &s, f.csrf.as_deref()).await {
        return r;
    }
    let cookie = session_cookie(&app, &client, "", 0);
    ([(header::SET_COOKIE, cookie)], logged_out()).into_response()
}

/// A form sent without the page's token (another site's, or an old page after logging
/// in again): refused, in the realm's language.
fn csrf_refused(lang: Lang) -> Response {
    let body = t(
        lang,
        "<p class=\"error\">Formuläret kom inte från den här sidan (dess nyckel saknas eller är \
         fel). Öppna sidan igen och försök på nytt.</p>",
        "<p class=\"error\">The form did not come from this page (its token is missing or \
         wrong). Open the page again and try again.</p>",
    );
    let html = page(lang.code(), t(lang, "Avvisat", "Refused"), &nav(lang), body);
    (StatusCode::FORBIDDEN, PRIVATE, html).into_response()
}

/// The page after logging out (both languages).
fn logged_out() -> Response {
    let html = page(
        "sv",
        "Utloggad / Logged out",
        &[],
        "<p>Ni är utloggade. / You are logged out.</p>",
    );
    (PRIVATE, html).into_response()
}

/// `/realm`: the realm's latest result form, as it was mailed.
async fn form_page(State(app): State<Arc<App>>, s: RealmSession) -> Response {
    let lang = match realm_lang(&app, &s).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let form = match site_player::latest_form(&app, &s.realm, lang).await {
        Ok(f) => f,
        Err(e) => return failed(e),
    };
    let body = match form {
        Some((sent, text)) => format!(
            "<p>{} {}</p>\n<pre class=\"form\">{}</pre>",
            t(lang, "Ert senaste formulär, som det skickades", "Your latest form, as it was mailed"),
            escape(&sent),
            escape(&text)
        ),
        None => format!(
            "<p>{}</p>",
            t(
                lang,
                "Inget formulär har skickats till er ännu; det första kommer med resultaten på måndag.",
                "No form has been mailed to you yet; the first comes with the results on Monday."
            )
        ),
    };
    let title = format!("{} – {}", s.realm, t(lang, "formulär", "form"));
    realm_page(lang, &title, &body).into_response()
}

#[derive(Deserialize)]
struct MapQuery {
    #[serde(default)]
    dimension: Option<String>,
}

fn dimension_of(q: &MapQuery) -> Dimension {
    match q.dimension.as_deref() {
        Some("evil") => Dimension::Evil,
        _ => Dimension::Normal,
    }
}

/// The realm's map picture of one dimension (only what it may know).
async fn svg_of(app: &App, s: &RealmSession, lang: Lang, d: Dimension) -> Result<String, Response> {
    let gs = site_player::map_state(app).await.map_err(failed)?;
    let view = map::view(&gs, Viewer::Realm(&s.realm), d);
    Ok(map::svg(&view, lang.code()))
}

/// `/realm/map`: the realm's map as inline SVG, both dimensions.
async fn map_page(State(app): State<Arc<App>>, s: RealmSession) -> Response {
    let lang = match realm_lang(&app, &s).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let gs = match site_player::map_state(&app).await {
        Ok(gs) => gs,
        Err(e) => return failed(e),
    };
    let mut body = String::new();
    for (d, sv, en, q) in [
        (Dimension::Normal, "Världen", "The world", "normal"),
        (
            Dimension::Evil,
            "Ondskans dimension",
            "The Evil dimension",
            "evil",
        ),
    ] {
        // Outside a game with the Evil there is no second dimension to show.
        if d == Dimension::Evil && gs.evil.is_none() {
            continue;
        }
        let view = map::view(&gs, Viewer::Realm(&s.realm), d);
        let svg = map::svg(&view, lang.code());
        body.push_str(&format!(
            "<h2>{}</h2>\n<div class=\"map\" id=\"map-{q}\">{svg}</div>\n\
             <p><a href=\"/realm/map.svg?dimension={q}\">SVG</a></p>\n",
            t(lang, sv, en)
        ));
    }
    let title = format!("{} – {}", s.realm, t(lang, "karta", "map"));
    realm_page(lang, &title, &body).into_response()
}

/// `/realm/map.svg?dimension=normal|evil`: the picture alone.
async fn map_svg(
    State(app): State<Arc<App>>,
    s: RealmSession,
    Query(q): Query<MapQuery>,
) -> Response {
    let lang = match realm_lang(&app, &s).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    match svg_of(&app, &s, lang, dimension_of(&q)).await {
        Ok(svg) => (
            [
                (header::CONTENT_TYPE, "image/svg+xml; charset=utf-8"),
                (header::CACHE_CONTROL, "private, no-store"),
            ],
            svg,
        )
            .into_response(),
        Err(r) => r,
    }
}

/// `/realm/receipts`: the realm's forms of this round, each with its receipt.
async fn receipts_page(State(app): State<Arc<App>>, s: RealmSession) -> Response {
    let lang = match realm_lang(&app, &s).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let (round, rows) = match site_player::receipts(&app, &s.realm, lang).await {
        Ok(x) => x,
        Err(e) => return failed(e),
    };
    let mut body = format!("<p>{} {round}</p>\n", t(lang, "Omgång", "Round"));
    if rows.is_empty() {
        body.push_str(&format!(
            "<p>{}</p>",
            t(
                lang,
                "Inga formulär mottagna i denna omgång.",
                "No forms received this round."
            )
        ));
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                escape(&r.received),
                t(
                    lang,
                    if r.standing { "gäller" } else { "ersatt" },
                    if r.standing { "stands" } else { "replaced" },
                )
                .to_string(),
                format!("<pre>{}</pre>", escape(r.text.as_deref().unwrap_or(""))),
            ]
        })
        .collect();
    if !cells.is_empty() {
        let head = match lang {
            Lang::Sv => ["Mottaget", "Status", "Kvitto"],
            Lang::En => ["Received", "Status", "Receipt"],
        };
        body.push_str(&table(&head, &cells));
    }
    let title = format!("{} – {}", s.realm, t(lang, "kvitton", "receipts"));
    realm_page(lang, &title, &body).into_response()
}

#[derive(Deserialize)]
struct WishesQuery {
    #[serde(default)]
    saved: Option<String>,
}

/// `/realm/wishes`: the wishes and the form to change them.
async fn wishes_page(
    State(app): State<Arc<App>>,
    s: RealmSession,
    Query(q): Query<WishesQuery>,
) -> Response {
    let note = q.saved.is_some().then_some(Note::Saved);
    wishes_view(&app, &s, note, StatusCode::OK).await
}

/// What a wishes page says above the form.
enum Note {
    Saved,
    Refused(String),
}

async fn wishes_view(
    app: &App,
    s: &RealmSession,
    note: Option<Note>,
    status: StatusCode,
) -> Response {
    let lang = match realm_lang(app, s).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let gs = match site_player::state(app).await {
        Ok(gs) => gs,
        Err(e) => return failed(e),
    };
    let Some(r) = gs.realm(&s.realm) else {
        return (StatusCode::FORBIDDEN, "no such realm in this game").into_response();
    };
    let mut body = match note {
        Some(Note::Saved) => format!("<p class=\"ok\">{}</p>\n", t(lang, "Sparat.", "Saved.")),
        Some(Note::Refused(why)) => format!("<p class=\"error\">{}</p>\n", escape(&why)),
        None => String::new(),
    };
    body.push_str(&wishes_form(
        lang,
        &s.csrf,
        &r.trade_wishes.buy,
        &r.trade_wishes.sell,
    ));
    if let Err(AppError::Refused(why)) =
        site_player::wishes_open(app, &gs, &s.realm, app.now(), lang)
    {
        body.push_str(&format!("<p class=\"error\">{}</p>", escape(&why)));
    }
    let title = format!(
        "{} – {}",
        s.realm,
        t(lang, "handelsönskemål", "trade wishes")
    );
    (status, realm_page(lang, &title, &body)).into_response()
}

/// The form: two resources to buy, two to sell (R-RES-3), the current ones chosen.
fn wishes_form(lang: Lang, csrf: &str, buy: &[Resource], sell: &[Resource]) -> String {
    let select = |name: &str, chosen: Option<&Resource>| {
        let mut out = format!("<select name=\"{name}\" id=\"{name}\">");
        for r in Resource::ALL {
            let sel = if chosen == Some(&r) { " selected" } else { "" };
            out.push_str(&format!(
                "<option value=\"{}\"{sel}>{}</option>",
                escape(r.key()),
                escape(r.name(lang))
            ));
        }
        out.push_str("</select>");
        out
    };
    format!(
        "<p>{}</p>\n<form method=\"post\" action=\"/realm/wishes\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{}\">\n\
         <p>{} {} {}</p>\n<p>{} {} {}</p>\n<p><button type=\"submit\">{}</button></p></form>\n",
        t(
            lang,
            "Handelsönskemålen visas för alla på handelstavlan. De kan ändras från måndagens resultat till formulärens sista tid.",
            "Your trade wishes are shown to everyone on the trade board. They can be changed from Monday's results until the form deadline."
        ),
        escape(csrf),
        t(lang, "Köpa:", "Buy:"),
        select("buy1", buy.first()),
        select("buy2", buy.get(1)),
        t(lang, "Sälja:", "Sell:"),
        select("sell1", sell.first()),
        select("sell2", sell.get(1)),
        t(lang, "Spara", "Save"),
    )
}

#[derive(Deserialize)]
struct WishesForm {
    #[serde(default)]
    csrf: Option<String>,
    #[serde(default)]
    buy1: String,
    #[serde(default)]
    buy2: String,
    #[serde(default)]
    sell1: String,
    #[serde(default)]
    sell2: String,
}

/// Change the wishes (CSRF checked; refused outside the time they may change).
async fn wishes_post(
    State(app): State<Arc<App>>,
    s: RealmSession,
    Form(f): Form<WishesForm>,
) -> Response {
    let lang = match realm_post(&app, &s, f.csrf.as_deref()).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let outcome = match site_player::parse_wishes([&f.buy1, &f.buy2], [&f.sell1, &f.sell2], lang) {
        Ok(w) => site_player::set_wishes(&app, &s.realm, lang, w).await,
        Err(e) => Err(e),
    };
    match outcome {
        Ok(()) => Redirect::to("/realm/wishes?saved=1").into_response(),
        Err(AppError::Refused(why)) => {
            wishes_view(&app, &s, Some(Note::Refused(why)), StatusCode::CONFLICT).await
        }
        Err(e) => failed(e),
    }
}
