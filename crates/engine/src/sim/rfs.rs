//! RPS and RFS on the packet's path: `get_rps_cpu` and `set_rps_cpu` (net/core/dev.c), with
//! aRFS's `ndo_rx_flow_steer` call, and the backlog head they read.

use crate::arfs::{Decision, SteerRequest};
use crate::kernel::Kernel;
use crate::ledger::Stage;
use crate::rps::{active_window, reciprocal_scale, rfs_slot, DevFlow, NO_FILTER};
use crate::time::Nanos;

use super::records::{Cpu, EntryAt, RpsChoice, RpsWhy, RxQueue, Switch};
use super::Sim;

/// What `get_rps_cpu` reads besides the queue and the flow's `rps_sock_flow_table` entry: the
/// host's constants.
pub(super) struct RfsTables {
    pub(super) kernel: Kernel,
    pub(super) cpu_mask: u32,
    pub(super) ncpus: u16,
}

/// `input_queue_head` of `cpu` at `elapsed` ns into the tick: the runs whose processing has
/// ended are dequeued (`process_backlog`) and counted `delivered`.
#[inline]
fn head_at(cpu: &mut Cpu, delivered: &mut u64, elapsed: u64) -> u32 {
    let (head, dequeued) = cpu.backlog.head_at(elapsed);
    *delivered += dequeued;
    head
}

/// `get_rps_cpu` (net/core/dev.c, kernel-semantics §2.4) for a packet with `hash` on queue `q`:
/// the CPU whose backlog gets the packet, the flow entry to stamp, whether `set_rps_cpu` runs,
/// and why. `sock_ent` is the flow's `rps_sock_flow_table` entry (`None` without the table,
/// [`Sim::sock_ent`]); `head(cpu)` is that CPU's `input_queue_head` now. The receive path and
/// the trace both ask this function, so the trace explains exactly what the path does.
#[inline(always)]
pub(super) fn decide_rps(
    rfs: &RfsTables,
    rxq: &RxQueue,
    q: u16,
    hash: u32,
    sock_ent: Option<u32>,
    mut head: impl FnMut(u16) -> u32,
) -> RpsChoice {
    if rxq.table.is_none() && rxq.rps_map.is_empty() {
        return RpsChoice {
            why: RpsWhy::Off,
            ..RpsChoice::INLINE
        };
    }
    if hash == 0 {
        return RpsChoice {
            why: RpsWhy::NoHash,
            ..RpsChoice::INLINE
        };
    }
    // Plain RPS: the high bits of the hash pick a CPU of the map; no entry is stamped.
    let plain = |why: RpsWhy| {
        let map = &rxq.rps_map;
        RpsChoice {
            cpu: (!map.is_empty()).then(|| map[reciprocal_scale(hash, map.len() as u32) as usize]),
            why,
            ..RpsChoice::INLINE
        }
    };
    let (Some(ft), Some(ident)) = (&rxq.table, sock_ent) else {
        return plain(if rxq.table.is_some() {
            RpsWhy::RfsOff
        } else {
            RpsWhy::RpsOnly
        });
    };
    if (ident ^ hash) & !rfs.cpu_mask != 0 {
        return plain(RpsWhy::NotRecorded);
    }
    let next_cpu = (ident & rfs.cpu_mask) as u16;
    let slot = rfs_slot(rfs.kernel, hash, ft.log);
    let rflow = ft.flows[slot as usize];
    // The in-order rule: move only once the old CPU has dequeued every packet this flow
    // enqueued there (head has passed last_qtail), or the old CPU is unset.
    let was = rflow.cpu;
    let switch = was != next_cpu && (was >= rfs.ncpus || head(was).wrapping_sub(rflow.last_qtail) as i32 >= 0);
    let at = EntryAt { queue: q, slot };
    let (tcpu, switch) = if switch {
        (next_cpu, Some((next_cpu, at)))
    } else {
        (was, None)
    };
    let why = RpsWhy::Recorded {
        slot,
        was,
        next: next_cpu,
    };
    if tcpu < rfs.ncpus {
        return RpsChoice {
            cpu: Some(tcpu),
            stamp: Some(at),
            switch,
            why,
        };
    }
    RpsChoice { switch, ..plain(why) }
}

/// The CPUs' backlogs as `get_rps_cpu` reads them: each head at the present instant of the
/// tick, dequeuing what the time has processed (counted `delivered`).
pub(super) struct Heads<'a> {
    pub(super) cpus: &'a mut [Cpu],
    delivered: &'a mut u64,
    /// The present, in ns from the tick's start.
    pub(super) elapsed: u64,
}

impl Heads<'_> {
    /// `input_queue_head` of CPU `c` now ([`head_at`]).
    #[inline(always)]
    pub(super) fn at(&mut self, c: u16) -> u32 {
        head_at(&mut self.cpus[usize::from(c)], self.delivered, self.elapsed)
    }
}

impl Sim {
    /// What `get_rps_cpu` reads, borrowed apart from the rest of the host: the tables and
    /// constants, queue `q`, and the CPUs' backlogs. A caller that goes on with the same queue
    /// and CPUs keeps these borrows, so that their places and bounds are not read again after
    /// each store (the steady path: cachegrind, 4 % fewer instructions in seed 000).
    #[inline(always)]
    pub(super) fn rps_parts(&mut self, q: u16) -> (RfsTables, &mut RxQueue, Heads<'_>) {
        let heads = Heads {
            cpus: &mut self.cpus,
            delivered: &mut self.counters.delivered,
            elapsed: self.elapsed,
        };
        let rfs = RfsTables {
            kernel: self.cfg.kernel,
            cpu_mask: self.cpu_mask,
            ncpus: self.cfg.cpus,
        };
        (rfs, &mut self.queues[usize::from(q)], heads)
    }

    /// Flow `f`'s `rps_sock_flow_table` entry now; `None` without the table.
    #[inline(always)]
    pub(super) fn sock_ent(&self, f: usize) -> Option<u32> {
        let sock = self.sock.as_ref()?;
        let ent = sock.get(self.sock_cells[f]);
        debug_assert_eq!(ent, sock.entry(self.flows[f].skb_hash), "flow {f}'s cell is its entry");
        Some(ent)
    }

    /// Notes every flow's cell in `rps_sock_flow_table` ([`SockFlowTable::cell`]), in flow
    /// order: after the table was reset or the flows' hashes may have changed.
    pub(super) fn note_sock_cells(&mut self) {
        let (cells, flows) = (&mut self.sock_cells, &self.flows);
        cells.clear();
        match self.sock.as_mut() {
            Some(sock) => cells.extend(flows.iter().map(|f| sock.cell(f.skb_hash))),
            None => cells.resize(flows.len(), u32::MAX),
        }
    }

    /// `get_rps_cpu` for a packet with `hash` on queue `q`, decided before anything changes
    /// ([`decide_rps`]). Only `head_now` moves, and it only dequeues what the time already
    /// processed.
    #[inline(always)]
    pub(super) fn get_rps_cpu(&mut self, q: u16, f: usize, hash: u32) -> RpsChoice {
        let sock_ent = self.sock_ent(f);
        let (rfs, rxq, mut heads) = self.rps_parts(q);
        decide_rps(&rfs, rxq, q, hash, sock_ent, |c| heads.at(c))
    }

    /// Carries out `get_rps_cpu`'s choice for `m` packets: `set_rps_cpu` if it switches, whose
    /// entry is then the one stamped. Returns the target CPU, the entry to stamp, and whether
    /// state other than counters changed.
    #[inline]
    pub(super) fn apply_rps(
        &mut self,
        m: u64,
        choice: RpsChoice,
        plan: Option<Switch>,
    ) -> (Option<u16>, Option<EntryAt>, bool) {
        let Some(plan) = plan else {
            return (choice.cpu, choice.stamp, false);
        };
        let loc = self.set_rps_cpu(plan, m);
        (choice.cpu, choice.stamp.map(|_| loc), plan.structural)
    }

    /// `rps_flow_is_active` (6.18): the entry's CPU dequeued less than the window since its
    /// last enqueue.
    #[inline]
    pub(super) fn flow_is_active(&mut self, e: &DevFlow, log: u32) -> bool {
        usize::from(e.cpu) < self.cpus.len()
            && (self.head_now(e.cpu).wrapping_sub(e.last_qtail) as i32) < active_window(self.cfg.kernel, log)
    }

    /// `input_queue_head` of `cpu` at the current time within the tick ([`head_at`]).
    #[inline]
    pub(super) fn head_now(&mut self, cpu: u16) -> u32 {
        head_at(
            &mut self.cpus[usize::from(cpu)],
            &mut self.counters.delivered,
            self.elapsed,
        )
    }

    /// `set_rps_cpu` (net/core/dev.c, kernel-semantics §2.5), planned before anything
    /// changes: with aRFS, the driver is asked to steer the flow to the queue nearest
    /// `next_cpu` (its answer decided, [`Arfs::decide`]), and the entry that will represent the flow is the
    /// target queue's after a successful steer. [`Sim::set_rps_cpu`] carries the plan out.
    // Natively out of line, like `set_rps_cpu` and `follow_add`: inlined into `steer`, they
    // cost the steady path more instructions (measured with cachegrind) than the call costs a
    // switch. In wasm the three are inlined by LLVM: out of line there, their `Switch`,
    // `RpsChoice` and `SteerRequest` go through the shadow stack in linear memory, and
    // Binaryen inlining the single caller afterwards cannot bring them back into locals
    // (the likely reason; measured, alternating builds: in node rfs-thread-churn 0.946-0.960
    // and seed 000 0.979-0.991 of the time, in the page's runs to end 0.94 and 0.98; one of
    // them inlined alone, 0.985-1.008). The driver's `decide`, `after_add` and `carry_out`
    // are inlined into these three in every build: in wasm seed 000 0.948 and 0.964,
    // rfs-thread-churn 0.959 and 0.973 more; natively, where they stayed out of line until
    // then, 2.2 % fewer instructions for seed 000 and 0.966-0.978 of the time (`farm-bench`,
    // 10 and 20 pairs; the steady path does not call them, so it is unchanged). The digests
    // are the same.
    #[cfg_attr(target_arch = "wasm32", inline(always))]
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn plan_set_rps_cpu(&mut self, from: EntryAt, next_cpu: u16, f: usize, hash: u32) -> Switch {
        let kernel = self.cfg.kernel;
        let q = from.queue;
        let cur = self.entry(from);
        let mut plan = Switch {
            from,
            next_cpu,
            call: None,
            loc: from,
            structural: false,
        };
        // The CPU of the entry that represents the flow afterwards, as it is now.
        let mut loc_cpu = cur.cpu;
        if usize::from(next_cpu) < self.cpus.len() {
            let rxq_index = self.rmap[usize::from(next_cpu)];
            let arfs_on = self.cfg.ntuple && self.arfs.supported();
            if let (true, true, Some(t)) = (
                arfs_on,
                rxq_index != q,
                self.queues[usize::from(rxq_index)].table.as_ref(),
            ) {
                let flow_id = rfs_slot(kernel, hash, t.log);
                let (tmp, log) = (t.flows[flow_id as usize], t.log);
                // The hash the entry holds: 6.18 stores it with the filter (0 before).
                let tmp_hash = if kernel.active_flow_check() {
                    t.hashes[flow_id as usize]
                } else {
                    0
                };
                // 6.18: do not overwrite a slot another live flow owns, nor re-steer in place.
                let skip = kernel.active_flow_check()
                    && tmp.filter != NO_FILTER
                    && self.flow_is_active(&tmp, log)
                    && (hash != tmp_hash || next_cpu == tmp.cpu);
                if !skip {
                    let req = SteerRequest {
                        flow: f as u32,
                        hash,
                        rxq: rxq_index,
                        flow_id,
                        udp: self.flows[f].udp,
                        calls: 1,
                    };
                    // ice_arfs_is_perfect_flow_set: not while a partial-mask ntuple rule
                    // holds the flow type's input set (the driver answers -EOPNOTSUPP).
                    let refused = self.partial_input_set.contains(&true)
                        && self.partial_input_set[self.info[f].key.flow_type().index()];
                    let decision = if refused {
                        Decision::refused()
                    } else {
                        self.arfs.decide(&req)
                    };
                    plan.structural |= decision.changes_state();
                    if let Some(rc) = decision.answer.filter() {
                        // The old entry lets go of the filter; the target entry takes it.
                        plan.structural |= cur.filter == rc;
                        // 6.18 stores the flow's hash with the filter.
                        plan.structural |= tmp.filter != rc || (kernel.active_flow_check() && tmp_hash != hash);
                        plan.loc = EntryAt {
                            queue: rxq_index,
                            slot: flow_id,
                        };
                        loc_cpu = tmp.cpu;
                    }
                    plan.call = Some((req, decision));
                }
            }
            // 6.18: the target entry's stamp now feeds `rps_flow_is_active` in the next call,
            // so the next packet may take another path.
            plan.structural |= kernel.active_flow_check() && plan.loc != from;
        }
        plan.structural |= loc_cpu != next_cpu;
        plan
    }

    /// `m` calls of `ndo_rx_flow_steer` from CPU `irq`'s poll: counted, added to the CPU's
    /// calls of this tick (what the driver's lock prices at the tick's end), and charged.
    #[inline]
    pub(super) fn count_arfs_calls(&mut self, irq: u16, m: u64) {
        self.counters.arfs_calls += m;
        self.cpus[usize::from(irq)].arfs_calls += m;
        self.charge(irq, Stage::ArfsSteer, m);
    }

    /// Carries out a [`Sim::plan_set_rps_cpu`] plan for `m` packets; returns the entry that now
    /// represents the flow.
    // Out of line natively, inlined in wasm: see `plan_set_rps_cpu`.
    #[cfg_attr(target_arch = "wasm32", inline(always))]
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn set_rps_cpu(&mut self, plan: Switch, m: u64) -> EntryAt {
        let (from, loc, next_cpu) = (plan.from, plan.loc, plan.next_cpu);
        self.counters.cpu_switches += m;
        let mut filter = None;
        if let Some((req, decision)) = plan.call {
            let irq = self.queues[usize::from(from.queue)].irq_cpu;
            self.count_arfs_calls(irq, m);
            // Nothing the driver reads changed since the plan.
            let (result, changed) = self.arfs.carry_out(SteerRequest { calls: m, ..req }, decision);
            if changed && self.arfs.ice_work_pending() {
                // ice_service_task_schedule: the task runs at once unless queued or running.
                self.timers.ice_schedule(Nanos(self.now.0 + self.elapsed));
            }
            if let Some(rc) = result.filter() {
                // The old entry lets go of the filter; the target entry takes it (below).
                let old = self.entry_mut(from);
                if old.filter == rc {
                    old.filter = NO_FILTER;
                }
                let hash = self.cfg.kernel.active_flow_check().then_some(req.hash);
                filter = Some((rc, hash));
            }
        }
        let head = (usize::from(next_cpu) < self.cpus.len()).then(|| self.head_now(next_cpu));
        if let Some((_, Some(hash))) = filter {
            self.table_mut(loc.queue).hashes[loc.slot as usize] = hash;
        }
        let e = self.entry_mut(loc);
        if let Some((rc, _)) = filter {
            e.filter = rc;
        }
        if let Some(head) = head {
            e.last_qtail = head;
        }
        e.cpu = next_cpu;
        loc
    }
}
