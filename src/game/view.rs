//! `RealmView`: the part of the state one realm may see — its own realm
//! (without the sender token), armies, fleets, cities, spies, land,
//! invitations and the public facts (round, realm names, ruler, free
//! merchants, its last-weekend log). Nothing of other realms' stock,
//! positions, forces or missions. Read-only projection; no rules.

use serde::Serialize;

use super::square::Square;
use super::state::*;

/// What one realm may see. Serialize it for `pbemd state --realm`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RealmView {
    pub round: u32,
    pub phase: Phase,
    /// The realm itself; `token` is always `None` here.
    pub realm: Realm,
    pub armies: Vec<ArmyGroup>,
    pub fleets: Vec<Fleet>,
    pub cities: Vec<City>,
    /// Its own spies out on missions.
    pub spies: Vec<StationedSpy>,
    /// Map squares it owns, with portals on them (R-EVIL-19).
    pub land: Vec<OwnSquare>,
    /// Spell effects it cast.
    pub effects: Vec<SpellEffect>,
    /// Its pending home-invitations.
    pub home_invitations: Vec<HomeInvitation>,
    /// Names of every realm (public).
    pub realms: Vec<String>,
    /// Realms that list this realm as friend and are listed back.
    pub mutual_friends: Vec<String>,
    pub ruler: Option<Ruler>,
    pub free_merchant: Option<FreeMerchantOffer>,
    pub last_weekend: Vec<LogEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnSquare {
    pub square: Square,
    pub terrain: Terrain,
    pub portal: bool,
}

impl GameState {
    /// The view of realm `name`, or `None` for an unknown realm.
    pub fn realm_view(&self, name: &str) -> Option<RealmView> {
        let realm = self.realm(name)?;
        let mut own = realm.clone();
        own.token = None;
        let mutual_friends = realm
            .friends
            .iter()
            .filter(|f| {
                self.realm(f)
                    .is_some_and(|o| o.friends.iter().any(|x| x == name))
            })
            .cloned()
            .collect();
        let land = self
            .map
            .squares
            .iter()
            .filter(|(_, m)| {
                m.owner.as_deref() == Some(name) || m.evil_owner.as_deref() == Some(name)
            })
            .map(|(sq, m)| OwnSquare {
                square: sq,
                terrain: m.terrain,
                portal: m.portal.is_some(),
            })
            .collect();
        Some(RealmView {
            round: self.round,
            phase: self.phase,
            realm: own,
            armies: self.armies_of(name).cloned().collect(),
            fleets: self.fleets_of(name).cloned().collect(),
            cities: self.cities_of(name).cloned().collect(),
            spies: self
                .spies
                .iter()
                .filter(|s| s.owner == name)
                .cloned()
                .collect(),
            land,
            effects: self
                .effects
                .iter()
                .filter(|e| e.caster == name)
                .cloned()
                .collect(),
            home_invitations: self
                .home_invitations
                .iter()
                .filter(|h| h.realm == name)
                .cloned()
                .collect(),
            realms: self.realms.iter().map(|r| r.name.clone()).collect(),
            mutual_friends,
            ruler: self.ruler.clone(),
            free_merchant: self.free_merchant.clone(),
            last_weekend: self
                .last_weekend
                .iter()
                .filter(|e| e.visible_to.is_empty() || e.visible_to.iter().any(|v| v == name))
                .cloned()
                .collect(),
        })
    }
}
