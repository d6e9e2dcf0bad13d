//! The free merchants' and the engineers' events as report lines, per language.

use crate::game::lang::count;
use crate::game::state::{Lot, Researched};
use crate::game::weekend::economy::Cap;
use crate::game::weekend::market::{MarketEvent, Why};
use crate::game::{GameState, Lang, Resources, ShipKind, UnitKind};

/// The lines `realm` reads about `ev`.
pub fn lines(ev: &MarketEvent, _gs: &GameState, _realm: &str, lang: Lang) -> Vec<String> {
    let line = match ev {
        MarketEvent::Placed { .. } | MarketEvent::PlaceRefused { .. } => placement(ev, lang),
        MarketEvent::Won {
            lot, value, paid, ..
        } => won(lot, *value, paid, lang),
        MarketEvent::Lost { .. } | MarketEvent::BidRefused { .. } | MarketEvent::Offer { .. } => {
            auction(ev, lang)
        }
        MarketEvent::Research {
            kind,
            forskare,
            roll,
            success,
            cost,
            ..
        } => research(*kind, *forskare, *roll, *success, cost.as_ref(), lang),
        MarketEvent::Engineers { .. }
        | MarketEvent::EngineersRefused { .. }
        | MarketEvent::ResearchRefused { .. } => engineers(ev, lang),
    };
    vec![line]
}

fn pick(lang: Lang, sv: String, en: String) -> String {
    match lang {
        Lang::Sv => sv,
        Lang::En => en,
    }
}

fn placement(ev: &MarketEvent, lang: Lang) -> String {
    match ev {
        MarketEvent::Placed {
            count: n,
            unit,
            city,
            army,
            ..
        } => {
            let what = unit.count_text(*n as usize, lang);
            pick(
                lang,
                format!("Placerat: {what} från de fria köpmännen i {city} (armé {army})."),
                format!("Placed: {what} from the free merchants in {city} (army {army})."),
            )
        }
        MarketEvent::PlaceRefused {
            count: n,
            unit,
            city,
            rule,
            why,
            ..
        } => {
            let what = unit.count_text(*n as usize, lang);
            let why = why_text(why, lang);
            pick(
                lang,
                format!("Ej placerat: {what} i {city} — {why} ({rule}). De väntar kvar."),
                format!("Not placed: {what} in {city} — {why} ({rule}). They keep waiting."),
            )
        }
        _ => String::new(),
    }
}

fn auction(ev: &MarketEvent, lang: Lang) -> String {
    match ev {
        MarketEvent::Lost { value, .. } => pick(
            lang,
            format!("De fria köpmännen: ditt bud (värt {value}) vann inte; inget drogs."),
            format!("Free merchants: your bid (worth {value}) did not win; nothing was taken."),
        ),
        MarketEvent::BidRefused { rule, why, .. } => pick(
            lang,
            format!("De fria köpmännen: ditt bud deltog inte och inget drogs — {} ({rule}).", why_text(why, lang)),
            format!("Free merchants: your bid took no part and nothing was taken — {} ({rule}).", why_text(why, lang)),
        ),
        MarketEvent::Offer { lot, min_bid, .. } => pick(
            lang,
            format!("De fria köpmännen erbjuder nästa vecka {} (lägsta bud {min_bid}); bjud med BUD på nästa helgblankett.", lot_text(lot, lang)),
            format!("Next week the free merchants offer {} (minimum bid {min_bid}); bid with BID on the next weekend form.", lot_text(lot, lang)),
        ),
        _ => String::new(),
    }
}

fn engineers(ev: &MarketEvent, lang: Lang) -> String {
    match ev {
        MarketEvent::Engineers { paid, .. } => pick(
            lang,
            format!(
                "Ingenjörer köpta (kostade {}). De kan nu forska (FORSKA).",
                paid.describe(lang)
            ),
            format!(
                "Engineers bought (cost {}). They can now research (RESEARCH).",
                paid.describe(lang)
            ),
        ),
        MarketEvent::EngineersRefused { rule, why, .. } => pick(
            lang,
            format!("Inga ingenjörer — {} ({rule}).", why_text(why, lang)),
            format!("No engineers — {} ({rule}).", why_text(why, lang)),
        ),
        MarketEvent::ResearchRefused {
            kind, rule, why, ..
        } => pick(
            lang,
            format!(
                "Ingen forskning i {} — {} ({rule}).",
                researched(*kind, lang),
                why_text(why, lang)
            ),
            format!(
                "No research into {} — {} ({rule}).",
                researched(*kind, lang),
                why_text(why, lang)
            ),
        ),
        _ => String::new(),
    }
}

fn won(lot: &Lot, value: u64, paid: &Resources, lang: Lang) -> String {
    let what = lot_text(lot, lang);
    let paid = paid.describe(lang);
    match (lang, lot) {
        (Lang::Sv, Lot::Units { .. }) => format!(
            "De fria köpmännen: ditt bud (värt {value}) vann {what} för {paid}. Ange deras städer med PLACERA."
        ),
        (Lang::Sv, Lot::Other(_)) => format!(
            "De fria köpmännen: ditt bud (värt {value}) vann {what} för {paid}. SL lämnar över det."
        ),
        (Lang::Sv, _) => {
            format!("De fria köpmännen: ditt bud (värt {value}) vann {what} för {paid}.")
        }
        (Lang::En, Lot::Units { .. }) => format!(
            "Free merchants: your bid (worth {value}) won {what} for {paid}. Name their cities with PLACE."
        ),
        (Lang::En, Lot::Other(_)) => format!(
            "Free merchants: your bid (worth {value}) won {what} for {paid}. The GM hands it over."
        ),
        (Lang::En, _) => {
            format!("Free merchants: your bid (worth {value}) won {what} for {paid}.")
        }
    }
}

fn research(
    kind: Researched,
    forskare: u32,
    roll: u32,
    success: bool,
    cost: Option<&Resources>,
    lang: Lang,
) -> String {
    let what = researched(kind, lang);
    let total = forskare.saturating_add(roll);
    match (lang, success, cost) {
        (Lang::Sv, false, _) => format!(
            "Forskning i {what} misslyckades: Forskare {forskare} + T10 {roll} = {total}, behövde över 10 (en etta misslyckas alltid)."
        ),
        (Lang::Sv, true, Some(c)) => format!(
            "Forskning i {what} lyckades: Forskare {forskare} + T10 {roll} = {total}. De kan köpas från nästa helg för {} styck.",
            c.describe(lang)
        ),
        (Lang::Sv, true, None) => format!(
            "Forskning i {what} lyckades: Forskare {forskare} + T10 {roll} = {total}. SL meddelar priset."
        ),
        (Lang::En, false, _) => format!(
            "Research into {what} failed: Researcher {forskare} + d10 {roll} = {total}, needed over 10 (a 1 always fails)."
        ),
        (Lang::En, true, Some(c)) => format!(
            "Research into {what} succeeded: Researcher {forskare} + d10 {roll} = {total}. They can be bought from next weekend at {} each.",
            c.describe(lang)
        ),
        (Lang::En, true, None) => format!(
            "Research into {what} succeeded: Researcher {forskare} + d10 {roll} = {total}. The GM will announce the cost."
        ),
    }
}

/// The researched kind's name, e.g. `beridna bågskyttar`.
fn researched(kind: Researched, lang: Lang) -> &'static str {
    match kind {
        Researched::BeridnaBagskyttar => UnitKind::BeridnaBagskyttar.names(lang).1,
        Researched::Fregatt => ShipKind::Fregatt.names(lang).0,
    }
}

/// A lot as text, e.g. `10 järn` or `10 tunga kavallerister`.
pub fn lot_text(lot: &Lot, lang: Lang) -> String {
    match lot {
        Lot::Resource { resource, amount } => format!("{amount} {}", resource.name(lang)),
        Lot::Units { kind, count } => kind.count_text(*count as usize, lang),
        Lot::Other(t) => t.get(lang).to_string(),
    }
}

fn cap_name(cap: Cap, lang: Lang) -> &'static str {
    match (cap, lang) {
        (Cap::Population, Lang::Sv) => "befolkningstaket (befolkning/10)",
        (Cap::Population, Lang::En) => "the population cap (population/10)",
        (Cap::ArmyGroups, Lang::Sv) => "arméer (2 × Befälhavare)",
        (Cap::ArmyGroups, Lang::En) => "army groups (2 × Commander)",
        (Cap::Elementals, Lang::Sv) => "elementarer (3 × Besvärjare)",
        (Cap::Elementals, Lang::En) => "elementals (3 × Conjurer)",
        (Cap::Ships, Lang::Sv) => "skepp (5 × Amiral)",
        (Cap::Ships, Lang::En) => "ships (5 × Admiral)",
        (Cap::Spies, Lang::Sv) => "spioner (Informatör)",
        (Cap::Spies, Lang::En) => "spies (Informant)",
        (Cap::Walls, Lang::Sv) => "murtaket (befolkning/10)",
        (Cap::Walls, Lang::En) => "the wall cap (population/10)",
    }
}

fn why_text(why: &Why, lang: Lang) -> String {
    let p = |sv: String, en: String| pick(lang, sv, en);
    match why {
        Why::Short { cost, short } => p(
            format!(
                "lagret räcker inte: kostar {}, saknas {}",
                cost.describe(lang),
                short.describe(lang)
            ),
            format!(
                "the stock does not cover it: costs {}, short of {}",
                cost.describe(lang),
                short.describe(lang)
            ),
        ),
        Why::TooMany => p("för många".into(), "too many".into()),
        Why::Nothing => p("inget att placera".into(), "nothing to place".into()),
        Why::NoOffer => p(
            "de fria köpmännen erbjuder inget den här veckan".into(),
            "the free merchants offer nothing this week".into(),
        ),
        Why::BelowMinimum {
            value,
            min,
            offer,
            doubled,
            penalty,
        } => {
            let sum = crate::game::weekend::market::bid_sum(offer, *doubled, *penalty, lang);
            p(
                format!("budet är värt {value}{sum}; lotten kräver {min}"),
                format!("the bid is worth {value}{sum}; the lot needs {min}"),
            )
        }
        Why::Over {
            cap,
            have,
            add,
            limit,
        } => format!("{}: {have} + {add} > {limit}", cap_name(*cap, lang)),
        Why::NotOwnCity { city } => p(
            format!("{city} är inte din stad"),
            format!("{city} is not a city of yours"),
        ),
        Why::EvilOnly => p(
            "bara Ondskan har demoner".into(),
            "only the Evil has demons".into(),
        ),
        Why::NotWaiting { waiting } => p(
            format!("bara {waiting} av dem väntar på att placeras"),
            format!("only {waiting} of them wait to be placed"),
        ),
        _ => engineers_why(why, lang),
    }
}

fn engineers_why(why: &Why, lang: Lang) -> String {
    let p = |sv: String, en: String| pick(lang, sv, en);
    match why {
        Why::HasEngineers => p(
            "ni har redan ingenjörer".into(),
            "you already have engineers".into(),
        ),
        Why::EngineersPrice { paid, price } => p(
            format!(
                "de kostar {}, budet var {paid}",
                count(*price, "resurs", "resurser")
            ),
            format!(
                "they cost {}, the offer was {paid}",
                count(*price, "resource", "resources")
            ),
        ),
        Why::NeedsEngineers => p(
            "forskning kräver ingenjörer".into(),
            "research needs engineers".into(),
        ),
        Why::AlreadyResearched => p("redan utvecklad".into(), "already researched".into()),
        // The placement and auction reasons are `why_text`'s.
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::state::LocalText;
    use crate::game::{Resource, Square};

    fn gs() -> GameState {
        crate::game::load_scenario(include_str!("../../../scenarios/demo.yaml")).expect("demo")
    }

    fn sq(s: &str) -> Square {
        Square::parse(s).expect("square")
    }

    fn every_event() -> Vec<MarketEvent> {
        let r = || "Genogien".to_string();
        let cost = Resources::from_pairs(&[(Resource::Mat, 1), (Resource::Guld, 2)]);
        let whys = vec![
            Why::Short { cost, short: cost },
            Why::TooMany,
            Why::Nothing,
            Why::NoOffer,
            Why::BelowMinimum {
                value: 8,
                min: 10,
                offer: cost,
                doubled: true,
                penalty: 5,
            },
            Why::Over {
                cap: Cap::Population,
                have: 9,
                add: 10,
                limit: 12,
            },
            Why::NotOwnCity { city: sq("B2") },
            Why::NotWaiting { waiting: 3 },
            Why::HasEngineers,
            Why::EngineersPrice {
                paid: 20,
                price: 30,
            },
            Why::NeedsEngineers,
            Why::AlreadyResearched,
            Why::EvilOnly,
        ];
        let lots = vec![
            Lot::Resource {
                resource: Resource::Jarn,
                amount: 10,
            },
            Lot::Units {
                kind: UnitKind::TungtKavalleri,
                count: 10,
            },
            Lot::Other(LocalText {
                sv: "en karta".into(),
                en: "a map".into(),
            }),
        ];
        let mut out = Vec::new();
        for why in whys {
            out.push(MarketEvent::BidRefused {
                realm: r(),
                rule: "R-FREE-4".into(),
                why,
            });
        }
        for lot in lots {
            out.push(MarketEvent::Won {
                realm: r(),
                lot: lot.clone(),
                value: 12,
                paid: cost,
            });
            out.push(MarketEvent::Offer {
                round: 3,
                lot,
                min_bid: 10,
            });
        }
        for (success, c) in [(false, None), (true, Some(cost)), (true, None)] {
            for kind in [Researched::BeridnaBagskyttar, Researched::Fregatt] {
                out.push(MarketEvent::Research {
                    realm: r(),
                    kind,
                    forskare: 4,
                    roll: 7,
                    success,
                    cost: c,
                });
            }
        }
        out.extend([
            MarketEvent::Placed {
                realm: r(),
                count: 2,
                unit: UnitKind::Bagskyttar,
                city: sq("B2"),
                army: 3,
            },
            MarketEvent::PlaceRefused {
                realm: r(),
                count: 2,
                unit: UnitKind::Bagskyttar,
                city: sq("B2"),
                rule: "R-FREE-9".into(),
                why: Why::NotWaiting { waiting: 1 },
            },
            MarketEvent::Lost {
                realm: r(),
                value: 11,
            },
            MarketEvent::Engineers {
                realm: r(),
                paid: cost,
            },
            MarketEvent::EngineersRefused {
                realm: r(),
                rule: "R-FREE-7".into(),
                why: Why::HasEngineers,
            },
            MarketEvent::ResearchRefused {
                realm: r(),
                kind: Researched::Fregatt,
                rule: "R-ENG-1".into(),
                why: Why::NeedsEngineers,
            },
        ]);
        out
    }

    /// A rule ID in a player's report comes last, in parentheses, after words.
    #[test]
    fn every_market_events_rule_id_comes_last_in_parentheses() {
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
    fn every_market_event_reads_as_one_line_in_swedish_and_in_english() {
        let gs = gs();
        for ev in every_event() {
            let sv = lines(&ev, &gs, "Genogien", Lang::Sv);
            let en = lines(&ev, &gs, "Genogien", Lang::En);
            assert_eq!((sv.len(), en.len()), (1, 1), "{ev:?}");
            assert_ne!(sv, en, "{ev:?}");
            for l in sv.iter().chain(&en) {
                assert!(
                    !l.contains('{') && !l.contains("Some(") && !l.is_empty(),
                    "{l}"
                );
            }
        }
    }

    #[test]
    fn r_free_1_the_offer_names_the_lot_and_its_minimum_in_both_languages() {
        let ev = MarketEvent::Offer {
            round: 2,
            lot: Lot::Resource {
                resource: Resource::Jarn,
                amount: 10,
            },
            min_bid: 10,
        };
        let sv = lines(&ev, &gs(), "Genogien", Lang::Sv).join("");
        assert!(sv.contains("10 järn (lägsta bud 10)"), "{sv}");
        let en = lines(&ev, &gs(), "Genogien", Lang::En).join("");
        assert!(en.contains("10 iron (minimum bid 10)"), "{en}");
    }
}
