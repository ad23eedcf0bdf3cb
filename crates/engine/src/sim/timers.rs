//! The host's timers, in one table: each thread's next migration, ice's service timer and the
//! service task queued by `ice_rx_flow_steer`. (mlx5's work is not a timer: it runs at the end
//! of each tick, tick.rs.) The tick asks the table what is due; nothing else keeps a deadline.

use alloc::vec::Vec;

use crate::arfs::ICE_SERVICE_PERIOD;
use crate::time::Nanos;

/// Never due.
const NEVER: Nanos = Nanos(u64::MAX);

/// Every deadline of the host.
#[derive(Clone, Debug)]
pub(super) struct Timers {
    /// Per thread: when it next migrates to a random CPU of its cpuset (`NEVER`: it stays).
    migrations: Vec<Nanos>,
    /// ice's service timer (`ice_service_timer`, every `serv_tmr_period` = 1 s).
    ice_timer: Nanos,
    /// `ICE_SERVICE_SCHED`: the task is queued or running; scheduling it again does nothing
    /// until the run completes (`ice_service_task_complete` clears it).
    ice_sched: bool,
    /// The queued run's start: `ice_wq` is unbound, the work runs at once.
    ice_run: Option<Nanos>,
    /// The running task's end: its hardware writes are done, the bit clears.
    ice_end: Option<Nanos>,
    /// Start of the tick whose entries a run last checked for expiry.
    ice_expired_in: Option<Nanos>,
    /// The earlier of `ice_run` and `ice_end` (`NEVER` without either): the tick loop asks
    /// before every flow whether the service task has something due, and one compare answers.
    ice_next: Nanos,
}

impl Timers {
    /// No thread, the service timer's first expiry one period in.
    pub(super) fn new() -> Timers {
        Timers {
            migrations: Vec::new(),
            ice_timer: ICE_SERVICE_PERIOD,
            ice_sched: false,
            ice_run: None,
            ice_end: None,
            ice_expired_in: None,
            ice_next: NEVER,
        }
    }

    /// Sets thread `tid`'s migration period from `now` (zero: never), adding the thread if new.
    pub(super) fn set_migration(&mut self, tid: usize, now: Nanos, every: Nanos) {
        let at = if every == Nanos::ZERO {
            NEVER
        } else {
            now.saturating_add(every)
        };
        if tid == self.migrations.len() {
            self.migrations.push(at);
        } else {
            self.migrations[tid] = at;
        }
    }

    /// Whether thread `tid` migrates at `now`; if so its next migration is `every` later.
    pub(super) fn migration_due(&mut self, tid: usize, now: Nanos, every: Nanos) -> bool {
        let at = &mut self.migrations[tid];
        if *at > now {
            return false;
        }
        *at = at.saturating_add(every);
        true
    }

    /// Whether ice's service timer fires at `now` (then it is re-armed one period later).
    pub(super) fn ice_timer_due(&mut self, now: Nanos) -> bool {
        let due = now >= self.ice_timer;
        if due {
            self.ice_timer = self.ice_timer.saturating_add(ICE_SERVICE_PERIOD);
        }
        due
    }

    /// `ice_service_task_schedule` (ice_main.c) at `now`: unless the task is already queued or
    /// running, it is queued and runs at once.
    pub(super) fn ice_schedule(&mut self, now: Nanos) {
        if !self.ice_sched {
            self.ice_sched = true;
            self.ice_run = Some(now);
            self.ice_next_update();
        }
    }

    /// Whether the service task may have something due by `now` (a run to start or to end).
    #[inline(always)]
    pub(super) fn ice_maybe_due(&self, now: Nanos) -> bool {
        self.ice_next <= now
    }

    fn ice_next_update(&mut self) {
        let at = |t: Option<Nanos>| t.unwrap_or(NEVER);
        self.ice_next = at(self.ice_run).min(at(self.ice_end));
    }

    /// Whether a queued run starts by `now` (it is then running).
    pub(super) fn ice_run_due(&mut self, now: Nanos) -> bool {
        let due = self.ice_run.is_some_and(|at| at <= now);
        if due {
            self.ice_run = None;
            self.ice_next_update();
        }
        due
    }

    /// Whether a run starting in the tick that began at `tick` checks expiry: the first of
    /// the tick does (the sandbox's simplification, arfs.rs).
    pub(super) fn ice_expiry_due(&mut self, tick: Nanos) -> bool {
        let due = self.ice_expired_in != Some(tick);
        self.ice_expired_in = Some(tick);
        due
    }

    /// The running task ends at `at`.
    pub(super) fn ice_run_ends(&mut self, at: Nanos) {
        self.ice_end = Some(at);
        self.ice_next_update();
    }

    /// Whether the running task has ended by `now`; then `ICE_SERVICE_SCHED` clears.
    pub(super) fn ice_end_due(&mut self, now: Nanos) -> bool {
        let due = self.ice_end.is_some_and(|at| at <= now);
        if due {
            self.ice_end = None;
            self.ice_sched = false;
            self.ice_next_update();
        }
        due
    }

    /// The driver changed: no task is queued or running.
    pub(super) fn ice_reset(&mut self) {
        (self.ice_sched, self.ice_run, self.ice_end) = (false, None, None);
        self.ice_next = NEVER;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ice_service_task_schedule` queues the task unless `ICE_SERVICE_SCHED` is set: a call
    /// while it is queued or running does nothing, and only the run's end clears the bit, so
    /// the work that call wanted waits for the next trigger.
    #[test]
    fn ice_schedules_while_running_are_lost() {
        let mut t = Timers::new();
        t.ice_schedule(Nanos(100));
        assert!(!t.ice_run_due(Nanos(99)) && t.ice_run_due(Nanos(100)), "runs at once");
        t.ice_run_ends(Nanos(5_100));
        t.ice_schedule(Nanos(2_000));
        assert!(!t.ice_end_due(Nanos(5_099)) && t.ice_end_due(Nanos(5_100)));
        assert!(!t.ice_run_due(Nanos(10_000)), "the call during the run queued nothing");
        t.ice_schedule(Nanos(10_000));
        assert!(t.ice_run_due(Nanos(10_000)), "after the run, a call queues it again");
        assert!(
            t.ice_expiry_due(Nanos(0)) && !t.ice_expiry_due(Nanos(0)) && t.ice_expiry_due(Nanos(1_000_000)),
            "expiry: once per tick"
        );
    }
}
