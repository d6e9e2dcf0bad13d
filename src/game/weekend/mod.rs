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
mod lands;
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
use super::state::{GameState, Map, Phase, Realm, RealmPlaces, RuleSettings};

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
    /// The army groups and fleets are in order (`forces::sort`): set by the first
    /// military step's sort inside `resolve`, where the steps up to step 9 only move,
    /// insert in order or drop groups, so the later military steps need not read every
    /// group again to sort them (`sort_forces`). Cleared where `resolve` runs a step that
    /// adds groups at the end of the lists.
    forces_sorted: bool,
    /// Where each group that met enemy troops in step 3 came from (step 4 withdraws it
    /// there at the round limit, Rulings 31).
    pub(crate) entered_from:
        std::collections::BTreeMap<(Name, super::orders::Group), military::Entered>,
    /// Where in `events` the moves are that stopped on meeting enemy troops (steps 2
    /// and 3), noted as they are recorded: step 4 fights them without reading every
    /// event of the weekend again.
    pub(crate) met: Vec<usize>,
    /// The squares with an open portal, in square order: found as the state is copied,
    /// kept as step 2 opens portals and the end of the weekend closes them
    /// (`portal_opened`, `portal_closed`), so neither reads every square of the map to
    /// find the few portals.
    pub(crate) portals: Vec<Square>,
    /// Each realm's one shared name, by its place in `state.realms`; the owners in
    /// `state` point at these (`own_copy`), so copying one is a count and comparing
    /// two looks at their address first.
    names: Vec<Name>,
    /// Each realm's form in `orders.forms` (the first when a realm has two), so a step
    /// finds a realm's orders without searching every form.
    forms: super::hash::FastMap<&'a str, usize>,
    /// Where on the forms each step's orders are, found in one pass over every line:
    /// a step reads its own lines, not every line of every form (`reading`).
    lines: std::rc::Rc<Lines>,
    /// Each realm's army units as the forms found it, by its place in `start.realms`:
    /// what the slave revolt weighs (R-RES-7). Counted while the names are shared, so
    /// step 7 does not read every group of `start` again long after the copy.
    start_army_units: Vec<u32>,
    /// The groups that carried a treasure as the forms found them (owner, number, the
    /// treasure), noted in the same pass: what Rulings 55 looks for at the end.
    start_treasures: Vec<Carried>,
    /// A group may hold a water elemental before step 4 ends: one did when the forms
    /// came in (noted in the same pass), or a line of the forms buys or places one.
    /// Nothing else raises one before the random events, so when this is false no
    /// group can stand at sea carried by one (`military::water::carried`).
    pub(crate) water_elementals: bool,
    /// An army picked up a treasure this weekend (`evil::treasures`). Treasure comes
    /// only from there or from the state the forms found (`start_treasures`); merges and
    /// splits only move it between groups. With neither, no group carries any, and the
    /// end of the weekend credits nothing without reading every group to find out.
    pub(crate) treasure_found: bool,
    /// What step 1 reads from every army group, noted as the groups were copied
    /// (`economy::GroupNotes`); step 1 takes it.
    pub(crate) group_notes: Option<economy::GroupNotes>,
    /// Whose land each square was when the forms came in, noted as the map was copied.
    pub(crate) start_lands: lands::Lands,
    /// Whose land each square of `state` is: the lands the forms found, kept as step 3
    /// redraws the borders (nothing else in a weekend changes a square's owner).
    pub(crate) lands: lands::Lands,
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

/// The step of the weekend that carries out an order (each kind of order has one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reads {
    /// Before step 1: the ruler's benefit and VP rewards claimed.
    Claims,
    /// Step 1: units, ships, spies, walls, cities, population, upgrades, slaves.
    Purchases,
    /// Step 1: troops placed from the free merchants' lot.
    Placement,
    Bids,
    Engineers,
    Research,
    /// Step 2.
    Magic,
    /// Step 3: moves, boarding, landing, pick-ups, merges, splits, new orders of line.
    Movement,
    /// Step 4.
    Attacks,
    /// Step 5.
    UseInvitation,
    /// Step 9.
    HomeInvitation,
    Vote,
    /// After step 9: relations, capital and main harbour, trade wishes.
    WrapUp,
}

impl Reads {
    const COUNT: usize = Reads::WrapUp as usize + 1;

    /// The step that reads `o`.
    pub(crate) fn of(o: &Order) -> Reads {
        match o {
            Order::RulerBenefit { .. } | Order::VpReward { .. } => Reads::Claims,
            Order::BuyUnits { .. }
            | Order::BuyShips { .. }
            | Order::BuySpies { .. }
            | Order::BuyWalls { .. }
            | Order::BuyCity { .. }
            | Order::BuyPopulation { .. }
            | Order::UpgradePosition { .. }
            | Order::UpgradeProduction { .. }
            | Order::ConvertSlaves { .. } => Reads::Purchases,
            Order::PlaceTroops { .. } => Reads::Placement,
            Order::Bid { .. } => Reads::Bids,
            Order::Engineers { .. } => Reads::Engineers,
            Order::Research { .. } => Reads::Research,
            Order::Cast { .. } => Reads::Magic,
            Order::Move { .. }
            | Order::Embark { .. }
            | Order::Disembark { .. }
            | Order::PickUp { .. }
            | Order::Merge { .. }
            | Order::Split { .. }
            | Order::Reorder { .. } => Reads::Movement,
            Order::Attack { .. } => Reads::Attacks,
            Order::UseInvitation { .. } => Reads::UseInvitation,
            Order::HomeInvitation { .. } => Reads::HomeInvitation,
            Order::Vote { .. } => Reads::Vote,
            Order::Friend { .. }
            | Order::NotFriend { .. }
            | Order::Capital { .. }
            | Order::MainHarbour { .. }
            | Order::TradeWishes { .. } => Reads::WrapUp,
        }
    }
}

/// Each step's lines on the forms, as (form, line) places in `Orders::forms`, earliest
/// form first and in line order. On a large game a step's few kinds of order are a
/// small part of every line, and the forms no longer sit in the processor's caches by
/// the time a step comes: reading each step's lines only, the weekend reads every line
/// once here, where some dozen passes over all of them read it a dozen times.
struct Lines([Vec<(u32, u32)>; Reads::COUNT]);

impl Lines {
    fn of(orders: &Orders) -> Lines {
        let mut by: [Vec<(u32, u32)>; Reads::COUNT] = Default::default();
        for (k, f) in orders.forms.iter().enumerate() {
            for (i, o) in f.orders.iter().enumerate() {
                // A form past four thousand million lines is not read (never met).
                if let (Ok(k), Ok(i)) = (u32::try_from(k), u32::try_from(i)) {
                    by[Reads::of(o) as usize].push((k, i));
                }
            }
        }
        Lines(by)
    }
}

/// One step's lines on the forms (`Weekend::reading`), held apart from the weekend so
/// the step can change the weekend as it reads.
pub(crate) struct Reading<'a> {
    orders: &'a Orders,
    lines: std::rc::Rc<Lines>,
    reads: Reads,
}

impl<'a> Reading<'a> {
    /// Each form holding lines of the step, earliest first, with those lines in order.
    pub(crate) fn forms(&self) -> impl Iterator<Item = FormLines<'a, '_>> {
        let orders = self.orders;
        self.lines.0[self.reads as usize]
            .chunk_by(|a, b| a.0 == b.0)
            .filter_map(move |run| {
                let &(k, _) = run.first()?;
                let form = orders.forms.get(k as usize)?;
                Some(FormLines { form, run })
            })
    }

    /// The step's lines of every form, in order, with the form each is on.
    pub(crate) fn lines(&self) -> impl Iterator<Item = (&'a FormOrders, &'a Order)> + '_ {
        self.forms()
            .flat_map(|f| f.orders().map(move |o| (f.form, o)))
    }
}

/// One form's lines of one step.
#[derive(Clone, Copy)]
pub(crate) struct FormLines<'a, 'r> {
    pub form: &'a FormOrders,
    run: &'r [(u32, u32)],
}

impl<'a, 'r> FormLines<'a, 'r> {
    /// How many lines.
    pub(crate) fn len(self) -> usize {
        self.run.len()
    }

    /// The lines, in order.
    pub(crate) fn orders(self) -> impl Iterator<Item = &'a Order> + 'r
    where
        'a: 'r,
    {
        let form = self.form;
        self.run
            .iter()
            .filter_map(move |&(_, i)| form.orders.get(i as usize))
    }
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
        let lines = Lines::of(orders);
        // The squares where the forms found a city: step 1 notes the groups there too.
        let founding = lines.0[Reads::Purchases as usize]
            .iter()
            .filter_map(|&(k, i)| orders.forms.get(k as usize)?.orders.get(i as usize))
            .filter_map(economy::founded);
        let noter = economy::GroupNoter::new(state, founding);
        let (
            own,
            Shared {
                names,
                army_units: start_army_units,
                treasures: start_treasures,
                portals,
                water_elementals,
                group_notes,
                lands: start_lands,
            },
        ) = own_copy(state, noter);
        let water_elementals = water_elementals
            || [Reads::Purchases, Reads::Placement]
                .iter()
                .flat_map(|&r| &lines.0[r as usize])
                .filter_map(|&(k, i)| orders.forms.get(k as usize)?.orders.get(i as usize))
                .any(military::water::raises_a_water_elemental);
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
            forces_sorted: false,
            entered_from: Default::default(),
            met: Vec::new(),
            portals,
            names,
            forms: form_places(orders),
            lines: std::rc::Rc::new(lines),
            start_army_units,
            start_treasures,
            water_elementals,
            treasure_found: false,
            group_notes: Some(group_notes),
            lands: start_lands.clone(),
            start_lands,
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

    /// The lines of the forms that step `reads` carries out (`Lines`).
    pub(crate) fn reading(&self, reads: Reads) -> Reading<'a> {
        Reading {
            orders: self.orders,
            lines: self.lines.clone(),
            reads,
        }
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

    /// The armies and fleets sorted by owner and number (`forces::sort`), unless inside
    /// `resolve` an earlier military step sorted them and no step since added a group
    /// out of order (checked in debug builds).
    pub(crate) fn sort_forces(&mut self) {
        if self.keep_index && self.forces_sorted {
            debug_assert!(
                military::forces::in_order(&self.state),
                "a step between the military steps left a group out of order"
            );
            return;
        }
        military::forces::sort(&mut self.state);
        self.forces_sorted = self.keep_index;
    }

    /// Keep the military index of this step for the next one (see `index`).
    pub(crate) fn pass_index(&mut self, ix: military::index::Index) {
        if self.keep_index {
            self.index = Some(ix);
        }
    }

    /// Note that a portal now stands open on `sq` (`portals` stays in square order).
    pub(crate) fn portal_opened(&mut self, sq: Square) {
        if let Err(k) = self.portals.binary_search(&sq) {
            self.portals.insert(k, sq);
        }
    }

    /// Note that the portal on `sq` has closed.
    pub(crate) fn portal_closed(&mut self, sq: Square) {
        if let Ok(k) = self.portals.binary_search(&sq) {
            self.portals.remove(k);
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
        self.push(Event {
            step,
            seen_by: seen_by.into_iter().map(Into::into).collect(),
            what,
        });
    }

    /// Append `e` to the events, noting a move that met enemy troops (`met`).
    fn push(&mut self, e: Event) {
        if military::met_enemy(&e.what) {
            self.met.push(self.events.len());
        }
        self.events.push(e);
    }

    /// Record what happened, told to `realm` alone (by its shared name).
    pub fn tell_one(&mut self, step: Step, realm: &str, what: What) {
        let seen_by = SeenBy::one(self.name(realm));
        self.push(Event {
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

/// A copy of `state` for the weekend to change, with every owner in it (army groups,
/// fleets, cities, map squares) pointing at its realm's one name, and those names by the
/// realm's place in `state.realms`, each realm's army units, the groups carrying a
/// treasure, the squares with an open portal, whose land each square is, and what
/// `noter` notes of the groups for step 1. Each group, city and square is copied
/// and its owner shared in one pass: on a large game, a second pass over the copy would
/// read it back from memory, no longer from the cache.
fn own_copy<'s>(state: &'s GameState, mut noter: economy::GroupNoter<'s>) -> (GameState, Shared) {
    // Every field named, so that a field added to the state is not forgotten here.
    let GameState {
        schema_version,
        game,
        settings,
        round,
        phase,
        realms,
        map: Map {
            width,
            height,
            squares,
        },
        cities,
        armies,
        fleets,
        spies,
        effects,
        home_invitations,
        courier,
        contacts,
        missions,
        missions_done,
        gm_events,
        votes,
        ruler,
        free_merchant,
        conquests,
        evil,
        last_weekend,
        next_id,
        calendar,
        realm_places,
        army_places,
    } = state;
    let mut names = Names {
        places: realm_places,
        realms,
        names: vec![None; realms.len()],
        last: None,
    };
    let mut army_units = vec![0u32; realms.len()];
    let mut treasures = Vec::new();
    let mut water_elementals = false;
    // Room for the groups bought this weekend, so that the first of them does not move
    // the whole list to a larger one.
    let mut own_armies = Vec::with_capacity(armies.len().saturating_add(armies.len() / 8));
    // Where each realm's groups begin, for the copy and the state alike (the same
    // groups in the same order): found here, not by a pass of their own.
    let mut starts = crate::game::state::ArmyStarts::new(realms.len());
    for (i, a) in armies.iter().enumerate() {
        let mut own = a.clone();
        let place = names.share(&mut own.owner);
        starts.next(i, a, || place);
        noter.note(i, a, place);
        if let Some(n) = place.and_then(|k| army_units.get_mut(k)) {
            let units = u32::try_from(own.units.len()).unwrap_or(u32::MAX);
            *n = n.saturating_add(units);
        }
        if !own.treasure.is_zero() {
            treasures.push((own.owner.clone(), own.id, own.treasure.amount()));
        }
        water_elementals = water_elementals || military::water::carries(&own);
        own_armies.push(own);
    }
    let starts = starts.finish();
    army_places.offer(starts.clone());
    let fleets = fleets.iter().map(|f| {
        let mut f = f.clone();
        names.share(&mut f.owner);
        f
    });
    let fleets = fleets.collect();
    let cities = cities.iter().map(|c| {
        let mut c = c.clone();
        names.share(&mut c.owner);
        c
    });
    let cities = cities.collect();
    let mut portals = Vec::new();
    let mut lands = lands::Lands::new(*width, *height, squares.len());
    let squares = squares.clone_with(|sq, m| {
        let place = m.owner.as_mut().and_then(|owner| names.share(owner));
        lands.note(sq, place);
        if let Some(owner) = m.evil_owner.as_mut() {
            names.share(owner);
        }
        if m.portal.is_some() {
            portals.push(sq);
        }
    });
    portals.sort_unstable();
    let own = GameState {
        schema_version: *schema_version,
        game: game.clone(),
        settings: settings.clone(),
        round: *round,
        phase: *phase,
        realms: realms.clone(),
        map: Map {
            width: *width,
            height: *height,
            squares,
        },
        cities,
        armies: own_armies,
        fleets,
        spies: spies.clone(),
        effects: effects.clone(),
        home_invitations: home_invitations.clone(),
        courier: courier.clone(),
        contacts: contacts.clone(),
        missions: missions.clone(),
        missions_done: missions_done.clone(),
        gm_events: gm_events.clone(),
        votes: votes.clone(),
        ruler: ruler.clone(),
        free_merchant: free_merchant.clone(),
        conquests: conquests.clone(),
        evil: evil.clone(),
        last_weekend: last_weekend.clone(),
        next_id: *next_id,
        calendar: calendar.clone(),
        realm_places: Default::default(),
        army_places: Default::default(),
    };
    own.army_places.offer(starts);
    let named = names.names.into_iter().zip(realms);
    let names = named
        .map(|(n, r)| n.unwrap_or_else(|| Name::from(r.name.as_str())))
        .collect();
    let shared = Shared {
        names,
        army_units,
        treasures,
        portals,
        water_elementals,
        group_notes: noter.finish(),
        lands,
    };
    (own, shared)
}

/// Each realm's one name, found as `own_copy` meets the owners: the first mention of a
/// realm's name is adopted as its one name, so a state whose names are already shared
/// (every state read from the store) is only read. Owners of one realm mostly follow
/// each other, so the last realm found is tried first.
struct Names<'s> {
    places: &'s RealmPlaces,
    realms: &'s [Realm],
    /// By the realm's place in `realms`.
    names: Vec<Option<Name>>,
    last: Option<usize>,
}

impl Names<'_> {
    /// Point `owner` at its realm's one name; the realm's place (`None`: no realm's).
    fn share(&mut self, owner: &mut Name) -> Option<usize> {
        let k = match self.last {
            Some(k) if self.names[k].as_ref().is_some_and(|n| n == owner) => k,
            _ => self.places.place(self.realms, owner)?,
        };
        self.last = Some(k);
        match &self.names[k] {
            Some(n) if n.same(owner) => {}
            Some(n) => *owner = n.clone(),
            None => self.names[k] = Some(owner.clone()),
        }
        Some(k)
    }
}

/// What `own_copy` gives back besides the copy, read from the groups as it copies them.
struct Shared {
    /// Each realm's one name, by its place in `gs.realms`.
    names: Vec<Name>,
    /// Each realm's army units, by its place in `gs.realms`.
    army_units: Vec<u32>,
    /// The groups carrying a treasure.
    treasures: Vec<Carried>,
    /// The squares with an open portal, in square order.
    portals: Vec<Square>,
    /// Some group holds a water elemental.
    water_elementals: bool,
    /// What step 1 reads from the groups.
    group_notes: economy::GroupNotes,
    /// Whose land each square is.
    lands: lands::Lands,
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
    let carried = military::water::carried(&w);
    magic::run(&mut w); // step 2
    military::water::drown_stranded(&mut w, Step::Magic, &carried);
    military::movement(&mut w); // step 3
    let carried = military::water::carried(&w);
    military::combat(&mut w); // step 4
    w.index = None;
    military::water::drown_stranded(&mut w, Step::Combat, &carried);
    // Nothing after step 4 takes a group to sea (invitations lead to land), so the
    // groups carried now are those steps 8 and the politics step can strand.
    let carried = military::water::carried(&w);
    evil::after_combat(&mut w); // treasures found (R-EVIL-6, Rulings 52)
    military::invitations(&mut w); // step 5
    economy::production(&mut w); // step 6
    economy::slave_revolt(&mut w); // step 7
    economy::overflow(&mut w); // step 8
    military::water::drown_stranded(&mut w, Step::Overflow, &carried);
    military::home_invitations(&mut w); // step 9
    espionage::passive_rolls(&mut w); // after step 9: passive spy rolls (R-SPY-9)
    politics::after_step_9(&mut w); // vote, missions, random events, VP thresholds
    w.forces_sorted = false; // a random event may have raised new groups at the end
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
    fn the_weekends_copy_is_the_state_and_knows_its_portals() {
        let mut gs = demo();
        let squares: Vec<Square> = gs.map.squares.keys().collect();
        // Two portals, put on the map out of square order.
        for &at in [squares[7], squares[2]].iter() {
            let m = gs.map.squares.get_mut(&at).expect("square");
            m.portal = Some(Box::new(crate::game::state::Portal {
                opened_by: "Fugandri".into(),
                opened_round: 1,
                closes_after_round: None,
            }));
        }
        let orders = Orders::default();
        let w = Weekend::new(&gs, &orders, &gs.settings, 1);
        assert_eq!(w.state, gs);
        assert_eq!(w.portals, vec![squares[2], squares[7]]);
    }

    /// The copy's pass over the groups leaves both the copy and the state with the hint
    /// of where each realm's groups begin, as a pass of its own would find it: in order
    /// (the stored state) and out of order (a state made by hand).
    #[test]
    fn the_weekends_copy_finds_where_each_realms_groups_begin() {
        use crate::game::state::ArmyPlaces;
        for reversed in [false, true] {
            let mut gs = demo();
            crate::game::weekend::military::forces::sort(&mut gs);
            if reversed {
                gs.armies.reverse();
            }
            gs.army_places = ArmyPlaces::default();
            let orders = Orders::default();
            let w = Weekend::new(&gs, &orders, &gs.settings, 1);
            let found = ArmyPlaces::found(&gs);
            assert_eq!(found.is_some(), !reversed, "the demo's groups are sorted");
            assert_eq!(w.state.army_places.as_built(), Some(&found));
            assert_eq!(gs.army_places.as_built(), Some(&found));
        }
    }

    /// A hint is kept while the groups stand where it has them, and forgotten (to be
    /// found again by the next lookup) once groups bought before the last realm's have
    /// moved its block along the list: sorting them in, or compacting lost ones out.
    #[test]
    fn where_each_realms_groups_begin_is_found_again_once_groups_came_or_went() {
        use crate::game::state::ArmyPlaces;
        use crate::game::weekend::military::forces;
        let mut gs = demo();
        forces::sort(&mut gs);
        gs.army_places = ArmyPlaces::default();
        assert!(gs.army_places.in_order(&gs), "the demo's groups are sorted");
        let built = gs.army_places.as_built().cloned();
        forces::sort(&mut gs);
        assert_eq!(gs.army_places.as_built(), built.as_ref(), "nothing moved");
        // A group for the first realm: every other realm's block moves one along.
        let mut bought = gs.armies[0].clone();
        bought.id = 900;
        gs.armies.push(bought);
        forces::sort(&mut gs);
        assert_eq!(gs.army_places.as_built(), None, "the stale hint is gone");
        assert!(gs.army_places.in_order(&gs));
        assert_eq!(
            gs.army_places.as_built(),
            Some(&ArmyPlaces::found(&gs)),
            "and found again"
        );
        // Lost in battle and compacted out: the blocks move back.
        gs.armies[0].units.clear();
        forces::compact(&mut gs);
        assert_eq!(gs.army_places.as_built(), None);
        for a in gs.armies.clone() {
            assert_eq!(
                forces::army_at(&gs, &a.owner, a.id).map(|i| &gs.armies[i]),
                Some(&a),
                "every group is found through the new hint"
            );
        }
    }

    /// Each step reads its own lines: the forms that hold any, earliest first, each
    /// with those lines in line order; every line is some step's, once.
    #[test]
    fn each_step_reads_its_own_lines_form_by_form_in_line_order() {
        let gs = demo();
        let form = form_of;
        let spies = |count| Order::BuySpies { count };
        let vote = |realm: &str| Order::Vote {
            realm: realm.into(),
        };
        let orders = Orders {
            forms: vec![
                form("A", vec![spies(1), vote("B"), spies(2)]),
                form("B", vec![vote("A")]),
                form(
                    "C",
                    vec![vote("C"), spies(3), Order::Friend { realm: "A".into() }],
                ),
            ],
        };
        let w = Weekend::new(&gs, &orders, &gs.settings, 1);
        let read = |reads: Reads| -> Vec<(String, Vec<Order>)> {
            w.reading(reads)
                .forms()
                .map(|f| (f.form.realm.clone(), f.orders().cloned().collect()))
                .collect()
        };
        assert_eq!(
            read(Reads::Purchases),
            [
                ("A".into(), vec![spies(1), spies(2)]),
                ("C".into(), vec![spies(3)])
            ]
        );
        assert_eq!(
            read(Reads::Vote),
            [
                ("A".into(), vec![vote("B")]),
                ("B".into(), vec![vote("A")]),
                ("C".into(), vec![vote("C")])
            ]
        );
        assert_eq!(read(Reads::Attacks), []);
        let lines: Vec<(&str, &Order)> = w
            .reading(Reads::WrapUp)
            .lines()
            .map(|(f, o)| (f.realm.as_str(), o))
            .collect();
        assert_eq!(lines, [("C", &Order::Friend { realm: "A".into() })]);
        let every = w.lines.0.iter().map(Vec::len).sum::<usize>();
        assert_eq!(every, 7, "every line read by one step");
    }

    /// A group raised at the end of the list: out of order until the next sort.
    fn raise_first_realms_group(w: &mut Weekend) {
        let mut raised = w.state.armies[0].clone();
        raised.id = 900;
        w.state.armies.push(raised);
    }

    /// Outside `resolve` (a step run alone, as the tests do), every military step sorts
    /// the forces: a group raised at the end since the last sort is sorted in.
    #[test]
    fn a_step_run_alone_sorts_the_forces_every_time() {
        let gs = demo();
        let orders = Orders::default();
        let mut w = Weekend::new(&gs, &orders, &gs.settings, 1);
        w.sort_forces();
        raise_first_realms_group(&mut w);
        assert!(!military::forces::in_order(&w.state));
        w.sort_forces();
        assert!(military::forces::in_order(&w.state), "sorted again");
    }

    /// Inside `resolve`, a military step after the first trusts the first's sort, and a
    /// step between them that left a group out of order is caught (debug builds).
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "left a group out of order")]
    fn inside_the_weekend_a_group_left_out_of_order_between_the_military_steps_is_caught() {
        let gs = demo();
        let orders = Orders::default();
        let mut w = Weekend::new(&gs, &orders, &gs.settings, 1);
        w.keep_index = true;
        w.sort_forces();
        raise_first_realms_group(&mut w);
        w.sort_forces();
    }

    /// The hint names each realm's first group (its place and number), nothing for a
    /// realm without groups, and no hint at all for groups out of order or numbered
    /// twice.
    #[test]
    fn where_each_realms_groups_begin_is_found_only_in_sorted_groups() {
        use crate::game::state::ArmyPlaces;
        let mut gs = demo();
        crate::game::weekend::military::forces::sort(&mut gs);
        let without = gs.realms[1].name.clone();
        gs.armies.retain(|a| a.owner != without);
        let starts = ArmyPlaces::found(&gs).expect("sorted");
        let mut with_groups = 0;
        for (k, r) in gs.realms.iter().enumerate() {
            let first = gs.armies.iter().position(|a| a.owner == r.name);
            let want = first.map_or((u32::MAX, 0), |i| (i as u32, gs.armies[i].id));
            assert_eq!(starts[k], want, "{}", r.name);
            with_groups += usize::from(first.is_some());
        }
        assert!(
            with_groups >= 2 && with_groups < gs.realms.len(),
            "{with_groups}"
        );
        let mut twice = gs.clone();
        let again = twice.armies[0].clone();
        twice.armies.insert(1, again);
        assert_eq!(ArmyPlaces::found(&twice), None, "a number twice");
        let mut swapped = gs.clone();
        let last = swapped.armies.len() - 1;
        swapped.armies.swap(0, last);
        assert_eq!(ArmyPlaces::found(&swapped), None, "owners out of order");
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

    /// The demo with its water elementals made light infantry.
    fn demo_without_water_elementals() -> GameState {
        let mut gs = demo();
        for u in gs.armies.iter_mut().flat_map(|a| a.units.iter_mut()) {
            if u.kind == crate::game::UnitKind::Vattenelementar {
                u.kind = crate::game::UnitKind::LattInfanteri;
            }
        }
        gs
    }

    /// A form of `realm` with `orders`, received at the epoch.
    fn form_of(realm: &str, orders: Vec<Order>) -> FormOrders {
        FormOrders {
            realm: realm.into(),
            received_at: chrono::DateTime::UNIX_EPOCH,
            orders,
        }
    }

    /// The weekend looks for groups carried at sea (R-UNIT-4) only when a group may hold
    /// a water elemental: one held it as the forms found the state, or a line buys or
    /// places one; not for elementals of another kind or other lines.
    #[test]
    fn the_weekend_expects_water_elementals_held_bought_or_placed_and_no_others() {
        use crate::game::UnitKind::{Jordelementar, Vattenelementar};
        let gs = demo_without_water_elementals();
        let realm = gs.realms[0].name.clone();
        let expects = |gs: &GameState, lines: Vec<Order>| {
            let orders = Orders {
                forms: vec![form_of(&realm, lines)],
            };
            Weekend::new(gs, &orders, &gs.settings, 1).water_elementals
        };
        let buy = |kind| Order::BuyUnits {
            count: 1,
            kind,
            city: None,
        };
        let place = |kind| Order::PlaceTroops {
            placements: vec![
                (2, Jordelementar, Square::new(1, 1).expect("A1")),
                (1, kind, Square::new(1, 1).expect("A1")),
            ],
        };
        assert!(expects(&demo(), vec![]), "the demo holds one as it comes");
        assert!(!expects(&gs, vec![]));
        assert!(!expects(
            &gs,
            vec![
                buy(Jordelementar),
                place(Jordelementar),
                Order::BuySpies { count: 1 }
            ]
        ));
        assert!(expects(
            &gs,
            vec![Order::BuySpies { count: 1 }, buy(Vattenelementar)]
        ));
        assert!(expects(&gs, vec![place(Vattenelementar)]));
        let mut held = gs.clone();
        let last = held.armies.len() - 1;
        held.armies[last].units[0].kind = Vattenelementar;
        assert!(expects(&held, vec![]));
    }

    /// A water elemental that no line raised and no group held is caught where the
    /// weekend skips the look for groups at sea (debug builds).
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a water elemental the weekend did not expect")]
    fn a_water_elemental_the_weekend_did_not_expect_is_caught() {
        let gs = demo_without_water_elementals();
        let orders = Orders::default();
        let mut w = Weekend::new(&gs, &orders, &gs.settings, 1);
        assert!(!w.water_elementals);
        w.state.armies[0].units[0].kind = crate::game::UnitKind::Vattenelementar;
        military::water::carried(&w);
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
