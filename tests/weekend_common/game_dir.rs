//! A game directory driven through the real binary (`pbemd new`, `init`, mails dropped
//! into the Maildir inbox, `tick`, `gm …`), shared by the tests of the GM's weekend
//! commands. Include with `#[path = "weekend_common/game_dir.rs"] mod game_dir;` next
//! to `mod common;`.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::common;

pub const TUESDAY: &str = "2026-11-24T09:00:00+01:00";
pub const SATURDAY: &str = "2026-11-28T10:00:00+01:00";
pub const DEADLINE: &str = "2026-11-29T15:00:00+01:00";
pub const MONDAY: &str = "2026-11-30T12:00:00+01:00";
pub const REALMS: [&str; 6] = [
    "Genogien", "Afani", "Fugandri", "Kaldor", "Mirandel", "Ostvik",
];

/// A game directory made by `pbemd new` and started by `pbemd init`.
pub struct Dir {
    pub _tmp: tempfile::TempDir,
    pub dir: PathBuf,
    pub mails: std::cell::Cell<u32>,
}

impl Dir {
    pub fn start() -> Dir {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("game");
        ok(&run(&["new", dir.to_str().unwrap()], &[]));
        let d = Dir {
            _tmp: tmp,
            dir,
            mails: Default::default(),
        };
        d.ok(&["init", "--quiet", "--now", TUESDAY]);
        d
    }

    /// A copy of this game (every file, the database included) in a new directory.
    pub fn copy(&self) -> Dir {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("game");
        let st = Command::new("cp")
            .arg("-a")
            .arg(&self.dir)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(st.success());
        Dir {
            _tmp: tmp,
            dir,
            mails: self.mails.clone(),
        }
    }

    pub fn cmd(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let cfg = self.dir.join("pbemd.yaml");
        let mut all = vec!["--config", cfg.to_str().unwrap()];
        all.extend_from_slice(args);
        run(&all, env)
    }

    pub fn ok(&self, args: &[&str]) -> String {
        ok(&self.cmd(args, &[]))
    }

    pub fn tick(&self, now: &str) -> String {
        self.ok(&["tick", "--now", now])
    }

    pub fn send(&self, from: &str, subject: &str, body: &str) {
        let n = self.mails.get() + 1;
        self.mails.set(n);
        let raw = common::mail(from, subject, body, &format!("w{n}@players.test"));
        std::fs::write(self.dir.join("inbox/new").join(format!("{n}.m")), raw).unwrap();
    }

    /// The mails written since the mails with `seen` message ids.
    pub fn outbox_since(&self, seen: &[String]) -> Vec<common::Sent> {
        self.outbox()
            .into_iter()
            .filter(|m| !seen.contains(&m.message_id))
            .collect()
    }

    pub fn state(&self) -> serde_json::Value {
        serde_json::from_str(&self.ok(&["state", "--json"])).unwrap()
    }

    pub fn outbox(&self) -> Vec<common::Sent> {
        let mut names: Vec<_> = std::fs::read_dir(self.dir.join("outbox/new"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| common::Sent::parse(&std::fs::read(p).unwrap()))
            .collect()
    }

    pub async fn store(&self) -> pbemd::store::Store {
        let url = format!("sqlite://{}", self.dir.join("pbemd.db").display());
        pbemd::store::Store::open(&url).await.unwrap()
    }

    /// Afani sends two forms on Saturday (the later one, buying a spy, counts).
    pub fn weekend_with_a_form(&self) {
        self.send("afani@game.test", "Afani form", "BUY 2 spy");
        self.tick(SATURDAY);
        self.send("afani@game.test", "Re: Afani form", "BUY 1 spy");
        self.tick(SATURDAY.replace("10:00", "11:00").as_str());
    }
}

pub fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pbemd"));
    c.args(args).env_remove("PBEMD_TEST_CRASH_RESOLVE");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run pbemd")
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

pub fn failed(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "expected a failure: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout)
}
