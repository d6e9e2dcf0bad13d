//! The GM's troubleshooting page (`docs/gm/troubleshooting.md`) quotes pbemd's
//! messages so a GM can search for the words they see: every `### ` heading's code
//! span is such a quote, and each must still occur in the source (`src/`), so the page
//! cannot keep an entry for a message that was changed or removed.

use std::path::Path;

/// Every `.rs` file under `dir`, its text with Rust's string continuations (`\` at a
/// line's end and the next line's leading white space) taken out, as the compiled
/// string has them.
fn sources(dir: &Path, out: &mut String) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            let mut lines = text.lines().peekable();
            while let Some(line) = lines.next() {
                match line.strip_suffix('\\') {
                    Some(head) => {
                        out.push_str(head);
                        if let Some(next) = lines.peek_mut() {
                            *next = next.trim_start();
                        }
                    }
                    None => {
                        out.push_str(line);
                        out.push('\n');
                    }
                }
            }
        }
    }
}

/// The first code span of each `### ` heading of `page`.
fn quoted_headings(page: &str) -> Vec<String> {
    page.lines()
        .filter_map(|l| l.strip_prefix("### "))
        .filter_map(|h| {
            let (_, rest) = h.split_once('`')?;
            let (quote, _) = rest.split_once('`')?;
            Some(quote.to_string())
        })
        .collect()
}

#[test]
fn every_message_the_troubleshooting_page_quotes_is_in_the_source() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/gm/troubleshooting.md")).unwrap();
    let mut src = String::new();
    sources(&root.join("src"), &mut src);
    let quotes = quoted_headings(&page);
    assert!(
        quotes.len() >= 40,
        "the page quotes too few messages: {quotes:?}"
    );
    let missing: Vec<&String> = quotes
        .iter()
        .filter(|q| !src.contains(q.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/gm/troubleshooting.md quotes messages pbemd no longer has: {missing:?}"
    );
}

#[test]
fn a_heading_quote_is_its_first_code_span_and_continuations_are_joined() {
    assert_eq!(
        quoted_headings("# T\n### `a b` and `c`\n### plain\n## `x`\n"),
        vec!["a b".to_string()]
    );
    let dir = std::env::temp_dir().join(format!("pbemd-docs-ts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.rs"), "let m = \"one \\\n        two\";\n").unwrap();
    let mut src = String::new();
    sources(&dir, &mut src);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(src.contains("\"one two\""), "{src}");
}
