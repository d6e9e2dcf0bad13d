//! All SQL of pbemd. One file per aggregate; nothing outside `store/` writes SQL.
//!
//! One set of runtime queries (sqlx `Any`) serves SQLite (the embedded default, one
//! file in WAL mode) and PostgreSQL (for several replicas). Placeholders are `$1, $2 …`
//! in ascending order, which both backends bind by number. Migrations live in
//! `migrations/sqlite` and `migrations/postgres`, are embedded in the binary and run at
//! start. Instants are stored as milliseconds since the epoch (`BIGINT`).

pub mod desk;
pub mod desk_game;
pub mod events;
pub mod forms;
pub mod inbox;
pub mod lease;
pub mod messages;
pub mod meta;
pub mod notices;
pub mod outbox;
mod pieces;
pub mod resolutions;
pub mod schedule;
pub mod site_player;
pub mod state;

use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyConnection, AnyPool, Transaction};

/// A storage failure. Rule failures never end up here: this is the machine breaking.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open database {url}: {source}")]
    Connect { url: String, source: sqlx::Error },
    #[error("cannot migrate database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("database error while trying to {what}: {source}")]
    Query {
        what: &'static str,
        source: sqlx::Error,
    },
    #[error("stored data is damaged: {0}")]
    Corrupt(String),
}

/// Text as every text column can hold it: PostgreSQL refuses NUL in text (SQLite takes
/// it), so NUL is dropped. Player text is cleaned where mail is parsed; this is the
/// second line, wherever player-derived text is written.
pub fn db_text(s: &str) -> String {
    s.replace('\0', "")
}

/// Bind `s` as [`db_text`] would give it: the text itself, borrowed, when it holds no
/// NUL (the common case: binding an owned `String` copies it once more into the
/// statement's arguments), else a copy without the NULs.
pub(crate) fn bind_text<'q>(q: AnyQuery<'q>, s: &'q str) -> AnyQuery<'q> {
    match s.contains('\0') {
        true => q.bind(db_text(s)),
        false => q.bind(s),
    }
}

/// [`bind_text`] of a text that may be missing (bound as NULL).
pub(crate) fn bind_opt_text<'q>(q: AnyQuery<'q>, s: Option<&'q str>) -> AnyQuery<'q> {
    match s {
        Some(s) => bind_text(q, s),
        None => q.bind(None::<&str>),
    }
}

/// [`db_text`] of an owned text, kept as it is (not copied) when it has no NUL.
pub fn into_db_text(s: String) -> String {
    match s.contains('\0') {
        true => db_text(&s),
        false => s,
    }
}

/// Rows per multi-row statement: batches write many rows in one statement, kept well
/// under both backends' limit on bound values (SQLite 32,766; PostgreSQL 65,535).
pub(crate) fn rows_per_statement(columns: usize) -> usize {
    (20_000 / columns.max(1)).clamp(1, 500)
}

/// A statement being bound (the any-database driver).
pub(crate) type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;

/// Insert `rows` in statements of [`rows_per_statement`] rows each: `head` is
/// `INSERT INTO table (columns…)`, `tail` a row's fixed SQL values after its `columns`
/// bound ones, `after` what follows the values (`RETURNING …`, a conflict clause), and
/// `bind` binds one row's values in order. Returns every row the statements returned.
pub(crate) async fn insert_rows<T>(
    conn: &mut Conn,
    rows: &[T],
    (head, columns, tail, after): (&str, usize, &str, &str),
    what: &'static str,
    bind: impl for<'q> Fn(AnyQuery<'q>, &'q T) -> AnyQuery<'q>,
) -> Result<Vec<sqlx::any::AnyRow>, StoreError> {
    let mut out = Vec::new();
    for chunk in rows.chunks(rows_per_statement(columns)) {
        let sql = insert_sql(conn, chunk.len(), (head, columns, tail, after));
        let q = bound(&sql, chunk, &bind);
        out.extend(q.fetch_all(&mut *conn).await.ctx(what)?);
    }
    Ok(out)
}

/// The statement inserting `rows` rows (see [`insert_rows`] for the parts).
pub(crate) fn insert_sql(
    conn: &Conn,
    rows: usize,
    (head, columns, tail, after): (&str, usize, &str, &str),
) -> String {
    let values = Params::of(conn).values(1, rows, columns, tail);
    format!("{head} VALUES {values}{after}")
}

/// `sql` with the values of every row of `chunk` bound in order.
pub(crate) fn bound<'q, T>(
    sql: &'q str,
    chunk: &'q [T],
    bind: &impl for<'a> Fn(AnyQuery<'a>, &'a T) -> AnyQuery<'a>,
) -> AnyQuery<'q> {
    chunk.iter().fold(sqlx::query(sql), bind)
}

/// [`insert_rows`] into `table`, a table with a unique `dedup_key`, leaving rows whose
/// key is there already; returns the ids of the rows it inserted, by key (`key` gives
/// a row's key as stored).
///
/// On PostgreSQL the statement returns them (`RETURNING`). On SQLite it returns no rows:
/// the driver hands every returned row over from its database thread on its own, which
/// cost as much as writing the row. A statement that inserted all of its rows gave them
/// the ids up to `last_insert_rowid()`, one after another in the order of its VALUES
/// ([`sqlite_ids`]); one that left some out (their keys were there) reads back the rows
/// with its keys past the largest id before it. Those are its own when no other writer
/// came between the read and the insert: a batch of several rows (the only one that can
/// leave some out and keep others) is written in a writing transaction, which holds
/// SQLite's write lock throughout.
pub(crate) async fn insert_new_by_key<T>(
    conn: &mut Conn,
    table: &str,
    rows: &[T],
    (head, columns, tail): (&str, usize, &str),
    what: &'static str,
    bind: impl for<'q> Fn(AnyQuery<'q>, &'q T) -> AnyQuery<'q>,
    key: impl Fn(&T) -> String,
) -> Result<std::collections::HashMap<String, i64>, StoreError> {
    use sqlx::Row;
    if Params::of(conn) == Params::Numbered {
        let after = " ON CONFLICT (dedup_key) DO NOTHING RETURNING id, dedup_key";
        let inserted = insert_rows(conn, rows, (head, columns, tail, after), what, bind).await?;
        return Ok(inserted
            .iter()
            .map(|r| (r.get::<String, _>(1), r.get::<i64, _>(0)))
            .collect());
    }
    let mut ids = std::collections::HashMap::new();
    for chunk in rows.chunks(rows_per_statement(columns)) {
        let after = " ON CONFLICT (dedup_key) DO NOTHING";
        let sql = insert_sql(conn, chunk.len(), (head, columns, tail, after));
        let q = bound(&sql, chunk, &bind);
        let (before, done) = sqlite_insert(conn, table, q, what).await?;
        if let Some(first) = sqlite_ids(conn, done, chunk.len()).await? {
            ids.extend((first..).zip(chunk).map(|(id, row)| (key(row), id)));
            continue;
        }
        if done == 0 {
            continue;
        }
        let keys: Vec<String> = chunk.iter().map(&key).collect();
        let sql = format!(
            "SELECT id, dedup_key FROM {table} WHERE id > ? AND dedup_key IN ({})",
            Params::InOrder.list(2, keys.len())
        );
        let mut q = sqlx::query(&sql).bind(before);
        for k in &keys {
            q = q.bind(k.as_str());
        }
        let found = q.fetch_all(&mut *conn).await.ctx(what)?;
        ids.extend(
            found
                .iter()
                .map(|r| (r.get::<String, _>(1), r.get::<i64, _>(0))),
        );
    }
    Ok(ids)
}

/// Run `insert` into `table` on SQLite: the largest id before it, and how many rows it
/// inserted.
async fn sqlite_insert<'q>(
    conn: &mut Conn,
    table: &str,
    insert: AnyQuery<'q>,
    what: &'static str,
) -> Result<(i64, u64), StoreError> {
    use sqlx::Row;
    let sql = format!("SELECT COALESCE(MAX(id), 0) FROM {table}");
    let before: i64 = sqlx::query(&sql)
        .fetch_one(&mut *conn)
        .await
        .ctx(what)?
        .get(0);
    let done = insert.execute(&mut *conn).await.ctx(what)?.rows_affected();
    Ok((before, done))
}

/// The id SQLite gave the first row of the INSERT it just ran on `conn`, which inserted
/// `done` of its `rows` rows, when it inserted all of them (`None` otherwise). SQLite
/// numbers the rows of one INSERT one after another in the order of its VALUES: each
/// new row's id is one more than the one before (the largest in the table, or ever in
/// it for AUTOINCREMENT), and the statement holds the write lock throughout; a row left
/// out by a conflict may leave a gap, so then the ids are not known this way.
pub(crate) async fn sqlite_ids(
    conn: &mut Conn,
    done: u64,
    rows: usize,
) -> Result<Option<i64>, StoreError> {
    use sqlx::Row;
    if done != rows as u64 || rows == 0 {
        return Ok(None);
    }
    let last: i64 = sqlx::query("SELECT last_insert_rowid()")
        .fetch_one(&mut *conn)
        .await
        .ctx("read the ids of inserted rows")?
        .get(0);
    Ok(Some(last - rows as i64 + 1))
}

/// How a statement for `conn` names its bound values: `$1, $2 …` on PostgreSQL, `?`
/// (in order) on SQLite, which treats `$1` as a name and looks every name up along a
/// list, so a statement of many `$n` would cost the square of their number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Params {
    Numbered,
    InOrder,
}

impl Params {
    pub(crate) fn of(conn: &Conn) -> Params {
        if conn.backend_name() == "SQLite" {
            Params::InOrder
        } else {
            Params::Numbered
        }
    }

    fn push(self, sql: &mut String, n: usize) {
        match self {
            Params::Numbered => {
                sql.push('$');
                sql.push_str(&n.to_string());
            }
            Params::InOrder => sql.push('?'),
        }
    }

    /// `($1, $2, …), ($k+1, …)`: the VALUES list of `rows` rows of `columns` values,
    /// numbered from `$start`. A row's fixed SQL text (e.g. `'pending'`) goes in
    /// `tail`, after its bound values.
    pub(crate) fn values(self, start: usize, rows: usize, columns: usize, tail: &str) -> String {
        let mut sql = String::with_capacity(rows * (columns * 5 + tail.len() + 4));
        let mut n = start;
        for r in 0..rows {
            if r > 0 {
                sql.push_str(", ");
            }
            sql.push('(');
            for c in 0..columns {
                if c > 0 {
                    sql.push_str(", ");
                }
                self.push(&mut sql, n);
                n += 1;
            }
            sql.push_str(tail);
            sql.push(')');
        }
        sql
    }

    /// `$start, $start+1, …`: `n` bound values for an `IN (…)` list or a row.
    pub(crate) fn list(self, start: usize, n: usize) -> String {
        let mut sql = String::with_capacity(n * 5);
        for i in start..start + n {
            if i > start {
                sql.push_str(", ");
            }
            self.push(&mut sql, i);
        }
        sql
    }
}

/// Shorthand used by every aggregate file: attach what was being done.
pub(crate) trait Ctx<T> {
    fn ctx(self, what: &'static str) -> Result<T, StoreError>;
}

impl<T> Ctx<T> for Result<T, sqlx::Error> {
    fn ctx(self, what: &'static str) -> Result<T, StoreError> {
        self.map_err(|source| StoreError::Query { what, source })
    }
}

/// Which database engine is behind the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A connection pool plus the knowledge of which backend it talks to.
#[derive(Debug, Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// This process's writers take turns here, first come first served, before they
    /// ask SQLite for its write lock (see [`Store::begin_write`]).
    writers: std::sync::Arc<tokio::sync::Mutex<()>>,
}

/// A transaction; every aggregate function takes `&mut Conn` so callers compose
/// several writes into one commit.
pub type Tx = Transaction<'static, sqlx::Any>;
pub type Conn = AnyConnection;

/// A writing transaction ([`Store::begin_write`]): a [`Tx`] that holds this process's
/// writing turn until it is committed, rolled back or dropped.
pub struct WriteTx {
    tx: Tx,
    _turn: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl WriteTx {
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        self.tx.commit().await
    }

    pub async fn rollback(self) -> Result<(), sqlx::Error> {
        self.tx.rollback().await
    }
}

impl std::ops::Deref for WriteTx {
    type Target = Tx;
    fn deref(&self) -> &Tx {
        &self.tx
    }
}

impl std::ops::DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut Tx {
        &mut self.tx
    }
}

/// Every SQLite connection's settings, in this order.
const SQLITE_PRAGMAS: &[&str] = &[
    // A new file only (an existing one keeps its pages): stored mails are 1–3 KB, so
    // 4 KB pages split and write them often.
    "PRAGMA page_size = 8192",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 10000",
    // Reads map the file instead of copying pages: a connection's page cache is
    // dropped whenever another one commits.
    "PRAGMA mmap_size = 268435456",
    // Savepoints (each courier batch and mail in a batch has one) keep their undo
    // pages in memory, not in a temporary file.
    "PRAGMA temp_store = MEMORY",
    // The write-ahead log is copied back into the file when the worker runs out of
    // work and at the end of `pbemd tick` (`Store::checkpoint`), so neither a burst of
    // mail nor a weekend stops for it; past 1 GB SQLite copies it anyway. (At 128 MB, a
    // weekend of 1,000 realms copied it in the commits of its resolution and of its
    // Monday forms: 0.4 of its 5 s.)
    "PRAGMA wal_autocheckpoint = 131072",
    // A log that grew large for a weekend is cut back to 64 MB once copied.
    "PRAGMA journal_size_limit = 67108864",
    // A batch of 500 mails writes some 4 MB of pages in one transaction: with SQLite's
    // 2 MB cache it wrote pages to the log in the middle of the transaction, and again
    // at its commit. An 8 MB cache holds the pages being written (reads are mapped).
    "PRAGMA cache_size = -8192",
];

impl Store {
    /// Open (creating a SQLite file if needed) and bring the schema up to date.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres") {
            Backend::Postgres
        } else {
            Backend::Sqlite
        };
        let connect_err = |source| StoreError::Connect {
            url: redact(url),
            source,
        };
        let opts: AnyConnectOptions = url.parse().map_err(connect_err)?;
        let pool = AnyPoolOptions::new()
            .max_connections(if backend == Backend::Sqlite { 4 } else { 8 })
            .acquire_timeout(Duration::from_secs(30))
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        for pragma in SQLITE_PRAGMAS {
                            sqlx::query(pragma).execute(&mut *conn).await?;
                        }
                    }
                    Ok(())
                })
            })
            .connect_with(opts)
            .await
            .map_err(connect_err)?;
        let store = Store {
            pool,
            backend,
            writers: Default::default(),
        };
        store.migrate().await?;
        Ok(store)
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        match self.backend {
            Backend::Sqlite => {
                sqlx::migrate!("./migrations/sqlite")
                    .run(&self.pool)
                    .await?
            }
            Backend::Postgres => {
                sqlx::migrate!("./migrations/postgres")
                    .run(&self.pool)
                    .await?
            }
        }
        Ok(())
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Start a transaction.
    pub async fn begin(&self) -> Result<Tx, StoreError> {
        self.pool.begin().await.ctx("begin a transaction")
    }

    /// A transaction that reads and then writes, taking SQLite's write lock at once
    /// (`BEGIN IMMEDIATE`, waiting under the busy timeout): a read first would pin a
    /// snapshot that another writer's commit makes stale, and the later write would
    /// fail at once instead of waiting. On PostgreSQL the same as [`Store::begin`].
    ///
    /// On SQLite the writers of this process first queue for their turn in order of
    /// arrival: SQLite's own wait polls with growing sleeps (up to 100 ms), so the
    /// intake, the handling and the courier, alternating, would lose much of their
    /// time asleep, and one could take the lock again and again while another slept.
    pub async fn begin_write(&self) -> Result<WriteTx, StoreError> {
        match self.backend {
            Backend::Sqlite => {
                let turn = self.writers.clone().lock_owned().await;
                let tx = self
                    .pool
                    .begin_with("BEGIN IMMEDIATE")
                    .await
                    .ctx("begin a writing transaction")?;
                Ok(WriteTx {
                    tx,
                    _turn: Some(turn),
                })
            }
            Backend::Postgres => Ok(WriteTx {
                tx: self.begin().await?,
                _turn: None,
            }),
        }
    }

    /// Copy the write-ahead log back into the database file (SQLite; as far as no
    /// reader holds it back), for a moment without work. Nothing on PostgreSQL.
    pub async fn checkpoint(&self) -> Result<(), StoreError> {
        if self.backend != Backend::Sqlite {
            return Ok(());
        }
        let mut conn = self.conn().await?;
        sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&mut *conn)
            .await
            .ctx("checkpoint the write-ahead log")?;
        Ok(())
    }

    /// One connection from the pool, for reads and single statements.
    pub async fn conn(&self) -> Result<sqlx::pool::PoolConnection<sqlx::Any>, StoreError> {
        self.pool.acquire().await.ctx("get a database connection")
    }

    /// `FOR UPDATE SKIP LOCKED` where the backend has it (PostgreSQL: several replicas
    /// claim rows without blocking each other); SQLite serialises writers anyway.
    pub(crate) fn skip_locked(&self) -> &'static str {
        match self.backend {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        }
    }

    /// `FOR UPDATE OF <table> SKIP LOCKED` for a query over a join.
    pub(crate) fn skip_locked_of(&self, table: &str) -> String {
        match self.backend {
            Backend::Postgres => format!(" FOR UPDATE OF {table} SKIP LOCKED"),
            Backend::Sqlite => String::new(),
        }
    }

    /// Wipe every game table (used by `init --force`).
    pub async fn wipe(&self) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        for t in [
            "doc_pieces",
            "resolutions",
            "notices",
            "rate_counts",
            "held_replies",
            "forms",
            "deliveries",
            "outbox",
            "messages",
            "inbox",
            "events",
            "game_state",
            "imap_cursor",
            "schedule_fired",
            "meta",
        ] {
            sqlx::query(&format!("DELETE FROM {t}"))
                .execute(&mut *tx)
                .await
                .ctx("wipe the game")?;
        }
        tx.commit().await.ctx("commit the wipe")
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Hide a password in a database URL before it reaches a log or an error.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{}:***{}", &url[..s + 3], user, &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn database_password_is_redacted() {
        assert_eq!(
            super::redact("postgres://pbemd:hunter2@127.0.0.1/db"),
            "postgres://pbemd:***@127.0.0.1/db"
        );
        assert_eq!(super::redact("sqlite:///a/b.db"), "sqlite:///a/b.db");
    }

    #[test]
    fn a_values_list_numbers_its_bound_values_row_by_row() {
        use super::Params;
        assert_eq!(
            Params::Numbered.values(1, 2, 3, ", 'x'"),
            "($1, $2, $3, 'x'), ($4, $5, $6, 'x')"
        );
        assert_eq!(Params::InOrder.values(1, 2, 2, ""), "(?, ?), (?, ?)");
        assert_eq!(Params::Numbered.list(4, 3), "$4, $5, $6");
        assert_eq!(Params::InOrder.list(4, 3), "?, ?, ?");
        assert_eq!(super::rows_per_statement(10), 500);
        assert_eq!(super::rows_per_statement(100), 200);
    }
}
