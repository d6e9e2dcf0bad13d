//! After step 9: relations (R-ALLY-1), capital and main harbour (R-CITY-9/10,
//! docs/rules.md, Rulings 29), trade wishes (R-RES-3), expired spell effects,
//! invitations and spies done before this round pruned, the VP ledger (R-VP-*) and the victory check (R-VP-1,
//! Rulings 47), which ends the game.

use crate::game::hash::FastMap;

use super::{tell, EconomyEvent};
use crate::game::event::Step;
use crate::game::orders::Order;
use crate::game::state::{seat_allowed, GameState, OwnerRuns, Phase, SpyState};
use crate::game::text::fold;
use crate::game::weekend::{Reads, Weekend};
use crate::game::Square;

pub(super) fn run(w: &mut Weekend) {
    let reading = w.reading(Reads::WrapUp);
    let names = Names::new(&w.state);
    for lines in reading.forms() {
        let Some(i) = w.state.realm_index(&lines.form.realm) else {
            continue;
        };
        if w.state.realms[i].eliminated {
            continue;
        }
        for o in lines.orders() {
            if let Some(ev) = apply(&mut w.state, &names, i, o) {
                tell(w, Step::WrapUp, ev);
            }
        }
    }
    stand_ins(w);
    sync_city_flags(&mut w.state);
    let round = w.round();
    prune(&mut w.state, round);
    secret_bonuses(w);
    ledger(w);
    victory(w);
}

/// The realms by folded name, found once (looked up, never read in order).
struct Names {
    folded: FastMap<String, String>,
}

impl Names {
    fn new(gs: &GameState) -> Names {
        Names {
            folded: gs
                .realms
                .iter()
                .map(|r| (fold(&r.name), r.name.clone()))
                .collect(),
        }
    }
}

/// One wrap-up order of realm `i`, applied; `None` when it is no wrap-up order or
/// no longer applies (the city was lost in the weekend).
fn apply(gs: &mut GameState, names: &Names, i: usize, o: &Order) -> Option<EconomyEvent> {
    let realm = gs.realms[i].name.clone();
    let realm = realm.as_str();
    match o {
        Order::Friend { realm: other } | Order::NotFriend { realm: other } => {
            let friend = matches!(o, Order::Friend { .. });
            let other = names
                .folded
                .get(&fold(other))
                .filter(|n| *n != realm)?
                .clone();
            let r = &mut gs.realms[i];
            r.friends.retain(|f| f != &other);
            if friend {
                r.friends.push(other.clone());
            }
            Some(EconomyEvent::Relation {
                realm: realm.into(),
                other,
                friend,
            })
        }
        Order::Capital { city } => {
            own_city(gs, realm, *city, false)?;
            gs.realms[i].capital = Some(*city);
            Some(EconomyEvent::Capital {
                realm: realm.into(),
                city: *city,
                stand_in: false,
            })
        }
        Order::MainHarbour { city } => {
            own_city(gs, realm, *city, true)?;
            gs.realms[i].main_harbour = Some(*city);
            Some(EconomyEvent::MainHarbour {
                realm: realm.into(),
                city: *city,
                stand_in: false,
            })
        }
        Order::TradeWishes { buy, sell } => {
            let r = &mut gs.realms[i];
            r.trade_wishes.buy = buy.iter().copied().take(2).collect();
            r.trade_wishes.sell = sell.iter().copied().take(2).collect();
            Some(EconomyEvent::TradeWishes {
                realm: realm.into(),
                buy: r.trade_wishes.buy.clone(),
                sell: r.trade_wishes.sell.clone(),
            })
        }
        _ => None,
    }
}

/// `sq` is an own city of `realm` that may be its seat (`Realm::may_seat_in`), and
/// coastal when asked.
fn own_city(gs: &GameState, realm: &str, sq: Square, coastal: bool) -> Option<()> {
    gs.cities
        .iter()
        .find(|c| c.square == sq && c.owner == realm && gs.may_seat_in(realm, c.dimension))
        .filter(|c| c.coastal || !coastal)
        .map(|_| ())
}

/// A city as the stand-in choice sees it.
#[derive(Clone, Copy)]
struct Seat {
    square: Square,
    population: u32,
    coastal: bool,
}

/// Rulings 29: a realm without a capital (or main harbour) it holds gets its most
/// populous city (coastal for a harbour) until it names one; ties by square name. Only
/// cities that may be its seat count (`Realm::may_seat_in`).
fn stand_ins(w: &mut Weekend) {
    // Each realm's seats by its place among the realms, the owner found once a run of
    // its cities.
    let mut seats: Vec<Vec<Seat>> = vec![Vec::new(); w.state.realms.len()];
    let gs = &w.state;
    let mut runs = OwnerRuns::default();
    for c in gs
        .cities
        .iter()
        .filter(|c| gs.may_seat_in(&c.owner, c.dimension))
    {
        if let Some(own) = runs.place(gs, &c.owner).and_then(|k| seats.get_mut(k)) {
            own.push(Seat {
                square: c.square,
                population: c.population,
                coastal: c.coastal,
            });
        }
    }
    for i in 0..w.state.realms.len() {
        let r = &w.state.realms[i];
        if r.eliminated {
            continue;
        }
        let (realm, evil) = (r.name.clone(), r.is_evil);
        let own = seats.get(i).map_or(&[][..], |v| v.as_slice());
        let holds = |sq: Option<Square>, coastal: bool| {
            sq.is_some_and(|sq| {
                own.iter()
                    .any(|s| s.square == sq && (s.coastal || !coastal))
            })
        };
        let capital = (!holds(r.capital, false)).then(|| best_city(own, false));
        let harbour = (!evil && !holds(r.main_harbour, true)).then(|| best_city(own, true));
        if let Some(city) = capital {
            w.state.realms[i].capital = city;
            if let Some(city) = city {
                let ev = EconomyEvent::Capital {
                    realm: realm.clone(),
                    city,
                    stand_in: true,
                };
                tell(w, Step::WrapUp, ev);
            }
        }
        if let Some(city) = harbour {
            w.state.realms[i].main_harbour = city;
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

fn best_city(own: &[Seat], coastal: bool) -> Option<Square> {
    own.iter()
        .filter(|s| s.coastal || !coastal)
        .max_by(|a, b| {
            a.population
                .cmp(&b.population)
                .then_with(|| b.square.to_string().cmp(&a.square.to_string()))
        })
        .map(|s| s.square)
}

/// Each city's capital and harbour flags follow its owner's choice.
fn sync_city_flags(gs: &mut GameState) {
    // The owner found once per run of its cities, by its place among the realms.
    let mut runs = OwnerRuns::default();
    let places: Vec<Option<usize>> = gs.cities.iter().map(|c| runs.place(gs, &c.owner)).collect();
    let GameState { realms, cities, .. } = gs;
    for (c, place) in cities.iter_mut().zip(places) {
        let (capital, harbour, evil) = place
            .and_then(|k| realms.get(k))
            .map_or((None, None, false), |r| {
                (r.capital, r.main_harbour, r.is_evil)
            });
        let home = seat_allowed(evil, c.dimension);
        c.capital = home && capital == Some(c.square);
        c.harbour = home && harbour == Some(c.square);
    }
}

/// Spell effects past their last round, invitations past theirs or used, and spies
/// whose work ended before this round (listed as done on one Monday form already).
fn prune(gs: &mut GameState, round: u32) {
    gs.effects.retain(|e| e.expires_round > round);
    gs.spies
        .retain(|s| s.state == SpyState::Waiting || s.done_round.is_some_and(|r| r >= round));
    gs.home_invitations.retain(|h| h.valid_until_round > round);
    for r in gs.realms.iter_mut() {
        r.invitations
            .retain(|i| !i.used && i.valid_until_round > round);
    }
}

/// R-VP-*: every realm whose VP changed this weekend reads before and after.
fn ledger(w: &mut Weekend) {
    let start = w.start;
    let changed: Vec<EconomyEvent> = w
        .state
        .realms
        .iter()
        .filter(|r| !r.eliminated)
        .filter_map(|r| {
            let before = start.realm(&r.name).map_or(0, |s| s.vp);
            (before != r.vp).then(|| EconomyEvent::Vp {
                realm: r.name.clone(),
                before,
                after: r.vp,
            })
        })
        .collect();
    for ev in changed {
        tell(w, Step::WrapUp, ev);
    }
}

/// R-POS-3, Rulings 10: a realm that reached 11 in a position this weekend (by an
/// upgrade, a reward, or the GM's edit of the state) is given the GM's secret text,
/// and told; the GM is told too, with the results, to apply its effect.
fn secret_bonuses(w: &mut Weekend) {
    for (i, position) in w.state.grant_secret_bonuses() {
        let r = &w.state.realms[i];
        let ev = EconomyEvent::SecretBonus {
            realm: r.name.clone(),
            position,
            value: r.positions.get(position),
            text: r.secret_bonuses.get(&position).cloned().unwrap_or_default(),
        };
        tell(w, Step::WrapUp, ev);
    }
}

/// R-VP-1, Rulings 47: at or over the line, most VP first, then the earliest form.
fn victory(w: &mut Weekend) {
    let line = w.settings.victory_vp;
    let mut ranks: FastMap<&str, usize> = FastMap::default();
    for (i, f) in w.orders.forms.iter().enumerate() {
        ranks.entry(f.realm.as_str()).or_insert(i);
    }
    let form_rank = |name: &str| ranks.get(name).copied().unwrap_or(usize::MAX);
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
    let everyone: Vec<String> = w.state.realms.iter().map(|r| r.name.clone()).collect();
    let ev = EconomyEvent::Victory { realm, vp };
    w.emit(Step::WrapUp, everyone, ev.into());
}
