//! Transport tests against the real loopback mail stack: run `scripts/mailstack-start.sh`
//! first. Each test uses its own user's INBOX so tests can run in parallel; every test looks
//! only at mail with UIDs above what was there when it started.

mod stack;

use std::time::{Duration, Instant};

use pbemd::transport::imap::{ImapSession, TlsMode};
use pbemd::transport::smtp::SmtpSender;
use pbemd::transport::tls::TransportError;
use stack::*;

/// Three mails to afani, one per SMTP mode; read back with each IMAP mode; mark seen.
#[tokio::test]
async fn smtp_three_modes_then_imap_three_modes() {
    if !require() {
        return;
    }
    let to = format!("afani@{DOMAIN}");
    let imap_plain = imap("afani", TlsMode::None);
    let base = last_uid(&imap_plain).await;
    let tok = token("modes");

    let modes = [
        (TlsMode::None, None),
        (TlsMode::Starttls, Some("gm")),
        (TlsMode::Tls, Some("gm")),
    ];
    for (i, (mode, user)) in modes.into_iter().enumerate() {
        let mut s = SmtpSender::new(smtp(user, mode));
        let raw = message(&format!("gm@{DOMAIN}"), &to, &format!("{tok}-{i}"), 1100);
        s.send_raw(&format!("gm@{DOMAIN}"), std::slice::from_ref(&to), &raw)
            .await
            .unwrap_or_else(|e| panic!("send over {mode:?}: {e}"));
        s.close().await;
    }
    wait_for_mails(&imap_plain, base, 3, Duration::from_secs(10)).await;

    for mode in [TlsMode::None, TlsMode::Starttls, TlsMode::Tls] {
        let mut s = ImapSession::connect(&imap("afani", mode))
            .await
            .unwrap_or_else(|e| panic!("IMAP connect over {mode:?}: {e}"));
        assert!(s.has_idle());
        let st = s.select().await.unwrap();
        assert!(st.uid_validity > 0 && st.exists >= 3);
        let got = s.fetch_after(base, 100).await.unwrap();
        assert_eq!(got.len(), 3, "{mode:?}");
        for (i, f) in got.iter().enumerate() {
            let text = String::from_utf8_lossy(&f.raw);
            assert!(
                text.contains(&format!("Subject: {tok}-{i}")),
                "{mode:?}: {text}"
            );
            assert!(f.uid > base);
        }
        // Paging: max=1 gives the lowest, and continues from there.
        let one = s.fetch_after(base, 1).await.unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].uid, got[0].uid);
        let rest = s.fetch_after(one[0].uid, 10).await.unwrap();
        assert_eq!(
            rest.iter().map(|f| f.uid).collect::<Vec<_>>(),
            vec![got[1].uid, got[2].uid]
        );
        // `n:*` with n above the highest UID must come back empty (not the last message).
        let last = got[2].uid;
        assert!(
            s.fetch_after(last, 10).await.unwrap().is_empty(),
            "{mode:?}"
        );
        assert!(
            s.fetch_after(last + 1000, 10).await.unwrap().is_empty(),
            "{mode:?}"
        );
        s.logout().await.unwrap();
    }

    // BODY.PEEK left them unseen; mark_seen flags them.
    let mut s = ImapSession::connect(&imap_plain).await.unwrap();
    s.select().await.unwrap();
    let got = s.fetch_after(base, 100).await.unwrap();
    s.mark_seen(&got.iter().map(|f| f.uid).collect::<Vec<_>>())
        .await
        .unwrap();
    s.mark_seen(&[]).await.unwrap();
    s.logout().await.unwrap();
    let out = std::process::Command::new("doveadm")
        .args(["-c", &format!("{}/etc/dovecot.conf", stack_dir().display())])
        .args(["search", "-u", &to, "mailbox", "INBOX", "UNSEEN"])
        .args(["UID", &format!("{}:*", base + 1)])
        .output()
        .expect("run doveadm");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let unseen: Vec<_> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u32>().ok())
        .filter(|&u| u > base)
        .collect();
    assert!(unseen.is_empty(), "still unseen: {unseen:?}");
}

/// IDLE reports a new mail within ~2 s; nothing new → times out with `false`.
#[tokio::test]
async fn idle_sees_new_mail() {
    if !require() {
        return;
    }
    let p = imap("fugandri", TlsMode::Starttls);
    let mut s = ImapSession::connect(&p).await.unwrap();
    let st = s.select().await.unwrap();
    let base = st.uid_next.unwrap() - 1;
    assert!(s.fetch_after(base, 10).await.unwrap().is_empty());

    let t = Instant::now();
    let (s, changed) = s.wait_for_change(Duration::from_millis(700)).await.unwrap();
    assert!(!changed, "nothing was sent yet");
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "timeout honoured: {:?}",
        t.elapsed()
    );

    let to = format!("fugandri@{DOMAIN}");
    let sender = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut tx = SmtpSender::new(smtp(None, TlsMode::None));
        let raw = message("gm@game.test", &to, &token("idle"), 1100);
        tx.send_raw("gm@game.test", std::slice::from_ref(&to), &raw)
            .await
            .unwrap();
        Instant::now()
    });
    let (mut s, changed) = s.wait_for_change(Duration::from_secs(10)).await.unwrap();
    let woke = Instant::now();
    let sent = sender.await.unwrap();
    assert!(changed);
    let latency = woke.duration_since(sent);
    eprintln!("IDLE latency after SMTP 250: {latency:?}");
    assert!(latency < Duration::from_secs(2), "{latency:?}");
    let got = s.fetch_after(base, 10).await.unwrap();
    assert_eq!(got.len(), 1);
    s.logout().await.unwrap();
}

/// Cancelling an IDLE returns promptly, ends it with DONE and leaves the session usable.
#[tokio::test]
async fn idle_cancel_keeps_session_usable() {
    if !require() {
        return;
    }
    let mut s = ImapSession::connect(&imap("mirandel", TlsMode::Tls))
        .await
        .unwrap();
    s.select().await.unwrap();
    let t = Instant::now();
    let cancel = tokio::time::sleep(Duration::from_millis(200));
    let (mut s, changed) = s
        .wait_for_change_or(Duration::from_secs(30), cancel)
        .await
        .unwrap();
    assert!(!changed);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    s.select().await.unwrap();
    s.logout().await.unwrap();
}

#[tokio::test]
async fn imap_wrong_password_is_login_refused() {
    if !require() {
        return;
    }
    let mut p = imap("afani", TlsMode::None);
    p.password = "wrong".into();
    let e = ImapSession::connect(&p).await.unwrap_err();
    assert!(matches!(e, TransportError::LoginRefused { .. }), "{e:?}");
    assert!(!e.is_retryable());
}

#[tokio::test]
async fn tls_without_the_test_ca_is_rejected() {
    if !require() {
        return;
    }
    let mut p = imap("afani", TlsMode::Tls);
    p.ca_file = None;
    let e = ImapSession::connect(&p).await.unwrap_err();
    assert!(e.to_string().contains("TLS handshake"), "{e}");
    let mut q = smtp(None, TlsMode::Tls);
    q.ca_file = None;
    let e = SmtpSender::new(q)
        .send_raw(
            "gm@game.test",
            &["afani@game.test".into()],
            b"Subject: x\r\n\r\nx\r\n",
        )
        .await
        .unwrap_err();
    assert!(e.to_string().contains("TLS handshake"), "{e}");
}

/// Unknown local user and relaying outside game.test are 5xx → Permanent; the sender then
/// reconnects and goes on sending on the next call.
#[tokio::test]
async fn smtp_permanent_refusals_then_recovers() {
    if !require() {
        return;
    }
    let mut s = SmtpSender::new(smtp(None, TlsMode::None));
    let raw = message("gm@game.test", "x@game.test", &token("perm"), 500);
    for rcpt in ["nobody@game.test", "someone@example.com"] {
        let e = s
            .send_raw("gm@game.test", &[rcpt.into()], &raw)
            .await
            .unwrap_err();
        assert!(
            matches!(e, TransportError::Permanent { .. }),
            "{rcpt}: {e:?}"
        );
        assert!(!e.is_retryable());
    }
    let e = s
        .send_raw("not an address", &["ostvik@game.test".into()], &raw)
        .await
        .unwrap_err();
    assert!(matches!(e, TransportError::Protocol { .. }), "{e:?}");
    s.send_raw("gm@game.test", &["ostvik@game.test".into()], &raw)
        .await
        .unwrap();
    s.close().await;
}

#[tokio::test]
async fn smtp_wrong_password_is_permanent() {
    if !require() {
        return;
    }
    let mut p = smtp(Some("gm"), TlsMode::Starttls);
    p.password = Some("wrong".into());
    let e = SmtpSender::new(p)
        .send_raw(
            "gm@game.test",
            &["afani@game.test".into()],
            b"Subject: x\r\n\r\nx\r\n",
        )
        .await
        .unwrap_err();
    assert!(matches!(e, TransportError::Permanent { .. }), "{e:?}");
}

#[tokio::test]
async fn connection_refused_is_retryable_io() {
    if !require() {
        return;
    }
    let mut p = smtp(None, TlsMode::None);
    p.port = 1; // nothing listens there
    let e = SmtpSender::new(p)
        .send_raw(
            "gm@game.test",
            &["afani@game.test".into()],
            b"Subject: x\r\n\r\nx\r\n",
        )
        .await
        .unwrap_err();
    assert!(
        matches!(e, TransportError::Io { .. }) && e.is_retryable(),
        "{e:?}"
    );
    assert!(e.to_string().contains("connect to 127.0.0.1:1"), "{e}");
}

/// Without IDLE the session falls back to NOOP every 5 s and still sees the new mail.
#[tokio::test]
async fn noop_fallback_sees_new_mail() {
    if !require() {
        return;
    }
    let p = imap("sl", TlsMode::None);
    let mut s = ImapSession::connect(&p).await.unwrap();
    s.pretend_no_idle();
    let base = s.select().await.unwrap().uid_next.unwrap() - 1;
    let t = Instant::now();
    let (s, changed) = s.wait_for_change(Duration::from_millis(300)).await.unwrap();
    assert!(!changed);
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());

    let to = format!("sl@{DOMAIN}");
    let raw = message("gm@game.test", &to, &token("noop"), 800);
    let mut tx = SmtpSender::new(smtp(None, TlsMode::None));
    tx.send_raw("gm@game.test", std::slice::from_ref(&to), &raw)
        .await
        .unwrap();
    let t = Instant::now();
    let (mut s, changed) = s.wait_for_change(Duration::from_secs(15)).await.unwrap();
    assert!(changed);
    assert!(t.elapsed() < Duration::from_secs(7), "{:?}", t.elapsed());
    assert_eq!(s.fetch_after(base, 10).await.unwrap().len(), 1);
    s.logout().await.unwrap();
}

/// A UIDVALIDITY change (simulated with doveadm) shows in `select`; the caller must then
/// refetch from 0.
#[tokio::test]
async fn select_reports_uidvalidity_change() {
    if !require() {
        return;
    }
    let p = imap("genogien", TlsMode::None);
    let mut s = ImapSession::connect(&p).await.unwrap();
    let before = s.select().await.unwrap().uid_validity;
    let new = before.wrapping_add(7919).max(1);
    let out = std::process::Command::new("doveadm")
        .args(["-c", &format!("{}/etc/dovecot.conf", stack_dir().display())])
        .args(["mailbox", "update", "-u", "genogien@game.test"])
        .args(["--uid-validity", &new.to_string(), "INBOX"])
        .output()
        .expect("run doveadm");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    s.logout().await.unwrap();
    let mut s = ImapSession::connect(&p).await.unwrap();
    assert_eq!(s.select().await.unwrap().uid_validity, new);
    s.logout().await.unwrap();
}

/// A fetch brings at most its bytes (by the server's RFC822.SIZE) and at least one mail:
/// a run of large mails comes over several fetches, in UID order, none lost or twice.
#[tokio::test]
async fn a_fetch_of_large_mails_is_cut_by_bytes_and_continues() {
    if !require() {
        return;
    }
    let p = imap("ostvik", TlsMode::None);
    let base = last_uid(&p).await;
    let tok = token("bytes");
    let mut s = ImapSession::connect(&p).await.unwrap();
    s.select().await.unwrap();
    let to = format!("ostvik@{DOMAIN}");
    for i in 0..5 {
        let raw = message(&format!("gm@{DOMAIN}"), &to, &format!("{tok}-{i}"), 300_000);
        s.append(&raw, None).await.unwrap();
    }
    s.select().await.unwrap();
    let mut seen = Vec::new();
    let mut after = base;
    loop {
        let got = s.fetch_after_within(after, 100, 700_000).await.unwrap();
        if got.is_empty() {
            break;
        }
        assert!(
            got.len() <= 2,
            "two mails of 300 KB fit 700 KB, three do not"
        );
        after = got.last().unwrap().uid;
        seen.extend(got.iter().map(|f| {
            let text = String::from_utf8_lossy(&f.raw).to_string();
            (f.uid, text.contains(&tok))
        }));
    }
    assert_eq!(seen.len(), 5, "{seen:?}");
    assert!(seen.iter().all(|(_, ours)| *ours));
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "in UID order");
    let one = s.fetch_after_within(base, 100, 10).await.unwrap();
    assert_eq!(one.len(), 1, "a mail larger than the bytes comes alone");
    s.logout().await.unwrap();
}
