//! The military steps' events as report lines, per language: battles round by round
//! (as `render::battle` tells them), refused attacks with their rule, city outcomes
//! with their VP, lost seats, drowned cargo.

use crate::game::orders::Group;
use crate::game::text::capitalise;
use crate::game::weekend::military::{
    AttackRefusal, BattleReport, InvitationRefusal, MilitaryEvent, MoveRefusal, MoveStop, Seat,
};
use crate::game::{GameState, Lang, Resources};

/// The lines `realm` reads about `ev`.
pub fn lines(ev: &MilitaryEvent, _gs: &GameState, realm: &str, lang: Lang) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let t = |s: &str, e: &str| if sv { s.to_string() } else { e.to_string() };
    match ev {
        MilitaryEvent::Moved {
            group,
            from,
            to,
            stop,
            ..
        } => vec![moved(*group, *from, *to, stop.as_ref(), lang)],
        MilitaryEvent::MoveRefused { group, reason, .. } => vec![format!(
            "{}: {} ({})",
            group_text(*group, lang),
            move_refusal(*reason, lang),
            reason.rule()
        )],
        MilitaryEvent::Boarded { army, fleet, .. } => vec![if sv {
            format!("Armé {army} gick ombord på flotta {fleet}.")
        } else {
            format!("Army {army} went aboard fleet {fleet}.")
        }],
        MilitaryEvent::Merged { group, other, .. } => {
            let word = if group.is_army() {
                t("armé", "army")
            } else {
                t("flotta", "fleet")
            };
            vec![if sv {
                format!(
                    "{word} {other} gick upp i {}.",
                    group_text(*group, lang).to_lowercase()
                )
            } else {
                format!(
                    "{word} {other} joined {}.",
                    group_text(*group, lang).to_lowercase()
                )
            }]
            .into_iter()
            .map(|l| capitalise(&l))
            .collect()
        }
        MilitaryEvent::Split { group, new, .. } => vec![if sv {
            format!(
                "{} delades; de utbrutna enheterna är nu nummer {new}.",
                group_text(*group, lang)
            )
        } else {
            format!(
                "{} split; the units that left are now number {new}.",
                group_text(*group, lang)
            )
        }],
        MilitaryEvent::Arrived {
            realm: owner,
            group,
            square,
            inviter,
        } => vec![arrived(
            owner,
            realm,
            *group,
            *square,
            inviter.as_deref(),
            lang,
        )],
        MilitaryEvent::InvitationRefused { group, reason, .. } => vec![format!(
            "{}: {} ({})",
            group_text(*group, lang),
            invitation_refusal(*reason, lang),
            reason.rule()
        )],
        MilitaryEvent::FleetTaken {
            from,
            fleet,
            to,
            new_id,
            square,
        } => vec![if sv {
            format!("{from}s flotta {fleet} lämnade inte {square} och tillhör nu {to} som flotta {new_id} (R-CITY-8).")
        } else {
            format!("{from}'s fleet {fleet} did not leave {square} and now belongs to {to} as fleet {new_id} (R-CITY-8).")
        }],
        MilitaryEvent::Battle(b) => battle(b, realm, lang),
        MilitaryEvent::AttackRefused {
            group,
            square,
            reason,
            ..
        } => vec![format!(
            "{} {square}: {} ({})",
            t("Anfall", "Attack"),
            refusal(*group, reason, lang),
            reason.rule()
        )],
        MilitaryEvent::SecondAttackerJoined { group, square, .. } => vec![if sv {
            format!(
                "{} går in i {square} och förenas med den första anfallaren.",
                group_text(*group, lang)
            )
        } else {
            format!(
                "{} moves into {square} and joins the first attacker.",
                group_text(*group, lang)
            )
        }],
        MilitaryEvent::CargoLost {
            fleet,
            units,
            fleet_sunk,
            ..
        } => vec![cargo_lost(*fleet, *units, *fleet_sunk, lang)],
        MilitaryEvent::Drowned {
            army,
            square,
            units,
            ..
        } => vec![drowned(*army, *square, *units, lang)],
        MilitaryEvent::CityPlundered {
            square,
            city,
            attacker,
            production,
            taken,
            vp,
            ..
        } => {
            let mut goods = resources(production, lang);
            if let Some((r, n)) = taken {
                goods.push(r.count_text(*n, lang));
            }
            let goods = if goods.is_empty() {
                t("inget", "nothing")
            } else {
                goods.join(", ")
            };
            vec![if sv {
                format!(
                    "{attacker} plundrade {city} ({square}) och tog {goods}; {attacker} +{vp} VP."
                )
            } else {
                format!(
                    "{attacker} plundered {city} ({square}) and took {goods}; {attacker} +{vp} VP."
                )
            }]
        }
        MilitaryEvent::CityTakenOver {
            square,
            city,
            attacker,
            defender,
            capital,
            vp_won,
            vp_lost,
        } => {
            let mut s = if sv {
                format!("{attacker} tog över {city} ({square}) från {defender}; {attacker} +{vp_won} VP")
            } else {
                format!(
                    "{attacker} took {city} ({square}) from {defender}; {attacker} +{vp_won} VP"
                )
            };
            if *capital {
                s.push_str(&format!(", {defender} −{vp_lost} VP"));
            }
            s.push('.');
            vec![s]
        }
        MilitaryEvent::CityRazed {
            square,
            city,
            attacker,
            defender,
            vp_lost,
            ..
        } => vec![if sv {
            format!("{attacker} raserade {city} ({square}); {defender} −{vp_lost} VP.")
        } else {
            format!("{attacker} razed {city} ({square}); {defender} −{vp_lost} VP.")
        }],
        MilitaryEvent::SeatLost {
            seat,
            lost,
            stand_in,
            ..
        } => vec![seat_lost(*seat, *lost, *stand_in, lang)],
        MilitaryEvent::FleetMustLeave {
            fleet,
            square,
            by_round,
            ..
        } => vec![if sv {
            format!(
                "Flotta {fleet} i {square} måste lämna staden senast runda {by_round} (R-CITY-8)."
            )
        } else {
            format!("Fleet {fleet} in {square} must leave the city by round {by_round} (R-CITY-8).")
        }],
    }
}

/// `armé 2` / `army 2`, `flotta 1` / `fleet 1`.
pub fn group_text(g: Group, lang: Lang) -> String {
    match (g, lang) {
        (Group::Army(n), Lang::Sv) => format!("Armé {n}"),
        (Group::Army(n), Lang::En) => format!("Army {n}"),
        (Group::Fleet(n), Lang::Sv) => format!("Flotta {n}"),
        (Group::Fleet(n), Lang::En) => format!("Fleet {n}"),
    }
}

fn resources(r: &Resources, lang: Lang) -> Vec<String> {
    r.iter()
        .filter(|(_, n)| *n > 0)
        .map(|(res, n)| res.count_text(n, lang))
        .collect()
}

fn refusal(g: Group, reason: &AttackRefusal, lang: Lang) -> String {
    let who = group_text(g, lang);
    let sv = lang == Lang::Sv;
    match reason {
        AttackRefusal::NoSuchGroup if sv => format!("{who} finns inte längre"),
        AttackRefusal::NoSuchGroup => format!("{who} no longer exists"),
        AttackRefusal::BuiltThisRound if sv => {
            format!("{who} har bara enheter som byggdes denna runda; de får försvara men inte anfalla")
        }
        AttackRefusal::BuiltThisRound => {
            format!("{who} has only units built this round; they may defend but not attack")
        }
        AttackRefusal::TooFar if sv => format!("målet ligger varken i eller intill {who}s ruta"),
        AttackRefusal::TooFar => format!("the target is neither on nor next to {who}'s square"),
        AttackRefusal::JointAttack { with } if sv => format!(
            "din vän {with} anfaller samma mål; gemensamma anfall har inga regler, så spelledaren avgör dem"
        ),
        AttackRefusal::JointAttack { with } => format!(
            "your friend {with} attacks the same target; joint attacks have no rules, so the GM settles them"
        ),
        AttackRefusal::SecondStoodDown if sv => {
            format!("{who} anföll inte: den första anfallaren föll inte")
        }
        AttackRefusal::SecondStoodDown => {
            format!("{who} did not attack: the first attacker did not fall")
        }
        AttackRefusal::NoEnemy if sv => format!("{who} fann ingen fiende där"),
        AttackRefusal::NoEnemy => format!("{who} found no enemy there"),
        AttackRefusal::FleetCannotTakeCity if sv => {
            format!("{who} kan inte ta en stad med bara skepp; landsätt en armé")
        }
        AttackRefusal::FleetCannotTakeCity => {
            format!("{who} cannot take a city with ships alone; land an army")
        }
        AttackRefusal::MustLeave if sv => {
            format!("{who} måste lämna den erövrade staden och får inte anfalla en stad")
        }
        AttackRefusal::AlreadyFought if sv => {
            format!("{who} har redan anfallit denna helg; den som stridit går inte vidare")
        }
        AttackRefusal::AlreadyFought => {
            format!("{who} already attacked this weekend; a group that fought goes no further")
        }
        AttackRefusal::MustLeave => {
            format!("{who} must leave the conquered city and may not attack a city")
        }
    }
}

fn cargo_lost(fleet: u32, units: u64, sunk: bool, lang: Lang) -> String {
    let n = crate::game::lang::count(
        units,
        if lang == Lang::Sv {
            "arméenhet"
        } else {
            "army unit"
        },
        if lang == Lang::Sv {
            "arméenheter"
        } else {
            "army units"
        },
    );
    match (lang, sunk) {
        (Lang::Sv, true) => format!("Flotta {fleet} sänktes och {n} ombord drunknade."),
        (Lang::Sv, false) => {
            format!("Flotta {fleet} har för få transportskepp kvar: {n} drunknade.")
        }
        (Lang::En, true) => format!("Fleet {fleet} sank and {n} aboard drowned."),
        (Lang::En, false) => format!("Fleet {fleet} has too few transports left: {n} drowned."),
    }
}

/// R-UNIT-4: the army's last water elemental died at sea.
fn drowned(army: u32, square: crate::game::Square, units: u64, lang: Lang) -> String {
    let n = match lang {
        Lang::Sv => crate::game::lang::count(units, "enhet", "enheter"),
        Lang::En => crate::game::lang::count(units, "unit", "units"),
    };
    match lang {
        Lang::Sv => format!(
            "Armé {army} miste sitt sista vattenelementar till havs vid {square}: hela armén ({n}) drunknade."
        ),
        Lang::En => format!(
            "Army {army} lost its last water elemental at sea on {square}: the whole army ({n}) drowned."
        ),
    }
}

fn seat_lost(
    seat: Seat,
    lost: crate::game::Square,
    stand_in: Option<crate::game::Square>,
    lang: Lang,
) -> String {
    let (sv_seat, en_seat) = match seat {
        Seat::Capital => ("huvudstad", "capital"),
        Seat::Harbour => ("huvudhamn", "main harbour"),
    };
    match (lang, stand_in) {
        (Lang::Sv, Some(s)) => format!(
            "Du förlorade din {sv_seat} {lost}; {s} är {sv_seat} tills du väljer en ny på formuläret."
        ),
        (Lang::Sv, None) => format!("Du förlorade din {sv_seat} {lost} och har ingen stad som kan ersätta den."),
        (Lang::En, Some(s)) => format!(
            "You lost your {en_seat} {lost}; {s} stands in until you name a new one on your form."
        ),
        (Lang::En, None) => format!("You lost your {en_seat} {lost} and have no city to stand in."),
    }
}

fn battle(b: &BattleReport, realm: &str, lang: Lang) -> Vec<String> {
    let sv = lang == Lang::Sv;
    let place = b
        .city
        .as_ref()
        .map_or_else(|| b.square.to_string(), |c| format!("{c} ({})", b.square));
    let defender = b.defender.as_deref().unwrap_or("?");
    let kind = match (b.battle.naval, sv) {
        (true, true) => "Sjöslag",
        (true, false) => "Naval battle",
        (false, true) => "Slag",
        (false, false) => "Battle",
    };
    let you = if realm == b.attacker {
        if sv {
            " (du anföll)"
        } else {
            " (you attacked)"
        }
    } else if sv {
        " (du försvarade)"
    } else {
        " (you defended)"
    };
    let mut out = vec![if sv {
        format!(
            "{kind} vid {place}: {} med {} mot {defender}{you}.",
            b.attacker,
            group_text(b.attacker_group, lang).to_lowercase()
        )
    } else {
        format!(
            "{kind} at {place}: {} with {} against {defender}{you}.",
            b.attacker,
            group_text(b.attacker_group, lang).to_lowercase()
        )
    }];
    let side = |l: &crate::game::combat::Line| {
        let d = l.describe(lang);
        if d.is_empty() {
            (if sv { "inga enheter" } else { "no units" }).to_string()
        } else {
            d.join(", ")
        }
    };
    out.push(if sv {
        format!(
            "Anfallaren: {}. Försvararen: {}.",
            side(&b.battle.attacker),
            side(&b.battle.defender)
        )
    } else {
        format!(
            "Attacker: {}. Defender: {}.",
            side(&b.battle.attacker),
            side(&b.battle.defender)
        )
    });
    if b.battle.walls > 0 {
        out.push(if sv {
            format!("Murar: {}.", b.battle.walls)
        } else {
            format!("Walls: {}.", b.battle.walls)
        });
    }
    if b.battle.attacker_support > 0 {
        out.push(if sv {
            format!("Flottans stöd: +{}.", b.battle.attacker_support)
        } else {
            format!("Fleet support: +{}.", b.battle.attacker_support)
        });
    }
    out.extend(
        crate::render::battle::report(&b.result, lang)
            .lines()
            .map(str::to_string),
    );
    out
}

fn moved(
    g: Group,
    from: crate::game::Square,
    to: crate::game::Square,
    stop: Option<&MoveStop>,
    lang: Lang,
) -> String {
    let who = group_text(g, lang);
    let sv = lang == Lang::Sv;
    let mut s = if from == to {
        if sv {
            format!("{who} stannade på {to}")
        } else {
            format!("{who} stayed on {to}")
        }
    } else if sv {
        format!("{who} flyttade från {from} till {to}")
    } else {
        format!("{who} moved from {from} to {to}")
    };
    s.push_str(&match (stop, sv) {
        (None, _) => ".".to_string(),
        (Some(MoveStop::Enemy { realm }), true) => {
            format!(" och mötte trupper från {realm} där: strid (R-MOVE-6).")
        }
        (Some(MoveStop::Enemy { realm }), false) => {
            format!(" and met troops of {realm} there: battle (R-MOVE-6).")
        }
        (Some(MoveStop::EnemyCity { square }), true) => {
            format!(", framför fiendestaden {square}; den tas bara med en anfallsorder.")
        }
        (Some(MoveStop::EnemyCity { square }), false) => {
            format!(", before the enemy city {square}; only an attack order takes it.")
        }
        (Some(MoveStop::Blocked { square }), true) => {
            format!(", eftersom gruppen inte kan gå till {square}.")
        }
        (Some(MoveStop::Blocked { square }), false) => {
            format!(", as the group cannot go to {square}.")
        }
        (Some(MoveStop::OutOfPoints), true) => {
            ": förflyttningspoängen tog slut (R-MOVE-1).".to_string()
        }
        (Some(MoveStop::OutOfPoints), false) => {
            ": its movement points ran out (R-MOVE-1).".to_string()
        }
    });
    s
}

fn move_refusal(r: MoveRefusal, lang: Lang) -> &'static str {
    let sv = lang == Lang::Sv;
    match (r, sv) {
        (MoveRefusal::NoSuchGroup, true) => "gruppen finns inte längre",
        (MoveRefusal::NoSuchGroup, false) => "the group no longer exists",
        (MoveRefusal::Aboard, true) => "armén är ombord och följer sin flotta; landstig först",
        (MoveRefusal::Aboard, false) => "the army is aboard and goes with its fleet; land it first",
        (MoveRefusal::CameByInvitation, true) => "gruppen kom med inbjudan och får inte flytta",
        (MoveRefusal::CameByInvitation, false) => "the group came by invitation and may not move",
        (MoveRefusal::NotAtTheFleet, true) => "armén står varken hos flottan eller intill den",
        (MoveRefusal::NotAtTheFleet, false) => "the army is neither at the fleet nor next to it",
        (MoveRefusal::NoRoom, true) => "transportskeppen har inte plats",
        (MoveRefusal::NoRoom, false) => "the transports have no room",
        (MoveRefusal::NotAboard, true) => "armén är inte ombord",
        (MoveRefusal::NotAboard, false) => "the army is not aboard",
        (MoveRefusal::NoLandingThere, true) => {
            "landstigning kräver land på eller intill flottans ruta"
        }
        (MoveRefusal::NoLandingThere, false) => {
            "landing needs land on or next to the fleet's square"
        }
        (MoveRefusal::NotTogether, true) => "grupperna står inte på samma ruta",
        (MoveRefusal::NotTogether, false) => "the groups are not on the same square",
        (MoveRefusal::NotThoseUnits, true) => "gruppen har inte de enheterna",
        (MoveRefusal::NotThoseUnits, false) => "the group does not hold those units",
        (MoveRefusal::Engaged, true) => {
            "gruppen har mött fientliga trupper och strider i helgen; den flyttar inte mer"
        }
        (MoveRefusal::Engaged, false) => {
            "the group has met enemy troops and fights this weekend; it moves no more"
        }
    }
}

fn arrived(
    owner: &str,
    reader: &str,
    g: Group,
    square: crate::game::Square,
    inviter: Option<&str>,
    lang: Lang,
) -> String {
    let who = group_text(g, lang);
    let sv = lang == Lang::Sv;
    match (inviter, sv) {
        (None, true) => format!("{who} kom hem till {square} och får inte flytta denna runda."),
        (None, false) => format!("{who} came home to {square} and may not move this round."),
        (Some(_), true) if reader != owner => {
            format!(
                "{owner}s {} kom till {square} på din inbjudan.",
                who.to_lowercase()
            )
        }
        (Some(_), false) if reader != owner => {
            format!(
                "{owner}'s {} arrived on {square} at your invitation.",
                who.to_lowercase()
            )
        }
        (Some(from), true) => {
            format!(
                "{who} kom till {square} på inbjudan från {from} och får inte flytta denna runda."
            )
        }
        (Some(from), false) => {
            format!("{who} arrived on {square} at {from}'s invitation and may not move this round.")
        }
    }
}

fn invitation_refusal(r: InvitationRefusal, lang: Lang) -> &'static str {
    match (r, lang == Lang::Sv) {
        (InvitationRefusal::NoValidInvitation, true) => "ingen giltig inbjudan från det landet",
        (InvitationRefusal::NoValidInvitation, false) => "no valid invitation from that realm",
        (InvitationRefusal::NoSuchGroup, true) => "gruppen finns inte längre",
        (InvitationRefusal::NoSuchGroup, false) => "the group no longer exists",
        (InvitationRefusal::WrongGround, true) => "arméer bjuds till land och flottor till hav",
        (InvitationRefusal::WrongGround, false) => {
            "armies are invited onto land and fleets onto sea"
        }
        (InvitationRefusal::NoSeat, true) => {
            "det finns ingen huvudstad eller huvudhamn att komma hem till"
        }
        (InvitationRefusal::NoSeat, false) => "there is no capital or main harbour to come home to",
        (InvitationRefusal::CannotPay, true) => {
            "hembjudan kostar ett sändebud utöver de fria, och förrådet räcker inte"
        }
        (InvitationRefusal::CannotPay, false) => {
            "a home-invitation costs an envoy beyond the free ones, and the stock does not cover it"
        }
    }
}
