//! The auction of the week's lot (R-FREE-2..8, docs/rules.md Rulings 40). Each form's
//! first bid is valued: resources with crystals ×2, then ×2 for the voting winner who
//! chose double bids, then less the conflict penalty after armed conflict the weekend
//! before. The single highest value at or over the minimum wins; on a tie the earliest
//! form (`Orders::forms` is earliest first). The winner pays its offer and gets the
//! lot; every other bidder pays nothing. A bid the stock no longer covers, or a lot of
//! troops over the bidder's population cap (Rulings 8), takes no part.

use std::collections::BTreeMap;

use super::{pay, playing, summed, tally, tell, MarketEvent, Tally, Why};
use crate::game::orders::{Amount, Order};
use crate::game::state::{FreeMerchantOffer, GameState, Lot, RuleSettings, RulerBenefit};
use crate::game::weekend::economy::Cap;
use crate::game::weekend::{Reads, Weekend};
use crate::game::{Lang, Resources};

/// A valid bid: the realm, its value and its offer.
struct Bid {
    realm: String,
    value: u64,
    offer: Resources,
}

/// R-FREE-3, Rulings 40: what the free merchants think `offer` is worth from `realm`
/// in the state `gs` (as the claims left it: a ruler who chooses double bids on the
/// form has them for that form's bid).
pub fn bid_value(gs: &GameState, settings: &RuleSettings, realm: &str, offer: &Resources) -> u64 {
    let fought = gs.realm(realm).is_some_and(|r| r.fought_last_weekend);
    bid_worth(
        offer,
        double_bids(gs, realm),
        fought,
        settings.conflict_penalty,
    )
}

/// R-FREE-3, Rulings 40: `offer` with crystals counted double, doubled again for the
/// ruler's double bids, then `penalty` less after a battle last weekend. The receipt
/// values a bid with this too.
pub fn bid_worth(offer: &Resources, doubled: bool, fought: bool, penalty: u32) -> u64 {
    let base: u64 = offer
        .iter()
        .map(|(r, n)| u64::from(n) * if r.is_crystal() { 2 } else { 1 })
        .sum();
    let doubled = if doubled {
        base.saturating_mul(2)
    } else {
        base
    };
    if fought {
        doubled.saturating_sub(u64::from(penalty))
    } else {
        doubled
    }
}

/// How `bid_worth` summed an offer, in words after a colon, for the player's receipt
/// and report: `: 12 guld − 5 efter strid`, `: (2 food + 3 fire × 2) × 2 for double
/// bids`; empty for an offer of nothing (or an event stored before the parts were).
pub fn bid_sum(offer: &Resources, doubled: bool, penalty: u32, lang: Lang) -> String {
    let pick = |sv: &str, en: &str| match lang {
        Lang::Sv => sv.to_string(),
        Lang::En => en.to_string(),
    };
    let parts: Vec<String> = offer
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| {
            let t = r.count_text(n, lang);
            if r.is_crystal() {
                format!("{t} × 2")
            } else {
                t
            }
        })
        .collect();
    if parts.is_empty() {
        return String::new();
    }
    let mut sum = parts.join(" + ");
    if doubled {
        let why = pick("för dubbla bud", "for double bids");
        sum = if parts.len() > 1 {
            format!("({sum}) × 2 {why}")
        } else {
            format!("{sum} × 2 {why}")
        };
    }
    if penalty > 0 {
        let why = pick("efter strid", "after battle");
        sum = format!("{sum} − {penalty} {why}");
    }
    format!(": {sum}")
}

/// The voting winner's double bids (R-VOTE-5), from the round after the vote up to,
/// not including, the next voting weekend (Rulings 49).
pub fn double_bids(gs: &GameState, realm: &str) -> bool {
    gs.ruler.as_ref().is_some_and(|r| {
        r.realm == realm
            && r.benefit == Some(RulerBenefit::DoubleBids)
            && r.from_round <= gs.round
            && gs.round < r.until_round
    })
}

pub(super) fn run(w: &mut Weekend) {
    let offer = w
        .state
        .free_merchant
        .clone()
        .filter(|o| o.round == w.round());
    let bids = valid_bids(w, offer.as_ref());
    // Earliest form first: a later bid must be strictly better to take the lead.
    let mut best: Option<Bid> = None;
    let mut losers: Vec<Bid> = Vec::new();
    for bid in bids {
        match best.take() {
            Some(b) if b.value >= bid.value => {
                losers.push(bid);
                best = Some(b);
            }
            Some(b) => {
                losers.push(b);
                best = Some(bid);
            }
            None => best = Some(bid),
        }
    }
    if let (Some(b), Some(o)) = (best, offer) {
        sell(w, b, o);
    }
    for Bid { realm, value, .. } in losers {
        tell(w, MarketEvent::Lost { realm, value });
    }
    // The conflict penalty looks one weekend back: step 4 marks this weekend's.
    for r in &mut w.state.realms {
        r.fought_last_weekend = false;
    }
}

/// Each form's first bid that may take part, earliest form first; the others are
/// told why not.
fn valid_bids(w: &mut Weekend, offer: Option<&FreeMerchantOffer>) -> Vec<Bid> {
    let counts = match offer.map(|o| &o.lot) {
        Some(Lot::Units { .. }) => tally(&w.state),
        _ => BTreeMap::new(),
    };
    let mut out = Vec::new();
    let reading = w.reading(Reads::Bids);
    for lines in reading.forms() {
        let form = lines.form;
        let Some(amounts) = lines.orders().find_map(|o| match o {
            Order::Bid { offer } => Some(offer.as_slice()),
            _ => None,
        }) else {
            continue;
        };
        if playing(w, &form.realm).is_none() {
            continue;
        }
        let realm = form.realm.clone();
        match valid(w, offer, &counts, &realm, amounts) {
            Ok((value, offer)) => out.push(Bid {
                realm,
                value,
                offer,
            }),
            Err((rule, why)) => {
                let rule = rule.to_string();
                tell(w, MarketEvent::BidRefused { realm, rule, why });
            }
        }
    }
    out
}

type Res<T> = Result<T, (&'static str, Why)>;

/// The value and the summed offer of a bid that may take part.
fn valid(
    w: &Weekend,
    offer: Option<&FreeMerchantOffer>,
    counts: &BTreeMap<String, Tally>,
    realm: &str,
    amounts: &[Amount],
) -> Res<(u64, Resources)> {
    let o = offer.ok_or(("R-FREE-1", Why::NoOffer))?;
    let sum = summed(amounts).map_err(|why| ("R-FREE-2", why))?;
    // After the claims, so a double-bids benefit chosen on the form counts (D-22); nothing
    // before the auction changes the conflict mark.
    let value = bid_value(&w.state, w.settings, realm, &sum);
    if value < u64::from(o.min_bid) {
        // The parts of the value as `bid_value` summed them, for the report.
        let fought = w.state.realm(realm).is_some_and(|r| r.fought_last_weekend);
        let why = Why::BelowMinimum {
            value,
            min: o.min_bid,
            offer: sum,
            doubled: double_bids(&w.state, realm),
            penalty: if fought {
                w.settings.conflict_penalty
            } else {
                0
            },
        };
        return Err(("R-FREE-4", why));
    }
    let stock = w.state.realm(realm).map_or(Resources::ZERO, |r| r.stock);
    if stock.checked_sub(&sum).is_none() {
        let mut short = Resources::ZERO;
        for (r, n) in sum.iter() {
            short.set(r, n.saturating_sub(stock.get(r)));
        }
        return Err(("R-FREE-2", Why::Short { cost: sum, short }));
    }
    if let Lot::Units { count, kind } = &o.lot {
        let evil = w.state.realm(realm).is_some_and(|r| r.is_evil);
        if kind.is_demon() && !evil {
            return Err(("R-EVIL-9", Why::EvilOnly));
        }
        let t = counts.get(realm).copied().unwrap_or_default();
        room_for(&w.state, realm, t, *count)?;
    }
    Ok((value, sum))
}

/// Rulings 8: troops won count against the population cap, those still waiting for
/// placement included.
fn room_for(gs: &GameState, realm: &str, t: Tally, add: u32) -> Res<()> {
    let waiting: u32 = gs.realm(realm).map_or(0, |r| {
        r.unplaced_troops
            .iter()
            .fold(0u32, |acc, (_, n)| acc.saturating_add(*n))
    });
    let have = t.counted.saturating_add(waiting);
    let limit = t.population / 10;
    if have.saturating_add(add) > limit {
        let why = Why::Over {
            cap: Cap::Population,
            have,
            add,
            limit,
        };
        return Err(("R-POP-2", why));
    }
    Ok(())
}

/// The winner pays its offer and gets the lot.
fn sell(w: &mut Weekend, b: Bid, o: FreeMerchantOffer) {
    let Some(idx) = playing(w, &b.realm) else {
        return;
    };
    if let Err(why) = pay(w, idx, b.offer) {
        let realm = b.realm;
        let rule = "R-FREE-2".to_string();
        tell(w, MarketEvent::BidRefused { realm, rule, why });
        return;
    }
    let realm = &mut w.state.realms[idx];
    match &o.lot {
        Lot::Resource { resource, amount } => {
            let n = realm.stock.get(*resource).saturating_add(*amount);
            realm.stock.set(*resource, n);
        }
        Lot::Units { kind, count } => {
            match realm.unplaced_troops.iter_mut().find(|(k, _)| k == kind) {
                Some((_, n)) => *n = n.saturating_add(*count),
                None => realm.unplaced_troops.push((*kind, *count)),
            }
        }
        // Other goods are handed over by the GM.
        Lot::Other(_) => {}
    }
    tell(
        w,
        MarketEvent::Won {
            realm: b.realm,
            lot: o.lot,
            value: b.value,
            paid: b.offer,
        },
    );
}
