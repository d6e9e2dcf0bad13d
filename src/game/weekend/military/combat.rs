//! Step 4: the attack orders, fought with `game::combat::fight`. Naval battles first
//! (R-COMBAT-8), whose surviving ships back their realm's landing on the same square
//! (R-COMBAT-10, RULINGS 33); then each target's land attacks in form order, 1st
//! attacker before 2nd (R-COMBAT-12, RULINGS 34). A friend's attack on a target another
//! realm already attacks is a joint attack and refused (R-COMBAT-13, RULINGS 35). Units
//! built this round stay out (R-UNIT-7); the round limit sends the attacker back to
//! where it stood (RULINGS 31).

use std::collections::{BTreeMap, BTreeSet};

use crate::game::combat::{fight, Battle, Winner};
use crate::game::dice::Dice;
use crate::game::event::{Step, What};
use crate::game::orders::{Group, Order, Outcome, Wave};
use crate::game::state::{Dimension, GameState, Unit, Units};
use crate::game::Square;

use super::super::{evil, magic, Reads, Weekend};
use super::forces::{self, Tagged};
use super::index::{self, Index};
use super::water;
use super::{cities, AttackRefusal, BattleReport, Entered, MilitaryEvent, MoveStop};
use crate::game::hash::{FastMap, FastSet};
use crate::game::Name;

/// One attack order, with the index of its form (earliest first).
#[derive(Debug, Clone)]
struct Attack {
    realm: Name,
    group: Group,
    square: Square,
    outcome: Option<Outcome>,
    wave: Option<Wave>,
    /// For troops that met others (in step 3 or on arrival): the realm met. The fight
    /// is with its troops only, never for a city on the square.
    against: Option<Name>,
}

/// Troops that arrived on enemies by invitation attack them (R-INV-5): a land battle
/// for an army, a naval one for a fleet, with no city outcome.
pub(super) fn arrival(
    w: &mut Weekend,
    ix: &mut Index,
    dice: &mut Dice,
    realm: &str,
    group: Group,
    square: Square,
    enemy: &str,
) {
    let a = Attack {
        realm: realm.into(),
        group,
        square,
        outcome: None,
        wave: None,
        against: Some(enemy.into()),
    };
    let mut ctx = Ctx::default();
    if group.is_army() {
        land(w, ix, dice, &a, &mut ctx);
    } else {
        naval(w, ix, dice, &a, &mut ctx);
    }
}

/// What the step remembers between battles: the attack each realm's surviving fleets
/// add to its landing on a square, and the groups that already attacked (a group that
/// fought moves no further, R-MOVE-6, so it attacks once).
/// Only looked up, never read in order: hash maps, as large as the game's attacks.
#[derive(Default)]
struct Ctx {
    support: FastMap<(Name, Square), u64>,
    fought: FastSet<(Name, Group)>,
    /// Cities whose Mountain Wall a siege tower brought down this weekend: later
    /// battles there meet the city as the first left it (Rulings 34, 36).
    spell_walls_down: BTreeSet<Square>,
    /// The fleets that fought a sea battle, by (owner, group, square): looked up
    /// instead of searching the weekend's events for the battle once an attack.
    sea_battles: FastSet<(Name, Group, Square)>,
}

pub fn run(w: &mut Weekend, dice: &mut Dice) {
    w.sort_forces();
    let mut ix = w.take_index();
    let ordered = collect(w, &ix);
    let mut attacks = contacts(w, &ordered);
    attacks.extend(ordered);
    // Room for every attack at once: a large weekend's sets are not grown (each growth
    // reads and writes the whole set again) as the battles go.
    let mut ctx = Ctx {
        fought: FastSet::with_capacity_and_hasher(attacks.len(), Default::default()),
        ..Ctx::default()
    };
    for a in attacks.iter().filter(|a| !a.group.is_army()) {
        naval(w, &mut ix, dice, a, &mut ctx);
    }
    // Targets in the order first named; each with its attacks in form order. A square
    // is looked up once, when named, for its place in the list: the battles then read
    // the list in order, with no second look into a table as large as the attacks.
    let mut targets: Vec<Vec<&Attack>> = Vec::new();
    let mut place: FastMap<Square, usize> =
        FastMap::with_capacity_and_hasher(attacks.len(), Default::default());
    for a in attacks.iter().filter(|a| a.group.is_army()) {
        let k = *place.entry(a.square).or_insert_with(|| {
            targets.push(Vec::new());
            targets.len() - 1
        });
        targets[k].push(a);
    }
    drop(place);
    // The battles in batches: each batch's groups read ahead together (`read_ahead`).
    for batch in targets.chunks(index::READ_AHEAD) {
        let attackers = batch
            .iter()
            .flatten()
            .map(|a| (w.state.realm_index(&a.realm), a.group.id()));
        let squares = batch
            .iter()
            .filter_map(|list| list.first().map(|a| a.square));
        let _ = ix.read_ahead(&w.state, squares, attackers);
        for list in batch {
            target(w, &mut ix, dice, list, &mut ctx);
        }
    }
    merge_all(w);
    ix.check(&w.state);
    forces::compact(&mut w.state);
}

/// Troops that met others in step 3 fight here, the mover attacking (R-MOVE-6,
/// RULINGS 37), unless the mover's form orders that attack itself (among `ordered`,
/// the attacks the forms order).
fn contacts(w: &Weekend, ordered: &[Attack]) -> Vec<Attack> {
    let ordered: FastSet<(&str, Group, Square)> = ordered
        .iter()
        .map(|a| (a.realm.as_str(), a.group, a.square))
        .collect();
    if cfg!(debug_assertions) {
        // Every move that met enemy troops was noted as it was recorded.
        let all = w.events.iter().enumerate();
        let met: Vec<usize> = all
            .filter(|(_, e)| super::met_enemy(&e.what))
            .map(|(k, _)| k)
            .collect();
        assert_eq!(met, w.met, "the moves that met enemy troops");
    }
    w.met
        .iter()
        .filter_map(|&k| w.events.get(k))
        .filter_map(|e| match &e.what {
            What::Military(MilitaryEvent::Moved {
                realm,
                group,
                to,
                stop: Some(MoveStop::Enemy { realm: enemy }),
                ..
            }) if !ordered.contains(&(realm.as_str(), *group, *to)) => Some(Attack {
                realm: realm.clone(),
                group: *group,
                square: *to,
                outcome: None,
                wave: None,
                against: Some(enemy.clone()),
            }),
            _ => None,
        })
        .collect()
}

/// After the battles, every realm's armies standing together are one (R-MOVE-8).
fn merge_all(w: &mut Weekend) {
    for (realm, square) in crowded(&w.state) {
        for (group, other) in forces::merge_on(&mut w.state, &realm, square) {
            w.emit(
                Step::Combat,
                vec![realm.clone()],
                What::Military(MilitaryEvent::Merged {
                    realm: realm.as_str().into(),
                    group: Group::Army(group),
                    other,
                }),
            );
        }
    }
}

/// The squares where a realm has more than one army, in (realm, square) order. The
/// armies are sorted by owner (`forces::sort`), so each owner's groups are one run: its
/// squares are sorted and repeats taken, with no map keyed by name. Should the owners
/// not come in order, a map finds the same pairs.
fn crowded(gs: &GameState) -> Vec<(String, Square)> {
    let armies = &gs.armies;
    let mut spots = Vec::new();
    let mut squares: Vec<Square> = Vec::new();
    let mut start = 0;
    // Runs of one owner in the list itself, lost groups skipped: no list of the live
    // groups is made (on a large game that is one more pass over every group).
    while start < armies.len() {
        let owner = armies[start].owner.as_str();
        let end = start
            + armies[start..]
                .iter()
                .take_while(|a| a.owner == owner)
                .count();
        if armies.get(end).is_some_and(|a| a.owner.as_str() < owner) {
            return crowded_by_map(gs);
        }
        squares.clear();
        let live = armies[start..end].iter().filter(|a| !forces::gone(a));
        squares.extend(live.map(|a| a.square));
        squares.sort_unstable();
        for (i, sq) in squares.iter().enumerate() {
            let repeat = i > 0 && squares[i - 1] == *sq;
            let first_repeat = repeat && (i < 2 || squares[i - 2] != *sq);
            if first_repeat {
                spots.push((owner.to_string(), *sq));
            }
        }
        start = end;
    }
    spots
}

fn crowded_by_map(gs: &GameState) -> Vec<(String, Square)> {
    let mut count: BTreeMap<(&str, Square), u32> = BTreeMap::new();
    for a in gs.armies.iter().filter(|a| !forces::gone(a)) {
        *count.entry((a.owner.as_str(), a.square)).or_insert(0) += 1;
    }
    count
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|((o, sq), _)| (o.to_string(), sq))
        .collect()
}

fn collect(w: &Weekend, ix: &Index) -> Vec<Attack> {
    let mut out = Vec::new();
    let reading = w.reading(Reads::Attacks);
    for lines in reading.forms() {
        let form = lines.form;
        if ix.realm_at(&w.state, &form.realm).is_none() {
            continue;
        }
        for o in lines.orders() {
            if let Order::Attack {
                group,
                square,
                outcome,
                wave,
            } = o
            {
                out.push(Attack {
                    realm: form.realm.as_str().into(),
                    group: *group,
                    square: *square,
                    outcome: *outcome,
                    wave: *wave,
                    against: None,
                });
            }
        }
    }
    out
}

fn refuse(w: &mut Weekend, a: &Attack, reason: AttackRefusal) {
    w.emit(
        Step::Combat,
        vec![a.realm.clone()],
        What::Military(MilitaryEvent::AttackRefused {
            realm: a.realm.clone(),
            group: a.group,
            square: a.square,
            reason,
        }),
    );
}

fn mutual_friends(gs: &GameState, ix: &Index, a: &str, b: &str) -> bool {
    ix.lists(gs, a, b) && ix.lists(gs, b, a)
}

fn in_reach(w: &Weekend, from: Square, to: Square) -> bool {
    from == to
        || from
            .neighbours(
                w.state.map.width,
                w.state.map.height,
                w.settings.adjacency == 8,
            )
            .contains(&to)
}

fn bonus(gs: &GameState, ix: &Index, realm: &str, naval: bool) -> u64 {
    ix.realm(gs, realm).map_or(0, |r| {
        u64::from(if naval {
            r.positions.amiral
        } else {
            r.positions.befalhavare
        })
    })
}

/// Defence (R-SPELL table 24) on any of the defending groups: the caster's Besvärjare.
fn spell_defence(w: &Weekend, realm: &str, ids: &[u32], army: bool) -> u64 {
    ids.iter()
        .map(|id| {
            let g = if army {
                Group::Army(*id)
            } else {
                Group::Fleet(*id)
            };
            magic::reads::combat_bonus(&w.magic, &w.state, realm, g, false)
        })
        .max()
        .unwrap_or(0)
}

fn mark_fought(gs: &mut GameState, ix: &Index, realms: &[&str]) {
    for name in realms {
        if let Some(i) = ix.realm_at(gs, name) {
            gs.realms[i].fought_last_weekend = true;
        }
    }
}

/// The land attacks on one target: realm by realm in form order, joint attacks refused.
fn target(w: &mut Weekend, ix: &mut Index, dice: &mut Dice, on: &[&Attack], ctx: &mut Ctx) {
    let mut attackers: Vec<Name> = Vec::new();
    for a in on {
        if attackers.contains(&a.realm) {
            continue;
        }
        if let Some(ally) = attackers
            .iter()
            .find(|r| mutual_friends(&w.state, ix, r, &a.realm))
            .cloned()
        {
            for b in on.iter().filter(|b| b.realm == a.realm) {
                refuse(
                    w,
                    b,
                    AttackRefusal::JointAttack {
                        with: ally.to_string(),
                    },
                );
            }
            attackers.push(a.realm.clone());
            continue;
        }
        attackers.push(a.realm.clone());
        let mut mine: Vec<&Attack> = on.iter().copied().filter(|b| b.realm == a.realm).collect();
        mine.sort_by_key(|b| b.wave == Some(Wave::Second));
        realm_waves(w, ix, dice, &mine, ctx);
    }
}

/// One realm's attacks on one target: the 2nd attacker fights only when the 1st was
/// destroyed, and joins it when it won and moved in (R-COMBAT-12: into the conquered
/// city; a plundered city stays its owner's and the 1st goes back, so the 2nd stays).
fn realm_waves(w: &mut Weekend, ix: &mut Index, dice: &mut Dice, mine: &[&Attack], ctx: &mut Ctx) {
    let mut first: Option<(Winner, bool)> = None;
    for a in mine {
        if a.wave == Some(Wave::Second) {
            match first {
                Some((Winner::Attacker, true)) => {
                    join(w, ix, a);
                    continue;
                }
                Some((Winner::Attacker, false) | (Winner::None, _)) => {
                    refuse(w, a, AttackRefusal::SecondStoodDown);
                    continue;
                }
                Some((Winner::Defender, _)) | None => {}
            }
        }
        let result = land(w, ix, dice, a, ctx);
        if a.wave != Some(Wave::Second) {
            first = result.or(first);
        }
    }
}

/// The 2nd attacker moves into the square the 1st won and merges with it.
fn join(w: &mut Weekend, ix: &mut Index, a: &Attack) {
    let Some(i) = forces::army_at(&w.state, &a.realm, a.group.id()) else {
        return refuse(w, a, AttackRefusal::NoSuchGroup);
    };
    if !in_reach(w, w.state.armies[i].square, a.square) {
        return refuse(w, a, AttackRefusal::TooFar);
    }
    move_army(&mut w.state, ix, &a.realm, a.group.id(), a.square);
    w.emit(
        Step::Combat,
        vec![a.realm.clone()],
        What::Military(MilitaryEvent::SecondAttackerJoined {
            realm: a.realm.clone(),
            group: a.group,
            square: a.square,
        }),
    );
}

/// Move an army (off any fleet) onto `square`; the merge (R-MOVE-8) waits for the end
/// of the step, so later orders still find the group by its number.
fn move_army(gs: &mut GameState, ix: &mut Index, realm: &str, id: u32, square: Square) {
    index::relocate(gs, ix, realm, Group::Army(id), square);
    forces::unload(gs, realm, id);
}

/// Who defends `square` against `attacker` on land: the city's owner, or else the first
/// other realm with an army there; its groups (not those aboard ships), by number.
fn land_defence(
    gs: &GameState,
    ix: &Index,
    attacker: (&str, Dimension),
    square: Square,
    against: Option<&Name>,
) -> (Option<Name>, Vec<u32>) {
    let (attacker, dim) = attacker;
    let city_owner = match against {
        Some(enemy) => Some(enemy.clone()),
        None => ix
            .city_on(gs, square, |c| c.owner != attacker && c.dimension == dim)
            .map(|c| gs.cities[c].owner.clone()),
    };
    let ashore: Vec<&crate::game::state::ArmyGroup> = ix
        .armies_on(gs, square)
        .into_iter()
        .map(|i| &gs.armies[i])
        // Only troops of the attacker's dimension fight it (R-EVIL-2).
        .filter(|a| a.dimension == dim && forces::carrier(gs, &a.owner, a.id).is_none())
        .collect();
    let realm = city_owner.or_else(|| {
        ashore
            .iter()
            .find(|a| a.owner != attacker)
            .map(|a| a.owner.clone())
    });
    let Some(realm) = realm else {
        return (None, Vec::new());
    };
    let mut ids: Vec<u32> = ashore
        .iter()
        .filter(|a| a.owner == realm)
        .map(|a| a.id)
        .collect();
    ids.sort_unstable();
    (Some(realm), ids)
}

/// Checks shared by land and sea: the group exists, is in reach, and has units that
/// may attack. Returns its square and its units, tagged with their place in the group.
fn ready<T: Clone>(
    w: &mut Weekend,
    a: &Attack,
    found: Option<(Square, impl IntoIterator<Item = T>)>,
    built: impl Fn(&T) -> u32,
) -> Option<(Square, Vec<(usize, T)>)> {
    let Some((from, items)) = found else {
        refuse(w, a, AttackRefusal::NoSuchGroup);
        return None;
    };
    if !in_reach(w, from, a.square) {
        refuse(w, a, AttackRefusal::TooFar);
        return None;
    }
    let round = w.round();
    let fit: Vec<(usize, T)> = items
        .into_iter()
        .enumerate()
        .filter(|(_, t)| built(t) < round)
        .collect();
    if fit.is_empty() {
        refuse(w, a, AttackRefusal::BuiltThisRound);
        return None;
    }
    Some((from, fit))
}

/// One land attack. Returns the winner and whether the attacker moved in, or None when
/// the attack was refused.
fn land(
    w: &mut Weekend,
    ix: &mut Index,
    dice: &mut Dice,
    a: &Attack,
    ctx: &mut Ctx,
) -> Option<(Winner, bool)> {
    if ctx.fought.contains(&(a.realm.clone(), a.group)) {
        refuse(w, a, AttackRefusal::AlreadyFought);
        return None;
    }
    if magic::attack_stopped(w, &a.realm, a.group, a.square) {
        // No battle: troops that met the enemy there go back (Rulings 22, 31).
        withdraw(w, ix, a);
        return None;
    }
    let found = forces::army_at(&w.state, &a.realm, a.group.id()).map(|i| {
        let g = &w.state.armies[i];
        let from = forces::carrier(&w.state, &a.realm, g.id)
            .map_or(g.square, |f| w.state.fleets[f].square);
        (from, g.units.clone())
    });
    let (_, fighting) = ready(w, a, found, |u: &Unit| u.built_round)?;
    let dim = evil::dimension_of(&w.state, &a.realm, a.group.id());
    let (defender, def_ids) =
        land_defence(&w.state, ix, (&a.realm, dim), a.square, a.against.as_ref());
    let city = ix
        .city_on(&w.state, a.square, |c| {
            c.owner != a.realm && a.against.is_none() && c.dimension == dim
        })
        .map(|c| w.state.cities[c].clone());
    if defender.is_none() {
        refuse(w, a, AttackRefusal::NoEnemy);
        return None;
    }
    let def_groups: Vec<(Name, u32)> = def_ids
        .iter()
        .map(|id| (defender.clone().unwrap_or_default(), *id))
        .collect();
    let def_units = defending_units(&w.state, defender.as_deref().unwrap_or(""), &def_ids);
    let defended = !def_units.is_empty();
    let battle = Battle {
        attacker: forces::line_of(&fighting, |(_, u)| forces::unit_piece(u)),
        attacker_bonus: bonus(&w.state, ix, &a.realm, false).saturating_add(
            magic::reads::combat_bonus(&w.magic, &w.state, &a.realm, a.group, true),
        ),
        attacker_support: ctx
            .support
            .get(&(a.realm.clone(), a.square))
            .copied()
            .unwrap_or(0),
        defender: forces::line_of(&def_units, |(_, u)| forces::unit_piece(u)),
        defender_bonus: if defended {
            let who = defender.as_deref().unwrap_or("");
            bonus(&w.state, ix, who, false).saturating_add(spell_defence(w, who, &def_ids, true))
        } else {
            0
        },
        walls: city.as_ref().map_or(0, |c| {
            u64::from(c.walls).saturating_add(spell_walls(w, ctx, c.square))
        }),
        city_population: city.as_ref().map(|c| u64::from(c.population)),
        naval: false,
        max_rounds: w.settings.max_battle_rounds,
    };
    ctx.fought.insert((a.realm.clone(), a.group));
    let result = fight(&battle, dice);
    let winner = result.winner;
    // The attacking line, written back onto its group; then the defender's.
    // Split higher demons come back as lower ones (R-EVIL-10).
    let kept = evil::survivors(&fighting, &result.attacker_left);
    let def_kept = evil::survivors(&def_units, &result.defender_left);
    forces::write_back_armies(&mut w.state, &def_groups, &def_kept);
    if let Some(c) = &city {
        if let Some(ci) = ix.city_on(&w.state, c.square, |_| true) {
            let cm = &mut w.state.cities[ci];
            // Mountain Wall's wall is the first a siege tower takes (Rulings 36).
            let real = result.walls_left.min(u64::from(c.walls));
            cm.walls = u32::try_from(real).unwrap_or(cm.walls);
        }
        if result.walls_left < battle.walls && spell_walls(w, ctx, c.square) > 0 {
            ctx.spell_walls_down.insert(c.square);
        }
    }
    let shown = if defended || city.is_none() {
        defender.clone()
    } else {
        city.as_ref().map(|c| c.owner.clone())
    };
    emit_battle(
        w,
        ix,
        BattleReport {
            square: a.square,
            attacker: a.realm.clone(),
            attacker_group: a.group,
            defender: shown,
            defender_groups: def_ids.iter().map(|id| Group::Army(*id)).collect(),
            city: city.as_ref().map(|c| c.name.clone()),
            outcome_ordered: a.outcome,
            wave: a.wave,
            battle,
            result,
        },
    );
    let moves_in = winner == Winner::Attacker
        && (city.is_none() || cities::settle(w, ix, &a.realm, a.square, a.outcome));
    after_attack(w, ix, a, &kept, moves_in);
    Some((winner, moves_in))
}

/// The Mountain Wall a city on `sq` has this weekend (Rulings 36), unless a siege tower
/// already brought it down in an earlier battle.
fn spell_walls(w: &Weekend, ctx: &Ctx, sq: Square) -> u64 {
    if ctx.spell_walls_down.contains(&sq) {
        return 0;
    }
    magic::reads::extra_walls(&w.magic, sq)
}

/// The units of `realm`'s groups `ids`, in order, tagged with their group's place.
fn defending_units(gs: &GameState, realm: &str, ids: &[u32]) -> Vec<Tagged<Unit>> {
    ids.iter()
        .enumerate()
        .flat_map(|(gi, id)| {
            forces::army_at(gs, realm, *id)
                .map(|i| gs.armies[i].units.clone())
                .unwrap_or_default()
                .into_iter()
                .map(move |u| (gi, u))
        })
        .collect()
}

/// Tell a battle to the realms that fought it, and mark them as having fought.
fn emit_battle(w: &mut Weekend, ix: &Index, report: BattleReport) {
    let parties: Vec<Name> = std::iter::once(report.attacker.clone())
        .chain(report.defender.clone())
        .collect();
    mark_fought(
        &mut w.state,
        ix,
        &parties.iter().map(Name::as_str).collect::<Vec<_>>(),
    );
    w.emit(
        Step::Combat,
        parties,
        What::Military(MilitaryEvent::Battle(Box::new(report))),
    );
}

/// Write the attacking group back: the survivors move in when they won (and the
/// outcome lets them), units that could not attack stay where they stood.
fn after_attack(
    w: &mut Weekend,
    ix: &mut Index,
    a: &Attack,
    kept: &[(usize, Unit)],
    moves_in: bool,
) {
    let id = a.group.id();
    let Some(i) = forces::army_at(&w.state, &a.realm, id) else {
        return;
    };
    let round = w.round();
    let units = w.state.armies[i].units.clone();
    let survivors: Units = kept.iter().map(|(_, u)| *u).collect();
    let stay: Units = units
        .iter()
        .copied()
        .filter(|u| u.built_round >= round)
        .collect();
    if !moves_in {
        let all = evil::kept_in_place(&units, kept, round);
        if all.is_empty() {
            forces::lose_army(&mut w.state, &a.realm, id);
        } else {
            w.state.armies[i].units = all;
            withdraw(w, ix, a);
        }
        return;
    }
    if survivors.is_empty() {
        return;
    }
    if stay.is_empty() {
        w.state.armies[i].units = survivors;
        move_army(&mut w.state, ix, &a.realm, id, a.square);
        return;
    }
    // The new units stay behind as the group; the survivors march on as a new one.
    w.state.armies[i].units = stay;
    let mut group = w.state.armies[i].clone();
    group.id = forces::next_army_id(&w.state, &a.realm);
    group.units = survivors;
    group.square = a.square;
    group.treasure = Default::default();
    let new_id = group.id;
    index::insert_army(&mut w.state, ix, group);
    move_army(&mut w.state, ix, &a.realm, new_id, a.square);
}

/// One fleet attack: a naval battle against the other realm's fleets on the square;
/// without enemy ships, the fleet backs its realm's landing there.
fn naval(w: &mut Weekend, ix: &mut Index, dice: &mut Dice, a: &Attack, ctx: &mut Ctx) {
    if ctx.fought.contains(&(a.realm.clone(), a.group)) {
        return refuse(w, a, AttackRefusal::AlreadyFought);
    }
    if magic::attack_stopped(w, &a.realm, a.group, a.square) {
        // No battle: a fleet that met the enemy there goes back (Rulings 22, 31).
        return withdraw(w, ix, a);
    }
    let found = forces::fleet_at(&w.state, &a.realm, a.group.id()).map(|i| {
        let f = &w.state.fleets[i];
        (f.square, f.ships.clone())
    });
    let Some((_, fighting)) = ready(w, a, found, |s: &crate::game::state::Ship| s.built_round)
    else {
        return;
    };
    let leaving = forces::fleet_at(&w.state, &a.realm, a.group.id())
        .is_some_and(|i| w.state.fleets[i].must_leave_by_round.is_some());
    if leaving && ix.city_on(&w.state, a.square, |_| true).is_some() {
        return refuse(w, a, AttackRefusal::MustLeave);
    }
    let attack_of = |ships: &[(usize, crate::game::state::Ship)]| {
        ships
            .iter()
            .map(|(_, s)| u64::from(s.kind.stats().attack))
            .sum::<u64>()
    };
    let here: Vec<&crate::game::state::Fleet> = ix
        .fleets_on(&w.state, a.square)
        .into_iter()
        .map(|i| &w.state.fleets[i])
        .collect();
    let enemy = here
        .iter()
        .find(|f| {
            f.owner != a.realm
                && !f.ships.is_empty()
                && a.against.as_ref().is_none_or(|e| *e == f.owner)
        })
        .map(|f| f.owner.clone());
    let Some(enemy) = enemy else {
        return back_landing(w, ix, a, attack_of(&fighting), ctx);
    };
    let mut def_ids: Vec<u32> = here
        .iter()
        .filter(|f| f.owner == enemy)
        .map(|f| f.id)
        .collect();
    def_ids.sort_unstable();
    let def_groups: Vec<(Name, u32)> = def_ids.iter().map(|id| (enemy.clone(), *id)).collect();
    let def_ships: Vec<Tagged<crate::game::state::Ship>> = def_ids
        .iter()
        .enumerate()
        .flat_map(|(gi, id)| {
            forces::fleet_at(&w.state, &enemy, *id)
                .map(|i| w.state.fleets[i].ships.clone())
                .unwrap_or_default()
                .into_iter()
                .map(move |s| (gi, s))
        })
        .collect();
    let battle = Battle {
        attacker: forces::line_of(&fighting, |(_, s)| forces::ship_piece(s)),
        attacker_bonus: bonus(&w.state, ix, &a.realm, true).saturating_add(
            magic::reads::combat_bonus(&w.magic, &w.state, &a.realm, a.group, true),
        ),
        attacker_support: 0,
        defender: forces::line_of(&def_ships, |(_, s)| forces::ship_piece(s)),
        defender_bonus: bonus(&w.state, ix, &enemy, true)
            .saturating_add(spell_defence(w, &enemy, &def_ids, false)),
        walls: 0,
        city_population: None,
        naval: true,
        max_rounds: w.settings.max_battle_rounds,
    };
    ctx.fought.insert((a.realm.clone(), a.group));
    ctx.sea_battles.insert((a.realm.clone(), a.group, a.square));
    let result = fight(&battle, dice);
    let kept = forces::survivors(
        &fighting,
        |(_, s)| forces::ship_piece(s),
        &result.attacker_left,
    );
    let def_kept = forces::survivors(
        &def_ships,
        |(_, s)| forces::ship_piece(s),
        &result.defender_left,
    );
    let winner = result.winner;
    let survivors_attack = attack_of(&kept);
    emit_battle(
        w,
        ix,
        BattleReport {
            square: a.square,
            attacker: a.realm.clone(),
            attacker_group: a.group,
            defender: Some(enemy.clone()),
            defender_groups: def_ids.iter().map(|id| Group::Fleet(*id)).collect(),
            city: None,
            outcome_ordered: None,
            wave: a.wave,
            battle,
            result,
        },
    );
    write_back_attacking_fleet(w, a, &kept);
    let sunk_or_not = forces::write_back_fleets(&mut w.state, &def_groups, &def_kept);
    for (owner, id, _) in sunk_or_not {
        drown(w, &owner, id);
    }
    drown(w, &a.realm, a.group.id());
    if winner == Winner::Attacker {
        back_landing(w, ix, a, survivors_attack, ctx);
    } else if forces::fleet_at(&w.state, &a.realm, a.group.id()).is_some() {
        withdraw(w, ix, a);
    }
}

/// A group that met enemy troops in step 3 (or was teleported onto them in step 2) and
/// did not win its battle (the round limit, units that could not attack, or no battle
/// at all where Swamp or Storm stops attacks) goes back where it came from, as an
/// attacker withdraws (Rulings 31): to the square before the one it stopped on (the
/// square it was teleported from), or aboard the fleet it landed from (or was
/// teleported off) while that fleet is there, where what the fleet can no longer carry
/// drowns (R-COMBAT-8); enemies never share a square (R-CITY-12). When that fleet sank
/// meanwhile (step 4's naval battles come first), the army goes back to the water the
/// fleet stood on, and drowns whole there unless it can stand on the water by itself
/// (R-COMBAT-8, R-UNIT-4). Other attacks are fought from the attacker's own square and
/// stay.
fn withdraw(w: &mut Weekend, ix: &mut Index, a: &Attack) {
    if a.against.is_none() {
        return;
    }
    let Some(back) = w.entered_from.get(&(a.realm.clone(), a.group)).copied() else {
        return;
    };
    match (back, a.group) {
        (Entered::Square(sq), Group::Army(id)) => move_army(&mut w.state, ix, &a.realm, id, sq),
        (Entered::Square(sq), g @ Group::Fleet(_)) => {
            index::relocate(&mut w.state, ix, &a.realm, g, sq)
        }
        (Entered::Fleet { fleet: f, square }, Group::Army(id)) => {
            let Some(fi) = forces::fleet_at(&w.state, &a.realm, f) else {
                return back_to_the_water(w, ix, &a.realm, id, square);
            };
            let fsq = w.state.fleets[fi].square;
            w.state.fleets[fi].cargo.push(id);
            index::relocate(&mut w.state, ix, &a.realm, Group::Army(id), fsq);
            // The fleet may have taken others aboard since: what it can no longer
            // carry drowns, from the tail of the army that came back last (R-COMBAT-8).
            drown(w, &a.realm, f);
        }
        (Entered::Fleet { .. }, Group::Fleet(_)) => {}
    }
}

/// The fleet army `id` landed from is gone: the army goes back to `square`, where that
/// fleet stood, and drowns whole there when that is the sea and nothing keeps the army
/// afloat (a water elemental, a higher demon, or air elementals alone); its owner is
/// told. A fleet that sank in a harbour city leaves the army on the city's square.
fn back_to_the_water(w: &mut Weekend, ix: &mut Index, realm: &str, id: u32, square: Square) {
    move_army(&mut w.state, ix, realm, id, square);
    let Some(i) = forces::army_at(&w.state, realm, id) else {
        return;
    };
    let a = &w.state.armies[i];
    if !water::stranded(&w.state, a) {
        return;
    }
    let (owner, units) = (a.owner.clone(), a.units.len() as u64);
    forces::lose_army(&mut w.state, realm, id);
    let ev = MilitaryEvent::Drowned {
        realm: owner.clone(),
        army: id,
        square,
        units,
    };
    w.emit(Step::Combat, [owner], What::Military(ev));
}

fn write_back_attacking_fleet(
    w: &mut Weekend,
    a: &Attack,
    kept: &[Tagged<crate::game::state::Ship>],
) {
    let round = w.round();
    let Some(i) = forces::fleet_at(&w.state, &a.realm, a.group.id()) else {
        return;
    };
    let kept_idx: Vec<usize> = kept.iter().map(|(k, _)| *k).collect();
    let ships = w.state.fleets[i]
        .ships
        .iter()
        .enumerate()
        .filter(|(k, s)| kept_idx.contains(k) || s.built_round >= round)
        .map(|(_, s)| *s)
        .collect();
    w.state.fleets[i].ships = ships;
}

/// Cargo a fleet can no longer carry drowns; a fleet without ships is gone.
fn drown(w: &mut Weekend, owner: &str, id: u32) {
    let sunk =
        forces::fleet_at(&w.state, owner, id).is_some_and(|i| w.state.fleets[i].ships.is_empty());
    let lost = forces::drown_excess(&mut w.state, w.settings, owner, id);
    if lost > 0 {
        w.emit(
            Step::Combat,
            vec![owner],
            What::Military(MilitaryEvent::CargoLost {
                realm: owner.into(),
                fleet: id,
                units: lost,
                fleet_sunk: sunk,
            }),
        );
    }
}

/// Fleet support (R-COMBAT-10, RULINGS 33): the attack of the ships left backs the
/// realm's landing on the square; a fleet alone never takes a city (RULINGS 14).
fn back_landing(w: &mut Weekend, ix: &Index, a: &Attack, attack: u64, ctx: &mut Ctx) {
    let landing = w.orders_of(&a.realm).iter().any(
        |o| matches!(o, Order::Attack { group: Group::Army(_), square, .. } if *square == a.square),
    );
    if landing {
        ctx.fought.insert((a.realm.clone(), a.group));
        let s = ctx.support.entry((a.realm.clone(), a.square)).or_insert(0);
        *s = s.saturating_add(attack);
        return;
    }
    let city = ix
        .city_on(&w.state, a.square, |c| c.owner != a.realm)
        .is_some();
    let reason = if city {
        AttackRefusal::FleetCannotTakeCity
    } else {
        AttackRefusal::NoEnemy
    };
    // Only tell a fleet that fought no one; a fleet that won a battle needs no refusal.
    if !ctx
        .sea_battles
        .contains(&(a.realm.clone(), a.group, a.square))
    {
        refuse(w, a, reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Crowded squares found in the owners' runs are those a count of every live group
    /// finds: a lost group beside a live one makes no square crowded, and groups out of
    /// owner order are counted the other way, with the same answer.
    #[test]
    fn crowded_squares_are_found_alike_in_runs_and_by_counting() {
        let mut gs = crate::game::load_scenario(include_str!("../../../../scenarios/demo.yaml"))
            .expect("demo");
        forces::sort(&mut gs);
        // Two groups of the first realm on one square; a lost group beside a third.
        let (a, b) = (gs.armies[0].clone(), gs.armies[1].clone());
        assert_eq!(a.owner, b.owner);
        gs.armies[1].square = a.square;
        let mut lost = gs.armies[2].clone();
        assert_ne!(lost.square, a.square);
        lost.id = 900;
        lost.units.clear();
        let at = gs
            .armies
            .partition_point(|x| (&x.owner, x.id) < (&lost.owner, lost.id));
        gs.armies.insert(at, lost.clone());
        let found = crowded(&gs);
        assert_eq!(found, crowded_by_map(&gs));
        assert!(
            found.contains(&(a.owner.to_string(), a.square)),
            "{found:?}"
        );
        let beside = (lost.owner.to_string(), lost.square);
        assert!(!found.contains(&beside), "{found:?}");
        gs.armies.reverse();
        assert_eq!(crowded(&gs), found, "out of owner order");
    }
}
