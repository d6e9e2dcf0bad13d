//! Demons (R-EVIL-9..11, Rulings 56): a higher demon slain in battle becomes two
//! lower demons in its place in the line (the battle's `Line::lose` does the split;
//! `survivors` writes it back onto the groups), and the Evil's demons stay within the
//! leash of a portal in the normal dimension (R-EVIL-11/17, king moves, Rulings 58).

use crate::game::combat::Line;
use crate::game::event::Step;
use crate::game::orders::Piece;
use crate::game::state::{Dimension, Unit, Units};
use crate::game::{Square, UnitKind};

use super::super::military::army_index;
use super::super::Weekend;
use super::{around, emit, is_evil, EvilEvent};

/// True when the Evil's army `army`, holding demons, would stand on `to` in the normal
/// dimension beyond the leash of every open portal (R-EVIL-11, R-EVIL-17): how far
/// Teleport may put it, as how far it may walk.
pub fn beyond_leash(w: &Weekend, realm: &str, army: u32, to: Square) -> bool {
    let Some(a) = army_index(&w.state, realm, army).map(|i| &w.state.armies[i]) else {
        return false;
    };
    if !a.units.iter().any(|u| u.kind.is_demon()) || !is_evil(&w.state, realm) {
        return false;
    }
    let leash = w.state.evil.as_ref().map_or(5, |e| e.leash);
    // Only the squares within the leash are looked at, not the whole map.
    !around(&w.state, to, leash).any(|sq| w.state.map.get(sq).is_some_and(|m| m.portal.is_some()))
}

/// True (and told) when the Evil's army `army` may not enter `to`: it holds demons,
/// walks the normal dimension, and `to` is beyond the leash of every open portal.
pub(super) fn leashed(w: &mut Weekend, realm: &str, army: u32, to: Square) -> bool {
    let normal = army_index(&w.state, realm, army)
        .is_some_and(|i| w.state.armies[i].dimension == Dimension::Normal);
    if !normal || !beyond_leash(w, realm, army, to) {
        return false;
    }
    let leash = w.state.evil.as_ref().map_or(5, |e| e.leash);
    let ev = EvilEvent::Leash {
        realm: realm.into(),
        army,
        square: to,
        leash,
    };
    emit(w, Step::Movement, [realm.to_string()], ev);
    true
}

/// Take `n` units from the tail of `units` (R-COMBAT-9) as a battle does: a higher
/// demon slain counts as one and stands on as two lower demons in its place (R-EVIL-10,
/// Rulings 56), whatever slew it — a battle, Fireball or Armageddon. Returns the kind of
/// each unit slain, in order.
pub fn slay_from_tail(units: &mut Units, n: usize) -> Vec<UnitKind> {
    let mut slain = Vec::with_capacity(n);
    for _ in 0..n {
        let Some(u) = units.pop() else { break };
        if u.kind == UnitKind::HogreDemon {
            let lower = Unit {
                kind: UnitKind::LagreDemon,
                built_round: u.built_round,
            };
            units.extend([lower, lower]);
        }
        slain.push(u.kind);
    }
    slain
}

/// The tagged units that survived, following the line the battle left (as
/// `forces::survivors`), where a higher demon the battle split stands as the lower
/// demons it became (each keeps the higher demon's tag and build round).
pub fn survivors(items: &[(usize, Unit)], left: &Line) -> Vec<(usize, Unit)> {
    let mut want = left.runs().iter().copied();
    let mut cur = want.next();
    let mut kept = Vec::new();
    for (tag, unit) in items {
        let Some((p, n)) = cur else { break };
        let lower = Piece::Unit(UnitKind::LagreDemon);
        let take = if Piece::Unit(unit.kind) == p {
            kept.push((*tag, *unit));
            1
        } else if unit.kind == UnitKind::HogreDemon && p == lower {
            let two = n.min(2);
            let split = Unit {
                kind: UnitKind::LagreDemon,
                built_round: unit.built_round,
            };
            kept.extend((0..two).map(|_| (*tag, split)));
            two
        } else {
            0
        };
        cur = if n > take {
            Some((p, n - take))
        } else {
            want.next()
        };
    }
    kept
}

/// A group's units after a battle it did not move on from: the survivors in their
/// places (a split higher demon as the lower demons it became) and the units built
/// this round, which did not fight. `kept` is tagged with places in `units`, in order.
pub fn kept_in_place(units: &[Unit], kept: &[(usize, Unit)], round: u32) -> Units {
    let mut it = kept.iter().peekable();
    let mut out = Units::new();
    for (k, u) in units.iter().enumerate() {
        if u.built_round >= round {
            out.push(*u);
            continue;
        }
        while let Some((j, v)) = it.peek() {
            if *j > k {
                break;
            }
            if *j == k {
                out.push(*v);
            }
            it.next();
        }
    }
    out
}
