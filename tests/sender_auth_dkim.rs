//! `sender_check: dkim` with real signing and verification (docs/reference/mail.md, Proving
//! the sender): on the loopback mail stack (scripts/mailstack-start.sh) an OpenDKIM signer
//! signs the mail that players of player.test submit on :2527 and hands it to the game's
//! inbound side :2526, where an OpenDKIM verifier adds `Authentication-Results:
//! mx.game.test; dkim=…` (and removes any such header a mail brought along). pbemd reads
//! the game's mailbox (sldkim@game.test) over IMAP: the signed envoy is delivered; an
//! unsigned forgery carrying a forged pass header, and a signed mail whose body was changed
//! after signing, are held for the GM and nobody is answered.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pbemd::transport::imap::{ImapParams, ImapSession, TlsMode};
use pbemd::transport::smtp::{SmtpParams, SmtpSender};

const GAME_BOX: &str = "sldkim@game.test";
const PLAYER: &str = "afani@player.test";
const ENVOY: &str = "Afani sends an envoy to Genogien";

fn stack_dir() -> PathBuf {
    PathBuf::from(std::env::var("PBEMD_MAILSTACK_DIR").unwrap_or_else(|_| "/tmp/mailstack".into()))
}

/// Is the stack with its DKIM ports up? Missing fails the test unless skipping is asked.
fn stack_up() -> bool {
    let up = [1143, 2526, 2527]
        .iter()
        .all(|p| std::net::TcpStream::connect(("127.0.0.1", *p)).is_ok());
    up || common::missing("the loopback mail stack with OpenDKIM (scripts/mailstack-start.sh)")
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

fn messages_in(user: &str) -> u32 {
    let out = doveadm(&[
        "-f", "flow", "mailbox", "status", "-u", user, "messages", "INBOX",
    ]);
    out.split_whitespace()
        .find_map(|w| w.strip_prefix("messages="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no count in {out:?}"))
}

fn wait_for(user: &str, n: u32) {
    let t = Instant::now();
    while messages_in(user) < n {
        assert!(
            t.elapsed() < Duration::from_secs(15),
            "{user} has {} of {n} mails",
            messages_in(user)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn smtp(port: u16) -> SmtpParams {
    SmtpParams {
        host: "127.0.0.1".into(),
        port,
        user: None,
        password: None,
        tls: TlsMode::None,
        ca_file: None,
        hello_name: "player.test".into(),
    }
}

async fn submit(port: u16, raw: &[u8]) {
    SmtpSender::new(smtp(port))
        .send_raw(PLAYER, &[GAME_BOX.to_string()], raw)
        .await
        .unwrap();
}

/// The game's mailbox as raw mails.
async fn game_box() -> Vec<String> {
    let p = ImapParams {
        host: "127.0.0.1".into(),
        port: 1143,
        user: GAME_BOX.into(),
        password: "sldkim-pass".into(),
        tls: TlsMode::None,
        ca_file: None,
        mailbox: "INBOX".into(),
    };
    let mut s = ImapSession::connect(&p).await.unwrap();
    s.select().await.unwrap();
    let mails = s.fetch_after(0, 100).await.unwrap();
    s.logout().await.unwrap();
    mails
        .iter()
        .map(|m| String::from_utf8_lossy(&m.raw).replace("\r\n", "\n"))
        .collect()
}

/// A game reading sldkim@game.test over IMAP with `sender_check: dkim`, Afani played
/// from afani@player.test, mail out to the Maildir.
fn game_dir(tmp: &Path) -> PathBuf {
    let dir = tmp.join("g");
    let cfg = pbemd::app::setup::new_game_dir(&dir, None).unwrap();
    std::fs::write(dir.join("imap.pw"), "sldkim-pass\n").unwrap();
    let scenario = dir.join("scenario.yaml");
    let s = std::fs::read_to_string(&scenario)
        .unwrap()
        .replace("afani@game.test", PLAYER);
    std::fs::write(&scenario, s).unwrap();
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace(
            "inbound:\n  maildir: inbox\n",
            "inbound:\n  imap: {host: 127.0.0.1, port: 1143, user: sldkim@game.test, password_file: imap.pw, tls: none}\n",
        )
        .replace("sender_check: from-only\n", "sender_check: dkim\nauthserv_id: mx.game.test\n");
    std::fs::write(&cfg, text).unwrap();
    cfg
}

fn pbemd(cfg: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(cfg)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pbemd {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn outbox(cfg: &Path) -> Vec<common::Sent> {
    let dir = cfg.parent().unwrap().join("outbox/new");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| common::Sent::parse(&std::fs::read(p).unwrap()))
        .collect()
}

fn envoy(id: &str, body: &str, extra_headers: &str) -> Vec<u8> {
    let mut raw = extra_headers.replace('\n', "\r\n").into_bytes();
    raw.extend(common::mail(PLAYER, ENVOY, body, id));
    let text = String::from_utf8(raw)
        .unwrap()
        .replace("To: sl@game.test", &format!("To: {GAME_BOX}"));
    text.into_bytes()
}

/// The signed mail as the signer sent it on (from its DKIM-Signature down), with the
/// body changed after signing and a new Message-ID (not a signed header).
fn tampered(delivered: &str) -> Vec<u8> {
    let start = delivered
        .find("DKIM-Signature:")
        .expect("the mail was signed");
    delivered[start..]
        .replace("Peace and trade!", "Surrender at once!")
        .replace(
            "Message-ID: <signed-1@player.test>",
            "Message-ID: <tampered-1@player.test>",
        )
        .replace('\n', "\r\n")
        .into_bytes()
}

#[tokio::test]
async fn a_signed_envoy_passes_and_a_forged_or_tampered_one_is_held_read_back_over_imap() {
    if !stack_up() {
        return;
    }
    doveadm(&["expunge", "-u", GAME_BOX, "mailbox", "INBOX", "all"]);
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game_dir(tmp.path());
    pbemd(
        &cfg,
        &["init", "--quiet", "--now", "2026-11-24T09:00:00+01:00"],
    );

    submit(2527, &envoy("signed-1@player.test", "Peace and trade!", "")).await;
    wait_for(GAME_BOX, 1);
    let signed = game_box().await.remove(0);
    assert!(
        signed.contains("Authentication-Results: mx.game.test;") && signed.contains("dkim=pass"),
        "{signed}"
    );
    let forged_pass = "Authentication-Results: mx.game.test; dkim=pass header.d=player.test\n";
    submit(
        2526,
        &envoy("forged-1@player.test", "Surrender!", forged_pass),
    )
    .await;
    submit(2526, &tampered(&signed)).await;
    wait_for(GAME_BOX, 3);
    let all = game_box().await;
    assert!(
        all[1].contains("dkim=none") && !all[1].contains("dkim=pass"),
        "{}",
        all[1]
    );
    assert!(all[2].contains("dkim=fail"), "{}", all[2]);

    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T10:00:00+01:00"]);
    assert!(out.contains("3 stored, 3 handled"), "{out}");
    let sent = outbox(&cfg);
    let to_genogien: Vec<_> = sent
        .iter()
        .filter(|m| m.to == vec!["genogien@game.test"])
        .collect();
    assert_eq!(to_genogien.len(), 1, "only the signed envoy is delivered");
    assert!(
        to_genogien[0].text.contains("Peace and trade!"),
        "{}",
        to_genogien[0].text
    );
    assert!(sent.iter().all(|m| !m.text.contains("Surrender")));
    let to_player = sent.iter().filter(|m| m.to == vec![PLAYER]).count();
    assert_eq!(
        to_player, 1,
        "the signed envoy's receipt only; no reply to the forgeries"
    );

    let queue = pbemd(&cfg, &["gm", "queue"]);
    let held: Vec<&str> = queue
        .lines()
        .filter(|l| l.contains("unproven_sender"))
        .collect();
    assert_eq!(held.len(), 2, "{queue}");
    let reasons: Vec<String> = held
        .iter()
        .map(|l| pbemd(&cfg, &["gm", "show", l.split_whitespace().next().unwrap()]))
        .collect();
    assert!(
        reasons.iter().any(|r| r.contains("dkim=none")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("dkim=fail for player.test")),
        "{reasons:?}"
    );
}
