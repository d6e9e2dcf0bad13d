//! The weekend, resolved: a pure function from the state, the orders that counted, the
//! rule settings and the game's seed to the next state and the structured events of
//! what happened. No I/O, no clock, no global RNG: every roll comes from a dice source
//! seeded by (seed, round, purpose) and is kept with the resolution, so a round can be
//! replayed bit for bit from its stored inputs.
//!
//! The steps run in the rulebook's order (R-PHASE-1), with what the order omits placed
//! as docs/rules.md, Rulings 52 says. Each step is one file with `run(&mut Weekend)`;
//! magic, the vote, free merchants, research, random events and the Evil are added as
//! steps, not as a rewrite.

pub mod economy;
pub mod espionage;
pub mod evil;
pub mod magic;
pub mod market;
pub mod military;
pub mod politics;

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::dice::{Dice, Roll};
use super::event::{Event, SeenBy, Step, What};
use super::name::Name;
use super::orders::Order;
use super::square::Square;
use super::state::{GameState, Phase, RuleSettings};

/// One realm's orders that counted this weekend, in the form's line order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormOrders {
    pub realm: String,
    /// When the counting form arrived (the movement order's tie-break, R-MOVE-7).
    pub received_at: DateTime<Utc>,
    pub orders: Vec<Order>,
}

/// Every realm's orders, earliest form first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Orders {
    pub forms: Vec<FormOrders>,
}

impl Orders {
    /// The orders of `realm` (none when it sent no form).
    pub fn of(&self, realm: &str) -> &[Order] {
        self.forms
            .iter()
            .find(|f| f.realm == realm)
            .map_or(&[], |f| f.orders.as_slice())
    }
}

/// What a weekend produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    pub state: GameState,
    pub events: Vec<Event>,
    /// Every roll, in the order made, each naming its purpose.
    pub rolls: Vec<Roll>,
}

/// The weekend in progress: the state being changed, the inputs, and what happened.
pub struct Weekend<'a> {
    pub state: GameState,
    /// The state as the forms found it (before step 1): what the slave revolt
    /// counts (docs/rules.md, Rulings 5) and the VP ledger compares with.
    pub start: &'a GameState,
    /// Cities plundered in step 4 (R-CITY-5): step 6 gives their owner nothing.
    pub plundered: BTreeSet<Square>,
    /// This round's spell effects, indexed for steps 3, 4 and 6 (set again by step 2).
    pub magic: magic::reads::Spells,
    pub orders: &'a Orders,
    pub settings: &'a RuleSettings,
    seed: u64,
    pub events: Vec<Event>,
    rolls: Vec<Roll>,
    /// The military index handed from step 2 to step 3 and from step 3 to step 4, so a
    /// weekend builds it once for the three (only inside `resolve`, where nothing moves
    /// a group between the steps: each group moves through the index).
    pub(crate) index: Option<military::index::Index>,
    keep_index: bool,
    /// Where each group that met enemy troops in step 3 came from (step 4 withdraws it
    /// there at the round limit, Rulings 31).
    pub(crate) entered_from:
        std::collections::BTreeMap<(Name, super::orders::Group), military::Entered>,
    /// Each realm's one shared name, by its place in `state.realms`; the owners in
    /// `state` point at these (`share_names`), so copying one is a count and comparing
    /// two looks at their address first.
    names: Vec<Name>,
    /// Each realm's form in `orders.forms` (the first when a realm has two), so a step
    /// finds a realm's orders without searching every form.
    forms: super::hash::FastMap<&'a str, usize>,
    /// Each realm's army units as the forms found it, by its place in `start.realms`:
    /// what the slave revolt weighs (R-RES-7). Counted while the names are shared, so
    /// step 7 does not read every group of `start` again long after the copy.
    start_army_units: Vec<u32>,
    /// The groups that carried a treasure as the forms found them (owner, number, the
    /// treasure), noted in the same pass: what Rulings 55 looks for at the end.
    start_treasures: Vec<Carried>,
}

/// A group carrying a treasure: its owner, its number, and what the treasure holds.
pub type Carried = (Name, u32, crate::game::Resources);

/// Where each realm's first form is in `orders.forms`.
fn form_places(orders: &Orders) -> super::hash::FastMap<&str, usize> {
    let mut at = super::hash::FastMap::default();
    for (k, f) in orders.forms.iter().enumerate() {
        at.entry(f.realm.as_str()).or_insert(k);
    }
    at
}

/// Army groups, fleets and realms of a state, plus some: what the lists of a weekend
/// are reserved for.
fn groups(state: &GameState) -> usize {
    let n = state.armies.len() + state.fleets.len() + 16 * state.realms.len();
    // Reserved memory is only paid for when used: room for twice that many.
    n.saturating_mul(2)
}

impl<'a> Weekend<'a> {
    pub fn new(
        state: &'a GameState,
        orders: &'a Orders,
        settings: &'a RuleSettings,
        seed: u64,
    ) -> Self {
        let mut own = state.clone();
        let Shared {
            names,
            army_units: start_army_units,
            treasures: start_treasures,
        } = share_names(&mut own);
        Weekend {
            state: own,
            start: state,
            plundered: BTreeSet::new(),
            magic: magic::reads::Spells::of(state),
            orders,
            settings,
            seed,
            // About one event and a roll or two per group: reserved at once, so a large
            // weekend does not copy its growing lists over and over.
            events: Vec::with_capacity(groups(state)),
            rolls: Vec::with_capacity(groups(state)),
            index: None,
            keep_index: false,
            entered_from: Default::default(),
            names,
            forms: form_places(orders),
            start_army_units,
            start_treasures,
        }
    }

    /// The army units realm `place` (in `start.realms`) held when the forms came in.
    pub fn start_army_units(&self, place: usize) -> u32 {
        self.start_army_units.get(place).copied().unwrap_or(0)
    }

    /// The groups that carried a treasure when the forms came in: (owner, number, the
    /// treasure), in the state's order.
    pub fn start_treasures(&self) -> &[Carried] {
        &self.start_treasures
    }

    /// The orders of `realm` this weekend (none when it sent no form), as
    /// `Orders::of` finds them.
    pub fn orders_of(&self, realm: &str) -> &'a [Order] {
        let orders: &'a Orders = self.orders;
        self.forms
            .get(realm)
            .and_then(|&k| orders.forms.get(k))
            .map_or(&[], |f| f.orders.as_slice())
    }

    /// `realm`'s shared name (a new one for a name that is not a realm's).
    pub fn name(&self, realm: &str) -> Name {
        self.state
            .realm_index(realm)
            .and_then(|k| self.names.get(k))
            .filter(|n| **n == *realm)
            .cloned()
            .unwrap_or_else(|| Name::from(realm))
    }

    /// The shared name of the realm at `place` in `state.realms`.
    pub fn name_at(&self, place: usize) -> Name {
        match (self.names.get(place), self.state.realms.get(place)) {
            (Some(n), Some(r)) if *n == r.name => n.clone(),
            (_, r) => Name::from(r.map_or("", |r| r.name.as_str())),
        }
    }

    /// The military index the last step passed on (its cities indexed again, which
    /// is cheap), or a new one.
    pub(crate) fn take_index(&mut self) -> military::index::Index {
        match self.index.take() {
            Some(mut ix) => {
                ix.cities_changed(&self.state);
                ix
            }
            None => military::index::Index::build(&self.state),
        }
    }

    /// Keep the military index of this step for the next one (see `index`).
    pub(crate) fn pass_index(&mut self, ix: military::index::Index) {
        if self.keep_index {
            self.index = Some(ix);
        }
    }

    /// The round being resolved.
    pub fn round(&self) -> u32 {
        self.start.round
    }

    /// A dice source for one purpose of this round (e.g. `combat/E5`). Hand it back with
    /// `keep` so its rolls are recorded.
    pub fn dice(&self, purpose: &str) -> Dice {
        Dice::new(self.seed, self.round(), &format!("weekend/{purpose}"))
    }

    /// Record the rolls of a dice source made by `dice`.
    pub fn keep(&mut self, dice: Dice) {
        self.rolls.append(&mut dice.into_rolls());
    }

    /// Record what happened; `seen_by` are the realms whose report tells it.
    pub fn emit<S: Into<Name>>(
        &mut self,
        step: Step,
        seen_by: impl IntoIterator<Item = S>,
        what: What,
    ) {
        self.events.push(Event {
            step,
            seen_by: seen_by.into_iter().map(Into::into).collect(),
            what,
        });
    }

    /// Record what happened, told to `realm` alone (by its shared name).
    pub fn tell_one(&mut self, step: Step, realm: &str, what: What) {
        let seen_by = SeenBy::one(self.name(realm));
        self.events.push(Event {
            step,
            seen_by,
            what,
        });
    }

    fn finish(self) -> Resolution {
        Resolution {
            state: self.state,
            events: self.events,
            rolls: self.rolls,
        }
    }
}

/// Point every owner in `gs` (army groups, fleets, cities, map squares) at its realm's
/// one name, and give those names back by the realm's place in `gs.realms`, with each
/// realm's army units and the groups carrying a treasure (read from the groups this
/// pass reads anyway). Owners of one realm mostly follow each other, so the last one
/// found is tried first.
fn share_names(gs: &mut GameState) -> Shared {
    let (places, realms) = (&gs.realm_places, &gs.realms);
    // The first mention of each realm's name is adopted as its one name, so a state
    // whose names are already shared (every state read from the store) is only read.
    let mut names: Vec<Option<Name>> = vec![None; realms.len()];
    let mut last: Option<usize> = None;
    let mut share = |owner: &mut Name| -> Option<usize> {
        let k = match last {
            Some(k) if names[k].as_ref().is_some_and(|n| n == owner) => k,
            _ => places.place(realms, owner)?,
        };
        last = Some(k);
        match &names[k] {
            Some(n) if n.same(owner) => {}
            Some(n) => *owner = n.clone(),
            None => names[k] = Some(owner.clone()),
        }
        Some(k)
    };
    let mut army_units = vec![0u32; realms.len()];
    let mut treasures = Vec::new();
    for a in gs.armies.iter_mut() {
        if let Some(n) = share(&mut a.owner).and_then(|k| army_units.get_mut(k)) {
            let units = u32::try_from(a.units.len()).unwrap_or(u32::MAX);
            *n = n.saturating_add(units);
        }
        if !a.treasure.is_zero() {
            treasures.push((a.owner.clone(), a.id, a.treasure.amount()));
        }
    }
    let fleets = gs.fleets.iter_mut().map(|f| &mut f.owner);
    let cities = gs.cities.iter_mut().map(|c| &mut c.owner);
    let squares = gs.map.squares.values_mut();
    let on_map = squares.flat_map(|m| m.owner.iter_mut().chain(m.evil_owner.iter_mut()));
    for owner in fleets.chain(cities).chain(on_map) {
        share(owner);
    }
    let named = names.into_iter().zip(&gs.realms);
    let names = named
        .map(|(n, r)| n.unwrap_or_else(|| Name::from(r.name.as_str())))
        .collect();
    Shared {
        names,
        army_units,
        treasures,
    }
}

/// What `share_names` gives back, read from the groups in the one pass it makes.
struct Shared {
    /// Each realm's one name, by its place in `gs.realms`.
    names: Vec<Name>,
    /// Each realm's army units, by its place in `gs.realms`.
    army_units: Vec<u32>,
    /// The groups carrying a treasure.
    treasures: Vec<Carried>,
}

/// Resolve the weekend of `state.round`.
pub fn resolve(
    state: &GameState,
    orders: &Orders,
    settings: &RuleSettings,
    seed: u64,
) -> Resolution {
    let mut w = Weekend::new(state, orders, settings, seed);
    w.keep_index = true;
    w.state.phase = Phase::Resolving;
    politics::claims(&mut w); // the ruler's benefit and VP rewards, before step 1
    economy::purchases(&mut w); // step 1
    market::free_merchants(&mut w); // step 1: placements, auction, engineers, research, offer
    let carried = military::water::carried_at_sea(&w.state);
    magic::run(&mut w); // step 2
    military::water::drown_stranded(&mut w, Step::Magic, &carried);
    military::movement(&mut w); // step 3
    let carried = military::water::carried_at_sea(&w.state);
    military::combat(&mut w); // step 4
    w.index = None;
    military::water::drown_stranded(&mut w, Step::Combat, &carried);
    // Nothing after step 4 takes a group to sea (invitations lead to land), so the
    // groups carried now are those steps 8 and the politics step can strand.
    let carried = military::water::carried_at_sea(&w.state);
    evil::after_combat(&mut w); // treasures found (R-EVIL-6, Rulings 52)
    military::invitations(&mut w); // step 5
    economy::production(&mut w); // step 6
    economy::slave_revolt(&mut w); // step 7
    economy::overflow(&mut w); // step 8
    military::water::drown_stranded(&mut w, Step::Overflow, &carried);
    military::home_invitations(&mut w); // step 9
    espionage::passive_rolls(&mut w); // after step 9: passive spy rolls (R-SPY-9)
    politics::after_step_9(&mut w); // vote, missions, random events, VP thresholds
    military::water::drown_stranded(&mut w, Step::Politics, &carried);
    military::water::waterway_lapses(&mut w); // an army Waterway left on the water drowns
    evil::end_of_weekend(&mut w); // treasures home, portals, sight (R-EVIL)
    economy::wrap_up(&mut w); // relations, capital and harbour, wishes, VP, victory
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> GameState {
        crate::game::load_scenario(include_str!("../../../scenarios/demo.yaml")).expect("demo")
    }

    /// Every owner of a realm in the weekend's state is that realm's one name, whether
    /// the state came with one copy a mention (made by hand) or shared names (read).
    fn names_shared(gs: &GameState) {
        let orders = Orders::default();
        let w = Weekend::new(gs, &orders, &gs.settings, 1);
        let owners = w.state.armies.iter().map(|a| &a.owner);
        let owners = owners.chain(w.state.cities.iter().map(|c| &c.owner));
        let squares = w.state.map.squares.values();
        let owners = owners.chain(squares.filter_map(|m| m.owner.as_ref()));
        let mut seen = 0;
        for o in owners {
            let place = w.state.realm_index(o).expect("a realm");
            assert!(o.same(&w.names[place]), "{o}");
            seen += 1;
        }
        assert!(seen > 20, "{seen} owners");
        assert_eq!(w.names.len(), gs.realms.len());
        for (n, r) in w.names.iter().zip(&gs.realms) {
            assert_eq!(n.as_str(), r.name);
        }
    }

    #[test]
    fn the_weekend_shares_each_realms_name_in_a_state_made_by_hand() {
        let mut gs = demo();
        // One copy a mention.
        for a in &mut gs.armies {
            a.owner = Name::from(a.owner.as_str());
        }
        for m in gs.map.squares.values_mut() {
            m.owner = m.owner.as_deref().map(Name::from);
        }
        assert!(!gs.armies[0].owner.same(&gs.armies[1].owner));
        names_shared(&gs);
    }

    #[test]
    fn the_weekend_shares_each_realms_name_in_a_state_read_back() {
        let gs = demo();
        let read: GameState =
            serde_json::from_str(&serde_json::to_string(&gs).expect("json")).expect("read");
        names_shared(&read);
    }

    #[test]
    fn the_weekend_counts_each_realms_army_units_as_the_forms_found_them() {
        let mut gs = demo();
        // Out of owner order, and one group of many units, as a hand-made state may be.
        gs.armies.reverse();
        let extra = gs.armies[0].units[0];
        gs.armies[0].units.extend(std::iter::repeat_n(extra, 40));
        let orders = Orders::default();
        let w = Weekend::new(&gs, &orders, &gs.settings, 1);
        let mut armed = 0;
        for (i, r) in gs.realms.iter().enumerate() {
            let counted = gs.counted_units(&r.name).army_units;
            assert_eq!(w.start_army_units(i), counted, "{}", r.name);
            armed += usize::from(counted > 0);
        }
        assert!(armed >= 2, "{armed} realms with armies");
        assert_eq!(w.start_army_units(gs.realms.len()), 0, "no such realm");
    }

    #[test]
    fn a_weekend_without_orders_is_resolved_the_same_twice_and_marks_the_phase() {
        let gs = demo();
        let a = resolve(&gs, &Orders::default(), &gs.settings, gs.game.seed);
        let b = resolve(&gs, &Orders::default(), &gs.settings, gs.game.seed);
        assert_eq!(a, b);
        assert_eq!(a.state.phase, Phase::Resolving);
        assert_eq!(
            a.state.round, gs.round,
            "the app advances the round, not the engine"
        );
    }

    #[test]
    fn dice_of_a_weekend_depend_on_the_seed_the_round_and_the_purpose() {
        let gs = demo();
        let orders = Orders::default();
        let w = Weekend::new(&gs, &orders, &gs.settings, 7);
        let roll = |mut d: Dice| (0..8).map(|_| d.d20()).collect::<Vec<_>>();
        assert_eq!(roll(w.dice("combat/E5")), roll(w.dice("combat/E5")));
        assert_ne!(roll(w.dice("combat/E5")), roll(w.dice("combat/E6")));
        let other = Weekend::new(&gs, &orders, &gs.settings, 8);
        assert_ne!(roll(w.dice("combat/E5")), roll(other.dice("combat/E5")));
    }
}
