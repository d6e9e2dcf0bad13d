//! The documentation holds together: every relative link and anchor in README.md and
//! the book (docs/) leads somewhere, every page of docs/SUMMARY.md exists, and no page
//! keeps a diary of measurements (the current figures live in one table in
//! docs/dev/benchmarks.md, with their commit and command).

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown file under docs/, as paths relative to the root.
fn documents() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.expect("a readable folder entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "md") {
                out.push(path);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut out);
    out.into_iter()
        .map(|p| {
            p.strip_prefix(root())
                .expect("under the root")
                .to_path_buf()
        })
        .collect()
}

/// One line of a document with the code taken out: fenced blocks are skipped by the
/// caller, inline code spans are blanked here (a link inside backticks is text).
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if in_code {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// The lines of a Markdown text outside fenced code blocks, with their numbers.
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let marker = if t.starts_with("```") {
            Some("```")
        } else if t.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            (Some(_), _) => {}
            (None, None) => out.push((i + 1, without_code_spans(line))),
        }
    }
    out
}

/// A heading's anchor as mdBook makes it: letters and digits lower-cased, `-` and `_`
/// kept, white space to `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The visible text of a heading: emphasis, code marks and link targets left out.
fn heading_text(raw: &str) -> String {
    let mut out = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' | '`' | '[' => {}
            '_' if out.is_empty() || out.ends_with(' ') => {}
            ']' => {
                if chars.peek() == Some(&'(') {
                    for d in chars.by_ref() {
                        if d == ')' {
                            break;
                        }
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out.trim().trim_end_matches('_').trim().to_string()
}

/// Every anchor a document offers: its headings (with mdBook's `-1`, `-2` for
/// repeats, or a `{#id}` of their own) and HTML `id="…"` attributes.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("id=\"") {
            let after = &rest[at + 4..];
            if let Some(end) = after.find('"') {
                out.insert(after[..end].to_string());
            }
            rest = &after[after.find('"').map_or(after.len(), |e| e + 1)..];
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let mut title = line[hashes..].trim();
        if let Some(open) = title.rfind("{#") {
            if title.ends_with('}') {
                out.insert(title[open + 2..title.len() - 1].to_string());
                continue;
            }
            title = title[..open].trim();
        }
        let base = slug(&heading_text(title));
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// The link targets on one prose line: Markdown `](target)` and HTML `href="…"` /
/// `src="…"`.
fn targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = after.find(')').unwrap_or(after.len());
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target.trim_matches(['<', '>']).to_string());
        rest = &after[end.min(after.len())..];
    }
    for attr in ["href=\"", "src=\""] {
        let mut rest = line;
        while let Some(at) = rest.find(attr) {
            let after = &rest[at + attr.len()..];
            let end = after.find('"').unwrap_or(after.len());
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// What is wrong with one link from `doc`, or None.
fn check_link(doc: &Path, target: &str, cache: &mut HashMap<PathBuf, String>) -> Option<String> {
    if target.is_empty()
        || target.contains("://")
        || target.starts_with("mailto:")
        || target.starts_with('{')
    {
        return None;
    }
    let (file, anchor) = match target.split_once('#') {
        Some((f, a)) => (f, Some(a)),
        None => (target, None),
    };
    if file.starts_with('/') {
        return Some("an absolute path: links must be relative".into());
    }
    let linked = if file.is_empty() {
        doc.to_path_buf()
    } else {
        normalise(&doc.parent().unwrap_or(Path::new("")).join(file))
    };
    if doc.starts_with("docs") && !linked.starts_with("docs") {
        return Some(format!(
            "leaves the book ({}): the built book would not have it; name the file in code instead",
            linked.display()
        ));
    }
    let full = root().join(&linked);
    if !full.exists() {
        return Some(format!("no such file {}", linked.display()));
    }
    let anchor = anchor?;
    if full.extension().is_none_or(|x| x != "md") {
        return Some("an anchor into a file that is not Markdown".into());
    }
    let text = cache
        .entry(linked.clone())
        .or_insert_with(|| std::fs::read_to_string(&full).unwrap_or_default());
    if anchors(text).contains(anchor) {
        None
    } else {
        Some(format!("{} has no anchor #{anchor}", linked.display()))
    }
}

#[test]
fn every_relative_link_and_anchor_in_the_readme_and_the_book_leads_somewhere() {
    let mut cache = HashMap::new();
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(root().join(&doc)).expect("readable");
        for (n, line) in prose_lines(&text) {
            for target in targets(&line) {
                checked += 1;
                if let Some(why) = check_link(&doc, &target, &mut cache) {
                    broken.push(format!("{}:{n}: ({target}) {why}", doc.display()));
                }
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} links found: the scan is broken"
    );
    assert!(
        broken.is_empty(),
        "{} broken link(s):\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn every_page_the_summary_names_exists_and_every_page_is_in_the_summary() {
    let summary = std::fs::read_to_string(root().join("docs/SUMMARY.md")).expect("SUMMARY.md");
    let named: BTreeSet<PathBuf> = prose_lines(&summary)
        .iter()
        .flat_map(|(_, l)| targets(l))
        .map(|t| PathBuf::from("docs").join(t))
        .collect();
    let missing: Vec<_> = named
        .iter()
        .filter(|p| !root().join(p).exists())
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "SUMMARY.md names missing pages: {missing:?}"
    );
    let left_out: Vec<_> = documents()
        .into_iter()
        .filter(|d| d.starts_with("docs") && !d.ends_with("SUMMARY.md") && !named.contains(d))
        .map(|d| d.display().to_string())
        .collect();
    assert!(
        left_out.is_empty(),
        "pages not in docs/SUMMARY.md (the book would not show them): {left_out:?}"
    );
}

/// A line that records a measurement with its date or its session: a diary entry.
fn diary_reason(line: &str) -> Option<&'static str> {
    let lower = line.to_lowercase();
    for phrase in [
        "last session",
        "this session",
        "previous session",
        "next session",
        "run after run",
    ] {
        if lower.contains(phrase) {
            return Some("speaks of sessions or runs over time");
        }
    }
    let bytes = line.as_bytes();
    let has_date = bytes.windows(10).any(|w| {
        w[..4].iter().all(u8::is_ascii_digit)
            && w[4] == b'-'
            && w[5..7].iter().all(u8::is_ascii_digit)
            && w[7] == b'-'
            && w[8..10].iter().all(u8::is_ascii_digit)
    });
    if !has_date {
        return None;
    }
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')' || c == '|')
        .filter(|w| !w.is_empty())
        .collect();
    let unit = |w: &str| {
        let w = w.trim_end_matches(['.', ';', ':']);
        [
            "ms",
            "µs",
            "s",
            "×",
            "%",
            "MB",
            "GB",
            "MiB",
            "KB",
            "instructions",
        ]
        .contains(&w)
            || ["ms", "µs", "×", "%", "MB", "GB", "MiB"]
                .iter()
                .any(|u| w.ends_with(u) && w[..w.len() - u.len()].parse::<f64>().is_ok())
    };
    words
        .iter()
        .any(|w| unit(w))
        .then_some("a dated measurement")
}

#[test]
fn no_page_keeps_a_diary_of_measurements() {
    let mut found = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(root().join(&doc)).expect("readable");
        for (i, line) in text.lines().enumerate() {
            if let Some(why) = diary_reason(line) {
                found.push(format!("{}:{}: {why}: {line}", doc.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "diary lines (keep the current figures in docs/dev/benchmarks.md's table, with \
         their commit and command; git keeps the history):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_diary_check_finds_a_dated_figure_and_passes_a_game_date() {
    assert!(diary_reason("On 2026-12-03 the app took 2,715 ms for 100,000 groups").is_some());
    assert!(diary_reason("10.4× on 2026-12-04 (one run in six)").is_some());
    assert!(diary_reason("Last session counted 412 thousand page faults").is_some());
    assert!(diary_reason("pbemd tick --now 2026-11-28T15:00:00+01:00").is_none());
    assert!(diary_reason("| app, Saturday → Monday | 253 ms | 2,637 ms |").is_none());
}

#[test]
fn anchors_follow_mdbook() {
    let text = "# The week\n## Who sent it?\n## Who sent it?\n### `gm queue` and *you*\n## Räkna {#count}\n<a id=\"d-12\"></a>\n```\n# not a heading\n```\n";
    let a = anchors(text);
    for want in [
        "the-week",
        "who-sent-it",
        "who-sent-it-1",
        "gm-queue-and-you",
        "count",
        "d-12",
    ] {
        assert!(a.contains(want), "{want} missing from {a:?}");
    }
    assert!(!a.contains("not-a-heading"));
}

#[test]
fn a_broken_link_is_found() {
    let mut cache = HashMap::new();
    let doc = Path::new("docs/SUMMARY.md");
    assert!(check_link(doc, "no/such/page.md", &mut cache).is_some());
    assert!(check_link(doc, "rules.md#no-such-anchor-here", &mut cache).is_some());
    assert!(check_link(doc, "../deploy/pbemd.example.yaml", &mut cache).is_some());
    assert!(check_link(doc, "rules.md", &mut cache).is_none());
    assert!(check_link(Path::new("README.md"), "docs/rules.md", &mut cache).is_none());
}
