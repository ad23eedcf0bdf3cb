//! A learner's way through a lesson: which step is current (the "Next step" button moves it,
//! one step at a time, so that no step is skipped; typing a later step's commands moves to
//! that step; after the last step comes the lesson's end), the questions asked before key
//! commands and the engine's answers (a step's command typed before its question is answered
//! waits for the answer), the challenge form and its hints, whether the goal was met (the
//! lesson is then complete, for good) and which command undid it, the wrong ways the learner
//! took, where the evidence strip's "before" is taken, and the learner's score.

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
    /// What the learner did, as the ending says it and the course page hears it.
    pub score: Score,
}

/// The learner's own score (teaching.md: "a score is what the learner did"): said to them in
/// the ending, and sent to the embedding course page with `lesson-complete`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    /// The challenge form (else the guided steps).
    pub challenge: bool,
    /// Questions answered before their commands ran, and how many of those were right.
    pub predicted: u32,
    /// Of those, right.
    pub right: u32,
    /// Questions in the lesson.
    pub questions: u32,
    /// Hints taken (challenge form).
    pub hints: u32,
    /// Wrong ways tried: changes that removed the symptom some other way than the lesson's
    /// mechanism (each counted once).
    pub shortcuts: u32,
    /// Simulated ms from the lesson's start to the goal.
    pub sim_ms: u64,
}

impl Score {
    /// Out of 100, the rule the README gives trainers: 100 for the goal met, 20 off for a
    /// wrong or missing prediction, 10 off per hint and per wrong way tried, never below 40
    /// (the goal was met).
    pub fn points(&self) -> u32 {
        let missed = self.questions.saturating_sub(self.right);
        let off = 20 * missed + 10 * (self.hints + self.shortcuts);
        100u32.saturating_sub(off).max(40)
    }
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
    /// The current step; the number of steps means the lesson's end. Only "Next step" and a
    /// later step's commands move it: a step whose commands ran stays current, done, until
    /// the learner moves on.
    pub step: usize,
    /// Per step, which of its commands the learner has run.
    typed: Vec<Vec<bool>>,
    /// The goal was met at some time since the start: the lesson is complete, for good.
    pub met_once: bool,
    /// The evidence figures measured over the second before the learner's first change: when,
    /// the step then current, the figures.
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
    frozen: Vec<Option<(String, String)>>,
    /// The step whose text is filled live.
    live_step: usize,
    /// A step's command the learner typed before answering its question: it runs once they
    /// answer (or type it again).
    held: Option<String>,
    /// The wrong ways seen (the text that said why each does not count), once each.
    shortcuts: Vec<String>,
    /// Simulated time the goal was first met.
    met_at: Option<u64>,
    /// The drop counters the learner has printed (`reading::shown_by`): where the lesson has
    /// them find the place, the page shows a place's count only once read.
    read: Vec<&'static str>,
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

    /// Whether `line` is a command of a step whose question is open (not answered, its
    /// commands not run yet): it should wait for the answer, and that step becomes current
    /// (its question shows there). A line typed a second time runs (the learner chose not to
    /// predict).
    pub fn hold(&mut self, lesson: &Lesson, line: &str) -> bool {
        if self.challenge || self.held.as_deref().is_some_and(|h| same_line(h, line)) {
            self.held = None;
            return false;
        }
        let open = lesson.predict.iter().zip(&self.answers).find(|(p, a)| {
            a.chosen.is_none()
                && a.first_ns.is_none()
                && p.step >= self.step
                && lesson.steps[p.step].commands.iter().any(|c| same_line(c, line))
        });
        let Some((p, _)) = open else {
            return false;
        };
        self.held = Some(line.to_string());
        self.step = p.step;
        true
    }

    /// The command waiting for the question's answer, taken (it runs now).
    pub fn take_held(&mut self) -> Option<String> {
        self.held.take()
    }

    /// The command waiting for the question's answer.
    pub fn held(&self) -> Option<&str> {
        self.held.as_deref()
    }

    /// A wrong way the learner took, said to them as `why`, after `last` (their last
    /// command): counted once in the score, unless a guided step had them type it (a step may
    /// show a wrong way on purpose: "load the plain dropper … this does not meet the goal").
    pub fn shortcut(&mut self, lesson: &Lesson, why: &str, last: Option<&str>) {
        let a_step = !self.challenge
            && last.is_some_and(|l| lesson.steps.iter().any(|s| s.commands.iter().any(|c| same_line(c, l))));
        if !a_step && !self.shortcuts.iter().any(|s| s == why) {
            self.shortcuts.push(why.to_string());
        }
    }

    /// Switches to the challenge form (or back to the guided steps).
    pub fn set_challenge(&mut self, on: bool) {
        self.challenge = on;
    }

    /// The challenge form is on.
    pub fn challenge(&self) -> bool {
        self.challenge
    }

    /// Hints taken so far.
    pub fn hints_taken(&self) -> usize {
        self.hints
    }

    /// Shows one more hint of the challenge.
    pub fn hint(&mut self, lesson: &Lesson) {
        let total = lesson.challenge.as_ref().map_or(0, |c| c.hints.len());
        self.hints = (self.hints + 1).min(total);
    }

    /// The goal's checks: the challenge's own in the challenge form, else the lesson's.
    pub fn checks<'a>(&self, lesson: &'a Lesson) -> &'a [Check] {
        lesson.goal(self.challenge)
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
    /// completes a step after the current one, that step becomes current (the current one
    /// stays current, done: "Next step" moves on, so that nothing is skipped). The evidence
    /// before is measured at the learner's first change.
    pub fn command(&mut self, lesson: &Lesson, line: &str, now: u64, samples: &[(u64, Totals)], changed: bool) {
        // The strip compares with the lesson as the learner found it: the second before their
        // first change, whatever step they are at (a later step's baseline would compare a
        // step with the one before it: 38.94 ns = 38.94 ns). A command that only read is
        // not a change.
        if self.before.is_none() && changed {
            self.before = Some((now, self.step, evidence::before(&lesson.evidence, samples, now)));
        }
        for m in steerlab_scenario::reading::shown_by(line) {
            if !self.read.contains(&m) {
                self.read.push(m);
            }
        }
        let mut done = None;
        for (k, step) in lesson.steps.iter().enumerate() {
            for (i, c) in step.commands.iter().enumerate() {
                if same_line(c, line) {
                    self.typed[k][i] = true;
                    if self.typed[k].iter().all(|&t| t) {
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
        if let Some(k) = done.filter(|&k| k > self.step) {
            self.step = k;
        }
        // A step left earlier whose commands ran now shows what they did.
        if let Some(k) = done.filter(|&k| self.frozen.get(k).is_some_and(Option::is_some)) {
            self.frozen[k] = Some(self.live_texts(lesson, k, samples));
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
            if self.live_step < self.frozen.len() {
                self.frozen[self.live_step] = Some(self.live_texts(lesson, self.live_step, samples));
            }
            self.live_step = self.step;
            if let Some(slot) = self.frozen.get_mut(self.step) {
                *slot = None;
            }
        }
    }

    /// Step `k`'s text and outcome (empty until its commands ran): as they were when the
    /// learner left it, else with the figures of now.
    pub fn step_text(&self, lesson: &Lesson, k: usize, samples: &[(u64, Totals)]) -> (String, String) {
        match self.frozen.get(k).and_then(Option::as_ref) {
            Some(t) => t.clone(),
            None => self.live_texts(lesson, k, samples),
        }
    }

    /// Step `k`'s text and outcome with the figures of now; the outcome only once the step's
    /// commands have all run (it says what they did).
    fn live_texts(&self, lesson: &Lesson, k: usize, samples: &[(u64, Totals)]) -> (String, String) {
        let step = &lesson.steps[k];
        let done = self.typed.get(k).is_some_and(|t| !t.is_empty() && t.iter().all(|&x| x));
        let outcome = if done && !step.outcome.is_empty() {
            super::texts::fill(&step.outcome, samples)
        } else {
            String::new()
        };
        (super::texts::fill(&step.text, samples), outcome)
    }

    /// The goal is met (again) at `now`: nothing undid it.
    pub fn met(&mut self, now: u64) {
        self.met_once = true;
        self.met_at.get_or_insert(now);
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

    /// The command the learner is to run before the page shows `metric`: where `lesson` has
    /// them find where packets drop ([`Lesson::find_by_reading`]), a drop place's count stays
    /// hidden until a command that prints it ran, or the goal was met.
    pub fn hidden(&self, lesson: &Lesson, metric: &str) -> Option<&'static str> {
        if !lesson.find_by_reading || self.met_once || self.read.contains(&metric) {
            return None;
        }
        steerlab_scenario::reading::command_for(metric)
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
        let mut strip = evidence::strip(&lesson.evidence, before, samples, last_change, paused);
        for (view, e) in strip.iter_mut().zip(&lesson.evidence) {
            if let Some(command) = self.hidden(lesson, &e.metric) {
                view.conceal(command);
            }
        }
        strip
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
        let next = match steerlab_scenario::lesson_title(&lesson.next) {
            Some(title) => Some((lesson.next.clone(), title.to_string())),
            // A trainer's next lesson file, by URL: the page opens it (`?lesson-url=`).
            None if steerlab_scenario::teach::is_lesson_url(&lesson.next) => {
                Some((lesson.next.clone(), "the course's next lesson".to_string()))
            }
            None => None,
        };
        Some(CompleteView {
            learned: lesson.learned.clone(),
            next,
            score: self.score(lesson),
        })
    }

    /// What the learner did so far.
    pub fn score(&self, lesson: &Lesson) -> Score {
        let predicted = self.answers.iter().filter(|a| a.chosen.is_some()).count() as u32;
        let right = lesson
            .predict
            .iter()
            .zip(&self.answers)
            .filter(|(_, a)| a.chosen.is_some() && a.engine == Some(a.chosen))
            .count() as u32;
        Score {
            challenge: self.challenge,
            predicted,
            right,
            questions: if self.challenge { 0 } else { lesson.predict.len() as u32 },
            hints: self.hints as u32,
            shortcuts: self.shortcuts.len() as u32,
            sim_ms: self.met_at.unwrap_or(0) / 1_000_000,
        }
    }

    /// A question whose commands ran is still being answered by the engine (its score is
    /// not known yet).
    pub fn answers_pending(&self) -> bool {
        self.answers.iter().any(|a| a.first_ns.is_some() && a.engine.is_none())
    }

    /// Each question's answer as the course page hears it (`predict` events): the question's
    /// index, the learner's choice, the engine's answer once measured.
    pub fn answers(&self) -> Vec<(usize, Option<usize>, Option<Option<usize>>)> {
        self.answers
            .iter()
            .enumerate()
            .map(|(i, a)| (i, a.chosen, a.engine))
            .collect()
    }
}
