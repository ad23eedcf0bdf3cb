//! "Your host" as a module of its own: the host importer and the predictions
//! (`steerlab_scenario::predict::your_host`) are a third of the page's code that most learners
//! never run, so the simulation worker loads this module the first time a capture is built
//! (issue 32: the default page downloads only what it runs). The answer crosses as postcard
//! bytes of `Result<ImportedHost, String>`, the encoding the worker already speaks.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use steerlab_scenario::capture::{Assumption, Observation};
use steerlab_scenario::predict::Predicted;

/// A captured host, built: its scenario as JSON text (the worker parses it into its host),
/// one prediction per flow given, and what the capture did not say.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedHost {
    /// The scenario (what a permalink and the download carry).
    pub text: String,
    /// One prediction per flow, in the order given.
    pub rows: Vec<Predicted>,
    /// What the capture did not say, each with the line it came from and its correction.
    pub assumptions: Vec<Assumption>,
    /// What the capture's counters show of drops and softirq load, each with its line.
    pub observed: Vec<Observation>,
}

/// Imports `capture` with the learner's corrections (`sets`: `FIELD=VALUE`) and predicts
/// `flows` on it (`steerlab_scenario::predict::your_host`).
pub fn build(capture: &str, flows: &str, sets: &[String]) -> Result<ImportedHost, String> {
    steerlab_scenario::predict::your_host(capture, flows, sets).map(|h| ImportedHost {
        text: h.text,
        rows: h.rows,
        assumptions: h.assumptions,
        observed: h.observed,
    })
}

/// The module's export: [`build`], encoded; the corrections come one per line.
#[cfg(feature = "export")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn your_host(capture: &str, flows: &str, sets: &str) -> Vec<u8> {
    let sets: Vec<String> = sets.lines().filter(|l| !l.is_empty()).map(String::from).collect();
    postcard::to_allocvec(&build(capture, flows, &sets)).unwrap_or_default()
}

/// Decodes [`your_host`]'s answer.
pub fn decode(bytes: &[u8]) -> Result<ImportedHost, String> {
    postcard::from_bytes::<Result<ImportedHost, String>>(bytes)
        .map_err(|e| format!("the importer's answer does not decode ({e})"))?
}
