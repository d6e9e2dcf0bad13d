//! The spine end to end on SQLite + Maildir: intake, classification, courier first cut,
//! deliveries, refusals, the GM queue, forms and Monday's result forms.

mod common;

use common::Game;
use pbemd::store::{inbox, messages};

// Tuesday 24 November 2026 is inside the weekday window (Mon 12:00 – Fri 23:59).
const TUESDAY: &str = "2026-11-24T09:00:00+01:00";

#[tokio::test]
async fn an_envoy_in_the_weekday_window_reaches_the_recipient_without_the_senders_address() {
    let g = Game::start(TUESDAY).await;
    g.send(
        "Genogien <genogien@game.test>",
        "Genogien skickar ett sändebud till Afani",
        "Fred vid gränsen!\n-- \nKung Gorm, genogien@game.test",
    );
    let r = g.tick("2026-11-24T10:00:00+01:00").await;
    assert_eq!((r.stored, r.handled, r.delivered), (1, 1, 1));
    let out = g.outbox();
    assert_eq!(out.len(), 2, "the envoy and the sender's receipt: {out:#?}");
    let envoy = out.iter().find(|m| m.to_is("afani@game.test")).unwrap();
    let receipt = out.iter().find(|m| m.to_is("genogien@game.test")).unwrap();
    assert!(
        receipt.text.contains("fria kvoten"),
        "R-AGENT-4 free allowance: {}",
        receipt.text
    );
    assert!(envoy.to_is("afani@game.test"));
    // Afani plays in English: the delivery is in English and names the sending realm.
    assert!(envoy.subject.contains("Genogien"), "{}", envoy.subject);
    assert!(envoy.text.contains("Fred vid gränsen!"), "{}", envoy.text);
    assert!(
        !envoy.raw.to_lowercase().contains("genogien@game.test"),
        "{}",
        envoy.raw
    );
    assert!(envoy.raw.contains("From: ") && envoy.raw.contains("sl@game.test"));
}

#[tokio::test]
async fn r_mail_11_an_envoy_at_the_weekend_is_refused_with_the_window_and_kept() {
    let g = Game::start(TUESDAY).await;
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Kaldor",
        "Hej",
    );
    g.tick("2026-11-28T10:00:00+01:00").await;
    let out: Vec<_> = g
        .outbox()
        .into_iter()
        .filter(|m| m.to_is("genogien@game.test"))
        .collect();
    assert_eq!(out.len(), 1, "{out:#?}");
    assert!(
        out[0].text.contains("måndag 12:00 – fredag 23:59"),
        "{}",
        out[0].text
    );
    assert!(
        out[0].text.contains("30 november 2026"),
        "next opening named: {}",
        out[0].text
    );
    assert_eq!(out[0].in_reply_to.as_deref(), Some("t0@players.test"));
    assert!(g.outbox().iter().all(|m| !m.to_is("kaldor@game.test")));
    let mut c = g.app.store.conn().await.unwrap();
    let refused = messages::in_states(&mut c, &[messages::state::REFUSED])
        .await
        .unwrap();
    assert_eq!(refused.len(), 1);
}

#[tokio::test]
async fn an_unknown_sender_gets_no_reply_and_waits_in_the_gm_queue() {
    let g = Game::start(TUESDAY).await;
    g.send(
        "stranger@elsewhere.test",
        "Genogien skickar ett sändebud till Afani",
        "hej",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    assert!(g.outbox().is_empty(), "no backscatter");
    let mut c = g.app.store.conn().await.unwrap();
    let q = messages::in_states(&mut c, &[messages::state::GM_QUEUE])
        .await
        .unwrap();
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].kind, "unknown_sender");
    assert_eq!(q[0].from_addr.as_deref(), Some("stranger@elsewhere.test"));
}

#[tokio::test]
async fn a_mail_of_no_known_kind_gets_a_reply_naming_the_right_forms() {
    let g = Game::start(TUESDAY).await;
    g.send(
        "kaldor@game.test",
        "Kaldor skickar en kamel till Afani",
        "guld",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    let out = g.outbox();
    assert_eq!(out.len(), 1);
    assert!(out[0].to_is("kaldor@game.test"));
    assert!(
        out[0].text.contains("Kaldor skickar en kamel till Afani"),
        "quotes the subject: {}",
        out[0].text
    );
    assert!(
        out[0].text.contains("skickar ett sändebud till"),
        "names the right form: {}",
        out[0].text
    );
}

/// At least 20 malformed mails: each gets a reply or a GM-queue entry; none crashes
/// the tick, none is lost.
#[tokio::test]
async fn malformed_mails_each_end_in_a_reply_or_the_gm_queue() {
    let g = Game::start(TUESDAY).await;
    let realm = "genogien@game.test";
    let cases: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"\x00\x01\x02\xff\xfe binary garbage \x00".to_vec(),
        b"no headers at all, just text\r\n".to_vec(),
        format!("From: {realm}\r\nMessage-ID: <m1@x>\r\n\r\nno subject").into_bytes(),
        format!("From: {realm}\r\nSubject: \r\nMessage-ID: <m2@x>\r\n\r\nempty subject").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien skickar ett sändebud till Atlantis\r\nMessage-ID: <m3@x>\r\n\r\nunknown realm").into_bytes(),
        format!("From: {realm}\r\nSubject: Atlantis skickar ett sändebud till Afani\r\nMessage-ID: <m4@x>\r\n\r\nunknown sender realm").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien skickar en drake till Afani\r\nMessage-ID: <m5@x>\r\n\r\nwrong kind").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien skickar ett sändebud Afani\r\nMessage-ID: <m6@x>\r\n\r\nmissing till").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien skickar ett sändebud till Genogien\r\nMessage-ID: <m7@x>\r\n\r\nto itself").into_bytes(),
        format!("From: {realm}\r\nSubject: Kaldor skickar ett sändebud till Afani\r\nMessage-ID: <m8@x>\r\n\r\nanother realm's name").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien skickar ett sändebud till Afani\r\nMessage-ID: <m9@x>\r\n\r\n").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien skickar ett sändebud till Afani\r\nMessage-ID: <m10@x>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"zz\"\r\n\r\n--zz\r\nContent-Type: text/plain\r\n\r\nbroken multipart, never closed").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien skickar ett sändebud till Afani\r\nMessage-ID: <m11@x>\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!! not base64 ????").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien skickar ett sändebud till Afani\r\nMessage-ID: <m12@x>\r\nContent-Type: text/plain; charset=x-klingon\r\n\r\nunknown charset").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien skickar ett sändebud till Afani\r\nMessage-ID: <m13@x>\r\nContent-Type: text/html\r\n\r\n<html><body><p>Only <b>HTML</b> here</p></body></html>").into_bytes(),
        format!("From: {realm}\r\nSubject: {}\r\nMessage-ID: <m14@x>\r\n\r\nhuge subject", "x".repeat(5000)).into_bytes(),
        b"Subject: Genogien skickar ett s\xc3\xa4ndebud till Afani\r\nMessage-ID: <m15@x>\r\n\r\nno From at all".to_vec(),
        b"From: not an address\r\nSubject: hello\r\nMessage-ID: <m16@x>\r\n\r\nbad from".to_vec(),
        format!("From: {realm}\r\nSubject: Genogien formulär\r\nMessage-ID: <m17@x>\r\n\r\nKÖP 1 spion\r\n").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien skickar en spion till Afani\r\nMessage-ID: <m18@x>\r\n\r\nUppdrag: resurser").into_bytes(),
        format!("From: {realm}\r\nSubject: =?utf-8?B?broken-encoded-word?=\r\nMessage-ID: <m19@x>\r\n\r\nbroken RFC 2047").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien till SL\r\nMessage-ID: <m20@x>\r\n\r\n").into_bytes(),
        format!("From: {realm}\r\nSubject: Genogien sends a merchant to\r\nMessage-ID: <m21@x>\r\n\r\nno destination").into_bytes(),
        format!("From: {realm}\r\nSubject: Re: Fwd: SV: VB: genogien SKICKAR ett SÄNDEBUD till AFANI\r\nMessage-ID: <m22@x>\r\n\r\nprefixes and case").into_bytes(),
    ];
    for raw in &cases {
        g.drop_raw(raw);
    }
    let r = g.tick("2026-11-24T10:00:00+01:00").await;
    let mut c = g.app.store.conn().await.unwrap();
    let (stored, waiting) = inbox::counts(&mut c).await.unwrap();
    assert_eq!(
        stored as usize,
        cases.len(),
        "every distinct mail is stored"
    );
    assert_eq!(waiting, 0, "every stored mail was handled");
    assert_eq!(r.handled, cases.len());
    let all = messages::all(&mut c).await.unwrap();
    assert_eq!(all.len(), cases.len());
    let replies = g.outbox();
    for m in &all {
        match m.state.as_str() {
            "gm_queue" => {}
            "refused" => assert!(
                replies
                    .iter()
                    .any(|r| r.to_is("genogien@game.test") && r.in_reply_to.is_some()),
                "refused message {} has a reply",
                m.id
            ),
            "routed" | "accepted" => {}
            other => panic!("message {} in unexpected state {other}", m.id),
        }
    }
    let refused = all.iter().filter(|m| m.state == "refused").count();
    assert!(
        refused >= 12,
        "most malformed mails are answered: {refused}"
    );
}

#[tokio::test]
async fn monday_noon_sends_every_realm_its_result_form() {
    let g = Game::start("2026-11-23T11:00:00+01:00").await;
    let r = g.tick("2026-11-23T12:00:00+01:00").await;
    assert!(
        r.events.iter().any(|e| e.ends_with("results")),
        "{:?}",
        r.events
    );
    let out = g.outbox();
    assert_eq!(
        out.len(),
        6,
        "{:#?}",
        out.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    let afani = out.iter().find(|m| m.to_is("afani@game.test")).unwrap();
    assert_eq!(
        afani.subject, "Afani form",
        "English realm, a subject a reply classifies by"
    );
    let genogien = out.iter().find(|m| m.to_is("genogien@game.test")).unwrap();
    assert_eq!(genogien.subject, "Genogien helgformulär");
    for m in &out {
        assert!(
            m.text.contains("=== ORDRAR / ORDERS"),
            "orders section in {}",
            m.subject
        );
        assert!(
            m.text.lines().all(|l| l.chars().count() <= 78),
            "line over 78 in {}",
            m.subject
        );
    }
}

#[tokio::test]
async fn the_latest_form_before_the_deadline_counts_and_a_late_one_is_refused() {
    let g = Game::start(TUESDAY).await;
    g.send("afani@game.test", "Afani form", "BUY 1 spy");
    g.tick("2026-11-28T10:00:00+01:00").await;
    g.send("afani@game.test", "Re: Afani form", "BUY 2 spy");
    g.tick("2026-11-29T14:59:59+01:00").await;
    g.send("afani@game.test", "Afani form", "BUY 3 spy");
    g.tick("2026-11-29T15:00:00+01:00").await;
    let to_afani: Vec<_> = g
        .outbox()
        .into_iter()
        .filter(|m| m.to_is("afani@game.test"))
        .collect();
    assert_eq!(to_afani.len(), 3, "two receipts and a refusal");
    assert!(to_afani[0].text.contains("Receipt"), "{}", to_afani[0].text);
    assert!(
        to_afani[1].text.contains("replaces your earlier form"),
        "{}",
        to_afani[1].text
    );
    assert!(
        to_afani[2].text.contains("Saturday 00:00 – Sunday 15:00"),
        "{}",
        to_afani[2].text
    );
    let mut c = g.app.store.conn().await.unwrap();
    let current = pbemd::store::forms::current(&mut c, "Afani", 1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        current.1,
        common::at("2026-11-29T14:59:59+01:00").timestamp_millis()
    );
}

#[tokio::test]
async fn the_same_mail_twice_is_handled_once_and_a_second_tick_does_nothing_new() {
    let g = Game::start(TUESDAY).await;
    let raw = common::mail(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "hej",
        "same@x",
    );
    g.drop_raw(&raw);
    g.drop_raw(&raw);
    let r = g.tick("2026-11-24T10:00:00+01:00").await;
    assert_eq!((r.stored, r.handled, r.delivered, r.sent), (1, 1, 1, 2));
    let r = g.tick("2026-11-24T10:00:00+01:00").await;
    assert_eq!((r.stored, r.handled, r.delivered, r.sent), (0, 0, 0, 0));
    assert_eq!(g.outbox().len(), 2, "one delivery, one receipt");
}

#[tokio::test]
async fn a_tick_before_the_games_latest_time_is_refused() {
    let g = Game::start(TUESDAY).await;
    g.tick("2026-11-24T10:00:00+01:00").await;
    g.clock.set(common::at("2026-11-24T09:59:59+01:00"));
    let err = pbemd::app::tick::tick(&g.app)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("never runs backwards"), "{err}");
}

#[tokio::test]
async fn with_reuse_last_a_silent_realm_keeps_last_rounds_orders_the_rules_still_allow() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = pbemd::app::setup::new_game_dir(&dir.path().join("g"), None).unwrap();
    let text = std::fs::read_to_string(&cfg).unwrap() + "forms: {missing: reuse-last}\n";
    std::fs::write(&cfg, text).unwrap();
    let g = Game::open_at(dir, &cfg, "2026-11-28T08:00:00+01:00", true).await;
    // Afani has room for exactly one more counted unit.
    g.edit_state(|gs| {
        let counted = gs.counted_units("Afani").counted();
        let cities: Vec<usize> = (0..gs.cities.len())
            .filter(|&i| gs.cities[i].owner == "Afani")
            .collect();
        for (n, &i) in cities.iter().enumerate() {
            gs.cities[i].population = if n == 0 { (counted + 1) * 10 } else { 0 };
        }
    })
    .await;
    // Round 1: Afani sends a form; round 2: nothing. The spy bought in round 1 fills
    // Afani's population cap, so buying one again is refused when checked for round 2;
    // the other two orders stand.
    g.send(
        "afani@game.test",
        "Afani form",
        "WISHLIST buy horses gold sell stone food\nFRIEND Genogien\nBUY 1 spy",
    );
    g.tick("2026-11-28T09:00:00+01:00").await;
    g.tick("2026-12-06T16:00:00+01:00").await;
    let mut c = g.app.store.conn().await.unwrap();
    assert!(pbemd::store::forms::current(&mut c, "Afani", 1)
        .await
        .unwrap()
        .is_some());
    let reused = pbemd::store::forms::current_orders(&mut c, "Afani", 2)
        .await
        .unwrap()
        .expect("reused in round 2");
    let checked: pbemd::forms::Checked = serde_json::from_str(&reused).unwrap();
    assert_eq!(checked.accepted(), 2, "{reused}");
    assert!(
        pbemd::store::forms::current(&mut c, "Kaldor", 2)
            .await
            .unwrap()
            .is_none(),
        "no form last round: nothing to reuse"
    );
    let gm: Vec<_> = g
        .outbox()
        .into_iter()
        // The missing-forms notice (the GM's report after the resolution is another).
        .filter(|m| m.to_is("gm@game.test") && m.subject.starts_with("Helgformulär runda"))
        .collect();
    assert!(
        gm.last().unwrap().text.contains("Afani (2 of 3)"),
        "{}",
        gm.last().unwrap().text
    );
}

#[tokio::test]
async fn reminders_go_only_to_realms_without_a_form_and_the_gm_learns_who_sent_nothing() {
    let g = Game::start("2026-11-28T08:00:00+01:00").await;
    g.send("afani@game.test", "Afani form", "BUY 1 spy");
    g.send("kaldor@game.test", "Kaldor helgformulär", "KÖP 1 spion");
    g.tick("2026-11-28T09:00:00+01:00").await;
    let before = g.outbox().len();
    // Reminders go out while their deadline is ahead (a catch-up past the deadline
    // skips them): ticks at each reminder time, then at the close.
    g.tick("2026-11-29T09:00:00+01:00").await;
    g.tick("2026-11-29T13:00:00+01:00").await;
    g.tick("2026-11-29T15:00:00+01:00").await;
    let all = g.outbox();
    let reminders: Vec<_> = all
        .iter()
        .filter(|m| m.text.starts_with("Påminnelse") || m.text.starts_with("Reminder"))
        .collect();
    // Two reminder times (09:00, 13:00) × the four realms without a form.
    assert_eq!(
        reminders.len(),
        8,
        "{:#?}",
        reminders
            .iter()
            .map(|m| (&m.to, &m.subject))
            .collect::<Vec<_>>()
    );
    for m in &reminders {
        assert!(
            !m.to_is("afani@game.test") && !m.to_is("kaldor@game.test"),
            "{:?}",
            m.to
        );
        assert!(
            m.text.contains("=== ORDRAR / ORDERS"),
            "the current form comes along"
        );
    }
    let ostvik = reminders
        .iter()
        .find(|m| m.to_is("ostvik@game.test"))
        .unwrap();
    assert_eq!(
        ostvik.subject, "Ostvik form",
        "a reply classifies as the form"
    );
    assert!(
        ostvik
            .text
            .contains("Forms are taken Saturday 28 November 00:00 – Sunday 29 November 15:00"),
        "{}",
        ostvik.text
    );
    // The missing-forms notice (the GM's report after the resolution is another).
    let gm: Vec<_> = all
        .iter()
        .filter(|m| m.to_is("gm@game.test") && m.subject.starts_with("Helgformulär runda"))
        .collect();
    assert_eq!(gm.len(), 1);
    assert!(gm[0].text.contains("(2): Afani, Kaldor"), "{}", gm[0].text);
    assert!(
        gm[0]
            .text
            .contains("(4): Genogien, Fugandri, Mirandel, Ostvik"),
        "{}",
        gm[0].text
    );
    // 8 reminders, the missing-forms notice and the GM's report of the resolution.
    assert_eq!(all.len(), before + 10);
}

/// SQLite: what a `tick` wrote is copied from the write-ahead log into the database
/// file before it ends (as the daemon does when it runs out of work), so a game run by
/// cron does not keep its changes in a log that grows toward SQLite's own limit.
#[tokio::test]
async fn a_tick_copies_what_it_wrote_from_the_log_into_the_database_file() {
    let g = Game::start("2026-11-23T12:30:00+01:00").await;
    let file = g.dir.path().join("g").join("pbemd.db");
    // Mail enough to add pages: 40 envoys of 20 KB.
    let body = "Vi föreslår handel med järn och timmer. ".repeat(500);
    for _ in 0..40 {
        g.send(
            "genogien@game.test",
            "Genogien skickar ett sändebud till Afani",
            &body,
        );
    }
    assert!(
        !settled(&g, &file).await,
        "before the tick, the new game's pages are still in the log"
    );
    g.tick("2026-11-24T09:00:00+01:00").await;
    assert!(
        settled(&g, &file).await,
        "after the tick, the file holds every page"
    );
}

/// Whether the database file holds every page the database has (its write-ahead log
/// copied back).
async fn settled(g: &Game, file: &std::path::Path) -> bool {
    let mut c = g.app.store.conn().await.unwrap();
    let pages: i64 = sqlx::query_scalar("PRAGMA page_count")
        .fetch_one(&mut *c)
        .await
        .unwrap();
    let size: i64 = sqlx::query_scalar("PRAGMA page_size")
        .fetch_one(&mut *c)
        .await
        .unwrap();
    std::fs::metadata(file).unwrap().len() == (pages * size) as u64
}
