//! Missions (R-MISSION-1..4, docs/rules.md Rulings 48): scenario text, secret to the
//! realm. The GM judges one done during the week (`pbemd gm mission REALM done`,
//! +300 VP at once); the weekend's report tells the realm. After each vote every
//! realm draws a new mission from the scenario's list (none: the GM sets them).

use super::{playing, tell, PoliticsEvent};
use crate::game::event::Step;
use crate::game::weekend::Weekend;

/// The GM's verdicts since the last weekend, told to their realms and cleared.
pub(super) fn told_done(w: &mut Weekend) {
    let done = std::mem::take(&mut w.state.missions_done);
    for d in done {
        let ev = PoliticsEvent::MissionDone {
            realm: d.realm,
            mission: d.mission,
            vp: d.vp,
        };
        tell(w, Step::Politics, ev);
    }
}

/// R-MISSION-2: one new mission for every realm that plays, drawn from the list (the
/// same mission may go to two realms; each keeps it secret).
pub(super) fn deal(w: &mut Weekend) {
    let n = w.state.missions.len();
    if n == 0 {
        return;
    }
    let sides = u32::try_from(n).unwrap_or(u32::MAX);
    let mut dice = w.dice("missions");
    let mut evs = Vec::new();
    for i in playing(w) {
        let k = usize::try_from(dice.roll(sides))
            .unwrap_or(1)
            .saturating_sub(1);
        let Some(text) = w.state.missions.get(k) else {
            continue;
        };
        let r = &w.state.realms[i];
        let text = text.get(r.language).trim().to_string();
        evs.push((i, text));
    }
    w.keep(dice);
    for (i, text) in evs {
        let r = &mut w.state.realms[i];
        r.mission = text.clone();
        r.mission_done = false;
        let ev = PoliticsEvent::Mission {
            realm: r.name.clone(),
            text,
        };
        tell(w, Step::Politics, ev);
    }
}
