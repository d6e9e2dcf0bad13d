//! The vote (R-VOTE-1..6, docs/rules.md Rulings 49 and 59) after step 9, and the
//! ruler's benefit chosen on the next form (R-VOTE-5), applied before step 1.

use std::collections::BTreeMap;

use super::{add_vp, not_applied, playing, tell, PoliticsEvent};
use crate::game::event::Step;
use crate::game::hash::FastMap;
use crate::game::orders::Order;
use crate::game::state::{Ruler, RulerBenefit, Vote};
use crate::game::text::fold;
use crate::game::weekend::{Reads, Weekend};

/// R-VOTE-3: VP per vote received.
pub const VP_PER_VOTE: i64 = 50;
/// R-VOTE-2: VP lost by a realm that does not vote.
pub const VP_NO_VOTE: i64 = -50;
/// R-VOTE-4: VP per city held at a vote.
pub const VP_PER_CITY: i64 = 10;
/// R-VOTE-5: population the population benefit adds to every city.
pub const BENEFIT_POPULATION: u32 = 10;

/// R-VOTE-1: a vote every `vote_every` rounds, the first in round `vote_every`.
pub(super) fn is_vote_round(w: &Weekend) -> bool {
    let every = w.settings.vote_every.max(1);
    w.round() > 0 && w.round().is_multiple_of(every)
}

/// The ballots, the VP, the ruler and every realm's report.
pub(super) fn run(w: &mut Weekend) {
    let voters: Vec<usize> = playing(w)
        .into_iter()
        .filter(|&i| !w.state.realms[i].is_evil)
        .collect();
    let ballots = ballots(w, &voters);
    let mut received: BTreeMap<&str, u32> = BTreeMap::new();
    for c in ballots.values() {
        let n = received.entry(c.as_str()).or_default();
        *n = n.saturating_add(1);
    }
    let winner = sole_winner(&received);
    // Looked up by name, never read in order.
    let mut cities: FastMap<&str, u32> = FastMap::default();
    for c in &w.state.cities {
        let n = cities.entry(c.owner.as_str()).or_default();
        *n = n.saturating_add(1);
    }
    let mut evs = Vec::new();
    for &i in &voters {
        let name = w.state.realms[i].name.clone();
        let votes = received.get(name.as_str()).copied().unwrap_or(0);
        let held = cities.get(name.as_str()).copied().unwrap_or(0);
        let ballot = ballots.get(&i).cloned();
        let vp = vote_vp(ballot.is_some(), votes, held);
        evs.push((
            i,
            vp,
            PoliticsEvent::Vote {
                realm: name,
                ballot,
                votes,
                cities: held,
                vp,
                winner: winner.map(str::to_string),
            },
        ));
    }
    let round = w.round();
    let winner = winner.map(str::to_string);
    store_ballots(w, &ballots, round);
    for (i, vp, ev) in evs {
        let r = &mut w.state.realms[i];
        r.vp = add_vp(r.vp, vp);
        tell(w, Step::Politics, ev);
    }
    let every = w.settings.vote_every.max(1);
    w.state.ruler = winner.map(|realm| Ruler {
        realm,
        benefit: None,
        from_round: round.saturating_add(1),
        until_round: round.saturating_add(every),
    });
}

/// The VP of one realm's vote: ±50 for its own ballot, +50 a vote, +10 a city.
fn vote_vp(voted: bool, votes: u32, cities: u32) -> i64 {
    let own = if voted { 0 } else { VP_NO_VOTE };
    own.saturating_add(VP_PER_VOTE.saturating_mul(i64::from(votes)))
        .saturating_add(VP_PER_CITY.saturating_mul(i64::from(cities)))
}

/// The counted ballot of each voter: its form's first vote, for another realm that
/// plays and is not the Evil (R-VOTE-2, Rulings 59). A vote for oneself, for the Evil
/// or for no realm counts as no vote.
fn ballots(w: &Weekend, voters: &[usize]) -> BTreeMap<usize, String> {
    let by_fold: FastMap<String, usize> = voters
        .iter()
        .map(|&i| (fold(&w.state.realms[i].name), i))
        .collect();
    let by_name: FastMap<&str, usize> = voters
        .iter()
        .map(|&i| (w.state.realms[i].name.as_str(), i))
        .collect();
    let mut out = BTreeMap::new();
    let reading = w.reading(Reads::Vote);
    for lines in reading.forms() {
        let Some(&i) = by_name.get(lines.form.realm.as_str()) else {
            continue;
        };
        let first = lines.orders().find_map(|o| match o {
            Order::Vote { realm } => Some(realm),
            _ => None,
        });
        let Some(&c) = first.and_then(|n| by_fold.get(&fold(n))) else {
            continue;
        };
        if c != i {
            out.entry(i)
                .or_insert_with(|| w.state.realms[c].name.clone());
        }
    }
    out
}

/// The realm with the most votes when no other has as many (R-VOTE-5/6).
fn sole_winner<'a>(received: &BTreeMap<&'a str, u32>) -> Option<&'a str> {
    let top = received.values().copied().max().filter(|&n| n > 0)?;
    let mut at_top = received.iter().filter(|(_, &n)| n == top);
    let (name, _) = at_top.next()?;
    at_top.next().is_none().then_some(*name)
}

/// Spy mission 9 reads who voted for whom: the ballots of the latest vote only.
fn store_ballots(w: &mut Weekend, ballots: &BTreeMap<usize, String>, round: u32) {
    w.state.votes = ballots
        .iter()
        .map(|(&i, c)| Vote {
            round,
            voter: w.state.realms[i].name.clone(),
            candidate: c.clone(),
        })
        .collect();
}

/// R-VOTE-5: the ruler's choice on the form after the vote; the population benefit
/// is given at once (+10 in every city it holds), the others hold until the next vote.
pub(super) fn choose(w: &mut Weekend, i: usize, benefit: RulerBenefit, o: &Order) {
    let round = w.round();
    let name = w.state.realms[i].name.clone();
    let ruler = w.state.ruler.as_mut().filter(|r| {
        r.realm == name && r.benefit.is_none() && r.from_round <= round && round < r.until_round
    });
    let Some(ruler) = ruler else {
        not_applied(w, &name, o, "R-VOTE-5");
        return;
    };
    ruler.benefit = Some(benefit);
    let until_round = ruler.until_round;
    let mut cities = 0u32;
    if benefit == RulerBenefit::Population {
        for c in w.state.cities.iter_mut().filter(|c| c.owner == name) {
            c.population = c.population.saturating_add(BENEFIT_POPULATION);
            cities = cities.saturating_add(1);
        }
    }
    let ev = PoliticsEvent::Benefit {
        realm: name,
        benefit,
        until_round,
        cities,
    };
    tell(w, Step::Claims, ev);
}

/// R-VOTE-1: when the coming round is a voting round, every realm that votes reads it
/// in this weekend's report (the form of that round carries the ballot).
pub(super) fn announce(w: &mut Weekend) {
    let every = w.settings.vote_every.max(1);
    let next = w.round().saturating_add(1);
    if !next.is_multiple_of(every) {
        return;
    }
    for i in playing(w) {
        let r = &w.state.realms[i];
        if r.is_evil {
            continue;
        }
        let ev = PoliticsEvent::VoteDue {
            realm: r.name.clone(),
            round: next,
        };
        tell(w, Step::Politics, ev);
    }
}
