//! HTTP: the inbound webhook (`POST /inbound`), `/healthz` and `/metrics`.
//!
//! The webhook takes a raw RFC 822 body and stores it exactly like a mail fetched over
//! IMAP. It is authenticated by `X-Pbemd-Timestamp` (Unix seconds) and
//! `X-Pbemd-Signature: sha256=<hex HMAC-SHA256 of timestamp + "." + body>`; a missing,
//! wrong or stale (outside the window) signature gets 401 and nothing is stored.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::Router;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use tokio_util::sync::CancellationToken;

pub mod site;

use crate::app::{intake, App};
use crate::store::inbox::{self, Source, Stored};
use crate::store::{messages, outbox};

/// The routes, for `serve` and for tests. A webhook body above `limits.max_mail_bytes`
/// is refused with 413 before it is read whole.
pub fn router(app: Arc<App>) -> Router {
    let limit = app.cfg.limits.max_mail_bytes;
    Router::new()
        .route("/inbound", post(inbound))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .merge(site::routes())
        .layer(axum::extract::DefaultBodyLimit::max(limit))
        .with_state(app)
}

/// Serve until cancelled.
pub async fn serve(app: Arc<App>, addr: String, cancel: CancellationToken) -> anyhow::Result<()> {
    use anyhow::Context;
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    // The address bound, so `listen: 127.0.0.1:0` (any free port) says which it got.
    let bound = listener
        .local_addr()
        .map_or_else(|_| addr.clone(), |a| a.to_string());
    tracing::info!(addr = %bound, "HTTP listening");
    let service = router(app).into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, service)
        .with_graceful_shutdown(async move { cancel.cancelled().await })
        .await
        .context("HTTP server failed")
}

/// Check a webhook signature. `now` in Unix seconds.
pub fn verify(
    secret: &[u8],
    window: i64,
    now: i64,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(), &'static str> {
    let ts = headers
        .get("x-pbemd-timestamp")
        .and_then(|v| v.to_str().ok())
        .ok_or("missing X-Pbemd-Timestamp")?;
    let ts_n: i64 = ts
        .trim()
        .parse()
        .map_err(|_| "X-Pbemd-Timestamp is not Unix seconds")?;
    // Any i64 a sender writes: the distance is taken without overflow.
    if now.abs_diff(ts_n) > window.unsigned_abs() {
        return Err("X-Pbemd-Timestamp is outside the allowed window");
    }
    let sig = headers
        .get("x-pbemd-signature")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().strip_prefix("sha256="))
        .ok_or("missing X-Pbemd-Signature: sha256=<hex>")?;
    let sig = hex::decode(sig).map_err(|_| "X-Pbemd-Signature is not hex")?;
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).map_err(|_| "bad secret")?;
    mac.update(ts.trim().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.verify_slice(&sig)
        .map_err(|_| "signature does not match")
}

/// Sign a body the way the webhook expects (for senders and tests).
pub fn sign(secret: &[u8], timestamp: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("any key length works");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

async fn inbound(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, String) {
    let Some(hook) = &app.cfg.webhook else {
        return (StatusCode::NOT_FOUND, "webhook not configured\n".into());
    };
    let now = app.now().timestamp();
    if let Err(why) = verify(&hook.secret, hook.window_seconds, now, &headers, &body) {
        tracing::warn!(reason = why, "webhook refused");
        return (StatusCode::UNAUTHORIZED, format!("{why}\n"));
    }
    if body.is_empty() {
        return (
            StatusCode::BAD_REQUEST,
            "empty body: send the raw RFC 822 mail\n".into(),
        );
    }
    match intake::store_raw(&app, &body, Source::Webhook, None).await {
        Ok(Stored::New(id)) => (StatusCode::ACCEPTED, format!("stored {id}\n")),
        Ok(Stored::Duplicate) => (StatusCode::OK, "duplicate\n".into()),
        Err(e) => {
            tracing::error!(error = %e, "webhook mail could not be stored");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "cannot store the mail now; retry\n".into(),
            )
        }
    }
}

/// `ok` (200) when the worker is moving and nothing is parked; `degraded: …` with the
/// parked count (200: the daemon works, a restart would not help; the GM must look)
/// while units of work are parked; 503 `degraded: …` while the worker is stuck or the
/// database does not answer.
async fn healthz(State(app): State<Arc<App>>) -> (StatusCode, String) {
    let unavailable = |why: &str| {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("degraded: {why}\n"),
        )
    };
    let parked = match app.store.conn().await {
        Ok(mut c) => match messages::parked_count(&mut c).await {
            Ok(n) => n,
            Err(_) => return unavailable("database not answering"),
        },
        Err(_) => return unavailable("database not reachable"),
    };
    if let Some(why) = app.health.stuck() {
        return unavailable(&format!("worker stuck ({why}); parked: {parked}"));
    }
    if parked > 0 {
        return (
            StatusCode::OK,
            format!(
                "degraded: parked: {parked} unit(s) of work failed and wait for the GM \
                 (`pbemd gm queue`)\n"
            ),
        );
    }
    (StatusCode::OK, "ok\n".into())
}

/// Prometheus text, counted from the database (so the numbers survive restarts).
pub async fn metrics_text(app: &App) -> Result<String, crate::store::StoreError> {
    let mut c = app.store.conn().await?;
    let (received, waiting) = inbox::counts(&mut c).await?;
    let (classified, refused, gm_queue) = messages::counts(&mut c).await?;
    let (sent, failed, pending) = outbox::counts(&mut c).await?;
    let mut out = String::new();
    for (name, kind, help, v) in [
        (
            "pbemd_mails_received_total",
            "counter",
            "Mails stored from any intake.",
            received,
        ),
        (
            "pbemd_mails_classified_total",
            "counter",
            "Mails classified.",
            classified,
        ),
        (
            "pbemd_mails_refused_total",
            "counter",
            "Mails refused with a reply.",
            refused,
        ),
        ("pbemd_mails_sent_total", "counter", "Mails sent.", sent),
        (
            "pbemd_mails_failed_total",
            "counter",
            "Mails given up after retries.",
            failed,
        ),
        (
            "pbemd_outbox_depth",
            "gauge",
            "Mails waiting to be sent.",
            pending,
        ),
        (
            "pbemd_gm_queue_depth",
            "gauge",
            "Messages waiting for the GM.",
            gm_queue,
        ),
        (
            "pbemd_inbox_waiting",
            "gauge",
            "Stored mails not yet handled.",
            waiting,
        ),
        (
            "pbemd_parked",
            "gauge",
            "Units of work that failed and wait for the GM.",
            messages::parked_count(&mut c).await?,
        ),
    ] {
        out.push_str(&format!(
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}\n"
        ));
    }
    out.push_str(&app.metrics.render());
    Ok(out)
}

async fn metrics(State(app): State<Arc<App>>) -> (StatusCode, String) {
    match metrics_text(&app).await {
        Ok(t) => (StatusCode::OK, t),
        Err(e) => (StatusCode::SERVICE_UNAVAILABLE, format!("{e}\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(ts: &str, sig: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-pbemd-timestamp", ts.parse().unwrap());
        h.insert("x-pbemd-signature", sig.parse().unwrap());
        h
    }

    #[test]
    fn a_signed_body_verifies_and_a_changed_one_does_not() {
        let sig = sign(b"k", 1000, b"mail");
        assert_eq!(
            verify(b"k", 300, 1000, &headers("1000", &sig), b"mail"),
            Ok(())
        );
        assert!(verify(b"k", 300, 1000, &headers("1000", &sig), b"mail!").is_err());
        assert!(verify(b"other", 300, 1000, &headers("1000", &sig), b"mail").is_err());
    }

    #[test]
    fn stale_and_missing_signatures_are_refused() {
        let sig = sign(b"k", 1000, b"mail");
        assert!(verify(b"k", 300, 1301, &headers("1000", &sig), b"mail").is_err());
        assert!(verify(b"k", 300, 1000, &HeaderMap::new(), b"mail").is_err());
        assert!(verify(b"k", 300, 1000, &headers("1000", "sha256=zz"), b"mail").is_err());
    }

    #[test]
    fn a_timestamp_at_the_ends_of_the_integers_is_outside_the_window_not_a_panic() {
        let now: i64 = 1_800_000_000;
        for ts in [i64::MIN, i64::MIN + 1, i64::MAX, now.wrapping_add(i64::MIN)] {
            let sig = sign(b"k", ts, b"mail");
            assert_eq!(
                verify(b"k", 300, now, &headers(&ts.to_string(), &sig), b"mail"),
                Err("X-Pbemd-Timestamp is outside the allowed window"),
                "{ts}"
            );
        }
    }
}
