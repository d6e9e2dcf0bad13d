//! The Evil's events as report lines, per language: lava, portals, treasures, the
//! Evil's plunder and razing cost, and what was sighted near portals (R-EVIL).

use crate::game::state::Dimension;
use crate::game::weekend::evil::EvilEvent;
use crate::game::{GameState, Lang, Square, UnitKind};

/// `3 högre demoner, 1 lägre demon` / `3 higher demons, 1 lower demon`.
fn units_text(units: &[(UnitKind, u32)], lang: Lang) -> String {
    units
        .iter()
        .map(|(k, n)| {
            let (one, many) = k.names(lang);
            format!("{n} {}", if *n == 1 { one } else { many })
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn dim_text(d: Dimension, lang: Lang) -> &'static str {
    match (d, lang) {
        (Dimension::Normal, Lang::Sv) => "den vanliga dimensionen",
        (Dimension::Normal, Lang::En) => "the normal dimension",
        (Dimension::Evil, Lang::Sv) => "Ondskans dimension",
        (Dimension::Evil, Lang::En) => "the Evil's dimension",
    }
}

/// The lines `realm` reads about `ev`.
pub fn lines(ev: &EvilEvent, _gs: &GameState, _realm: &str, lang: Lang) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let pick = |s: String, e: String| if sv { s } else { e };
    let line = match ev {
        EvilEvent::Lava { .. }
        | EvilEvent::ThroughPortal { .. }
        | EvilEvent::PortalTooNew { .. }
        | EvilEvent::Leash { .. }
        | EvilEvent::PortalFading { .. }
        | EvilEvent::PortalHeld { .. }
        | EvilEvent::PortalClosed { .. }
        | EvilEvent::PortalSeen { .. } => passage(ev, lang),
        EvilEvent::TreasureFound { .. }
        | EvilEvent::TreasureForGm { .. }
        | EvilEvent::TreasureNew { .. }
        | EvilEvent::TreasureCredited { .. }
        | EvilEvent::TreasureLost { .. } => treasure(ev, lang),
        EvilEvent::Plundered { .. } => plundered(ev, lang),
        EvilEvent::RazeCost {
            square, cost, paid, ..
        } => {
            let cost = cost.describe(lang);
            match (paid, sv) {
                (true, true) => format!("Att skövla staden på {square} kostade {cost} (R-EVIL-12)."),
                (true, false) => format!("Razing the city on {square} cost {cost} (R-EVIL-12)."),
                (false, true) => format!("Staden på {square} plundrades i stället för att skövlas: att skövla den kostar {cost} (R-EVIL-12)."),
                (false, false) => format!("The city on {square} was plundered instead of razed: razing it costs {cost} (R-EVIL-12)."),
            }
        }
        EvilEvent::Sighted {
            owner,
            army,
            square,
            dimension,
            units,
            ..
        } => pick(
            format!(
                "Synligt: {owner}s armé {army} på {square} ({}): {}.",
                dim_text(*dimension, lang),
                units_text(units, lang)
            ),
            format!(
                "Seen: {owner}'s army {army} on {square} ({}): {}.",
                dim_text(*dimension, lang),
                units_text(units, lang)
            ),
        ),
        EvilEvent::CitySighted {
            owner,
            square,
            name,
            ..
        } => pick(
            format!("Synligt: {owner}s stad {name} på {square} i Ondskans dimension."),
            format!("Seen: {owner}'s city {name} on {square} in the Evil's dimension."),
        ),
    };
    vec![line]
}

/// Lava, portals and the leash.
fn passage(ev: &EvilEvent, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    let pick = |s: String, e: String| if sv { s } else { e };
    match ev {
        EvilEvent::Lava { army, square, roll, lost, .. } => lava(*army, *square, *roll, *lost, lang),
        EvilEvent::ThroughPortal { army, square, to, .. } => pick(
            format!("Armé {army} gick genom portalen på {square} till {}.", dim_text(*to, lang)),
            format!("Army {army} went through the portal on {square} into {}.", dim_text(*to, lang)),
        ),
        EvilEvent::PortalTooNew { army, square, .. } => pick(
            format!("Armé {army}: portalen på {square} öppnades i år; ingen går igenom den förrän nästa runda (R-EVIL-15)."),
            format!("Army {army}: the portal on {square} was opened this round; no troops pass it until next round (R-EVIL-15)."),
        ),
        EvilEvent::Leash { army, square, leash, .. } => pick(
            format!("Armé {army} stannade: {square} ligger mer än {leash} rutor från en portal (R-EVIL-17)."),
            format!("Army {army} stopped: {square} is more than {leash} squares from a portal (R-EVIL-17)."),
        ),
        EvilEvent::PortalFading { square, roll, closes_after_round } => pick(
            format!("Inga av Ondskans trupper är nära portalen på {square} (1T4: {roll}); den stängs efter runda {closes_after_round}."),
            format!("No Evil troops are near the portal on {square} (1d4: {roll}); it closes after round {closes_after_round}."),
        ),
        EvilEvent::PortalHeld { square } => pick(
            format!("Ondskans trupper är tillbaka vid portalen på {square}; den förblir öppen."),
            format!("Evil troops are back near the portal on {square}; it stays open."),
        ),
        EvilEvent::PortalClosed { square } => pick(
            format!("Portalen på {square} har stängts."),
            format!("The portal on {square} has closed."),
        ),
        EvilEvent::PortalSeen { square, closes_after_round, .. } => portal_seen(*square, *closes_after_round, lang),
        _ => String::new(),
    }
}

/// Treasures found, new, home or lost.
fn treasure(ev: &EvilEvent, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    let pick = |s: String, e: String| if sv { s } else { e };
    match ev {
        EvilEvent::TreasureFound {
            army,
            square,
            roll,
            found,
            ..
        } => {
            if found.is_zero() {
                pick(
                    format!("Armé {army} fann en skatt på {square} (1T8: {roll}); spelledaren bestämmer vad den innehåller."),
                    format!("Army {army} found a treasure on {square} (1d8: {roll}); the GM decides what it holds."),
                )
            } else {
                pick(
                    format!("Armé {army} fann en skatt på {square} (1T8: {roll}): {}. Den räknas er till godo när armén når en av era städer.", found.describe(lang)),
                    format!("Army {army} found a treasure on {square} (1d8: {roll}): {}. It is yours once the army reaches one of your cities.", found.describe(lang)),
                )
            }
        }
        EvilEvent::TreasureForGm {
            realm,
            army,
            square,
        } => pick(
            format!("Skatt åt spelledaren: {realm}s armé {army} på {square} slog 8."),
            format!("Treasure for the GM: {realm}'s army {army} on {square} rolled 8."),
        ),
        EvilEvent::TreasureNew { square } => pick(
            format!("En ny skatt finns på {square} i Ondskans dimension."),
            format!("A new treasure lies on {square} in the Evil's dimension."),
        ),
        EvilEvent::TreasureCredited {
            army,
            city,
            resources,
            ..
        } => pick(
            format!(
                "Armé {army} kom hem till {city} med sin skatt: {}.",
                resources.describe(lang)
            ),
            format!(
                "Army {army} brought its treasure home to {city}: {}.",
                resources.describe(lang)
            ),
        ),
        EvilEvent::TreasureLost {
            army, resources, ..
        } => pick(
            format!(
                "Armé {army} finns inte längre, och skatten den bar ({}) är förlorad.",
                resources.describe(lang)
            ),
            format!(
                "Army {army} is gone, and the treasure it carried ({}) is lost.",
                resources.describe(lang)
            ),
        ),
        _ => String::new(),
    }
}

fn lava(army: u32, square: Square, roll: u32, lost: Option<UnitKind>, lang: Lang) -> String {
    match (lost, lang) {
        (Some(k), Lang::Sv) => format!(
            "Armé {army} gick ut i lavan på {square} (1T10: {roll}); 1 {} dog (R-EVIL-3).",
            k.names(lang).0
        ),
        (Some(k), Lang::En) => format!(
            "Army {army} went onto the lava on {square} (1d10: {roll}); 1 {} died (R-EVIL-3).",
            k.names(lang).0
        ),
        (None, Lang::Sv) => {
            format!("Armé {army} gick ut i lavan på {square} (1T10: {roll}) utan förluster.")
        }
        (None, Lang::En) => {
            format!("Army {army} went onto the lava on {square} (1d10: {roll}) without loss.")
        }
    }
}

fn portal_seen(square: Square, closes: Option<u32>, lang: Lang) -> String {
    match (closes, lang) {
        (None, Lang::Sv) => format!("Det finns en öppen portal på {square} i ert land."),
        (None, Lang::En) => format!("There is an open portal on {square} in your land."),
        (Some(r), Lang::Sv) => {
            format!("Det finns en öppen portal på {square} i ert land; den stängs efter runda {r}.")
        }
        (Some(r), Lang::En) => {
            format!("There is an open portal on {square} in your land; it closes after round {r}.")
        }
    }
}

fn plundered(ev: &EvilEvent, lang: Lang) -> String {
    let EvilEvent::Plundered {
        square,
        city,
        attacker,
        defender,
        production,
        population,
        into,
        vp,
    } = ev
    else {
        return String::new();
    };
    let prod = production.describe(lang);
    let into = match (into, lang) {
        (Some(sq), Lang::Sv) => format!(" till {sq}"),
        (Some(sq), Lang::En) => format!(" to {sq}"),
        (None, _) => String::new(),
    };
    match lang {
        Lang::Sv => format!(
            "{attacker} plundrade {city} ({square}) från {defender}: {prod}, hela befolkningen ({population}) fördes{into}, och {vp} VP gick från {defender} till {attacker} (R-EVIL-12)."
        ),
        Lang::En => format!(
            "{attacker} plundered {city} ({square}) from {defender}: {prod}, its whole population ({population}) was taken{into}, and {vp} VP passed from {defender} to {attacker} (R-EVIL-12)."
        ),
    }
}

/// What the GM must decide or apply from the weekend's events (R-EVIL-8 result 8, a
/// secret bonus of R-POS-3), in `lang`.
pub fn gm_lines(events: &[crate::game::event::Event], lang: Lang) -> Vec<String> {
    use crate::game::event::What;
    events
        .iter()
        .filter_map(|e| match &e.what {
            What::Evil(ev @ EvilEvent::TreasureForGm { .. }) => Some(treasure(ev, lang)),
            What::Economy(ev) => super::economy::gm_line(ev, lang),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Resource;

    fn sq(s: &str) -> Square {
        Square::parse(s).expect("square")
    }

    fn every_event() -> Vec<EvilEvent> {
        let r = || crate::game::Name::from("Genogien");
        let gold = crate::game::Resources::from_pairs(&[(Resource::Guld, 27)]);
        vec![
            EvilEvent::Lava {
                realm: r(),
                army: 1,
                square: sq("B4"),
                roll: 2,
                lost: Some(UnitKind::LattInfanteri),
            },
            EvilEvent::Lava {
                realm: r(),
                army: 1,
                square: sq("B4"),
                roll: 7,
                lost: None,
            },
            EvilEvent::ThroughPortal {
                realm: r(),
                army: 1,
                square: sq("B4"),
                to: Dimension::Evil,
            },
            EvilEvent::PortalTooNew {
                realm: r(),
                army: 1,
                square: sq("B4"),
            },
            EvilEvent::Leash {
                realm: r(),
                army: 1,
                square: sq("H4"),
                leash: 5,
            },
            EvilEvent::PortalFading {
                square: sq("B4"),
                roll: 3,
                closes_after_round: 6,
            },
            EvilEvent::PortalHeld { square: sq("B4") },
            EvilEvent::PortalClosed { square: sq("B4") },
            EvilEvent::PortalSeen {
                realm: r(),
                square: sq("B4"),
                closes_after_round: None,
            },
            EvilEvent::PortalSeen {
                realm: r(),
                square: sq("B4"),
                closes_after_round: Some(5),
            },
            EvilEvent::TreasureFound {
                realm: r(),
                army: 1,
                square: sq("B5"),
                roll: 2,
                found: Box::new(gold),
            },
            EvilEvent::TreasureFound {
                realm: r(),
                army: 1,
                square: sq("B5"),
                roll: 8,
                found: Box::new(crate::game::Resources::ZERO),
            },
            EvilEvent::TreasureForGm {
                realm: r(),
                army: 1,
                square: sq("B5"),
            },
            EvilEvent::TreasureNew { square: sq("E6") },
            EvilEvent::TreasureCredited {
                realm: r(),
                army: 1,
                city: sq("C4"),
                resources: Box::new(gold),
            },
            EvilEvent::TreasureLost {
                realm: r(),
                army: 1,
                resources: Box::new(gold),
            },
            EvilEvent::Plundered {
                square: sq("C4"),
                city: "Stenvik".into(),
                attacker: "Ondskan".into(),
                defender: r(),
                production: Box::new(gold),
                population: 30,
                into: Some(sq("F6")),
                vp: 25,
            },
            EvilEvent::RazeCost {
                realm: r(),
                square: sq("C4"),
                cost: Box::new(crate::game::Resources::each_crystal(5)),
                paid: true,
            },
            EvilEvent::RazeCost {
                realm: r(),
                square: sq("C4"),
                cost: Box::new(crate::game::Resources::each_crystal(5)),
                paid: false,
            },
            EvilEvent::Sighted {
                realm: "Ondskan".into(),
                owner: r(),
                army: 3,
                square: sq("C4"),
                dimension: Dimension::Normal,
                units: [(UnitKind::LattKavalleri, 3)].into_iter().collect(),
            },
            EvilEvent::CitySighted {
                realm: r(),
                owner: "Ondskan".into(),
                square: sq("F6"),
                name: "Mörkborg".into(),
            },
        ]
    }

    /// A rule ID in a player's report comes last, in parentheses, after words.
    #[test]
    fn every_evil_events_rule_id_comes_last_in_parentheses() {
        let gs =
            crate::game::load_scenario(include_str!("../../../scenarios/evil.yaml")).expect("evil");
        let mut bad = Vec::new();
        for ev in every_event() {
            for lang in [Lang::Sv, Lang::En] {
                for line in lines(&ev, &gs, "Genogien", lang) {
                    bad.extend(super::super::misplaced_rule_ids(&line));
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    #[test]
    fn every_evil_event_reads_as_one_line_in_swedish_and_in_english() {
        let gs =
            crate::game::load_scenario(include_str!("../../../scenarios/evil.yaml")).expect("evil");
        for ev in every_event() {
            let sv = lines(&ev, &gs, "Genogien", Lang::Sv);
            let en = lines(&ev, &gs, "Genogien", Lang::En);
            assert_eq!((sv.len(), en.len()), (1, 1), "{ev:?}");
            assert!(!sv[0].is_empty() && !en[0].is_empty(), "{ev:?}");
            assert_ne!(sv[0], en[0], "{ev:?}");
        }
    }

    #[test]
    fn r_evil_12_the_plunder_reads_with_its_numbers() {
        let gs =
            crate::game::load_scenario(include_str!("../../../scenarios/evil.yaml")).expect("evil");
        let ev = every_event()
            .into_iter()
            .find(|e| matches!(e, EvilEvent::Plundered { .. }));
        let en = lines(&ev.expect("plunder"), &gs, "Genogien", Lang::En);
        assert_eq!(
            en,
            ["Ondskan plundered Stenvik (C4) from Genogien: 27 gold, its whole population (30) was taken to F6, and 25 VP passed from Genogien to Ondskan (R-EVIL-12)."]
        );
    }
}
