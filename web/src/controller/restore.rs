//! Permalinks: the state a link names (the scenario, the learner's commands with their
//! simulated times, the time shown), and its restore, replayed a slice at a time by the
//! worker's pump so that seed 000's three minutes never block anything.

use std::collections::VecDeque;

use steerlab_engine::Nanos;
use steerlab_scenario::permalink::{self, Applied, Source, State};

use super::{Controller, MAX_LINK_COMMANDS};

/// A permalink's commands still to replay and the time it ends at.
pub(super) struct Restore {
    commands: VecDeque<Applied>,
    until: u64,
}

impl Controller {
    /// The session a permalink describes: its host, then its commands replayed at their
    /// times, then time advanced to the link's time (deterministic replay: same digest).
    /// Replays it all now (the tests' way); the worker uses [`Controller::restoring`] and
    /// lets its pump do it.
    pub fn from_permalink(link: &str) -> Result<Controller, String> {
        let mut c = Controller::restoring(link)?;
        while c.restoring.is_some() {
            c.step_part(u32::MAX);
        }
        c.take_link_error().map_or(Ok(c), Err)
    }

    /// Why a restore stopped early, once (the page shows it in its banner).
    pub fn take_link_error(&mut self) -> Option<String> {
        self.link_error.take()
    }

    /// The session a permalink describes, at time 0, with the link's commands to replay as
    /// time advances ([`Controller::step_part`] applies each at its time and stops, paused, at
    /// the link's time). The link is validated before anything runs.
    pub fn restoring(link: &str) -> Result<Controller, String> {
        let state = permalink::decode(link).map_err(|e| e.to_string())?;
        let mut c = match &state.source {
            Source::Lesson(id) => Controller::for_lesson(id)?,
            Source::Scenario(text) => {
                let scenario = steerlab_scenario::parse(text, &[]).map_err(|e| format!("the link's scenario: {e}"))?;
                Controller::for_scenario(scenario, state.source.clone())?
            }
        };
        if state.commands.len() > MAX_LINK_COMMANDS {
            return Err(format!(
                "this link carries {} commands; at most {MAX_LINK_COMMANDS} are replayed",
                state.commands.len()
            ));
        }
        if c.link_too_long(state.t_ns) {
            return Err(format!(
                "this link names {:.0} s of simulated time, more than a page replays in minutes; opened the default lesson instead",
                state.t_ns as f64 / 1e9
            ));
        }
        if state.commands.windows(2).any(|w| w[0].at_ns > w[1].at_ns)
            || state.commands.iter().any(|a| a.at_ns > state.t_ns)
        {
            return Err(
                "this link is damaged (times out of order, or a command after the link's time); opened the default lesson instead"
                    .into(),
            );
        }
        c.restoring = Some(Restore {
            commands: state.commands.into(),
            until: state.t_ns,
        });
        c.playing = true;
        Ok(c)
    }

    /// How far a permalink's restore is, per mille (`None` when not restoring).
    pub fn restore_progress(&self) -> Option<u32> {
        self.restoring
            .as_ref()
            .map(|r| (u128::from(self.sim.now().0) * 1000 / u128::from(r.until.max(1))).min(1000) as u32)
    }

    /// Between ticks of a restore: applies the link's commands that are due (those the next
    /// tick would pass, as `run_for` then the command did when the link was made), and ends
    /// the restore, paused, once the next tick would pass the link's time. Returns whether
    /// the restore goes on.
    pub(super) fn restore_between_ticks(&mut self) -> bool {
        let tick = self.sim.config().tick_ns;
        let now = self.sim.now().0;
        let Some(r) = self.restoring.as_mut() else { return false };
        let mut due = Vec::new();
        while r.commands.front().is_some_and(|a| a.at_ns < now + tick) {
            due.extend(r.commands.pop_front());
        }
        let done = r.commands.is_empty() && now + tick > r.until;
        for a in due {
            if let Err(e) = self.apply(&a.command) {
                // The rest of the link cannot be trusted: stop here, paused, and say why.
                self.link_error = Some(format!("the link's command {:?} fails: {e}", a.command));
                self.restoring = None;
                self.playing = false;
                return false;
            }
        }
        if done {
            // A link shows a precise state: it opens paused there, and says so.
            self.restoring = None;
            self.playing = false;
            self.restored = true;
        }
        !done
    }

    /// The permalink fragment value of the current state, or of the latest time a link may
    /// name when time has played on past it ([`Controller::link_limit`]).
    pub fn permalink(&self) -> String {
        let t = self.shareable().0;
        permalink::encode(&State {
            source: self.source.clone(),
            commands: self.applied.iter().filter(|a| a.at_ns <= t).cloned().collect(),
            t_ns: t,
            view: "sandbox".into(),
        })
    }

    /// The time a permalink made now names: now, or the link limit once time passed it.
    pub fn shareable(&self) -> Nanos {
        match self.link_limit() {
            Some(l) if l < self.sim.now() => l,
            _ => self.sim.now(),
        }
    }
}
