//! Map pictures on the realms' mail, through the binary: the opening form and every
//! Monday form carry the realm's PNG (`karta.png` / `map.png`) after the unchanged
//! text, drawn from what that realm sees; a missing font still sends the pictures
//! (without text) and warns; `render.map_pictures: false` sends the plain forms.

mod common;

#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use game_dir::*;
use mail_parser::{MessageParser, MimeHeaders};
use pbemd::game::state::Dimension;
use pbemd::game::GameState;
use pbemd::render::map::{self, Viewer};

/// A new game whose config ends with `extra`, started with its opening forms mailed.
fn start(extra: &str) -> (Dir, String) {
    start_with(extra, &[])
}

/// [`start`] with more arguments to `pbemd new` (`--scenario FILE`).
fn start_with(extra: &str, new_args: &[&str]) -> (Dir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    let mut args = vec!["new", dir.to_str().unwrap()];
    args.extend_from_slice(new_args);
    ok(&run(&args, &[]));
    let cfg = dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg).unwrap() + extra;
    std::fs::write(&cfg, text).unwrap();
    let d = Dir {
        _tmp: tmp,
        dir,
        mails: Default::default(),
    };
    let out = d.cmd(&["init", "--now", TUESDAY], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    ok(&out);
    (d, stderr)
}

/// One form mail: its text part and its attachments (name, type, bytes).
struct Form {
    subject: String,
    text: String,
    files: Vec<(String, String, Vec<u8>)>,
}

fn forms(d: &Dir) -> Vec<Form> {
    let mut names: Vec<_> = std::fs::read_dir(d.dir.join("outbox/new"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let mut out = Vec::new();
    for p in names {
        let raw = std::fs::read(&p).unwrap();
        let m = MessageParser::default().parse(&raw).unwrap();
        let subject = m.subject().unwrap_or_default().to_string();
        if subject.starts_with("Re:")
            || !(subject.ends_with(" form") || subject.ends_with(" helgformulär"))
        {
            continue;
        }
        let files = m
            .attachments()
            .map(|a| {
                let ct = a.content_type().unwrap();
                let kind = format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or_default());
                (
                    a.attachment_name().unwrap_or_default().to_string(),
                    kind,
                    a.contents().to_vec(),
                )
            })
            .collect();
        out.push(Form {
            subject,
            text: m.body_text(0).unwrap().into_owned(),
            files,
        });
    }
    out
}

fn realm_of(f: &Form) -> &str {
    f.subject.split_whitespace().next().unwrap()
}

/// Width and height of a PNG, read by the `png` crate.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]));
    let r = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    (r.info().width, r.info().height)
}

fn state(d: &Dir) -> GameState {
    serde_json::from_str(&d.ok(&["state", "--json"])).unwrap()
}

/// Every realm's form carries exactly its own picture: the file is named in its
/// language and has the size of the layout of that realm's view of the state.
fn assert_each_form_has_its_realms_picture(d: &Dir, gs: &GameState) {
    let forms = forms(d);
    assert_eq!(
        forms.len(),
        REALMS.len(),
        "{:?}",
        forms.iter().map(|f| &f.subject).collect::<Vec<_>>()
    );
    let gm = map::layout(&map::view(gs, Viewer::Gm, Dimension::Normal), "sv");
    for f in &forms {
        let realm = gs.realm(realm_of(f)).unwrap();
        assert_eq!(
            f.files.len(),
            1,
            "{}: {:?}",
            realm.name,
            f.files.iter().map(|x| &x.0).collect::<Vec<_>>()
        );
        let (name, kind, bytes) = &f.files[0];
        let want = map::file_name(realm.language, Dimension::Normal);
        assert_eq!(
            (name.as_str(), kind.as_str()),
            (want, "image/png"),
            "{}",
            realm.name
        );
        let v = map::view(gs, Viewer::Realm(&realm.name), Dimension::Normal);
        let p = map::layout(&v, realm.language.code());
        assert_eq!(png_size(bytes), (p.width, p.height), "{}", realm.name);
        assert_ne!(
            (p.width, p.height),
            (gm.width, gm.height),
            "{}: not the GM's map",
            realm.name
        );
        assert!(
            f.text.contains(&realm.name),
            "{}: the form text comes first",
            realm.name
        );
    }
}

#[test]
fn the_opening_forms_carry_each_realms_map_picture_after_the_unchanged_text() {
    let (d, _) = start("");
    let gs = state(&d);
    assert_each_form_has_its_realms_picture(&d, &gs);
    let names: Vec<String> = forms(&d).iter().map(|f| f.files[0].0.clone()).collect();
    assert!(names.contains(&"karta.png".to_string()) && names.contains(&"map.png".to_string()));
    // The same game without pictures mails the very same text, as a plain mail.
    let (plain, _) = start("render:\n  map_pictures: false\n");
    let with: Vec<(String, String)> = forms(&d).into_iter().map(|f| (f.subject, f.text)).collect();
    let without = forms(&plain);
    assert!(without.iter().all(|f| f.files.is_empty()));
    let without: Vec<(String, String)> = without.into_iter().map(|f| (f.subject, f.text)).collect();
    assert_eq!(with, without);
    let raw = std::fs::read_dir(plain.dir.join("outbox/new"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let raw = String::from_utf8_lossy(&std::fs::read(raw).unwrap()).into_owned();
    assert!(!raw.contains("multipart"), "{raw}");
}

#[test]
fn the_monday_result_forms_carry_the_picture_of_the_state_after_the_weekend() {
    let (d, _) = start("");
    let seen: Vec<String> = d.outbox().into_iter().map(|m| m.message_id).collect();
    d.weekend_with_a_form();
    d.tick(DEADLINE);
    d.tick(MONDAY);
    let gs = state(&d);
    assert_eq!(gs.round, 2, "the weekend was resolved");
    // Remove the opening forms so only Monday's are read.
    for e in std::fs::read_dir(d.dir.join("outbox/new")).unwrap() {
        let p = e.unwrap().path();
        let raw = std::fs::read(&p).unwrap();
        let m = MessageParser::default().parse(&raw).unwrap();
        if seen.iter().any(|s| Some(s.as_str()) == m.message_id()) {
            std::fs::remove_file(p).unwrap();
        }
    }
    assert_each_form_has_its_realms_picture(&d, &gs);
    let afani = forms(&d)
        .into_iter()
        .find(|f| realm_of(f) == "Afani")
        .unwrap();
    assert!(
        afani.text.contains("round 2") || afani.text.contains("Round 2"),
        "{}",
        afani.text
    );
}

#[test]
fn the_evil_gets_a_second_picture_of_its_own_dimension_and_the_others_do_not() {
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/evil.yaml");
    let (d, _) = start_with("", &["--scenario", scenario]);
    let gs = state(&d);
    let forms = forms(&d);
    assert_eq!(forms.len(), REALMS.len() + 1);
    for f in &forms {
        let realm = gs.realm(realm_of(f)).unwrap();
        let names: Vec<&str> = f.files.iter().map(|x| x.0.as_str()).collect();
        if realm.is_evil {
            assert_eq!(names, ["karta.png", "karta-ondskan.png"]);
            let v = map::view(&gs, Viewer::Realm(&realm.name), Dimension::Evil);
            let p = map::layout(&v, realm.language.code());
            assert_eq!(png_size(&f.files[1].2), (p.width, p.height));
        } else {
            assert_eq!(names, [map::file_name(realm.language, Dimension::Normal)]);
        }
    }
}

#[test]
fn a_missing_font_still_sends_the_pictures_and_warns() {
    let (d, stderr) = start("render:\n  font: /nonexistent/NoSuchFont.ttf\n");
    assert!(
        stderr.contains("NoSuchFont.ttf") && stderr.contains("without labels"),
        "{stderr}"
    );
    let gs = state(&d);
    assert_each_form_has_its_realms_picture(&d, &gs);
}

/// The font the pictures are labelled with (Debian's `fonts-dejavu-core`, which
/// `scripts/browser-start.sh` installs) draws the labels. A missing font fails the test
/// as a missing server does, unless `PBEMD_SKIP_SERVER_TESTS=1` asks to skip it.
#[test]
fn the_font_file_labels_the_picture() {
    let Some(g) = map::font(std::path::Path::new(map::DEFAULT_FONT)) else {
        common::missing(&format!(
            "the map font {} (Debian's fonts-dejavu-core)",
            map::DEFAULT_FONT
        ));
        return;
    };
    let gs = pbemd::game::load_scenario(include_str!("../scenarios/demo.yaml")).unwrap();
    let v = map::view(&gs, Viewer::Realm("Afani"), Dimension::Normal);
    let with = map::png_with(&v, "en", Some(&g)).unwrap();
    let without = map::png_with(&v, "en", None).unwrap();
    assert_ne!(with, without, "the labels change the pixels");
    assert!(map::font(std::path::Path::new("/nonexistent/font.ttf")).is_none());
}

#[path = "../benches/common/world.rs"]
mod world;

/// The bench's generated game: a realm's picture covers its own block and the squares
/// around it, so a realm inside the map gets the same picture size with 9 realms as
/// with 100 (and so costs the same), and sees only its neighbours' groups.
#[test]
fn a_realms_picture_does_not_grow_with_the_map() {
    let small = world::world(9);
    let large = world::world(100);
    // Realm 4 of 9 and realm 14 of 100 both have neighbours on every side.
    let size = |gs: &GameState, k: usize| {
        let name = world::name(k);
        let v = map::view(gs, Viewer::Realm(&name), Dimension::Normal);
        let p = map::layout(&v, "sv");
        let far = v.armies.iter().filter(|a| a.owner != name).count();
        ((v.width, v.height, p.width, p.height), far)
    };
    let (a, far_small) = size(&small, 4);
    let (b, far_large) = size(&large, 14);
    assert_eq!(a, b);
    assert_eq!(far_small, far_large, "the same neighbours' groups, no more");
    assert!(a.0 <= 14 && a.1 <= 15, "{a:?}");
    let normal = map::view(&large, Viewer::Gm, Dimension::Normal)
        .armies
        .len();
    let evil = map::view(&large, Viewer::Gm, Dimension::Evil).armies.len();
    assert_eq!(normal + evil, large.armies.len(), "the GM sees every group");
}

/// The time to draw every realm's picture of the bench's 100-realm, 10,000-group game
/// (what the Monday results add): `cargo test --test map_pictures
/// time_to_draw_every_realms_picture -- --ignored --nocapture`. Debug builds are many
/// times slower than the daemon's release build.
#[test]
#[ignore]
fn time_to_draw_every_realms_picture() {
    let gs = world::world(100);
    let t = std::time::Instant::now();
    let ix = map::MapIndex::new(&gs);
    let indexed = t.elapsed();
    let glyphs = map::font(std::path::Path::new(map::DEFAULT_FONT));
    let t = std::time::Instant::now();
    let mut bytes = 0;
    for r in &gs.realms {
        for dim in [Dimension::Normal, Dimension::Evil] {
            let v = ix.view(Viewer::Realm(&r.name), dim);
            if !v.is_empty() {
                bytes += map::png_with(&v, "sv", glyphs.as_deref()).unwrap().len();
            }
        }
    }
    let all = t.elapsed();
    let t = std::time::Instant::now();
    let gm = map::png_with(
        &ix.view(Viewer::Gm, Dimension::Normal),
        "sv",
        glyphs.as_deref(),
    )
    .unwrap();
    eprintln!(
        "index {indexed:?}; 100 realms' pictures {all:?} ({:?} each, {bytes} bytes); the GM's whole map {:?} ({} bytes)",
        all / 100,
        t.elapsed(),
        gm.len()
    );
}
