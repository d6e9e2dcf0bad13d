//! The sender check in the app (docs/reference/mail.md, Proving the sender): before a
//! mail is classified its token is cut out, after it is classified a mail given to a
//! realm that is not proven the realm's is held for the GM with the reason; no reply
//! goes out, only (in the token modes) a hint to the realm's registered addresses.
//! Also the realms' tokens: made at `init`, printed in the opening form, rotated by
//! `gm token REALM --new`.
//!
//! The checks themselves are pure (`mail::sender_auth`); this room reads the config,
//! the state and the store.

use serde_json::json;

use super::{App, Result};
use crate::clock;
use crate::config::SenderCheck;
use crate::game::GameState;
use crate::mail::classify::Classified;
use crate::mail::compose::Outgoing;
use crate::mail::parse::Inbound;
use crate::mail::sender_auth as pure;
use crate::store::messages::{self, state, NewMessage};
use crate::store::{events, Conn};

/// A fresh random token.
pub fn fresh_token() -> String {
    use rand_core::RngCore;
    let mut bytes = [0u8; 7];
    rand_core::OsRng.fill_bytes(&mut bytes);
    pure::new_token(bytes)
}

/// Give every realm without a token one (at `init` in the token modes; a scenario may
/// set its own).
pub fn give_tokens(gs: &mut GameState) {
    for r in gs.realms.iter_mut().filter(|r| r.token.is_none()) {
        r.token = Some(fresh_token());
    }
}

/// What the check found before the mail was classified.
#[derive(Debug, Default)]
pub struct Prepared {
    /// The `dkim` verdict (dkim modes only): how it passed, or why not.
    dkim: Option<std::result::Result<String, String>>,
    /// Realms whose token the mail carried (token modes only); the token is cut out.
    token_of: Vec<String>,
}

/// Read the DKIM verdict and cut out the token of any realm the From address belongs
/// to, so neither the subject check nor an envoy's recipient ever sees it.
pub fn prepare(app: &App, gs: &GameState, mail: &mut Inbound) -> Prepared {
    let mode = app.cfg.sender_check;
    let mut p = Prepared::default();
    if mode.uses_dkim() {
        let id = app.cfg.authserv_id.as_deref().unwrap_or_default();
        p.dkim = Some(pure::dkim_check(
            &mail.auth_results,
            id,
            mail.from_addr.as_deref(),
        ));
    }
    let Some(from) = mail.from_addr.clone().filter(|_| mode.uses_token()) else {
        return p;
    };
    for r in &gs.realms {
        if !r.emails.iter().any(|e| e.eq_ignore_ascii_case(&from)) {
            continue;
        }
        let Some(token) = r.token.as_deref() else {
            continue;
        };
        if let Some(s) = pure::take_token(mail.subject.as_deref(), &mail.text, token) {
            mail.subject = s.subject;
            mail.text = s.text;
            p.token_of.push(r.name.clone());
        }
        // A reply may quote the subject it answers, tag and all (Outlook's header
        // block): the token never goes on to another realm in an envoy's text.
        mail.text = pure::scrub_token(&mail.text, token);
    }
    p
}

/// `os` as they go out (every mail passes here on its way to the outbox): in the token
/// modes a mail whose every recipient is an address of one realm ends its subject with
/// that realm's tag `[k:TOKEN]`, so the player's plain Reply carries the token back and
/// proves the sender (D-42, D-79). A mail to the GM, to the game's own
/// address, or to addresses of several realms carries no token, nor does the hint about
/// a mail held for want of it; any `[k:…]` a subject
/// already held (a reply quoting one) is dropped. In `from-only` and `dkim` nothing
/// changes.
pub async fn tagged<'a>(
    app: &App,
    conn: &mut Conn,
    os: &[&'a Outgoing],
) -> Result<Vec<std::borrow::Cow<'a, Outgoing>>> {
    use std::borrow::Cow;
    if !app.cfg.sender_check.uses_token() || os.is_empty() {
        return Ok(os.iter().map(|o| Cow::Borrowed(*o)).collect());
    }
    let Some(gs) = state_for_tags(app, conn).await? else {
        return Ok(os.iter().map(|o| Cow::Borrowed(*o)).collect());
    };
    Ok(os
        .iter()
        .map(|o| {
            let token = token_for(app, &gs, o);
            let subject = pure::tag_subject(&o.subject, token);
            if subject == o.subject {
                Cow::Borrowed(*o)
            } else {
                Cow::Owned(Outgoing {
                    subject,
                    ..(*o).clone()
                })
            }
        })
        .collect())
}

/// The token whose tag `o` carries: the realm's whose addresses are all of `o`'s
/// recipients (when an address is shared by several realms, the one the subject names,
/// else the first: every recipient reads that realm's mail anyway); none for mail that
/// also goes to the GM, the game, or another realm.
fn token_for<'g>(app: &App, gs: &'g GameState, o: &Outgoing) -> Option<&'g str> {
    let ours = |a: &str| {
        a.trim().eq_ignore_ascii_case(app.cfg.gm_address.trim())
            || a.trim().eq_ignore_ascii_case(app.cfg.game_address.trim())
    };
    // The hint about a mail without the token never says the token (it answers a
    // mail that may be a forger's).
    if o.kind == "sender_hint" || o.to.is_empty() || o.to.iter().any(|a| ours(a)) {
        return None;
    }
    let owns_all = |r: &&crate::game::state::Realm| {
        o.to.iter().all(|a| {
            r.emails
                .iter()
                .any(|e| e.trim().eq_ignore_ascii_case(a.trim()))
        })
    };
    let owners: Vec<&crate::game::state::Realm> = gs.realms.iter().filter(owns_all).collect();
    let subject = crate::game::text::fold(&o.subject);
    let named = owners
        .iter()
        .find(|r| subject.contains(&crate::game::text::fold(&r.name)));
    named.copied().or(owners.first().copied())?.token.as_deref()
}

/// The state the tags are read from, as `conn` sees it (a mail may be queued in the
/// transaction that gave a realm its token): the cached one when it is current,
/// otherwise parsed and not cached (the transaction may still roll back).
async fn state_for_tags(app: &App, conn: &mut Conn) -> Result<Option<std::sync::Arc<GameState>>> {
    use crate::store::state as st;
    let Some(version) = st::latest_version(conn).await? else {
        return Ok(None);
    };
    if let Some((v, gs)) = app.cache().clone() {
        if v == version {
            return Ok(Some(gs));
        }
    }
    let Some(row) = st::get(conn, version).await? else {
        return Ok(None);
    };
    let gs: GameState =
        serde_json::from_str(&row.doc).map_err(|e| super::AppError::BadState(e.to_string()))?;
    Ok(Some(std::sync::Arc::new(gs)))
}

impl Prepared {
    /// Why the mail the classifier gave to `realm` is not proven the realm's, if it is not.
    pub fn doubt(&self, mode: SenderCheck, gs: &GameState, realm: &str) -> Option<String> {
        let token = || -> std::result::Result<(), String> {
            if self.token_of.iter().any(|r| r == realm) {
                return Ok(());
            }
            match gs.realm(realm).and_then(|r| r.token.as_ref()) {
                None => Err(format!(
                    "{realm} has no token yet (`pbemd gm token {realm} --new` gives it one)"
                )),
                Some(_) => Err(format!(
                    "no token of {realm} (missing or wrong) in the subject as [TOKEN] or \
                     [k:TOKEN], or on the first line"
                )),
            }
        };
        let dkim = || match &self.dkim {
            Some(Ok(_)) => Ok(()),
            Some(Err(why)) => Err(why.clone()),
            None => Err("no DKIM verdict".to_string()),
        };
        let why = match mode {
            SenderCheck::FromOnly => return None,
            SenderCheck::Dkim => dkim().err()?,
            SenderCheck::Token => token().err()?,
            SenderCheck::DkimOrToken => {
                let d = dkim().err()?;
                let t = token().err()?;
                format!("{d}; and {t}")
            }
        };
        Some(format!(
            "sender not proven (sender_check: {}): {why}",
            mode.as_str()
        ))
    }
}

/// The realm a classification gives the mail to (and would answer).
pub fn claimed_realm(c: &Classified) -> Option<&str> {
    match c {
        Classified::Accepted { realm, .. }
        | Classified::Refused { realm, .. }
        | Classified::Resend { realm, .. }
        | Classified::Link { realm, .. }
        | Classified::Help { realm, .. }
        | Classified::DeliveryReply { realm, .. } => Some(realm),
        _ => None,
    }
}

/// A mail in a realm's name that is not proven the realm's.
pub struct Unproven<'a> {
    pub inbox_id: i64,
    pub mail: &'a Inbound,
    pub realm: &'a str,
    pub reason: &'a str,
}

/// Hold the mail in the GM queue with the reason (audited), answer nobody, and in the
/// token modes mail the realm's registered addresses a hint (never the From address as
/// such, never the token).
pub async fn hold(app: &App, conn: &mut Conn, gs: &GameState, u: &Unproven<'_>) -> Result<()> {
    let round = gs.round as i64;
    let now = clock::to_ms(app.now());
    let subject = u.mail.subject.clone().unwrap_or_default();
    let id = messages::insert(
        conn,
        &NewMessage {
            inbox_id: u.inbox_id,
            kind: "unproven_sender",
            from_addr: u.mail.from_addr.as_deref(),
            subject: &subject,
            body: &u.mail.text,
            state: state::GM_QUEUE,
            reason: Some(u.reason),
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
        "mail_unproven_sender",
        Some(u.realm),
        Some(id),
        u.reason,
    )
    .await?;
    tracing::warn!(reason = %u.reason, realm = %u.realm, "mail in a realm's name held for the GM");
    if app.cfg.sender_check.uses_token() {
        hint(app, conn, gs, u, &subject).await?;
    }
    Ok(())
}

/// The hint to the realm's registered addresses, counted against its reply limit.
async fn hint(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    u: &Unproven<'_>,
    subject: &str,
) -> Result<()> {
    let Some(r) = gs.realm(u.realm).filter(|r| !r.emails.is_empty()) else {
        return Ok(());
    };
    let quoted = crate::mail::subject::shown(&super::fault::clean_text(subject, 200))
        .replace(['\n', '\t'], " ");
    let (subject, body) = crate::render::sender_auth::hint(r.language, u.realm, &quoted);
    let o = Outgoing {
        kind: "sender_hint",
        dedup_key: format!("sender_hint:{}", u.inbox_id),
        to: r.emails.clone(),
        subject,
        body,
        in_reply_to: None,
    };
    super::season_notices::flood::enqueue_reply(app, conn, u.realm, &o).await?;
    Ok(())
}

/// The note that gives a realm its token at the top of its opening form (token modes
/// only; forms mailed under any other key than the opening one carry none).
pub fn opening_note(
    app: &App,
    key: &str,
    realm: &crate::game::state::Realm,
    form: String,
) -> String {
    match realm.token.as_deref() {
        Some(token) if app.cfg.sender_check.uses_token() && key.starts_with("opening:") => {
            let note = crate::render::sender_auth::token_note(realm.language, &realm.name, token);
            format!("{note}\n{form}")
        }
        _ => form,
    }
}

/// What `gm token REALM --new` did.
#[derive(Debug)]
pub struct Rotated {
    pub token: String,
    pub mailed_to: Vec<String>,
    pub state_version: i64,
}

/// `gm token REALM --new`: a new token in a new state version (audited, the token itself
/// is not in the audit log), mailed to the realm's registered addresses in its language.
pub async fn rotate(app: &App, realm: &str) -> Result<Rotated> {
    let mut tx = app.store.begin().await?;
    let (version, gs) = app.state(&mut tx).await?;
    let mut gs = (*gs).clone();
    let r = gs
        .realm_mut(realm)
        .ok_or_else(|| super::AppError::Refused(format!("no realm named {realm}")))?;
    let token = fresh_token();
    r.token = Some(token.clone());
    let (lang, to) = (r.language, r.emails.clone());
    let reason = format!("the GM gave {realm} a new token");
    let v = app.save_state(&mut tx, version, &gs, &reason).await?;
    let now = clock::to_ms(app.now());
    let detail = json!({"mailed_to": to, "mode": app.cfg.sender_check.as_str()}).to_string();
    events::log(
        &mut tx,
        now,
        gs.round as i64,
        "gm_token_new",
        Some(realm),
        Some(v),
        &detail,
    )
    .await?;
    if !to.is_empty() {
        let (subject, body) = crate::render::sender_auth::new_token(lang, realm, &token);
        let o = Outgoing {
            kind: "gm_token",
            dedup_key: format!("gm_token:{realm}:{v}"),
            to: to.clone(),
            subject,
            body,
            in_reply_to: None,
        };
        app.enqueue(&mut tx, &o).await?;
    }
    tx.commit()
        .await
        .map_err(|source| crate::store::StoreError::Query {
            what: "commit a new token",
            source,
        })?;
    Ok(Rotated {
        token,
        mailed_to: to,
        state_version: v,
    })
}

/// A realm's current token, for the GM (`gm token REALM`).
pub async fn current(app: &App, realm: &str) -> Result<Option<String>> {
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    let r = gs
        .realm(realm)
        .ok_or_else(|| super::AppError::Refused(format!("no realm named {realm}")))?;
    Ok(r.token.clone())
}
