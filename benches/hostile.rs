//! Handling time of hostile mail at the size limit (`limits.max_mail_bytes`, default
//! 10 MiB): one `tick` that stores, classifies and answers one mail, on a temporary
//! SQLite + Maildir game. Cases: a weekend form that is one long line, a form of many
//! short lines, an envoy that is one long line and an envoy of many lines (delivered,
//! rendered and composed for the other realm). Each must take well under 2 s.
//!
//! Run: `cargo bench --bench hostile` (env PBEMD_BENCH_BYTES to try another size).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::Game;

const TUESDAY: &str = "2026-11-24T09:00:00+01:00";
const SATURDAY: &str = "2026-11-28T10:00:00+01:00";

/// A mail of exactly `size` bytes whose body is `line` repeated (the last copy cut).
fn mail_of(from: &str, subject: &str, line: &str, size: usize) -> Vec<u8> {
    let mut raw = common::mail(from, subject, "", "bench@players.test");
    raw.truncate(raw.len() - 2);
    while raw.len() + line.len() + 2 <= size {
        raw.extend_from_slice(line.as_bytes());
    }
    raw.resize(size - 2, b'x');
    raw.extend_from_slice(b"\r\n");
    raw
}

async fn time_one(start: &str, when: &str, raw: &[u8]) -> (Duration, usize) {
    let g = Game::start(start).await;
    g.drop_raw(raw);
    let t = Instant::now();
    g.tick(when).await;
    let took = t.elapsed();
    (took, g.outbox().len())
}

fn main() {
    let size: usize = std::env::var("PBEMD_BENCH_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10 * 1024 * 1024);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let form = "Genogien formulär";
    let envoy = "Genogien skickar ett sändebud till Afani";
    let from = "genogien@game.test";
    let cases: Vec<(&str, &str, &str, Vec<u8>)> = vec![
        (
            "form, one line",
            SATURDAY,
            "2026-11-28T10:05:00+01:00",
            mail_of(from, form, "KÖP 5 lätt infanteri ", size),
        ),
        (
            "form, many lines",
            SATURDAY,
            "2026-11-28T10:05:00+01:00",
            mail_of(from, form, "KÖP 1 lätt infanteri\r\n", size),
        ),
        (
            "envoy, one line",
            TUESDAY,
            "2026-11-24T10:00:00+01:00",
            mail_of(
                from,
                envoy,
                "Hälsningar från Genogien, \u{130}\u{212A} ",
                size,
            ),
        ),
        (
            "envoy, many lines",
            TUESDAY,
            "2026-11-24T10:00:00+01:00",
            mail_of(from, envoy, "Hälsningar från Genogien!\r\n", size),
        ),
    ];
    println!("mail size: {size} bytes (limits.max_mail_bytes default: 10485760)");
    let only = std::env::var("PBEMD_BENCH_ONLY").unwrap_or_default();
    for (name, start, when, raw) in cases {
        if !name.contains(only.as_str()) {
            continue;
        }
        let (took, out) = rt.block_on(time_one(start, when, &raw));
        println!(
            "{name:<18} handled in {:>7.3} s ({out} mails out)",
            took.as_secs_f64()
        );
    }
}
