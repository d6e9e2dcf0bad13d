//! Map pictures: one renderer draws the map from the state, for one viewer (a realm
//! sees only what it may know; the GM sees everything), as SVG for the web and as PNG
//! for the result mails.
//!
//! [`view`] gathers the picture's data ([`MapView`]); [`layout`] turns it into shapes
//! once; [`svg`] writes those shapes as text and [`png`] paints the very same shapes into
//! pixels. What a realm sees is read by [`MapIndex`] (see there for the rule).

mod index;
mod layout;
mod paint;
mod svg;

pub use index::MapIndex;
pub use layout::{layout, Picture, Shape};
pub use paint::{font, png_with, Glyphs, DEFAULT_FONT};

use serde::Serialize;

use crate::game::state::{Dimension, GameState};
use crate::game::Square;

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
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MapView {
    /// The region drawn, in squares: `width` columns from column `left` (0-based) and
    /// `height` rows from row `top` (1-based). Empty when the viewer knows nothing here.
    pub width: u32,
    pub height: u32,
    pub left: u16,
    pub top: u16,
    pub dimension: Dimension,
    /// The realm looking; `None` for the GM.
    pub viewer: Option<String>,
    pub game: String,
    pub round: u32,
    /// The squares the viewer knows, in square order (the rest of the region is drawn
    /// as unknown).
    pub squares: Vec<SquareView>,
    pub cities: Vec<CityView>,
    pub armies: Vec<GroupView>,
    pub fleets: Vec<GroupView>,
    /// The realms that own something drawn, the viewer first, then by name: the
    /// legend's order and each realm's colour.
    pub realms: Vec<String>,
    /// The game has the Evil: only then does the legend explain portals and treasures.
    pub evil: bool,
}

impl MapView {
    /// Whether the picture shows anything at all.
    pub fn is_empty(&self) -> bool {
        self.squares.is_empty()
    }
}

/// A square's ground: land and sea in the normal dimension, lava and rock in the Evil's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ground {
    Land,
    Sea,
    Lava,
    Rock,
}

/// One known square.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SquareView {
    pub square: Square,
    pub ground: Ground,
    /// Whose land it is in this dimension.
    pub owner: Option<String>,
    /// An open portal the viewer may see (R-EVIL-19: the land's owner, the realm that
    /// opened it, the GM).
    pub portal: bool,
    /// A treasure cross (Evil dimension, R-EVIL-5).
    pub treasure: bool,
}

/// One city.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CityView {
    pub square: Square,
    pub name: String,
    pub owner: String,
    pub capital: bool,
    pub harbour: bool,
    pub walls: u32,
}

/// An army group or a fleet, with its number of units (ships for a fleet).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupView {
    pub owner: String,
    pub id: u32,
    pub square: Square,
    pub units: u32,
    pub known: Known,
}

/// How the viewer knows of a group (in this order of precedence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Known {
    /// The viewer's own.
    Own,
    /// It stands on or next to the viewer's land, cities or groups.
    Border,
    /// A spy of the viewer reported it.
    Spy,
    /// Seen across a portal or in the Evil dimension (R-EVIL-19).
    Sight,
    /// The GM sees everything.
    Gm,
}

/// The picture's data for `viewer` in `dimension`.
pub fn view(state: &GameState, viewer: Viewer<'_>, dimension: Dimension) -> MapView {
    MapIndex::new(state).view(viewer, dimension)
}

/// The picture as a standalone SVG document (labels in `lang`, `sv` or `en`).
pub fn svg(view: &MapView, lang: &str) -> String {
    svg::write(&layout(view, lang))
}

/// The picture as PNG bytes, labelled with the font at [`DEFAULT_FONT`] (without
/// labels, and a warning logged once, when that file cannot be read).
pub fn png(view: &MapView, lang: &str) -> Result<Vec<u8>, String> {
    png_with(
        view,
        lang,
        font(std::path::Path::new(DEFAULT_FONT)).as_deref(),
    )
}

/// The file name of a map picture in a realm's mail (`karta.png`, `map-evil.png`).
pub fn file_name(lang: crate::game::Lang, dimension: Dimension) -> &'static str {
    use crate::game::Lang;
    match (lang, dimension) {
        (Lang::Sv, Dimension::Normal) => "karta.png",
        (Lang::Sv, Dimension::Evil) => "karta-ondskan.png",
        (Lang::En, Dimension::Normal) => "map.png",
        (Lang::En, Dimension::Evil) => "map-evil.png",
    }
}

#[cfg(test)]
mod tests;
