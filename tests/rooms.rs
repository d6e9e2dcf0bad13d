//! The pure rooms stay pure, and the rooms agree on names.
//!
//! `src/game`, `src/courier` and `src/forms` do no I/O, read no clock and
//! know nothing of mail, rendering, the store or the app: a scan of their
//! code (comments aside) for the paths that would break that fails naming
//! the file and line. And one name folding serves every room, so a realm
//! written `Östvik`, `OSTVIK`, `ostvik` or in decomposed Unicode is the same
//! realm in a subject line, on a form and in a spy's mission.

use std::path::{Path, PathBuf};

use pbemd::forms::read_form;
use pbemd::game::{load_scenario, GameState};
use pbemd::mail::subject::parse_subject;

const PURE_ROOMS: &[&str] = &["src/game", "src/courier", "src/forms"];

/// What a pure room may not name.
const FORBIDDEN: &[&str] = &[
    "crate::mail",
    "crate::render",
    "crate::app",
    "crate::store",
    "crate::transport",
    "tokio",
    "sqlx",
    "lettre",
    "std::fs",
    "SystemTime",
    "Utc::now",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `file:line: text` for every forbidden name on a code line of `text`.
fn violations(rel: &str, text: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .flat_map(|(i, l)| {
            FORBIDDEN
                .iter()
                .filter(|f| l.contains(*f))
                .map(move |f| format!("{rel}:{}: `{f}` in `{}`", i + 1, l.trim()))
        })
        .collect()
}

#[test]
fn pure_rooms_import_no_io_clock_mail_render_or_app() {
    let mut files = Vec::new();
    for room in PURE_ROOMS {
        rust_files(&root().join(room), &mut files);
    }
    assert!(files.len() > 10, "the rooms were found: {files:?}");
    let found: Vec<String> = files
        .iter()
        .flat_map(|p| {
            let rel = p.strip_prefix(root()).unwrap_or(p).display().to_string();
            violations(&rel, &std::fs::read_to_string(p).unwrap())
        })
        .collect();
    assert!(
        found.is_empty(),
        "pure rooms break purity:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_room_scan_names_file_and_line() {
    let text = "use crate::game::Lang;\n// crate::mail in a comment is fine\nuse crate::mail::subject::fold;\n";
    assert_eq!(
        violations("src/courier/x.rs", text),
        vec!["src/courier/x.rs:3: `crate::mail` in `use crate::mail::subject::fold;`".to_string()]
    );
}

/// Every way a player may write the realm called `Östvik`.
const SPELLINGS: &[&str] = &["Östvik", "OSTVIK", "ostvik", "O\u{308}stvik ", "öSTVIK"];

/// The demo game with Afani renamed `Östvik`.
fn with_ostvik() -> GameState {
    let s = load_scenario(include_str!("../scenarios/demo.yaml")).unwrap();
    let json = serde_json::to_string(&s)
        .unwrap()
        .replace("Afani", "Östvik");
    serde_json::from_str(&json).unwrap()
}

#[test]
fn a_realm_name_folds_alike_in_the_subject_line() {
    let realms = ["Genogien", "Östvik"];
    for name in SPELLINGS {
        let s = parse_subject(
            &format!("{name} skickar ett sändebud till Genogien"),
            &realms,
        )
        .unwrap_or_else(|e| panic!("{name:?}: {e}"));
        assert_eq!(s.from, "Östvik", "{name:?}");
        let s = parse_subject(&format!("Genogien sends an envoy to {name}"), &realms)
            .unwrap_or_else(|e| panic!("{name:?}: {e}"));
        assert_eq!(s.to.as_deref(), Some("Östvik"), "{name:?}");
    }
}

#[test]
fn a_realm_name_folds_alike_in_a_form_order() {
    let s = with_ostvik();
    for name in SPELLINGS {
        let c = read_form(&s, "Genogien", &format!("VÄN {name}"), &[]);
        assert_eq!(c.lines.len(), 1, "{name:?}");
        assert!(c.lines[0].accepted(), "{name:?}: {:?}", c.lines[0].refusal);
    }
}

#[test]
fn a_realm_name_folds_alike_in_the_courier() {
    use pbemd::game::state::SpyMission;
    let s = with_ostvik();
    for name in SPELLINGS {
        let m = pbemd::courier::parse_mission(&format!("Uppdrag: stjäl sändebud från {name}"), &s)
            .unwrap_or_else(|e| panic!("{name:?}: {e:?}"));
        assert_eq!(
            m,
            SpyMission::Steal {
                filter: Some("Östvik".into())
            },
            "{name:?}"
        );
    }
}
