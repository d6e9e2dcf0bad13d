//! Engineers (R-FREE-7) and research (R-ENG-2, docs/rules.md Rulings 41). Every realm
//! whose form pays at least `settings.engineers_price` resources for engineers gets
//! them, once; crystals count once here. A realm with engineers may try one kind a
//! round: Forskare + d10 over 10 succeeds, a natural 1 fails (a setting); the
//! engineers stay. A researched kind can be bought from the next weekend at the
//! scenario's cost (`settings.research_costs`).

use super::{pay, playing, summed, tell, MarketEvent, Why};
use crate::game::orders::{Amount, Order};
use crate::game::state::Researched;
use crate::game::weekend::{Reads, Weekend};

pub(super) fn engineers(w: &mut Weekend) {
    let reading = w.reading(Reads::Engineers);
    for lines in reading.forms() {
        let form = lines.form;
        let Some(amounts) = lines.orders().find_map(|o| match o {
            Order::Engineers { pay } => Some(pay.as_slice()),
            _ => None,
        }) else {
            continue;
        };
        let Some(idx) = playing(w, &form.realm) else {
            continue;
        };
        let realm = form.realm.clone();
        let ev = match buy(w, idx, amounts) {
            Ok(paid) => MarketEvent::Engineers { realm, paid },
            Err((rule, why)) => MarketEvent::EngineersRefused {
                realm,
                rule: rule.to_string(),
                why,
            },
        };
        tell(w, ev);
    }
}

type Res<T> = Result<T, (&'static str, Why)>;

fn buy(w: &mut Weekend, idx: usize, amounts: &[Amount]) -> Res<crate::game::Resources> {
    if w.state.realms[idx].engineers {
        return Err(("R-FREE-7", Why::HasEngineers));
    }
    let sum = summed(amounts).map_err(|why| ("R-FREE-7", why))?;
    let paid: u64 = sum.iter().map(|(_, n)| u64::from(n)).sum();
    let price = w.settings.engineers_price;
    if paid < u64::from(price) {
        return Err(("R-FREE-7", Why::EngineersPrice { paid, price }));
    }
    pay(w, idx, sum).map_err(|why| ("R-FREE-8", why))?;
    w.state.realms[idx].engineers = true;
    Ok(sum)
}

pub(super) fn run(w: &mut Weekend) {
    let reading = w.reading(Reads::Research);
    for lines in reading.forms() {
        let form = lines.form;
        let Some(kind) = lines.orders().find_map(|o| match o {
            Order::Research { kind } => Some(*kind),
            _ => None,
        }) else {
            continue;
        };
        let Some(idx) = playing(w, &form.realm) else {
            continue;
        };
        research(w, idx, kind);
    }
}

/// One research attempt of realm `idx`.
fn research(w: &mut Weekend, idx: usize, kind: Researched) {
    let r = &w.state.realms[idx];
    let realm = r.name.clone();
    let refused = if !r.engineers {
        Some(("R-ENG-1", Why::NeedsEngineers))
    } else if r.researched.contains(&kind) {
        Some(("RULINGS 41", Why::AlreadyResearched))
    } else {
        None
    };
    if let Some((rule, why)) = refused {
        let rule = rule.to_string();
        tell(
            w,
            MarketEvent::ResearchRefused {
                realm,
                kind,
                rule,
                why,
            },
        );
        return;
    }
    let forskare = r.positions.forskare;
    let mut dice = w.dice(&format!("research/{realm}"));
    let roll = dice.d10();
    w.keep(dice);
    let success = research_succeeds(forskare, roll, w.settings.research_natural_one_fails);
    if success {
        w.state.realms[idx].researched.push(kind);
    }
    let costs = &w.settings.research_costs;
    let cost = match kind {
        Researched::BeridnaBagskyttar => costs.beridna_bagskyttar,
        Researched::Fregatt => costs.fregatt,
    }
    .filter(|_| success);
    let ev = MarketEvent::Research {
        realm,
        kind,
        forskare,
        roll,
        success,
        cost,
    };
    tell(w, ev);
}

/// R-ENG-2, Rulings 41: Forskare + d10 over 10; a natural 1 fails when the setting says.
pub fn research_succeeds(forskare: u32, d10: u32, natural_one_fails: bool) -> bool {
    !(natural_one_fails && d10 == 1) && forskare.saturating_add(d10) > 10
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_eng_2_forskare_plus_d10_must_pass_10() {
        assert!(research_succeeds(4, 7, true));
        assert!(!research_succeeds(4, 6, true));
        assert!(!research_succeeds(0, 10, true));
        assert!(research_succeeds(u32::MAX, 2, true));
    }

    #[test]
    fn rulings_41_a_natural_one_fails_unless_the_setting_says_otherwise() {
        assert!(!research_succeeds(10, 1, true));
        assert!(research_succeeds(10, 1, false));
        assert!(!research_succeeds(9, 1, false));
    }
}
