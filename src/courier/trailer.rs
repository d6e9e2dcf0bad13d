//! The goods trailer of merchant and envoy mail (R-TRADE-6, R-MAIL-5,
//! RULINGS 39, RULINGS 42) and the other line directives a body may carry
//! (`Inbjudan:`, `Avsändare:`). Pure `&str → Result<_, TrailerError>`; it
//! knows names and grammar only, not who holds what (that is `batch`).
//!
//! Grammar (docs/reference/mail.md, The courier):
//!
//! ```text
//! <free text>
//! ****                               three or more asterisks, alone on a line
//! Skickar: 5 sten, 2 lätt infanteri   or  Sends: 5 stone, 2 light infantry
//!          1 transportskepp           a line without a keyword continues the list
//! Väntar: 6 mat                       or  Expects: 6 food   (information only)
//! Från: Nordhamn                      or  From: D2   (source city; optional)
//! --
//! signature (ignored from a `--` line on)
//! ```
//!
//! An item is `<N> <resource | army unit | ship | segerpoäng/VP>`, or
//! `stad <ruta|namn>` / `city <square|name>`, or `ruta <ruta>` / `square
//! <square>` (a border square); `ingenting`/`nothing` is an empty list. Items
//! are separated by commas, semicolons or line breaks; names are Swedish or
//! English, singular or plural, diacritics optional. The last asterisk line
//! of the body starts the trailer; every line after it must fit the grammar.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::game::text::fold;
use crate::game::{Resource, Resources, ShipKind, Square, UnitKind};

/// The largest amount of one good a trailer may name, item by item and in total: far
/// above any realm's holdings, far below where arithmetic on amounts could overflow.
pub const MAX_AMOUNT: u32 = 1_000_000;

/// Goods a merchant (or an envoy's gift) carries, or a merchant expects.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Goods {
    pub resources: Resources,
    pub units: BTreeMap<UnitKind, u32>,
    pub ships: BTreeMap<ShipKind, u32>,
    pub vp: u32,
    /// Cities as the player wrote them (a square or a city name).
    pub cities: Vec<String>,
    /// Border squares (R-TRADE-4).
    pub squares: Vec<Square>,
}

impl Goods {
    pub fn is_empty(&self) -> bool {
        self.resources.is_zero()
            && self.units.is_empty()
            && self.ships.is_empty()
            && self.vp == 0
            && self.cities.is_empty()
            && self.squares.is_empty()
    }

    /// Add one item; `None` when a total would pass [`MAX_AMOUNT`].
    fn add(&mut self, g: Good) -> Option<()> {
        fn grow(slot: &mut u32, n: u32) -> Option<()> {
            *slot = slot.checked_add(n).filter(|&t| t <= MAX_AMOUNT)?;
            Some(())
        }
        match g {
            Good::Resource(r, n) => grow(self.resources.get_mut(r), n)?,
            Good::Unit(k, n) => grow(self.units.entry(k).or_default(), n)?,
            Good::Ship(k, n) => grow(self.ships.entry(k).or_default(), n)?,
            Good::Vp(n) => grow(&mut self.vp, n)?,
            Good::City(c) => self.cities.push(c),
            Good::Square(s) => self.squares.push(s),
        }
        Some(())
    }
}

/// One item of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Good {
    Resource(Resource, u32),
    Unit(UnitKind, u32),
    Ship(ShipKind, u32),
    Vp(u32),
    City(String),
    Square(Square),
}

/// A parsed trailer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Trailer {
    /// `Skickar:` / `Sends:`.
    pub sends: Goods,
    /// `Väntar:` / `Expects:` (information for the receiver, never enforced).
    pub expects: Goods,
    /// True when a `Väntar:`/`Expects:` line was present (even if empty).
    pub has_expects: bool,
    /// `Från:` / `From:`: the source city, as written.
    pub from_city: Option<String>,
}

/// Why a trailer or directive line was refused; `line` quotes the player.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{kind}: `{line}`")]
pub struct TrailerError {
    pub kind: TrailerErrorKind,
    pub line: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum TrailerErrorKind {
    #[error("`{item}` is not a resource, army unit, ship, VP, city or square")]
    UnknownGood { item: String },
    #[error("`{item}` needs an amount, e.g. `5 {item}`")]
    MissingAmount { item: String },
    #[error("`{item}`: the amount must be 1 or more")]
    ZeroAmount { item: String },
    #[error("`{item}` is not a square (write e.g. K12)")]
    BadSquare { item: String },
    #[error("the line is not `Skickar:`, `Väntar:`, `Från:` or a continuation of a list")]
    UnexpectedLine,
    #[error("the line has no value after the colon")]
    EmptyDirective,
    /// An amount, or the total of one good, above [`MAX_AMOUNT`].
    #[error("`{item}`: more than {max} of one good")]
    TooLarge { item: String, max: u32 },
}

/// How many characters of a player's line a refusal quotes.
pub const QUOTED_CHARS: usize = 120;

/// `s` as quoted back to the player: its first [`QUOTED_CHARS`] characters, with `…`
/// when there was more, so a hostile line is never mailed back whole.
pub fn quote(s: &str) -> String {
    match s.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}

/// True for a line of three or more asterisks (whitespace around allowed).
fn is_asterisk_line(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && t.chars().all(|c| c == '*')
}

/// Split `Key: value` with the key folded; `None` when there is no colon
/// within the first few words.
fn directive(line: &str) -> Option<(String, &str)> {
    let (key, value) = line.split_once(':')?;
    let k = fold(key.trim());
    if k.is_empty() || k.split_whitespace().count() > 3 {
        return None;
    }
    Some((k, value.trim()))
}

#[derive(Clone, Copy)]
enum List {
    Sends,
    Expects,
}

/// Parse the trailer of `body`. `Ok(None)`: the body has no asterisk line.
pub fn parse_trailer(body: &str) -> Result<Option<Trailer>, TrailerError> {
    let lines: Vec<&str> = body.lines().collect();
    let Some(start) = lines.iter().rposition(|l| is_asterisk_line(l)) else {
        return Ok(None);
    };
    let mut t = Trailer::default();
    let mut current: Option<List> = None;
    for raw in &lines[start + 1..] {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if line == "--" || raw.starts_with("-- ") {
            break;
        }
        let err = |kind| TrailerError {
            kind,
            line: quote(line),
        };
        let items = match directive(line) {
            Some((k, v)) => match k.as_str() {
                "skickar" | "skickas" | "sends" | "send" | "sending" => {
                    current = Some(List::Sends);
                    v
                }
                "vantar" | "vantar mig" | "expects" | "expect" | "expecting" => {
                    current = Some(List::Expects);
                    t.has_expects = true;
                    v
                }
                "fran" | "from" | "fran stad" | "from city" => {
                    if v.is_empty() {
                        return Err(err(TrailerErrorKind::EmptyDirective));
                    }
                    t.from_city = Some(quote(v));
                    continue;
                }
                _ => return Err(err(TrailerErrorKind::UnexpectedLine)),
            },
            None if current.is_some() => line,
            None => return Err(err(TrailerErrorKind::UnexpectedLine)),
        };
        let list = match current {
            Some(List::Sends) => &mut t.sends,
            Some(List::Expects) | None => &mut t.expects,
        };
        for item in items.split([',', ';']) {
            let item = item.trim().trim_end_matches('.').trim();
            if item.is_empty() {
                continue;
            }
            if let Some(g) = parse_item(item).map_err(err)? {
                list.add(g).ok_or_else(|| err(too_large(item)))?;
            }
        }
    }
    Ok(Some(t))
}

fn too_large(item: &str) -> TrailerErrorKind {
    TrailerErrorKind::TooLarge {
        item: quote(item),
        max: MAX_AMOUNT,
    }
}

/// One item; `Ok(None)` for `ingenting` / `nothing`.
fn parse_item(item: &str) -> Result<Option<Good>, TrailerErrorKind> {
    let f = fold(item);
    if matches!(
        f.as_str(),
        "ingenting" | "inget" | "inga" | "nothing" | "none" | "-"
    ) {
        return Ok(None);
    }
    let mut words = item.split_whitespace();
    let first = words.next().unwrap_or_default();
    let digits = !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit());
    let (amount, name) = match first.parse::<u32>() {
        Ok(n) if n > MAX_AMOUNT => return Err(too_large(item)),
        Ok(n) => (Some(n), words.collect::<Vec<_>>().join(" ")),
        Err(_) if digits => return Err(too_large(item)),
        Err(_) => match fold(first).as_str() {
            "en" | "ett" | "a" | "an" | "one" => (Some(1), words.collect::<Vec<_>>().join(" ")),
            _ => (None, item.to_string()),
        },
    };
    if amount == Some(0) {
        return Err(TrailerErrorKind::ZeroAmount { item: quote(item) });
    }
    let fname = fold(&name);
    // `stad X` / `city X`, `ruta X` / `square X` (the amount, if any, is 1).
    if let Some((head, rest)) = name.split_once(char::is_whitespace) {
        let rest = rest.trim();
        match fold(head).as_str() {
            "stad" | "staden" | "city" => {
                if amount.is_some_and(|n| n != 1) {
                    return Err(TrailerErrorKind::UnknownGood { item: quote(item) });
                }
                return Ok(Some(Good::City(quote(rest))));
            }
            "ruta" | "rutan" | "gransruta" | "square" => {
                return Square::parse(rest)
                    .map(|s| Some(Good::Square(s)))
                    .map_err(|_| TrailerErrorKind::BadSquare { item: quote(rest) });
            }
            _ => {}
        }
    }
    let good = if matches!(
        fname.as_str(),
        "segerpoang" | "sp" | "vp" | "victory point" | "victory points" | "poang" | "points"
    ) {
        amount.map(Good::Vp)
    } else if let Ok(r) = Resource::parse(&name) {
        amount.map(|n| Good::Resource(r, n))
    } else if let Ok(k) = UnitKind::parse(&name) {
        amount.map(|n| Good::Unit(k, n))
    } else if let Ok(k) = ShipKind::parse(&name) {
        amount.map(|n| Good::Ship(k, n))
    } else {
        return Err(TrailerErrorKind::UnknownGood { item: quote(item) });
    };
    good.map(Some)
        .ok_or(TrailerErrorKind::MissingAmount { item: quote(item) })
}

/// An envoy's body, with its directive lines taken out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EnvoyBody {
    /// The text to deliver (directive lines and the gift trailer removed).
    pub text: String,
    /// `Inbjudan: <ruta>` / `Invitation: <square>` (R-INV-1).
    pub invitation: Option<Square>,
    /// `Avsändare: <Land>` / `Sender: <Realm>`: the claimed sender of a
    /// forged envoy, as written (R-SPY-4 mission 6, R-SPY-8).
    pub claimed_sender: Option<String>,
    /// The gift trailer (`Skickar:` only, RULINGS 42).
    pub gift: Option<Trailer>,
}

/// Read an envoy (or a forgery spy's) body: directive lines anywhere before
/// the trailer, then the optional trailer. Lines naming a directive with a
/// bad value are refused with the line quoted.
pub fn parse_envoy_body(body: &str) -> Result<EnvoyBody, TrailerError> {
    let gift = parse_trailer(body)?;
    let lines: Vec<&str> = body.lines().collect();
    let end = lines
        .iter()
        .rposition(|l| is_asterisk_line(l))
        .unwrap_or(lines.len());
    let mut out = EnvoyBody {
        gift,
        ..EnvoyBody::default()
    };
    let mut kept = Vec::new();
    for raw in &lines[..end] {
        let line = raw.trim();
        let err = |kind| TrailerError {
            kind,
            line: quote(line),
        };
        match directive(line) {
            Some((k, v)) if matches!(k.as_str(), "inbjudan" | "invitation") => {
                let sq = Square::parse(v)
                    .map_err(|_| err(TrailerErrorKind::BadSquare { item: quote(v) }))?;
                out.invitation = Some(sq);
            }
            Some((k, v)) if matches!(k.as_str(), "avsandare" | "sender" | "claimed sender") => {
                if v.is_empty() {
                    return Err(err(TrailerErrorKind::EmptyDirective));
                }
                out.claimed_sender = Some(quote(v));
            }
            _ => kept.push(*raw),
        }
    }
    out.text = kept.join("\n").trim().to_string();
    Ok(out)
}

/// A forged envoy's own text, without the mail it answers: the thief forges by replying
/// to the mail that told it of the stolen envoy, and a mail program quotes that mail
/// below (or above) the reply, which would give the forger away. The text is cut at the
/// first line that starts a quoted mail: a `>` line (with an attribution line ending in
/// `:` just above it), an `-----Original Message-----` / `Ursprungligt meddelande`
/// separator or a line of underscores, or a `From:`/`Från:` header line followed within
/// four lines by a date and a subject header (Outlook's block). Linear in the text.
pub fn without_quoted_reply(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let header = |l: &str, names: &[&str]| {
        let l = l.trim_start().to_lowercase();
        names.iter().any(|n| l.starts_with(n))
    };
    let starts_quote = |i: usize| {
        let l = lines[i].trim();
        if l.starts_with('>') {
            return true;
        }
        let bare = l.trim_matches(|c: char| c == '-' || c == '_' || c == ' ');
        let folded = bare.to_lowercase();
        if l.len() >= 10
            && (l.chars().all(|c| c == '_') || l.starts_with("-----"))
            && (bare.is_empty()
                || folded.contains("original")
                || folded.contains("ursprungligt")
                || folded.contains("vidarebefordrat")
                || folded.contains("forwarded"))
        {
            return true;
        }
        // Outlook's block names when and what, which a letter's own "Från:" and
        // "Till:" lines do not.
        let next = &lines[i + 1..lines.len().min(i + 5)];
        header(l, &["from:", "från:"])
            && next
                .iter()
                .any(|n| header(n, &["sent:", "skickat:", "date:", "datum:"]))
            && next.iter().any(|n| header(n, &["subject:", "ämne:"]))
    };
    let Some(mut cut) = (0..lines.len()).find(|&i| starts_quote(i)) else {
        return text.trim().to_string();
    };
    // The attribution line above a `>` quote ("On … wrote:", "Den … skrev:"), past
    // blank lines.
    let mut above = cut;
    while above > 0 && lines[above - 1].trim().is_empty() {
        above -= 1;
    }
    if above > 0 && lines[cut].trim().starts_with('>') && lines[above - 1].trim_end().ends_with(':')
    {
        cut = above - 1;
    }
    lines[..cut].join("\n").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_loses_the_mail_it_quotes_whatever_the_mail_program() {
        let own = "Vi anfaller Kaldor på lördag.\nAvsändare: Genogien";
        let cases = [
            // Gmail and Thunderbird: an attribution line, then `>` lines.
            format!("{own}\n\nDen tors 26 nov. 2026 kl 10:00 skrev <sl@game.test>:\n\n> Er spion har snappat upp ett sändebud\n> från Genogien"),
            // Apple Mail, in English.
            format!("{own}\n\nOn 26 Nov 2026, at 10:00, sl@game.test wrote:\n> Your spy has intercepted an envoy"),
            // Outlook: a separator and a header block, the original unquoted.
            format!("{own}\n\n________________________________\nFrån: sl@game.test\nSkickat: den 26 november 2026 10:00\nTill: kaldor@game.test\nÄmne: Kaldor skickar ett sändebud till Afani\n\nEr spion har snappat upp ett sändebud"),
            format!("{own}\n-----Original Message-----\nFrom: sl@game.test\nSubject: Kaldor sends an envoy to Afani\nYour spy has intercepted"),
            format!("{own}\n\nFrom: sl@game.test\nSent: Thursday\nTo: kaldor@game.test\nSubject: Kaldor sends an envoy to Afani\nYour spy has intercepted"),
        ];
        for c in &cases {
            assert_eq!(without_quoted_reply(c), own, "{c}");
        }
    }

    #[test]
    fn a_reply_without_a_quote_is_kept_whole() {
        let plain =
            "Kära grannar,\n\nvi söker fred. Från: oss, med vänlig hälsning.\n---\nGenogien";
        assert_eq!(without_quoted_reply(plain), plain);
        let letter = "Från: Genogiens kung\nTill: Afanis drottning\nÄmne: fred\n\nVi söker fred.";
        assert_eq!(
            without_quoted_reply(letter),
            letter,
            "a letter's own heading stays"
        );
        assert_eq!(without_quoted_reply("  Hej  \n"), "Hej");
        assert_eq!(without_quoted_reply("> bara ett citat"), "");
    }

    fn sends(body: &str) -> Goods {
        parse_trailer(body).unwrap().unwrap().sends
    }

    /// (body, expected resources, units, ships, VP).
    type Case<'a> = (
        &'a str,
        &'a [(Resource, u32)],
        &'a [(UnitKind, u32)],
        &'a [(ShipKind, u32)],
        u32,
    );

    /// Data-driven: (body, expected resources, units, ships, vp) — R-TRADE-6.
    #[test]
    fn r_trade_6_trailer_swedish_english_singular_plural_commas_lines() {
        let cases: &[Case] = &[
            (
                "Hej!\n****\nSkickar: 5 Sten\nVäntar: 6 Mat\n",
                &[(Resource::Sten, 5)],
                &[],
                &[],
                0,
            ),
            (
                "***\nSends: 10 gold, 1 horse\nExpects: 8 iron",
                &[(Resource::Guld, 10), (Resource::Hastar, 1)],
                &[],
                &[],
                0,
            ),
            (
                "*****\nSkickar: 2 järn\n 3 hästar\n1 häst\n",
                &[(Resource::Jarn, 2), (Resource::Hastar, 4)],
                &[],
                &[],
                0,
            ),
            (
                "***\nskickar: 1 bågskytt, 2 bågskyttar; 1 veteran",
                &[],
                &[(UnitKind::Bagskyttar, 3), (UnitKind::Veteran, 1)],
                &[],
                0,
            ),
            (
                "***\nSends: 2 light infantry\n1 transport ship, 2 light warships",
                &[],
                &[(UnitKind::LattInfanteri, 2)],
                &[(ShipKind::Transportskepp, 1), (ShipKind::LattKrigsskepp, 2)],
                0,
            ),
            (
                "***\nSKICKAR: 25 segerpoäng, 3 jarn.\n-- \nKung Olof\nmore sig",
                &[(Resource::Jarn, 3)],
                &[],
                &[],
                25,
            ),
            (
                "***\nSends: 10 VP, 4 eldkristaller",
                &[(Resource::Eld, 4)],
                &[],
                &[],
                10,
            ),
            ("***\nSkickar: ingenting\nVäntar: 5 mat", &[], &[], &[], 0),
        ];
        for (body, res, units, ships, vp) in cases {
            let g = sends(body);
            assert_eq!(g.resources, Resources::from_pairs(res), "{body}");
            assert_eq!(g.units, units.iter().copied().collect(), "{body}");
            assert_eq!(g.ships, ships.iter().copied().collect(), "{body}");
            assert_eq!(g.vp, *vp, "{body}");
        }
    }

    #[test]
    fn r_trade_4_cities_squares_and_source_city() {
        let t = parse_trailer(
            "****\nSkickar: stad Stenvik, ruta E3\nFrån: Nordhamn\nVäntar: 1 city K5",
        )
        .unwrap()
        .unwrap();
        assert_eq!(t.sends.cities, vec!["Stenvik".to_string()]);
        assert_eq!(t.sends.squares, vec![Square::parse("E3").unwrap()]);
        assert_eq!(t.from_city.as_deref(), Some("Nordhamn"));
        assert_eq!(t.expects.cities, vec!["K5".to_string()]);
        assert!(t.has_expects);
    }

    /// Garbage lines are refused with the line quoted.
    #[test]
    fn r_mail_5_garbage_lines_are_refused_with_the_line_quoted() {
        let cases: &[(&str, &str)] = &[
            ("****\nSkickar: 5 plutonium", "Skickar: 5 plutonium"),
            ("****\nhej hej\nSkickar: 5 mat", "hej hej"),
            ("****\nSkickar: 5 mat\nBetalar: 3 guld", "Betalar: 3 guld"),
            ("****\nSends: gold", "Sends: gold"),
            ("****\nSends: 0 gold", "Sends: 0 gold"),
            ("****\nSends: square Q", "Sends: square Q"),
            ("****\nSkickar: 5 mat\nFrån:", "Från:"),
        ];
        for (body, quoted) in cases {
            let e = parse_trailer(body).unwrap_err();
            assert_eq!(e.line, *quoted, "{body}");
            assert!(e.to_string().contains(quoted));
        }
    }

    #[test]
    fn no_asterisks_means_no_trailer_and_the_last_asterisk_line_counts() {
        assert_eq!(parse_trailer("Skickar: 5 mat").unwrap(), None);
        let g = sends("***\nnot a trailer line\n***\nSkickar: 1 mat");
        assert_eq!(g.resources.mat, 1);
    }

    #[test]
    fn r_inv_1_envoy_body_directives() {
        let b = parse_envoy_body(
            "Avsändare: Afani\nKära vän,\nInbjudan: q5\nkom!\n****\nSkickar: 2 guld",
        )
        .unwrap();
        assert_eq!(b.claimed_sender.as_deref(), Some("Afani"));
        assert_eq!(b.invitation, Square::parse("Q5").ok());
        assert_eq!(b.text, "Kära vän,\nkom!");
        assert_eq!(b.gift.unwrap().sends.resources.guld, 2);
        let e = parse_envoy_body("Invitation: somewhere").unwrap_err();
        assert_eq!(e.line, "Invitation: somewhere");
    }

    #[test]
    fn an_amount_that_would_wrap_the_total_is_refused_not_summed() {
        let e = parse_trailer("****\nSkickar: 4294967295 guld, 1 hästar").unwrap_err();
        assert!(matches!(e.kind, TrailerErrorKind::TooLarge { .. }), "{e:?}");
        let e = parse_trailer("****\nSkickar: 99999999999999 guld").unwrap_err();
        assert!(matches!(e.kind, TrailerErrorKind::TooLarge { .. }), "{e:?}");
    }

    #[test]
    fn totals_of_one_good_above_the_bound_are_refused() {
        let ok = format!("****\nSkickar: {MAX_AMOUNT} guld");
        assert_eq!(sends(&ok).resources.guld, MAX_AMOUNT);
        for line in [
            "Skickar: 1000000 guld, 1 guld",
            "Skickar: 600000 lätt infanteri, 600000 lätt infanteri",
            "Skickar: 600000 VP, 600000 VP",
            "Skickar: 1000000 transportskepp\n1 transportskepp",
        ] {
            let e = parse_trailer(&format!("****\n{line}")).unwrap_err();
            assert!(
                matches!(e.kind, TrailerErrorKind::TooLarge { .. }),
                "{line}: {e:?}"
            );
        }
    }

    #[test]
    fn a_refused_line_is_quoted_only_by_its_start() {
        let long = format!("Skickar: 5 {}", "x".repeat(100_000));
        let e = parse_trailer(&format!("****\n{long}")).unwrap_err();
        assert!(
            e.line.chars().count() <= QUOTED_CHARS + 1,
            "{}",
            e.line.len()
        );
        assert!(e.line.starts_with("Skickar: 5 xxx") && e.line.ends_with('…'));
        assert!(e.to_string().len() < 2 * QUOTED_CHARS + 200);
    }

    mod never_panics {
        use super::super::*;
        use proptest::prelude::*;

        fn trailerish() -> impl Strategy<Value = String> {
            let line = prop_oneof![
                Just("****".to_string()),
                Just("--".to_string()),
                "(Skickar|Väntar|Från|Sends|Inbjudan|Avsändare): [0-9a-zåäöA-Z ,;.\u{130}\u{212A}]{0,30}",
                "[0-9]{1,12} [a-zåäö ]{0,20}",
                ".{0,30}",
            ];
            proptest::collection::vec(line, 0..8).prop_map(|v| v.join("\n"))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            #[test]
            fn trailer_and_envoy_body_never_panic(body in trailerish()) {
                if let Ok(Some(t)) = parse_trailer(&body) {
                    prop_assert!(t.sends.resources.iter().all(|(_, n)| n <= MAX_AMOUNT));
                    prop_assert!(t.sends.vp <= MAX_AMOUNT);
                }
                let _ = parse_envoy_body(&body);
            }

            #[test]
            fn trailer_never_panics_on_any_text(body in "(?s).{0,300}") {
                let _ = parse_trailer(&body);
                let _ = parse_envoy_body(&body);
            }
        }
    }
}
