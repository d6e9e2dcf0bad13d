//! The outbox: every mail pbemd sends is a row first, rendered, so a retry sends the
//! very same bytes (and Message-ID) and a crash loses nothing. A plain mail (no files)
//! is kept as its text and the header fields its row's columns do not hold (`head`:
//! its sender's name, its `Date:`, what it answers), and formatted when it is read
//! ([`mail_of`]) into the bytes it would have been queued as; other mail, and every
//! mail queued before that, is kept formatted (`raw`).

use sqlx::Row;

use super::{Conn, Ctx, Store, StoreError};
use crate::mail::compose;

/// The columns [`mail_of`] reads a queued mail's bytes from, in this order.
pub(crate) const MAIL: &str = "raw, head, body, from_addr, to_addrs, subject, message_id";

/// The bytes of the queued mail whose [`MAIL`] columns start at column `at` of `r`:
/// its `raw`, or for a mail kept as its text, the text and head formatted as they
/// were when it was queued.
pub(crate) fn mail_of(r: &sqlx::any::AnyRow, at: usize) -> Result<Vec<u8>, StoreError> {
    let Some(head) = r.get::<Option<String>, _>(at + 1) else {
        return Ok(r.get(at));
    };
    let corrupt = |what: String| StoreError::Corrupt(format!("an outbox row's {what}"));
    let head: compose::Head =
        serde_json::from_str(&head).map_err(|e| corrupt(format!("head: {e}")))?;
    let body = String::from_utf8(r.get::<Option<Vec<u8>>, _>(at + 2).unwrap_or_default())
        .map_err(|e| corrupt(format!("text: {e}")))?;
    let fields = compose::Fields {
        head: &head,
        from_addr: &r.get::<String, _>(at + 3),
        to: &recipients(&r.get::<String, _>(at + 4)),
        subject: &r.get::<String, _>(at + 5),
        message_id: &r.get::<String, _>(at + 6),
        body: &body,
    };
    compose::format(&fields, &[]).map_err(|e| corrupt(format!("mail: {e}")))
}

/// A row's recipients (`to_addrs`, joined by `, `).
fn recipients(to_addrs: &str) -> Vec<String> {
    to_addrs
        .split(", ")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// A rendered mail to queue.
#[derive(Debug, Clone)]
pub struct NewOutgoing<'a> {
    /// Names the reason for the mail (`deliver:17`, `refusal:4`, `result:3:Afani` …):
    /// queueing the same key twice queues one mail.
    pub dedup_key: &'a str,
    pub message_id: &'a str,
    pub kind: &'a str,
    pub to_addrs: &'a [String],
    pub from_addr: &'a str,
    pub subject: &'a str,
    /// The formatted mail; empty when it is `kept` as its text.
    pub raw: &'a [u8],
    /// The mail as its head and text, formatted when it is read.
    pub kept: Option<Kept<'a>>,
    pub at: i64,
}

/// A plain mail kept as its text: `head` is its [`compose::Head`] as JSON.
#[derive(Debug, Clone, Copy)]
pub struct Kept<'a> {
    pub head: &'a str,
    pub body: &'a str,
}

/// Queue a mail; returns its row id (the existing one if the key was queued before).
pub async fn enqueue(conn: &mut Conn, m: &NewOutgoing<'_>) -> Result<i64, StoreError> {
    let ids = enqueue_many(conn, std::slice::from_ref(m)).await?;
    Ok(ids[0])
}

const INSERT: &str = "INSERT INTO outbox (dedup_key, message_id, kind, to_addrs, from_addr, \
                      subject, raw, head, body, created_at, next_attempt_at, attempts, state)";

/// Bind one row of [`INSERT`] (its 11 bound values; `attempts` and `state` follow).
fn bind_row<'q>(q: super::AnyQuery<'q>, m: &'q NewOutgoing<'_>) -> super::AnyQuery<'q> {
    let q = q.bind(m.dedup_key).bind(m.message_id).bind(m.kind);
    // One recipient (the common case) is the joined list itself, bound without a copy.
    let q = match m.to_addrs {
        [one] => q.bind(one.as_str()),
        all => q.bind(all.join(", ")),
    };
    super::bind_text(q.bind(m.from_addr), m.subject)
        .bind(m.raw)
        .bind(m.kept.map(|k| k.head))
        .bind(m.kept.map(|k| k.body.as_bytes()))
        .bind(m.at)
        .bind(m.at)
}

/// Queue many mails in few statements, without reading their row ids back (a courier
/// batch queues a thousand and needs none); a mail whose key was queued before is left
/// as it is.
pub async fn queue_many(conn: &mut Conn, ms: &[NewOutgoing<'_>]) -> Result<(), StoreError> {
    let after = " ON CONFLICT (dedup_key) DO NOTHING";
    let shape = (INSERT, 11, ", 0, 'pending'", after);
    super::insert_rows(conn, ms, shape, "queue outgoing mails", bind_row).await?;
    Ok(())
}

/// Queue many mails in few statements; returns each one's row id in `ms`' order (the
/// existing row's when its key was queued before).
pub async fn enqueue_many(conn: &mut Conn, ms: &[NewOutgoing<'_>]) -> Result<Vec<i64>, StoreError> {
    let shape = (INSERT, 11, ", 0, 'pending'");
    let key = |m: &NewOutgoing<'_>| m.dedup_key.to_string();
    let what = "queue outgoing mails";
    let mut ids = super::insert_new_by_key(conn, "outbox", ms, shape, what, bind_row, key).await?;
    let missing: Vec<&str> = ms
        .iter()
        .map(|m| m.dedup_key)
        .filter(|k| !ids.contains_key(*k))
        .collect();
    for (k, id) in ids_of(conn, &missing).await? {
        ids.insert(k, id);
    }
    ms.iter()
        .map(|m| {
            ids.get(m.dedup_key)
                .copied()
                .ok_or_else(|| StoreError::Corrupt(format!("no outbox row for {}", m.dedup_key)))
        })
        .collect()
}

/// The row ids of the queued mails with these keys (those that exist).
pub async fn ids_of(conn: &mut Conn, keys: &[&str]) -> Result<Vec<(String, i64)>, StoreError> {
    let mut found = Vec::new();
    for chunk in keys.chunks(super::rows_per_statement(1)) {
        let sql = format!(
            "SELECT dedup_key, id FROM outbox WHERE dedup_key IN ({})",
            super::Params::of(conn).list(1, chunk.len())
        );
        let mut q = sqlx::query(&sql);
        for k in chunk {
            q = q.bind(*k);
        }
        let rows = q.fetch_all(&mut *conn).await.ctx("find queued mails")?;
        found.extend(rows.iter().map(|r| (r.get(0), r.get(1))));
    }
    Ok(found)
}

/// A queued mail ready to send.
#[derive(Debug, Clone)]
pub struct Pending {
    pub id: i64,
    pub message_id: String,
    pub kind: String,
    pub to_addrs: Vec<String>,
    pub from_addr: String,
    pub raw: Vec<u8>,
    pub attempts: i64,
}

/// Claim up to `limit` mails whose next attempt is due, oldest first, and lease them
/// until `lease_until`: the caller commits, sends without holding a transaction, then
/// marks each row sent or failed. A sender that dies mid-send leaves its rows to be
/// retried when the lease runs out.
pub async fn claim_due(
    store: &Store,
    conn: &mut Conn,
    now: i64,
    limit: i64,
    lease_until: i64,
) -> Result<Vec<Pending>, StoreError> {
    let sql = format!(
        "SELECT id, message_id, kind, to_addrs, from_addr, attempts, {MAIL} FROM outbox \
         WHERE state = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2{}",
        store.skip_locked()
    );
    let rows = sqlx::query(&sql)
        .bind(now)
        .bind(limit)
        .fetch_all(&mut *conn)
        .await
        .ctx("claim due outgoing mail")?;
    for r in &rows {
        sqlx::query("UPDATE outbox SET next_attempt_at = $1 WHERE id = $2")
            .bind(lease_until)
            .bind(r.get::<i64, _>(0))
            .execute(&mut *conn)
            .await
            .ctx("lease outgoing mail")?;
    }
    rows.iter()
        .map(|r| {
            Ok(Pending {
                id: r.get(0),
                message_id: r.get(1),
                kind: r.get(2),
                to_addrs: recipients(&r.get::<String, _>(3)),
                from_addr: r.get(4),
                attempts: r.get(5),
                raw: mail_of(r, 6)?,
            })
        })
        .collect()
}

pub async fn mark_sent(conn: &mut Conn, id: i64, at: i64) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE outbox SET state = 'sent', sent_at = $1, attempts = attempts + 1, last_error = NULL WHERE id = $2",
    )
    .bind(at)
    .bind(id)
    .execute(&mut *conn)
    .await
    .ctx("mark a mail sent")?;
    Ok(())
}

/// Record a failed attempt: retry at `next_at`, or give up (`failed`) when `give_up`.
pub async fn mark_attempt_failed(
    conn: &mut Conn,
    id: i64,
    error: &str,
    next_at: i64,
    give_up: bool,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE outbox SET attempts = attempts + 1, last_error = $1, next_attempt_at = $2, \
         state = $3 WHERE id = $4",
    )
    .bind(error)
    .bind(next_at)
    .bind(if give_up { "failed" } else { "pending" })
    .bind(id)
    .execute(&mut *conn)
    .await
    .ctx("record a failed send")?;
    Ok(())
}

/// The next instant a pending mail is due (for the sender loop's sleep).
pub async fn next_due_at(conn: &mut Conn) -> Result<Option<i64>, StoreError> {
    let r = sqlx::query("SELECT MIN(next_attempt_at) FROM outbox WHERE state = 'pending'")
        .fetch_one(&mut *conn)
        .await
        .ctx("find the next outgoing mail")?;
    Ok(r.get::<Option<i64>, _>(0))
}

/// A queued mail as the GM sees it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct OutRow {
    pub id: i64,
    pub kind: String,
    pub to_addrs: String,
    pub subject: String,
    pub state: String,
    pub attempts: i64,
    pub last_error: Option<String>,
    pub created_at: i64,
}

impl OutRow {
    /// Whether the mail is not yet delivered after trying: given up (`failed`), or
    /// waiting for its next try (`pending` after a failed one). The GM queue lists these
    /// and `gm retry-mail` sends them again.
    pub fn undelivered(&self) -> bool {
        self.given_up() || (self.state == "pending" && self.attempts > 0)
    }

    /// Whether the sender gave the mail up (`failed`): only such a mail is sent again
    /// by `gm retry-mail` (see [`retry_now`]).
    pub fn given_up(&self) -> bool {
        self.state == "failed"
    }
}

const OUT_ROW: &str =
    "SELECT id, kind, to_addrs, subject, state, attempts, last_error, created_at FROM outbox";

fn out_row(r: &sqlx::any::AnyRow) -> OutRow {
    OutRow {
        id: r.get(0),
        kind: r.get(1),
        to_addrs: r.get(2),
        subject: r.get(3),
        state: r.get(4),
        attempts: r.get(5),
        last_error: r.get(6),
        created_at: r.get(7),
    }
}

/// Mails that could not be sent (shown in the GM queue): [`OutRow::undelivered`].
pub async fn failed_or_retrying(conn: &mut Conn) -> Result<Vec<OutRow>, StoreError> {
    let sql = format!(
        "{OUT_ROW} WHERE state = 'failed' OR (state = 'pending' AND attempts > 0) ORDER BY id"
    );
    let rows = sqlx::query(&sql)
        .fetch_all(&mut *conn)
        .await
        .ctx("read failed outgoing mail")?;
    Ok(rows.iter().map(out_row).collect())
}

/// The mails whose key begins with `prefix` (`opening:1:` for round 1's opening
/// forms), oldest first.
pub async fn with_key_prefix(conn: &mut Conn, prefix: &str) -> Result<Vec<OutRow>, StoreError> {
    let sql = format!(
        "{OUT_ROW} WHERE substr(dedup_key, 1, {}) = $1 ORDER BY id",
        prefix.chars().count()
    );
    let rows = sqlx::query(&sql)
        .bind(prefix)
        .fetch_all(&mut *conn)
        .await
        .ctx("read queued mail by its key")?;
    Ok(rows.iter().map(out_row).collect())
}

/// One queued mail as the GM sees it.
pub async fn get(conn: &mut Conn, id: i64) -> Result<Option<OutRow>, StoreError> {
    let sql = format!("{OUT_ROW} WHERE id = $1");
    let row = sqlx::query(&sql)
        .bind(id)
        .fetch_optional(&mut *conn)
        .await
        .ctx("read an outgoing mail")?;
    Ok(row.as_ref().map(out_row))
}

/// Make a mail that was given up (`failed`) due at `at` with a fresh count of attempts
/// (its last error is kept until the next attempt). Returns whether it was given up: a
/// mail sent, held, never tried or waiting for its next try is left as it is. A mail
/// waiting for its next try may be in a sender's hands at this very moment (a lease
/// looks like a wait), so making it due again could send it twice; it is tried again
/// by itself.
pub async fn retry_now(conn: &mut Conn, id: i64, at: i64) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = $1 \
         WHERE id = $2 AND state = 'failed'",
    )
    .bind(at)
    .bind(id)
    .execute(&mut *conn)
    .await
    .ctx("make a failed mail due again")?;
    Ok(done.rows_affected() == 1)
}

/// The dedup keys of the mails of `kind` whose Message-ID is one of `ids` (given
/// without angle brackets). Read by the GM's reply to a notice, which is rare: the
/// outbox has no index on Message-IDs, and the kind narrows the scan.
pub async fn keys_of_message_ids(
    conn: &mut Conn,
    kind: &str,
    ids: &[String],
) -> Result<Vec<String>, StoreError> {
    let mut found = Vec::new();
    for chunk in ids.chunks(super::rows_per_statement(1).saturating_sub(1).max(1)) {
        let p = super::Params::of(conn);
        let sql = format!(
            "SELECT dedup_key FROM outbox WHERE kind = {} AND message_id IN ({}) ORDER BY id",
            p.list(1, 1),
            p.list(2, chunk.len())
        );
        let mut q = sqlx::query(&sql).bind(kind);
        for id in chunk {
            q = q.bind(format!("<{}>", id.trim_matches(['<', '>'])));
        }
        let rows = q
            .fetch_all(&mut *conn)
            .await
            .ctx("find mail by Message-ID")?;
        found.extend(rows.iter().map(|r| r.get::<String, _>(0)));
    }
    Ok(found)
}

/// Make every mail waiting for its next try (`pending` after a failed one) due at
/// `at`, except one whose wait ends before `leased_until`: a sender's lease looks like
/// a wait and never reaches past it, so such a mail may be in a sender's hands now
/// (and is tried within the lease's time anyway). Returns the ids made due.
pub async fn waiting_due_now(
    conn: &mut Conn,
    at: i64,
    leased_until: i64,
) -> Result<Vec<i64>, StoreError> {
    let rows = sqlx::query(
        "SELECT id FROM outbox WHERE state = 'pending' AND attempts > 0 \
         AND next_attempt_at > $1 ORDER BY id",
    )
    .bind(leased_until)
    .fetch_all(&mut *conn)
    .await
    .ctx("find outgoing mail waiting for its next try")?;
    let ids: Vec<i64> = rows.iter().map(|r| r.get::<i64, _>(0)).collect();
    for id in &ids {
        sqlx::query(
            "UPDATE outbox SET next_attempt_at = $1 WHERE id = $2 AND state = 'pending' \
             AND next_attempt_at > $3",
        )
        .bind(at)
        .bind(*id)
        .bind(leased_until)
        .execute(&mut *conn)
        .await
        .ctx("make a waiting mail due")?;
    }
    Ok(ids)
}

/// Counts for metrics: (sent, failed, pending).
pub async fn counts(conn: &mut Conn) -> Result<(i64, i64, i64), StoreError> {
    let r = sqlx::query(
        "SELECT COALESCE(SUM(CASE WHEN state = 'sent' THEN 1 ELSE 0 END), 0), \
         COALESCE(SUM(CASE WHEN state = 'failed' THEN 1 ELSE 0 END), 0), \
         COALESCE(SUM(CASE WHEN state = 'pending' THEN 1 ELSE 0 END), 0) FROM outbox",
    )
    .fetch_one(&mut *conn)
    .await
    .ctx("count outgoing mail")?;
    Ok((r.get(0), r.get(1), r.get(2)))
}

/// Every queued mail of a kind, oldest first (tests and the demo's summary).
pub async fn raw_of_kind(
    conn: &mut Conn,
    kind: &str,
) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
    let sql = format!("SELECT to_addrs, {MAIL} FROM outbox WHERE kind = $1 ORDER BY id");
    let rows = sqlx::query(&sql)
        .bind(kind)
        .fetch_all(&mut *conn)
        .await
        .ctx("read queued mail")?;
    rows.iter()
        .map(|r| Ok((r.get(0), mail_of(r, 1)?)))
        .collect()
}

/// Every queued mail, oldest first: (kind, subject, bytes) (tests).
pub async fn all_mail(conn: &mut Conn) -> Result<Vec<(String, String, Vec<u8>)>, StoreError> {
    let sql = format!("SELECT kind, subject, {MAIL} FROM outbox ORDER BY id");
    let rows = sqlx::query(&sql)
        .fetch_all(&mut *conn)
        .await
        .ctx("read queued mail")?;
    rows.iter()
        .map(|r| Ok((r.get(0), r.get(1), mail_of(r, 2)?)))
        .collect()
}
