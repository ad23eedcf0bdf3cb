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

/// A refusal naming the field it is about.
fn err(path: &str, msg: impl fmt::Display) -> ScenarioError {
    ScenarioError(format!("{path}: {msg}"))
}
