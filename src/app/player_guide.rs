//! The player's guide (docs/reference/mail.md, The player's guide): a plain text in Swedish and in
//! English, kept in `docs/guide/` and embedded here, mailed to a realm that asks
//! (`<Land> hjälp` / `<Realm> help`) at any time, free of any game cost (counted
//! against the hourly reply limit like every reply), and audited; named by one line at
//! the top of each opening form.
//!
//! The guide's subject examples are written with `<Land>`/`<Annat land>` (`<Realm>` /
//! `<Other realm>`) and mailed with the realm's own name and another realm's, so a
//! player can copy them; a test reads every `Ämne:`/`Subject:` line of the guide back
//! through the classifier, so the guide cannot drift from the grammar.

use serde_json::json;

use super::season_notices::flood;
use super::{App, Result};
use crate::clock;
use crate::game::{GameState, Lang};
use crate::mail::compose::Outgoing;
use crate::store::{events, Conn};

/// The guide in Swedish, as kept in the repository.
pub const SV: &str = include_str!("../../docs/guide/player-sv.md");
/// The guide in English, as kept in the repository.
pub const EN: &str = include_str!("../../docs/guide/player-en.md");

/// The stored message's kind for a request.
const KIND: &str = "help";

/// The guide in `lang` for `realm`, with `other` standing for another realm in the
/// examples.
pub fn guide(lang: Lang, realm: &str, other: &str) -> String {
    match lang {
        Lang::Sv => SV.replace("<Annat land>", other).replace("<Land>", realm),
        Lang::En => EN.replace("<Other realm>", other).replace("<Realm>", realm),
    }
}

/// Another realm for the guide's examples: the first other realm with a player, by
/// name (the realm itself when it plays alone).
pub fn other_realm<'g>(gs: &'g GameState, realm: &'g str) -> &'g str {
    let mut others: Vec<&str> = gs
        .realms
        .iter()
        .filter(|r| r.name != realm && !r.emails.is_empty())
        .map(|r| r.name.as_str())
        .collect();
    others.sort_unstable();
    others.first().copied().unwrap_or(realm)
}

/// The subject that asks for the guide.
pub fn help_subject(realm: &str, lang: Lang) -> String {
    match lang {
        Lang::Sv => format!("{realm} hjälp"),
        Lang::En => format!("{realm} help"),
    }
}

/// The line at the top of an opening form that names the guide.
pub fn opening_line(lang: Lang, realm: &str) -> String {
    let subject = help_subject(realm, lang);
    match lang {
        Lang::Sv => format!(
            "Spelarhandledning: skriv «{subject}» som ämne i ett brev till spelet, så får du \
             den (gratis, när som helst).\n"
        ),
        Lang::En => format!(
            "Player's guide: mail the game with the subject “{subject}” to get it (free, at \
             any time).\n"
        ),
    }
}

/// `form` with the guide's line on top when it is an opening form (its outbox key
/// starts `opening:`).
pub fn on_opening_form(key: &str, realm: &crate::game::state::Realm, form: String) -> String {
    if key.starts_with("opening:") {
        format!("{}\n{form}", opening_line(realm.language, &realm.name))
    } else {
        form
    }
}

/// A guide request as classified.
pub use super::site_links::Request;

/// Handle a request inside the mail's transaction: store it, mail the guide in the
/// request's language to the realm's registered addresses, audit it.
pub async fn handle(app: &App, conn: &mut Conn, gs: &GameState, req: &Request<'_>) -> Result<()> {
    let now = clock::to_ms(app.now());
    let round = gs.round as i64;
    let id = req.store(conn, KIND, round, now).await?;
    let to = gs
        .realm(req.realm)
        .map(|r| r.emails.clone())
        .unwrap_or_default();
    let subject = match req.lang {
        Lang::Sv => format!("Spelarhandledning för {}", req.realm),
        Lang::En => format!("Player's guide for {}", req.realm),
    };
    let o = Outgoing {
        kind: "player_guide",
        dedup_key: format!("player_guide:{}", req.inbox_id),
        to,
        subject,
        body: guide(req.lang, req.realm, other_realm(gs, req.realm)),
        in_reply_to: req.mail.message_id.clone(),
    };
    let out = flood::enqueue_reply(app, conn, req.realm, &o).await?;
    let detail = json!({"outbox_id": out, "lang": req.lang.code()}).to_string();
    events::log(
        conn,
        now,
        round,
        "player_guide_sent",
        Some(req.realm),
        Some(id),
        &detail,
    )
    .await?;
    Ok(())
}
