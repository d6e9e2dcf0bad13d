//! Inbound mail + realm directory → one decision: unknown sender, GM mail, an
//! accepted realm mail of a known kind, or a refusal with a reason the player reads.
//!
//! Owns the sender lookup by From address, the size limit, the subject check and
//! the empty-body rule, and the wording of refusals. It does not check DKIM/DMARC or
//! tokens (the sender check of docs/reference/mail.md runs before this), time windows,
//! costs or order syntax; those belong to the courier and forms rooms.

use crate::game::text::MailKind;
use crate::game::Lang;
use crate::mail::parse::Inbound;
use crate::mail::subject::{parse_subject, Subject, SubjectError};

/// One realm as the mail router knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// Canonical realm name.
    pub name: String,
    /// Addresses registered for the realm (compared case-insensitively).
    pub emails: Vec<String>,
    /// The language the realm plays in; replies use it.
    pub lang: Lang,
}

/// Every realm of one game, plus the game's own address and the GM's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directory {
    pub realms: Vec<DirEntry>,
    pub game_address: String,
    pub gm_address: String,
}

/// What to do with one inbound mail.
#[derive(Debug, Clone, PartialEq)]
pub enum Classified {
    /// From address belongs to no realm (and is not the GM): no reply (no backscatter), GM queue.
    /// Mail from the game's own address (a loop) also lands here.
    UnknownSender { from: Option<String> },
    /// The headers do not name exactly one author (several `From` headers or
    /// addresses, or a `Sender` that disagrees): nobody's mail, so no reply; GM queue.
    DoubtfulSender { from: Option<String>, why: String },
    /// Mail from the GM's own address: GM queue (later issues give GM commands by mail).
    FromGm,
    /// A realm's mail that fits a kind.
    Accepted {
        realm: String,
        lang: Lang,
        subject: Subject,
    },
    /// A realm asks for its latest form again (`<Land> formulär igen` / `<Realm> form
    /// again`); the mail's From is one of the realm's addresses.
    Resend { realm: String, lang: Lang },
    /// A realm asks for a link to its pages on the game's web site (`<Land> länk` /
    /// `<Realm> link`); the mail's From is one of the realm's addresses.
    Link { realm: String, lang: Lang },
    /// A realm asks for the player's guide (`<Land> hjälp` / `<Realm> help`); the
    /// mail's From is one of the realm's addresses.
    Help { realm: String, lang: Lang },
    /// A realm answers an envoy delivered to it (subject `Re: Sändebud från <Land>` /
    /// `Re: Envoy from <Realm>`): `to` is the realm the delivery named. `replied` when
    /// the mail's `In-Reply-To`/`References` name a mail of the game's (the client's
    /// Reply); the app makes it an envoy or refuses it (`courier.reply_is_envoy`).
    DeliveryReply {
        realm: String,
        lang: Lang,
        to: String,
        replied: bool,
    },
    /// A realm's mail that fits no kind or is wrong: the realm gets a reply explaining it.
    Refused {
        realm: String,
        lang: Lang,
        reason: Refusal,
    },
}

/// Why a realm's mail was refused. Rendered to the player by [`Refusal::explain`].
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    NoSubject,
    BadSubject {
        subject: String,
        error: SubjectError,
    },
    /// The subject names another realm as the sender than the one owning the From address.
    WrongSender {
        subject_realm: String,
    },
    EmptyBody {
        kind: MailKind,
    },
    TooLarge {
        size: usize,
        limit: usize,
    },
    /// A reply to an envoy delivery that is not taken as an envoy: the refusal names
    /// the exact envoy subject from `from` to `to`.
    ReplyNotEnvoy {
        from: String,
        to: String,
    },
}

/// Classifies one parsed mail. Order of checks: one author (else GM queue), From address
/// (unknown → no reply; GM → GM queue), size, subject, sender realm named in the subject,
/// body.
///
/// The subject's sending realm must be the From address's realm for every kind
/// (a form or a GM mail on another realm's behalf is refused as well). When an
/// address is registered for several realms, the one named in the subject wins.
pub fn classify(mail: &Inbound, dir: &Directory, max_size: usize) -> Classified {
    if let Some(why) = &mail.sender_doubt {
        return Classified::DoubtfulSender {
            from: mail.from_addr.clone(),
            why: why.clone(),
        };
    }
    let Some(from) = mail
        .from_addr
        .as_deref()
        .map(normalize_addr)
        .filter(|a| !a.is_empty())
    else {
        return Classified::UnknownSender { from: None };
    };
    if from == normalize_addr(&dir.gm_address) {
        return Classified::FromGm;
    }
    let owners: Vec<&DirEntry> = dir
        .realms
        .iter()
        .filter(|r| r.emails.iter().any(|e| normalize_addr(e) == from))
        .collect();
    if owners.is_empty() || from == normalize_addr(&dir.game_address) {
        return Classified::UnknownSender { from: Some(from) };
    }

    let names: Vec<&str> = dir.realms.iter().map(|r| r.name.as_str()).collect();
    if let Some(resend) = resend_of(mail, &owners, &names, max_size) {
        return resend;
    }
    if let Some(link) = link_of(mail, &owners, &names, max_size) {
        return link;
    }
    if let Some(help) = help_of(mail, &owners, &names, max_size) {
        return help;
    }
    if let Some(reply) = delivery_reply_of(mail, dir, &owners, &names, max_size) {
        return reply;
    }
    let parsed = mail.subject.as_deref().map(|s| parse_subject(s, &names));
    let owner = match &parsed {
        Some(Ok(s)) => owners
            .iter()
            .find(|o| o.name == s.from)
            .unwrap_or(&owners[0]),
        _ => &owners[0],
    };
    let refuse = |reason| Classified::Refused {
        realm: owner.name.clone(),
        lang: owner.lang,
        reason,
    };

    if mail.size > max_size {
        return refuse(Refusal::TooLarge {
            size: mail.size,
            limit: max_size,
        });
    }
    let subject = match parsed {
        None | Some(Err(SubjectError::Empty)) => return refuse(Refusal::NoSubject),
        Some(Err(error)) => {
            return refuse(Refusal::BadSubject {
                subject: mail.subject.clone().unwrap_or_default(),
                error,
            })
        }
        Some(Ok(subject)) => subject,
    };
    if subject.from != owner.name {
        return refuse(Refusal::WrongSender {
            subject_realm: subject.from,
        });
    }
    let has_text = !mail.text.trim().is_empty();
    let empty = match subject.kind {
        MailKind::Envoy | MailKind::Merchant | MailKind::Spy => !has_text,
        MailKind::Form => !has_text && mail.attachments.iter().all(|a| a.text.trim().is_empty()),
        MailKind::ToGm => false,
    };
    if empty {
        return refuse(Refusal::EmptyBody { kind: subject.kind });
    }
    Classified::Accepted {
        realm: owner.name.clone(),
        lang: owner.lang,
        subject,
    }
}

/// An absence announced in a to-GM subject: `<Land> till SL: frånvaro N` /
/// `<Realm> to GM: absence N` (docs/gm/season.md; D-34). Only the subject counts,
/// never the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AbsenceTopic {
    /// N weekends, as written; the app checks N against its setting.
    Weekends(u32),
    /// The topic names an absence but no readable count: the topic, for quoting.
    Unreadable(String),
}

/// Words accepted after the count (`frånvaro 2 helger`, `absence 2 weekends`).
const ABSENCE_UNITS: &[&str] = &[
    "helg", "helger", "helgen", "vecka", "veckor", "weekend", "weekends", "week", "weeks",
];

/// Reads a to-GM topic as an absence: `None` when its first word is not `frånvaro`
/// (`franvaro`) or `absence`, so every other topic stays a plain mail to the GM.
pub fn absence_topic(topic: Option<&str>) -> Option<AbsenceTopic> {
    let topic = topic?.trim();
    let folded = crate::game::text::fold(topic);
    let mut words = folded.split(' ');
    if !matches!(words.next(), Some("franvaro" | "absence")) {
        return None;
    }
    let rest: Vec<&str> = words.collect();
    let count = match rest.as_slice() {
        [n] => Some(*n),
        [n, unit] if ABSENCE_UNITS.contains(unit) => Some(*n),
        _ => None,
    };
    let n = count
        .filter(|n| n.len() <= 9 && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse::<u32>().ok());
    Some(match n {
        Some(n) => AbsenceTopic::Weekends(n),
        None => AbsenceTopic::Unreadable(quote(topic)),
    })
}

/// A resend request (checked before the other subjects, so `<Land> formulär igen` is
/// never read as a weekend form): the realm's, or refused when the subject names
/// another realm than the sender's or the mail is too large.
fn resend_of(
    mail: &Inbound,
    owners: &[&DirEntry],
    names: &[&str],
    max_size: usize,
) -> Option<Classified> {
    let parse = crate::mail::subject::parse_resend;
    realm_request(mail, owners, names, max_size, parse, |realm, lang| {
        Classified::Resend { realm, lang }
    })
}

/// A request for the web site's link (checked before the other subjects, like a
/// resend request).
fn link_of(
    mail: &Inbound,
    owners: &[&DirEntry],
    names: &[&str],
    max_size: usize,
) -> Option<Classified> {
    let parse = crate::mail::subject::parse_link;
    realm_request(mail, owners, names, max_size, parse, |realm, lang| {
        Classified::Link { realm, lang }
    })
}

/// A request for the player's guide (checked before the other subjects).
fn help_of(
    mail: &Inbound,
    owners: &[&DirEntry],
    names: &[&str],
    max_size: usize,
) -> Option<Classified> {
    let parse = crate::mail::subject::parse_help;
    realm_request(mail, owners, names, max_size, parse, |realm, lang| {
        Classified::Help { realm, lang }
    })
}

/// A reply to an envoy delivery: the subject is the delivery's (`Re: Envoy from
/// Afani`) and the sender is a realm other than the one it names.
fn delivery_reply_of(
    mail: &Inbound,
    dir: &Directory,
    owners: &[&DirEntry],
    names: &[&str],
    max_size: usize,
) -> Option<Classified> {
    let subject = mail.subject.as_deref()?;
    let (to, _) = crate::mail::subject::parse_delivery_reply(subject, names)?;
    let owner = owners.iter().find(|o| o.name != to)?;
    if mail.size > max_size {
        return Some(Classified::Refused {
            realm: owner.name.clone(),
            lang: owner.lang,
            reason: Refusal::TooLarge {
                size: mail.size,
                limit: max_size,
            },
        });
    }
    let ours = format!(
        ".pbemd@{}",
        normalize_addr(dir.game_address.rsplit('@').next().unwrap_or_default())
    );
    let replied = mail
        .in_reply_to
        .iter()
        .chain(mail.references.iter())
        .any(|id| normalize_addr(id).ends_with(&ours));
    Some(Classified::DeliveryReply {
        realm: owner.name.clone(),
        lang: owner.lang,
        to,
        replied,
    })
}

/// Reads a request's subject: the realm named and the subject's language.
type SubjectParser = fn(&str, &[&str]) -> Option<(String, Lang)>;

/// A realm's request by subject alone (`parse` reads it): `make` of the realm and
/// its language, or refused when the subject names another realm than the sender's
/// or the mail is too large.
fn realm_request(
    mail: &Inbound,
    owners: &[&DirEntry],
    names: &[&str],
    max_size: usize,
    parse: SubjectParser,
    make: impl FnOnce(String, Lang) -> Classified,
) -> Option<Classified> {
    let (named, _) = mail.subject.as_deref().and_then(|s| parse(s, names))?;
    let owner = owners.iter().find(|o| o.name == named);
    let refused = |o: &DirEntry, reason| Classified::Refused {
        realm: o.name.clone(),
        lang: o.lang,
        reason,
    };
    Some(match owner {
        None => refused(
            owners[0],
            Refusal::WrongSender {
                subject_realm: named,
            },
        ),
        Some(o) if mail.size > max_size => refused(
            o,
            Refusal::TooLarge {
                size: mail.size,
                limit: max_size,
            },
        ),
        Some(o) => make(o.name.clone(), o.lang),
    })
}

fn normalize_addr(a: &str) -> String {
    a.trim().trim_matches(['<', '>']).to_lowercase()
}

/// Longest subject quoted back to a player, in characters.
const QUOTE_MAX: usize = 120;

impl Refusal {
    /// One or two sentences for the player, with the right subject forms written
    /// with `<Land>`/`<Realm>` standing for the sender.
    pub fn explain(&self, lang: Lang) -> String {
        self.explain_for(lang, None)
    }

    /// Like [`Refusal::explain`], with the realm's own name in the subject forms.
    pub fn explain_for(&self, lang: Lang, realm: Option<&str>) -> String {
        let sv = lang == Lang::Sv;
        let reason = match self {
            Refusal::NoSubject => {
                if sv {
                    "Ditt brev saknar ämnesrad.".to_string()
                } else {
                    "Your mail has no subject.".to_string()
                }
            }
            Refusal::BadSubject { subject, error } => bad_subject(sv, subject, error),
            Refusal::WrongSender { subject_realm } => {
                if sv {
                    format!(
                        "Ämnesraden säger att brevet kommer från {subject_realm}, men din adress hör inte till {subject_realm}."
                    )
                } else {
                    format!(
                        "The subject says the mail comes from {subject_realm}, but your address does not belong to {subject_realm}."
                    )
                }
            }
            Refusal::EmptyBody { kind } => {
                return if sv {
                    format!(
                        "Ditt {} är tomt: skriv texten i själva brevet{}och skicka igen.",
                        kind_sv(*kind),
                        if *kind == MailKind::Form {
                            " (eller bifoga den som .txt-fil) "
                        } else {
                            " "
                        }
                    )
                } else {
                    format!(
                        "Your {} is empty: write the text in the mail itself{}and send it again.",
                        kind_en(*kind),
                        if *kind == MailKind::Form {
                            " (or attach it as a .txt file) "
                        } else {
                            " "
                        }
                    )
                };
            }
            Refusal::ReplyNotEnvoy { from, to } => {
                let exact = envoy_subject(sv, from, to);
                return if sv {
                    format!(
                        "Ett svar på ett sändebud blir inte ett nytt sändebud av sig självt. Skicka ett nytt brev till spelets adress med ämnesraden «{exact}» och din text."
                    )
                } else {
                    format!(
                        "A reply to an envoy does not become an envoy by itself. Send a new mail to the game's address with the subject “{exact}” and your text."
                    )
                };
            }
            Refusal::TooLarge { size, limit } => {
                return if sv {
                    format!(
                        "Ditt brev är för stort ({size} byte; gränsen är {limit} byte). Korta det, ta bort bilagor och skicka igen."
                    )
                } else {
                    format!(
                        "Your mail is too large ({size} bytes; the limit is {limit} bytes). Shorten it, remove attachments and send it again."
                    )
                };
            }
        };
        format!("{reason} {}", forms_sentence(sv, realm))
    }
}

fn bad_subject(sv: bool, subject: &str, error: &SubjectError) -> String {
    let q = quote(subject);
    match (error, sv) {
        (SubjectError::Empty, true) => "Ditt brev saknar ämnesrad.".to_string(),
        (SubjectError::Empty, false) => "Your mail has no subject.".to_string(),
        (SubjectError::UnknownSender { word }, true) if word.is_empty() => {
            format!("Ämnesraden «{q}» börjar inte med ditt lands namn.")
        }
        (SubjectError::UnknownSender { word }, false) if word.is_empty() => {
            format!("The subject “{q}” does not start with your realm's name.")
        }
        (SubjectError::UnknownSender { word }, true) => format!(
            "I ämnesraden «{q}» är «{}» inget land i spelet.",
            quote(word)
        ),
        (SubjectError::UnknownSender { word }, false) => format!(
            "In the subject “{q}”, “{}” is not a realm in this game.",
            quote(word)
        ),
        (SubjectError::UnknownDestination { word }, true) if word.is_empty() => {
            format!("Ämnesraden «{q}» säger inte vart brevet ska.")
        }
        (SubjectError::UnknownDestination { word }, false) if word.is_empty() => {
            format!("The subject “{q}” does not say where the mail is going.")
        }
        (SubjectError::UnknownDestination { word }, true) => format!(
            "I ämnesraden «{q}» är mottagaren «{}» inget land i spelet.",
            quote(word)
        ),
        (SubjectError::UnknownDestination { word }, false) => format!(
            "In the subject “{q}”, the destination “{}” is not a realm in this game.",
            quote(word)
        ),
        (SubjectError::SameRealm { realm }, true) => {
            format!("Ämnesraden «{q}» anger {realm} både som avsändare och som mottagare.")
        }
        (SubjectError::SameRealm { realm }, false) => {
            format!("The subject “{q}” names {realm} as both sender and receiver.")
        }
        (SubjectError::UnknownKind { .. }, true) => {
            format!("Ämnesraden «{q}» passar inte någon av brevformerna.")
        }
        (SubjectError::UnknownKind { .. }, false) => {
            format!("The subject “{q}” fits none of the mail forms.")
        }
    }
}

/// The exact envoy subject from `from` to `to` in the realm's language.
pub fn envoy_subject(sv: bool, from: &str, to: &str) -> String {
    if sv {
        format!("{from} skickar ett sändebud till {to}")
    } else {
        format!("{from} sends an envoy to {to}")
    }
}

/// The sentence listing all five subject forms, and the one naming the player's guide.
fn forms_sentence(sv: bool, realm: Option<&str>) -> String {
    if sv {
        let me = realm.unwrap_or("<Land>");
        format!(
            "Ämnesraden ska vara en av: «{me} skickar ett sändebud till <Land>», «{me} skickar en handelsman till <Land>», «{me} skickar en spion till <Land>», «{me} formulär» eller «{me} till SL: <ämne>». Med ämnet «{me} hjälp» får du spelarhandledningen med alla brevformer."
        )
    } else {
        let me = realm.unwrap_or("<Realm>");
        format!(
            "The subject must be one of: “{me} sends an envoy to <Realm>”, “{me} sends a merchant to <Realm>”, “{me} sends a spy to <Realm>”, “{me} form” or “{me} to GM: <topic>”. The subject “{me} help” brings you the player's guide with every kind of mail."
        )
    }
}

fn kind_sv(kind: MailKind) -> &'static str {
    match kind {
        MailKind::Envoy => "sändebud",
        MailKind::Merchant => "handelsbrev",
        MailKind::Spy => "spionbrev",
        MailKind::Form => "formulär",
        MailKind::ToGm => "brev till SL",
    }
}

fn kind_en(kind: MailKind) -> &'static str {
    match kind {
        MailKind::Envoy => "envoy",
        MailKind::Merchant => "merchant",
        MailKind::Spy => "spy",
        MailKind::Form => "form",
        MailKind::ToGm => "mail to the GM",
    }
}

/// A player's text made safe to quote: control characters turned to spaces,
/// whitespace collapsed, cut to [`QUOTE_MAX`] characters.
fn quote(s: &str) -> String {
    let clean: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let clean = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if clean.chars().count() > QUOTE_MAX {
        let cut: String = clean.chars().take(QUOTE_MAX).collect();
        format!("{cut}…")
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absence_topic_is_read_in_either_language_and_other_topics_are_left_alone() {
        use AbsenceTopic::*;
        assert_eq!(absence_topic(Some("frånvaro 2")), Some(Weekends(2)));
        assert_eq!(
            absence_topic(Some(" FRANVARO  3 helger")),
            Some(Weekends(3))
        );
        assert_eq!(absence_topic(Some("Absence 1 weekend")), Some(Weekends(1)));
        assert_eq!(absence_topic(Some("absence 0")), Some(Weekends(0)));
        assert_eq!(
            absence_topic(Some("frånvaro två")),
            Some(Unreadable("frånvaro två".into()))
        );
        assert_eq!(
            absence_topic(Some("absence 99999999999999")),
            Some(Unreadable("absence 99999999999999".into()))
        );
        assert_eq!(
            absence_topic(Some("absence")),
            Some(Unreadable("absence".into()))
        );
        assert_eq!(absence_topic(Some("frånvaron i sommar")), None);
        assert_eq!(absence_topic(Some("a question")), None);
        assert_eq!(absence_topic(None), None);
    }
    use crate::mail::parse::{parse_inbound, ParseMailError};
    use MailKind::*;

    const MAX: usize = 64 * 1024;

    fn dir() -> Directory {
        let entry = |name: &str, emails: &[&str], lang| DirEntry {
            name: name.into(),
            emails: emails.iter().map(|e| e.to_string()).collect(),
            lang,
        };
        Directory {
            realms: vec![
                entry(
                    "Ostvik",
                    &["ostvik@example.se", "Bo@Example.SE", "shared@example.se"],
                    Lang::Sv,
                ),
                entry("Afani", &["afani@example.com"], Lang::En),
                entry("Nya Ostvik", &["nya@example.se"], Lang::Sv),
                entry(
                    "Stora Öar",
                    &["oar@example.com", "shared@example.se"],
                    Lang::En,
                ),
            ],
            game_address: "game@pbem.example".into(),
            gm_address: "GM@pbem.example".into(),
        }
    }

    /// A plain UTF-8 mail; `subject` may hold RFC 2047 words.
    fn mail(from: &str, subject: &str, body: &str) -> Vec<u8> {
        format!(
            "From: {from}\r\nTo: game@pbem.example\r\nSubject: {subject}\r\n\
Message-ID: <m1@example.se>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
        )
        .into_bytes()
    }

    fn run(raw: &[u8]) -> Result<Classified, ParseMailError> {
        parse_inbound(raw).map(|m| classify(&m, &dir(), MAX))
    }

    fn accepted(raw: &[u8]) -> (String, Lang, Subject) {
        match run(raw) {
            Ok(Classified::Accepted {
                realm,
                lang,
                subject,
            }) => (realm, lang, subject),
            other => panic!("{other:?} for {}", String::from_utf8_lossy(raw)),
        }
    }

    fn refused(realm: &str, lang: Lang, reason: Refusal) -> Result<Classified, ParseMailError> {
        Ok(Classified::Refused {
            realm: realm.into(),
            lang,
            reason,
        })
    }

    fn bad(subject: &str, error: SubjectError) -> Result<Classified, ParseMailError> {
        refused(
            "Ostvik",
            Lang::Sv,
            Refusal::BadSubject {
                subject: subject.into(),
                error,
            },
        )
    }

    #[test]
    fn a_request_for_the_form_again_is_a_resend_not_a_weekend_form() {
        let want = |realm: &str, lang| {
            Ok(Classified::Resend {
                realm: realm.into(),
                lang,
            })
        };
        assert_eq!(
            run(&mail("ostvik@example.se", "Re: Östvik formulär igen", "")),
            want("Ostvik", Lang::Sv)
        );
        assert_eq!(
            run(&mail("AFANI@example.com", "Afani form again", "x")),
            want("Afani", Lang::En)
        );
        // The shared address: the realm named in the subject.
        assert_eq!(
            run(&mail("shared@example.se", "Stora Öar form again", "")),
            want("Stora Öar", Lang::En)
        );
        let (_, _, form) = accepted(&mail("ostvik@example.se", "Östvik formulär", "KÖP 1 spion"));
        assert_eq!(form.kind, Form);
        assert_eq!(
            run(&mail("afani@example.com", "Ostvik formulär igen", "")),
            refused(
                "Afani",
                Lang::En,
                Refusal::WrongSender {
                    subject_realm: "Ostvik".into()
                }
            )
        );
        assert_eq!(
            run(&mail("stranger@example.org", "Afani form again", "")),
            Ok(Classified::UnknownSender {
                from: Some("stranger@example.org".into())
            })
        );
    }

    #[test]
    fn every_swedish_and_english_form_is_accepted_with_prefixes_case_and_diacritics() {
        let cases: &[(&str, MailKind, Option<&str>, Lang)] = &[
            (
                "Sv: Östvik skickar ett sändebud till Afani",
                Envoy,
                Some("Afani"),
                Lang::Sv,
            ),
            (
                "SV: RE: ostvik SKICKAR en handelsman till AFANI",
                Merchant,
                Some("Afani"),
                Lang::Sv,
            ),
            (
                "VB: OSTVIK skickar en spion till stora oar",
                Spy,
                Some("Stora Öar"),
                Lang::Sv,
            ),
            ("Re: östvik formulär", Form, None, Lang::Sv),
            ("Östvik HELGFORMULÄR", Form, None, Lang::Sv),
            ("Sv: Östvik till SL: Handelsrapport", ToGm, None, Lang::Sv),
            (
                "Fwd: ostvik sends an envoy to afäni",
                Envoy,
                Some("Afani"),
                Lang::En,
            ),
            (
                "Fw: Ostvik Sends A Merchant To Nya Östvik",
                Merchant,
                Some("Nya Ostvik"),
                Lang::En,
            ),
            (
                "AW: OSTVIK sends a spy to Afani",
                Spy,
                Some("Afani"),
                Lang::En,
            ),
            ("Re: Re: ostvik FORM", Form, None, Lang::En),
            ("Östvik weekend form", Form, None, Lang::En),
            ("ostvik to gm: Reveal", ToGm, None, Lang::En),
            (
                "Ostvik skickar ett sandebud till Afani",
                Envoy,
                Some("Afani"),
                Lang::Sv,
            ),
        ];
        for (subject, kind, to, lang) in cases {
            let (realm, realm_lang, s) =
                accepted(&mail("Bo <bo@example.se>", subject, "Hälsningar"));
            assert_eq!(realm, "Ostvik", "{subject}");
            assert_eq!(realm_lang, Lang::Sv, "reply language is the realm's");
            assert_eq!(s.kind, *kind, "{subject}");
            assert_eq!(s.from, "Ostvik", "{subject}");
            assert_eq!(s.to.as_deref(), *to, "{subject}");
            assert_eq!(s.lang, *lang, "{subject}");
        }
    }

    #[test]
    fn encoded_subjects_and_multi_word_realms_are_accepted() {
        let (realm, lang, s) = accepted(&mail(
            "oar@example.com",
            "=?ISO-8859-1?Q?Stora_=D6ar_skickar_ett_s=E4ndebud_till_Nya_=D6stvik?=",
            "Hej",
        ));
        assert_eq!((realm.as_str(), lang), ("Stora Öar", Lang::En));
        assert_eq!(s.to.as_deref(), Some("Nya Ostvik"));
        assert_eq!(s.lang, Lang::Sv);

        let (realm, _, s) = accepted(&mail(
            "nya@example.se",
            "=?UTF-8?Q?Nya_=C3=96stvik_formul=C3=A4r?=",
            "KÖP 1 spion",
        ));
        assert_eq!(realm, "Nya Ostvik");
        assert_eq!(s.kind, Form);
    }

    #[test]
    fn to_gm_mail_keeps_its_topic_and_may_be_empty() {
        let (_, _, s) = accepted(&mail("ostvik@example.se", "Östvik till SL: Fråga", ""));
        assert_eq!(s.kind, ToGm);
        assert_eq!(s.topic.as_deref(), Some("Fråga"));
        let (_, _, s) = accepted(&mail("ostvik@example.se", "Ostvik to GM:", ""));
        assert_eq!(s.topic, None);
    }

    #[test]
    fn html_only_envoy_and_attached_form_are_accepted() {
        let html = b"From: afani@example.com\r\nSubject: Afani sends an envoy to Ostvik\r\n\
Content-Type: text/html; charset=utf-8\r\n\r\n<p>Greetings, <i>friends</i>.</p>\r\n";
        let (realm, lang, s) = accepted(html);
        assert_eq!((realm.as_str(), lang, s.kind), ("Afani", Lang::En, Envoy));

        let form = b"From: afani@example.com\r\nSubject: Afani form\r\n\
Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n\
--B\r\nContent-Type: text/plain\r\n\r\n\r\n\
--B\r\nContent-Type: text/plain; name=\"orders.txt\"\r\n\
Content-Disposition: attachment; filename=\"orders.txt\"\r\n\r\nBUY 2 spy\r\n--B--\r\n";
        assert_eq!(accepted(form).2.kind, Form);
    }

    #[test]
    fn an_address_shared_by_two_realms_belongs_to_the_realm_named_in_the_subject() {
        let (realm, lang, _) = accepted(&mail("shared@example.se", "Stora Öar form", "x"));
        assert_eq!((realm.as_str(), lang), ("Stora Öar", Lang::En));
        let (realm, _, _) = accepted(&mail("shared@example.se", "Ostvik formulär", "x"));
        assert_eq!(realm, "Ostvik");
    }

    /// Every malformed input ends in a definite outcome, never a panic.
    #[test]
    fn malformed_inputs_each_have_a_definite_outcome() {
        let huge_subject = "Ostvik skickar ".repeat(2000);
        let huge_mail = mail("ostvik@example.se", "Ostvik formulär", &"x".repeat(MAX));
        let headers_only = |subject: &str| {
            format!("From: ostvik@example.se\r\nSubject: {subject}\r\n").into_bytes()
        };
        let bodyless_form = b"From: ostvik@example.se\r\nSubject: Ostvik formul\xc3\xa4r\r\n\
Content-Type: multipart/mixed\r\n\r\n--XX\r\n\r\nKOP 1 spion\r\n"
            .to_vec();
        let broken_boundary = b"From: ostvik@example.se\r\nSubject: Ostvik sends an envoy to Afani\r\n\
Content-Type: multipart/mixed; boundary=\"XX\"\r\n\r\n--XX\r\nContent-Type: text/plain\r\n\r\nhello\r\n--YY--\r\n"
            .to_vec();
        let bad_base64 = b"From: ostvik@example.se\r\nSubject: Ostvik sends an envoy to Afani\r\n\
Content-Transfer-Encoding: base64\r\n\r\n!!!! not base64 ???\r\n"
            .to_vec();
        let unknown_charset_body =
            b"From: ostvik@example.se\r\nSubject: Ostvik sends an envoy to Afani\r\n\
Content-Type: text/plain; charset=x-klingon\r\n\r\nK\xe4pten\r\n"
                .to_vec();
        let unknown_charset_subject = b"From: ostvik@example.se\r\n\
Subject: =?x-klingon?Q?Ostvik_formul=E4r?=\r\n\r\nbody\r\n"
            .to_vec();
        let html_only_empty = b"From: ostvik@example.se\r\nSubject: Ostvik formul\xc3\xa4r\r\n\
Content-Type: text/html\r\n\r\n<html><body><img src=x></body></html>\r\n"
            .to_vec();
        let not_an_address = mail("not an address", "Ostvik formulär", "x");

        let cases: Vec<(&str, Vec<u8>, Result<Classified, ParseMailError>)> = vec![
            ("empty bytes", vec![], Err(ParseMailError::Empty)),
            (
                "binary garbage",
                vec![0xff, 0xfe, 0, 1, 2, b':', 0x80],
                Err(ParseMailError::NoHeaders {
                    start: String::from_utf8_lossy(&[0xff, 0xfe, 0, 1, 2, b':', 0x80]).into(),
                }),
            ),
            (
                "body without headers",
                b"Hej SL, here are my orders\r\n".to_vec(),
                Err(ParseMailError::NoHeaders {
                    start: "Hej SL, here are my orders\r\n".into(),
                }),
            ),
            (
                "headers only, envoy",
                headers_only("Ostvik skickar ett sändebud till Afani"),
                refused("Ostvik", Lang::Sv, Refusal::EmptyBody { kind: Envoy }),
            ),
            (
                "headers only, form",
                headers_only("Ostvik formulär"),
                refused("Ostvik", Lang::Sv, Refusal::EmptyBody { kind: Form }),
            ),
            (
                "headers only, spy with blank body",
                mail(
                    "ostvik@example.se",
                    "Ostvik sends a spy to Afani",
                    "  \r\n \t ",
                ),
                refused("Ostvik", Lang::Sv, Refusal::EmptyBody { kind: Spy }),
            ),
            (
                "multipart without boundary parameter",
                bodyless_form,
                refused("Ostvik", Lang::Sv, Refusal::EmptyBody { kind: Form }),
            ),
            (
                "html-only with no text",
                html_only_empty,
                refused("Ostvik", Lang::Sv, Refusal::EmptyBody { kind: Form }),
            ),
            (
                "huge subject",
                mail("ostvik@example.se", &huge_subject, "x"),
                bad(
                    huge_subject.trim(),
                    SubjectError::UnknownKind {
                        subject: crate::mail::subject::shown(huge_subject.trim()),
                    },
                ),
            ),
            (
                "huge mail",
                huge_mail.clone(),
                refused(
                    "Ostvik",
                    Lang::Sv,
                    Refusal::TooLarge {
                        size: huge_mail.len(),
                        limit: MAX,
                    },
                ),
            ),
            (
                "unknown destination realm",
                mail(
                    "ostvik@example.se",
                    "Ostvik skickar en spion till Narnia",
                    "x",
                ),
                bad(
                    "Ostvik skickar en spion till Narnia",
                    SubjectError::UnknownDestination {
                        word: "Narnia".into(),
                    },
                ),
            ),
            (
                "unknown sending realm in the subject",
                mail("ostvik@example.se", "Narnia sends an envoy to Afani", "x"),
                bad(
                    "Narnia sends an envoy to Afani",
                    SubjectError::UnknownSender {
                        word: "Narnia".into(),
                    },
                ),
            ),
            (
                "wrong kind word",
                mail(
                    "ostvik@example.se",
                    "Ostvik skickar en riddare till Afani",
                    "x",
                ),
                bad(
                    "Ostvik skickar en riddare till Afani",
                    SubjectError::UnknownKind {
                        subject: "Ostvik skickar en riddare till Afani".into(),
                    },
                ),
            ),
            (
                "missing till",
                mail(
                    "ostvik@example.se",
                    "Ostvik skickar ett sändebud Afani",
                    "x",
                ),
                bad(
                    "Ostvik skickar ett sändebud Afani",
                    SubjectError::UnknownKind {
                        subject: "Ostvik skickar ett sändebud Afani".into(),
                    },
                ),
            ),
            (
                "same realm to itself",
                mail("ostvik@example.se", "Ostvik sends an envoy to Östvik", "x"),
                bad(
                    "Ostvik sends an envoy to Östvik",
                    SubjectError::SameRealm {
                        realm: "Ostvik".into(),
                    },
                ),
            ),
            (
                "From of another realm (envoy)",
                mail(
                    "afani@example.com",
                    "Ostvik skickar ett sändebud till Afani",
                    "x",
                ),
                refused(
                    "Afani",
                    Lang::En,
                    Refusal::WrongSender {
                        subject_realm: "Ostvik".into(),
                    },
                ),
            ),
            (
                "From of another realm (form)",
                mail("nya@example.se", "Ostvik formulär", "KÖP 9 spion"),
                refused(
                    "Nya Ostvik",
                    Lang::Sv,
                    Refusal::WrongSender {
                        subject_realm: "Ostvik".into(),
                    },
                ),
            ),
            (
                "no From",
                b"Subject: Ostvik formul\xc3\xa4r\r\n\r\nx\r\n".to_vec(),
                Ok(Classified::UnknownSender { from: None }),
            ),
            (
                "From that is not an address",
                not_an_address,
                Ok(Classified::UnknownSender { from: None }),
            ),
            (
                "unknown sender",
                mail(
                    "Stranger <Stranger@Elsewhere.example>",
                    "Ostvik formulär",
                    "x",
                ),
                Ok(Classified::UnknownSender {
                    from: Some("stranger@elsewhere.example".into()),
                }),
            ),
            (
                "bounce from a mailer daemon",
                mail(
                    "MAILER-DAEMON@mx.example",
                    "Undelivered Mail Returned to Sender",
                    "x",
                ),
                Ok(Classified::UnknownSender {
                    from: Some("mailer-daemon@mx.example".into()),
                }),
            ),
            (
                "mail from the game's own address (loop)",
                mail("game@pbem.example", "Ostvik formulär", "x"),
                Ok(Classified::UnknownSender {
                    from: Some("game@pbem.example".into()),
                }),
            ),
            (
                "GM address with a nonsense subject",
                mail("gm@PBEM.example", "hold all envoys", ""),
                Ok(Classified::FromGm),
            ),
            (
                "no subject header",
                b"From: ostvik@example.se\r\n\r\nhej\r\n".to_vec(),
                refused("Ostvik", Lang::Sv, Refusal::NoSubject),
            ),
            (
                "subject of prefixes only",
                mail("ostvik@example.se", "Re: SV:", "hej"),
                refused("Ostvik", Lang::Sv, Refusal::NoSubject),
            ),
            (
                "subject with no kind at all",
                mail("afani@example.com", "Hello", "hi"),
                refused(
                    "Afani",
                    Lang::En,
                    Refusal::BadSubject {
                        subject: "Hello".into(),
                        error: SubjectError::UnknownKind {
                            subject: "Hello".into(),
                        },
                    },
                ),
            ),
            (
                "unknown charset in the subject",
                unknown_charset_subject,
                bad(
                    "Ostvik formul\u{fffd}r",
                    SubjectError::UnknownKind {
                        subject: "Ostvik formul\u{fffd}r".into(),
                    },
                ),
            ),
        ];
        assert!(cases.len() >= 25);
        for (name, raw, want) in &cases {
            let got = run(raw);
            // Debug output is cut short: some cases hold 30 KB subjects.
            let short = |r: &Result<Classified, ParseMailError>| {
                format!("{r:?}").chars().take(300).collect::<String>()
            };
            assert!(
                &got == want,
                "case {name}: got {} want {}",
                short(&got),
                short(want)
            );
        }

        // Damaged but readable: accepted with whatever text survived.
        for (name, raw) in [
            ("broken boundary", broken_boundary),
            ("base64 body that is not base64", bad_base64),
            ("unknown charset in the body", unknown_charset_body),
        ] {
            let (realm, _, s) = accepted(&raw);
            assert_eq!((realm.as_str(), s.kind), ("Ostvik", Envoy), "case: {name}");
        }
    }

    #[test]
    fn refusals_explain_in_the_realms_language_and_name_the_forms() {
        let r = Refusal::BadSubject {
            subject: "Ostvik skickar en riddare till Afani".into(),
            error: SubjectError::UnknownKind {
                subject: "Ostvik skickar en riddare till Afani".into(),
            },
        };
        let sv = r.explain_for(Lang::Sv, Some("Ostvik"));
        assert!(
            sv.contains("«Ostvik skickar en riddare till Afani»"),
            "{sv}"
        );
        for form in [
            "Ostvik skickar ett sändebud till <Land>",
            "Ostvik skickar en handelsman till <Land>",
            "Ostvik skickar en spion till <Land>",
            "Ostvik formulär",
            "Ostvik till SL: <ämne>",
        ] {
            assert!(sv.contains(form), "{sv} lacks {form}");
        }
        let en = r.explain(Lang::En);
        for form in [
            "<Realm> sends an envoy to <Realm>",
            "<Realm> sends a merchant to <Realm>",
            "<Realm> sends a spy to <Realm>",
            "<Realm> form",
            "<Realm> to GM: <topic>",
        ] {
            assert!(en.contains(form), "{en} lacks {form}");
        }
        assert!(en.contains("fits none of the mail forms"), "{en}");
    }

    #[test]
    fn every_refusal_has_a_short_explanation_in_both_languages() {
        let errors = [
            SubjectError::Empty,
            SubjectError::UnknownSender {
                word: "Narnia".into(),
            },
            SubjectError::UnknownSender { word: "".into() },
            SubjectError::UnknownDestination {
                word: "Narnia".into(),
            },
            SubjectError::UnknownDestination { word: "".into() },
            SubjectError::SameRealm {
                realm: "Ostvik".into(),
            },
            SubjectError::UnknownKind {
                subject: "x".into(),
            },
        ];
        let mut reasons: Vec<Refusal> = errors
            .into_iter()
            .map(|error| Refusal::BadSubject {
                subject: "x".into(),
                error,
            })
            .collect();
        reasons.extend([
            Refusal::NoSubject,
            Refusal::WrongSender {
                subject_realm: "Afani".into(),
            },
            Refusal::EmptyBody { kind: Envoy },
            Refusal::EmptyBody { kind: Form },
            Refusal::TooLarge { size: 10, limit: 5 },
        ]);
        for r in &reasons {
            for lang in [Lang::Sv, Lang::En] {
                let text = r.explain(lang);
                let sentences = text.matches(['.', '!']).count();
                assert!(!text.is_empty() && text.len() < 600, "{text}");
                assert!((1..=3).contains(&sentences), "{sentences}: {text}");
            }
        }
        assert!(Refusal::NoSubject
            .explain(Lang::Sv)
            .starts_with("Ditt brev saknar ämnesrad."));
        assert!(Refusal::TooLarge { size: 10, limit: 5 }
            .explain(Lang::En)
            .contains("10 bytes; the limit is 5 bytes"));
        let wrong = Refusal::WrongSender {
            subject_realm: "Afani".into(),
        }
        .explain_for(Lang::En, Some("Ostvik"));
        assert!(
            wrong.contains("from Afani") && wrong.contains("“Ostvik form”"),
            "{wrong}"
        );
    }

    #[test]
    fn a_huge_bad_subject_is_quoted_short() {
        let subject = "Ostvik ".repeat(10_000);
        let r = Refusal::BadSubject {
            subject: subject.clone(),
            error: SubjectError::UnknownKind { subject },
        };
        let text = r.explain(Lang::En);
        assert!(text.len() < 600, "{}", text.len());
        assert!(text.contains('…'));
    }
}
