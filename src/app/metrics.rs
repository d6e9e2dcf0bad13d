//! In-process histograms for `/metrics`: how long a mail waited from being stored to
//! being handled, and how long a weekend resolution took. Counted since the process
//! started (Prometheus computes rates and quantiles from the buckets); the counters
//! that must survive restarts are counted from the database instead.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// A Prometheus histogram with fixed bucket bounds in seconds.
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [f64],
    /// `counts[i]`: observations ≤ `bounds[i]` and > the bound before (not cumulative).
    counts: Vec<AtomicU64>,
    /// Observations above the last bound.
    over: AtomicU64,
    /// Sum of the observations, in microseconds.
    sum_us: AtomicU64,
}

/// Bounds for a mail's handling latency: from 1 ms to a minute.
pub const LATENCY_BOUNDS: &[f64] = &[
    0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0, 60.0,
];
/// Bounds for a resolution: from 10 ms to ten minutes.
pub const RESOLUTION_BOUNDS: &[f64] =
    &[0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0, 600.0];

impl Histogram {
    pub fn new(bounds: &'static [f64]) -> Self {
        Histogram {
            bounds,
            counts: bounds.iter().map(|_| AtomicU64::new(0)).collect(),
            over: AtomicU64::new(0),
            sum_us: AtomicU64::new(0),
        }
    }

    /// Count one observation of `seconds` (negative or NaN counts as 0).
    pub fn observe(&self, seconds: f64) {
        let s = if seconds.is_finite() {
            seconds.max(0.0)
        } else {
            0.0
        };
        match self.bounds.iter().position(|b| s <= *b) {
            Some(i) => self.counts[i].fetch_add(1, Ordering::Relaxed),
            None => self.over.fetch_add(1, Ordering::Relaxed),
        };
        let us = (s * 1e6).min(u64::MAX as f64) as u64;
        self.sum_us.fetch_add(us, Ordering::Relaxed);
    }

    /// The histogram in Prometheus text format.
    pub fn render(&self, name: &str, help: &str) -> String {
        let mut out = format!("# HELP {name} {help}\n# TYPE {name} histogram\n");
        let mut total = 0u64;
        for (b, c) in self.bounds.iter().zip(&self.counts) {
            total += c.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{b}\"}} {total}");
        }
        total += self.over.load(Ordering::Relaxed);
        let sum = self.sum_us.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {total}");
        let _ = writeln!(out, "{name}_sum {sum}\n{name}_count {total}");
        out
    }
}

/// The daemon's histograms.
#[derive(Debug)]
pub struct Metrics {
    /// Seconds from a mail being stored to its being handled.
    pub handling: Histogram,
    /// Seconds a weekend resolution took (load, resolve, store, render, queue).
    pub resolution: Histogram,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            handling: Histogram::new(LATENCY_BOUNDS),
            resolution: Histogram::new(RESOLUTION_BOUNDS),
        }
    }
}

impl Metrics {
    pub fn render(&self) -> String {
        let mut out = self.handling.render(
            "pbemd_mail_handling_seconds",
            "Seconds from a mail being stored to its being handled.",
        );
        out.push_str(&self.resolution.render(
            "pbemd_resolution_seconds",
            "Seconds a weekend resolution took.",
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_cumulative_buckets_with_sum_and_count() {
        let h = Histogram::new(&[0.1, 1.0]);
        h.observe(0.05);
        h.observe(0.5);
        h.observe(3.0);
        h.observe(f64::NAN);
        let text = h.render("x_seconds", "X.");
        assert!(text.contains("x_seconds_bucket{le=\"0.1\"} 2\n"), "{text}");
        assert!(text.contains("x_seconds_bucket{le=\"1\"} 3\n"), "{text}");
        assert!(text.contains("x_seconds_bucket{le=\"+Inf\"} 4\n"), "{text}");
        assert!(text.contains("x_seconds_count 4\n"), "{text}");
        assert!(text.contains("x_seconds_sum 3.55\n"), "{text}");
        assert!(text.contains("# TYPE x_seconds histogram\n"), "{text}");
    }
}
