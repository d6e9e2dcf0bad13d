//! The game state: one JSON document per version. Every change writes a new version
//! (never an update in place) together with an audit event, in one transaction. A long
//! document is stored in pieces (`pieces`).

use sqlx::Row;

use super::pieces::{self, Owner, Pieces};
use super::{Conn, Ctx, StoreError};

/// One stored version of the game state.
#[derive(Debug, Clone)]
pub struct StateRow {
    pub version: i64,
    pub round: i64,
    pub schema: i64,
    pub doc: String,
    pub reason: String,
    pub created_at: i64,
}

/// The newest version, if the game has been started.
pub async fn latest(conn: &mut Conn) -> Result<Option<StateRow>, StoreError> {
    let row = sqlx::query(
        "SELECT version, round, schema, doc, reason, created_at, pieces FROM game_state \
         ORDER BY version DESC LIMIT 1",
    )
    .fetch_optional(&mut *conn)
    .await
    .ctx("read the game state")?;
    whole(conn, row).await
}

/// A row of `game_state` as [`StateRow`], its document joined from its pieces.
async fn whole(
    conn: &mut Conn,
    row: Option<sqlx::any::AnyRow>,
) -> Result<Option<StateRow>, StoreError> {
    let Some(r) = row else {
        return Ok(None);
    };
    let version = r.get(0);
    let mut rest = Pieces::read(conn, Owner::State, version, None, r.get(6)).await?;
    Ok(Some(StateRow {
        version,
        round: r.get(1),
        schema: r.get(2),
        doc: rest.whole("doc", r.get(3)),
        reason: r.get(4),
        created_at: r.get(5),
    }))
}

/// The newest version number, if any (cheap: no document).
pub async fn latest_version(conn: &mut Conn) -> Result<Option<i64>, StoreError> {
    let r = sqlx::query("SELECT MAX(version) FROM game_state")
        .fetch_one(&mut *conn)
        .await
        .ctx("read the game state version")?;
    Ok(r.get::<Option<i64>, _>(0))
}

/// One version of the state.
pub async fn get(conn: &mut Conn, version: i64) -> Result<Option<StateRow>, StoreError> {
    let row = sqlx::query(
        "SELECT version, round, schema, doc, reason, created_at, pieces FROM game_state \
         WHERE version = $1",
    )
    .bind(version)
    .fetch_optional(&mut *conn)
    .await
    .ctx("read a game state version")?;
    whole(conn, row).await
}

/// Write `doc` as the version after `expected_version` (0 for the first). Fails with
/// a unique-key error if someone else wrote that version first, so two writers can
/// never both apply a change to the same base.
pub async fn save(
    conn: &mut Conn,
    expected_version: i64,
    round: i64,
    schema: i64,
    doc: &str,
    reason: &str,
    at: i64,
) -> Result<i64, StoreError> {
    let version = expected_version + 1;
    let cut = pieces::cut(doc);
    let q = sqlx::query(
        "INSERT INTO game_state (version, round, schema, doc, reason, created_at, pieces) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(version)
    .bind(round)
    .bind(schema);
    super::bind_text(q, cut[0])
        .bind(reason)
        .bind(at)
        .bind(i64::try_from(cut.len() - 1).unwrap_or(i64::MAX))
        .execute(&mut *conn)
        .await
        .ctx("save a new game state version")?;
    pieces::write(conn, Owner::State, version, "doc", &cut[1..]).await?;
    Ok(version)
}

/// How many versions exist (for tests and `state` output).
pub async fn count(conn: &mut Conn) -> Result<i64, StoreError> {
    let r = sqlx::query("SELECT COUNT(*) FROM game_state")
        .fetch_one(&mut *conn)
        .await
        .ctx("count game state versions")?;
    Ok(r.get(0))
}
