//! What the benches against the loopback mail stack share: its directory, `doveadm`,
//! IMAP and SMTP parameters for the stack's plain ports, and a game that reads the
//! game's IMAP inbox and sends over SMTP. Include with
//! `#[path = "common/stack.rs"] mod stack;`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use pbemd::app::App;
use pbemd::clock::FixedClock;
use pbemd::config::Config;
use pbemd::transport::imap::{ImapParams, TlsMode};
use pbemd::transport::smtp::SmtpParams;

/// The mail stack's directory (`PBEMD_MAILSTACK_DIR`, else `/tmp/mailstack`).
pub fn stack_dir() -> PathBuf {
    std::env::var("PBEMD_MAILSTACK_DIR")
        .unwrap_or_else(|_| "/tmp/mailstack".into())
        .into()
}

/// Run `doveadm` against the stack's Dovecot; its standard output.
pub fn doveadm(args: &[&str]) -> String {
    let out = Command::new("doveadm")
        .arg("-c")
        .arg(stack_dir().join("etc/dovecot.conf"))
        .args(args)
        .output()
        .expect("doveadm");
    assert!(
        out.status.success(),
        "doveadm {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The stack's IMAP (plain, port 1143) for `user`'s INBOX.
pub fn imap(user: &str, password: &str) -> ImapParams {
    ImapParams {
        host: "127.0.0.1".into(),
        port: 1143,
        user: user.into(),
        password: password.into(),
        tls: TlsMode::None,
        ca_file: None,
        mailbox: "INBOX".into(),
    }
}

/// The stack's SMTP (plain, port 2525).
pub fn smtp() -> SmtpParams {
    SmtpParams {
        host: "127.0.0.1".into(),
        port: 2525,
        user: None,
        password: None,
        tls: TlsMode::None,
        ca_file: None,
        hello_name: "bench.test".into(),
    }
}

/// A game in `dir` on Tuesday 10:00 that reads sl@game.test's IMAP inbox (with the
/// extra `imap:` settings `imap_opts`, e.g. `idle: true`), sends over SMTP, has `extra`
/// appended to its config, and gives Genogien `envoys` free envoys (the benches
/// measure the mail path, not the allowance rule, R-AGENT-4).
pub async fn game(dir: &Path, imap_opts: &str, extra: &str, envoys: usize) -> App {
    let cfg_path = pbemd::app::setup::new_game_dir(&dir.join("g"), None).unwrap();
    std::fs::write(dir.join("g/imap.pw"), "sl-pass").unwrap();
    let imap = format!(
        "inbound:\n  imap: {{host: 127.0.0.1, port: 1143, user: sl@game.test, password_file: imap.pw, tls: none, {imap_opts}}}\n"
    );
    let smtp = format!("outbound:\n  smtp: {{host: 127.0.0.1, port: 2525, tls: none}}\n{extra}");
    let text = std::fs::read_to_string(&cfg_path)
        .unwrap()
        .replace("inbound:\n  maildir: inbox\n", &imap)
        .replace("outbound:\n  maildir: outbox\n", &smtp);
    std::fs::write(&cfg_path, text).unwrap();
    let cfg = Config::load(&cfg_path).unwrap();
    let now = pbemd::clock::parse_rfc3339("2026-11-24T10:00:00+01:00").unwrap();
    let app = App::open(cfg, Arc::new(FixedClock::new(now)))
        .await
        .unwrap();
    pbemd::app::setup::init(&app, now, false).await.unwrap();
    let mut c = app.store.begin().await.unwrap();
    let (v, gs) = app.state(&mut c).await.unwrap();
    let mut gs = (*gs).clone();
    gs.realm_mut("Genogien").unwrap().positions.sprakror = envoys as u32;
    app.save_state(&mut c, v, &gs, "bench: large allowance")
        .await
        .unwrap();
    c.commit().await.unwrap();
    app
}
