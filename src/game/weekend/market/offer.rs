//! Next week's lot (R-FREE-1, R-FREE-4): drawn at the weekend from the scenario's
//! `settings.free_merchant_goods`, `settings.free_merchant_lot` of it, for the next
//! round, and announced to every playing realm on Monday's form. A resource lot's
//! minimum bid is its size; a lot of troops has the minimum the scenario states, and
//! never less than its size (the merchants never sell at a loss). No goods or a lot
//! of 0 means no lot.

use super::MarketEvent;
use crate::game::event::Step;
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
        FreeMerchantGood::Resource { resource } => (
            Lot::Resource {
                resource: *resource,
                amount: size,
            },
            size,
        ),
        FreeMerchantGood::Units { units, min_bid } => (
            Lot::Units {
                kind: *units,
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
    w.emit(Step::FreeMerchants, everyone, ev.into());
}

#[cfg(test)]
mod tests {
    use crate::game::state::{FreeMerchantGood, RuleSettings};
    use crate::game::{Resource, UnitKind};

    #[test]
    fn r_free_1_the_scenario_names_its_goods_and_old_settings_still_load() {
        let yaml =
            "free_merchant_goods:\n  - resource: järn\n  - {units: tungt_kavalleri, min_bid: 40}\n";
        let s: RuleSettings = serde_yaml::from_str(yaml).expect("settings");
        assert_eq!(
            s.free_merchant_goods,
            vec![
                FreeMerchantGood::Resource {
                    resource: Resource::Jarn
                },
                FreeMerchantGood::Units {
                    units: UnitKind::TungtKavalleri,
                    min_bid: 40
                }
            ]
        );
        let old: RuleSettings = serde_yaml::from_str("free_merchant_lot: 10\n").expect("old");
        assert_eq!(old.free_merchant_goods.len(), 12);
        assert_eq!(old.conflict_penalty, 5);
        assert!(old.research_natural_one_fails && old.passive_spy_false_reports);
        assert_eq!(old.passive_spy_squares_at, 15);
        let typo = "free_merchant_goods:\n  - {units: tungt_kavalleri, minbid: 40}\n";
        assert!(serde_yaml::from_str::<RuleSettings>(typo).is_err());
        let json = serde_json::to_string(&s).expect("json");
        assert_eq!(
            serde_json::from_str::<RuleSettings>(&json).expect("back"),
            s
        );
    }
}
