//! steerlab-scenario: a host, a workload and a timeline of console commands, as versioned
//! JSON; the built-in lessons; `--set` overrides; running to the end and reporting.
//!
//! Format (schema 1): every section is optional and defaults to the engine's defaults.
//! Unknown fields are errors naming their path (`nic.drivr: unknown field ...`), values out of
//! range are errors naming the field and the accepted range.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod capture;
pub mod compare;
pub mod goal;
pub mod lesson_run;
mod lessons;
pub mod permalink;
pub mod predict;
pub mod reading;
mod report;
mod spec;
pub mod teach;

pub use goal::{judge, Check, Compare, HostSetting, Judged, Op, Part, SettingValue, Verdict, START_NS};
pub use lesson_run::{start_samples, LessonRun, SAMPLE_NS};
pub use lessons::{lesson, lesson_fidelity, lesson_ids, lesson_title, register, DEFAULT_LESSON, LESSON_TITLES};
pub use report::{is_figure, Figures, Report, Totals};
pub use spec::{
    is_testid, Better, Evidence, FlowGroup, Lesson, Scenario, Step, ThreadGroup, TimedCommand, TxGroup, XdpSection,
    XpsSection,
};

use std::fmt;

/// The schema version this build writes; every older version keeps loading.
pub const SCHEMA: u32 = 1;
/// Largest scenario file accepted (a captured host with the page's 10,000 flows is about
/// 1 MB).
pub const MAX_BYTES: usize = 4 << 20;

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
        return Err(ScenarioError(format!(
            "scenario is {} bytes; at most {MAX_BYTES} accepted",
            text.len()
        )));
    }
    let mut value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ScenarioError(format!("scenario is not valid JSON: {e}")))?;
    for o in overrides {
        spec::apply_override(&mut value, o)?;
    }
    spec::apply_variant(&mut value)?;
    spec::normalize(&mut value)?;
    let scenario: Scenario = match serde_json::from_value(value.clone()) {
        Ok(s) => s,
        Err(e) => return Err(ScenarioError(locate(&value, &e.to_string()))),
    };
    scenario.validate()?;
    Ok(scenario)
}

/// The JSON Schema of a scenario file (a lesson file is one), written from the types that
/// read it: what `steerlab lesson schema` prints and `docs/lesson.schema.json` holds.
#[cfg(feature = "schema")]
pub fn json_schema() -> serde_json::Value {
    let mut schema = schemars::schema_for!(Scenario).to_value();
    schema["title"] = serde_json::json!("steerlab scenario / lesson file (schema 1)");
    schema
}

/// The seed of a learner's own variant of a scenario whose seed is `seed` (`?student=NAME`,
/// `steerlab lesson links`): FNV-1a of the name mixed into the scenario's seed, so that one
/// lesson file gives every learner a host of their own, the same one each time they open it.
pub fn student_seed(seed: u64, student: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in student.trim().bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    // Kept below 2^53: a seed survives JSON readers that hold numbers as doubles.
    (seed ^ h) & ((1 << 53) - 1)
}

/// The scenario text `text` with `overrides` applied, as JSON text, after checking that it
/// parses and validates: a variant that a permalink or a download carries whole.
pub fn with_overrides(text: &str, overrides: &[String]) -> Result<String, ScenarioError> {
    parse(text, overrides)?;
    let mut value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ScenarioError(format!("scenario is not valid JSON: {e}")))?;
    for o in overrides {
        spec::apply_override(&mut value, o)?;
    }
    Ok(value.to_string())
}

/// Names the part of the scenario a typing error is in, by typing each section on its own and
/// then each of its fields alone (sections default every field), only on the error path: this
/// is much smaller in the wasm bundle than tracking paths while typing.
fn locate(root: &serde_json::Value, message: &str) -> String {
    use serde::de::DeserializeOwned;
    fn at<T: DeserializeOwned>(path: &str, v: &serde_json::Value) -> Option<String> {
        at_fields::<T>(path, v, true)
    }
    fn at_fields<T: DeserializeOwned>(path: &str, v: &serde_json::Value, fields_default: bool) -> Option<String> {
        let err = serde_json::from_value::<T>(v.clone()).err()?.to_string();
        if let Some(obj) = v.as_object().filter(|_| fields_default) {
            for (k, field) in obj {
                let one = serde_json::Value::Object([(k.clone(), field.clone())].into_iter().collect());
                if let Err(e) = serde_json::from_value::<T>(one) {
                    return Some(format!("{path}.{k}: {e}"));
                }
            }
        }
        Some(format!("{path}: {err}"))
    }
    let Some(obj) = root.as_object() else {
        return format!("scenario: {message}");
    };
    for (key, v) in obj {
        let found = match key.as_str() {
            "lesson" => at::<spec::Lesson>(key, v),
            "host" => at::<spec::HostSection>(key, v),
            "nic" => at::<spec::NicSection>(key, v),
            "rps" => at::<spec::RpsSection>(key, v),
            "rfs" => at::<spec::RfsSection>(key, v),
            "net" => at::<spec::NetSection>(key, v),
            "sim" => at::<spec::SimSection>(key, v),
            "xps" => at::<spec::XpsSection>(key, v),
            "xdp" => at::<spec::XdpSection>(key, v),
            "tc" => at::<spec::TcSection>(key, v),
            "threads" | "flows" | "timeline" => match v.as_array() {
                Some(items) => items.iter().enumerate().find_map(|(i, item)| {
                    let path = format!("{key}[{i}]");
                    match key.as_str() {
                        "threads" => at::<ThreadGroup>(&path, item),
                        "flows" => at::<FlowGroup>(&path, item),
                        // Both fields are required: no field-by-field typing.
                        _ => at_fields::<TimedCommand>(&path, item, false),
                    }
                }),
                None => Some(format!("{key}: expected an array")),
            },
            _ => None,
        };
        if let Some(m) = found {
            return m;
        }
    }
    format!("scenario: {message}")
}

/// A built-in lesson by id, or a scenario file's text, with overrides.
pub fn load(lesson_or_text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    match lesson(lesson_or_text) {
        Some(text) => parse(text, overrides),
        None => parse(lesson_or_text, overrides),
    }
}
