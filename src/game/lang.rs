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
