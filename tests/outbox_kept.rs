//! A plain mail is queued in the outbox as its text and head and formatted when it is
//! read: every reader of a queued mail (the sender's claim, the player pages' form and
//! receipts, the resend of a form, the GM's and the tests' reads) gets the very bytes
//! the mail was formatted as when it was queued, on both backends. Mail with files, a
//! subject the store would change, and rows queued before keep their formatted bytes.

mod common;

use common::Game;
use pbemd::mail::compose::{self, Attachment, Outgoing};
use pbemd::store::{forms, inbox, messages, notices, outbox, site_player};
use sqlx::Row;

const TUESDAY: &str = "2026-11-24T10:00:00+01:00";

fn out(kind: &'static str, key: &str, subject: &str, body: &str, reply: Option<&str>) -> Outgoing {
    Outgoing {
        kind,
        dedup_key: key.into(),
        to: vec!["afani@game.test".into()],
        subject: subject.into(),
        body: body.into(),
        in_reply_to: reply.map(str::to_string),
    }
}

/// Mails of every shape a queued mail takes: Swedish text (quoted-printable), plain
/// ASCII (7bit), CR and CRLF and NUL in the text, a long line, an empty text, control
/// characters in the subject and in what it answers, two recipients, a Monday form and
/// a receipt (read by the player pages), and a subject with a NUL the store drops.
fn mails(receipt_key: &str) -> Vec<Outgoing> {
    let mut two = out("gm_notice", "two:1", "To both", "Hej båda", None);
    two.to.push("genogien@game.test".into());
    vec![
        out(
            "courier_receipt",
            "courier_receipt:1",
            "Re: Genogien skickar ett sändebud till Afani",
            "Sändebudet till Afani är avsänt.\nDet kostade 1 guld; kvar: 4 sändebud.\n",
            Some("bench-1@players.test"),
        ),
        out(
            "envoy_delivery",
            "dispatch:1:0",
            "Envoy from Genogien",
            "Plain text.\nRound 4.",
            None,
        ),
        out(
            "refusal",
            "refusal:2",
            "Re: Hej\u{7}\u{1b}[2J\r\nBcc: x@evil.test slut",
            "a\r\nb\rc\0d\n\n\ttab \n",
            Some("<odd\u{7}id@players.test>"),
        ),
        out(
            "envoy_delivery",
            "dispatch:3:0",
            "Long",
            &"å".repeat(3000),
            None,
        ),
        out("envoy_delivery", "dispatch:4:0", "", "", None),
        two,
        out(
            "result_form",
            "weekend:3:Afani",
            "Afani: vecka 3",
            "RESULTAT\nÖ 1\n",
            None,
        ),
        out(
            "form_receipt",
            receipt_key,
            "Re: Afani helgformulär",
            "Mottaget.\n",
            Some("f@x"),
        ),
        out(
            "refusal",
            "refusal:9",
            "Re: a\0b",
            "NUL in the subject",
            None,
        ),
    ]
}

/// Queue the mails on `g`'s store and check every reader against what `compose` gave
/// for each mail at the moment it was queued.
async fn every_reader_gets_the_bytes_formatted_when_queued(g: &Game) {
    let app = &g.app;
    // A weekend form of Afani, so the receipts page reads the receipt below.
    let mut tx = app.store.begin().await.unwrap();
    let raw = b"From: afani@game.test\r\nSubject: Afani helgformul\xc3\xa4r\r\n\r\nx\r\n";
    let stored = inbox::insert(
        &mut tx,
        &inbox::NewMail {
            dedup_key: "mid:form@x",
            message_id: Some("form@x"),
            sha256: "0",
            source: inbox::Source::Maildir,
            raw,
            size: raw.len(),
            received_at: 1,
            imap: None,
        },
    )
    .await
    .unwrap();
    let inbox::Stored::New(inbox_id) = stored else {
        panic!("stored")
    };
    let round = app.state(&mut tx).await.unwrap().1.round as i64;
    let message = messages::insert(
        &mut tx,
        &messages::NewMessage {
            inbox_id,
            kind: "form",
            realm: Some("Afani"),
            subject: "Afani helgformulär",
            body: "x",
            state: messages::state::ACCEPTED,
            round,
            at: 1,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    forms::insert(&mut tx, message, "Afani", round, 1, "x", None)
        .await
        .unwrap();
    let receipt_key = format!("receipt:{inbox_id}");
    let mails = mails(&receipt_key);
    let date = app.now().with_timezone(&app.schedule.timezone());
    let cfg = &app.cfg;
    let want: Vec<compose::Composed> = mails
        .iter()
        .map(|o| {
            compose::compose(
                o,
                &cfg.game_name,
                &cfg.display_name,
                &cfg.game_address,
                date,
            )
        })
        .collect::<Result<_, _>>()
        .unwrap();
    let refs: Vec<&Outgoing> = mails.iter().collect();
    app.enqueue_many(&mut tx, &refs).await.unwrap();
    // A mail with a file, formatted when queued.
    let file = Attachment {
        name: "karta.png".into(),
        content_type: "image/png".into(),
        bytes: vec![0x89, b'P', b'N', b'G', 0, 255],
    };
    let pictured = out(
        "result_form",
        "weekend:3:Genogien",
        "Genogien: vecka 3",
        "R\n",
        None,
    );
    let with_file = compose::compose_with(
        &pictured,
        std::slice::from_ref(&file),
        &cfg.game_name,
        &cfg.display_name,
        &cfg.game_address,
        date,
    )
    .unwrap();
    app.enqueue_with(&mut tx, &pictured, &[file]).await.unwrap();
    // A row queued formatted before mails were kept as their text.
    let before = b"From: sl@game.test\r\nSubject: old\r\n\r\nold row\r\n";
    outbox::enqueue(
        &mut tx,
        &outbox::NewOutgoing {
            dedup_key: "old:1",
            message_id: "<old@game.test>",
            kind: "gm_notice",
            to_addrs: &["sl@game.test".to_string()],
            from_addr: "sl@game.test",
            subject: "old",
            raw: before,
            kept: None,
            at: 1,
        },
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();

    let mut want_by_key: Vec<(String, Vec<u8>)> = mails
        .iter()
        .zip(&want)
        .map(|(o, c)| (o.dedup_key.clone(), c.raw.clone()))
        .collect();
    want_by_key.push(("weekend:3:Genogien".into(), with_file.raw.clone()));
    want_by_key.push(("old:1".into(), before.to_vec()));

    let mut c = app.store.conn().await.unwrap();
    // Which rows were kept as their text: every plain mail but the one whose subject
    // the store would change.
    let kept: Vec<(String, i64, i64)> = sqlx::query(
        "SELECT dedup_key, CASE WHEN head IS NULL THEN 0 ELSE 1 END, LENGTH(raw) FROM outbox \
         ORDER BY id",
    )
    .fetch_all(&mut *c)
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2)))
    .collect();
    for (key, is_kept, raw_len) in &kept {
        let plain = !["refusal:9", "weekend:3:Genogien", "old:1"].contains(&key.as_str());
        assert_eq!(*is_kept == 1, plain, "{key}");
        assert_eq!(*raw_len == 0, plain, "{key}");
    }

    // The tests' and the demo's reads.
    let all = outbox::all_mail(&mut c).await.unwrap();
    assert_eq!(all.len(), want_by_key.len());
    for ((_, _, got), (key, want)) in all.iter().zip(&want_by_key) {
        assert_eq!(
            String::from_utf8_lossy(got),
            String::from_utf8_lossy(want),
            "{key}"
        );
    }
    for (to, got) in outbox::raw_of_kind(&mut c, "envoy_delivery").await.unwrap() {
        assert_eq!(to, "afani@game.test");
        assert!(want_by_key.iter().any(|(_, w)| *w == got));
    }
    // The resend of a form reads the latest form.
    let (_, _, form) = notices::latest_form(&mut c, "Afani")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(form, want_by_key[6].1);
    drop(c);

    // The sender's claim, found by its Message-ID.
    let mut by_id: Vec<(String, &[u8])> = want
        .iter()
        .zip(&want_by_key)
        .map(|(c, (_, w))| (c.message_id.clone(), &w[..]))
        .collect();
    by_id.push((with_file.message_id.clone(), &with_file.raw));
    by_id.push(("<old@game.test>".into(), before));
    let mut tx = app.store.begin().await.unwrap();
    let claimed = outbox::claim_due(&app.store, &mut tx, i64::MAX / 2, 100, i64::MAX / 2)
        .await
        .unwrap();
    assert_eq!(claimed.len(), by_id.len());
    for p in &claimed {
        let (_, want) = by_id.iter().find(|(id, _)| *id == p.message_id).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&p.raw),
            String::from_utf8_lossy(want)
        );
        outbox::mark_sent(&mut tx, p.id, 2).await.unwrap();
    }
    tx.commit().await.unwrap();

    // The player pages: the latest mailed form and the receipts of the week's forms.
    let mut c = app.store.conn().await.unwrap();
    let (_, _, form) = site_player::latest_sent_form(&mut c, "Afani")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(form, want_by_key[6].1);
    let rows = site_player::forms_with_receipts(&mut c, "Afani", round)
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].receipt.as_deref(), Some(&want_by_key[7].1[..]));
}

#[tokio::test]
async fn a_mail_kept_as_its_text_reads_back_as_the_bytes_formatted_when_queued() {
    let g = Game::start(TUESDAY).await;
    every_reader_gets_the_bytes_formatted_when_queued(&g).await;
}

#[tokio::test]
async fn on_postgres_a_mail_kept_as_its_text_reads_back_as_the_bytes_formatted_when_queued() {
    let Some(url) = common::pg_database_url().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = pbemd::app::setup::new_game_dir(&dir.path().join("g"), None).unwrap();
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("database: sqlite:pbemd.db", &format!("database: {url}"));
    assert!(text.contains(&url), "the config names its database");
    std::fs::write(&cfg, text).unwrap();
    let g = Game::open_at(dir, &cfg, TUESDAY, true).await;
    every_reader_gets_the_bytes_formatted_when_queued(&g).await;
}
