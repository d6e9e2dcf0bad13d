//! R-EVIL-3 with Rulings 53–54: normal troops that enter a lava square of the Evil
//! dimension roll a d10 for it; on 1–2 (20 %) one unit dies, the last in the group's
//! cannon-fodder order. The Evil's own troops (its demons) are immune.

use crate::game::dice::Dice;
use crate::game::event::Step;
use crate::game::state::{Dimension, EvilTerrain};
use crate::game::Square;

use super::super::military::{army_index, remove_army_group};
use super::super::Weekend;
use super::{emit, is_evil, EvilEvent};

/// A d10 roll at or under this kills a unit (20 %).
pub const LAVA_DEADLY: u32 = 2;

pub(super) fn entered(w: &mut Weekend, realm: &str, army: u32, to: Square) -> bool {
    let Some(a) = army_index(&w.state, realm, army).map(|i| &w.state.armies[i]) else {
        return false;
    };
    let on_lava = a.dimension == Dimension::Evil
        && w.state
            .map
            .get(to)
            .is_some_and(|m| m.evil_terrain == EvilTerrain::Lava);
    if !on_lava || is_evil(&w.state, realm) {
        return true;
    }
    let mut dice = w.dice(&format!("evil/lava/{realm}/{army}/{to}"));
    let alive = lava_roll(w, &mut dice, realm, army, to);
    w.keep(dice);
    alive
}

/// One lava roll for `realm`'s army `army` on `square` (tests hand in fixed dice).
/// Returns false when the army is gone.
pub fn lava_roll(w: &mut Weekend, dice: &mut Dice, realm: &str, army: u32, square: Square) -> bool {
    let roll = dice.d10();
    let mut lost = None;
    let mut gone = false;
    if roll <= LAVA_DEADLY {
        if let Some(a) = army_index(&w.state, realm, army).map(|i| &mut w.state.armies[i]) {
            lost = a.units.pop().map(|u| u.kind);
            gone = a.units.is_empty();
        }
    }
    if gone {
        remove_army_group(&mut w.state, realm, army);
    }
    emit(
        w,
        Step::Movement,
        vec![realm.to_string()],
        EvilEvent::Lava {
            realm: realm.into(),
            army,
            square,
            roll,
            lost,
        },
    );
    !gone
}
