//! The receipt reply as plain text (≤ 78 characters a line): every line of
//! the form with its status and cost, the stock left after purchases, and
//! what each army group and fleet does if no other form arrives. Pure
//! formatting of a `Checked`; decides nothing.

use super::check::Checked;
use crate::game::lang::count;
use crate::game::Lang;
use crate::render::view::wrap_hanging;
use crate::render::WIDTH;

/// The receipt text in `lang`; `deadline_local` is the form deadline in
/// words (a later form before it replaces this one).
pub fn receipt_text(checked: &Checked, lang: Lang, deadline_local: &str) -> String {
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
        para(
            if sv {
                "Inga order hittades. Skriv dem mellan markeringsraderna.".to_string()
            } else {
                "No orders were found. Write them between the marker lines.".to_string()
            },
            0,
            &mut out,
        );
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
        if sv {
            format!("Ett nytt formulär före {deadline_local} ersätter detta.")
        } else {
            format!("A new form before {deadline_local} replaces this one.")
        },
        0,
        &mut out,
    );
    let mut s = out.join("\n");
    s.push('\n');
    s
}
