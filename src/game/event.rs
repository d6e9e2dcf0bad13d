//! What happened at the weekend, as data: who, what, where, the dice and the numbers.
//! Never text: `render::weekend` turns the events a realm may know into its report, in
//! its language. Each event names the realms that may know it (`seen_by`); a realm
//! never learns of a battle it was not in.

use serde::{Deserialize, Serialize};

use super::name::Name;
use super::weekend::economy::EconomyEvent;
use super::weekend::espionage::EspionageEvent;
use super::weekend::evil::EvilEvent;
use super::weekend::magic::MagicEvent;
use super::weekend::market::MarketEvent;
use super::weekend::military::MilitaryEvent;
use super::weekend::politics::PoliticsEvent;

/// The weekend's steps, in order (R-PHASE-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Before step 1: the ruler's benefit and the VP rewards claimed on the form.
    Claims,
    Purchases,
    /// Step 1, after the purchases (docs/rules.md, Rulings 52): free-merchant
    /// placements, the auction, engineers, research and next week's offer.
    FreeMerchants,
    Magic,
    Movement,
    Combat,
    Invitations,
    Production,
    SlaveRevolt,
    Overflow,
    HomeInvitations,
    /// After step 9: the passive spy rolls against foreign troops (R-SPY-9).
    Espionage,
    /// After step 9 (Rulings 52): the vote, missions, random events, VP thresholds.
    Politics,
    /// Relations, capital and harbour choices, trade wishes, VP and the victory check.
    WrapUp,
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub step: Step,
    /// The realms whose report tells this (canonical names).
    pub seen_by: SeenBy,
    pub what: What,
}

impl Event {
    /// True when `realm`'s report tells this event.
    pub fn seen_by(&self, realm: &str) -> bool {
        self.seen_by.iter().any(|r| r == realm)
    }
}

/// The realms an event is told to: most events are told to one realm or two (a
/// battle's sides), kept in place (no list of its own on the heap, which a large
/// weekend would write once more for each battle); more are kept in a list. It reads
/// as a slice of names and is stored as a list of names, exactly as a `Vec<Name>` was.
#[derive(Clone)]
pub struct SeenBy(Inner);

#[derive(Clone)]
enum Inner {
    One(Name),
    Two([Name; 2]),
    Many(Vec<Name>),
}

// In place, two names take no more room than the list's header.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<SeenBy>() == std::mem::size_of::<Vec<Name>>());

/// Equal when the names are, in order, however they are kept.
impl PartialEq for SeenBy {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for SeenBy {}

impl SeenBy {
    /// Told to no realm (the GM's alone).
    pub fn none() -> Self {
        SeenBy(Inner::Many(Vec::new()))
    }

    /// Told to `realm` alone.
    pub fn one(realm: Name) -> Self {
        SeenBy(Inner::One(realm))
    }
}

impl Default for SeenBy {
    fn default() -> Self {
        SeenBy::none()
    }
}

impl std::ops::Deref for SeenBy {
    type Target = [Name];
    fn deref(&self) -> &[Name] {
        match &self.0 {
            Inner::One(n) => std::slice::from_ref(n),
            Inner::Two(two) => two,
            Inner::Many(v) => v,
        }
    }
}

impl<'a> IntoIterator for &'a SeenBy {
    type Item = &'a Name;
    type IntoIter = std::slice::Iter<'a, Name>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl FromIterator<Name> for SeenBy {
    fn from_iter<I: IntoIterator<Item = Name>>(iter: I) -> Self {
        let mut it = iter.into_iter();
        let Some(first) = it.next() else {
            return SeenBy::none();
        };
        let Some(second) = it.next() else {
            return SeenBy::one(first);
        };
        match it.next() {
            None => SeenBy(Inner::Two([first, second])),
            Some(third) => {
                let mut v = Vec::with_capacity(3 + it.size_hint().0);
                v.extend([first, second, third]);
                v.extend(it);
                SeenBy(Inner::Many(v))
            }
        }
    }
}

impl From<Vec<Name>> for SeenBy {
    fn from(v: Vec<Name>) -> Self {
        v.into_iter().collect()
    }
}

impl<T, const N: usize> PartialEq<[T; N]> for SeenBy
where
    Name: PartialEq<T>,
{
    fn eq(&self, other: &[T; N]) -> bool {
        **self == other[..]
    }
}

impl<T> PartialEq<Vec<T>> for SeenBy
where
    Name: PartialEq<T>,
{
    fn eq(&self, other: &Vec<T>) -> bool {
        **self == other[..]
    }
}

impl std::fmt::Debug for SeenBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for SeenBy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for SeenBy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<Name>::deserialize(d).map(SeenBy::from)
    }
}

/// What happened, by family: purchases and the economy, or armies, fleets and cities.
///
/// Every event takes the room of the largest kind, and a large weekend writes one or
/// more an army group, so the families of a few events a realm (the economy's, the
/// free merchants', the vote's and the spells', each well over 100 bytes) are kept
/// behind a pointer: an event is 96 bytes instead of 232. A box is stored and read as
/// what it holds, so the stored events are the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", content = "event", rename_all = "snake_case")]
pub enum What {
    Economy(Box<EconomyEvent>),
    Military(MilitaryEvent),
    /// The Evil, portals, lava and treasures (R-EVIL).
    Evil(EvilEvent),
    /// Free merchants, engineers and research.
    Market(Box<MarketEvent>),
    Espionage(EspionageEvent),
    Politics(Box<PoliticsEvent>),
    /// Spells cast in step 2 and what they did.
    Magic(Box<MagicEvent>),
}

// A large weekend writes more than one event an army group: see `What`.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Event>() <= 96);

/// For a family kept behind a pointer: `What::$read()` reads it, if the event is of
/// that family, and `.into()` makes an event of it.
macro_rules! boxed_family {
    ($($variant:ident($family:ty), $read:ident, $doc:literal;)*) => {
        impl What {
            $(
                #[doc = $doc]
                pub fn $read(&self) -> Option<&$family> {
                    match self {
                        What::$variant(ev) => Some(ev),
                        _ => None,
                    }
                }
            )*
        }

        $(
            impl From<$family> for What {
                fn from(ev: $family) -> Self {
                    What::$variant(Box::new(ev))
                }
            }
        )*
    };
}

boxed_family! {
    Economy(EconomyEvent), economy, "The economy's event, if this is one.";
    Market(MarketEvent), market, "The free merchants' event, if this is one.";
    Politics(PoliticsEvent), politics, "The vote's, the missions' or the random events' event, if this is one.";
    Magic(MagicEvent), magic, "A spell's event, if this is one.";
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<Name> {
        n.iter().map(|s| Name::from(*s)).collect()
    }

    #[test]
    fn seen_by_is_stored_and_read_as_the_list_of_names_it_replaced() {
        for list in [
            names(&[]),
            names(&["Alfa"]),
            names(&["Alfa", "Beta"]),
            names(&["Alfa", "Beta", "Gamma"]),
        ] {
            let seen: SeenBy = list.clone().into();
            let json = serde_json::to_string(&seen).expect("json");
            assert_eq!(json, serde_json::to_string(&list).expect("json"));
            let back: SeenBy = serde_json::from_str(&json).expect("read");
            assert_eq!(back, seen);
            assert_eq!(back, list);
            assert_eq!(format!("{back:?}"), format!("{list:?}"));
        }
    }

    #[test]
    fn seen_by_keeps_one_or_two_realms_in_place_and_more_in_a_list_in_their_order() {
        let one: SeenBy = names(&["Alfa"]).into_iter().collect();
        assert!(matches!(one.0, Inner::One(_)));
        assert_eq!(one, ["Alfa"]);
        let two: SeenBy = names(&["Beta", "Alfa"]).into_iter().collect();
        assert!(matches!(two.0, Inner::Two(_)));
        assert_eq!(two, ["Beta", "Alfa"]);
        assert_ne!(two, ["Alfa", "Beta"]);
        let three: SeenBy = names(&["Gamma", "Beta", "Alfa"]).into_iter().collect();
        assert!(matches!(three.0, Inner::Many(_)));
        assert_eq!(three, ["Gamma", "Beta", "Alfa"]);
        assert_ne!(three, two);
        assert!(SeenBy::none().is_empty());
        assert_eq!(SeenBy::default(), SeenBy::none());
    }

    #[test]
    fn seen_by_compares_its_names_however_they_are_kept() {
        let listed = SeenBy(Inner::Many(names(&["Alfa", "Beta"])));
        let in_place: SeenBy = names(&["Alfa", "Beta"]).into_iter().collect();
        assert_eq!(listed, in_place);
        assert_eq!(
            SeenBy(Inner::Many(names(&["Alfa"]))),
            SeenBy::one(Name::from("Alfa"))
        );
        assert_ne!(
            listed,
            SeenBy(Inner::Two(
                names(&["Beta", "Alfa"]).try_into().expect("two")
            ))
        );
    }
}
