//! steerlab-web: the sandbox page and its simulation worker. The only crate that touches the
//! DOM. Two wasm modules, each thread loading what it runs: the page's (`src/main.rs`:
//! `components`, `client`, `chart`) renders what the Web Worker's (`src/worker_main.rs`:
//! `worker`, `controller`, the engine) sends, and sends it [`protocol::Action`]s. What crosses
//! between them is `protocol`, the only way the page reaches worker-side code.

pub mod chart;
pub mod client;
pub mod components;
pub mod controller;
pub mod protocol;
pub mod worker;

pub use components::app::App;
