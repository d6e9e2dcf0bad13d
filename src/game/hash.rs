//! Hash maps for the engine's and the renderer's own indexes. Their keys are squares,
//! group numbers and realm names taken from the state (the GM's scenario), never a
//! number of keys a player chooses, so a fast fixed hasher is safe here; mail-side maps
//! keep the standard hasher.

use std::collections::{HashMap, HashSet};

/// A map with the fast fixed hasher.
pub type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// A set with the fast fixed hasher.
pub type FastSet<K> = HashSet<K, foldhash::fast::FixedState>;

/// The fast fixed hash of a name, for an index that keys names by their hash and checks
/// the name itself on every look.
pub fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().hash_one(name)
}
