//! A learner's way through a lesson: which step is current (it follows the commands the
//! learner types, not only the "Next step" button, and after the last step comes the
//! lesson's end), the questions asked before key commands and the engine's answers, the
//! challenge form and its hints, whether the goal was met (the lesson is then complete, for
//! good) and which command undid it, and where the evidence strip's "before" is taken.

use serde::{Deserialize, Serialize};
use steerlab_scenario::permalink::Applied;
use steerlab_scenario::teach::Prediction;
use steerlab_scenario::{Check, Lesson, Totals};

use super::evidence::{self, EvidenceView};

/// One question of the lesson as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PredictView {
    /// The question.
    pub question: String,
    /// The answers offered.
    pub choices: Vec<String>,
    /// The learner's answer.
    pub chosen: Option<usize>,
    /// The step's commands have run: the engine is answering (a settling second, then a
    /// measured one).
    pub measuring: bool,
    /// Time is paused (set by the view): a measuring answer waits for Play.
    pub paused: bool,
    /// What the engine did: the answer it picked (`Some(None)`: none of them).
    pub engine: Option<Option<usize>>,
    /// Once answered: the kernel's explanation, and why each answer is right or wrong.
    pub explain: String,
    /// Per answer, why (once answered).
    pub why: Vec<String>,
}

/// The challenge form as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeView {
    /// The goal, naming no command.
    pub goal: String,
    /// The hints asked for so far.
    pub hints: Vec<String>,
    /// Hints there are in all.
    pub hints_total: usize,
}

/// The lesson's ending, once its goal was met.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompleteView {
    /// What was learned, in two lines.
    pub learned: String,
    /// The next lesson's id and title (none after the last).
    pub next: Option<(String, String)>,
}

/// A question's state: the learner's answer and the step's commands as they ran.
#[derive(Clone, Debug, Default)]
struct Answer {
    chosen: Option<usize>,
    /// Simulated time of the step's first and last command.
    first_ns: Option<u64>,
    last_ns: Option<u64>,
    /// The engine's answer, once measured.
    engine: Option<Option<usize>>,
}

/// The learner's progress through one lesson.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// The current step; the number of steps means the lesson's end.
    pub step: usize,
    /// Per step, which of its commands the learner has run.
    typed: Vec<Vec<bool>>,
    /// The goal was met at some time since the start: the lesson is complete, for good.
    pub met_once: bool,
    /// The evidence figures measured before the first command typed while a step was
    /// current (in the challenge form, before the learner's first change): when, that step,
    /// the figures. The next step's first command measures them anew.
    before: Option<(u64, usize, Vec<Option<f64>>)>,
    /// The challenge form: no steps, the challenge's goal, hints on request.
    challenge: bool,
    hints: usize,
    answers: Vec<Answer>,
    /// The goal's checks as last evaluated on the raw samples (ignoring the learner's
    /// changes), to see the moment it fails after being met.
    raw_goal: Option<bool>,
    /// The command that undid the goal: the latest before the first window it failed in.
    undone_by: Option<String>,
    /// Each step's text with its figures as they were when the learner left the step.
    frozen: Vec<Option<String>>,
    /// The step whose text is filled live.
    live_step: usize,
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
            answers: vec![Answer::default(); lesson.predict.len()],
            frozen: vec![None; lesson.steps.len()],
            ..Progress::default()
        }
    }

    /// Moves to the next step; after the last, to the lesson's end (never back to the first).
    pub fn next(&mut self) {
        self.step = (self.step + 1).min(self.typed.len());
    }

    /// Switches to the challenge form (or back to the guided steps).
    pub fn set_challenge(&mut self, on: bool) {
        self.challenge = on;
    }

    /// The challenge form is on.
    pub fn challenge(&self) -> bool {
        self.challenge
    }

    /// Shows one more hint of the challenge.
    pub fn hint(&mut self, lesson: &Lesson) {
        let total = lesson.challenge.as_ref().map_or(0, |c| c.hints.len());
        self.hints = (self.hints + 1).min(total);
    }

    /// The goal's checks: the challenge's own in the challenge form, else the lesson's.
    pub fn checks<'a>(&self, lesson: &'a Lesson) -> &'a [Check] {
        match &lesson.challenge {
            Some(c) if self.challenge && !c.check.is_empty() => &c.check,
            _ => &lesson.check,
        }
    }

    /// The learner's answer to the question asked now (ignored once its commands ran).
    pub fn answer(&mut self, lesson: &Lesson, choice: usize) {
        if let Some(i) = self.asked(lesson) {
            let a = &mut self.answers[i];
            if a.first_ns.is_none() && choice < lesson.predict[i].choices.len() {
                a.chosen = Some(choice);
            }
        }
    }

    /// The question of the current step, if it has one.
    fn asked(&self, lesson: &Lesson) -> Option<usize> {
        lesson.predict.iter().position(|p| p.step == self.step)
    }

    /// A command succeeded at `now`. Marks it typed in every step that names it; when that
    /// completes a step at or after the current one, the step after it becomes current. The
    /// evidence before the change is measured at the current step's first command.
    pub fn command(&mut self, lesson: &Lesson, line: &str, now: u64, samples: &[(u64, Totals)]) {
        let fresh = match &self.before {
            None => true,
            Some((_, step, _)) => !self.challenge && *step != self.step,
        };
        if fresh {
            self.before = Some((now, self.step, evidence::before(&lesson.evidence, samples, now)));
        }
        let mut done = None;
        for (k, step) in lesson.steps.iter().enumerate() {
            for (i, c) in step.commands.iter().enumerate() {
                if same_line(c, line) {
                    self.typed[k][i] = true;
                    if k >= self.step && self.typed[k].iter().all(|&t| t) {
                        done = Some(k);
                    }
                    // A question's step: its commands are what the engine's answer follows.
                    if let Some(q) = lesson.predict.iter().position(|p| p.step == k) {
                        let a = &mut self.answers[q];
                        a.first_ns.get_or_insert(now);
                        a.last_ns = Some(now);
                        a.engine = None;
                    }
                }
            }
        }
        if let Some(k) = done {
            // The last step stays current once done: "Next step" leads to the lesson's end.
            self.step = (k + 1).min(self.typed.len().saturating_sub(1));
        }
    }

    /// Time went back to `t`: what the learner did after it is forgotten. Steps are ticked by
    /// the commands still `applied`; a question whose commands ran after `t` is open again.
    pub fn rewound(&mut self, t: u64, lesson: &Lesson, applied: &[Applied]) {
        if self.before.as_ref().is_some_and(|(at, _, _)| *at > t) {
            self.before = None;
        }
        for (k, step) in lesson.steps.iter().enumerate() {
            for (i, c) in step.commands.iter().enumerate() {
                self.typed[k][i] = applied.iter().any(|a| same_line(c, &a.command));
            }
        }
        for a in &mut self.answers {
            if a.first_ns.is_some_and(|f| f > t) {
                (a.first_ns, a.last_ns, a.engine) = (None, None, None);
            }
        }
        self.raw_goal = None;
    }

    /// After a sample: the engine answers questions whose commands have run long enough, and
    /// a goal met earlier that now fails is blamed on the latest command at or before the
    /// end of the first window it failed in (`raw`: the checks on the samples alone).
    pub fn sampled(&mut self, lesson: &Lesson, samples: &[(u64, Totals)], applied: &[Applied], raw: Option<bool>) {
        for (p, a) in lesson.predict.iter().zip(&mut self.answers) {
            if let (None, Some(first), Some(last)) = (a.engine, a.first_ns, a.last_ns) {
                a.engine = p.answer(samples, first, last);
            }
        }
        let now = samples.last().map_or(0, |(t, _)| *t);
        if self.met_once && self.raw_goal == Some(true) && raw == Some(false) && self.undone_by.is_none() {
            self.undone_by = applied.iter().rev().find(|a| a.at_ns <= now).map(|a| a.command.clone());
        }
        if raw.is_some() {
            self.raw_goal = raw;
        }
    }

    /// The step changed since the last call: the step left keeps its figures as they are now.
    pub fn track_step(&mut self, lesson: &Lesson, samples: &[(u64, Totals)]) {
        if self.step != self.live_step {
            if let (Some(slot), Some(step)) = (self.frozen.get_mut(self.live_step), lesson.steps.get(self.live_step)) {
                *slot = Some(super::texts::fill(&step.text, samples));
            }
            self.live_step = self.step;
            if let Some(slot) = self.frozen.get_mut(self.step) {
                *slot = None;
            }
        }
    }

    /// Step `k`'s text: as it was when the learner left it, else with the figures of now.
    pub fn step_text(&self, lesson: &Lesson, k: usize, samples: &[(u64, Totals)]) -> String {
        match self.frozen.get(k).and_then(Option::as_ref) {
            Some(t) => t.clone(),
            None => super::texts::fill(&lesson.steps[k].text, samples),
        }
    }

    /// The goal is met (again): nothing undid it.
    pub fn met(&mut self) {
        self.met_once = true;
        self.undone_by = None;
    }

    /// The command that undid a goal met earlier.
    pub fn undone_by(&self) -> Option<&str> {
        self.undone_by.as_deref()
    }

    /// Per step, whether all its commands were run (steps without commands: `false`).
    pub fn steps_done(&self) -> Vec<bool> {
        self.typed
            .iter()
            .map(|t| !t.is_empty() && t.iter().all(|&x| x))
            .collect()
    }

    /// The evidence strip now.
    pub fn evidence(
        &self,
        lesson: &Lesson,
        samples: &[(u64, Totals)],
        last_change: Option<u64>,
        paused: bool,
    ) -> Vec<EvidenceView> {
        let before = self.before.as_ref().map(|(_, _, v)| v.as_slice());
        evidence::strip(&lesson.evidence, before, samples, last_change, paused)
    }

    /// The question to show: the current step's, else the latest one whose commands ran (its
    /// answer comes while the next step is current).
    pub fn predict_view(&self, lesson: &Lesson) -> Option<PredictView> {
        let i = self.asked(lesson).or_else(|| {
            (0..lesson.predict.len())
                .rev()
                .find(|&i| self.answers[i].first_ns.is_some() && lesson.predict[i].step < self.step)
        })?;
        let (p, a): (&Prediction, &Answer) = (&lesson.predict[i], &self.answers[i]);
        let resolved = a.engine.is_some();
        Some(PredictView {
            question: p.question.clone(),
            choices: p.choices.iter().map(|c| c.text.clone()).collect(),
            chosen: a.chosen,
            measuring: a.first_ns.is_some() && !resolved,
            paused: false,
            engine: a.engine,
            explain: if resolved { p.explain.clone() } else { String::new() },
            why: if resolved {
                p.choices.iter().map(|c| c.why.clone()).collect()
            } else {
                Vec::new()
            },
        })
    }

    /// The challenge form, when on.
    pub fn challenge_view(&self, lesson: &Lesson) -> Option<ChallengeView> {
        let c = lesson.challenge.as_ref().filter(|_| self.challenge)?;
        Some(ChallengeView {
            goal: c.goal.clone(),
            hints: c.hints.iter().take(self.hints).cloned().collect(),
            hints_total: c.hints.len(),
        })
    }

    /// The lesson's ending, once the goal was met.
    pub fn complete_view(&self, lesson: &Lesson) -> Option<CompleteView> {
        if !self.met_once {
            return None;
        }
        let next = steerlab_scenario::lesson_title(&lesson.next).map(|title| (lesson.next.clone(), title.to_string()));
        Some(CompleteView {
            learned: lesson.learned.clone(),
            next,
        })
    }
}
