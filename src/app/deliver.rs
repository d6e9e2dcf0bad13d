//! Make due deliveries: an envoy becomes a mail from the game's own address to the
//! recipient realm, naming the sender realm and never a player's mail address.

use serde_json::json;

use super::{App, Result};
use crate::clock::{self, from_ms};
use crate::game::{GameState, Lang};
use crate::mail::compose::Outgoing;
use crate::store::{events, messages};

/// Deliver the oldest due delivery. Returns false when none is due.
pub async fn deliver_once(app: &App) -> Result<bool> {
    let now = app.now();
    let mut tx = app.store.begin().await?;
    let Some(d) = messages::claim_due_delivery(&app.store, &mut tx, clock::to_ms(now)).await?
    else {
        return Ok(false);
    };
    let (_, gs) = app.state(&mut tx).await?;
    let from = d.message.realm.clone().unwrap_or_default();
    let (to_addrs, lang) = match gs.realm(&d.to_realm) {
        Some(r) => (r.emails.clone(), r.language),
        None => (vec![], Lang::Sv),
    };
    let text = redact_addresses(&d.message.body, &gs);
    let data = json!({
        "from": from,
        "to": d.to_realm,
        "text": text,
        "sent": app.local(from_ms(d.message.created_at), lang),
    });
    let body = app.renderer.render("envoy_delivery", lang, &data)?;
    let subject = match lang {
        // Not the sending subject form: a player's reply to this mail must not read
        // as an envoy sent by `from`.
        Lang::Sv => format!("Sändebud från {from}"),
        Lang::En => format!("Envoy from {from}"),
    };
    let o = Outgoing {
        kind: "envoy",
        dedup_key: format!("deliver:{}", d.id),
        to: to_addrs,
        subject,
        body,
        in_reply_to: None,
    };
    let out_id = app.enqueue(&mut tx, &o).await?;
    let at = clock::to_ms(now);
    messages::delivered(&mut tx, d.id, out_id, at).await?;
    events::log(
        &mut tx,
        at,
        gs.round as i64,
        "envoy_delivered",
        Some(&d.to_realm),
        Some(d.message.id),
        &json!({"from": from, "outbox_id": out_id}).to_string(),
    )
    .await?;
    tx.commit()
        .await
        .map_err(|e| crate::store::StoreError::Query {
            what: "commit a delivery",
            source: e,
        })?;
    app.wake.notify_one();
    Ok(true)
}

/// Deliver everything due; returns how many.
pub async fn deliver_all(app: &App) -> Result<usize> {
    let mut n = 0;
    while deliver_once(app).await? {
        n += 1;
    }
    Ok(n)
}

/// Remove every registered player address from a text passed between realms, so a
/// signature or a quoted header cannot give a player's address away.
pub fn redact_addresses(text: &str, gs: &GameState) -> String {
    let mut out = text.to_string();
    for r in &gs.realms {
        for e in &r.emails {
            if e.is_empty() {
                continue;
            }
            let lower = out.to_lowercase();
            let needle = e.to_lowercase();
            if !lower.contains(&needle) {
                continue;
            }
            // Replace case-insensitively, walking the lower-cased copy for positions.
            let mut result = String::with_capacity(out.len());
            let mut i = 0;
            while let Some(pos) = lower[i..].find(&needle) {
                result.push_str(&out[i..i + pos]);
                result.push_str("[adress borttagen / address removed]");
                i += pos + needle.len();
            }
            result.push_str(&out[i..]);
            out = result;
        }
    }
    out
}
