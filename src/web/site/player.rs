//! (filled in by its owner)

use std::sync::Arc;

use axum::Router;

use crate::app::App;

pub fn routes() -> Router<Arc<App>> {
    Router::new()
}
