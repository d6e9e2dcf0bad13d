//! Keeps `docs/reference/decisions.md` and its citations honest. Every decision there
//! has a heading `### D-N Title {#d-N}`: the IDs are 1, 2, … once each, with nothing
//! skipped (a withdrawn decision keeps its heading, marked withdrawn), and each
//! heading carries its own anchor. Every `D-N` cited under `src/`, `tests/`, `docs/`,
//! `templates/`, `scenarios/` or `deploy/` must be one of them. And no comment cites
//! the README for what the book now holds: the code cites a decision by its ID and
//! anything else by its book page.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Folders whose files may cite a decision.
const CITING: &[&str] = &["src", "tests", "docs", "templates", "scenarios", "deploy"];

/// How a comment cited the README before the book.
const README_CITATIONS: &[&str] = &["README, ", "(README", "see README", "README.md for"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every text file under the given top folders, as (path relative to the root, text).
fn sources(tops: &[&str]) -> Vec<(String, String)> {
    let root = root();
    let mut paths = Vec::new();
    for top in tops {
        files_under(&root.join(top), &mut paths);
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let rel = p
                .strip_prefix(&root)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            Some((rel, text))
        })
        .collect()
}

fn decisions_page() -> String {
    std::fs::read_to_string(root().join("docs/reference/decisions.md"))
        .expect("docs/reference/decisions.md is readable")
}

/// The decision IDs cited in `text` (`D-12` → 12): a `D-` not glued to a letter,
/// digit or hyphen before it, then digits not followed by another digit.
fn citations(text: &str) -> Vec<u32> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = text[i..].find("D-") {
        let s = i + at;
        i = s + 2;
        let glued = s > 0 && (b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'-');
        let end = b[i..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .map_or(b.len(), |n| i + n);
        if !glued && end > i {
            out.push(text[i..end].parse().expect("digits"));
        }
    }
    out
}

/// The page's decision headings: `### D-N Title {#d-N}` → (N, the anchor's N, if any).
fn headings(page: &str) -> Vec<(u32, Option<u32>)> {
    page.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("### D-")?;
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let id = digits.parse().ok()?;
            let anchor = line
                .trim_end()
                .strip_suffix('}')
                .and_then(|l| l.rsplit_once("{#d-"))
                .and_then(|(_, n)| n.parse().ok());
            Some((id, anchor))
        })
        .collect()
}

#[test]
fn every_decision_has_one_id_in_order_and_its_own_anchor() {
    let found = headings(&decisions_page());
    assert!(!found.is_empty(), "no `### D-N` headings in decisions.md");
    let ids: Vec<u32> = found.iter().map(|h| h.0).collect();
    let expected: Vec<u32> = (1..=ids.len() as u32).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted, expected,
        "decision IDs must be 1..N once each (a dropped decision keeps its heading, marked withdrawn)"
    );
    let bad: Vec<String> = found
        .iter()
        .filter(|(id, anchor)| *anchor != Some(*id))
        .map(|(id, anchor)| format!("D-{id}: anchor {anchor:?}, want {{#d-{id}}}"))
        .collect();
    assert!(
        bad.is_empty(),
        "headings without their own anchor:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_cited_decision_exists() {
    let known: BTreeSet<u32> = headings(&decisions_page())
        .into_iter()
        .map(|h| h.0)
        .collect();
    let mut missing: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for (path, text) in sources(CITING) {
        if path == "tests/decisions.rs" {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            for id in citations(line) {
                if !known.contains(&id) {
                    missing
                        .entry(id)
                        .or_default()
                        .push(format!("{path}:{}", n + 1));
                }
            }
        }
    }
    let report: Vec<String> = missing
        .iter()
        .map(|(id, at)| format!("D-{id} (cited at {})", at.join(", ")))
        .collect();
    assert!(
        report.is_empty(),
        "docs/reference/decisions.md has no decision:\n{}",
        report.join("\n")
    );
}

#[test]
fn no_comment_cites_the_readme_for_what_the_book_holds() {
    let mut found = Vec::new();
    for (path, text) in sources(&["src", "tests"]) {
        if !path.ends_with(".rs") || path == "tests/decisions.rs" {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let Some(at) = line.find("//") else { continue };
            let comment = &line[at..];
            if README_CITATIONS.iter().any(|c| comment.contains(c)) {
                found.push(format!("{path}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "cite the book instead (a decision as `(D-12)`, else `(docs/PAGE.md, Section)`):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scanner_reads_ids_and_skips_glued_ones() {
    assert_eq!(citations("(D-12), D-3; see D-45."), [12, 3, 45]);
    assert_eq!(citations("Q-D-1 XD-2 AD-3 D- D-x"), Vec::<u32>::new());
    assert_eq!(
        headings("### D-1 One {#d-1}\n### D-2 Two\n## D-3 no\n### D-4 Four {#d-5}\n"),
        [(1, Some(1)), (2, None), (4, Some(5))]
    );
}
