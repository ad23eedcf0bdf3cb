//! What a lesson asks of the learner beyond its steps (teaching.md: predict, observe,
//! explain; guided, then on your own): a question before a key command whose answer the
//! engine then gives ([`Prediction`]), the challenge form that names the goal but not the
//! commands ([`Challenge`]), and the figures both are judged on: a steady rate over a full
//! simulated second ([`figure`]), never a transient.

use serde::{Deserialize, Serialize};

pub use crate::goal::Compare;
use crate::{Check, Figures, Lesson, Op, ScenarioError};

/// Simulated time a figure is measured over: one full second.
pub const WINDOW_NS: u64 = 1_000_000_000;
/// How long after a change its figure starts to count: the second after it is a transient
/// (RFS moving flows, filters being written, backlogs draining).
pub const SETTLE_NS: u64 = 1_000_000_000;

/// A question asked before a step's commands (`lesson.predict`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Prediction {
    /// The step (0-based) whose commands the question comes before: it is asked while that
    /// step is current, and the engine answers it once the step's commands have run.
    pub step: usize,
    /// The question.
    pub question: String,
    /// The answers offered; what the engine then does picks one of them.
    pub choices: Vec<Choice>,
    /// What the kernel did, in its own terms: shown with the engine's answer.
    pub explain: String,
    /// The choice (0-based) the lesson teaches: the engine must pick it when the step's
    /// commands run as written (`steerlab lesson check` plays them and says so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<usize>,
}

/// One answer to a [`Prediction`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Choice {
    /// The answer as the learner reads it.
    pub text: String,
    /// What the engine shows when this answer is what happened: every outcome holds.
    pub when: Vec<Outcome>,
    /// Why this answer is right, or why it is not: shown once the engine has answered.
    pub why: String,
    /// Words that would tell this answer (an outcome, a key figure): none may appear in what
    /// the page shows with the open question ([`giveaways`], `steerlab lesson check`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tells: Vec<String>,
}

/// One condition of a [`Choice`]: a figure after the step's commands, compared with a value,
/// or with the same figure before them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// A report path (`arfs.update`, `queues.rx.2.packets`).
    pub metric: String,
    /// `true` (default): a counter, as its rate per simulated second; `false`: a value.
    #[serde(default = "yes")]
    pub rate: bool,
    /// What is compared with `value`.
    #[serde(default)]
    pub compare: Compare,
    /// Comparison.
    pub op: Op,
    /// Threshold.
    pub value: f64,
}

fn yes() -> bool {
    true
}

/// The challenge form of a lesson (`?mode=challenge`): the goal in words that name no
/// command, hints on request, and the check that says it is met.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Challenge {
    /// What to achieve, naming the effect and the tools, not the commands.
    pub goal: String,
    /// Hints, each more telling than the last.
    pub hints: Vec<String>,
    /// The goal's checks (empty: the lesson's own).
    #[serde(default)]
    pub check: Vec<Check>,
    /// One way to meet it (console lines, in order): what `steerlab lesson check` and the
    /// tests run; the page offers it after the last hint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub solution: Vec<String>,
}

/// A known wrong way to a lesson's goal (`lesson.not_solutions`): console lines that remove
/// the symptom some other way than the lesson's mechanism, and why that does not count. The
/// tests run each and require the goal unmet; the page says `why` to a learner who takes it
/// (teaching.md: "list the wrong ways in the lesson itself").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NotSolution {
    /// The lines, in order.
    pub commands: Vec<String>,
    /// What they did, and why the goal does not count it.
    pub why: String,
}

/// A figure at simulated time `end`: a counter's rate over the full second ending at the
/// last sample at or before `end`, or a value's reading there. `None` without a full
/// second of samples (or without the metric).
pub fn figure<F: Figures>(samples: &[(u64, F)], metric: &str, rate: bool, end: u64) -> Option<f64> {
    let value = |r: &F| r.number(metric);
    let last = samples.iter().rposition(|(t, _)| *t <= end)?;
    let (t1, r1) = &samples[last];
    if !rate {
        return value(r1);
    }
    let from = t1.checked_sub(WINDOW_NS)?;
    let (t0, r0) = samples[..=last].iter().rev().find(|(t, _)| *t <= from)?;
    per_second(metric, (*t0, r0), (*t1, r1))
}

/// A counter's growth from `(t0, r0)` to `(t1, r1)`, per simulated second.
fn per_second<F: Figures>(metric: &str, (t0, r0): (u64, &F), (t1, r1): (u64, &F)) -> Option<f64> {
    Some((r1.number(metric)? - r0.number(metric)?) / ((t1 - t0) as f64 / 1e9))
}

/// The figure *before* a change made at `end`: as [`figure`], but a change made in the
/// lesson's first second, when no full second precedes it, is measured against what does:
/// a counter's rate from the first sample (the host as built, time 0) to the last at or
/// before `end`, if at least one sample interval ([`crate::SAMPLE_NS`]) lies between them.
/// A learner who types at once is judged on the same host as one who waits, not marked
/// wrong for want of a past.
pub fn figure_before<F: Figures>(samples: &[(u64, F)], metric: &str, rate: bool, end: u64) -> Option<f64> {
    if let Some(x) = figure(samples, metric, rate, end) {
        return Some(x);
    }
    let last = samples.iter().rposition(|(t, _)| *t <= end)?;
    let ((t0, r0), (t1, r1)) = (samples.first()?, &samples[last]);
    if !rate || t1 - t0 < crate::SAMPLE_NS {
        return None;
    }
    per_second(metric, (*t0, r0), (*t1, r1))
}

impl Outcome {
    /// Whether it holds for `before` and `now` (`None` when either is missing).
    fn holds(&self, before: Option<f64>, now: Option<f64>) -> Option<bool> {
        let x = match self.compare {
            Compare::Now => now?,
            Compare::Ratio => now? / before.filter(|b| *b != 0.0)?,
            Compare::Change => now? - before?,
        };
        Some(self.op.holds(x, self.value))
    }
}

impl Prediction {
    /// The engine's answer: the index of the first choice all of whose outcomes hold, with
    /// figures taken before `first_ns` (the step's first command: [`figure_before`], so a
    /// step typed in the first second is judged too) and over the full second
    /// that starts [`SETTLE_NS`] after `last_ns` (its last command). `None` until that second
    /// has passed; `Some(None)` when no choice describes what happened.
    pub fn answer<F: Figures>(&self, samples: &[(u64, F)], first_ns: u64, last_ns: u64) -> Option<Option<usize>> {
        let end = last_ns + SETTLE_NS + WINDOW_NS;
        if samples.last().is_none_or(|(t, _)| *t < end) {
            return None;
        }
        let found = self.choices.iter().position(|c| {
            c.when.iter().all(|o| {
                let before = figure_before(samples, &o.metric, o.rate, first_ns);
                let now = figure(samples, &o.metric, o.rate, end);
                o.holds(before, now) == Some(true)
            })
        });
        Some(found)
    }
}

/// Checks what typing cannot: questions point at steps that exist and offer answers the
/// engine can pick, the next lesson exists.
pub(crate) fn validate(l: &Lesson) -> Result<(), ScenarioError> {
    let fail = |path: String, msg: &str| Err(ScenarioError(format!("{path}: {msg}")));
    for (i, p) in l.predict.iter().enumerate() {
        let at = format!("lesson.predict[{i}]");
        if p.step >= l.steps.len() {
            return fail(
                format!("{at}.step"),
                &format!("{} is not a step (the lesson has {})", p.step, l.steps.len()),
            );
        }
        if !(3..=6).contains(&p.choices.len()) {
            return fail(
                format!("{at}.choices"),
                "3 to 6 answers (with two, a guess is right half the time)",
            );
        }
        if p.answer.is_some_and(|a| a >= p.choices.len()) {
            return fail(format!("{at}.answer"), "the index of one of its choices");
        }
        if let Some(c) = p.choices.iter().position(|c| c.when.is_empty()) {
            return fail(
                format!("{at}.choices[{c}].when"),
                "at least one outcome, or the engine cannot pick it",
            );
        }
    }
    if !l.next.is_empty() && crate::lesson_title(&l.next).is_none() && !is_lesson_url(&l.next) {
        let ids: Vec<&str> = crate::lesson_ids().collect();
        return fail(
            "lesson.next".into(),
            &format!(
                "{:?} is neither a lesson (accepted: {}) nor a lesson file's URL (ending in .json, relative to this file or absolute)",
                l.next,
                ids.join(", ")
            ),
        );
    }
    Ok(())
}

/// Whether `next` names a lesson file by URL (what `?lesson-url=` opens): a path or URL
/// ending in `.json`, without spaces or a scheme other than http(s).
pub fn is_lesson_url(next: &str) -> bool {
    let scheme_ok = !next.contains("://") || next.starts_with("https://") || next.starts_with("http://");
    next.ends_with(".json") && scheme_ok && !next.contains(char::is_whitespace) && next.len() <= 2000
}

/// What the page shows while question `q` is open, for [`giveaways`]: the goal (both forms,
/// and its checklist), every step's text (a step's outcome and its kernel words come after
/// its commands), the evidence's labels and the question itself.
pub fn shown_with(l: &Lesson, q: &Prediction) -> String {
    let mut shown = vec![l.title.as_str(), l.goal.as_str(), q.question.as_str()];
    if let Some(c) = &l.challenge {
        shown.push(&c.goal);
    }
    shown.extend(l.steps.iter().map(|s| s.text.as_str()));
    shown.extend(l.evidence.iter().map(|e| e.label.as_str()));
    let labels: Vec<String> = l.check.iter().map(Check::describe).collect();
    let mut text = shown.join("\n");
    for label in labels {
        text.push('\n');
        text.push_str(&label);
    }
    text.to_lowercase()
}

/// The words that tell a question's answer and that the page shows with it (empty: every
/// question asks): `(question index, choice index, the word)`.
pub fn giveaways(l: &Lesson) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (i, q) in l.predict.iter().enumerate() {
        let shown = shown_with(l, q);
        for (j, c) in q.choices.iter().enumerate() {
            for t in &c.tells {
                if shown.contains(&t.to_lowercase()) {
                    out.push((i, j, t.clone()));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Report;

    fn samples(values: &[u64]) -> Vec<(u64, Report)> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u64 * 100_000_000, Report(serde_json::json!({ "m": v, "x": 40.5 }))))
            .collect()
    }

    #[test]
    fn a_figure_is_a_full_seconds_rate_or_a_value() {
        // 1,000 a second for 2 s, then 3,000 a second.
        let v: Vec<u64> = (0..=40)
            .map(|i| if i <= 20 { i * 100 } else { 2000 + (i - 20) * 300 })
            .collect();
        let s = samples(&v);
        assert_eq!(
            figure(&s, "m", true, 900_000_000),
            None,
            "less than a second of samples"
        );
        assert_eq!(figure(&s, "m", true, 2_000_000_000), Some(1000.0));
        assert_eq!(
            figure(&s, "m", true, 2_050_000_000),
            Some(1000.0),
            "the last sample at or before"
        );
        assert_eq!(figure(&s, "m", true, 4_000_000_000), Some(3000.0));
        assert_eq!(figure(&s, "x", false, 4_000_000_000), Some(40.5));
        assert_eq!(figure(&s, "nope", true, 4_000_000_000), None);
    }

    #[test]
    fn the_engine_answers_once_the_second_after_the_settling_one_has_passed() {
        let v: Vec<u64> = (0..=50)
            .map(|i| if i <= 20 { i * 100 } else { 2000 + (i - 20) * 10 })
            .collect();
        let s = samples(&v);
        let choice = |text: &str, op, value| Choice {
            text: text.into(),
            when: vec![Outcome {
                metric: "m".into(),
                rate: true,
                compare: Compare::Ratio,
                op,
                value,
            }],
            why: String::new(),
            tells: Vec::new(),
        };
        let p = Prediction {
            step: 0,
            question: "?".into(),
            choices: vec![choice("stays", Op::Gt, 0.5), choice("falls tenfold", Op::Lt, 0.2)],
            explain: String::new(),
            answer: None,
        };
        // The change at 2 s: 1,000/s before, 100/s after.
        assert_eq!(p.answer(&s[..40], 2_000_000_000, 2_000_000_000), None, "not yet 4 s");
        assert_eq!(p.answer(&s, 2_000_000_000, 2_000_000_000), Some(Some(1)));
        let none = Prediction {
            choices: vec![choice("stays", Op::Gt, 0.5)],
            ..p
        };
        assert_eq!(none.answer(&s, 2_000_000_000, 2_000_000_000), Some(None));
    }

    #[test]
    fn a_change_in_the_first_second_is_measured_against_what_came_before_it() {
        // 1,000 a second until 0.4 s, then 100 a second.
        let v: Vec<u64> = (0..=40)
            .map(|i| if i <= 4 { i * 100 } else { 400 + (i - 4) * 10 })
            .collect();
        let s = samples(&v);
        assert_eq!(figure(&s, "m", true, 400_000_000), None, "no full second");
        assert_eq!(figure_before(&s, "m", true, 400_000_000), Some(1000.0), "0 to 0.4 s");
        assert_eq!(
            figure_before(&s, "m", true, 2_500_000_000),
            Some(100.0),
            "a full second when there is one"
        );
        assert_eq!(
            figure_before(&s, "m", true, 50_000_000),
            None,
            "less than a sample interval"
        );
        assert_eq!(
            figure_before(&s, "x", false, 50_000_000),
            Some(40.5),
            "a value needs no past"
        );
        let p = Prediction {
            step: 0,
            question: "?".into(),
            choices: vec![Choice {
                text: "falls tenfold".into(),
                when: vec![Outcome {
                    metric: "m".into(),
                    rate: true,
                    compare: Compare::Ratio,
                    op: Op::Lt,
                    value: 0.2,
                }],
                why: String::new(),
                tells: Vec::new(),
            }],
            explain: String::new(),
            answer: None,
        };
        assert_eq!(p.answer(&s, 400_000_000, 400_000_000), Some(Some(0)));
    }
}
