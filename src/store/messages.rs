//! Classified mail and what became of it; also the GM's review queue, which is the
//! set of messages waiting for the GM, and the courier's queue of messages waiting
//! for a batch. (The `deliveries` table of the first migration is unused: the courier
//! batch queues its mail in the outbox directly.)

use sqlx::Row;

use super::{Conn, Ctx, Store, StoreError};

/// What a message is waiting for (or what happened to it).
pub mod state {
    /// Routed: a delivery row exists.
    pub const ROUTED: &str = "routed";
    /// Refused: the sender got a reply saying why; kept for the GM.
    pub const REFUSED: &str = "refused";
    /// Waiting for the GM.
    pub const GM_QUEUE: &str = "gm_queue";
    /// Accepted and stored (weekend forms).
    pub const ACCEPTED: &str = "accepted";
    /// Waiting for the next courier batch.
    pub const QUEUED: &str = "queued";
    /// Held for the GM's review (`gm approve` queues it, `gm reject` refuses it).
    pub const HELD: &str = "held";
    /// Its handling failed (an error or a panic; the reason holds the error text). It
    /// is not tried again until `gm retry`; `gm reject` refuses it.
    pub const PARKED: &str = "parked";
    /// Received before the game began (in the inbox at `pbemd init`): stored, not
    /// played. `gm retry` plays it, `gm reject` drops it.
    pub const BEFORE_GAME: &str = "before_game";
    /// A mail to the GM that the GM answered (`gm answer`, the desk, or a reply to the
    /// notice about it); kept for the GM, out of the queue.
    pub const ANSWERED: &str = "answered";
    /// Closed by the GM without any mail (`gm done`); kept for the GM.
    pub const DONE: &str = "done";
}

/// The kind of the message that stands for a stored mail whose handling failed before
/// it could be classified.
pub const UNHANDLED: &str = "unhandled";

/// A message to record.
#[derive(Debug, Clone, Default)]
pub struct NewMessage<'a> {
    pub inbox_id: i64,
    pub kind: &'a str,
    pub realm: Option<&'a str>,
    pub to_realm: Option<&'a str>,
    pub lang: Option<&'a str>,
    pub from_addr: Option<&'a str>,
    pub subject: &'a str,
    pub body: &'a str,
    pub state: &'a str,
    pub reason: Option<&'a str>,
    pub round: i64,
    pub at: i64,
}

pub async fn insert(conn: &mut Conn, m: &NewMessage<'_>) -> Result<i64, StoreError> {
    let ids = insert_many(conn, std::slice::from_ref(m)).await?;
    Ok(ids[0])
}

/// Record many messages, each of another stored mail, in few statements; returns each
/// one's id in `ms`' order (on SQLite without reading rows back: see
/// [`super::sqlite_ids`]).
pub async fn insert_many(conn: &mut Conn, ms: &[NewMessage<'_>]) -> Result<Vec<i64>, StoreError> {
    let head = "INSERT INTO messages (inbox_id, kind, realm, to_realm, lang, from_addr, \
                subject, body, state, reason, round, created_at, updated_at)";
    let what = "record classified mails";
    if super::Params::of(conn) == super::Params::InOrder {
        let mut ids = Vec::with_capacity(ms.len());
        for chunk in ms.chunks(super::rows_per_statement(13)) {
            let sql = super::insert_sql(conn, chunk.len(), (head, 13, "", ""));
            let q = super::bound(&sql, chunk, &bind);
            let done = q.execute(&mut *conn).await.ctx(what)?.rows_affected();
            let first = super::sqlite_ids(conn, done, chunk.len())
                .await?
                .ok_or_else(|| {
                    StoreError::Corrupt(format!("{done} of {} messages recorded", chunk.len()))
                })?;
            ids.extend((first..).take(chunk.len()));
        }
        return Ok(ids);
    }
    let after = " RETURNING id, inbox_id";
    let rows = super::insert_rows(conn, ms, (head, 13, "", after), what, bind).await?;
    let by_inbox: std::collections::HashMap<i64, i64> = rows
        .iter()
        .map(|r| (r.get::<i64, _>(1), r.get::<i64, _>(0)))
        .collect();
    ms.iter()
        .map(|m| {
            by_inbox.get(&m.inbox_id).copied().ok_or_else(|| {
                StoreError::Corrupt(format!("no message recorded for mail {}", m.inbox_id))
            })
        })
        .collect()
}

/// Bind one row of a messages INSERT (13 values).
fn bind<'q>(q: super::AnyQuery<'q>, m: &'q NewMessage<'_>) -> super::AnyQuery<'q> {
    let q = q
        .bind(m.inbox_id)
        .bind(m.kind)
        .bind(m.realm)
        .bind(m.to_realm)
        .bind(m.lang);
    let q = super::bind_opt_text(q, m.from_addr);
    let q = super::bind_text(q, m.subject);
    let q = super::bind_text(q, m.body).bind(m.state);
    super::bind_opt_text(q, m.reason)
        .bind(m.round)
        .bind(m.at)
        .bind(m.at)
}

/// A message as the GM sees it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Message {
    pub id: i64,
    pub inbox_id: i64,
    pub kind: String,
    pub realm: Option<String>,
    pub to_realm: Option<String>,
    pub lang: Option<String>,
    pub from_addr: Option<String>,
    pub subject: String,
    pub body: String,
    pub state: String,
    pub reason: Option<String>,
    pub round: i64,
    pub created_at: i64,
}

const COLUMNS: &str = "id, inbox_id, kind, realm, to_realm, lang, from_addr, subject, body, \
                       state, reason, round, created_at";

fn from_row(r: &sqlx::any::AnyRow) -> Message {
    Message {
        id: r.get(0),
        inbox_id: r.get(1),
        kind: r.get(2),
        realm: r.get(3),
        to_realm: r.get(4),
        lang: r.get(5),
        from_addr: r.get(6),
        subject: r.get(7),
        body: r.get(8),
        state: r.get(9),
        reason: r.get(10),
        round: r.get(11),
        created_at: r.get(12),
    }
}

pub async fn get(conn: &mut Conn, id: i64) -> Result<Option<Message>, StoreError> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM messages WHERE id = $1"))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await
        .ctx("read a message")?;
    Ok(row.as_ref().map(from_row))
}

/// Messages in the given states, oldest first.
pub async fn in_states(conn: &mut Conn, states: &[&str]) -> Result<Vec<Message>, StoreError> {
    // The state names are our own constants, never user input.
    let list = states
        .iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM messages WHERE state IN ({list}) ORDER BY id"
    ))
    .fetch_all(&mut *conn)
    .await
    .ctx("read the GM queue")?;
    Ok(rows.iter().map(from_row).collect())
}

/// Every message, oldest first (tests, `gm queue --all`).
pub async fn all(conn: &mut Conn) -> Result<Vec<Message>, StoreError> {
    let rows = sqlx::query(&format!("SELECT {COLUMNS} FROM messages ORDER BY id"))
        .fetch_all(&mut *conn)
        .await
        .ctx("read messages")?;
    Ok(rows.iter().map(from_row).collect())
}

/// Counts for metrics: (classified, refused, waiting for the GM).
pub async fn counts(conn: &mut Conn) -> Result<(i64, i64, i64), StoreError> {
    let r = sqlx::query(
        "SELECT COUNT(*), \
         COALESCE(SUM(CASE WHEN state = 'refused' THEN 1 ELSE 0 END), 0), \
         COALESCE(SUM(CASE WHEN state = 'gm_queue' THEN 1 ELSE 0 END), 0) FROM messages",
    )
    .fetch_one(&mut *conn)
    .await
    .ctx("count messages")?;
    Ok((r.get(0), r.get(1), r.get(2)))
}

/// A message waiting for a courier batch, with when it was received and the Message-ID
/// of the mail it came in (for replies).
#[derive(Debug, Clone)]
pub struct QueuedMessage {
    pub message: Message,
    pub received_at: i64,
    pub mail_message_id: Option<String>,
}

/// Messages waiting for a courier batch, in order of receipt.
pub async fn queued(store: &Store, conn: &mut Conn) -> Result<Vec<QueuedMessage>, StoreError> {
    let cols = COLUMNS
        .split(", ")
        .map(|c| format!("m.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "SELECT {cols}, i.received_at, i.message_id FROM messages m JOIN inbox i ON i.id = m.inbox_id \
         WHERE m.state = 'queued' ORDER BY i.received_at, m.id{}",
        store.skip_locked_of("m")
    );
    let rows = sqlx::query(&sql)
        .fetch_all(&mut *conn)
        .await
        .ctx("claim queued messages")?;
    Ok(rows
        .iter()
        .map(|r| QueuedMessage {
            message: from_row(r),
            received_at: r.get(13),
            mail_message_id: r.get(14),
        })
        .collect())
}

/// Move many messages to `state` (keeping their reasons), stamping the time.
pub async fn set_state_many(
    conn: &mut Conn,
    ids: &[i64],
    state: &str,
    at: i64,
) -> Result<(), StoreError> {
    for chunk in ids.chunks(super::rows_per_statement(1)) {
        let p = super::Params::of(conn);
        let sql = format!(
            "UPDATE messages SET state = {}, updated_at = {} WHERE id IN ({})",
            p.list(1, 1),
            p.list(2, 1),
            p.list(3, chunk.len())
        );
        let mut q = sqlx::query(&sql).bind(state).bind(at);
        for id in chunk {
            q = q.bind(*id);
        }
        q.execute(&mut *conn).await.ctx("change messages' state")?;
    }
    Ok(())
}

/// Move a message to `state` (with a reason shown to the GM), stamping the time.
pub async fn set_state(
    conn: &mut Conn,
    id: i64,
    state: &str,
    reason: Option<&str>,
    at: i64,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE messages SET state = $1, reason = COALESCE($2, reason), updated_at = $3 WHERE id = $4")
        .bind(state)
        .bind(reason.map(super::db_text))
        .bind(at)
        .bind(id)
        .execute(&mut *conn)
        .await
        .ctx("change a message's state")?;
    Ok(())
}

/// Put a parked message back in `state` and forget its error.
pub async fn unpark(conn: &mut Conn, id: i64, state: &str, at: i64) -> Result<(), StoreError> {
    sqlx::query("UPDATE messages SET state = $1, reason = NULL, updated_at = $2 WHERE id = $3")
        .bind(state)
        .bind(at)
        .bind(id)
        .execute(&mut *conn)
        .await
        .ctx("take a message out of the parked ones")?;
    Ok(())
}

/// Remove the stand-in message of an unhandled mail (`gm retry` handles the mail again,
/// which records it anew).
pub async fn delete(conn: &mut Conn, id: i64) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM messages WHERE id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await
        .ctx("remove a parked message")?;
    Ok(())
}

/// Does any message wait for a courier batch?
pub async fn any_queued(conn: &mut Conn) -> Result<bool, StoreError> {
    let r = sqlx::query("SELECT 1 FROM messages WHERE state = 'queued' LIMIT 1")
        .fetch_optional(&mut *conn)
        .await
        .ctx("look for queued messages")?;
    Ok(r.is_some())
}

/// How many units are parked.
pub async fn parked_count(conn: &mut Conn) -> Result<i64, StoreError> {
    let r = sqlx::query("SELECT COUNT(*) FROM messages WHERE state = 'parked'")
        .fetch_one(&mut *conn)
        .await
        .ctx("count parked messages")?;
    Ok(r.get(0))
}

/// The GM corrects a message's text.
pub async fn set_body(conn: &mut Conn, id: i64, body: &str, at: i64) -> Result<(), StoreError> {
    sqlx::query("UPDATE messages SET body = $1, updated_at = $2 WHERE id = $3")
        .bind(super::db_text(body))
        .bind(at)
        .bind(id)
        .execute(&mut *conn)
        .await
        .ctx("edit a message")?;
    Ok(())
}
