//! steerlab-web: the sandbox page. The only crate that touches the DOM; it sends the engine
//! commands and renders what the engine reports.

pub mod chart;
pub mod components;
pub mod controller;
pub mod embed;
pub mod wire;

pub use components::app::App;
