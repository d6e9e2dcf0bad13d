//! `pbemd check-config`: is the game's config ready for a real game? It logs in to the
//! IMAP server (selects the mailbox, counts its mails) and to the SMTP server (EHLO,
//! STARTTLS or TLS, AUTH; no mail is sent), or looks at the Maildirs, and the
//! webhook's secret, and says for each part what works or what is wrong and its fix,
//! in the words the daemon logs ([`crate::transport::diagnose::explain`]).
//!
//! Must not touch: the database or the game (a config is checked before `init`).

use std::path::Path;

use crate::config::{Config, Inbound, Outbound, Secret};
use crate::transport::diagnose::{explain, Server};
use crate::transport::imap::{ImapSession, TlsMode};

/// One part of the setup and how it fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub ok: bool,
    /// `IMAP sl@game.test at 127.0.0.1:1143: logged in with STARTTLS; …`
    pub line: String,
}

impl Part {
    fn ok(line: String) -> Part {
        Part { ok: true, line }
    }

    fn failed(line: String) -> Part {
        Part { ok: false, line }
    }
}

/// Every part after the config itself (which the caller has loaded): mail in, mail
/// out, the webhook.
pub async fn check(cfg: &Config) -> Vec<Part> {
    let mut parts = vec![Part::ok(format!(
        "config: {} is valid (game {:?}, from {})",
        cfg.path.display(),
        cfg.game_name,
        cfg.game_address
    ))];
    parts.push(match &cfg.inbound {
        Inbound::Imap(i) => {
            let server = cfg.imap_server().expect("IMAP intake");
            match missing(cfg.imap_password.as_ref()) {
                Some(why) => Part::failed(format!("{}: no password: {why}", server.name())),
                None => imap(&i.params, &server).await,
            }
        }
        Inbound::Maildir(dir) => maildir("mail in: Maildir", dir, true),
    });
    parts.push(match &cfg.outbound {
        Outbound::Smtp(p) => {
            let server = cfg.smtp_server().expect("SMTP output");
            match missing(cfg.smtp_password.as_ref()) {
                Some(why) => Part::failed(format!("{}: no password: {why}", server.name())),
                None => smtp(p, &server).await,
            }
        }
        Outbound::Maildir(dir) => maildir("mail out: Maildir", dir, false),
    });
    if let Some(var) = &cfg.webhook_unset {
        parts.push(Part::failed(format!(
            "webhook: environment variable {var} is not set: export the webhook's secret \
             there (webhook.secret_env) before `pbemd run`"
        )));
    } else if cfg.webhook.is_some() {
        parts.push(Part::ok(format!(
            "webhook: secret read; `pbemd run` takes mail posted to http://{}/inbound",
            cfg.http_listen.as_deref().unwrap_or("-")
        )));
    }
    parts
}

fn missing(secret: Option<&Secret>) -> Option<String> {
    secret.and_then(|s| s.missing.clone().map(|m| format!("{m} ({})", s.key)))
}

fn tls_words(tls: TlsMode) -> &'static str {
    match tls {
        TlsMode::None => "without TLS",
        TlsMode::Starttls => "with STARTTLS",
        TlsMode::Tls => "with TLS",
    }
}

async fn imap(p: &crate::transport::imap::ImapParams, server: &Server) -> Part {
    let failed = |e| Part::failed(format!("{}: {}", server.name(), explain(&e, server)));
    let mut session = match ImapSession::connect(p).await {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    let selected = session.select().await;
    let _ = session.logout().await;
    match selected {
        Ok(st) => Part::ok(format!(
            "{}: logged in {}; mailbox {} holds {}",
            server.name(),
            tls_words(p.tls),
            p.mailbox,
            crate::game::lang::count(st.exists as usize, "mail", "mails")
        )),
        Err(e) => failed(e),
    }
}

async fn smtp(p: &crate::transport::smtp::SmtpParams, server: &Server) -> Part {
    match crate::transport::smtp::probe(p).await {
        Ok(probed) => Part::ok(format!(
            "{}: {} {}; no mail sent",
            server.name(),
            if probed.logged_in {
                "logged in"
            } else {
                "connected (no login set: outbound.smtp.user)"
            },
            tls_words(p.tls)
        )),
        Err(e) => Part::failed(format!("{}: {}", server.name(), explain(&e, server))),
    }
}

/// A Maildir's `new/`, `cur/` and `tmp/` exist and pbemd can write there (a file is
/// made in `tmp/` and removed). Nothing is created: a missing folder is a failure.
fn maildir(what: &str, dir: &Path, count_new: bool) -> Part {
    let key = if count_new {
        "inbound.maildir"
    } else {
        "outbound.maildir"
    };
    for sub in ["new", "cur", "tmp"] {
        let d = dir.join(sub);
        if !d.is_dir() {
            return Part::failed(format!(
                "{what} {}: {} is missing: create it (mkdir -p {}/{{new,cur,tmp}}) or correct {key}",
                dir.display(),
                d.display(),
                dir.display()
            ));
        }
    }
    let probe = dir
        .join("tmp")
        .join(format!(".pbemd-check-config-{}", std::process::id()));
    if let Err(e) = std::fs::write(&probe, b"check").and_then(|()| std::fs::remove_file(&probe)) {
        return Part::failed(format!(
            "{what} {}: cannot write there ({e}): give the user pbemd runs as write access",
            dir.display()
        ));
    }
    let waiting = if count_new {
        let n = std::fs::read_dir(dir.join("new"))
            .map(|r| r.filter_map(|e| e.ok()).count())
            .unwrap_or(0);
        format!("; {} in new/", crate::game::lang::count(n, "mail", "mails"))
    } else {
        String::new()
    };
    Part::ok(format!(
        "{what} {}: new/, cur/ and tmp/ exist and are writable{waiting}",
        dir.display()
    ))
}
