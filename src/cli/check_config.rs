//! `pbemd check-config`: one line per part of the setup (the config, mail in, mail
//! out, the webhook), what works or what is wrong and its fix; exit 0 only when every
//! part works. The checking is `app::check_config`'s.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::config::Config;

pub async fn run(config: &Path) -> Result<ExitCode> {
    let cfg = match Config::load(config) {
        Ok(cfg) => cfg,
        Err(e) => {
            println!("FAIL  config: {e}");
            println!("\nfix the config and run `pbemd check-config` again");
            return Ok(ExitCode::FAILURE);
        }
    };
    let parts = crate::app::check_config::check(&cfg).await;
    for p in &parts {
        println!("{}  {}", if p.ok { "ok  " } else { "FAIL" }, p.line);
    }
    let failed = parts.iter().filter(|p| !p.ok).count();
    if failed == 0 {
        println!("\neverything works: `pbemd init` starts the game, `pbemd run` runs it");
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "\n{} failed: fix {} and run `pbemd check-config` again",
            crate::game::lang::count(failed, "part", "parts"),
            if failed == 1 { "it" } else { "them" }
        );
        Ok(ExitCode::FAILURE)
    }
}
