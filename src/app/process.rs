//! Classify stored mail and act on it: one inbox row per transaction, which records
//! the message, its routing (delivery, form, GM queue or refusal), any reply, the
//! audit event and the inbox row's `done` mark together — all or nothing.

use serde_json::json;

use super::{App, AppError, Result};
use crate::clock::{self, from_ms};
use crate::courier::{self, Incoming, Route};
use crate::game::{GameState, Lang};
use crate::mail::classify::{self, Classified};
use crate::mail::compose::Outgoing;
use crate::mail::parse::{self, Inbound};
use crate::mail::subject::MailKind;
use crate::schedule::Window;
use crate::store::messages::{self, state, NewMessage};
use crate::store::{events, forms, inbox, Conn};

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

/// Handle the oldest stored mail. Returns false when none was waiting.
pub async fn process_once(app: &App) -> Result<bool> {
    let mut tx = app.store.begin().await?;
    let Some(w) = inbox::claim_next(&app.store, &mut tx).await? else {
        return Ok(false);
    };
    let span = tracing::info_span!("mail", inbox_id = w.id, message_id = ?w.message_id);
    let _g = span.enter();
    let (_, gs) = app.state(&mut tx).await?;
    handle(app, &mut tx, &gs, w.id, &w.raw, w.received_at, w.size).await?;
    inbox::mark_done(&mut tx, w.id, clock::to_ms(app.now())).await?;
    tx.commit()
        .await
        .map_err(|e| crate::store::StoreError::Query {
            what: "commit a handled mail",
            source: e,
        })?;
    app.wake.notify_one();
    Ok(true)
}

/// Handle every stored mail; returns how many.
pub async fn process_all(app: &App) -> Result<usize> {
    let mut n = 0;
    while process_once(app).await? {
        n += 1;
    }
    Ok(n)
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
    let mail = match parse::parse_inbound(raw) {
        // A mail truncated at intake is as large as it arrived.
        Ok(m) => Inbound {
            size: m.size.max(size),
            ..m
        },
        Err(e) => {
            // Not a mail at all: nobody to answer; the GM sees it.
            let reason = e.to_string();
            let id = messages::insert(
                conn,
                &NewMessage {
                    inbox_id,
                    kind: "unreadable",
                    subject: "",
                    body: &String::from_utf8_lossy(&raw[..raw.len().min(4096)]),
                    state: state::GM_QUEUE,
                    reason: Some(&reason),
                    round,
                    at: now,
                    ..Default::default()
                },
            )
            .await?;
            events::log(conn, now, round, "mail_unreadable", None, Some(id), &reason).await?;
            tracing::warn!(%reason, "unreadable mail queued for the GM");
            return Ok(());
        }
    };
    let subject = mail.subject.clone().unwrap_or_default();
    let dir = app.directory(gs);
    match classify::classify(&mail, &dir, app.cfg.limits.max_mail_bytes) {
        Classified::UnknownSender { from } => {
            let reason = format!("unknown sender {}", from.as_deref().unwrap_or("(none)"));
            let id = messages::insert(
                conn,
                &NewMessage {
                    inbox_id,
                    kind: "unknown_sender",
                    from_addr: from.as_deref(),
                    subject: &subject,
                    body: &mail.text,
                    state: state::GM_QUEUE,
                    reason: Some(&reason),
                    round,
                    at: now,
                    ..Default::default()
                },
            )
            .await?;
            events::log(
                conn,
                now,
                round,
                "mail_unknown_sender",
                None,
                Some(id),
                &reason,
            )
            .await?;
        }
        Classified::FromGm => {
            let id = messages::insert(
                conn,
                &NewMessage {
                    inbox_id,
                    kind: "from_gm",
                    from_addr: mail.from_addr.as_deref(),
                    subject: &subject,
                    body: &mail.text,
                    state: state::GM_QUEUE,
                    round,
                    at: now,
                    ..Default::default()
                },
            )
            .await?;
            events::log(conn, now, round, "mail_from_gm", None, Some(id), &subject).await?;
        }
        Classified::Refused {
            realm,
            lang,
            reason,
        } => {
            let text = reason.explain_for(lang, Some(&realm));
            let id = messages::insert(
                conn,
                &NewMessage {
                    inbox_id,
                    kind: "unclassified",
                    realm: Some(&realm),
                    lang: Some(lang.code()),
                    from_addr: mail.from_addr.as_deref(),
                    subject: &subject,
                    body: &mail.text,
                    state: state::REFUSED,
                    reason: Some(&text),
                    round,
                    at: now,
                    ..Default::default()
                },
            )
            .await?;
            Reply {
                gs,
                realm: &realm,
                lang,
                mail: &mail,
                subject: &subject,
                inbox_id,
            }
            .refuse(app, conn, &text)
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
        Classified::Accepted {
            realm,
            lang,
            subject: sub,
        } => {
            let received_at = from_ms(received_ms);
            let window = app.schedule.window_at(received_at);
            let decision = courier::route(&Incoming {
                kind: sub.kind,
                from: &realm,
                to: sub.to.as_deref(),
                received_at,
                window,
            });
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
                    // Decided by the next courier batch (at once in `immediate` mode),
                    // unless the GM reviews this kind of mail first.
                    let held = needs_review(app, sub.kind, &body);
                    let st = if held { state::HELD } else { state::QUEUED };
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
                        if held {
                            "courier_held"
                        } else {
                            "courier_queued"
                        },
                        Some(&realm),
                        Some(id),
                        base.kind,
                    )
                    .await?;
                }
                Route::Form => {
                    let id = messages::insert(
                        conn,
                        &NewMessage {
                            state: state::ACCEPTED,
                            ..base.clone()
                        },
                    )
                    .await?;
                    let attachments: Vec<&str> =
                        mail.attachments.iter().map(|a| a.text.as_str()).collect();
                    let checked = crate::forms::read_form(gs, &realm, &mail.text, &attachments);
                    let orders = serde_json::to_string(&checked)
                        .map_err(|e| AppError::BadState(e.to_string()))?;
                    let (form_id, replaced) =
                        forms::insert(conn, id, &realm, round, received_ms, &body, Some(&orders))
                            .await?;
                    let deadline = app
                        .schedule
                        .next_closing(Window::Weekend, received_at)
                        .map(|t| app.local(t, lang))
                        .unwrap_or_default();
                    let data = json!({
                        "realm": realm,
                        "round": round,
                        "received": app.local(received_at, lang),
                        "deadline": deadline,
                        "replaces": replaced.map(|(_, at)| app.local(from_ms(at), lang)),
                        "receipt": crate::forms::receipt_text(&checked, lang, &deadline),
                    });
                    reply
                        .send(app, conn, "form_receipt", "receipt", &data)
                        .await?;
                    let detail = json!({
                        "form_id": form_id,
                        "replaces": replaced.map(|(id, _)| id),
                        "accepted": checked.accepted(),
                        "refused": checked.refused(),
                    })
                    .to_string();
                    events::log(
                        conn,
                        now,
                        round,
                        "form_received",
                        Some(&realm),
                        Some(id),
                        &detail,
                    )
                    .await?;
                }
                Route::Gm => {
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
                }
                Route::Refuse(r) => {
                    let needed = courier::window_for(sub.kind).unwrap_or(Window::Weekday);
                    let next = app
                        .schedule
                        .next_opening(needed, received_at)
                        .map(|t| app.local(t, lang));
                    let text = r.explain(lang, next.as_deref());
                    let id = messages::insert(
                        conn,
                        &NewMessage {
                            state: state::REFUSED,
                            reason: Some(&text),
                            ..base.clone()
                        },
                    )
                    .await?;
                    reply.refuse(app, conn, &text).await?;
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
            subject: reply_subject(self.subject),
            body,
            in_reply_to: self.mail.message_id.clone(),
        };
        app.enqueue(conn, &o).await?;
        Ok(())
    }

    /// The refusal reply: quotes the subject and says why.
    async fn refuse(&self, app: &App, conn: &mut Conn, reason: &str) -> Result<()> {
        let subject = crate::mail::subject::shown(self.subject);
        let data = json!({"realm": self.realm, "subject": subject, "reason": reason});
        self.send(app, conn, "refusal", "refusal", &data).await
    }
}

fn realm_addresses(gs: &GameState, realm: &str) -> Vec<String> {
    gs.realm(realm)
        .map(|r| r.emails.clone())
        .unwrap_or_default()
}

fn reply_subject(subject: &str) -> String {
    if subject.trim().is_empty() {
        "Re: (inget ämne / no subject)".into()
    } else {
        format!("Re: {}", crate::mail::subject::shown(subject.trim()))
    }
}
