//! Realm links to the game's web site: a signed, expiring link
//! (`<public_url>/realm/login?token=…`, purpose `realm-link`, valid `http.link_days`)
//! that logs one realm in. A realm asks for one by mail (`<Land> länk` / `<Realm>
//! link`) and gets it at its registered addresses only (never the mail's own From or
//! Reply-To), in its language, through flood control; every Monday form (and the
//! opening form) carries one below its orders section. Without `http.public_url` no
//! link is made and the reply says the site is not public.

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use super::season_notices::flood;
use super::{App, AppError, Result};
use crate::clock;
use crate::game::{GameState, Lang, Realm};
use crate::mail::compose::Outgoing;
use crate::mail::parse::Inbound;
use crate::store::messages::{self, state, NewMessage};
use crate::store::{events, meta, Conn};
use crate::web::site::sign;

/// The message kind stored for a link request.
pub const KIND: &str = "link_request";
/// The signed token's purpose: a link, never a session.
pub const PURPOSE: &str = "realm-link";

/// The site's signing key, read through `conn` (the caller's transaction: another
/// connection could wait on its lock), made the first time as [`App::site_secret`]
/// would make it.
pub async fn site_key(conn: &mut Conn) -> Result<[u8; 32]> {
    use rand_core::RngCore;
    let mut fresh = [0u8; 32];
    rand_core::OsRng.fill_bytes(&mut fresh);
    let stored = meta::get_or_init(conn, meta::SITE_SECRET, &hex::encode(fresh)).await?;
    let mut key = [0u8; 32];
    hex::decode_to_slice(stored.trim(), &mut key)
        .map_err(|e| AppError::BadState(format!("meta site_secret: {e}")))?;
    Ok(key)
}

/// The links of one batch of mails: the site's address, the key and the expiry,
/// found once; each link then costs one HMAC.
pub struct Links {
    base: String,
    key: [u8; 32],
    pub expires: DateTime<Utc>,
}

impl Links {
    /// The links of mails made at `now`, valid `http.link_days` from then; `None` when
    /// the site is not public (`http.public_url` unset).
    pub async fn load(app: &App, conn: &mut Conn, now: DateTime<Utc>) -> Result<Option<Links>> {
        let Some(base) = app.cfg.http_public_url.clone() else {
            return Ok(None);
        };
        let key = site_key(conn).await?;
        let days = i64::from(app.cfg.http_link_days);
        Ok(Some(Links {
            base,
            key,
            expires: now + Duration::days(days),
        }))
    }

    /// The login link of `realm`.
    pub fn url(&self, realm: &Realm) -> String {
        let token = link_token(&self.key, realm, self.expires.timestamp());
        format!("{}/realm/login?token={token}", self.base)
    }

    /// A Monday form with the realm's link below its orders section.
    pub fn on_form(&self, app: &App, realm: &Realm, lang: Lang, form: String) -> String {
        let line = form_link_text(lang, &app.local(self.expires, lang), &self.url(realm));
        format!("{}\n\n{line}", form.trim_end())
    }
}

/// The lines below a Monday form's orders section: the realm's link and its expiry.
pub fn form_link_text(lang: Lang, until: &str, url: &str) -> String {
    match lang {
        Lang::Sv => {
            format!("Era sidor på spelets webbplats (länken gäller till {until}):\n{url}\n")
        }
        Lang::En => {
            format!("Your pages on the game's web site (the link is valid until {until}):\n{url}\n")
        }
    }
}

/// A link token for `realm` valid until `expires` (Unix seconds). It carries the
/// realm's name and a mark of its registered addresses, so a link stops working when
/// the realm's player is replaced (its addresses change).
pub fn link_token(key: &[u8; 32], realm: &Realm, expires: i64) -> String {
    let payload = format!("{}\n{}", realm.name, addresses_mark(&realm.emails));
    sign::sign(key, PURPOSE, &payload, expires)
}

/// The realm a link token logs in: valid, unexpired at `now`, for a realm of `gs`
/// whose addresses are still those the link was made for.
pub fn link_realm(key: &[u8; 32], gs: &GameState, token: &str, now: i64) -> Option<String> {
    let payload = sign::verify(key, PURPOSE, token, now)
        .map_err(|why| tracing::info!(?why, "a realm link was refused"))
        .ok()?;
    let (name, mark) = payload.split_once('\n')?;
    let realm = gs.realm(name)?;
    (addresses_mark(&realm.emails) == mark).then(|| realm.name.clone())
}

/// A short mark of a list of addresses (FNV-1a over the lowercased addresses): the
/// token's MAC protects it, so it only has to notice a change.
pub fn addresses_mark(emails: &[String]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for e in emails {
        for b in e.trim().to_lowercase().bytes().chain(std::iter::once(b',')) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// A Monday form with the realm's link, when the site is public.
pub fn with_link(
    app: &App,
    links: Option<&Links>,
    realm: &Realm,
    lang: Lang,
    form: String,
) -> String {
    match links {
        Some(l) => l.on_form(app, realm, lang, form),
        None => form,
    }
}

/// A realm's request that is answered at once and costs nothing (a link, the player's
/// guide), as classified.
pub struct Request<'a> {
    pub inbox_id: i64,
    pub realm: &'a str,
    pub lang: Lang,
    pub mail: &'a Inbound,
    pub subject: &'a str,
}

impl Request<'_> {
    /// Store the request as an accepted message of `kind` (inside the mail's
    /// transaction); its id.
    pub async fn store(&self, conn: &mut Conn, kind: &str, round: i64, now: i64) -> Result<i64> {
        let base = NewMessage {
            inbox_id: self.inbox_id,
            kind,
            realm: Some(self.realm),
            lang: Some(self.lang.code()),
            from_addr: self.mail.from_addr.as_deref(),
            subject: self.subject,
            body: &self.mail.text,
            state: state::ACCEPTED,
            round,
            at: now,
            ..Default::default()
        };
        Ok(messages::insert(conn, &base).await?)
    }
}

/// Handle a request inside the mail's transaction: store it, mail the link (or say
/// the site is not public) to the realm's registered addresses, audit it.
pub async fn handle(app: &App, conn: &mut Conn, gs: &GameState, req: &Request<'_>) -> Result<()> {
    let links = Links::load(app, conn, app.now()).await?;
    let now = clock::to_ms(app.now());
    let round = gs.round as i64;
    let id = req.store(conn, KIND, round, now).await?;
    let body = match (&links, gs.realm(req.realm)) {
        (Some(l), Some(r)) => {
            let until = app.local(l.expires, req.lang);
            link_text(req.lang, req.realm, &l.url(r), &until)
        }
        _ => not_public_text(req.lang),
    };
    let o = Outgoing {
        kind: "site_link",
        dedup_key: format!("site_link:{}", req.inbox_id),
        to: registered(gs, req.realm),
        subject: link_subject(req.realm, req.lang),
        body,
        in_reply_to: req.mail.message_id.clone(),
    };
    let out = flood::enqueue_reply(app, conn, req.realm, &o).await?;
    let (kind, d) = match &links {
        Some(l) => (
            "site_link_sent",
            json!({"outbox_id": out, "expires": app.game_time(l.expires)}),
        ),
        None => ("site_link_not_public", json!({"outbox_id": out})),
    };
    let d = d.to_string();
    events::log(conn, now, round, kind, Some(req.realm), Some(id), &d).await?;
    Ok(())
}

/// The realm's registered addresses (the only ones a link ever goes to).
fn registered(gs: &GameState, realm: &str) -> Vec<String> {
    gs.realm(realm)
        .map(|r| r.emails.clone())
        .unwrap_or_default()
}

/// The subject of the reply: the request's own subject, as the realm writes it.
pub fn link_subject(realm: &str, lang: Lang) -> String {
    match lang {
        Lang::Sv => format!("{realm} länk"),
        Lang::En => format!("{realm} link"),
    }
}

/// The mail carrying a realm's link.
pub fn link_text(lang: Lang, realm: &str, url: &str, until: &str) -> String {
    match lang {
        Lang::Sv => format!(
            "Här är {realm}s länk till era sidor på spelets webbplats: ert senaste \
             formulär, er karta, era kvitton och era handelsönskemål.\n\n{url}\n\n\
             Länken gäller till {until} och loggar in som {realm}; ge den inte till någon \
             annan. En ny länk får ni när som helst med ämnet \"{realm} länk\", och varje \
             måndagsformulär har en.\n"
        ),
        Lang::En => format!(
            "Here is {realm}'s link to your pages on the game's web site: your latest \
             form, your map, your receipts and your trade wishes.\n\n{url}\n\n\
             The link is valid until {until} and logs in as {realm}; do not give it to \
             anyone. Ask for a new one at any time with the subject \"{realm} link\"; \
             every Monday form carries one too.\n"
        ),
    }
}

/// The reply when the game has no public site.
pub fn not_public_text(lang: Lang) -> String {
    match lang {
        Lang::Sv => "Spelets webbplats är inte öppen för spelarna, så det finns ingen länk \
                     att skicka. Allt i spelet går som vanligt med e-post."
            .to_string(),
        Lang::En => "The game's web site is not open to players, so there is no link to \
                     send. Everything in the game works by mail as usual."
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::subject::parse_link;

    const REALMS: &[&str] = &["Ostvik", "Nya Ostvik", "Afani", "Stora Öar"];

    #[test]
    fn a_request_for_a_link_parses_in_both_languages_and_nothing_else_does() {
        for (s, realm, lang) in [
            ("Östvik länk", "Ostvik", Lang::Sv),
            ("Re: SV: ostvik LANK!", "Ostvik", Lang::Sv),
            ("Nya Ostvik länk.", "Nya Ostvik", Lang::Sv),
            ("Afani link", "Afani", Lang::En),
            ("Fwd: Afani  web link", "Afani", Lang::En),
            ("Stora Oar link", "Stora Öar", Lang::En),
        ] {
            assert_eq!(
                parse_link(s, REALMS),
                Some((realm.to_string(), lang)),
                "{s:?}"
            );
        }
        for s in [
            "Ostvik formulär",
            "Afani link please",
            "Atlantis link",
            "länk",
            "Afani to Ostvik: link",
            "Afani form again",
        ] {
            assert_eq!(parse_link(s, REALMS), None, "{s:?}");
        }
    }

    #[test]
    fn a_form_link_logs_in_its_realm_until_it_expires_or_the_addresses_change() {
        let mut gs = crate::game::load_scenario(include_str!("../../scenarios/demo.yaml")).unwrap();
        let afani = gs.realm("Afani").unwrap().clone();
        let links = Links {
            base: "https://game.example.org".into(),
            key: [3; 32],
            expires: DateTime::from_timestamp(2_000, 0).unwrap(),
        };
        let url = links.url(&afani);
        let token = url
            .strip_prefix("https://game.example.org/realm/login?token=")
            .unwrap();
        assert_eq!(
            link_realm(&[3; 32], &gs, token, 1_999).as_deref(),
            Some("Afani")
        );
        assert_eq!(link_realm(&[3; 32], &gs, token, 2_000), None, "expired");
        assert_eq!(link_realm(&[4; 32], &gs, token, 0), None, "another key");
        assert!(sign::verify(&[3; 32], "realm-session", token, 0).is_err());
        gs.realm_mut("Afani").unwrap().emails = vec!["new@player.test".into()];
        assert_eq!(
            link_realm(&[3; 32], &gs, token, 0),
            None,
            "a replaced player's link"
        );
        assert_eq!(
            addresses_mark(&["A@x.test".into()]),
            addresses_mark(&[" a@x.test".into()])
        );
    }
}
