//! Who is asking: the GM (a session cookie after the password login) or a realm (a
//! session cookie after its signed link). Both cookies are signed tokens
//! ([`super::sign`]), so every replica accepts them without shared memory. Each session
//! has a CSRF token derived from its cookie; every state-changing form carries it.
//!
//! The GM logs in with the password whose Argon2id hash `pbemd gm passwd` wrote into the
//! config (`/gm/login`); failed logins are counted in the database and refused with 429
//! past the limits ([`crate::app::desk::login`]). The cookie is `HttpOnly`,
//! `SameSite=Strict`, `Secure` as [`secure`] decides for every cookie of the site
//! (`http.secure_cookies`, HTTPS from a trusted proxy, an `https://` public address),
//! and expires after `http.session_hours`; logging out ends every session issued before
//! it, on every replica. The login form has its own CSRF token (a short-lived
//! pre-session cookie).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Form, Router};

use super::{html, sign};
use crate::app::desk::Login;
use crate::app::App;
use crate::config::SecureCookies;

/// The GM's session cookie.
pub const GM_COOKIE: &str = "pbemd_gm";
/// A realm's session cookie.
pub const REALM_COOKIE: &str = "pbemd_realm";
/// How long a GM session lasts by default (`http.session_hours` sets it).
pub const GM_SESSION_SECS: i64 = 12 * 3600;
/// The login form's pre-session cookie (carries the login form's CSRF token).
pub const LOGIN_COOKIE: &str = "pbemd_login";
/// A desk action's result, shown once on the next page.
pub const FLASH_COOKIE: &str = "pbemd_flash";
/// How long a realm session lasts after its link was followed.
pub const REALM_SESSION_SECS: i64 = 7 * 24 * 3600;

/// The login and logout pages.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/gm/login", get(login_page).post(login_post))
        .route("/gm/logout", get(logout_page).post(logout_post))
}

/// A logged-in GM. `csrf` goes into every form as `csrf`.
#[derive(Debug, Clone)]
pub struct GmSession {
    pub csrf: String,
}

/// A realm following its own link. `csrf` goes into every form as `csrf`.
#[derive(Debug, Clone)]
pub struct RealmSession {
    pub realm: String,
    pub csrf: String,
}

/// The value of cookie `name` in a request.
pub fn cookie<'a>(parts: &'a Parts, name: &str) -> Option<&'a str> {
    cookie_in(&parts.headers, name)
}

/// The value of cookie `name` in a request's headers.
pub fn cookie_in<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// How long a GM session lasts under this game's settings, in seconds.
pub fn gm_session_secs(app: &App) -> i64 {
    i64::from(app.cfg.http.session_hours).saturating_mul(3600)
}

/// A GM session cookie's value, valid from `now` (Unix seconds) for
/// `http.session_hours`. The payload is the sessions' epoch: a logout or a new
/// password ([`crate::app::desk::end_sessions`]) starts a new one and ends the others.
pub async fn gm_cookie(app: &App, now: i64) -> Result<String, crate::app::AppError> {
    let key = app.site_secret().await?;
    let epoch = crate::app::desk::session_epoch(app).await?;
    Ok(sign::sign(
        &key,
        "gm-session",
        &format!("gm:{epoch}"),
        now.saturating_add(gm_session_secs(app)),
    ))
}

/// A realm session cookie's value, valid from `now` (Unix seconds). It carries a mark
/// of the realm's registered addresses, so the session ends when the realm's player is
/// replaced (or its addresses change).
pub async fn realm_cookie(
    app: &App,
    realm: &str,
    now: i64,
) -> Result<String, crate::app::AppError> {
    let key = app.site_secret().await?;
    let mark = addresses_mark(app, realm).await?.unwrap_or_default();
    Ok(sign::sign(
        &key,
        "realm-session",
        &format!("{realm}\n{mark}"),
        now + REALM_SESSION_SECS,
    ))
}

/// The mark of `realm`'s registered addresses now (`None`: no such realm).
async fn addresses_mark(app: &App, realm: &str) -> Result<Option<String>, crate::app::AppError> {
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    Ok(gs
        .realm(realm)
        .map(|r| crate::app::site_links::addresses_mark(&r.emails)))
}

/// A state-changing request whose form token is not the session's: answered 403.
#[derive(Debug, Clone, Copy)]
pub struct CsrfRefused;

impl IntoResponse for CsrfRefused {
    fn into_response(self) -> Response {
        (
            StatusCode::FORBIDDEN,
            "the form's CSRF token is missing or wrong",
        )
            .into_response()
    }
}

/// Refuse a state-changing request whose form token is not the session's.
pub fn check_csrf(expected: &str, given: Option<&str>) -> Result<(), CsrfRefused> {
    match given {
        Some(g) if !g.is_empty() && constant_time_eq(g.as_bytes(), expected.as_bytes()) => Ok(()),
        _ => Err(CsrfRefused),
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl FromRequestParts<Arc<App>> for GmSession {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Self, Response> {
        let to_login = || Redirect::to("/gm/login").into_response();
        let token = cookie(parts, GM_COOKIE).ok_or_else(to_login)?;
        let key = app.site_secret().await.map_err(|_| to_login())?;
        let now = app.now().timestamp();
        let payload = sign::verify(&key, "gm-session", token, now).map_err(|_| to_login())?;
        let epoch: i64 = payload
            .strip_prefix("gm:")
            .and_then(|t| t.parse().ok())
            .ok_or_else(to_login)?;
        let current = crate::app::desk::session_epoch(app).await;
        if current.map_err(|_| to_login())? != epoch {
            return Err(to_login());
        }
        Ok(GmSession {
            csrf: sign::derive(&key, "gm-csrf", token),
        })
    }
}

impl FromRequestParts<Arc<App>> for RealmSession {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Self, Response> {
        // Without a session the realm's language is unknown: both languages.
        let refuse = || {
            let html = super::html::page(
                "sv",
                "Länken behövs / The link is needed",
                &[],
                "<p lang=\"sv\">Sidan behöver ert lands länk från dess senaste formulär.</p>\n\
                 <p lang=\"en\">This page needs your realm's link from its latest form.</p>",
            );
            (StatusCode::FORBIDDEN, html).into_response()
        };
        let token = cookie(parts, REALM_COOKIE).ok_or_else(refuse)?;
        let key = app.site_secret().await.map_err(|_| refuse())?;
        let now = app.now().timestamp();
        let payload = sign::verify(&key, "realm-session", token, now).map_err(|_| refuse())?;
        let (realm, mark) = payload.split_once('\n').ok_or_else(refuse)?;
        let current = addresses_mark(app, realm).await.map_err(|_| refuse())?;
        if current.as_deref() != Some(mark) {
            return Err(refuse());
        }
        let realm = realm.to_string();
        Ok(RealmSession {
            csrf: sign::derive(&key, "realm-csrf", token),
            realm,
        })
    }
}

/// Who is asking: the client's address (the connection's peer, or what a trusted
/// proxy says in `X-Forwarded-For`) and whether the request came over HTTPS.
#[derive(Debug, Clone)]
pub struct Client {
    pub ip: String,
    pub https: bool,
}

impl FromRequestParts<Arc<App>> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        app: &Arc<App>,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(client_of(
            &app.cfg.http.trusted_proxies,
            peer,
            &parts.headers,
        ))
    }
}

/// The client behind `peer`: `X-Forwarded-*` count only when `peer` is a trusted
/// proxy; the client is then the last address in `X-Forwarded-For` that is not a
/// trusted proxy itself.
pub fn client_of(trusted: &[IpAddr], peer: Option<IpAddr>, headers: &HeaderMap) -> Client {
    let Some(peer) = peer else {
        return Client {
            ip: "unknown".into(),
            https: false,
        };
    };
    if !trusted.contains(&peer) {
        return Client {
            ip: peer.to_string(),
            https: false,
        };
    }
    let text = |name: &str| {
        headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join(",")
    };
    let forwarded = text("x-forwarded-for");
    let ip = forwarded
        .split(',')
        .rev()
        .filter_map(|a| a.trim().parse::<IpAddr>().ok())
        .find(|a| !trusted.contains(a))
        .unwrap_or(peer);
    let proto = text("x-forwarded-proto");
    let https = proto
        .split(',')
        .next_back()
        .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"));
    Client {
        ip: ip.to_string(),
        https,
    }
}

/// Whether the site's cookies (the GM's and the realms') carry `Secure`: as
/// `http.secure_cookies` says; under `auto` when the request came over HTTPS (a
/// trusted proxy's `X-Forwarded-Proto: https`) or the site's public address
/// (`http.public_url`) is `https://`.
pub fn secure(app: &App, client: &Client) -> bool {
    match app.cfg.http.secure_cookies {
        SecureCookies::Always => true,
        SecureCookies::Never => false,
        SecureCookies::Auto => {
            client.https
                || app
                    .cfg
                    .http_public_url
                    .as_deref()
                    .is_some_and(|u| u.starts_with("https://"))
        }
    }
}

/// A `Set-Cookie` value with the desk's attributes; `max_age` 0 clears the cookie.
pub fn set_cookie(app: &App, client: &Client, name: &str, value: &str, max_age: i64) -> String {
    format!(
        "{name}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}{}",
        if secure(app, client) { "; Secure" } else { "" }
    )
}

fn with_cookies(mut r: Response, cookies: &[String]) -> Response {
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(c) {
            r.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    r
}

/// Redirect (303) to `to`, setting a one-time message for the next page.
pub async fn redirect_with_flash(
    app: &App,
    client: &Client,
    to: &str,
    ok: bool,
    text: &str,
) -> Response {
    let mut cookies = Vec::new();
    if let Ok(key) = app.site_secret().await {
        let text: String = text.chars().take(400).collect();
        let payload = format!("{}{text}", if ok { "ok:" } else { "error:" });
        let token = sign::sign(&key, "gm-flash", &payload, app.now().timestamp() + 300);
        cookies.push(set_cookie(app, client, FLASH_COOKIE, &token, 300));
    }
    with_cookies(Redirect::to(to).into_response(), &cookies)
}

/// The one-time message a previous action left (`(ok, text)`), and the header that
/// clears it.
pub async fn take_flash(
    app: &App,
    client: &Client,
    headers: &HeaderMap,
) -> Option<(bool, String, String)> {
    let token = cookie_in(headers, FLASH_COOKIE)?;
    let key = app.site_secret().await.ok()?;
    let payload = sign::verify(&key, "gm-flash", token, app.now().timestamp()).ok()?;
    let clear = set_cookie(app, client, FLASH_COOKIE, "", 0);
    if let Some(t) = payload.strip_prefix("ok:") {
        return Some((true, t.to_string(), clear));
    }
    let t = payload.strip_prefix("error:").unwrap_or(&payload);
    Some((false, t.to_string(), clear))
}

/// A flash message as markup (escaped).
pub fn flash_html(flash: &Option<(bool, String, String)>) -> String {
    match flash {
        Some((ok, text, _)) => format!(
            "<p class=\"{}\" id=\"flash\">{}</p>\n",
            if *ok { "ok" } else { "error" },
            html::escape(text)
        ),
        None => String::new(),
    }
}

/// A page answer with the flash cookie cleared when one was shown.
pub fn page_clearing_flash(
    page: impl IntoResponse,
    flash: &Option<(bool, String, String)>,
) -> Response {
    let r = page.into_response();
    match flash {
        Some((_, _, clear)) => with_cookies(r, std::slice::from_ref(clear)),
        None => r,
    }
}

fn login_body(message: Option<&str>, csrf: &str) -> String {
    let msg = message
        .map(|m| {
            format!(
                "<p class=\"error\" id=\"login-error\">{}</p>\n",
                html::escape(m)
            )
        })
        .unwrap_or_default();
    format!(
        "{msg}<form method=\"post\" action=\"/gm/login\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{}\">\
         <label>Password <input type=\"password\" name=\"password\" id=\"password\" \
         autocomplete=\"current-password\" autofocus></label> \
         <button type=\"submit\" id=\"login\">Log in</button></form>\n",
        html::escape(csrf)
    )
}

const DISABLED: &str = "<p class=\"error\" id=\"login-disabled\">The GM's desk is disabled: no \
    password is set. Run <code>pbemd gm passwd</code> on the server, then restart \
    <code>pbemd run</code>.</p>\n";

/// The login page with a fresh pre-session token, answered with `status`.
async fn login_form(
    app: &App,
    client: &Client,
    status: StatusCode,
    message: Option<&str>,
) -> Response {
    if app.cfg.http.gm_password_hash.is_none() {
        return (
            StatusCode::FORBIDDEN,
            html::page("en", "GM login", &[], DISABLED),
        )
            .into_response();
    }
    let Ok(key) = app.site_secret().await else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "the database does not answer",
        )
            .into_response();
    };
    let mut nonce = [0u8; 16];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut nonce);
    let token = sign::sign(
        &key,
        "gm-login",
        &hex::encode(nonce),
        app.now().timestamp() + 3600,
    );
    let csrf = sign::derive(&key, "gm-login-csrf", &token);
    let page = html::page("en", "GM login", &[], &login_body(message, &csrf));
    let cookie = set_cookie(app, client, LOGIN_COOKIE, &token, 3600);
    with_cookies((status, page).into_response(), &[cookie])
}

async fn login_page(State(app): State<Arc<App>>, client: Client) -> Response {
    login_form(&app, &client, StatusCode::OK, None).await
}

/// The login form's fields; missing ones are refused, not a parse error.
#[derive(Debug, serde::Deserialize)]
pub struct LoginForm {
    pub password: Option<String>,
    pub csrf: Option<String>,
}

/// Whether the login form's CSRF token belongs to its pre-session cookie.
async fn login_csrf_ok(app: &App, headers: &HeaderMap, given: Option<&str>) -> bool {
    let (Some(token), Ok(key)) = (cookie_in(headers, LOGIN_COOKIE), app.site_secret().await) else {
        return false;
    };
    if sign::verify(&key, "gm-login", token, app.now().timestamp()).is_err() {
        return false;
    }
    check_csrf(&sign::derive(&key, "gm-login-csrf", token), given).is_ok()
}

async fn login_post(
    State(app): State<Arc<App>>,
    client: Client,
    headers: HeaderMap,
    Form(f): Form<LoginForm>,
) -> Response {
    if app.cfg.http.gm_password_hash.is_some()
        && !login_csrf_ok(&app, &headers, f.csrf.as_deref()).await
    {
        return CsrfRefused.into_response();
    }
    let password = f.password.unwrap_or_default();
    let outcome = crate::app::desk::login(&app, &client.ip, &password).await;
    match outcome {
        Ok(Login::Welcome) => welcome(&app, &client).await,
        Ok(Login::Wrong) => {
            let m = "Wrong password.";
            login_form(&app, &client, StatusCode::UNAUTHORIZED, Some(m)).await
        }
        Ok(Login::TooMany) => {
            let m = "Too many failed logins: try again in 15 minutes.";
            login_form(&app, &client, StatusCode::TOO_MANY_REQUESTS, Some(m)).await
        }
        Ok(Login::Disabled) => login_form(&app, &client, StatusCode::FORBIDDEN, None).await,
        Err(e) => {
            tracing::error!(error = %e, "GM login failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "the database does not answer; try again",
            )
                .into_response()
        }
    }
}

async fn welcome(app: &App, client: &Client) -> Response {
    let Ok(token) = gm_cookie(app, app.now().timestamp()).await else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "the database does not answer",
        )
            .into_response();
    };
    let cookies = [
        set_cookie(app, client, GM_COOKIE, &token, gm_session_secs(app)),
        set_cookie(app, client, LOGIN_COOKIE, "", 0),
    ];
    with_cookies(Redirect::to("/gm").into_response(), &cookies)
}

/// A form carrying only its CSRF token.
#[derive(Debug, serde::Deserialize)]
pub struct CsrfForm {
    pub csrf: Option<String>,
}

async fn logout_page(s: GmSession) -> Response {
    let body = format!(
        "<form method=\"post\" action=\"/gm/logout\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{}\">\
         <button type=\"submit\" id=\"logout\">Log out</button></form>\n",
        html::escape(&s.csrf)
    );
    html::page("en", "Log out", html::DESK_NAV, &body).into_response()
}

async fn logout_post(
    State(app): State<Arc<App>>,
    s: GmSession,
    client: Client,
    Form(f): Form<CsrfForm>,
) -> Response {
    if let Err(r) = check_csrf(&s.csrf, f.csrf.as_deref()) {
        return r.into_response();
    }
    if let Err(e) = crate::app::desk::logout(&app, &client.ip).await {
        tracing::error!(error = %e, "GM logout failed");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "the database does not answer; try again",
        )
            .into_response();
    }
    let cookies = [set_cookie(&app, &client, GM_COOKIE, "", 0)];
    with_cookies(Redirect::to("/gm/login").into_response(), &cookies)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.append(*k, v.parse().unwrap());
        }
        m
    }

    #[test]
    fn forwarded_headers_count_only_from_a_trusted_proxy() {
        let lo: IpAddr = "127.0.0.1".parse().unwrap();
        let far: IpAddr = "203.0.113.9".parse().unwrap();
        let headers = h(&[
            ("x-forwarded-for", "198.51.100.7, 203.0.113.5"),
            ("x-forwarded-proto", "https"),
        ]);
        let c = client_of(&[lo], Some(lo), &headers);
        assert_eq!(
            (c.ip.as_str(), c.https),
            ("203.0.113.5", true),
            "the last hop not trusted"
        );
        let c = client_of(&[lo], Some(far), &headers);
        assert_eq!(
            (c.ip.as_str(), c.https),
            ("203.0.113.9", false),
            "a stranger's headers are ignored"
        );
        let c = client_of(&[lo], Some(lo), &HeaderMap::new());
        assert_eq!((c.ip.as_str(), c.https), ("127.0.0.1", false));
        assert_eq!(client_of(&[lo], None, &headers).ip, "unknown");
    }
}
