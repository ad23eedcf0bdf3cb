//! What the course page embedding a lesson has been told of the learner's way through it
//! (issue 49, "progress to the course page"): every moment a teacher grades, once, as a
//! `steerlab:event`: `step` (a step reached), `predict` (a question answered by the engine:
//! the learner's choice and whether it was right), `hint` (how many taken), `goal-met`,
//! `goal-lost` (a later change undid it, and which), and `lesson-complete` with the learner's
//! score, the first time the goal is met. From both hosts of the compare view too, each
//! naming its host.

use serde_json::{json, Value};

use crate::controller::Controller;
use crate::protocol::embed;

/// What has been said of one host.
#[derive(Default)]
pub(super) struct Told {
    step: Option<usize>,
    answered: Vec<bool>,
    hints: usize,
    met: Option<bool>,
    complete: bool,
}

impl Told {
    /// Forgets what was said (a lesson opened anew, a reset).
    pub(super) fn clear(&mut self) {
        *self = Told::default();
    }

    /// The moments since the last call, as `steerlab:event` messages; `host` names the host
    /// in the compare view; `wall_s` is the learner's wall-clock time on the lesson so far.
    pub(super) fn news(&mut self, c: &Controller, host: Option<&str>, wall_s: f64) -> Vec<Value> {
        let lesson = &c.scenario().lesson;
        let id = c.scenario().id.as_str();
        let p = c.progress();
        let mut out = Vec::new();
        let student = c.student();
        let mut say = |kind: &str, mut detail: Value| {
            detail["lesson"] = json!(id);
            if let Some(s) = student {
                detail["student"] = json!(s);
            }
            if let Some(h) = host {
                detail["host"] = json!(h);
            }
            out.push(embed::event(kind, detail));
        };
        // Each step from the last one told to the current one (Next pressed twice between two
        // messages is two steps reached).
        let from = self.step.map_or(0, |s| s + 1);
        if !lesson.steps.is_empty() && !p.challenge() && from <= p.step {
            for k in from..=p.step {
                let text = lesson.steps.get(k).map_or("the lesson's end", |s| s.text.as_str());
                say(
                    "step",
                    json!({ "step": k + 1, "steps": lesson.steps.len(), "text": text }),
                );
            }
            self.step = Some(p.step);
        }
        let answers = p.answers();
        self.answered.resize(answers.len(), false);
        for (i, chosen, engine) in answers {
            let Some(engine) = engine.filter(|_| !self.answered[i]) else {
                continue;
            };
            self.answered[i] = true;
            let q = &lesson.predict[i];
            let text = |k: Option<usize>| k.and_then(|k| q.choices.get(k)).map(|c| c.text.as_str());
            say(
                "predict",
                json!({ "question": i + 1, "choice": chosen.map(|k| k + 1), "choice_text": text(chosen),
                        "answer": engine.map(|k| k + 1), "answer_text": text(engine),
                        "right": chosen.is_some() && chosen == engine }),
            );
        }
        let hints = p.hints_taken();
        if hints > self.hints {
            self.hints = hints;
            let total = lesson.challenge.as_ref().map_or(0, |c| c.hints.len());
            say("hint", json!({ "hints": hints, "of": total }));
        }
        let met = c.goal_met();
        if met.is_some() && met != self.met {
            match met {
                Some(true) => say("goal-met", json!({})),
                _ if self.met == Some(true) => say("goal-lost", json!({ "undone_by": p.undone_by() })),
                _ => {}
            }
            self.met = met;
        }
        // Complete once the engine has answered every question the learner's commands asked
        // (a second after the goal, at most): the score counts the answer.
        if p.met_once && !self.complete && !p.answers_pending() {
            self.complete = true;
            let s = p.score(lesson);
            say(
                "lesson-complete",
                json!({ "score": {
                    "points": s.points(), "form": if s.challenge { "challenge" } else { "guided" },
                    "questions": s.questions, "predicted": s.predicted, "right": s.right,
                    "hints": s.hints, "shortcuts": s.shortcuts,
                    "sim_seconds": s.sim_ms as f64 / 1000.0, "wall_seconds": (wall_s * 10.0).round() / 10.0,
                } }),
            );
        }
        out
    }
}
