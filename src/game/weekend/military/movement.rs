//! Step 3: moves, embarking, landing, pick-ups, splits, merges and new orders of the
//! line. Moves wholly inside one's own land go first, then every realm's remaining
//! movement orders in line order, earliest form first (R-MOVE-7, RULINGS 26). Each
//! group spends its own movement points (RULINGS 24, 25); an army aboard pays nothing
//! while carried. A group stops on the first square holding troops that are not a
//! friend's (R-MOVE-6, R-ALLY-1): the contact is fought in step 4, the mover attacking
//! (RULINGS 37). Armies walk on land (a water elemental carries them over water, air
//! elementals cross alone, R-MOVE-10); ships sail the sea and into own cities.

use crate::game::event::{Step, What};
use crate::game::orders::{Group, Order, Piece};
use crate::game::state::{Dimension, Fleet, GameState, Terrain};
use crate::game::Square;

use super::super::{evil, magic, FormLines, Reads, Weekend};
use super::forces;
use super::index::{self, Index};
use super::{Entered, MilitaryEvent, MoveRefusal};
use crate::game::hash::{FastMap, FastSet};
use crate::game::Name;

/// What step 3 remembers between orders: the points each group has spent, and the
/// groups that met troops that are not a friend's (the mover and those it met): an army
/// that is attacked cannot move that round (R-MOVE-6), nor can one that attacked.
/// Looked up by group, never read in order, so hash maps (a game's moves are as many
/// as its groups, and a search tree of them is deep). A group is keyed by its owner's
/// number (`Moves::owner`) and its own, so no name is copied for a move.
struct Moves {
    spent: FastMap<(u32, Group), u32>,
    engaged: FastSet<(u32, Group)>,
    /// Owners that are no realm's (none in a valid state), numbered after the realms.
    others: FastMap<String, u32>,
}

impl Moves {
    /// The number `owner`'s groups are keyed by: its realm's place in `realms`, or for
    /// an owner that is no realm's, a number of its own after them.
    fn owner(&mut self, gs: &GameState, owner: &str) -> u32 {
        if let Some(k) = gs.realm_index(owner).and_then(|k| u32::try_from(k).ok()) {
            return k;
        }
        let next = gs.realms.len().saturating_add(self.others.len());
        let next = u32::try_from(next).unwrap_or(u32::MAX);
        *self.others.entry(owner.to_string()).or_insert(next)
    }

    /// `owner`'s `group` met troops that are not a friend's this step.
    fn engaged(&mut self, gs: &GameState, owner: &str, group: Group) -> bool {
        let o = self.owner(gs, owner);
        self.engaged.contains(&(o, group))
    }

    fn engage(&mut self, gs: &GameState, owner: &str, group: Group) {
        let o = self.owner(gs, owner);
        self.engaged.insert((o, group));
    }
}

pub fn run(w: &mut Weekend) {
    w.sort_forces();
    let round = w.round();
    redraw_borders(w, round);
    let mut ix = w.take_index();
    // The forms are read where they are (the weekend's inputs, not its state).
    let reading = w.reading(Reads::Movement);
    let mut forms: Vec<FormLines> = reading
        .forms()
        .filter(|f| ix.realm_at(&w.state, &f.form.realm).is_some())
        .collect();
    // After the home moves, the voting winner who chose to move first (R-VOTE-5,
    // RULINGS 26), then everyone by when the form arrived.
    let first = mover_first(&w.state, round);
    forms.sort_by_key(|f| {
        (
            first.as_deref() != Some(f.form.realm.as_str()),
            f.form.received_at,
        )
    });
    // Room for a group a line at once: not grown (and copied) as the moves go.
    let lines = forms.iter().map(|f| f.len()).sum();
    let mut spent = Moves {
        spent: FastMap::with_capacity_and_hasher(lines, Default::default()),
        engaged: FastSet::default(),
        others: FastMap::default(),
    };
    // Line by line, in the order read: moved already as a home move.
    let mut done = Vec::new();
    for f in &forms {
        let realm = f.form.realm.as_str();
        for o in f.orders() {
            let home = match o {
                Order::Move { group, path } if home_move(&w.state, realm, *group, path) => {
                    move_group(w, &mut ix, &mut spent, realm, *group, path);
                    true
                }
                _ => false,
            };
            done.push(home);
        }
    }
    let mut done = done.into_iter();
    for f in &forms {
        let realm = f.form.realm.as_str();
        for o in f.orders() {
            if !done.next().unwrap_or(false) {
                one(w, &mut ix, &mut spent, realm, o);
            }
        }
    }
    fleets_left_behind(w, &mut ix);
    ix.check(&w.state);
    w.pass_index(ix);
}

/// The realm whose voting benefit lets it move first this round.
fn mover_first(gs: &GameState, round: u32) -> Option<String> {
    gs.ruler
        .as_ref()
        .filter(|r| {
            r.benefit == Some(crate::game::state::RulerBenefit::MoveFirst)
                && r.from_round <= round
                && round < r.until_round
        })
        .map(|r| r.realm.clone())
}

/// R-COMBAT-11: the loser keeps a taken city's square as home ground for the weekend
/// after the conquest; from the one after that it is the taker's land.
/// The weekend's list of lands is kept with the map.
fn redraw_borders(w: &mut Weekend, round: u32) {
    let gs = &mut w.state;
    let due: Vec<_> = gs
        .conquests
        .iter()
        .filter(|c| c.round.saturating_add(1) < round)
        .cloned()
        .collect();
    for c in due {
        if let Some(m) = gs.map.squares.get_mut(&c.square) {
            m.owner = Some(c.to.as_str().into());
            w.lands.note(c.square, gs.realm_index(&c.to));
        }
    }
    gs.conquests.retain(|c| c.round.saturating_add(1) >= round);
}

/// R-CITY-8: a fleet told to leave a taken city that is still in it after this
/// weekend's moves passes to the city's owner; the troops aboard are lost with it.
pub(super) fn fleets_left_behind(w: &mut Weekend, ix: &mut Index) {
    let round = w.round();
    let stuck: Vec<(Name, u32, Square)> = w
        .state
        .fleets
        .iter()
        .filter(|f| f.must_leave_by_round.is_some_and(|r| r <= round))
        .map(|f| (f.owner.clone(), f.id, f.square))
        .collect();
    for (owner, id, square) in stuck {
        let Some(fi) = forces::fleet_at(&w.state, &owner, id) else {
            continue;
        };
        let taker = ix
            .city_on(&w.state, square, |c| {
                !ix.mutual_friends(&w.state, &owner, &c.owner)
            })
            .map(|c| w.state.cities[c].owner.clone());
        let Some(taker) = taker else {
            w.state.fleets[fi].must_leave_by_round = None;
            continue;
        };
        let mut fleet = w.state.fleets.remove(fi);
        for a in std::mem::take(&mut fleet.cargo) {
            forces::remove_army(&mut w.state, &owner, a);
        }
        let new_id = next_fleet_id(&w.state, &taker);
        fleet.owner = taker.clone();
        fleet.id = new_id;
        fleet.must_leave_by_round = None;
        index::insert_fleet(&mut w.state, ix, fleet);
        w.emit(
            Step::Movement,
            vec![owner.clone(), taker.clone()],
            What::Military(MilitaryEvent::FleetTaken {
                from: owner,
                fleet: id,
                to: taker,
                new_id,
                square,
            }),
        );
    }
}

/// A free fleet number for `realm`.
fn next_fleet_id(gs: &GameState, realm: &str) -> u32 {
    gs.fleets[forces::fleets_of(gs, realm)]
        .iter()
        .map(|f| f.id)
        .max()
        .unwrap_or(0)
        .saturating_add(1)
}

fn one(w: &mut Weekend, ix: &mut Index, spent: &mut Moves, realm: &str, o: &Order) {
    match o {
        Order::Move { group, path } => move_group(w, ix, spent, realm, *group, path),
        Order::Embark { army, fleet } | Order::PickUp { fleet, army } => {
            board(w, ix, realm, *army, *fleet)
        }
        Order::Disembark { army, square } => land(w, ix, spent, realm, *army, *square),
        Order::Merge { group, other } => merge(w, realm, *group, *other),
        Order::Split { group, pieces } => split(w, ix, realm, *group, pieces),
        Order::Reorder { group, pieces } => reorder(w, realm, *group, pieces),
        _ => {}
    }
}

fn emit(w: &mut Weekend, realm: &str, ev: MilitaryEvent) {
    w.tell_one(Step::Movement, realm, What::Military(ev));
}

fn refuse(w: &mut Weekend, realm: &str, group: Group, reason: MoveRefusal) {
    emit(
        w,
        realm,
        MilitaryEvent::MoveRefused {
            realm: realm.into(),
            group,
            reason,
        },
    );
}

pub(super) fn is_sea(gs: &GameState, sq: Square) -> bool {
    gs.map.get(sq).is_none_or(|m| m.terrain == Terrain::Sea)
}

/// Where a group stands (an army aboard stands where its fleet is).
fn square_of(gs: &GameState, realm: &str, group: Group) -> Option<Square> {
    match group {
        Group::Army(id) => {
            let a = &gs.armies[forces::army_at(gs, realm, id)?];
            Some(forces::carrier(gs, realm, id).map_or(a.square, |f| gs.fleets[f].square))
        }
        Group::Fleet(id) => Some(gs.fleets[forces::fleet_at(gs, realm, id)?].square),
    }
}

/// A move that starts and stays on the realm's own land (R-MOVE-7).
fn home_move(gs: &GameState, realm: &str, group: Group, path: &[Square]) -> bool {
    let Some(from) = square_of(gs, realm, group) else {
        return false;
    };
    group.is_army()
        && forces::carrier(gs, realm, group.id()).is_none()
        && std::iter::once(&from).chain(path).all(|s| {
            // One look at the square for both: the realm's own, and not sea.
            gs.map
                .get(*s)
                .is_some_and(|m| m.owner.as_deref() == Some(realm) && m.terrain != Terrain::Sea)
        })
}

/// The first realm, not a friend, with troops of the mover's kind on `sq`.
pub(super) fn enemy_on(
    gs: &GameState,
    ix: &Index,
    realm: &str,
    sq: Square,
    army: bool,
) -> Option<Name> {
    enemy_on_in(gs, ix, realm, (sq, Dimension::Normal), army)
}

/// As `enemy_on`, among the armies of dimension `dim` (R-EVIL-2).
fn enemy_on_in(
    gs: &GameState,
    ix: &Index,
    realm: &str,
    (sq, dim): (Square, Dimension),
    army: bool,
) -> Option<Name> {
    if army {
        ix.armies_on(gs, sq)
            .into_iter()
            .map(|i| &gs.armies[i])
            .filter(|a| a.dimension == dim && forces::carrier(gs, &a.owner, a.id).is_none())
            .find(|a| !ix.mutual_friends(gs, realm, &a.owner))
            .map(|a| a.owner.clone())
    } else {
        ix.fleets_on(gs, sq)
            .into_iter()
            .map(|i| &gs.fleets[i])
            .filter(|f| !f.ships.is_empty())
            .find(|f| !ix.mutual_friends(gs, realm, &f.owner))
            .map(|f| f.owner.clone())
    }
}

/// Can the group stand on `sq`? Armies on land (or with a water elemental, or air
/// elementals only); fleets at sea or in an own or friend's city.
fn passable(gs: &GameState, ix: &Index, realm: &str, group: Group, sq: Square) -> bool {
    let sea = is_sea(gs, sq);
    match group {
        Group::Army(id) => {
            let Some(i) = forces::army_at(gs, realm, id) else {
                return false;
            };
            !sea || super::water::afloat(&gs.armies[i])
        }
        Group::Fleet(_) => {
            sea || ix
                .city_on(gs, sq, |c| {
                    c.coastal && ix.mutual_friends(gs, realm, &c.owner)
                })
                .is_some()
        }
    }
}

fn points(w: &Weekend, realm: &str, group: Group) -> u32 {
    let rule = w.settings.group_movement;
    let whirlwind = magic::reads::extra_points(&w.magic, realm, group);
    whirlwind.saturating_add(match group {
        Group::Army(id) => {
            forces::army_at(&w.state, realm, id).map_or(0, |i| w.state.armies[i].movement(rule))
        }
        Group::Fleet(id) => {
            forces::fleet_at(&w.state, realm, id).map_or(0, |i| w.state.fleets[i].movement(rule))
        }
    })
}

fn move_group(
    w: &mut Weekend,
    ix: &mut Index,
    spent: &mut Moves,
    realm: &str,
    group: Group,
    path: &[Square],
) {
    let Some(from) = square_of(&w.state, realm, group) else {
        return refuse(w, realm, group, MoveRefusal::NoSuchGroup);
    };
    if spent.engaged(&w.state, realm, group) {
        return refuse(w, realm, group, MoveRefusal::Engaged);
    }
    if let Group::Army(id) = group {
        let i = forces::army_at(&w.state, realm, id).unwrap_or(0);
        if forces::carrier(&w.state, realm, id).is_some() {
            return refuse(w, realm, group, MoveRefusal::Aboard);
        }
        if w.state.armies[i]
            .no_move_until_round
            .is_some_and(|r| r.get() >= w.round())
        {
            return refuse(w, realm, group, MoveRefusal::CameByInvitation);
        }
    }
    let key = (spent.owner(&w.state, realm), group);
    let budget =
        points(w, realm, group).saturating_sub(spent.spent.get(&key).copied().unwrap_or(0));
    let (w_, h_) = (w.state.map.width, w.state.map.height);
    let diagonal = w.settings.adjacency == 8;
    let mut at = from;
    let mut stop = None;
    let mut steps = 0u32;
    let waterway = group.is_army() && magic::reads::waterway(&w.magic, realm, group.id());
    for &sq in path {
        if steps >= budget {
            stop = Some(MoveStop::OutOfPoints);
            break;
        }
        match evil::gate(w, realm, group, at, sq) {
            evil::Gate::Go => {}
            gate => {
                // Through a portal (one point), unless troops wait beyond; or stopped.
                let through = matches!(gate, evil::Gate::Through);
                steps += u32::from(through);
                stop = match through {
                    true => met_beyond(w, ix, realm, group, sq),
                    false => Some(MoveStop::Blocked { square: sq }),
                };
                if stop.is_some() {
                    break;
                }
                continue;
            }
        }
        let passable =
            passable(&w.state, ix, realm, group, sq) || (waterway && is_sea(&w.state, sq));
        if !at.touches(sq, w_, h_, diagonal) || !passable {
            stop = Some(MoveStop::Blocked { square: sq });
            break;
        }
        let dim = evil::group_dimension(&w.state, realm, group);
        if group.is_army() {
            if let Some(c) = ix.city_on(&w.state, sq, |c| c.dimension == dim) {
                if !ix.mutual_friends(&w.state, realm, &w.state.cities[c].owner) {
                    stop = Some(MoveStop::EnemyCity { square: sq });
                    break;
                }
            }
        }
        let came_from = at;
        at = sq;
        steps += 1;
        if !evil::entered(w, realm, group, sq) {
            return; // the lava took the last unit (R-EVIL-3)
        }
        if let Some(enemy) = enemy_on_in(&w.state, ix, realm, (sq, dim), group.is_army()) {
            engage(w, ix, spent, (realm, group), (sq, dim), &enemy);
            w.entered_from
                .insert((realm.into(), group), Entered::Square(came_from));
            stop = Some(MoveStop::Enemy { realm: enemy });
            break;
        }
    }
    *spent.spent.entry(key).or_insert(0) += steps;
    index::relocate(&mut w.state, ix, realm, group, at);
    emit(
        w,
        realm,
        MilitaryEvent::Moved {
            realm: realm.into(),
            group,
            from,
            to: at,
            stop,
        },
    );
}

/// `mover` met `enemy`'s troops on `sq` (R-MOVE-6): the mover and every group of the
/// enemy's there (the kind the mover meets) move no more this step.
fn engage(
    w: &Weekend,
    ix: &Index,
    mv: &mut Moves,
    (realm, group): (&str, Group),
    (sq, dim): (Square, Dimension),
    enemy: &str,
) {
    let gs = &w.state;
    mv.engage(gs, realm, group);
    if group.is_army() {
        for i in ix.armies_on(gs, sq) {
            let a = &gs.armies[i];
            if a.owner == enemy && a.dimension == dim {
                mv.engage(gs, enemy, Group::Army(a.id));
            }
        }
    } else {
        for i in ix.fleets_on(gs, sq) {
            let f = &gs.fleets[i];
            if f.owner == enemy {
                mv.engage(gs, enemy, Group::Fleet(f.id));
            }
        }
    }
}

/// Troops that are not a friend's on the far side of a portal stop the move (R-MOVE-6).
fn met_beyond(w: &Weekend, ix: &Index, realm: &str, group: Group, sq: Square) -> Option<MoveStop> {
    let dim = evil::group_dimension(&w.state, realm, group);
    enemy_on_in(&w.state, ix, realm, (sq, dim), true).map(|realm| MoveStop::Enemy { realm })
}

/// Embark or pick up (R-MOVE-3: no points): the army on the fleet's square or next to
/// it, within the transports' room (R-NAV-3).
fn board(w: &mut Weekend, ix: &mut Index, realm: &str, army: u32, fleet: u32) {
    let g = Group::Army(army);
    let (Some(ai), Some(fi)) = (
        forces::army_at(&w.state, realm, army),
        forces::fleet_at(&w.state, realm, fleet),
    ) else {
        return refuse(w, realm, g, MoveRefusal::NoSuchGroup);
    };
    let (asq, fsq) = (w.state.armies[ai].square, w.state.fleets[fi].square);
    // An army in the Evil's dimension never reaches a fleet (R-EVIL-4).
    let apart = w.state.armies[ai].dimension != w.state.fleets[fi].dimension;
    if forces::carrier(&w.state, realm, army).is_some() || !near(w, asq, fsq) || apart {
        return refuse(w, realm, g, MoveRefusal::NotAtTheFleet);
    }
    let aboard = cargo_units(&w.state, fi);
    let room = u64::from(w.state.fleets[fi].capacity(w.settings));
    if aboard.saturating_add(w.state.armies[ai].units.len() as u64) > room {
        return refuse(w, realm, g, MoveRefusal::NoRoom);
    }
    w.state.fleets[fi].cargo.push(army);
    index::relocate(&mut w.state, ix, realm, g, fsq);
    emit(
        w,
        realm,
        MilitaryEvent::Boarded {
            realm: realm.into(),
            army,
            fleet,
        },
    );
}

fn near(w: &Weekend, a: Square, b: Square) -> bool {
    a == b
        || a.touches(
            b,
            w.state.map.width,
            w.state.map.height,
            w.settings.adjacency == 8,
        )
}

/// Land an army on its fleet's square or a land square next to it (R-MOVE-3). Landing on
/// enemy troops is a contact fought in step 4.
fn land(
    w: &mut Weekend,
    ix: &mut Index,
    mv: &mut Moves,
    realm: &str,
    army: u32,
    square: Option<Square>,
) {
    let g = Group::Army(army);
    let Some(fi) = forces::carrier(&w.state, realm, army) else {
        return refuse(w, realm, g, MoveRefusal::NotAboard);
    };
    if mv.engaged(&w.state, realm, g) {
        return refuse(w, realm, g, MoveRefusal::Engaged);
    }
    let fleet = w.state.fleets[fi].id;
    let fsq = w.state.fleets[fi].square;
    let to = square.unwrap_or(fsq);
    if !near(w, fsq, to) || is_sea(&w.state, to) {
        return refuse(w, realm, g, MoveRefusal::NoLandingThere);
    }
    w.state.fleets[fi].cargo.retain(|c| *c != army);
    index::relocate(&mut w.state, ix, realm, g, to);
    let stop =
        enemy_on(&w.state, ix, realm, to, true).map(|enemy| MoveStop::Enemy { realm: enemy });
    if let Some(MoveStop::Enemy { realm: enemy }) = &stop {
        engage(w, ix, mv, (realm, g), (to, Dimension::Normal), enemy);
        w.entered_from
            .insert((realm.into(), g), Entered::Fleet { fleet, square: fsq });
    }
    emit(
        w,
        realm,
        MilitaryEvent::Moved {
            realm: realm.into(),
            group: g,
            from: fsq,
            to,
            stop,
        },
    );
}

/// `other` joins `group`: same kind, same square (R-MOVE-8, R-MOVE-9).
fn merge(w: &mut Weekend, realm: &str, group: Group, other: u32) {
    let o = match group {
        Group::Army(_) => Group::Army(other),
        Group::Fleet(_) => Group::Fleet(other),
    };
    let (Some(a), Some(b)) = (
        square_of(&w.state, realm, group),
        square_of(&w.state, realm, o),
    ) else {
        return refuse(w, realm, o, MoveRefusal::NoSuchGroup);
    };
    // Groups in the two dimensions never meet (R-EVIL-2).
    let apart =
        evil::group_dimension(&w.state, realm, group) != evil::group_dimension(&w.state, realm, o);
    if a != b || group.id() == other || apart {
        return refuse(w, realm, o, MoveRefusal::NotTogether);
    }
    match group {
        Group::Army(id) => {
            let Some(j) = forces::army_at(&w.state, realm, other) else {
                return;
            };
            // Joining an army aboard is boarding its fleet: the units must fit (R-NAV-3).
            if let Some(f) = forces::carrier(&w.state, realm, id) {
                let joining = if forces::carrier(&w.state, realm, other) == Some(f) {
                    0
                } else {
                    w.state.armies[j].units.len() as u64
                };
                let room = u64::from(w.state.fleets[f].capacity(w.settings));
                if cargo_units(&w.state, f).saturating_add(joining) > room {
                    return refuse(w, realm, o, MoveRefusal::NoRoom);
                }
            }
            let moved = w.state.armies[j].units.clone();
            let treasure = w.state.armies[j].treasure.amount();
            forces::remove_army(&mut w.state, realm, other);
            if let Some(i) = forces::army_at(&w.state, realm, id) {
                w.state.armies[i].units.extend(moved);
                // Treasure goes with the units (R-EVIL-6).
                w.state.armies[i].treasure.add(&treasure);
            }
        }
        Group::Fleet(id) => {
            let Some(j) = forces::fleet_at(&w.state, realm, other) else {
                return;
            };
            let gone = w.state.fleets.remove(j);
            if let Some(i) = forces::fleet_at(&w.state, realm, id) {
                w.state.fleets[i].ships.extend(gone.ships);
                w.state.fleets[i].cargo.extend(gone.cargo);
            }
        }
    }
    emit(
        w,
        realm,
        MilitaryEvent::Merged {
            realm: realm.into(),
            group,
            other,
        },
    );
}

/// Take `want` pieces out of `items`, tail first; None when they are not all there.
fn take<T: Clone>(
    items: &mut Vec<T>,
    want: &[(u32, Piece)],
    piece: impl Fn(&T) -> Piece,
) -> Option<Vec<T>> {
    let mut left = items.clone();
    let mut out = Vec::new();
    for (n, p) in want {
        for _ in 0..*n {
            let at = left.iter().rposition(|t| piece(t) == *p)?;
            out.push(left.remove(at));
        }
    }
    *items = left;
    Some(out)
}

/// The listed pieces leave and form a new group on the same square.
fn split(w: &mut Weekend, ix: &mut Index, realm: &str, group: Group, pieces: &[(u32, Piece)]) {
    let mut room = true;
    let ok = match group {
        Group::Army(id) => forces::army_at(&w.state, realm, id).and_then(|i| {
            let mut units = w.state.armies[i].units.to_vec();
            let out = take(&mut units, pieces, forces::unit_piece)?;
            (!units.is_empty() && !out.is_empty()).then_some(())?;
            let new_id = forces::next_army_id(&w.state, realm);
            let mut g = w.state.armies[i].clone();
            w.state.armies[i].units = units.into();
            g.id = new_id;
            g.units = out.into();
            g.treasure = Default::default();
            let aboard = forces::carrier(&w.state, realm, id);
            index::insert_army(&mut w.state, ix, g);
            if let Some(f) = aboard {
                w.state.fleets[f].cargo.push(new_id);
            }
            Some(new_id)
        }),
        Group::Fleet(id) => forces::fleet_at(&w.state, realm, id).and_then(|i| {
            let mut ships = w.state.fleets[i].ships.clone();
            let out = take(&mut ships, pieces, forces::ship_piece)?;
            (!ships.is_empty() && !out.is_empty()).then_some(())?;
            // The armies aboard stay: the ships left must carry them (R-NAV-3).
            if cargo_units(&w.state, i) > u64::from(Fleet::capacity_of(&ships, w.settings)) {
                room = false;
                return None;
            }
            let new_id = next_fleet_id(&w.state, realm);
            let mut f = w.state.fleets[i].clone();
            w.state.fleets[i].ships = ships;
            f.id = new_id;
            f.ships = out;
            f.cargo.clear();
            index::insert_fleet(&mut w.state, ix, f);
            Some(new_id)
        }),
    };
    match ok {
        Some(new) => emit(
            w,
            realm,
            MilitaryEvent::Split {
                realm: realm.into(),
                group,
                new,
            },
        ),
        None if !room => refuse(w, realm, group, MoveRefusal::NoRoom),
        None => refuse(w, realm, group, MoveRefusal::NotThoseUnits),
    }
}

/// Army units aboard the fleet at place `fi`.
fn cargo_units(gs: &GameState, fi: usize) -> u64 {
    let f = &gs.fleets[fi];
    f.cargo
        .iter()
        .filter_map(|id| forces::army_at(gs, &f.owner, *id))
        .map(|ai| gs.armies[ai].units.len() as u64)
        .fold(0u64, u64::saturating_add)
}

/// The whole group in a new cannon-fodder order (R-COMBAT-9).
fn reorder(w: &mut Weekend, realm: &str, group: Group, pieces: &[(u32, Piece)]) {
    let ok = match group {
        Group::Army(id) => forces::army_at(&w.state, realm, id).and_then(|i| {
            let mut units = w.state.armies[i].units.to_vec();
            let mut out = take(&mut units, pieces, forces::unit_piece)?;
            units.is_empty().then_some(())?;
            out.reverse();
            restore_order(&mut out, pieces, forces::unit_piece);
            w.state.armies[i].units = out.into();
            Some(())
        }),
        Group::Fleet(id) => forces::fleet_at(&w.state, realm, id).and_then(|i| {
            let mut ships = w.state.fleets[i].ships.clone();
            let mut out = take(&mut ships, pieces, forces::ship_piece)?;
            ships.is_empty().then_some(())?;
            out.reverse();
            restore_order(&mut out, pieces, forces::ship_piece);
            w.state.fleets[i].ships = out;
            Some(())
        }),
    };
    if ok.is_none() {
        refuse(w, realm, group, MoveRefusal::NotThoseUnits);
    }
}

/// Lay `items` out as `pieces` lists them, front first.
fn restore_order<T: Clone>(
    items: &mut Vec<T>,
    pieces: &[(u32, Piece)],
    piece: impl Fn(&T) -> Piece,
) {
    let mut pool = std::mem::take(items);
    for (n, p) in pieces {
        for _ in 0..*n {
            let Some(at) = pool.iter().position(|t| piece(t) == *p) else {
                break;
            };
            items.push(pool.remove(at));
        }
    }
    items.extend(pool);
}

/// Why a group stopped before the end of its path.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum MoveStop {
    /// Troops that are not a friend's: a battle in step 4 (R-MOVE-6).
    Enemy {
        realm: Name,
    },
    /// An enemy city in the way, with or without troops: only an attack order takes it
    /// (so a move never settles a city's fate).
    EnemyCity {
        square: Square,
    },
    /// The next square is not next to this one, or not ground this group can stand on.
    Blocked {
        square: Square,
    },
    OutOfPoints,
}

#[cfg(test)]
mod tests {
    use super::Moves;
    use crate::game::orders::Group;

    /// Step 3 keys a group by its owner's place among the realms; an owner that is no
    /// realm's gets a number of its own after them, the same one each time, so two
    /// such owners' groups of one number are told apart.
    #[test]
    fn step_3_keys_each_owner_apart_realms_by_their_place_others_after_them() {
        let gs = crate::game::load_scenario(include_str!("../../../../scenarios/demo.yaml"))
            .expect("demo");
        let mut mv = Moves {
            spent: Default::default(),
            engaged: Default::default(),
            others: Default::default(),
        };
        let n = gs.realms.len() as u32;
        for (k, r) in gs.realms.iter().enumerate() {
            assert_eq!(mv.owner(&gs, &r.name), k as u32, "{}", r.name);
        }
        assert_eq!(mv.owner(&gs, "Nowhere"), n);
        assert_eq!(mv.owner(&gs, "Elsewhere"), n + 1);
        assert_eq!(mv.owner(&gs, "Nowhere"), n, "the same number again");
        let first = gs.realms[0].name.clone();
        mv.engage(&gs, "Nowhere", Group::Army(1));
        assert!(mv.engaged(&gs, "Nowhere", Group::Army(1)));
        assert!(!mv.engaged(&gs, "Elsewhere", Group::Army(1)));
        assert!(!mv.engaged(&gs, &first, Group::Army(1)));
        assert!(!mv.engaged(&gs, "Nowhere", Group::Fleet(1)));
    }
}
