//! Locks that let several replicas share one PostgreSQL database: the scheduler's
//! lease (a session-level advisory lock, held on a dedicated connection, released by
//! PostgreSQL when that session ends, e.g. when its process is killed) and the game
//! lock (a transaction-level advisory lock that makes units of work that change the
//! game run one after another, in time order, whichever replica runs them). SQLite
//! serialises its writers by itself: there every lock is granted at once.

use sqlx::Row;

use super::{Backend, Conn, Ctx, Store, StoreError};

/// The advisory lock key of the scheduler lease (one game per database).
pub const SCHEDULER_KEY: i64 = 0x7062_656d_6401;
/// The advisory lock key of the game lock.
pub const GAME_KEY: i64 = 0x7062_656d_6402;

/// Try to take the session-level lock `key` on `conn` (a connection that lives as
/// long as the lease). True when this session holds it now.
pub async fn try_session_lock(conn: &mut Conn, key: i64) -> Result<bool, StoreError> {
    let r = sqlx::query("SELECT CASE WHEN pg_try_advisory_lock($1) THEN 1 ELSE 0 END")
        .bind(key)
        .fetch_one(&mut *conn)
        .await
        .ctx("try to take the scheduler lease")?;
    Ok(r.get::<i32, _>(0) == 1)
}

/// Whether the lease's connection still answers (its session, and so its lock, lives).
pub async fn alive(conn: &mut Conn) -> bool {
    sqlx::query("SELECT 1").execute(&mut *conn).await.is_ok()
}

/// Take the game lock for the rest of the caller's transaction (PostgreSQL; waits for
/// another replica's unit of work to commit or roll back). A no-op on SQLite.
pub async fn game_lock(store: &Store, conn: &mut Conn) -> Result<(), StoreError> {
    if store.backend() == Backend::Postgres {
        sqlx::query("SELECT pg_advisory_xact_lock($1)::text")
            .bind(GAME_KEY)
            .execute(&mut *conn)
            .await
            .ctx("take the game lock")?;
    }
    Ok(())
}
