//! A battle as text and as JSON: the round-by-round report a realm reads (Swedish or
//! English), and the calculator's JSON document. Pure: takes a `combat::Outcome`,
//! returns text.

use serde_json::{json, Value};

use crate::game::combat::{Outcome, Winner};
use crate::game::text::capitalise;
use crate::game::Lang;

/// The report of one battle, one line per phase and round.
pub fn report(o: &Outcome, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    let mut out = String::new();
    let p = &o.pre_battle;
    let (a_word, d_word) = if sv {
        ("anfallaren", "försvararen")
    } else {
        ("the attacker", "the defender")
    };
    if p.attacker_archers > 0 || p.defender_archers > 0 {
        out.push_str(&if sv {
            format!(
                "Före striden: anfallaren {} bågskyttar/galeaser, försvararen {}.",
                p.attacker_archers, p.defender_archers
            )
        } else {
            format!(
                "Before the battle: the attacker {} archers/galleasses, the defender {}.",
                p.attacker_archers, p.defender_archers
            )
        });
        if p.walls_protected {
            out.push_str(if sv {
                " Murarna skyddar försvararen."
            } else {
                " The walls shield the defender."
            });
        }
        for (who, n) in [(a_word, p.attacker_losses), (d_word, p.defender_losses)] {
            if n > 0 {
                out.push_str(&if sv {
                    format!(" {} förlorar {n}.", capitalise(who))
                } else {
                    format!(" {} loses {n}.", capitalise(who))
                });
            }
        }
        out.push('\n');
    }
    if p.walls_removed > 0 {
        out.push_str(&if sv {
            format!(
                "Belägringstorn river {} {}.\n",
                p.walls_removed,
                if p.walls_removed == 1 { "mur" } else { "murar" }
            )
        } else {
            format!(
                "Siege towers bring down {} {}.\n",
                p.walls_removed,
                if p.walls_removed == 1 {
                    "wall"
                } else {
                    "walls"
                }
            )
        });
    }
    if o.undefended_city {
        out.push_str(if sv {
            "Staden har inga arméenheter och försvarar sig med befolkningen/10.\n"
        } else {
            "The city has no army units and defends itself with population/10.\n"
        });
    }
    for (i, r) in o.rounds.iter().enumerate() {
        let n = i + 1;
        out.push_str(&if sv {
            format!(
                "Runda {n}: anfall {} + {} = {}, försvar {} + {} = {}; förluster: anfallaren {}, försvararen {}\n",
                r.attacker_value, r.attacker_roll, r.attacker_total,
                r.defender_value, r.defender_roll, r.defender_total,
                r.attacker_losses, r.defender_losses
            )
        } else {
            format!(
                "Round {n}: attack {} + {} = {}, defence {} + {} = {}; losses: attacker {}, defender {}\n",
                r.attacker_value, r.attacker_roll, r.attacker_total,
                r.defender_value, r.defender_roll, r.defender_total,
                r.attacker_losses, r.defender_losses
            )
        });
    }
    out.push_str(match (o.winner, sv) {
        (Winner::Attacker, true) => "Anfallaren vann.\n",
        (Winner::Attacker, false) => "The attacker won.\n",
        (Winner::Defender, true) => "Försvararen höll stånd.\n",
        (Winner::Defender, false) => "The defender held.\n",
        (Winner::None, true) => {
            "Ingen vann: rundgränsen nåddes och anfallaren drar sig tillbaka.\n"
        }
        (Winner::None, false) => {
            "Nobody won: the round limit was reached and the attacker withdraws.\n"
        }
    });
    for (who, line) in [(a_word, &o.attacker_left), (d_word, &o.defender_left)] {
        let left = line.describe(lang);
        let left = if left.is_empty() {
            (if sv { "inget" } else { "nothing" }).to_string()
        } else {
            left.join(", ")
        };
        out.push_str(&if sv {
            format!("Kvar hos {who}: {left}\n")
        } else {
            format!("Left to {who}: {left}\n")
        });
    }
    if o.walls_left > 0 {
        out.push_str(&if sv {
            format!("Murar kvar: {}\n", o.walls_left)
        } else {
            format!("Walls left: {}\n", o.walls_left)
        });
    }
    out
}

/// The calculator's JSON document (the `pbemd battle --json` contract).
pub fn json(o: &Outcome, lang: Lang) -> Value {
    let rounds: Vec<Value> = o
        .rounds
        .iter()
        .map(|r| {
            json!({
                "attacker_value": r.attacker_value,
                "defender_value": r.defender_value,
                "attacker_roll": r.attacker_roll,
                "defender_roll": r.defender_roll,
                "attacker_total": r.attacker_total,
                "defender_total": r.defender_total,
                "attacker_losses": r.attacker_losses,
                "defender_losses": r.defender_losses,
            })
        })
        .collect();
    let p = &o.pre_battle;
    json!({
        "pre_battle": {
            "attacker_losses": p.attacker_losses,
            "defender_losses": p.defender_losses,
            "walls_removed": p.walls_removed,
            "attacker_archers": p.attacker_archers,
            "defender_archers": p.defender_archers,
            "walls_protected": p.walls_protected,
        },
        "rounds": rounds,
        "winner": o.winner,
        "attacker_left": o.attacker_left.describe(lang),
        "defender_left": o.defender_left.describe(lang),
        "walls_left": o.walls_left,
        "undefended_city": o.undefended_city,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::combat::{fight, parse_line, Battle};
    use crate::game::dice::Dice;

    fn example() -> Outcome {
        let b = Battle {
            attacker: parse_line("5 bågskyttar, 2 veteran", false).unwrap(),
            attacker_bonus: 3,
            attacker_support: 0,
            defender: parse_line("2 bågskyttar, 4 tungt infanteri", false).unwrap(),
            defender_bonus: 1,
            walls: 0,
            city_population: None,
            naval: false,
            max_rounds: 50,
        };
        fight(&b, &mut Dice::scripted("t", &[20, 1, 20, 1, 20, 1]))
    }

    #[test]
    fn the_battle_report_tells_the_rolls_totals_and_losses_in_each_language() {
        let o = example();
        let sv = report(&o, Lang::Sv);
        assert!(
            sv.contains("Runda 1: anfall 16 + 20 = 36, försvar 5 + 1 = 6"),
            "{sv}"
        );
        assert!(sv.contains("Försvararen förlorar 3."), "{sv}");
        assert!(sv.contains("Anfallaren vann."), "{sv}");
        let en = report(&o, Lang::En);
        assert!(
            en.contains("Round 1: attack 16 + 20 = 36, defence 5 + 1 = 6"),
            "{en}"
        );
        assert!(en.contains("The attacker won."), "{en}");
        assert!(en.contains("Left to the defender: nothing"), "{en}");
    }

    #[test]
    fn the_battle_json_has_the_calculator_fields() {
        let v = json(&example(), Lang::En);
        assert_eq!(v["pre_battle"]["defender_losses"], 3);
        assert_eq!(v["rounds"][0]["attacker_total"], 36);
        assert_eq!(v["winner"], "attacker");
        assert_eq!(v["attacker_left"][0], "5 archers");
        assert_eq!(v["defender_left"].as_array().unwrap().len(), 0);
    }
}
