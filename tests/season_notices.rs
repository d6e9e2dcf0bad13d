//! docs/gm/season.md, Notices, resends and flood control: `gm notice` on the next Monday forms
//! (or mailed now), a realm's latest form sent again on request, and the hourly limit
//! of replies to one realm, driven through the real binary.

mod common;

use std::time::Instant;

#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use game_dir::*;
use pbemd::store::{notices, outbox, Store};

const NEXT_DEADLINE: &str = "2026-12-06T15:00:00+01:00";
const NEXT_MONDAY: &str = "2026-12-07T12:00:00+01:00";
const NOTICE: &str = "Juluppehåll: ingen helg den 26–27 december.";

fn address(realm: &str) -> String {
    format!("{}@game.test", realm.to_lowercase())
}

/// The Monday result forms among `mails` (their bodies carry the form's title line).
fn result_forms(mails: &[common::Sent]) -> Vec<&common::Sent> {
    mails
        .iter()
        .filter(|m| {
            m.text.contains("Results and weekend form for")
                || m.text.contains("Resultat och helgformulär för")
        })
        .collect()
}

fn form_of<'a>(forms: &[&'a common::Sent], realm: &str) -> &'a common::Sent {
    forms
        .iter()
        .find(|m| m.to == [address(realm)])
        .unwrap_or_else(|| panic!("no form for {realm}"))
}

fn ids(mails: &[common::Sent]) -> Vec<String> {
    mails.iter().map(|m| m.message_id.clone()).collect()
}

/// The heading of the notices block in the realm's language (Afani and Ostvik play in
/// English).
fn heading(realm: &str) -> &'static str {
    match realm {
        "Afani" | "Ostvik" => "== NOTICE FROM THE GM ==",
        _ => "== MEDDELANDE FRÅN SPELLEDAREN ==",
    }
}

/// The notice is at the top: the text begins with the heading, and the notice comes
/// before the form's title.
fn assert_on_top(m: &common::Sent, realm: &str, text: &str) {
    let body = m.text.replace("\r\n", "\n");
    assert!(
        body.starts_with(&format!("{}\n{text}", heading(realm))),
        "{realm}: {body}"
    );
}

#[test]
fn a_notice_for_every_realm_tops_the_next_monday_forms_survives_a_rollback_and_is_printed_once() {
    let d = Dir::start();
    let out = d.ok(&["gm", "notice", NOTICE]);
    assert!(out.contains("waits for the next Monday forms"), "{out}");
    let preview = d.ok(&["gm", "preview", "--realm", "Afani"]);
    let top = format!("{}\n{NOTICE}\n", heading("Afani"));
    let at = preview.find(&top).expect(&preview);
    assert!(
        at < preview.find("Results and weekend form").unwrap(),
        "{preview}"
    );

    // Resolved, rolled back and resolved again before the results: still waiting.
    d.tick(DEADLINE);
    d.ok(&["gm", "rollback"]);
    d.ok(&["gm", "resolve"]);
    d.tick(MONDAY);
    let mails = d.outbox();
    let forms = result_forms(&mails);
    assert_eq!(forms.len(), REALMS.len(), "one Monday form per realm");
    for realm in REALMS {
        assert_on_top(form_of(&forms, realm), realm, NOTICE);
    }

    // A correction of the same round carries it again.
    d.ok(&["gm", "rollback"]);
    d.ok(&["gm", "resolve"]);
    let corrected = d.outbox_since(&ids(&mails));
    let corrected_forms = result_forms(&corrected);
    assert_eq!(corrected_forms.len(), REALMS.len());
    let kaldor = form_of(&corrected_forms, "Kaldor");
    assert!(kaldor.text.starts_with("RÄTTELSE"), "{}", kaldor.text);
    assert!(kaldor.text.contains(NOTICE), "{}", kaldor.text);

    // The week after: no form carries it any more.
    let seen = ids(&d.outbox());
    d.tick(NEXT_DEADLINE);
    d.tick(NEXT_MONDAY);
    let later = d.outbox_since(&seen);
    let later_forms = result_forms(&later);
    assert_eq!(later_forms.len(), REALMS.len());
    assert!(later_forms.iter().all(|m| !m.text.contains("Juluppehåll")));
    assert!(!d.ok(&["gm", "preview"]).contains("Juluppehåll"));

    let log = d.ok(&["gm", "log"]);
    assert_eq!(log.matches(" gm_notice ").count(), 1, "{log}");
    assert!(log.contains("Juluppehåll"), "{log}");
    assert!(log.contains("gm_notices_printed"), "{log}");
}

#[test]
fn a_notice_for_one_realm_is_on_that_realms_form_only() {
    let d = Dir::start();
    let out = d.ok(&[
        "gm", "notice", "--realm", "östvik", "Your", "capital", "is", "safe.",
    ]);
    assert!(out.contains("Ostvik"), "{out}");
    d.tick(DEADLINE);
    d.tick(MONDAY);
    let mails = d.outbox();
    let forms = result_forms(&mails);
    assert_on_top(form_of(&forms, "Ostvik"), "Ostvik", "Your capital is safe.");
    for realm in REALMS.iter().filter(|r| **r != "Ostvik") {
        let text = &form_of(&forms, realm).text;
        assert!(!text.contains("capital is safe"), "{realm}: {text}");
        assert!(!text.contains("SPELLEDAREN ==") && !text.contains("FROM THE GM =="));
    }
    let log = d.ok(&["gm", "log", "--realm", "Ostvik"]);
    assert!(log.contains("gm_notice"), "{log}");

    // The form still reads back with the notice on top: a reply with an order counts.
    let form = form_of(&forms, "Ostvik").text.replace("\r\n", "\n");
    let marker = "=== ORDRAR / ORDERS: skriv nedanför denna rad ===";
    let filled = form.replacen(marker, &format!("{marker}\nBUY 1 spy"), 1);
    let seen = ids(&mails);
    d.send("ostvik@game.test", "Re: Ostvik form", &filled);
    d.tick("2026-12-05T10:00:00+01:00");
    let receipt = d.outbox_since(&seen);
    assert_eq!(receipt.len(), 1, "{receipt:#?}");
    assert!(
        receipt[0].text.contains("1 order accepted"),
        "{}",
        receipt[0].text
    );
}

#[test]
fn a_notice_with_now_is_mailed_at_once_to_each_realm_in_its_language_and_not_on_the_forms() {
    let d = Dir::start();
    let text = "Servern flyttar i kväll.\u{1b}[31m Tack!\u{7}";
    let out = d.ok(&["gm", "notice", "--now", text]);
    assert!(out.contains("mailed now"), "{out}");
    let mails = d.outbox();
    assert_eq!(
        mails.len(),
        REALMS.len(),
        "one mail per realm, nothing else"
    );
    for realm in REALMS {
        let m = mails.iter().find(|m| m.to == [address(realm)]).unwrap();
        let subject = match realm {
            "Afani" | "Ostvik" => "Notice from the GM",
            _ => "Meddelande från spelledaren",
        };
        assert_eq!(m.subject, subject);
        assert_on_top(m, realm, "Servern flyttar i kväll.[31m Tack!");
        assert!(!m.raw.contains('\u{1b}') && !m.raw.contains('\u{7}'));
    }
    d.tick(DEADLINE);
    d.tick(MONDAY);
    let forms = d.outbox_since(&ids(&mails));
    assert_eq!(result_forms(&forms).len(), REALMS.len());
    assert!(forms.iter().all(|m| !m.text.contains("Servern flyttar")));
    let refused = failed(&d.cmd(&["gm", "notice", "--realm", "Atlantis", "hej"], &[]));
    assert!(refused.contains("no realm named Atlantis"), "{refused}");
    let empty = failed(&d.cmd(&["gm", "notice", "\u{7}  "], &[]));
    assert!(empty.contains("the notice is empty"), "{empty}");
}

/// A raw mail with a `Reply-To` the reply must not follow.
fn write_raw(d: &Dir, name: &str, from: &str, reply_to: &str, subject: &str) {
    let raw = format!(
        "From: {from}\r\nReply-To: {reply_to}\r\nTo: sl@game.test\r\nSubject: {subject}\r\n\
         Message-ID: <{name}@players.test>\r\nDate: Mon, 30 Nov 2026 12:30:00 +0100\r\n\r\nplease\r\n"
    );
    std::fs::write(d.dir.join("inbox/new").join(format!("{name}.m")), raw).unwrap();
}

#[test]
fn a_realm_asking_for_its_form_again_gets_the_latest_form_as_sent_at_its_registered_addresses_only()
{
    let d = Dir::start();
    d.tick(DEADLINE);
    d.tick(MONDAY);
    let before = d.outbox();
    let forms = result_forms(&before);
    let original = form_of(&forms, "Afani").text.replace("\r\n", "\n");
    write_raw(
        &d,
        "again1",
        "afani@game.test",
        "thief@evil.test",
        "Re: AFANI Form Again!",
    );
    d.send("stranger@evil.test", "Afani form again", "me too");
    d.send("genogien@game.test", "Afani formulär igen", "");
    d.tick("2026-11-30T13:00:00+01:00");
    let new = d.outbox_since(&ids(&before));
    assert_eq!(
        new.len(),
        2,
        "Afani's form and Genogien's refusal: {new:#?}"
    );
    let again = new
        .iter()
        .find(|m| m.to.iter().any(|a| a.contains("afani")))
        .unwrap();
    assert_eq!(again.to, ["afani@game.test"], "never the Reply-To");
    assert_eq!(again.subject, "Afani form", "a reply to it is Afani's form");
    assert_eq!(again.in_reply_to.as_deref(), Some("again1@players.test"));
    let body = again.text.replace("\r\n", "\n");
    assert!(
        body.starts_with("Here is your latest form again, as it was sent"),
        "{body}"
    );
    assert!(
        body.ends_with(&original),
        "the form exactly as sent:\n{body}"
    );
    // Its map pictures go with it, byte for byte.
    let files = |raw: &str| {
        use mail_parser::MimeHeaders;
        let m = mail_parser::MessageParser::default()
            .parse(raw.as_bytes())
            .unwrap();
        m.attachments()
            .map(|a| {
                (
                    a.attachment_name().unwrap_or_default().to_string(),
                    a.contents().to_vec(),
                )
            })
            .collect::<Vec<_>>()
    };
    let sent_with = files(&form_of(&forms, "Afani").raw);
    assert!(
        !sent_with.is_empty() && sent_with.iter().all(|(n, _)| n.ends_with(".png")),
        "the Monday form carries its map picture: {:?}",
        sent_with.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    assert_eq!(files(&again.raw), sent_with);
    let refusal = new.iter().find(|m| m.to == ["genogien@game.test"]).unwrap();
    assert!(
        refusal.text.contains("din adress hör inte till Afani"),
        "{}",
        refusal.text
    );
    assert!(!refusal.text.contains("Results and weekend form"));
    assert!(new.iter().all(|m| m.to.iter().all(|a| !a.contains("evil"))));
    let log = d.ok(&["gm", "log", "--realm", "Afani"]);
    assert!(log.contains("form_resent"), "{log}");
}

#[test]
fn a_realm_gets_its_form_again_at_most_the_days_limit_then_a_short_refusal() {
    let d = Dir::start();
    d.tick(DEADLINE);
    d.tick(MONDAY);
    let seen = ids(&d.outbox());
    for _ in 0..4 {
        d.send("genogien@game.test", "Genogien formulär igen", "");
    }
    d.tick("2026-11-30T13:00:00+01:00");
    let new = d.outbox_since(&seen);
    assert_eq!(new.len(), 4, "{new:#?}");
    assert_eq!(
        result_forms(&new).len(),
        3,
        "three forms (limits.max_resends_per_day)"
    );
    let refusals: Vec<_> = new
        .iter()
        .filter(|m| m.subject.starts_with("Re:"))
        .collect();
    assert_eq!(refusals.len(), 1);
    assert!(
        refusals[0].text.contains("högst 3 gånger om dagen"),
        "{}",
        refusals[0].text
    );
    // The next day the count starts again.
    let seen = ids(&d.outbox());
    d.send("genogien@game.test", "Genogien formulär igen", "");
    d.tick("2026-12-01T09:00:00+01:00");
    let next_day = d.outbox_since(&seen);
    assert_eq!(result_forms(&next_day).len(), 1, "{next_day:#?}");
}

#[test]
fn the_resend_subject_is_not_taken_for_a_weekend_form_nor_the_form_for_a_resend() {
    let d = Dir::start();
    d.send(
        "genogien@game.test",
        "Genogien formulär igen",
        "KÖP 1 spion",
    );
    d.send("genogien@game.test", "Genogien formulär", "KÖP 1 spion");
    d.tick(SATURDAY);
    let mails = d.outbox();
    assert_eq!(mails.len(), 2, "{mails:#?}");
    let to_resend = mails
        .iter()
        .find(|m| m.subject == "Re: Genogien formulär igen")
        .unwrap();
    assert!(
        to_resend
            .text
            .contains("Inget formulär har skickats till er ännu"),
        "no Monday form was mailed yet (init --quiet): {}",
        to_resend.text
    );
    let receipt = mails
        .iter()
        .find(|m| m.subject == "Re: Genogien formulär")
        .unwrap();
    assert!(receipt.text.contains("godkänd"), "{}", receipt.text);
    let log = d.ok(&["gm", "log", "--realm", "Genogien"]);
    assert_eq!(log.matches("form_received").count(), 1, "{log}");
    assert_eq!(log.matches("form_again_refused").count(), 1, "{log}");
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

fn count(d: &Dir, sql: &str) -> i64 {
    block_on(async {
        let store = d.store().await;
        let mut c = store.conn().await.unwrap();
        let row = sqlx::query(sql).fetch_one(&mut *c).await.unwrap();
        sqlx::Row::get::<i64, _>(&row, 0)
    })
}

fn envoys(d: &Dir, n: usize, prefix: &str) {
    let inbox = d.dir.join("inbox/new");
    for i in 0..n {
        let raw = common::mail(
            "afani@game.test",
            "Afani sends an envoy to Genogien",
            &format!("Greetings number {i}."),
            &format!("{prefix}{i}@players.test"),
        );
        std::fs::write(inbox.join(format!("{prefix}{i}.m")), raw).unwrap();
    }
}

#[test]
fn a_flood_of_5000_envoys_gets_exactly_the_hours_replies_and_one_gm_notice_and_all_are_stored() {
    let d = Dir::start();
    envoys(&d, 5000, "flood");
    let started = Instant::now();
    let out = d.tick("2026-11-24T10:00:00+01:00");
    eprintln!("5000 envoys handled in {:?}: {out}", started.elapsed());
    let mails = d.outbox();
    let to_afani = mails.iter().filter(|m| m.to == ["afani@game.test"]).count();
    assert_eq!(to_afani, 30, "limits.max_replies_per_hour");
    let to_gm: Vec<_> = mails.iter().filter(|m| m.to == ["gm@game.test"]).collect();
    assert_eq!(to_gm.len(), 1, "{to_gm:#?}");
    assert!(
        to_gm[0].subject.contains("flood from Afani"),
        "{}",
        to_gm[0].subject
    );
    let envoys = "SELECT COUNT(*) FROM messages WHERE realm = 'Afani' AND kind = 'envoy'";
    assert_eq!(count(&d, envoys), 5000, "every envoy is stored");
    let undecided = "SELECT COUNT(*) FROM messages WHERE state IN ('queued', 'held', 'parked')";
    assert_eq!(count(&d, undecided), 0, "and decided by the courier");
    let delivered = mails
        .iter()
        .filter(|m| m.to == ["genogien@game.test"])
        .count();
    assert!(delivered > 0, "envoys the rules allow are still delivered");
    let versions = count(&d, "SELECT COUNT(*) FROM game_state");
    assert!(
        versions < 100,
        "refused envoys write no state: {versions} versions"
    );
    let held = "SELECT COUNT(*) FROM outbox WHERE state = 'held'";
    assert_eq!(count(&d, held), 4970);
    let queue = d.ok(&["gm", "queue"]);
    assert!(
        queue.contains("Afani") && queue.contains("4970 held"),
        "{queue}"
    );
}

#[test]
fn held_replies_are_released_by_the_gm_and_the_next_hour_counts_afresh() {
    let d = Dir::start();
    let cfg = d.dir.join("pbemd.yaml");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    text.push_str("limits:\n  max_replies_per_hour: 2\n");
    std::fs::write(&cfg, text).unwrap();
    envoys(&d, 5, "small");
    d.tick("2026-11-24T10:00:00+01:00");
    let first = d.outbox();
    let to = |m: &[common::Sent], a: &str| m.iter().filter(|x| x.to == [a.to_string()]).count();
    assert_eq!(to(&first, "afani@game.test"), 2);
    assert_eq!(to(&first, "gm@game.test"), 1);
    let queue = d.ok(&["gm", "queue"]);
    assert!(queue.contains("3 held"), "{queue}");

    let out = d.ok(&["gm", "release", "--realm", "afani"]);
    assert!(out.contains("3 held replies released"), "{out}");
    d.tick("2026-11-24T10:30:00+01:00");
    assert_eq!(to(&d.outbox(), "afani@game.test"), 5, "every reply, once");
    assert!(!d.ok(&["gm", "queue"]).contains("held by flood control"));
    assert!(d.ok(&["gm", "log"]).contains("gm_release"));
    let not_held = failed(&d.cmd(&["gm", "release", "1"], &[]));
    assert!(not_held.contains("not held"), "{not_held}");

    // The next hour: replies go out again, and a new flood is told once more.
    envoys(&d, 3, "later");
    d.tick("2026-11-24T11:10:00+01:00");
    let all = d.outbox();
    assert_eq!(to(&all, "afani@game.test"), 7);
    assert_eq!(to(&all, "gm@game.test"), 2);
}

on_both_backends!(
    notices_counters_and_held_replies_are_stored,
    |store: Store| async move {
        let mut c = store.conn().await.unwrap();
        let all = notices::add(&mut c, None, "för alla", 1, None)
            .await
            .unwrap();
        let one = notices::add(&mut c, Some("Afani"), "only Afani", 2, None)
            .await
            .unwrap();
        notices::add(&mut c, None, "mailed", 3, Some(3))
            .await
            .unwrap();
        let waiting = notices::for_round(&mut c, 2).await.unwrap();
        assert_eq!(waiting.iter().map(|n| n.id).collect::<Vec<_>>(), [all, one]);
        notices::mark_printed(&mut c, 2, 9).await.unwrap();
        assert_eq!(notices::for_round(&mut c, 2).await.unwrap().len(), 2);
        assert!(notices::for_round(&mut c, 3).await.unwrap().is_empty());

        assert_eq!(notices::bump(&mut c, "replies:Afani", 7).await.unwrap(), 1);
        assert_eq!(notices::bump(&mut c, "replies:Afani", 7).await.unwrap(), 2);
        assert_eq!(notices::bump(&mut c, "replies:Afani", 8).await.unwrap(), 1);

        let form = |key: &'static str| outbox::NewOutgoing {
            dedup_key: key,
            message_id: key,
            kind: "result_form",
            to_addrs: &[],
            from_addr: "sl@game.test",
            subject: "s",
            raw: key.as_bytes(),
            kept: None,
            at: 5,
        };
        let a1 = outbox::enqueue(&mut c, &form("result:1:0:Afani"))
            .await
            .unwrap();
        outbox::enqueue(&mut c, &form("result:1:0:Nya Afani"))
            .await
            .unwrap();
        outbox::enqueue(&mut c, &form("result:1:0:A_ani"))
            .await
            .unwrap();
        let latest = notices::latest_form(&mut c, "Afani")
            .await
            .unwrap()
            .unwrap();
        assert_eq!((latest.0, latest.2), (a1, b"result:1:0:Afani".to_vec()));
        assert!(notices::latest_form(&mut c, "Kaldor")
            .await
            .unwrap()
            .is_none());
        assert!(notices::queued_before(&mut c, "result:1:0:A_ani")
            .await
            .unwrap());
        assert!(!notices::queued_before(&mut c, "nope").await.unwrap());

        notices::hold(&mut c, a1, "Afani", 6).await.unwrap();
        let held = notices::held(&mut c).await.unwrap();
        assert_eq!((held.len(), held[0].count, held[0].first_id), (1, 1, a1));
        let none = notices::Release::Realm("Kaldor");
        assert_eq!(notices::release(&mut c, &none, 7).await.unwrap(), 0);
        let afani = notices::Release::Realm("Afani");
        assert_eq!(notices::release(&mut c, &afani, 7).await.unwrap(), 1);
        assert!(notices::held(&mut c).await.unwrap().is_empty());
        assert_eq!(outbox::counts(&mut c).await.unwrap().2, 3, "pending again");
    }
);

#[test]
fn in_batches_mode_the_replies_of_one_courier_batch_keep_to_the_hours_limit() {
    let d = Dir::start();
    let cfg = d.dir.join("pbemd.yaml");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    text.push_str("courier:\n  mode: batches\n");
    std::fs::write(&cfg, text).unwrap();
    envoys(&d, 200, "batch");
    d.tick("2026-11-24T10:00:00+01:00");
    assert!(d.outbox().is_empty(), "nothing is decided before the batch");
    d.tick("2026-11-24T18:30:00+01:00");
    let mails = d.outbox();
    assert_eq!(
        mails.iter().filter(|m| m.to == ["afani@game.test"]).count(),
        30
    );
    assert_eq!(mails.iter().filter(|m| m.to == ["gm@game.test"]).count(), 1);
    let held = "SELECT COUNT(*) FROM outbox WHERE state = 'held'";
    assert_eq!(count(&d, held), 170);
}
