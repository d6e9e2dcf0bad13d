//! The GM's hand on the courier: approve, reject, hold and edit messages in the review
//! queue, and send again outgoing mail that was not delivered. Every action is an
//! audit event. A held message keeps its receipt time, so an envoy received in the
//! weekday window and approved at the weekend still goes out.

use serde_json::json;

use super::{courier, App, AppError, Result};
use crate::clock;
use crate::mail::compose::Outgoing;
use crate::store::messages::{self, state};
use crate::store::outbox::{self, OutRow};
use crate::store::{events, Conn};

async fn load(conn: &mut Conn, id: i64, allowed: &[&str], verb: &str) -> Result<messages::Message> {
    let m = messages::get(conn, id).await?.ok_or_else(|| {
        AppError::Refused(format!("no message {id}; `pbemd gm queue` lists them"))
    })?;
    if !allowed.contains(&m.state.as_str()) {
        return Err(AppError::Refused(format!(
            "message {id} is {}; only {} messages can be {verb}",
            m.state,
            allowed.join(" or ")
        )));
    }
    Ok(m)
}

async fn commit(tx: crate::store::Tx) -> Result<()> {
    tx.commit().await.map_err(|e| {
        AppError::Store(crate::store::StoreError::Query {
            what: "commit a GM action",
            source: e,
        })
    })
}

/// Release a held message to the courier; with `now` (or in immediate mode) a batch
/// runs at once, otherwise it goes out with the next scheduled batch.
pub async fn approve(app: &App, id: i64, now: bool) -> Result<courier::BatchReport> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    let m = load(&mut tx, id, &[state::HELD], "approved").await?;
    messages::set_state(&mut tx, id, state::QUEUED, None, at).await?;
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_approved",
        m.realm.as_deref(),
        Some(id),
        "",
    )
    .await?;
    commit(tx).await?;
    if now || app.cfg.courier.mode == crate::config::CourierMode::Immediate {
        return courier::batch_now(app).await;
    }
    Ok(courier::BatchReport::default())
}

/// Refuse a held or queued message: the sender gets `reason`; nothing is charged.
pub async fn reject(app: &App, id: i64, reason: &str) -> Result<()> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    let m = load(
        &mut tx,
        id,
        &[
            state::HELD,
            state::QUEUED,
            state::GM_QUEUE,
            state::PARKED,
            state::BEFORE_GAME,
        ],
        "rejected",
    )
    .await?;
    messages::set_state(&mut tx, id, state::REFUSED, Some(reason), at).await?;
    if m.kind == messages::UNHANDLED {
        crate::store::inbox::set_state(&mut tx, m.inbox_id, "done", at).await?;
    }
    if let Some(realm) = &m.realm {
        let (_, gs) = app.state(&mut tx).await?;
        if let Some(r) = gs.realm(realm) {
            let data = json!({"realm": realm, "subject": m.subject, "reason": reason});
            let raw_id = crate::store::inbox::message_id(&mut tx, m.inbox_id).await?;
            let o = Outgoing {
                kind: "refusal",
                dedup_key: format!("gm_reject:{id}"),
                to: r.emails.clone(),
                subject: crate::mail::subject::reply_subject(&m.subject, r.language),
                body: app.renderer.render("refusal", r.language, &data)?,
                in_reply_to: raw_id,
            };
            app.enqueue(&mut tx, &o).await?;
        }
    }
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_rejected",
        m.realm.as_deref(),
        Some(id),
        reason,
    )
    .await?;
    commit(tx).await?;
    app.wake.notify_one();
    Ok(())
}

/// Try a parked unit of work again: an unhandled mail goes back to the inbox (handled
/// again, with its original receipt time, by the next tick or the running daemon), a
/// courier message back to the courier's queue. Never automatic: a unit that keeps
/// failing is parked again and waits for the GM.
pub async fn retry(app: &App, id: i64) -> Result<()> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    let m = load(&mut tx, id, &[state::PARKED, state::BEFORE_GAME], "retried").await?;
    if m.state == state::BEFORE_GAME {
        // Mail from before the game is played as received at the game's latest time.
        let played_at = super::scheduler::last_now(app, &mut tx).await?;
        messages::delete(&mut tx, id).await?;
        crate::store::inbox::play_before_game(&mut tx, m.inbox_id, clock::to_ms(played_at)).await?;
    } else if m.kind == messages::UNHANDLED {
        messages::delete(&mut tx, id).await?;
        crate::store::inbox::set_state(&mut tx, m.inbox_id, "new", at).await?;
    } else {
        messages::unpark(&mut tx, id, state::QUEUED, at).await?;
    }
    let detail = json!({"kind": m.kind, "inbox_id": m.inbox_id, "error": m.reason}).to_string();
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_retried",
        m.realm.as_deref(),
        Some(id),
        &detail,
    )
    .await?;
    commit(tx).await?;
    app.wake.notify_one();
    Ok(())
}

/// What `gm retry-mail` did: the outgoing mail after its new attempt.
#[derive(Debug, Clone)]
pub struct MailRetried {
    pub mail: OutRow,
}

impl MailRetried {
    /// What came of it, as the command and the desk say it.
    pub fn summary(&self) -> String {
        let m = &self.mail;
        match (m.state.as_str(), m.last_error.as_deref()) {
            ("sent", _) => format!("outbox {} sent to {}", m.id, m.to_addrs),
            ("failed", e) => format!(
                "outbox {} failed again and was given up: {}",
                m.id,
                e.unwrap_or("-")
            ),
            (_, Some(e)) if m.attempts > 0 => format!(
                "outbox {} failed again ({e}); it is tried again later",
                m.id
            ),
            _ => format!("outbox {} goes out with the next send", m.id),
        }
    }
}

/// Send again an outgoing mail that the sender gave up (`failed`). It is due at once
/// with a fresh count of attempts (so a failure is retried with backoff as a new mail
/// is), audited as `gm_mail_retried` with the attempts and the error it had, and the
/// outbox is flushed. The same bytes and Message-ID go out, as with every retry. A
/// mail waiting for its next try is refused: it is tried again by itself, and it may
/// be in a sender's hands at this moment (see `outbox::retry_now`).
pub async fn retry_mail(app: &App, id: i64) -> Result<MailRetried> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    let no_such = || {
        AppError::Refused(format!(
            "no outgoing mail {id}; `pbemd gm queue` lists those not yet delivered"
        ))
    };
    let m = outbox::get(&mut tx, id).await?.ok_or_else(no_such)?;
    if m.undelivered() && !m.given_up() {
        return Err(AppError::Refused(format!(
            "outbox {id} is waiting to be tried again after {} attempt(s) and is tried \
             again by itself; only failed mail (given up) can be retried",
            m.attempts
        )));
    }
    if !outbox::retry_now(&mut tx, id, at).await? {
        return Err(AppError::Refused(format!(
            "outbox {id} is {} after {} attempt(s); only failed mail (given up) can be \
             retried",
            m.state, m.attempts
        )));
    }
    let (_, gs) = app.state(&mut tx).await?;
    let detail = json!({"outbox_id": id, "kind": m.kind, "to": m.to_addrs,
                        "state": m.state, "attempts": m.attempts, "error": m.last_error});
    events::log(
        &mut tx,
        at,
        gs.round as i64,
        "gm_mail_retried",
        None,
        None,
        &detail.to_string(),
    )
    .await?;
    commit(tx).await?;
    super::sender::flush_all(app).await?;
    let mut conn = app.store.conn().await?;
    let mail = outbox::get(&mut conn, id).await?.ok_or_else(no_such)?;
    Ok(MailRetried { mail })
}

/// Hold a queued message for review.
pub async fn hold(app: &App, id: i64) -> Result<()> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    let m = load(&mut tx, id, &[state::QUEUED], "held").await?;
    messages::set_state(&mut tx, id, state::HELD, None, at).await?;
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_held",
        m.realm.as_deref(),
        Some(id),
        "",
    )
    .await?;
    commit(tx).await
}

/// What `gm edit` of a weekend form found in the corrected text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditedForm {
    pub accepted: usize,
    pub refused: usize,
}

/// Correct a held or queued message's text, or a realm's standing weekend form of a
/// round not yet resolved (checked again; it counts in place of the old text, with its
/// receipt time); the old and new text are audited.
pub async fn edit(app: &App, id: i64, text: &str) -> Result<Option<EditedForm>> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    if let Some(m) = messages::get(&mut tx, id)
        .await?
        .filter(|m| m.kind == "form")
    {
        let edited = edit_form(app, &mut tx, &m, text, at).await?;
        commit(tx).await?;
        return Ok(Some(edited));
    }
    let m = load(&mut tx, id, &[state::HELD, state::QUEUED], "edited").await?;
    messages::set_body(&mut tx, id, text, at).await?;
    let detail = json!({"old": m.body, "new": text}).to_string();
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_edited",
        m.realm.as_deref(),
        Some(id),
        &detail,
    )
    .await?;
    commit(tx).await?;
    Ok(None)
}

/// `gm edit` of a weekend form: only the realm's standing form of the current round,
/// and only before the round is resolved (`gm rollback` first, then `gm resolve`).
async fn edit_form(
    app: &App,
    conn: &mut Conn,
    m: &messages::Message,
    text: &str,
    at: i64,
) -> Result<EditedForm> {
    let id = m.id;
    let realm = m.realm.clone().unwrap_or_default();
    let standing = crate::store::forms::standing(conn, &realm, m.round).await?;
    let Some(form) = standing.filter(|f| f.message_id == id) else {
        return Err(AppError::Refused(format!(
            "message {id} is not {realm}'s standing form of round {}; only that one can be edited",
            m.round
        )));
    };
    let (_, gs) = app.state(conn).await?;
    let resolved = crate::store::resolutions::standing(conn, m.round).await?;
    if m.round != gs.round as i64 || resolved.is_some() {
        return Err(AppError::Refused(format!(
            "the weekend of round {} is resolved: `pbemd gm rollback` first, then edit the \
             form, then `pbemd gm resolve`",
            m.round
        )));
    }
    let checked = crate::forms::read_form(&gs, &realm, text, &[]);
    let orders = serde_json::to_string(&checked).map_err(|e| AppError::BadState(e.to_string()))?;
    crate::store::forms::insert(
        conn,
        id,
        &realm,
        m.round,
        form.received_at,
        text,
        Some(&orders),
    )
    .await?;
    messages::set_body(conn, id, text, at).await?;
    let edited = EditedForm {
        accepted: checked.accepted(),
        refused: checked.refused(),
    };
    let detail = json!({"old": form.body, "new": text, "form": true,
                        "accepted": edited.accepted, "refused": edited.refused});
    events::log(
        conn,
        at,
        m.round,
        "gm_edited",
        Some(&realm),
        Some(id),
        &detail.to_string(),
    )
    .await?;
    Ok(edited)
}

/// Replace the state with a GM-corrected document: it must parse and validate; the
/// old and new versions stay in the store and the import is audited.
pub async fn import_state(app: &App, json_text: &str) -> Result<i64> {
    let gs: crate::game::GameState = serde_json::from_str(json_text)
        .map_err(|e| AppError::Refused(format!("the state document does not parse: {e}")))?;
    if let Err(problems) = gs.validate() {
        return Err(AppError::Refused(format!(
            "the state document is not valid: {}",
            problems.join("; ")
        )));
    }
    let mut tx = app.store.begin().await?;
    let (version, _) = app.state(&mut tx).await?;
    let v = app
        .save_state(&mut tx, version, &gs, "imported by the GM")
        .await?;
    let at = clock::to_ms(app.now());
    events::log(
        &mut tx,
        at,
        gs.round as i64,
        "gm_import_state",
        None,
        Some(v),
        "",
    )
    .await?;
    commit(tx).await?;
    Ok(v)
}
