//! PURE routing decisions for weekday mail (envoys, merchants, spies, mail to the GM)
//! and the window check every kind of player mail passes.
//!
//! Input: the state, queued mail (kind, sender, destination, body, arrival time and
//! the window that held), the batch context and a seeded dice source. Output:
//! decisions as data (`batch::Decision`): outcome, receipt, dispatches, events.
//! Rule failures are `Refusal`s with a text for the player; nothing here is `Err`.
//!
//! Owns: windows (R-MAIL-8/11), allowance and cost (R-AGENT-4; RULINGS 15), the goods
//! trailer (`trailer`, R-TRADE-6), spy missions and reports (`mission`, R-SPY), the
//! batch (`batch`): Isolation, Shield, interception, forgery, invitations, Reveal.
//! Must not touch: files, the clock, the network, the database, global randomness.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::game::text::MailKind;
use crate::game::{Lang, Resources, ShipKind, Square, UnitKind};
use crate::schedule::Window;

pub mod batch;
pub mod mission;
pub mod redact;
#[cfg(test)]
pub(crate) mod tests;
pub mod text;
pub mod trailer;

pub use batch::{
    active_on, gm_request, route_batch, Context, Decision, Dispatch, Event, ForgeryRight,
    GmRequest, Ledger, Outcome, Queued, Receipt, SpyResult,
};
pub use mission::{parse_mission, Contact, ContactKind, Intel, MissionError};
pub use trailer::{
    parse_envoy_body, parse_trailer, EnvoyBody, Goods, Trailer, TrailerError, TrailerErrorKind,
};

/// The window a kind of mail must arrive in (R-MAIL-11); `None`: any time.
pub fn window_for(kind: MailKind) -> Option<Window> {
    match kind {
        MailKind::Envoy | MailKind::Merchant | MailKind::Spy => Some(Window::Weekday),
        MailKind::Form => Some(Window::Weekend),
        MailKind::ToGm => None,
    }
}

/// A player's mail as the courier sees it at intake (before the body is read).
#[derive(Debug, Clone)]
pub struct Incoming<'a> {
    pub kind: MailKind,
    pub from: &'a str,
    pub to: Option<&'a str>,
    pub received_at: DateTime<Utc>,
    /// The window that held when the mail arrived.
    pub window: Window,
}

/// What becomes of a mail at intake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Envoy, merchant or spy inside its window: queue it for the next courier
    /// batch ([`route_batch`]).
    Queue,
    /// The weekend form window is open: store the form.
    Form,
    /// Mail to the GM. Pass it through [`route_batch`] as well when
    /// [`gm_request`] finds a Reveal or a home-invitation in it.
    Gm,
    /// Refused; the sender is told why.
    Refuse(Refusal),
}

/// What a refused price was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Charge {
    Envoy,
    Merchant,
    Reveal,
}

/// One thing the sender does not hold (goods are refused whole).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "shortage")]
pub enum Shortage {
    /// Resources missing (the agent's price included).
    Resources {
        lacks: Resources,
    },
    Units {
        kind: UnitKind,
        want: u32,
        have: u32,
    },
    Ships {
        kind: ShipKind,
        want: u32,
        have: u32,
    },
    Vp {
        want: u32,
        have: u32,
    },
    /// Not a city of the sender (goods or `Från:`).
    NotYourCity {
        city: String,
    },
    /// The capital and the main harbour cannot be sold.
    CapitalOrHarbour {
        city: String,
    },
    /// Only own land squares bordering the buyer, without a city (R-TRADE-4).
    NotABorderSquare {
        square: Square,
    },
    BuyerHasNoCapital,
    BuyerHasNoHarbour,
    /// The buyer would exceed `floor(population / 10)` counted units.
    BuyerPopulationCap {
        cap: u32,
        would_have: u32,
    },
    /// The buyer would exceed 5 × Amiral ships.
    BuyerShipCap {
        cap: u32,
        would_have: u32,
    },
    /// The buyer would exceed 3 × Besvärjare elementals.
    BuyerElementalCap {
        cap: u32,
        would_have: u32,
    },
    /// The units need a new army group at the buyer's capital, and the buyer
    /// is at 2 × Befälhavare groups.
    BuyerArmyGroupCap {
        cap: u32,
    },
}

/// Why the courier refused a mail. Nothing was charged and nothing sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "refusal")]
pub enum Refusal {
    /// Sent outside the window its kind belongs to.
    OutsideWindow {
        kind: MailKind,
        needed: Window,
        held: Window,
    },
    /// Beyond the free allowance and the stock cannot pay the price.
    CannotPay {
        charge: Charge,
        price: Resources,
        lacks: Resources,
    },
    /// Goods the sender does not hold: the whole mail is refused.
    GoodsNotHeld {
        shortages: Vec<Shortage>,
    },
    /// A merchant without the asterisk trailer (R-MAIL-5).
    NoTrailer,
    Trailer(TrailerError),
    /// Envoys carry gifts (`Skickar:` only); trade goes by merchant.
    ExpectsInEnvoy,
    NoDestination,
    UnknownRealm {
        name: String,
    },
    /// An envoy naming another sender without a forgery right.
    ForgeryNeedsSpy,
    ForgeryNeedsClaimedSender,
    ForgeryCarriesNoGoods,
    Mission(MissionError),
    NoSpies,
    EvilCannotBeSpied,
    InvitationNotYourLand {
        square: Square,
    },
    RevealOutsideWindow {
        held: Window,
    },
    RevealUsed,
    UnknownSpell {
        line: String,
    },
    BadHomeInvitation {
        line: String,
    },
    NoSuchGroup {
        army: bool,
        id: u32,
    },
    /// A home-invitation for a group that stands in its own land (R-INV-8: troops in
    /// other countries are called home).
    AlreadyHome {
        army: bool,
        id: u32,
    },
}

/// Decide what becomes of a player's mail at intake: the window check.
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
    match m.kind {
        MailKind::Envoy | MailKind::Merchant | MailKind::Spy => Route::Queue,
        MailKind::Form => Route::Form,
        MailKind::ToGm => Route::Gm,
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

fn window_text(w: Window, lang: Lang) -> &'static str {
    match (w, lang) {
        (Window::Weekday, Lang::Sv) => "måndag 12:00 – fredag 23:59",
        (Window::Weekday, Lang::En) => "Monday 12:00 – Friday 23:59",
        (Window::Weekend, Lang::Sv) => "lördag 00:00 – söndag 15:00",
        (Window::Weekend, Lang::En) => "Saturday 00:00 – Sunday 15:00",
        (Window::Closed, Lang::Sv) => "aldrig",
        (Window::Closed, Lang::En) => "never",
    }
}

fn shortage_text(s: &Shortage, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    match s {
        Shortage::Resources { lacks } => {
            if sv {
                format!("det fattas {}", lacks.describe(lang))
            } else {
                format!("you lack {}", lacks.describe(lang))
            }
        }
        Shortage::Units { kind, want, have } => {
            let w = kind.count_text(*want as usize, lang);
            if sv {
                format!("{w} begärda, {have} finns i källstaden")
            } else {
                format!("{w} asked for, {have} in the source city")
            }
        }
        Shortage::Ships { kind, want, have } => {
            let w = kind.count_text(*want as usize, lang);
            if sv {
                format!("{w} begärda, {have} finns i källstaden")
            } else {
                format!("{w} asked for, {have} in the source city")
            }
        }
        Shortage::Vp { want, have } => {
            if sv {
                format!("{want} segerpoäng begärda, du har {have}")
            } else {
                format!("{want} VP asked for, you have {have}")
            }
        }
        Shortage::NotYourCity { city } => {
            if sv {
                format!("`{city}` är inte en av dina städer")
            } else {
                format!("`{city}` is not one of your cities")
            }
        }
        Shortage::CapitalOrHarbour { city } => {
            if sv {
                format!("`{city}` är din huvudstad eller huvudhamn och kan inte säljas")
            } else {
                format!("`{city}` is your capital or main harbour and cannot be sold")
            }
        }
        Shortage::NotABorderSquare { square } => {
            if sv {
                format!("{square} är inte en egen gränsruta mot mottagaren (utan stad)")
            } else {
                format!("{square} is not an own border square with the receiver (without a city)")
            }
        }
        Shortage::BuyerHasNoCapital => if sv {
            "mottagaren har ingen huvudstad att ta emot trupper i"
        } else {
            "the receiver has no capital to receive troops"
        }
        .to_string(),
        // The buyer's limits are named, never its numbers: a refused merchant costs
        // nothing, so numbers here would let any realm read another's army, fleet and
        // population for free (the GM's audit keeps them).
        Shortage::BuyerPopulationCap { .. } => if sv {
            "mottagarens befolkning räcker inte till så många fler enheter"
        } else {
            "the receiver's population does not allow that many more units"
        }
        .to_string(),
        Shortage::BuyerShipCap { .. } => if sv {
            "mottagarens Amiral tillåter inte så många fler skepp"
        } else {
            "the receiver's Admiral does not allow that many more ships"
        }
        .to_string(),
        Shortage::BuyerElementalCap { .. } => if sv {
            "mottagarens Besvärjare tillåter inte så många fler elementarer"
        } else {
            "the receiver's Conjurer does not allow that many more elementals"
        }
        .to_string(),
        Shortage::BuyerArmyGroupCap { .. } => if sv {
            "mottagaren kan inte ta emot trupperna i sin huvudstad just nu"
        } else {
            "the receiver cannot take the troops in its capital now"
        }
        .to_string(),
        Shortage::BuyerHasNoHarbour => if sv {
            "mottagaren har ingen huvudhamn att ta emot skepp i"
        } else {
            "the receiver has no main harbour to receive ships"
        }
        .to_string(),
    }
}

fn charge_name(c: Charge, lang: Lang) -> &'static str {
    match (c, lang) {
        (Charge::Envoy, Lang::Sv) => "sändebudet",
        (Charge::Envoy, Lang::En) => "the envoy",
        (Charge::Merchant, Lang::Sv) => "handelsmannen",
        (Charge::Merchant, Lang::En) => "the merchant",
        (Charge::Reveal, Lang::Sv) => "formeln Avslöja",
        (Charge::Reveal, Lang::En) => "the Reveal spell",
    }
}

impl Refusal {
    /// The explanation the sender reads. `next_open` is the next opening of the needed
    /// window, already written in the realm's local time.
    pub fn explain(&self, lang: Lang, next_open: Option<&str>) -> String {
        let sv = lang == Lang::Sv;
        let nothing = if sv {
            "Inget har dragits från ditt lager och inget har skickats."
        } else {
            "Nothing was charged and nothing was sent."
        };
        let pick = |s: String, e: String| if sv { s } else { e };
        let mut s = match self {
            Refusal::OutsideWindow { kind, needed, .. } => {
                let what = kind_name(*kind, lang);
                let window = window_text(*needed, lang);
                // A form is counted, not passed on: its refusal speaks of forms.
                let mut s = if *kind == MailKind::Form {
                    pick(
                        format!("{what} tas emot {window} (spelets tid). Ditt formulär kom utanför den tiden och har inte räknats: inga order i det gäller."),
                        format!("{what} are taken {window} (game time). Your form arrived outside that window and has not been counted: none of its orders stand."),
                    )
                } else {
                    pick(
                        format!("{what} kan bara skickas {window} (spelets tid). Ditt brev kom utanför den tiden och har inte skickats vidare; inget har dragits från ditt lager."),
                        format!("{what} can only be sent {window} (game time). Your mail arrived outside that window and was not passed on; nothing was charged."),
                    )
                };
                if let Some(t) = next_open {
                    s.push_str(&pick(format!("\nNästa gång: {t}."), format!("\nNext opening: {t}.")));
                }
                return s;
            }
            Refusal::CannotPay { charge, price, lacks } => pick(
                format!("Din gratiskvot är slut, så {} kostar {}. Det fattas {}.", charge_name(*charge, lang), price.describe(lang), lacks.describe(lang)),
                format!("Your free allowance is used up, so {} costs {}. You lack {}.", charge_name(*charge, lang), price.describe(lang), lacks.describe(lang)),
            ),
            Refusal::GoodsNotHeld { shortages } => {
                let list: Vec<String> = shortages.iter().map(|x| format!("- {}", shortage_text(x, lang))).collect();
                pick(
                    format!("Du har inte allt som står under Skickar:, så hela försändelsen avvisas:\n{}\n", list.join("\n")),
                    format!("You do not hold everything listed under Sends:, so the whole mail is refused:\n{}\n", list.join("\n")),
                )
            }
            Refusal::NoTrailer => pick(
                "En handelsman måste sluta med en rad asterisker och vad den för med sig, t.ex.\n****\nSkickar: 5 sten\nVäntar: 6 mat\n".into(),
                "A merchant must end with a line of asterisks and what it carries, e.g.\n****\nSends: 5 stone\nExpects: 6 food\n".into(),
            ),
            Refusal::Trailer(e) => pick(
                format!("Raden `{}` gick inte att läsa: {}. Skriv t.ex. `Skickar: 5 sten, 2 lätt infanteri`.", e.line, e.explain(lang)),
                format!("The line `{}` could not be read: {}. Write e.g. `Sends: 5 stone, 2 light infantry`.", e.line, e.explain(lang)),
            ),
            Refusal::ExpectsInEnvoy => pick(
                "Ett sändebud kan bära en gåva (Skickar:) men inte begära något (Väntar:); handel sker med handelsman.".into(),
                "An envoy may carry a gift (Sends:) but not ask for anything (Expects:); trade goes by merchant.".into(),
            ),
            Refusal::NoDestination => pick("Brevet saknar mottagare.".into(), "The mail has no destination.".into()),
            Refusal::UnknownRealm { name } => pick(format!("`{name}` är inget land i spelet."), format!("`{name}` is not a realm in this game.")),
            Refusal::ForgeryNeedsSpy => pick(
                "Ett sändebud med en annan avsändare är en förfalskning: skicka en spion med `Uppdrag: förfalskning`, eller använd rätten efter ett stulet sändebud (bara till dess mottagare).".into(),
                "An envoy naming another sender is a forgery: send a spy with `Mission: forgery`, or use the right an intercepted envoy gives (to its recipient only).".into(),
            ),
            Refusal::ForgeryNeedsClaimedSender => pick(
                "En förfalskning måste ha en rad `Avsändare: <land>`.".into(),
                "A forgery needs a line `Sender: <realm>`.".into(),
            ),
            Refusal::ForgeryCarriesNoGoods => pick(
                "En förfalskning kan inte bära gåvor.".into(),
                "A forgery cannot carry goods.".into(),
            ),
            Refusal::Mission(e) => pick(
                format!("Spionens uppdrag gick inte att läsa ({}). Skriv t.ex. `Uppdrag: 1` eller `Uppdrag: stad K5` eller `Uppdrag: stjäl sändebud till/från <land>`.", e.explain(lang)),
                format!("The spy's mission could not be read ({}). Write e.g. `Mission: 1`, `Mission: city K5` or `Mission: steal envoys to/from <realm>`.", e.explain(lang)),
            ),
            Refusal::NoSpies => pick(
                "Du har inga spioner. Spioner byggs på helgformuläret.".into(),
                "You have no spies. Spies are built on the weekend form.".into(),
            ),
            Refusal::EvilCannotBeSpied => pick("Ondskan kan inte spioneras på.".into(), "The Evil cannot be spied on.".into()),
            Refusal::InvitationNotYourLand { square } => pick(
                format!("Inbjudan till {square} gäller inte: rutan är varken avsändarens land eller havet vid det."),
                format!("The invitation to {square} is not valid: the square is neither the sender's land nor the sea off it."),
            ),
            Refusal::RevealOutsideWindow { .. } => {
                let w = window_text(Window::Weekday, lang);
                pick(format!("Avslöja kan kastas med brev till SL {w}, annars på helgformuläret."), format!("Reveal can be cast by mail to the GM {w}, otherwise on the weekend form."))
            }
            Refusal::RevealUsed => pick("Du har redan kastat Avslöja den här rundan.".into(), "You have already cast Reveal this round.".into()),
            Refusal::UnknownSpell { line } => pick(format!("Okänd formel i `{line}`."), format!("Unknown spell in `{line}`.")),
            Refusal::BadHomeInvitation { line } => pick(
                format!("`{line}`: skriv `Hembjudan: armé 2` eller `Hembjudan: flotta 1`."),
                format!("`{line}`: write `Home-invitation: army 2` or `Home-invitation: fleet 1`."),
            ),
            Refusal::NoSuchGroup { army, id } => match (army, sv) {
                (true, true) => format!("Du har ingen armé {id}."),
                (false, true) => format!("Du har ingen flotta {id}."),
                (true, false) => format!("You have no army {id}."),
                (false, false) => format!("You have no fleet {id}."),
            },
            Refusal::AlreadyHome { army, id } => match (army, sv) {
                (true, true) => format!("Armé {id} står redan i ert eget land; hembjudan gäller trupper i andra länder (R-INV-8)."),
                (false, true) => format!("Flotta {id} står redan i ert eget land; hembjudan gäller trupper i andra länder (R-INV-8)."),
                (true, false) => format!("Army {id} already stands in your own land; a home-invitation calls troops home from other countries (R-INV-8)."),
                (false, false) => format!("Fleet {id} already stands in your own land; a home-invitation calls troops home from other countries (R-INV-8)."),
            },
        };
        // A list ends with its own newline; a sentence needs a space before the next.
        if !s.ends_with('\n') {
            s.push(' ');
        }
        s.push_str(nothing);
        s
    }
}

#[cfg(test)]
mod route_tests {
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
    fn r_mail_8_envoy_in_the_weekday_window_is_queued_for_the_batch() {
        assert_eq!(route(&envoy(Window::Weekday)), Route::Queue);
        let _ = at("2026-11-24T10:00:00Z");
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
            assert_eq!(route(&m), Route::Queue, "{kind:?}");
        }
    }
}
