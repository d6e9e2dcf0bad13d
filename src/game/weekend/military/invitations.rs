//! Step 5, invitations (R-INV-1..7): a group named on the holder's form with
//! `INBJUDAN`/`INVITATION` arrives on the square the inviting realm chose, may not move
//! this round (R-INV-2), and attacks troops there that are neither a friend's nor the
//! inviter's (R-INV-5). Step 9, home-invitations (R-INV-8/9): armies come home to the
//! capital, fleets to the main harbour, once a group; nothing stops them, but a form's
//! call past the free Språkrör envoys pays an envoy (Rulings 15). Used and expired
//! invitations are pruned.

use std::collections::BTreeSet;

use crate::game::dice::Dice;
use crate::game::event::{Step, What};
use crate::game::orders::{Group, Order};
use crate::game::state::GroupRef;
use crate::game::text::fold;
use crate::game::units::AgentKind;
use crate::game::Square;

use super::super::{evil, Reads, Weekend};
use super::index::{self, Index};
use super::{combat, forces, movement, InvitationRefusal, MilitaryEvent};

pub fn arrivals(w: &mut Weekend, dice: &mut Dice) {
    w.sort_forces();
    let reading = w.reading(Reads::UseInvitation);
    let uses: Vec<(String, String, Group)> = reading
        .lines()
        .filter_map(|(f, o)| match o {
            Order::UseInvitation { from, group } => Some((f.realm.clone(), from.clone(), *group)),
            _ => None,
        })
        .collect();
    if !uses.is_empty() {
        let mut ix = Index::build(&w.state);
        for (realm, from, group) in uses {
            arrive(w, &mut ix, dice, &realm, &from, group);
        }
        ix.check(&w.state);
        forces::compact(&mut w.state);
    }
    let round = w.round();
    for r in &mut w.state.realms {
        r.invitations
            .retain(|i| !i.used && i.valid_until_round > round);
    }
}

fn refuse(w: &mut Weekend, realm: &str, group: Group, reason: InvitationRefusal) {
    w.emit(
        Step::Invitations,
        vec![realm.to_string()],
        What::Military(MilitaryEvent::InvitationRefused {
            realm: realm.into(),
            group,
            reason,
        }),
    );
}

fn arrive(w: &mut Weekend, ix: &mut Index, dice: &mut Dice, realm: &str, from: &str, group: Group) {
    let round = w.round();
    let Some(ri) = ix.realm_at(&w.state, realm) else {
        return;
    };
    let Some(ii) = w.state.realms[ri]
        .invitations
        .iter()
        .position(|i| fold(&i.from) == fold(from) && !i.used && i.valid_until_round >= round)
    else {
        return refuse(w, realm, group, InvitationRefusal::NoValidInvitation);
    };
    let inv = w.state.realms[ri].invitations[ii].clone();
    let exists = match group {
        Group::Army(id) => forces::army_at(&w.state, realm, id).is_some(),
        Group::Fleet(id) => forces::fleet_at(&w.state, realm, id).is_some(),
    };
    if !exists {
        return refuse(w, realm, group, InvitationRefusal::NoSuchGroup);
    }
    if movement::is_sea(&w.state, inv.square) == group.is_army() {
        return refuse(w, realm, group, InvitationRefusal::WrongGround);
    }
    w.state.realms[ri].invitations[ii].used = true;
    bring(w, ix, realm, group, inv.square);
    w.emit(
        Step::Invitations,
        vec![realm.to_string(), inv.from.clone()],
        What::Military(MilitaryEvent::Arrived {
            realm: realm.into(),
            group,
            square: inv.square,
            inviter: Some(inv.from.as_str().into()),
        }),
    );
    let enemy = movement::enemy_on(&w.state, ix, realm, inv.square, group.is_army())
        .filter(|e| *e != inv.from);
    // The fight is with the troops met, never for a city on the square.
    if let Some(enemy) = enemy {
        combat::arrival(w, ix, dice, realm, group, inv.square, &enemy);
    }
}

/// Put the group on `square`, off any fleet, unable to move this round (R-INV-2).
fn bring(w: &mut Weekend, ix: &mut Index, realm: &str, group: Group, square: Square) {
    let round = w.round();
    if let Group::Army(id) = group {
        forces::unload(&mut w.state, realm, id);
        let dim = evil::arrival_dimension(&w.state, square);
        if let Some(i) = forces::army_at(&w.state, realm, id) {
            w.state.armies[i].no_move_until_round = std::num::NonZeroU32::new(round);
            w.state.armies[i].dimension = dim;
        }
    }
    index::relocate(&mut w.state, ix, realm, group, square);
}

/// Step 9: every home-invitation of this round, from the courier or the form.
pub fn home(w: &mut Weekend) {
    w.sort_forces();
    let round = w.round();
    // (realm, group, sent on the form): the courier charged those sent by mail.
    let mut calls: Vec<(String, Group, bool)> = w
        .state
        .home_invitations
        .iter()
        .filter(|h| h.valid_until_round >= round)
        .map(|h| match &h.target {
            GroupRef::Army { owner, id } => (owner.to_string(), Group::Army(*id), false),
            GroupRef::Fleet { owner, id } => (owner.to_string(), Group::Fleet(*id), false),
        })
        .collect();
    for (f, o) in w.reading(Reads::HomeInvitation).lines() {
        if let Order::HomeInvitation { group } = o {
            calls.push((f.realm.clone(), *group, true));
        }
    }
    // A group comes home once, on its first call: the courier's (paid by mail), else
    // the form's first line for it, so a form pays one envoy a group at most.
    let mut called = BTreeSet::new();
    calls.retain(|(realm, group, _)| called.insert((realm.clone(), *group)));
    if !calls.is_empty() {
        let mut ix = Index::build(&w.state);
        for (realm, group, on_form) in calls {
            come_home(w, &mut ix, &realm, group, on_form);
        }
        ix.check(&w.state);
        forces::compact(&mut w.state);
    }
    w.state
        .home_invitations
        .retain(|h| h.valid_until_round > round);
}

/// A home-invitation on the form is an envoy (R-INV-8): beyond the realm's free
/// Språkrör envoys it costs an envoy's price, as the receipt charged it (Rulings 15),
/// and counts as sent. False when the realm cannot pay (nothing is taken).
fn pay_envoy(w: &mut Weekend, realm: &str) -> bool {
    let Some(r) = w.state.realm_mut(realm) else {
        return false;
    };
    let free = r.sent.envoys < r.positions.sprakror;
    if !free {
        match r.stock.checked_sub(&AgentKind::Sandebud.cost()) {
            Some(left) => r.stock = left,
            None => return false,
        }
    }
    r.sent.envoys = r.sent.envoys.saturating_add(1);
    true
}

fn come_home(w: &mut Weekend, ix: &mut Index, realm: &str, group: Group, on_form: bool) {
    let Some(r) = ix.realm(&w.state, realm) else {
        return;
    };
    let seat = if group.is_army() {
        r.capital
    } else {
        r.main_harbour
    };
    let exists = match group {
        Group::Army(id) => forces::army_at(&w.state, realm, id).is_some(),
        Group::Fleet(id) => forces::fleet_at(&w.state, realm, id).is_some(),
    };
    let square = match (exists, seat) {
        (true, Some(square)) => square,
        (false, _) => return home_refused(w, realm, group, InvitationRefusal::NoSuchGroup),
        (true, None) => return home_refused(w, realm, group, InvitationRefusal::NoSeat),
    };
    if on_form && !pay_envoy(w, realm) {
        return home_refused(w, realm, group, InvitationRefusal::CannotPay);
    }
    bring(w, ix, realm, group, square);
    w.emit(
        Step::HomeInvitations,
        vec![realm.to_string()],
        What::Military(MilitaryEvent::Arrived {
            realm: realm.into(),
            group,
            square,
            inviter: None,
        }),
    );
}

fn home_refused(w: &mut Weekend, realm: &str, group: Group, reason: InvitationRefusal) {
    w.emit(
        Step::HomeInvitations,
        vec![realm.to_string()],
        What::Military(MilitaryEvent::InvitationRefused {
            realm: realm.into(),
            group,
            reason,
        }),
    );
}
