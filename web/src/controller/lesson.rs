//! A learner's way through a lesson: which step is current (it follows the commands the
//! learner types, not only the "Next step" button), whether the goal was met and then undone,
//! and the lesson's evidence figures before the learner's last change and now.

use serde::{Deserialize, Serialize};
use steerlab_scenario::{Better, Evidence, Lesson, Report};

/// Simulated time over which an evidence rate is measured.
const WINDOW_NS: u64 = 1_000_000_000;
/// The shortest window a rate is shown for (just after a change, history is short).
const MIN_WINDOW_NS: u64 = 200_000_000;

/// One figure of the `lesson-evidence` strip, formatted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceView {
    /// The name the lesson's steps use.
    pub label: String,
    /// Before the learner's last change ("—" before any change).
    pub before: String,
    /// Now.
    pub now: String,
    /// The direction that means success.
    pub better: Better,
    /// How the figure moved from before to now.
    pub trend: Trend,
}

/// How an evidence figure moved since the learner's last change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Trend {
    /// No change yet, or not measurable.
    Unknown,
    /// Within 10 % of before.
    Same,
    /// Went up.
    Up,
    /// Went down.
    Down,
}

/// The learner's progress through one lesson.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// The current step.
    pub step: usize,
    /// Per step, which of its commands the learner has run.
    typed: Vec<Vec<bool>>,
    /// The goal was met at some time since the start (a later change may undo it).
    pub met_once: bool,
    /// The evidence values measured just before the learner's last change, and its time.
    before: Option<(u64, Vec<Option<f64>>)>,
}

/// Compares console lines as a shell would see them: words, not spacing.
fn same_line(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

impl Progress {
    /// The start of `lesson`.
    pub fn start(lesson: &Lesson) -> Progress {
        Progress {
            typed: lesson.steps.iter().map(|s| vec![false; s.commands.len()]).collect(),
            ..Progress::default()
        }
    }

    /// Moves to the next step (wrapping to the first).
    pub fn next(&mut self) {
        let n = self.typed.len();
        if n > 0 {
            self.step = (self.step + 1) % n;
        }
    }

    /// A command succeeded at `now`. Marks it typed in every step that names it; when that
    /// completes a step at or after the current one, the step after it becomes current. The
    /// evidence before the change is the rate measured up to now, over `samples`.
    pub fn command(&mut self, lesson: &Lesson, line: &str, now: u64, samples: &[(u64, Report)]) {
        let values = lesson.evidence.iter().map(|e| measure(e, samples, 0)).collect();
        self.before = Some((now, values));
        let mut done = None;
        for (k, step) in lesson.steps.iter().enumerate() {
            for (i, c) in step.commands.iter().enumerate() {
                if same_line(c, line) {
                    self.typed[k][i] = true;
                    if k >= self.step && self.typed[k].iter().all(|&t| t) {
                        done = Some(k);
                    }
                }
            }
        }
        if let Some(k) = done {
            self.step = (k + 1).min(self.typed.len().saturating_sub(1));
        }
    }

    /// Time went back to `t`: a change made after it is forgotten.
    pub fn rewound(&mut self, t: u64) {
        if self.before.as_ref().is_some_and(|(at, _)| *at > t) {
            self.before = None;
        }
    }

    /// Per step, whether all its commands were run (steps without commands: `false`).
    pub fn steps_done(&self) -> Vec<bool> {
        self.typed
            .iter()
            .map(|t| !t.is_empty() && t.iter().all(|&x| x))
            .collect()
    }

    /// The evidence strip now: each figure before the last change and over the last second
    /// after it.
    pub fn evidence(&self, lesson: &Lesson, samples: &[(u64, Report)]) -> Vec<EvidenceView> {
        let since = self.before.as_ref().map_or(0, |(at, _)| *at);
        lesson
            .evidence
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let now = measure(e, samples, since);
                let before = self.before.as_ref().and_then(|(_, v)| v.get(i).copied().flatten());
                let trend = match (before, now) {
                    (Some(b), Some(n)) if (n - b).abs() <= 0.1 * b.abs().max(n.abs()) => Trend::Same,
                    (Some(b), Some(n)) if n > b => Trend::Up,
                    (Some(_), Some(_)) => Trend::Down,
                    _ => Trend::Unknown,
                };
                // Just after a change the window is too short to measure a rate: say so.
                let now_text = if now.is_none() && self.before.is_some() {
                    "measuring…".to_string()
                } else {
                    format_value(e, now)
                };
                EvidenceView {
                    label: e.label.clone(),
                    before: format_value(e, before),
                    now: now_text,
                    better: e.better,
                    trend,
                }
            })
            .collect()
    }
}

/// An evidence figure from the samples: a counter's rate per simulated second over the last
/// second (or the time since `since_ns`, if shorter but at least [`MIN_WINDOW_NS`]), or a
/// value's latest reading.
fn measure(e: &Evidence, samples: &[(u64, Report)], since_ns: u64) -> Option<f64> {
    let (now, last) = samples.last()?;
    let value = |r: &Report| r.get(&e.metric).and_then(serde_json::Value::as_f64);
    if !e.rate {
        return value(last);
    }
    let from = now.saturating_sub(WINDOW_NS).max(since_ns);
    let (t0, first) = samples.iter().find(|(t, _)| *t >= from)?;
    if now - t0 < MIN_WINDOW_NS {
        return None;
    }
    Some((value(last)? - value(first)?) / ((now - t0) as f64 / 1e9))
}

/// A figure as people read it: `6.1M/s`, `620k/s`, `41.80 ns`, "—" when there is none.
fn format_value(e: &Evidence, v: Option<f64>) -> String {
    let Some(v) = v else { return "—".to_string() };
    let unit = if e.unit.is_empty() && e.rate {
        "/s"
    } else {
        e.unit.as_str()
    };
    let h = human(v);
    match h.strip_suffix(['k', 'M', 'G']) {
        // A unit of its own takes the multiplier: 2.12 GB/s, 41.80 ns.
        Some(n) if !unit.is_empty() && !unit.starts_with('/') => format!("{n} {}{unit}", &h[n.len()..]),
        _ if unit.is_empty() || unit.starts_with('/') => format!("{h}{unit}"),
        _ => format!("{h} {unit}"),
    }
}

/// Three significant figures with k, M, G suffixes; small values keep two decimals.
fn human(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = match a {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e4 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let digits = if suffix.is_empty() && a < 100.0 && v.fract() != 0.0 {
        2
    } else if x.abs() >= 100.0 || suffix.is_empty() {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.digits$}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_like_a_person_writes_them() {
        assert_eq!(human(0.0), "0");
        assert_eq!(human(7.0), "7");
        assert_eq!(human(41.8), "41.80");
        assert_eq!(human(9_999.0), "9999");
        assert_eq!(human(620_400.0), "620k");
        assert_eq!(human(1_630_000.0), "1.63M");
        assert_eq!(human(13_200_000_000.0), "13.2G");
        let e = Evidence {
            label: "x".into(),
            metric: "m".into(),
            rate: true,
            unit: String::new(),
            better: Better::Down,
        };
        assert_eq!(format_value(&e, Some(620_400.0)), "620k/s");
        assert_eq!(format_value(&e, None), "—");
        let ns = Evidence {
            rate: false,
            unit: "ns".into(),
            ..e
        };
        assert_eq!(format_value(&ns, Some(41.8)), "41.80 ns");
        let bytes = Evidence {
            rate: true,
            unit: "B/s".into(),
            ..ns
        };
        assert_eq!(format_value(&bytes, Some(2.12e9)), "2.12 GB/s");
    }
}
