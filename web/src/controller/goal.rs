//! The lesson's goal on the page, judged as `steerlab lesson check` judges it
//! (`steerlab_scenario::judge`, over the samples the history keeps, with the lesson's start
//! and the host now), once per sample: the verdict and each part's, what the page says to a
//! learner who removed the symptom some other way than the lesson's mechanism, and the
//! lesson's start (the untouched scenario's first [`START_NS`]), taken from the history when
//! the learner changed nothing before it, else replayed once from the start's snapshot.

use serde::{Deserialize, Serialize};
use steerlab_engine::Sim;
use steerlab_scenario::permalink::Applied;
use steerlab_scenario::{Check, Judged, Lesson, Scenario, Totals, Verdict, START_NS};

/// One part of the goal as the page's checklist shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalPart {
    /// What it asks.
    pub label: String,
    /// Holds (`None`: not judged yet, the figures still settling after a change, or unread).
    pub holds: Option<bool>,
    /// The command that prints its figure, while the lesson has the learner find where
    /// packets drop (`Lesson::find_by_reading`): its verdict would say where.
    pub unread: Option<String>,
}

/// How long a wrong way must stand before the score counts it (simulated ns): a learner
/// typing the lines of a right way passes through states that look like wrong ones (the
/// filters deleted before the new ones are added).
const SHORTCUT_STANDS_NS: u64 = 3_000_000_000;

/// The goal's state on one host.
#[derive(Default)]
pub(super) struct GoalState {
    /// The untouched scenario's samples through [`START_NS`], once known.
    start: Option<Vec<(u64, Totals)>>,
    /// The last verdict (with the learner's last change: only what happened after it).
    pub verdict: Verdict,
    /// What the page says of a wrong way the learner took, and since when it stands.
    pub shortcut: Option<(String, u64)>,
}

impl GoalState {
    /// Judges `checks` at the last sample: `samples` with `applied` the learner's commands,
    /// `at_zero` the host at time 0 (for the start, when it must be replayed).
    pub(super) fn judge(
        &mut self,
        (scenario, checks): (&Scenario, &[Check]),
        samples: &[(u64, Totals)],
        applied: &[Applied],
        sim: &Sim,
        at_zero: Option<&Sim>,
        arrays: bool,
    ) {
        if steerlab_scenario::goal::needs_start(checks) && self.start.is_none() {
            self.start = at_zero.and_then(|z| start(scenario, samples, applied, z, arrays));
        }
        let since_ns = applied.last().map_or(0, |a| a.at_ns);
        self.verdict = steerlab_scenario::judge(
            checks,
            &Judged {
                samples,
                since_ns,
                start: self.start.as_deref(),
                sim,
            },
        );
        let now = samples.last().map_or(0, |(t, _)| *t);
        let text = wrong_way(&scenario.lesson, checks, &self.verdict, applied);
        self.shortcut = match (text, self.shortcut.take()) {
            (Some(t), Some((old, at))) if t == old => Some((old, at)),
            (Some(t), _) => Some((t, now)),
            (None, _) => None,
        };
    }

    /// The wrong way to count in the score: one that stood [`SHORTCUT_STANDS_NS`] by `now`.
    pub(super) fn standing_shortcut(&self, now: u64) -> Option<&str> {
        self.shortcut
            .as_ref()
            .filter(|(_, at)| now.saturating_sub(*at) >= SHORTCUT_STANDS_NS)
            .map(|(t, _)| t.as_str())
    }

    /// The checklist: each part's words and verdict; a part on a figure `hidden` names a
    /// command for keeps its verdict to itself.
    pub(super) fn parts(&self, checks: &[Check], hidden: impl Fn(&str) -> Option<&'static str>) -> Vec<GoalPart> {
        checks
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let unread = match &c.part {
                    steerlab_scenario::Part::Figure { metric, .. } => hidden(metric).map(String::from),
                    _ => None,
                };
                GoalPart {
                    label: c.describe(),
                    holds: self
                        .verdict
                        .parts
                        .get(i)
                        .copied()
                        .flatten()
                        .filter(|_| unread.is_none()),
                    unread,
                }
            })
            .collect()
    }

    /// The history was rewound or the host replaced: judged anew at the next sample (the
    /// start stays: it is the scenario's).
    pub(super) fn rewound(&mut self) {
        self.verdict = Verdict::default();
        self.shortcut = None;
    }
}

/// The lesson's start: the history's own samples when the learner changed nothing before
/// [`START_NS`] and it has them, else the untouched scenario replayed from `at_zero` once
/// time has passed the start (`None` before: nothing to compare with yet).
fn start(
    scenario: &Scenario,
    samples: &[(u64, Totals)],
    applied: &[Applied],
    at_zero: &Sim,
    arrays: bool,
) -> Option<Vec<(u64, Totals)>> {
    let untouched = applied.first().is_none_or(|a| a.at_ns > START_NS);
    let covered = samples.first().is_some_and(|(t, _)| *t == 0) && samples.last().is_some_and(|(t, _)| *t >= START_NS);
    if untouched && covered {
        return Some(samples.iter().filter(|(t, _)| *t <= START_NS).cloned().collect());
    }
    if untouched {
        return None;
    }
    steerlab_scenario::start_samples(scenario, at_zero, arrays).ok()
}

/// What to tell a learner whose change removed the symptom some other way: the goal fails,
/// every part that names the symptom (a part without `fails`) holds, and a part that names
/// the mechanism or the service does not. A listed wrong way (`not_solutions`) whose last
/// line is the learner's last command speaks in its own words.
fn wrong_way(lesson: &Lesson, checks: &[Check], v: &Verdict, applied: &[Applied]) -> Option<String> {
    if v.met != Some(false) || applied.is_empty() {
        return None;
    }
    let parts = || checks.iter().zip(&v.parts);
    if !parts()
        .filter(|(c, _)| c.fails.is_empty())
        .all(|(_, p)| *p == Some(true))
    {
        return None;
    }
    let (failing, _) = parts().find(|(c, p)| **p == Some(false) && !c.fails.is_empty())?;
    let same = |a: &str, b: &str| a.split_whitespace().eq(b.split_whitespace());
    let last = &applied.last()?.command;
    let listed = lesson.not_solutions.iter().find(|n| {
        n.commands.last().is_some_and(|c| same(c, last))
            && n.commands.iter().all(|c| applied.iter().any(|a| same(&a.command, c)))
    });
    Some(listed.map_or_else(|| failing.fails.clone(), |n| n.why.clone()))
}
