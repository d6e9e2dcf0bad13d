//! The pure game model: state, scenario loading, resources, unit tables and
//! per-realm views. No I/O, no clock, no global RNG — callers hand in text
//! and get data back.

pub mod caps;
pub mod combat;
pub mod dice;
pub mod event;
pub mod grid;
pub mod hash;
pub mod lang;
pub mod name;
pub mod orders;
pub use lang::Lang;
pub use name::Name;

pub mod resource;
pub mod scenario;
pub mod square;
pub mod state;
pub mod text;
pub mod units;
pub mod view;
pub mod weekend;

pub use resource::{Resource, Resources};
pub use scenario::{load_scenario, ScenarioError};
pub use square::Square;
pub use state::{GameState, Realm, SCHEMA_VERSION};
pub use units::{Position, ShipKind, Spell, UnitKind};
pub use view::RealmView;
