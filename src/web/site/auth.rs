//! Who is asking: the GM (a session cookie after the password login) or a realm (a
//! session cookie after its signed link). Both cookies are signed tokens
//! ([`super::sign`]), so every replica accepts them without shared memory. Each session
//! has a CSRF token derived from its cookie; every state-changing form carries it.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Router;

use super::sign;
use crate::app::App;

/// The GM's session cookie.
pub const GM_COOKIE: &str = "pbemd_gm";
/// A realm's session cookie.
pub const REALM_COOKIE: &str = "pbemd_realm";
/// How long a GM session lasts.
pub const GM_SESSION_SECS: i64 = 12 * 3600;
/// How long a realm session lasts after its link was followed.
pub const REALM_SESSION_SECS: i64 = 7 * 24 * 3600;

/// The login and logout pages (filled in by the desk's owner).
pub fn routes() -> Router<Arc<App>> {
    Router::new()
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
    parts
        .headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// A GM session cookie's value, valid from `now` (Unix seconds).
pub async fn gm_cookie(app: &App, now: i64) -> Result<String, crate::app::AppError> {
    let key = app.site_secret().await?;
    Ok(sign::sign(&key, "gm-session", "gm", now + GM_SESSION_SECS))
}

/// A realm session cookie's value, valid from `now` (Unix seconds).
pub async fn realm_cookie(
    app: &App,
    realm: &str,
    now: i64,
) -> Result<String, crate::app::AppError> {
    let key = app.site_secret().await?;
    Ok(sign::sign(
        &key,
        "realm-session",
        realm,
        now + REALM_SESSION_SECS,
    ))
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
        sign::verify(&key, "gm-session", token, now).map_err(|_| to_login())?;
        Ok(GmSession {
            csrf: sign::derive(&key, "gm-csrf", token),
        })
    }
}

impl FromRequestParts<Arc<App>> for RealmSession {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Self, Response> {
        let refuse = || {
            (
                StatusCode::FORBIDDEN,
                "this page needs your realm's link from its latest form",
            )
                .into_response()
        };
        let token = cookie(parts, REALM_COOKIE).ok_or_else(refuse)?;
        let key = app.site_secret().await.map_err(|_| refuse())?;
        let now = app.now().timestamp();
        let realm = sign::verify(&key, "realm-session", token, now).map_err(|_| refuse())?;
        Ok(RealmSession {
            csrf: sign::derive(&key, "realm-csrf", token),
            realm,
        })
    }
}
