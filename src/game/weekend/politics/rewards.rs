//! VP threshold rewards (R-VP-4, docs/rules.md Rulings 47): every
//! `vp_threshold_step` VP reached opens one reward, taken once with REWARD on a
//! form; a reward spends no VP. Claims apply before step 1 (as the form counted
//! them); the thresholds open after the weekend are told after step 9.

use super::{not_applied, playing, reward_fits, tell, Cities, Given, PoliticsEvent};
use crate::game::event::Step;
use crate::game::orders::{Order, Reward};
use crate::game::weekend::Weekend;
use crate::game::Resources;

/// At most this many open thresholds are listed in one report line.
const LISTED: usize = 10;

/// The lowest threshold `vp` has reached that `taken` does not hold, if any.
pub(super) fn lowest_open(vp: i64, step: i64, taken: &[i64]) -> Option<i64> {
    let step = step.max(1);
    // Every taken threshold can push the answer one step up, no more.
    (1..=i64::try_from(taken.len())
        .unwrap_or(i64::MAX)
        .saturating_add(1))
        .map(|k| k.saturating_mul(step))
        .take_while(|&t| t <= vp)
        .find(|t| !taken.contains(t))
}

/// The open thresholds, lowest first, at most `max`.
fn open_list(vp: i64, step: i64, taken: &[i64], max: usize) -> Vec<i64> {
    let step = step.max(1);
    let span = i64::try_from(taken.len().saturating_add(max)).unwrap_or(i64::MAX);
    (1..=span)
        .map(|k| k.saturating_mul(step))
        .take_while(|&t| t <= vp)
        .filter(|t| !taken.contains(t))
        .take(max)
        .collect()
}

/// One REWARD line of realm `i`.
pub(super) fn claim(w: &mut Weekend, cities: &mut Cities, i: usize, reward: &Reward, o: &Order) {
    let r = &w.state.realms[i];
    let name = r.name.clone();
    let Some(threshold) = lowest_open(r.vp, w.settings.vp_threshold_step, &r.vp_rewards_taken)
    else {
        not_applied(w, &name, o, "R-VP-4");
        return;
    };
    let given = match give(w, cities, i, reward) {
        Ok(g) => g,
        Err(rule) => {
            not_applied(w, &name, o, rule);
            return;
        }
    };
    w.state.realms[i].vp_rewards_taken.push(threshold);
    let ev = PoliticsEvent::Reward {
        realm: name,
        threshold,
        reward: given,
    };
    tell(w, Step::Claims, ev);
}

/// Apply the reward: a) +1 on a position, b) +1 production of a resource the realm
/// already produces in one of its cities, c) 25 resources (slaves and crystals count
/// two each).
fn give(
    w: &mut Weekend,
    cities: &mut Cities,
    i: usize,
    reward: &Reward,
) -> Result<Given, &'static str> {
    reward_fits(reward)?;
    let name = w.state.realms[i].name.clone();
    match reward {
        Reward::Position(p) => {
            let v = w.state.realms[i].positions.get_mut(*p);
            *v = v.saturating_add(1);
            Ok(Given::Position {
                position: *p,
                value: *v,
            })
        }
        Reward::Production { city, resource } => {
            let own = cities.of(&w.state, &name);
            let gs = &mut w.state;
            let produces = own
                .iter()
                .any(|&k| gs.cities[k].production.get(*resource) > 0);
            let k = own
                .iter()
                .copied()
                .find(|&k| gs.cities[k].square == *city)
                .ok_or("R-VP-4")?;
            if !produces {
                return Err("R-VP-4");
            }
            let c = &mut gs.cities[k];
            let v = c.production.get(*resource).saturating_add(1);
            c.production.set(*resource, v);
            Ok(Given::Production {
                city: *city,
                resource: *resource,
                value: v,
            })
        }
        Reward::Resources(v) => {
            let mut add = Resources::ZERO;
            for a in v {
                let n = add.get(a.resource).saturating_add(a.count);
                add.set(a.resource, n);
            }
            let stock = &mut w.state.realms[i].stock;
            for (res, n) in add.iter() {
                let s = stock.get(res).saturating_add(n);
                stock.set(res, s);
            }
            Ok(Given::Resources { resources: add })
        }
    }
}

/// After step 9: every realm with a threshold reached and not yet rewarded is told.
pub(super) fn open(w: &mut Weekend) {
    let step = w.settings.vp_threshold_step;
    for i in playing(w) {
        let r = &w.state.realms[i];
        let thresholds = open_list(r.vp, step, &r.vp_rewards_taken, LISTED);
        if thresholds.is_empty() {
            continue;
        }
        let ev = PoliticsEvent::RewardOpen {
            realm: r.name.clone(),
            thresholds,
        };
        tell(w, Step::Politics, ev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_vp_4_lowest_open_threshold_skips_the_taken_ones() {
        assert_eq!(lowest_open(499, 500, &[]), None);
        assert_eq!(lowest_open(500, 500, &[]), Some(500));
        assert_eq!(lowest_open(1600, 500, &[500]), Some(1000));
        assert_eq!(lowest_open(1600, 500, &[1000, 500, 1500]), None);
        assert_eq!(lowest_open(i64::MAX, 1, &[1, 2]), Some(3));
        assert_eq!(lowest_open(-400, 500, &[]), None);
    }

    #[test]
    fn r_vp_4_the_open_list_is_short_even_for_huge_vp() {
        assert_eq!(open_list(i64::MAX, 1, &[], LISTED).len(), LISTED);
        assert_eq!(open_list(1200, 500, &[500], LISTED), vec![1000]);
    }
}
