//! The subject-line grammar of docs/reference/mail.md, Subjects (R-MAIL-1): which realm
//! sends what kind of mail to whom, in Swedish or English.
//!
//! Owns the grammar only (names are folded with `game::text::fold`). It knows realm names
//! as plain strings handed in by the caller; it does not know addresses, windows or the
//! directory. Parsing is pure `&str → Result<Subject, SubjectError>`.

use crate::game::text::{fold, MailKind};
use crate::game::Lang;

/// A parsed subject line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    pub kind: MailKind,
    /// Canonical sending realm name, as spelled in the realm list.
    pub from: String,
    /// Canonical destination realm; `None` for `Form` and `ToGm`.
    pub to: Option<String>,
    /// The text after `till SL:` / `to GM:`, trimmed; `None` when empty or not `ToGm`.
    pub topic: Option<String>,
    /// The language the subject was written in.
    pub lang: Lang,
}

/// Why a subject fits no form. The `word`/`subject` fields quote the player's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubjectError {
    #[error("the subject is empty")]
    Empty,
    #[error("the subject does not start with a known realm: {word:?}")]
    UnknownSender { word: String },
    #[error("the destination is not a known realm: {word:?}")]
    UnknownDestination { word: String },
    #[error("a realm cannot send to itself: {realm}")]
    SameRealm { realm: String },
    #[error("the subject fits no known form: {subject:?}")]
    UnknownKind { subject: String },
}

/// How many characters of a subject are quoted back (in a refusal or a reply's
/// subject); a subject can be as long as a whole mail.
pub const SHOWN_CHARS: usize = 200;

/// `s` as shown back to the player: at most [`SHOWN_CHARS`] characters, `…` when cut.
pub fn shown(s: &str) -> String {
    match s.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}

/// Reply and forward prefixes stripped from the front of a subject, any number of
/// times (`Re:`, Swedish `Sv:`/`VB:`, German `AW:`/`WG:`, Danish/Norwegian `VS:`).
const PREFIXES: &[&str] = &["re", "sv", "fwd", "fw", "vb", "aw", "wg", "vs"];

/// Parses a subject against the realm names of the game.
///
/// Accepted (case-insensitive, diacritics ignored, any number of reply/forward
/// prefixes, extra spaces, a trailing `.` or `!`):
///
/// * `<Land> skickar ett sändebud till <Land>` / `<Realm> sends an envoy to <Realm>`
/// * `<Land> skickar en handelsman till <Land>` / `<Realm> sends a merchant to <Realm>`
/// * `<Land> skickar en spion till <Land>` / `<Realm> sends a spy to <Realm>`
/// * `<Land> formulär` / `<Land> helgformulär` / `<Realm> form` / `<Realm> weekend form`
/// * `<Land> till SL: <ämne>` / `<Realm> to GM: <topic>` (topic may be empty)
///
/// The article (`ett`/`en`, `an`/`a`) may be wrong or missing; `skicka`/`send` work
/// as the verb. Realm names are matched against `realms`, longest first.
pub fn parse_subject(subject: &str, realms: &[&str]) -> Result<Subject, SubjectError> {
    let full = strip_prefixes(subject);
    let body = full.trim_end_matches(['.', '!']).trim_end();
    let tokens = tokenize(body);
    if tokens.is_empty() {
        return Err(SubjectError::Empty);
    }
    let unknown_kind = || SubjectError::UnknownKind {
        subject: shown(subject.trim()),
    };
    let folded: Vec<&str> = tokens.iter().map(|t| t.folded.as_str()).collect();

    let names = RealmNames::new(realms);
    let Some((from, n)) = names.prefix(&folded) else {
        // Quote the words before the first grammar word as the unknown sender.
        return match folded.iter().position(|w| is_grammar_word(w)) {
            Some(k) => Err(SubjectError::UnknownSender {
                word: shown(span(body, &tokens[..k])),
            }),
            None => Err(unknown_kind()),
        };
    };
    let rest = &tokens[n..];
    let words = &folded[n..];

    // Weekend form.
    let form_lang = match words {
        ["formular"] | ["helgformular"] | ["helg", "formular"] => Some(Lang::Sv),
        ["form"] | ["weekend", "form"] | ["weekendform"] | ["weekend-form"] => Some(Lang::En),
        _ => None,
    };
    if let Some(lang) = form_lang {
        return Ok(Subject {
            kind: MailKind::Form,
            from,
            to: None,
            topic: None,
            lang,
        });
    }

    // To the GM: `till SL`, `to GM`, then an optional colon and topic.
    let gm = match words {
        ["till", "sl" | "spelledaren" | "spelledare", ..] => Some((Lang::Sv, 2)),
        ["to", "gm", ..] => Some((Lang::En, 2)),
        ["to", "the", "gm", ..] => Some((Lang::En, 3)),
        _ => None,
    };
    if let Some((lang, m)) = gm {
        let mut topic_tokens = &rest[m..];
        // The colon is expected but its absence is unambiguous.
        if topic_tokens.first().is_some_and(|t| t.folded == ":") {
            topic_tokens = &topic_tokens[1..];
        }
        let topic = match topic_tokens.first() {
            // From `full`, so a GM topic keeps its trailing `!` or `.`.
            Some(first) => full[first.start..].trim(),
            None => "",
        };
        return Ok(Subject {
            kind: MailKind::ToGm,
            from,
            to: None,
            topic: (!topic.is_empty()).then(|| topic.to_string()),
            lang,
        });
    }

    // Envoy, merchant or spy: verb, optional article, kind, `till`/`to`, destination.
    let (lang, mut i) = match words.first() {
        Some(&("skickar" | "skicka")) => (Lang::Sv, 1),
        Some(&("sends" | "send")) => (Lang::En, 1),
        _ => return Err(unknown_kind()),
    };
    if matches!(words.get(i), Some(&("ett" | "en" | "an" | "a"))) {
        i += 1;
    }
    let kind = match words.get(i) {
        Some(&("sandebud" | "envoy")) => MailKind::Envoy,
        Some(&("handelsman" | "merchant")) => MailKind::Merchant,
        Some(&("spion" | "spy")) => MailKind::Spy,
        _ => return Err(unknown_kind()),
    };
    i += 1;
    if !matches!(words.get(i), Some(&("till" | "to"))) {
        return Err(unknown_kind());
    }
    i += 1;
    let dest_tokens = &rest[i..];
    let dest_words = &words[i..];
    let to = match names.prefix(dest_words) {
        Some((to, m)) if m == dest_words.len() => to,
        _ => {
            return Err(SubjectError::UnknownDestination {
                word: shown(span(body, dest_tokens)),
            })
        }
    };
    if to == from {
        return Err(SubjectError::SameRealm { realm: from });
    }
    Ok(Subject {
        kind,
        from,
        to: Some(to),
        topic: None,
        lang,
    })
}

/// A realm asking for its latest form again: `<Land> formulär igen` /
/// `<Land> helgformulär igen` / `<Realm> form again` / `<Realm> weekend form again`
/// (case and diacritics ignored, reply prefixes and a trailing `.` or `!` allowed).
/// Returns the realm named and the language of the subject. Checked before
/// [`parse_subject`], which would otherwise refuse it as no known form.
pub fn parse_resend(subject: &str, realms: &[&str]) -> Option<(String, Lang)> {
    let body = strip_prefixes(subject)
        .trim_end_matches(['.', '!'])
        .trim_end();
    // Nearly every subject ends otherwise: it is not even split into words.
    if !matches!(fold(last_word(body)).as_str(), "igen" | "again") {
        return None;
    }
    let tokens = tokenize(body);
    let folded: Vec<&str> = tokens.iter().map(|t| t.folded.as_str()).collect();
    let (realm, n) = RealmNames::new(realms).prefix(&folded)?;
    let lang = match &folded[n..] {
        ["formular" | "helgformular", "igen"] | ["helg", "formular", "igen"] => Lang::Sv,
        ["form", "again"] | ["weekend", "form", "again"] | ["weekendform", "again"] => Lang::En,
        _ => return None,
    };
    Some((realm, lang))
}

/// A realm asking for a link to its pages on the game's web site: `<Land> länk` /
/// `<Realm> link` (case and diacritics ignored, reply prefixes and a trailing `.` or
/// `!` allowed). Returns the realm named and the language of the subject. Checked
/// before [`parse_subject`], which would otherwise refuse it as no known form.
pub fn parse_link(subject: &str, realms: &[&str]) -> Option<(String, Lang)> {
    let body = strip_prefixes(subject)
        .trim_end_matches(['.', '!'])
        .trim_end();
    if !matches!(
        fold(last_word(body)).as_str(),
        "lank" | "webblank" | "link" | "weblink"
    ) {
        return None;
    }
    let tokens = tokenize(body);
    let folded: Vec<&str> = tokens.iter().map(|t| t.folded.as_str()).collect();
    let (realm, n) = RealmNames::new(realms).prefix(&folded)?;
    let lang = match &folded[n..] {
        ["lank"] | ["webblank"] | ["webb", "lank"] => Lang::Sv,
        ["link"] | ["web", "link"] | ["weblink"] => Lang::En,
        _ => return None,
    };
    Some((realm, lang))
}

/// A realm asking for the player's guide: `<Land> hjälp` / `<Realm> help` (also
/// `<Land> spelarhandledning`, `<Realm> guide`; case and diacritics ignored, reply
/// prefixes and a trailing `.`, `!` or `?` allowed). Returns the realm named and the
/// language of the subject. Checked before [`parse_subject`], like [`parse_link`].
pub fn parse_help(subject: &str, realms: &[&str]) -> Option<(String, Lang)> {
    let body = strip_prefixes(subject)
        .trim_end_matches(['.', '!', '?'])
        .trim_end();
    if !matches!(
        fold(last_word(body)).as_str(),
        "hjalp" | "spelarhandledning" | "handledning" | "help" | "guide"
    ) {
        return None;
    }
    let tokens = tokenize(body);
    let folded: Vec<&str> = tokens.iter().map(|t| t.folded.as_str()).collect();
    let (realm, n) = RealmNames::new(realms).prefix(&folded)?;
    let lang = match &folded[n..] {
        ["hjalp"] | ["spelarhandledning"] | ["handledning"] => Lang::Sv,
        ["help"] | ["guide"] | ["player's", "guide"] | ["players", "guide"] => Lang::En,
        _ => return None,
    };
    Some((realm, lang))
}

/// The subject of an envoy delivery to a realm: `Sändebud från <Land>` /
/// `Envoy from <Realm>` (docs/reference/mail.md, The courier). Shared by the courier, which writes
/// it, and [`parse_delivery_reply`], which reads a reply to it.
pub fn delivery_subject(from: &str, lang: Lang) -> String {
    match lang {
        Lang::Sv => format!("Sändebud från {from}"),
        Lang::En => format!("Envoy from {from}"),
    }
}

/// A subject that answers an envoy delivery: [`delivery_subject`] in either language,
/// with any reply prefixes. Returns the realm the delivered envoy came from (as the
/// delivery named it) and the language of the subject.
pub fn parse_delivery_reply(subject: &str, realms: &[&str]) -> Option<(String, Lang)> {
    let body = strip_prefixes(subject)
        .trim_end_matches(['.', '!'])
        .trim_end();
    let tokens = tokenize(body);
    let folded: Vec<&str> = tokens.iter().map(|t| t.folded.as_str()).collect();
    let (lang, n) = match folded.as_slice() {
        ["sandebud", "fran", ..] => (Lang::Sv, 2),
        ["envoy", "from", ..] => (Lang::En, 2),
        ["an", "envoy", "from", ..] => (Lang::En, 3),
        _ => return None,
    };
    let rest = &folded[n..];
    match RealmNames::new(realms).prefix(rest) {
        Some((realm, m)) if m == rest.len() => Some((realm, lang)),
        _ => None,
    }
}

/// The subject of pbemd's reply to a mail titled `subject`: one `Re:` in front of the
/// subject without the reply and forward prefixes it already had (so a reply to a
/// reply is never `Re: Re: Re: …`), cut to [`SHOWN_CHARS`]; for a mail without a
/// subject, `Re:` and "no subject" in `lang`.
pub fn reply_subject(subject: &str, lang: Lang) -> String {
    let bare = strip_prefixes(subject).trim();
    if bare.is_empty() {
        return match lang {
            Lang::Sv => "Re: (inget ämne)".into(),
            Lang::En => "Re: (no subject)".into(),
        };
    }
    format!("Re: {}", shown(bare))
}

/// Removes any number of leading `Re:`-style prefixes (also `Re[2]:`, `SV :`).
fn strip_prefixes(subject: &str) -> &str {
    let mut s = subject.trim();
    loop {
        let word_len = s
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(s.len());
        let word = &s[..word_len];
        if !PREFIXES.iter().any(|p| p.eq_ignore_ascii_case(word)) {
            return s;
        }
        let mut after = &s[word_len..];
        if let Some(counted) = after.strip_prefix('[') {
            match counted.find(']') {
                Some(close) if counted[..close].bytes().all(|b| b.is_ascii_digit()) => {
                    after = &counted[close + 1..];
                }
                _ => return s,
            }
        }
        match after.trim_start().strip_prefix(':') {
            Some(next) => s = next.trim_start(),
            None => return s,
        }
    }
}

/// The last word of `s` as [`tokenize`] splits it (a colon is a word of its own), found
/// without splitting the rest.
fn last_word(s: &str) -> &str {
    let s = s.trim_end();
    match s.char_indices().last() {
        Some((i, ':')) => &s[i..],
        _ => s
            .rsplit(|c: char| c.is_whitespace() || c == ':')
            .next()
            .unwrap_or(""),
    }
}

/// One word of the subject: its byte range in the original and its folded form.
/// A colon is always a token of its own.
struct Token {
    start: usize,
    end: usize,
    folded: String,
}

fn tokenize(s: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut start: Option<usize> = None;
    let push = |tokens: &mut Vec<Token>, a: usize, b: usize| {
        tokens.push(Token {
            start: a,
            end: b,
            folded: fold(&s[a..b]),
        })
    };
    for (i, c) in s.char_indices() {
        if c.is_whitespace() || c == ':' {
            if let Some(a) = start.take() {
                push(&mut tokens, a, i);
            }
            if c == ':' {
                push(&mut tokens, i, i + 1);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(a) = start {
        push(&mut tokens, a, s.len());
    }
    tokens
}

/// The original text covered by `tokens` (empty when there are none).
fn span<'a>(s: &'a str, tokens: &[Token]) -> &'a str {
    match (tokens.first(), tokens.last()) {
        (Some(a), Some(b)) => &s[a.start..b.end],
        _ => "",
    }
}

/// Words that belong to the grammar, used to tell where an unknown sender ends.
fn is_grammar_word(w: &str) -> bool {
    matches!(
        w,
        "skickar"
            | "skicka"
            | "sends"
            | "send"
            | "formular"
            | "helgformular"
            | "form"
            | "weekend"
            | "till"
            | "to"
            | ":"
    )
}

/// Realm names folded into words, longest first.
struct RealmNames<'a> {
    names: Vec<(&'a str, Vec<String>)>,
}

impl<'a> RealmNames<'a> {
    fn new(realms: &[&'a str]) -> Self {
        let mut names: Vec<(&str, Vec<String>)> = realms
            .iter()
            .map(|r| (*r, fold(r).split(' ').map(str::to_string).collect()))
            .filter(|(_, words): &(&str, Vec<String>)| words.iter().all(|w| !w.is_empty()))
            .collect();
        names.sort_by_key(|(_, words)| std::cmp::Reverse(words.len()));
        RealmNames { names }
    }

    /// The realm whose name starts `words`, and how many words it takes.
    fn prefix(&self, words: &[&str]) -> Option<(String, usize)> {
        self.names.iter().find_map(|(name, parts)| {
            let n = parts.len();
            (words.len() >= n && parts.iter().zip(words).all(|(p, w)| p == w))
                .then(|| (name.to_string(), n))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REALMS: &[&str] = &["Ostvik", "Afani", "Genogien", "Nya Ostvik", "Stora Öar"];

    #[test]
    fn the_last_word_is_the_last_token_of_any_subject() {
        let cases = [
            "",
            " ",
            "a",
            "a b",
            "a b ",
            "a:b",
            "a b:",
            "a b :",
            "x\u{3000}igen",
            "a\tlänk\n",
            ":",
            "a ::",
            "Ostvik formulär igen",
            "é",
            "a\u{85}b",
        ];
        for s in cases {
            let last = tokenize(s)
                .last()
                .map(|t| t.folded.clone())
                .unwrap_or_default();
            assert_eq!(fold(last_word(s)), last, "{s:?}");
        }
        proptest::proptest!(|(s in "[a-zé :\\t\u{3000}\u{85}]{0,12}")| {
            let last = tokenize(&s).last().map(|t| t.folded.clone()).unwrap_or_default();
            proptest::prop_assert_eq!(fold(last_word(&s)), last);
        });
    }

    /// The ASCII shortcut folds as `fold` does: every ASCII character (controls, the
    /// vertical tab and form feed among the white space, upper and lower case), and
    /// text that is not ASCII, which goes to `fold` itself.
    fn ok(s: &str) -> Subject {
        parse_subject(s, REALMS).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    #[test]
    fn a_huge_subject_is_quoted_back_only_by_its_start() {
        let words = "ord ".repeat(100_000);
        for s in [
            format!("Ostvik skickar {words}"),
            format!("{words} skickar ett sändebud till Afani"),
            format!("Ostvik skickar ett sändebud till {words}"),
        ] {
            let e = parse_subject(&s, REALMS).unwrap_err();
            let text = e.to_string();
            assert!(text.len() < 2 * SHOWN_CHARS + 100, "{} bytes", text.len());
            assert!(text.contains('…'), "{text}");
        }
    }

    fn courier(kind: MailKind, from: &str, to: &str, lang: Lang) -> Subject {
        Subject {
            kind,
            from: from.into(),
            to: Some(to.into()),
            topic: None,
            lang,
        }
    }

    #[test]
    fn every_swedish_courier_form_parses() {
        use MailKind::*;
        for (s, kind) in [
            ("Ostvik skickar ett sändebud till Afani", Envoy),
            ("Ostvik skickar en handelsman till Afani", Merchant),
            ("Ostvik skickar en spion till Afani", Spy),
        ] {
            assert_eq!(ok(s), courier(kind, "Ostvik", "Afani", Lang::Sv), "{s}");
        }
    }

    #[test]
    fn every_english_courier_form_parses() {
        use MailKind::*;
        for (s, kind) in [
            ("Ostvik sends an envoy to Afani", Envoy),
            ("Ostvik sends a merchant to Afani", Merchant),
            ("Ostvik sends a spy to Afani", Spy),
        ] {
            assert_eq!(ok(s), courier(kind, "Ostvik", "Afani", Lang::En), "{s}");
        }
    }

    #[test]
    fn realm_names_match_ignoring_case_and_diacritics() {
        for s in [
            "östvik skickar ett sändebud till afani",
            "OSTVIK SKICKAR ETT SÄNDEBUD TILL AFANI",
            "Östvik skickar ett sandebud till Afäni",
        ] {
            assert_eq!(
                ok(s),
                courier(MailKind::Envoy, "Ostvik", "Afani", Lang::Sv),
                "{s}"
            );
        }
    }

    #[test]
    fn reply_and_forward_prefixes_are_stripped_any_number_of_times() {
        for s in [
            "Re: Ostvik sends an envoy to Afani",
            "SV: Sv: RE: Ostvik sends an envoy to Afani",
            "Fwd: Fw: VB: AW: Ostvik sends an envoy to Afani",
            "  re[2] :  Ostvik sends an envoy to Afani  ",
        ] {
            assert_eq!(
                ok(s),
                courier(MailKind::Envoy, "Ostvik", "Afani", Lang::En),
                "{s}"
            );
        }
    }

    #[test]
    fn article_mistakes_missing_articles_and_extra_spaces_are_forgiven() {
        for s in [
            "Ostvik skickar en sändebud till Afani",
            "Ostvik skickar sändebud till Afani",
            "Ostvik   skickar\tett  sändebud   till Afani.",
        ] {
            assert_eq!(ok(s).kind, MailKind::Envoy, "{s}");
        }
        assert_eq!(
            ok("Ostvik skickar ett spion till Afani").kind,
            MailKind::Spy
        );
        assert_eq!(
            ok("Ostvik sends an merchant to Afani").kind,
            MailKind::Merchant
        );
    }

    #[test]
    fn multi_word_realm_names_match_longest_first() {
        assert_eq!(
            ok("Nya Ostvik skickar en handelsman till Stora Öar"),
            courier(MailKind::Merchant, "Nya Ostvik", "Stora Öar", Lang::Sv)
        );
        assert_eq!(
            ok("nya  östvik sends a spy to ostvik"),
            courier(MailKind::Spy, "Nya Ostvik", "Ostvik", Lang::En)
        );
        assert_eq!(
            ok("Ostvik sends an envoy to stora oar"),
            courier(MailKind::Envoy, "Ostvik", "Stora Öar", Lang::En)
        );
        assert_eq!(ok("STORA ÖAR helgformulär").from, "Stora Öar");
    }

    #[test]
    fn every_form_subject_parses() {
        for (s, lang) in [
            ("Ostvik formulär", Lang::Sv),
            ("östvik FORMULAR", Lang::Sv),
            ("Ostvik helgformulär", Lang::Sv),
            ("Ostvik form", Lang::En),
            ("Ostvik weekend form", Lang::En),
            ("Re: ostvik Form", Lang::En),
        ] {
            assert_eq!(
                ok(s),
                Subject {
                    kind: MailKind::Form,
                    from: "Ostvik".into(),
                    to: None,
                    topic: None,
                    lang
                },
                "{s}"
            );
        }
    }

    #[test]
    fn to_gm_subjects_keep_the_topic_as_written() {
        let s = ok("Sv: Östvik till SL: Fråga om Spionen!");
        assert_eq!(s.kind, MailKind::ToGm);
        assert_eq!(s.from, "Ostvik");
        assert_eq!(s.to, None);
        assert_eq!(s.topic.as_deref(), Some("Fråga om Spionen!"));
        assert_eq!(s.lang, Lang::Sv);

        let s = ok("Nya Ostvik to GM: trade report: Afani");
        assert_eq!(s.from, "Nya Ostvik");
        assert_eq!(s.topic.as_deref(), Some("trade report: Afani"));
        assert_eq!(s.lang, Lang::En);

        assert_eq!(ok("Ostvik till SL:").topic, None);
        assert_eq!(ok("Ostvik to gm").topic, None);
        assert_eq!(ok("ostvik till sl fråga").topic.as_deref(), Some("fråga"));
        assert_eq!(ok("Ostvik to the GM: hi").topic.as_deref(), Some("hi"));
    }

    #[test]
    fn malformed_subjects_give_the_specific_error() {
        use SubjectError::*;
        let cases: &[(&str, SubjectError)] = &[
            ("", Empty),
            ("   ", Empty),
            ("Re: Sv:", Empty),
            (
                "Narnia skickar ett sändebud till Afani",
                UnknownSender {
                    word: "Narnia".into(),
                },
            ),
            (
                "Stora Narnia sends an envoy to Afani",
                UnknownSender {
                    word: "Stora Narnia".into(),
                },
            ),
            (
                "skickar ett sändebud till Afani",
                UnknownSender { word: "".into() },
            ),
            (
                "Ostvik skickar ett sändebud till Narnia",
                UnknownDestination {
                    word: "Narnia".into(),
                },
            ),
            (
                "Ostvik skickar ett sändebud till",
                UnknownDestination { word: "".into() },
            ),
            (
                "Ostvik skickar ett sändebud till Afani och Genogien",
                UnknownDestination {
                    word: "Afani och Genogien".into(),
                },
            ),
            (
                "Ostvik skickar ett sändebud till östvik",
                SameRealm {
                    realm: "Ostvik".into(),
                },
            ),
            (
                "Ostvik skickar ett brev till Afani",
                UnknownKind {
                    subject: "Ostvik skickar ett brev till Afani".into(),
                },
            ),
            (
                "Ostvik skickar ett sändebud Afani",
                UnknownKind {
                    subject: "Ostvik skickar ett sändebud Afani".into(),
                },
            ),
            (
                "Hej hej",
                UnknownKind {
                    subject: "Hej hej".into(),
                },
            ),
            (
                "Ostvik",
                UnknownKind {
                    subject: "Ostvik".into(),
                },
            ),
            (
                "Ostvik formulär för vecka 3",
                UnknownKind {
                    subject: "Ostvik formulär för vecka 3".into(),
                },
            ),
        ];
        for (s, want) in cases {
            assert_eq!(parse_subject(s, REALMS).as_ref(), Err(want), "{s:?}");
        }
    }

    #[test]
    fn a_huge_or_odd_subject_is_an_error_not_a_panic() {
        let huge = "Ostvik skickar ".repeat(20_000);
        assert!(matches!(
            parse_subject(&huge, REALMS),
            Err(SubjectError::UnknownKind { .. })
        ));
        for s in [":", "::::", "Re:", "\u{0}\u{301}", "Ostvik : :", "[]:"] {
            let _ = parse_subject(s, REALMS);
        }
        assert_eq!(
            parse_subject("Ostvik form", &[]).unwrap_err(),
            SubjectError::UnknownSender {
                word: "Ostvik".into()
            }
        );
    }

    #[test]
    fn a_reply_keeps_one_re_whatever_prefixes_the_subject_had() {
        for s in [
            "Kaldor helgformulär",
            "Re: Kaldor helgformulär",
            "Re: Re: Re: Kaldor helgformulär",
            "SV: Sv: RE: Kaldor helgformulär",
            "AW: VS: Fwd: Re[3]: Kaldor helgformulär",
        ] {
            assert_eq!(
                reply_subject(s, Lang::Sv),
                "Re: Kaldor helgformulär",
                "{s:?}"
            );
        }
        assert_eq!(reply_subject("Re: Sv: ", Lang::Sv), "Re: (inget ämne)");
        assert_eq!(reply_subject("", Lang::En), "Re: (no subject)");
    }

    #[test]
    fn a_request_for_help_parses_in_both_languages_and_nothing_else_does() {
        for (s, realm, lang) in [
            ("Östvik hjälp", "Ostvik", Lang::Sv),
            ("Re: ostvik HJALP?", "Ostvik", Lang::Sv),
            ("Nya Ostvik spelarhandledning", "Nya Ostvik", Lang::Sv),
            ("Afani help", "Afani", Lang::En),
            ("Afani help!", "Afani", Lang::En),
            ("Stora Oar guide", "Stora Öar", Lang::En),
        ] {
            assert_eq!(
                parse_help(s, REALMS),
                Some((realm.to_string(), lang)),
                "{s:?}"
            );
        }
        for s in [
            "Afani help me",
            "help",
            "Atlantis help",
            "Afani to GM: help",
        ] {
            assert_eq!(parse_help(s, REALMS), None, "{s:?}");
        }
    }

    #[test]
    fn a_reply_to_an_envoy_delivery_names_the_realm_it_came_from() {
        for lang in [Lang::Sv, Lang::En] {
            let s = format!("Re: {}", delivery_subject("Stora Öar", lang));
            assert_eq!(
                parse_delivery_reply(&s, REALMS),
                Some(("Stora Öar".to_string(), lang)),
                "{s}"
            );
        }
        assert_eq!(
            parse_delivery_reply("SV: Re: sandebud fran AFANI", REALMS),
            Some(("Afani".to_string(), Lang::Sv))
        );
        for s in [
            "Envoy from Narnia",
            "Envoy from Afani and Ostvik",
            "Afani form",
        ] {
            assert_eq!(parse_delivery_reply(s, REALMS), None, "{s}");
        }
    }

    #[test]
    fn a_request_for_the_form_again_parses_in_both_languages_and_nothing_else_does() {
        for (s, realm, lang) in [
            ("Östvik formulär igen", "Ostvik", Lang::Sv),
            ("Re: SV: ostvik FORMULAR IGEN!", "Ostvik", Lang::Sv),
            ("Nya Ostvik helgformulär igen.", "Nya Ostvik", Lang::Sv),
            ("Afani form again", "Afani", Lang::En),
            ("Fwd: Afani  weekend form again", "Afani", Lang::En),
            ("Stora Oar form again", "Stora Öar", Lang::En),
        ] {
            assert_eq!(
                parse_resend(s, REALMS),
                Some((realm.to_string(), lang)),
                "{s:?}"
            );
        }
        for s in [
            "Ostvik formulär",
            "Afani form",
            "Afani form again please",
            "Afani again form",
            "Atlantis form again",
            "formulär igen",
            "",
            "Afani to GM: form again",
        ] {
            assert_eq!(parse_resend(s, REALMS), None, "{s:?}");
        }
        // The weekend form subject is still the form.
        assert_eq!(ok("Ostvik formulär").kind, MailKind::Form);
    }
}
