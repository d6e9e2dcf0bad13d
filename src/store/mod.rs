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
}

/// A transaction; every aggregate function takes `&mut Conn` so callers compose
/// several writes into one commit.
pub type Tx = Transaction<'static, sqlx::Any>;
pub type Conn = AnyConnection;

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
                        sqlx::query("PRAGMA journal_mode = WAL")
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query("PRAGMA synchronous = NORMAL")
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query("PRAGMA foreign_keys = ON")
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query("PRAGMA busy_timeout = 10000")
                            .execute(&mut *conn)
                            .await?;
                    }
                    Ok(())
                })
            })
            .connect_with(opts)
            .await
            .map_err(connect_err)?;
        let store = Store { pool, backend };
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
}
