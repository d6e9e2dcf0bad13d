//! Keeps `docs/rules.md` honest. Every rule ID (`R-MOVE-1`, ranges such as
//! `R-MOVE-1..12` by their two ends, lists such as `R-SPELL-7/8` by each number)
//! and every `RULINGS N` cited anywhere under `src/`, `tests/` or `templates/`
//! (and in the reference's own text) must have its row in the reference, and
//! every test the reference names must exist as `fn NAME` under `src/` or
//! `tests/`. Family-only mentions (`R-UNIT`) are not checked. This file is not scanned, so its own examples below do not
//! count as citations.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SELF: &str = "rule_reference.rs";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir`, recursively, in a stable order.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The text of every scanned file under the given top folders, with its
/// path relative to the repository.
fn sources(tops: &[&str]) -> Vec<(String, String)> {
    let mut paths = Vec::new();
    for top in tops {
        files_under(&root().join(top), &mut paths);
    }
    paths
        .into_iter()
        .filter(|p| p.file_name().and_then(|n| n.to_str()) != Some(SELF))
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            let rel = p.strip_prefix(root()).unwrap_or(&p).display().to_string();
            Some((rel, String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect()
}

/// Reads a run of ASCII digits at `i`; returns the number text and the end.
fn digits(b: &[u8], i: usize) -> Option<(&str, usize)> {
    let end = i + b[i.min(b.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    (end > i).then(|| (std::str::from_utf8(&b[i..end]).unwrap_or(""), end))
}

/// The rule IDs and `RULINGS N` citations in `text`, in order. One pass over
/// the bytes; each match is bounded by the text after it.
fn citations(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let glued = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if !glued && b[i..].starts_with(b"R-") {
            if let Some(next) = rule_id(b, i, &mut out) {
                i = next;
                continue;
            }
        }
        if !glued && b[i..].starts_with(b"RULINGS ") {
            if let Some((n, end)) = digits(b, i + 8) {
                out.push(format!("RULINGS {n}"));
                i = end;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// `R-FAMILY-N`, then any `..M` or `/M` (same family) at `i`; pushes each ID
/// and returns where the match ends, or `None` for a family-only mention.
fn rule_id(b: &[u8], i: usize, out: &mut Vec<String>) -> Option<usize> {
    let fam_start = i + 2;
    let fam_len = b[fam_start..]
        .iter()
        .take_while(|c| c.is_ascii_uppercase())
        .count();
    let dash = fam_start + fam_len;
    if fam_len == 0 || b.get(dash) != Some(&b'-') {
        return None;
    }
    let family = std::str::from_utf8(&b[fam_start..dash]).ok()?;
    let (n, mut end) = digits(b, dash + 1)?;
    out.push(format!("R-{family}-{n}"));
    loop {
        let skip = if b[end..].starts_with(b"..") {
            2
        } else if b[end..].starts_with(b"/") {
            1
        } else {
            break;
        };
        match digits(b, end + skip) {
            Some((m, e)) => {
                out.push(format!("R-{family}-{m}"));
                end = e;
            }
            None => break,
        }
    }
    Some(end)
}

/// The cells of a markdown table row, split on `|` that is not escaped.
fn cells(line: &str) -> Option<Vec<String>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    let mut cells = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => cells.push(String::new()),
            c => cells.last_mut().unwrap().push(c),
        }
    }
    Some(cells.into_iter().map(|c| c.trim().to_string()).collect())
}

/// The reference's rows: first cell (the rule ID or `RULINGS N`) → the last
/// cell (the tests), for every table row whose first cell is one of those.
fn reference_rows(doc: &str) -> Vec<(String, String)> {
    doc.lines()
        .filter_map(cells)
        .filter(|c| c.len() == 4)
        .filter(|c| {
            let key = c[0].as_str();
            (key.starts_with("R-") || key.starts_with("RULINGS ")) && citations(key) == [key]
        })
        .map(|c| (c[0].clone(), c[3].clone()))
        .collect()
}

/// Every cited ID missing from the reference, with where it is cited.
fn missing(doc: &str, files: &[(String, String)]) -> BTreeMap<String, Vec<String>> {
    let known: BTreeSet<String> = reference_rows(doc).into_iter().map(|r| r.0).collect();
    let mut gaps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, text) in files {
        for (no, line) in text.lines().enumerate() {
            for id in citations(line) {
                if !known.contains(&id) {
                    gaps.entry(id)
                        .or_default()
                        .push(format!("{path}:{}", no + 1));
                }
            }
        }
    }
    gaps
}

/// The names in backticks in a test cell; "—" means none yet.
fn test_names(cell: &str) -> Result<Vec<String>, String> {
    if cell == "—" {
        return Ok(Vec::new());
    }
    let names: Vec<String> = cell
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    let valid = |n: &String| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    if names.is_empty() || !names.iter().all(valid) {
        return Err(format!("test cell is neither \"—\" nor `fn_name`s: {cell}"));
    }
    Ok(names)
}

/// Every function name defined (`fn NAME`) in the given texts.
fn defined_fns(files: &[(String, String)]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, text) in files {
        let mut rest = text.as_str();
        while let Some(at) = rest.find("fn ") {
            let glued = rest[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let after = &rest[at + 3..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !glued && !name.is_empty() {
                out.insert(name);
            }
            rest = after;
        }
    }
    out
}

fn doc() -> String {
    std::fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md is readable")
}

#[test]
fn every_rule_id_and_ruling_cited_in_the_code_is_in_docs_rules_md() {
    let mut files = sources(&["src", "tests", "templates"]);
    assert!(files.len() > 20, "scanned only {} files", files.len());
    // The reference's own cross-references must point at rows too.
    files.push(("docs/rules.md".to_string(), doc()));
    let gaps = missing(&doc(), &files);
    let report: Vec<String> = gaps
        .iter()
        .map(|(id, at)| format!("{id} (cited at {})", at.join(", ")))
        .collect();
    assert!(
        report.is_empty(),
        "docs/rules.md has no row for:\n{}",
        report.join("\n")
    );
}

#[test]
fn every_test_named_in_docs_rules_md_exists() {
    let fns = defined_fns(&sources(&["src", "tests"]));
    let mut problems = Vec::new();
    let rows = reference_rows(&doc());
    assert!(rows.len() > 200, "only {} reference rows found", rows.len());
    for (key, cell) in rows {
        match test_names(&cell) {
            Err(e) => problems.push(format!("{key}: {e}")),
            Ok(names) => problems.extend(
                names
                    .into_iter()
                    .filter(|n| !fns.contains(n))
                    .map(|n| format!("{key}: no `fn {n}` under src/ or tests/")),
            ),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_rulings_are_numbered_1_to_64_once_each_and_rule_rows_are_unique() {
    let rows = reference_rows(&doc());
    let mut seen = BTreeSet::new();
    let dups: Vec<&String> = rows
        .iter()
        .map(|r| &r.0)
        .filter(|k| !seen.insert(*k))
        .collect();
    assert!(dups.is_empty(), "rows given twice: {dups:?}");
    let rulings: Vec<u32> = rows
        .iter()
        .filter_map(|r| r.0.strip_prefix("RULINGS ")?.parse().ok())
        .collect();
    assert_eq!(rulings, (1..=64).collect::<Vec<u32>>());
}

#[test]
fn the_scanner_reads_ranges_lists_and_rulings_and_skips_families() {
    let found = citations(
        "see R-MOVE-1..12, R-SPELL-7/8, RULINGS 13; R-UNIT and XR-GEN-1 are not; (R-GEN-5).",
    );
    assert_eq!(
        found,
        [
            "R-MOVE-1",
            "R-MOVE-12",
            "R-SPELL-7",
            "R-SPELL-8",
            "RULINGS 13",
            "R-GEN-5"
        ]
    );
}

#[test]
fn a_citation_without_a_row_is_reported_with_where_it_is_cited() {
    let doc = "| Rule | a | b | c |\n|---|---|---|---|\n| R-GEN-1 | x | fixed | — |\n";
    let files = vec![(
        "src/x.rs".to_string(),
        "// R-GEN-1\n// R-GEN-2 and RULINGS 4\n".to_string(),
    )];
    let gaps = missing(doc, &files);
    assert_eq!(gaps.keys().collect::<Vec<_>>(), ["R-GEN-2", "RULINGS 4"]);
    assert_eq!(gaps["R-GEN-2"], ["src/x.rs:2"]);
}

#[test]
fn a_test_cell_naming_no_real_function_is_refused() {
    assert_eq!(test_names("—").unwrap(), Vec::<String>::new());
    assert_eq!(
        test_names("`a_b`, `c_1` (row d)").unwrap(),
        ["a_b".to_string(), "c_1".to_string()]
    );
    assert!(test_names("none yet").is_err());
    assert!(test_names("`Not A Name`").is_err());
    let fns = defined_fns(&[("t.rs".into(), "async fn real_one() {}\nfn  x(){}".into())]);
    assert!(fns.contains("real_one") && !fns.contains("a_b"));
}
