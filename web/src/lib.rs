//! steerlab-web: the sandbox page and its simulation worker. The only crate that touches the
//! DOM. One wasm module runs on both threads (`src/main.rs`): the page (`components`,
//! `client`, `chart`) renders what the Web Worker (`worker`, `controller`, the engine) sends,
//! and sends it [`controller::Action`]s.

pub mod chart;
pub mod client;
pub mod components;
pub mod controller;
pub mod embed;
pub mod wire;
pub mod worker;

pub use components::app::App;
