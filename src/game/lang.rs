//! The two languages a realm can play in. Shared by forms, mail and render.

use serde::{Deserialize, Serialize};

/// A realm's language: every mail and form it receives is in this language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    Sv,
    En,
}

impl Lang {
    /// The template folder name (`sv` or `en`).
    pub fn code(self) -> &'static str {
        match self {
            Lang::Sv => "sv",
            Lang::En => "en",
        }
    }
}

/// `n` and the noun in the right number: `one` for exactly 1, `many` otherwise (0, 2 …).
/// Swedish and English agree on this rule; each caller passes the pair in its language
/// (`count(1, "order godkänd", "order godkända")`, `count(2, "horse", "horses")`).
pub fn count<N>(n: N, one: &str, many: &str) -> String
where
    N: Copy + std::fmt::Display + PartialEq + From<u8>,
{
    format!("{n} {}", agree(n, one, many))
}

/// The form of a word that agrees with `n` (see [`count`]).
pub fn agree<'a, N: PartialEq + From<u8>>(n: N, one: &'a str, many: &'a str) -> &'a str {
    if n == N::from(1) {
        one
    } else {
        many
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_takes_the_singular_and_every_other_count_the_plural() {
        assert_eq!(
            count(1u32, "order godkänd", "order godkända"),
            "1 order godkänd"
        );
        assert_eq!(
            count(0u32, "order godkänd", "order godkända"),
            "0 order godkända"
        );
        assert_eq!(count(2u32, "horse", "horses"), "2 horses");
        assert_eq!(count(1i64, "horse", "horses"), "1 horse");
        assert_eq!(count(-1i64, "horse", "horses"), "-1 horses");
        assert_eq!(agree(11u32, "envoy", "envoys"), "envoys");
    }
}
