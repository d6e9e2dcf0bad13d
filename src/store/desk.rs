//! What the GM's desk reads and counts: the audit log a page at a time, a message's
//! own audit trail, and failed logins (in `rate_counts`, so every replica shares them).

use sqlx::Row;

use super::events::Event;
use super::{Conn, Ctx, StoreError};

/// Which audit entries a page shows; `None` is "any".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    pub realm: Option<String>,
    pub round: Option<i64>,
    pub kind: Option<String>,
}

const EVENT_COLUMNS: &str = "id, at, round, kind, realm, ref_id, detail";

fn event(r: &sqlx::any::AnyRow) -> Event {
    Event {
        id: r.get(0),
        at: r.get(1),
        round: r.get(2),
        kind: r.get(3),
        realm: r.get(4),
        ref_id: r.get(5),
        detail: r.get(6),
    }
}

/// At most `limit` entries matching `f`, newest first, older than entry `before`.
pub async fn audit_page(
    conn: &mut Conn,
    f: &AuditFilter,
    before: Option<i64>,
    limit: i64,
) -> Result<Vec<Event>, StoreError> {
    let sql = format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE ($1 IS NULL OR realm = $1) \
         AND ($2 IS NULL OR round = $2) AND ($3 IS NULL OR kind = $3) \
         AND ($4 IS NULL OR id < $4) ORDER BY id DESC LIMIT $5"
    );
    let rows = sqlx::query(&sql)
        .bind(f.realm.as_deref())
        .bind(f.round)
        .bind(f.kind.as_deref())
        .bind(before)
        .bind(limit)
        .fetch_all(&mut *conn)
        .await
        .ctx("read a page of the audit log")?;
    Ok(rows.iter().map(event).collect())
}

/// Every kind of entry the audit log holds, for the page's filter.
pub async fn audit_kinds(conn: &mut Conn) -> Result<Vec<String>, StoreError> {
    let rows = sqlx::query("SELECT DISTINCT kind FROM events ORDER BY kind")
        .fetch_all(&mut *conn)
        .await
        .ctx("read the audit log's kinds")?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// The audit entries whose reference is message `id` (the kinds that refer to a
/// message, not a state version or a resolution), oldest first.
pub async fn message_events(conn: &mut Conn, id: i64) -> Result<Vec<Event>, StoreError> {
    let sql = format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE ref_id = $1 AND kind IN \
         ('gm_queued', 'gm_approved', 'gm_rejected', 'gm_retried', 'gm_held', 'gm_edited', \
          'courier', 'courier_refused', 'courier_held', 'mail_refused', 'unit_parked', \
          'form_received', 'form_stale', 'form_unreadable', 'absence_held', \
          'absence_refused') ORDER BY id LIMIT 500"
    );
    let rows = sqlx::query(&sql)
        .bind(id)
        .fetch_all(&mut *conn)
        .await
        .ctx("read a message's audit trail")?;
    Ok(rows.iter().map(event).collect())
}

/// How many of `name` were counted in slots `from_slot` and later.
pub async fn count_since(conn: &mut Conn, name: &str, from_slot: i64) -> Result<i64, StoreError> {
    let r = sqlx::query(
        "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM rate_counts WHERE name = $1 AND slot >= $2",
    )
    .bind(super::db_text(name))
    .bind(from_slot)
    .fetch_one(&mut *conn)
    .await
    .ctx("count failed logins")?;
    // PostgreSQL sums BIGINT to NUMERIC: the CAST brings it back to an integer.
    Ok(r.get(0))
}

/// Forget counts of names starting with `prefix` older than `before_slot`.
pub async fn forget_before(
    conn: &mut Conn,
    prefix: &str,
    before_slot: i64,
) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM rate_counts WHERE name LIKE $1 AND slot < $2")
        .bind(format!("{prefix}%"))
        .bind(before_slot)
        .execute(&mut *conn)
        .await
        .ctx("forget old failed logins")?;
    Ok(())
}
