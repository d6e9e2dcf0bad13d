//! The economy steps' events as report lines, per language.

use crate::game::weekend::economy::EconomyEvent;
use crate::game::{GameState, Lang};

/// The lines `realm` reads about `ev`.
pub fn lines(ev: &EconomyEvent, _gs: &GameState, _realm: &str, _lang: Lang) -> Vec<String> {
    match *ev {}
}
