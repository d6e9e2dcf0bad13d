//! Long documents in pieces (migration 0011). A game state or a weekend's events run
//! to tens of megabytes in a large game; stored as one text, each would pass through
//! the database as one buffer of that size, several times over (bound, built into a
//! record, read back), and the C allocator SQLite uses maps fresh memory for every
//! buffer over 32 MB instead of reusing what it freed. So a document is cut into pieces
//! of at most [`PIECE`] bytes: the first stays in its row's column, the rest go to
//! `doc_pieces` (owner, row, column, `seq` from 1), and the row's `pieces` column counts
//! them, so that a row of a short document is read in one query as before.

use std::collections::BTreeMap;

use sqlx::Row;

use super::{bind_text, Conn, Ctx, StoreError};

/// The longest piece of a document, in bytes.
pub(crate) const PIECE: usize = 1 << 20;

/// Whose rows the pieces continue.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Owner {
    /// `game_state`, by version.
    State,
    /// `resolutions`, by id.
    Resolution,
}

impl Owner {
    fn as_str(self) -> &'static str {
        match self {
            Owner::State => "state",
            Owner::Resolution => "resolution",
        }
    }
}

/// `doc` in pieces of at most [`PIECE`] bytes, cut between characters, in order. Never
/// empty: a document of at most one piece (the empty one too) is one piece.
pub(crate) fn cut(doc: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(doc.len() / PIECE + 1);
    let mut rest = doc;
    while rest.len() > PIECE {
        // A character is at most 4 bytes, so a piece is never empty.
        let (piece, after) = rest.split_at(rest.floor_char_boundary(PIECE));
        out.push(piece);
        rest = after;
    }
    out.push(rest);
    out
}

/// Store `rest`, the pieces after the first of column `col` of `owner`'s row `row_id`.
pub(crate) async fn write(
    conn: &mut Conn,
    owner: Owner,
    row_id: i64,
    col: &str,
    rest: &[&str],
) -> Result<(), StoreError> {
    for (seq, piece) in (1i64..).zip(rest) {
        let q = sqlx::query(
            "INSERT INTO doc_pieces (owner, row_id, col, seq, piece) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(owner.as_str())
        .bind(row_id)
        .bind(col)
        .bind(seq);
        bind_text(q, piece)
            .execute(&mut *conn)
            .await
            .ctx("store a piece of a long document")?;
    }
    Ok(())
}

/// The pieces of one row, by column, in order.
#[derive(Debug, Default)]
pub(crate) struct Pieces(BTreeMap<String, Vec<String>>);

impl Pieces {
    /// Read the pieces of `owner`'s row `row_id` (of column `only`, or of all its
    /// columns), when the row says it has any (`count`, its `pieces`). Each column's
    /// pieces must run 1, 2, 3 … and, read whole, add up to `count`.
    pub(crate) async fn read(
        conn: &mut Conn,
        owner: Owner,
        row_id: i64,
        only: Option<&str>,
        count: i64,
    ) -> Result<Pieces, StoreError> {
        if count == 0 {
            return Ok(Pieces::default());
        }
        let rows = match only {
            Some(col) => sqlx::query(
                "SELECT col, seq, piece FROM doc_pieces \
                 WHERE owner = $1 AND row_id = $2 AND col = $3 ORDER BY col, seq",
            )
            .bind(owner.as_str())
            .bind(row_id)
            .bind(col),
            None => sqlx::query(
                "SELECT col, seq, piece FROM doc_pieces \
                 WHERE owner = $1 AND row_id = $2 ORDER BY col, seq",
            )
            .bind(owner.as_str())
            .bind(row_id),
        }
        .fetch_all(&mut *conn)
        .await
        .ctx("read the pieces of a long document")?;
        let damaged = || {
            StoreError::Corrupt(format!(
                "{} {row_id}: its pieces do not run 1, 2, 3 … to the {count} the row counts",
                owner.as_str()
            ))
        };
        if only.is_none() && i64::try_from(rows.len()).ok() != Some(count) {
            return Err(damaged());
        }
        let mut by_col: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in rows {
            let pieces = by_col.entry(r.get(0)).or_default();
            if i64::try_from(pieces.len()).ok().map(|n| n + 1) != Some(r.get::<i64, _>(1)) {
                return Err(damaged());
            }
            pieces.push(r.get(2));
        }
        Ok(Pieces(by_col))
    }

    /// Column `col`'s whole document: `head` (the piece in the row) and the pieces
    /// after it, in one buffer of the exact length.
    pub(crate) fn whole(&mut self, col: &str, head: String) -> String {
        let Some(rest) = self.0.remove(col) else {
            return head;
        };
        let len = rest
            .iter()
            .map(String::len)
            .fold(head.len(), usize::saturating_add);
        let mut doc = String::with_capacity(len);
        doc.push_str(&head);
        for piece in rest {
            doc.push_str(&piece);
        }
        doc
    }
}

#[cfg(test)]
mod tests {
    use super::{cut, PIECE};

    #[test]
    fn a_short_document_is_one_piece() {
        assert_eq!(cut(""), vec![""]);
        assert_eq!(cut("{}"), vec!["{}"]);
        let full = "a".repeat(PIECE);
        assert_eq!(cut(&full), vec![full.as_str()]);
    }

    #[test]
    fn a_long_document_is_cut_between_characters_and_joins_back() {
        // "ä" is two bytes: one piece's edge falls inside a character.
        let doc = format!("x{}", "ä".repeat(PIECE));
        let pieces = cut(&doc);
        assert_eq!(pieces.len(), 3);
        assert!(pieces.iter().all(|p| !p.is_empty() && p.len() <= PIECE));
        assert_eq!(pieces[0].len(), PIECE - 1, "cut before the split character");
        assert_eq!(pieces.concat(), doc);
    }
}
