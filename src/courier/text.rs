//! Plain-text pieces of courier mail in Swedish or English: goods lists and what a
//! spy learned. PURE formatting; decides nothing.

use super::batch::SpyResult;
use super::mission::{ArmyIntel, FleetIntel, Intel, MissionError, MissionErrorKind};
use super::trailer::{Goods, TrailerError, TrailerErrorKind};
use crate::game::lang::count;
use crate::game::state::SpyMission;
use crate::game::units::Position;
use crate::game::Lang;

/// `5 sten, 2 lätt infanteri, 1 transportskepp, 10 segerpoäng, stad K5` — or `inget`.
pub fn goods_text(g: &Goods, lang: Lang) -> String {
    let mut parts = Vec::new();
    if !g.resources.is_zero() {
        parts.push(g.resources.describe(lang));
    }
    for (k, n) in &g.units {
        parts.push(k.count_text(*n as usize, lang));
    }
    for (k, n) in &g.ships {
        parts.push(k.count_text(*n as usize, lang));
    }
    if g.vp > 0 {
        parts.push(match lang {
            Lang::Sv => format!("{} segerpoäng", g.vp),
            Lang::En => count(g.vp, "victory point", "victory points"),
        });
    }
    for c in &g.cities {
        parts.push(match lang {
            Lang::Sv => format!("staden {c}"),
            Lang::En => format!("the city {c}"),
        });
    }
    for s in &g.squares {
        parts.push(match lang {
            Lang::Sv => format!("rutan {s}"),
            Lang::En => format!("the square {s}"),
        });
    }
    if parts.is_empty() {
        return match lang {
            Lang::Sv => "inget".into(),
            Lang::En => "nothing".into(),
        };
    }
    parts.join(", ")
}

fn army_line(a: &ArmyIntel, lang: Lang) -> String {
    let units: Vec<String> = a
        .units
        .iter()
        .map(|(k, n)| k.count_text(*n as usize, lang))
        .collect();
    match lang {
        Lang::Sv => format!(
            "{}s armé {} på {}: {} ({})",
            a.owner,
            a.id,
            a.square,
            units.join(", "),
            count(a.total, "enhet", "enheter")
        ),
        Lang::En => format!(
            "{}'s army {} on {}: {} ({})",
            a.owner,
            a.id,
            a.square,
            units.join(", "),
            count(a.total, "unit", "units")
        ),
    }
}

fn fleet_line(f: &FleetIntel, lang: Lang) -> String {
    let ships: Vec<String> = f
        .ships
        .iter()
        .map(|(k, n)| k.count_text(*n as usize, lang))
        .collect();
    let cargo = if f.cargo.is_empty() {
        String::new()
    } else {
        let ids: Vec<String> = f.cargo.iter().map(u32::to_string).collect();
        match lang {
            Lang::Sv => format!("; ombord armé {}", ids.join(", ")),
            Lang::En => format!("; aboard army {}", ids.join(", ")),
        }
    };
    match lang {
        Lang::Sv => format!(
            "{}s flotta {} på {}: {}{cargo}",
            f.owner,
            f.id,
            f.square,
            ships.join(", ")
        ),
        Lang::En => format!(
            "{}'s fleet {} on {}: {}{cargo}",
            f.owner,
            f.id,
            f.square,
            ships.join(", ")
        ),
    }
}

/// What a spy learned, one fact a line.
pub fn intel_lines(intel: &Intel, lang: Lang) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let none = if sv { "inga" } else { "none" };
    let mut out = Vec::new();
    match intel {
        Intel::Resources {
            realm,
            stock,
            production,
        } => {
            out.push(if sv {
                format!("{realm}s lager: {}", stock.describe(lang))
            } else {
                format!("{realm}'s stock: {}", stock.describe(lang))
            });
            out.push(if sv {
                format!("Produktion per runda: {}", production.describe(lang))
            } else {
                format!("Production per round: {}", production.describe(lang))
            });
        }
        Intel::City {
            square,
            name,
            owner,
            population,
            walls,
            production,
            armies,
            fleets,
        } => {
            out.push(if sv {
                format!("{name} ({square}), {owner}s stad: befolkning {population}, murar {walls}")
            } else {
                format!("{name} ({square}), {owner}'s city: population {population}, walls {walls}")
            });
            out.push(if sv {
                format!("Produktion: {}", production.describe(lang))
            } else {
                format!("Production: {}", production.describe(lang))
            });
            out.extend(armies.iter().map(|a| army_line(a, lang)));
            out.extend(fleets.iter().map(|f| fleet_line(f, lang)));
        }
        Intel::Armies {
            realm,
            armies,
            fleets,
        } => {
            if armies.is_empty() && fleets.is_empty() {
                out.push(if sv {
                    format!("{realm} har inga arméer eller flottor.")
                } else {
                    format!("{realm} has no armies or fleets.")
                });
            }
            out.extend(armies.iter().map(|a| army_line(a, lang)));
            out.extend(fleets.iter().map(|f| fleet_line(f, lang)));
        }
        Intel::Positions { realm, positions } => {
            out.push(if sv {
                format!("{realm}s befattningsvärden:")
            } else {
                format!("{realm}'s position values:")
            });
            for p in Position::ALL {
                out.push(format!("  {:<14} {}", p.name(lang), positions.get(p)));
            }
        }
        Intel::Contacts { realm, with } => {
            let list = if with.is_empty() {
                none.to_string()
            } else {
                with.join(", ")
            };
            out.push(if sv {
                format!("{realm} har utväxlat sändebud eller handelsmän med: {list}")
            } else {
                format!("{realm} exchanged envoys or merchants with: {list}")
            });
        }
        Intel::VictoryPoints { realm, vp, mission } => {
            out.push(if sv {
                format!("{realm} har {vp} segerpoäng.")
            } else {
                format!(
                    "{realm} has {}.",
                    count(*vp, "victory point", "victory points")
                )
            });
            out.push(if sv {
                format!("Uppdrag: {mission}")
            } else {
                format!("Mission: {mission}")
            });
        }
        Intel::WhoVoted { round, voters } => {
            let list = if voters.is_empty() {
                none.to_string()
            } else {
                voters.join(", ")
            };
            out.push(match (round, sv) {
                (Some(r), true) => format!("I omröstningen runda {r} röstade på er: {list}"),
                (Some(r), false) => {
                    format!("In the vote of round {r}, these voted for you: {list}")
                }
                (None, true) => "Ingen omröstning har hållits än.".into(),
                (None, false) => "No vote has been held yet.".into(),
            });
        }
        Intel::ForeignTroops { armies } => {
            if armies.is_empty() {
                out.push(if sv {
                    "Inga främmande trupper i ert land.".into()
                } else {
                    "No foreign troops in your land.".into()
                });
            }
            out.extend(armies.iter().map(|a| army_line(a, lang)));
        }
    }
    out
}

/// `name`'s genitive in Swedish: `Kaldors`, but `Ostvik` → `Ostviks` and `Aras` → `Aras`.
fn genitive_sv(name: &str) -> String {
    if name.ends_with(['s', 'x', 'z', 'S', 'X', 'Z']) {
        name.to_string()
    } else {
        format!("{name}s")
    }
}

/// A spy's mission as words, naming its target (`target`: the realm spied on, the
/// sender's own for missions 9 and 10), e.g. `Kaldors resurser` / `Kaldor's armies and
/// fleets`: what the player's mail names instead of the mission's number (R-SPY-4).
pub fn mission_text(mission: &SpyMission, target: &str, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    let of = |what_sv: &str, what_en: &str| {
        if sv {
            format!("{} {what_sv}", genitive_sv(target))
        } else {
            format!("{target}'s {what_en}")
        }
    };
    match mission {
        SpyMission::Resources => of("resurser", "resources"),
        SpyMission::City { square } if sv => format!("staden på {square}"),
        SpyMission::City { square } => format!("the city on {square}"),
        SpyMission::Armies => of("arméer och flottor", "armies and fleets"),
        SpyMission::Positions => of("befattningsvärden", "position values"),
        SpyMission::Contacts => of("kontakter med andra länder", "contacts with other realms"),
        SpyMission::Forgery if sv => format!("ett förfalskat sändebud till {target}"),
        SpyMission::Forgery => format!("a forged envoy to {target}"),
        SpyMission::VictoryPoints => of("segerpoäng och uppdrag", "victory points and mission"),
        SpyMission::Steal { filter } => match (filter, sv) {
            (None, true) => format!("stjäla ett sändebud som passerar {target}"),
            (None, false) => format!("steal an envoy passing {target}"),
            (Some(f), true) => format!("stjäla ett sändebud till eller från {f} i {target}"),
            (Some(f), false) => format!("steal an envoy to or from {f} in {target}"),
        },
        SpyMission::WhoVoted if sv => "vem som röstade på er".to_string(),
        SpyMission::WhoVoted => "who voted for you".to_string(),
        SpyMission::ForeignTroops if sv => "främmande trupper i ert land".to_string(),
        SpyMission::ForeignTroops => "foreign troops in your land".to_string(),
    }
}

/// The body of a spy report: what the spy learned, or why it learned nothing.
pub fn spy_report_lines(result: &SpyResult, lang: Lang) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let line = match result {
        SpyResult::Learned { intel } => return intel_lines(intel, lang),
        SpyResult::Failed if sv => {
            "Spionen misslyckades och kom inte tillbaka; den lärde sig ingenting."
        }
        SpyResult::Failed => "The spy failed and did not return; it learned nothing.",
        SpyResult::EmptyHanded if sv => "En Sköld skyddade målet: spionen kom tillbaka tomhänt.",
        SpyResult::EmptyHanded => "A Shield protected the target: the spy came back empty-handed.",
        SpyResult::Stationed if sv => {
            "Spionen är på plats och väntar på första sändebudet som passerar."
        }
        SpyResult::Stationed => "The spy is in place, waiting for the first envoy to pass.",
        SpyResult::ForgerySent if sv => "Det förfalskade sändebudet är på väg.",
        SpyResult::ForgerySent => "The forged envoy is on its way.",
        SpyResult::InterceptionFailed if sv => {
            "Spionen försökte ta ett sändebud men misslyckades och är förbrukad."
        }
        SpyResult::InterceptionFailed => "The spy tried to take an envoy but failed, and is spent.",
    };
    vec![line.to_string()]
}

impl TrailerErrorKind {
    /// Why the line could not be read, in `lang` (the `Display` text is for logs).
    pub fn explain(&self, lang: Lang) -> String {
        let sv = lang == Lang::Sv;
        match self {
            TrailerErrorKind::UnknownGood { item } if sv => {
                format!(
                    "`{item}` är ingen resurs, arméenhet, skeppstyp, segerpoäng, stad eller ruta"
                )
            }
            TrailerErrorKind::UnknownGood { item } => {
                format!("`{item}` is not a resource, army unit, ship, VP, city or square")
            }
            TrailerErrorKind::MissingAmount { item } if sv => {
                format!("`{item}` saknar antal, t.ex. `5 {item}`")
            }
            TrailerErrorKind::MissingAmount { item } => {
                format!("`{item}` needs an amount, e.g. `5 {item}`")
            }
            TrailerErrorKind::ZeroAmount { item } if sv => {
                format!("`{item}`: antalet ska vara minst 1")
            }
            TrailerErrorKind::ZeroAmount { item } => {
                format!("`{item}`: the amount must be 1 or more")
            }
            TrailerErrorKind::BadSquare { item } if sv => {
                format!("`{item}` är ingen ruta (skriv t.ex. K12)")
            }
            TrailerErrorKind::BadSquare { item } => {
                format!("`{item}` is not a square (write e.g. K12)")
            }
            TrailerErrorKind::UnexpectedLine if sv => {
                "raden är varken `Skickar:`, `Väntar:`, `Från:` eller fortsättningen på en lista"
                    .into()
            }
            TrailerErrorKind::UnexpectedLine => {
                "the line is not `Sends:`, `Expects:`, `From:` or the continuation of a list".into()
            }
            TrailerErrorKind::EmptyDirective if sv => "raden har inget värde efter kolonet".into(),
            TrailerErrorKind::EmptyDirective => "the line has no value after the colon".into(),
            TrailerErrorKind::TooLarge { item, max } if sv => {
                format!("`{item}` är mer än {max} av en vara, mer än något land har")
            }
            TrailerErrorKind::TooLarge { item, max } => {
                format!("`{item}` is more than {max} of one good, more than any realm holds")
            }
        }
    }
}

impl TrailerError {
    /// The reason in `lang`.
    pub fn explain(&self, lang: Lang) -> String {
        self.kind.explain(lang)
    }
}

impl MissionErrorKind {
    /// Why the mission could not be read, in `lang` (the `Display` text is for logs).
    pub fn explain(&self, lang: Lang) -> &'static str {
        match (self, lang) {
            (MissionErrorKind::Missing, Lang::Sv) => "spionbrevet saknar en rad `Uppdrag:`",
            (MissionErrorKind::Missing, Lang::En) => "the spy mail has no `Mission:` line",
            (MissionErrorKind::Unknown, Lang::Sv) => "inget av de tio uppdragen (1–10)",
            (MissionErrorKind::Unknown, Lang::En) => "not one of the ten missions (1–10)",
            (MissionErrorKind::NoCity, Lang::Sv) => {
                "uppdrag 2 behöver en stad: dess ruta eller namn"
            }
            (MissionErrorKind::NoCity, Lang::En) => "mission 2 needs a city: its square or name",
            (MissionErrorKind::UnknownFilter, Lang::Sv) => "filtret nämner inget känt land",
            (MissionErrorKind::UnknownFilter, Lang::En) => "the filter names no known realm",
        }
    }
}

impl MissionError {
    /// The reason in `lang`, with the player's line quoted when there was one.
    pub fn explain(&self, lang: Lang) -> String {
        let why = self.kind.explain(lang);
        if self.line.trim().is_empty() {
            why.to_string()
        } else {
            format!("{why}: `{}`", self.line)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::units::UnitKind;
    use crate::game::Resources;

    #[test]
    fn goods_read_as_a_list_in_both_languages() {
        let mut g = Goods::default();
        assert_eq!(goods_text(&g, Lang::Sv), "inget");
        g.resources = Resources {
            sten: 5,
            ..Resources::ZERO
        };
        g.units.insert(UnitKind::LattInfanteri, 2);
        g.vp = 10;
        let sv = goods_text(&g, Lang::Sv);
        assert!(sv.contains("5") && sv.contains("10 segerpoäng"), "{sv}");
        assert!(goods_text(&g, Lang::En).contains("10 victory points"));
    }
}
