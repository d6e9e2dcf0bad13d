//! A real game's first week, lived as a GM and players would on the loopback mail stack
//! (Postfix SMTP :2525 → Dovecot IMAP :1143, started by scripts/mailstack-start.sh):
//! a game from `pbemd new` over IMAP and SMTP in the `token` sender check, with an old
//! envoy already in the game's inbox at `init`; the opening forms read over IMAP; an
//! envoy and its answer by the client's Reply; a question to the GM and the GM's answer
//! by Reply; an early form kept; a Saturday form sent with the client's Reply; Monday's
//! results. Every mail goes through the real servers, and every step is what a person
//! would do in a mail program: read the mail, press Reply, type above the quote.
//!
//! The test owns the stack's mailboxes while it runs (it empties them first), as the
//! other stack tests do; cargo runs test binaries one at a time.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pbemd::transport::imap::{ImapParams, ImapSession, TlsMode};
use pbemd::transport::smtp::{SmtpParams, SmtpSender};

fn stack_dir() -> PathBuf {
    PathBuf::from(std::env::var("PBEMD_MAILSTACK_DIR").unwrap_or_else(|_| "/tmp/mailstack".into()))
}

/// Is the stack up? A missing stack fails the test unless `PBEMD_SKIP_SERVER_TESTS=1`.
fn stack_up() -> bool {
    let up = std::net::TcpStream::connect("127.0.0.1:1143").is_ok()
        && std::net::TcpStream::connect("127.0.0.1:2525").is_ok();
    up || common::missing("the loopback mail stack (scripts/mailstack-start.sh)")
}

fn doveadm(args: &[&str]) -> String {
    let out = Command::new("doveadm")
        .arg("-c")
        .arg(stack_dir().join("etc/dovecot.conf"))
        .args(args)
        .output()
        .expect("run doveadm");
    assert!(
        out.status.success(),
        "doveadm {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const USERS: [&str; 8] = [
    "sl", "gm", "genogien", "afani", "fugandri", "kaldor", "mirandel", "ostvik",
];

fn addr(user: &str) -> String {
    format!("{user}@game.test")
}

fn imap(user: &str) -> ImapParams {
    ImapParams {
        host: "127.0.0.1".into(),
        port: 1143,
        user: addr(user),
        password: format!("{user}-pass"),
        tls: TlsMode::None,
        ca_file: None,
        mailbox: "INBOX".into(),
    }
}

fn smtp() -> SmtpParams {
    SmtpParams {
        host: "127.0.0.1".into(),
        port: 2525,
        user: None,
        password: None,
        tls: TlsMode::None,
        ca_file: None,
        hello_name: "players.test".into(),
    }
}

/// The number of mails in a user's INBOX.
fn count(user: &str) -> usize {
    let out = doveadm(&[
        "-f",
        "flow",
        "mailbox",
        "status",
        "-u",
        &addr(user),
        "messages",
        "INBOX",
    ]);
    out.split_whitespace()
        .find_map(|w| w.strip_prefix("messages="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no message count in {out:?}"))
}

/// Waits until `user` holds at least `n` mails.
fn wait_for(user: &str, n: usize) {
    let start = Instant::now();
    while count(user) < n {
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "{user} has {} mails, expected {n}",
            count(user)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Every mail in a user's INBOX, oldest first, read over IMAP.
async fn inbox(user: &str) -> Vec<common::Sent> {
    let mut s = ImapSession::connect(&imap(user)).await.expect("imap");
    s.select().await.expect("select");
    let mails = s.fetch_after(0, 1000).await.expect("fetch");
    s.logout().await.expect("logout");
    mails.iter().map(|m| common::Sent::parse(&m.raw)).collect()
}

/// The newest mail in `user`'s INBOX whose subject contains `needle`.
async fn newest(user: &str, needle: &str) -> common::Sent {
    inbox(user)
        .await
        .into_iter()
        .rev()
        .find(|m| m.subject.contains(needle))
        .unwrap_or_else(|| panic!("no mail to {user} with {needle:?} in its subject"))
}

/// A mail as a player's client writes it, sent by SMTP to the game.
async fn send(from: &str, to: &str, raw: String) {
    let mut s = SmtpSender::new(smtp());
    s.send_raw(
        &addr(from),
        &[addr(to)],
        raw.replace('\n', "\r\n").as_bytes(),
    )
    .await
    .expect("smtp");
}

fn header_date() -> &'static str {
    "Date: Tue, 24 Nov 2026 10:00:00 +0100\n"
}

/// A new mail (not a reply).
fn new_mail(from: &str, name: &str, subject: &str, body: &str, id: &str) -> String {
    format!(
        "From: {name} <{}>\nTo: <sl@game.test>\nSubject: {subject}\nMessage-ID: <{id}@players.test>\n{}\
         MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n{body}\n",
        addr(from),
        header_date(),
    )
}

/// The client's Reply to `orig`: `Re: ` and its subject, `In-Reply-To` and `References`
/// its Message-ID, sent to its `Reply-To` (else `From`), the words typed above the
/// quoted original, as Thunderbird, mutt and the phone clients do.
fn reply(from: &str, orig: &common::Sent, typed: &str, id: &str) -> (String, String) {
    let to = reply_address(orig);
    let quoted: String = orig.text.lines().map(|l| format!("> {l}\n")).collect();
    let raw = format!(
        "From: {from} <{}>\nTo: <{to}>\nSubject: Re: {}\nMessage-ID: <{id}@players.test>\n\
         In-Reply-To: <{mid}>\nReferences: <{mid}>\n{}MIME-Version: 1.0\n\
         Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n\
         {typed}\n\nOn Tue, 24 Nov 2026, sl@game.test wrote:\n{quoted}",
        addr(from),
        orig.subject,
        header_date(),
        mid = orig.message_id,
    );
    (to, raw)
}

/// Where a Reply goes: the mail's `Reply-To`, else its `From`.
fn reply_address(m: &common::Sent) -> String {
    let parsed = mail_parser::MessageParser::default()
        .parse(m.raw.as_bytes())
        .expect("parse");
    let pick = |a: Option<&mail_parser::Address>| {
        a.and_then(|a| a.first())
            .and_then(|a| a.address())
            .map(str::to_string)
    };
    pick(parsed.reply_to())
        .or_else(|| pick(parsed.from()))
        .expect("a reply address")
}

/// The user part of an address (`sl@game.test` → `sl`).
fn user_of(address: &str) -> &str {
    address.split('@').next().unwrap_or(address)
}

fn pbemd(cfg: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(cfg)
        .args(args)
        .env_remove("PBEMD_IMAP_PASSWORD")
        .output()
        .expect("run pbemd");
    assert!(
        out.status.success(),
        "pbemd {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn tick(cfg: &Path, at: &str) -> String {
    pbemd(cfg, &["tick", "--now", at])
}

/// A game from `pbemd new`, its intake sl@game.test over IMAP (the password in a file),
/// its output SMTP, and the `token` sender check a hobby GM is advised to use.
fn new_game(tmp: &Path) -> PathBuf {
    let dir = tmp.join("mygame");
    let out = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("new")
        .arg(&dir)
        .output()
        .expect("pbemd new");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(dir.join("imap.pw"), "sl-pass\n").unwrap();
    let cfg = dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace(
            "inbound:\n  maildir: inbox\n",
            "inbound:\n  imap: {host: 127.0.0.1, port: 1143, user: sl@game.test, password_file: imap.pw, tls: none}\n",
        )
        .replace(
            "outbound:\n  maildir: outbox\n",
            "outbound:\n  smtp: {host: 127.0.0.1, port: 2525, tls: none}\n",
        )
        .replace("sender_check: from-only", "sender_check: token");
    assert!(text.contains("imap:") && text.contains("smtp:") && text.contains("token"));
    std::fs::write(&cfg, text).unwrap();
    cfg
}

/// The realm's token, as the subject of a mail pbemd sent it carries it (`[k:TOKEN]`).
fn token_of(m: &common::Sent) -> String {
    let s = &m.subject;
    let start = s.find("[k:").unwrap_or_else(|| panic!("no token in {s:?}")) + 3;
    let end = start + s[start..].find(']').expect("closing bracket");
    s[start..end].to_string()
}

#[tokio::test]
async fn the_first_week_works_for_a_gm_and_players_in_their_mail_programs() {
    if !stack_up() {
        return;
    }
    for u in USERS {
        doveadm(&["expunge", "-u", &addr(u), "mailbox", "INBOX", "all"]);
    }
    let tmp = tempfile::tempdir().unwrap();
    let cfg = new_game(tmp.path());

    // Last season's envoy still sits in the game's inbox.
    send(
        "genogien",
        "sl",
        new_mail(
            "genogien",
            "Gorm",
            "Genogien skickar ett sändebud till Afani",
            "Förra säsongens brev.",
            "old-1",
        ),
    )
    .await;
    wait_for("sl", 1);

    // `check-config` says the mail connection works; `init` on Monday 07:00 starts the
    // game and says what it sent.
    let checked = pbemd(&cfg, &["check-config"]);
    assert!(checked.contains("IMAP"), "{checked}");
    assert!(checked.contains("SMTP"), "{checked}");
    let init = pbemd(&cfg, &["init", "--now", "2026-11-23T07:00:00+01:00"]);
    assert!(init.contains("game started"), "{init}");
    // A Monday-morning start sends each realm one form, at init or at 12:00, not both.
    tick(&cfg, "2026-11-23T12:30:00+01:00");
    for realm in [
        "genogien", "afani", "fugandri", "kaldor", "mirandel", "ostvik",
    ] {
        wait_for(realm, 1);
    }
    std::thread::sleep(Duration::from_millis(700));
    for realm in [
        "genogien", "afani", "fugandri", "kaldor", "mirandel", "ostvik",
    ] {
        let forms: Vec<_> = inbox(realm)
            .await
            .into_iter()
            .filter(|m| m.text.contains("=== ORDRAR / ORDERS"))
            .collect();
        assert_eq!(forms.len(), 1, "{realm} got one opening form");
        assert!(
            forms[0].text.contains("Formulär tas emot")
                || forms[0].text.contains("Forms are taken"),
            "the form says when forms are taken:\n{}",
            forms[0].text
        );
    }
    // The old envoy was not played: Afani got no delivery.
    assert!(
        !inbox("afani")
            .await
            .iter()
            .any(|m| m.text.contains("Förra säsongens brev")),
        "last season's envoy reached Afani"
    );
    // Over IMAP it is left in the game's mailbox, unfetched, for the GM's own client.
    assert!(
        inbox("sl")
            .await
            .iter()
            .any(|m| m.text.contains("Förra säsongens brev")),
        "the old envoy stays in the game's mailbox"
    );

    // Tuesday: Genogien sends Afani an envoy, with its token from the opening form.
    let g_form = newest("genogien", "formulär").await;
    let g_token = token_of(&g_form);
    send(
        "genogien",
        "sl",
        new_mail(
            "genogien",
            "Gorm",
            &format!("Genogien skickar ett sändebud till Afani [k:{g_token}]"),
            "Fred och handel, granne!",
            "envoy-1",
        ),
    )
    .await;
    wait_for("sl", 2);
    // The courier delivers with its evening batch.
    tick(&cfg, "2026-11-24T18:30:00+01:00");
    wait_for("afani", 2);
    let delivered = newest("afani", "Genogien").await;
    assert!(
        delivered.text.contains("Fred och handel"),
        "{}",
        delivered.text
    );
    assert!(
        !delivered.raw.contains("genogien@game.test"),
        "{}",
        delivered.raw
    );

    // Wednesday: Afani answers with the client's Reply, an envoy to Genogien.
    let (to, raw) = reply("afani", &delivered, "Fred gärna. /Afani", "envoy-2");
    assert_eq!(to, "sl@game.test");
    let before = count("genogien");
    send("afani", user_of(&to), raw).await;
    wait_for("sl", 3);
    tick(&cfg, "2026-11-25T18:30:00+01:00");
    wait_for("genogien", before + 1);
    let answer = newest("genogien", "Afani").await;
    assert!(answer.text.contains("Fred gärna"), "{}", answer.text);

    // Kaldor asks the GM; the GM answers with Reply to the notice.
    let k_form = newest("kaldor", "formulär").await;
    let k_token = token_of(&k_form);
    send(
        "kaldor",
        "sl",
        new_mail(
            "kaldor",
            "Kaldor",
            &format!("Kaldor till SL: Hamnar [k:{k_token}]"),
            "Får min flotta ligga i Ostviks hamn?",
            "gm-q-1",
        ),
    )
    .await;
    wait_for("sl", 4);
    tick(&cfg, "2026-11-25T19:00:00+01:00");
    wait_for("gm", 1);
    let notice = newest("gm", "Kaldor").await;
    assert!(notice.text.contains("Får min flotta"), "{}", notice.text);
    let (to, raw) = reply(
        "gm",
        &notice,
        "Nej, inte utan Ostviks inbjudan. /SL",
        "gm-a-1",
    );
    assert_eq!(to, "sl@game.test", "the notice's Reply-To is the game");
    let before = count("kaldor");
    send("gm", "sl", raw).await;
    wait_for("sl", 5);
    tick(&cfg, "2026-11-25T19:30:00+01:00");
    wait_for("kaldor", before + 1);
    let from_gm = inbox("kaldor").await.pop().unwrap();
    assert!(
        from_gm.text.contains("Nej, inte utan Ostviks inbjudan"),
        "{}",
        from_gm.text
    );
    assert!(from_gm.text.contains("SVAR FRÅN SL"), "{}", from_gm.text);
    assert!(!from_gm.raw.contains("gm@game.test"), "{}", from_gm.raw);

    // Thursday: Mirandel replies to its opening form early; it is kept.
    let m_form = newest("mirandel", "formulär").await;
    let before = count("mirandel");
    let (to, raw) = reply(
        "mirandel",
        &m_form,
        "Mina ordrar står i formuläret.",
        "form-early",
    );
    let raw = raw.replace(
        "> === SLUT PÅ ORDRAR / END OF ORDERS ===",
        "> KÖP 1 spion\n> === SLUT PÅ ORDRAR / END OF ORDERS ===",
    );
    send("mirandel", user_of(&to), raw).await;
    tick(&cfg, "2026-11-26T10:00:00+01:00");
    wait_for("mirandel", before + 1);
    let receipt = inbox("mirandel").await.pop().unwrap();
    assert!(
        receipt.text.to_lowercase().contains("sparat")
            || receipt.text.to_lowercase().contains("sparas"),
        "the early form is kept:\n{}",
        receipt.text
    );

    // Saturday: Fugandri fills in its opening form and presses Reply.
    let f_form = newest("fugandri", "formulär").await;
    let before = count("fugandri");
    let (to, raw) = reply("fugandri", &f_form, "", "form-sat");
    let raw = raw.replace(
        "> === SLUT PÅ ORDRAR / END OF ORDERS ===",
        "> UPPGRADERA befälhavare\n> === SLUT PÅ ORDRAR / END OF ORDERS ===",
    );
    send("fugandri", user_of(&to), raw).await;
    tick(&cfg, "2026-11-28T10:00:00+01:00");
    wait_for("fugandri", before + 1);
    let receipt = inbox("fugandri").await.pop().unwrap();
    assert!(receipt.text.contains("UPPGRADERA"), "{}", receipt.text);
    let queue = pbemd(&cfg, &["gm", "queue"]);
    assert!(!queue.contains("unproven"), "{queue}");

    // Monday: the weekend resolved on Sunday, every realm gets its results.
    let before: Vec<usize> = ["fugandri", "mirandel"].iter().map(|r| count(r)).collect();
    tick(&cfg, "2026-11-30T12:30:00+01:00");
    wait_for("fugandri", before[0] + 1);
    wait_for("mirandel", before[1] + 1);
    let f_result = inbox("fugandri").await.pop().unwrap();
    assert!(f_result.text.contains("runda 2"), "{}", f_result.text);
    assert!(
        f_result.text.contains("Befälhavare +1"),
        "{}",
        f_result.text
    );
    let m_result = inbox("mirandel").await.pop().unwrap();
    assert!(m_result.text.contains("spion"), "{}", m_result.text);
}
