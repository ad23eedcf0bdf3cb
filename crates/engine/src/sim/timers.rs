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
    /// `ICE_SERVICE_SCHED`: `ice_service_task_schedule` was called since the last pass.
    ice_sched: bool,
    /// When the scheduled service task writes the pending filters.
    ice_work: Option<Nanos>,
}

impl Timers {
    /// No thread, the service timer's first expiry one period in.
    pub(super) fn new() -> Timers {
        Timers { migrations: Vec::new(), ice_timer: ICE_SERVICE_PERIOD, ice_sched: false, ice_work: None }
    }

    /// Sets thread `tid`'s migration period from `now` (zero: never), adding the thread if new.
    pub(super) fn set_migration(&mut self, tid: usize, now: Nanos, every: Nanos) {
        let at = if every == Nanos::ZERO { NEVER } else { now.saturating_add(every) };
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

    /// `ice_service_task_schedule`: the task is scheduled; its writes are due at `at` unless a
    /// run is already due.
    pub(super) fn ice_schedule(&mut self, at: Nanos, work_pending: bool) {
        self.ice_sched = true;
        if work_pending && self.ice_work.is_none() {
            self.ice_work = Some(at);
        }
    }

    /// Whether the service task was scheduled since its last pass.
    pub(super) fn ice_scheduled(&self) -> bool {
        self.ice_sched
    }

    /// Whether the scheduled writes are due at `now` (then they are no longer pending).
    pub(super) fn ice_work_due(&mut self, now: Nanos) -> bool {
        let due = self.ice_work.is_some_and(|at| at <= now);
        if due {
            self.ice_work = None;
        }
        due
    }

    /// A whole pass ran (or the driver changed): nothing is scheduled.
    pub(super) fn ice_done(&mut self) {
        self.ice_sched = false;
        self.ice_work = None;
    }
}
