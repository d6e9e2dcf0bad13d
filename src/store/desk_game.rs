//! What the GM's desk reads beyond the other rooms' queries: the replies flood control
//! holds in the outbox, one row each, for the Monday results page.

use sqlx::Row;

use super::{Conn, Ctx, StoreError};

/// One reply held in the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldRow {
    /// The outbox id (`gm release ID`).
    pub id: i64,
    pub realm: String,
    /// The outbox kind (`refusal`, `form_again` …).
    pub kind: String,
    pub subject: String,
    pub held_at: i64,
}

/// The replies still held, oldest first, at most `limit`.
pub async fn held_rows(conn: &mut Conn, limit: i64) -> Result<Vec<HeldRow>, StoreError> {
    let rows = sqlx::query(
        "SELECT o.id, h.realm, o.kind, o.subject, h.held_at FROM held_replies h \
         JOIN outbox o ON o.id = h.outbox_id WHERE h.released_at IS NULL \
         ORDER BY o.id LIMIT $1",
    )
    .bind(limit)
    .fetch_all(&mut *conn)
    .await
    .ctx("read the held replies one by one")?;
    Ok(rows
        .into_iter()
        .map(|r| HeldRow {
            id: r.get(0),
            realm: r.get(1),
            kind: r.get(2),
            subject: r.get(3),
            held_at: r.get(4),
        })
        .collect())
}
