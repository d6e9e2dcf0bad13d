//! `GameState`: the whole game as one serde document (stored as versioned
//! JSON by `store/`), plus lookups and cross-reference validation. Holds
//! data only; the weekend steps, courier and forms change it elsewhere.
//! No I/O, no clock, no RNG.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::resource::{Resource, Resources};
use super::square::Square;
use super::units::{Position, ShipKind, Spell, UnitKind};
use super::{Lang, Name};

/// Version of the stored document layout; bump with a migration.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole game. It is read with every realm's name shared (see `Deserialize` below).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct GameState {
    pub schema_version: u32,
    pub game: GameInfo,
    pub settings: RuleSettings,
    /// Current round, 1-based (one round = one week).
    pub round: u32,
    pub phase: Phase,
    /// Every realm, the Evil's included (`is_evil`), in scenario order.
    pub realms: Vec<Realm>,
    pub map: Map,
    pub cities: Vec<City>,
    pub armies: Vec<ArmyGroup>,
    pub fleets: Vec<Fleet>,
    /// Spies sent on a mission and waiting/acting (held spies are counted
    /// in `Realm::spies`).
    pub spies: Vec<StationedSpy>,
    pub effects: Vec<SpellEffect>,
    /// Home-invitations waiting for step 9 (R-INV-8).
    pub home_invitations: Vec<HomeInvitation>,
    /// The courier's bookkeeping of the current round.
    #[serde(default)]
    pub courier: Ledger,
    /// Envoy and merchant contacts of this round and the last (R-SPY-4 mission 5).
    #[serde(default)]
    pub contacts: Vec<Contact>,
    /// The scenario's missions, one drawn for each realm after every vote
    /// (R-MISSION-2); empty: the GM sets them (`gm mission REALM set`).
    #[serde(default)]
    pub missions: Vec<LocalText>,
    /// Missions the GM judged done since the last weekend, told on the realm's next
    /// Monday form (R-MISSION-3).
    #[serde(default)]
    pub missions_done: Vec<MissionDone>,
    /// Random events the GM chose in place of the roll (R-RAND-1, Rulings 50).
    #[serde(default)]
    pub gm_events: Vec<GmEvent>,
    pub votes: Vec<Vote>,
    /// The last unique voting winner and its chosen benefit (R-VOTE-5).
    pub ruler: Option<Ruler>,
    /// This week's free-merchant lot (R-FREE-1).
    pub free_merchant: Option<FreeMerchantOffer>,
    /// Cities taken last weekend: border redraw delay and fleet transfer
    /// (R-COMBAT-11, R-CITY-8).
    pub conquests: Vec<Conquest>,
    /// The Evil realm's extra data; `None` in a game without the Evil.
    pub evil: Option<EvilInfo>,
    /// What happened last weekend, for the Monday forms.
    pub last_weekend: Vec<LogEntry>,
    /// Next free id for stationed spies, invitations and log entries.
    pub next_id: u64,
    /// The GM's calendar: the pause in force, ended pauses and deadline
    /// extensions (`gm pause`, `gm resume`, `gm extend`). Left out of the document
    /// while empty, so a game that never paused stores what it stored before.
    #[serde(default, skip_serializing_if = "crate::schedule::Calendar::is_empty")]
    pub calendar: crate::schedule::Calendar,
    /// Where each realm stands in `realms`, found once: not part of the document.
    #[serde(skip)]
    pub realm_places: RealmPlaces,
    /// Where each realm's army groups begin in `armies`, found once: not part of the
    /// document (a hint for the weekend's lookups, see `ArmyPlaces`).
    #[serde(skip)]
    pub army_places: ArmyPlaces,
}

impl Serialize for GameState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        GameState::serialize(self, s)
    }
}

/// A state is read with one copy of each realm's name, however often it is mentioned
/// (`name::sharing`): 100 army groups and 120 map squares a realm are 220 mentions.
impl<'de> Deserialize<'de> for GameState {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::game::name::sharing(|| GameState::deserialize(d))
    }
}

/// A hint where each realm's army groups begin in `GameState::armies` (sorted by owner
/// and number, as the weekend keeps them), built on the first lookup: by realm place,
/// the first group's place and number. A lookup starts its search there instead of
/// searching the whole list, and checks what it finds, so a hint made stale by groups
/// that came or went can slow a lookup but never make it wrong. A clone starts empty;
/// two hints always compare equal.
#[derive(Default)]
pub struct ArmyPlaces(std::sync::OnceLock<Option<Vec<(u32, u32)>>>);

impl ArmyPlaces {
    /// Where `realm`'s group `id` should be, if the hint knows the realm: the place its
    /// first group had plus the distance in numbers. `None` while the armies are not
    /// in order (the hint is then not kept) or the realm has no groups.
    pub fn guess(&self, gs: &GameState, realm: &str, id: u32) -> Option<usize> {
        self.guess_at(gs, gs.realm_index(realm)?, id)
    }

    /// As `guess`, for the realm at `place` in `realms` (found once by a caller that
    /// looks up many groups of one realm).
    pub fn guess_at(&self, gs: &GameState, place: usize, id: u32) -> Option<usize> {
        let starts = self.0.get_or_init(|| army_starts(gs)).as_ref()?;
        let &(start, first) = starts.get(place)?;
        if start == u32::MAX {
            return None;
        }
        let at = (start as usize).saturating_add(id.saturating_sub(first) as usize);
        Some(at.min(gs.armies.len().saturating_sub(1)))
    }

    /// Whether the armies were sorted by owner and number (strictly) when the hint was
    /// built (building it now if need be).
    pub fn in_order(&self, gs: &GameState) -> bool {
        self.0.get_or_init(|| army_starts(gs)).is_some()
    }

    /// The hint, if it was built (for tests: whether a pass found it, and what).
    #[cfg(test)]
    pub(crate) fn as_built(&self) -> Option<&Option<Vec<(u32, u32)>>> {
        self.0.get()
    }

    /// The hint that a pass over `gs`'s groups finds.
    #[cfg(test)]
    pub(crate) fn found(gs: &GameState) -> Option<Vec<(u32, u32)>> {
        army_starts(gs)
    }

    /// Take `starts` (as `army_starts` finds them, made by a pass that read the
    /// groups anyway) as the hint, unless a hint was built already.
    pub fn offer(&self, starts: Option<Vec<(u32, u32)>>) {
        let _ = self.0.set(starts);
    }

    /// Forget a hint that found the armies out of order, or that the groups which came
    /// or went since have made stale, so the next lookup builds it again (one pass over
    /// the groups). Stale: the last realm's first group, or the middle realm's, is no
    /// longer where the hint has it. Groups bought or lost before a realm's own move its
    /// block along the list, and a search from a place far off reads many groups far
    /// apart, the more the larger the game (a stale hint of 1,000 realms was off by up to
    /// the 1,000 groups bought before the last realm's).
    pub fn reset_if_stale(&mut self, armies: &[ArmyGroup], realms: &[Realm]) {
        let stale = match self.0.get() {
            None => false,
            Some(None) => true,
            Some(Some(starts)) => {
                let held = |(place, &(start, first)): (usize, &(u32, u32))| {
                    let Some(name) = realms.get(place).map(|r| r.name.as_str()) else {
                        return false;
                    };
                    let start = start as usize;
                    armies
                        .get(start)
                        .is_some_and(|a| a.owner == name && a.id == first)
                        && (start == 0 || armies.get(start - 1).is_some_and(|b| b.owner != name))
                };
                let known = |&(_, &(start, _)): &(usize, &(u32, u32))| start != u32::MAX;
                let last = starts.iter().enumerate().rev().find(known);
                let middle = starts.iter().enumerate().skip(starts.len() / 2).find(known);
                !last.into_iter().chain(middle).all(held)
            }
        };
        if stale {
            *self = ArmyPlaces::default();
        }
    }
}

/// Each realm's first army group (place, number), by realm place; `None` when the
/// armies are not sorted by owner and number.
fn army_starts(gs: &GameState) -> Option<Vec<(u32, u32)>> {
    let mut starts = ArmyStarts::new(gs.realms.len());
    for (i, a) in gs.armies.iter().enumerate() {
        if !starts.next(i, a, || gs.realm_index(&a.owner)) {
            return None;
        }
    }
    starts.finish()
}

/// `ArmyPlaces`' hint found group by group, by a pass that reads the groups in order
/// for something else too (the weekend's copy of the state), so that the hint costs
/// no pass of its own.
pub struct ArmyStarts<'a> {
    starts: Vec<(u32, u32)>,
    prev: Option<&'a ArmyGroup>,
    in_order: bool,
}

impl<'a> ArmyStarts<'a> {
    pub fn new(realms: usize) -> Self {
        ArmyStarts {
            starts: vec![(u32::MAX, 0); realms],
            prev: None,
            in_order: true,
        }
    }

    /// The group at `i` in the list; `place`: its owner's place in `realms`, asked
    /// only at a new owner. False once the groups are found out of order.
    pub fn next(
        &mut self,
        i: usize,
        a: &'a ArmyGroup,
        place: impl FnOnce() -> Option<usize>,
    ) -> bool {
        if !self.in_order {
            return false;
        }
        let new_owner = match self.prev {
            Some(p) if p.owner == a.owner => {
                if p.id >= a.id {
                    self.in_order = false;
                }
                false
            }
            Some(p) if p.owner > a.owner => {
                self.in_order = false;
                false
            }
            _ => true,
        };
        if new_owner {
            match (
                place().and_then(|k| self.starts.get_mut(k)),
                u32::try_from(i),
            ) {
                (Some(start), Ok(i)) => *start = (i, a.id),
                (_, Err(_)) => self.in_order = false,
                (None, Ok(_)) => {}
            }
        }
        self.prev = Some(a);
        self.in_order
    }

    /// The hint: `None` when the groups were not in order.
    pub fn finish(self) -> Option<Vec<(u32, u32)>> {
        self.in_order.then_some(self.starts)
    }
}

impl Clone for ArmyPlaces {
    fn clone(&self) -> Self {
        ArmyPlaces::default()
    }
}

impl PartialEq for ArmyPlaces {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for ArmyPlaces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ArmyPlaces")
    }
}

/// A cache of each realm's place in `GameState::realms`, built on the first lookup by
/// name. It keeps a hash of each name, not a copy: a lookup reads the table and the
/// realm's own name, one place fewer in memory than a table of copied names. Every
/// hit is checked against the realm's name, and a miss (or two names with one hash)
/// falls back to the scan, so a cache made stale by a change to `realms` can slow a
/// lookup but never make it wrong. A clone starts empty; two caches always compare
/// equal.
#[derive(Default)]
pub struct RealmPlaces(std::sync::OnceLock<crate::game::hash::FastMap<u64, u32>>);

impl RealmPlaces {
    pub fn place(&self, realms: &[Realm], name: &str) -> Option<usize> {
        let hash = crate::game::hash::name_hash;
        let map = self.0.get_or_init(|| {
            let mut m = crate::game::hash::FastMap::default();
            m.reserve(realms.len());
            for (i, r) in realms.iter().enumerate().rev() {
                if let Ok(i) = u32::try_from(i) {
                    m.insert(hash(&r.name), i);
                }
            }
            m
        });
        match map.get(&hash(name)).map(|&i| i as usize) {
            Some(i) if realms.get(i).is_some_and(|r| r.name == name) => Some(i),
            _ => realms.iter().position(|r| r.name == name),
        }
    }
}

/// The place in `GameState::realms` of owners that come in runs (a realm's groups,
/// cities and land squares mostly follow each other in the state's lists): each run's
/// owner is looked up once, through the realm cache, and the next owner of the same
/// shared name is not even compared.
#[derive(Default)]
pub struct OwnerRuns<'a> {
    last: Option<(&'a str, Option<usize>)>,
}

impl<'a> OwnerRuns<'a> {
    pub fn place(&mut self, gs: &GameState, owner: &'a str) -> Option<usize> {
        match self.last {
            Some((o, k)) if std::ptr::eq(o, owner) || o == owner => k,
            _ => {
                let k = gs.realm_index(owner);
                self.last = Some((owner, k));
                k
            }
        }
    }
}

/// The places in a list of `owners` (a list's items in order), grouped by their owner's
/// place in `gs.realms`; an owner that is not a realm's is left out.
pub fn places_by_owner<'a>(
    gs: &GameState,
    owners: impl Iterator<Item = &'a str>,
) -> Vec<Vec<usize>> {
    let mut lists = vec![Vec::new(); gs.realms.len()];
    let mut runs = OwnerRuns::default();
    for (k, owner) in owners.enumerate() {
        if let Some(list) = runs.place(gs, owner).and_then(|p| lists.get_mut(p)) {
            list.push(k);
        }
    }
    lists
}

impl Clone for RealmPlaces {
    fn clone(&self) -> Self {
        RealmPlaces::default()
    }
}

impl PartialEq for RealmPlaces {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for RealmPlaces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RealmPlaces")
    }
}

/// Identity and addresses of the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameInfo {
    pub name: String,
    /// The game's own mail address (`sl@game.test`).
    #[serde(default)]
    pub address: Option<String>,
    /// The GM's address.
    #[serde(default)]
    pub gm: Option<String>,
    /// Seed for the per-(round, purpose) dice sources.
    #[serde(default)]
    pub seed: u64,
}

/// Where in the week the game is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Monday 12:00 – Friday 23:59: envoys, merchants, spies.
    #[default]
    Weekday,
    /// Friday night until the form window opens.
    Closed,
    /// Saturday – Sunday deadline: forms come in.
    Weekend,
    /// Forms closed; resolution done or running; results not yet sent.
    Resolving,
    /// The game has a winner.
    Finished,
}

/// Round limit of a battle unless the scenario sets `max_battle_rounds` (Rulings 31).
pub const DEFAULT_MAX_BATTLE_ROUNDS: u32 = 50;

/// The rulings' defaults, each a named setting (docs/rules.md, Rulings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuleSettings {
    /// RULINGS 24.
    pub group_movement: GroupMovement,
    /// RULINGS 26 — 4 or 8.
    pub adjacency: u8,
    /// RULINGS 6.
    pub slave_revolt_loss: SlaveRevoltLoss,
    /// RULINGS 51.
    pub army_overflow: ArmyOverflow,
    /// RULINGS 31.
    pub max_battle_rounds: u32,
    /// RULINGS 47.
    pub victory_vp: i64,
    pub vp_threshold_step: i64,
    /// R-VOTE-1: a vote every N rounds, the first in round N.
    pub vote_every: u32,
    /// R-FREE-1.
    pub free_merchant_lot: u32,
    /// R-FREE-7.
    pub engineers_price: u32,
    /// Starting VP (R-VP-1).
    pub starting_vp: i64,
    /// Costs the GM set for researched kinds (RULINGS 41).
    pub research_costs: ResearchCosts,
    /// Frigate cargo capacity (unstated in the rules).
    pub frigate_cargo: u32,
    /// The GM's secret 11+ bonus text per position (RULINGS 10).
    pub secret_bonus_texts: BTreeMap<Position, String>,
    /// Random-event tables (RULINGS 50): roll 1 → good, 10 → bad.
    pub good_events: Vec<EventEntry>,
    pub bad_events: Vec<EventEntry>,
    /// R-FREE-1: the goods the free merchants draw their weekly lot from.
    pub free_merchant_goods: Vec<FreeMerchantGood>,
    /// Rulings 40: taken off a bid after armed conflict the weekend before.
    pub conflict_penalty: u32,
    /// Rulings 41: a natural 1 fails the research roll.
    pub research_natural_one_fails: bool,
    /// Rulings 45: a passive spy roll at this total or more also tells the squares.
    pub passive_spy_squares_at: u32,
    /// Rulings 45: a natural 1 on the passive roll gives a false report.
    pub passive_spy_false_reports: bool,
    /// The magic step's open points (docs/rules.md, Rulings 17, 20, 21); left out of
    /// the stored document while it holds the defaults.
    #[serde(default, skip_serializing_if = "SpellSettings::is_default")]
    pub spells: SpellSettings,
}

/// Every resource, in resource order: the default free-merchant goods.
fn all_resources_for_sale() -> Vec<FreeMerchantGood> {
    Resource::ALL
        .into_iter()
        .map(|resource| FreeMerchantGood::Resource { resource })
        .collect()
}

fn conflict_penalty() -> u32 {
    5
}

fn passive_spy_squares_at() -> u32 {
    15
}

/// One kind of lot the free merchants may offer (R-FREE-1, R-FREE-4): a resource
/// (`{resource: järn}`; the minimum bid is the lot size), or army units with the
/// minimum bid the GM states (`{units: tungt_kavalleri, min_bid: 40}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum FreeMerchantGood {
    Resource { resource: Resource },
    Units { units: UnitKind, min_bid: u32 },
}

impl Default for RuleSettings {
    fn default() -> Self {
        RuleSettings {
            group_movement: GroupMovement::Max,
            adjacency: 4,
            slave_revolt_loss: SlaveRevoltLoss::Excess,
            army_overflow: ArmyOverflow::Warn,
            max_battle_rounds: DEFAULT_MAX_BATTLE_ROUNDS,
            victory_vp: 2000,
            vp_threshold_step: 500,
            vote_every: 4,
            free_merchant_lot: 10,
            engineers_price: 30,
            starting_vp: 300,
            research_costs: ResearchCosts::default(),
            frigate_cargo: 0,
            secret_bonus_texts: BTreeMap::new(),
            good_events: Vec::new(),
            bad_events: Vec::new(),
            free_merchant_goods: all_resources_for_sale(),
            conflict_penalty: conflict_penalty(),
            research_natural_one_fails: true,
            passive_spy_squares_at: passive_spy_squares_at(),
            passive_spy_false_reports: true,
            spells: SpellSettings::default(),
        }
    }
}

/// How the weekend's magic reads the rulebook's open points (docs/rules.md, Rulings
/// 17, 20, 21).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpellSettings {
    /// Rulings 17: a spell that fails is still paid for.
    pub failed_cast_pays: bool,
    /// Rulings 20: Armageddon halves fleets too, not only armies.
    pub armageddon_fleets: bool,
    /// Rulings 21: Antimagic also blocks the protected realm's own spells on itself.
    pub antimagic_blocks_own: bool,
}

impl SpellSettings {
    pub fn is_default(&self) -> bool {
        *self == SpellSettings::default()
    }
}

impl Default for SpellSettings {
    fn default() -> Self {
        SpellSettings {
            failed_cast_pays: true,
            armageddon_fleets: true,
            antimagic_blocks_own: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupMovement {
    Max,
    Min,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlaveRevoltLoss {
    Excess,
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArmyOverflow {
    Warn,
    Disband,
}

/// Researched-unit costs; `None` until the GM announces them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResearchCosts {
    pub beridna_bagskyttar: Option<Resources>,
    pub fregatt: Option<Resources>,
}

/// One random-event table entry: a mechanical effect and its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventEntry {
    pub text: LocalText,
    /// Resources added (good) or removed (bad) from the stock.
    #[serde(default)]
    pub resources: Resources,
    /// Units that join (good) the capital's army group.
    #[serde(default)]
    pub units: Vec<UnitKind>,
    #[serde(default)]
    pub vp: i64,
}

/// A text in both languages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct LocalText {
    pub sv: String,
    pub en: String,
}

impl LocalText {
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::Sv => &self.sv,
            Lang::En => &self.en,
        }
    }
}

/// A player's realm (or the Evil's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Realm {
    /// Canonical name, e.g. `Genogien`.
    pub name: String,
    /// Registered sender addresses.
    pub emails: Vec<String>,
    pub language: Lang,
    /// Secret token for the sender check (D-41); never shown in views.
    #[serde(default)]
    pub token: Option<String>,
    pub positions: Positions,
    pub stock: Resources,
    /// The asterisk-marked standard resources (R-RES-5; RULINGS 4).
    pub standard: Vec<Resource>,
    pub vp: i64,
    pub mission: String,
    pub mission_done: bool,
    pub capital: Option<Square>,
    pub main_harbour: Option<Square>,
    /// Realms this realm lists as `vän` in its relations box.
    pub friends: Vec<String>,
    pub trade_wishes: TradeWishes,
    /// Built spies not yet sent (cap: Informatör).
    pub spies: u32,
    /// Agents sent this round (free allowance bookkeeping).
    pub sent: AgentsSent,
    /// Invitations this realm may use (received, or intercepted).
    pub invitations: Vec<Invitation>,
    /// Secret 11+ bonuses already granted, with the GM's text.
    pub secret_bonuses: BTreeMap<Position, String>,
    /// Engineers bought (R-FREE-7) and kinds researched (R-ENG-2).
    pub engineers: bool,
    pub researched: Vec<Researched>,
    /// VP thresholds whose reward was already taken (RULINGS 47).
    pub vp_rewards_taken: Vec<i64>,
    /// Troops bought from the free merchants that still wait for the
    /// player to name their cities (R-FREE-9): `(kind, count)`.
    #[serde(default)]
    pub unplaced_troops: Vec<(UnitKind, u32)>,
    /// Took part in a battle last weekend (RULINGS 40).
    pub fought_last_weekend: bool,
    pub eliminated: bool,
    pub is_evil: bool,
    /// Absences, missed weekends and replacement (docs/gm/season.md); set by
    /// the app at the realm's mail and the weekend's close, never by the engine.
    /// Left out of the document while nothing is set, so a state without it reads
    /// and writes as before.
    #[serde(default, skip_serializing_if = "RealmSeason::is_unset")]
    pub season: RealmSeason,
}

/// A realm's standing with the GM over the season: its absences, the weekends it
/// missed in a row, whether it seeks a replacement player.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RealmSeason {
    /// Absences granted in this game (by mail within the cap, or by the GM).
    #[serde(default)]
    pub absences_used: u32,
    /// The weekends the realm is away for, if any.
    #[serde(default)]
    pub absent: Option<Absence>,
    /// Weekends in a row that closed with no form of the realm's own (not absent).
    #[serde(default)]
    pub missed_in_row: u32,
    /// Marked after `season.missed_before_replacement` missed weekends; cleared by a
    /// form or a replacement.
    #[serde(default)]
    pub seeking_replacement: bool,
    /// The player's name the GM gave at the last replacement (`--display`).
    #[serde(default)]
    pub player: Option<String>,
}

/// An announced absence: the weekends of rounds `from_round..=to_round`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Absence {
    pub from_round: u32,
    pub to_round: u32,
}

impl RealmSeason {
    /// Nothing set: no absence used or running, nothing missed, no replacement.
    pub fn is_unset(&self) -> bool {
        self == &RealmSeason::default()
    }

    /// Whether the realm is away for the weekend of `round`.
    pub fn absent_in(&self, round: u32) -> bool {
        self.absent
            .is_some_and(|a| a.from_round <= round && round <= a.to_round)
    }
}

/// `Realm::may_seat_in` for a realm that is the Evil (`evil`) or not.
pub fn seat_allowed(evil: bool, dimension: Dimension) -> bool {
    evil || dimension == Dimension::Normal
}

impl Realm {
    /// Whether the realm's capital or main harbour may be a city in `dimension`
    /// (docs/rules.md, Rulings 29): a city of the normal map for a normal realm; any of
    /// its cities for the Evil, whose own stand in its dimension.
    pub fn may_seat_in(&self, dimension: Dimension) -> bool {
        seat_allowed(self.is_evil, dimension)
    }

    /// Total production per round over this realm's cities.
    pub fn production(&self, state: &GameState) -> Resources {
        state
            .cities_of(&self.name)
            .fold(Resources::ZERO, |acc, c| acc.plus(&c.production))
    }
}

/// The seven position values (ASCII field names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Positions {
    pub amiral: u32,
    pub befalhavare: u32,
    pub besvarjare: u32,
    pub informator: u32,
    pub forskare: u32,
    pub skattmastare: u32,
    pub sprakror: u32,
}

impl Positions {
    pub fn get(&self, p: Position) -> u32 {
        match p {
            Position::Amiral => self.amiral,
            Position::Befalhavare => self.befalhavare,
            Position::Besvarjare => self.besvarjare,
            Position::Informator => self.informator,
            Position::Forskare => self.forskare,
            Position::Skattmastare => self.skattmastare,
            Position::Sprakror => self.sprakror,
        }
    }

    pub fn get_mut(&mut self, p: Position) -> &mut u32 {
        match p {
            Position::Amiral => &mut self.amiral,
            Position::Befalhavare => &mut self.befalhavare,
            Position::Besvarjare => &mut self.besvarjare,
            Position::Informator => &mut self.informator,
            Position::Forskare => &mut self.forskare,
            Position::Skattmastare => &mut self.skattmastare,
            Position::Sprakror => &mut self.sprakror,
        }
    }
}

/// R-RES-3: two resources to buy, two to sell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TradeWishes {
    pub buy: Vec<Resource>,
    pub sell: Vec<Resource>,
}

/// Agents sent in the current round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct AgentsSent {
    pub envoys: u32,
    pub merchants: u32,
    pub spies: u32,
}

/// A researched kind (R-ENG-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Researched {
    BeridnaBagskyttar,
    Fregatt,
}

/// An invitation held by a realm (R-INV-1..7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invitation {
    pub id: u64,
    /// The inviting realm (whose land the troops enter).
    pub from: String,
    pub square: Square,
    pub sent_round: u32,
    /// Valid up to and including this round's weekend (R-INV-3).
    pub valid_until_round: u32,
    /// Set when the holder got it by intercepting it (R-INV-7).
    #[serde(default)]
    pub intercepted_from: Option<String>,
    #[serde(default)]
    pub used: bool,
}

/// A home-invitation (R-INV-8), resolved in step 9.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HomeInvitation {
    pub id: u64,
    pub realm: String,
    pub target: GroupRef,
    pub sent_round: u32,
    pub valid_until_round: u32,
}

/// An army group or fleet of a realm (ids are per owner).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum GroupRef {
    Army { owner: Name, id: u32 },
    Fleet { owner: Name, id: u32 },
}

/// The named squares of the map (both dimensions share the grid).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Map {
    /// Columns `A..`, count.
    pub width: u16,
    /// Rows `1..`, count.
    pub height: u16,
    pub squares: super::grid::Squares,
}

impl Map {
    pub fn get(&self, sq: Square) -> Option<&MapSquare> {
        self.squares.get(&sq)
    }

    /// True when a sea square borders `sq` (edge adjacency).
    pub fn touches_sea(&self, sq: Square) -> bool {
        sq.neighbours(self.width, self.height, false)
            .into_iter()
            .any(|n| self.get(n).is_some_and(|m| m.terrain == Terrain::Sea))
    }
}

/// One square in both dimensions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapSquare {
    pub terrain: Terrain,
    /// Realm whose land this is (normal dimension); `None` = no one's / sea.
    #[serde(default)]
    pub owner: Option<Name>,
    /// The square in the Evil dimension: rock where the normal one is sea,
    /// lava where it is land (RULINGS 53).
    pub evil_terrain: EvilTerrain,
    /// Realm that holds this square in the Evil dimension (the Evil).
    #[serde(default)]
    pub evil_owner: Option<Name>,
    #[serde(default)]
    pub portal: Option<Box<Portal>>,
    /// A treasure cross in the Evil dimension (R-EVIL-5).
    #[serde(default)]
    pub treasure: bool,
}

#[cfg(test)]
impl MapSquare {
    /// A square of land held by `owner` (lava in the Evil's dimension), for tests.
    pub(crate) fn land(owner: Option<&str>) -> MapSquare {
        MapSquare {
            terrain: Terrain::Land,
            owner: owner.map(Into::into),
            evil_terrain: EvilTerrain::Lava,
            evil_owner: None,
            portal: None,
            treasure: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Terrain {
    Land,
    Sea,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvilTerrain {
    Rock,
    Lava,
}

impl Terrain {
    /// The mirror terrain in the Evil dimension.
    pub fn evil(self) -> EvilTerrain {
        match self {
            Terrain::Land => EvilTerrain::Lava,
            Terrain::Sea => EvilTerrain::Rock,
        }
    }
}

/// Which dimension a city, army or fleet is in (R-EVIL-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    #[default]
    Normal,
    Evil,
}

/// An open portal between corresponding squares (R-EVIL-15..18).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Portal {
    pub opened_by: String,
    pub opened_round: u32,
    /// Set once no Evil troops are within 5 squares: closes after this
    /// round (RULINGS 58).
    #[serde(default)]
    pub closes_after_round: Option<u32>,
}

/// A city (named after its square, R-CITY-1, plus a display name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct City {
    pub square: Square,
    pub name: String,
    pub owner: Name,
    #[serde(default)]
    pub dimension: Dimension,
    pub population: u32,
    /// Per-round production of each resource.
    pub production: Resources,
    pub walls: u32,
    /// Mirrors `Realm::capital` (checked by `validate`).
    pub capital: bool,
    /// Mirrors `Realm::main_harbour` (checked by `validate`).
    pub harbour: bool,
    pub coastal: bool,
    /// Plundered by/of the Evil: no production until population > 0
    /// again (RULINGS 57).
    #[serde(default)]
    pub plundered: bool,
}

impl City {
    /// Wall cap `floor(population / 10)` (RULINGS 36).
    pub fn wall_cap(&self) -> u32 {
        wall_cap(self.population)
    }
}

/// The walls a city of `population` may hold: a tenth of it, rounded down (Rulings 36).
pub fn wall_cap(population: u32) -> u32 {
    population / 10
}

/// One army unit; `built_round` stops it attacking that round (R-UNIT-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    pub kind: UnitKind,
    pub built_round: u32,
}

/// An army group's units in cannon-fodder order (last = first to fall): up to three
/// inside the group, more on the heap. Stored, compared and printed as a list.
pub type Units = smallvec::SmallVec<[Unit; 3]>;

/// An army group: units in cannon-fodder order (last = first to fall).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmyGroup {
    /// Number per owner (`armé 2`).
    pub id: u32,
    pub owner: Name,
    pub square: Square,
    #[serde(default)]
    pub dimension: Dimension,
    pub units: Units,
    /// Treasure picked up in the Evil dimension, credited on reaching an
    /// own city (R-EVIL-6).
    #[serde(default)]
    pub treasure: Treasure,
    /// Arrived by invitation this round: may not move (R-INV-2). Stored as the round's
    /// number; a stored 0 (no round is numbered 0) reads as none. Not zero, so that
    /// it takes four bytes and a group fits one cache line of 64.
    #[serde(default, deserialize_with = "held_until")]
    pub no_move_until_round: Option<std::num::NonZeroU32>,
}

// A weekend reads every group many times over: one group, one cache line of 64 bytes.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<ArmyGroup>() <= 64);

fn held_until<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<std::num::NonZeroU32>, D::Error> {
    Ok(Option::<u32>::deserialize(d)?.and_then(std::num::NonZeroU32::new))
}

impl ArmyGroup {
    /// Sum of unit attack values (without Befälhavare).
    pub fn unit_attack(&self) -> u32 {
        self.units.iter().map(|u| u.kind.stats().attack).sum()
    }

    pub fn unit_defence(&self) -> u32 {
        self.units.iter().map(|u| u.kind.stats().defence).sum()
    }

    /// Group movement by the setting (R-MOVE-1; RULINGS 24).
    pub fn movement(&self, rule: GroupMovement) -> u32 {
        let it = self.units.iter().map(|u| u.kind.stats().movement);
        match rule {
            GroupMovement::Max => it.max().unwrap_or(0),
            GroupMovement::Min => it.min().unwrap_or(0),
        }
    }
}

/// What an army group carries from the Evil dimension (R-EVIL-6). Nearly every group
/// carries nothing, so the amount lives in a box of its own only when there is some:
/// a group is then 40 bytes smaller, which a weekend of 100,000 groups reads over and
/// over. Stored, compared and printed exactly as the `Resources` it stands for.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Treasure(Option<Box<Resources>>);

impl Treasure {
    /// No treasure.
    pub const NONE: Treasure = Treasure(None);

    /// `r` as a treasure (nothing when `r` is nothing).
    pub fn of(r: Resources) -> Treasure {
        if r.is_zero() {
            Treasure::NONE
        } else {
            Treasure(Some(Box::new(r)))
        }
    }

    /// The amount carried.
    pub fn amount(&self) -> Resources {
        self.0.as_deref().copied().unwrap_or(Resources::ZERO)
    }

    /// How much of `r` is carried.
    pub fn get(&self, r: Resource) -> u32 {
        self.0.as_deref().map_or(0, |t| t.get(r))
    }

    /// Carry `n` of `r` (in place of what was carried of it).
    pub fn set(&mut self, r: Resource, n: u32) {
        let mut t = self.amount();
        t.set(r, n);
        *self = Treasure::of(t);
    }

    pub fn is_zero(&self) -> bool {
        self.0.is_none()
    }

    /// Carry `more` as well.
    pub fn add(&mut self, more: &Resources) {
        *self = Treasure::of(self.amount().plus(more));
    }
}

impl std::fmt::Debug for Treasure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.amount().fmt(f)
    }
}

impl Serialize for Treasure {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.amount().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Treasure {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Resources::deserialize(d).map(Treasure::of)
    }
}

/// One ship.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ship {
    pub kind: ShipKind,
    pub built_round: u32,
}

/// A fleet: ships in cannon-fodder order, and the army groups aboard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fleet {
    pub id: u32,
    pub owner: Name,
    pub square: Square,
    #[serde(default)]
    pub dimension: Dimension,
    pub ships: Vec<Ship>,
    /// Ids of the owner's army groups embarked (same square).
    pub cargo: Vec<u32>,
    /// In a city just conquered: must leave next round (R-CITY-8).
    #[serde(default)]
    pub must_leave_by_round: Option<u32>,
}

impl Fleet {
    pub fn attack(&self) -> u32 {
        self.ships.iter().map(|s| s.kind.stats().attack).sum()
    }

    pub fn defence(&self) -> u32 {
        self.ships.iter().map(|s| s.kind.stats().defence).sum()
    }

    pub fn movement(&self, rule: GroupMovement) -> u32 {
        let it = self.ships.iter().map(|s| s.kind.stats().movement);
        match rule {
            GroupMovement::Max => it.max().unwrap_or(0),
            GroupMovement::Min => it.min().unwrap_or(0),
        }
    }

    /// Army units it can carry (frigate capacity from the settings).
    pub fn capacity(&self, settings: &RuleSettings) -> u32 {
        Fleet::capacity_of(&self.ships, settings)
    }

    /// Army units `ships` can carry together (frigate capacity from the settings).
    pub fn capacity_of(ships: &[Ship], settings: &RuleSettings) -> u32 {
        ships
            .iter()
            .map(|s| match s.kind {
                ShipKind::Fregatt => settings.frigate_cargo,
                k => k.cargo_capacity(),
            })
            .fold(0u32, u32::saturating_add)
    }
}

/// A spy sent on a mission (R-SPY-4): waiting, or done this week (see `done_round`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StationedSpy {
    pub id: u64,
    pub owner: String,
    /// Realm it was sent to / waits in.
    pub realm: String,
    /// FIFO order for envoy theft (RULINGS 46).
    pub placed_at: DateTime<Utc>,
    pub mission: SpyMission,
    pub state: SpyState,
    /// The round the spy's work ended in (succeeded, failed or blocked): it is listed
    /// as done on the next Monday form, then dropped at the weekend after (D-53).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done_round: Option<u32>,
    /// What a successful spy on mission 2, 3 or 10 saw, as its report told it: the map
    /// pictures draw this, where the groups stood then, never where they stand later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saw: Option<SpyFindings>,
}

/// The cities, army groups and fleets a spy's report told of, as they were then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpyFindings {
    /// The round the report was made in.
    pub round: u32,
    #[serde(default)]
    pub cities: Vec<SpiedCity>,
    #[serde(default)]
    pub armies: Vec<SpiedGroup>,
    #[serde(default)]
    pub fleets: Vec<SpiedGroup>,
}

/// A city as a spy's report told of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpiedCity {
    pub square: Square,
    pub name: String,
    pub owner: String,
    pub walls: u32,
    pub capital: bool,
    pub harbour: bool,
}

/// An army group or a fleet as a spy's report told of it: where it stood and how many
/// units (ships) it had.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpiedGroup {
    pub owner: String,
    pub id: u32,
    pub square: Square,
    #[serde(default)]
    pub dimension: Dimension,
    pub units: u32,
}

/// The ten missions with their targets (R-SPY-4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", deny_unknown_fields)]
pub enum SpyMission {
    Resources,
    City {
        square: Square,
    },
    Armies,
    Positions,
    Contacts,
    Forgery,
    VictoryPoints,
    /// Steal the first passing envoy, or only those to/from `filter`.
    Steal {
        #[serde(default)]
        filter: Option<String>,
    },
    WhoVoted,
    ForeignTroops,
}

impl SpyMission {
    /// Mission number 1–10.
    pub fn number(&self) -> u8 {
        match self {
            SpyMission::Resources => 1,
            SpyMission::City { .. } => 2,
            SpyMission::Armies => 3,
            SpyMission::Positions => 4,
            SpyMission::Contacts => 5,
            SpyMission::Forgery => 6,
            SpyMission::VictoryPoints => 7,
            SpyMission::Steal { .. } => 8,
            SpyMission::WhoVoted => 9,
            SpyMission::ForeignTroops => 10,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpyState {
    /// Stationed, waiting for an envoy (mission 8) or for the GM.
    Waiting,
    Succeeded,
    Failed,
    /// Came back empty-handed (Shield).
    Blocked,
}

/// A spell whose effect lasts beyond the moment of casting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpellEffect {
    pub spell: Spell,
    pub caster: String,
    pub target: SpellTarget,
    pub cast_round: u32,
    /// Last round (inclusive) in which the effect applies.
    pub expires_round: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SpellTarget {
    Realm(String),
    City(Square),
    Group(GroupRef),
    Square(Square),
}

/// A mission the GM judged done (R-MISSION-3), waiting for the next weekend's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MissionDone {
    pub realm: String,
    pub mission: String,
    pub vp: i64,
}

/// The GM's choice of a realm's random event for one weekend (R-RAND-1, Rulings 50):
/// `event` replaces what the d10 drew; `None` means no event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GmEvent {
    pub round: u32,
    pub realm: String,
    pub event: Option<DrawnEvent>,
}

/// A random event: a good or a bad table entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawnEvent {
    pub good: bool,
    pub entry: EventEntry,
}

/// One ballot (R-VOTE-2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vote {
    pub round: u32,
    pub voter: String,
    pub candidate: String,
}

/// The voting winner's benefit (R-VOTE-5; RULINGS 49).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ruler {
    pub realm: String,
    pub benefit: Option<RulerBenefit>,
    pub from_round: u32,
    /// First round in which it no longer applies (the next vote).
    pub until_round: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RulerBenefit {
    DoubleBids,
    MoveFirst,
    FreeSpies,
    Population,
}

/// This week's free-merchant lot (R-FREE-1/4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FreeMerchantOffer {
    pub round: u32,
    pub lot: Lot,
    /// Minimum bid value (≥ the lot size for resources).
    pub min_bid: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Lot {
    Resource { resource: Resource, amount: u32 },
    Units { kind: UnitKind, count: u32 },
    Other(LocalText),
}

/// A city that changed hands (R-COMBAT-11: borders move a weekend later).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Conquest {
    pub square: Square,
    pub from: String,
    pub to: String,
    pub round: u32,
}

/// The Evil's extra data (R-EVIL).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvilInfo {
    /// Name of the realm with `is_evil`.
    pub realm: String,
    /// Max distance of demons from a portal (R-EVIL-17).
    #[serde(default = "five")]
    pub leash: u16,
}

fn five() -> u16 {
    5
}

/// One line of what happened last weekend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogEntry {
    pub id: u64,
    pub round: u32,
    /// Weekend step 1–9 (0 = before/after the steps).
    pub step: u8,
    /// Who sees it; empty = every realm.
    pub visible_to: Vec<String>,
    pub text: LocalText,
}

impl GameState {
    /// The realm with exactly this canonical name.
    /// The place of the realm named `name` in `realms`.
    pub fn realm_index(&self, name: &str) -> Option<usize> {
        self.realm_places.place(&self.realms, name)
    }

    pub fn realm(&self, name: &str) -> Option<&Realm> {
        let i = self.realm_places.place(&self.realms, name)?;
        self.realms.get(i)
    }

    /// `Realm::may_seat_in` of the realm `name` (the normal map only for a name that
    /// is not a realm's).
    pub fn may_seat_in(&self, name: &str, dimension: Dimension) -> bool {
        seat_allowed(self.realm(name).is_some_and(|r| r.is_evil), dimension)
    }

    pub fn realm_mut(&mut self, name: &str) -> Option<&mut Realm> {
        let i = self.realm_places.place(&self.realms, name)?;
        self.realms.get_mut(i)
    }

    /// The realm that registered `addr` (ASCII case-insensitive).
    pub fn realm_by_email(&self, addr: &str) -> Option<&Realm> {
        let addr = addr.trim();
        self.realms
            .iter()
            .find(|r| r.emails.iter().any(|e| e.eq_ignore_ascii_case(addr)))
    }

    /// All realm names, the Evil's included, in scenario order.
    pub fn realm_names(&self) -> Vec<&str> {
        self.realms.iter().map(|r| r.name.as_str()).collect()
    }

    pub fn cities_of<'a>(&'a self, realm: &'a str) -> impl Iterator<Item = &'a City> + 'a {
        self.cities.iter().filter(move |c| c.owner == realm)
    }

    pub fn armies_of<'a>(&'a self, realm: &'a str) -> impl Iterator<Item = &'a ArmyGroup> + 'a {
        self.armies.iter().filter(move |a| a.owner == realm)
    }

    pub fn fleets_of<'a>(&'a self, realm: &'a str) -> impl Iterator<Item = &'a Fleet> + 'a {
        self.fleets.iter().filter(move |f| f.owner == realm)
    }

    pub fn city_at(&self, sq: Square, dim: Dimension) -> Option<&City> {
        self.cities
            .iter()
            .find(|c| c.square == sq && c.dimension == dim)
    }

    pub fn army(&self, owner: &str, id: u32) -> Option<&ArmyGroup> {
        self.armies.iter().find(|a| a.owner == owner && a.id == id)
    }

    /// Total population of a realm's cities.
    pub fn population(&self, realm: &str) -> u32 {
        self.cities_of(realm).map(|c| c.population).sum()
    }

    /// Rulings 18: whether `realm` cast Reveal by mail this round (a weekday and a
    /// weekend Reveal together count once a round). The receipt and step 2 both ask.
    pub fn revealed_by_mail(&self, realm: &str) -> bool {
        self.courier.round == self.round && self.courier.reveals.iter().any(|r| r == realm)
    }

    /// The position value from which the GM's secret bonus text is the realm's
    /// (R-POS-3, docs/rules.md Rulings 10).
    pub const SECRET_BONUS_AT: u32 = 11;

    /// Give every realm the GM's secret text (`settings.secret_bonus_texts`) of each
    /// position it holds at 11 or more and was not given yet; each once, kept when the
    /// value falls again. Returns what was given now, as (realm's place in `realms`,
    /// position), in realm and position order; a position without a text gives nothing.
    pub fn grant_secret_bonuses(&mut self) -> Vec<(usize, Position)> {
        let texts = &self.settings.secret_bonus_texts;
        let mut given = Vec::new();
        for (i, r) in self.realms.iter_mut().enumerate() {
            if r.eliminated {
                continue;
            }
            for (&p, text) in texts {
                let due = r.positions.get(p) >= Self::SECRET_BONUS_AT;
                if due && !text.trim().is_empty() && !r.secret_bonuses.contains_key(&p) {
                    r.secret_bonuses.insert(p, text.trim().to_string());
                    given.push((i, p));
                }
            }
        }
        given
    }

    /// Units counted against the population cap (R-POP-1; RULINGS 8).
    pub fn counted_units(&self, realm: &str) -> UnitCount {
        // One pass over the army groups (a form's check reads this for its realm).
        let (mut army_units, mut elementals, mut army_groups) = (0u32, 0u32, 0u32);
        for a in self.armies_of(realm) {
            army_groups = army_groups.saturating_add(1);
            army_units = army_units.saturating_add(a.units.len() as u32);
            let e = a.units.iter().filter(|u| u.kind.is_elemental()).count();
            elementals = elementals.saturating_add(e as u32);
        }
        let ships = self.fleets_of(realm).map(|f| f.ships.len() as u32).sum();
        let held = self.realm(realm).map_or(0, |r| r.spies);
        let out = self
            .spies
            .iter()
            .filter(|s| s.owner == realm && s.state == SpyState::Waiting)
            .count() as u32;
        UnitCount {
            army_units,
            elementals,
            ships,
            spies: held.saturating_add(out),
            army_groups,
        }
    }

    /// Cross-reference checks. Every problem is one line naming the thing
    /// and what is wrong.
    pub fn validate(&self) -> Result<(), Vec<String>> {
        let mut errs = Vec::new();
        let names: BTreeSet<&str> = self.realms.iter().map(|r| r.name.as_str()).collect();
        if self.schema_version != SCHEMA_VERSION {
            errs.push(format!(
                "schema_version {} is not the supported {SCHEMA_VERSION}",
                self.schema_version
            ));
        }
        if self.round == 0 {
            errs.push("round must be 1 or more".into());
        }
        if ![4, 8].contains(&self.settings.adjacency) {
            errs.push(format!(
                "settings.adjacency is {}; use 4 or 8",
                self.settings.adjacency
            ));
        }
        // Realms: unique names and addresses; references.
        let mut seen_names = BTreeSet::new();
        let mut seen_mail = BTreeMap::new();
        for r in &self.realms {
            let who = format!("realm {}", r.name);
            if r.name.trim().is_empty() {
                errs.push("a realm has an empty name".into());
            }
            if !seen_names.insert(r.name.to_lowercase()) {
                errs.push(format!("{who}: the name is used twice"));
            }
            if r.emails.is_empty() && !r.eliminated {
                errs.push(format!("{who}: no mail address in emails"));
            }
            for e in &r.emails {
                if !e.contains('@') {
                    errs.push(format!("{who}: `{e}` is not a mail address"));
                }
                if let Some(other) = seen_mail.insert(e.to_lowercase(), r.name.clone()) {
                    errs.push(format!("{who}: address {e} is also used by {other}"));
                }
            }
            for f in &r.friends {
                if !names.contains(f.as_str()) {
                    errs.push(format!("{who}: friend `{f}` is not a realm"));
                } else if f == &r.name {
                    errs.push(format!("{who}: lists itself as friend"));
                }
            }
            if r.trade_wishes.buy.len() > 2 || r.trade_wishes.sell.len() > 2 {
                errs.push(format!(
                    "{who}: trade_wishes has more than 2 buy or 2 sell entries"
                ));
            }
            for (label, sq, want_harbour) in [
                ("capital", r.capital, false),
                ("main_harbour", r.main_harbour, true),
            ] {
                let Some(sq) = sq else {
                    // The Evil has no ships, so it needs no main harbour.
                    let needed = !(want_harbour && r.is_evil);
                    if needed && !r.eliminated && self.cities_of(&r.name).next().is_some() {
                        errs.push(format!("{who}: no {label}"));
                    }
                    continue;
                };
                match self
                    .cities
                    .iter()
                    .find(|c| c.square == sq && c.owner == r.name)
                {
                    None => errs.push(format!("{who}: {label} {sq} is not one of its cities")),
                    Some(c) if want_harbour && !c.coastal => {
                        errs.push(format!("{who}: main_harbour {sq} is not a coastal city"))
                    }
                    Some(_) => {}
                }
            }
            for inv in &r.invitations {
                if !names.contains(inv.from.as_str()) {
                    errs.push(format!("{who}: invitation from unknown realm {}", inv.from));
                }
                if self.map.get(inv.square).is_none() {
                    errs.push(format!(
                        "{who}: invitation to unknown square {}",
                        inv.square
                    ));
                }
            }
        }
        let evil_count = self.realms.iter().filter(|r| r.is_evil).count();
        match (&self.evil, evil_count) {
            (None, 0) => {}
            (Some(e), 1) => {
                if !self.realm(&e.realm).is_some_and(|r| r.is_evil) {
                    errs.push(format!("evil.realm {} is not the realm marked is_evil", e.realm));
                }
            }
            (_, n) => errs.push(format!(
                "{n} realms are marked is_evil and the evil block is {}; need exactly one of each or neither",
                if self.evil.is_some() { "present" } else { "absent" }
            )),
        }
        // Map.
        let expected = self.map.width as usize * self.map.height as usize;
        if self.map.squares.len() != expected {
            errs.push(format!(
                "map has {} squares, expected width × height = {expected}",
                self.map.squares.len()
            ));
        }
        for (sq, m) in &self.map.squares {
            if sq.col() >= self.map.width || sq.row() > self.map.height {
                errs.push(format!(
                    "map square {sq} is outside the {}×{} grid",
                    self.map.width, self.map.height
                ));
            }
            if let Some(o) = &m.owner {
                if !names.contains(o.as_str()) {
                    errs.push(format!("map square {sq}: owner `{o}` is not a realm"));
                }
                if m.terrain == Terrain::Sea {
                    errs.push(format!("map square {sq}: sea cannot have an owner"));
                }
            }
            if let Some(o) = &m.evil_owner {
                if !names.contains(o.as_str()) {
                    errs.push(format!("map square {sq}: evil_owner `{o}` is not a realm"));
                }
            }
            if m.evil_terrain != m.terrain.evil() {
                errs.push(format!(
                    "map square {sq}: evil_terrain must mirror the terrain (sea → rock, land → lava)"
                ));
            }
            if let Some(p) = &m.portal {
                if !names.contains(p.opened_by.as_str()) {
                    errs.push(format!(
                        "portal on {sq}: opened_by `{}` is not a realm",
                        p.opened_by
                    ));
                }
                if self.cities.iter().any(|c| c.square == sq) {
                    errs.push(format!(
                        "portal on {sq}: a portal cannot be on a city square"
                    ));
                }
            }
        }
        // Cities.
        let mut city_keys = BTreeSet::new();
        for c in &self.cities {
            let who = format!("city {} ({})", c.square, c.name);
            if !city_keys.insert((c.square, c.dimension == Dimension::Evil)) {
                errs.push(format!("{who}: two cities on one square"));
            }
            let Some(owner) = self.realm(&c.owner) else {
                errs.push(format!("{who}: owner `{}` is not a realm", c.owner));
                continue;
            };
            match self.map.get(c.square) {
                None => errs.push(format!("{who}: square is not on the map")),
                Some(m) => {
                    let want = match c.dimension {
                        Dimension::Normal => Terrain::Land,
                        Dimension::Evil => Terrain::Sea,
                    };
                    if m.terrain != want {
                        errs.push(format!(
                            "{who}: a {} city must stand on {} (normal-dimension {})",
                            if c.dimension == Dimension::Evil {
                                "Evil-dimension"
                            } else {
                                "normal"
                            },
                            if want == Terrain::Land {
                                "land"
                            } else {
                                "rock"
                            },
                            if want == Terrain::Land { "land" } else { "sea" },
                        ));
                    }
                }
            }
            if c.capital != (owner.capital == Some(c.square)) {
                errs.push(format!(
                    "{who}: capital flag disagrees with realm {}",
                    owner.name
                ));
            }
            if c.harbour != (owner.main_harbour == Some(c.square)) {
                errs.push(format!(
                    "{who}: harbour flag disagrees with realm {}",
                    owner.name
                ));
            }
            if c.walls > c.wall_cap() {
                errs.push(format!(
                    "{who}: {} walls exceed the cap floor(population/10) = {}",
                    c.walls,
                    c.wall_cap()
                ));
            }
        }
        // Army groups and fleets.
        let mut army_ids: BTreeMap<(&str, u32), &ArmyGroup> = BTreeMap::new();
        let evil: BTreeSet<&str> = self
            .realms
            .iter()
            .filter(|r| r.is_evil)
            .map(|r| r.name.as_str())
            .collect();
        for a in &self.armies {
            let who = format!("army {} of {}", a.id, a.owner);
            if !names.contains(a.owner.as_str()) {
                errs.push(format!("{who}: owner is not a realm"));
            }
            if army_ids.insert((a.owner.as_str(), a.id), a).is_some() {
                errs.push(format!("{who}: id used twice"));
            }
            if self.map.get(a.square).is_none() {
                errs.push(format!("{who}: square {} is not on the map", a.square));
            }
            if a.units.is_empty() {
                errs.push(format!("{who}: has no units"));
            }
            let evil_owner = evil.contains(a.owner.as_str());
            for u in &a.units {
                if u.kind.is_demon() && !evil_owner {
                    errs.push(format!("{who}: only the Evil can have demons"));
                    break;
                }
            }
        }
        let mut fleet_ids = BTreeSet::new();
        let mut aboard: BTreeMap<(&str, u32), u32> = BTreeMap::new();
        for f in &self.fleets {
            let who = format!("fleet {} of {}", f.id, f.owner);
            if !names.contains(f.owner.as_str()) {
                errs.push(format!("{who}: owner is not a realm"));
            }
            if !fleet_ids.insert((f.owner.as_str(), f.id)) {
                errs.push(format!("{who}: id used twice"));
            }
            if f.dimension == Dimension::Evil {
                errs.push(format!("{who}: ships cannot enter the Evil dimension"));
            }
            match self.map.get(f.square) {
                None => errs.push(format!("{who}: square {} is not on the map", f.square)),
                Some(m) => {
                    let in_own_city = self.city_at(f.square, Dimension::Normal).is_some();
                    if m.terrain == Terrain::Land && !in_own_city {
                        errs.push(format!(
                            "{who}: {} is land without a harbour city",
                            f.square
                        ));
                    }
                }
            }
            if f.ships.is_empty() {
                errs.push(format!("{who}: has no ships"));
            }
            let mut load = 0;
            for id in &f.cargo {
                match army_ids.get(&(f.owner.as_str(), *id)) {
                    None => errs.push(format!("{who}: cargo army {id} does not exist")),
                    Some(a) if a.square != f.square => errs.push(format!(
                        "{who}: cargo army {id} is on {}, not {}",
                        a.square, f.square
                    )),
                    Some(a) => load += a.units.len() as u32,
                }
                *aboard.entry((f.owner.as_str(), *id)).or_default() += 1;
            }
            if load > f.capacity(&self.settings) {
                errs.push(format!(
                    "{who}: carries {load} army units but has room for {}",
                    f.capacity(&self.settings)
                ));
            }
        }
        for ((owner, id), n) in aboard {
            if n > 1 {
                errs.push(format!("army {id} of {owner} is aboard {n} fleets"));
            }
        }
        // Spies, effects, votes, invitations.
        let mut ids = BTreeSet::new();
        for s in &self.spies {
            if !ids.insert(s.id) {
                errs.push(format!("spy {}: id used twice", s.id));
            }
            for n in [&s.owner, &s.realm] {
                if !names.contains(n.as_str()) {
                    errs.push(format!("spy {}: `{n}` is not a realm", s.id));
                }
            }
        }
        for e in &self.effects {
            if !names.contains(e.caster.as_str()) {
                errs.push(format!(
                    "effect {:?}: caster `{}` is not a realm",
                    e.spell, e.caster
                ));
            }
        }
        for v in &self.votes {
            for n in [&v.voter, &v.candidate] {
                if !names.contains(n.as_str()) {
                    errs.push(format!("vote in round {}: `{n}` is not a realm", v.round));
                }
            }
        }
        for h in &self.home_invitations {
            if !names.contains(h.realm.as_str()) {
                errs.push(format!(
                    "home-invitation {}: `{}` is not a realm",
                    h.id, h.realm
                ));
            }
        }
        if let Some(r) = &self.ruler {
            if !names.contains(r.realm.as_str()) {
                errs.push(format!("ruler `{}` is not a realm", r.realm));
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs)
        }
    }
}

/// Counts that the position and population caps are checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct UnitCount {
    /// Every army unit, elementals and siege towers included (RULINGS 5, RULINGS 14).
    pub army_units: u32,
    pub elementals: u32,
    pub ships: u32,
    /// Held plus out on missions.
    pub spies: u32,
    pub army_groups: u32,
}

impl UnitCount {
    /// Counted against the population cap (RULINGS 8).
    pub fn counted(&self) -> u32 {
        self.army_units + self.ships + self.spies
    }
}

/// Per-round courier bookkeeping: weekday Reveals (RULINGS 18), the voting winner's
/// free spies (RULINGS 16), forgery rights won by interception (R-SPY-8). Cleared
/// when the round changes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    /// The round these entries belong to; a new round clears them.
    pub round: u32,
    /// Realms that cast Reveal by mail this round (RULINGS 18).
    pub reveals: Vec<String>,
    /// Free spies the voting winner sent this round (RULINGS 16).
    pub free_spies: BTreeMap<String, u32>,
    /// One free forged envoy per interception (R-SPY-8).
    pub forgery_rights: Vec<ForgeryRight>,
}

/// The interceptor's right to one forged envoy to the original recipient.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForgeryRight {
    pub holder: String,
    pub recipient: String,
    /// The stolen envoy's (shown) sender: the default claimed sender.
    pub original_sender: String,
    pub used: bool,
}

/// A contact between two realms (an envoy or merchant passed), kept as history
/// for spy mission 5 (R-SPY-4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contact {
    pub round: u32,
    pub from: String,
    pub to: String,
    pub kind: ContactKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactKind {
    Envoy,
    Merchant,
}
