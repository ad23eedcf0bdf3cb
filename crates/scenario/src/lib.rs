//! steerlab-scenario: a host, a workload and a timeline of console commands, as versioned
//! JSON; the built-in lessons; `--set` overrides; running to the end and reporting.
//!
//! Format (schema 1): every section is optional and defaults to the engine's defaults.
//! Unknown fields are errors naming their path (`nic.drivr: unknown field ...`), values out of
//! range are errors naming the field and the accepted range.

#![warn(missing_docs)]

mod goal;
mod lessons;
mod report;
mod spec;

pub use goal::{Check, Op};
pub use lessons::{lesson, lesson_ids, LESSONS};
pub use report::Report;
pub use spec::{FlowGroup, Lesson, Scenario, ThreadGroup, TimedCommand, TxGroup, XdpSection, XpsSection};

use std::fmt;

/// The schema version this build writes; every older version keeps loading.
pub const SCHEMA: u32 = 1;
/// Largest scenario file accepted.
pub const MAX_BYTES: usize = 1 << 20;

/// Why a scenario was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError(pub String);

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScenarioError {}

/// Parses a scenario from JSON text, then applies `overrides` (`path=value`), then validates.
pub fn parse(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    if text.len() > MAX_BYTES {
        return Err(ScenarioError(format!("scenario is {} bytes; at most {MAX_BYTES} accepted", text.len())));
    }
    let mut value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ScenarioError(format!("scenario is not valid JSON: {e}")))?;
    for o in overrides {
        spec::apply_override(&mut value, o)?;
    }
    let scenario: Scenario = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        ScenarioError(format!("{path}: {}", e.into_inner()))
    })?;
    scenario.validate()?;
    Ok(scenario)
}

/// A built-in lesson by id, or a scenario file's text, with overrides.
pub fn load(lesson_or_text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    match lesson(lesson_or_text) {
        Some(text) => parse(text, overrides),
        None => parse(lesson_or_text, overrides),
    }
}
