//! The GM's notices waiting for the next Monday forms, the rate counters of flood
//! control and resends, and the replies flood control holds back.

use sqlx::Row;

use super::{Conn, Ctx, StoreError};

/// A GM notice as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub id: i64,
    /// `None`: every realm.
    pub realm: Option<String>,
    pub text: String,
    pub created_at: i64,
    pub printed_round: Option<i64>,
}

/// Store a notice; `mailed_at` is set when it was mailed at once (then no form
/// carries it). Returns its id.
pub async fn add(
    conn: &mut Conn,
    realm: Option<&str>,
    text: &str,
    at: i64,
    mailed_at: Option<i64>,
) -> Result<i64, StoreError> {
    let r = sqlx::query(
        "INSERT INTO notices (realm, text, created_at, mailed_at) VALUES ($1, $2, $3, $4) \
         RETURNING id",
    )
    .bind(realm)
    .bind(super::db_text(text))
    .bind(at)
    .bind(mailed_at)
    .fetch_one(&mut *conn)
    .await
    .ctx("store a GM notice")?;
    Ok(r.get(0))
}

/// The notices the forms of `round` carry: those printed on that round's forms before
/// (a correction repeats them) and those still waiting, oldest first.
pub async fn for_round(conn: &mut Conn, round: i64) -> Result<Vec<Notice>, StoreError> {
    let rows = sqlx::query(
        "SELECT id, realm, text, created_at, printed_round FROM notices \
         WHERE mailed_at IS NULL AND (printed_round IS NULL OR printed_round = $1) ORDER BY id",
    )
    .bind(round)
    .fetch_all(&mut *conn)
    .await
    .ctx("read the GM's notices")?;
    Ok(rows
        .into_iter()
        .map(|r| Notice {
            id: r.get(0),
            realm: r.get(1),
            text: r.get(2),
            created_at: r.get(3),
            printed_round: r.get(4),
        })
        .collect())
}

/// Mark every waiting notice as printed on the forms of `round`.
pub async fn mark_printed(conn: &mut Conn, round: i64, at: i64) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE notices SET printed_round = $1, printed_at = $2 \
         WHERE printed_round IS NULL AND mailed_at IS NULL",
    )
    .bind(round)
    .bind(at)
    .execute(&mut *conn)
    .await
    .ctx("mark the GM's notices printed")?;
    Ok(())
}

/// Count `k` more of `name` in `slot`; returns the count after them.
pub async fn bump_by(conn: &mut Conn, name: &str, slot: i64, k: i64) -> Result<i64, StoreError> {
    let r = sqlx::query(
        "INSERT INTO rate_counts (name, slot, n) VALUES ($1, $2, $3) \
         ON CONFLICT (name, slot) DO UPDATE SET n = rate_counts.n + excluded.n RETURNING n",
    )
    .bind(super::db_text(name))
    .bind(slot)
    .bind(k)
    .fetch_one(&mut *conn)
    .await
    .ctx("count replies")?;
    Ok(r.get(0))
}

/// Count one more of `name` in `slot`; returns the count after it.
pub async fn bump(conn: &mut Conn, name: &str, slot: i64) -> Result<i64, StoreError> {
    let r = sqlx::query(
        "INSERT INTO rate_counts (name, slot, n) VALUES ($1, $2, 1) \
         ON CONFLICT (name, slot) DO UPDATE SET n = rate_counts.n + 1 RETURNING n",
    )
    .bind(super::db_text(name))
    .bind(slot)
    .fetch_one(&mut *conn)
    .await
    .ctx("count a reply")?;
    Ok(r.get(0))
}

/// Whether an outgoing mail with this key was queued before.
pub async fn queued_before(conn: &mut Conn, dedup_key: &str) -> Result<bool, StoreError> {
    let r = sqlx::query("SELECT id FROM outbox WHERE dedup_key = $1")
        .bind(dedup_key)
        .fetch_optional(&mut *conn)
        .await
        .ctx("look up a queued mail")?;
    Ok(r.is_some())
}

/// Hold a queued reply back: it is not sent until the GM releases it.
pub async fn hold(conn: &mut Conn, outbox_id: i64, realm: &str, at: i64) -> Result<(), StoreError> {
    sqlx::query("UPDATE outbox SET state = 'held' WHERE id = $1 AND state = 'pending'")
        .bind(outbox_id)
        .execute(&mut *conn)
        .await
        .ctx("hold a reply")?;
    sqlx::query(
        "INSERT INTO held_replies (outbox_id, realm, held_at) VALUES ($1, $2, $3) \
         ON CONFLICT (outbox_id) DO NOTHING",
    )
    .bind(outbox_id)
    .bind(realm)
    .bind(at)
    .execute(&mut *conn)
    .await
    .ctx("record a held reply")?;
    Ok(())
}

/// The replies held for one realm, as the GM queue shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldGroup {
    pub realm: String,
    pub count: i64,
    pub first_id: i64,
    pub last_id: i64,
    pub first_held_at: i64,
}

/// The replies still held, one group per realm.
pub async fn held(conn: &mut Conn) -> Result<Vec<HeldGroup>, StoreError> {
    let rows = sqlx::query(
        "SELECT realm, COUNT(*), MIN(outbox_id), MAX(outbox_id), MIN(held_at) FROM held_replies \
         WHERE released_at IS NULL GROUP BY realm ORDER BY realm",
    )
    .fetch_all(&mut *conn)
    .await
    .ctx("read the held replies")?;
    Ok(rows
        .into_iter()
        .map(|r| HeldGroup {
            realm: r.get(0),
            count: r.get(1),
            first_id: r.get(2),
            last_id: r.get(3),
            first_held_at: r.get(4),
        })
        .collect())
}

/// Which held replies to release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Release<'a> {
    All,
    Realm(&'a str),
    One(i64),
}

/// Release held replies: they are sent as any queued mail, from `now`. Returns how
/// many were released.
pub async fn release(conn: &mut Conn, which: &Release<'_>, now: i64) -> Result<u64, StoreError> {
    let filter = match which {
        Release::All => "",
        Release::Realm(_) => " AND realm = $2",
        Release::One(_) => " AND outbox_id = $2",
    };
    let pick = format!("SELECT outbox_id FROM held_replies WHERE released_at IS NULL{filter}");
    let sql = format!(
        "UPDATE outbox SET state = 'pending', next_attempt_at = $1 \
         WHERE state = 'held' AND id IN ({pick})"
    );
    let released = release_step(conn, &sql, which, now).await?;
    let sql = format!("UPDATE held_replies SET released_at = $1 WHERE released_at IS NULL{filter}");
    release_step(conn, &sql, which, now).await?;
    Ok(released)
}

/// One statement of `release`, with `now` as `$1` and the choice as `$2`.
async fn release_step(
    conn: &mut Conn,
    sql: &str,
    which: &Release<'_>,
    now: i64,
) -> Result<u64, StoreError> {
    let q = sqlx::query(sql).bind(now);
    let q = match which {
        Release::All => q,
        Release::Realm(r) => q.bind(*r),
        Release::One(id) => q.bind(*id),
    };
    let done = q.execute(&mut *conn).await.ctx("release held replies")?;
    Ok(done.rows_affected())
}

/// The latest Monday form mailed to `realm`: its outbox id, when it was queued, and
/// the mail as sent. Result forms are keyed `…:<realm>` in the outbox.
pub async fn latest_form(
    conn: &mut Conn,
    realm: &str,
) -> Result<Option<(i64, i64, Vec<u8>)>, StoreError> {
    let escaped: String = realm
        .chars()
        .flat_map(|c| match c {
            '\\' | '%' | '_' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    let sql = format!(
        "SELECT id, created_at, {} FROM outbox WHERE kind = 'result_form' \
         AND dedup_key LIKE $1 ESCAPE '\\' ORDER BY id DESC LIMIT 1",
        super::outbox::MAIL
    );
    let r = sqlx::query(&sql)
        .bind(format!("%:{}", super::db_text(&escaped)))
        .fetch_optional(&mut *conn)
        .await
        .ctx("find a realm's latest form")?;
    r.map(|r| Ok((r.get(0), r.get(1), super::outbox::mail_of(&r, 2)?)))
        .transpose()
}
