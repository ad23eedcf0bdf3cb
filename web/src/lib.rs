//! steerlab-web: the sandbox page and its simulation worker. The only crate that touches the
//! DOM. Two wasm modules, each thread loading what it runs: the page's (`src/main.rs`:
//! `components`, `client`, `chart`) renders what the Web Worker's (`src/worker_main.rs`:
//! `worker`, `controller`, the engine) sends, and sends it [`controller::Action`]s.

pub mod chart;
pub mod client;
pub mod components;
pub mod controller;
pub mod embed;
pub mod wire;
pub mod worker;

pub use components::app::App;
