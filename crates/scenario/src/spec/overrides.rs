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
    let takes_it = set(&mut probe, keys, value.clone()).is_some() && serde_json::from_value::<Scenario>(probe).is_ok();
    if takes_it {
        value
    } else {
        as_string
    }
}

/// Puts `value` at `keys` under `root`, making the objects on the way; `None` where the path
/// runs into something that is not an object.
fn set(root: &mut Value, keys: &[&str], value: Value) -> Option<()> {
    let (last, parents) = keys.split_last()?;
    let mut node = root;
    for k in parents {
        node = node
            .as_object_mut()?
            .entry((*k).to_string())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    node.as_object_mut()?.insert((*last).to_string(), value);
    Some(())
}
