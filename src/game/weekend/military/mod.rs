//! The weekend's armies and fleets: movement (step 3), combat and city outcomes
//! (step 4), invitations (step 5) and home-invitations (step 9). One file per step;
//! this file holds the entry points the pipeline calls and the family's events.

use serde::{Deserialize, Serialize};

use super::Weekend;

/// What the military steps did, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MilitaryEvent {}

/// Step 3.
pub fn movement(_w: &mut Weekend) {}

/// Step 4.
pub fn combat(_w: &mut Weekend) {}

/// Step 5.
pub fn invitations(_w: &mut Weekend) {}

/// Step 9.
pub fn home_invitations(_w: &mut Weekend) {}
