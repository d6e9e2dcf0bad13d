//! One battle, resolved: the pre-battle phase (archers on land, galleasses at sea),
//! siege towers against walls, then d20 rounds with `floor(diff/5)` losses taken from
//! the tail of each line (the cannon-fodder rule). Pure: the caller hands in both
//! sides in cannon-fodder order, the situation and a dice source, and gets back a
//! structured report. The weekend's attack step and `pbemd battle` both use it.
//!
//! Rules: R-COMBAT-4..9, R-UNIT-2, R-NAV-2, R-WALL-2..7, R-CITY-11, with the project's
//! rulings on zero archers (the weaker side), walled defenders, undefended cities, and
//! the round limit (docs/rules.md, Rulings 12, 30, 31 and 36).

use serde::{Deserialize, Serialize};

use super::dice::Dice;
use super::orders::Piece;
use super::units::{ParseKindError, ShipKind, UnitKind};
use super::Lang;

/// One side's line: runs of equal pieces, front first; the last run loses first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    runs: Vec<(Piece, u64)>,
}

impl Line {
    pub fn new(runs: impl IntoIterator<Item = (Piece, u64)>) -> Line {
        let mut line = Line::default();
        for (p, n) in runs {
            line.push(p, n);
        }
        line
    }

    /// Add `n` pieces at the tail, merging with a tail run of the same piece.
    pub fn push(&mut self, piece: Piece, n: u64) {
        if n == 0 {
            return;
        }
        match self.runs.last_mut() {
            Some((p, m)) if *p == piece => *m = m.saturating_add(n),
            _ => self.runs.push((piece, n)),
        }
    }

    pub fn runs(&self) -> &[(Piece, u64)] {
        &self.runs
    }

    pub fn count(&self) -> u64 {
        self.runs
            .iter()
            .fold(0u64, |acc, (_, n)| acc.saturating_add(*n))
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    fn sum(&self, value: impl Fn(Piece) -> u64) -> u64 {
        self.runs.iter().fold(0u64, |acc, (p, n)| {
            acc.saturating_add(value(*p).saturating_mul(*n))
        })
    }

    fn count_where(&self, pred: impl Fn(Piece) -> bool) -> u64 {
        self.runs
            .iter()
            .filter(|(p, _)| pred(*p))
            .fold(0u64, |acc, (_, n)| acc.saturating_add(*n))
    }

    /// Remove up to `n` pieces from the tail (R-COMBAT-9); returns how many went.
    /// A higher demon counts as one loss and stands on as two lower demons in its
    /// place (R-EVIL-10, docs/rules.md, Rulings 56).
    pub fn lose(&mut self, mut n: u64) -> u64 {
        let mut lost = 0;
        while n > 0 {
            let Some((p, m)) = self.runs.last_mut() else {
                break;
            };
            if *p == Piece::Unit(UnitKind::HogreDemon) {
                *m -= 1;
                if *m == 0 {
                    self.runs.pop();
                }
                self.push(Piece::Unit(UnitKind::LagreDemon), 2);
                n -= 1;
                lost += 1;
                continue;
            }
            let take = n.min(*m);
            *m -= take;
            n -= take;
            lost += take;
            if *m == 0 {
                self.runs.pop();
            }
        }
        lost
    }

    /// Remove up to `n` pieces matching `pred`, wherever they stand, tail first.
    fn remove_where(&mut self, mut n: u64, pred: impl Fn(Piece) -> bool) -> u64 {
        let mut removed = 0;
        for (p, m) in self.runs.iter_mut().rev() {
            if n == 0 {
                break;
            }
            if pred(*p) {
                let take = n.min(*m);
                *m -= take;
                n -= take;
                removed += take;
            }
        }
        self.runs.retain(|(_, m)| *m > 0);
        // Runs that became neighbours may now hold the same piece.
        let runs = std::mem::take(&mut self.runs);
        for (p, m) in runs {
            self.push(p, m);
        }
        removed
    }

    /// The line as `count name` items, front first.
    pub fn describe(&self, lang: Lang) -> Vec<String> {
        self.runs
            .iter()
            .map(|(p, n)| p.count_text(*n, lang))
            .collect()
    }
}

/// Everything that decides a battle besides the dice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Battle {
    pub attacker: Line,
    /// Commander (land) or Admiral (sea) value, plus any spell bonus.
    pub attacker_bonus: u64,
    /// Attack values of a supporting fleet (R-COMBAT-10), added to the attacker.
    pub attacker_support: u64,
    pub defender: Line,
    pub defender_bonus: u64,
    /// The city's walls (R-WALL), counted only while it has defenders.
    pub walls: u64,
    /// The city's population, when the battle is for a city (R-CITY-11).
    pub city_population: Option<u64>,
    pub naval: bool,
    /// Round limit after which the attacker withdraws (at least 1).
    pub max_rounds: u32,
}

/// Who won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Winner {
    Attacker,
    Defender,
    /// The round limit was reached: the attacker withdraws, nobody won.
    None,
}

/// Losses before the first round.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreBattle {
    pub attacker_archers: u64,
    pub defender_archers: u64,
    pub attacker_losses: u64,
    pub defender_losses: u64,
    /// True when walls spared the defender its archer losses (R-WALL-4).
    pub walls_protected: bool,
    pub siege_towers_used: u64,
    pub walls_removed: u64,
}

/// One combat round (R-COMBAT-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    pub attacker_value: u64,
    pub defender_value: u64,
    pub attacker_roll: u32,
    pub defender_roll: u32,
    pub attacker_total: u64,
    pub defender_total: u64,
    pub attacker_losses: u64,
    pub defender_losses: u64,
}

/// The whole battle, for reports and replays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub pre_battle: PreBattle,
    pub rounds: Vec<Round>,
    pub winner: Winner,
    pub attacker_left: Line,
    pub defender_left: Line,
    /// Walls still standing after the battle (R-WALL-5).
    pub walls_left: u64,
    /// The battle was for a city without defenders (R-CITY-11).
    pub undefended_city: bool,
}

/// Fight `b` with dice `dice` (attacker rolls first each round).
pub fn fight(b: &Battle, dice: &mut Dice) -> Outcome {
    let mut att = b.attacker.clone();
    let mut def = b.defender.clone();
    // Walls play no part at sea.
    let mut walls = if b.naval { 0 } else { b.walls };
    let undefended_city = def.is_empty() && b.city_population.is_some();
    let pre_battle = pre_battle(b, &mut att, &mut def, &mut walls);

    let mut rounds = Vec::new();
    let winner = loop {
        if att.is_empty() {
            break Winner::Defender;
        }
        if def.is_empty() && !undefended_city {
            break Winner::Attacker;
        }
        if rounds.len() >= b.max_rounds.max(1) as usize {
            break Winner::None;
        }
        let attacker_value = att
            .sum(Piece::attack)
            .saturating_add(b.attacker_bonus)
            .saturating_add(b.attacker_support);
        let defender_value = if undefended_city {
            // A city without army units: population/10, no walls, no bonus.
            b.city_population.unwrap_or(0) / 10
        } else {
            def.sum(Piece::defence)
                .saturating_add(b.defender_bonus)
                .saturating_add(walls.saturating_mul(10))
        };
        let attacker_roll = dice.d20();
        let defender_roll = dice.d20();
        let attacker_total = attacker_value.saturating_add(attacker_roll as u64);
        let defender_total = defender_value.saturating_add(defender_roll as u64);
        let losses = attacker_total.abs_diff(defender_total) / 5;
        let (mut attacker_losses, mut defender_losses) = (0, 0);
        let mut city_fell = false;
        if attacker_total > defender_total {
            if undefended_city {
                city_fell = losses > 0;
            } else {
                defender_losses = def.lose(losses);
            }
        } else {
            attacker_losses = att.lose(losses);
        }
        rounds.push(Round {
            attacker_value,
            defender_value,
            attacker_roll,
            defender_roll,
            attacker_total,
            defender_total,
            attacker_losses,
            defender_losses,
        });
        if city_fell {
            break Winner::Attacker;
        }
    };
    Outcome {
        pre_battle,
        rounds,
        winner,
        attacker_left: att,
        defender_left: def,
        walls_left: walls,
        undefended_city,
    }
}

/// Archers (or galleasses) first, then siege towers (R-COMBAT-4, R-WALL-7).
fn pre_battle(b: &Battle, att: &mut Line, def: &mut Line, walls: &mut u64) -> PreBattle {
    let mut pre = PreBattle {
        attacker_archers: att.count_where(Piece::is_ranged),
        defender_archers: def.count_where(Piece::is_ranged),
        ..PreBattle::default()
    };
    // Walls stand when archers fire; they guard only a city with defenders.
    let behind_walls = !b.naval && *walls > 0 && !def.is_empty();
    if pre.attacker_archers > pre.defender_archers {
        let diff = pre.attacker_archers - pre.defender_archers;
        if behind_walls {
            pre.walls_protected = true;
        } else {
            pre.defender_losses = def.lose(diff);
        }
    } else {
        // A side without archers is the weaker side; walls do not shield the attacker.
        pre.attacker_losses = att.lose(pre.defender_archers - pre.attacker_archers);
    }
    if !b.naval && *walls > 0 {
        let towers = att.count_where(Piece::is_siege_tower);
        let used = towers.min(*walls);
        att.remove_where(used, Piece::is_siege_tower);
        *walls -= used;
        pre.siege_towers_used = used;
        pre.walls_removed = used;
    }
    pre
}

/// Why a `count name` list could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("`{item}`: {source}; write e.g. `5 lätt infanteri, 2 tungt infanteri` or `3 light infantry`")]
    Unknown {
        item: String,
        source: ParseKindError,
    },
    #[error("`{item}`: the count must be a whole number from 1 to {max}")]
    BadCount { item: String, max: u64 },
}

/// The largest count one item may name (keeps every sum far from overflow).
pub const MAX_COUNT: u64 = 1_000_000;

/// Read `5 lätt infanteri, 2 tungt infanteri` (cannon-fodder order, the last falls
/// first) as army units, or as ships when `naval`. A missing count means 1; an empty
/// text is an empty line.
pub fn parse_line(text: &str, naval: bool) -> Result<Line, LineError> {
    let mut line = Line::default();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (count, name) = match item.split_once(char::is_whitespace) {
            Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => (Some(n), rest.trim()),
            _ if item.chars().all(|c| c.is_ascii_digit()) => (Some(item), ""),
            _ => (None, item),
        };
        let count = match count {
            None => 1,
            Some(n) => match n.parse::<u64>() {
                Ok(v) if (1..=MAX_COUNT).contains(&v) => v,
                _ => {
                    return Err(LineError::BadCount {
                        item: item.to_string(),
                        max: MAX_COUNT,
                    })
                }
            },
        };
        let piece = if naval {
            ShipKind::parse(name).map(Piece::Ship)
        } else {
            UnitKind::parse(name).map(Piece::Unit)
        }
        .map_err(|source| LineError::Unknown {
            item: item.to_string(),
            source,
        })?;
        line.push(piece, count);
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn land(att: &str, def: &str) -> Battle {
        Battle {
            attacker: parse_line(att, false).unwrap(),
            attacker_bonus: 0,
            attacker_support: 0,
            defender: parse_line(def, false).unwrap(),
            defender_bonus: 0,
            walls: 0,
            city_population: None,
            naval: false,
            max_rounds: 50,
        }
    }

    fn rolls(faces: &[u32]) -> Dice {
        Dice::scripted("test", faces)
    }

    #[test]
    fn r_combat_6_worked_example_19_against_14_costs_the_defender_one_unit() {
        // Attack 11 with the commander, defence 13 with the commander; rolls 8 and 1.
        let mut b = land("5 lätt infanteri", "5 tungt infanteri");
        b.attacker_bonus = 6;
        b.defender_bonus = 3;
        let out = fight(&b, &mut rolls(&[8, 1]));
        let r = out.rounds[0];
        assert_eq!((r.attacker_total, r.defender_total), (19, 14));
        assert_eq!((r.attacker_losses, r.defender_losses), (0, 1));
        assert_eq!(
            out.rounds[1].defender_value, 11,
            "the lost unit had defence 2"
        );
    }

    #[test]
    fn r_combat_6_a_difference_under_five_costs_nobody_anything() {
        let out = fight(&land("2 veteran", "2 veteran"), &mut rolls(&[10, 14]));
        let r = out.rounds[0];
        assert_eq!((r.attacker_total, r.defender_total), (18, 18));
        assert_eq!((r.attacker_losses, r.defender_losses), (0, 0));
    }

    #[test]
    fn r_combat_6_losses_are_one_per_full_five_points() {
        let out = fight(
            &land("2 lätt infanteri", "9 lätt infanteri"),
            &mut rolls(&[1, 20]),
        );
        // 2+1 = 3 against 9+20 = 29: diff 26 → 5 losses, but only 2 to lose.
        assert_eq!(out.rounds[0].attacker_losses, 2);
        assert_eq!(out.winner, Winner::Defender);
        assert_eq!(out.rounds.len(), 1);
    }

    #[test]
    fn r_combat_9_the_last_named_unit_falls_first() {
        let out = fight(
            &land("1 lätt infanteri", "2 veteran, 3 lätt infanteri"),
            &mut rolls(&[20, 1, 1, 20]),
        );
        // Round 1: 1+20 = 21 against 2×2+3×1 = 7, +1 = 8: diff 13 → 2 losses.
        assert_eq!(out.rounds[0].defender_losses, 2);
        assert_eq!(
            out.rounds[1].defender_value, 5,
            "two light infantry went, not the veterans"
        );
    }

    #[test]
    fn r_unit_2_archers_5_against_2_cost_the_defender_3_units_before_round_one() {
        let out = fight(
            &land("5 bågskyttar", "2 bågskyttar, 4 tungt infanteri"),
            &mut rolls(&[10, 10]),
        );
        assert_eq!(out.pre_battle.defender_losses, 3);
        assert_eq!(out.pre_battle.attacker_losses, 0);
        assert_eq!(
            out.rounds[0].defender_value,
            2 + 2,
            "2 archers and 1 heavy infantry left"
        );
    }

    #[test]
    fn r_unit_2_a_side_without_archers_is_the_weaker_side() {
        let out = fight(&land("4 veteran", "2 bågskyttar"), &mut rolls(&[10, 10]));
        assert_eq!(out.pre_battle.attacker_losses, 2);
        assert_eq!(
            out.rounds[0].attacker_value, 8,
            "two veterans fight the first round"
        );
    }

    #[test]
    fn r_unit_2_mounted_archers_count_as_archers() {
        let out = fight(
            &land("2 beridna bågskyttar", "3 lätt infanteri"),
            &mut rolls(&[10, 10]),
        );
        assert_eq!(out.pre_battle.attacker_archers, 2);
        assert_eq!(out.pre_battle.defender_losses, 2);
    }

    #[test]
    fn r_wall_4_walls_spare_the_defender_its_archer_losses() {
        let mut b = land("5 bågskyttar", "2 tungt infanteri");
        b.walls = 1;
        b.city_population = Some(40);
        let out = fight(&b, &mut rolls(&[10, 10]));
        assert_eq!(out.pre_battle.defender_losses, 0);
        assert!(out.pre_battle.walls_protected);
    }

    #[test]
    fn r_wall_4_an_attacker_with_fewer_archers_still_loses_to_a_walled_defender() {
        let mut b = land("4 lätt infanteri", "3 bågskyttar");
        b.walls = 2;
        b.city_population = Some(40);
        let out = fight(&b, &mut rolls(&[10, 10]));
        assert_eq!(out.pre_battle.attacker_losses, 3);
    }

    #[test]
    fn r_wall_1_each_wall_adds_ten_to_a_defended_city() {
        let mut b = land("1 veteran", "1 tungt infanteri");
        b.walls = 2;
        b.city_population = Some(30);
        let out = fight(&b, &mut rolls(&[10, 10]));
        assert_eq!(out.rounds[0].defender_value, 22);
    }

    #[test]
    fn r_wall_6_each_siege_tower_removes_one_wall_and_is_used_up() {
        let mut b = land("3 belägringstorn, 4 veteran", "2 tungt infanteri");
        b.walls = 2;
        b.city_population = Some(30);
        let out = fight(&b, &mut rolls(&[10, 10]));
        assert_eq!(out.pre_battle.walls_removed, 2);
        assert_eq!(out.pre_battle.siege_towers_used, 2);
        assert_eq!(out.rounds[0].defender_value, 4, "no walls left");
        assert_eq!(
            out.rounds[0].attacker_value, 16,
            "towers add nothing to the attack"
        );
    }

    #[test]
    fn r_wall_7_archers_fire_before_the_towers_bring_the_walls_down() {
        let mut b = land("3 bågskyttar, 1 belägringstorn", "1 tungt infanteri");
        b.walls = 1;
        b.city_population = Some(20);
        let out = fight(&b, &mut rolls(&[10, 10]));
        assert!(
            out.pre_battle.walls_protected,
            "the wall still stood when the archers fired"
        );
        assert_eq!(out.pre_battle.defender_losses, 0);
        assert_eq!(out.pre_battle.walls_removed, 1);
    }

    #[test]
    fn r_wall_2_walls_give_nothing_to_a_city_without_defenders() {
        let mut b = land("2 lätt infanteri", "");
        b.walls = 3;
        b.city_population = Some(50);
        let out = fight(&b, &mut rolls(&[10, 12]));
        assert!(out.undefended_city);
        assert_eq!(
            out.rounds[0].defender_value, 5,
            "population 50 / 10, walls ignored"
        );
    }

    #[test]
    fn r_wall_5_walls_survive_a_battle_without_siege_towers() {
        let mut b = land("10 veteran", "1 lätt infanteri");
        b.walls = 1;
        b.city_population = Some(20);
        let out = fight(&b, &mut rolls(&[20, 1]));
        assert_eq!(out.winner, Winner::Attacker);
        assert_eq!(out.walls_left, 1);
    }

    #[test]
    fn r_city_11_an_undefended_city_falls_when_the_attacker_is_five_ahead() {
        let mut b = land("2 lätt infanteri", "");
        b.city_population = Some(60);
        // Round 1: 2+3=5 against 6+10=16 → attacker loses 2.
        let out = fight(&b, &mut rolls(&[3, 10]));
        assert_eq!(out.winner, Winner::Defender);
        assert_eq!(out.rounds[0].attacker_losses, 2);

        // 2+15=17 against 6+4=10 → the city falls.
        let out = fight(&b, &mut rolls(&[15, 4]));
        assert_eq!(out.winner, Winner::Attacker);
        assert_eq!(out.rounds.len(), 1);
        assert_eq!(out.rounds[0].defender_losses, 0);
    }

    #[test]
    fn r_city_11_an_undefended_city_less_than_five_behind_holds_for_another_round() {
        let mut b = land("2 lätt infanteri", "");
        b.city_population = Some(60);
        // 2+12=14 against 6+10=16: nothing; then 2+20=22 against 6+1=7: falls.
        let out = fight(&b, &mut rolls(&[12, 10, 20, 1]));
        assert_eq!(out.rounds.len(), 2);
        assert_eq!(out.winner, Winner::Attacker);
    }

    #[test]
    fn r_combat_7_the_round_limit_ends_the_battle_with_no_winner() {
        let mut b = land("1 veteran", "2 tungt infanteri");
        b.max_rounds = 3;
        let out = fight(&b, &mut rolls(&[10, 10, 12, 10, 10, 13]));
        assert_eq!(out.rounds.len(), 3);
        assert_eq!(out.winner, Winner::None);
    }

    #[test]
    fn r_combat_7_a_battle_runs_until_one_side_is_gone() {
        let out = fight(
            &land("6 lätt infanteri, 2 veteran", "5 tungt infanteri"),
            &mut Dice::new(7, 1, "annihilation"),
        );
        assert_ne!(out.winner, Winner::None);
        assert!(out.attacker_left.is_empty() || out.defender_left.is_empty());
    }

    #[test]
    fn r_nav_2_galleasses_work_like_archers_at_sea() {
        let b = Battle {
            attacker: parse_line("3 galeas, 2 tungt krigsskepp", true).unwrap(),
            attacker_bonus: 2,
            attacker_support: 0,
            defender: parse_line("1 galeas, 4 transportskepp", true).unwrap(),
            defender_bonus: 0,
            walls: 5,
            city_population: None,
            naval: true,
            max_rounds: 50,
        };
        let out = fight(&b, &mut rolls(&[10, 10]));
        assert_eq!(out.pre_battle.defender_losses, 2);
        assert_eq!(out.pre_battle.walls_removed, 0, "walls play no part at sea");
        assert_eq!(out.walls_left, 0);
        assert_eq!(out.rounds[0].attacker_value, 3 + 6 + 2);
        assert_eq!(out.rounds[0].defender_value, 1 + 2);
    }

    #[test]
    fn r_combat_10_fleet_support_adds_to_the_attack() {
        let mut b = land("1 lätt infanteri", "1 lätt infanteri");
        b.attacker_support = 4;
        let out = fight(&b, &mut rolls(&[10, 10]));
        assert_eq!(out.rounds[0].attacker_value, 5);
    }

    #[test]
    fn an_empty_defender_outside_a_city_loses_without_a_round() {
        let out = fight(&land("1 lätt infanteri", ""), &mut rolls(&[]));
        assert_eq!(out.winner, Winner::Attacker);
        assert!(out.rounds.is_empty());
    }

    #[test]
    fn unit_lists_read_swedish_english_and_bare_names() {
        let l = parse_line("5 lätt infanteri, 2 heavy infantry, bågskyttar", false).unwrap();
        assert_eq!(
            l.describe(Lang::Sv),
            ["5 lätt infanteri", "2 tungt infanteri", "1 bågskytt"]
        );
        assert_eq!(
            l.describe(Lang::En),
            ["5 light infantry", "2 heavy infantry", "1 archer"]
        );
        assert_eq!(l.count(), 8);
    }

    #[test]
    fn unit_lists_refuse_unknown_names_and_absurd_counts_with_the_item_quoted() {
        let e = parse_line("5 drakar", false).unwrap_err();
        assert!(e.to_string().contains("`5 drakar`"), "{e}");
        let e = parse_line("99999999999999999999 veteran", false).unwrap_err();
        assert!(matches!(e, LineError::BadCount { .. }), "{e}");
        let e = parse_line("0 veteran", false).unwrap_err();
        assert!(matches!(e, LineError::BadCount { .. }), "{e}");
        assert!(
            parse_line("2 transportskepp", false).is_err(),
            "a ship is no army unit"
        );
    }

    #[test]
    fn huge_armies_fight_without_overflow_or_a_vector_per_unit() {
        let b = land("1000000 veteran, 1000000 veteran", "1000000 jordelementar");
        let out = fight(&b, &mut Dice::new(3, 1, "huge"));
        assert!(out.rounds.len() <= 50);
    }
}
