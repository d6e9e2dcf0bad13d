//! The audit log: every decision pbemd takes, with the round and realm it concerns.

use sqlx::Row;

use super::{Conn, Ctx, StoreError};

/// One audit entry.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Event {
    pub id: i64,
    pub at: i64,
    pub round: i64,
    pub kind: String,
    pub realm: Option<String>,
    pub ref_id: Option<i64>,
    pub detail: String,
}

/// Append an entry. `detail` is a JSON document or plain text.
pub async fn log(
    conn: &mut Conn,
    at: i64,
    round: i64,
    kind: &str,
    realm: Option<&str>,
    ref_id: Option<i64>,
    detail: &str,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO events (at, round, kind, realm, ref_id, detail) VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(at)
    .bind(round)
    .bind(kind)
    .bind(realm)
    .bind(ref_id)
    .bind(super::db_text(detail))
    .execute(&mut *conn)
    .await
    .ctx("write an audit event")?;
    Ok(())
}

/// An entry to append with [`log_many`].
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub at: i64,
    pub round: i64,
    pub kind: &'static str,
    pub realm: Option<String>,
    pub ref_id: Option<i64>,
    pub detail: String,
}

/// Append many entries, in order, in few statements.
pub async fn log_many(conn: &mut Conn, events: &[NewEvent]) -> Result<(), StoreError> {
    let head = "INSERT INTO events (at, round, kind, realm, ref_id, detail)";
    super::insert_rows(
        conn,
        events,
        (head, 6, "", ""),
        "write audit events",
        |q, e| {
            let q = q
                .bind(e.at)
                .bind(e.round)
                .bind(e.kind)
                .bind(e.realm.as_deref())
                .bind(e.ref_id);
            super::bind_text(q, &e.detail)
        },
    )
    .await?;
    Ok(())
}

fn from_row(r: &sqlx::any::AnyRow) -> Event {
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

/// Entries of one kind, oldest first.
pub async fn of_kind(conn: &mut Conn, kind: &str) -> Result<Vec<Event>, StoreError> {
    let rows = sqlx::query(
        "SELECT id, at, round, kind, realm, ref_id, detail FROM events WHERE kind = $1 ORDER BY id",
    )
    .bind(kind)
    .fetch_all(&mut *conn)
    .await
    .ctx("read audit events")?;
    Ok(rows.iter().map(from_row).collect())
}

/// Entries filtered by realm and/or round, oldest first.
pub async fn filtered(
    conn: &mut Conn,
    realm: Option<&str>,
    round: Option<i64>,
) -> Result<Vec<Event>, StoreError> {
    let rows = sqlx::query(
        "SELECT id, at, round, kind, realm, ref_id, detail FROM events \
         WHERE ($1 IS NULL OR realm = $1) AND ($2 IS NULL OR round = $2) ORDER BY id",
    )
    .bind(realm)
    .bind(round)
    .fetch_all(&mut *conn)
    .await
    .ctx("read audit events")?;
    Ok(rows.iter().map(from_row).collect())
}
