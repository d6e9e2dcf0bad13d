//! The weekend form: the order grammar (`grammar`), finding the orders in
//! a reply (`extract`), checking them against the state (`check`), the
//! receipt (`receipt`) and the Monday form read back into the state it
//! shows (`view`). PURE: no file or network I/O, no clock, no
//! randomness, no async runtime; it never changes the state. The engine resolves
//! the accepted orders later.

pub mod check;
pub mod extract;
pub mod grammar;
pub mod receipt;
pub mod refusal;
pub mod view;

pub use check::{check, check_orders, Checked, CheckedLine, Standing};
pub use extract::{extract_orders, Extracted, Source};
pub use grammar::{parse_line, LineError, OrderKind, ORDER_TABLE};
pub use receipt::{
    dropped_orders, receipt_for, receipt_text, receipt_with, stale_form_text, Effect, Notes,
};
pub use refusal::Refusal;
pub use view::{form_state_of, form_title, parse_form_view, FormParseError, FormState};

use crate::game::GameState;

/// Extract, parse and check a reply in one call.
pub fn read_form(state: &GameState, realm: &str, text: &str, attachments: &[&str]) -> Checked {
    let ex = extract_orders(text, attachments);
    let mut c = check(state, realm, &ex.lines);
    c.markers_found = ex.markers_found;
    c.no_orders = ex.no_orders;
    c.source = ex.source;
    c
}
