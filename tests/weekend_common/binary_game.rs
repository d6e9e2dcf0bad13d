//! A game driven through the real binary for whole-weekend tests: `pbemd new`
//! (the demo, or a scenario file), `init`, mails dropped into the inbox Maildir,
//! `tick`, `state --json`, and the Monday forms read back from the outbox Maildir.
//! Include with `#[path = "weekend_common/binary_game.rs"] mod binary_game;` next to
//! `mod common;`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pbemd::game::GameState;

use crate::common::{self, Sent};

/// When `init` starts the game: the Monday before the first weekend.
pub const START: &str = "2026-11-23T12:30:00+01:00";

pub fn pbemd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(args)
        .output()
        .expect("run pbemd")
}

pub fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A game made by `pbemd new` and started by `pbemd init` at `START`.
pub struct Game {
    pub _tmp: tempfile::TempDir,
    pub dir: PathBuf,
    pub cfg: String,
    pub seq: std::cell::Cell<u32>,
}

impl Game {
    /// The demo scenario.
    pub fn start() -> Game {
        Game::start_with(&[], "")
    }

    /// A scenario file of the repository (`scenarios/NAME`).
    pub fn start_scenario(name: &str) -> Game {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(name);
        Game::start_with(&["--scenario", path.to_str().unwrap()], "")
    }

    /// The demo scenario with `yaml` added to the game's config before `init`.
    #[allow(dead_code)]
    pub fn start_with_config(yaml: &str) -> Game {
        Game::start_with(&[], yaml)
    }

    /// `pbemd new` with `extra` arguments, `yaml` added to its config, then `init`.
    fn start_with(extra: &[&str], yaml: &str) -> Game {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("game");
        let mut args = vec!["new", dir.to_str().unwrap()];
        args.extend_from_slice(extra);
        ok(&pbemd(&args));
        let cfg = dir.join("pbemd.yaml").to_str().unwrap().to_string();
        if !yaml.is_empty() {
            let mut text = std::fs::read_to_string(&cfg).unwrap();
            text.push_str(yaml);
            std::fs::write(&cfg, text).unwrap();
        }
        // With a config of its own the game mails its opening forms (which a test of
        // that config reads); the others start quietly.
        let mut init = vec!["--config", cfg.as_str(), "init", "--now", START];
        if yaml.is_empty() {
            init.push("--quiet");
        }
        ok(&pbemd(&init));
        Game {
            _tmp: tmp,
            dir,
            cfg,
            seq: Default::default(),
        }
    }

    /// A player mails a form (or anything else) to the game.
    pub fn mail(&self, from: &str, subject: &str, body: &str) {
        let n = self.seq.get() + 1;
        self.seq.set(n);
        let raw = common::mail(from, subject, body, &format!("w{n}@players.test"));
        std::fs::write(self.dir.join("inbox/new").join(format!("{n}.m")), raw).unwrap();
    }

    pub fn tick(&self, now: &str) -> String {
        ok(&pbemd(&["--config", &self.cfg, "tick", "--now", now]))
    }

    /// `state --json`: the whole state, as the GM sees it.
    pub fn state(&self) -> GameState {
        let out = ok(&pbemd(&["--config", &self.cfg, "state", "--json"]));
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("state --json: {e}\n{out}"))
    }

    /// The GM replaces the state (`gm import-state`, as after editing `state --json`).
    pub fn import_state(&self, gs: &GameState) {
        let file = self.dir.join("state.json");
        std::fs::write(&file, serde_json::to_string(gs).unwrap()).unwrap();
        ok(&pbemd(&[
            "--config",
            &self.cfg,
            "gm",
            "import-state",
            file.to_str().unwrap(),
        ]));
    }

    /// The mails to the GM of what the weekend left to the GM (`… for the GM`).
    pub fn for_the_gm(&self) -> Vec<Sent> {
        self.outbox()
            .into_iter()
            .filter(|m| m.to_is("gm@game.test") && m.subject.contains("for the GM"))
            .collect()
    }

    pub fn outbox(&self) -> Vec<Sent> {
        read_outbox(&self.dir.join("outbox/new"))
    }

    /// The latest result form mailed to `addr`.
    pub fn monday_form(&self, addr: &str) -> String {
        self.outbox()
            .into_iter()
            .filter(|m| m.to_is(addr) && is_result_form(m))
            .max_by_key(|m| m.date)
            .map(|m| m.text)
            .unwrap_or_else(|| panic!("no result form to {addr}"))
    }
}

pub fn read_outbox(dir: &Path) -> Vec<Sent> {
    let mut out: Vec<Sent> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| Sent::parse(&std::fs::read(e.path()).unwrap()))
                .collect()
        })
        .unwrap_or_default();
    out.sort_by_key(|m| m.date);
    out
}

pub fn is_result_form(m: &Sent) -> bool {
    // An opening form has the player's guide line above its title.
    m.text.lines().take(3).any(|l| l.starts_with("====="))
        && (m.subject.ends_with(" form") || m.subject.ends_with("helgformulär"))
}
