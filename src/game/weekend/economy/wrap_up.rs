//! After step 9: relations (R-ALLY-1), capital and main harbour (R-CITY-9/10,
//! docs/rules.md, Rulings 29), trade wishes (R-RES-3), expired spell effects and
//! invitations pruned, the VP ledger (R-VP-*) and the victory check (R-VP-1,
//! Rulings 47), which ends the game.

use super::{playing, tell, EconomyEvent};
use crate::game::event::{Step, What};
use crate::game::orders::Order;
use crate::game::state::{Dimension, GameState, Phase};
use crate::game::text::fold;
use crate::game::weekend::Weekend;
use crate::game::Square;

pub(super) fn run(w: &mut Weekend) {
    let orders = w.orders;
    for form in &orders.forms {
        if w.state.realm(&form.realm).is_none_or(|r| r.eliminated) {
            continue;
        }
        for o in &form.orders {
            if let Some(ev) = apply(&mut w.state, &form.realm, o) {
                tell(w, Step::WrapUp, ev);
            }
        }
    }
    stand_ins(w);
    sync_city_flags(&mut w.state);
    let round = w.round();
    prune(&mut w.state, round);
    ledger(w);
    victory(w);
}

/// One wrap-up order of `realm`, applied; `None` when it is no wrap-up order or
/// no longer applies (the city was lost in the weekend).
fn apply(gs: &mut GameState, realm: &str, o: &Order) -> Option<EconomyEvent> {
    match o {
        Order::Friend { realm: other } | Order::NotFriend { realm: other } => {
            let friend = matches!(o, Order::Friend { .. });
            let other = gs
                .realms
                .iter()
                .find(|r| fold(&r.name) == fold(other) && r.name != realm)?
                .name
                .clone();
            let r = gs.realm_mut(realm)?;
            r.friends.retain(|f| f != &other);
            if friend {
                r.friends.push(other.clone());
            }
            Some(EconomyEvent::Relation {
                realm: realm.to_string(),
                other,
                friend,
            })
        }
        Order::Capital { city } => {
            own_city(gs, realm, *city, false)?;
            gs.realm_mut(realm)?.capital = Some(*city);
            Some(EconomyEvent::Capital {
                realm: realm.to_string(),
                city: *city,
                stand_in: false,
            })
        }
        Order::MainHarbour { city } => {
            own_city(gs, realm, *city, true)?;
            gs.realm_mut(realm)?.main_harbour = Some(*city);
            Some(EconomyEvent::MainHarbour {
                realm: realm.to_string(),
                city: *city,
                stand_in: false,
            })
        }
        Order::TradeWishes { buy, sell } => {
            let r = gs.realm_mut(realm)?;
            r.trade_wishes.buy = buy.iter().copied().take(2).collect();
            r.trade_wishes.sell = sell.iter().copied().take(2).collect();
            Some(EconomyEvent::TradeWishes {
                realm: realm.to_string(),
                buy: r.trade_wishes.buy.clone(),
                sell: r.trade_wishes.sell.clone(),
            })
        }
        _ => None,
    }
}

/// `sq` is an own normal-dimension city of `realm` (and coastal when asked).
fn own_city(gs: &GameState, realm: &str, sq: Square, coastal: bool) -> Option<()> {
    gs.cities_of(realm)
        .any(|c| c.square == sq && c.dimension == Dimension::Normal && (c.coastal || !coastal))
        .then_some(())
}

/// Rulings 29: a realm without a capital (or main harbour) it holds gets its most
/// populous city (coastal for a harbour) until it names one; ties by square name.
fn stand_ins(w: &mut Weekend) {
    for realm in playing(w) {
        let Some(r) = w.state.realm(&realm) else {
            continue;
        };
        let (capital, harbour, evil) = (r.capital, r.main_harbour, r.is_evil);
        if capital.is_none_or(|c| own_city(&w.state, &realm, c, false).is_none()) {
            let city = best_city(&w.state, &realm, false);
            if let Some(r) = w.state.realm_mut(&realm) {
                r.capital = city;
            }
            if let Some(city) = city {
                let ev = EconomyEvent::Capital {
                    realm: realm.clone(),
                    city,
                    stand_in: true,
                };
                tell(w, Step::WrapUp, ev);
            }
        }
        if !evil && harbour.is_none_or(|c| own_city(&w.state, &realm, c, true).is_none()) {
            let city = best_city(&w.state, &realm, true);
            if let Some(r) = w.state.realm_mut(&realm) {
                r.main_harbour = city;
            }
            if let Some(city) = city {
                let ev = EconomyEvent::MainHarbour {
                    realm: realm.clone(),
                    city,
                    stand_in: true,
                };
                tell(w, Step::WrapUp, ev);
            }
        }
    }
}

fn best_city(gs: &GameState, realm: &str, coastal: bool) -> Option<Square> {
    gs.cities_of(realm)
        .filter(|c| c.dimension == Dimension::Normal && (c.coastal || !coastal))
        .max_by(|a, b| {
            a.population
                .cmp(&b.population)
                .then_with(|| b.square.to_string().cmp(&a.square.to_string()))
        })
        .map(|c| c.square)
}

/// Each city's capital and harbour flags follow its owner's choice.
fn sync_city_flags(gs: &mut GameState) {
    let choices: Vec<(String, Option<Square>, Option<Square>)> = gs
        .realms
        .iter()
        .map(|r| (r.name.clone(), r.capital, r.main_harbour))
        .collect();
    for c in gs.cities.iter_mut() {
        let own = choices.iter().find(|(n, _, _)| n == &c.owner);
        let normal = c.dimension == Dimension::Normal;
        c.capital = normal && own.is_some_and(|(_, cap, _)| *cap == Some(c.square));
        c.harbour = normal && own.is_some_and(|(_, _, h)| *h == Some(c.square));
    }
}

/// Spell effects past their last round, and invitations past theirs or used.
fn prune(gs: &mut GameState, round: u32) {
    gs.effects.retain(|e| e.expires_round > round);
    gs.home_invitations.retain(|h| h.valid_until_round > round);
    for r in gs.realms.iter_mut() {
        r.invitations
            .retain(|i| !i.used && i.valid_until_round > round);
    }
}

/// R-VP-*: every realm whose VP changed this weekend reads before and after.
fn ledger(w: &mut Weekend) {
    for realm in playing(w) {
        let before = w.start.realm(&realm).map_or(0, |r| r.vp);
        let after = w.state.realm(&realm).map_or(0, |r| r.vp);
        if before != after {
            tell(
                w,
                Step::WrapUp,
                EconomyEvent::Vp {
                    realm,
                    before,
                    after,
                },
            );
        }
    }
}

/// R-VP-1, Rulings 47: at or over the line, most VP first, then the earliest form.
fn victory(w: &mut Weekend) {
    let line = w.settings.victory_vp;
    let form_rank = |name: &str| {
        w.orders
            .forms
            .iter()
            .position(|f| f.realm == name)
            .unwrap_or(usize::MAX)
    };
    let winner = w
        .state
        .realms
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.eliminated && r.vp >= line)
        .min_by_key(|(i, r)| (std::cmp::Reverse(r.vp), form_rank(&r.name), *i))
        .map(|(_, r)| (r.name.clone(), r.vp));
    let Some((realm, vp)) = winner else {
        return;
    };
    w.state.phase = Phase::Finished;
    let everyone = w.state.realms.iter().map(|r| r.name.clone()).collect();
    let ev = EconomyEvent::Victory { realm, vp };
    w.emit(Step::WrapUp, everyone, What::Economy(ev));
}
