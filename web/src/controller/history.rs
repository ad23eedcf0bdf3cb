//! The past of a host: the report's figures sampled every [`SAMPLE_NS`] (typed, [`Totals`]:
//! charts, goal checks and the lesson's evidence read them) and engine snapshots, from which
//! stepping back and the timeline replay the learner's commands deterministically to an
//! earlier time.
//!
//! Bounded however long a class runs: the samples of the last [`SAMPLES`] periods and the
//! start's snapshot with the [`CHECKPOINTS`] latest others. Snapshots are spaced by what
//! replaying costs: when the worker reports the wall time the engine spends
//! ([`Controller::spent`]), a snapshot is taken once [`CHECKPOINT_WALL_MS`] of engine work
//! passed since the last, so that a step back or a seek replays at most that much; without a
//! clock (tests, replays) they are spaced by simulated time. Seeking reaches back to the
//! oldest snapshot kept (or the start, while none was dropped), never further: further back
//! would replay from the start. The same wall times say how far a permalink may reach: a
//! link's restore replays from the start at engine speed, so a link names at most the time
//! the engine took [`LINK_BUDGET_MS`] to reach ([`Controller::link_limit`]).

use std::collections::VecDeque;

use steerlab_engine::time::mul_div;
use steerlab_engine::{Nanos, Sim};
use steerlab_scenario::permalink::Applied;
use steerlab_scenario::{Scenario, Totals};

use super::Controller;

/// Sampling period of the figures.
pub const SAMPLE_NS: u64 = 100_000_000;
/// How far the page's Back button goes: a second of simulated time.
const BACK_NS: u64 = 1_000_000_000;
/// Samples kept, one per [`SAMPLE_NS`].
const SAMPLES: usize = 120;
/// Simulated time between engine snapshots, at least.
const CHECKPOINT_NS: u64 = 1_000_000_000;
/// Ticks between engine snapshots, at least: a big host's snapshot (seed 000's 16,384 flows)
/// costs about a tick's work to copy, so it is taken every 50 ticks (5 s there; stepping back
/// replays at most that), while a small host's 1 ms ticks give one per simulated second.
const CHECKPOINT_TICKS: u64 = 50;
/// Engine snapshots kept besides the start's.
const CHECKPOINTS: usize = 11;
/// Engine wall time between two snapshots, at least (when the worker reports it): a step
/// back or a seek replays about this much.
const CHECKPOINT_WALL_MS: f64 = 500.0;
/// Engine wall time a permalink's restore may take to replay from the start: what a learner
/// opening a link waits at most, at this machine's engine speed.
pub(super) const LINK_BUDGET_MS: f64 = 20_000.0;

/// Sampled figures and engine snapshots of one host.
#[derive(Default)]
pub struct History {
    samples: Vec<(u64, Totals)>,
    /// Each CPU's softirq ns at the last two samples (the page's load per CPU).
    softirq: VecDeque<Vec<u64>>,
    /// Each RX queue's packets and each sender's messages at the samples of the last second
    /// (the page's rates per queue and per sender).
    per_item: VecDeque<(u64, Vec<u64>, Vec<u64>)>,
    /// Samples carry the per-queue and per-CPU arrays (the lesson's goal reads them); else
    /// only totals, which on seed 000's 144-CPU host cost a fraction of a full report.
    arrays: bool,
    /// Engine snapshots with the engine wall time spent before each (ms since the start).
    checkpoints: VecDeque<Checkpoint>,
    /// Snapshots after the start's were dropped: the start is out of a seek's reach.
    dropped: bool,
    /// Engine wall time spent since the start (ms), as the worker reports it.
    spent_ms: f64,
    /// The simulated time the engine had reached when `spent_ms` passed [`LINK_BUDGET_MS`].
    link_limit: Option<u64>,
}

/// An engine snapshot, and the engine wall time spent to reach it.
struct Checkpoint {
    at: u64,
    spent_ms: f64,
    sim: Sim,
}

impl History {
    /// The history of a host at its start: one sample and one snapshot.
    pub fn start(scenario: &Scenario, sim: &Sim) -> History {
        let arrays = scenario.lesson.reads_arrays();
        let mut h = History {
            arrays,
            ..History::default()
        };
        h.sample(scenario, sim);
        h.checkpoints.push_back(Checkpoint {
            at: sim.now().0,
            spent_ms: 0.0,
            sim: sim.clone(),
        });
        h
    }

    /// The engine spent `ms` of wall time advancing to `now` (the worker's clock).
    pub fn spent(&mut self, ms: f64, now: u64) {
        self.spent_ms += ms;
        if self.link_limit.is_none() && self.spent_ms > LINK_BUDGET_MS {
            self.link_limit = Some(now);
        }
    }

    /// The latest simulated time a permalink may name (`None`: no limit measured yet).
    pub fn link_limit(&self) -> Option<u64> {
        self.link_limit
    }

    /// The earliest time a seek reaches: the start, or the oldest snapshot kept once older
    /// ones were dropped.
    pub fn earliest(&self) -> u64 {
        match (self.dropped, self.checkpoints.get(1)) {
            (true, Some(c)) => c.at,
            _ => 0,
        }
    }

    /// Engine snapshots held (the start's included).
    pub fn snapshots(&self) -> usize {
        self.checkpoints.len()
    }

    /// Whether the samples carry the per-queue and per-CPU arrays.
    pub fn arrays(&self) -> bool {
        self.arrays
    }

    /// The host at time 0 (the first snapshot, never dropped).
    pub fn at_zero(&self) -> Option<&Sim> {
        self.checkpoints.front().filter(|c| c.at == 0).map(|c| &c.sim)
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> &[(u64, Totals)] {
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
        let last = self.checkpoints.back().map_or((0, 0.0), |c| (c.at, c.spent_ms));
        // Spaced by simulated time at least; by replay cost too once the worker times it.
        let costly = self.spent_ms == 0.0 || self.spent_ms - last.1 >= CHECKPOINT_WALL_MS;
        if now / every > before.0 / every && last.0 < now && costly {
            self.checkpoints.push_back(Checkpoint {
                at: now,
                spent_ms: self.spent_ms,
                sim: sim.clone(),
            });
            if self.checkpoints.len() > CHECKPOINTS + 1 {
                self.checkpoints.remove(1);
                self.dropped = true;
            }
        }
        sampled
    }

    fn sample(&mut self, scenario: &Scenario, sim: &Sim) {
        let snap = sim.snapshot();
        let figures = Totals::of(scenario, sim, &snap, self.arrays);
        self.samples.push((sim.now().0, figures));
        if self.samples.len() > SAMPLES {
            self.samples.remove(0);
        }
        self.softirq.push_back(snap.cpus.iter().map(|c| c.softirq_ns).collect());
        if self.softirq.len() > 2 {
            self.softirq.pop_front();
        }
        let now = sim.now().0;
        let senders = sim.senders_view().iter().map(|s| s.sent).collect();
        self.per_item
            .push_back((now, snap.queues.iter().map(|q| q.packets).collect(), senders));
        while self.per_item.front().is_some_and(|(t, _, _)| *t + 1_000_000_000 < now) {
            self.per_item.pop_front();
        }
    }

    /// Rates per second over the last second (or what history there is) of the counts
    /// `pick` takes from a sample.
    fn item_rates(&self, pick: impl Fn(&(u64, Vec<u64>, Vec<u64>)) -> &Vec<u64>) -> Vec<u64> {
        match (self.per_item.front(), self.per_item.back()) {
            (Some(a), Some(b)) if b.0 > a.0 => pick(b)
                .iter()
                .zip(pick(a).iter().chain(std::iter::repeat(&0)))
                .map(|(y, x)| mul_div(y.saturating_sub(*x), 1_000_000_000, b.0 - a.0))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Each RX queue's packets per second over the last second.
    pub fn queue_rates(&self) -> Vec<u64> {
        self.item_rates(|s| &s.1)
    }

    /// Each sender's messages per second over the last second, in flow order.
    pub fn sender_rates(&self) -> Vec<u64> {
        self.item_rates(|s| &s.2)
    }

    /// Each CPU's softirq ns at the sample before the last, and that sample's time.
    pub fn softirq_before(&self) -> Option<(u64, &[u64])> {
        let n = self.samples.len();
        (n >= 2 && self.softirq.len() == 2).then(|| (self.samples[n - 2].0, self.softirq[0].as_slice()))
    }

    /// The latest snapshot at or before `t`, forgetting what came after it.
    fn rewind(&mut self, t: u64) -> Option<Sim> {
        let c = self.checkpoints.iter().rev().find(|c| c.at <= t)?;
        let (sim, spent) = (c.sim.clone(), c.spent_ms);
        self.samples.retain(|(at, _)| *at <= sim.now().0);
        self.softirq.clear();
        self.per_item.clear();
        self.checkpoints.retain(|c| c.at <= t);
        self.spent_ms = spent;
        if self.link_limit.is_some_and(|l| l > sim.now().0) {
            self.link_limit = None;
        }
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
        // The timeline runs from the oldest snapshot kept (a seek never replays from further
        // back) to the scenario's length, or where time has played on to.
        let t = Nanos(
            t.0.min(self.duration().0.max(self.sim.now().0))
                .max(self.history.earliest()),
        );
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
            self.changed.retain(|a| a.at_ns <= t.0);
            self.console.undo_after(t.0);
            self.progress.rewound(t.0, &self.scenario.lesson, &self.applied);
            self.goal.rewound();
            self.matrix_held = self.matrix_held.take().filter(|(at, _)| *at <= t.0);
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

    /// [`BACK_NS`] back in time (the page's Back button): far enough to see a change.
    pub fn back(&mut self) {
        self.seek(Nanos(self.sim.now().0.saturating_sub(BACK_NS)));
    }

    /// The engine spent `ms` of wall time on this host since the last call (the worker's
    /// clock): it spaces the snapshots and bounds a permalink's reach.
    pub fn spent(&mut self, ms: f64) {
        self.history.spent(ms, self.sim.now().0);
    }

    /// The earliest simulated time the timeline reaches.
    pub fn earliest(&self) -> Nanos {
        Nanos(self.history.earliest())
    }

    /// Whether the lesson's goal is met now (`None`: not yet assessable): the verdict of the
    /// last sample.
    pub fn goal_met(&self) -> Option<bool> {
        self.goal.verdict.met
    }
}
