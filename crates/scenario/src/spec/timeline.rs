//! Running a scenario: time advanced tick by tick, the timeline's commands applied at the start of
//! the tick that holds them.

use steerlab_engine::{Nanos, Sim};

use super::{err, Scenario, TimedCommand};
use crate::ScenarioError;

impl Scenario {
    /// Runs the scenario to its end, applying timeline commands at their time (a failing
    /// command is an error naming it).
    pub fn run(&self) -> Result<Sim, ScenarioError> {
        let mut sim = self.build()?;
        self.run_from(&mut sim, Nanos::from_ms(self.sim.duration_ms))?;
        Ok(sim)
    }

    /// Advances `sim` to `until`, applying the timeline commands due on the way. A command at
    /// `at_ms` applies at the start of the tick that contains it ([`Scenario::tick_start`]), before
    /// that tick runs; calls that split a run anywhere apply each command exactly once.
    pub fn run_from(&self, sim: &mut Sim, until: Nanos) -> Result<(), ScenarioError> {
        let end = Self::tick_start(sim, until);
        for (i, c) in self.timeline_sorted() {
            let at = Self::tick_start(sim, Nanos::from_ms(c.at_ms));
            if at < sim.now().0 || at >= end {
                continue;
            }
            sim.advance_to(Nanos(at));
            Self::apply(sim, i, c)?;
        }
        sim.advance_to(until);
        Ok(())
    }

    /// Applies the timeline commands due at the start of the tick beginning now (for callers
    /// that run ticks themselves, in parts).
    pub fn apply_due(&self, sim: &mut Sim) -> Result<(), ScenarioError> {
        for (i, c) in self.timeline_sorted() {
            if Self::tick_start(sim, Nanos::from_ms(c.at_ms)) == sim.now().0 {
                Self::apply(sim, i, c)?;
            }
        }
        Ok(())
    }

    /// The start of the tick that contains `at`: where a command at that time applies.
    fn tick_start(sim: &Sim, at: Nanos) -> u64 {
        let tick = sim.config().tick_ns;
        at.0 / tick * tick
    }

    /// Runs timeline command `i`; a failure names it.
    fn apply(sim: &mut Sim, i: usize, c: &TimedCommand) -> Result<(), ScenarioError> {
        steerlab_console::execute(sim, &c.command)
            .map(drop)
            .map_err(|e| err(&format!("timeline[{i}] {:?}", c.command), e))
    }

    fn timeline_sorted(&self) -> Vec<(usize, &TimedCommand)> {
        let mut cmds: Vec<(usize, &TimedCommand)> = self.timeline.iter().enumerate().collect();
        // The index breaks ties: the unstable sort is as stable here.
        cmds.sort_unstable_by_key(|(i, c)| (c.at_ms, *i));
        cmds
    }
}
