//! Seeded dice: one source per (game seed, round, purpose), every roll
//! recorded so a resolution or a courier batch can be replayed bit for bit
//! and audited by the GM. Owns the seeding and the roll log only; which
//! rule a roll serves is the caller's business. No global RNG, no clock.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use super::name::Name;

/// One recorded roll.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roll {
    /// The purpose the source was made for (`courier/2026-11-24T17:00Z` …), shared by
    /// every roll of the source (a count, not a copy of the text; it compares, prints
    /// and serializes as the text).
    pub purpose: Name,
    /// 0-based position in this source's sequence.
    pub index: u32,
    /// Sides of the die (4, 10, 20 …).
    pub sides: u32,
    /// The face rolled, `1..=sides`.
    pub value: u32,
    /// True when the value came from a script (tests, GM-given rolls).
    pub scripted: bool,
}

/// A dice source seeded per (game seed, round, purpose).
#[derive(Debug, Clone)]
pub struct Dice {
    purpose: Name,
    rng: ChaCha20Rng,
    /// Faces still to be played before the seeded stream (front first).
    script: Vec<u32>,
    rolls: Vec<Roll>,
}

impl Dice {
    /// The source for `purpose` in `round` of the game seeded `seed`. The same
    /// three inputs always give the same sequence.
    pub fn new(seed: u64, round: u32, purpose: &str) -> Dice {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        key[8..12].copy_from_slice(&round.to_le_bytes());
        key[12..20]
            .copy_from_slice(&fnv1a(purpose.as_bytes(), 0xcbf2_9ce4_8422_2325).to_le_bytes());
        key[20..28]
            .copy_from_slice(&fnv1a(purpose.as_bytes(), 0x8422_2325_cbf2_9ce4).to_le_bytes());
        key[28..32].copy_from_slice(&(purpose.len() as u32).to_le_bytes());
        Dice {
            purpose: Name::from(purpose),
            rng: ChaCha20Rng::from_seed(key),
            script: Vec::new(),
            rolls: Vec::new(),
        }
    }

    /// A source that first plays `faces` in order (each clamped to the die
    /// rolled), then continues with the seeded stream of `(0, 0, purpose)`.
    /// For tests and for rolls the GM dictates.
    pub fn scripted(purpose: &str, faces: &[u32]) -> Dice {
        Dice::new(0, 0, purpose).with_script(faces)
    }

    /// This source, playing `faces` first (each clamped to the die rolled), then
    /// its own seeded stream. For rolls the GM or a test dictates.
    pub fn with_script(mut self, faces: &[u32]) -> Dice {
        self.script = faces.iter().rev().copied().collect();
        self
    }

    /// Room for `rolls` more rolls at once (a source that rolls for the whole game,
    /// such as the battles', would otherwise copy its growing list over and over).
    pub fn reserve(&mut self, rolls: usize) {
        self.rolls.reserve(rolls);
    }

    pub fn d4(&mut self) -> u32 {
        self.roll(4)
    }

    pub fn d10(&mut self) -> u32 {
        self.roll(10)
    }

    pub fn d20(&mut self) -> u32 {
        self.roll(20)
    }

    /// Roll a die with `sides` faces (at least 1) and record it.
    pub fn roll(&mut self, sides: u32) -> u32 {
        let sides = sides.max(1);
        let (value, scripted) = match self.script.pop() {
            Some(v) => (v.clamp(1, sides), true),
            None => (self.uniform(sides), false),
        };
        self.rolls.push(Roll {
            purpose: self.purpose.clone(),
            index: self.rolls.len() as u32,
            sides,
            value,
            scripted,
        });
        value
    }

    /// Every roll made so far, in order.
    pub fn rolls(&self) -> &[Roll] {
        &self.rolls
    }

    /// Every roll made, in order, taken out of the spent source (no copy of each
    /// roll's purpose, as `rolls().to_vec()` would make).
    pub fn into_rolls(self) -> Vec<Roll> {
        self.rolls
    }

    pub fn purpose(&self) -> &str {
        &self.purpose
    }

    /// Unbiased `1..=sides` by rejection sampling.
    fn uniform(&mut self, sides: u32) -> u32 {
        let zone = u32::MAX - (u32::MAX % sides);
        loop {
            let v = self.rng.next_u32();
            if v < zone {
                return v % sides + 1;
            }
        }
    }
}

/// FNV-1a, 64 bit: a stable hash (std's `DefaultHasher` may change between
/// Rust releases, which would break replays).
fn fnv1a(bytes: &[u8], basis: u64) -> u64 {
    bytes.iter().fold(basis, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_inputs_same_rolls_and_purpose_changes_them() {
        let seq = |p: &str| {
            let mut d = Dice::new(42, 3, p);
            (0..20).map(|_| d.d20()).collect::<Vec<_>>()
        };
        assert_eq!(seq("courier"), seq("courier"));
        assert_ne!(seq("courier"), seq("battle"));
        let mut a = Dice::new(42, 3, "x");
        let mut b = Dice::new(42, 4, "x");
        let va: Vec<u32> = (0..20).map(|_| a.d10()).collect();
        let vb: Vec<u32> = (0..20).map(|_| b.d10()).collect();
        assert_ne!(va, vb);
    }

    #[test]
    fn faces_stay_in_range_and_every_roll_is_recorded() {
        let mut d = Dice::new(1, 1, "range");
        for _ in 0..500 {
            assert!((1..=4).contains(&d.d4()));
            assert!((1..=10).contains(&d.d10()));
            assert!((1..=20).contains(&d.d20()));
        }
        assert_eq!(d.rolls().len(), 1500);
        assert_eq!(d.rolls()[1].sides, 10);
        assert_eq!(d.rolls()[1499].index, 1499);
    }

    #[test]
    fn scripted_faces_come_first_then_the_stream() {
        let mut d = Dice::scripted("t", &[1, 10, 99]);
        assert_eq!(d.d10(), 1);
        assert_eq!(d.d10(), 10);
        assert_eq!(d.d10(), 10, "clamped to the die");
        let v = d.d10();
        assert!((1..=10).contains(&v));
        assert!(d.rolls()[0].scripted && !d.rolls()[3].scripted);
    }
}
