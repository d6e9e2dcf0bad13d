//! The magic step's events as report lines, per language. The caster reads its roll
//! and what came of it; a victim reads what its realm suffered, never who cast it.

use super::military::group_text;
use crate::game::orders::Order;
use crate::game::weekend::magic::{Effect, MagicEvent, Why};
use crate::game::{GameState, Lang, Spell};

/// The lines `realm` reads about `ev`.
pub fn lines(ev: &MagicEvent, _gs: &GameState, _realm: &str, lang: Lang) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let pick = |s: String, e: String| if sv { s } else { e };
    let line = match ev {
        MagicEvent::Cast {
            spell,
            target,
            conjurer,
            d10,
            success,
            cost,
            effect,
            ..
        } => cast_line(
            *spell,
            target,
            (*conjurer, *d10, *success),
            cost,
            effect.as_ref(),
            lang,
        ),
        MagicEvent::Refused { spell, why, .. } => pick(
            format!(
                "Formeln {} kastades inte: {} ({}).",
                spell.name(lang),
                why_text(why, lang),
                why.rule()
            ),
            format!(
                "The spell {} was not cast: {} ({}).",
                spell.name(lang),
                why_text(why, lang),
                why.rule()
            ),
        ),
        MagicEvent::Suffered { spell, effect, .. } => pick(
            format!(
                "Formeln {} drabbade ditt land: {}",
                spell.name(lang),
                effect_text(*spell, effect, lang)
            ),
            format!(
                "The spell {} struck your realm: {}",
                spell.name(lang),
                effect_text(*spell, effect, lang)
            ),
        ),
        MagicEvent::AttackStopped {
            group,
            square,
            spell,
            ..
        } => pick(
            format!(
                "{} kunde inte anfalla {square}: {} hindrar anfall där i helgen.",
                group_text(*group, lang),
                spell.name(lang)
            ),
            format!(
                "{} could not attack {square}: {} stops attacks there this weekend.",
                group_text(*group, lang),
                spell.name(lang)
            ),
        ),
    };
    vec![line]
}

/// The caster's line: the order, the roll, the price and what came of it.
fn cast_line(
    spell: Spell,
    target: &crate::game::orders::Target,
    (conjurer, d10, success): (u32, u32, bool),
    cost: &crate::game::Resources,
    effect: Option<&Effect>,
    lang: Lang,
) -> String {
    let sv = lang == Lang::Sv;
    let pick = |s: String, e: String| if sv { s } else { e };
    let order = Order::Cast {
        spell,
        target: target.clone(),
    }
    .render(lang);
    let sum = conjurer.saturating_add(d10);
    let verdict = match (sv, success, d10 == 1) {
        (true, true, _) => "lyckades",
        (true, false, true) => "misslyckades (en etta misslyckas alltid)",
        (true, false, false) => "misslyckades",
        (false, true, _) => "it worked",
        (false, false, true) => "it failed (a natural 1 always fails)",
        (false, false, false) => "it failed",
    };
    let head = pick(
        format!("{order} — slag {d10} + Besvärjare {conjurer} = {sum}: {verdict}"),
        format!("{order} — roll {d10} + Conjurer {conjurer} = {sum}: {verdict}"),
    );
    let paid = pick(
        format!("kostade {}", cost.describe(lang)),
        format!("cost {}", cost.describe(lang)),
    );
    match effect {
        Some(e) => format!("{head} ({paid}). {}", effect_text(spell, e, lang)),
        None => format!("{head} ({paid})."),
    }
}

fn why_text(why: &Why, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    match why {
        Why::AlreadyCast if sv => "den är redan kastad denna runda".into(),
        Why::AlreadyCast => "it was already cast this round".into(),
        Why::RevealUsed if sv => "Avslöja är redan kastad per brev denna runda".into(),
        Why::RevealUsed => "Reveal was already cast by mail this round".into(),
        Why::Short { cost, short } if sv => format!(
            "priset är {}, det saknas {}",
            cost.describe(lang),
            short.describe(lang)
        ),
        Why::Short { cost, short } => format!(
            "the price is {}, short by {}",
            cost.describe(lang),
            short.describe(lang)
        ),
        Why::NoTarget if sv => "målet finns inte".into(),
        Why::NoTarget => "the target is not there".into(),
        Why::NoPortal { realm } if sv => format!("ingen portal är öppen i {realm}"),
        Why::NoPortal { realm } => format!("no portal is open in {realm}"),
        Why::NotInEvilDimension if sv => "den kastas bara från ondskans dimension".into(),
        Why::NotInEvilDimension => "it is cast from the Evil's dimension only".into(),
        Why::CitySquare if sv => "rutan är en stadsruta".into(),
        Why::CitySquare => "the square is a city square".into(),
        Why::PortalCap { limit } if sv => format!("högst {limit} portaler får vara öppna"),
        Why::PortalCap { limit } => format!("at most {limit} portals may be open"),
        Why::AtHome if sv => "en grupp skyddas bara utanför ditt land".into(),
        Why::AtHome => "a group is protected only outside your land".into(),
    }
}

/// What a spell did, as a sentence.
pub fn effect_text(spell: Spell, e: &Effect, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    let pick = |s: String, e: String| if sv { s } else { e };
    match e {
        Effect::GroupBlessed {
            owner,
            group,
            amount,
        } => blessed(spell, owner, &group_text(*group, lang), *amount, lang),
        Effect::Wall { square, city } => pick(
            format!("{city} ({square}) har en mur till i helgens strider."),
            format!("{city} ({square}) has one more wall in this weekend's battles."),
        ),
        Effect::Killed {
            owner,
            square,
            piece,
            drowned,
            afloat,
        } => {
            let lost = piece.count_text(1, lang);
            let mut s = pick(
                format!("{owner} förlorade {lost} på {square}."),
                format!("{owner} lost {lost} on {square}."),
            );
            if *drowned > 0 && *afloat {
                s.push_str(&pick(
                    format!(
                        " Skeppen som är kvar rymmer inte alla ombord; {drowned} arméenheter drunknade."
                    ),
                    format!(
                        " The ships left cannot carry everyone aboard; {drowned} army units drowned."
                    ),
                ));
            } else if *drowned > 0 {
                s.push_str(&pick(
                    format!(" Flottan sjönk; {drowned} arméenheter ombord drunknade."),
                    format!(" The fleet sank; {drowned} army units aboard drowned."),
                ));
            }
            s
        }
        Effect::Teleported { army, to, enemy } => match enemy {
            None => pick(
                format!("Armé {army} står nu på {to}."),
                format!("Army {army} now stands on {to}."),
            ),
            Some(x) => pick(
                format!("Armé {army} står nu på {to} och möter {x}; striden utkämpas i steg 4."),
                format!(
                    "Army {army} now stands on {to} and meets {x}; the battle is fought in step 4."
                ),
            ),
        },
        Effect::Armageddon { units, ships } => pick(
            format!("{units} arméenheter och {ships} skepp dog."),
            format!("{units} army units and {ships} ships died."),
        ),
        Effect::Protected { realm, group } => {
            let who = match group {
                Some(g) => format!("{} ({realm})", group_text(*g, lang)),
                None => realm.clone(),
            };
            pick(
                format!("{who} skyddas i helgen mot alla andras formler."),
                format!("{who} is protected this weekend from every other realm's spells."),
            )
        }
        Effect::Portal { square } => pick(
            format!("En portal är öppen på {square}."),
            format!("A portal is open on {square}."),
        ),
        _ => realm_text(spell, e, lang),
    }
}

/// What a spell on a realm, its stock or its production did.
fn realm_text(spell: Spell, e: &Effect, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    let pick = |s: String, e: String| if sv { s } else { e };
    match e {
        Effect::Banned { realm, resource } => pick(
            format!("{realm} producerar ingen {} i helgen.", resource.name(lang)),
            format!("{realm} produces no {} this weekend.", resource.name(lang)),
        ),
        Effect::Boosted { resource, amount } => pick(
            format!(
                "+{} i produktionen i helgen, att använda från nästa runda.",
                resource.count_text(*amount, lang)
            ),
            format!(
                "+{} in this weekend's production, to use from next round.",
                resource.count_text(*amount, lang)
            ),
        ),
        Effect::NoAttacks { realm, naval } => match (sv, naval) {
            (true, false) => format!("Inga arméer kan anfalla i {realm} i helgen."),
            (true, true) => format!("Inga skepp kan anfalla i {realm} i helgen."),
            (false, false) => format!("No army can attack in {realm} this weekend."),
            (false, true) => format!("No ship can attack in {realm} this weekend."),
        },
        Effect::Plague { square, city, lost } => pick(
            format!("{city} ({square}) förlorade {lost} i befolkning för alltid."),
            format!("{city} ({square}) lost {lost} population for good."),
        ),
        Effect::Ward { realm } => ward(spell, realm, lang),
        Effect::Revealed { found } => match found {
            Some((s, by)) => pick(
                format!(
                    "Den senaste formeln på ditt land var {}, kastad av {by}.",
                    s.name(lang)
                ),
                format!(
                    "The latest spell on your realm was {}, cast by {by}.",
                    s.name(lang)
                ),
            ),
            None => pick(
                "Ingen formel på ditt land finns att avslöja.".into(),
                "There is no spell on your realm to reveal.".into(),
            ),
        },
        Effect::Stock { realm, lost } => pick(
            format!("{realm} förlorade {} ur förrådet.", lost.describe(lang)),
            format!("{realm} lost {} from its stock.", lost.describe(lang)),
        ),
        Effect::Blocked { .. } => pick(
            "Antimagi skyddade målet; formeln verkade inte.".into(),
            "Antimagic protected the target; the spell had no effect.".into(),
        ),
        _ => pick(
            "Formeln fann inget att verka på.".into(),
            "The spell found nothing to act on.".into(),
        ),
    }
}

fn blessed(spell: Spell, owner: &str, group: &str, n: u32, lang: Lang) -> String {
    let sv = lang == Lang::Sv;
    match (spell, sv) {
        (Spell::Virvelvind, true) => format!("{group} ({owner}) får +1 i förflyttning i helgen."),
        (Spell::Virvelvind, false) => format!("{group} ({owner}) gets +1 movement this weekend."),
        (Spell::Vattenvag, true) => format!("{group} ({owner}) får gå över vatten i helgen."),
        (Spell::Vattenvag, false) => format!("{group} ({owner}) may cross water this weekend."),
        (Spell::Anfall, true) => format!("{group} ({owner}) får +{n} i anfall i helgens strider."),
        (Spell::Anfall, false) => {
            format!("{group} ({owner}) gets +{n} attack in this weekend's battles.")
        }
        (_, true) => format!("{group} ({owner}) får +{n} i försvar i helgens strider."),
        (_, false) => format!("{group} ({owner}) gets +{n} defence in this weekend's battles."),
    }
}

fn ward(spell: Spell, realm: &str, lang: Lang) -> String {
    match (spell, lang) {
        (Spell::Skold, Lang::Sv) => format!("{realm} är skyddat mot spioner till nästa helg."),
        (Spell::Skold, Lang::En) => {
            format!("{realm} is protected against spies until next weekend.")
        }
        (_, Lang::Sv) => format!("{realm} kan inte skicka sändebud till nästa helg."),
        (_, Lang::En) => format!("{realm} cannot send envoys until next weekend."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::orders::{GroupSel, Piece, Target};
    use crate::game::{Resource, Resources, Square, UnitKind};

    fn demo() -> GameState {
        crate::game::load_scenario(include_str!("../../../scenarios/demo.yaml")).expect("demo")
    }

    fn sq(s: &str) -> Square {
        Square::parse(s).expect("square")
    }

    #[test]
    fn every_magic_event_reads_in_both_languages_and_the_caster_sees_the_roll() {
        let gs = demo();
        let killed = Effect::Killed {
            owner: "Genogien".into(),
            square: sq("D3"),
            piece: Piece::Unit(UnitKind::LattInfanteri),
            drowned: 2,
            afloat: false,
        };
        let events = [
            MagicEvent::Cast {
                realm: "Fugandri".into(),
                spell: Spell::Eldklot,
                target: Target::Army(GroupSel::At(sq("D3"))),
                conjurer: 4,
                d10: 7,
                success: true,
                cost: Spell::Eldklot.cost(),
                effect: Some(killed.clone()),
            },
            MagicEvent::Refused {
                realm: "Fugandri".into(),
                spell: Spell::Svalt,
                why: Why::Short {
                    cost: Spell::Svalt.cost(),
                    short: Resources::from_pairs(&[(Resource::Vatten, 1)]),
                },
            },
            MagicEvent::Suffered {
                realm: "Genogien".into(),
                spell: Spell::Eldklot,
                effect: killed,
            },
        ];
        for ev in &events {
            let sv = lines(ev, &gs, "Fugandri", Lang::Sv);
            let en = lines(ev, &gs, "Fugandri", Lang::En);
            assert_eq!((sv.len(), en.len()), (1, 1));
            assert_ne!(sv, en, "{sv:?}");
        }
        let caster = lines(&events[0], &gs, "Fugandri", Lang::En).join("");
        assert!(
            caster.contains("roll 7 + Conjurer 4 = 11: it worked"),
            "{caster}"
        );
        let victim = lines(&events[2], &gs, "Genogien", Lang::Sv).join("");
        assert!(
            victim.contains("Eldklot") && !victim.contains("Fugandri"),
            "{victim}"
        );
        assert!(victim.contains("drunknade"), "{victim}");
    }

    #[test]
    fn cargo_drowned_from_a_fleet_still_afloat_is_not_told_as_a_sinking() {
        let gs = demo();
        let suffered = |afloat: bool| MagicEvent::Suffered {
            realm: "Genogien".into(),
            spell: Spell::Virvelstrom,
            effect: Effect::Killed {
                owner: "Genogien".into(),
                square: sq("E2"),
                piece: Piece::Ship(crate::game::ShipKind::Transportskepp),
                drowned: 2,
                afloat,
            },
        };
        let read =
            |afloat: bool, lang: Lang| lines(&suffered(afloat), &gs, "Genogien", lang).join("");
        let en = read(true, Lang::En);
        assert!(
            en.contains("The ships left cannot carry everyone aboard; 2 army units drowned.")
                && !en.contains("sank"),
            "{en}"
        );
        let sv = read(true, Lang::Sv);
        assert!(
            sv.contains("rymmer inte alla ombord; 2 arméenheter drunknade")
                && !sv.contains("sjönk"),
            "{sv}"
        );
        assert!(read(false, Lang::En).contains("The fleet sank; 2 army units aboard drowned."));
    }
}
