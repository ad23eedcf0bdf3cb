//! The page's components: each renders a slice of the view model and emits callbacks.

pub mod add_flow;
pub mod app;
pub mod chart;
pub mod compare;
pub mod console;
pub mod features;
pub mod host;
pub mod icon;
pub mod lesson;
pub mod matrix;
pub mod migrate;
pub mod panels;
pub mod tables;
pub mod trace;
pub mod transport;
pub mod wire;
pub mod your_host;

/// The page's clock (`performance.now()`), real milliseconds: animation only, never the engine.
pub(crate) fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// `1 flow`, `2 flows`: a count with its noun (plural by adding `s`).
pub(crate) fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
