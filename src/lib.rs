//! Resilience Lab: interactive simulations of timeouts, retries and idempotency.
//!
//! `sim` is the discrete-event core, `scenarios` holds one model per file, `url` turns a
//! simulation state into a shareable query string and back. All three are plain Rust with
//! no web dependency; `ui` (the Leptos app) exists only in the wasm build.

/// The lab's version: `resilience-lab --version`, `version` in `run --json`, and `data-version`
/// on every page, so a course can say which models its numbers came from.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod bench;
pub mod draw;
pub mod format;
#[cfg(not(target_arch = "wasm32"))]
pub mod numbers;
#[cfg(not(target_arch = "wasm32"))]
pub mod report;
pub mod scenarios;
pub mod sim;
pub mod sweep;
pub mod url;

#[cfg(target_arch = "wasm32")]
pub mod ui;
