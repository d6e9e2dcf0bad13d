//! `pbemd gm passwd`: the GM's password for the web desk. The password is read (twice,
//! unechoed, from a terminal; one line from a pipe), hashed with Argon2id and written
//! as `gm_password_hash` into the `http:` block of the config file. The file is edited
//! as text so its comments and layout stay; the plain password is never written or
//! printed anywhere.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::app::App;

/// The shortest password accepted.
pub const MIN_LEN: usize = 8;

pub async fn passwd(app: &App) -> Result<ExitCode> {
    let password = read_password()?;
    let hash = tokio::task::spawn_blocking(move || crate::app::desk::hash_password(&password))
        .await
        .context("hashing the password")??;
    let path = &app.cfg.path;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (new, created) = set_password_hash(&text, &hash)?;
    write_keeping_mode(path, &new)?;
    crate::app::desk::password_changed(app).await?;
    println!(
        "the GM's password hash is in {} (http.gm_password_hash); every GM session was \
         ended; restart `pbemd run` to use the new password",
        path.display()
    );
    if created || app.cfg.http_listen.is_none() {
        println!(
            "the http: block has no `listen` yet: set it too (e.g. `listen: \"127.0.0.1:8025\"`), \
             or the desk is not served"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The new password: twice without echo from a terminal, else one line of stdin.
fn read_password() -> Result<String> {
    let stdin = std::io::stdin();
    let pw = if stdin.is_terminal() {
        let first = prompt_hidden("New GM password: ")?;
        let again = prompt_hidden("The same again: ")?;
        if first != again {
            bail!("the two passwords differ; nothing was changed");
        }
        first
    } else {
        let mut line = String::new();
        stdin.lock().read_line(&mut line)?;
        line.trim_end_matches(['\r', '\n']).to_string()
    };
    if pw.chars().count() < MIN_LEN {
        bail!("the password must have at least {MIN_LEN} characters; nothing was changed");
    }
    if pw.len() > crate::app::desk::MAX_PASSWORD_BYTES {
        bail!(
            "the password must have at most {} bytes; nothing was changed",
            crate::app::desk::MAX_PASSWORD_BYTES
        );
    }
    Ok(pw)
}

/// Prompt on stderr and read a line with the terminal's echo off (`stty`).
fn prompt_hidden(prompt: &str) -> Result<String> {
    let stty = |arg: &str| {
        std::process::Command::new("stty")
            .arg(arg)
            .stdin(std::process::Stdio::inherit())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    eprint!("{prompt}");
    std::io::stderr().flush()?;
    let hidden = stty("-echo");
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line);
    if hidden {
        stty("echo");
    }
    eprintln!();
    read?;
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

fn write_keeping_mode(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("yaml.pbemd-new");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(&tmp, meta.permissions())?;
    }
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))
}

/// The config text with `gm_password_hash: "<hash>"` in its `http:` block: replaced if
/// present, added if not, the block created at the end if there is none (then `true`).
/// Comments and every other line stay as they were.
pub fn set_password_hash(text: &str, hash: &str) -> Result<(String, bool)> {
    if hash.contains(['"', '\\', '\n']) {
        bail!("the hash is not a PHC string");
    }
    let entry = format!("gm_password_hash: \"{hash}\"");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let Some(at) = lines.iter().position(|l| is_key(l, "http")) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!(
            "http:\n  # listen: \"127.0.0.1:8025\"   # set this: where the web site is served\n  {entry}\n"
        ));
        return Ok((out, true));
    };
    let rest = lines[at]["http:".len()..].trim().to_string();
    if rest.starts_with('{') {
        lines.splice(at..=at, flow_to_block(&rest, &entry)?);
    } else if rest.is_empty() || rest.starts_with('#') {
        let end = block_end(&lines, at);
        let indent = block_indent(&lines[at + 1..end]);
        let key = |l: &String| l.trim_start().starts_with("gm_password_hash:");
        match lines[at + 1..end].iter().position(key) {
            Some(i) => lines[at + 1 + i] = format!("{indent}{entry}"),
            None => lines.insert(at + 1, format!("{indent}{entry}")),
        }
    } else {
        bail!("the config's `http:` is neither a block nor a {{…}} mapping; edit it by hand");
    }
    let mut out = lines.join("\n");
    out.push('\n');
    Ok((out, false))
}

/// A top-level `key:` line.
fn is_key(line: &str, key: &str) -> bool {
    line.strip_prefix(key).is_some_and(|r| r.starts_with(':'))
}

/// The index after the last line of the block whose key is on line `at`.
fn block_end(lines: &[String], at: usize) -> usize {
    let mut end = at + 1;
    for (i, l) in lines.iter().enumerate().skip(at + 1) {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if !l.starts_with([' ', '\t']) {
            break;
        }
        end = i + 1;
    }
    end
}

/// The indentation of a block's keys (two spaces for an empty block).
fn block_indent(block: &[String]) -> String {
    block
        .iter()
        .find(|l| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with('#')
        })
        .map(|l| l[..l.len() - l.trim_start().len()].to_string())
        .unwrap_or_else(|| "  ".into())
}

/// `http: {listen: …}` rewritten as a block with the hash entry in it (each value as
/// JSON, which YAML reads the same); a trailing comment stays above it.
fn flow_to_block(rest: &str, entry: &str) -> Result<Vec<String>> {
    let (flow, comment) = match rest.rfind('}') {
        Some(i) => (&rest[..=i], rest[i + 1..].trim()),
        None => bail!("the config's `http: {{` mapping spans several lines; edit it by hand"),
    };
    let map: serde_yaml::Mapping =
        serde_yaml::from_str(flow).context("the config's `http:` mapping does not parse")?;
    let mut out = Vec::new();
    if comment.starts_with('#') {
        out.push(comment.to_string());
    }
    out.push("http:".to_string());
    for (k, v) in &map {
        let Some(k) = k.as_str() else {
            bail!("the config's `http:` mapping has a key that is not text");
        };
        if k != "gm_password_hash" {
            out.push(format!("  {k}: {}", serde_json::to_string(v)?));
        }
    }
    out.push(format!("  {entry}"));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA";

    #[test]
    fn the_hash_is_added_to_an_existing_block_and_comments_stay() {
        let text = "game: {}\n# the site\nhttp:\n    # where\n    listen: 127.0.0.1:8025 # here\nlimits: {}\n";
        let (out, created) = set_password_hash(text, H).unwrap();
        assert!(!created);
        assert_eq!(
            out,
            format!("game: {{}}\n# the site\nhttp:\n    gm_password_hash: \"{H}\"\n    # where\n    listen: 127.0.0.1:8025 # here\nlimits: {{}}\n")
        );
    }

    #[test]
    fn an_old_hash_is_replaced_not_repeated() {
        let text = "http:\n  listen: 127.0.0.1:8025\n  gm_password_hash: \"$argon2id$old\"\nx: 1\n";
        let (out, _) = set_password_hash(text, H).unwrap();
        assert_eq!(out.matches("gm_password_hash").count(), 1);
        assert!(out.contains(H) && !out.contains("old"), "{out}");
        assert!(out.ends_with("x: 1\n"));
    }

    #[test]
    fn a_missing_block_is_created_and_a_flow_block_becomes_a_block() {
        let (out, created) = set_password_hash("game: {}", H).unwrap();
        assert!(created);
        assert!(
            out.starts_with("game: {}\nhttp:\n") && out.contains(H),
            "{out}"
        );
        let (out, created) =
            set_password_hash("a: 1\nhttp: {listen: \"127.0.0.1:0\"} # web\nb: 2\n", H).unwrap();
        assert!(!created);
        assert_eq!(
            out,
            format!("a: 1\n# web\nhttp:\n  listen: \"127.0.0.1:0\"\n  gm_password_hash: \"{H}\"\nb: 2\n")
        );
        let v: serde_yaml::Value = serde_yaml::from_str(&out).unwrap();
        assert_eq!(v["http"]["gm_password_hash"].as_str(), Some(H));
    }
}
