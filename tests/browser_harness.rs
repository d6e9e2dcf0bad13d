//! The browser harness itself: headless Chromium opens a page the daemon serves and a
//! screenshot lands under `target/screenshots/`.

#[path = "browser_common/mod.rs"]
mod browser;
mod common;

use std::sync::Arc;

use pbemd::app::App;
use pbemd::clock::FixedClock;
use pbemd::config::Config;

#[tokio::test]
async fn headless_chromium_reads_a_page_the_daemon_serves_and_saves_a_screenshot() {
    let Some(b) = browser::Browser::start().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg_path = pbemd::app::setup::new_game_dir(&dir.path().join("g"), None).unwrap();
    let text = std::fs::read_to_string(&cfg_path).unwrap() + "http: {listen: \"127.0.0.1:0\"}\n";
    let cfg = Config::from_yaml(&text, &cfg_path, &|_| None).unwrap();
    let clock = Arc::new(FixedClock::new(common::at("2026-11-24T10:00:00+01:00")));
    let app = Arc::new(App::open(cfg, clock).await.unwrap());
    let addr = browser::serve(app).await;
    b.client
        .goto(&format!("http://{addr}/healthz"))
        .await
        .unwrap();
    let text = b.page_text().await;
    let shot = b.screenshot("browser_harness_healthz").await;
    b.finish().await;
    assert!(
        text.contains("ok") || text.contains("not started"),
        "{text}"
    );
    let png = std::fs::read(shot).unwrap();
    assert_eq!(&png[1..4], b"PNG");
}
