//! The receipt reply as plain text (≤ 78 characters a line): every line of
//! the form with its status and cost, the stock left after purchases, and
//! what each army group and fleet does if no other form arrives. Pure
//! formatting of a `Checked`; decides nothing.

use super::check::Checked;
use crate::game::lang::count;
use crate::game::text::{wrap_hanging, WIDTH};
use crate::game::Lang;

/// What a received form does to the realm's standing form for the round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect<'a> {
    /// It is the realm's form now (replacing any earlier one).
    Stands,
    /// No order was found and it did not say `INGA ORDRAR` / `NO ORDERS`,
    /// so the earlier form, received at `received` (in words), still stands.
    EarlierStands { received: &'a str },
}

/// The receipt text in `lang`; `deadline_local` is the form deadline in
/// words (a later form before it replaces this one).
pub fn receipt_text(checked: &Checked, lang: Lang, deadline_local: &str) -> String {
    receipt_for(checked, lang, deadline_local, Effect::Stands)
}

/// The receipt text, saying what the form did to an earlier one.
pub fn receipt_for(
    checked: &Checked,
    lang: Lang,
    deadline_local: &str,
    effect: Effect<'_>,
) -> String {
    let sv = lang == Lang::Sv;
    let mut out: Vec<String> = Vec::new();
    let para = |text: String, indent: usize, out: &mut Vec<String>| {
        out.extend(wrap_hanging(&text, WIDTH, indent));
    };
    para(
        if sv {
            format!(
                "Kvitto på {}s formulär, runda {}: {}, {}.",
                checked.realm,
                checked.round,
                count(checked.accepted(), "order godkänd", "order godkända"),
                count(checked.refused(), "avvisad", "avvisade")
            )
        } else {
            format!(
                "Receipt for {}'s form, round {}: {}, {} refused.",
                checked.realm,
                checked.round,
                count(checked.accepted(), "order accepted", "orders accepted"),
                checked.refused()
            )
        },
        0,
        &mut out,
    );
    if checked.lines.is_empty() {
        para(empty_note(checked.no_orders, sv, effect), 0, &mut out);
    }
    out.push(String::new());
    for l in &checked.lines {
        let tag = match (&l.refusal, sv) {
            (None, true) => "[OK] ",
            (None, false) => "[OK] ",
            (Some(_), true) => "[NEJ]",
            (Some(_), false) => "[NO] ",
        };
        para(format!("{tag} {}", l.text), 6, &mut out);
        match &l.refusal {
            None if !l.cost.is_zero() => para(
                format!(
                    "      {} {}",
                    if sv { "kostar" } else { "costs" },
                    l.cost.describe(lang)
                ),
                8,
                &mut out,
            ),
            None => {}
            Some(r) => para(format!("      {}", r.text(lang)), 8, &mut out),
        }
    }
    out.push(String::new());
    para(
        format!(
            "{} {}",
            if sv {
                "Lager efter köpen:"
            } else {
                "Stock after purchases:"
            },
            checked.stock_after.describe(lang)
        ),
        2,
        &mut out,
    );
    if !checked.standing.is_empty() {
        out.push(String::new());
        para(
            if sv {
                "Om inget annat formulär kommer:".to_string()
            } else {
                "If no other form arrives:".to_string()
            },
            0,
            &mut out,
        );
        for s in &checked.standing {
            para(format!("  {}", if sv { &s.sv } else { &s.en }), 4, &mut out);
        }
    }
    out.push(String::new());
    para(
        match (effect, sv) {
            (Effect::Stands, true) => {
                format!("Ett nytt formulär före {deadline_local} ersätter detta.")
            }
            (Effect::Stands, false) => {
                format!("A new form before {deadline_local} replaces this one.")
            }
            (Effect::EarlierStands { .. }, true) => {
                format!("Ett nytt formulär före {deadline_local} ersätter det som gäller.")
            }
            (Effect::EarlierStands { .. }, false) => {
                format!("A new form before {deadline_local} replaces the one that stands.")
            }
        },
        0,
        &mut out,
    );
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// Why a form without orders has none, and what became of the earlier form.
fn empty_note(no_orders: bool, sv: bool, effect: Effect<'_>) -> String {
    match (no_orders, effect, sv) {
        (true, _, true) => {
            "Ett tomt formulär (INGA ORDRAR): du ger inga order den här helgen.".into()
        }
        (true, _, false) => "An empty form (NO ORDERS): you give no orders this weekend.".into(),
        (false, Effect::EarlierStands { received }, true) => format!(
            "Inga order hittades, så formuläret ersätter inte ditt tidigare formulär, \
             mottaget {received}, som fortfarande gäller. Skriv orderna mellan \
             markeringsraderna, eller bara raden INGA ORDRAR om du inte vill ge några."
        ),
        (false, Effect::EarlierStands { received }, false) => format!(
            "No orders were found, so this form does not replace your earlier form, \
             received {received}, which still stands. Write the orders between the \
             marker lines, or just the line NO ORDERS to give none."
        ),
        (false, Effect::Stands, true) => "Inga order hittades. Skriv dem mellan \
             markeringsraderna, eller bara raden INGA ORDRAR om du inte vill ge några."
            .into(),
        (false, Effect::Stands, false) => "No orders were found. Write them between the \
             marker lines, or just the line NO ORDERS to give none."
            .into(),
    }
}

/// The reply to a form written for an earlier round: nothing of it is applied.
/// `mailed_local` is when the current round's form was (or will be) mailed, in words;
/// `None` when that is not known yet (then: on Monday).
pub fn stale_form_text(
    lang: Lang,
    made_for: u32,
    current: u32,
    mailed_local: Option<&str>,
    already_mailed: bool,
) -> String {
    let mailed_local = match (mailed_local, lang) {
        (Some(t), _) => t,
        (None, Lang::Sv) => "på måndag",
        (None, Lang::En) => "on Monday",
    };
    match (lang == Lang::Sv, already_mailed) {
        (true, true) => format!(
            "Formuläret du svarade på gäller runda {made_for}, men nu är det runda {current}. \
             Formuläret för runda {current} skickades {mailed_local}; svara på det. Orderna i \
             det här brevet gäller inte, eftersom de skrevs för läget i runda {made_for}."
        ),
        (true, false) => format!(
            "Formuläret du svarade på gäller runda {made_for}, men nu är det runda {current}. \
             Formuläret för runda {current} skickas {mailed_local}; svara på det. Orderna i \
             det här brevet gäller inte, eftersom de skrevs för läget i runda {made_for}."
        ),
        (false, true) => format!(
            "The form you answered is for round {made_for}, but this is round {current}. \
             The form for round {current} was mailed {mailed_local}; answer that one. The \
             orders in this mail do not count, as they were written for round {made_for}."
        ),
        (false, false) => format!(
            "The form you answered is for round {made_for}, but this is round {current}. \
             The form for round {current} will be mailed {mailed_local}; answer that one. The \
             orders in this mail do not count, as they were written for round {made_for}."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::load_scenario;

    fn checked(realm: &str, text: &str) -> Checked {
        let gs = load_scenario(include_str!("../../scenarios/demo.yaml")).expect("demo scenario");
        crate::forms::read_form(&gs, realm, text, &[])
    }

    #[test]
    fn an_empty_form_says_whether_the_earlier_one_stands_in_both_languages() {
        let stands = Effect::EarlierStands {
            received: "28 Nov 11:00",
        };
        let en = receipt_for(&checked("Afani", "thanks!"), Lang::En, "Sun", stands);
        assert!(en.contains("does not replace your earlier form"), "{en}");
        assert!(
            en.contains("28 Nov 11:00") && en.contains("NO ORDERS"),
            "{en}"
        );
        let sv = receipt_for(&checked("Genogien", "tack!"), Lang::Sv, "sön", stands);
        assert!(sv.contains("ersätter inte ditt tidigare formulär"), "{sv}");
        assert!(sv.contains("INGA ORDRAR") && !sv.contains("orders"), "{sv}");
        let en = receipt_text(&checked("Afani", "NO ORDERS"), Lang::En, "Sun");
        assert!(en.contains("An empty form (NO ORDERS)"), "{en}");
        assert!(en.contains("replaces this one"), "{en}");
        let sv = receipt_text(&checked("Genogien", "INGA ORDRAR"), Lang::Sv, "sön");
        assert!(sv.contains("Ett tomt formulär (INGA ORDRAR)"), "{sv}");
    }

    #[test]
    fn a_stale_form_names_its_round_and_the_current_form_in_both_languages() {
        let sv = stale_form_text(Lang::Sv, 2, 3, Some("måndag 7 december 12:00"), true);
        assert!(sv.contains("runda 2") && sv.contains("runda 3"), "{sv}");
        assert!(sv.contains("skickades måndag 7 december") && sv.contains("gäller inte"));
        let en = stale_form_text(Lang::En, 2, 3, Some("Monday 7 December 12:00"), false);
        assert!(en.contains("for round 2, but this is round 3"), "{en}");
        assert!(en.contains("will be mailed Monday") && en.contains("do not count"));
    }
}
