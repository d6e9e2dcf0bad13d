//! The game's web site, served by `pbemd run` next to the webhook when `http.listen`
//! is set: the GM's desk (login), each realm's own pages (signed links), the public
//! trade board. Plain server-rendered HTML that reads without JavaScript; everything a
//! player wrote goes through [`html::escape`].
//!
//! Rooms: the pages only read through the store and call the same app functions as the
//! `gm` commands; nothing here writes SQL or changes the state on its own.

pub mod auth;
pub mod board;
pub mod desk;
pub mod desk_audit;
pub mod desk_game;
pub mod desk_message;
pub mod html;
pub mod player;
pub mod sign;

use std::sync::Arc;

use axum::Router;

use crate::app::App;

/// Every page of the site, to be merged into the HTTP router.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .merge(auth::routes())
        .merge(desk::routes())
        .merge(desk_game::routes())
        .merge(player::routes())
        .merge(board::routes())
}
