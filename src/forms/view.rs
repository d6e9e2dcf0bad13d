//! The Monday form read back: `parse_form_view` turns a rendered result form (plain text as
//! mailed, also `> `-quoted in a reply) into a `FormState` — the realm's own state as the
//! form shows it — and `form_state_of` computes the same `FormState` straight from the
//! `GameState`. The weekend form (docs/reference/orders.md) asks that rendering a form and
//! parsing it back yield the same state; `tests/forms_roundtrip.rs` holds both sides to
//! that, for the scenarios and for generated states.
//!
//! "As the form shows it" matters in three places, and `form_state_of`
//! follows the form there: city names are cut to the 16 characters the
//! city table has room for; the mission is the wrapped text with its
//! whitespace collapsed; army units and ships are runs of equal kinds in
//! cannon-fodder order (`2 bågskyttar, 1 veteran, 1 bågskytt`), not single
//! units with their build rounds. What the form prints but computes from
//! other fields (caps, attack sums, mutual friends) is not part of the
//! state and is skipped; so are the last-weekend log, spies out on
//! missions, secret bonuses, portals and the free merchants' lot.
//!
//! PURE: text in, data out; no I/O, clock or randomness. Reads the
//! `GameState`, never changes it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::game::state::{Dimension, GameState, Positions};
use crate::game::text::{wrap, WIDTH};
use crate::game::{Lang, Position, Resource, Resources, ShipKind, Square, UnitKind};

/// A realm's own state as its Monday form shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FormState {
    pub lang: Lang,
    pub realm: String,
    pub round: u32,
    pub stock: Resources,
    /// The `*`-marked standard resources, in resource order.
    pub standard: Vec<Resource>,
    pub positions: Positions,
    /// Merchants and envoys sent this round (shown next to the
    /// Skattmästare and Språkrör values).
    pub merchants_sent: u32,
    pub envoys_sent: u32,
    /// Total population of the realm's cities.
    pub population: u32,
    pub armies: Vec<FormArmy>,
    pub fleets: Vec<FormFleet>,
    /// In the form's order, each with its production row.
    pub cities: Vec<FormCity>,
    /// Spies at home (not on a mission).
    pub spies_held: u32,
    pub friends: Vec<String>,
    /// Usable invitations (unused, still valid).
    pub invitations: Vec<FormInvitation>,
    pub vp: i64,
    /// The mission text, whitespace collapsed to single spaces.
    pub mission: String,
    pub mission_done: bool,
    pub wishes_buy: Vec<Resource>,
    pub wishes_sell: Vec<Resource>,
}

/// An army group on the form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FormArmy {
    pub id: u32,
    pub square: Square,
    pub evil_dimension: bool,
    /// The fleet it is aboard.
    pub aboard: Option<u32>,
    /// Runs of equal kinds in cannon-fodder order (last falls first).
    pub units: Vec<(UnitKind, u32)>,
    /// Units built this round (cannot attack yet).
    pub new_units: u32,
}

/// A fleet on the form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FormFleet {
    pub id: u32,
    pub square: Square,
    /// Runs of equal kinds in cannon-fodder order.
    pub ships: Vec<(ShipKind, u32)>,
    /// Ids of the army groups aboard.
    pub cargo: Vec<u32>,
}

/// A city on the form (city table and production table together).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FormCity {
    pub square: Square,
    /// As the city table shows it: at most 16 characters.
    pub name: String,
    pub population: u32,
    pub walls: u32,
    pub production: Resources,
    pub capital: bool,
    pub harbour: bool,
    pub coastal: bool,
    pub evil_dimension: bool,
    pub plundered: bool,
}

/// An invitation the realm may use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FormInvitation {
    pub from: String,
    pub square: Square,
    pub valid_until_round: u32,
}

/// Why a text could not be read as a Monday form. Quotes the offending
/// line (after removing `>` quoting) with its 1-based number in the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormParseError {
    /// No `====` title block with a realm and a round.
    #[error("no result form found: no title block `Resultat och helgformulär för <Land>, runda <n>` / `Results and weekend form for <Realm>, round <n>`")]
    NoForm,
    /// A section heading the form always has is missing.
    #[error("the section `{0}` is missing")]
    MissingSection(&'static str),
    /// A line that does not have the shape its section gives it.
    #[error("line {line_no}: «{line}»: expected {expected}")]
    BadLine {
        line_no: usize,
        line: String,
        expected: &'static str,
    },
}

fn bad(line: &Ln, expected: &'static str) -> FormParseError {
    FormParseError::BadLine {
        line_no: line.no,
        line: line.text.clone(),
        expected,
    }
}

/// The form's view of `realm` computed from the state. An unknown realm
/// gives an empty state with that name (the renderer refuses to render a
/// form for it, so no text parses to it).
pub fn form_state_of(state: &GameState, realm: &str) -> FormState {
    let Some(r) = state.realm(realm) else {
        return FormState {
            lang: Lang::Sv,
            realm: realm.to_string(),
            round: state.round,
            stock: Resources::ZERO,
            standard: Vec::new(),
            positions: Positions::default(),
            merchants_sent: 0,
            envoys_sent: 0,
            population: 0,
            armies: Vec::new(),
            fleets: Vec::new(),
            cities: Vec::new(),
            spies_held: 0,
            friends: Vec::new(),
            invitations: Vec::new(),
            vp: 0,
            mission: String::new(),
            mission_done: false,
            wishes_buy: Vec::new(),
            wishes_sell: Vec::new(),
        };
    };
    let aboard = |id: u32| {
        state
            .fleets_of(realm)
            .find(|f| f.cargo.contains(&id))
            .map(|f| f.id)
    };
    FormState {
        lang: r.language,
        realm: r.name.clone(),
        round: state.round,
        stock: r.stock,
        standard: Resource::ALL
            .into_iter()
            .filter(|x| r.standard.contains(x))
            .collect(),
        positions: r.positions,
        merchants_sent: r.sent.merchants,
        envoys_sent: r.sent.envoys,
        population: state.population(realm),
        armies: state
            .armies_of(realm)
            .map(|a| FormArmy {
                id: a.id,
                square: a.square,
                evil_dimension: a.dimension == Dimension::Evil,
                aboard: aboard(a.id),
                units: runs(a.units.iter().map(|u| u.kind)),
                new_units: a
                    .units
                    .iter()
                    .filter(|u| u.built_round == state.round)
                    .count() as u32,
            })
            .collect(),
        fleets: state
            .fleets_of(realm)
            .map(|f| FormFleet {
                id: f.id,
                square: f.square,
                ships: runs(f.ships.iter().map(|s| s.kind)),
                cargo: f.cargo.clone(),
            })
            .collect(),
        cities: state
            .cities_of(realm)
            .map(|c| FormCity {
                square: c.square,
                name: shown_name(&c.name),
                population: c.population,
                walls: c.walls,
                production: c.production,
                capital: c.capital,
                harbour: c.harbour,
                coastal: c.coastal,
                evil_dimension: c.dimension == Dimension::Evil,
                plundered: c.plundered,
            })
            .collect(),
        spies_held: r.spies,
        friends: r.friends.clone(),
        invitations: r
            .invitations
            .iter()
            .filter(|i| !i.used && i.valid_until_round >= state.round)
            .map(|i| FormInvitation {
                from: i.from.clone(),
                square: i.square,
                valid_until_round: i.valid_until_round,
            })
            .collect(),
        vp: r.vp,
        mission: wrap(&r.mission, WIDTH, 2)
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" "),
        mission_done: r.mission_done,
        wishes_buy: r.trade_wishes.buy.clone(),
        wishes_sell: r.trade_wishes.sell.clone(),
    }
}

/// A city name as the city table shows it: 16 characters, whitespace
/// collapsed.
fn shown_name(name: &str) -> String {
    let cut: String = name.chars().take(16).collect();
    cut.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn runs<K: PartialEq + Copy>(it: impl Iterator<Item = K>) -> Vec<(K, u32)> {
    let mut out: Vec<(K, u32)> = Vec::new();
    for k in it {
        match out.last_mut() {
            Some((last, n)) if *last == k => *n += 1,
            _ => out.push((k, 1)),
        }
    }
    out
}

/// One line of the form: its number in the whole text and its content
/// without quote marks or trailing whitespace.
#[derive(Debug, Clone)]
struct Ln {
    no: usize,
    text: String,
}

impl Ln {
    fn indented(&self) -> bool {
        self.text.starts_with(' ')
    }
    fn words(&self) -> Vec<&str> {
        self.text.split_whitespace().collect()
    }
}

/// Strip every level of `>` quoting (each with one optional space after
/// it), keeping the indentation the form itself has.
fn unquote(raw: &str) -> String {
    let mut rest = raw.trim_start_matches('\u{feff}');
    while let Some(r) = rest.trim_start_matches(' ').strip_prefix('>') {
        rest = r.strip_prefix(' ').unwrap_or(r);
    }
    rest.replace('\u{a0}', " ").trim_end().to_string()
}

/// The sections of the form, by their headings in either language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Sec {
    Stock,
    Production,
    Positions,
    Population,
    Armies,
    Fleets,
    Cities,
    Spies,
    Relations,
    Victory,
    Trade,
    LastWeekend,
}

const SECTIONS: &[(Sec, &str, &str)] = &[
    (Sec::Stock, "LAGER (lagerrutan)", "STOCK (stock box)"),
    (
        Sec::Production,
        "PRODUKTION PER STAD",
        "PRODUCTION PER CITY",
    ),
    (Sec::Positions, "BEFATTNINGSVÄRDEN", "POSITION VALUES"),
    (Sec::Population, "BEFOLKNING", "POPULATION"),
    (Sec::Armies, "ARMÉGRUPPER", "ARMY GROUPS"),
    (Sec::Fleets, "FLOTTOR", "FLEETS"),
    (Sec::Cities, "STÄDER", "CITIES"),
    (Sec::Spies, "SPIONER", "SPIES"),
    (
        Sec::Relations,
        "RELATIONER (relationsrutan)",
        "RELATIONS (relations box)",
    ),
    (
        Sec::Victory,
        "SEGERPOÄNG OCH UPPDRAG",
        "VICTORY POINTS AND MISSION",
    ),
    (Sec::Trade, "HANDELSÖNSKEMÅL", "TRADE WISHES"),
    (Sec::LastWeekend, "FÖRRA HELGEN", "LAST WEEKEND"),
];

/// `-- TITLE -----` → the section and the language of its title.
fn heading(text: &str) -> Option<(Sec, Lang)> {
    let inner = text.strip_prefix("-- ")?.trim_end_matches('-').trim();
    SECTIONS.iter().find_map(|(s, sv, en)| {
        if inner == *sv {
            Some((*s, Lang::Sv))
        } else if inner == *en {
            Some((*s, Lang::En))
        } else {
            None
        }
    })
}

fn is_rule(text: &str) -> bool {
    text.len() >= 20 && text.chars().all(|c| c == '=')
}

fn is_orders_marker(text: &str) -> bool {
    text.starts_with("=== ORDRAR / ORDERS")
}

/// Read a rendered Monday form back into the state it shows. The form
/// may be quoted (`> `) and surrounded by other text; the first title
/// block (`====` … `====`) is read up to the orders marker.
pub fn parse_form_view(text: &str) -> Result<FormState, FormParseError> {
    let all: Vec<Ln> = text
        .lines()
        .enumerate()
        .map(|(i, l)| Ln {
            no: i + 1,
            text: unquote(l),
        })
        .collect();
    // The title block: the first rule followed by a title and a rule.
    let (start, title_end) = (0..all.len())
        .filter(|&i| is_rule(&all[i].text))
        .find_map(|i| {
            let end = (i + 1..all.len().min(i + 8)).find(|&j| is_rule(&all[j].text))?;
            Some((i, end))
        })
        .ok_or(FormParseError::NoForm)?;
    let title: String = all[start + 1..title_end]
        .iter()
        .map(|l| l.text.trim())
        .collect::<Vec<_>>()
        .join(" ");
    let (realm, round) = title_realm_round(&title).ok_or(FormParseError::NoForm)?;
    let end = (title_end..all.len())
        .find(|&i| is_orders_marker(&all[i].text))
        .unwrap_or(all.len());
    let body = &all[title_end + 1..end];

    // Cut the body into sections.
    let mut sections: BTreeMap<Sec, (&Ln, Vec<Ln>)> = BTreeMap::new();
    let mut lang = None;
    let mut cur: Option<Sec> = None;
    for l in body {
        if let Some((s, lg)) = heading(&l.text) {
            lang.get_or_insert(lg);
            sections.insert(s, (l, Vec::new()));
            cur = Some(s);
        } else if l.text.starts_with("-- ") && l.text.ends_with("---") {
            // A heading this parser does not know: its lines belong to
            // no known section.
            cur = None;
        } else if let Some(s) = cur {
            if !l.text.is_empty() {
                if let Some(sec) = sections.get_mut(&s) {
                    sec.1.push(l.clone());
                }
            }
        }
    }
    let lang = lang.ok_or(FormParseError::MissingSection("LAGER / STOCK"))?;
    let get = |s: Sec| -> Result<&(&Ln, Vec<Ln>), FormParseError> {
        sections.get(&s).ok_or_else(|| {
            let (_, sv, en) = SECTIONS.iter().find(|x| x.0 == s).expect("listed");
            FormParseError::MissingSection(if lang == Lang::Sv { sv } else { en })
        })
    };

    let (stock, standard, prod_total) = parse_stock(get(Sec::Stock)?)?;
    let (positions, merchants_sent, envoys_sent) = parse_positions(get(Sec::Positions)?)?;
    let population = parse_population(get(Sec::Population)?)?;
    let armies = parse_armies(get(Sec::Armies)?, lang)?;
    let fleets = parse_fleets(get(Sec::Fleets)?, lang)?;
    let mut cities = parse_cities(get(Sec::Cities)?)?;
    parse_production(get(Sec::Production)?, &mut cities, prod_total)?;
    let spies_held = parse_spies(get(Sec::Spies)?)?;
    let (friends, invitations) = parse_relations(get(Sec::Relations)?)?;
    let (vp, mission, mission_done) = parse_victory(get(Sec::Victory)?)?;
    let (wishes_buy, wishes_sell) = parse_trade(get(Sec::Trade)?)?;

    Ok(FormState {
        lang,
        realm,
        round,
        stock,
        standard,
        positions,
        merchants_sent,
        envoys_sent,
        population,
        armies,
        fleets,
        cities,
        spies_held,
        friends,
        invitations,
        vp,
        mission,
        mission_done,
        wishes_buy,
        wishes_sell,
    })
}

/// The realm and round named in the first form title block of `text` (a
/// reply quoting the Monday form carries it), if any. Says which round a
/// reply was written for, without reading the rest of the form.
pub fn form_title(text: &str) -> Option<(String, u32)> {
    let all: Vec<String> = text.lines().map(unquote).collect();
    let (start, end) = (0..all.len()).filter(|&i| is_rule(&all[i])).find_map(|i| {
        let end = (i + 1..all.len().min(i + 8)).find(|&j| is_rule(&all[j]))?;
        Some((i, end))
    })?;
    let title: String = all[start + 1..end]
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    title_realm_round(&title)
}

/// `… Resultat och helgformulär för <Land>, runda <n>` (or English).
fn title_realm_round(title: &str) -> Option<(String, u32)> {
    for (lead, round_word) in [
        ("Resultat och helgformulär för ", ", runda "),
        ("Results and weekend form for ", ", round "),
    ] {
        let Some(at) = title.rfind(lead) else {
            continue;
        };
        let rest = &title[at + lead.len()..];
        let cut = rest.rfind(round_word)?;
        let realm = rest[..cut].trim().to_string();
        let round = rest[cut + round_word.len()..].trim().parse().ok()?;
        if realm.is_empty() {
            return None;
        }
        return Some((realm, round));
    }
    None
}

fn num<T: std::str::FromStr>(word: &str) -> Option<T> {
    word.trim_matches(|c: char| matches!(c, ',' | ':' | '(' | ')' | '.'))
        .parse()
        .ok()
}

/// The stock table: `name[*]  stock  production`, one row per resource.
fn parse_stock(
    (head, lines): &(&Ln, Vec<Ln>),
) -> Result<(Resources, Vec<Resource>, Resources), FormParseError> {
    let mut stock = Resources::ZERO;
    let mut prod = Resources::ZERO;
    let mut standard = Vec::new();
    let mut seen = Vec::new();
    // The first line is the column header.
    for l in lines.iter().skip(1) {
        let w = l.words();
        const WANT: &str = "`<resource>[*] <stock> <production>`";
        if w.len() < 3 {
            return Err(bad(l, WANT));
        }
        let name = w[..w.len() - 2].join(" ");
        let starred = name.ends_with('*');
        let r = Resource::parse(name.trim_end_matches('*')).map_err(|_| bad(l, WANT))?;
        let s: u32 = num(w[w.len() - 2]).ok_or_else(|| bad(l, WANT))?;
        let p: u32 = num(w[w.len() - 1]).ok_or_else(|| bad(l, WANT))?;
        if seen.contains(&r) {
            return Err(bad(l, "each resource once"));
        }
        seen.push(r);
        *stock.get_mut(r) = s;
        *prod.get_mut(r) = p;
        if starred {
            standard.push(r);
        }
    }
    if seen.len() != Resource::ALL.len() {
        return Err(bad(head, "a row for each of the 12 resources"));
    }
    standard.sort();
    Ok((stock, standard, prod))
}

/// The production table: a header, one row per city (in the city table's
/// order), the total row. The label column is 18 characters wide.
fn parse_production(
    (head, lines): &(&Ln, Vec<Ln>),
    cities: &mut [FormCity],
    total_from_stock: Resources,
) -> Result<(), FormParseError> {
    const WANT: &str = "`<square> <city>` and 12 production values (`.` = 0)";
    let rows: Vec<&Ln> = lines.iter().skip(1).collect();
    if rows.len() != cities.len() + 1 {
        return Err(bad(head, "one production row per city and a total row"));
    }
    let values = |l: &Ln| -> Result<(String, Resources), FormParseError> {
        let label: String = l.text.chars().take(18).collect();
        let rest: String = l.text.chars().skip(18).collect();
        let w: Vec<&str> = rest.split_whitespace().collect();
        if w.len() != Resource::ALL.len() {
            return Err(bad(l, WANT));
        }
        let mut p = Resources::ZERO;
        for (r, v) in Resource::ALL.iter().zip(w) {
            *p.get_mut(*r) = if v == "." {
                0
            } else {
                num(v).ok_or_else(|| bad(l, WANT))?
            };
        }
        Ok((label.trim().to_string(), p))
    };
    let mut sum = Resources::ZERO;
    for (city, l) in cities.iter_mut().zip(&rows) {
        let (label, p) = values(l)?;
        let sq = label
            .split_whitespace()
            .next()
            .and_then(|s| Square::parse(s).ok());
        if sq != Some(city.square) {
            return Err(bad(
                l,
                "the same cities in the same order as the city table",
            ));
        }
        city.production = p;
        sum = sum.plus(&p);
    }
    let last = rows.last().expect("a total row");
    let (_, total) = values(last)?;
    if total != sum || total != total_from_stock {
        return Err(bad(
            last,
            "a total equal to the city rows and the stock table's production",
        ));
    }
    Ok(())
}

/// `Title  value  …` per position; the sent merchants and envoys are the
/// last number on the Skattmästare and Språkrör lines.
fn parse_positions(
    (head, lines): &(&Ln, Vec<Ln>),
) -> Result<(Positions, u32, u32), FormParseError> {
    const WANT: &str = "`<position> <value> …`";
    let mut pos = Positions::default();
    let (mut merchants, mut envoys) = (0, 0);
    let mut seen = Vec::new();
    for l in lines {
        if l.indented() {
            continue;
        }
        let w = l.words();
        if matches!(
            w.first().copied(),
            Some("Hemliga") | Some("Secret") | Some("ÖVER") | Some("OVER")
        ) {
            continue;
        }
        let Some(p) = w.first().and_then(|t| Position::parse(t).ok()) else {
            return Err(bad(l, WANT));
        };
        let v: u32 = w.get(1).and_then(|t| num(t)).ok_or_else(|| bad(l, WANT))?;
        *pos.get_mut(p) = v;
        seen.push(p);
        let last = || -> Result<u32, FormParseError> {
            w.last().and_then(|t| num(t)).ok_or_else(|| bad(l, WANT))
        };
        match p {
            Position::Skattmastare => merchants = last()?,
            Position::Sprakror => envoys = last()?,
            _ => {}
        }
    }
    if seen.len() != Position::ALL.len() {
        return Err(bad(head, "a line for each of the 7 positions"));
    }
    Ok((pos, merchants, envoys))
}

fn parse_population((head, lines): &(&Ln, Vec<Ln>)) -> Result<u32, FormParseError> {
    let l = lines
        .first()
        .ok_or_else(|| bad(head, "`Total … <number>:`"))?;
    l.words()
        .get(2)
        .and_then(|t| num(t))
        .ok_or_else(|| bad(l, "`Total befolkning <n>:` / `Total population <n>:`"))
}

/// `<count> <kind>, <count> <kind>, …` over one or more lines.
fn items<K>(
    lines: &[&Ln],
    parse: impl Fn(&str) -> Option<K>,
) -> Result<Vec<(K, u32)>, FormParseError> {
    const WANT: &str = "`<count> <kind>, <count> <kind> …`";
    let mut out = Vec::new();
    for l in lines {
        for item in l.text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (n, name) = item.split_once(' ').ok_or_else(|| bad(l, WANT))?;
            let n: u32 = num(n).ok_or_else(|| bad(l, WANT))?;
            let k = parse(name).ok_or_else(|| bad(l, WANT))?;
            out.push((k, n));
        }
    }
    Ok(out)
}

/// `<Armé|Flotta> <id> på <square>` and what follows the place name.
fn group_head(l: &Ln, word: &str, on: &str) -> Option<(u32, Square, String)> {
    let rest = l.text.strip_prefix(word)?.strip_prefix(' ')?;
    let (id, rest) = rest.split_once(' ')?;
    let rest = rest.strip_prefix(on)?.strip_prefix(' ')?;
    let (sq, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    let sq = Square::parse(sq.trim_end_matches(',')).ok()?;
    // Skip ` (City name)`; what is after the closing parenthesis remains.
    let tail = match tail.strip_prefix('(') {
        Some(t) => t.split_once(')').map_or("", |x| x.1),
        None => tail,
    };
    Some((id.parse().ok()?, sq, tail.to_string()))
}

fn parse_armies((_, lines): &(&Ln, Vec<Ln>), lang: Lang) -> Result<Vec<FormArmy>, FormParseError> {
    let (word, on, evil, aboard_word, new) = match lang {
        Lang::Sv => (
            "Armé",
            "på",
            "ondskans dimension",
            "ombord på flotta ",
            "varav ",
        ),
        Lang::En => ("Army", "on", "Evil dimension", "aboard fleet ", "of which "),
    };
    let mut out = Vec::new();
    let mut unit_lines: Vec<&Ln> = Vec::new();
    let finish = |out: &mut Vec<FormArmy>, unit_lines: &mut Vec<&Ln>| {
        if let Some(a) = out.last_mut() {
            a.units = items(unit_lines, |s| UnitKind::parse(s).ok())?;
        }
        unit_lines.clear();
        Ok::<(), FormParseError>(())
    };
    for l in lines {
        if !l.indented() {
            if l.text.starts_with(&format!("{word} ")) {
                let (id, square, tail) =
                    group_head(l, word, on).ok_or_else(|| bad(l, "`Armé <nr> på <ruta> …`"))?;
                finish(&mut out, &mut unit_lines)?;
                let aboard = match tail.find(aboard_word) {
                    Some(i) => Some(
                        num(tail[i + aboard_word.len()..].trim())
                            .ok_or_else(|| bad(l, "`… <fleet number>`"))?,
                    ),
                    None => None,
                };
                out.push(FormArmy {
                    id,
                    square,
                    evil_dimension: tail.contains(evil),
                    aboard,
                    units: Vec::new(),
                    new_units: 0,
                });
            }
            // Prose lines (`Ordning enligt …`, `Inga armégrupper.`).
            continue;
        }
        let t = l.text.trim_start();
        if out.is_empty() || !l.text.starts_with("    ") {
            continue; // the stats line under the head
        }
        if let Some(r) = t.strip_prefix(new) {
            let n = r.split_whitespace().next().and_then(num);
            out.last_mut().expect("an army").new_units =
                n.ok_or_else(|| bad(l, "`varav <n> nya …` / `of which <n> new …`"))?;
        } else if t.starts_with(|c: char| c.is_ascii_digit()) {
            unit_lines.push(l);
        }
    }
    finish(&mut out, &mut unit_lines)?;
    Ok(out)
}

fn parse_fleets((_, lines): &(&Ln, Vec<Ln>), lang: Lang) -> Result<Vec<FormFleet>, FormParseError> {
    let (word, on, cargo) = match lang {
        Lang::Sv => ("Flotta", "på", "ombord:"),
        Lang::En => ("Fleet", "on", "aboard:"),
    };
    let mut out = Vec::new();
    let mut ship_lines: Vec<&Ln> = Vec::new();
    let finish = |out: &mut Vec<FormFleet>, ship_lines: &mut Vec<&Ln>| {
        if let Some(f) = out.last_mut() {
            f.ships = items(ship_lines, |s| ShipKind::parse(s).ok())?;
        }
        ship_lines.clear();
        Ok::<(), FormParseError>(())
    };
    for l in lines {
        if !l.indented() {
            if l.text.starts_with(&format!("{word} ")) {
                let (id, square, _) =
                    group_head(l, word, on).ok_or_else(|| bad(l, "`Flotta <nr> på <ruta> …`"))?;
                finish(&mut out, &mut ship_lines)?;
                out.push(FormFleet {
                    id,
                    square,
                    ships: Vec::new(),
                    cargo: Vec::new(),
                });
            }
            continue;
        }
        let t = l.text.trim_start();
        if out.is_empty() || !l.text.starts_with("    ") {
            continue;
        }
        if let Some(r) = t.strip_prefix(cargo) {
            let ids: Option<Vec<u32>> = r
                .split(',')
                .map(|g| g.split_whitespace().last().and_then(num))
                .collect();
            out.last_mut().expect("a fleet").cargo =
                ids.ok_or_else(|| bad(l, "`ombord: armé <nr>, …` / `aboard: army <no>, …`"))?;
        } else if t.starts_with(|c: char| c.is_ascii_digit()) {
            ship_lines.push(l);
        }
    }
    finish(&mut out, &mut ship_lines)?;
    Ok(out)
}

/// `<square> <name> <population> <walls>/<cap>  <marks, …>`.
fn parse_cities((_, lines): &(&Ln, Vec<Ln>)) -> Result<Vec<FormCity>, FormParseError> {
    const WANT: &str = "`<square> <name> <population> <walls>/<cap> [marks]`";
    let mut out = Vec::new();
    for l in lines.iter().skip(1) {
        if matches!(
            l.words().first().copied(),
            Some("Portaler") | Some("Portals")
        ) {
            continue;
        }
        let w = l.words();
        let square = w
            .first()
            .and_then(|t| Square::parse(t).ok())
            .ok_or_else(|| bad(l, WANT))?;
        let walls_at = |i: usize| -> Option<(u32, u32)> {
            let pop = num(w.get(i)?)?;
            let (a, _cap) = w.get(i + 1)?.split_once('/')?;
            Some((pop, a.parse().ok()?))
        };
        let (at, (population, walls)) = (1..w.len())
            .find_map(|i| walls_at(i).map(|v| (i, v)))
            .ok_or_else(|| bad(l, WANT))?;
        let mut city = FormCity {
            square,
            name: w[1..at].join(" "),
            population,
            walls,
            production: Resources::ZERO,
            capital: false,
            harbour: false,
            coastal: false,
            evil_dimension: false,
            plundered: false,
        };
        let marks = w[at + 2..].join(" ");
        for m in marks.split(',').map(str::trim).filter(|m| !m.is_empty()) {
            match m {
                "huvudstad" | "capital" => city.capital = true,
                "huvudhamn" | "main harbour" => city.harbour = true,
                "kust" | "coastal" => city.coastal = true,
                "ondskans dimension" | "Evil dimension" => city.evil_dimension = true,
                "plundrad" | "plundered" => city.plundered = true,
                _ => return Err(bad(l, WANT)),
            }
        }
        out.push(city);
    }
    Ok(out)
}

fn parse_spies((head, lines): &(&Ln, Vec<Ln>)) -> Result<u32, FormParseError> {
    let l = lines
        .first()
        .ok_or_else(|| bad(head, "`Spioner hemma: <n>`"))?;
    let (_, r) = l
        .text
        .split_once(':')
        .ok_or_else(|| bad(l, "`Spioner hemma: <n>` / `Spies at home: <n>`"))?;
    r.split_whitespace()
        .next()
        .and_then(num)
        .ok_or_else(|| bad(l, "`Spioner hemma: <n>` / `Spies at home: <n>`"))
}

/// Joins hanging-indented continuation lines to their first line.
fn logical(lines: &[Ln]) -> Vec<Ln> {
    let mut out: Vec<Ln> = Vec::new();
    for l in lines {
        match out.last_mut() {
            Some(last) if l.indented() => {
                last.text.push(' ');
                last.text.push_str(l.text.trim());
            }
            _ => out.push(l.clone()),
        }
    }
    out
}

/// `a, b, c` or `inga` / `none`.
fn list(text: &str) -> Vec<String> {
    let t = text.trim();
    if t == "inga" || t == "none" || t.is_empty() {
        return Vec::new();
    }
    t.split(',').map(|s| s.trim().to_string()).collect()
}

fn after<'a>(text: &'a str, prefixes: &[&str]) -> Option<&'a str> {
    prefixes.iter().find_map(|p| text.strip_prefix(p))
}

fn parse_relations(
    (head, lines): &(&Ln, Vec<Ln>),
) -> Result<(Vec<String>, Vec<FormInvitation>), FormParseError> {
    const INV: &str = "`Från <land> till <ruta>, giltig t.o.m. runda <n>` / `From <realm> to <square>, valid through round <n>`";
    let mut friends = None;
    let mut invitations = Vec::new();
    let inv_at = lines
        .iter()
        .position(|l| after(&l.text, &["Inbjudningar:", "Invitations:"]).is_some())
        .ok_or_else(|| bad(head, "`Inbjudningar:` / `Invitations:`"))?;
    for l in logical(&lines[..inv_at]) {
        if let Some(r) = after(&l.text, &["Vänner:", "Friends:"]) {
            friends = Some(list(r));
        }
    }
    for l in &lines[inv_at + 1..] {
        let w = l.words();
        let parsed = (|| {
            if w.len() < 5 || !matches!(w[0], "Från" | "From") {
                return None;
            }
            Some(FormInvitation {
                from: w[1].to_string(),
                square: Square::parse(w[3].trim_end_matches(',')).ok()?,
                valid_until_round: num(w.last()?)?,
            })
        })();
        invitations.push(parsed.ok_or_else(|| bad(l, INV))?);
    }
    let friends = friends.ok_or_else(|| bad(head, "`Vänner: …` / `Friends: …`"))?;
    Ok((friends, invitations))
}

fn parse_victory((head, lines): &(&Ln, Vec<Ln>)) -> Result<(i64, String, bool), FormParseError> {
    const VP: &str = "`Segerpoäng: <n> …` / `Victory points: <n> …`";
    let l = lines.first().ok_or_else(|| bad(head, VP))?;
    let vp = after(&l.text, &["Segerpoäng:", "Victory points:"])
        .and_then(|r| r.split_whitespace().next())
        .and_then(num)
        .ok_or_else(|| bad(l, VP))?;
    let m = lines
        .get(1)
        .ok_or_else(|| bad(l, "`Uppdrag:` / `Mission:` on the next line"))?;
    let done = match m.text.as_str() {
        "Uppdrag:" | "Mission:" => false,
        "Uppdrag (klart):" | "Mission (done):" => true,
        _ => return Err(bad(m, "`Uppdrag:` / `Mission:`")),
    };
    let mission = lines[2..]
        .iter()
        .map(|l| l.text.trim())
        .collect::<Vec<_>>()
        .join(" ");
    Ok((vp, mission, done))
}

fn parse_trade(
    (head, lines): &(&Ln, Vec<Ln>),
) -> Result<(Vec<Resource>, Vec<Resource>), FormParseError> {
    let (mut buy, mut sell) = (None, None);
    for l in logical(lines) {
        let slot = if let Some(r) = after(&l.text, &["Vill köpa:", "Wants to buy:"]) {
            Some((&mut buy, r))
        } else {
            after(&l.text, &["Vill sälja:", "Wants to sell:"]).map(|r| (&mut sell, r))
        };
        if let Some((slot, r)) = slot {
            let v: Result<Vec<Resource>, _> = list(r).iter().map(|n| Resource::parse(n)).collect();
            *slot = Some(v.map_err(|_| bad(&l, "resource names separated by commas"))?);
        }
    }
    let buy = buy.ok_or_else(|| bad(head, "`Vill köpa: …` / `Wants to buy: …`"))?;
    let sell = sell.ok_or_else(|| bad(head, "`Vill sälja: …` / `Wants to sell: …`"))?;
    Ok((buy, sell))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquote_keeps_the_forms_own_indentation() {
        assert_eq!(unquote(">   7 enheter"), "  7 enheter");
        assert_eq!(unquote("> >     2 veteraner"), "    2 veteraner");
        assert_eq!(unquote(">>x"), "x");
        assert_eq!(unquote(">"), "");
        assert_eq!(unquote("    2 veteraner  "), "    2 veteraner");
    }

    #[test]
    fn form_title_reads_the_round_of_a_quoted_form() {
        let rule = "=".repeat(40);
        let text = format!(
            "BUY 1 spy\n\nOn Monday sl wrote:\n> {rule}\n> VÄRLDSSTRATEGISPELET\n\
> Results and weekend form for Afani, round 3\n> {rule}\n> more\n"
        );
        assert_eq!(form_title(&text), Some(("Afani".to_string(), 3)));
        assert_eq!(form_title("BUY 1 spy"), None);
        assert_eq!(
            form_title(&format!("{rule}\nno title here\n{rule}\n")),
            None
        );
    }

    #[test]
    fn title_gives_realm_and_round() {
        assert_eq!(
            title_realm_round(
                "VÄRLDSSTRATEGISPELET - X Resultat och helgformulär för Afani, runda 12"
            ),
            Some(("Afani".to_string(), 12))
        );
        assert_eq!(
            title_realm_round(
                "THE WORLD STRATEGY GAME - X Results and weekend form for Ostvik, round 3"
            ),
            Some(("Ostvik".to_string(), 3))
        );
        assert_eq!(title_realm_round("nothing"), None);
    }

    #[test]
    fn a_text_without_a_form_says_so() {
        assert_eq!(parse_form_view("hej\nhopp\n"), Err(FormParseError::NoForm));
    }
}
