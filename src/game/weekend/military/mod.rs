//! The weekend's armies and fleets: movement (step 3), combat and city outcomes
//! (step 4), invitations (step 5) and home-invitations (step 9). One file per step;
//! this file holds the entry points the pipeline calls and the family's events.

mod cities;
mod combat;
pub(crate) mod forces;
pub(crate) mod index;
mod invitations;
mod movement;
pub mod water;

/// For the Evil's steps (src/game/weekend/evil/): groups found and removed as the
/// military steps do it.
pub(super) use forces::{army_at as army_index, remove_army as remove_army_group};
pub use movement::MoveStop;

pub(crate) use forces::{army_at, fleet_at, placed_at_in, unload};

use serde::{Deserialize, Serialize};

use super::Weekend;
use crate::game::combat::{Battle, Outcome as BattleOutcome};
use crate::game::dice::Dice;
use crate::game::orders::{Group, Outcome, Wave};
use crate::game::Name;
use crate::game::{Resource, Resources, Square};

/// What the military steps did, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MilitaryEvent {
    /// A group moved (or landed) from `from` to `to`; `stop` says why it stopped short
    /// or met troops (step 3).
    Moved {
        realm: Name,
        group: Group,
        from: Square,
        to: Square,
        stop: Option<MoveStop>,
    },
    /// A movement order that was not carried out.
    MoveRefused {
        realm: Name,
        group: Group,
        reason: MoveRefusal,
    },
    /// A group arrived by invitation (`inviter`) or home-invitation (None) (R-INV-2,
    /// R-INV-8).
    Arrived {
        realm: Name,
        group: Group,
        square: Square,
        inviter: Option<Name>,
    },
    /// An invitation or home-invitation that could not be used.
    InvitationRefused {
        realm: Name,
        group: Group,
        reason: InvitationRefusal,
    },
    /// An army went aboard a fleet (R-MOVE-3).
    Boarded { realm: Name, army: u32, fleet: u32 },
    /// `other` joined `group` (R-MOVE-8).
    Merged {
        realm: Name,
        group: Group,
        other: u32,
    },
    /// Units left `group` and became group `new`.
    Split { realm: Name, group: Group, new: u32 },
    /// One battle, round by round; seen by the realms that fought.
    Battle(Box<BattleReport>),
    /// An attack order that was not carried out, and why.
    AttackRefused {
        realm: Name,
        group: Group,
        square: Square,
        reason: AttackRefusal,
    },
    /// The second attacker moved into the city the first one took (R-COMBAT-12).
    SecondAttackerJoined {
        realm: Name,
        group: Group,
        square: Square,
    },
    /// Army units that drowned: their fleet sank, or too few transports were left
    /// (R-COMBAT-8, RULINGS 32).
    CargoLost {
        realm: Name,
        fleet: u32,
        units: u64,
        fleet_sunk: bool,
    },
    /// An army group whose last water elemental died at sea drowned whole (R-UNIT-4).
    Drowned {
        realm: Name,
        army: u32,
        square: Square,
        units: u64,
    },
    /// R-CITY-5 with RULINGS 28.
    CityPlundered {
        square: Square,
        city: Name,
        attacker: Name,
        defender: Name,
        production: Box<Resources>,
        taken: Option<(Resource, u32)>,
        vp: i64,
    },
    /// R-CITY-6, R-CITY-9.
    CityTakenOver {
        square: Square,
        city: Name,
        attacker: Name,
        defender: Name,
        capital: bool,
        vp_won: i64,
        vp_lost: i64,
    },
    /// R-CITY-7.
    CityRazed {
        square: Square,
        city: Name,
        attacker: Name,
        defender: Name,
        capital: bool,
        vp_lost: i64,
    },
    /// A lost capital or main harbour and its stand-in (RULINGS 29).
    SeatLost {
        realm: Name,
        seat: Seat,
        lost: Square,
        stand_in: Option<Square>,
    },
    /// A fleet that stayed in a taken city passed to the city's owner (R-CITY-8).
    FleetTaken {
        from: Name,
        fleet: u32,
        to: Name,
        new_id: u32,
        square: Square,
    },
    /// A fleet in a conquered city must leave next round (R-CITY-8).
    FleetMustLeave {
        realm: Name,
        fleet: u32,
        square: Square,
        by_round: u32,
    },
}

/// A battle as it was fought: who, where, the sides as they went in, and the outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BattleReport {
    pub square: Square,
    pub attacker: Name,
    pub attacker_group: Group,
    /// None for a city without army units.
    pub defender: Option<Name>,
    pub defender_groups: Vec<Group>,
    /// The city fought for, by name.
    pub city: Option<String>,
    pub outcome_ordered: Option<Outcome>,
    pub wave: Option<Wave>,
    pub battle: Battle,
    pub result: BattleOutcome,
}

/// Capital or main harbour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seat {
    Capital,
    Harbour,
}

/// Why an attack order was not carried out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum AttackRefusal {
    /// The group no longer exists (lost earlier this weekend).
    NoSuchGroup,
    /// Every unit of the group was built this round (R-UNIT-7).
    BuiltThisRound,
    /// The target is neither the group's square nor next to it (R-MOVE-4).
    TooFar,
    /// Another realm, a friend, attacks the same target (R-COMBAT-13, RULINGS 35).
    JointAttack { with: String },
    /// The first attacker did not fall, so the second stood down (R-COMBAT-12).
    SecondStoodDown,
    /// Nothing hostile on the target square.
    NoEnemy,
    /// Ships alone never take a city (RULINGS 14).
    FleetCannotTakeCity,
    /// A fleet that must leave a taken city attacks no city (R-CITY-8).
    MustLeave,
    /// The group already attacked this weekend; a group that fought moves no further.
    AlreadyFought,
}

impl AttackRefusal {
    /// The rule the refusal rests on.
    pub fn rule(&self) -> &'static str {
        match self {
            AttackRefusal::NoSuchGroup | AttackRefusal::NoEnemy => "R-COMBAT-3",
            AttackRefusal::BuiltThisRound => "R-UNIT-7",
            AttackRefusal::TooFar => "R-MOVE-4",
            AttackRefusal::JointAttack { .. } => "R-COMBAT-13",
            AttackRefusal::SecondStoodDown => "R-COMBAT-12",
            AttackRefusal::FleetCannotTakeCity => "R-NAV-4",
            AttackRefusal::MustLeave => "R-CITY-8",
            AttackRefusal::AlreadyFought => "R-MOVE-6",
        }
    }
}

/// Why a movement order was not carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveRefusal {
    NoSuchGroup,
    /// An army aboard moves with its fleet; land it first.
    Aboard,
    /// R-INV-2.
    CameByInvitation,
    /// The army is neither on the fleet's square nor next to it.
    NotAtTheFleet,
    /// The transports have no room (R-NAV-3).
    NoRoom,
    NotAboard,
    /// Landing needs land on or next to the fleet's square.
    NoLandingThere,
    /// Merging needs two groups on one square.
    NotTogether,
    /// The group does not hold the units listed.
    NotThoseUnits,
    /// It met troops that are not a friend's, or they met it, this step: an army that
    /// is attacked cannot move that round (R-MOVE-6).
    Engaged,
}

/// Where a group that met troops that are not a friend's in step 3 came from, for the
/// withdrawal at the round limit (Rulings 31): the square before the one it stopped on,
/// or the fleet it landed from and the square that fleet stood on then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entered {
    Square(Square),
    Fleet { fleet: u32, square: Square },
}

/// Whether `what` is a move that stopped on meeting troops that are not a friend's
/// (R-MOVE-6): what step 4 fights before the attacks the forms order.
pub(crate) fn met_enemy(what: &crate::game::event::What) -> bool {
    matches!(
        what,
        crate::game::event::What::Military(MilitaryEvent::Moved {
            stop: Some(MoveStop::Enemy { .. }),
            ..
        })
    )
}

impl MoveRefusal {
    /// The rule the refusal rests on.
    pub fn rule(self) -> &'static str {
        match self {
            MoveRefusal::NoSuchGroup | MoveRefusal::Aboard => "R-MOVE-5",
            MoveRefusal::CameByInvitation => "R-INV-2",
            MoveRefusal::NotAtTheFleet | MoveRefusal::NotAboard | MoveRefusal::NoLandingThere => {
                "R-MOVE-3"
            }
            MoveRefusal::NoRoom => "R-NAV-3",
            MoveRefusal::NotTogether => "R-MOVE-8",
            MoveRefusal::NotThoseUnits => "R-COMBAT-9",
            MoveRefusal::Engaged => "R-MOVE-6",
        }
    }
}

/// Step 3.
pub fn movement(w: &mut Weekend) {
    movement::run(w);
}

/// Step 4: every attack order, naval battles first, with the weekend's own dice.
pub fn combat(w: &mut Weekend) {
    let mut dice = w.dice("combat");
    // Fewer rolls than groups on the weekends measured: reserved at once.
    dice.reserve(w.state.armies.len());
    combat_with(w, dice);
}

/// Step 4 with a given dice source (tests and GM-dictated rolls): battles draw from it
/// in order, the attacker's d20 before the defender's each round.
pub fn combat_with(w: &mut Weekend, mut dice: Dice) {
    combat::run(w, &mut dice);
    w.keep(dice);
}

/// Why an invitation or home-invitation was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InvitationRefusal {
    /// No unused invitation from that realm valid this weekend (R-INV-3).
    NoValidInvitation,
    /// The group no longer exists.
    NoSuchGroup,
    /// An army invited onto sea, or a fleet onto land (R-INV-2).
    WrongGround,
    /// The realm has no capital (armies) or main harbour (fleets) to come home to.
    NoSeat,
    /// A home-invitation on the form beyond the free envoys the realm cannot pay for
    /// (an envoy's price, Rulings 15).
    CannotPay,
}

impl InvitationRefusal {
    pub fn rule(self) -> &'static str {
        match self {
            InvitationRefusal::NoValidInvitation => "R-INV-3",
            InvitationRefusal::NoSuchGroup | InvitationRefusal::WrongGround => "R-INV-2",
            InvitationRefusal::NoSeat => "R-INV-8",
            InvitationRefusal::CannotPay => "RULINGS 15",
        }
    }
}

/// Step 5: invited groups arrive and fight enemies they land on (R-INV-5).
pub fn invitations(w: &mut Weekend) {
    let dice = w.dice("invitations");
    invitations_with(w, dice);
}

/// Step 5 with a given dice source (tests and GM-dictated rolls).
pub fn invitations_with(w: &mut Weekend, mut dice: Dice) {
    invitations::arrivals(w, &mut dice);
    w.keep(dice);
}

/// Step 9.
pub fn home_invitations(w: &mut Weekend) {
    invitations::home(w);
}
