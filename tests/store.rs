//! The store's behaviour, the same on SQLite and PostgreSQL.

mod common;

use pbemd::store::{events, forms, inbox, messages, meta, outbox, schedule, state, Store};

fn mail<'a>(key: &'a str, raw: &'a [u8], at: i64) -> inbox::NewMail<'a> {
    inbox::NewMail {
        dedup_key: key,
        message_id: Some(key),
        sha256: "00",
        source: inbox::Source::Maildir,
        raw,
        size: raw.len(),
        received_at: at,
        imap: None,
    }
}

on_both_backends!(
    a_mail_stored_twice_is_kept_once,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        let first = inbox::insert(&mut c, &mail("mid:a@x", b"raw-a", 1))
            .await
            .unwrap();
        assert!(matches!(first, inbox::Stored::New(_)));
        let again = inbox::insert(&mut c, &mail("mid:a@x", b"other bytes", 2))
            .await
            .unwrap();
        assert_eq!(again, inbox::Stored::Duplicate);
        assert_eq!(inbox::counts(&mut c).await.unwrap(), (1, 1));
    }
);

on_both_backends!(
    mails_are_claimed_oldest_first_and_once,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        for k in ["mid:1", "mid:2"] {
            inbox::insert(&mut c, &mail(k, k.as_bytes(), 5))
                .await
                .unwrap();
        }
        drop(c);
        let mut tx = store.begin().await.unwrap();
        let w = inbox::claim_next(&store, &mut tx).await.unwrap().unwrap();
        assert_eq!(w.raw, b"mid:1");
        inbox::mark_done(&mut tx, w.id, 9).await.unwrap();
        tx.commit().await.unwrap();
        let mut tx = store.begin().await.unwrap();
        let w = inbox::claim_next(&store, &mut tx).await.unwrap().unwrap();
        assert_eq!(w.raw, b"mid:2");
        // Not committed: the claim is undone and the mail waits again.
        tx.rollback().await.unwrap();
        let mut c = store.conn().await.unwrap();
        assert_eq!(inbox::counts(&mut c).await.unwrap(), (2, 1));
    }
);

on_both_backends!(imap_cursor_round_trips, |store: Store| async move {
    let mut c = store.conn().await.unwrap();
    assert_eq!(inbox::imap_cursor(&mut c, "INBOX").await.unwrap(), None);
    inbox::set_imap_cursor(&mut c, "INBOX", 7, 41)
        .await
        .unwrap();
    inbox::set_imap_cursor(&mut c, "INBOX", 7, 42)
        .await
        .unwrap();
    assert_eq!(
        inbox::imap_cursor(&mut c, "INBOX").await.unwrap(),
        Some((7, 42))
    );
});

on_both_backends!(
    outbox_queues_a_key_once_and_retries_with_backoff,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        let to = vec!["afani@game.test".to_string()];
        let m = outbox::NewOutgoing {
            dedup_key: "deliver:1",
            message_id: "<a@game.test>",
            kind: "envoy",
            to_addrs: &to,
            from_addr: "sl@game.test",
            subject: "s",
            raw: b"bytes",
            at: 100,
        };
        let id = outbox::enqueue(&mut c, &m).await.unwrap();
        assert_eq!(outbox::enqueue(&mut c, &m).await.unwrap(), id);
        drop(c);
        let mut tx = store.begin().await.unwrap();
        let due = outbox::claim_due(&store, &mut tx, 100, 10, 150)
            .await
            .unwrap();
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].to_addrs, to);
        outbox::mark_attempt_failed(&mut tx, id, "connection refused", 200, false)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let mut tx = store.begin().await.unwrap();
        assert!(outbox::claim_due(&store, &mut tx, 199, 10, 250)
            .await
            .unwrap()
            .is_empty());
        assert_eq!(
            outbox::claim_due(&store, &mut tx, 200, 10, 250)
                .await
                .unwrap()
                .len(),
            1
        );
        outbox::mark_attempt_failed(&mut tx, id, "still refused", 400, true)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let mut c = store.conn().await.unwrap();
        let failed = outbox::failed_or_retrying(&mut c).await.unwrap();
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].state, "failed");
        assert_eq!(failed[0].attempts, 2);
        assert_eq!(outbox::counts(&mut c).await.unwrap(), (0, 1, 0));
    }
);

on_both_backends!(
    a_schedule_event_fires_once_per_instant,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        assert!(schedule::claim(&mut c, "results", "results", 1000, 1)
            .await
            .unwrap());
        assert!(!schedule::claim(&mut c, "results", "results", 1000, 2)
            .await
            .unwrap());
        assert!(schedule::claim(&mut c, "results", "results", 2000, 3)
            .await
            .unwrap());
        assert_eq!(schedule::fired(&mut c).await.unwrap().len(), 2);
    }
);

on_both_backends!(state_versions_never_fork, |store: Store| async move {
    let mut c = store.conn().await.unwrap();
    assert!(state::latest(&mut c).await.unwrap().is_none());
    assert_eq!(
        state::save(&mut c, 0, 1, 1, "{\"a\":1}", "init", 5)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        state::save(&mut c, 1, 1, 1, "{\"a\":2}", "change", 6)
            .await
            .unwrap(),
        2
    );
    // A second writer working from version 1 cannot also write version 2.
    assert!(state::save(&mut c, 1, 1, 1, "{\"a\":3}", "late", 7)
        .await
        .is_err());
    let latest = state::latest(&mut c).await.unwrap().unwrap();
    assert_eq!((latest.version, latest.doc.as_str()), (2, "{\"a\":2}"));
    assert_eq!(state::latest_version(&mut c).await.unwrap(), Some(2));
    assert_eq!(
        state::get(&mut c, 1).await.unwrap().unwrap().doc,
        "{\"a\":1}"
    );
    assert!(state::get(&mut c, 3).await.unwrap().is_none());
    events::log(&mut c, 6, 1, "state_changed", Some("Afani"), Some(2), "{}")
        .await
        .unwrap();
    assert_eq!(
        events::of_kind(&mut c, "state_changed")
            .await
            .unwrap()
            .len(),
        1
    );
});

on_both_backends!(
    the_latest_form_replaces_earlier_ones,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        let id = match inbox::insert(&mut c, &mail("mid:f", b"f", 1))
            .await
            .unwrap()
        {
            inbox::Stored::New(id) => id,
            _ => unreachable!(),
        };
        let msg = messages::insert(
            &mut c,
            &messages::NewMessage {
                inbox_id: id,
                kind: "form",
                subject: "Afani form",
                body: "orders",
                state: messages::state::ACCEPTED,
                round: 1,
                at: 1,
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let (first, replaced) = forms::insert(&mut c, msg, "Afani", 1, 10, "one", None)
            .await
            .unwrap();
        assert_eq!(replaced, None);
        let (second, replaced) = forms::insert(&mut c, msg, "Afani", 1, 20, "two", Some("[1]"))
            .await
            .unwrap();
        assert_eq!(replaced, Some((first, 10)));
        assert_eq!(
            forms::current(&mut c, "Afani", 1).await.unwrap(),
            Some((second, 20))
        );
        assert_eq!(
            forms::realms_with_form(&mut c, 1).await.unwrap(),
            vec!["Afani".to_string()]
        );
    }
);

on_both_backends!(meta_values_are_upserted, |store: Store| async move {
    let mut c = store.conn().await.unwrap();
    meta::set(&mut c, meta::LAST_NOW, "5").await.unwrap();
    meta::set(&mut c, meta::LAST_NOW, "6").await.unwrap();
    assert_eq!(
        meta::get_i64(&mut c, meta::LAST_NOW).await.unwrap(),
        Some(6)
    );
});

fn resolution(round: i64, seed: u64) -> pbemd::store::resolutions::NewResolution<'static> {
    pbemd::store::resolutions::NewResolution {
        round,
        base_version: 1,
        new_version: 2,
        orders: r#"{"forms":[]}"#,
        settings: "{}",
        seed,
        output_state: "{}",
        events: "[]",
        rolls: "[]",
        at: 5,
    }
}

on_both_backends!(
    one_resolution_per_round_stands_and_a_rolled_back_one_is_kept,
    |store: Store| async move {
        use pbemd::store::resolutions;
        let mut c = store.conn().await.unwrap();
        let first = resolutions::insert(&mut c, &resolution(1, u64::MAX))
            .await
            .unwrap();
        assert!(
            resolutions::insert(&mut c, &resolution(1, 2))
                .await
                .is_err(),
            "a second standing resolution of round 1 is refused"
        );
        let r = resolutions::standing(&mut c, 1).await.unwrap().unwrap();
        assert_eq!((r.id, r.seed), (first, u64::MAX), "a u64 seed round-trips");
        resolutions::mark_results_sent(&mut c, first, 7)
            .await
            .unwrap();
        resolutions::mark_rolled_back(&mut c, first, 8)
            .await
            .unwrap();
        assert!(resolutions::standing(&mut c, 1).await.unwrap().is_none());
        assert!(resolutions::results_went_out(&mut c, 1).await.unwrap());
        let second = resolutions::insert(&mut c, &resolution(1, 3))
            .await
            .unwrap();
        let latest = resolutions::latest_of(&mut c, 1).await.unwrap().unwrap();
        assert_eq!((latest.id, latest.rolled_back_at), (second, None));
        assert_eq!(
            resolutions::latest(&mut c).await.unwrap().unwrap().id,
            second
        );
    }
);
