//! What a realm's own pages on the web site read: its latest result form as it was
//! mailed, and its forms of a round with their receipts.

use sqlx::Row;

use super::{Conn, Ctx, StoreError};

/// `text` with the LIKE wildcards and the escape character escaped (`ESCAPE '\'`).
fn like_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The realm's latest result form that was mailed (sent, not held or pending):
/// (outbox id, sent at ms, raw mail). Result forms are keyed `<key>:<realm>`.
pub async fn latest_sent_form(
    conn: &mut Conn,
    realm: &str,
) -> Result<Option<(i64, i64, Vec<u8>)>, StoreError> {
    let sql = format!(
        "SELECT id, COALESCE(sent_at, created_at), {} FROM outbox \
         WHERE kind = 'result_form' AND state = 'sent' \
         AND dedup_key LIKE $1 ESCAPE '\\' ORDER BY id DESC LIMIT 1",
        super::outbox::MAIL
    );
    let r = sqlx::query(&sql)
        .bind(format!("%:{}", super::db_text(&like_escaped(realm))))
        .fetch_optional(&mut *conn)
        .await
        .ctx("find a realm's latest mailed form")?;
    r.map(|r| Ok((r.get(0), r.get(1), super::outbox::mail_of(&r, 2)?)))
        .transpose()
}

/// One weekend form of a realm as its receipts page shows it.
#[derive(Debug, Clone)]
pub struct FormRow {
    pub id: i64,
    pub received_at: i64,
    /// Replaced by a later form of the same round.
    pub superseded: bool,
    /// The receipt mailed for it (raw mail), if any.
    pub receipt: Option<Vec<u8>>,
}

/// The realm's forms of `round`, oldest first, each with its receipt.
pub async fn forms_with_receipts(
    conn: &mut Conn,
    realm: &str,
    round: i64,
) -> Result<Vec<FormRow>, StoreError> {
    let rows = sqlx::query(
        "SELECT f.id, f.received_at, f.superseded_by, m.inbox_id FROM forms f \
         JOIN messages m ON m.id = f.message_id \
         WHERE f.realm = $1 AND f.round = $2 ORDER BY f.id LIMIT 200",
    )
    .bind(realm)
    .bind(round)
    .fetch_all(&mut *conn)
    .await
    .ctx("list a realm's forms")?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let inbox_id: i64 = r.get(3);
        let sql = format!(
            "SELECT {} FROM outbox WHERE dedup_key = $1",
            super::outbox::MAIL
        );
        let receipt = sqlx::query(&sql)
            .bind(format!("receipt:{inbox_id}"))
            .fetch_optional(&mut *conn)
            .await
            .ctx("read a form's receipt")?
            .map(|row| super::outbox::mail_of(&row, 0))
            .transpose()?;
        out.push(FormRow {
            id: r.get(0),
            received_at: r.get(1),
            superseded: r.get::<Option<i64>, _>(2).is_some(),
            receipt,
        });
    }
    Ok(out)
}
