//! The GM's report after a resolution (docs/gm/season.md, The GM's report): who sent forms and
//! when, who sent nothing, the battles and city changes, the VP standings, what is
//! parked or failed, and the next deadlines — as plain text in the GM's language.
//!
//! Pure: the app gathers the facts (times already written in the game's zone) into a
//! [`ReportView`]; this file only writes them.

use crate::game::combat::Winner;
use crate::game::event::{Event, What};
use crate::game::lang::count;
use crate::game::weekend::military::{BattleReport, MilitaryEvent};
use crate::game::Lang;

use super::weekend::military::group_text;

/// A form that counted at the resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormLine {
    pub realm: String,
    /// When it was received, in the game's zone.
    pub received: String,
    /// Accepted orders that counted.
    pub orders: usize,
    /// Last round's orders, reused at the deadline (`forms.missing: reuse-last`).
    pub reused: bool,
}

/// One realm's victory points after the weekend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandingLine {
    pub realm: String,
    pub vp: i64,
    /// The change over the weekend.
    pub change: i64,
}

/// A unit of work that failed and waits for the GM (`gm queue`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParkedLine {
    pub id: i64,
    pub kind: String,
    pub who: String,
    /// One line, at most 60 characters, no control characters.
    pub subject: String,
}

/// An outgoing mail that failed or is being retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedLine {
    pub id: i64,
    pub kind: String,
    pub to: String,
    pub state: String,
    pub attempts: i64,
    /// One line, at most 80 characters.
    pub error: String,
}

/// Everything the report tells, gathered by the app.
#[derive(Debug, Clone, Default)]
pub struct ReportView {
    pub round: i64,
    pub resolution: i64,
    /// When the weekend was resolved, in the game's zone.
    pub resolved_at: String,
    pub forms: Vec<FormLine>,
    /// Playing realms that sent no form.
    pub missing: Vec<String>,
    /// The resolution's events (only battles and city changes are told).
    pub events: Vec<Event>,
    /// Sorted: most VP first, then by name.
    pub standings: Vec<StandingLine>,
    pub parked: Vec<ParkedLine>,
    pub failed: Vec<FailedLine>,
    /// Messages waiting in the GM queue (held or for the GM).
    pub waiting: usize,
    /// (schedule event kind, when, in the game's zone), earliest first.
    pub deadlines: Vec<(String, String)>,
}

/// The mail's subject.
pub fn subject(round: i64, lang: Lang) -> String {
    match lang {
        Lang::Sv => format!("SL-rapport runda {round}"),
        Lang::En => format!("GM report round {round}"),
    }
}

/// The whole report.
pub fn report(v: &ReportView, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    let mut out = vec![if sv {
        format!(
            "SL-RAPPORT — runda {} (avgörande {}, {})",
            v.round, v.resolution, v.resolved_at
        )
    } else {
        format!(
            "GM REPORT — round {} (resolution {}, {})",
            v.round, v.resolution, v.resolved_at
        )
    }];
    out.push(String::new());
    out.extend(forms(v, lang));
    out.push(String::new());
    out.extend(fights(&v.events, lang));
    out.push(String::new());
    out.extend(standings(&v.standings, lang));
    out.push(String::new());
    out.extend(trouble(v, lang));
    out.push(String::new());
    out.extend(deadlines(&v.deadlines, lang));
    let mut text = out.join("\n");
    text.push('\n');
    text
}

fn heading(sv: &str, en: &str, lang: Lang) -> String {
    format!("-- {} --", if lang == Lang::Sv { sv } else { en })
}

fn forms(v: &ReportView, lang: Lang) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let total = v.forms.len() + v.missing.len();
    let mut out = vec![heading("HELGFORMULÄR", "WEEKEND FORMS", lang)];
    out.push(if sv {
        format!("Skickade ({} av {total}):", v.forms.len())
    } else {
        format!("Sent ({} of {total}):", v.forms.len())
    });
    if v.forms.is_empty() {
        out.push(format!("  {}", if sv { "inga" } else { "none" }));
    }
    for f in &v.forms {
        let orders = if sv {
            count(f.orders as i64, "order", "order")
        } else {
            count(f.orders as i64, "order", "orders")
        };
        let reused = match (f.reused, sv) {
            (false, _) => "",
            (true, true) => " (förra rundans order)",
            (true, false) => " (last round's orders)",
        };
        out.push(format!(
            "  {:<16} {}  {orders}{reused}",
            f.realm, f.received
        ));
    }
    let none = if sv { "ingen" } else { "nobody" };
    let list = if v.missing.is_empty() {
        none.to_string()
    } else {
        v.missing.join(", ")
    };
    out.push(if sv {
        format!("Skickade inget ({}): {list}", v.missing.len())
    } else {
        format!("Sent nothing ({}): {list}", v.missing.len())
    });
    out
}

/// One summary line per battle and per city taken, plundered or razed, in the order
/// they happened.
pub fn fights(events: &[Event], lang: Lang) -> Vec<String> {
    let mut out = vec![heading("SLAG OCH STÄDER", "BATTLES AND CITIES", lang)];
    let lines: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.what {
            What::Military(m) => fight_line(m, lang),
            _ => None,
        })
        .map(|l| format!("  {l}"))
        .collect();
    if lines.is_empty() {
        out.push(format!(
            "  {}",
            if lang == Lang::Sv {
                "inga slag, inga städer bytte ägare"
            } else {
                "no battles, no city changed hands"
            }
        ));
    }
    out.extend(lines);
    out
}

fn fight_line(m: &MilitaryEvent, lang: Lang) -> Option<String> {
    let sv = lang == Lang::Sv;
    Some(match m {
        MilitaryEvent::Battle(b) => battle_line(b, lang),
        MilitaryEvent::CityTakenOver {
            square,
            city,
            attacker,
            defender,
            capital,
            ..
        } => {
            let cap = match (capital, sv) {
                (false, _) => "",
                (true, true) => " (huvudstad)",
                (true, false) => " (capital)",
            };
            if sv {
                format!("{city} ({square}){cap} intagen av {attacker} från {defender}")
            } else {
                format!("{city} ({square}){cap} taken by {attacker} from {defender}")
            }
        }
        MilitaryEvent::CityPlundered {
            square,
            city,
            attacker,
            defender,
            ..
        } => {
            if sv {
                format!("{city} ({square}) plundrad av {attacker} (ägare {defender})")
            } else {
                format!("{city} ({square}) plundered by {attacker} (held by {defender})")
            }
        }
        MilitaryEvent::CityRazed {
            square,
            city,
            attacker,
            defender,
            ..
        } => {
            if sv {
                format!("{city} ({square}) bränd av {attacker} (ägare {defender})")
            } else {
                format!("{city} ({square}) razed by {attacker} (held by {defender})")
            }
        }
        _ => return None,
    })
}

fn battle_line(b: &BattleReport, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    let place = b
        .city
        .as_ref()
        .map_or_else(|| b.square.to_string(), |c| format!("{c} ({})", b.square));
    let city = if sv { "staden" } else { "the city" };
    let defender = b.defender.as_deref().unwrap_or(city);
    let winner = match (b.result.winner, sv) {
        (Winner::Attacker, _) => b.attacker.as_str(),
        (Winner::Defender, _) => defender,
        (Winner::None, true) => "ingen (anfallaren drog sig tillbaka)",
        (Winner::None, false) => "nobody (the attacker withdrew)",
    };
    let lost_a = b
        .battle
        .attacker
        .count()
        .saturating_sub(b.result.attacker_left.count());
    let lost_d = b
        .battle
        .defender
        .count()
        .saturating_sub(b.result.defender_left.count());
    let group = group_text(b.attacker_group, lang).to_lowercase();
    let kind = match (b.battle.naval, sv) {
        (true, true) => "Sjöslag",
        (true, false) => "Naval battle",
        (false, true) => "Slag",
        (false, false) => "Battle",
    };
    if sv {
        format!(
            "{kind} vid {place}: {} ({group}) mot {defender}; vinnare {winner}; \
             förluster {} {lost_a}, {defender} {lost_d}",
            b.attacker, b.attacker
        )
    } else {
        format!(
            "{kind} at {place}: {} ({group}) against {defender}; winner {winner}; \
             losses {} {lost_a}, {defender} {lost_d}",
            b.attacker, b.attacker
        )
    }
}

fn standings(s: &[StandingLine], lang: Lang) -> Vec<String> {
    let mut out = vec![heading("SEGERPOÄNG", "VICTORY POINTS", lang)];
    for (i, r) in s.iter().enumerate() {
        out.push(format!(
            "  {:>2}. {:<16} {:>5} VP ({:+})",
            i + 1,
            r.realm,
            r.vp,
            r.change
        ));
    }
    out
}

fn trouble(v: &ReportView, lang: Lang) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let mut out = vec![heading(
        "PARKERAT OCH MISSLYCKAT",
        "PARKED AND FAILED",
        lang,
    )];
    for p in &v.parked {
        out.push(if sv {
            format!(
                "  parkerat {}: {} från {} \"{}\"",
                p.id, p.kind, p.who, p.subject
            )
        } else {
            format!(
                "  parked {}: {} from {} \"{}\"",
                p.id, p.kind, p.who, p.subject
            )
        });
    }
    for f in &v.failed {
        out.push(if sv {
            format!(
                "  utgående {}: {} till {}, {} efter {} försök: {}",
                f.id, f.kind, f.to, f.state, f.attempts, f.error
            )
        } else {
            format!(
                "  outgoing {}: {} to {}, {} after {} attempts: {}",
                f.id, f.kind, f.to, f.state, f.attempts, f.error
            )
        });
    }
    if v.parked.is_empty() && v.failed.is_empty() {
        out.push(format!("  {}", if sv { "inget" } else { "nothing" }));
    }
    if v.waiting > 0 {
        out.push(if sv {
            format!(
                "  {} meddelanden väntar på SL (`pbemd gm queue`)",
                v.waiting
            )
        } else {
            format!(
                "  {} message(s) wait for the GM (`pbemd gm queue`)",
                v.waiting
            )
        });
    }
    out
}

fn deadlines(d: &[(String, String)], lang: Lang) -> Vec<String> {
    let mut out = vec![heading("NÄSTA TIDPUNKTER", "NEXT DEADLINES", lang)];
    if d.is_empty() {
        out.push(format!(
            "  {}",
            if lang == Lang::Sv {
                "inga fler i schemat"
            } else {
                "none left in the schedule"
            }
        ));
    }
    for (kind, at) in d {
        out.push(format!("  {:<26} {at}", event_name(kind, lang)));
    }
    out
}

/// A schedule event as the GM reads it.
fn event_name(kind: &str, lang: Lang) -> String {
    let (sv, en) = match kind {
        "results" => ("resultaten går ut", "results go out"),
        "weekday_open" => ("veckofönstret öppnar", "weekday window opens"),
        "form_close" => ("formulärstopp", "form deadline"),
        "resolve" => ("helgen avgörs", "weekend resolved"),
        other => (other, other),
    };
    format!("{}:", if lang == Lang::Sv { sv } else { en })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> ReportView {
        ReportView {
            round: 3,
            resolution: 7,
            resolved_at: "2026-12-13T15:00:00+01:00".into(),
            forms: vec![FormLine {
                realm: "Afani".into(),
                received: "2026-12-12T10:00:00+01:00".into(),
                orders: 1,
                reused: false,
            }],
            missing: vec!["Kaldor".into()],
            standings: vec![
                StandingLine {
                    realm: "Kaldor".into(),
                    vp: 12,
                    change: 3,
                },
                StandingLine {
                    realm: "Afani".into(),
                    vp: 5,
                    change: 0,
                },
            ],
            deadlines: vec![("form_close".into(), "lördag".into())],
            ..ReportView::default()
        }
    }

    #[test]
    fn the_report_tells_each_part_in_the_gms_language() {
        let sv = report(&view(), Lang::Sv);
        assert!(sv.contains("Skickade (1 av 2):"), "{sv}");
        assert!(
            sv.contains("Afani            2026-12-12T10:00:00+01:00  1 order"),
            "{sv}"
        );
        assert!(sv.contains("Skickade inget (1): Kaldor"), "{sv}");
        assert!(sv.contains(" 1. Kaldor              12 VP (+3)"), "{sv}");
        assert!(sv.contains("inga slag"), "{sv}");
        assert!(sv.contains("formulärstopp:"), "{sv}");
        let en = report(&view(), Lang::En);
        assert!(en.contains("Sent nothing (1): Kaldor"), "{en}");
        assert!(en.contains("no battles"), "{en}");
        assert!(en.contains("form deadline:"), "{en}");
        assert!(!en.contains("Skickade"), "{en}");
        assert!(!sv.contains("Sent") && !sv.contains("deadline"), "{sv}");
    }
}
