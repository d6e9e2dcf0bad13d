//! The shell examples of the GM's guide (`docs/gm/*.md`) and the player's guide
//! (`docs/guide/*.md`) run against the built binary, so a guide cannot tell a GM to
//! type a command or an option that does not exist.
//!
//! Each page's ```` ```sh ```` blocks run in order as one bash script under
//! `set -euo pipefail`, in a fresh temporary directory, with the folder of the built
//! `pbemd` first on `PATH` and no servers. A block that cannot run there (it needs a
//! mail server, systemd, root, a real date …) has the line
//! `<!-- not run: REASON -->` directly above its fence and is skipped; a mark without
//! a reason, a mark above anything but an `sh` fence, and a shell block fenced as
//! `bash`, `shell` or `console` (which would escape this test) fail it. So every shell
//! example either runs or says why not.
//!
//! The harness itself is tested below on pages written for the purpose.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The mark that skips the block whose fence follows it.
const MARK_OPEN: &str = "<!-- not run";
/// Fence languages that are shell but not `sh`: refused, so no example escapes.
const OTHER_SHELLS: [&str; 4] = ["bash", "shell", "console", "shell-session"];
/// A page's examples must finish within this many seconds.
const PAGE_TIMEOUT_SECS: u32 = 300;

/// One ```` ```sh ```` block of a page.
#[derive(Debug)]
struct Block {
    /// 1-based line of the opening fence.
    line: usize,
    /// Its text, the fence's indentation taken off.
    text: String,
    /// `Some(reason)` when it is marked not to run.
    skip: Option<String>,
}

/// Reads the `sh` blocks of one page; `Err` names every line that breaks the rules.
fn blocks(page: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = page.lines().collect();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        let tildes = trimmed.chars().take_while(|&c| c == '~').count();
        if ticks < 3 && tildes < 3 {
            if trimmed.starts_with(MARK_OPEN) {
                let next_is_sh = lines
                    .get(i + 1)
                    .map(|l| fence_lang(l.trim_start()) == Some("sh"))
                    .unwrap_or(false);
                if !next_is_sh {
                    errors.push(format!(
                        "line {}: `{}` is not directly above a ```sh fence",
                        i + 1,
                        trimmed.trim_end()
                    ));
                }
            }
            i += 1;
            continue;
        }
        let (fence_char, fence_len) = if ticks >= 3 {
            ('`', ticks)
        } else {
            ('~', tildes)
        };
        let lang = fence_lang(trimmed).unwrap_or("");
        let start = i;
        // Find the closing fence: the same character, at least as long, nothing else.
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() {
            let t = lines[i].trim();
            if t.len() >= fence_len && t.chars().all(|c| c == fence_char) {
                break;
            }
            body.push(strip_indent(lines[i], indent));
            i += 1;
        }
        if i == lines.len() {
            errors.push(format!("line {}: the fence is never closed", start + 1));
        }
        i += 1;
        if OTHER_SHELLS.contains(&lang) {
            errors.push(format!(
                "line {}: a ```{lang} block; fence shell examples as ```sh (run by this test) \
                 or mark them `<!-- not run: REASON -->`",
                start + 1
            ));
            continue;
        }
        if lang != "sh" {
            continue;
        }
        let skip = match start.checked_sub(1).map(|j| lines[j].trim()) {
            Some(above) if above.starts_with(MARK_OPEN) => match mark_reason(above) {
                Some(reason) => Some(reason),
                None => {
                    errors.push(format!(
                        "line {}: `{above}` gives no reason; write `<!-- not run: REASON -->`",
                        start
                    ));
                    continue;
                }
            },
            _ => None,
        };
        let mut text = body.join("\n");
        text.push('\n');
        out.push(Block {
            line: start + 1,
            text,
            skip,
        });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors.join("\n"))
    }
}

/// The language of a fence line (```` ```sh ```` → `sh`), `None` for any other line.
fn fence_lang(trimmed: &str) -> Option<&str> {
    let rest = trimmed
        .strip_prefix("```")
        .or_else(|| trimmed.strip_prefix("~~~"))?;
    let rest = rest.trim_start_matches(['`', '~']);
    Some(rest.split([' ', ',', '{']).next().unwrap_or("").trim())
}

/// The reason of `<!-- not run: REASON -->`, `None` when it is missing or empty.
fn mark_reason(line: &str) -> Option<String> {
    let inner = line.strip_prefix(MARK_OPEN)?.strip_suffix("-->")?;
    let reason = inner.trim_start().strip_prefix(':')?.trim();
    (!reason.is_empty()).then(|| reason.to_string())
}

fn strip_indent(line: &str, indent: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(indent)..]
}

/// What running one page gave: how many blocks ran and were skipped.
#[derive(Debug, PartialEq)]
struct Ran {
    run: usize,
    skipped: usize,
}

/// Runs one page's `sh` blocks as one script in a fresh directory; `Err` names the
/// page, the failing block's line and its output.
fn run_page(name: &str, page: &str, bin_dir: &Path) -> Result<Ran, String> {
    let blocks = blocks(page).map_err(|e| format!("{name}:\n{e}"))?;
    let to_run: Vec<&Block> = blocks.iter().filter(|b| b.skip.is_none()).collect();
    let ran = Ran {
        run: to_run.len(),
        skipped: blocks.len() - to_run.len(),
    };
    if to_run.is_empty() {
        return Ok(ran);
    }
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temp dir: {e}"))?;
    let mark_file = dir.path().join(".docs-block");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).map_err(|e| format!("cannot make {}: {e}", work.display()))?;
    let mut script = String::from("set -euo pipefail\nexec 2>&1\n");
    for b in &to_run {
        // The mark file says which block runs; the banner splits the output per block.
        let _ = writeln!(
            script,
            "printf '%s\\n' {line} > \"$DOCS_BLOCK_FILE\"; printf '\\n@@@ block {line}\\n'",
            line = b.line
        );
        script.push_str(&b.text);
    }
    let script_file = dir.path().join("page.sh");
    std::fs::write(&script_file, &script).map_err(|e| format!("cannot write the script: {e}"))?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin_dir.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(paths).map_err(|e| e.to_string())?;
    let output = Command::new("timeout")
        .arg(PAGE_TIMEOUT_SECS.to_string())
        .arg("bash")
        .arg(&script_file)
        .current_dir(&work)
        .env("PATH", path)
        .env("DOCS_BLOCK_FILE", &mark_file)
        .env("HOME", dir.path())
        .env("NO_COLOR", "1")
        .env_remove("PBEMD_IMAP_PASSWORD")
        .env_remove("PBEMD_SMTP_PASSWORD")
        .env_remove("PBEMD_WEBHOOK_SECRET")
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run bash: {e}"))?;
    if output.status.success() {
        return Ok(ran);
    }
    let all = String::from_utf8_lossy(&output.stdout);
    let line = std::fs::read_to_string(&mark_file)
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "?".into());
    let banner = format!("@@@ block {line}\n");
    let block_output = all.rsplit_once(&banner).map(|(_, o)| o).unwrap_or(&all);
    let status = match output.status.code() {
        Some(124) => format!("timed out after {PAGE_TIMEOUT_SECS} s"),
        Some(code) => format!("exit {code}"),
        None => "killed by a signal".into(),
    };
    let text = to_run
        .iter()
        .find(|b| b.line.to_string() == line)
        .map(|b| b.text.as_str())
        .unwrap_or("");
    Err(format!(
        "{name}: the ```sh block at line {line} failed ({status}).\n\
         --- the block ---\n{text}--- its output ---\n{block_output}\n\
         (mark a block that cannot run without servers with `<!-- not run: REASON -->` \
         directly above its fence)"
    ))
}

fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_pbemd"))
        .parent()
        .expect("the binary has a folder")
        .to_path_buf()
}

/// Every page of the GM's guide and the player's guide, sorted.
fn guide_pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut pages = Vec::new();
    for folder in ["gm", "guide"] {
        let dir = root.join(folder);
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

#[test]
fn the_guides_shell_examples_run() {
    let bin = bin_dir();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pages = guide_pages();
    assert!(
        pages.iter().any(|p| p.ends_with("gm/first-game.md")),
        "docs/gm/first-game.md is missing: {pages:?}"
    );
    // The pages run side by side; each has its own directory.
    let results: Vec<(String, Result<Ran, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = pages
            .iter()
            .map(|page| {
                let bin = &bin;
                s.spawn(move || {
                    let name = page
                        .strip_prefix(root)
                        .unwrap_or(page)
                        .display()
                        .to_string();
                    let text = std::fs::read_to_string(page)
                        .unwrap_or_else(|e| panic!("cannot read {name}: {e}"));
                    let result = run_page(&name, &text, bin);
                    (name, result)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failures = Vec::new();
    let mut run = 0;
    for (name, result) in results {
        match result {
            Ok(r) => {
                eprintln!("{name}: {} block(s) run, {} skipped", r.run, r.skipped);
                run += r.run;
            }
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
    assert!(run > 0, "no ```sh block ran in docs/gm or docs/guide");
}

// --- the harness itself ---

fn run_test_page(page: &str) -> Result<Ran, String> {
    run_page("docs/gm/test-page.md", page, &bin_dir())
}

#[test]
fn a_failing_block_fails_naming_the_page_its_line_and_its_output() {
    let page = "# A page\n\n```sh\necho first block\n```\n\nText.\n\n```sh\necho boom\nfalse\necho never\n```\n";
    let err = run_test_page(page).unwrap_err();
    assert!(err.contains("docs/gm/test-page.md"), "{err}");
    assert!(err.contains("block at line 9 failed (exit 1)"), "{err}");
    let (block, output) = err
        .split_once("--- its output ---")
        .expect("the output is shown");
    assert!(
        block.contains("echo never"),
        "the block's text is shown: {err}"
    );
    assert!(output.contains("boom"), "{err}");
    assert!(
        !output.contains("never"),
        "the script stops at the failure: {err}"
    );
    assert!(
        !output.contains("first block"),
        "only the failing block's output: {err}"
    );
}

#[test]
fn a_failing_command_in_a_pipe_fails_the_block() {
    let err = run_test_page("```sh\nfalse | cat\n```\n").unwrap_err();
    assert!(err.contains("line 1 failed"), "{err}");
}

#[test]
fn a_marked_block_is_skipped() {
    let page = "```sh\necho ran\n```\n<!-- not run: needs a mail server -->\n```sh\nexit 1\n```\n";
    assert_eq!(run_test_page(page), Ok(Ran { run: 1, skipped: 1 }));
}

#[test]
fn a_mark_without_a_reason_fails() {
    for mark in [
        "<!-- not run -->",
        "<!-- not run: -->",
        "<!-- not run:   -->",
    ] {
        let page = format!("{mark}\n```sh\nexit 1\n```\n");
        let err = run_test_page(&page).unwrap_err();
        assert!(err.contains("gives no reason"), "{mark}: {err}");
    }
}

#[test]
fn a_mark_not_above_an_sh_fence_fails() {
    let page =
        "<!-- not run: a server -->\n\n```sh\ntrue\n```\n<!-- not run: text -->\n```text\nx\n```\n";
    let err = run_test_page(page).unwrap_err();
    assert!(err.contains("line 1:"), "{err}");
    assert!(err.contains("line 6:"), "{err}");
}

#[test]
fn a_shell_block_fenced_otherwise_fails() {
    for lang in OTHER_SHELLS {
        let page = format!("```{lang}\ntrue\n```\n");
        let err = run_test_page(&page).unwrap_err();
        assert!(
            err.contains("fence shell examples as ```sh"),
            "{lang}: {err}"
        );
    }
}

#[test]
fn blocks_share_one_shell_and_directory_with_pbemd_on_the_path() {
    let page = "1. A step:\n\n   ```sh\n   x=1\n   echo hello > file\n   ```\n\n```sh\ntest \"$x\" = 1\ntest -f file\ntest \"$(command -v pbemd)\" -ef \"$PBEMD_EXPECTED\"\n```\n";
    // The expected binary is passed the same way the page finds it: by PATH.
    let page = page.replace("$PBEMD_EXPECTED", env!("CARGO_BIN_EXE_pbemd"));
    assert_eq!(run_test_page(&page), Ok(Ran { run: 2, skipped: 0 }));
}

#[test]
fn an_unclosed_fence_fails() {
    let err = run_test_page("```sh\ntrue\n").unwrap_err();
    assert!(err.contains("never closed"), "{err}");
}
