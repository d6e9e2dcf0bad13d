//! The military steps' events as report lines, per language.

use crate::game::weekend::military::MilitaryEvent;
use crate::game::{GameState, Lang};

/// The lines `realm` reads about `ev`.
pub fn lines(ev: &MilitaryEvent, _gs: &GameState, _realm: &str, _lang: Lang) -> Vec<String> {
    match *ev {}
}
