//! Print one realm's result form from the demo scenario:
//! `cargo run --example show_form -- Afani`.
use pbemd::game::load_scenario;
use pbemd::render::{FormContext, Renderer};

fn main() {
    let realm = std::env::args().nth(1).unwrap_or_else(|| "Genogien".into());
    let state = load_scenario(include_str!("../scenarios/demo.yaml")).expect("demo loads");
    let ctx = FormContext {
        deadline_local: "söndag 29 november 2026 15:00".into(),
        window_local: String::new(),
        game_address: "sl@game.test".into(),
        realms_listed: None,
    };
    let r = Renderer::new().expect("templates compile");
    print!("{}", r.result_form(&state, &realm, &ctx).expect("renders"));
}
