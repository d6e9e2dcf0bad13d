//! The GM's desk in the app: what the review queue holds (the same list for
//! `pbemd gm queue` and the web page), one message with its raw mail and its audit
//! trail, and the GM's login — the Argon2id password check, failed logins counted per
//! client and in all (in the database, so every replica shares the count), and every
//! login, failed login and logout in the audit log. No plain password is kept or logged.

use serde_json::json;

use super::{App, AppError, Result};
use crate::clock;
use crate::store::events::{self, Event};
use crate::store::messages::{self, state, Message};
use crate::store::notices::{self, HeldGroup};
use crate::store::outbox::{self, OutRow};
use crate::store::{desk, inbox, meta, Conn};

/// Failed logins from one client within [`FAIL_WINDOW_MINUTES`] after which further
/// tries are refused without looking at the password.
pub const MAX_FAILS_PER_CLIENT: i64 = 5;
/// Failed logins from everyone together within the window after which every try is
/// refused (a spread-out guessing attack).
pub const MAX_FAILS_IN_ALL: i64 = 50;
/// The window of the counts, in minutes.
pub const FAIL_WINDOW_MINUTES: i64 = 15;

/// What waits for the GM: messages (oldest first), replies held by flood control, and
/// outgoing mail that could not be delivered yet.
#[derive(Debug, Clone, Default)]
pub struct Queue {
    pub messages: Vec<Message>,
    pub held_replies: Vec<HeldGroup>,
    pub undelivered: Vec<OutRow>,
}

/// The message states the queue lists; with `all` also the refused, answered and
/// closed ones.
pub fn queue_states(all: bool) -> &'static [&'static str] {
    const OPEN: &[&str] = &[
        state::PARKED,
        state::BEFORE_GAME,
        state::GM_QUEUE,
        state::HELD,
        state::QUEUED,
    ];
    const ALL: &[&str] = &[
        state::PARKED,
        state::BEFORE_GAME,
        state::GM_QUEUE,
        state::HELD,
        state::QUEUED,
        state::REFUSED,
        state::ANSWERED,
        state::DONE,
    ];
    if all {
        ALL
    } else {
        OPEN
    }
}

/// The review queue, as `gm queue` prints it and the desk shows it.
pub async fn queue(app: &App, all: bool) -> Result<Queue> {
    let mut conn = app.store.conn().await?;
    Ok(Queue {
        messages: messages::in_states(&mut conn, queue_states(all)).await?,
        held_replies: notices::held(&mut conn).await?,
        undelivered: outbox::failed_or_retrying(&mut conn).await?,
    })
}

/// One message as `gm show` and the desk's message page show it.
#[derive(Debug, Clone)]
pub struct MessageView {
    pub message: Message,
    /// The mail as received.
    pub raw: Option<Vec<u8>>,
    /// What happened to it: its audit entries, oldest first.
    pub trail: Vec<Event>,
}

/// Message `id` with its raw mail and its audit trail.
pub async fn message(app: &App, id: i64) -> Result<MessageView> {
    let mut conn = app.store.conn().await?;
    let Some(message) = messages::get(&mut conn, id).await? else {
        return Err(AppError::Refused(format!(
            "no message {id}; `pbemd gm queue --all` lists them"
        )));
    };
    let raw = inbox::raw(&mut conn, message.inbox_id).await?;
    let trail = desk::message_events(&mut conn, id).await?;
    Ok(MessageView {
        message,
        raw,
        trail,
    })
}

/// An Argon2id hash (default parameters, random salt) of `password` as a PHC string.
pub fn hash_password(password: &str) -> Result<String> {
    use argon2::password_hash::{phc::PasswordHash, PasswordHasher};
    let hash: PasswordHash = argon2::Argon2::default()
        .hash_password(password.as_bytes())
        .map_err(|e| AppError::Refused(format!("cannot hash the password: {e}")))?;
    Ok(hash.to_string())
}

/// Whether `password` matches the PHC string `hash` (a malformed hash matches nothing).
pub fn password_matches(hash: &str, password: &str) -> bool {
    use argon2::password_hash::{phc::PasswordHash, PasswordVerifier};
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    argon2::Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok()
}

/// The longest password looked at; a longer one is a failed login (no hashing of
/// megabytes).
pub const MAX_PASSWORD_BYTES: usize = 1024;

/// At most two Argon2 checks run at once (each takes ~19 MiB and some CPU): a burst
/// of logins waits instead of exhausting the machine.
static CHECKS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

async fn check_password(hash: String, password: &str) -> bool {
    if password.len() > MAX_PASSWORD_BYTES {
        return false;
    }
    let Ok(_permit) = CHECKS.acquire().await else {
        return false;
    };
    let pw = password.to_string();
    tokio::task::spawn_blocking(move || password_matches(&hash, &pw))
        .await
        .unwrap_or(false)
}

/// How a login attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Login {
    /// The password matched: start a session.
    Welcome,
    /// Wrong password (counted).
    Wrong,
    /// Too many failures lately: refused without looking at the password.
    TooMany,
    /// No password hash is configured: the desk is off.
    Disabled,
}

fn fail_name(client: &str) -> String {
    format!("gm_login_fail:{client}")
}

const FAIL_ALL: &str = "gm_login_fail:*";

/// Try to log the GM in from `client` (an IP address as text). Audited either way.
pub async fn login(app: &App, client: &str, password: &str) -> Result<Login> {
    let Some(hash) = app.cfg.http.gm_password_hash.clone() else {
        return Ok(Login::Disabled);
    };
    let now = app.now().timestamp();
    let slot = now.div_euclid(60);
    let from = slot - (FAIL_WINDOW_MINUTES - 1);
    let mut conn = app.store.conn().await?;
    let mine = desk::count_since(&mut conn, &fail_name(client), from).await?;
    let all = desk::count_since(&mut conn, FAIL_ALL, from).await?;
    if mine >= MAX_FAILS_PER_CLIENT || all >= MAX_FAILS_IN_ALL {
        // One audit entry per client and minute, however fast the tries come.
        let n = notices::bump(&mut conn, &format!("gm_login_limited:{client}"), slot).await?;
        if n == 1 {
            audit(app, &mut conn, "gm_login_refused", client, mine, all).await?;
        }
        return Ok(Login::TooMany);
    }
    drop(conn);
    let ok = check_password(hash, password).await;
    let mut conn = app.store.conn().await?;
    if ok {
        audit(app, &mut conn, "gm_login", client, mine, all).await?;
        return Ok(Login::Welcome);
    }
    let mine = notices::bump(&mut conn, &fail_name(client), slot).await?;
    notices::bump(&mut conn, FAIL_ALL, slot).await?;
    desk::forget_before(&mut conn, "gm_login_", slot - 4 * FAIL_WINDOW_MINUTES).await?;
    audit(app, &mut conn, "gm_login_failed", client, mine, all + 1).await?;
    Ok(Login::Wrong)
}

/// The `meta` key of the GM sessions' epoch: a session cookie carries the epoch it
/// was made in and is good only while that epoch lasts.
const GM_SESSION_EPOCH: &str = "gm_session_epoch";

/// The current epoch of GM sessions (0 until the first logout).
pub async fn session_epoch(app: &App) -> Result<i64> {
    let mut conn = app.store.conn().await?;
    Ok(meta::get_i64(&mut conn, GM_SESSION_EPOCH)
        .await?
        .unwrap_or(0))
}

/// End every GM session on every replica (a logout, a new password).
pub async fn end_sessions(conn: &mut Conn) -> Result<()> {
    let epoch = meta::get_i64(conn, GM_SESSION_EPOCH).await?.unwrap_or(0);
    let next = epoch.saturating_add(1).to_string();
    meta::set(conn, GM_SESSION_EPOCH, &next).await?;
    Ok(())
}

/// The GM logged out from `client`: every GM session ends; audited.
pub async fn logout(app: &App, client: &str) -> Result<()> {
    let mut conn = app.store.conn().await?;
    end_sessions(&mut conn).await?;
    let at = clock::to_ms(app.now());
    let round = current_round(app, &mut conn).await;
    let d = json!({ "client": client }).to_string();
    events::log(&mut conn, at, round, "gm_logout", None, None, &d).await?;
    Ok(())
}

/// `pbemd gm passwd` set a new password: the sessions made with the old one end;
/// audited (without the password or its hash).
pub async fn password_changed(app: &App) -> Result<()> {
    let mut conn = app.store.conn().await?;
    end_sessions(&mut conn).await?;
    let at = clock::to_ms(app.now());
    let round = current_round(app, &mut conn).await;
    events::log(&mut conn, at, round, "gm_password_set", None, None, "").await?;
    Ok(())
}

async fn audit(
    app: &App,
    conn: &mut Conn,
    kind: &str,
    client: &str,
    fails_client: i64,
    fails_all: i64,
) -> Result<()> {
    let at = clock::to_ms(app.now());
    let round = current_round(app, conn).await;
    let d = json!({ "client": client, "recent_failures_from_client": fails_client,
                    "recent_failures_in_all": fails_all })
    .to_string();
    events::log(conn, at, round, kind, None, None, &d).await?;
    Ok(())
}

/// The game's round (0 before `init`), for audit entries outside any round's work.
async fn current_round(app: &App, conn: &mut Conn) -> i64 {
    match app.state(conn).await {
        Ok((_, gs)) => gs.round as i64,
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_matches_its_password_only_and_carries_no_plain_text() {
        let h = hash_password("korrekt häst").unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(!h.contains("korrekt"));
        assert!(password_matches(&h, "korrekt häst"));
        assert!(!password_matches(&h, "korrekt hast"));
        assert!(!password_matches("not a hash", "x"));
        assert_ne!(h, hash_password("korrekt häst").unwrap(), "random salt");
    }
}
