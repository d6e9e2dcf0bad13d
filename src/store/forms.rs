//! Weekend forms as received: the latest one before the deadline wins; earlier ones
//! are kept and point to the form that replaced them.

use sqlx::Row;

use super::{Conn, Ctx, StoreError};

/// The form a realm has standing for a round (the latest not superseded).
#[derive(Debug, Clone)]
pub struct Standing {
    pub id: i64,
    pub message_id: i64,
    pub received_at: i64,
    pub body: String,
    /// The checked orders, as JSON.
    pub orders: Option<String>,
}

/// The form a realm has standing for a round, if any.
pub async fn standing(
    conn: &mut Conn,
    realm: &str,
    round: i64,
) -> Result<Option<Standing>, StoreError> {
    let r = sqlx::query(
        "SELECT id, message_id, received_at, body, orders FROM forms \
         WHERE realm = $1 AND round = $2 AND superseded_by IS NULL ORDER BY id DESC LIMIT 1",
    )
    .bind(realm)
    .bind(round)
    .fetch_optional(&mut *conn)
    .await
    .ctx("read the standing form")?;
    Ok(r.map(|r| Standing {
        id: r.get(0),
        message_id: r.get(1),
        received_at: r.get(2),
        body: r.get(3),
        orders: r.get(4),
    }))
}

/// Every realm's standing form for a round, by realm: what `standing` finds for each
/// realm, read in one query (a weekend of 1,000 realms is one round trip, not 1,000).
pub async fn standing_all(
    conn: &mut Conn,
    round: i64,
) -> Result<std::collections::HashMap<String, Standing>, StoreError> {
    let rows = sqlx::query(
        "SELECT realm, id, message_id, received_at, body, orders FROM forms \
         WHERE round = $1 AND superseded_by IS NULL ORDER BY realm, id DESC",
    )
    .bind(round)
    .fetch_all(&mut *conn)
    .await
    .ctx("read the standing forms")?;
    let mut all = std::collections::HashMap::with_capacity(rows.len());
    for r in rows {
        // The newest first within a realm: the first row of a realm is its standing form.
        all.entry(r.get::<String, _>(0))
            .or_insert_with(|| Standing {
                id: r.get(1),
                message_id: r.get(2),
                received_at: r.get(3),
                body: r.get(4),
                orders: r.get(5),
            });
    }
    Ok(all)
}

/// The realms whose standing form for `round` came in a mail of that round (not one
/// carried over from an earlier round), in one query.
pub async fn realms_with_own_form(
    conn: &mut Conn,
    round: i64,
) -> Result<std::collections::HashSet<String>, StoreError> {
    let rows = sqlx::query(
        "SELECT f.realm, m.round FROM forms f LEFT JOIN messages m ON m.id = f.message_id \
         WHERE f.round = $1 AND f.superseded_by IS NULL ORDER BY f.realm, f.id DESC",
    )
    .bind(round)
    .fetch_all(&mut *conn)
    .await
    .ctx("read whose forms are their own")?;
    // Only the newest form of a realm counts (the first row of a realm), as `standing`
    // reads it.
    let mut newest = std::collections::HashMap::with_capacity(rows.len());
    for r in rows {
        newest
            .entry(r.get::<String, _>(0))
            .or_insert_with(|| r.get::<Option<i64>, _>(1) == Some(round));
    }
    Ok(newest
        .into_iter()
        .filter_map(|(realm, own)| own.then_some(realm))
        .collect())
}

/// The standing form's (id, received_at).
pub async fn current(
    conn: &mut Conn,
    realm: &str,
    round: i64,
) -> Result<Option<(i64, i64)>, StoreError> {
    Ok(standing(conn, realm, round)
        .await?
        .map(|f| (f.id, f.received_at)))
}

/// The standing form's checked orders (JSON).
pub async fn current_orders(
    conn: &mut Conn,
    realm: &str,
    round: i64,
) -> Result<Option<String>, StoreError> {
    Ok(standing(conn, realm, round).await?.and_then(|f| f.orders))
}

/// Store a form with its checked orders (JSON); the realm's earlier form for the
/// round (if any) is superseded. Returns (new id, the replaced form's (id, received_at)).
pub async fn insert(
    conn: &mut Conn,
    message_id: i64,
    realm: &str,
    round: i64,
    received_at: i64,
    body: &str,
    orders: Option<&str>,
) -> Result<(i64, Option<(i64, i64)>), StoreError> {
    let previous = current(conn, realm, round).await?;
    let r = sqlx::query(
        "INSERT INTO forms (message_id, realm, round, received_at, body, orders) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(message_id)
    .bind(realm)
    .bind(round)
    .bind(received_at)
    .bind(super::db_text(body))
    .bind(orders.map(super::db_text))
    .fetch_one(&mut *conn)
    .await
    .ctx("store a weekend form")?;
    let id: i64 = r.get(0);
    if let Some((old, _)) = previous {
        sqlx::query("UPDATE forms SET superseded_by = $1 WHERE id = $2")
            .bind(id)
            .bind(old)
            .execute(&mut *conn)
            .await
            .ctx("supersede the earlier form")?;
    }
    Ok((id, previous))
}

/// Realms with a standing form for the round.
pub async fn realms_with_form(conn: &mut Conn, round: i64) -> Result<Vec<String>, StoreError> {
    let rows = sqlx::query(
        "SELECT DISTINCT realm FROM forms WHERE round = $1 AND superseded_by IS NULL ORDER BY realm",
    )
    .bind(round)
    .fetch_all(&mut *conn)
    .await
    .ctx("list realms with a form")?;
    Ok(rows.into_iter().map(|r| r.get(0)).collect())
}
