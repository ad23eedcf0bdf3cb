//! A lesson played headless, as `steerlab lesson check` and the tests play one: the scenario
//! run on its timeline, its figures sampled every [`SAMPLE_NS`] of simulated time as the
//! page samples them, console lines applied between ticks as a learner types them, and the
//! goal judged as the page judges it ([`crate::judge`] over the same samples, the same
//! start).

use steerlab_engine::{Nanos, Sim};

use crate::goal::{self, Judged, Verdict, START_NS};
use crate::{Check, Lesson, Scenario, ScenarioError, Totals};

/// Simulated time a learner reads before the first change: past the lesson's start, so that
/// a goal comparing with it compares with what the learner saw.
pub const READ_NS: u64 = START_NS;
/// How long after a change the goal may take to be met: its windows, and the settling of
/// what the change set moving.
pub const WATCH_NS: u64 = 6_000_000_000;

/// Sampling period of the figures (the page's too: `web/src/controller/history.rs`).
pub const SAMPLE_NS: u64 = 100_000_000;

impl Lesson {
    /// Every figure path the lesson reads: its goals' (both forms), its questions', its
    /// evidence's.
    pub fn figure_paths(&self) -> Vec<&str> {
        let checks = self
            .check
            .iter()
            .chain(self.challenge.iter().flat_map(|c| c.check.iter()));
        let outcomes = self
            .predict
            .iter()
            .flat_map(|p| p.choices.iter().flat_map(|c| c.when.iter()));
        checks
            .flat_map(Check::metrics)
            .chain(outcomes.map(|o| o.metric.as_str()))
            .chain(self.evidence.iter().map(|e| e.metric.as_str()))
            .collect()
    }

    /// Whether its samples must carry the per-queue and per-CPU arrays (a figure it reads is
    /// an element of one): on a big host they cost most of a sample.
    pub fn reads_arrays(&self) -> bool {
        self.figure_paths()
            .iter()
            .any(|m| m.starts_with("queues") || m.starts_with("cpus"))
    }

    /// The goal's checks in a form: the challenge's own in the challenge form, if it has
    /// any, else the lesson's.
    pub fn goal(&self, challenge: bool) -> &[Check] {
        match &self.challenge {
            Some(c) if challenge && !c.check.is_empty() => &c.check,
            _ => &self.check,
        }
    }
}

/// The figures of `sim` now, as a sample.
fn sample(scenario: &Scenario, sim: &Sim, arrays: bool) -> (u64, Totals) {
    (sim.now().0, Totals::of(scenario, sim, &sim.snapshot(), arrays))
}

/// The lesson's start ([`START_NS`]): the samples of `scenario` run untouched from `at_zero`
/// (its host as built, time 0) to [`START_NS`], one every [`SAMPLE_NS`]. What a goal that
/// compares with the start compares with, whoever plays the lesson and whatever they type.
pub fn start_samples(scenario: &Scenario, at_zero: &Sim, arrays: bool) -> Result<Vec<(u64, Totals)>, ScenarioError> {
    let mut sim = at_zero.clone();
    let mut out = vec![sample(scenario, &sim, arrays)];
    while sim.now().0 < START_NS {
        let to = ((sim.now().0 / SAMPLE_NS + 1) * SAMPLE_NS).max(sim.now().0 + sim.config().tick_ns);
        scenario.run_from(&mut sim, Nanos(to))?;
        out.push(sample(scenario, &sim, arrays));
    }
    Ok(out)
}

/// A lesson played headless.
pub struct LessonRun {
    scenario: Scenario,
    sim: Sim,
    arrays: bool,
    samples: Vec<(u64, Totals)>,
    start: Option<Vec<(u64, Totals)>>,
    /// Simulated time of the last console line applied.
    since_ns: u64,
    challenge: bool,
}

impl LessonRun {
    /// `scenario`'s lesson at time 0, in the guided form or the challenge form.
    pub fn new(scenario: Scenario, challenge: bool) -> Result<LessonRun, ScenarioError> {
        let sim = scenario.build()?;
        let arrays = scenario.lesson.reads_arrays();
        let start = if goal::needs_start(scenario.lesson.goal(challenge)) {
            Some(start_samples(&scenario, &sim, arrays)?)
        } else {
            None
        };
        let samples = vec![sample(&scenario, &sim, arrays)];
        Ok(LessonRun {
            scenario,
            sim,
            arrays,
            samples,
            start,
            since_ns: 0,
            challenge,
        })
    }

    /// The host now.
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// Simulated time now (ns).
    pub fn now(&self) -> u64 {
        self.sim.now().0
    }

    /// Advances `d` ns of simulated time (whole ticks), on the scenario's timeline, sampling
    /// at every [`SAMPLE_NS`] boundary crossed.
    pub fn run_for(&mut self, d: u64) -> Result<(), ScenarioError> {
        let until = self.now() + d;
        let tick = self.sim.config().tick_ns;
        while self.now() + tick <= until {
            let next = (self.now() / SAMPLE_NS + 1) * SAMPLE_NS;
            let to = next.max(self.now() + tick).min(until);
            let before = self.now();
            self.scenario.run_from(&mut self.sim, Nanos(to))?;
            if self.now() == before {
                break;
            }
            if self.now() / SAMPLE_NS > before / SAMPLE_NS {
                self.samples.push(sample(&self.scenario, &self.sim, self.arrays));
            }
        }
        Ok(())
    }

    /// Applies a console line now, as a learner types it (a refused line changes nothing).
    pub fn command(&mut self, line: &str) -> Result<String, String> {
        let out = steerlab_console::execute(&mut self.sim, line)?;
        self.since_ns = self.now();
        Ok(out)
    }

    /// The goal's verdict now.
    pub fn verdict(&self) -> Verdict {
        goal::judge(
            self.scenario.lesson.goal(self.challenge),
            &Judged {
                samples: &self.samples,
                since_ns: self.since_ns,
                start: self.start.as_deref(),
                sim: &self.sim,
            },
        )
    }

    /// The lesson's evidence figures now (label, figure): each a rate over the last full
    /// second, or a value, as the page's strip shows it.
    pub fn evidence(&self) -> Vec<(String, Option<f64>)> {
        self.scenario
            .lesson
            .evidence
            .iter()
            .map(|e| {
                let x = crate::teach::figure(&self.samples, &e.metric, e.rate, self.now());
                (e.label.clone(), x)
            })
            .collect()
    }

    /// Runs `d` ns a sample at a time, judging the goal at each: the first time it was met
    /// (as the page would end the lesson then), and the verdict at the end.
    pub fn watch(&mut self, d: u64) -> Result<(Option<u64>, Verdict), ScenarioError> {
        let end = self.now() + d;
        let mut met = None;
        while self.now() < end {
            self.run_for(SAMPLE_NS.min(end - self.now()))?;
            if met.is_none() && self.verdict().met == Some(true) {
                met = Some(self.now());
            }
        }
        Ok((met, self.verdict()))
    }
}

/// A lesson played: when the goal was first met (after which group of lines), the last
/// verdict, and the evidence before the first change and at the end.
pub struct Played {
    /// When the goal was first met: after which group of lines (0-based), at what time.
    pub met: Option<(usize, u64)>,
    /// The verdict at the end.
    pub last: Verdict,
    /// Why the play stopped: a line refused, a host that did not run.
    pub error: Option<String>,
    /// The goal's parts in the form played.
    pub checks: Vec<Check>,
    /// The evidence's figures: label, before the first line, at the end.
    pub evidence: Vec<(String, Option<f64>, Option<f64>)>,
    /// Per question, the engine's answer when a group of lines was its step's commands
    /// (`None`: that step was not played; `Some(None)`: no choice describes what happened).
    pub answers: Vec<Option<Option<usize>>>,
}

/// Plays `scenario`'s lesson in a form: reads for [`READ_NS`], then each group of lines at
/// once, watching the goal for [`WATCH_NS`] after each.
pub fn play(scenario: &Scenario, challenge: bool, groups: &[Vec<String>]) -> Played {
    play_after(scenario, challenge, groups, READ_NS)
}

/// [`play`], the first group typed after `read_ns` of reading (a learner who acts at once).
pub fn play_after(scenario: &Scenario, challenge: bool, groups: &[Vec<String>], read_ns: u64) -> Played {
    let mut p = Played {
        met: None,
        last: Verdict::default(),
        error: None,
        checks: scenario.lesson.goal(challenge).to_vec(),
        evidence: Vec::new(),
        answers: vec![None; scenario.lesson.predict.len()],
    };
    let mut run = match LessonRun::new(scenario.clone(), challenge) {
        Ok(r) => r,
        Err(e) => {
            p.error = Some(e.to_string());
            return p;
        }
    };
    let result = (|| -> Result<(), String> {
        run.run_for(read_ns).map_err(|e| e.to_string())?;
        let before = run.evidence();
        let lesson = &scenario.lesson;
        for (k, lines) in groups.iter().enumerate() {
            let first = run.now();
            for line in lines {
                run.command(line)
                    .map_err(|e| format!("{line:?}: {}", e.lines().next().unwrap_or("")))?;
            }
            let last = run.now();
            let (met, v) = run.watch(WATCH_NS).map_err(|e| e.to_string())?;
            // A question whose step's commands these were: the engine's answer, as the page
            // measures it (a settling second, then a second).
            for (q, a) in lesson.predict.iter().zip(p.answers.iter_mut()) {
                if !challenge && lesson.steps[q.step].commands == *lines {
                    *a = q.answer(&run.samples, first, last);
                }
            }
            if let (None, Some(t)) = (p.met, met) {
                p.met = Some((k, t));
            }
            p.last = v;
        }
        let now = run.evidence();
        p.evidence = before
            .into_iter()
            .zip(now)
            .map(|((label, b), (_, n))| (label, b, n))
            .collect();
        Ok(())
    })();
    p.error = result.err();
    p
}
