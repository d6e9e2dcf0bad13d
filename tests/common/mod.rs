//! Helpers shared by the integration tests: temporary databases on both backends, and
//! the rule that under CI a missing server is a failure, never a silent skip.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};

use pbemd::store::Store;

/// True when running under CI (`CI=true`): missing servers fail the test.
pub fn under_ci() -> bool {
    std::env::var("CI").map(|v| v == "true" || v == "1").unwrap_or(false)
}

/// A server a test needs is missing: fail under CI, otherwise say so loudly and skip.
pub fn missing(what: &str) -> bool {
    if under_ci() {
        panic!("{what} is required under CI=true but is not available; run scripts/test.sh");
    }
    eprintln!("SKIPPED: {what} not available (run scripts/test.sh to start it)");
    false
}

/// A fresh SQLite database in a temporary folder (kept alive by the returned guard).
pub async fn sqlite_store() -> (Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
    (Store::open(&url).await.expect("open sqlite"), dir)
}

/// A fresh PostgreSQL database, if `PBEMD_TEST_PG_URL` points at a server.
pub async fn pg_store() -> Option<Store> {
    let Ok(admin) = std::env::var("PBEMD_TEST_PG_URL") else {
        missing("PostgreSQL (PBEMD_TEST_PG_URL)");
        return None;
    };
    static N: AtomicU32 = AtomicU32::new(0);
    let name = format!(
        "pbemd_t_{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst),
        chrono::Utc::now().timestamp_micros() % 1_000_000
    );
    sqlx::any::install_default_drivers();
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&admin)
        .await
        .expect("connect to PBEMD_TEST_PG_URL");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("create test database");
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
    Some(Store::open(&format!("{base}/{name}")).await.expect("open postgres"))
}

/// Run the same async test body against SQLite and PostgreSQL.
#[macro_export]
macro_rules! on_both_backends {
    ($name:ident, $body:expr) => {
        mod $name {
            use super::*;
            #[tokio::test]
            async fn sqlite() {
                let (store, _dir) = $crate::common::sqlite_store().await;
                ($body)(store).await;
            }
            #[tokio::test]
            async fn postgres() {
                if let Some(store) = $crate::common::pg_store().await {
                    ($body)(store).await;
                }
            }
        }
    };
}
