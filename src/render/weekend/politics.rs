//! The politics steps' events (the vote, the ruler's benefit, VP rewards, missions,
//! random events) as report lines, per language.

use std::collections::BTreeMap;

use crate::game::lang::count;
use crate::game::state::RulerBenefit;
use crate::game::weekend::politics::{Given, PoliticsEvent};
use crate::game::{GameState, Lang, UnitKind};

/// The lines `realm` reads about `ev`.
pub fn lines(ev: &PoliticsEvent, _gs: &GameState, _realm: &str, lang: Lang) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let pick = |s: String, e: String| if sv { s } else { e };
    let line = match ev {
        PoliticsEvent::Benefit {
            benefit,
            until_round,
            cities,
            ..
        } => benefit_line(*benefit, *until_round, *cities, lang),
        PoliticsEvent::NotApplied { order, rule, .. } => pick(
            format!("Ej utfört: {} ({rule}).", order.render(lang)),
            format!("Not carried out: {} ({rule}).", order.render(lang)),
        ),
        PoliticsEvent::Reward {
            threshold, reward, ..
        } => pick(
            format!(
                "Belöning för {threshold} segerpoäng: {}.",
                given(reward, lang)
            ),
            format!(
                "Reward for {threshold} victory points: {}.",
                given(reward, lang)
            ),
        ),
        PoliticsEvent::RewardOpen { thresholds, .. } => {
            let list: Vec<String> = thresholds.iter().map(i64::to_string).collect();
            let list = list.join(", ");
            pick(
                format!("Du har nått {list} segerpoäng: välj en belöning för varje med BELÖNING på formuläret (R-VP-4)."),
                format!("You have reached {list} victory points: choose a reward for each with REWARD on the form (R-VP-4)."),
            )
        }
        PoliticsEvent::Vote {
            realm,
            ballot,
            votes,
            cities,
            vp,
            winner,
        } => {
            let mut out = vote_lines(
                ballot.as_deref(),
                *votes,
                *cities,
                *vp,
                winner.as_deref(),
                lang,
            );
            if winner.as_deref() == Some(realm.as_str()) {
                out.push(ruler_line(lang));
            }
            return out;
        }
        PoliticsEvent::VoteDue { round, .. } => pick(
            format!("Omröstning i runda {round}: skriv RÖST och ett annat rikes namn på formuläret, annars −50 segerpoäng (R-VOTE-2)."),
            format!("A vote in round {round}: write VOTE and another realm's name on the form, or lose 50 victory points (R-VOTE-2)."),
        ),
        PoliticsEvent::Mission { text, .. } => pick(
            format!("Nytt uppdrag (hemligt): {text}"),
            format!("New mission (secret): {text}"),
        ),
        PoliticsEvent::MissionDone { mission, vp, .. } => pick(
            format!("Spelledaren har godkänt ditt uppdrag ({mission}): {vp:+} segerpoäng."),
            format!("The GM has judged your mission done ({mission}): {vp:+} victory points."),
        ),
        PoliticsEvent::Random { .. } => random_line(ev, lang),
    };
    vec![line]
}

/// R-RAND-1: the die (or the GM's choice), the text, and what was gained or lost.
fn random_line(ev: &PoliticsEvent, lang: Lang) -> String {
    let PoliticsEvent::Random {
        roll,
        good,
        text,
        resources,
        units,
        vp,
        by_gm,
        ..
    } = ev
    else {
        return String::new();
    };
    let sv = lang == Lang::Sv;
    let mut parts = Vec::new();
    if !resources.is_zero() {
        parts.push(resources.describe(lang));
    }
    if !units.is_empty() {
        parts.push(units_text(units, lang));
    }
    if *vp != 0 {
        let n = vp.unsigned_abs();
        parts.push(if sv {
            count(n, "segerpoäng", "segerpoäng")
        } else {
            count(n, "victory point", "victory points")
        });
    }
    let effect = match (parts.is_empty(), sv, *good) {
        (true, ..) => String::new(),
        (false, true, true) => format!(" Du vinner {}.", parts.join(", ")),
        (false, true, false) => format!(" Du förlorar {}.", parts.join(", ")),
        (false, false, true) => format!(" You gain {}.", parts.join(", ")),
        (false, false, false) => format!(" You lose {}.", parts.join(", ")),
    };
    let head = match (sv, *by_gm) {
        (true, false) => format!("Slumpen (T10 = {roll})"),
        (true, true) => "Slumpen (spelledarens val)".to_string(),
        (false, false) => format!("Chance (d10 = {roll})"),
        (false, true) => "Chance (the GM's choice)".to_string(),
    };
    format!("{head}: {}{effect}", text.get(lang).trim())
}

fn vote_lines(
    ballot: Option<&str>,
    votes: u32,
    cities: u32,
    vp: i64,
    winner: Option<&str>,
    lang: Lang,
) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let own = match (sv, ballot) {
        (true, Some(c)) => format!("Omröstning: du röstade på {c}"),
        (true, None) => "Omröstning: du röstade inte (−50 segerpoäng)".to_string(),
        (false, Some(c)) => format!("Vote: you voted for {c}"),
        (false, None) => "Vote: you did not vote (−50 victory points)".to_string(),
    };
    let got = if sv {
        format!(
            "{own}; du fick {} och har {} ({vp:+} segerpoäng).",
            count(votes, "röst", "röster"),
            count(cities, "stad", "städer")
        )
    } else {
        format!(
            "{own}; you received {} and hold {} ({vp:+} victory points).",
            count(votes, "vote", "votes"),
            count(cities, "city", "cities")
        )
    };
    let result = match (sv, winner) {
        (true, Some(w)) => format!("Flest röster fick {w}, som blir härskare och väljer en förmån med FÖRMÅN på nästa formulär."),
        (true, None) => "Ingen fick ensam flest röster: ingen härskare, ingen förmån.".to_string(),
        (false, Some(w)) => format!("Most votes went to {w}, who becomes ruler and chooses a benefit with BENEFIT on the next form."),
        (false, None) => "No realm alone got the most votes: no ruler, no benefit.".to_string(),
    };
    vec![got, result]
}

/// The winner's own line: the benefits to choose from, as the form takes them.
fn ruler_line(lang: Lang) -> String {
    match lang {
        Lang::Sv => "Du är härskare till nästa omröstning: skriv en av FÖRMÅN dubbla bud, FÖRMÅN först, FÖRMÅN fria spioner eller FÖRMÅN befolkning på ett formulär (R-VOTE-5).".to_string(),
        Lang::En => "You are the ruler until the next vote: write one of BENEFIT double bids, BENEFIT first, BENEFIT free spies or BENEFIT population on a form (R-VOTE-5).".to_string(),
    }
}

fn benefit_line(b: RulerBenefit, until: u32, cities: u32, lang: Lang) -> String {
    let last = until.saturating_sub(1);
    match (lang, b) {
        (Lang::Sv, RulerBenefit::DoubleBids) => format!("Härskarens förmån: dina bud till de fria köpmännen räknas dubbelt till och med runda {last}."),
        (Lang::En, RulerBenefit::DoubleBids) => format!("Ruler's benefit: your bids to the free merchants count double up to round {last}."),
        (Lang::Sv, RulerBenefit::MoveFirst) => format!("Härskarens förmån: dina arméer och flottor flyttar först till och med runda {last}."),
        (Lang::En, RulerBenefit::MoveFirst) => format!("Ruler's benefit: your armies and fleets move first up to round {last}."),
        (Lang::Sv, RulerBenefit::FreeSpies) => format!("Härskarens förmån: dina spioner skickas gratis till och med runda {last}."),
        (Lang::En, RulerBenefit::FreeSpies) => format!("Ruler's benefit: your spies are sent free up to round {last}."),
        (Lang::Sv, RulerBenefit::Population) => format!("Härskarens förmån: +10 befolkning i {}.", count(cities, "stad", "städer")),
        (Lang::En, RulerBenefit::Population) => format!("Ruler's benefit: +10 population in {}.", count(cities, "city", "cities")),
    }
}

fn given(g: &Given, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    match g {
        Given::Position { position, value } => {
            if sv {
                format!("{} är nu {value}", position.name(lang))
            } else {
                format!("{} is now {value}", position.name(lang))
            }
        }
        Given::Production {
            city,
            resource,
            value,
        } => {
            if sv {
                format!("{city} producerar nu {value} {}", resource.name(lang))
            } else {
                format!("{city} now produces {value} {}", resource.name(lang))
            }
        }
        Given::Resources { resources } => resources.describe(lang),
    }
}

/// `2 riddare, 1 bågskytt`.
fn units_text(units: &[UnitKind], lang: Lang) -> String {
    let mut n: BTreeMap<UnitKind, usize> = BTreeMap::new();
    for u in units {
        *n.entry(*u).or_default() += 1;
    }
    let parts: Vec<String> = n.iter().map(|(k, c)| k.count_text(*c, lang)).collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::orders::{Order, Reward};
    use crate::game::state::LocalText;
    use crate::game::{Position, Resource, Resources};

    fn gs() -> GameState {
        crate::game::load_scenario(include_str!("../../../scenarios/demo.yaml")).expect("demo")
    }

    fn every_event() -> Vec<PoliticsEvent> {
        let r = || "Genogien".to_string();
        let res = Resources::from_pairs(&[(Resource::Mat, 5), (Resource::Guld, 2)]);
        let mut out: Vec<PoliticsEvent> = [
            RulerBenefit::DoubleBids,
            RulerBenefit::MoveFirst,
            RulerBenefit::FreeSpies,
            RulerBenefit::Population,
        ]
        .into_iter()
        .map(|benefit| PoliticsEvent::Benefit {
            realm: r(),
            benefit,
            until_round: 8,
            cities: 3,
        })
        .collect();
        out.extend([
            PoliticsEvent::NotApplied {
                realm: r(),
                order: Order::VpReward {
                    reward: Reward::Position(Position::Amiral),
                },
                rule: "R-VP-4".into(),
            },
            PoliticsEvent::RewardOpen {
                realm: r(),
                thresholds: vec![500, 1000],
            },
            PoliticsEvent::VoteDue {
                realm: r(),
                round: 4,
            },
            PoliticsEvent::Mission {
                realm: r(),
                text: "Ta B2.".into(),
            },
            PoliticsEvent::MissionDone {
                realm: r(),
                mission: "Ta B2.".into(),
                vp: 300,
            },
        ]);
        for reward in [
            Given::Position {
                position: Position::Amiral,
                value: 4,
            },
            Given::Production {
                city: "B2".parse().unwrap(),
                resource: Resource::Mat,
                value: 3,
            },
            Given::Resources { resources: res },
        ] {
            out.push(PoliticsEvent::Reward {
                realm: r(),
                threshold: 500,
                reward,
            });
        }
        for (ballot, winner) in [(Some("Afani"), Some("Afani")), (None, None)] {
            out.push(PoliticsEvent::Vote {
                realm: r(),
                ballot: ballot.map(str::to_string),
                votes: 1,
                cities: 2,
                vp: 20,
                winner: winner.map(str::to_string),
            });
        }
        for (good, by_gm) in [(true, false), (false, true)] {
            out.push(PoliticsEvent::Random {
                realm: r(),
                roll: if good { 1 } else { 10 },
                good,
                text: LocalText {
                    sv: "Legosoldater.".into(),
                    en: "Mercenaries.".into(),
                },
                resources: res,
                units: vec![UnitKind::TungtKavalleri, UnitKind::TungtKavalleri],
                vp: 25,
                by_gm,
            });
        }
        out
    }

    /// A rule ID in a player's report comes last, in parentheses, after words.
    #[test]
    fn every_politics_events_rule_id_comes_last_in_parentheses() {
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
    fn every_politics_event_reads_in_swedish_and_in_english() {
        let gs = gs();
        for ev in every_event() {
            let sv = lines(&ev, &gs, "Genogien", Lang::Sv);
            let en = lines(&ev, &gs, "Genogien", Lang::En);
            assert_ne!(sv, en, "{ev:?}");
            for l in sv.iter().chain(en.iter()) {
                assert!(
                    !l.is_empty()
                        && !l.contains('{')
                        && !l.contains("Some(")
                        && !l.contains("None"),
                    "{l}"
                );
            }
        }
    }

    #[test]
    fn r_rand_1_the_report_tells_the_die_the_text_and_what_was_lost() {
        let ev = PoliticsEvent::Random {
            realm: "Genogien".into(),
            roll: 10,
            good: false,
            text: LocalText {
                sv: "Stormen.".into(),
                en: "The storm.".into(),
            },
            resources: Resources::from_pairs(&[(Resource::Mat, 3)]),
            units: vec![UnitKind::LattInfanteri],
            vp: -30,
            by_gm: false,
        };
        let en = lines(&ev, &gs(), "Genogien", Lang::En);
        assert_eq!(
            en,
            vec![format!(
                "Chance (d10 = 10): The storm. You lose {}, {}, 30 victory points.",
                Resources::from_pairs(&[(Resource::Mat, 3)]).describe(Lang::En),
                UnitKind::LattInfanteri.count_text(1, Lang::En)
            )]
        );
    }

    #[test]
    fn r_vote_3_the_report_tells_the_votes_received_and_the_winner() {
        let ev = PoliticsEvent::Vote {
            realm: "Genogien".into(),
            ballot: Some("Afani".into()),
            votes: 2,
            cities: 3,
            vp: 130,
            winner: Some("Kaldor".into()),
        };
        let en = lines(&ev, &gs(), "Genogien", Lang::En);
        assert_eq!(
            en[0],
            "Vote: you voted for Afani; you received 2 votes and hold 3 cities (+130 victory points)."
        );
        assert!(en[1].starts_with("Most votes went to Kaldor"), "{}", en[1]);
        let sv = lines(&ev, &gs(), "Genogien", Lang::Sv);
        assert!(sv[0].contains("du fick 2 röster"), "{}", sv[0]);
        assert_eq!(en.len(), 2, "no ruler line for another realm");
        let mine = PoliticsEvent::Vote {
            realm: "Kaldor".into(),
            ballot: None,
            votes: 3,
            cities: 1,
            vp: 110,
            winner: Some("Kaldor".into()),
        };
        let en = lines(&mine, &gs(), "Kaldor", Lang::En);
        assert!(en[2].starts_with("You are the ruler"), "{}", en[2]);
    }
}
