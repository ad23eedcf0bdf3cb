//! A lesson's goal check, computed from the engine's state (reports sampled over simulated
//! time): "in the last `over_ms`, metric M changed by (op) value", or, with `over_ms` = 0,
//! "metric M now is (op) value". Only what the lesson is about is assessed; a goal of several
//! checks is met when all of them are ([`all_met`]).

use serde::{Deserialize, Serialize};

use crate::Figures;

/// Comparison of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `>=`
    Ge,
    /// `>`
    Gt,
}

/// `lesson.check` in a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// A report path (`xps.hash_picks`, `queues.rx.3.packets`).
    pub metric: String,
    /// Window of simulated time for a rate check; 0 = the current value.
    #[serde(default)]
    pub over_ms: u64,
    /// Comparison.
    pub op: Op,
    /// Threshold.
    pub value: f64,
}

impl Check {
    /// Whether the goal is met given figures (a report's, or typed: [`Figures`]) sampled at
    /// increasing simulated times (ns).
    /// `None` while there is not yet a window's worth of history after the last change made by
    /// the learner (`since_ns`): a goal is met only by what happened after it.
    pub fn met<F: Figures>(&self, history: &[(u64, F)], since_ns: u64) -> Option<bool> {
        let (now, last) = history.last()?;
        let value = |r: &F| r.number(&self.metric);
        let x = if self.over_ms == 0 {
            if *now <= since_ns {
                return None;
            }
            value(last)?
        } else {
            let from = now.checked_sub(self.over_ms * 1_000_000)?;
            if from < since_ns {
                return None;
            }
            let (_, earlier) = history.iter().rev().find(|(t, _)| *t <= from)?;
            value(last)? - value(earlier)?
        };
        Some(match self.op {
            Op::Lt => x < self.value,
            Op::Le => x <= self.value,
            Op::Eq => x == self.value,
            Op::Ge => x >= self.value,
            Op::Gt => x > self.value,
        })
    }
}

/// Whether every check of a goal holds: `Some(false)` as soon as one fails, `None` while one
/// cannot be assessed yet (and none fails), `None` for an empty goal.
pub fn all_met<F: Figures>(checks: &[Check], history: &[(u64, F)], since_ns: u64) -> Option<bool> {
    let mut all = if checks.is_empty() { None } else { Some(true) };
    for c in checks {
        match c.met(history, since_ns) {
            Some(false) => return Some(false),
            None => all = None,
            Some(true) => {}
        }
    }
    all
}
