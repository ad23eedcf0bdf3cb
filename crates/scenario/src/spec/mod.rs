//! The scenario: its schema (the sections as JSON types), their defaults, how `--set` edits a
//! scenario before it is typed, what typing cannot check, and how a scenario becomes a running
//! [`Sim`](steerlab_engine::Sim).
//!
//! | file | holds |
//! |---|---|
//! | `schema.rs` | the types of a scenario file: the sections, the lesson, named engine choices |
//! | `defaults.rs` | each section's defaults: the engine's [`HostConfig`](steerlab_engine::HostConfig) defaults |
//! | `overrides.rs` | `--set path=value`, each value typed as the schema types that field |
//! | `validate.rs` | the checks typing cannot make: ranges, group sizes, addresses, page names |
//! | `build.rs` | the engine configuration and the host at time 0, threads and flows added |
//! | `timeline.rs` | running to the end, the timeline's commands applied at their ticks |

mod build;
mod defaults;
mod overrides;
mod schema;
mod timeline;
mod validate;

pub(crate) use overrides::apply_override;
pub use schema::*;
pub use validate::is_testid;

use std::fmt;

use crate::ScenarioError;

/// The short forms a file may use, made their long forms before typing: a lesson's goal of
/// one check (`"check": {...}`) becomes an array of it, a step given as its text alone
/// becomes `{"text": ...}`. Done on the JSON value rather than with visitors of the types:
/// each visitor instantiates the whole type again for another deserializer, kilobytes of
/// the page's worker module. Anything else of the wrong shape is left for typing to refuse.
pub(crate) fn normalize(root: &mut serde_json::Value) -> Result<(), ScenarioError> {
    use serde_json::Value;
    let Some(lesson) = root.get_mut("lesson").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    match lesson.get_mut("check") {
        Some(c @ Value::Object(_)) => *c = Value::Array(vec![c.take()]),
        Some(Value::Array(_) | Value::Null) | None => {}
        Some(_) => {
            return Err(err(
                "lesson.check",
                "a check {\"metric\", \"op\", \"value\", …} or an array of them",
            ))
        }
    }
    if let Some(Value::Array(steps)) = lesson.get_mut("steps") {
        for (i, s) in steps.iter_mut().enumerate() {
            match s {
                Value::String(text) => *s = serde_json::json!({ "text": std::mem::take(text) }),
                Value::Object(_) => {}
                _ => {
                    return Err(err(
                        &format!("lesson.steps[{i}]"),
                        "a step: its text, or {\"text\", \"commands\": [...], \"kernel\", \"cell\": [queue, cpu], \"outcome\"}",
                    ))
                }
            }
        }
    }
    Ok(())
}

/// A refusal naming the field it is about.
fn err(path: &str, msg: impl fmt::Display) -> ScenarioError {
    ScenarioError(format!("{path}: {msg}"))
}
