//! Which schedule events have fired. The key (event name, instant) is unique, so an
//! event fires once per instant even if two processes or a restart try again.

use sqlx::Row;

use super::{Conn, Ctx, StoreError};

/// Claim the firing of `name` at `at`. Returns false if it had fired already. Call in
/// the transaction that applies the event's effects.
pub async fn claim(
    conn: &mut Conn,
    name: &str,
    kind: &str,
    at: i64,
    now: i64,
) -> Result<bool, StoreError> {
    let r = sqlx::query(
        "INSERT INTO schedule_fired (name, at, kind, fired_at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (name, at) DO NOTHING RETURNING at",
    )
    .bind(name)
    .bind(at)
    .bind(kind)
    .bind(now)
    .fetch_optional(&mut *conn)
    .await
    .ctx("record a fired schedule event")?;
    Ok(r.is_some())
}

/// Every firing, in order: (name, kind, instant).
pub async fn fired(conn: &mut Conn) -> Result<Vec<(String, String, i64)>, StoreError> {
    let rows = sqlx::query("SELECT name, kind, at FROM schedule_fired ORDER BY at, fired_at")
        .fetch_all(&mut *conn)
        .await
        .ctx("read fired schedule events")?;
    Ok(rows
        .into_iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect())
}
