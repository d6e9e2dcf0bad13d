//! Helpers for tests against the loopback mail stack (`scripts/mailstack-start.sh`).
#![allow(dead_code)]

#[path = "../common/servers.rs"]
mod servers;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use pbemd::transport::imap::{ImapParams, ImapSession, TlsMode};
use pbemd::transport::smtp::SmtpParams;

pub const DOMAIN: &str = "game.test";

pub fn stack_dir() -> PathBuf {
    PathBuf::from(std::env::var("MAILSTACK_DIR").unwrap_or_else(|_| "/tmp/mailstack".into()))
}

/// The stack's self-signed certificate; panics with a hint when the stack is not set up.
pub fn ca_file() -> PathBuf {
    let p = stack_dir().join("tls/cert.pem");
    assert!(
        p.exists(),
        "{} missing: start the stack with scripts/mailstack-start.sh",
        p.display()
    );
    p
}

pub fn imap(user: &str, tls: TlsMode) -> ImapParams {
    ImapParams {
        host: "127.0.0.1".into(),
        port: if tls == TlsMode::Tls { 1993 } else { 1143 },
        user: format!("{user}@{DOMAIN}"),
        password: format!("{user}-pass"),
        tls,
        ca_file: Some(ca_file()),
        mailbox: "INBOX".into(),
    }
}

pub fn smtp(user: Option<&str>, tls: TlsMode) -> SmtpParams {
    SmtpParams {
        host: "127.0.0.1".into(),
        port: if tls == TlsMode::Tls { 4465 } else { 2525 },
        user: user.map(|u| format!("{u}@{DOMAIN}")),
        password: user.map(|u| format!("{u}-pass")),
        tls,
        ca_file: Some(ca_file()),
        hello_name: "pbemd.test".into(),
    }
}

/// A plain-text message of about `size` bytes with a unique subject.
pub fn message(from: &str, to: &str, subject: &str, size: usize) -> Vec<u8> {
    let mut m = format!(
        "From: <{from}>\r\nTo: <{to}>\r\nSubject: {subject}\r\n\
         Message-ID: <{}.{subject}@pbemd.test>\r\nDate: Sun, 22 Nov 2026 06:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n",
        std::process::id(),
    )
    .into_bytes();
    let line = b"Envoy to Genogien: the harvest was good, the roads are open.\r\n";
    while m.len() + line.len() <= size {
        m.extend_from_slice(line);
    }
    m
}

/// A token unique to this test run, to find our own mails among older ones.
pub fn token(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{tag}-{nanos}")
}

/// Highest UID now in the mailbox (0 when empty): fetch "after" this to see only new mail.
pub async fn last_uid(p: &ImapParams) -> u32 {
    let mut s = ImapSession::connect(p).await.expect("connect");
    let st = s.select().await.expect("select");
    s.logout().await.expect("logout");
    st.uid_next.expect("UIDNEXT").saturating_sub(1)
}

/// Waits until the mailbox holds at least `n` messages with UID > `after_uid` (SELECT shows
/// UIDNEXT; LMTP delivery is asynchronous to the SMTP 250). Panics after `within`.
pub async fn wait_for_mails(p: &ImapParams, after_uid: u32, n: u32, within: Duration) {
    let start = Instant::now();
    let mut s = ImapSession::connect(p).await.expect("connect");
    loop {
        let st = s.select().await.expect("select");
        // UIDs are dense on a fresh Dovecot mailbox with no expunges; good enough for tests.
        let arrived = st
            .uid_next
            .unwrap_or(1)
            .saturating_sub(1)
            .saturating_sub(after_uid);
        if arrived >= n {
            break;
        }
        assert!(
            start.elapsed() < within,
            "only {arrived} of {n} mails arrived in {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    s.logout().await.expect("logout");
}

/// Is the loopback stack up? A missing stack fails the test unless
/// `PBEMD_SKIP_SERVER_TESTS=1` asks to skip it (see `tests/common/servers.rs`).
pub fn require() -> bool {
    let up = std::net::TcpStream::connect("127.0.0.1:1143").is_ok()
        && std::net::TcpStream::connect("127.0.0.1:2525").is_ok();
    up || servers::missing("the loopback mail stack (scripts/mailstack-start.sh)")
}
