//! The past of a host: reports sampled every [`SAMPLE_NS`] (charts, goal checks and the
//! lesson's evidence read them)
//! and engine snapshots every [`CHECKPOINT_NS`], from which stepping back and the timeline
//! replay the learner's commands deterministically to any earlier time.

use std::collections::VecDeque;

use steerlab_engine::{Nanos, Sim};
use steerlab_scenario::permalink::Applied;
use steerlab_scenario::{Report, Scenario};

use super::Controller;

/// Sampling period of the reports.
pub const SAMPLE_NS: u64 = 100_000_000;
/// Reports kept, one per [`SAMPLE_NS`].
const SAMPLES: usize = 120;
/// Simulated time between engine snapshots, at least.
const CHECKPOINT_NS: u64 = 1_000_000_000;
/// Ticks between engine snapshots, at least: a big host's snapshot (seed 000's 16,384 flows)
/// costs about a tick's work to copy, so it is taken every 50 ticks (5 s there; stepping back
/// replays at most that), while a small host's 1 ms ticks give one per simulated second.
const CHECKPOINT_TICKS: u64 = 50;
/// Engine snapshots kept: the start and the most recent ones.
const CHECKPOINTS: usize = 12;

/// Sampled reports and engine snapshots of one host.
#[derive(Default)]
pub struct History {
    samples: Vec<(u64, Report)>,
    /// Each CPU's softirq ns at the last two samples (the page's load per CPU).
    softirq: VecDeque<Vec<u64>>,
    /// Samples carry the per-queue and per-CPU arrays (the lesson's goal reads them); else
    /// only totals, which on seed 000's 144-CPU host cost a fraction of a full report.
    arrays: bool,
    checkpoints: VecDeque<(u64, Sim)>,
}

impl History {
    /// The history of a host at its start: one sample and one snapshot.
    pub fn start(scenario: &Scenario, sim: &Sim) -> History {
        let l = &scenario.lesson;
        let metrics = l
            .check
            .iter()
            .map(|c| &c.metric)
            .chain(l.evidence.iter().map(|e| &e.metric));
        let arrays = metrics
            .into_iter()
            .any(|m| m.starts_with("queues") || m.starts_with("cpus"));
        let mut h = History {
            arrays,
            ..History::default()
        };
        h.sample(scenario, sim);
        h.checkpoints.push_back((sim.now().0, sim.clone()));
        h
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> &[(u64, Report)] {
        &self.samples
    }

    /// After time advanced from `before` to `sim.now()`: samples and snapshots when a
    /// boundary was crossed (any tick length). Returns whether a sample was taken.
    pub fn advanced(&mut self, scenario: &Scenario, sim: &Sim, before: Nanos) -> bool {
        let now = sim.now().0;
        if now == before.0 {
            return false;
        }
        let sampled = now / SAMPLE_NS > before.0 / SAMPLE_NS;
        if sampled {
            self.sample(scenario, sim);
        }
        let every = CHECKPOINT_NS.max(CHECKPOINT_TICKS * sim.config().tick_ns);
        if now / every > before.0 / every && self.checkpoints.back().is_none_or(|(t, _)| *t < now) {
            self.checkpoints.push_back((now, sim.clone()));
            if self.checkpoints.len() > CHECKPOINTS {
                self.checkpoints.remove(1);
            }
        }
        sampled
    }

    fn sample(&mut self, scenario: &Scenario, sim: &Sim) {
        let report = if self.arrays {
            Report::new(scenario, sim)
        } else {
            Report::totals(scenario, sim)
        };
        self.samples.push((sim.now().0, report));
        if self.samples.len() > SAMPLES {
            self.samples.remove(0);
        }
        self.softirq
            .push_back(sim.snapshot().cpus.iter().map(|c| c.softirq_ns).collect());
        if self.softirq.len() > 2 {
            self.softirq.pop_front();
        }
    }

    /// Each CPU's softirq ns at the sample before the last, and that sample's time.
    pub fn softirq_before(&self) -> Option<(u64, &[u64])> {
        let n = self.samples.len();
        (n >= 2 && self.softirq.len() == 2).then(|| (self.samples[n - 2].0, self.softirq[0].as_slice()))
    }

    /// The latest snapshot at or before `t`, forgetting what came after it.
    fn rewind(&mut self, t: u64) -> Option<Sim> {
        let sim = self
            .checkpoints
            .iter()
            .rev()
            .find(|(at, _)| *at <= t)
            .map(|(_, s)| s.clone())?;
        self.samples.retain(|(at, _)| *at <= sim.now().0);
        self.softirq.clear();
        self.checkpoints.retain(|(at, _)| *at <= t);
        Some(sim)
    }
}

impl Controller {
    /// Goes to simulated time `t` (earlier or later): from the latest engine snapshot at or
    /// before `t`, or from the start, replaying the learner's commands at their times.
    pub fn seek(&mut self, t: Nanos) {
        if self.restoring.is_some() {
            return;
        }
        self.finish_tick();
        // The timeline ends at the scenario's length, or where time has played on to.
        let t = Nanos(t.0.min(self.duration().0.max(self.sim.now().0)));
        if t < self.sim.now() {
            let base = match self.history.rewind(t.0) {
                Some(s) => s,
                None => match self.scenario.build() {
                    Ok(s) => s,
                    Err(_) => return,
                },
            };
            self.sim = base;
            let from = self.sim.now().0;
            self.matrix.rewind(from);
            let replay: Vec<Applied> = self
                .applied
                .iter()
                .filter(|a| a.at_ns >= from && a.at_ns <= t.0)
                .cloned()
                .collect();
            // Commands after `t` are forgotten: stepping back and acting again makes a new
            // branch, as in an editor's undo.
            self.applied.retain(|a| a.at_ns <= t.0);
            self.progress.rewound(t.0);
            for a in replay {
                self.run_for(Nanos(a.at_ns - self.sim.now().0));
                let _ = steerlab_console::execute(&mut self.sim, &a.command);
            }
        }
        self.run_for(Nanos(t.0 - self.sim.now().0));
    }

    /// One tick back in time: what one step forward did is undone.
    pub fn step_back(&mut self) {
        let d = self.sim.config().tick_ns;
        self.seek(Nanos(self.sim.now().0.saturating_sub(d)));
    }

    /// Simulated time of the learner's last change: goal checks look only after it.
    fn since_ns(&self) -> u64 {
        self.applied.last().map_or(0, |a| a.at_ns)
    }

    /// Whether the lesson's goal is met now (`None`: not yet assessable).
    pub fn goal_met(&self) -> Option<bool> {
        steerlab_scenario::all_met(&self.scenario.lesson.check, self.history.samples(), self.since_ns())
    }
}
