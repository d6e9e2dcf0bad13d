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
            kept: None,
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
    only_mail_given_up_is_made_due_again_with_fresh_attempts,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        let to = vec!["afani@game.test".to_string()];
        let mut ids = Vec::new();
        for k in ["retry:failed", "retry:waiting", "retry:sent", "retry:new"] {
            let m = outbox::NewOutgoing {
                dedup_key: k,
                message_id: k,
                kind: "envoy",
                to_addrs: &to,
                from_addr: "sl@game.test",
                subject: "s",
                raw: b"bytes",
                kept: None,
                at: 100,
            };
            ids.push(outbox::enqueue(&mut c, &m).await.unwrap());
        }
        let [failed, waiting, sent, new] = ids[..] else {
            unreachable!()
        };
        outbox::mark_attempt_failed(&mut c, failed, "550 no such user", 900, true)
            .await
            .unwrap();
        outbox::mark_attempt_failed(&mut c, waiting, "421 later", 900, false)
            .await
            .unwrap();
        outbox::mark_sent(&mut c, sent, 101).await.unwrap();
        for id in [sent, new, waiting, 999_999] {
            assert!(!outbox::retry_now(&mut c, id, 200).await.unwrap(), "{id}");
        }
        let row = outbox::get(&mut c, waiting).await.unwrap().unwrap();
        assert_eq!(
            (row.state.as_str(), row.attempts),
            ("pending", 1),
            "a mail waiting for its next try may be in a sender's hands: left alone"
        );
        assert!(outbox::get(&mut c, 999_999).await.unwrap().is_none());
        let row = outbox::get(&mut c, failed).await.unwrap().unwrap();
        assert!(row.undelivered() && row.attempts == 1 && row.state == "failed");
        assert!(outbox::retry_now(&mut c, failed, 200).await.unwrap());
        let row = outbox::get(&mut c, failed).await.unwrap().unwrap();
        assert_eq!((row.state.as_str(), row.attempts), ("pending", 0));
        assert!(!row.undelivered(), "due again, not yet tried");
        let left: Vec<i64> = outbox::failed_or_retrying(&mut c)
            .await
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(left, [waiting]);
        drop(c);
        let mut tx = store.begin().await.unwrap();
        let due = outbox::claim_due(&store, &mut tx, 200, 10, 300)
            .await
            .unwrap();
        let due: Vec<i64> = due.iter().map(|p| p.id).collect();
        assert_eq!(
            due,
            vec![new, failed],
            "due now, the new one first; the waiting one keeps its own time"
        );
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

/// A JSON text of about `mib` MiB with two-byte letters, so that pieces are cut
/// between characters and the texts are told apart by `tag`.
fn long_doc(tag: &str, mib: usize) -> String {
    format!("{{\"{tag}\":\"{}\"}}", "å".repeat(mib << 19))
}

on_both_backends!(
    a_long_state_is_stored_in_pieces_and_read_back_whole,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        let big = long_doc("a", 3);
        state::save(&mut c, 0, 1, 1, &big, "init", 5).await.unwrap();
        state::save(&mut c, 1, 1, 1, "{}", "short", 6)
            .await
            .unwrap();
        let after_the_row: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM doc_pieces WHERE owner = 'state' AND row_id = 1",
        )
        .fetch_one(&mut *c)
        .await
        .unwrap();
        assert_eq!(
            after_the_row, 3,
            "3 MiB and a little: one piece in the row, three after it"
        );
        assert_eq!(state::get(&mut c, 1).await.unwrap().unwrap().doc, big);
        assert_eq!(state::latest(&mut c).await.unwrap().unwrap().doc, "{}");
        // A piece gone is damage, said so; never a shorter document.
        sqlx::query("DELETE FROM doc_pieces WHERE owner = 'state' AND seq = 2")
            .execute(&mut *c)
            .await
            .unwrap();
        let err = state::get(&mut c, 1).await.unwrap_err().to_string();
        assert!(err.contains("damaged"), "{err}");
    }
);

on_both_backends!(
    a_long_resolution_is_stored_in_pieces_and_read_back_whole,
    |store: Store| async move {
        use pbemd::store::resolutions;
        let mut c = store.conn().await.unwrap();
        let (state, events, rolls) = (long_doc("s", 2), long_doc("e", 1), long_doc("r", 1));
        let n = resolutions::NewResolution {
            output_state: &state,
            events: &events,
            rolls: &rolls,
            ..resolution(1, 9)
        };
        let id = resolutions::insert(&mut c, &n).await.unwrap();
        for r in [
            resolutions::standing(&mut c, 1).await.unwrap().unwrap(),
            resolutions::latest(&mut c).await.unwrap().unwrap(),
            resolutions::latest_of(&mut c, 1).await.unwrap().unwrap(),
        ] {
            assert_eq!(r.id, id);
            assert!(r.output_state == state && r.events == events && r.rolls == rolls);
            assert_eq!(
                (r.orders.as_str(), r.settings.as_str()),
                (n.orders, n.settings)
            );
        }
        let told = resolutions::standing_told(&mut c, 1)
            .await
            .unwrap()
            .unwrap();
        assert!(told.events == events, "the events alone, joined");
    }
);

/// A stored mail and its message of `round`, carrying a form: the message's id.
async fn message(c: &mut pbemd::store::Conn, key: &str, round: i64) -> i64 {
    let id = match inbox::insert(c, &mail(key, key.as_bytes(), 1))
        .await
        .unwrap()
    {
        inbox::Stored::New(id) => id,
        _ => unreachable!(),
    };
    messages::insert(
        c,
        &messages::NewMessage {
            inbox_id: id,
            kind: "form",
            subject: "form",
            body: "orders",
            state: messages::state::ACCEPTED,
            round,
            at: 1,
            ..Default::default()
        },
    )
    .await
    .unwrap()
}

on_both_backends!(
    the_latest_form_replaces_earlier_ones,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        let msg = message(&mut c, "mid:f", 1).await;
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

on_both_backends!(
    every_realms_standing_form_read_at_once_is_the_one_read_realm_by_realm,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        let (m1, m2, old) = (
            message(&mut c, "mid:a1", 2).await,
            message(&mut c, "mid:a2", 2).await,
            message(&mut c, "mid:b0", 1).await,
        );
        forms::insert(&mut c, m1, "Afani", 2, 10, "one", None)
            .await
            .unwrap();
        let (second, _) = forms::insert(&mut c, m2, "Afani", 2, 20, "two", Some("[2]"))
            .await
            .unwrap();
        // Bomarken's form for round 2 came in a mail of round 1 (carried over).
        let (carried, _) = forms::insert(&mut c, old, "Bomarken", 2, 5, "old", None)
            .await
            .unwrap();
        forms::insert(&mut c, m1, "Cirkonien", 3, 30, "next round", None)
            .await
            .unwrap();
        let all = forms::standing_all(&mut c, 2).await.unwrap();
        let mut realms: Vec<&str> = all.keys().map(String::as_str).collect();
        realms.sort_unstable();
        assert_eq!(realms, ["Afani", "Bomarken"], "only round 2's forms");
        for realm in realms {
            let one = forms::standing(&mut c, realm, 2).await.unwrap().unwrap();
            let f = &all[realm];
            assert_eq!(
                (f.id, f.message_id, f.received_at, &f.body, &f.orders),
                (
                    one.id,
                    one.message_id,
                    one.received_at,
                    &one.body,
                    &one.orders
                ),
                "{realm}"
            );
        }
        assert_eq!((all["Afani"].id, all["Bomarken"].id), (second, carried));
        let own = forms::realms_with_own_form(&mut c, 2).await.unwrap();
        assert_eq!(
            own.into_iter().collect::<Vec<_>>(),
            ["Afani".to_string()],
            "a form carried over from round 1 is not Bomarken's own"
        );
    }
);

on_both_backends!(
    the_monday_forms_read_a_standing_resolutions_events_and_whether_they_went_out,
    |store: Store| async move {
        use pbemd::store::resolutions;
        let mut c = store.conn().await.unwrap();
        assert!(resolutions::standing_told(&mut c, 1)
            .await
            .unwrap()
            .is_none());
        let mut r = resolution(1, 4);
        r.events = r#"[{"told":1}]"#;
        let id = resolutions::insert(&mut c, &r).await.unwrap();
        let told = resolutions::standing_told(&mut c, 1)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (told.id, told.events.as_str(), told.results_sent_at),
            (id, r#"[{"told":1}]"#, None)
        );
        resolutions::mark_results_sent(&mut c, id, 7).await.unwrap();
        let told = resolutions::standing_told(&mut c, 1)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(told.results_sent_at, Some(7));
        resolutions::mark_rolled_back(&mut c, id, 8).await.unwrap();
        assert!(
            resolutions::standing_told(&mut c, 1)
                .await
                .unwrap()
                .is_none(),
            "a rolled-back resolution tells nothing"
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

on_both_backends!(
    a_batch_of_mails_is_stored_once_each_in_order_with_repeats_as_duplicates,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        inbox::insert(&mut c, &mail("mid:old", b"old", 1))
            .await
            .unwrap();
        // More than one statement's worth of rows, a repeat inside the batch and one of
        // a mail stored before.
        let keys: Vec<String> = (0..1203).map(|i| format!("mid:{i}")).collect();
        let mut batch: Vec<inbox::NewMail> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| mail(k, k.as_bytes(), 10 + i as i64))
            .collect();
        batch.insert(7, mail("mid:3", b"repeat", 50));
        batch.push(mail("mid:old", b"old again", 2));
        let stored = inbox::insert_many(&mut c, &batch).await.unwrap();
        assert_eq!(stored.len(), batch.len());
        assert_eq!(
            stored[7],
            inbox::Stored::Duplicate,
            "the repeat in the batch"
        );
        assert_eq!(stored[batch.len() - 1], inbox::Stored::Duplicate);
        let new: Vec<i64> = stored
            .iter()
            .filter_map(|s| match s {
                inbox::Stored::New(id) => Some(*id),
                inbox::Stored::Duplicate => None,
            })
            .collect();
        assert_eq!(new.len(), 1203);
        assert_eq!(inbox::counts(&mut c).await.unwrap(), (1204, 1204));
        drop(c);
        // Claimed in order of receipt, a batch at a time, and only before `before`.
        let mut tx = store.begin_write().await.unwrap();
        let first = inbox::claim_batch_before(&store, &mut tx, Some(900), 150)
            .await
            .unwrap();
        assert_eq!(first.len(), 150);
        assert_eq!(first[0].raw, b"old", "received at 1, first");
        assert!(first
            .windows(2)
            .all(|w| w[0].received_at <= w[1].received_at));
        assert!(first.iter().all(|w| w.received_at < 900));
        let ids: Vec<i64> = first.iter().map(|w| w.id).collect();
        inbox::mark_done_many(&mut tx, &ids, 5).await.unwrap();
        tx.commit().await.unwrap();
        let mut c = store.conn().await.unwrap();
        assert_eq!(inbox::counts(&mut c).await.unwrap(), (1204, 1054));
    }
);

on_both_backends!(
    a_batch_claims_at_most_its_bytes_of_stored_mail_and_at_least_one,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        // Five mails of a fifth of the bound each, then one over it.
        let big = vec![b'x'; (inbox::CLAIM_BYTES / 5) as usize];
        let huge = vec![b'y'; inbox::CLAIM_BYTES as usize + 1];
        let keys: Vec<String> = (0..6).map(|i| format!("big:{i}")).collect();
        for (i, k) in keys.iter().enumerate() {
            let raw: &[u8] = if i < 5 { &big } else { &huge };
            inbox::insert(&mut c, &mail(k, raw, 10 + i as i64))
                .await
                .unwrap();
        }
        drop(c);
        let mut claimed = Vec::new();
        loop {
            let mut tx = store.begin_write().await.unwrap();
            let batch = inbox::claim_batch_before(&store, &mut tx, None, 500)
                .await
                .unwrap();
            if batch.is_empty() {
                break;
            }
            let bytes: usize = batch.iter().map(|w| w.raw.len()).sum();
            assert!(
                batch.len() == 1 || bytes as u64 <= inbox::CLAIM_BYTES,
                "{} mails, {bytes} bytes",
                batch.len()
            );
            let ids: Vec<i64> = batch.iter().map(|w| w.id).collect();
            inbox::mark_done_many(&mut tx, &ids, 5).await.unwrap();
            tx.commit().await.unwrap();
            claimed.push(batch.len());
        }
        assert_eq!(claimed, [5, 1], "five fit, the large one comes alone");
    }
);

on_both_backends!(
    a_batch_of_outgoing_mail_keeps_its_order_and_finds_keys_queued_before,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        let to = vec!["a@x".to_string()];
        let row = |k: &'static str| outbox::NewOutgoing {
            dedup_key: k,
            message_id: "<m@x>",
            kind: "test",
            to_addrs: &to,
            from_addr: "sl@x",
            subject: "s",
            raw: b"raw",
            kept: None,
            at: 1,
        };
        let before = outbox::enqueue(&mut c, &row("k2")).await.unwrap();
        let ids = outbox::enqueue_many(&mut c, &[row("k1"), row("k2"), row("k3")])
            .await
            .unwrap();
        assert_eq!(ids[1], before, "a key queued before keeps its row");
        assert!(ids[0] < ids[2] && ids[0] != before && ids[2] != before);
        let found = outbox::ids_of(&mut c, &["k3", "nope"]).await.unwrap();
        assert_eq!(found, vec![("k3".to_string(), ids[2])]);
        // Many messages and events in few statements, each message's id in order.
        let mut inbox_ids = Vec::new();
        for i in 1..=3 {
            match inbox::insert(&mut c, &mail(&format!("mid:{i}"), b"r", i))
                .await
                .unwrap()
            {
                inbox::Stored::New(id) => inbox_ids.push(id),
                inbox::Stored::Duplicate => unreachable!("a new key"),
            }
        }
        let new = queued_envoys(&inbox_ids);
        let ids = messages::insert_many(&mut c, &new).await.unwrap();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        messages::set_state_many(&mut c, &ids[..2], "routed", 2)
            .await
            .unwrap();
        for (id, want) in ids.iter().zip(["routed", "routed", "queued"]) {
            let m = messages::get(&mut c, *id).await.unwrap().unwrap();
            assert_eq!(m.state, want);
        }
        let evs: Vec<events::NewEvent> = ids
            .iter()
            .map(|id| events::NewEvent {
                at: 3,
                round: 1,
                kind: "courier_queued",
                realm: Some("Afani".into()),
                ref_id: Some(*id),
                detail: "envoy".into(),
            })
            .collect();
        events::log_many(&mut c, &evs).await.unwrap();
        let logged = events::of_kind(&mut c, "courier_queued").await.unwrap();
        let refs: Vec<Option<i64>> = logged.iter().map(|e| e.ref_id).collect();
        assert_eq!(refs, ids.iter().map(|i| Some(*i)).collect::<Vec<_>>());
    }
);

on_both_backends!(
    the_ids_a_batch_is_given_back_are_the_rows_it_wrote_across_statements,
    |store: Store| async move {
        use sqlx::Row;
        let mut c = store.conn().await.unwrap();
        // 1,200 mails (three statements of 500), some stored before, one key twice in
        // a statement and one twice across statements: what SQLite is not asked to read
        // back must be what PostgreSQL returns.
        let keys: Vec<String> = (0..1200).map(|i| format!("mid:{i}")).collect();
        let mut batch: Vec<&str> = keys.iter().map(String::as_str).collect();
        batch[7] = "mid:3";
        batch[900] = "mid:20";
        for before in ["mid:5", "mid:600", "mid:1199"] {
            inbox::insert(&mut c, &mail(before, b"r", 1)).await.unwrap();
        }
        let mails: Vec<_> = batch.iter().map(|k| mail(k, b"r", 2)).collect();
        let stored = inbox::insert_many(&mut c, &mails).await.unwrap();
        let mut seen = std::collections::HashSet::new();
        let mut new_ids = Vec::new();
        for (k, s) in batch.iter().zip(&stored) {
            let first = seen.insert(*k) && !["mid:5", "mid:600", "mid:1199"].contains(k);
            match s {
                inbox::Stored::New(id) => {
                    assert!(first, "{k} is new");
                    let row = sqlx::query("SELECT dedup_key FROM inbox WHERE id = $1")
                        .bind(*id)
                        .fetch_one(&mut *c)
                        .await
                        .unwrap();
                    assert_eq!(row.get::<String, _>(0), *k, "the row of {k}");
                    new_ids.push(*id);
                }
                inbox::Stored::Duplicate => assert!(!first, "{k} is a duplicate"),
            }
        }
        assert_eq!(new_ids.len(), 1200 - 2 - 3);
        // Their messages, and outgoing mail keyed like the courier's, the same way.
        let new = queued_envoys(&new_ids);
        let ids = messages::insert_many(&mut c, &new).await.unwrap();
        for (id, inbox_id) in ids.iter().zip(&new_ids) {
            assert_eq!(
                messages::get(&mut c, *id).await.unwrap().unwrap().inbox_id,
                *inbox_id
            );
        }
        let to = vec!["a@x".to_string()];
        let out_keys: Vec<String> = ids.iter().map(|i| format!("receipt:{i}")).collect();
        fn row<'a>(k: &'a str, to: &'a [String]) -> outbox::NewOutgoing<'a> {
            outbox::NewOutgoing {
                dedup_key: k,
                message_id: "<m@x>",
                kind: "test",
                to_addrs: to,
                from_addr: "sl@x",
                subject: "s",
                raw: b"raw",
                kept: None,
                at: 1,
            }
        }
        let early = outbox::enqueue(&mut c, &row(&out_keys[700], &to))
            .await
            .unwrap();
        let mut rows: Vec<_> = out_keys.iter().map(|k| row(k, &to)).collect();
        rows.push(row(&out_keys[0], &to));
        let out_ids = outbox::enqueue_many(&mut c, &rows).await.unwrap();
        assert_eq!(out_ids[700], early);
        assert_eq!(out_ids[out_keys.len()], out_ids[0]);
        let found: std::collections::HashMap<String, i64> = outbox::ids_of(
            &mut c,
            &out_keys.iter().map(String::as_str).collect::<Vec<_>>(),
        )
        .await
        .unwrap()
        .into_iter()
        .collect();
        for (k, id) in out_keys.iter().zip(&out_ids) {
            assert_eq!(found[k], *id, "{k}");
        }
    }
);

/// Writers of one process get SQLite's write lock in the order they asked for it, each
/// as soon as the one before commits. (Left to SQLite's busy wait, each waiter sleeps
/// on its own growing schedule, so a later one often wakes first.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_of_one_process_take_their_turns_in_order_of_arrival() {
    let (store, _dir) = common::sqlite_store().await;
    let store = std::sync::Arc::new(store);
    let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let holder = store.begin_write().await.unwrap();
    let mut waiters = Vec::new();
    for i in 0..6 {
        let (store, order) = (store.clone(), order.clone());
        waiters.push(tokio::spawn(async move {
            let mut tx = store.begin_write().await.unwrap();
            order.lock().unwrap().push(i);
            meta::set(&mut tx, &format!("turn-{i}"), "x").await.unwrap();
            tx.commit().await.unwrap();
        }));
        // Each waiter is queued before the next one asks.
        tokio::time::sleep(std::time::Duration::from_millis(15)).await;
    }
    holder.commit().await.unwrap();
    for w in waiters {
        w.await.unwrap();
    }
    assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4, 5]);
}

/// SQLite: a burst's writes wait in the write-ahead log (no copying mid-burst), and
/// `checkpoint` (the worker calls it when it runs out of work) copies them into the
/// database file.
#[tokio::test]
async fn sqlite_writes_wait_in_the_log_until_the_idle_checkpoint_copies_them() {
    let (store, dir) = common::sqlite_store().await;
    let file = dir.path().join("t.db");
    let size = || std::fs::metadata(&file).unwrap().len();
    // What the migrations wrote is copied first, so the file starts settled.
    store.checkpoint().await.unwrap();
    let settled = size();
    // 12 MB: past SQLite's own default of copying (1,000 pages), under pbemd's 1 GB.
    let raw = vec![b'x'; 40_000];
    let keys: Vec<String> = (0..300).map(|i| format!("mid:{i}@x")).collect();
    let mails: Vec<_> = keys.iter().map(|k| mail(k, &raw, 1)).collect();
    let mut c = store.conn().await.unwrap();
    inbox::insert_many(&mut c, &mails).await.unwrap();
    drop(c);
    assert_eq!(size(), settled, "12 MB of mail is still in the log");
    store.checkpoint().await.unwrap();
    assert!(
        size() > settled + 12_000_000,
        "the checkpoint copied the mail into the file: {} → {}",
        settled,
        size()
    );
}

/// A queued envoy message for each stored mail of `inbox_ids`.
fn queued_envoys(inbox_ids: &[i64]) -> Vec<messages::NewMessage<'static>> {
    inbox_ids
        .iter()
        .map(|&inbox_id| messages::NewMessage {
            inbox_id,
            kind: "envoy",
            subject: "s",
            body: "b",
            state: "queued",
            round: 1,
            at: 1,
            ..Default::default()
        })
        .collect()
}

on_both_backends!(
    texts_are_bound_as_given_and_without_their_nuls,
    |store: Store| async move {
        use sqlx::Row;
        let mut c = store.conn().await.unwrap();
        // Each text twice: plain (bound as it is) and with NULs (bound without them);
        // two recipients (joined) and one (bound as it is).
        for (n, text) in ["plain: å, \"quoted\", 'single'", "with\0 a\0 NUL\0"]
            .into_iter()
            .enumerate()
        {
            let key = format!("mid:{n}{text}");
            let stored = inbox::insert(&mut c, &mail(&key, b"raw", 1)).await.unwrap();
            let inbox::Stored::New(inbox_id) = stored else {
                panic!("stored")
            };
            let mid: String = sqlx::query("SELECT dedup_key, message_id FROM inbox WHERE id = $1")
                .bind(inbox_id)
                .fetch_one(&mut *c)
                .await
                .unwrap()
                .get(1);
            assert_eq!(mid, key.replace('\0', ""), "inbox message id");
            let id = messages::insert(
                &mut c,
                &messages::NewMessage {
                    inbox_id,
                    kind: "envoy",
                    from_addr: Some(text),
                    subject: text,
                    body: text,
                    state: "queued",
                    reason: Some(text),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
            let m = messages::get(&mut c, id).await.unwrap().unwrap();
            let clean = text.replace('\0', "");
            assert_eq!(
                (
                    m.from_addr.as_deref(),
                    &m.subject,
                    &m.body,
                    m.reason.as_deref()
                ),
                (Some(clean.as_str()), &clean, &clean, Some(clean.as_str()))
            );
            events::log_many(
                &mut c,
                &[events::NewEvent {
                    at: 1,
                    round: 1,
                    kind: "bind_test",
                    realm: None,
                    ref_id: Some(id),
                    detail: text.to_string(),
                }],
            )
            .await
            .unwrap();
            let e = events::of_kind(&mut c, "bind_test").await.unwrap();
            assert_eq!(e.last().unwrap().detail, clean, "event detail");
            for to in [
                vec![format!("a{n}@x.test")],
                vec![format!("a{n}@x.test"), "b@x.test".into()],
            ] {
                let dedup = format!("bind:{n}:{}", to.len());
                outbox::queue_many(
                    &mut c,
                    &[outbox::NewOutgoing {
                        dedup_key: &dedup,
                        message_id: "<m@x>",
                        kind: "bind_test",
                        to_addrs: &to,
                        from_addr: "game@x.test",
                        subject: text,
                        raw: b"raw",
                        kept: None,
                        at: 1,
                    }],
                )
                .await
                .unwrap();
                let r = sqlx::query("SELECT to_addrs, subject FROM outbox WHERE dedup_key = $1")
                    .bind(dedup.as_str())
                    .fetch_one(&mut *c)
                    .await
                    .unwrap();
                assert_eq!(r.get::<String, _>(0), to.join(", "), "recipients");
                assert_eq!(r.get::<String, _>(1), clean, "outbox subject");
            }
            // A weekend's resolution: its documents are bound borrowed, or cleaned.
            use pbemd::store::resolutions;
            let round = n as i64 + 1;
            let row = resolutions::NewResolution {
                orders: text,
                output_state: text,
                events: text,
                ..resolution(round, 1)
            };
            resolutions::insert(&mut c, &row).await.unwrap();
            let r = resolutions::standing(&mut c, round).await.unwrap().unwrap();
            assert_eq!(
                (&r.orders, &r.output_state, &r.events),
                (&clean, &clean, &clean),
                "resolution documents"
            );
        }
    }
);
