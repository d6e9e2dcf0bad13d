//! What happens to a city the attacker won (R-CITY-4..10, R-VP-3): plunder, takeover or
//! raze with their VP; a lost capital or main harbour and its stand-in (RULINGS 29); the
//! defender's fleets in a conquered city (R-CITY-8); the border delay (R-COMBAT-11).

use crate::game::event::{Step, What};
use crate::game::orders::Outcome;
use crate::game::state::{seat_allowed, City, Conquest, GameState};
use crate::game::{Resource, Square};

use super::super::{evil, Weekend};
use super::forces;
use super::index::Index;
use super::{MilitaryEvent, Seat};

/// VP of R-VP-3.
pub const VP_PLUNDER: i64 = 25;
pub const VP_CONQUER: i64 = 50;
pub const VP_CONQUER_CAPITAL: i64 = 100;
pub const VP_LOSE_CAPITAL: i64 = 100;
pub const VP_RAZED: i64 = 100;
/// Units of the most-held resource a plunderer takes (R-CITY-5).
pub const PLUNDER_TAKE: u32 = 5;

/// Settle the city on `square` that `attacker` won with `outcome` (no outcome counts as
/// plunder, the mildest). Returns true when the attacker's army moves into the square.
pub fn settle(
    w: &mut Weekend,
    ix: &mut Index,
    attacker: &str,
    square: Square,
    outcome: Option<Outcome>,
) -> bool {
    let Some(city) = ix
        .city_on(&w.state, square, |_| true)
        .map(|c| w.state.cities[c].clone())
    else {
        return true;
    };
    if city.owner == attacker {
        return true;
    }
    // R-EVIL-12: by or against the Evil, no takeover; its own plunder and razing cost.
    let outcome = match evil::settle_city(w, attacker, &city, outcome) {
        evil::CityOutcome::Usual(o) => o,
        evil::CityOutcome::Done(moves_in) => return moves_in,
    };
    match outcome.unwrap_or(Outcome::Plunder) {
        Outcome::Plunder => {
            plunder(w, attacker, &city);
            false
        }
        Outcome::Takeover => {
            takeover(w, ix, attacker, &city);
            true
        }
        Outcome::Raze => {
            raze(w, attacker, &city);
            ix.cities_changed(&w.state);
            true
        }
    }
}

fn add_vp(gs: &mut GameState, realm: &str, vp: i64) {
    if let Some(r) = gs.realm_mut(realm) {
        r.vp = r.vp.saturating_add(vp);
    }
}

fn both(a: &str, b: &str) -> Vec<String> {
    vec![a.to_string(), b.to_string()]
}

/// The ordinary resource `realm` holds most of, ties by resource order (RULINGS 28).
fn most_held(gs: &GameState, realm: &str) -> Option<(Resource, u32)> {
    let r = gs.realm(realm)?;
    let mut best: Option<(Resource, u32)> = None;
    for (res, n) in r.stock.iter().filter(|(res, _)| res.is_ordinary()) {
        if n > 0 && best.is_none_or(|(_, b)| n > b) {
            best = Some((res, n));
        }
    }
    best
}

fn plunder(w: &mut Weekend, attacker: &str, city: &City) {
    let defender = city.owner.clone();
    let taken = most_held(&w.state, &defender).map(|(res, n)| (res, n.min(PLUNDER_TAKE)));
    if let Some((res, n)) = taken {
        if let Some(d) = w.state.realm_mut(&defender) {
            let have = d.stock.get_mut(res);
            *have = have.saturating_sub(n);
        }
    }
    if let Some(a) = w.state.realm_mut(attacker) {
        a.stock = a.stock.plus(&city.production);
        if let Some((res, n)) = taken {
            let have = a.stock.get_mut(res);
            *have = have.saturating_add(n);
        }
    }
    add_vp(&mut w.state, attacker, VP_PLUNDER);
    // Step 6 gives the plundered city's owner nothing this weekend (R-CITY-5).
    w.plundered.insert(city.square);
    w.emit(
        Step::Combat,
        both(attacker, &defender),
        What::Military(MilitaryEvent::CityPlundered {
            square: city.square,
            city: city.name.as_str().into(),
            attacker: attacker.into(),
            defender,
            production: Box::new(city.production),
            taken,
            vp: VP_PLUNDER,
        }),
    );
}

fn takeover(w: &mut Weekend, ix: &Index, attacker: &str, city: &City) {
    let defender = city.owner.clone();
    let (won, lost) = if city.capital {
        (VP_CONQUER_CAPITAL, VP_LOSE_CAPITAL)
    } else {
        (VP_CONQUER, 0)
    };
    if let Some(ci) = ix.city_on(&w.state, city.square, |_| true) {
        let c = &mut w.state.cities[ci];
        c.owner = attacker.into();
        c.capital = false;
        c.harbour = false;
    }
    add_vp(&mut w.state, attacker, won);
    add_vp(&mut w.state, &defender, -lost);
    let round = w.round();
    w.state.conquests.push(Conquest {
        square: city.square,
        from: defender.to_string(),
        to: attacker.to_string(),
        round,
    });
    w.emit(
        Step::Combat,
        both(attacker, &defender),
        What::Military(MilitaryEvent::CityTakenOver {
            square: city.square,
            city: city.name.as_str().into(),
            attacker: attacker.into(),
            defender: defender.clone(),
            capital: city.capital,
            vp_won: won,
            vp_lost: lost,
        }),
    );
    fleets_must_leave(w, &defender, city.square);
    seats_lost(w, city);
}

fn raze(w: &mut Weekend, attacker: &str, city: &City) {
    let defender = city.owner.clone();
    let lost = if city.capital {
        VP_RAZED + VP_LOSE_CAPITAL
    } else {
        VP_RAZED
    };
    w.state.cities.retain(|c| c.square != city.square);
    add_vp(&mut w.state, &defender, -lost);
    w.emit(
        Step::Combat,
        both(attacker, &defender),
        What::Military(MilitaryEvent::CityRazed {
            square: city.square,
            city: city.name.as_str().into(),
            attacker: attacker.into(),
            defender,
            capital: city.capital,
            vp_lost: lost,
        }),
    );
    seats_lost(w, city);
}

/// R-CITY-8: the defender's fleets in the conquered city must leave next round.
fn fleets_must_leave(w: &mut Weekend, defender: &str, square: Square) {
    let by_round = w.round().saturating_add(1);
    let mut left = Vec::new();
    let theirs = forces::fleets_of(&w.state, defender);
    for f in w.state.fleets[theirs]
        .iter_mut()
        .filter(|f| f.square == square)
    {
        f.must_leave_by_round = Some(by_round);
        left.push(f.id);
    }
    for fleet in left {
        w.emit(
            Step::Combat,
            vec![defender.to_string()],
            What::Military(MilitaryEvent::FleetMustLeave {
                realm: defender.into(),
                fleet,
                square,
                by_round,
            }),
        );
    }
}

/// RULINGS 29: a lost capital or main harbour is replaced, until the realm names a new
/// one, by its most populous city of the normal map (coastal for a harbour), ties by
/// square name.
fn seats_lost(w: &mut Weekend, city: &City) {
    let realm = city.owner.clone();
    for (seat, held) in [(Seat::Capital, city.capital), (Seat::Harbour, city.harbour)] {
        if !held {
            continue;
        }
        let stand_in = stand_in(&w.state, &realm, seat);
        set_seat(&mut w.state, &realm, seat, stand_in);
        w.emit(
            Step::Combat,
            vec![realm.clone()],
            What::Military(MilitaryEvent::SeatLost {
                realm: realm.clone(),
                seat,
                lost: city.square,
                stand_in,
            }),
        );
    }
}

fn stand_in(gs: &GameState, realm: &str, seat: Seat) -> Option<Square> {
    gs.cities
        .iter()
        .filter(|c| c.owner == realm && gs.may_seat_in(realm, c.dimension))
        .filter(|c| seat == Seat::Capital || c.coastal)
        .max_by(|a, b| {
            a.population
                .cmp(&b.population)
                .then_with(|| b.square.to_string().cmp(&a.square.to_string()))
        })
        .map(|c| c.square)
}

fn set_seat(gs: &mut GameState, realm: &str, seat: Seat, square: Option<Square>) {
    // A city that may be the realm's seat (Rulings 29, as the wrap-up reads it).
    let evil = gs.realm(realm).is_some_and(|r| r.is_evil);
    for c in gs.cities.iter_mut().filter(|c| c.owner == realm) {
        let on = Some(c.square) == square && seat_allowed(evil, c.dimension);
        match seat {
            Seat::Capital => c.capital = on,
            Seat::Harbour => c.harbour = on,
        }
    }
    if let Some(r) = gs.realm_mut(realm) {
        match seat {
            Seat::Capital => r.capital = square,
            Seat::Harbour => r.main_harbour = square,
        }
    }
}
