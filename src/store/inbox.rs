//! The inbox: raw bytes of every mail received, committed before anything acts on it,
//! and the IMAP cursor that says how far a mailbox has been read.

use sqlx::Row;

use super::{Backend, Conn, Ctx, Store, StoreError};

/// Where a mail came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Maildir,
    Imap,
    Webhook,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Maildir => "maildir",
            Source::Imap => "imap",
            Source::Webhook => "webhook",
        }
    }
}

/// A mail as it arrived.
#[derive(Debug, Clone)]
pub struct NewMail<'a> {
    /// `mid:<Message-ID>`, or `sha256:<hex>` when the mail has none.
    pub dedup_key: &'a str,
    pub message_id: Option<&'a str>,
    pub sha256: &'a str,
    pub source: Source,
    pub raw: &'a [u8],
    /// The mail's size as it arrived; larger than `raw` when `raw` is truncated.
    pub size: usize,
    pub received_at: i64,
    pub imap: Option<(u32, u32)>,
}

impl NewMail<'_> {
    /// True when `raw` holds only the start of a larger mail.
    pub fn truncated(&self) -> bool {
        self.size > self.raw.len()
    }
}

/// What storing a mail did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    New(i64),
    /// The same mail (same Message-ID, else same content) was stored before.
    Duplicate,
}

/// Store a mail unless it is a duplicate.
pub async fn insert(conn: &mut Conn, m: &NewMail<'_>) -> Result<Stored, StoreError> {
    let stored = insert_many(conn, std::slice::from_ref(m)).await?;
    Ok(stored[0])
}

/// Store many mails in few statements (one per [`super::rows_per_statement`] rows),
/// each unless it is a duplicate; the answers are in `mails`' order. Of two mails with
/// the same key in one call the first is stored and the second is the duplicate.
pub async fn insert_many(
    conn: &mut Conn,
    mails: &[NewMail<'_>],
) -> Result<Vec<Stored>, StoreError> {
    insert_many_as(conn, mails, None).await
}

/// [`insert_many`], the mails written as handled at `done_at` (ms) when it is given:
/// for a batch handled in the transaction that stores it, so its rows are not
/// rewritten by a `done` mark.
pub async fn insert_many_as(
    conn: &mut Conn,
    mails: &[NewMail<'_>],
    done_at: Option<i64>,
) -> Result<Vec<Stored>, StoreError> {
    let state = match done_at {
        Some(_) => ", 'done'",
        None => ", 'new'",
    };
    insert_in_state(conn, mails, done_at, state).await
}

/// [`insert_many`] of mail received before the game began (in the inbox at `pbemd
/// init`): stored as `before_game`, never claimed; `gm retry` makes one `new`.
pub async fn insert_before_game(
    conn: &mut Conn,
    mails: &[NewMail<'_>],
) -> Result<Vec<Stored>, StoreError> {
    insert_in_state(conn, mails, None, ", 'before_game'").await
}

async fn insert_in_state(
    conn: &mut Conn,
    mails: &[NewMail<'_>],
    done_at: Option<i64>,
    state: &'static str,
) -> Result<Vec<Stored>, StoreError> {
    let head = "INSERT INTO inbox (dedup_key, message_id, sha256, source, raw, size, \
                received_at, imap_uidvalidity, imap_uid, truncated, processed_at, state)";
    let mut ids = super::insert_new_by_key(
        conn,
        "inbox",
        mails,
        (head, 11, state),
        "store received mails",
        |q, m| {
            let q = super::bind_text(q, m.dedup_key);
            super::bind_opt_text(q, m.message_id)
                .bind(m.sha256)
                .bind(m.source.as_str())
                .bind(m.raw)
                .bind(m.size.max(m.raw.len()) as i64)
                .bind(m.received_at)
                .bind(m.imap.map(|(v, _)| v as i64))
                .bind(m.imap.map(|(_, u)| u as i64))
                .bind(i64::from(m.truncated()))
                .bind(done_at)
        },
        |m| super::db_text(m.dedup_key),
    )
    .await?;
    Ok(mails
        .iter()
        .map(|m| match ids.remove(&super::db_text(m.dedup_key)) {
            Some(id) => Stored::New(id),
            None => Stored::Duplicate,
        })
        .collect())
}

/// A stored mail waiting to be classified.
#[derive(Debug, Clone)]
pub struct Waiting {
    pub id: i64,
    pub raw: Vec<u8>,
    pub received_at: i64,
    pub message_id: Option<String>,
    /// The size the mail arrived with (larger than `raw` when it was truncated).
    pub size: usize,
}

/// Claim the unprocessed mail received first inside the caller's transaction (parked
/// mail is not claimed: it waits for `gm retry`).
pub async fn claim_next(store: &Store, conn: &mut Conn) -> Result<Option<Waiting>, StoreError> {
    claim_next_before(store, conn, None).await
}

/// `claim_next` for a mail received before `before` (ms) only, when that is given.
/// On PostgreSQL a mail another replica has claimed is
/// skipped (`FOR UPDATE SKIP LOCKED`), and the row stays locked until the caller's
/// transaction ends, so each mail is handled by one replica.
pub async fn claim_next_before(
    store: &Store,
    conn: &mut Conn,
    before: Option<i64>,
) -> Result<Option<Waiting>, StoreError> {
    let before = before.unwrap_or(i64::MAX);
    let sql = match store.backend() {
        Backend::Postgres => format!(
            "SELECT id, raw, received_at, message_id, size FROM inbox WHERE state = 'new' \
             AND received_at < $1 ORDER BY received_at, id LIMIT 1{}",
            store.skip_locked()
        ),
        // A write first, so the transaction holds SQLite's write lock from the start
        // (waiting for it under busy_timeout) instead of failing to upgrade a read
        // snapshot that the intake's writes moved on.
        Backend::Sqlite => "UPDATE inbox SET state = 'new' WHERE id = (SELECT id FROM inbox \
             WHERE state = 'new' AND received_at < $1 ORDER BY received_at, id LIMIT 1) \
             RETURNING id, raw, received_at, message_id, size"
            .to_string(),
    };
    let row = sqlx::query(&sql)
        .bind(before)
        .fetch_optional(&mut *conn)
        .await
        .ctx("claim a received mail")?;
    Ok(row.map(|r| Waiting {
        id: r.get(0),
        raw: r.get(1),
        received_at: r.get(2),
        message_id: r.get(3),
        size: usize::try_from(r.get::<i64, _>(4)).unwrap_or(usize::MAX),
    }))
}

/// The most bytes of stored mail one batch claims (see [`claim_batch_before`]).
pub const CLAIM_BYTES: u64 = 64 << 20;

/// Claim up to `limit` unprocessed mails received before `before` (ms), in order of
/// receipt, inside the caller's transaction, which must come from
/// [`Store::begin_write`]: on SQLite that transaction already holds the write lock, so
/// a plain read claims; on PostgreSQL rows another replica holds are skipped and these
/// stay locked until the transaction ends (see [`claim_next_before`]). At most
/// [`CLAIM_BYTES`] of stored mail, and always the first mail.
pub async fn claim_batch_before(
    store: &Store,
    conn: &mut Conn,
    before: Option<i64>,
    limit: usize,
) -> Result<Vec<Waiting>, StoreError> {
    let before = before.unwrap_or(i64::MAX);
    // At most `CLAIM_BYTES` of stored mail (at least one mail): a run of large mails is
    // handled over several batches, never one that memory cannot hold.
    let sizes = sqlx::query(
        "SELECT CAST(length(raw) AS BIGINT) FROM inbox WHERE state = 'new' AND received_at < $1 \
         ORDER BY received_at, id LIMIT $2",
    )
    .bind(before)
    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
    .fetch_all(&mut *conn)
    .await
    .ctx("size received mails")?;
    let mut total: u64 = 0;
    let fit = sizes
        .iter()
        .take_while(|r| {
            let n = u64::try_from(r.get::<i64, _>(0)).unwrap_or(0);
            total = total.saturating_add(n);
            total <= CLAIM_BYTES
        })
        .count();
    let limit = fit.max(1).min(limit);
    // No write to take SQLite's lock (as `claim_next_before` must): rewriting every
    // claimed row cost more than the rest of storing it.
    let sql = format!(
        "SELECT id, raw, received_at, message_id, size FROM inbox WHERE state = 'new' \
         AND received_at < $1 ORDER BY received_at, id LIMIT $2{}",
        store.skip_locked()
    );
    let rows = sqlx::query(&sql)
        .bind(before)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&mut *conn)
        .await
        .ctx("claim received mails")?;
    let waiting: Vec<Waiting> = rows
        .iter()
        .map(|r| Waiting {
            id: r.get(0),
            raw: r.get(1),
            received_at: r.get(2),
            message_id: r.get(3),
            size: usize::try_from(r.get::<i64, _>(4)).unwrap_or(usize::MAX),
        })
        .collect();
    Ok(waiting)
}

/// Mark many mails handled at once (in the transaction that handled them).
pub async fn mark_done_many(conn: &mut Conn, ids: &[i64], at: i64) -> Result<(), StoreError> {
    for chunk in ids.chunks(super::rows_per_statement(1)) {
        let p = super::Params::of(conn);
        let sql = format!(
            "UPDATE inbox SET state = 'done', processed_at = {} WHERE id IN ({})",
            p.list(1, 1),
            p.list(2, chunk.len())
        );
        let mut q = sqlx::query(&sql).bind(at);
        for id in chunk {
            q = q.bind(*id);
        }
        q.execute(&mut *conn).await.ctx("mark mails handled")?;
    }
    Ok(())
}

/// Mark a mail handled (in the same transaction as what handling it produced).
pub async fn mark_done(conn: &mut Conn, id: i64, at: i64) -> Result<(), StoreError> {
    sqlx::query("UPDATE inbox SET state = 'done', processed_at = $1 WHERE id = $2")
        .bind(at)
        .bind(id)
        .execute(&mut *conn)
        .await
        .ctx("mark a mail handled")?;
    Ok(())
}

/// How many stored mails wait to be handled (parked ones not counted).
pub async fn waiting_count(conn: &mut Conn) -> Result<i64, StoreError> {
    let row = sqlx::query("SELECT COUNT(*) FROM inbox WHERE state = 'new'")
        .fetch_one(&mut *conn)
        .await
        .ctx("count the waiting mail")?;
    Ok(row.get::<i64, _>(0))
}

/// When the unprocessed mail received first was received (ms), if any is waiting.
pub async fn next_waiting_at(conn: &mut Conn) -> Result<Option<i64>, StoreError> {
    let row = sqlx::query("SELECT MIN(received_at) FROM inbox WHERE state = 'new'")
        .fetch_one(&mut *conn)
        .await
        .ctx("find the next waiting mail")?;
    Ok(row.get::<Option<i64>, _>(0))
}

/// Set a stored mail's state: `parked` (its handling failed; it waits for the GM),
/// `new` (`gm retry`: handle it again) or `done` (`gm reject`).
pub async fn set_state(conn: &mut Conn, id: i64, state: &str, at: i64) -> Result<(), StoreError> {
    sqlx::query("UPDATE inbox SET state = $1, processed_at = $2 WHERE id = $3")
        .bind(state)
        .bind(at)
        .bind(id)
        .execute(&mut *conn)
        .await
        .ctx("change a stored mail's state")?;
    Ok(())
}

/// Play a mail from before the game (`gm retry`): it waits to be handled as received
/// at `at` (ms), the game's latest time.
pub async fn play_before_game(conn: &mut Conn, id: i64, at: i64) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE inbox SET state = 'new', received_at = $1, processed_at = NULL \
         WHERE id = $2 AND state = 'before_game'",
    )
    .bind(at)
    .bind(id)
    .execute(&mut *conn)
    .await
    .ctx("play a mail from before the game")?;
    Ok(())
}

/// Whether a stored mail was truncated at intake (its original left in the mailbox).
pub async fn truncated(conn: &mut Conn, id: i64) -> Result<Option<bool>, StoreError> {
    let row = sqlx::query("SELECT truncated FROM inbox WHERE id = $1")
        .bind(id)
        .fetch_optional(&mut *conn)
        .await
        .ctx("read whether a stored mail was truncated")?;
    Ok(row.map(|r| r.get::<i64, _>(0) != 0))
}

/// The raw bytes of one stored mail.
pub async fn raw(conn: &mut Conn, id: i64) -> Result<Option<Vec<u8>>, StoreError> {
    let row = sqlx::query("SELECT raw FROM inbox WHERE id = $1")
        .bind(id)
        .fetch_optional(&mut *conn)
        .await
        .ctx("read a stored mail")?;
    Ok(row.map(|r| r.get(0)))
}

/// The Message-ID of a stored mail (for replies).
pub async fn message_id(conn: &mut Conn, id: i64) -> Result<Option<String>, StoreError> {
    let row = sqlx::query("SELECT message_id FROM inbox WHERE id = $1")
        .bind(id)
        .fetch_optional(&mut *conn)
        .await
        .ctx("read a stored mail's Message-ID")?;
    Ok(row.and_then(|r| r.get::<Option<String>, _>(0)))
}

/// Counts for metrics: (all stored, still waiting).
pub async fn counts(conn: &mut Conn) -> Result<(i64, i64), StoreError> {
    let r = sqlx::query(
        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN state = 'new' THEN 1 ELSE 0 END), 0) FROM inbox",
    )
    .fetch_one(&mut *conn)
    .await
    .ctx("count received mail")?;
    Ok((r.get(0), r.get(1)))
}

/// How far an IMAP mailbox has been read: (UIDVALIDITY, last stored UID).
pub async fn imap_cursor(conn: &mut Conn, mailbox: &str) -> Result<Option<(u32, u32)>, StoreError> {
    let row = sqlx::query("SELECT uid_validity, last_uid FROM imap_cursor WHERE mailbox = $1")
        .bind(mailbox)
        .fetch_optional(&mut *conn)
        .await
        .ctx("read the IMAP cursor")?;
    Ok(row.map(|r| (r.get::<i64, _>(0) as u32, r.get::<i64, _>(1) as u32)))
}

/// Move the IMAP cursor (in the transaction that stored the mails up to it). It only
/// moves forward within one UIDVALIDITY: a replica that read a mailbox more slowly than
/// another never moves it back.
pub async fn set_imap_cursor(
    conn: &mut Conn,
    mailbox: &str,
    uid_validity: u32,
    last_uid: u32,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO imap_cursor (mailbox, uid_validity, last_uid) VALUES ($1, $2, $3) \
         ON CONFLICT (mailbox) DO UPDATE SET uid_validity = excluded.uid_validity, \
         last_uid = CASE WHEN imap_cursor.uid_validity = excluded.uid_validity \
         AND imap_cursor.last_uid > excluded.last_uid \
         THEN imap_cursor.last_uid ELSE excluded.last_uid END",
    )
    .bind(mailbox)
    .bind(uid_validity as i64)
    .bind(last_uid as i64)
    .execute(&mut *conn)
    .await
    .ctx("move the IMAP cursor")?;
    Ok(())
}
