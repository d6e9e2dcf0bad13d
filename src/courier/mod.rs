//! PURE routing decisions for weekday mail (envoys, merchants, spies, mail to the GM)
//! and the window check every kind of player mail passes.
//!
//! Input: what the mail is, who sent it to whom, when it arrived and which window of
//! the week held then. Output: a decision as data. No I/O, no clock, no randomness.
//! This first cut routes envoys (R-ENVOY, R-MAIL-8, R-MAIL-11); allowances, costs,
//! spies, Isolation and Shield plug in here with the courier issue.

use chrono::{DateTime, Utc};

use crate::game::Lang;
use crate::mail::subject::MailKind;
use crate::schedule::Window;

/// The window a kind of mail must arrive in (R-MAIL-11); `None`: any time.
pub fn window_for(kind: MailKind) -> Option<Window> {
    match kind {
        MailKind::Envoy | MailKind::Merchant | MailKind::Spy => Some(Window::Weekday),
        MailKind::Form => Some(Window::Weekend),
        MailKind::ToGm => None,
    }
}

/// A player's mail as the courier sees it.
#[derive(Debug, Clone)]
pub struct Incoming<'a> {
    pub kind: MailKind,
    pub from: &'a str,
    pub to: Option<&'a str>,
    pub received_at: DateTime<Utc>,
    /// The window that held when the mail arrived.
    pub window: Window,
}

/// What becomes of a mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Deliver to `to` at `due_at`.
    Deliver { to: String, due_at: DateTime<Utc> },
    /// The weekend form window is open: store the form.
    Form,
    /// For the GM's hands (mail to the GM; merchants and spies until the courier rules
    /// for them are in).
    Gm,
    /// Refused; the sender is told why.
    Refuse(Refusal),
}

/// Why the courier refused a mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Sent outside the window its kind belongs to.
    OutsideWindow {
        kind: MailKind,
        needed: Window,
        held: Window,
    },
}

/// Decide what becomes of a player's mail.
pub fn route(m: &Incoming<'_>) -> Route {
    if let Some(needed) = window_for(m.kind) {
        if m.window != needed {
            return Route::Refuse(Refusal::OutsideWindow {
                kind: m.kind,
                needed,
                held: m.window,
            });
        }
    }
    match (m.kind, m.to) {
        (MailKind::Envoy, Some(to)) => Route::Deliver {
            to: to.to_string(),
            due_at: m.received_at,
        },
        (MailKind::Form, _) => Route::Form,
        _ => Route::Gm,
    }
}

fn kind_name(kind: MailKind, lang: Lang) -> &'static str {
    match (kind, lang) {
        (MailKind::Envoy, Lang::Sv) => "Sändebud",
        (MailKind::Envoy, Lang::En) => "Envoys",
        (MailKind::Merchant, Lang::Sv) => "Handelsmän",
        (MailKind::Merchant, Lang::En) => "Merchants",
        (MailKind::Spy, Lang::Sv) => "Spioner",
        (MailKind::Spy, Lang::En) => "Spies",
        (MailKind::Form, Lang::Sv) => "Helgformulär",
        (MailKind::Form, Lang::En) => "Weekend forms",
        (MailKind::ToGm, Lang::Sv) => "Brev till SL",
        (MailKind::ToGm, Lang::En) => "Mails to the GM",
    }
}

impl Refusal {
    /// The explanation the sender reads. `next_open` is the next opening of the needed
    /// window, already written in the realm's local time.
    pub fn explain(&self, lang: Lang, next_open: Option<&str>) -> String {
        match self {
            Refusal::OutsideWindow { kind, needed, .. } => {
                let what = kind_name(*kind, lang);
                let (window, next) = match (needed, lang) {
                    (Window::Weekday, Lang::Sv) => ("måndag 12:00 – fredag 23:59", "Nästa gång"),
                    (Window::Weekday, Lang::En) => ("Monday 12:00 – Friday 23:59", "Next opening"),
                    (Window::Weekend, Lang::Sv) => ("lördag 00:00 – söndag 15:00", "Nästa gång"),
                    (Window::Weekend, Lang::En) => {
                        ("Saturday 00:00 – Sunday 15:00", "Next opening")
                    }
                    (Window::Closed, Lang::Sv) => ("aldrig", "Nästa gång"),
                    (Window::Closed, Lang::En) => ("never", "Next opening"),
                };
                let mut s = match lang {
                    Lang::Sv => format!(
                        "{what} kan bara skickas {window} (spelets tid). Ditt brev kom utanför den tiden och har inte skickats vidare; inget har dragits från ditt lager."
                    ),
                    Lang::En => format!(
                        "{what} can only be sent {window} (game time). Your mail arrived outside that window and was not passed on; nothing was charged."
                    ),
                };
                if let Some(t) = next_open {
                    s.push_str(&format!("\n{next}: {t}."));
                }
                s
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn envoy(window: Window) -> Incoming<'static> {
        Incoming {
            kind: MailKind::Envoy,
            from: "Genogien",
            to: Some("Afani"),
            received_at: at("2026-11-24T10:00:00Z"),
            window,
        }
    }

    #[test]
    fn r_mail_8_envoy_in_the_weekday_window_is_delivered_at_once() {
        assert_eq!(
            route(&envoy(Window::Weekday)),
            Route::Deliver {
                to: "Afani".into(),
                due_at: at("2026-11-24T10:00:00Z")
            }
        );
    }

    #[test]
    fn r_mail_11_envoy_outside_the_weekday_window_is_refused_with_the_window() {
        for held in [Window::Weekend, Window::Closed] {
            let Route::Refuse(r) = route(&envoy(held)) else {
                panic!("envoy in {held:?} was not refused")
            };
            let sv = r.explain(Lang::Sv, Some("måndag 30 november 2026 12:00"));
            assert!(sv.contains("måndag 12:00 – fredag 23:59"), "{sv}");
            assert!(sv.contains("måndag 30 november"), "{sv}");
            assert!(r
                .explain(Lang::En, None)
                .contains("Monday 12:00 – Friday 23:59"));
        }
    }

    #[test]
    fn r_mail_11_forms_only_at_the_weekend_and_gm_mail_any_time() {
        let mut m = envoy(Window::Weekend);
        m.kind = MailKind::Form;
        assert_eq!(route(&m), Route::Form);
        m.window = Window::Weekday;
        assert!(matches!(route(&m), Route::Refuse(_)));
        m.kind = MailKind::ToGm;
        for w in [Window::Weekday, Window::Weekend, Window::Closed] {
            m.window = w;
            assert_eq!(route(&m), Route::Gm);
        }
    }

    #[test]
    fn r_mail_11_spies_and_merchants_never_at_weekends() {
        for kind in [MailKind::Spy, MailKind::Merchant] {
            let mut m = envoy(Window::Weekend);
            m.kind = kind;
            assert!(matches!(route(&m), Route::Refuse(_)), "{kind:?}");
            m.window = Window::Weekday;
            assert_eq!(route(&m), Route::Gm, "{kind:?}");
        }
    }
}
