//! The economy steps' events as report lines, per language.

use crate::game::lang::count;
use crate::game::weekend::economy::{Cap, EconomyEvent, Purchase, Why};
use crate::game::{GameState, Lang, Resources};

/// The lines `realm` reads about `ev`.
pub fn lines(ev: &EconomyEvent, _gs: &GameState, realm: &str, lang: Lang) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let pick = |s: String, e: String| if sv { s } else { e };
    let line = match ev {
        EconomyEvent::Bought { purchase, cost, .. } => pick(
            format!("Köpt: {} (kostade {}).", purchase_text(purchase, lang), cost.describe(lang)),
            format!("Bought: {} (cost {}).", purchase_text(purchase, lang), cost.describe(lang)),
        ),
        EconomyEvent::Refused {
            order, rule, why, ..
        } => pick(
            format!("Ej utfört: {} — {} ({rule}).", order.render(lang), why_text(why, lang)),
            format!("Not carried out: {} — {} ({rule}).", order.render(lang), why_text(why, lang)),
        ),
        EconomyEvent::Produced {
            resources, idle, ..
        } => produced(resources, idle, lang),
        EconomyEvent::SlaveRevolt {
            slaves,
            produced,
            army_units,
            lost,
            ..
        } => pick(
            format!(
                "Slavuppror: {} mot {} — alla slavar ({} producerade i helgen) är borta och tog med sig {}.",
                count(*slaves, "slav", "slavar"),
                count(*army_units, "arméenhet", "arméenheter"),
                produced,
                lost.describe(lang)
            ),
            format!(
                "Slave revolt: {} against {} — every slave ({} produced this weekend) is gone and took {} along.",
                count(*slaves, "slave", "slaves"),
                count(*army_units, "army unit", "army units"),
                produced,
                lost.describe(lang)
            ),
        ),
        EconomyEvent::Overflow {
            cap,
            have,
            limit,
            disbanded,
            ..
        } => overflow(*cap, *have, *limit, *disbanded, lang),
        EconomyEvent::Relation { other, friend, .. } => match (sv, friend) {
            (true, true) => format!("Relationer: {other} är nu vän."),
            (true, false) => format!("Relationer: {other} är inte längre vän."),
            (false, true) => format!("Relations: {other} is now a friend."),
            (false, false) => format!("Relations: {other} is no longer a friend."),
        },
        EconomyEvent::Capital { city, stand_in, .. } => match (sv, stand_in) {
            (true, false) => format!("Ny huvudstad: {city}."),
            (true, true) => format!("Huvudstaden är förlorad; {city} är huvudstad tills du väljer en ny (HUVUDSTAD)."),
            (false, false) => format!("New capital: {city}."),
            (false, true) => format!("The capital is lost; {city} stands in until you name a new one (CAPITAL)."),
        },
        EconomyEvent::MainHarbour { city, stand_in, .. } => match (sv, stand_in) {
            (true, false) => format!("Ny huvudhamn: {city}."),
            (true, true) => format!("Huvudhamnen är förlorad; {city} är huvudhamn tills du väljer en ny (HUVUDHAMN)."),
            (false, false) => format!("New main harbour: {city}."),
            (false, true) => format!("The main harbour is lost; {city} stands in until you name a new one (HARBOUR)."),
        },
        EconomyEvent::TradeWishes { buy, sell, .. } => {
            let list = |v: &[crate::game::Resource]| {
                let names: Vec<&str> = v.iter().map(|r| r.name(lang)).collect();
                if names.is_empty() {
                    "-".to_string()
                } else {
                    names.join(", ")
                }
            };
            pick(
                format!("Önskelista: köper {}, säljer {}.", list(buy), list(sell)),
                format!("Wish list: buys {}, sells {}.", list(buy), list(sell)),
            )
        }
        EconomyEvent::Vp { before, after, .. } => {
            let diff = after - before;
            pick(
                format!("Segerpoäng: {before} → {after} ({diff:+})."),
                format!("Victory points: {before} → {after} ({diff:+})."),
            )
        }
        EconomyEvent::SecretBonus {
            position,
            value,
            text,
            ..
        } => pick(
            format!("Hemlig fördel ({} {value}): {text}", position.name(lang)),
            format!("Secret advantage ({} {value}): {text}", position.name(lang)),
        ),
        EconomyEvent::Victory { realm: winner, vp } => match (sv, winner == realm) {
            (true, true) => format!("Seger! Du har {vp} segerpoäng och har vunnit spelet."),
            (true, false) => format!("{winner} har vunnit spelet med {vp} segerpoäng."),
            (false, true) => format!("Victory! You have {vp} victory points and have won the game."),
            (false, false) => format!("{winner} has won the game with {vp} victory points."),
        },
    };
    vec![line]
}

/// The GM's line for what the weekend left to the GM (R-POS-3: a secret bonus whose
/// effect the GM applies), or `None`.
pub fn gm_line(ev: &EconomyEvent, lang: Lang) -> Option<String> {
    match ev {
        EconomyEvent::SecretBonus {
            realm,
            position,
            value,
            text,
        } => Some(match lang {
            Lang::Sv => format!(
                "{realm} har nått {} {value} och har den hemliga fördelen: {text} (verkan tillämpas av spelledaren).",
                position.name(lang)
            ),
            Lang::En => format!(
                "{realm} has reached {} {value} and holds the secret advantage: {text} (its effect is the GM's to apply).",
                position.name(lang)
            ),
        }),
        _ => None,
    }
}

fn purchase_text(p: &Purchase, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    match p {
        Purchase::Units {
            count: n,
            unit,
            city,
            army,
        } => {
            let what = unit.count_text(*n as usize, lang);
            if sv {
                format!("{what} i {city} (armé {army})")
            } else {
                format!("{what} in {city} (army {army})")
            }
        }
        Purchase::Ships {
            count: n,
            ship,
            city,
            fleet,
        } => {
            let what = ship.count_text(*n as usize, lang);
            if sv {
                format!("{what} i {city} (flotta {fleet})")
            } else {
                format!("{what} in {city} (fleet {fleet})")
            }
        }
        Purchase::Spies { count: n } => {
            if sv {
                count(*n, "spion", "spioner")
            } else {
                count(*n, "spy", "spies")
            }
        }
        Purchase::Walls { count: n, city } => {
            if sv {
                format!("{} i {city}", count(*n, "mur", "murar"))
            } else {
                format!("{} in {city}", count(*n, "wall", "walls"))
            }
        }
        Purchase::City { square, production } => {
            if sv {
                format!(
                    "ny stad i {square} (producerar {})",
                    production.describe(lang)
                )
            } else {
                format!(
                    "a new city in {square} (produces {})",
                    production.describe(lang)
                )
            }
        }
        Purchase::Population {
            count: n,
            city,
            population,
        } => {
            let add = n.saturating_mul(10);
            if sv {
                format!("+{add} befolkning i {city} (nu {population})")
            } else {
                format!("+{add} population in {city} (now {population})")
            }
        }
        Purchase::Position { position, value } => {
            if sv {
                format!("{} +1 (nu {value})", position.name(lang))
            } else {
                format!("{} +1 (now {value})", position.name(lang))
            }
        }
        Purchase::Production {
            city,
            resource,
            value,
        } => {
            if sv {
                format!(
                    "produktion av {} i {city} +1 (nu {value})",
                    resource.name(lang)
                )
            } else {
                format!(
                    "{} production in {city} +1 (now {value})",
                    resource.name(lang)
                )
            }
        }
        Purchase::SlavesConverted { count: n, resource } => {
            if sv {
                format!(
                    "{} omvandlade till {}",
                    count(*n, "slav", "slavar"),
                    resource.name(lang)
                )
            } else {
                format!(
                    "{} converted to {}",
                    count(*n, "slave", "slaves"),
                    resource.name(lang)
                )
            }
        }
    }
}

fn cap_name(cap: Cap, lang: Lang) -> &'static str {
    match (cap, lang) {
        (Cap::Population, Lang::Sv) => "befolkningstaket (räknade enheter)",
        (Cap::Population, Lang::En) => "the population cap (counted units)",
        (Cap::Ships, Lang::Sv) => "skeppstaket (5 × Amiral)",
        (Cap::Ships, Lang::En) => "the ship cap (5 × Admiral)",
        (Cap::ArmyGroups, Lang::Sv) => "armétaket (2 × Befälhavare)",
        (Cap::ArmyGroups, Lang::En) => "the army-group cap (2 × Commander)",
        (Cap::Elementals, Lang::Sv) => "elementartaket (3 × Besvärjare)",
        (Cap::Elementals, Lang::En) => "the elemental cap (3 × Conjurer)",
        (Cap::Spies, Lang::Sv) => "spiontaket (Informatör)",
        (Cap::Spies, Lang::En) => "the spy cap (Informant)",
        (Cap::Walls, Lang::Sv) => "murtaket (befolkning/10)",
        (Cap::Walls, Lang::En) => "the wall cap (population/10)",
    }
}

fn why_text(why: &Why, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    let pick = |s: String, e: String| if sv { s } else { e };
    match why {
        Why::Short { cost, short } => pick(
            format!(
                "lagret räcker inte längre: kostar {}, saknas {}",
                cost.describe(lang),
                short.describe(lang)
            ),
            format!(
                "the stock no longer covers it: costs {}, short of {}",
                cost.describe(lang),
                short.describe(lang)
            ),
        ),
        Why::TooMany => pick("för många".into(), "too many".into()),
        Why::Nothing => pick("inget att köpa".into(), "nothing to buy".into()),
        Why::NotOwnCity { city } => pick(
            format!("{city} är inte längre din stad"),
            format!("{city} is no longer a city of yours"),
        ),
        Why::NotCoastal { city } => pick(
            format!("{city} ligger inte vid kusten"),
            format!("{city} is not coastal"),
        ),
        Why::NoCity => pick(
            "ingen stad att placera i".into(),
            "no city to place it in".into(),
        ),
        Why::NotOwnLand { square } => pick(
            format!("{square} är inte egen mark"),
            format!("{square} is not your own land"),
        ),
        Why::CityThere { square } => pick(
            format!("det finns redan en stad på {square}"),
            format!("there is already a city on {square}"),
        ),
        Why::BadProduction => pick(
            "10 produktionspoäng, högst 5 per standardresurs".into(),
            "10 production points, at most 5 per standard resource".into(),
        ),
        Why::Over {
            cap,
            have,
            add,
            limit,
        } => pick(
            format!("{}: {have} + {add} > {limit}", cap_name(*cap, lang)),
            format!("{}: {have} + {add} > {limit}", cap_name(*cap, lang)),
        ),
        Why::OneStep => pick("högst +1 per runda".into(), "at most +1 a round".into()),
        Why::StepLimit { limit } => pick(
            format!("högst {limit} uppgraderingssteg per runda (Forskare)"),
            format!(
                "at most {} a round (Researcher)",
                count(*limit, "upgrade step", "upgrade steps")
            ),
        ),
        Why::NotProduced { resource } => pick(
            format!(
                "slavar blir bara en vanlig resurs du producerar, inte {}",
                resource.name(lang)
            ),
            format!(
                "slaves become only an ordinary resource you produce, not {}",
                resource.name(lang)
            ),
        ),
        Why::NotAvailable => pick("går inte att köpa".into(), "cannot be bought".into()),
        Why::EvilOnly => pick(
            "bara Ondskan har demoner".into(),
            "only the Evil has demons".into(),
        ),
        Why::DemonsOnly => pick(
            "Ondskan bygger bara demoner".into(),
            "the Evil builds nothing but demons".into(),
        ),
    }
}

fn produced(resources: &Resources, idle: &[crate::game::Square], lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    let mut s = if sv {
        format!("Produktion: {}.", resources.describe(lang))
    } else {
        format!("Production: {}.", resources.describe(lang))
    };
    if !idle.is_empty() {
        let list: Vec<String> = idle.iter().map(|c| c.to_string()).collect();
        if sv {
            s.push_str(&format!(
                " Plundrade, ingen produktion: {}.",
                list.join(", ")
            ));
        } else {
            s.push_str(&format!(
                " Plundered, nothing produced: {}.",
                list.join(", ")
            ));
        }
    }
    s
}

fn overflow(cap: Cap, have: u32, limit: u32, disbanded: u32, lang: Lang) -> String {
    let name = cap_name(cap, lang);
    match lang {
        Lang::Sv if disbanded > 0 => format!(
            "Arméöverflöd: {have} där {name} tillåter {limit}; {} upplösta.",
            count(disbanded, "enhet", "enheter")
        ),
        Lang::Sv => format!(
            "Varning, arméöverflöd: {have} där {name} tillåter {limit}. Inget nytt av det slaget kan köpas förrän du är under taket."
        ),
        Lang::En if disbanded > 0 => format!(
            "Army overflow: {have} where {name} allows {limit}; {} disbanded.",
            count(disbanded, "unit", "units")
        ),
        Lang::En => format!(
            "Warning, army overflow: {have} where {name} allows {limit}. Nothing more of the kind can be bought until you are under the cap."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::orders::Order;
    use crate::game::{Position, Resource, ShipKind, Square, UnitKind};

    fn gs() -> GameState {
        crate::game::load_scenario(include_str!("../../../scenarios/demo.yaml")).expect("demo")
    }

    fn sq(s: &str) -> Square {
        Square::parse(s).expect("square")
    }

    fn one(ev: &EconomyEvent, lang: Lang) -> String {
        let lines = lines(ev, &gs(), "Genogien", lang);
        assert_eq!(lines.len(), 1, "{lines:?}");
        lines.into_iter().next().unwrap_or_default()
    }

    fn every_event() -> Vec<EconomyEvent> {
        let r = || "Genogien".to_string();
        let cost = Resources::from_pairs(&[(Resource::Mat, 1), (Resource::Guld, 2)]);
        let purchases = vec![
            Purchase::Units {
                count: 2,
                unit: UnitKind::Bagskyttar,
                city: sq("B2"),
                army: 1,
            },
            Purchase::Ships {
                count: 1,
                ship: ShipKind::Galeas,
                city: sq("D2"),
                fleet: 2,
            },
            Purchase::Spies { count: 1 },
            Purchase::Walls {
                count: 2,
                city: sq("B2"),
            },
            Purchase::City {
                square: sq("C3"),
                production: cost,
            },
            Purchase::Population {
                count: 1,
                city: sq("B2"),
                population: 70,
            },
            Purchase::Position {
                position: Position::Amiral,
                value: 4,
            },
            Purchase::Production {
                city: sq("B2"),
                resource: Resource::Tyg,
                value: 1,
            },
            Purchase::SlavesConverted {
                count: 3,
                resource: Resource::Mat,
            },
        ];
        let whys = vec![
            Why::Short { cost, short: cost },
            Why::TooMany,
            Why::Nothing,
            Why::NotOwnCity { city: sq("B2") },
            Why::NotCoastal { city: sq("C4") },
            Why::NoCity,
            Why::NotOwnLand { square: sq("E5") },
            Why::CityThere { square: sq("B2") },
            Why::BadProduction,
            Why::Over {
                cap: Cap::Walls,
                have: 6,
                add: 1,
                limit: 6,
            },
            Why::OneStep,
            Why::StepLimit { limit: 1 },
            Why::NotProduced {
                resource: Resource::Eld,
            },
            Why::NotAvailable,
            Why::EvilOnly,
            Why::DemonsOnly,
        ];
        let mut out: Vec<EconomyEvent> = purchases
            .into_iter()
            .map(|purchase| EconomyEvent::Bought {
                realm: r(),
                purchase,
                cost,
            })
            .collect();
        out.extend(whys.into_iter().map(|why| EconomyEvent::Refused {
            realm: r(),
            order: Order::BuySpies { count: 1 },
            rule: "R-BUILD-4".into(),
            why,
        }));
        out.extend([
            EconomyEvent::Produced {
                realm: r(),
                resources: cost,
                idle: vec![sq("B2")],
            },
            EconomyEvent::SlaveRevolt {
                realm: r(),
                slaves: 30,
                produced: 3,
                army_units: 22,
                lost: cost,
            },
            EconomyEvent::Overflow {
                realm: r(),
                cap: Cap::Ships,
                have: 7,
                limit: 5,
                disbanded: 2,
            },
            EconomyEvent::Overflow {
                realm: r(),
                cap: Cap::Population,
                have: 7,
                limit: 5,
                disbanded: 0,
            },
            EconomyEvent::Relation {
                realm: r(),
                other: "Afani".into(),
                friend: true,
            },
            EconomyEvent::Relation {
                realm: r(),
                other: "Afani".into(),
                friend: false,
            },
            EconomyEvent::Capital {
                realm: r(),
                city: sq("B2"),
                stand_in: false,
            },
            EconomyEvent::Capital {
                realm: r(),
                city: sq("B2"),
                stand_in: true,
            },
            EconomyEvent::MainHarbour {
                realm: r(),
                city: sq("D2"),
                stand_in: false,
            },
            EconomyEvent::MainHarbour {
                realm: r(),
                city: sq("D2"),
                stand_in: true,
            },
            EconomyEvent::TradeWishes {
                realm: r(),
                buy: vec![Resource::Mat],
                sell: vec![],
            },
            EconomyEvent::Vp {
                realm: r(),
                before: 300,
                after: 250,
            },
            EconomyEvent::Victory {
                realm: r(),
                vp: 2000,
            },
            EconomyEvent::Victory {
                realm: "Afani".into(),
                vp: 2000,
            },
            EconomyEvent::SecretBonus {
                realm: r(),
                position: crate::game::Position::Amiral,
                value: 11,
                text: "Dina skepp seglar ett steg längre i egna vatten.".into(),
            },
        ]);
        out
    }

    /// A rule ID in a player's report comes last, in parentheses, after words.
    #[test]
    fn every_economy_events_rule_id_comes_last_in_parentheses() {
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
    fn every_economy_event_reads_as_one_line_in_swedish_and_in_english() {
        for ev in every_event() {
            let (sv, en) = (one(&ev, Lang::Sv), one(&ev, Lang::En));
            assert_ne!(sv, en, "{ev:?}");
            for l in [&sv, &en] {
                assert!(
                    !l.contains('{') && !l.contains("Some(") && !l.is_empty(),
                    "{l}"
                );
            }
        }
    }

    #[test]
    fn r_res_7_the_worked_example_reads_as_the_rulebook_tells_it() {
        let lost = Resources::from_pairs(&[
            (Resource::Mat, 2),
            (Resource::Tyg, 2),
            (Resource::Timmer, 2),
            (Resource::Jarn, 2),
            (Resource::Guld, 1),
            (Resource::Hastar, 1),
            (Resource::Sten, 1),
        ]);
        let ev = EconomyEvent::SlaveRevolt {
            realm: "Genogien".into(),
            slaves: 30,
            produced: 3,
            army_units: 22,
            lost,
        };
        let sv = one(&ev, Lang::Sv);
        assert!(
            sv.starts_with("Slavuppror: 30 slavar mot 22 arméenheter"),
            "{sv}"
        );
        assert!(sv.contains(&lost.describe(Lang::Sv)), "{sv}");
        let en = one(&ev, Lang::En);
        assert!(
            en.starts_with("Slave revolt: 30 slaves against 22 army units"),
            "{en}"
        );
    }

    #[test]
    fn counts_agree_with_their_nouns_in_both_languages() {
        let spies = |count| EconomyEvent::Bought {
            realm: "Genogien".into(),
            purchase: Purchase::Spies { count },
            cost: Resources::ZERO,
        };
        assert!(
            one(&spies(1), Lang::Sv).contains("1 spion "),
            "{}",
            one(&spies(1), Lang::Sv)
        );
        assert!(one(&spies(2), Lang::Sv).contains("2 spioner"));
        assert!(one(&spies(1), Lang::En).contains("1 spy "));
        assert!(one(&spies(2), Lang::En).contains("2 spies"));
        let walls = |count| EconomyEvent::Bought {
            realm: "Genogien".into(),
            purchase: Purchase::Walls {
                count,
                city: sq("B2"),
            },
            cost: Resources::ZERO,
        };
        assert!(one(&walls(1), Lang::Sv).contains("1 mur i B2"));
        assert!(one(&walls(3), Lang::En).contains("3 walls in B2"));
    }

    #[test]
    fn a_refused_purchase_quotes_the_order_and_cites_the_rule() {
        let ev = EconomyEvent::Refused {
            realm: "Genogien".into(),
            order: Order::BuySpies { count: 2 },
            rule: "R-BUILD-4".into(),
            why: Why::Short {
                cost: Resources::from_pairs(&[(Resource::Guld, 10)]),
                short: Resources::from_pairs(&[(Resource::Guld, 3)]),
            },
        };
        let sv = one(&ev, Lang::Sv);
        assert!(
            sv.contains(&Order::BuySpies { count: 2 }.render(Lang::Sv)),
            "{sv}"
        );
        assert!(
            sv.contains("(R-BUILD-4)") && sv.contains("saknas 3 guld"),
            "{sv}"
        );
        let en = one(&ev, Lang::En);
        assert!(en.contains("short of 3 gold"), "{en}");
    }

    #[test]
    fn r_pos_3_the_realm_reads_its_secret_advantage_and_the_gm_what_to_apply() {
        let ev = EconomyEvent::SecretBonus {
            realm: "Genogien".into(),
            position: crate::game::Position::Befalhavare,
            value: 11,
            text: "En gång per runda får en armé flytta efter strid.".into(),
        };
        assert_eq!(
            one(&ev, Lang::Sv),
            "Hemlig fördel (Befälhavare 11): En gång per runda får en armé flytta efter strid."
        );
        assert!(one(&ev, Lang::En).starts_with("Secret advantage (Commander 11): "));
        let gm = gm_line(&ev, Lang::Sv).expect("the GM is told");
        assert!(gm.starts_with("Genogien har nått Befälhavare 11"), "{gm}");
        assert!(gm.contains("flytta efter strid"), "{gm}");
        assert!(gm_line(&ev, Lang::En).is_some_and(|l| l.contains("the GM's to apply")));
        let vp = EconomyEvent::Vp {
            realm: "Genogien".into(),
            before: 1,
            after: 2,
        };
        assert_eq!(gm_line(&vp, Lang::Sv), None, "only what is the GM's to do");
    }

    #[test]
    fn the_winner_reads_its_own_victory_and_the_others_read_its_name() {
        let ev = EconomyEvent::Victory {
            realm: "Genogien".into(),
            vp: 2010,
        };
        assert!(one(&ev, Lang::Sv).starts_with("Seger!"));
        let lines = lines(&ev, &gs(), "Afani", Lang::En);
        assert_eq!(
            lines,
            vec!["Genogien has won the game with 2010 victory points.".to_string()]
        );
    }
}
