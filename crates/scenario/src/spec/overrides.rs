//! `--set path=value`: a scenario edited as JSON before it is typed.
//!
//! Which JSON type a value takes is asked of the schema itself, not of a list kept beside it:
//! the text as a number or a boolean where the field types that way, else as a string. So
//! `host.cpus=8` is a count, `rps.cpus=8` a CPU list and `kernel=6.14` a name, whatever the file
//! holds or leaves out, and a field added to a section needs nothing here.

use serde_json::Value;

use super::{err, Scenario};
use crate::ScenarioError;

/// Sets the field at `spec`'s dotted path (objects made on the way), its value typed by
/// [`typed`]. Typing the whole scenario then refuses unknown fields and bad values by path.
pub(crate) fn apply_override(root: &mut Value, spec: &str) -> Result<(), ScenarioError> {
    let (path, text) = spec
        .split_once('=')
        .ok_or_else(|| ScenarioError(format!("--set {spec:?}: expected KEY=VALUE")))?;
    let keys: Vec<&str> = path.split('.').collect();
    if keys.iter().any(|k| k.is_empty()) {
        return Err(ScenarioError(format!("--set {spec:?}: empty key in {path:?}")));
    }
    set(root, &keys, typed(&keys, text)).ok_or_else(|| err(path, "is not an object"))
}

/// `text` as the JSON the schema takes at `keys`: a number or a boolean if the field, alone in an
/// otherwise empty scenario, types with it so; else a string (a name, a list, a wrong value the
/// typing will name).
fn typed(keys: &[&str], text: &str) -> Value {
    let as_string = Value::String(text.into());
    let Ok(value @ (Value::Number(_) | Value::Bool(_))) = serde_json::from_str::<Value>(text) else {
        return as_string;
    };
    let mut probe = serde_json::json!({ "schema": crate::SCHEMA, "id": "probe" });
    // An element of an array is probed as the first of an array of one (`flows.0.rate_pps`).
    let mut node = &mut probe;
    let numeric = |k: &&str| k.parse::<usize>().is_ok();
    for (k, next) in keys.iter().zip(keys.iter().skip(1)).filter(|(k, _)| !numeric(k)) {
        let Some(obj) = node.as_object_mut() else { break };
        let child = obj
            .entry((*k).to_string())
            .or_insert_with(|| Value::Object(Default::default()));
        if numeric(next) {
            *child = Value::Array(vec![Value::Object(Default::default())]);
            node = &mut child[0];
        } else {
            node = child;
        }
    }
    let probe_keys: Vec<&str> = keys.iter().map(|k| if numeric(k) { "0" } else { k }).collect();
    let takes_it =
        set(&mut probe, &probe_keys, value.clone()).is_some() && serde_json::from_value::<Scenario>(probe).is_ok();
    if takes_it {
        value
    } else {
        as_string
    }
}

/// Puts `value` at `keys` under `root`, making the objects on the way; a key that is a
/// number names an element of an array already there (`threads.0.cpus`). `None` where the
/// path runs into something else, or past an array's end.
fn set(root: &mut Value, keys: &[&str], value: Value) -> Option<()> {
    let (last, parents) = keys.split_last()?;
    let mut node = root;
    for k in parents {
        node = match node {
            Value::Array(a) => a.get_mut(k.parse::<usize>().ok()?)?,
            n => n
                .as_object_mut()?
                .entry((*k).to_string())
                .or_insert_with(|| Value::Object(Default::default())),
        };
    }
    match node {
        Value::Array(a) => *a.get_mut(last.parse::<usize>().ok()?)? = value,
        n => {
            n.as_object_mut()?.insert((*last).to_string(), value);
        }
    }
    Some(())
}
