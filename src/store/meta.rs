//! Small key/value facts about the game: start instant, the last `now` seen.

use sqlx::Row;

use super::{Conn, Ctx, StoreError};

/// The instant the game started (`init --now`), in ms.
pub const STARTED_AT: &str = "started_at";
/// The latest `now` the game has run at: schedule events up to it have fired, and a
/// `tick --now` before it is refused.
pub const LAST_NOW: &str = "last_now";

pub async fn get(conn: &mut Conn, key: &str) -> Result<Option<String>, StoreError> {
    let row = sqlx::query("SELECT value FROM meta WHERE key = $1")
        .bind(key)
        .fetch_optional(&mut *conn)
        .await
        .ctx("read game metadata")?;
    Ok(row.map(|r| r.get::<String, _>(0)))
}

pub async fn set(conn: &mut Conn, key: &str, value: &str) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO meta (key, value) VALUES ($1, $2) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(key)
    .bind(value)
    .execute(&mut *conn)
    .await
    .ctx("write game metadata")?;
    Ok(())
}

/// The key of the web site's signing secret (hex), made once per game.
pub const SITE_SECRET: &str = "site_secret";

/// Write `value` under `key` unless the key already has one, and return the value that
/// is stored afterwards: of two replicas racing, both get the first one's.
pub async fn get_or_init(conn: &mut Conn, key: &str, value: &str) -> Result<String, StoreError> {
    sqlx::query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
        .bind(key)
        .bind(value)
        .execute(&mut *conn)
        .await
        .ctx("write game metadata")?;
    Ok(get(conn, key).await?.unwrap_or_else(|| value.to_string()))
}

pub async fn get_i64(conn: &mut Conn, key: &str) -> Result<Option<i64>, StoreError> {
    match get(conn, key).await? {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| StoreError::Corrupt(format!("meta {key} = {v:?} is not a number"))),
    }
}
