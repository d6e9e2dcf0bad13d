//! A real game's first start, through the binary (docs/gm/first-game.md): `init`
//! says what it sent and sets aside the mail already in the inbox; `check-config`
//! says what works and what to fix; commands that talk to no mail server run without
//! the mail passwords. The tests on the loopback mail stack (scripts/mailstack-start.sh)
//! use their own IMAP folder, so they share the stack with any other test.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pbemd::transport::imap::{ImapParams, ImapSession, TlsMode};

const START: &str = "2026-11-24T09:00:00+01:00";

fn pbemd(cfg: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pbemd"));
    c.arg("--config").arg(cfg).args(args);
    for v in ["PBEMD_T_IMAP_PW", "PBEMD_T_SMTP_PW", "RUST_LOG"] {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run pbemd")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(out: Output) -> String {
    let (o, e) = text(&out);
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {o}\nstderr: {e}",
        out.status
    );
    o
}

/// A new game directory (Maildir in and out); its config with `edit` applied.
fn game(tmp: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let dir = tmp.join("g");
    let cfg = pbemd::app::setup::new_game_dir(&dir, None).unwrap();
    let text = edit(std::fs::read_to_string(&cfg).unwrap());
    std::fs::write(&cfg, text).unwrap();
    cfg
}

fn files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

/// Every mail in a Maildir folder, parsed.
fn mails(dir: &Path) -> Vec<common::Sent> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| common::Sent::parse(&std::fs::read(e.path()).unwrap()))
        .collect();
    out.sort_by_key(|m| m.date);
    out
}

fn old_envoy() -> Vec<u8> {
    common::mail(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "Ett gammalt sändebud från förra säsongen.",
        "old-envoy@players.test",
    )
}

/// The free envoys a receipt says are left ("kvar att skicka fritt den här rundan: N").
fn free_left(receipt: &str) -> u32 {
    let after = receipt
        .split("kvar att skicka fritt den här rundan: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no free allowance in {receipt}"));
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn an_envoy_in_the_maildir_before_init_is_kept_unplayed_and_gm_retry_plays_it() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path(), |t| t);
    let dir = cfg.parent().unwrap().to_path_buf();
    std::fs::write(dir.join("inbox/new/old.m"), old_envoy()).unwrap();

    let out = ok(pbemd(&cfg, &["init", "--quiet", "--now", START], &[]));
    assert!(
        out.contains("1 mail already in the inbox is kept as from before the game and not played"),
        "{out}"
    );
    assert_eq!(files(&dir.join("inbox/new")), 0, "taken out of new/");
    assert_eq!(files(&dir.join("inbox/cur")), 1, "kept in cur/");

    let out = ok(pbemd(
        &cfg,
        &["tick", "--now", "2026-11-24T10:00:00+01:00"],
        &[],
    ));
    assert!(out.contains("0 stored, 0 handled"), "{out}");
    assert_eq!(
        files(&dir.join("outbox/new")),
        0,
        "the old envoy is not played"
    );

    let q = ok(pbemd(&cfg, &["gm", "queue"], &[]));
    let line = q
        .lines()
        .find(|l| l.contains("from before the game"))
        .unwrap_or_else(|| panic!("{q}"));
    assert!(
        line.contains("genogien@game.test") && line.contains("sändebud till Afani"),
        "{line}"
    );
    let id = line.split_whitespace().next().unwrap().to_string();

    // Genogien's first envoy of the week is free, whatever waited before the game.
    std::fs::write(
        dir.join("inbox/new/new.m"),
        common::mail(
            "genogien@game.test",
            "Genogien skickar ett sändebud till Afani",
            "Ett nytt sändebud.",
            "new-envoy@players.test",
        ),
    )
    .unwrap();
    ok(pbemd(
        &cfg,
        &["tick", "--now", "2026-11-24T11:00:00+01:00"],
        &[],
    ));
    let sent = mails(&dir.join("outbox/new"));
    assert_eq!(sent.len(), 2, "the new envoy and its receipt: {sent:?}");
    let first = sent
        .iter()
        .find(|m| m.to_is("genogien@game.test"))
        .expect("receipt");
    let left_after_new = free_left(&first.text);

    let out = ok(pbemd(&cfg, &["gm", "retry", &id], &[]));
    assert!(out.contains(&id), "{out}");
    ok(pbemd(
        &cfg,
        &["tick", "--now", "2026-11-24T12:00:00+01:00"],
        &[],
    ));
    let sent = mails(&dir.join("outbox/new"));
    assert!(
        sent.iter()
            .any(|m| m.to_is("afani@game.test") && m.text.contains("gammalt sändebud")),
        "gm retry plays the old envoy: {sent:?}"
    );
    let second = sent
        .iter()
        .filter(|m| m.to_is("genogien@game.test"))
        .find(|m| m.in_reply_to.as_deref() == Some("old-envoy@players.test"))
        .expect("the old envoy's receipt");
    assert_eq!(
        free_left(&second.text) + 1,
        left_after_new,
        "the old envoy counts after the new one: {}",
        second.text
    );
    let q = ok(pbemd(&cfg, &["gm", "queue"], &[]));
    assert!(!q.contains("from before the game"), "{q}");
}

#[test]
fn init_take_old_mail_plays_the_mail_already_in_the_maildir() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path(), |t| t);
    let dir = cfg.parent().unwrap().to_path_buf();
    std::fs::write(dir.join("inbox/new/old.m"), old_envoy()).unwrap();
    let out = ok(pbemd(
        &cfg,
        &["init", "--quiet", "--take-old-mail", "--now", START],
        &[],
    ));
    assert!(out.contains("--take-old-mail"), "{out}");
    let out = ok(pbemd(
        &cfg,
        &["tick", "--now", "2026-11-24T10:00:00+01:00"],
        &[],
    ));
    assert!(out.contains("1 stored, 1 handled"), "{out}");
    assert!(
        mails(&dir.join("outbox/new"))
            .iter()
            .any(|m| m.to_is("afani@game.test") && m.text.contains("gammalt sändebud")),
        "the old envoy is played"
    );
}

#[test]
fn init_counts_the_opening_forms_it_sent() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path(), |t| t);
    let out = ok(pbemd(&cfg, &["init", "--now", START], &[]));
    assert!(out.contains("opening forms: 6 of 6 sent"), "{out}");
    assert_eq!(files(&cfg.parent().unwrap().join("outbox/new")), 6);
}

/// The game's config over IMAP (its password from `PBEMD_T_IMAP_PW`) and SMTP with a
/// login (from `PBEMD_T_SMTP_PW`).
fn with_passwords(t: String) -> String {
    t.replace(
        "inbound:\n  maildir: inbox\n",
        "inbound:\n  imap: {host: 127.0.0.1, port: 1, user: sl@game.test, password_env: PBEMD_T_IMAP_PW, tls: none}\n",
    )
    .replace(
        "outbound:\n  maildir: outbox\n",
        "outbound:\n  smtp: {host: 127.0.0.1, port: 1, user: sl@game.test, password_env: PBEMD_T_SMTP_PW, tls: none}\n",
    )
}

#[test]
fn commands_that_talk_to_no_mail_server_run_without_the_mail_passwords() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path(), with_passwords);
    // `init --quiet --take-old-mail` sends nothing and notes nothing: no password.
    ok(pbemd(
        &cfg,
        &["init", "--quiet", "--take-old-mail", "--now", START],
        &[],
    ));
    for args in [
        &["gm", "queue"][..],
        &["gm", "log"],
        &["state"],
        &["resolve", "--dry-run"],
        &["gm", "preview", "--realm", "Afani"],
    ] {
        ok(pbemd(&cfg, args, &[]));
    }
    let form = tmp.path().join("form.txt");
    std::fs::write(&form, "KÖP 1 spion\n").unwrap();
    let out = pbemd(
        &cfg,
        &["check-form", "--realm", "Afani", form.to_str().unwrap()],
        &[],
    );
    assert_ne!(out.status.code(), Some(2), "{:?}", text(&out));

    // A tick reads and sends mail: it says which password it lacks.
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T10:00:00+01:00"], &[]);
    let (_, err) = text(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("inbound.imap.password_env") && err.contains("PBEMD_T_IMAP_PW"),
        "{err}"
    );
    // `init` without --quiet mails the opening forms: it says which password it lacks.
    let out = pbemd(
        &cfg,
        &["init", "--force", "--take-old-mail", "--now", START],
        &[],
    );
    let (_, err) = text(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("PBEMD_T_SMTP_PW") && err.contains("init --quiet"),
        "{err}"
    );
    // A GM command that queues mail leaves it in the outbox and says so.
    let out = pbemd(&cfg, &["gm", "notice", "--now", "Välkomna!"], &[]);
    let (_, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("wait in the outbox, not sent from here") && err.contains("PBEMD_T_SMTP_PW"),
        "{err}"
    );
}

// ---- on the loopback mail stack ----

fn stack_dir() -> PathBuf {
    PathBuf::from(
        std::env::var("PBEMD_MAILSTACK_DIR")
            .or_else(|_| std::env::var("MAILSTACK_DIR"))
            .unwrap_or_else(|_| "/tmp/mailstack".into()),
    )
}

fn stack_up() -> bool {
    let up = std::net::TcpStream::connect("127.0.0.1:1143").is_ok()
        && std::net::TcpStream::connect("127.0.0.1:2525").is_ok();
    up || common::missing("the loopback mail stack (scripts/mailstack-start.sh)")
}

fn ca_file() -> String {
    stack_dir().join("tls/cert.pem").display().to_string()
}

/// A folder of sl@game.test's own for this test: created, empty.
async fn own_folder(tag: &str) -> String {
    let folder = format!("first-{tag}-{}-{}", std::process::id(), common_nanos());
    let conf = stack_dir().join("etc/dovecot.conf");
    let out = Command::new("doveadm")
        .arg("-c")
        .arg(&conf)
        .args(["mailbox", "create", "-u", "sl@game.test", &folder])
        .output()
        .expect("doveadm");
    assert!(out.status.success(), "{out:?}");
    folder
}

fn common_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

fn sl(mailbox: &str) -> ImapParams {
    ImapParams {
        host: "127.0.0.1".into(),
        port: 1143,
        user: "sl@game.test".into(),
        password: "sl-pass".into(),
        tls: TlsMode::None,
        ca_file: None,
        mailbox: mailbox.into(),
    }
}

async fn append(mailbox: &str, raw: &[u8]) {
    let mut s = ImapSession::connect(&sl(mailbox)).await.unwrap();
    s.select().await.unwrap();
    s.append(raw, None).await.unwrap();
    s.logout().await.unwrap();
}

#[tokio::test]
async fn an_envoy_in_the_imap_inbox_before_init_is_not_fetched_unless_take_old_mail() {
    if !stack_up() {
        return;
    }
    let folder = own_folder("old").await;
    append(&folder, &old_envoy()).await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game(tmp.path(), |t| {
        t.replace(
            "inbound:\n  maildir: inbox\n",
            &format!(
                "inbound:\n  imap: {{host: 127.0.0.1, port: 1143, user: sl@game.test, password_env: PBEMD_T_IMAP_PW, tls: none, mailbox: {folder}}}\n"
            ),
        )
    });
    let pw = [("PBEMD_T_IMAP_PW", "sl-pass")];
    let out = ok(pbemd(&cfg, &["init", "--quiet", "--now", START], &pw));
    assert!(
        out.contains(&format!(
            "1 mail already in mailbox {folder} is left there and not played"
        )),
        "{out}"
    );
    let out = ok(pbemd(
        &cfg,
        &["tick", "--now", "2026-11-24T10:00:00+01:00"],
        &pw,
    ));
    assert!(out.contains("0 stored, 0 handled"), "{out}");
    assert_eq!(files(&cfg.parent().unwrap().join("outbox/new")), 0);

    // Mail that comes after init is read as ever.
    append(
        &folder,
        &common::mail(
            "genogien@game.test",
            "Genogien skickar ett sändebud till Afani",
            "Ett nytt sändebud.",
            &format!("new-{}@players.test", common_nanos()),
        ),
    )
    .await;
    let out = ok(pbemd(
        &cfg,
        &["tick", "--now", "2026-11-24T11:00:00+01:00"],
        &pw,
    ));
    assert!(out.contains("1 stored, 1 handled"), "{out}");

    // Started again with --take-old-mail: every mail there is read and played.
    let out = ok(pbemd(
        &cfg,
        &[
            "init",
            "--force",
            "--quiet",
            "--take-old-mail",
            "--now",
            START,
        ],
        &pw,
    ));
    assert!(out.contains("--take-old-mail"), "{out}");
    let out = ok(pbemd(
        &cfg,
        &["tick", "--now", "2026-11-24T10:00:00+01:00"],
        &pw,
    ));
    assert!(out.contains("2 stored, 2 handled"), "{out}");
    let sent = mails(&cfg.parent().unwrap().join("outbox/new"));
    assert!(
        sent.iter()
            .any(|m| m.to_is("afani@game.test") && m.text.contains("gammalt sändebud")),
        "{sent:?}"
    );
}

/// A config over the stack: IMAP on `imap` (a YAML flow map's inside), SMTP on `smtp`.
fn stack_game(tmp: &Path, imap: &str, smtp: &str) -> PathBuf {
    game(tmp, |t| {
        t.replace(
            "inbound:\n  maildir: inbox\n",
            &format!("inbound:\n  imap: {{host: 127.0.0.1, user: sl@game.test, password_env: PBEMD_T_IMAP_PW, {imap}}}\n"),
        )
        .replace(
            "outbound:\n  maildir: outbox\n",
            &format!("outbound:\n  smtp: {{host: 127.0.0.1, user: sl@game.test, password_env: PBEMD_T_SMTP_PW, {smtp}}}\n"),
        )
    })
}

fn check(cfg: &Path, env: &[(&str, &str)]) -> (bool, String) {
    let out = pbemd(cfg, &["check-config"], env);
    let (o, e) = text(&out);
    (out.status.success(), format!("{o}{e}"))
}

const GOOD_PW: [(&str, &str); 2] = [
    ("PBEMD_T_IMAP_PW", "sl-pass"),
    ("PBEMD_T_SMTP_PW", "sl-pass"),
];

#[test]
fn check_config_logs_in_to_both_servers_and_exits_0_when_all_works() {
    if !stack_up() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ca = ca_file();
    let cfg = stack_game(
        tmp.path(),
        &format!("port: 1143, tls: starttls, ca_file: {ca}"),
        &format!("port: 2525, tls: starttls, ca_file: {ca}"),
    );
    let (ok, out) = check(&cfg, &GOOD_PW);
    assert!(ok, "{out}");
    assert!(out.contains("ok    config:"), "{out}");
    assert!(
        out.contains("ok    IMAP sl@game.test at 127.0.0.1:1143: logged in with STARTTLS; mailbox INBOX holds"),
        "{out}"
    );
    assert!(
        out.contains(
            "ok    SMTP sl@game.test at 127.0.0.1:2525: logged in with STARTTLS; no mail sent"
        ),
        "{out}"
    );
}

#[test]
fn check_config_names_a_wrong_password_and_where_it_was_read() {
    if !stack_up() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ca = ca_file();
    let cfg = stack_game(
        tmp.path(),
        &format!("port: 1143, tls: starttls, ca_file: {ca}"),
        &format!("port: 2525, tls: starttls, ca_file: {ca}"),
    );
    let (ok, out) = check(
        &cfg,
        &[("PBEMD_T_IMAP_PW", "wrong"), ("PBEMD_T_SMTP_PW", "wrong")],
    );
    assert!(!ok, "{out}");
    assert!(
        out.contains("FAIL  IMAP sl@game.test at 127.0.0.1:1143: wrong user or password (read from PBEMD_T_IMAP_PW)"),
        "{out}"
    );
    assert!(
        out.contains("FAIL  SMTP sl@game.test at 127.0.0.1:2525: wrong user or password (read from PBEMD_T_SMTP_PW)"),
        "{out}"
    );
    // A password not set at all is named too.
    let (ok, out) = check(&cfg, &[]);
    assert!(!ok);
    assert!(
        out.contains("no password: environment variable PBEMD_T_IMAP_PW is not set"),
        "{out}"
    );
}

#[test]
fn check_config_names_the_host_and_port_where_nothing_answers() {
    if !stack_up() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cfg = stack_game(tmp.path(), "port: 1, tls: none", "port: 2, tls: none");
    let (ok, out) = check(&cfg, &GOOD_PW);
    assert!(!ok, "{out}");
    assert!(
        out.contains("nothing answers at 127.0.0.1:1 (connection refused): check inbound.imap.host and inbound.imap.port"),
        "{out}"
    );
    assert!(
        out.contains(
            "nothing answers at 127.0.0.1:2 (connection refused): check outbound.smtp.host"
        ),
        "{out}"
    );
}

#[test]
fn check_config_says_to_set_ca_file_for_a_self_signed_certificate() {
    if !stack_up() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cfg = stack_game(
        tmp.path(),
        "port: 1993, tls: tls",
        "port: 2525, tls: starttls",
    );
    let (ok, out) = check(&cfg, &GOOD_PW);
    assert!(!ok, "{out}");
    assert!(
        out.contains("the server's certificate is not trusted: set inbound.imap.ca_file to its certificate or CA (self-signed?)"),
        "{out}"
    );
    assert!(
        out.contains("the server's certificate is not trusted: set outbound.smtp.ca_file to its certificate or CA (self-signed?)"),
        "{out}"
    );
}

#[test]
fn init_with_a_wrong_smtp_password_says_no_opening_form_was_sent() {
    if !stack_up() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ca = ca_file();
    let cfg = game(tmp.path(), |t| {
        t.replace(
            "outbound:\n  maildir: outbox\n",
            &format!("outbound:\n  smtp: {{host: 127.0.0.1, port: 2525, user: sl@game.test, password_env: PBEMD_T_SMTP_PW, tls: starttls, ca_file: {ca}}}\n"),
        )
    });
    let out = ok(pbemd(
        &cfg,
        &["init", "--now", START],
        &[("PBEMD_T_SMTP_PW", "wrong")],
    ));
    assert!(
        out.contains("opening forms: 0 of 6 sent; 6 wait in the outbox and are retried"),
        "{out}"
    );
    assert!(
        out.contains("(first error: SMTP sl@game.test at 127.0.0.1:2525: wrong user or password (read from PBEMD_T_SMTP_PW); the server said: 535"),
        "{out}"
    );
}

#[test]
fn the_daemon_logs_a_refused_imap_login_in_the_words_of_check_config() {
    if !stack_up() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cfg = stack_game(tmp.path(), "port: 1143, tls: none", "port: 2525, tls: none");
    ok(pbemd(
        &cfg,
        &["init", "--quiet", "--take-old-mail", "--now", START],
        &[],
    ));
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(&cfg)
        .arg("run")
        .env("PBEMD_T_IMAP_PW", "wrong")
        .env("PBEMD_T_SMTP_PW", "sl-pass")
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let t = Instant::now();
    let mut seen = Vec::new();
    let found = loop {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
            seen.push(line.clone());
            if line.contains("IMAP connect failed") {
                break Some(line);
            }
        }
        if t.elapsed() > Duration::from_secs(20) {
            break None;
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    let line = found.unwrap_or_else(|| panic!("no IMAP failure logged: {seen:#?}"));
    assert!(
        line.contains("IMAP sl@game.test at 127.0.0.1:1143: wrong user or password (read from PBEMD_T_IMAP_PW)"),
        "{line}"
    );
    assert!(line.contains("retry_in"), "still retried: {line}");
}
