//! `Name`: a realm's name shared by reference. Army groups, fleets, cities, map squares
//! and events name their realm with one; a copy is a count, not a new string, and two
//! copies of one name compare by their address before their letters. Order, hash,
//! display and the stored form are the name's text's, so a `Name` sorts, hashes and
//! serializes exactly as the string it replaced (`weekend::own_copy` makes the owners
//! in the weekend's copy of a state point at their realm's one name).

use std::borrow::Borrow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A realm's name (see the module's text). The text sits behind one more pointer, so
/// that a name is one word (eight bytes, and `Option<Name>` too) where a shared `str`
/// would be two: a name is mentioned in every army group, city, map square and event,
/// and compared by its address far more often than read.
#[derive(Clone)]
pub struct Name(Arc<Box<str>>);

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Name>() == 8 && std::mem::size_of::<Option<Name>>() == 8);

impl Name {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when both are the very same shared name (not merely equal text).
    pub fn same(&self, other: &Name) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Default for Name {
    fn default() -> Self {
        Name::from("")
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.same(other) || self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> Ordering {
        if self.same(other) {
            return Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd<str> for Name {
    fn partial_cmp(&self, other: &str) -> Option<Ordering> {
        Some(self.as_str().cmp(other))
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name(Arc::new(Box::from(s)))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name(Arc::new(s.into_boxed_str()))
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Self {
        Name::from(s.as_str())
    }
}

impl From<&Name> for Name {
    fn from(s: &Name) -> Self {
        s.clone()
    }
}

impl From<Name> for String {
    fn from(n: Name) -> Self {
        n.as_str().to_string()
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(NameVisitor)
    }
}

struct NameVisitor;

impl serde::de::Visitor<'_> for NameVisitor {
    type Value = Name;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a realm's name")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Name, E> {
        Ok(shared(s))
    }
}

thread_local! {
    /// The names read so far by the reading in [`sharing`] on this thread, if one is
    /// running (a reading is synchronous, so it never leaves its thread).
    static READ: RefCell<Option<HashMap<Box<str>, Name, foldhash::fast::FixedState>>> =
        const { RefCell::new(None) };
}

/// `s` as the name read before with the same text, while a reading in [`sharing`]
/// runs; a new name otherwise.
fn shared(s: &str) -> Name {
    READ.with(|read| match read.borrow_mut().as_mut() {
        Some(set) => match set.get(s) {
            Some(known) => known.clone(),
            None => {
                let new = Name::from(s);
                set.insert(Box::from(s), new.clone());
                new
            }
        },
        None => Name::from(s),
    })
}

/// Runs `read` (a deserialization) so that every name it reads with one text is one
/// shared name: a state read from the store names its realm in every army group,
/// fleet, city and map square, and keeps one copy of each name instead of one a
/// mention. Nested calls share the outermost reading's names; they are forgotten when
/// it ends (also by a panic).
pub fn sharing<T>(read: impl FnOnce() -> T) -> T {
    struct Outermost;
    impl Drop for Outermost {
        fn drop(&mut self) {
            READ.with(|r| *r.borrow_mut() = None);
        }
    }
    let outermost = READ.with(|r| {
        let mut r = r.borrow_mut();
        let first = r.is_none();
        if first {
            *r = Some(HashMap::default());
        }
        first
    });
    // Built only when this call is the outermost: dropping one ends the sharing.
    let _end = if outermost { Some(Outermost) } else { None };
    read()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_compares_sorts_hashes_and_serializes_as_its_text() {
        use std::hash::BuildHasher;
        let a = Name::from("Alfa");
        let b = Name::from(String::from("Alfa"));
        assert!(!a.same(&b));
        assert_eq!(a, b);
        assert_eq!(a, "Alfa");
        let (x, y) = (Name::from("Alfa"), Name::from("Beta"));
        assert!(x < y);
        let h = std::collections::hash_map::RandomState::new();
        assert_eq!(h.hash_one(&a), h.hash_one("Alfa"));
        assert_eq!(serde_json::to_string(&a).unwrap(), "\"Alfa\"");
        let back: Name = serde_json::from_str("\"Alfa\"").unwrap();
        assert_eq!(back, a);
        assert_eq!(format!("{a} {a:?}"), "Alfa \"Alfa\"");
    }

    #[test]
    fn a_copy_is_the_same_name() {
        let a = Name::from("Alfa");
        let c = a.clone();
        assert!(a.same(&c));
        assert_eq!(a.cmp(&c), Ordering::Equal);
    }

    #[test]
    fn names_read_while_sharing_are_one_name_a_text_and_forgotten_after() {
        let read = || -> Vec<Name> { serde_json::from_str(r#"["Alfa", "Beta", "Alfa"]"#).unwrap() };
        let apart = read();
        assert!(!apart[0].same(&apart[2]), "outside sharing, each its own");
        let (outer, inner) = sharing(|| (read(), sharing(read)));
        assert!(outer[0].same(&outer[2]) && !outer[0].same(&outer[1]));
        assert!(
            inner[0].same(&outer[0]),
            "a nested reading shares the outer one's"
        );
        assert_eq!(outer, apart, "the same texts");
        let after = read();
        assert!(!after[0].same(&outer[0]) && !after[0].same(&after[2]));
    }

    #[test]
    fn a_reading_that_panics_forgets_its_names() {
        let caught = std::panic::catch_unwind(|| {
            sharing(|| {
                let _: Name = serde_json::from_str("\"Alfa\"").unwrap();
                panic!("a reading that fails");
            })
        });
        assert!(caught.is_err());
        let a: Name = serde_json::from_str("\"Alfa\"").unwrap();
        let b: Name = serde_json::from_str("\"Alfa\"").unwrap();
        assert!(!a.same(&b), "no reading runs: nothing shared");
    }

    #[test]
    fn a_name_is_read_only_from_text() {
        let e = serde_json::from_str::<Name>("7").unwrap_err().to_string();
        assert!(e.contains("a realm's name"), "{e}");
    }
}
