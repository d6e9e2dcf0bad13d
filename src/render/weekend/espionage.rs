//! The weekend's espionage events as report lines, per language. A false report reads
//! exactly as a true one: the realm cannot tell them apart.

use crate::game::weekend::espionage::{Detection, EspionageEvent};
use crate::game::{GameState, Lang};

/// The lines `realm` reads about `ev`.
pub fn lines(ev: &EspionageEvent, _gs: &GameState, _realm: &str, lang: Lang) -> Vec<String> {
    match ev {
        EspionageEvent::Passive { report, .. } => passive(report, lang).into_iter().collect(),
    }
}

fn passive(report: &Detection, lang: Lang) -> Option<String> {
    Some(match (report, lang) {
        (Detection::Nothing, _) => return None,
        (Detection::Troops, Lang::Sv) => {
            "Spionrapport: främmande trupper har kommit in i ert land, men var vet ingen.".into()
        }
        (Detection::Troops, Lang::En) => {
            "Spy report: foreign troops have come into your land, but no one knows where.".into()
        }
        (Detection::TroopsAt { squares }, Lang::Sv) => format!(
            "Spionrapport: främmande trupper har kommit in i ert land, på {}.",
            list(squares)
        ),
        (Detection::TroopsAt { squares }, Lang::En) => format!(
            "Spy report: foreign troops have come into your land, on {}.",
            list(squares)
        ),
    })
}

fn list(squares: &[crate::game::Square]) -> String {
    let v: Vec<String> = squares.iter().map(|s| s.to_string()).collect();
    v.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Square;

    fn gs() -> GameState {
        crate::game::load_scenario(include_str!("../../../scenarios/demo.yaml")).expect("demo")
    }

    fn ev(report: Detection, false_report: bool) -> EspionageEvent {
        EspionageEvent::Passive {
            realm: "Genogien".into(),
            informator: 3,
            roll: 1,
            report,
            false_report,
        }
    }

    #[test]
    fn rulings_45_a_false_report_reads_as_a_true_one_in_both_languages() {
        let at = || Detection::TroopsAt {
            squares: vec![Square::parse("C3").expect("square")],
        };
        for lang in [Lang::Sv, Lang::En] {
            let truth = lines(&ev(at(), false), &gs(), "Genogien", lang);
            let lie = lines(&ev(at(), true), &gs(), "Genogien", lang);
            assert_eq!(truth, lie);
            assert_eq!(truth.len(), 1);
            assert!(truth[0].contains("C3"), "{truth:?}");
        }
    }

    #[test]
    fn r_spy_9_each_detail_reads_in_swedish_and_english_and_nothing_reads_as_nothing() {
        let gs = gs();
        assert!(lines(&ev(Detection::Nothing, false), &gs, "Genogien", Lang::Sv).is_empty());
        let sv = lines(&ev(Detection::Troops, false), &gs, "Genogien", Lang::Sv);
        let en = lines(&ev(Detection::Troops, false), &gs, "Genogien", Lang::En);
        assert_eq!((sv.len(), en.len()), (1, 1));
        assert_ne!(sv, en);
        assert!(en[0].contains("no one knows where"), "{en:?}");
    }
}
