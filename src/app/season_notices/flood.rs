//! Flood control: the one place every reply to a realm's own mail is queued (refusals,
//! receipts, acknowledgements, resent forms). A realm gets at most
//! `limits.max_replies_per_hour` replies in one clock hour; beyond it each reply is
//! still rendered and stored in the outbox, but held (`gm queue` shows it, `gm release`
//! sends it), and the GM is told once per realm and hour. The mail itself is handled as
//! always: envoys are still decided and delivered by the rules.

use serde_json::json;

use crate::app::{App, Result};
use crate::clock;
use crate::mail::compose::{Attachment, Outgoing};
use crate::store::{events, notices, Conn};

/// One slot of the reply counter.
const HOUR_MS: i64 = 3_600_000;

/// Queue `o`, a reply to a mail of `realm`, counting it against the realm's hourly
/// limit. Returns the outbox row's id (held or not). A reply queued before under the
/// same key is not counted again.
pub async fn enqueue_reply(app: &App, conn: &mut Conn, realm: &str, o: &Outgoing) -> Result<i64> {
    enqueue_reply_with(app, conn, realm, o, &[]).await
}

/// As [`enqueue_reply`], with `files` attached.
pub async fn enqueue_reply_with(
    app: &App,
    conn: &mut Conn,
    realm: &str,
    o: &Outgoing,
    files: &[Attachment],
) -> Result<i64> {
    if notices::queued_before(conn, &o.dedup_key).await? {
        return app.enqueue_with(conn, o, files).await;
    }
    let now = clock::to_ms(app.now());
    let slot = now.div_euclid(HOUR_MS);
    let n = notices::bump(conn, &format!("replies:{realm}"), slot).await?;
    let id = app.enqueue_with(conn, o, files).await?;
    let limit = i64::from(app.cfg.limits.max_replies_per_hour);
    if n <= limit {
        return Ok(id);
    }
    held(app, conn, realm, id, o.kind, (n, slot)).await?;
    Ok(id)
}

/// Queue many mails at once, in few statements and in order: a `(Some(realm), reply)`
/// is counted against the realm's hourly limit exactly as [`enqueue_reply`] one at a
/// time would count it; a `(None, mail)` is queued as it is.
pub async fn enqueue_replies(
    app: &App,
    conn: &mut Conn,
    replies: &[(Option<&str>, &Outgoing)],
) -> Result<()> {
    if replies.is_empty() {
        return Ok(());
    }
    let keys: Vec<&str> = replies.iter().map(|(_, o)| o.dedup_key.as_str()).collect();
    let queued: std::collections::HashSet<String> = already_queued(conn, &keys).await?;
    let now = clock::to_ms(app.now());
    let slot = now.div_euclid(HOUR_MS);
    // Each new reply's number in its realm's hour, as `bump` one at a time would give.
    let mut counted: Vec<Option<i64>> = vec![None; replies.len()];
    // The new replies of each realm, realms in order of their first reply.
    let mut by_realm: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut place: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut seen = std::collections::HashSet::new();
    for (i, (realm, o)) in replies.iter().enumerate() {
        let Some(realm) = *realm else { continue };
        if queued.contains(&o.dedup_key) || !seen.insert(o.dedup_key.as_str()) {
            continue;
        }
        let k = *place.entry(realm).or_insert_with(|| {
            by_realm.push((realm, Vec::new()));
            by_realm.len() - 1
        });
        by_realm[k].1.push(i);
    }
    for (realm, mine) in by_realm {
        let k = mine.len() as i64;
        let after = notices::bump_by(conn, &format!("replies:{realm}"), slot, k).await?;
        for (j, i) in mine.into_iter().enumerate() {
            counted[i] = Some(after - k + j as i64 + 1);
        }
    }
    let outs: Vec<&Outgoing> = replies.iter().map(|(_, o)| *o).collect();
    let limit = i64::from(app.cfg.limits.max_replies_per_hour);
    // The row ids are read back only when a reply is held (a courier batch queues
    // a thousand mails and, below the limit, needs none of their ids).
    if counted.iter().flatten().all(|n| *n <= limit) {
        return app.queue_many(conn, &outs).await;
    }
    let ids = app.enqueue_many(conn, &outs).await?;
    for (i, n) in counted.iter().enumerate() {
        let Some(n) = *n else { continue };
        if let (true, Some(realm)) = (n > limit, replies[i].0) {
            held(app, conn, realm, ids[i], replies[i].1.kind, (n, slot)).await?;
        }
    }
    Ok(())
}

/// The dedup keys among `keys` that are queued already.
async fn already_queued(
    conn: &mut Conn,
    keys: &[&str],
) -> Result<std::collections::HashSet<String>> {
    Ok(crate::store::outbox::ids_of(conn, keys)
        .await?
        .into_iter()
        .map(|(k, _)| k)
        .collect())
}

/// Hold reply `id`, the `n`th of `realm` in hour `slot`, which is over the limit.
async fn held(
    app: &App,
    conn: &mut Conn,
    realm: &str,
    id: i64,
    kind: &str,
    (n, slot): (i64, i64),
) -> Result<()> {
    let now = clock::to_ms(app.now());
    notices::hold(conn, id, realm, now).await?;
    let round = app.state(conn).await?.1.round as i64;
    events::log(conn, now, round, "reply_held", Some(realm), Some(id), kind).await?;
    let limit = i64::from(app.cfg.limits.max_replies_per_hour);
    if n == limit.saturating_add(1) {
        flood_started(app, conn, realm, slot, round).await?;
    }
    Ok(())
}

/// The first held reply of a realm in an hour: audited, and the GM is told (once).
async fn flood_started(
    app: &App,
    conn: &mut Conn,
    realm: &str,
    slot: i64,
    round: i64,
) -> Result<()> {
    let now = clock::to_ms(app.now());
    let limit = app.cfg.limits.max_replies_per_hour;
    let hour = app.game_time(clock::from_ms(slot.saturating_mul(HOUR_MS)));
    let d = json!({"limit": limit, "hour_from": hour}).to_string();
    events::log(conn, now, round, "flood_held", Some(realm), None, &d).await?;
    let key = format!("flood:{realm}:{slot}");
    let subject = format!("Flod från {realm} / flood from {realm}");
    let body = format!(
        "{realm} har fått {limit} svar sedan {hour}; fler svar denna timme hålls kvar. \
         Breven tas emot och hanteras som vanligt. `pbemd gm queue` visar de kvarhållna \
         svaren, `pbemd gm release --realm {realm}` skickar dem.\n\n\
         {realm} has had {limit} replies since {hour}; further replies this hour are \
         held. Its mails are still stored and handled. `pbemd gm queue` shows the held \
         replies, `pbemd gm release --realm {realm}` sends them.\n"
    );
    app.notify_gm(conn, &key, &subject, &body).await
}

/// `gm release`: send held replies (all, one realm's, or one outbox row), audited.
/// Returns how many were released.
pub async fn release(app: &App, which: &notices::Release<'_>) -> Result<u64> {
    let mut tx = app.store.begin().await?;
    let now = clock::to_ms(app.now());
    let n = notices::release(&mut tx, which, now).await?;
    let round = app.state(&mut tx).await?.1.round as i64;
    let (realm, id) = match which {
        notices::Release::All => (None, None),
        notices::Release::Realm(r) => (Some(*r), None),
        notices::Release::One(id) => (None, Some(*id)),
    };
    let d = json!({"released": n, "realm": realm, "outbox_id": id}).to_string();
    events::log(&mut tx, now, round, "gm_release", realm, id, &d).await?;
    tx.commit()
        .await
        .map_err(|source| crate::store::StoreError::Query {
            what: "commit released replies",
            source,
        })?;
    Ok(n)
}
