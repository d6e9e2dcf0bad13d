//! Hostile player mail end to end: addresses hidden behind case-changing letters,
//! amounts that would overflow, over-limit mail from the Maildir, and arbitrary bytes
//! through the whole path from intake to outgoing mail.

mod common;

use common::Game;
use pbemd::store::{inbox, messages};

const TUESDAY: &str = "2026-11-24T09:00:00+01:00";
const LATER: &str = "2026-11-24T10:00:00+01:00";

fn registered(g: &Game) -> Vec<String> {
    let _ = g;
    vec![
        "genogien@game.test".into(),
        "afani@game.test".into(),
        "ostvik@game.test".into(),
    ]
}

#[tokio::test]
async fn an_envoy_with_case_changing_letters_reaches_the_other_realm_without_any_address() {
    let g = Game::start(TUESDAY).await;
    let bodies = [
        format!("{} ostvik@game.test end", "\u{212A}".repeat(40)),
        format!("{} ostvik@game.test end", "\u{130}".repeat(40)),
        format!(
            "{} ostvik@game.test {}",
            "\u{130}".repeat(16),
            "x".repeat(60)
        ),
        format!("{} GENOGIEN@Game.Test", "\u{130}".repeat(7)),
    ];
    for b in &bodies {
        g.send(
            "genogien@game.test",
            "Genogien skickar ett sändebud till Afani",
            b,
        );
    }
    g.tick(LATER).await;
    let to_afani: Vec<_> = g
        .outbox()
        .into_iter()
        .filter(|m| m.to_is("afani@game.test"))
        .collect();
    assert_eq!(to_afani.len(), bodies.len(), "every envoy is delivered");
    for m in &to_afani {
        let text = m.text.to_lowercase();
        for a in registered(&g) {
            assert!(!text.contains(&a), "{a} leaked in {}", m.text);
        }
        assert!(m.text.contains("address removed"), "{}", m.text);
    }
}

#[tokio::test]
async fn a_merchant_whose_amount_would_wrap_is_refused_with_a_reason_and_nothing_moves() {
    let g = Game::start(TUESDAY).await;
    let before = g.state().await.realm("Genogien").unwrap().stock;
    g.send(
        "genogien@game.test",
        "Genogien skickar en handelsman till Afani",
        "Handel.\n****\nSkickar: 4294967295 guld, 1 hästar",
    );
    g.tick(LATER).await;
    let out = g.outbox();
    assert!(
        out.iter().all(|m| !m.to_is("afani@game.test")),
        "nothing delivered"
    );
    let reply = out
        .iter()
        .find(|m| m.to_is("genogien@game.test"))
        .expect("a refusal to the sender");
    assert!(reply.text.contains("4294967295 guld"), "{}", reply.text);
    assert!(reply.text.contains("mer än 1000000"), "{}", reply.text);
    assert_eq!(g.state().await.realm("Genogien").unwrap().stock, before);
}

#[tokio::test]
async fn an_over_limit_maildir_mail_is_stored_truncated_left_in_the_mailbox_and_refused() {
    let g = Game::start_with(TUESDAY, "limits: {max_mail_bytes: 100000}\n").await;
    let body = "Långt brev.\n".repeat(30_000);
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        &body,
    );
    let original = std::fs::read_dir(g.inbox.root().join("new"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let size = std::fs::metadata(&original).unwrap().len() as usize;
    assert!(size > 300_000);
    g.tick(LATER).await;

    let mut c = g.app.store.conn().await.unwrap();
    let raw = inbox::raw(&mut c, 1).await.unwrap().unwrap();
    assert!(raw.len() < 100_000, "stored {} bytes", raw.len());
    assert!(raw.starts_with(b"From: genogien@game.test"));
    assert_eq!(inbox::truncated(&mut c, 1).await.unwrap(), Some(true));
    let kept: Vec<_> = std::fs::read_dir(g.inbox.root().join("cur"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "the original stays in the Maildir");
    assert_eq!(std::fs::metadata(&kept[0]).unwrap().len() as usize, size);
    let refused = messages::in_states(&mut c, &[messages::state::REFUSED])
        .await
        .unwrap();
    assert_eq!(refused.len(), 1);
    assert!(refused[0].body.len() < 100_000, "not copied whole again");
    drop(c);
    let reply = g
        .outbox()
        .into_iter()
        .find(|m| m.to_is("genogien@game.test"))
        .expect("the too-large refusal");
    assert!(reply.text.contains("för stort"), "{}", reply.text);
    assert!(reply.text.contains(&size.to_string()), "{}", reply.text);
    assert!(g.outbox().iter().all(|m| !m.to_is("afani@game.test")));
}

#[tokio::test]
async fn a_mail_at_the_limit_is_stored_whole() {
    let g = Game::start_with(TUESDAY, "limits: {max_mail_bytes: 100000}\n").await;
    let raw = common::mail(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "x",
        "edge@x",
    );
    let mut raw = raw;
    let pad = 100_000 - raw.len();
    raw.truncate(raw.len() - 2);
    raw.extend(std::iter::repeat_n(b'y', pad));
    raw.extend(b"\r\n");
    assert_eq!(raw.len(), 100_000);
    g.drop_raw(&raw);
    g.tick(LATER).await;
    let mut c = g.app.store.conn().await.unwrap();
    assert_eq!(inbox::raw(&mut c, 1).await.unwrap().unwrap(), raw);
    assert_eq!(inbox::truncated(&mut c, 1).await.unwrap(), Some(false));
}

mod whole_path {
    use super::*;
    use proptest::prelude::*;

    fn subject() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("Genogien skickar ett sändebud till Afani".to_string()),
            Just("Genogien skickar en handelsman till Afani".to_string()),
            Just("Genogien skickar en spion till Afani".to_string()),
            Just("Genogien skriver till SL".to_string()),
            Just("Genogien: helgformulär".to_string()),
            ".{0,60}",
        ]
    }

    fn body() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            Just("****".to_string()),
            Just("=== ORDRAR / ORDERS: skriv nedanför denna rad ===".to_string()),
            Just("=== SLUT PÅ ORDRAR / END OF ORDERS ===".to_string()),
            "(Skickar|Uppdrag|Inbjudan|Avsändare|KÖP|FLYTTA|BUD): [0-9A-Za-zåäö ,.]{0,30}",
            "[0-9]{1,11} (guld|hästar|mat|sten)",
            "[\u{212A}\u{130}]{0,20} (genogien|AFANI)@game\\.test",
            "(?s).{0,80}",
        ];
        proptest::collection::vec(line, 0..10).prop_map(|v| v.join("\n"))
    }

    /// Raw bytes: a well-formed mail around generated parts, or noise.
    fn raw_mail() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            3 => (subject(), body()).prop_map(|(s, b)| common::mail("genogien@game.test", &s, &b, "p@x")),
            1 => proptest::collection::vec(any::<u8>(), 0..400),
            1 => (body(), proptest::collection::vec(any::<u8>(), 0..60)).prop_map(|(b, noise)| {
                let mut m = common::mail("genogien@game.test", "Genogien skickar ett sändebud till Afani", &b, "q@x");
                let at = m.len() / 2;
                m.splice(at..at, noise);
                m
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Whatever bytes arrive, `tick` succeeds and no registered address reaches
        /// another realm.
        #[test]
        fn arbitrary_mail_never_stops_the_game_or_leaks_an_address(
            mails in proptest::collection::vec(raw_mail(), 1..4)
        ) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async {
                let g = Game::start(TUESDAY).await;
                for m in &mails {
                    g.drop_raw(m);
                }
                g.tick(LATER).await;
                for m in g.outbox() {
                    if m.to_is("afani@game.test") {
                        let t = m.text.to_lowercase();
                        assert!(!t.contains("genogien@game.test"), "{}", m.text);
                    }
                }
            });
        }
    }
}
