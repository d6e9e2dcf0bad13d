//! The weekend's politics: the ruler's benefit and the VP rewards claimed on the form
//! (before step 1, so that the form's own arithmetic and the free merchants see them),
//! and after step 9 (docs/rules.md, Rulings 52) the vote (R-VOTE-1..6), the missions
//! (R-MISSION-1..4), the random events (R-RAND-1) and the VP thresholds reached
//! (R-VP-4). One file per part; this file holds the entry points and the events.

mod missions;
mod random;
mod rewards;
mod vote;

pub use vote::BENEFIT_POPULATION;

use serde::{Deserialize, Serialize};

use super::{Reads, Weekend};
use crate::game::event::Step;
use crate::game::orders::{Order, Reward};
use crate::game::state::{places_by_owner, GameState, LocalText, RulerBenefit};
use crate::game::{Position, Resource, Resources, Square, UnitKind};

/// VP for a mission the GM judged done (R-MISSION-3).
pub const MISSION_VP: i64 = 300;

/// What the politics steps did, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PoliticsEvent {
    /// R-VOTE-5: the ruler chose its benefit; it holds until `until_round` (the next
    /// vote); `cities` raised by 10 population for the population benefit.
    Benefit {
        realm: String,
        benefit: RulerBenefit,
        until_round: u32,
        cities: u32,
    },
    /// A claim on the form that no longer applies at the weekend.
    NotApplied {
        realm: String,
        order: Order,
        rule: String,
    },
    /// R-VP-4: the reward for `threshold`, applied.
    Reward {
        realm: String,
        threshold: i64,
        reward: Given,
    },
    /// R-VP-4: thresholds reached whose reward the realm may claim with REWARD.
    RewardOpen { realm: String, thresholds: Vec<i64> },
    /// R-VOTE-2..6: the realm's part in the vote. `ballot` is its counted vote (none:
    /// −50 VP); `winner` is the sole winner (none on a tie).
    Vote {
        realm: String,
        ballot: Option<String>,
        votes: u32,
        cities: u32,
        vp: i64,
        winner: Option<String>,
    },
    /// R-VOTE-1: the coming round is a voting round (the GM's announcement).
    VoteDue { realm: String, round: u32 },
    /// R-MISSION-2: the realm's new (secret) mission.
    Mission { realm: String, text: String },
    /// R-MISSION-3: the GM judged the mission done.
    MissionDone {
        realm: String,
        mission: String,
        vp: i64,
    },
    /// R-RAND-1: the d10 (and the GM's choice, if any) and what the event did.
    Random {
        realm: String,
        roll: u32,
        good: bool,
        text: LocalText,
        resources: Resources,
        units: Vec<UnitKind>,
        vp: i64,
        by_gm: bool,
    },
}

/// A VP reward as applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reward", rename_all = "snake_case")]
pub enum Given {
    Position {
        position: Position,
        value: u32,
    },
    Production {
        city: Square,
        resource: Resource,
        value: u32,
    },
    Resources {
        resources: Resources,
    },
}

impl PoliticsEvent {
    /// The realm the event is about.
    pub fn realm(&self) -> &str {
        match self {
            PoliticsEvent::Benefit { realm, .. }
            | PoliticsEvent::NotApplied { realm, .. }
            | PoliticsEvent::Reward { realm, .. }
            | PoliticsEvent::RewardOpen { realm, .. }
            | PoliticsEvent::Vote { realm, .. }
            | PoliticsEvent::VoteDue { realm, .. }
            | PoliticsEvent::Mission { realm, .. }
            | PoliticsEvent::MissionDone { realm, .. }
            | PoliticsEvent::Random { realm, .. } => realm,
        }
    }
}

/// Tell `realm` alone what happened to it.
fn tell(w: &mut Weekend, step: Step, ev: PoliticsEvent) {
    let realm = w.name(ev.realm());
    w.emit(step, [realm], ev.into());
}

/// A claim refused at the weekend.
fn not_applied(w: &mut Weekend, realm: &str, order: &Order, rule: &str) {
    let ev = PoliticsEvent::NotApplied {
        realm: realm.into(),
        order: order.clone(),
        rule: rule.to_string(),
    };
    tell(w, Step::Claims, ev);
}

/// Indices of the realms that play (not eliminated), in scenario order.
fn playing(w: &Weekend) -> Vec<usize> {
    (0..w.state.realms.len())
        .filter(|&i| !w.state.realms[i].eliminated)
        .collect()
}

/// The cities of each realm by index, found once (when first asked) for all of a
/// step's realms, so that no realm's lookup walks every city.
#[derive(Default)]
struct Cities {
    /// By the owner's place in `GameState::realms`.
    by_owner: Option<Vec<Vec<usize>>>,
}

impl Cities {
    fn of(&mut self, gs: &GameState, realm: &str) -> Vec<usize> {
        let lists = self
            .by_owner
            .get_or_insert_with(|| places_by_owner(gs, gs.cities.iter().map(|c| c.owner.as_str())));
        let place = gs.realm_index(realm);
        place
            .and_then(|p| lists.get(p))
            .cloned()
            .unwrap_or_default()
    }
}

/// `vp + add`, capped.
fn add_vp(vp: i64, add: i64) -> i64 {
    vp.saturating_add(add)
}

/// Before step 1: the ruler's benefit (R-VOTE-5) and the VP rewards (R-VP-4) claimed
/// on the form.
pub fn claims(w: &mut Weekend) {
    let reading = w.reading(Reads::Claims);
    let mut cities = Cities::default();
    for lines in reading.forms() {
        let Some(i) = w.state.realm_index(&lines.form.realm) else {
            continue;
        };
        if w.state.realms[i].eliminated {
            continue;
        }
        let mut benefit_seen = false;
        for o in lines.orders() {
            match o {
                Order::RulerBenefit { benefit } if !benefit_seen => {
                    benefit_seen = true;
                    vote::choose(w, i, *benefit, o);
                }
                Order::VpReward { reward } => rewards::claim(w, &mut cities, i, reward, o),
                _ => {}
            }
        }
    }
}

/// After step 9: missions the GM judged done, the vote and new missions, the random
/// events, the VP thresholds now open, and the announcement of a vote next round.
pub fn after_step_9(w: &mut Weekend) {
    missions::told_done(w);
    if vote::is_vote_round(w) {
        vote::run(w);
        missions::deal(w);
    }
    random::run(w);
    rewards::open(w);
    vote::announce(w);
}

/// R-VP-4 c: a resource reward is worth exactly 25 (slaves and crystals count two);
/// the rule cited when it is not.
fn reward_fits(reward: &Reward) -> Result<(), &'static str> {
    match reward {
        Reward::Resources(v) => {
            let worth = v.iter().fold(0u32, |acc, a| {
                let k = if a.resource.is_crystal() || a.resource == Resource::Slavar {
                    2
                } else {
                    1
                };
                acc.saturating_add(a.count.saturating_mul(k))
            });
            if worth == 25 {
                Ok(())
            } else {
                Err("R-VP-4")
            }
        }
        _ => Ok(()),
    }
}
