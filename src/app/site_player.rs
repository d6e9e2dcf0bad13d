//! What a realm's own web pages and the public trade board read and change: the
//! realm's latest mailed form, its forms and receipts of the round, its map, and its
//! trade wishes (R-RES-3), which it may change between weekends: from Monday's results
//! until its form deadline, never while the forms are closed or the weekend is being
//! resolved. A change is a new state version with its audit event, like a GM's.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::{App, AppError, Result};
use crate::clock::{self, from_ms};
use crate::game::resource::Resource;
use crate::game::state::{Phase, TradeWishes};
use crate::game::{GameState, Lang};
use crate::schedule::Window;
use crate::store::{self, events, site_player};

/// The plain text of a stored mail (its first text part), line ends as `\n`.
pub fn mail_text(raw: &[u8]) -> String {
    mail_parser::MessageParser::default()
        .parse(raw)
        .and_then(|m| m.body_text(0).map(|b| b.replace("\r\n", "\n")))
        .unwrap_or_default()
}

/// The realm's latest mailed result form: (when it was mailed, in words; its text).
pub async fn latest_form(app: &App, realm: &str, lang: Lang) -> Result<Option<(String, String)>> {
    let mut conn = app.store.conn().await?;
    let form = site_player::latest_sent_form(&mut conn, realm).await?;
    Ok(form.map(|(_, at, raw)| (app.local(from_ms(at), lang), mail_text(&raw))))
}

/// One form of the round as the receipts page shows it.
pub struct Receipt {
    pub received: String,
    pub standing: bool,
    /// The receipt's text, if one was mailed.
    pub text: Option<String>,
}

/// The realm's forms of the current round with their receipts, and the round.
pub async fn receipts(app: &App, realm: &str, lang: Lang) -> Result<(u32, Vec<Receipt>)> {
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    let rows = site_player::forms_with_receipts(&mut conn, realm, gs.round as i64).await?;
    let out = rows
        .into_iter()
        .map(|r| Receipt {
            received: app.local(from_ms(r.received_at), lang),
            standing: !r.superseded,
            text: r.receipt.as_deref().map(mail_text),
        })
        .collect();
    Ok((gs.round, out))
}

/// The current state (read-only), for the wishes page.
pub async fn state(app: &App) -> Result<std::sync::Arc<GameState>> {
    let mut conn = app.store.conn().await?;
    Ok(app.state(&mut conn).await?.1)
}

/// The state a realm's map is drawn from: the current one, except between a weekend's
/// resolution and its results (phase `resolving`: also while the GM holds the results
/// or corrects the weekend), when it is the state the weekend was resolved from. What
/// the weekend did is told by the Monday form; a realm does not see it on the site
/// before then.
pub async fn map_state(app: &App) -> Result<std::sync::Arc<GameState>> {
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    if gs.phase != Phase::Resolving {
        return Ok(gs);
    }
    let round = i64::from(gs.round.saturating_sub(1));
    let Some(res) = store::resolutions::standing(&mut conn, round).await? else {
        return Err(AppError::BadState(format!(
            "the state is resolving but round {round} has no standing resolution"
        )));
    };
    let base = store::state::get(&mut conn, res.base_version)
        .await?
        .ok_or_else(|| AppError::BadState(format!("state version {} is gone", res.base_version)))?;
    serde_json::from_str(&base.doc)
        .map(std::sync::Arc::new)
        .map_err(|e| AppError::BadState(e.to_string()))
}

/// Whether `realm` may change its trade wishes at `now`, else why not (in `lang`).
pub fn wishes_open(
    app: &App,
    gs: &GameState,
    realm: &str,
    now: DateTime<Utc>,
    lang: Lang,
) -> Result<()> {
    let closed = matches!(gs.phase, Phase::Resolving | Phase::Finished)
        || super::season_calendar::window_for(app, gs, realm, now) == Window::Closed;
    if !closed {
        return Ok(());
    }
    let next = app
        .schedule
        .next_opening(Window::Weekday, now)
        .map(|t| app.local(t, lang))
        .unwrap_or_default();
    Err(AppError::Refused(match lang {
        Lang::Sv => format!(
            "Handelsönskemålen kan inte ändras nu: formulären är stängda och helgen avgörs. \
             Försök igen efter måndagens resultat ({next})."
        ),
        Lang::En => format!(
            "The trade wishes cannot be changed now: the forms are closed and the weekend is \
             being resolved. Try again after Monday's results ({next})."
        ),
    }))
}

/// Read the four resources of a wishes form (two to buy, two to sell, R-RES-3), or a
/// refusal in `lang` quoting the first one not understood.
pub fn parse_wishes(buy: [&str; 2], sell: [&str; 2], lang: Lang) -> Result<TradeWishes> {
    let one = |s: &str| {
        Resource::parse(s).map_err(|_| {
            let shown: String = s.chars().take(40).collect();
            AppError::Refused(match lang {
                Lang::Sv => {
                    format!("\"{shown}\" är ingen resurs; välj två att köpa och två att sälja.")
                }
                Lang::En => {
                    format!("\"{shown}\" is no resource; choose two to buy and two to sell.")
                }
            })
        })
    };
    Ok(TradeWishes {
        buy: vec![one(buy[0])?, one(buy[1])?],
        sell: vec![one(sell[0])?, one(sell[1])?],
    })
}

/// Store `wishes` as `realm`'s trade wishes: a new state version, audited as
/// `site_wishes`. Refused outside the time they may change.
pub async fn set_wishes(app: &App, realm: &str, lang: Lang, wishes: TradeWishes) -> Result<()> {
    let mut tx = app.store.begin().await?;
    let (version, gs) = app.state(&mut tx).await?;
    let now = app.now();
    wishes_open(app, &gs, realm, now, lang)?;
    let mut gs = (*gs).clone();
    let r = gs
        .realm_mut(realm)
        .filter(|r| !r.eliminated)
        .ok_or_else(|| {
            AppError::Refused(match lang {
                Lang::Sv => format!("{realm} spelar inte längre; önskemålen ändras inte."),
                Lang::En => format!("{realm} no longer plays; the wishes are not changed."),
            })
        })?;
    let was = std::mem::replace(&mut r.trade_wishes, wishes.clone());
    let reason = format!("{realm} changed its trade wishes on the web site");
    let v = app.save_state(&mut tx, version, &gs, &reason).await?;
    let d = json!({"buy": wishes.buy, "sell": wishes.sell, "was": was}).to_string();
    let at = clock::to_ms(now);
    events::log(
        &mut tx,
        at,
        gs.round as i64,
        "site_wishes",
        Some(realm),
        Some(v),
        &d,
    )
    .await?;
    tx.commit().await.map_err(|source| {
        AppError::Store(store::StoreError::Query {
            what: "commit a realm's trade wishes",
            source,
        })
    })
}

/// One realm on the public trade board.
pub struct BoardRow {
    pub realm: String,
    pub buy: Vec<Resource>,
    pub sell: Vec<Resource>,
}

/// What the public trade board shows: the round, the next deadlines (instants) and
/// every playing realm's wishes. Nothing else about any realm.
pub struct Board {
    pub round: u32,
    pub form_deadline: Option<DateTime<Utc>>,
    pub results: Option<DateTime<Utc>>,
    pub weekday_close: Option<DateTime<Utc>>,
    pub rows: Vec<BoardRow>,
}

/// The board at `now`.
pub async fn board(app: &App, now: DateTime<Utc>) -> Result<Board> {
    let gs = state(app).await?;
    let rows = gs
        .realms
        .iter()
        .filter(|r| !r.is_evil && !r.eliminated)
        .map(|r| BoardRow {
            realm: r.name.clone(),
            buy: r.trade_wishes.buy.clone(),
            sell: r.trade_wishes.sell.clone(),
        })
        .collect();
    let results = next_results(app, now).map(|d| d.at);
    Ok(Board {
        round: gs.round,
        // The deadline of every realm the GM gave no late one (the board is public).
        form_deadline: super::season_calendar::form_deadline(app, &gs, None, now),
        results,
        weekday_close: app.schedule.next_closing(Window::Weekday, now),
        rows,
    })
}

/// The next results event after `now` (at most two weeks ahead).
fn next_results(app: &App, now: DateTime<Utc>) -> Option<crate::schedule::Due> {
    app.schedule
        .due(now, now + chrono::Duration::days(15))
        .into_iter()
        .find(|d| d.kind == crate::schedule::EventKind::Results)
}
