//! Standard Maildirs (`tmp/`, `new/`, `cur/`) for local play and tests.
//!
//! Intake takes files from `new/` and, once their bytes are committed to the store,
//! moves them to `cur/` (with the `:2,S` seen flag). Output writes each mail to `tmp/`
//! and renames it into `new/` under a name derived from its Message-ID, so writing the
//! same outbox row twice leaves one file.

use std::path::{Path, PathBuf};

use super::TransportError;

/// A Maildir on disk.
#[derive(Debug, Clone)]
pub struct Maildir {
    root: PathBuf,
}

/// One mail waiting in `new/`.
#[derive(Debug)]
pub struct Waiting {
    pub name: String,
    pub raw: Vec<u8>,
    /// The file's full size; larger than `raw` when only a prefix was read.
    pub size: usize,
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> TransportError {
    move |source| TransportError::Io {
        action: what,
        source,
    }
}

impl Maildir {
    /// Open a Maildir, creating `tmp/`, `new/` and `cur/` if missing.
    pub fn open(root: &Path) -> Result<Maildir, TransportError> {
        for sub in ["tmp", "new", "cur"] {
            let d = root.join(sub);
            std::fs::create_dir_all(&d)
                .map_err(io(format!("create maildir folder {}", d.display())))?;
        }
        Ok(Maildir {
            root: root.to_path_buf(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The mails in `new/`, oldest name first (Maildir names start with a timestamp).
    pub fn list_new(&self) -> Result<Vec<String>, TransportError> {
        let dir = self.root.join("new");
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(io(format!("list {}", dir.display())))? {
            let entry = entry.map_err(io(format!("list {}", dir.display())))?;
            if entry.file_type().map(|t| t.is_file()).unwrap_or(false) {
                if let Some(n) = entry.file_name().to_str() {
                    if !n.starts_with('.') {
                        names.push(n.to_string());
                    }
                }
            }
        }
        names.sort();
        Ok(names)
    }

    /// Read one mail from `new/`.
    pub fn read_new(&self, name: &str) -> Result<Waiting, TransportError> {
        self.read_new_capped(name, usize::MAX)
    }

    /// Read at most the first `cap` bytes of one mail from `new/`, with its full size,
    /// so an over-limit file is never read whole.
    pub fn read_new_capped(&self, name: &str, cap: usize) -> Result<Waiting, TransportError> {
        use std::io::Read;
        let p = self.root.join("new").join(name);
        let f = std::fs::File::open(&p).map_err(io(format!("open {}", p.display())))?;
        let size = f
            .metadata()
            .map_err(io(format!("read the size of {}", p.display())))?
            .len();
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let mut raw = Vec::with_capacity(size.min(cap));
        let limit = u64::try_from(cap).unwrap_or(u64::MAX);
        f.take(limit)
            .read_to_end(&mut raw)
            .map_err(io(format!("read {}", p.display())))?;
        Ok(Waiting {
            name: name.to_string(),
            size: size.max(raw.len()),
            raw,
        })
    }

    /// Move a stored mail from `new/` to `cur/`, flagged seen.
    pub fn mark_seen(&self, name: &str) -> Result<(), TransportError> {
        let from = self.root.join("new").join(name);
        let base = name.split(":2,").next().unwrap_or(name);
        let to = self.root.join("cur").join(format!("{base}:2,S"));
        std::fs::rename(&from, &to).map_err(io(format!("move {} to cur/", from.display())))
    }

    /// Deliver a mail into `new/` as `file_stem` (no-op if it is already there or in
    /// `cur/`). Written to `tmp/` first, synced, then renamed: a reader never sees half
    /// a mail.
    pub fn deliver(&self, file_stem: &str, raw: &[u8]) -> Result<PathBuf, TransportError> {
        use std::io::Write;
        let name = sanitize(file_stem);
        let target = self.root.join("new").join(&name);
        if target.exists() || self.root.join("cur").join(format!("{name}:2,S")).exists() {
            return Ok(target);
        }
        let tmp = self.root.join("tmp").join(&name);
        let mut f = std::fs::File::create(&tmp).map_err(io(format!("create {}", tmp.display())))?;
        f.write_all(raw)
            .map_err(io(format!("write {}", tmp.display())))?;
        f.sync_all()
            .map_err(io(format!("sync {}", tmp.display())))?;
        std::fs::rename(&tmp, &target).map_err(io(format!("move {} into new/", tmp.display())))?;
        Ok(target)
    }

    /// Write a mail as a new arrival with a fresh unique name (tests, the demo's
    /// scripted players). `seq` keeps names ordered.
    pub fn drop_in(&self, seq: u64, raw: &[u8]) -> Result<PathBuf, TransportError> {
        self.deliver(
            &format!("{:010}.{}.pbemd-demo", seq, std::process::id()),
            raw,
        )
    }
}

/// Keep a file name to characters every file system accepts.
fn sanitize(s: &str) -> String {
    s.trim_matches(['<', '>'])
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivered_mail_is_listed_read_and_moved_once() {
        let dir = tempfile::tempdir().unwrap();
        let md = Maildir::open(dir.path()).unwrap();
        md.deliver("<abc@game.test>", b"Subject: x\r\n\r\nhi")
            .unwrap();
        md.deliver("<abc@game.test>", b"Subject: x\r\n\r\nhi")
            .unwrap();
        let names = md.list_new().unwrap();
        assert_eq!(names, vec!["abc_game.test".to_string()]);
        assert_eq!(md.read_new(&names[0]).unwrap().raw, b"Subject: x\r\n\r\nhi");
        md.mark_seen(&names[0]).unwrap();
        assert!(md.list_new().unwrap().is_empty());
        // Delivering the same mail again after it was read does not duplicate it.
        md.deliver("<abc@game.test>", b"Subject: x\r\n\r\nhi")
            .unwrap();
        assert!(md.list_new().unwrap().is_empty());
    }
}
