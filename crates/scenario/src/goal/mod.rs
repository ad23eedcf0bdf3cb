//! A lesson's goal (teaching.md: "the goal names the idea, not a number that stands in for
//! it"): parts that each hold or not, read from the figures sampled over simulated time and
//! from the host as it is now. A lesson's goal holds when the symptom is gone, the service
//! still runs and the lesson's mechanism did it; each part says what it asks (`label`) and
//! why a move that leaves it unmet does not count (`fails`), which the page tells a learner
//! who removed the symptom some other way.
//!
//! A part ([`Check`]) is one of:
//! - a figure (`metric`): its value now, or its change over the last `over_ms`, compared
//!   with a value, or with the same measure at the lesson's start (`compare: ratio|change`,
//!   [`START_NS`]): what makes one lesson file gradable across every learner's variant;
//! - `all` or `any` of parts;
//! - `flows`: the share of the flows a pattern selects for which a property holds now
//!   ("every DNS flow is dropped by tc", "the SSH flow arrives on rx-7", [`flows`]);
//! - `setting`: a setting of the host now (`nic.driver`, `net.core.rps_sock_flow_entries`,
//!   `thread.3.cpu`, [`settings`]).
//!
//! Everything is judged only on what happened after the learner's last change: a goal is
//! never met by a figure measured before it.

mod flows;
mod settings;

use serde::{Deserialize, Serialize};
use steerlab_engine::{HostConfig, Sim};

pub use flows::{selected, FlowPattern, FlowProperty, Steer};
pub use settings::{HostSetting, SettingValue};

use crate::Figures;

/// The lesson's start as checks compare with it: the scenario's first three simulated
/// seconds as it runs untouched (the first is a transient: RFS placing flows, filters being
/// written), measured at their end. A property of the scenario alone, the same for every
/// learner who opens it, whatever they type and when.
pub const START_NS: u64 = 3_000_000_000;

/// The longest window a check comparing with the start may take: it must fit in the start.
pub const MAX_START_WINDOW_MS: u64 = START_NS / 1_000_000;

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>=`
    Ge,
    /// `>`
    Gt,
}

impl Op {
    /// Whether `x op value`.
    pub fn holds(self, x: f64, value: f64) -> bool {
        match self {
            Op::Lt => x < value,
            Op::Le => x <= value,
            Op::Eq => x == value,
            Op::Ne => x != value,
            Op::Ge => x >= value,
            Op::Gt => x > value,
        }
    }

    /// The comparison as people write it (`≤`).
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "≤",
            Op::Eq => "=",
            Op::Ne => "≠",
            Op::Ge => "≥",
            Op::Gt => ">",
        }
    }
}

/// What a figure is compared as: itself, or against the same measure at another time (the
/// lesson's start for a goal, before the step's commands for a question's answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Compare {
    /// The figure now.
    #[default]
    Now,
    /// Now divided by then.
    Ratio,
    /// Now minus then.
    Change,
}

/// One part of a goal: what it asks, and why a move that leaves it unmet does not count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(try_from = "CheckFields", into = "CheckFields")]
pub struct Check {
    /// What is checked.
    pub part: Part,
    /// What it asks, in the learner's words (the goal's checklist on the page; empty: worded
    /// from the part).
    pub label: String,
    /// Why a move that leaves it unmet does not count ("rx-3 is empty because its flows
    /// closed: the goal keeps them"), shown when the rest of the goal holds.
    pub fails: String,
}

/// What a [`Check`] reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// A figure of the samples by report path: its value now (`over_ms` 0), or how much it
    /// grew over the last `over_ms`; compared as is or against the lesson's start.
    Figure {
        /// A report path (`arfs.update`, `queues.rx.3.packets`).
        metric: String,
        /// The window of a counter's growth; 0: the value now.
        over_ms: u64,
        /// Against the lesson's start, or not.
        compare: Compare,
        /// Comparison.
        op: Op,
        /// Threshold.
        value: f64,
    },
    /// Every part holds.
    All(Vec<Check>),
    /// At least one part holds.
    Any(Vec<Check>),
    /// The share (0 to 1) of the flows `pattern` selects for which `property` holds now.
    Flows {
        /// Which flows.
        pattern: FlowPattern,
        /// What must hold of each.
        property: FlowProperty,
        /// Comparison of the share.
        op: Op,
        /// Threshold of the share (1: every flow, 0: none).
        value: f64,
    },
    /// A setting of the host now.
    Setting {
        /// Which.
        setting: HostSetting,
        /// Comparison (`eq` or `ne` for a named setting).
        op: Op,
        /// The value compared with.
        value: SettingValue,
    },
}

/// The file's spelling of a [`Check`]: one object whose keys say which kind it is. A flat
/// struct rather than an untagged enum: serde's untagged enums buffer their input and
/// cost the page's module kilobytes, and say "did not match any variant" instead of what is
/// wrong.
#[derive(Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct CheckFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metric: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    over_ms: u64,
    #[serde(default, skip_serializing_if = "is_now")]
    compare: Compare,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    op: Option<Op>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    all: Option<Vec<Check>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    any: Option<Vec<Check>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flows: Option<String>,
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    property: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    setting: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    is: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    label: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    fails: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_now(c: &Compare) -> bool {
    *c == Compare::Now
}

/// The kinds of check, for errors.
const FORMS: &str = "a check is {\"metric\", \"op\", \"value\"[, \"over_ms\", \"compare\"]}, {\"all\": [checks]}, {\"any\": [checks]}, {\"flows\": PATTERN, \"where\": PROPERTY[, \"op\", \"value\"]} or {\"setting\": NAME, \"op\", \"value\"} / {\"setting\": NAME, \"is\": TEXT}";

impl TryFrom<CheckFields> for Check {
    type Error = String;

    fn try_from(f: CheckFields) -> Result<Check, String> {
        let kinds = [
            f.metric.is_some(),
            f.all.is_some(),
            f.any.is_some(),
            f.flows.is_some(),
            f.setting.is_some(),
        ];
        if kinds.iter().filter(|&&k| k).count() != 1 {
            return Err(format!("one kind of check at a time: {FORMS}"));
        }
        let stray = |what: &str, set: bool| {
            if set {
                Err(format!("{what} does not belong to this kind of check: {FORMS}"))
            } else {
                Ok(())
            }
        };
        let figure_keys = f.over_ms != 0 || f.compare != Compare::Now;
        let part = if let Some(metric) = f.metric {
            stray("\"where\" or \"is\"", f.property.is_some() || f.is.is_some())?;
            Part::Figure {
                metric,
                over_ms: f.over_ms,
                compare: f.compare,
                op: f.op.ok_or("a figure check needs \"op\" (lt, le, eq, ne, ge, gt)")?,
                value: f.value.ok_or("a figure check needs \"value\" (a number)")?,
            }
        } else if let Some(parts) = f.all.or(f.any.clone()) {
            stray(
                "\"op\", \"value\", \"over_ms\" or \"compare\"",
                f.op.is_some() || f.value.is_some() || figure_keys,
            )?;
            stray("\"where\" or \"is\"", f.property.is_some() || f.is.is_some())?;
            if parts.is_empty() {
                return Err("\"all\" and \"any\" take at least one check".into());
            }
            if f.any.is_some() {
                Part::Any(parts)
            } else {
                Part::All(parts)
            }
        } else if let Some(pattern) = f.flows {
            stray("\"over_ms\", \"compare\" or \"is\"", figure_keys || f.is.is_some())?;
            let property = f
                .property
                .ok_or_else(|| format!("a flows check needs \"where\": {}", FlowProperty::FORMS))?;
            let value = f.value.unwrap_or(1.0);
            if !(0.0..=1.0).contains(&value) {
                return Err(format!("\"value\" of a flows check is a share, 0 to 1: {value}"));
            }
            Part::Flows {
                pattern: FlowPattern::parse(&pattern)?,
                property: FlowProperty::parse(&property)?,
                op: f.op.unwrap_or(Op::Eq),
                value,
            }
        } else {
            let name = f.setting.unwrap_or_default();
            stray(
                "\"over_ms\", \"compare\" or \"where\"",
                figure_keys || f.property.is_some(),
            )?;
            let setting = HostSetting::parse(&name)?;
            let value = match (f.is, f.value) {
                (Some(text), None) => SettingValue::Text(text),
                (None, Some(n)) => SettingValue::Num(n),
                _ => {
                    return Err(format!(
                        "a setting check takes \"is\" (a name) or \"value\" (a number): {name}"
                    ))
                }
            };
            setting.check_value(&value)?;
            let op = f.op.unwrap_or(Op::Eq);
            if matches!(value, SettingValue::Text(_)) && !matches!(op, Op::Eq | Op::Ne) {
                return Err(format!("{name} is a name: compared with eq or ne only"));
            }
            Part::Setting { setting, op, value }
        };
        Ok(Check {
            part,
            label: f.label,
            fails: f.fails,
        })
    }
}

impl From<Check> for CheckFields {
    fn from(c: Check) -> CheckFields {
        let mut f = CheckFields {
            label: c.label,
            fails: c.fails,
            ..CheckFields::default()
        };
        match c.part {
            Part::Figure {
                metric,
                over_ms,
                compare,
                op,
                value,
            } => {
                (f.metric, f.over_ms, f.compare, f.op, f.value) =
                    (Some(metric), over_ms, compare, Some(op), Some(value));
            }
            Part::All(parts) => f.all = Some(parts),
            Part::Any(parts) => f.any = Some(parts),
            Part::Flows {
                pattern,
                property,
                op,
                value,
            } => {
                (f.flows, f.property) = (Some(pattern.to_string()), Some(property.to_string()));
                (f.op, f.value) = (Some(op), Some(value));
            }
            Part::Setting { setting, op, value } => {
                f.setting = Some(setting.to_string());
                f.op = Some(op);
                match value {
                    SettingValue::Num(n) => f.value = Some(n),
                    SettingValue::Text(t) => f.is = Some(t),
                }
            }
        }
        f
    }
}

/// What a goal is judged on.
pub struct Judged<'a, F> {
    /// Figures sampled at increasing simulated times (ns), the latest last.
    pub samples: &'a [(u64, F)],
    /// Simulated time of the learner's last change: a part is judged only on what happened
    /// after it (`None` for a part that cannot be judged yet).
    pub since_ns: u64,
    /// The untouched scenario's samples through [`START_NS`] (`None`: not known yet: a part
    /// comparing with the start cannot be judged).
    pub start: Option<&'a [(u64, F)]>,
    /// The host at the last sample's time (flows and settings are read from it).
    pub sim: &'a Sim,
}

/// A goal's verdict: the whole, and each of its parts (top level), each `None` while it
/// cannot be judged yet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Every part holds (`None`: one cannot be judged yet and none fails; an empty goal).
    pub met: Option<bool>,
    /// Each top-level part.
    pub parts: Vec<Option<bool>>,
}

/// Judges a goal: every check must hold.
pub fn judge<F: Figures>(checks: &[Check], on: &Judged<F>) -> Verdict {
    let parts: Vec<Option<bool>> = checks.iter().map(|c| c.holds(on)).collect();
    Verdict {
        met: all(parts.iter().copied()),
        parts,
    }
}

/// Every one holds: `Some(false)` as soon as one fails, `None` while one cannot be judged
/// (and none fails), `None` for none at all.
fn all(parts: impl Iterator<Item = Option<bool>>) -> Option<bool> {
    let (mut any, mut unknown) = (false, false);
    for p in parts {
        any = true;
        match p {
            Some(false) => return Some(false),
            None => unknown = true,
            Some(true) => {}
        }
    }
    (any && !unknown).then_some(true)
}

/// The measure of `metric` over `samples` at `end`: its value at the last sample at or before
/// `end` (`over_ms` 0) or its growth over the `over_ms` before that sample. `None` without
/// such samples, or for a window that starts before `from`.
fn measure<F: Figures>(samples: &[(u64, F)], metric: &str, over_ms: u64, end: u64, from: u64) -> Option<f64> {
    let last = samples.iter().rposition(|(t, _)| *t <= end)?;
    let (t1, r1) = &samples[last];
    if over_ms == 0 {
        return r1.number(metric);
    }
    let start = t1.checked_sub(over_ms * 1_000_000)?;
    if start < from {
        return None;
    }
    let (_, r0) = samples[..=last].iter().rev().find(|(t, _)| *t <= start)?;
    Some(r1.number(metric)? - r0.number(metric)?)
}

impl Check {
    /// Whether this part holds on `on` (`None`: it cannot be judged yet).
    pub fn holds<F: Figures>(&self, on: &Judged<F>) -> Option<bool> {
        let (now, _) = on.samples.last()?;
        // Parts read now: only once a sample after the last change was taken.
        let fresh = *now > on.since_ns;
        match &self.part {
            Part::Figure {
                metric,
                over_ms,
                compare,
                op,
                value,
            } => {
                if *over_ms == 0 && !fresh {
                    return None;
                }
                let x = measure(on.samples, metric, *over_ms, *now, on.since_ns)?;
                let x = match compare {
                    Compare::Now => x,
                    Compare::Ratio => x / measure(on.start?, metric, *over_ms, START_NS, 0).filter(|s| *s != 0.0)?,
                    Compare::Change => x - measure(on.start?, metric, *over_ms, START_NS, 0)?,
                };
                Some(op.holds(x, *value))
            }
            Part::All(parts) => all(parts.iter().map(|c| c.holds(on))),
            Part::Any(parts) => {
                let mut out = Some(false);
                for p in parts.iter().map(|c| c.holds(on)) {
                    match p {
                        Some(true) => return Some(true),
                        None => out = None,
                        Some(false) => {}
                    }
                }
                out
            }
            Part::Flows {
                pattern,
                property,
                op,
                value,
            } => {
                if !fresh {
                    return None;
                }
                let share = flows::share(on.sim, pattern, property)?;
                Some(op.holds(share, *value))
            }
            Part::Setting { setting, op, value } => {
                if !fresh {
                    return None;
                }
                Some(setting.read(on.sim)?.compare(*op, value))
            }
        }
    }

    /// The figure paths this part and its parts read.
    pub fn metrics(&self) -> Vec<&str> {
        match &self.part {
            Part::Figure { metric, .. } => vec![metric.as_str()],
            Part::All(parts) | Part::Any(parts) => parts.iter().flat_map(Check::metrics).collect(),
            Part::Flows { .. } | Part::Setting { .. } => Vec::new(),
        }
    }

    /// Whether this part or one of its parts compares with the lesson's start.
    pub fn uses_start(&self) -> bool {
        match &self.part {
            Part::Figure { compare, .. } => *compare != Compare::Now,
            Part::All(parts) | Part::Any(parts) => parts.iter().any(Check::uses_start),
            Part::Flows { .. } | Part::Setting { .. } => false,
        }
    }

    /// What it asks, for a checklist: its label, else worded from the part.
    pub fn describe(&self) -> String {
        if !self.label.is_empty() {
            return self.label.clone();
        }
        match &self.part {
            Part::Figure {
                metric,
                over_ms,
                compare,
                op,
                value,
            } => {
                let what = if *over_ms == 0 {
                    metric.clone()
                } else {
                    format!("{metric} over {over_ms} ms")
                };
                let rhs = match compare {
                    Compare::Now => format!("{value}"),
                    Compare::Ratio => format!("{value} × its start"),
                    Compare::Change => format!("its start {value:+}"),
                };
                format!("{what} {} {rhs}", op.symbol())
            }
            Part::All(parts) => parts.iter().map(Check::describe).collect::<Vec<_>>().join(" and "),
            Part::Any(parts) => parts.iter().map(Check::describe).collect::<Vec<_>>().join(" or "),
            Part::Flows {
                pattern,
                property,
                op,
                value,
            } => match (op, *value) {
                (Op::Eq, 1.0) => format!("every flow {pattern}: {property}"),
                (Op::Eq, 0.0) => format!("no flow {pattern}: {property}"),
                _ => format!("flows {pattern}: {property}, share {} {value}", op.symbol()),
            },
            Part::Setting { setting, op, value } => format!("{setting} {} {value}", op.symbol()),
        }
    }

    /// Checks what typing cannot, on the host `cfg` describes with `threads` threads: every
    /// figure is one its report has (`known`), every setting names a part of it. `at` names
    /// the check in errors.
    pub fn validate(
        &self,
        at: &str,
        known: &dyn Fn(&str) -> bool,
        cfg: &HostConfig,
        threads: u32,
    ) -> Result<(), String> {
        match &self.part {
            Part::Figure {
                metric,
                over_ms,
                compare,
                ..
            } => {
                if !known(metric) {
                    return Err(format!(
                        "{at}.metric: {metric:?} is not a figure of this host's report (`steerlab run FILE --json` lists them; arrays as queues.rx.N.packets)"
                    ));
                }
                if *compare != Compare::Now && *over_ms > MAX_START_WINDOW_MS {
                    return Err(format!(
                        "{at}.over_ms: a check compared with the start takes a window within the start's {MAX_START_WINDOW_MS} ms"
                    ));
                }
                if *over_ms > 86_400_000 {
                    return Err(format!("{at}.over_ms: out of range (accepted: 0..=86400000)"));
                }
                Ok(())
            }
            Part::All(parts) | Part::Any(parts) => {
                let kind = if matches!(self.part, Part::All(_)) {
                    "all"
                } else {
                    "any"
                };
                parts
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, c)| c.validate(&format!("{at}.{kind}[{i}]"), known, cfg, threads))
            }
            Part::Flows { .. } => Ok(()),
            Part::Setting { setting, .. } => setting.validate(cfg, threads).map_err(|e| format!("{at}.setting: {e}")),
        }
    }
}

/// Whether a goal compares with the lesson's start (its judge then needs the start's
/// samples).
pub fn needs_start(checks: &[Check]) -> bool {
    checks.iter().any(Check::uses_start)
}

#[cfg(test)]
mod tests;
