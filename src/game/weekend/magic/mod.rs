//! Step 2: magic (R-SPELL-1..13, R-EVIL-14/15). Every `CAST` line of the forms that
//! counted is paid (a failed cast too, docs/rules.md, Rulings 17) and rolled:
//! `Besvärjare + d10 > 10`, a natural 1 fails (R-SPELL-3). Antimagic is cast first, so
//! it shields its realm or group from every other realm's spell of the weekend
//! (Rulings 21); then each form in arrival order, each line in form order.
//!
//! What a spell does at once (kills, Plague, Embezzlement, Maelstrom, Teleport,
//! Armageddon, a portal) is done here. What later steps honour (bans and boosts in
//! step 6, Whirlwind and Waterway in step 3, Mountain Wall, Attack, Defence, Swamp and
//! Storm in step 4) is kept as a `SpellEffect` in `state.effects` cast this round, and
//! read through the functions of `reads`. Every effect is kept until the next weekend,
//! so Reveal (weekday or weekend) can name who cast it; Shield and Isolation are
//! honoured by the courier through that week (R-SPELL-2).

mod cast;
mod harm;
pub mod reads;
mod troops;

use serde::{Deserialize, Serialize};

use super::{Reads, Weekend};
use crate::game::dice::Dice;
use crate::game::event::Step;
use crate::game::orders::{Group, Order, Target};
use crate::game::Name;
use crate::game::{Resource, Resources, Spell, Square};

/// What the magic step did, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MagicEvent {
    /// The caster's line: what it cast, the roll, the price and what came of it.
    Cast {
        realm: String,
        spell: Spell,
        target: Target,
        conjurer: u32,
        d10: u32,
        success: bool,
        cost: Resources,
        /// What the spell did (None when the roll failed).
        effect: Option<Effect>,
    },
    /// A cast that was not made (nothing paid, nothing rolled).
    Refused {
        realm: String,
        spell: Spell,
        why: Why,
    },
    /// What `realm` suffered from another realm's spell; the caster is not named
    /// (only Reveal tells, R-SPELL table 27).
    Suffered {
        realm: String,
        spell: Spell,
        effect: Effect,
    },
    /// An attack in step 4 that Swamp or Storm stopped (Rulings 22).
    AttackStopped {
        realm: String,
        group: Group,
        square: Square,
        spell: Spell,
    },
}

/// What a spell that worked did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    /// Spells 1–12: `realm` produces no `resource` this weekend.
    Banned { realm: String, resource: Resource },
    /// Spells 31–38: `amount` more `resource` in step 6 (R-SPELL-6).
    Boosted { resource: Resource, amount: u32 },
    /// Whirlwind, Waterway, Attack, Defence: the group's gift for this weekend.
    GroupBlessed {
        owner: Name,
        group: Group,
        amount: u32,
    },
    /// Mountain Wall: one wall more in the city this weekend.
    Wall { square: Square, city: String },
    /// Fireball or Whirlpool: one unit or ship of `owner`'s group on `square`; the
    /// army units aboard that drowned, with a fleet that sank or (`afloat`) beyond
    /// the room of the ships left.
    Killed {
        owner: Name,
        square: Square,
        piece: crate::game::orders::Piece,
        drowned: u64,
        /// The fleet still has ships (false for a Fireball). Stored only when true, so
        /// events from before the field read as they were meant: then only a sunk
        /// fleet drowned its cargo.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        afloat: bool,
    },
    /// Teleport: the army stands on `to` (and fights there in step 4 if it met
    /// `enemy`).
    Teleported {
        army: u32,
        to: Square,
        enemy: Option<Name>,
    },
    /// Swamp (armies) or Storm (ships): no attacks in `realm` this weekend.
    NoAttacks { realm: String, naval: bool },
    /// Plague: the city's population after the loss.
    Plague {
        square: Square,
        city: String,
        lost: u32,
    },
    /// Shield or Isolation on `realm` until the next weekend.
    Ward { realm: String },
    /// Armageddon: what one realm lost (the caster's line sums every realm).
    Armageddon { units: u64, ships: u64 },
    /// Reveal: the latest spell cast on the caster and by whom (None: none found).
    Revealed { found: Option<(Spell, String)> },
    /// Embezzlement or Maelstrom: what `realm` lost from its stock.
    Stock { realm: String, lost: Resources },
    /// Antimagic on a realm or a group.
    Protected { realm: String, group: Option<Group> },
    /// Open Portal on `square`.
    Portal { square: Square },
    /// Antimagic of `realm` stopped the spell (R-SPELL-12).
    Blocked { realm: String },
    /// The spell found nothing to act on (e.g. no army on the named square).
    Nothing,
}

/// Why a cast was not made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Why {
    /// R-SPELL-4: the spell was already cast this round.
    AlreadyCast,
    /// R-SPELL-5, Rulings 18: Reveal was already cast by mail this round.
    RevealUsed,
    /// The stock no longer holds the price.
    Short { cost: Resources, short: Resources },
    /// The form's target is not there any more (R-SPELL-11).
    NoTarget,
    /// R-EVIL-14: the Evil casts only on realms where it opened a portal, and only
    /// realms with a portal in them cast on the Evil.
    NoPortal { realm: String },
    /// R-EVIL-15: Open Portal is cast from the Evil's dimension only.
    NotInEvilDimension,
    /// R-EVIL-15: never on a city square of either dimension.
    CitySquare,
    /// R-EVIL-15: the Evil's portals are at most floor(Besvärjare / 2).
    PortalCap { limit: u32 },
    /// R-SPELL-12: Antimagic on a group protects one outside the caster's land.
    AtHome,
}

impl Why {
    /// The rule the refusal rests on.
    pub fn rule(&self) -> &'static str {
        match self {
            Why::AlreadyCast => "R-SPELL-4",
            Why::RevealUsed => "RULINGS 18",
            Why::Short { .. } => "R-SPELL-3",
            Why::NoTarget => "R-SPELL-11",
            Why::NoPortal { .. } => "R-EVIL-14",
            Why::NotInEvilDimension | Why::CitySquare | Why::PortalCap { .. } => "R-EVIL-15",
            Why::AtHome => "R-SPELL-12",
        }
    }
}

/// One cast line, with its realm.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub realm: String,
    pub spell: Spell,
    pub target: Target,
}

/// Step 2 with the weekend's own dice.
pub fn run(w: &mut Weekend) {
    let dice = w.dice("magic");
    run_with(w, dice);
}

/// Step 2 with a given dice source (tests script the casting rolls: one d10 per cast,
/// Antimagic first, then form order).
pub fn run_with(w: &mut Weekend, mut dice: Dice) {
    let lines = lines(w);
    w.sort_forces();
    let mut cx = cast::Cx::new(&w.state, &w.portals);
    let (first, rest): (Vec<&Line>, Vec<&Line>) =
        lines.iter().partition(|l| l.spell == Spell::Antimagi);
    for l in first {
        cast::one(w, &mut dice, &mut cx, l);
    }
    // Antimagic is known before any other spell is cast (Rulings 21).
    w.magic = reads::Spells::of(&w.state);
    for l in rest {
        cast::one(w, &mut dice, &mut cx, l);
    }
    troops::sweep(&mut w.state, &mut cx);
    w.magic = reads::Spells::of(&w.state);
    cx.ix.check(&w.state);
    w.keep(dice);
    w.pass_index(cx.ix);
}

/// Every `CAST` of the forms that counted, earliest form first, in line order.
fn lines(w: &Weekend) -> Vec<Line> {
    let mut out = Vec::new();
    let reading = w.reading(Reads::Magic);
    for lines in reading.forms() {
        let form = lines.form;
        let playing = w.state.realm(&form.realm).is_some_and(|r| !r.eliminated);
        if !playing {
            continue;
        }
        for o in lines.orders() {
            if let Order::Cast { spell, target } = o {
                out.push(Line {
                    realm: form.realm.clone(),
                    spell: *spell,
                    target: target.clone(),
                });
            }
        }
    }
    out
}

pub(crate) fn tell<S: Into<Name>>(
    w: &mut Weekend,
    seen_by: impl IntoIterator<Item = S>,
    ev: MagicEvent,
) {
    w.emit(Step::Magic, seen_by, ev.into());
}

/// Step 4 asks before each attack: true (and the attacker is told) when Swamp (armies)
/// or Storm (ships) stops attacks on `square` this weekend (Rulings 22).
pub fn attack_stopped(w: &mut Weekend, realm: &str, group: Group, square: Square) -> bool {
    let Some(spell) = reads::attacks_stopped(
        &w.magic,
        &w.state,
        square,
        !group.is_army(),
        w.settings.adjacency == 8,
    ) else {
        return false;
    };
    let ev = MagicEvent::AttackStopped {
        realm: realm.into(),
        group,
        square,
        spell,
    };
    w.emit(Step::Combat, vec![realm.to_string()], ev.into());
    true
}
