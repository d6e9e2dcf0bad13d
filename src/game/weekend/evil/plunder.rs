//! R-EVIL-12/13 with Rulings 57: when the Evil attacks a city, or a normal realm a city
//! of the Evil, there is no takeover (an ordered takeover is a plunder). The plunderer
//! gets the city's production this round and its whole population, which moves into
//! the plunderer's most populous city; 25 VP pass from the loser to the winner; the
//! city produces nothing until its population is above 0 again. Razing costs the razer
//! 5 of each crystal first; a razer who cannot pay plunders instead.

use crate::game::event::Step;
use crate::game::orders::Outcome;
use crate::game::state::{City, GameState};
use crate::game::{Resources, Square};

use super::super::Weekend;
use super::{emit, EvilEvent};
use crate::game::Name;

/// VP the winner takes from the loser (R-EVIL-12).
pub const VP_EVIL_PLUNDER: i64 = 25;
/// Crystals of each kind razing costs (R-EVIL-12).
pub const RAZE_CRYSTALS: u32 = 5;

/// How the usual city rules should go on after the Evil's.
pub enum CityOutcome {
    /// Carry out this outcome the usual way.
    Usual(Option<Outcome>),
    /// Settled here; true when the attacker's army moves into the square.
    Done(bool),
}

pub(super) fn settle(
    w: &mut Weekend,
    attacker: &str,
    city: &City,
    outcome: Option<Outcome>,
) -> CityOutcome {
    if outcome == Some(Outcome::Raze) && pay_raze(w, attacker, city.square) {
        return CityOutcome::Usual(Some(Outcome::Raze));
    }
    plunder(w, attacker, city);
    CityOutcome::Done(false)
}

/// Pay 5 of each crystal to raze; false (and told) when the stock does not cover it.
fn pay_raze(w: &mut Weekend, attacker: &str, square: Square) -> bool {
    let cost = Resources::each_crystal(RAZE_CRYSTALS);
    let paid = w.state.realm_mut(attacker).is_some_and(|r| {
        let ok = cost.iter().all(|(res, n)| r.stock.get(res) >= n);
        if ok {
            for (res, n) in cost.iter() {
                let have = r.stock.get_mut(res);
                *have -= n;
            }
        }
        ok
    });
    let ev = EvilEvent::RazeCost {
        realm: attacker.into(),
        square,
        cost: Box::new(cost),
        paid,
    };
    emit(w, Step::Combat, [attacker.to_string()], ev);
    paid
}

/// The plunderer's most populous city (ties by square), other than `not`.
fn most_populous(gs: &GameState, realm: &str, not: Square) -> Option<Square> {
    gs.cities_of(realm)
        .filter(|c| c.square != not)
        .max_by(|a, b| {
            a.population
                .cmp(&b.population)
                .then_with(|| b.square.cmp(&a.square))
        })
        .map(|c| c.square)
}

fn plunder(w: &mut Weekend, attacker: &str, city: &City) {
    let defender = city.owner.clone();
    let into = most_populous(&w.state, attacker, city.square);
    let population = city.population;
    for c in w.state.cities.iter_mut() {
        if c.square == city.square {
            c.population = 0;
            c.plundered = true;
        } else if Some(c.square) == into {
            c.population = c.population.saturating_add(population);
        }
    }
    if let Some(a) = w.state.realm_mut(attacker) {
        a.stock = a.stock.plus(&city.production);
        a.vp = a.vp.saturating_add(VP_EVIL_PLUNDER);
    }
    if let Some(d) = w.state.realm_mut(&defender) {
        d.vp = d.vp.saturating_sub(VP_EVIL_PLUNDER);
    }
    // The owner gets nothing from it this weekend (and later only with people in it).
    w.plundered.insert(city.square);
    let ev = EvilEvent::Plundered {
        square: city.square,
        city: city.name.as_str().into(),
        attacker: attacker.into(),
        defender: defender.clone(),
        production: Box::new(city.production),
        population,
        into,
        vp: VP_EVIL_PLUNDER,
    };
    emit(w, Step::Combat, vec![Name::from(attacker), defender], ev);
}
