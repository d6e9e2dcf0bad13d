//! Weekend resolutions: per round, the inputs the engine was given and what it produced,
//! written in the same transaction as the state version they lead to. At most one
//! resolution per round stands (a unique index); a rolled-back one is kept, marked.
//! Long documents are stored in pieces (`pieces`).

use sqlx::Row;

use super::pieces::{self, Owner, Pieces};
use super::{Conn, Ctx, StoreError};

/// A resolution to store (all documents as JSON).
#[derive(Debug, Clone)]
pub struct NewResolution<'a> {
    pub round: i64,
    pub base_version: i64,
    pub new_version: i64,
    pub orders: &'a str,
    pub settings: &'a str,
    pub seed: u64,
    pub output_state: &'a str,
    pub events: &'a str,
    pub rolls: &'a str,
    pub at: i64,
}

/// A stored resolution.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub id: i64,
    pub round: i64,
    pub base_version: i64,
    pub new_version: i64,
    pub orders: String,
    pub settings: String,
    pub seed: u64,
    pub output_state: String,
    pub events: String,
    pub rolls: String,
    pub created_at: i64,
    pub results_sent_at: Option<i64>,
    pub rolled_back_at: Option<i64>,
}

const COLUMNS: &str = "id, round, base_version, new_version, orders, settings, seed, \
     output_state, events, rolls, created_at, results_sent_at, rolled_back_at, pieces";

/// A row read with [`COLUMNS`], its documents joined from their pieces.
async fn from_row(
    conn: &mut Conn,
    row: Option<sqlx::any::AnyRow>,
) -> Result<Option<Resolution>, StoreError> {
    let Some(r) = row else {
        return Ok(None);
    };
    let seed: String = r.get(6);
    let id = r.get(0);
    let mut rest = Pieces::read(conn, Owner::Resolution, id, None, r.get(13)).await?;
    Ok(Some(Resolution {
        id,
        round: r.get(1),
        base_version: r.get(2),
        new_version: r.get(3),
        orders: rest.whole("orders", r.get(4)),
        settings: rest.whole("settings", r.get(5)),
        seed: seed
            .parse()
            .map_err(|_| StoreError::Corrupt(format!("resolution seed {seed:?}")))?,
        output_state: rest.whole("output_state", r.get(7)),
        events: rest.whole("events", r.get(8)),
        rolls: rest.whole("rolls", r.get(9)),
        created_at: r.get(10),
        results_sent_at: r.get(11),
        rolled_back_at: r.get(12),
    }))
}

/// Store a resolution; fails (unique key) when one already stands for the round.
pub async fn insert(conn: &mut Conn, n: &NewResolution<'_>) -> Result<i64, StoreError> {
    // The documents (the state and the events are the largest texts pbemd stores) are
    // bound borrowed unless they hold a NUL (`bind_text`; the SQLite driver still
    // copies each for its worker thread), a long one's first piece in the row and the
    // rest after it (`pieces`).
    let docs = [
        ("orders", pieces::cut(n.orders)),
        ("settings", pieces::cut(n.settings)),
        ("output_state", pieces::cut(n.output_state)),
        ("events", pieces::cut(n.events)),
        ("rolls", pieces::cut(n.rolls)),
    ];
    let more = docs.iter().map(|(_, p)| p.len() - 1).sum::<usize>();
    let [orders, settings, output_state, events, rolls] = docs.each_ref().map(|(_, p)| p[0]);
    let q = sqlx::query(
        "INSERT INTO resolutions (round, base_version, new_version, orders, settings, seed, \
         output_state, events, rolls, created_at, pieces) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
    )
    .bind(n.round)
    .bind(n.base_version)
    .bind(n.new_version);
    let q = super::bind_text(q, orders);
    let q = super::bind_text(q, settings).bind(n.seed.to_string());
    let q = super::bind_text(q, output_state);
    let q = super::bind_text(q, events);
    let r = super::bind_text(q, rolls)
        .bind(n.at)
        .bind(i64::try_from(more).unwrap_or(i64::MAX))
        .fetch_one(&mut *conn)
        .await
        .ctx("store a weekend resolution")?;
    let id = r.get(0);
    for (col, cut) in &docs {
        pieces::write(conn, Owner::Resolution, id, col, &cut[1..]).await?;
    }
    Ok(id)
}

/// The resolution standing for `round`, if any.
pub async fn standing(conn: &mut Conn, round: i64) -> Result<Option<Resolution>, StoreError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM resolutions WHERE round = $1 AND rolled_back_at IS NULL"
    ))
    .bind(round)
    .fetch_optional(&mut *conn)
    .await
    .ctx("read the standing resolution")?;
    from_row(conn, row).await
}

/// What the Monday forms need of a standing resolution: its id, its events (as JSON)
/// and whether its results went out; not the states and orders it also holds, the
/// largest part of the row.
#[derive(Debug, Clone)]
pub struct Told {
    pub id: i64,
    pub events: String,
    pub results_sent_at: Option<i64>,
}

/// [`standing`] for the Monday forms: the resolution standing for `round`, read without
/// its documents but the events.
pub async fn standing_told(conn: &mut Conn, round: i64) -> Result<Option<Told>, StoreError> {
    let row = sqlx::query(
        "SELECT id, events, results_sent_at, pieces FROM resolutions \
         WHERE round = $1 AND rolled_back_at IS NULL",
    )
    .bind(round)
    .fetch_optional(&mut *conn)
    .await
    .ctx("read the standing resolution's events")?;
    let Some(r) = row else {
        return Ok(None);
    };
    let id = r.get(0);
    let mut rest = Pieces::read(conn, Owner::Resolution, id, Some("events"), r.get(3)).await?;
    Ok(Some(Told {
        id,
        events: rest.whole("events", r.get(1)),
        results_sent_at: r.get(2),
    }))
}

/// The newest resolution (standing or rolled back), if any.
pub async fn latest(conn: &mut Conn) -> Result<Option<Resolution>, StoreError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM resolutions ORDER BY id DESC LIMIT 1"
    ))
    .fetch_optional(&mut *conn)
    .await
    .ctx("read the latest resolution")?;
    from_row(conn, row).await
}

/// The newest resolution of `round` (standing or rolled back), if any.
pub async fn latest_of(conn: &mut Conn, round: i64) -> Result<Option<Resolution>, StoreError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM resolutions WHERE round = $1 ORDER BY id DESC LIMIT 1"
    ))
    .bind(round)
    .fetch_optional(&mut *conn)
    .await
    .ctx("read a round's resolution")?;
    from_row(conn, row).await
}

/// Whether any resolution of `round` had its results mailed.
pub async fn results_went_out(conn: &mut Conn, round: i64) -> Result<bool, StoreError> {
    let r = sqlx::query(
        "SELECT COUNT(*) FROM resolutions WHERE round = $1 AND results_sent_at IS NOT NULL",
    )
    .bind(round)
    .fetch_one(&mut *conn)
    .await
    .ctx("read whether results went out")?;
    Ok(r.get::<i64, _>(0) > 0)
}

/// Mark a resolution's results as mailed.
pub async fn mark_results_sent(conn: &mut Conn, id: i64, at: i64) -> Result<(), StoreError> {
    sqlx::query("UPDATE resolutions SET results_sent_at = $1 WHERE id = $2")
        .bind(at)
        .bind(id)
        .execute(&mut *conn)
        .await
        .ctx("mark a resolution's results as sent")?;
    Ok(())
}

/// Mark a resolution as rolled back.
pub async fn mark_rolled_back(conn: &mut Conn, id: i64, at: i64) -> Result<(), StoreError> {
    sqlx::query("UPDATE resolutions SET rolled_back_at = $1 WHERE id = $2")
        .bind(at)
        .bind(id)
        .execute(&mut *conn)
        .await
        .ctx("mark a resolution as rolled back")?;
    Ok(())
}
