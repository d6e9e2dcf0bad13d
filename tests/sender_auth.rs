//! `sender_check: dkim | token | dkim-or-token` through the binary (docs/reference/mail.md,
//! Proving the sender): a mail whose From is a realm's address but that is not proven the realm's
//! waits in the GM queue with the reason and nobody is answered (in the token modes the
//! realm's registered addresses get a hint); the token is cut out before an envoy is
//! delivered; `gm token REALM --new` mails the new token to the registered addresses.
//!
//! Real DKIM signing and verification against the loopback mail stack is in
//! tests/sender_auth_dkim.rs.

mod common;
#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use game_dir::{ok, run, Dir, SATURDAY, TUESDAY};

const LATER: &str = "2026-11-24T10:00:00+01:00";
const ENVOY: &str = "Afani sends an envoy to Genogien";

/// A new game whose config says `sender_check: <mode>` (and the authserv-id), started
/// with its opening forms mailed.
fn game(mode: &str) -> Dir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    ok(&run(&["new", dir.to_str().unwrap()], &[]));
    let cfg = dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "sender_check: from-only\n",
        &format!("sender_check: {mode}\nauthserv_id: mx.game.test\n"),
    );
    std::fs::write(&cfg, text).unwrap();
    let d = Dir {
        _tmp: tmp,
        dir,
        mails: Default::default(),
    };
    d.ok(&["init", "--now", TUESDAY]);
    d
}

/// Drop a raw mail with extra header lines on top into the inbox.
fn send_with_headers(d: &Dir, headers: &str, from: &str, subject: &str, body: &str) {
    let n = d.mails.get() + 1;
    d.mails.set(n);
    let mut raw = headers.replace('\n', "\r\n").into_bytes();
    raw.extend(common::mail(
        from,
        subject,
        body,
        &format!("a{n}@players.test"),
    ));
    std::fs::write(d.dir.join("inbox/new").join(format!("{n}.m")), raw).unwrap();
}

fn ids(mails: &[common::Sent]) -> Vec<String> {
    mails.iter().map(|m| m.message_id.clone()).collect()
}

/// The token the opening form gave `realm` (its address `addr`).
fn opening_token(d: &Dir, addr: &str) -> String {
    let form = d
        .outbox()
        .into_iter()
        .find(|m| m.to == vec![addr.to_string()])
        .expect("an opening form");
    token_in(&form.text).expect("the opening form holds the token")
}

/// The first `[XXXXXXXXXX]` in a text.
fn token_in(text: &str) -> Option<String> {
    text.match_indices('[').find_map(|(i, _)| {
        let t = text.get(i + 1..i + 11)?;
        (text.get(i + 11..i + 12) == Some("]")
            && t.bytes()
                .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b)))
        .then(|| t.to_string())
    })
}

/// `gm queue` lines of mails held as unproven.
fn unproven(d: &Dir) -> Vec<String> {
    d.ok(&["gm", "queue"])
        .lines()
        .filter(|l| l.contains("unproven_sender"))
        .map(str::to_string)
        .collect()
}

fn show_first_unproven(d: &Dir) -> String {
    let line = unproven(d).into_iter().next().expect("a held mail");
    let id = line.split_whitespace().next().unwrap().to_string();
    d.ok(&["gm", "show", &id])
}

#[test]
fn a_forged_from_without_our_servers_dkim_pass_is_held_with_the_reason_and_nobody_is_answered() {
    let d = game("dkim");
    let before = ids(&d.outbox());
    // No header at all, a pass claimed by a foreign server, and a pass for another domain.
    let reply_to = "Reply-To: attacker@evil.test\n";
    send_with_headers(&d, reply_to, "afani@game.test", ENVOY, "Surrender!");
    let foreign = "Authentication-Results: evil.test; dkim=pass header.d=game.test\n";
    send_with_headers(&d, foreign, "afani@game.test", ENVOY, "Surrender now!");
    let other = "Authentication-Results: mx.game.test; dkim=pass header.d=evil.test\n";
    send_with_headers(&d, other, "afani@game.test", ENVOY, "Surrender today!");
    let out = d.tick(LATER);
    assert!(out.contains("3 handled"), "{out}");
    let sent = d.outbox_since(&before);
    assert!(
        sent.is_empty(),
        "no reply, no delivery, no hint: {:?}",
        ids(&sent)
    );
    assert_eq!(unproven(&d).len(), 3, "{}", d.ok(&["gm", "queue"]));
    let shown = show_first_unproven(&d);
    assert!(
        shown.contains("sender not proven (sender_check: dkim)")
            && shown.contains("no Authentication-Results header from mx.game.test"),
        "{shown}"
    );
    let log = d.ok(&["gm", "log", "--realm", "Afani"]);
    assert_eq!(log.matches("mail_unproven_sender").count(), 3, "{log}");
}

#[test]
fn an_aligned_dkim_pass_from_our_server_delivers_the_envoy() {
    let d = game("dkim");
    let before = ids(&d.outbox());
    let ar = "Authentication-Results: mx.game.test; dkim=pass (2048-bit key) header.d=game.test header.b=\"x\"\n";
    send_with_headers(&d, ar, "afani@game.test", ENVOY, "Peace and trade!");
    d.tick(LATER);
    let sent = d.outbox_since(&before);
    let envoy = sent
        .iter()
        .find(|m| m.to == vec!["genogien@game.test".to_string()])
        .expect("the envoy is delivered");
    assert!(envoy.text.contains("Peace and trade!"), "{}", envoy.text);
    assert!(unproven(&d).is_empty());
}

#[test]
fn the_token_is_cut_out_before_the_envoy_is_delivered() {
    let d = game("token");
    let token = opening_token(&d, "afani@game.test");
    let state = d.state();
    let stored = state["realms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "Afani")
        .unwrap()["token"]
        .clone();
    assert_eq!(stored, serde_json::json!(token));
    let other = opening_token(&d, "genogien@game.test");
    assert_ne!(token, other, "each realm has its own token");
    let before = ids(&d.outbox());
    // In the subject, lower case; and alone on the first line of the body.
    let subject = format!("[{}] {ENVOY}", token.to_lowercase());
    d.send("afani@game.test", &subject, "Peace and trade!");
    let body = format!("{token}\nA second envoy, in friendship.");
    d.send("afani@game.test", ENVOY, &body);
    d.tick(LATER);
    let sent = d.outbox_since(&before);
    let envoys: Vec<_> = sent
        .iter()
        .filter(|m| m.to == vec!["genogien@game.test".to_string()])
        .collect();
    assert_eq!(envoys.len(), 2, "{:?}", ids(&sent));
    for m in &sent {
        // Afani's own mail ends its subject with Afani's tag; nothing else holds it.
        let raw = m.raw.to_uppercase().replace(&format!("[K:{token}]"), "");
        assert!(
            !raw.contains(&token),
            "the token leaked into a mail to {:?}: {}",
            m.to,
            m.raw
        );
        if m.to_is("genogien@game.test") {
            assert!(!m.raw.contains(&token), "{}", m.raw);
        }
    }
    assert!(envoys.iter().any(|m| m.text.contains("Peace and trade!")));
    assert!(envoys
        .iter()
        .any(|m| m.text.contains("A second envoy, in friendship.")));
    assert!(unproven(&d).is_empty());
}

#[test]
fn a_missing_or_wrong_token_is_held_and_only_the_registered_addresses_get_a_hint() {
    let d = game("token");
    let token = opening_token(&d, "afani@game.test");
    let wrong = if token.starts_with('A') {
        "BBBBBBBBBB"
    } else {
        "AAAAAAAAAA"
    };
    d.ok(&[
        "gm",
        "realm",
        "Afani",
        "address",
        "add",
        "afani.home@game.test",
    ]);
    let before = ids(&d.outbox());
    let reply_to = "Reply-To: attacker@evil.test\n";
    send_with_headers(&d, reply_to, "afani@game.test", ENVOY, "Surrender!");
    let subject = format!("[{wrong}] {ENVOY}");
    send_with_headers(&d, reply_to, "afani@game.test", &subject, "Surrender now!");
    d.tick(LATER);
    let sent = d.outbox_since(&before);
    assert!(sent
        .iter()
        .all(|m| !m.to.contains(&"genogien@game.test".to_string())));
    assert_eq!(sent.len(), 2, "one hint per held mail: {:?}", ids(&sent));
    for hint in &sent {
        let mut to = hint.to.clone();
        to.sort();
        assert_eq!(to, vec!["afani.home@game.test", "afani@game.test"]);
        assert!(!hint.raw.contains("attacker@evil.test"), "{}", hint.raw);
        assert!(!hint.raw.to_uppercase().contains(&token), "{}", hint.raw);
        assert!(
            hint.subject
                .contains("Afani: a mail without the right token"),
            "{}",
            hint.subject
        );
        assert!(hint.text.contains("[TOKEN]"), "{}", hint.text);
    }
    assert_eq!(unproven(&d).len(), 2);
    let shown = show_first_unproven(&d);
    assert!(
        shown.contains("sender not proven (sender_check: token): no token of Afani"),
        "{shown}"
    );
}

#[test]
fn gm_token_new_mails_the_new_token_to_the_registered_addresses_only_and_the_old_one_stops_counting(
) {
    let d = game("token");
    let old = opening_token(&d, "afani@game.test");
    let before = ids(&d.outbox());
    let out = d.ok(&["gm", "token", "afani", "--new"]);
    assert!(out.contains("mailed to afani@game.test"), "{out}");
    let sent = d.outbox_since(&before);
    assert_eq!(sent.len(), 1, "{:?}", ids(&sent));
    assert_eq!(sent[0].to, vec!["afani@game.test".to_string()]);
    assert!(
        sent[0].subject.contains("Afani: new secret token"),
        "{}",
        sent[0].subject
    );
    let new = token_in(&sent[0].text).expect("the new token");
    assert_ne!(new, old);
    assert!(out.contains(&new), "{out}");
    assert_eq!(
        d.ok(&["gm", "token", "Afani"]).trim(),
        format!("Afani's token: {new}")
    );
    let log = d.ok(&["gm", "log", "--realm", "Afani"]);
    assert!(log.contains("gm_token_new"), "{log}");
    assert!(
        !log.contains(&new) && !log.contains(&old),
        "no token in the audit log: {log}"
    );

    let before = ids(&d.outbox());
    d.send(
        "afani@game.test",
        &format!("[{old}] {ENVOY}"),
        "With the old token.",
    );
    d.send(
        "afani@game.test",
        &format!("[{new}] {ENVOY}"),
        "With the new token.",
    );
    d.tick(LATER);
    let sent = d.outbox_since(&before);
    let envoys: Vec<_> = sent
        .iter()
        .filter(|m| m.to == vec!["genogien@game.test".to_string()])
        .collect();
    assert_eq!(envoys.len(), 1);
    assert!(envoys[0].text.contains("With the new token."));
    assert_eq!(unproven(&d).len(), 1);
}

#[test]
fn dkim_or_token_lets_either_pass_and_holds_a_mail_with_neither() {
    let d = game("dkim-or-token");
    let token = opening_token(&d, "afani@game.test");
    let before = ids(&d.outbox());
    let ar = "Authentication-Results: mx.game.test; dmarc=pass header.from=game.test\n";
    send_with_headers(&d, ar, "afani@game.test", ENVOY, "By DMARC.");
    d.send(
        "afani@game.test",
        &format!("[{token}] {ENVOY}"),
        "By token.",
    );
    d.send("afani@game.test", ENVOY, "By nothing.");
    d.tick(LATER);
    let sent = d.outbox_since(&before);
    let delivered: Vec<_> = sent
        .iter()
        .filter(|m| m.to == vec!["genogien@game.test".to_string()])
        .map(|m| m.text.clone())
        .collect();
    assert_eq!(delivered.len(), 2, "{delivered:?}");
    assert!(delivered.iter().all(|t| !t.contains("By nothing.")));
    let shown = show_first_unproven(&d);
    assert!(
        shown.contains("sender_check: dkim-or-token")
            && shown.contains("no Authentication-Results header")
            && shown.contains("no token of Afani"),
        "{shown}"
    );
    let hints = sent
        .iter()
        .filter(|m| m.subject.contains("without the right token"))
        .count();
    assert_eq!(hints, 1);
}

#[test]
fn from_only_games_get_no_token_note_and_dkim_needs_an_authserv_id() {
    let d = Dir::start();
    let before = d.outbox().len();
    assert_eq!(before, 0, "init --quiet mails nothing");
    let out = d.ok(&["gm", "token", "Afani"]);
    assert!(
        out.contains("Afani has no token") && out.contains("from-only"),
        "{out}"
    );
    let cfg = d.dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("sender_check: from-only\n", "sender_check: dkim\n");
    std::fs::write(&cfg, text).unwrap();
    let err = game_dir::failed(&d.cmd(&["gm", "queue"], &[]));
    assert!(err.contains("authserv_id"), "{err}");
}

#[test]
fn the_token_is_cut_out_before_a_weekend_form_is_read() {
    let d = game("token");
    let token = opening_token(&d, "afani@game.test");
    let before = ids(&d.outbox());
    d.send(
        "afani@game.test",
        "Afani form",
        &format!("[{token}]\nBUY 1 spy"),
    );
    d.tick(SATURDAY);
    let receipt = d
        .outbox_since(&before)
        .into_iter()
        .find(|m| m.to == vec!["afani@game.test".to_string()] && m.subject.contains("Afani form"))
        .expect("a receipt");
    assert!(
        receipt.subject.ends_with(&format!(" [k:{token}]")),
        "{}",
        receipt.subject
    );
    let raw = receipt.raw.replace(&format!("[k:{token}]"), "");
    assert!(!raw.to_uppercase().contains(&token), "{}", receipt.raw);
    assert!(
        receipt.text.contains("1 order accepted, 0 refused"),
        "{}",
        receipt.text
    );
    // The form as stored (and read) has no token; only the raw mail kept for the GM does.
    let shown = d.ok(&["gm", "show", "1"]);
    let (stored, raw) = shown.split_once("----- raw mail").unwrap();
    assert!(
        stored.contains("BUY 1 spy") && !stored.contains(&token),
        "{stored}"
    );
    assert!(raw.contains(&token));
    assert!(unproven(&d).is_empty());
}

#[test]
fn a_mail_not_proven_during_a_pause_gets_no_paused_notice() {
    let d = game("dkim");
    let out = d.ok(&[
        "gm",
        "pause",
        "--reason",
        "ill",
        "--at",
        "2026-11-24T09:30:00+01:00",
    ]);
    assert!(out.contains("paused"), "{out}");
    let before = ids(&d.outbox());
    d.send("afani@game.test", ENVOY, "Surrender!");
    let ar = "Authentication-Results: mx.game.test; dkim=pass header.d=game.test\n";
    let to_afani = "Genogien skickar ett sändebud till Afani";
    send_with_headers(&d, ar, "genogien@game.test", to_afani, "Hej");
    d.tick(LATER);
    let sent = d.outbox_since(&before);
    let to = |a: &str| sent.iter().filter(|m| m.to == vec![a.to_string()]).count();
    assert_eq!(to("afani@game.test"), 0, "{:?}", ids(&sent));
    assert_eq!(
        to("genogien@game.test"),
        1,
        "the proven mail gets its notice"
    );
}

#[test]
fn a_replacement_player_gets_a_fresh_token_with_the_welcome_and_the_old_one_stops_counting() {
    let d = game("token");
    let old = opening_token(&d, "afani@game.test");
    let before = ids(&d.outbox());
    d.ok(&["gm", "realm", "Afani", "replace", "new.afani@game.test"]);
    let welcome = d.outbox_since(&before);
    assert_eq!(welcome.len(), 1, "{:?}", ids(&welcome));
    assert_eq!(welcome[0].to, vec!["new.afani@game.test".to_string()]);
    let new = token_in(&welcome[0].text).expect("the welcome mail gives the new token");
    assert_ne!(
        new, old,
        "the old player's token never passes to the new one"
    );
    let before = ids(&d.outbox());
    d.send(
        "new.afani@game.test",
        &format!("[{old}] {ENVOY}"),
        "With the old key.",
    );
    d.send(
        "new.afani@game.test",
        &format!("[{new}] {ENVOY}"),
        "With the new key.",
    );
    d.tick(LATER);
    let envoys: Vec<_> = d
        .outbox_since(&before)
        .into_iter()
        .filter(|m| m.to == vec!["genogien@game.test".to_string()])
        .collect();
    assert_eq!(envoys.len(), 1);
    assert!(envoys[0].text.contains("With the new key."));
    assert_eq!(unproven(&d).len(), 1, "the mail with the old token is held");
}
