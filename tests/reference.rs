//! The reference pages are the program's own definitions: the command reference and
//! the man pages come from the command line (`pbemd::cli::reference`), the
//! configuration table is checked against the config's keys (`pbemd::config::key_paths`),
//! the order table comes from the order grammar (`pbemd::forms::grammar`).
//!
//! A generated part that differs fails its test; `UPDATE_DOCS=1 cargo test --test
//! reference` writes it anew.

use std::collections::BTreeSet;
use std::path::PathBuf;

fn doc(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Compare the text between `start` and `end` in `page` with `generated`, or with
/// `UPDATE_DOCS` set write it there.
fn generated_part(page: &str, start: &str, end: &str, generated: &str) {
    let path = doc(page);
    let text = std::fs::read_to_string(&path).unwrap();
    let a = text
        .find(start)
        .unwrap_or_else(|| panic!("{page} has no marker {start:?}"))
        + start.len();
    let b = text[a..]
        .find(end)
        .unwrap_or_else(|| panic!("{page} has no marker {end:?}"))
        + a;
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, format!("{}{generated}{}", &text[..a], &text[b..])).unwrap();
        return;
    }
    if text[a..b] != *generated {
        let first = text[a..b]
            .lines()
            .zip(generated.lines())
            .find(|(x, y)| x != y);
        panic!(
            "the generated part of {page} is stale (first differing line: {first:?}); \
             rewrite it with UPDATE_DOCS=1 cargo test --test reference"
        );
    }
}

#[test]
fn the_command_reference_is_generated_from_the_command_line() {
    generated_part(
        "docs/reference/commands.md",
        pbemd::cli::reference::START,
        pbemd::cli::reference::END,
        &pbemd::cli::reference::markdown(),
    );
}

#[test]
fn every_command_has_its_heading_and_every_heading_is_a_command() {
    let page = std::fs::read_to_string(doc("docs/reference/commands.md")).unwrap();
    let headings: BTreeSet<String> = page
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter(|h| *h == "pbemd" || h.starts_with("pbemd "))
        .map(str::to_string)
        .collect();
    let commands: BTreeSet<String> = pbemd::cli::reference::command_paths().into_iter().collect();
    assert!(commands.contains("pbemd gm queue"), "{commands:?}");
    let missing: Vec<_> = commands.difference(&headings).collect();
    let unknown: Vec<_> = headings.difference(&commands).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "commands without a heading: {missing:?}; headings of no command: {unknown:?}"
    );
}

#[test]
fn a_man_page_for_pbemd_and_one_for_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let written = pbemd::cli::reference::write_man_pages(dir.path()).unwrap();
    let paths = pbemd::cli::reference::command_paths();
    assert_eq!(written.len(), paths.len());
    for path in paths {
        let name = path.replace(' ', "-");
        let file = dir.path().join(format!("{name}.1"));
        let page = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("no man page {}: {e}", file.display()))
            .replace("\\-", "-");
        // The title line and the NAME section name the command.
        assert!(
            page.contains(&format!(".TH {name} 1")),
            "{name}.1 has no title line naming it:\n{page}"
        );
        let name_section = page.split(".SH NAME\n").nth(1).unwrap_or_default();
        assert!(
            name_section.starts_with(&format!("{name} - ")),
            "{name}.1 has no NAME section naming it:\n{page}"
        );
    }
}

#[test]
fn the_configuration_keys_are_read_from_the_definitions() {
    let keys = pbemd::config::key_paths();
    for k in [
        "game.name",
        "database",
        "inbound.maildir",
        "inbound.imap.fetch_batch",
        "outbound.smtp.hello_name",
        "http.trusted_proxies",
        "season.max_absences",
        "render.realms_listed",
    ] {
        assert!(keys.iter().any(|x| x == k), "{k} missing from {keys:?}");
    }
    // A block is not a key of its own.
    for block in ["game", "inbound", "inbound.imap", "http"] {
        assert!(!keys.iter().any(|x| x == block), "{block} listed");
    }
    let values = pbemd::config::key_values();
    let tls = values
        .iter()
        .find(|(k, _)| k == "inbound.imap.tls")
        .unwrap();
    assert_eq!(tls.1, ["none", "starttls", "tls"]);
}

/// The keys named in the first column of the configuration table.
fn table_keys(page: &str) -> Vec<String> {
    page.lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l[3..].split('`').next().map(str::to_string))
        .collect()
}

#[test]
fn the_configuration_table_names_every_key_and_no_other() {
    let page = std::fs::read_to_string(doc("docs/reference/config.md")).unwrap();
    let table = table_keys(&page);
    let keys = pbemd::config::key_paths();
    assert!(keys.len() > 40, "{keys:?}");
    let table_set: BTreeSet<&String> = table.iter().collect();
    assert_eq!(table_set.len(), table.len(), "a key is in the table twice");
    let key_set: BTreeSet<&String> = keys.iter().collect();
    let missing: Vec<_> = key_set.difference(&table_set).collect();
    let unknown: Vec<_> = table_set.difference(&key_set).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "keys the table lacks: {missing:?}; table rows of no key: {unknown:?}"
    );
    // A key with a fixed set of values names each of them in its row.
    for (key, values) in pbemd::config::key_values() {
        let row = page
            .lines()
            .find(|l| l.starts_with(&format!("| `{key}` |")))
            .unwrap();
        for v in values {
            assert!(
                row.contains(&format!("`{v}`")),
                "the row of {key} does not name its value {v}"
            );
        }
    }
}

/// Every key path a YAML document sets (blocks are walked into).
fn yaml_keys(prefix: &str, v: &serde_yaml::Value, out: &mut Vec<String>) {
    if let serde_yaml::Value::Mapping(m) = v {
        for (k, v) in m {
            let k = k.as_str().expect("string keys");
            let path = format!("{prefix}{k}");
            if matches!(v, serde_yaml::Value::Mapping(_)) {
                yaml_keys(&format!("{path}."), v, out);
            } else {
                out.push(path);
            }
        }
    }
}

#[test]
fn the_example_configuration_is_every_key_and_only_real_ones() {
    let text = std::fs::read_to_string(doc("deploy/pbemd.example.yaml")).unwrap();
    let value: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let mut set = Vec::new();
    yaml_keys("", &value, &mut set);
    let keys = pbemd::config::key_paths();
    for k in &set {
        assert!(keys.contains(k), "the example sets {k}, which is no key");
    }
    // It is a configuration pbemd accepts, with its passwords in the environment.
    let env = |var: &str| Some(format!("{var}-value"));
    pbemd::config::Config::from_yaml(&text, &doc("deploy/pbemd.example.yaml"), &env)
        .unwrap_or_else(|e| panic!("the example does not load: {e}"));
    // Every key is shown, set or commented out (`# key:` counts).
    for k in &keys {
        let leaf = k.rsplit('.').next().unwrap();
        assert!(
            text.contains(&format!("{leaf}:")),
            "the example does not show {k}"
        );
    }
}

#[test]
fn the_order_grammar_table_is_the_order_table() {
    generated_part(
        "docs/reference/orders.md",
        "<!-- grammar:start -->\n",
        "<!-- grammar:end -->",
        &pbemd::forms::grammar::markdown_table(),
    );
}
