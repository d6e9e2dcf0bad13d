//! Portals (R-EVIL-15..18, Rulings 58): an army on a portal's square steps through it
//! by naming that square again in its path (one movement point); no troops pass in the
//! round the portal was opened. A portal stays open while the Evil has troops within
//! its leash (5 squares, king moves) in the normal dimension; when none are left, a d4
//! is rolled and the portal closes after that many more rounds (`closes_after_round`),
//! unless Evil troops come back first. The Open Portal spell itself is step 2's.

use std::collections::BTreeSet;

use crate::game::dice::Dice;
use crate::game::event::Step;
use crate::game::state::{Dimension, GameState};
use crate::game::Square;

use super::super::military::army_index;
use super::super::Weekend;
use super::{emit, evil_realm, lava, EvilEvent};

/// Through the portal on `sq`; false when refused or the army died on arrival.
pub(super) fn pass(w: &mut Weekend, realm: &str, army: u32, sq: Square) -> bool {
    let Some(portal) = w.state.map.get(sq).and_then(|m| m.portal.clone()) else {
        return false;
    };
    if portal.opened_round >= w.round() {
        let ev = EvilEvent::PortalTooNew {
            realm: realm.into(),
            army,
            square: sq,
        };
        emit(w, Step::Movement, [realm.to_string()], ev);
        return false;
    }
    let Some(i) = army_index(&w.state, realm, army) else {
        return false;
    };
    let to = match w.state.armies[i].dimension {
        Dimension::Normal => Dimension::Evil,
        Dimension::Evil => Dimension::Normal,
    };
    w.state.armies[i].dimension = to;
    let ev = EvilEvent::ThroughPortal {
        realm: realm.into(),
        army,
        square: sq,
        to,
    };
    emit(w, Step::Movement, [realm.to_string()], ev);
    lava::entered(w, realm, army, sq)
}

/// The realms told about a portal: the Evil, the realm that opened it, and the realm
/// whose land (in either dimension) it lies in (R-EVIL-19).
pub(super) fn viewers(gs: &GameState, sq: Square) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let m = gs.map.get(sq);
    let names = evil_realm(gs)
        .map(str::to_string)
        .into_iter()
        .chain(
            m.and_then(|m| m.portal.as_ref())
                .map(|p| p.opened_by.clone()),
        )
        .chain(m.and_then(|m| m.owner.as_deref().map(str::to_string)))
        .chain(m.and_then(|m| m.evil_owner.as_deref().map(str::to_string)));
    for n in names {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// The squares (normal dimension) where the Evil has troops.
fn evil_troops(gs: &GameState) -> BTreeSet<Square> {
    let Some(evil) = evil_realm(gs) else {
        return BTreeSet::new();
    };
    gs.armies
        .iter()
        .filter(|a| a.owner == evil && a.dimension == Dimension::Normal && !a.units.is_empty())
        .map(|a| a.square)
        .collect()
}

fn leash(gs: &GameState) -> u16 {
    gs.evil.as_ref().map_or(5, |e| e.leash)
}

/// R-EVIL-18 at the end of the weekend, with the given dice (one d4 per portal that
/// starts to fade). Returns the squares of the portals still open, in square order.
pub fn lifetime_with(w: &mut Weekend, mut dice: Dice) -> Vec<Square> {
    let round = w.round();
    let troops = evil_troops(&w.state);
    let reach = leash(&w.state);
    let portals: Vec<(Square, Option<u32>)> = w
        .portals
        .iter()
        .filter_map(|&sq| {
            let p = w.state.map.get(sq)?.portal.as_ref()?;
            Some((sq, p.closes_after_round))
        })
        .collect();
    let mut open = Vec::with_capacity(portals.len());
    for (sq, closes) in portals {
        let near = troops.iter().any(|t| t.distance(sq) <= reach);
        let seen = viewers(&w.state, sq);
        let closed = matches!((near, closes), (false, Some(after)) if after <= round);
        if !closed {
            open.push(sq);
        }
        let ev = match (near, closes) {
            (true, None) => continue,
            (true, Some(_)) => {
                set_closing(&mut w.state, sq, None);
                EvilEvent::PortalHeld { square: sq }
            }
            (false, None) => {
                let roll = dice.d4();
                let after = round.saturating_add(roll);
                set_closing(&mut w.state, sq, Some(after));
                EvilEvent::PortalFading {
                    square: sq,
                    roll,
                    closes_after_round: after,
                }
            }
            (false, Some(after)) if after <= round => {
                if let Some(m) = w.state.map.squares.get_mut(&sq) {
                    m.portal = None;
                }
                w.portal_closed(sq);
                EvilEvent::PortalClosed { square: sq }
            }
            (false, Some(_)) => continue,
        };
        emit(w, Step::WrapUp, seen, ev);
    }
    w.keep(dice);
    open
}

fn set_closing(gs: &mut GameState, sq: Square, after: Option<u32>) {
    if let Some(p) = gs.map.squares.get_mut(&sq).and_then(|m| m.portal.as_mut()) {
        p.closes_after_round = after;
    }
}
