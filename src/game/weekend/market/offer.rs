//! Next week's lot (R-FREE-1, R-FREE-4): drawn at the weekend from the scenario's
//! `settings.free_merchant_goods`, `settings.free_merchant_lot` of it, for the next
//! round, and announced to every playing realm on Monday's form. A resource lot's
//! minimum bid is its size; a lot of troops has the minimum the scenario states, and
//! never less than its size (the merchants never sell at a loss). No goods or a lot
//! of 0 means no lot.

use super::MarketEvent;
use crate::game::event::{Step, What};
use crate::game::state::{FreeMerchantGood, FreeMerchantOffer, Lot};
use crate::game::weekend::Weekend;

pub(super) fn draw(w: &mut Weekend) {
    let settings = w.settings;
    let goods = &settings.free_merchant_goods;
    let size = settings.free_merchant_lot;
    if goods.is_empty() || size == 0 {
        w.state.free_merchant = None;
        return;
    }
    let sides = u32::try_from(goods.len()).unwrap_or(u32::MAX);
    let mut dice = w.dice("free_merchant/offer");
    let pick = dice.roll(sides) as usize - 1;
    w.keep(dice);
    let (lot, min_bid) = match goods.get(pick).unwrap_or(&goods[0]) {
        FreeMerchantGood::Resource(resource) => (
            Lot::Resource {
                resource: *resource,
                amount: size,
            },
            size,
        ),
        FreeMerchantGood::Units { kind, min_bid } => (
            Lot::Units {
                kind: *kind,
                count: size,
            },
            (*min_bid).max(size),
        ),
    };
    let round = w.round().saturating_add(1);
    w.state.free_merchant = Some(FreeMerchantOffer {
        round,
        lot: lot.clone(),
        min_bid,
    });
    let everyone: Vec<String> = w
        .state
        .realms
        .iter()
        .filter(|r| !r.eliminated)
        .map(|r| r.name.clone())
        .collect();
    let ev = MarketEvent::Offer {
        round,
        lot,
        min_bid,
    };
    w.emit(Step::FreeMerchants, everyone, What::Market(ev));
}
