//! `/gm/map?dimension=normal|evil`: the whole map as the GM sees it (everything), inline
//! SVG from the map renderer.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::{respond, state};
use crate::app::{App, AppError};
use crate::game::state::Dimension;
use crate::render::map::{self, Viewer};
use crate::web::site::auth::GmSession;
use crate::web::site::html::escape;

#[derive(Debug, Deserialize)]
pub(super) struct Which {
    dimension: Option<String>,
}

pub(super) async fn page(
    _gm: GmSession,
    State(app): State<Arc<App>>,
    Query(q): Query<Which>,
) -> Response {
    let body = match dimension(q.dimension.as_deref()) {
        Ok(d) => state(&app).await.map(|gs| {
            let view = map::view(&gs, Viewer::Gm, d);
            picture(d, &map::svg(&view, app.cfg.gm_language.code()))
        }),
        Err(e) => Err(e),
    };
    respond("The map", body, None)
}

/// `normal` (the default) or `evil`; anything else is refused, quoted.
fn dimension(q: Option<&str>) -> crate::app::Result<Dimension> {
    match q.map(str::trim).unwrap_or("normal") {
        "" | "normal" => Ok(Dimension::Normal),
        "evil" => Ok(Dimension::Evil),
        other => Err(AppError::Refused(format!(
            "no dimension `{other}`: normal or evil"
        ))),
    }
}

fn picture(d: Dimension, svg: &str) -> String {
    let (here, other, other_label) = match d {
        Dimension::Normal => ("the normal dimension", "evil", "the Evil's dimension"),
        Dimension::Evil => ("the Evil's dimension", "normal", "the normal dimension"),
    };
    format!(
        "<p>Showing {}; <a href=\"/gm/map?dimension={other}\">show {}</a>.</p>\n\
         <div class=\"map\" id=\"map\">{svg}</div>\n",
        escape(here),
        escape(other_label)
    )
}
