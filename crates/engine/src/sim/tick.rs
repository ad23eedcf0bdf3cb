//! The tick: time advances in ticks of `tick_ns`. In a tick: timers (thread migrations, the ice
//! service task), the sockets' sends (tx.rs), then every flow's packets of the tick in flow
//! order (receive.rs), its reader's read (`sock_rps_record_flow`) in the middle of them, then
//! every backlog processes what the tick gave it time for (`process_backlog`) and mlx5's work runs.
//! Simplification: a flow's packets of one tick arrive together, at the flow's place in the
//! tick (flows are spread evenly over it, in flow order). A CPU processes its backlog in order
//! at what a packet costs it (napi.rs `backlog_pace`), so `input_queue_head` advances as
//! simulated time passes within the tick and the in-order test of `get_rps_cpu` sees what is
//! really still queued; what a tick could not process waits for the next (backlog.rs
//! `end_tick`). A queue's NAPI poll takes at most its share of its IRQ CPU's tick (napi.rs); a backlog takes a
//! packet while its queue at that instant is at most `netdev_max_backlog` (`enqueue_to_backlog`),
//! and since a flow's packets of a tick arrive together, a flow faster than that per tick
//! overflows its backlog where arrivals spread over the tick would not (lower `sim.tick_ns`).

use alloc::vec::Vec;

use crate::arfs::{ExpiryOracle, WorkPrices};
use crate::driver::Driver;
use crate::kernel::Kernel;
use crate::ledger::Stage;
use crate::rps::active_window;
use crate::time::Nanos;

use super::event::Event;
use super::{Cpu, RxQueue, Sim};

/// The CPU the drivers' kworkers run on (ice's service task, mlx5's work).
pub(super) const WORKER_CPU: u16 = 0;

/// The drivers' kworker on [`WORKER_CPU`], between ticks: where the CPU's booked time stood
/// when the tick began, the kworker's own part of it since, the rest in the last tick (what
/// preempts the kworker: softirqs, and threads sharing the CPU), and what mlx5's last item
/// took beyond its turn (paid from its next turns).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Kworker {
    mark_ns: u64,
    own_ns: u64,
    others_ns: u64,
    debt_ns: u64,
}

/// The stack's view used by drivers for `rps_may_expire_flow`.
struct ExpiryView<'a> {
    kernel: Kernel,
    queues: &'a [RxQueue],
    /// Each CPU's published `input_queue_head` ([`crate::backlog::Backlog::head`]): a walk
    /// reads it for every entry, and it does not change during the walk.
    heads: &'a [u32],
}

impl Sim {
    /// Every CPU's head now, read once into `expiry_heads` for a walk's [`ExpiryView`] (its
    /// room is kept: no allocation per walk).
    fn read_expiry_heads(&mut self) {
        self.expiry_heads.clear();
        self.expiry_heads
            .extend(self.cpus.iter().map(|c: &Cpu| c.backlog.head()));
    }
}

impl ExpiryOracle for ExpiryView<'_> {
    /// `rps_may_expire_flow` (net/core/dev.c): keep only if the slot still holds this filter
    /// and its CPU has dequeued fewer than the activity window since the flow's last enqueue.
    fn may_expire(&self, rxq: u16, flow_id: u32, filter_id: u16) -> bool {
        let Some(t) = self.queues.get(usize::from(rxq)).and_then(|q| q.table.as_ref()) else {
            return true;
        };
        let Some(r) = t.flows.get(flow_id as usize) else {
            return true;
        };
        let Some(head) = self.heads.get(usize::from(r.cpu)).filter(|_| r.filter == filter_id) else {
            return true;
        };
        let since = head.wrapping_sub(r.last_qtail) as i32;
        since >= active_window(self.kernel, t.log)
    }
}

impl Sim {
    /// Runs whole ticks until `until` (rounded down to a tick boundary).
    pub fn advance_to(&mut self, until: Nanos) {
        self.finish_tick();
        while self.now.0.saturating_add(self.cfg.tick_ns) <= until.0 {
            self.tick();
        }
    }

    /// Runs `n` ticks.
    pub fn run_ticks(&mut self, n: u64) {
        self.finish_tick();
        for _ in 0..n {
            self.tick();
        }
    }

    /// One tick of `tick_ns`.
    pub fn tick(&mut self) {
        while !self.tick_part(u32::MAX) {}
    }

    /// Finishes a tick that [`Sim::tick_part`] left in progress (a no-op between ticks).
    /// Commands are applied between ticks: callers that split ticks finish them first.
    pub fn finish_tick(&mut self) {
        if self.partial.is_some() {
            self.tick();
        }
    }

    /// Whether a tick is in progress.
    pub fn in_tick(&self) -> bool {
        self.partial.is_some()
    }

    /// Runs part of a tick: its start if none is in progress, then up to `max_flows` flows,
    /// then its end once every flow ran. Returns true when the tick completed. Splitting a
    /// tick never changes results (the flows run in the same order at the same instants); the
    /// page uses it to keep frames short with 16,384 flows.
    pub fn tick_part(&mut self, max_flows: u32) -> bool {
        let (t1, n, first) = match self.partial {
            Some(p) => p,
            None => {
                let t1 = self.begin_tick();
                (t1, self.flows.len() as u32, 0)
            }
        };
        let last = first.saturating_add(max_flows).min(n);
        // Flows arrive spread over the tick, in flow order: flow f at tick_ns * f / n, stepped
        // without a division per flow. tick_ns <= 1e9 and f < 1e6: the products fit in u64.
        let (tick, count) = (self.cfg.tick_ns, u64::from(n.max(1)));
        let (mut at, mut frac) = (tick * u64::from(first) / count, tick * u64::from(first) % count);
        let (step, step_frac) = (tick / count, tick % count);
        for f in first..last {
            self.elapsed = at;
            self.service_task_due();
            self.run_flow(f as usize, t1);
            (at, frac) = (at + step, frac + step_frac);
            if frac >= count {
                (at, frac) = (at + 1, frac - count);
            }
        }
        if last < n {
            self.partial = Some((t1, n, last));
            return false;
        }
        self.elapsed = self.cfg.tick_ns;
        self.service_task_due();
        self.partial = None;
        self.end_tick(t1);
        true
    }

    /// The start of a tick: timers, transmissions, capacities. Returns the tick's end.
    pub(super) fn begin_tick(&mut self) -> Nanos {
        let t0 = self.now;
        let t1 = Nanos(t0.0 + self.cfg.tick_ns);
        self.elapsed = 0;
        self.timers(t0);
        // The sockets' sends of the tick come first, so that an ATR filter they program
        // steers this tick's replies.
        self.transmit(t1);
        self.share_polls();
        // enqueue_to_backlog: a packet is taken while qlen <= netdev_max_backlog (qlen before
        // it, of `input_pkt_queue` alone: [`crate::backlog::Backlog::qlen`]); from
        // qlen >= max / 2 on, `skb_flow_limit` samples each packet when the enqueuing CPU (the
        // IRQ's) has a flow-limit table. Both change only between ticks.
        let max = u64::from(self.cfg.netdev_max_backlog);
        if self.arfs.supported() {
            self.worker.mark_ns = self.prices.total_ns(&self.cpus[usize::from(WORKER_CPU)].work);
            self.worker.own_ns = 0;
        }
        for q in &mut self.queues {
            q.flow_limited = self.cpus[usize::from(q.irq_cpu)].flow_limit.is_some();
            q.free_below = if q.flow_limited { max / 2 } else { max + 1 };
        }
        t1
    }

    /// The end of a tick: backlogs drain, mlx5 works, time moves, the digest records it.
    pub(super) fn end_tick(&mut self, t1: Nanos) {
        self.end_of_tick();
        self.now = t1;
        let c = &self.counters;
        // Where the packets went, per queue and per CPU, folded into two words.
        let mix = |h: u64, (i, n): (usize, u64)| (h.rotate_left(7) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15 ^ i as u64);
        let qmix = self
            .queues
            .iter()
            .map(|q| q.stats.packets.wrapping_add(q.stats.drops.rotate_left(32)))
            .enumerate()
            .fold(0, |h, (i, n)| mix(h, (i, n)));
        let cmix = self
            .cpus
            .iter()
            .map(|c| c.stats.packets)
            .enumerate()
            .fold(0, |h, (i, n)| mix(h, (i, n)));
        self.record(Event::Tick {
            counters: *c,
            queues: qmix,
            cpus: cmix,
        });
    }

    /// Thread migrations, the ice service task and an irqbalance pass due at the start of
    /// the tick.
    pub(super) fn timers(&mut self, now: Nanos) {
        for tid in 0..self.threads.len() {
            if !self.timers.migration_due(tid, now, self.threads[tid].every) {
                continue;
            }
            let t = &self.threads[tid];
            let cpu = t.allowed.nth(self.rng.below(t.allowed.len())).unwrap_or(t.cpu);
            if cpu != self.threads[tid].cpu {
                self.threads[tid].cpu = cpu;
                self.counters.migrations += 1;
                self.record(Event::Migrate { tid: tid as u32, cpu });
            }
        }
        if matches!(self.cfg.driver, Driver::Ice | Driver::IceHashMatch) && self.timers.ice_timer_due(now) {
            self.timers.ice_schedule(now);
        }
        self.irqbalance_due(now);
        self.service_task_due();
    }

    /// ice's service task at this instant of the tick: a run whose writes have ended lets
    /// `ICE_SERVICE_SCHED` go; a queued run walks the list (arfs.rs `ice_sync`) and lasts its
    /// walk plus its hardware writes. The kworker's time is system time on CPU 0; the walk holds
    /// `arfs_lock`, which every `ice_rx_flow_steer` takes (the tick's end prices the wait).
    #[inline(always)]
    pub(super) fn service_task_due(&mut self) {
        let now = Nanos(self.now.0 + self.elapsed);
        if self.timers.ice_maybe_due(now) {
            self.service_task_run(now);
        }
    }

    /// [`Sim::service_task_due`] when a run starts or ends by `now`: out of line, so that the
    /// per-flow check stays one compare.
    #[inline(never)]
    fn service_task_run(&mut self, now: Nanos) {
        if self.timers.ice_end_due(now) {
            let writes = self.arfs.counters.hw_writes;
            self.arfs.ice_writes_done();
            self.charge_service(writes);
        }
        if self.timers.ice_run_due(now) {
            let expire = self.timers.ice_expiry_due(self.now);
            if expire {
                self.read_expiry_heads();
            }
            let view = ExpiryView {
                kernel: self.cfg.kernel,
                queues: &self.queues,
                heads: &self.expiry_heads,
            };
            let walked = self.arfs.ice_sync(now, &view, expire);
            let costs = self.cfg.costs;
            let walk_ns = u64::from(walked) * costs.ice_sync_entry_ns;
            self.lock_walks.add(walk_ns, 1);
            self.charge(WORKER_CPU, Stage::ArfsSync, u64::from(walked));
            let work = walk_ns + u64::from(self.arfs.ice_writes_queued()) * costs.arfs_hw_update_ns;
            self.worker.own_ns += work;
            let end = now.saturating_add(Nanos(self.kworker_span(work)));
            self.timers.ice_run_ends(end);
        }
    }

    /// How long `work_ns` of a kworker's work takes on its CPU: the softirqs and threads that
    /// ran there in the last tick preempt it for the same share of its time (the CFS share of
    /// a kworker against its CPU's other load, which the sandbox takes from the last tick),
    /// so that the CPU is not booked past the clock. (At most 95 % of the CPU is taken from
    /// it; a CPU that busy is booked past the clock by up to the kworker's 5 %.)
    fn kworker_span(&self, work_ns: u64) -> u64 {
        let tick = self.cfg.tick_ns;
        let others = self.worker.others_ns.min(tick * 95 / 100);
        crate::time::mul_div(work_ns, tick, tick - others)
    }

    /// The CPU's time in the tick ending now that was not the kworker's (what preempts it).
    fn others_this_tick(&self) -> u64 {
        let busy = self.prices.total_ns(&self.cpus[usize::from(WORKER_CPU)].work) - self.worker.mark_ns;
        busy.saturating_sub(self.worker.own_ns)
    }

    /// The service task / work runs in a kworker: charged as system time on CPU 0.
    pub(super) fn charge_service(&mut self, writes_before: u64) {
        self.charge(WORKER_CPU, Stage::ArfsHw, self.arfs.counters.hw_writes - writes_before);
    }

    /// Backlogs drained, mlx5's work runs.
    pub(super) fn end_of_tick(&mut self) {
        // process_backlog: input_queue_head advances by what was processed; what was not
        // waits for the next tick (backlog.rs, `end_tick`).
        let tick = self.cfg.tick_ns;
        for c in &mut self.cpus {
            self.counters.delivered += c.backlog.end_tick(tick);
        }
        self.count_softirq();
        for (c, s) in self.cpus.iter_mut().zip(&self.softirq) {
            // What the tick could not process waits for the next: the tick's packets queued
            // behind it (latency.rs).
            let queued = c.backlog.in_flight();
            if queued > 0 && s.enqueued > 0 {
                self.latency.waited(queued * c.backlog.each(), s.enqueued);
            }
            if let Some(each) = s.backlog_ns {
                c.backlog.set_each(each);
            }
        }
        self.read_sockets();
        self.sample_latency();
        if matches!(self.cfg.driver, Driver::Ice | Driver::IceHashMatch) {
            self.ice_lock();
        }
        if self.cfg.driver == Driver::Mlx5 {
            self.mlx5_worker();
        }
        if self.arfs.supported() {
            self.worker.others_ns = self.others_this_tick();
        }
    }

    /// mlx5's work queue (`create_singlethread_workqueue("mlx5e_arfs")`, en_arfs.c): one
    /// ordered worker, whose items run one after another on one CPU. It has the time its CPU
    /// did not spend this tick on anything else (softirqs preempt a kworker; the tick's other
    /// work was booked first), less what its last item took beyond its previous turn; the
    /// items it has no time for wait, in order, and their flows' requests coalesce meanwhile
    /// ([`Arfs::mlx5_work`]). So the CPU is never booked past the clock, and a backlog builds
    /// where the kernel's would. Simplifications: the sandbox's kworker is CPU 0's (an unbound
    /// worker may run on any CPU its pool allows, so a busy CPU 0 slows the sandbox's worker
    /// more than a real one); it runs at the tick's end, after the tick's packets.
    fn mlx5_worker(&mut self) {
        self.mlx5_lock();
        let free = self.cfg.tick_ns.saturating_sub(self.others_this_tick());
        let paid = free.min(self.worker.debt_ns);
        self.worker.debt_ns -= paid;
        let time = free - paid;
        let writes = self.arfs.counters.hw_writes;
        self.read_expiry_heads();
        let view = ExpiryView {
            kernel: self.cfg.kernel,
            queues: &self.queues,
            heads: &self.expiry_heads,
        };
        let costs = self.cfg.costs;
        let prices = WorkPrices {
            write_ns: costs.arfs_hw_update_ns,
            entry_ns: costs.mlx5_expiry_entry_ns,
        };
        let (walks, used) = self.arfs.mlx5_work(&view, time, prices);
        let entries = walks.entries;
        self.worker.debt_ns += used.saturating_sub(time);
        self.worker.own_ns += used;
        self.charge_service(writes);
        self.charge(WORKER_CPU, Stage::ArfsExpiry, entries);
        // The next tick's calls find these walks.
        self.lock_walks.walks.clear();
        for &(rules, count) in &walks.lengths {
            self.lock_walks.add(u64::from(rules) * prices.entry_ns, count);
        }
    }

    /// ice's `arfs_lock`: `ice_rx_flow_steer` takes it for every call (`spin_lock_bh`), and
    /// the service task holds it for its whole walk of the list. A call that lands during a
    /// walk spins for what is left of it ([`LockWalks::spin`]), charged as softirq time on the
    /// CPU that called. (The calls' own short holds are not modelled.)
    fn ice_lock(&mut self) {
        let mut walks = core::mem::take(&mut self.lock_walks);
        for c in 0..self.cpus.len() {
            let n = core::mem::take(&mut self.cpus[c].arfs_calls);
            let spin = walks.spin(n, self.cfg.tick_ns);
            if spin > 0 {
                self.counters.arfs_lock_wait_ns += spin;
                self.charge(c as u16, Stage::ArfsLock, spin);
            }
        }
        walks.walks.clear();
        self.lock_walks = walks;
    }

    /// mlx5's `arfs_lock`: every `mlx5e_rx_flow_steer` holds it for `mlx5_lock_hold_ns`. The
    /// calls of a tick queue behind each other; the mean wait per call is the M/D/1 queue's
    /// `W = ρ·S / (2(1-ρ))` with `ρ = calls·S / tick` (capped at ρ = 0.95). The work's expiry
    /// passes hold it too: a call that lands in one spins for what is left of it, as for ice's
    /// walk ([`LockWalks::spin`]); the passes are those the worker ran at the end of the last
    /// tick, which the calls at the start of this one find. Charged as softirq time spinning
    /// on the CPU that called.
    pub(super) fn mlx5_lock(&mut self) {
        let hold = self.cfg.costs.mlx5_lock_hold_ns;
        let calls: u64 = self.cpus.iter().map(|c| c.arfs_calls).sum();
        if calls == 0 {
            return;
        }
        let walks = core::mem::take(&mut self.lock_walks);
        let tick = u128::from(self.cfg.tick_ns);
        let busy = (u128::from(calls) * u128::from(hold)).min(tick * 95 / 100);
        let queued = (u128::from(hold) * busy / (2 * (tick - busy))) as u64;
        for c in 0..self.cpus.len() {
            let n = core::mem::take(&mut self.cpus[c].arfs_calls);
            if n > 0 {
                let wait = n * queued + walks.spin(n, self.cfg.tick_ns);
                self.counters.arfs_lock_wait_ns += wait;
                self.charge(c as u16, Stage::ArfsLock, n * hold + wait);
            }
        }
        self.lock_walks = walks;
    }
}

/// The kworker's walks under `arfs_lock` that a tick's `ndo_rx_flow_steer` calls can land
/// in: each length, with how many walks had it.
#[derive(Clone, Debug, Default)]
pub(super) struct LockWalks {
    walks: Vec<(u64, u64)>,
}

impl LockWalks {
    /// `count` more walks of `ns` each.
    pub(super) fn add(&mut self, ns: u64, count: u64) {
        if ns == 0 || count == 0 {
            return;
        }
        match self.walks.last_mut() {
            Some((d, c)) if *d == ns => *c += count,
            _ => self.walks.push((ns, count)),
        }
    }

    /// What `n` calls of one CPU, spread over a tick of `tick_ns`, spin behind the walks. A
    /// walk of `D` lies somewhere in the tick; the first of the CPU's calls to land in it
    /// spins to its end, and the CPU's later calls come after that (one CPU's calls are one
    /// after another), so the CPU spins `D - T` where `T`, the first call's arrival after the
    /// walk began, is exponential at the calls' rate `λ = n / tick`: on average
    /// `D · h(λD)` with `h(x) = 1 - (1 - e^-x) / x`, `x / 2` for rare calls (each lands with
    /// probability `D / tick` and waits `D / 2`) and `1` for calls so dense that one is always
    /// there. The engine has no floating point: `h(x) ≈ x (3 + x) / (6 + 4x + x²)`, the
    /// rational function with `h`'s first two terms at both ends (within 2.5 % of it).
    fn spin(&self, n: u64, tick_ns: u64) -> u64 {
        let t = u128::from(tick_ns);
        self.walks
            .iter()
            .map(|&(d, count)| {
                let d = u128::from(d);
                // x = nD / T, scaled by T: h = xT (3T + xT) / (6T² + 4T·xT + (xT)²).
                let xt = u128::from(n) * d;
                let num = xt * (3 * t + xt);
                let den = 6 * t * t + 4 * t * xt + xt * xt;
                (d * num / den) as u64 * count
            })
            .sum()
    }
}
