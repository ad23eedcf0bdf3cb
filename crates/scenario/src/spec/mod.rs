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

/// Makes `root` the host its seed picks among its lesson's variants ([`Lesson::variants`]):
/// variant `sim.seed % n`'s overrides applied, and its lesson fields merged in.
pub(crate) fn apply_variant(root: &mut serde_json::Value) -> Result<(), ScenarioError> {
    use serde_json::Value;
    let Some(Value::Array(variants)) = root.get("lesson").and_then(|l| l.get("variants")) else {
        return Ok(());
    };
    if variants.is_empty() {
        return Ok(());
    }
    let seed = match root.get("sim").and_then(|s| s.get("seed")) {
        None => SimSection::default().seed,
        Some(v) => v.as_u64().ok_or_else(|| err("sim.seed", "a whole number"))?,
    };
    let k = (seed % variants.len() as u64) as usize;
    let at = format!("lesson.variants[{k}]");
    let variant: Variant = serde_json::from_value(variants[k].clone()).map_err(|e| err(&at, e.to_string()))?;
    for o in &variant.set {
        // The seed picked the variant: a variant that moved it would be another's.
        if o.split('=').next() == Some("sim.seed") {
            return Err(err(
                &format!("{at}.set"),
                "overrides of the host but sim.seed (the seed picks the variant)",
            ));
        }
        apply_override(root, o).map_err(|e| ScenarioError(format!("{at}.set: {}", e.0)))?;
    }
    let lesson = root.get_mut("lesson").expect("checked above");
    for (key, patch) in variant.lesson {
        if key == "variants" {
            return Err(err(
                &format!("{at}.lesson.variants"),
                "the lesson's fields but its variants",
            ));
        }
        let target = lesson
            .as_object_mut()
            .ok_or_else(|| err("lesson", "an object"))?
            .entry(key.clone())
            .or_insert(Value::Null);
        merge(target, patch).map_err(|e| err(&format!("{at}.lesson.{key}{e}"), "an index of the lesson's array"))?;
    }
    Ok(())
}

impl Scenario {
    /// The variant of its lesson this host is (`sim.seed % n`), if the lesson has variants.
    pub fn variant(&self) -> Option<usize> {
        let n = self.lesson.variants.len() as u64;
        (n > 0).then(|| (self.sim.seed % n) as usize)
    }

    /// Its lesson's other variants, each loaded by `load` with the override that picks it
    /// (`sim.seed=N`, a seed near this host's), with its index: what `steerlab lesson check`
    /// and the tests play besides the file as written.
    pub fn other_variants<E>(&self, load: impl Fn(String) -> Result<Scenario, E>) -> Vec<(usize, Result<Scenario, E>)> {
        let n = self.lesson.variants.len() as u64;
        (0..n)
            .filter(|&k| Some(k as usize) != self.variant())
            .map(|k| {
                (
                    k as usize,
                    load(format!("sim.seed={}", self.sim.seed - self.sim.seed % n + k)),
                )
            })
            .collect()
    }
}

/// Merges `patch` into `target`: an object's keys into an object, an object's numeric keys
/// into an array's elements, anything else replacing. `Err` names the index that is not one.
fn merge(target: &mut serde_json::Value, patch: serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                merge(t.entry(k).or_insert(Value::Null), v)?;
            }
        }
        (Value::Array(t), Value::Object(p)) => {
            for (k, v) in p {
                let e = k
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| t.get_mut(i))
                    .ok_or(format!(".{k}"))?;
                merge(e, v).map_err(|e| format!(".{k}{e}"))?;
            }
        }
        (t, p) => *t = p,
    }
    Ok(())
}

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
