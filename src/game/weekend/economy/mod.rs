//! The weekend's economy: purchases (step 1), production (step 6), the slave revolt
//! (step 7), army overflow (step 8), and the wrap-up (relations, capital and harbour,
//! trade wishes, VP, the victory check). One file per step; this file holds the entry
//! points the pipeline calls and the family's events.

use serde::{Deserialize, Serialize};

use super::Weekend;

/// What the economy steps did, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EconomyEvent {}

/// Step 1.
pub fn purchases(_w: &mut Weekend) {}

/// Step 6.
pub fn production(_w: &mut Weekend) {}

/// Step 7.
pub fn slave_revolt(_w: &mut Weekend) {}

/// Step 8.
pub fn overflow(_w: &mut Weekend) {}

/// After step 9: relations, capital and harbour, wishes, VP, victory.
pub fn wrap_up(_w: &mut Weekend) {}
