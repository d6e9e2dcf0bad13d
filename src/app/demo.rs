//! `pbemd demo`: a whole scripted week on SQLite + Maildir, no servers. Players' mails
//! are dropped into the game's inbox Maildir and the game is ticked forward through
//! the week, exactly as `pbemd tick` would; everything pbemd sends lands in
//! `DIR/outbox/new`.
//! The report comes back as text for the command line to print.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::{tick, App, AppError, Result};
use crate::game::lang::count;

/// A line of the demo's report (written to a `String`, which cannot fail).
macro_rules! say {
    ($out:ident, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}
use crate::clock::{parse_rfc3339, FixedClock};
use crate::config::Config;
use crate::transport::maildir::Maildir;

/// Marks a folder as made by the demo, so a rerun may replace it.
const MARKER: &str = ".pbemd-demo";

/// One scripted moment: the mails players send, then a tick at `at`.
struct Step {
    at: &'static str,
    what: &'static str,
    mails: &'static [(&'static str, &'static str, &'static str)],
}

const START: &str = "2026-11-23T11:00:00+01:00";

const SCRIPT: &[Step] = &[
    Step {
        at: "2026-11-23T12:00:00+01:00",
        what: "Monday 12:00: results go out (every realm's form) and the weekday window opens",
        mails: &[],
    },
    Step {
        at: "2026-11-24T09:30:00+01:00",
        what: "Tuesday: two envoys, a mail of no known kind, and a stranger",
        mails: &[
            ("genogien@game.test", "Genogien skickar ett sändebud till Afani", "Hälsningar från Genogien!\nVi föreslår fred längs gränsen vid F5.\n\n/Kung Gorm (genogien@game.test)"),
            ("afani@game.test", "Afani sends an envoy to Kaldor", "Greetings from Afani. Shall we trade iron for timber?"),
            ("kaldor@game.test", "Kaldor skickar en kamel till Afani", "Kamelen bär guld."),
            ("stranger@elsewhere.test", "Hej, kan jag vara med?", "Jag vill också spela."),
        ],
    },
    Step {
        at: "2026-11-25T20:00:00+01:00",
        what: "Wednesday: a question to the GM, and a merchant carrying timber",
        mails: &[
            ("mirandel@game.test", "Mirandel till SL: murar", "Räknas Bergvägg mot murtaket?"),
            ("fugandri@game.test", "Fugandri skickar en handelsman till Kaldor", "Vi säljer timmer.\n****\nSkickar: 5 timmer\nVäntar: 6 guld"),
        ],
    },
    Step {
        at: "2026-11-28T10:00:00+01:00",
        what: "Saturday: an envoy too late for the weekday window, and four weekend forms \
               (units, walls, population, upgrades; Kaldor attacks Ostvik's army on H7)",
        mails: &[
            ("genogien@game.test", "Genogien skickar ett sändebud till Kaldor", "Ett sent sändebud."),
            ("fugandri@game.test", "Fugandri helgformulär", FUGANDRI),
            ("afani@game.test", "Afani form", AFANI),
            ("kaldor@game.test", "Kaldor helgformulär", KALDOR),
            ("genogien@game.test", "Genogien helgformulär", GENOGIEN),
        ],
    },
    Step {
        at: "2026-11-29T16:00:00+01:00",
        what: "Sunday 16:00: a form after the 15:00 deadline; the weekend has closed and is resolved",
        mails: &[("ostvik@game.test", "Ostvik form", "BUY 1 light infantry\n")],
    },
    Step {
        at: "2026-11-30T12:00:00+01:00",
        what: "Monday 12:00: round 2's forms go out, each telling its realm's weekend \
               (purchases, the battle on H7, production)",
        mails: &[],
    },
];

/// The scripted weekend forms (demo week, Saturday). Each is accepted whole by the
/// form check on the demo scenario (tested below).
const FUGANDRI: &str = "KÖP 2 lätt infanteri\nKÖP 1 mur C7\nUPPGRADERA amiral 5 vatten\n";
const AFANI: &str = "BUY 1 spy\nBUY 2 light infantry\nBUY 1 population K3\n";
const KALDOR: &str = "ANFALL armé 2 H7\nKÖP 2 tungt infanteri J8\nPRODUKTION J9 sten\n";
const GENOGIEN: &str = "KÖP 3 tungt infanteri B2\nKÖP 1 mur D2\nUPPGRADERA befälhavare 5 eld\n";

fn mail(seq: u64, from: &str, subject: &str, body: &str, at: DateTime<Utc>) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: sl@game.test\r\nSubject: {subject}\r\nDate: {}\r\nMessage-ID: <demo-{seq}@players.test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{}\r\n",
        at.to_rfc2822(),
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

/// Play the scripted week in `dir`.
pub async fn run(dir: &Path) -> Result<String> {
    let mut out = String::new();
    if dir.exists()
        && std::fs::read_dir(dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(false)
    {
        if dir.join(MARKER).exists() {
            std::fs::remove_dir_all(dir).map_err(|e| {
                AppError::Refused(format!("cannot clear old demo {}: {e}", dir.display()))
            })?;
        } else {
            return Err(AppError::Refused(format!(
                "{} exists and is not an earlier demo; give --dir a new folder",
                dir.display()
            )));
        }
    }
    let cfg_path = super::setup::new_game_dir(dir, None)?;
    std::fs::write(dir.join(MARKER), "made by pbemd demo\n")
        .map_err(|e| AppError::Refused(format!("cannot write in {}: {e}", dir.display())))?;
    let cfg = Config::load(&cfg_path).map_err(|e| AppError::Refused(e.to_string()))?;
    let start = parse_rfc3339(START).map_err(AppError::Refused)?;
    let clock = Arc::new(FixedClock::new(start));
    let app = App::open(cfg, clock.clone()).await?;
    super::setup::init(&app, start, false).await?;
    say!(out, "pbemd demo in {}", dir.display());
    say!(out, "game started {START} (round 1, six realms)\n");
    let inbox = Maildir::open(&dir.join("inbox"))?;
    let mut seq = 0;
    for step in SCRIPT {
        let at = parse_rfc3339(step.at).map_err(AppError::Refused)?;
        for (from, subject, body) in step.mails {
            seq += 1;
            inbox.drop_in(seq, &mail(seq, from, subject, body, at))?;
        }
        clock.set(at);
        let r = tick::tick(&app).await?;
        say!(out, "{} — {}", step.at, step.what);
        say!(out, "    {}", tick_summary(&r));
    }
    let mut conn = app.store.conn().await?;
    if let Some(r) = crate::store::resolutions::standing(&mut conn, 1).await? {
        let orders: crate::game::weekend::Orders =
            serde_json::from_str(&r.orders).map_err(|e| AppError::BadState(e.to_string()))?;
        let events: Vec<crate::game::event::Event> =
            serde_json::from_str(&r.events).map_err(|e| AppError::BadState(e.to_string()))?;
        let from: Vec<&str> = orders.forms.iter().map(|f| f.realm.as_str()).collect();
        say!(
            out,
            "\nthe weekend of round 1 was resolved once, at Sunday 15:00: forms from {}; {}",
            if from.is_empty() {
                "no realm".to_string()
            } else {
                from.join(", ")
            },
            count(events.len(), "event", "events")
        );
    }
    drop(conn);
    let outbox = dir.join("outbox").join("new");
    let n = std::fs::read_dir(&outbox).map(|d| d.count()).unwrap_or(0);
    let section = last_weekend_in_outbox(&outbox, "kaldor@game.test");
    say!(out, "\nKaldor's Monday form, last weekend:");
    for line in section.lines() {
        say!(out, "    {line}");
    }
    let cfg = cfg_path.display();
    say!(
        out,
        "\n{} written to {}",
        count(n, "mail", "mails"),
        outbox.display()
    );
    say!(out, "look at:");
    say!(
        out,
        "  ls {}                      # every mail pbemd sent",
        outbox.display()
    );
    say!(
        out,
        "  {}   # the Monday result forms",
        result_forms_grep(&outbox)
    );
    say!(
        out,
        "  pbemd --config {cfg} gm queue --all   # what waits for the GM"
    );
    say!(out, "  pbemd --config {cfg} state --realm Afani --json");
    say!(
        out,
        "  pbemd --config {cfg} gm replay --round 1   # the weekend rerun from its stored inputs"
    );
    Ok(out)
}

/// The "last weekend" section of the latest result form mailed to `addr` in `outbox`
/// (empty when there is none).
fn last_weekend_in_outbox(outbox: &Path, addr: &str) -> String {
    let mut names: Vec<_> = std::fs::read_dir(outbox)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    names.sort();
    let parser = mail_parser::MessageParser::default();
    let mut latest: Option<(i64, String)> = None;
    for path in names {
        let Ok(raw) = std::fs::read(&path) else {
            continue;
        };
        let Some(m) = parser.parse(&raw) else {
            continue;
        };
        let to_addr = m.to().is_some_and(|t| {
            t.iter()
                .any(|a| a.address().is_some_and(|x| x.eq_ignore_ascii_case(addr)))
        });
        let text = m.body_text(0).map(|t| t.into_owned()).unwrap_or_default();
        let date = m.date().map_or(0, |d| d.to_timestamp());
        if to_addr && text.starts_with("=====") && latest.as_ref().is_none_or(|(d, _)| date >= *d) {
            latest = Some((date, text));
        }
    }
    latest.map_or_else(String::new, |(_, form)| last_weekend_section(&form))
}

/// The lines between a result form's last-weekend heading and its orders line.
fn last_weekend_section(form: &str) -> String {
    let Some(start) = form
        .find("-- FÖRRA HELGEN --")
        .or_else(|| form.find("-- LAST WEEKEND --"))
    else {
        return String::new();
    };
    let body = form[start..].split_once('\n').map_or("", |(_, b)| b);
    let end = body.find("=== ").unwrap_or(body.len());
    // Blank lines around it go; each line keeps its own indentation.
    body[..end]
        .trim_end()
        .trim_start_matches(['\n', '\r'])
        .to_string()
}

/// One step's counts, each noun agreeing with its number.
fn tick_summary(r: &tick::TickReport) -> String {
    format!(
        "{} in, {} handled, {}, {} delivered, {} out",
        count(r.stored, "mail", "mails"),
        r.handled,
        count(r.events.len(), "schedule event", "schedule events"),
        count(r.delivered, "envoy or merchant", "envoys and merchants"),
        count(r.sent, "mail", "mails"),
    )
}

/// A shell command that lists the result forms in `outbox`. Subjects are RFC 2047
/// encoded and bodies quoted-printable, so it matches the form's title line, which
/// starts every result form in plain ASCII (`Resultat och helgformul=C3=A4r …`).
pub fn result_forms_grep(outbox: &Path) -> String {
    format!(
        "grep -l -e '^Resultat och helgformul' -e '^Results and weekend form' {}/*",
        outbox.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forms;
    use crate::game::orders::Order;
    use crate::game::{load_scenario, GameState, Position, UnitKind};

    fn demo() -> GameState {
        load_scenario(super::super::setup::DEMO_SCENARIO).expect("demo scenario")
    }

    fn refusals(c: &forms::Checked) -> Vec<String> {
        c.lines
            .iter()
            .filter(|l| !l.accepted())
            .map(|l| format!("{}: {:?}", l.text, l.refusal))
            .collect()
    }

    #[test]
    fn every_demo_realm_can_buy_a_unit_a_wall_and_an_upgrade_in_one_form() {
        let s = demo();
        for realm in s.realm_names() {
            let capital = s.realm(realm).and_then(|r| r.capital).expect("capital");
            let orders = [
                Order::BuyUnits {
                    count: 1,
                    kind: UnitKind::LattInfanteri,
                    city: None,
                },
                Order::BuyWalls {
                    count: 1,
                    city: capital,
                },
                Order::UpgradePosition {
                    position: Position::Amiral,
                    crystals: vec![],
                },
            ];
            let c = forms::check_orders(&s, realm, &orders);
            assert_eq!(refusals(&c), Vec::<String>::new(), "{realm}");
        }
    }

    #[test]
    fn the_demo_weekend_forms_are_accepted_whole() {
        let s = demo();
        for (realm, text) in [
            ("Fugandri", FUGANDRI),
            ("Afani", AFANI),
            ("Kaldor", KALDOR),
            ("Genogien", GENOGIEN),
        ] {
            let c = forms::read_form(&s, realm, text, &[]);
            assert_eq!(c.lines.len(), text.lines().count(), "{realm}");
            assert_eq!(refusals(&c), Vec::<String>::new(), "{realm}");
        }
    }

    #[test]
    fn the_last_weekend_section_is_cut_from_heading_to_orders() {
        let form = "===\nx\n-- FÖRRA HELGEN -------\nKöpt: 2 tungt infanteri\nStrid på H7\n\n=== ORDRAR / ORDERS: skriv\n";
        assert_eq!(
            last_weekend_section(form),
            "Köpt: 2 tungt infanteri\nStrid på H7"
        );
        assert_eq!(last_weekend_section("no such heading"), "");
        let indented = "-- LAST WEEKEND --\n\n  Bought: a spy\n  Production: 3 gold\n\n=== ORDERS";
        assert_eq!(
            last_weekend_section(indented),
            "  Bought: a spy\n  Production: 3 gold"
        );
    }

    #[test]
    fn kaldors_attack_meets_ostviks_army_on_a_neighbouring_square() {
        let s = demo();
        let kaldor = s.armies_of("Kaldor").find(|a| a.id == 2).expect("army 2");
        let ostvik = s
            .armies_of("Ostvik")
            .find(|a| a.square.to_string() == "H7")
            .expect("an Ostvik army on H7");
        assert_eq!(kaldor.square.to_string(), "I7");
        assert_eq!(kaldor.square.distance(ostvik.square), 1);
        assert_eq!(
            kaldor.square.row(),
            ostvik.square.row(),
            "touching at a side"
        );
    }
}
