//! Map pictures: one renderer draws the map from the state, for one viewer (a realm
//! sees only what it may know; the GM sees everything), as SVG for the web and as PNG
//! for the result mails.
//!
//! (Being built: the API below is fixed, the drawing is filled in by its owner.)

use crate::game::state::{Dimension, GameState};

/// Who looks at the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer<'a> {
    /// The GM: everything.
    Gm,
    /// One realm: its own squares, units and cities, what borders them, and what its
    /// spies reported.
    Realm(&'a str),
}

/// What one viewer may see of one dimension: the picture's data, drawn by [`svg`] and
/// [`png`] and compared by tests (never pixels).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MapView {
    pub width: u32,
    pub height: u32,
}

/// The picture's data for `viewer` in `dimension`.
pub fn view(_state: &GameState, _viewer: Viewer<'_>, _dimension: Dimension) -> MapView {
    MapView::default()
}

/// The picture as a standalone SVG document (labels in `lang`, `sv` or `en`).
pub fn svg(view: &MapView, _lang: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\"></svg>",
        view.width.max(1),
        view.height.max(1)
    )
}

/// The picture as PNG bytes.
pub fn png(_view: &MapView, _lang: &str) -> Result<Vec<u8>, String> {
    Err("map pictures are not drawn yet".into())
}
