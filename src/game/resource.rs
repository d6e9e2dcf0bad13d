//! The twelve resources and fixed-size amounts of them (stock, production,
//! costs). Owns resource names in both languages and their parsing.
//! Pure data: no I/O, no rules beyond arithmetic on amounts.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::text::fold;
use super::Lang;

/// One resource type, in the rulings' resource order (docs/rules.md, Rulings): the
/// derived `Ord` is that order and is the tie-break wherever rules need one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Resource {
    #[serde(rename = "mat")]
    Mat,
    #[serde(rename = "tyg")]
    Tyg,
    #[serde(rename = "timmer")]
    Timmer,
    #[serde(rename = "järn")]
    Jarn,
    #[serde(rename = "guld")]
    Guld,
    #[serde(rename = "hästar")]
    Hastar,
    #[serde(rename = "sten")]
    Sten,
    #[serde(rename = "slavar")]
    Slavar,
    #[serde(rename = "eld")]
    Eld,
    #[serde(rename = "jord")]
    Jord,
    #[serde(rename = "luft")]
    Luft,
    #[serde(rename = "vatten")]
    Vatten,
}

/// Why a resource name was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown resource `{input}`; use one of: mat, tyg, timmer, järn, guld, hästar, sten, slavar, eld, jord, luft, vatten (or the English names)")]
pub struct ParseResourceError {
    pub input: String,
}

impl Resource {
    /// All twelve, in resource order.
    pub const ALL: [Resource; 12] = [
        Resource::Mat,
        Resource::Tyg,
        Resource::Timmer,
        Resource::Jarn,
        Resource::Guld,
        Resource::Hastar,
        Resource::Sten,
        Resource::Slavar,
        Resource::Eld,
        Resource::Jord,
        Resource::Luft,
        Resource::Vatten,
    ];

    /// The four crystal kinds.
    pub const CRYSTALS: [Resource; 4] = [
        Resource::Eld,
        Resource::Jord,
        Resource::Luft,
        Resource::Vatten,
    ];

    /// Crystals (eld, jord, luft, vatten).
    pub fn is_crystal(self) -> bool {
        matches!(
            self,
            Resource::Eld | Resource::Jord | Resource::Luft | Resource::Vatten
        )
    }

    /// The seven ordinary resources (not slaves, not crystals).
    pub fn is_ordinary(self) -> bool {
        !self.is_crystal() && self != Resource::Slavar
    }

    /// Canonical Swedish key, as stored (`järn`, `hästar` …).
    pub fn key(self) -> &'static str {
        match self {
            Resource::Mat => "mat",
            Resource::Tyg => "tyg",
            Resource::Timmer => "timmer",
            Resource::Jarn => "järn",
            Resource::Guld => "guld",
            Resource::Hastar => "hästar",
            Resource::Sten => "sten",
            Resource::Slavar => "slavar",
            Resource::Eld => "eld",
            Resource::Jord => "jord",
            Resource::Luft => "luft",
            Resource::Vatten => "vatten",
        }
    }

    /// Name shown to a player in `lang`.
    pub fn name(self, lang: Lang) -> &'static str {
        match lang {
            Lang::Sv => self.key(),
            Lang::En => match self {
                Resource::Mat => "food",
                Resource::Tyg => "cloth",
                Resource::Timmer => "timber",
                Resource::Jarn => "iron",
                Resource::Guld => "gold",
                Resource::Hastar => "horses",
                Resource::Sten => "stone",
                Resource::Slavar => "slaves",
                Resource::Eld => "fire",
                Resource::Jord => "earth",
                Resource::Luft => "air",
                Resource::Vatten => "water",
            },
        }
    }

    /// `n` of this resource as text, the noun agreeing with `n` (`1 häst`, `2 horses`;
    /// mass nouns such as `mat` and `gold` never change).
    pub fn count_text(self, n: u32, lang: Lang) -> String {
        let one = match (self, lang) {
            (Resource::Hastar, Lang::Sv) => "häst",
            (Resource::Slavar, Lang::Sv) => "slav",
            (Resource::Hastar, Lang::En) => "horse",
            (Resource::Slavar, Lang::En) => "slave",
            _ => self.name(lang),
        };
        crate::game::lang::count(n, one, self.name(lang))
    }

    /// Three-letter column heading in `lang`.
    pub fn abbrev(self, lang: Lang) -> &'static str {
        match lang {
            Lang::Sv => match self {
                Resource::Mat => "mat",
                Resource::Tyg => "tyg",
                Resource::Timmer => "tim",
                Resource::Jarn => "jär",
                Resource::Guld => "gul",
                Resource::Hastar => "häs",
                Resource::Sten => "ste",
                Resource::Slavar => "sla",
                Resource::Eld => "eld",
                Resource::Jord => "jor",
                Resource::Luft => "luf",
                Resource::Vatten => "vat",
            },
            Lang::En => match self {
                Resource::Mat => "foo",
                Resource::Tyg => "clo",
                Resource::Timmer => "tim",
                Resource::Jarn => "iro",
                Resource::Guld => "gol",
                Resource::Hastar => "hor",
                Resource::Sten => "sto",
                Resource::Slavar => "sla",
                Resource::Eld => "fir",
                Resource::Jord => "ear",
                Resource::Luft => "air",
                Resource::Vatten => "wat",
            },
        }
    }

    /// Parse a Swedish or English name, singular or plural, with or without
    /// diacritics, any case (`Järn`, `jarn`, `iron`, `häst`, `eldkristaller`).
    pub fn parse(input: &str) -> Result<Resource, ParseResourceError> {
        let norm = fold(input.trim());
        let r =
            match norm.as_str() {
                "mat" | "food" => Resource::Mat,
                "tyg" | "cloth" => Resource::Tyg,
                "timmer" | "timber" => Resource::Timmer,
                "jarn" | "iron" => Resource::Jarn,
                "guld" | "gold" => Resource::Guld,
                "hastar" | "hast" | "horse" | "horses" => Resource::Hastar,
                "sten" | "stone" => Resource::Sten,
                "slavar" | "slav" | "slave" | "slaves" => Resource::Slavar,
                "eld" | "eldkristall" | "eldkristaller" | "fire" | "fire crystal"
                | "fire crystals" => Resource::Eld,
                "jord" | "jordkristall" | "jordkristaller" | "earth" | "earth crystal"
                | "earth crystals" => Resource::Jord,
                "luft" | "luftkristall" | "luftkristaller" | "air" | "air crystal"
                | "air crystals" => Resource::Luft,
                "vatten" | "vattenkristall" | "vattenkristaller" | "water" | "water crystal"
                | "water crystals" => Resource::Vatten,
                _ => {
                    return Err(ParseResourceError {
                        input: input.to_string(),
                    })
                }
            };
        Ok(r)
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// An amount of each of the twelve resources (stock, production, cost,
/// carried treasure). Serialized as a map with the Swedish keys, resource
/// order; absent keys are zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Resources {
    pub mat: u32,
    pub tyg: u32,
    pub timmer: u32,
    #[serde(rename = "järn")]
    pub jarn: u32,
    pub guld: u32,
    #[serde(rename = "hästar")]
    pub hastar: u32,
    pub sten: u32,
    pub slavar: u32,
    pub eld: u32,
    pub jord: u32,
    pub luft: u32,
    pub vatten: u32,
}

impl Resources {
    /// Nothing of anything.
    pub const ZERO: Resources = Resources {
        mat: 0,
        tyg: 0,
        timmer: 0,
        jarn: 0,
        guld: 0,
        hastar: 0,
        sten: 0,
        slavar: 0,
        eld: 0,
        jord: 0,
        luft: 0,
        vatten: 0,
    };

    /// Build from `(resource, amount)` pairs; repeated resources add up (to at most
    /// `u32::MAX`).
    pub fn from_pairs(pairs: &[(Resource, u32)]) -> Resources {
        let mut r = Resources::ZERO;
        for &(res, n) in pairs {
            let v = r.get_mut(res);
            *v = v.saturating_add(n);
        }
        r
    }

    /// The same amount of each crystal kind ("X av vardera kristall").
    pub fn each_crystal(n: u32) -> Resources {
        Resources {
            eld: n,
            jord: n,
            luft: n,
            vatten: n,
            ..Resources::ZERO
        }
    }

    pub fn get(&self, r: Resource) -> u32 {
        match r {
            Resource::Mat => self.mat,
            Resource::Tyg => self.tyg,
            Resource::Timmer => self.timmer,
            Resource::Jarn => self.jarn,
            Resource::Guld => self.guld,
            Resource::Hastar => self.hastar,
            Resource::Sten => self.sten,
            Resource::Slavar => self.slavar,
            Resource::Eld => self.eld,
            Resource::Jord => self.jord,
            Resource::Luft => self.luft,
            Resource::Vatten => self.vatten,
        }
    }

    pub fn get_mut(&mut self, r: Resource) -> &mut u32 {
        match r {
            Resource::Mat => &mut self.mat,
            Resource::Tyg => &mut self.tyg,
            Resource::Timmer => &mut self.timmer,
            Resource::Jarn => &mut self.jarn,
            Resource::Guld => &mut self.guld,
            Resource::Hastar => &mut self.hastar,
            Resource::Sten => &mut self.sten,
            Resource::Slavar => &mut self.slavar,
            Resource::Eld => &mut self.eld,
            Resource::Jord => &mut self.jord,
            Resource::Luft => &mut self.luft,
            Resource::Vatten => &mut self.vatten,
        }
    }

    pub fn set(&mut self, r: Resource, n: u32) {
        *self.get_mut(r) = n;
    }

    /// `(resource, amount)` for all twelve, in resource order.
    pub fn iter(&self) -> impl Iterator<Item = (Resource, u32)> + '_ {
        Resource::ALL.iter().map(move |&r| (r, self.get(r)))
    }

    /// Sum of all twelve amounts (at most `u32::MAX`).
    pub fn total(&self) -> u32 {
        self.iter().fold(0u32, |t, (_, n)| t.saturating_add(n))
    }

    /// True when every amount is 0 (each looked at, so amounts that would add up past
    /// `u32::MAX` are never mistaken for nothing).
    pub fn is_zero(&self) -> bool {
        self.iter().all(|(_, n)| n == 0)
    }

    /// Element-wise sum; an amount stops at `u32::MAX` instead of wrapping round.
    pub fn plus(&self, other: &Resources) -> Resources {
        let mut r = *self;
        for (res, n) in other.iter() {
            let v = r.get_mut(res);
            *v = v.saturating_add(n);
        }
        r
    }

    /// Element-wise product with a scalar; an amount stops at `u32::MAX`.
    pub fn times(&self, k: u32) -> Resources {
        let mut r = *self;
        for res in Resource::ALL {
            let v = r.get_mut(res);
            *v = v.saturating_mul(k);
        }
        r
    }

    /// True when every amount in `cost` is available here.
    pub fn covers(&self, cost: &Resources) -> bool {
        cost.iter().all(|(r, n)| self.get(r) >= n)
    }

    /// `self − cost`, or `None` when some resource would go below zero.
    pub fn checked_sub(&self, cost: &Resources) -> Option<Resources> {
        let mut r = *self;
        for (res, n) in cost.iter() {
            *r.get_mut(res) = self.get(res).checked_sub(n)?;
        }
        Some(r)
    }

    /// Short text such as `5 mat, 2 järn` in `lang` (`-` when empty).
    pub fn describe(&self, lang: Lang) -> String {
        let parts: Vec<String> = self
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(r, n)| r.count_text(n, lang))
            .collect();
        if parts.is_empty() {
            "-".to_string()
        } else {
            parts.join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_horse_and_one_slave_are_singular_in_both_languages() {
        let of = |r: Resource, n: u32| {
            let mut x = Resources::ZERO;
            *x.get_mut(r) = n;
            x
        };
        let one = |r: Resource| of(r, 1);
        assert_eq!(one(Resource::Hastar).describe(Lang::Sv), "1 häst");
        assert_eq!(one(Resource::Hastar).describe(Lang::En), "1 horse");
        assert_eq!(one(Resource::Slavar).describe(Lang::Sv), "1 slav");
        assert_eq!(one(Resource::Slavar).describe(Lang::En), "1 slave");
        assert_eq!(one(Resource::Guld).describe(Lang::En), "1 gold");
        let two = of(Resource::Hastar, 2);
        assert_eq!(two.describe(Lang::Sv), "2 hästar");
        assert_eq!(two.describe(Lang::En), "2 horses");
    }

    #[test]
    fn parse_accepts_both_languages_and_missing_diacritics() {
        assert_eq!(Resource::parse("Järn"), Ok(Resource::Jarn));
        assert_eq!(Resource::parse("jarn"), Ok(Resource::Jarn));
        assert_eq!(Resource::parse("iron"), Ok(Resource::Jarn));
        assert_eq!(Resource::parse("häst"), Ok(Resource::Hastar));
        assert_eq!(Resource::parse("Eldkristaller"), Ok(Resource::Eld));
        assert!(Resource::parse("plutonium").is_err());
    }

    #[test]
    fn r_res_1_order_is_the_rulings_order() {
        let mut v = Resource::ALL.to_vec();
        v.sort();
        assert_eq!(v, Resource::ALL.to_vec());
        let keys: Vec<&str> = Resource::ALL.iter().map(|r| r.key()).collect();
        assert_eq!(
            keys.join(","),
            "mat,tyg,timmer,järn,guld,hästar,sten,slavar,eld,jord,luft,vatten"
        );
    }

    #[test]
    fn serializes_with_swedish_keys() {
        let r = Resources::from_pairs(&[(Resource::Jarn, 2), (Resource::Hastar, 1)]);
        let j = serde_json::to_string(&r).unwrap();
        assert!(j.contains("\"järn\":2"));
        assert!(j.contains("\"hästar\":1"));
        let back: Resources = serde_json::from_str(&j).unwrap();
        assert_eq!(back, r);
        assert_eq!(serde_json::to_string(&Resource::Jarn).unwrap(), "\"järn\"");
    }

    #[test]
    fn arithmetic() {
        let a = Resources::from_pairs(&[(Resource::Mat, 3), (Resource::Guld, 1)]);
        assert_eq!(a.times(7).mat, 21);
        assert!(a.covers(&Resources::from_pairs(&[(Resource::Mat, 3)])));
        assert!(a.checked_sub(&Resources::each_crystal(1)).is_none());
        assert_eq!(a.describe(Lang::En), "3 food, 1 gold");
    }

    #[test]
    fn amounts_that_add_up_past_the_largest_number_stop_there_and_are_never_nothing() {
        let half = Resources::from_pairs(&[(Resource::Guld, 1 << 31), (Resource::Mat, 1 << 31)]);
        assert!(!half.is_zero(), "2^31 + 2^31 wraps to 0 when summed");
        assert_eq!(half.total(), u32::MAX);
        let big = Resources::from_pairs(&[(Resource::Guld, u32::MAX - 1)]);
        let more = big.plus(&Resources::from_pairs(&[
            (Resource::Guld, 5),
            (Resource::Tyg, 2),
        ]));
        assert_eq!((more.guld, more.tyg), (u32::MAX, 2));
        assert_eq!(big.times(3).guld, u32::MAX);
        assert_eq!(
            Resources::from_pairs(&[(Resource::Sten, 7)]).times(3).sten,
            21
        );
        assert!(Resources::ZERO.is_zero());
    }
}
