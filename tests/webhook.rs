//! The inbound webhook over real HTTP on loopback: a valid signature stores the mail;
//! a missing, wrong or stale one gets 401 and nothing is stored.

mod common;

use std::sync::Arc;

use pbemd::app::App;
use pbemd::clock::FixedClock;
use pbemd::config::Config;
use pbemd::store::inbox;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const SECRET: &str = "webhook-test-secret";

type Started = (
    Arc<App>,
    std::net::SocketAddr,
    tempfile::TempDir,
    Arc<FixedClock>,
);

async fn start() -> Started {
    start_with("").await
}

async fn start_with(extra: &str) -> Started {
    let dir = tempfile::tempdir().unwrap();
    let cfg_path = pbemd::app::setup::new_game_dir(&dir.path().join("g"), None).unwrap();
    let text = std::fs::read_to_string(&cfg_path).unwrap()
        + "webhook: {secret_env: HOOK_SECRET, window_seconds: 300}\nhttp: {listen: \"127.0.0.1:0\"}\n"
        + extra;
    let cfg = Config::from_yaml(&text, &cfg_path, &|k| {
        (k == "HOOK_SECRET").then(|| SECRET.to_string())
    })
    .unwrap();
    let clock = Arc::new(FixedClock::new(common::at("2026-11-24T10:00:00+01:00")));
    let app = Arc::new(App::open(cfg, clock.clone()).await.unwrap());
    pbemd::app::setup::init(&app, clock_now(&clock), false)
        .await
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = pbemd::web::router(app.clone());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (app, addr, dir, clock)
}

fn clock_now(c: &FixedClock) -> chrono::DateTime<chrono::Utc> {
    use pbemd::clock::Clock;
    c.now()
}

/// A bare HTTP/1.1 POST; returns the status code.
async fn post(addr: std::net::SocketAddr, headers: &[(&str, String)], body: &[u8]) -> u16 {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut req = format!(
        "POST /inbound HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    s.write_all(body).await.unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).await.unwrap();
    resp.split_whitespace().nth(1).unwrap().parse().unwrap()
}

async fn stored(app: &App) -> i64 {
    let mut c = app.store.conn().await.unwrap();
    inbox::counts(&mut c).await.unwrap().0
}

#[tokio::test]
async fn webhook_accepts_a_valid_signature_and_refuses_missing_wrong_or_stale_ones() {
    let (app, addr, _dir, clock) = start().await;
    let body = common::mail(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "via webhook",
        "wh1@x",
    );
    let now = clock_now(&clock).timestamp();
    let sig = pbemd::web::sign(SECRET.as_bytes(), now, &body);

    assert_eq!(post(addr, &[], &body).await, 401, "no signature");
    assert_eq!(
        post(
            addr,
            &[
                ("X-Pbemd-Timestamp", now.to_string()),
                ("X-Pbemd-Signature", "sha256=00ff".into())
            ],
            &body
        )
        .await,
        401,
        "wrong signature"
    );
    let stale = now - 301;
    let stale_sig = pbemd::web::sign(SECRET.as_bytes(), stale, &body);
    assert_eq!(
        post(
            addr,
            &[
                ("X-Pbemd-Timestamp", stale.to_string()),
                ("X-Pbemd-Signature", stale_sig)
            ],
            &body
        )
        .await,
        401,
        "stale timestamp"
    );
    let other_key = pbemd::web::sign(b"not-the-secret", now, &body);
    assert_eq!(
        post(
            addr,
            &[
                ("X-Pbemd-Timestamp", now.to_string()),
                ("X-Pbemd-Signature", other_key)
            ],
            &body
        )
        .await,
        401,
        "signed with another key"
    );
    assert_eq!(
        stored(&app).await,
        0,
        "nothing stored from refused requests"
    );

    let ok = [
        ("X-Pbemd-Timestamp", now.to_string()),
        ("X-Pbemd-Signature", sig),
    ];
    assert_eq!(post(addr, &ok, &body).await, 202);
    assert_eq!(stored(&app).await, 1);
    assert_eq!(
        post(addr, &ok, &body).await,
        200,
        "a repeat is a duplicate, stored once"
    );
    assert_eq!(stored(&app).await, 1);

    // The webhook mail goes through the same pipeline as any other.
    let r = pbemd::app::tick::tick(&app).await.unwrap();
    assert_eq!((r.handled, r.delivered), (1, 1));
}

#[tokio::test]
async fn metrics_and_health_answer() {
    let (app, addr, _dir, _clock) = start().await;
    let text = pbemd::web::metrics_text(&app).await.unwrap();
    assert!(text.contains("pbemd_mails_received_total 0"), "{text}");
    assert!(text.contains("# TYPE pbemd_outbox_depth gauge"), "{text}");
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).await.unwrap();
    assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
}

#[tokio::test]
async fn webhook_bodies_above_max_mail_bytes_get_413_and_are_not_stored() {
    let (app, addr, _dir, clock) = start_with("limits: {max_mail_bytes: 4096}\n").await;
    let now = clock_now(&clock).timestamp();
    let signed = |body: &[u8]| {
        let sig = pbemd::web::sign(SECRET.as_bytes(), now, body);
        vec![
            ("X-Pbemd-Timestamp", now.to_string()),
            ("X-Pbemd-Signature", sig),
        ]
    };
    let mut body = common::mail(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "x",
        "big@x",
    );
    body.resize(4097, b'x');
    assert_eq!(post(addr, &signed(&body), &body).await, 413);
    assert_eq!(stored(&app).await, 0);
    body.truncate(4096);
    assert_eq!(
        post(addr, &signed(&body), &body).await,
        202,
        "at the limit it is taken"
    );
    assert_eq!(stored(&app).await, 1);
}
