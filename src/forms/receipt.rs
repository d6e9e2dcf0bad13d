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

/// What a receipt tells beside the form's own lines (nothing, for `check-form`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Notes<'a> {
    /// The orders of the earlier form this one replaced that this one does not give,
    /// as the player wrote them ([`dropped_orders`]).
    pub dropped: &'a [String],
    /// The form came before its window opens and is kept: the window in words
    /// (`lördag 28 november 00:00 – söndag 29 november 15:00 (Europe/Stockholm)`).
    pub early_window: Option<&'a str>,
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
    receipt_with(checked, lang, deadline_local, effect, Notes::default())
}

/// The accepted orders of `earlier` (the form `now` replaces) that `now` does not give
/// again, each as its line was written, in form order. An earlier line is given again
/// by a line of `now` (accepted or not: its own status is on the receipt) with the same
/// words (case, accents and spacing aside), or else by one that reads as the same
/// order; each line of `now` answers one earlier line. Linear in the forms' lengths.
pub fn dropped_orders(earlier: &Checked, now: &Checked) -> Vec<String> {
    use crate::game::text::fold;
    use std::collections::HashMap;
    let order_key =
        |l: &super::CheckedLine| l.order.as_ref().and_then(|o| serde_json::to_string(o).ok());
    let mut by_text: HashMap<String, Vec<usize>> = HashMap::new();
    let mut by_order: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, l) in now.lines.iter().enumerate().rev() {
        by_text.entry(fold(&l.text)).or_default().push(i);
        if let Some(k) = order_key(l) {
            by_order.entry(k).or_default().push(i);
        }
    }
    let mut used = vec![false; now.lines.len()];
    let take = |list: Option<&mut Vec<usize>>, used: &mut Vec<bool>| {
        let list = list?;
        while let Some(i) = list.pop() {
            if !used[i] {
                used[i] = true;
                return Some(i);
            }
        }
        None
    };
    let earlier: Vec<&super::CheckedLine> = earlier.lines.iter().filter(|l| l.accepted()).collect();
    // Same words first, so an order read differently now (an upgrade's crystals chosen
    // from another stock) still finds its line.
    let mut given: Vec<bool> = earlier
        .iter()
        .map(|l| take(by_text.get_mut(&fold(&l.text)), &mut used).is_some())
        .collect();
    for (l, g) in earlier.iter().zip(given.iter_mut()).filter(|(_, g)| !**g) {
        *g = order_key(l).is_some_and(|k| take(by_order.get_mut(&k), &mut used).is_some());
    }
    earlier
        .iter()
        .zip(given)
        .filter(|(_, g)| !g)
        .map(|(l, _)| l.text.clone())
        .collect()
}

/// The receipt text with what else the form did ([`Notes`]).
pub fn receipt_with(
    checked: &Checked,
    lang: Lang,
    deadline_local: &str,
    effect: Effect<'_>,
    notes: Notes<'_>,
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
    if !notes.dropped.is_empty() {
        out.push(String::new());
        para(
            if sv {
                "Dessa order i ditt tidigare formulär finns inte med i detta och gäller inte \
                 längre:"
                    .to_string()
            } else {
                "These orders of your earlier form are not in this one and no longer count:"
                    .to_string()
            },
            0,
            &mut out,
        );
        for d in notes.dropped {
            para(format!("  {d}"), 4, &mut out);
        }
        para(
            if sv {
                "Vill du lägga till en order: skicka hela formuläret igen med den.".to_string()
            } else {
                "To add an order, send the whole form again with it.".to_string()
            },
            0,
            &mut out,
        );
    }
    out.push(String::new());
    let closing = match (notes.early_window, effect, sv) {
        (Some(w), Effect::Stands, true) => Some(format!(
            "Formuläret kom innan formulärfönstret öppnar och sparas: det gäller från \
             fönstrets öppning, om inte ett senare formulär ersätter det, och kontrolleras \
             då igen mot läget som det är då (du får ett nytt kvitto). Formulär tas emot {w}."
        )),
        (Some(w), Effect::Stands, false) => Some(format!(
            "This form came before the form window opens and is kept: it counts from the \
             window's opening unless a later form replaces it, and is checked again then \
             against the state as it is then (you get a new receipt). Forms are taken {w}."
        )),
        (Some(w), Effect::EarlierStands { .. }, true) => Some(format!(
            "Formulär tas emot {w}; ett nytt formulär ersätter det som gäller."
        )),
        (Some(w), Effect::EarlierStands { .. }, false) => Some(format!(
            "Forms are taken {w}; a new form replaces the one that stands."
        )),
        (None, _, _) => None,
    };
    if let Some(text) = closing {
        para(text, 0, &mut out);
        let mut s = out.join("\n");
        s.push('\n');
        return s;
    }
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
