//! pbemd: a play-by-email daemon for the Swedish world strategy game
//! (*Världsstrategispelet*). See docs/dev/architecture.md for the code tour and the
//! architecture.
//!
//! Rooms: `game`, `courier` and `forms` are pure (no I/O, no clock, no global RNG);
//! `mail` turns bytes into meaning and back; `transport` talks to mail servers; `store`
//! holds all SQL; `schedule` knows the week; `render` the templates; `web` the HTTP
//! side; `app` wires them into workers; `cli` is the command line.

pub mod app;
pub mod cli;
pub mod clock;
pub mod config;
pub mod courier;
pub mod forms;
pub mod game;
pub mod mail;
pub mod render;
pub mod schedule;
pub mod store;
pub mod transport;
pub mod web;

/// Every binary linking pbemd (the daemon, the tests, the benches) allocates with
/// mimalloc: a weekend builds and drops hundreds of thousands of small objects, and the
/// system allocator's cost per object grows with the size of the heap. It runs without
/// transparent huge pages (the `no_thp` feature): with them, each fresh stretch of the
/// heap a growing vector reaches costs the kernel a 2 MB page to clear, and in a burst
/// of mail that was about a quarter of the worker's processor time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
