//! Classify stored mail and act on it: one inbox row per transaction, which records
//! the message, its routing (delivery, form, GM queue or refusal), any reply, the
//! audit event and the inbox row's `done` mark together — all or nothing.

use chrono::{DateTime, Utc};
use serde_json::json;

use tracing::Instrument;

use super::{fault, App, AppError, Result};
use crate::clock::{self, from_ms};
use crate::courier::{self, Incoming, Route};
use crate::game::text::MailKind;
use crate::game::{GameState, Lang};
use crate::mail::classify::{self, Classified};
use crate::mail::compose::Outgoing;
use crate::mail::parse::{self, Inbound};
use crate::schedule::Window;
use crate::store::messages::{self, state, NewMessage};
use crate::store::{events, forms, inbox, Conn, StoreError};

mod batch;
pub use batch::{
    handle_in_store, may_handle_in_store, process_and_route_before, process_batch_before,
    HANDLE_BATCH,
};

/// Kind names stored in `messages.kind`.
pub fn kind_str(k: MailKind) -> &'static str {
    match k {
        MailKind::Envoy => "envoy",
        MailKind::Merchant => "merchant",
        MailKind::Spy => "spy",
        MailKind::Form => "form",
        MailKind::ToGm => "to_gm",
    }
}

/// Handle the stored mail received first. Returns false when none was waiting.
///
/// The mail is one unit of work: when handling it fails (an error or a panic) its
/// transaction rolls back and the mail is parked for the GM with the error text, and
/// this still counts as work done, so the worker goes on with the next mail.
pub async fn process_once(app: &App) -> Result<bool> {
    process_once_before(app, None).await
}

/// `process_once` for a mail received before `before` (ms) only, if given. With
/// several replicas the mail is claimed with `FOR UPDATE SKIP LOCKED` (each replica
/// takes another), and its handling then waits for the game lock, so handlings that
/// change the game run one after another.
pub async fn process_once_before(app: &App, before: Option<i64>) -> Result<bool> {
    let mut tx = app.store.begin_write().await?;
    let Some(w) = inbox::claim_next_before(&app.store, &mut tx, before).await? else {
        return Ok(false);
    };
    crate::store::lease::game_lock(&app.store, &mut tx).await?;
    let span = mail_span(app, &w);
    let outcome = fault::guarded(handle_unit(app, &mut tx, &w))
        .instrument(span.clone())
        .await;
    match outcome {
        Ok(()) => {
            tx.commit().await.map_err(|e| StoreError::Query {
                what: "commit a handled mail",
                source: e,
            })?;
            span.in_scope(|| tracing::info!("mail handled"));
        }
        Err(fault::Failed::Machine(e)) => {
            abandon(app, tx).await;
            return Err(e);
        }
        Err(fault::Failed::Unit(error)) => {
            abandon(app, tx).await;
            park_mail(app, &w, &error).instrument(span).await?;
        }
    }
    app.wake.notify_one();
    Ok(true)
}

/// Roll back a unit's transaction that failed, and forget the state it may have
/// cached, so the next unit reads the state as stored.
async fn abandon(app: &App, tx: crate::store::WriteTx) {
    let _ = tx.rollback().await;
    app.forget_state();
}

/// The span every log line about handling `w` carries.
fn mail_span(app: &App, w: &inbox::Waiting) -> tracing::Span {
    tracing::info_span!(
        "mail",
        game = %app.cfg.game_name,
        inbox_id = w.id,
        message_id = w.message_id.as_deref().unwrap_or(""),
        round = tracing::field::Empty,
        realm = tracing::field::Empty,
    )
}

/// Everything one stored mail's transaction does.
async fn handle_unit(app: &App, tx: &mut Conn, w: &inbox::Waiting) -> Result<()> {
    fault::mail_hook(&w.raw)?;
    let (_, gs) = app.state(tx).await?;
    handle(app, tx, &gs, w.id, &w.raw, w.received_at, w.size).await?;
    let done = clock::to_ms(app.now());
    inbox::mark_done(tx, w.id, done).await?;
    let waited = done.saturating_sub(w.received_at).max(0) as f64 / 1000.0;
    app.metrics.handling.observe(waited);
    Ok(())
}

/// Park a mail whose handling failed: a stand-in message in the GM queue carries the
/// error text, and the mail is not claimed again until `gm retry`.
async fn park_mail(app: &App, w: &inbox::Waiting, error: &str) -> Result<()> {
    let mut tx = app.store.begin().await?;
    park_in(app, &mut tx, w, error).await?;
    tx.commit().await.map_err(|e| StoreError::Query {
        what: "commit a parked mail",
        source: e,
    })?;
    Ok(())
}

/// `park_mail` inside the caller's transaction.
async fn park_in(app: &App, tx: &mut Conn, w: &inbox::Waiting, error: &str) -> Result<()> {
    tracing::error!(%error, "handling a mail failed; parked for the GM");
    let now = clock::to_ms(app.now());
    let error = fault::clean_text(error, 4000);
    let round = app.state(tx).await.map(|(_, gs)| gs.round).unwrap_or(0) as i64;
    let id = messages::insert(
        tx,
        &NewMessage {
            inbox_id: w.id,
            kind: messages::UNHANDLED,
            subject: &fault::raw_subject(&w.raw),
            body: "",
            state: state::PARKED,
            reason: Some(&error),
            round,
            at: now,
            ..Default::default()
        },
    )
    .await?;
    inbox::set_state(tx, w.id, "parked", now).await?;
    events::log(tx, now, round, "unit_parked", None, Some(id), &error).await?;
    Ok(())
}

/// Handle every stored mail, in batches; returns how many.
pub async fn process_all(app: &App) -> Result<usize> {
    let mut n = 0;
    loop {
        match process_batch_before(app, None).await? {
            0 => return Ok(n),
            k => n += k,
        }
    }
}

/// A mail nobody gets a reply to, queued for the GM with the reason.
struct GmEntry<'a> {
    kind: &'static str,
    event: &'static str,
    from: Option<&'a str>,
    subject: &'a str,
    body: &'a str,
    reason: &'a str,
}

async fn queue_for_gm(
    conn: &mut Conn,
    inbox_id: i64,
    round: i64,
    now: i64,
    e: &GmEntry<'_>,
) -> Result<()> {
    let id = messages::insert(
        conn,
        &NewMessage {
            inbox_id,
            kind: e.kind,
            from_addr: e.from,
            subject: e.subject,
            body: e.body,
            state: state::GM_QUEUE,
            reason: Some(e.reason),
            round,
            at: now,
            ..Default::default()
        },
    )
    .await?;
    events::log(conn, now, round, e.event, None, Some(id), e.reason).await?;
    Ok(())
}

async fn handle(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    inbox_id: i64,
    raw: &[u8],
    received_ms: i64,
    size: usize,
) -> Result<()> {
    let round = gs.round as i64;
    let now = clock::to_ms(app.now());
    let Read {
        mail,
        auth,
        subject,
        classified,
    } = match read_mail(app, gs, raw, size) {
        Ok(r) => r,
        Err(e) => {
            // Not a mail at all: nobody to answer; the GM sees it.
            let reason = e.to_string();
            let entry = GmEntry {
                kind: "unreadable",
                event: "mail_unreadable",
                from: None,
                subject: "",
                body: &String::from_utf8_lossy(&raw[..raw.len().min(4096)]),
                reason: &reason,
            };
            queue_for_gm(conn, inbox_id, round, now, &entry).await?;
            tracing::warn!(%reason, "unreadable mail queued for the GM");
            return Ok(());
        }
    };
    if let Some(realm) = super::sender_auth::claimed_realm(&classified) {
        if let Some(reason) = auth.doubt(app.cfg.sender_check, gs, realm) {
            let u = super::sender_auth::Unproven {
                inbox_id,
                mail: &mail,
                realm,
                reason: &reason,
            };
            return super::sender_auth::hold(app, conn, gs, &u).await;
        }
    }
    match classified {
        Classified::DoubtfulSender { from, why } => {
            let reason = format!("sender in doubt: {why}");
            let entry = GmEntry {
                kind: "doubtful_sender",
                event: "mail_doubtful_sender",
                from: from.as_deref(),
                subject: &subject,
                body: &mail.text,
                reason: &reason,
            };
            queue_for_gm(conn, inbox_id, round, now, &entry).await?;
            tracing::warn!(%reason, "mail with a doubtful sender queued for the GM");
        }
        Classified::UnknownSender { from } => {
            let reason = format!("unknown sender {}", from.as_deref().unwrap_or("(none)"));
            let entry = GmEntry {
                kind: "unknown_sender",
                event: "mail_unknown_sender",
                from: from.as_deref(),
                subject: &subject,
                body: &mail.text,
                reason: &reason,
            };
            queue_for_gm(conn, inbox_id, round, now, &entry).await?;
        }
        Classified::FromGm => {
            // A reply to a notice about a realm's mail is the GM's answer to the realm.
            super::gm::from_gm_mail(app, conn, gs, inbox_id, &mail, &subject).await?;
        }
        Classified::Refused {
            realm,
            lang,
            reason,
        } => {
            let text = reason.explain_for(lang, Some(&realm));
            let base = NewMessage {
                inbox_id,
                kind: "unclassified",
                realm: Some(&realm),
                lang: Some(lang.code()),
                from_addr: mail.from_addr.as_deref(),
                subject: &subject,
                body: &mail.text,
                round,
                at: now,
                ..Default::default()
            };
            let id = Reply {
                gs,
                realm: &realm,
                lang,
                mail: &mail,
                subject: &subject,
                inbox_id,
            }
            .refuse(app, conn, &base, &text)
            .await?;
            events::log(
                conn,
                now,
                round,
                "mail_refused",
                Some(&realm),
                Some(id),
                &text,
            )
            .await?;
        }
        Classified::Resend { realm, lang } => {
            let req = super::season_notices::resend::Request {
                inbox_id,
                realm: &realm,
                lang,
                mail: &mail,
                subject: &subject,
            };
            super::season_notices::resend::handle(app, conn, gs, &req).await?;
        }
        Classified::Help { realm, lang } => {
            let req = super::player_guide::Request {
                inbox_id,
                realm: &realm,
                lang,
                mail: &mail,
                subject: &subject,
            };
            super::player_guide::handle(app, conn, gs, &req).await?;
        }
        Classified::DeliveryReply { realm, .. } => {
            // `read_mail` settles every reply to a delivery as an envoy or a refusal.
            let reason = format!("a reply to an envoy delivery from {realm} was not settled");
            let entry = GmEntry {
                kind: "unclassified",
                event: "mail_unsettled",
                from: mail.from_addr.as_deref(),
                subject: &subject,
                body: &mail.text,
                reason: &reason,
            };
            queue_for_gm(conn, inbox_id, round, now, &entry).await?;
        }
        Classified::Link { realm, lang } => {
            let req = super::site_links::Request {
                inbox_id,
                realm: &realm,
                lang,
                mail: &mail,
                subject: &subject,
            };
            super::site_links::handle(app, conn, gs, &req).await?;
        }
        Classified::Accepted {
            realm,
            lang,
            subject: sub,
        } => {
            let received_at = from_ms(received_ms);
            let decision = route_accepted(app, gs, &realm, &sub, received_at);
            let early = match (&decision, sub.kind) {
                (Route::Refuse(_), MailKind::Form) => {
                    early_window(app, conn, gs, &realm, received_at).await?
                }
                _ => None,
            };
            let body = body_of(&mail, sub.kind);
            let base = NewMessage {
                inbox_id,
                kind: kind_str(sub.kind),
                realm: Some(&realm),
                to_realm: sub.to.as_deref(),
                lang: Some(lang.code()),
                from_addr: mail.from_addr.as_deref(),
                subject: &subject,
                body: &body,
                state: state::ROUTED,
                round,
                at: now,
                ..Default::default()
            };
            let reply = Reply {
                gs,
                realm: &realm,
                lang,
                mail: &mail,
                subject: &subject,
                inbox_id,
            };
            match decision {
                Route::Queue => {
                    let row = QueueRow::new(app, &base, sub.kind);
                    write_queued(conn, std::slice::from_ref(&row)).await?;
                }
                Route::Form => {
                    let form = FormMail {
                        realm: &realm,
                        lang,
                        received_ms,
                        early: None,
                    };
                    receive_form(app, conn, gs, &form, &reply, &base).await?;
                }
                Route::Refuse(_) if sub.kind == MailKind::Form && early.is_some() => {
                    // Before its window opens: kept for the coming weekend (RULINGS 64).
                    let form = FormMail {
                        realm: &realm,
                        lang,
                        received_ms,
                        early,
                    };
                    receive_form(app, conn, gs, &form, &reply, &base).await?;
                }
                Route::Gm => {
                    // An absence (`… till SL: frånvaro N`) is handled at once.
                    if let Some(topic) = classify::absence_topic(sub.topic.as_deref()) {
                        let m = super::season_realms::AbsenceMail {
                            realm: &realm,
                            lang,
                            mail: &mail,
                            subject: &subject,
                            inbox_id,
                            base: &base,
                        };
                        return super::season_realms::absence_mail(app, conn, &m, topic).await;
                    }
                    // Reveal and home-invitations go through the courier; anything else
                    // waits for the GM.
                    let request = !matches!(
                        crate::courier::batch::gm_request(sub.topic.as_deref(), &body),
                        Ok(crate::courier::batch::GmRequest::Plain)
                    );
                    let st = match (request, needs_review(app, sub.kind, &body)) {
                        (false, _) => state::GM_QUEUE,
                        (true, true) => state::HELD,
                        (true, false) => state::QUEUED,
                    };
                    let id = messages::insert(
                        conn,
                        &NewMessage {
                            state: st,
                            ..base.clone()
                        },
                    )
                    .await?;
                    events::log(
                        conn,
                        now,
                        round,
                        "gm_queued",
                        Some(&realm),
                        Some(id),
                        base.kind,
                    )
                    .await?;
                    if st == state::GM_QUEUE {
                        let received = app.local(received_at, lang);
                        reply
                            .send_text(app, conn, "gm_ack", &gm_ack(lang, &subject, &received))
                            .await?;
                        let notice = GmNotice {
                            message_id: id,
                            realm: &realm,
                            from: mail.from_addr.as_deref().unwrap_or("-"),
                            subject: &subject,
                            received: &app.game_time(received_at),
                            body: &body,
                        };
                        notify_gm(app, conn, &notice).await?;
                    }
                }
                Route::Refuse(r) => {
                    let needed = courier::window_for(sub.kind).unwrap_or(Window::Weekday);
                    let next = app
                        .schedule
                        .next_opening(needed, received_at)
                        .map(|t| app.local(t, lang));
                    let mut text = r.explain(lang, next.as_deref());
                    if sub.kind == MailKind::Form {
                        use super::season_calendar::late_form_note;
                        if let Some(n) = late_form_note(app, gs, &realm, received_at, lang) {
                            text = format!("{n}\n\n{text}");
                        }
                    }
                    let id = reply.refuse(app, conn, &base, &text).await?;
                    events::log(
                        conn,
                        now,
                        round,
                        "courier_refused",
                        Some(&realm),
                        Some(id),
                        &text,
                    )
                    .await?;
                }
            }
        }
    }
    Ok(())
}

/// A stored mail read: parsed, its sender checked (token cut out), classified.
pub(super) struct Read {
    pub mail: Inbound,
    pub auth: super::sender_auth::Prepared,
    pub subject: String,
    pub classified: Classified,
}

/// Read a stored mail of `size` bytes (`raw` may be its stored part); an error when it
/// is not a mail at all.
pub(super) fn read_mail(
    app: &App,
    gs: &GameState,
    raw: &[u8],
    size: usize,
) -> std::result::Result<Read, parse::ParseMailError> {
    let mut mail = parse::parse_inbound(raw)?;
    // A mail truncated at intake is as large as it arrived.
    mail.size = mail.size.max(size);
    // The sender check (docs/reference/mail.md, Proving the sender): the token is cut out
    // before the subject is read; a mail given to a realm it is not proven to be from is
    // held.
    let auth = super::sender_auth::prepare(app, gs, &mut mail);
    let subject = mail.subject.clone().unwrap_or_default();
    let dir = app.directory(gs);
    let classified = classify::classify(&mail, &dir, app.cfg.limits.max_mail_bytes);
    let classified = super::courier::settle_delivery_reply(app, classified, &mut mail);
    let span = tracing::Span::current();
    span.record("round", gs.round);
    if let Some(realm) = super::sender_auth::claimed_realm(&classified) {
        span.record("realm", realm);
    }
    Ok(Read {
        mail,
        auth,
        subject,
        classified,
    })
}

/// The courier's first word on an accepted mail of `realm` received at `received_at`.
pub(super) fn route_accepted(
    app: &App,
    gs: &GameState,
    realm: &str,
    sub: &crate::mail::subject::Subject,
    received_at: DateTime<Utc>,
) -> Route {
    let window = super::season_calendar::window_for(app, gs, realm, received_at);
    courier::route(&Incoming {
        kind: sub.kind,
        from: realm,
        to: sub.to.as_deref(),
        received_at,
        window,
    })
}

/// An accepted mail that waits for the courier: its message row and audit event.
#[derive(Debug, Clone)]
pub(super) struct QueueRow {
    pub inbox_id: i64,
    pub kind: &'static str,
    pub realm: String,
    pub to_realm: Option<String>,
    pub lang: Option<String>,
    pub from_addr: Option<String>,
    pub subject: String,
    pub body: String,
    pub state: &'static str,
    pub round: i64,
    pub at: i64,
}

impl QueueRow {
    /// Queued for the next courier batch (at once in `immediate` mode), or held when
    /// the GM reviews this kind of mail first.
    pub fn new(app: &App, base: &NewMessage<'_>, kind: MailKind) -> QueueRow {
        let held = needs_review(app, kind, base.body);
        QueueRow {
            inbox_id: base.inbox_id,
            kind: kind_str(kind),
            realm: base.realm.unwrap_or_default().to_string(),
            to_realm: base.to_realm.map(str::to_string),
            lang: base.lang.map(str::to_string),
            from_addr: base.from_addr.map(str::to_string),
            subject: base.subject.to_string(),
            body: base.body.to_string(),
            state: if held { state::HELD } else { state::QUEUED },
            round: base.round,
            at: base.at,
        }
    }

    /// The courier's view of this row once written as message `id` (`None` when it is
    /// held for the GM, not queued).
    pub(super) fn into_queued(
        self,
        id: i64,
        mails: &std::collections::HashMap<i64, &inbox::Waiting>,
    ) -> Option<messages::QueuedMessage> {
        if self.state != state::QUEUED {
            return None;
        }
        use crate::store::into_db_text;
        let mail = mails.get(&self.inbox_id)?;
        Some(messages::QueuedMessage {
            message: messages::Message {
                id,
                inbox_id: self.inbox_id,
                kind: self.kind.to_string(),
                realm: Some(self.realm),
                to_realm: self.to_realm,
                lang: self.lang,
                // As the store keeps them, so memory holds what it would read back.
                from_addr: self.from_addr.map(into_db_text),
                subject: into_db_text(self.subject),
                body: into_db_text(self.body),
                state: state::QUEUED.to_string(),
                reason: None,
                round: self.round,
                created_at: self.at,
            },
            received_at: mail.received_at,
            mail_message_id: mail.message_id.clone(),
        })
    }
}

/// Write queued mails' message rows and audit events, in few statements; the rows'
/// new message ids, in order.
pub(super) async fn write_queued(conn: &mut Conn, rows: &[QueueRow]) -> Result<Vec<i64>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let new: Vec<NewMessage> = rows
        .iter()
        .map(|r| NewMessage {
            inbox_id: r.inbox_id,
            kind: r.kind,
            realm: Some(&r.realm),
            to_realm: r.to_realm.as_deref(),
            lang: r.lang.as_deref(),
            from_addr: r.from_addr.as_deref(),
            subject: &r.subject,
            body: &r.body,
            state: r.state,
            round: r.round,
            at: r.at,
            ..Default::default()
        })
        .collect();
    let ids = messages::insert_many(conn, &new).await?;
    let logged: Vec<events::NewEvent> = rows
        .iter()
        .zip(ids.iter().copied())
        .map(|(r, id)| events::NewEvent {
            at: r.at,
            round: r.round,
            kind: if r.state == state::HELD {
                "courier_held"
            } else {
                "courier_queued"
            },
            realm: Some(r.realm.clone()),
            ref_id: Some(id),
            detail: r.kind.to_string(),
        })
        .collect();
    events::log_many(conn, &logged).await?;
    Ok(ids)
}

/// Does the game's review setting hold this mail for the GM before the courier
/// decides it?
fn needs_review(app: &App, kind: MailKind, body: &str) -> bool {
    use crate::config::Review;
    match app.cfg.courier.review {
        Review::None => false,
        Review::All => true,
        Review::Flagged => match kind {
            MailKind::Merchant | MailKind::ToGm => true,
            MailKind::Envoy => match crate::courier::trailer::parse_envoy_body(body) {
                Ok(e) => e.invitation.is_some() || e.claimed_sender.is_some() || e.gift.is_some(),
                Err(_) => true,
            },
            MailKind::Spy => crate::courier::trailer::parse_envoy_body(body)
                .map(|e| e.claimed_sender.is_some())
                .unwrap_or(true),
            MailKind::Form => false,
        },
    }
}

/// The text a message carries: the body, plus text attachments for forms (a player may
/// attach the filled-in form as a `.txt`).
fn body_of(mail: &Inbound, kind: MailKind) -> String {
    let mut body = mail.text.clone();
    if kind == MailKind::Form {
        for a in &mail.attachments {
            body.push_str("\n\n");
            body.push_str(&a.text);
        }
    }
    body
}

/// Who a reply goes to and what it answers.
struct Reply<'a> {
    gs: &'a GameState,
    realm: &'a str,
    lang: Lang,
    mail: &'a Inbound,
    subject: &'a str,
    inbox_id: i64,
}

impl Reply<'_> {
    /// Render `template` with `data` and queue it as a reply, keyed `<key>:<inbox id>`
    /// so the same mail is never answered twice the same way.
    async fn send(
        &self,
        app: &App,
        conn: &mut Conn,
        template: &'static str,
        key: &str,
        data: &serde_json::Value,
    ) -> Result<()> {
        let body = app.renderer.render(template, self.lang, data)?;
        let o = Outgoing {
            kind: template,
            dedup_key: format!("{key}:{}", self.inbox_id),
            to: realm_addresses(self.gs, self.realm),
            subject: reply_subject(self.subject, self.lang),
            body,
            in_reply_to: self.mail.message_id.clone(),
        };
        super::season_notices::flood::enqueue_reply(app, conn, self.realm, &o).await?;
        Ok(())
    }

    /// Queue a reply whose text is already written, keyed `<kind>:<inbox id>`.
    async fn send_text(
        &self,
        app: &App,
        conn: &mut Conn,
        kind: &'static str,
        body: &str,
    ) -> Result<()> {
        let o = Outgoing {
            kind,
            dedup_key: format!("{kind}:{}", self.inbox_id),
            to: realm_addresses(self.gs, self.realm),
            subject: reply_subject(self.subject, self.lang),
            body: body.to_string(),
            in_reply_to: self.mail.message_id.clone(),
        };
        super::season_notices::flood::enqueue_reply(app, conn, self.realm, &o).await?;
        Ok(())
    }

    /// Store the mail (`base`) as refused for `reason` and queue the refusal reply,
    /// which quotes the subject and says why. Returns the message's id.
    async fn refuse(
        &self,
        app: &App,
        conn: &mut Conn,
        base: &NewMessage<'_>,
        reason: &str,
    ) -> Result<i64> {
        let id = messages::insert(
            conn,
            &NewMessage {
                state: state::REFUSED,
                reason: Some(reason),
                ..base.clone()
            },
        )
        .await?;
        let subject = crate::mail::subject::shown(self.subject);
        let data = json!({"realm": self.realm, "subject": subject, "reason": reason});
        self.send(app, conn, "refusal", "refusal", &data).await?;
        Ok(id)
    }
}

/// The acknowledgement a realm gets for a mail to the GM.
fn gm_ack(lang: Lang, subject: &str, received: &str) -> String {
    let subject = fault::clean_text(subject, 200);
    match lang {
        Lang::Sv => format!(
            "Ert brev till spelledaren har kommit fram.\n\nÄmne: {subject}\nMottaget: {received}\n\n\
             Spelledaren läser det och svarar när det behövs.\n"
        ),
        Lang::En => format!(
            "Your mail to the GM has arrived.\n\nSubject: {subject}\nReceived: {received}\n\n\
             The GM will read it and answer where needed.\n"
        ),
    }
}

/// A realm's mail to the GM, as the notice to the GM tells it.
struct GmNotice<'a> {
    message_id: i64,
    realm: &'a str,
    /// The From address it came from.
    from: &'a str,
    subject: &'a str,
    /// When it was received, in the game's time.
    received: &'a str,
    body: &'a str,
}

/// Tell the GM (at `game.gm_address`, when set) that a realm wrote to them: who wrote,
/// from which address, and the text. The notice carries `Reply-To:` the game's address,
/// and the GM's reply to it is the answer to the realm (`gm::from_gm_mail`). For the
/// GM: each line in Swedish and English, as the GM's other notices.
async fn notify_gm(app: &App, conn: &mut Conn, n: &GmNotice<'_>) -> Result<()> {
    let (realm, id) = (n.realm, n.message_id);
    let subject = format!(
        "SL-post från {realm} / GM mail from {realm}: {}",
        fault::clean_text(n.subject, 120).replace(['\n', '\t'], " ")
    );
    let body = format!(
        "Svara på det här brevet för att svara {realm}. / Reply to this mail to answer {realm}.\n\
         (Svaret går till {realm}s alla adresser från spelets adress; citerad text tas bort. / \
         The answer goes to every address of {realm} from the game's address; quoted text \
         is left out.)\n\n\
         Från / From:      {realm} <{from}>\n\
         Ämne / Subject:   {subject}\n\
         Mottaget / Received: {received}\n\
         Meddelande / Message: {id} (`pbemd gm show {id}`; `pbemd gm answer {id}` svarar / \
         answers, `pbemd gm done {id}` stänger utan svar / closes it without an answer)\n\n\
         {text}\n",
        from = fault::clean_text(n.from, 200),
        subject = fault::clean_text(n.subject, 200).replace(['\n', '\t'], " "),
        received = n.received,
        text = fault::clean_text(n.body, 100_000),
    );
    let key = super::gm::notice_key(conn, id).await?;
    app.notify_gm(conn, &key, &subject, &body).await
}

fn realm_addresses(gs: &GameState, realm: &str) -> Vec<String> {
    gs.realm(realm)
        .map(|r| r.emails.clone())
        .unwrap_or_default()
}

use crate::mail::subject::reply_subject;

/// A weekend form as received.
struct FormMail<'a> {
    realm: &'a str,
    lang: Lang,
    received_ms: i64,
    /// It came before its window opens and is kept ([`early_window`]): the window.
    early: Option<(DateTime<Utc>, DateTime<Utc>)>,
}

/// The window a form `realm` sent at `t`, outside the form window, is kept for
/// (`forms.early: keep`, RULINGS 64), if it is early: the state's round has begun, its
/// form is out (the weekend before was resolved and its results sent; not while the GM
/// has rolled it back) and its form window has not opened yet. A form after the
/// window (late, or while the round is being resolved) is no early form.
async fn early_window(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    realm: &str,
    t: DateTime<Utc>,
) -> Result<Option<(DateTime<Utc>, DateTime<Utc>)>> {
    use crate::game::state::Phase;
    if app.cfg.forms.early != crate::config::EarlyForm::Keep || gs.phase != Phase::Weekday {
        return Ok(None);
    }
    let Some(opens) = round_opening(app, conn, gs).await? else {
        return Ok(None);
    };
    if t >= opens {
        return Ok(None);
    }
    Ok(form_window(app, gs, Some(realm), t).filter(|(open, _)| t < *open))
}

/// When the form window of the state's round opens (`None`: not known, or the round is
/// rolled back by the GM): at the round's start if the window is open then, else its
/// first opening after the start.
async fn round_opening(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
) -> Result<Option<DateTime<Utc>>> {
    if super::results_hold::waiting(conn, gs).await?.rolled_back {
        return Ok(None);
    }
    let Some(started) = round_started(conn).await? else {
        return Ok(None);
    };
    if app.schedule.window_at(started) == Window::Weekend {
        return Ok(Some(started));
    }
    Ok(app.schedule.next_opening(Window::Weekend, started))
}

/// A realm's weekend form: stored and answered with a receipt. A form written for an
/// earlier round is refused (its orders were written against an old state), and so is
/// one for a later round while the weekend is rolled back (it answers the Monday form of
/// the resolution undone, and must not replace the round's standing form, which counts
/// when the GM resolves it again). A form in which no order is found leaves an earlier
/// form of the round standing, unless it says `INGA ORDRAR` / `NO ORDERS`.
async fn receive_form(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    form: &FormMail<'_>,
    reply: &Reply<'_>,
    base: &NewMessage<'_>,
) -> Result<()> {
    let (realm, lang) = (form.realm, form.lang);
    let mail = reply.mail;
    match crate::forms::form_title(&mail.text).map(|(_, r)| r) {
        Some(made_for) if made_for < gs.round => {
            return refuse_stale_form(app, conn, gs, form, reply, base, made_for).await;
        }
        Some(made_for)
            if made_for > gs.round && super::results_hold::waiting(conn, gs).await?.rolled_back =>
        {
            return refuse_form_ahead(app, conn, gs, form, reply, base, made_for).await;
        }
        _ => {}
    }
    let round = gs.round as i64;
    let attachments: Vec<&str> = mail.attachments.iter().map(|a| a.text.as_str()).collect();
    let checked = crate::forms::read_form(gs, realm, &mail.text, &attachments);
    let earlier = forms::standing(conn, realm, round).await?;
    // A form without orders leaves the earlier one standing; any other replaces it, and
    // its receipt names the earlier form's orders it does not give again.
    let keeps_earlier = checked.lines.is_empty() && !checked.no_orders;
    let standing = earlier
        .as_ref()
        .filter(|_| keeps_earlier)
        .map(|f| (f.id, f.received_at));
    let dropped = match earlier.as_ref().filter(|_| !keeps_earlier) {
        Some(f) => earlier_orders_dropped(f, &checked),
        None => Vec::new(),
    };
    let standing_local = standing.map(|(_, at)| app.local(from_ms(at), lang));
    let (id, stored) =
        record_form(conn, form, base, round, &checked, standing_local.as_deref()).await?;
    let replaced = stored.and_then(|(_, r)| r);
    let receipt = Receipt {
        round,
        checked: &checked,
        standing: standing_local.as_deref(),
        replaced: replaced.map(|(_, at)| app.local(from_ms(at), lang)),
        dropped: &dropped,
    };
    send_receipt(app, conn, form, reply, &receipt).await?;
    let detail = json!({
        "form_id": stored.map(|(f, _)| f),
        "replaces": replaced.map(|(id, _)| id),
        "earlier_stands": standing.map(|(id, _)| id),
        "no_orders": checked.no_orders,
        "accepted": checked.accepted(),
        "refused": checked.refused(),
        "dropped": dropped.len(),
        "early": form.early.is_some(),
    })
    .to_string();
    let now = clock::to_ms(app.now());
    events::log(
        conn,
        now,
        round,
        "form_received",
        Some(realm),
        Some(id),
        &detail,
    )
    .await?;
    Ok(())
}

/// The accepted orders of the stored form `earlier` that `now` (which replaces it) does
/// not give again. A stored form that no longer reads names none.
fn earlier_orders_dropped(earlier: &forms::Standing, now: &crate::forms::Checked) -> Vec<String> {
    earlier
        .orders
        .as_deref()
        .and_then(|o| serde_json::from_str::<crate::forms::Checked>(o).ok())
        .map(|e| crate::forms::dropped_orders(&e, now))
        .unwrap_or_default()
}

/// Record the form's message and, unless an earlier form stands (`standing`, its
/// arrival in words), the form itself. Returns the message id and, when stored, the
/// form's id and the form it replaced (id, arrival).
async fn record_form(
    conn: &mut Conn,
    form: &FormMail<'_>,
    base: &NewMessage<'_>,
    round: i64,
    checked: &crate::forms::Checked,
    standing: Option<&str>,
) -> Result<(i64, Option<(i64, Option<(i64, i64)>)>)> {
    let reason = standing.map(|at| format!("no orders found; the form received {at} still stands"));
    let st = if standing.is_some() {
        state::REFUSED
    } else {
        state::ACCEPTED
    };
    let id = messages::insert(
        conn,
        &NewMessage {
            state: st,
            reason: reason.as_deref(),
            ..base.clone()
        },
    )
    .await?;
    if standing.is_some() {
        return Ok((id, None));
    }
    let orders = serde_json::to_string(checked).map_err(|e| AppError::BadState(e.to_string()))?;
    let stored = forms::insert(
        conn,
        id,
        form.realm,
        round,
        form.received_ms,
        base.body,
        Some(&orders),
    )
    .await?;
    Ok((id, Some(stored)))
}

/// What a form receipt reports.
struct Receipt<'a> {
    round: i64,
    checked: &'a crate::forms::Checked,
    /// The earlier form that still stands (its arrival, in words).
    standing: Option<&'a str>,
    /// The form this one replaced (its arrival, in words).
    replaced: Option<String>,
    /// The replaced form's orders this one does not give again.
    dropped: &'a [String],
}

async fn send_receipt(
    app: &App,
    conn: &mut Conn,
    form: &FormMail<'_>,
    reply: &Reply<'_>,
    r: &Receipt<'_>,
) -> Result<()> {
    let lang = form.lang;
    let received_at = from_ms(form.received_ms);
    // The realm's own deadline: a late one the GM gave another realm is not its.
    let deadline =
        super::season_calendar::form_deadline(app, reply.gs, Some(form.realm), received_at)
            .map(|t| app.local(t, lang))
            .unwrap_or_default();
    let effect = match r.standing {
        Some(received) => crate::forms::Effect::EarlierStands { received },
        None => crate::forms::Effect::Stands,
    };
    let window = form.early.map(|w| form_window_local(app, Some(w), lang));
    let notes = crate::forms::Notes {
        dropped: r.dropped,
        early_window: window.as_deref(),
    };
    let data = json!({
        "realm": form.realm,
        "round": r.round,
        "received": app.local(received_at, lang),
        "replaces": r.replaced,
        "rechecked": false,
        "receipt": crate::forms::receipt_with(r.checked, lang, &deadline, effect, notes),
    });
    reply
        .send(app, conn, "form_receipt", "receipt", &data)
        .await
}

/// The `form_open` event at `at`: every form kept early for the state's round (received
/// after the round began, before this opening; RULINGS 64) is checked again against
/// the state as it is now, stored again as the realm's form (its receipt time kept,
/// R-MAIL-12), and the realm gets the new receipt. Returns the realms.
pub async fn recheck_early_forms(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    at: DateTime<Utc>,
) -> Result<Vec<String>> {
    use crate::game::state::Phase;
    if gs.phase != Phase::Weekday || super::results_hold::waiting(conn, gs).await?.rolled_back {
        return Ok(Vec::new());
    }
    let Some(started) = round_started(conn).await? else {
        return Ok(Vec::new());
    };
    let (from, to) = (clock::to_ms(started), clock::to_ms(at));
    let round = gs.round as i64;
    let mut early: Vec<(String, forms::Standing)> = forms::standing_all(conn, round)
        .await?
        .into_iter()
        .filter(|(_, f)| from <= f.received_at && f.received_at < to)
        .collect();
    early.sort_by(|a, b| a.0.cmp(&b.0));
    let mut rechecked = Vec::new();
    for (realm, f) in early {
        let Some(r) = gs.realm(&realm) else {
            continue;
        };
        let checked = crate::forms::read_form(gs, &realm, &f.body, &[]);
        let orders =
            serde_json::to_string(&checked).map_err(|e| AppError::BadState(e.to_string()))?;
        let (id, _) = forms::insert(
            conn,
            f.message_id,
            &realm,
            round,
            f.received_at,
            &f.body,
            Some(&orders),
        )
        .await?;
        let lang = r.language;
        let deadline = super::season_calendar::form_deadline(app, gs, Some(&realm), at)
            .map(|t| app.local(t, lang))
            .unwrap_or_default();
        let receipt =
            crate::forms::receipt_for(&checked, lang, &deadline, crate::forms::Effect::Stands);
        let data = json!({
            "realm": realm,
            "round": round,
            "received": app.local(from_ms(f.received_at), lang),
            "replaces": null,
            "rechecked": true,
            "receipt": receipt,
        });
        let o = Outgoing {
            kind: "form_receipt",
            dedup_key: format!("form_recheck:{id}"),
            to: r.emails.clone(),
            subject: super::scheduler::form_subject(&realm, lang),
            body: app.renderer.render("form_receipt", lang, &data)?,
            in_reply_to: None,
        };
        app.enqueue(conn, &o).await?;
        let detail = json!({"form_id": id, "replaces": f.id, "accepted": checked.accepted(),
                            "refused": checked.refused()})
        .to_string();
        events::log(
            conn,
            to,
            round,
            "form_rechecked",
            Some(&realm),
            Some(f.message_id),
            &detail,
        )
        .await?;
        rechecked.push(realm);
    }
    Ok(rechecked)
}

/// A form answering an earlier round's form: refused with a reply that names the round
/// it was made for and when the current round's form was mailed. Nothing is stored as
/// the realm's form, so an earlier form of this round still stands.
async fn refuse_stale_form(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    form: &FormMail<'_>,
    reply: &Reply<'_>,
    base: &NewMessage<'_>,
    made_for: u32,
) -> Result<()> {
    let round = gs.round as i64;
    let mailed = current_form_mailed(app, conn).await?;
    let mailed_local = mailed.map(|t| app.local(t, form.lang));
    let already = mailed.is_none_or(|t| t <= from_ms(form.received_ms));
    let text = crate::forms::stale_form_text(
        form.lang,
        made_for,
        gs.round,
        mailed_local.as_deref(),
        already,
    );
    let id = reply.refuse(app, conn, base, &text).await?;
    let detail = json!({"made_for": made_for, "round": round});
    log_stale_form(app, conn, form.realm, round, id, detail).await
}

/// Log the refusal `id` of a form not for the current round as `form_stale`.
async fn log_stale_form(
    app: &App,
    conn: &mut Conn,
    realm: &str,
    round: i64,
    id: i64,
    detail: serde_json::Value,
) -> Result<()> {
    let at = clock::to_ms(app.now());
    let detail = detail.to_string();
    events::log(
        conn,
        at,
        round,
        "form_stale",
        Some(realm),
        Some(id),
        &detail,
    )
    .await?;
    Ok(())
}

/// A form answering the Monday form of a weekend the GM has rolled back (it is for the
/// next round; the state is still the one that weekend resolved): refused with a reply
/// saying the corrected form comes when the GM resolves the weekend again, and the GM is
/// told. Nothing is stored as the realm's form, so the round's standing form still
/// counts when the GM resolves it again.
async fn refuse_form_ahead(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    form: &FormMail<'_>,
    reply: &Reply<'_>,
    base: &NewMessage<'_>,
    made_for: u32,
) -> Result<()> {
    let round = gs.round;
    let text = match form.lang {
        Lang::Sv => format!(
            "Formuläret du svarade på gäller runda {made_for}, men spelledaren rättar helgen \
             i runda {round}, så spelet är fortfarande i runda {round}. När spelledaren har \
             avgjort den helgen igen skickas ett rättat formulär för runda {made_for}; svara \
             på det. Orderna i det här brevet gäller inte, eftersom de skrevs för ett läge \
             som rättelsen kan ändra."
        ),
        Lang::En => format!(
            "The form you answered is for round {made_for}, but the GM is correcting the \
             weekend of round {round}, so the game is still in round {round}. When the GM \
             has resolved that weekend again, a corrected form for round {made_for} is \
             mailed to you; answer that one. The orders in this mail do not count, as they \
             were written for a state the correction may change."
        ),
    };
    let realm = form.realm;
    let detail = json!({"made_for": made_for, "round": round, "rolled_back": true});
    let id = reply.refuse(app, conn, base, &text).await?;
    log_stale_form(app, conn, realm, i64::from(round), id, detail).await?;
    let subject = format!(
        "Formulär för runda {made_for} avvisat / form for round {made_for} refused: {realm}"
    );
    let body = format!(
        "{realm} svarade på formuläret för runda {made_for}, men runda {round} är \
         tillbakarullad: formuläret avvisades (meddelande {id}). `pbemd gm resolve` avgör \
         helgen igen och skickar rättade formulär.\n\n{realm} answered the form for round \
         {made_for}, but round {round} is rolled back: the form was refused (message {id}). \
         `pbemd gm resolve` resolves the weekend again and mails corrected forms.\n"
    );
    app.notify_gm(conn, &format!("form_ahead:{id}"), &subject, &body)
        .await
}

/// When the current round began: the last `resolve` that fired, else the game's start.
pub async fn round_started(conn: &mut Conn) -> Result<Option<DateTime<Utc>>> {
    let resolve = crate::schedule::EventKind::Resolve.as_str();
    let last = crate::store::schedule::fired(conn)
        .await?
        .into_iter()
        .filter(|(_, kind, _)| kind == resolve)
        .map(|(_, _, at)| at)
        .max();
    let started = match last {
        Some(at) => Some(at),
        None => crate::store::meta::get_i64(conn, crate::store::meta::STARTED_AT).await?,
    };
    Ok(started.map(from_ms))
}

/// The form deadline of the current round for `realm` (`None`: a realm the GM gave no
/// late deadline): the first weekend closing after the round began, as
/// [`super::season_calendar::form_deadline`] has it for that realm.
pub async fn round_deadline(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    realm: Option<&str>,
) -> Result<Option<DateTime<Utc>>> {
    let start = round_started(conn).await?.unwrap_or_else(|| app.now());
    Ok(super::season_calendar::form_deadline(app, gs, realm, start))
}

/// The form window `realm`'s form is taken in, as it stands at `t` in the round of
/// `gs`: from the weekend window's opening to the realm's form deadline
/// ([`super::season_calendar::form_deadline`], so the GM's extensions and pauses are
/// in it). The opening is the last one of the weekend window before that deadline
/// (already past when the window is open). `None`: the schedule has no deadline.
pub fn form_window(
    app: &App,
    gs: &GameState,
    realm: Option<&str>,
    t: DateTime<Utc>,
) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    form_window_knowing(app, gs, realm, t, None)
}

/// [`form_window`], taking the opening from `known` (a window found already, e.g. for
/// every realm given no late deadline) when it closes at the same instant, so forms for
/// many realms look the opening up once.
pub fn form_window_knowing(
    app: &App,
    gs: &GameState,
    realm: Option<&str>,
    t: DateTime<Utc>,
    known: Option<(DateTime<Utc>, DateTime<Utc>)>,
) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let close = super::season_calendar::form_deadline(app, gs, realm, t)?;
    let open = match known {
        Some((open, c)) if c == close => open,
        _ => opening_before(app, close).unwrap_or(close),
    };
    Some((open, close))
}

/// The last opening of the weekend window before `close`: looked for a week back, or
/// further when a pause stretched the week.
fn opening_before(app: &App, close: DateTime<Utc>) -> Option<DateTime<Utc>> {
    for days in [8, 60, 400] {
        let Some(from) = close.checked_sub_signed(chrono::Duration::days(days)) else {
            continue;
        };
        let Some(mut open) = app
            .schedule
            .next_opening(Window::Weekend, from)
            .filter(|o| *o < close)
        else {
            continue;
        };
        while let Some(next) = app
            .schedule
            .next_opening(Window::Weekend, open)
            .filter(|o| *o < close)
        {
            open = next;
        }
        return Some(open);
    }
    None
}

/// [`form_window`] in words, in `lang` ("lördag 28 november 00:00 – söndag 29 november
/// 15:00 (Europe/Stockholm)"); empty without a deadline.
pub fn form_window_local(
    app: &App,
    window: Option<(DateTime<Utc>, DateTime<Utc>)>,
    lang: Lang,
) -> String {
    window.map_or_else(String::new, |(open, close)| {
        crate::schedule::describe_span(open, close, app.schedule.timezone(), lang == Lang::Sv)
    })
}

/// The form context of `realm`'s form at `t`: its deadline and its window in words.
pub fn form_context(
    app: &App,
    gs: &GameState,
    realm: &str,
    t: DateTime<Utc>,
    realms_listed: Option<usize>,
) -> crate::render::FormContext {
    form_context_knowing(app, gs, realm, t, realms_listed, None)
}

/// [`form_context`] with a window found already ([`form_window_knowing`]).
pub fn form_context_knowing(
    app: &App,
    gs: &GameState,
    realm: &str,
    t: DateTime<Utc>,
    realms_listed: Option<usize>,
    known: Option<(DateTime<Utc>, DateTime<Utc>)>,
) -> crate::render::FormContext {
    let lang = gs.realm(realm).map_or(Lang::Sv, |r| r.language);
    let window = form_window_knowing(app, gs, Some(realm), t, known);
    crate::render::FormContext {
        deadline_local: window
            .map(|(_, close)| app.local(close, lang))
            .unwrap_or_default(),
        window_local: form_window_local(app, window, lang),
        game_address: app.cfg.game_address.clone(),
        realms_listed,
    }
}

/// When the current round's form is mailed: the first `results` event after the round
/// began (round 1's form goes out when the game starts).
async fn current_form_mailed(app: &App, conn: &mut Conn) -> Result<Option<DateTime<Utc>>> {
    let Some(start) = round_started(conn).await? else {
        return Ok(None);
    };
    let horizon = start + chrono::Duration::days(8);
    Ok(app
        .schedule
        .due(start, horizon)
        .into_iter()
        .find(|d| d.kind == crate::schedule::EventKind::Results)
        .map(|d| d.at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_to_a_mail_without_subject_says_so_in_the_realms_language() {
        assert_eq!(reply_subject("  ", Lang::Sv), "Re: (inget ämne)");
        assert_eq!(reply_subject("", Lang::En), "Re: (no subject)");
        assert_eq!(reply_subject(" Afani form ", Lang::En), "Re: Afani form");
        assert_eq!(
            reply_subject("Re: Sv: Afani form", Lang::En),
            "Re: Afani form"
        );
    }
}
