//! Observability (docs/gm/reliability.md, Parking, health and stopping): `/metrics` histograms of a
//! mail's handling latency and a resolution's duration, and JSON log lines whose span
//! fields name the game, the round, the realm and the message.

mod common;
#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use game_dir::{Dir, DEADLINE, SATURDAY, TUESDAY};

#[tokio::test]
async fn metrics_count_each_handled_mail_and_each_resolution_in_histograms() {
    let g = common::Game::start(TUESDAY).await;
    let empty = pbemd::web::metrics_text(&g.app).await.unwrap();
    assert!(
        empty.contains("pbemd_mail_handling_seconds_count 0\n"),
        "{empty}"
    );
    g.send(
        "afani@game.test",
        "Afani sends an envoy to Kaldor",
        "Peace.",
    );
    g.send("afani@game.test", "Afani form", "BUY 1 spy");
    g.tick(SATURDAY).await;
    g.tick(DEADLINE).await;
    let text = pbemd::web::metrics_text(&g.app).await.unwrap();
    assert!(
        text.contains("# TYPE pbemd_mail_handling_seconds histogram\n"),
        "{text}"
    );
    assert!(
        text.contains("pbemd_mail_handling_seconds_count 2\n"),
        "{text}"
    );
    assert!(
        text.contains("pbemd_mail_handling_seconds_bucket{le=\"+Inf\"} 2\n"),
        "{text}"
    );
    assert!(
        text.contains("pbemd_resolution_seconds_count 1\n"),
        "{text}"
    );
    assert!(text.contains("pbemd_parked 0\n"), "{text}");
}

#[test]
fn json_logs_carry_the_game_round_realm_and_message_id_of_each_mail() {
    let d = Dir::start();
    d.send(
        "afani@game.test",
        "Afani sends an envoy to Kaldor",
        "Peace.",
    );
    let out = d.cmd(
        &["--log-format", "json", "tick", "--now", SATURDAY],
        &[("RUST_LOG", "pbemd=debug,info")],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<serde_json::Value> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let mail = lines
        .iter()
        .filter_map(|l| l["spans"].as_array())
        .flatten()
        .find(|s| s["name"] == "mail" && s["realm"] == "Afani")
        .unwrap_or_else(|| panic!("no mail span naming Afani in {stderr}"));
    assert_eq!(mail["round"], 1, "{mail}");
    assert!(mail["game"].is_string(), "{mail}");
    assert!(
        mail["message_id"]
            .as_str()
            .is_some_and(|m| m.ends_with("@players.test")),
        "{mail}"
    );
}
