//! `pbemd battle`: the battle calculator. Reads two unit lists and the situation,
//! fights one battle with the engine's own combat code and prints the report, or the
//! JSON document with `--json`. Needs no game and no config.

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

use crate::game::combat::{self, Battle};
use crate::game::dice::Dice;
use crate::game::Lang;

use crate::game::state::DEFAULT_MAX_BATTLE_ROUNDS;

#[derive(Debug, Args)]
pub struct BattleArgs {
    /// The attacker's units in cannon-fodder order (the last falls first), e.g.
    /// "5 lätt infanteri, 2 tungt infanteri".
    #[arg(long)]
    pub attacker: String,
    /// The attacker's Commander (land) or Admiral (sea) value.
    #[arg(long, default_value_t = 0)]
    pub attacker_bonus: u64,
    /// The defender's units; empty with --city-population for an undefended city.
    #[arg(long, default_value = "")]
    pub defender: String,
    /// The defender's Commander (land) or Admiral (sea) value.
    #[arg(long, default_value_t = 0)]
    pub defender_bonus: u64,
    /// The city's walls (+10 each while it has defenders).
    #[arg(long, default_value_t = 0)]
    pub walls: u64,
    /// The city's population: the battle is for a city.
    #[arg(long)]
    pub city_population: Option<u64>,
    /// A naval battle: ships instead of army units, galleasses instead of archers.
    #[arg(long)]
    pub naval: bool,
    /// d20 results to use first, attacker then defender each round, e.g. 8,1,12,5.
    #[arg(long, value_delimiter = ',')]
    pub rolls: Vec<String>,
    /// Seed of the dice that follow the given rolls.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Round limit; after it the attacker withdraws.
    #[arg(long, default_value_t = DEFAULT_MAX_BATTLE_ROUNDS)]
    pub max_rounds: u32,
    /// Language of the report and unit names: sv or en.
    #[arg(long, default_value = "sv")]
    pub lang: String,
    /// Print the JSON document instead of the report.
    #[arg(long)]
    pub json: bool,
}

/// Run the calculator.
pub fn run(a: &BattleArgs) -> Result<ExitCode> {
    let lang = match a.lang.to_ascii_lowercase().as_str() {
        "sv" => Lang::Sv,
        "en" => Lang::En,
        other => bail!("--lang {other}: write sv or en"),
    };
    let side = |flag: &str, text: &str| {
        combat::parse_line(text, a.naval).map_err(|e| anyhow::anyhow!("--{flag}: {e}"))
    };
    let attacker = side("attacker", &a.attacker)?;
    if attacker.is_empty() {
        bail!("--attacker names no units; write e.g. --attacker \"5 lätt infanteri\"");
    }
    let defender = side("defender", &a.defender)?;
    if defender.is_empty() && a.city_population.is_none() {
        bail!(
            "--defender names no units; give units, or --city-population N for an undefended city"
        );
    }
    if a.max_rounds == 0 {
        bail!("--max-rounds must be at least 1");
    }
    let rolls = parse_rolls(&a.rolls)?;
    let battle = Battle {
        attacker,
        attacker_bonus: a.attacker_bonus,
        attacker_support: 0,
        defender,
        defender_bonus: a.defender_bonus,
        walls: a.walls,
        city_population: a.city_population,
        naval: a.naval,
        max_rounds: a.max_rounds,
    };
    let mut dice = Dice::new(a.seed, 0, "battle").with_script(&rolls);
    let outcome = combat::fight(&battle, &mut dice);
    if a.json {
        let doc = crate::render::battle::json(&outcome, lang);
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", crate::render::battle::report(&outcome, lang));
    }
    Ok(ExitCode::SUCCESS)
}

/// `--rolls 8,1,12`: each a d20 face.
fn parse_rolls(items: &[String]) -> Result<Vec<u32>> {
    items
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(|s| match s.parse::<u32>() {
            Ok(v) if (1..=20).contains(&v) => Ok(v),
            _ => bail!(
                "--rolls: `{s}` is not a d20 result; give numbers 1 to 20, e.g. --rolls 8,1,12,5"
            ),
        })
        .collect()
}
