//! The receive path of one flow's packets in a tick: the NIC's queue, the ring, XDP, RPS/RFS,
//! tc, the backlog; the reader's `recvmsg` is read.rs's.
//!
//! Aggregate mode: a packet's path is decided before anything changes (`get_rps_cpu`, and
//! `set_rps_cpu` planned with the driver's answer). When it would change nothing but counters,
//! queue tails and `last_qtail` stamps, the next packets of the same flow in the tick take
//! exactly the same path until a capacity runs out, so they are applied together. Packet mode
//! applies them one by one; the tests check that both give the same counters and digest.

use crate::backlog::Enqueued;
use crate::config::{Idle, Mode};
use crate::ledger::Stage;
use crate::rps::{DevFlow, DevFlowTable};
use crate::tc::{Classify, SwResult};
use crate::time::Nanos;
use crate::xdp::XdpAction;

use super::event::Fate;
use super::records::{Admit, EntryAt, RpsChoice, Step, Switch};
use super::rfs::decide_rps;
use super::{QueueRule, Sim};

impl Sim {
    /// The flow's packets of this tick, and its reader's `recvmsg` in the middle of them.
    ///
    /// Simplification: a flow's packets of a tick arrive in one burst at its place in the tick.
    /// On a real host they are spread over the tick and interleaved with every other flow's
    /// packets and reads, so two flows that share an `rps_sock_flow_table` entry each find
    /// their own record for about half of their packets. The sandbox gets the same share by
    /// placing the reader's read (`sock_rps_record_flow`) after the first half of the burst:
    /// the first half sees whoever read last, the second half sees this reader.
    #[inline]
    pub(super) fn run_flow(&mut self, f: usize, t1: Nanos) {
        let flow = &mut self.flows[f];
        // A send-only flow, or a closed one (whose `sent` stays for the views' rates).
        if flow.rate_pps == 0 {
            return;
        }
        let span = t1.0 - flow.since.0;
        let due = crate::time::mul_div(span, flow.rate_pps, 1_000_000_000);
        let mut left = due - flow.sent;
        if left == 0 {
            return;
        }
        flow.sent = due;
        let (readers, first_reader) = (flow.readers, flow.first_reader);
        self.counters.offered += left;
        let reader = match readers {
            0 | 1 => first_reader,
            n => self.info[f].readers[self.rng.below(n) as usize],
        };
        self.flows[f].reader = reader;
        let b = self.burst(f, reader);
        // A flow that loses a share at the ring still reaches its socket: only a burst lost
        // whole counts as dropped there (`FlowView::dropped`).
        left -= self.ring_share(&b, left);
        if left == 0 {
            self.flows[f].last_drop = Some(super::DropPoint::Ring);
            return;
        }
        let aggregate = self.cfg.mode == Mode::Aggregate;
        // Packets before the read, and whether any packet of the burst reached the socket and
        // has not been read yet. When the read cannot change the sock table (the entry already
        // holds this reader's CPU, or there is no table or reader), where it falls in the
        // burst changes nothing: the burst runs whole and the read follows it, and neither
        // that read nor a later one records anything (nothing else writes the table
        // meanwhile).
        let record = !self.read_changes_nothing(&b);
        if !record && aggregate && self.steady_burst(&b, left) {
            self.flows[f].last_drop = None;
            self.recvmsg(&b, left, false);
            return;
        }
        let mut before_read = if record { left - left / 2 } else { 0 };
        // Packets that reached the socket since the last read.
        let (mut unread, mut last) = (0, Fate::RingDrop);
        while left > 0 {
            let cap = if before_read > 0 { before_read } else { left };
            let (step, m) = self.steer(&b, if aggregate { cap } else { 1 });
            last = step.fate;
            if step.structural {
                self.record_step(f, step.fate);
            }
            if matches!(step.fate, Fate::Inline { .. } | Fate::Backlog { .. }) {
                unread += m;
            }
            left -= m;
            if before_read > 0 {
                before_read -= m;
                if before_read == 0 && unread > 0 {
                    self.recvmsg(&b, core::mem::take(&mut unread), record);
                }
            }
        }
        self.flows[f].last_drop = last.drop_point();
        if unread > 0 {
            self.recvmsg(&b, unread, record);
        }
    }

    /// The packets of the burst's `left` its queue's full ring drops before they reach it: a
    /// queue offered more than its ring and its poll take this tick ([`super::RxQueue::thin`])
    /// drops every flow's packets in proportion, since they arrive interleaved and find the
    /// ring full alike (the shares' remainders carried from flow to flow, so the tick's drops
    /// are exact). A flow that tc drops in the NIC never reaches the ring. What the ring cannot
    /// take beyond that (a tick offered more than the last) is dropped where its budget ends.
    #[inline]
    fn ring_share(&mut self, b: &Burst, left: u64) -> u64 {
        let qi = usize::from(b.q);
        let Some((budget, demand)) = self.queues[qi].thin else {
            return 0;
        };
        if self.tc.is_some() && self.tc_classify(b.f).is_some_and(|c| c.sw == SwResult::DroppedInHw) {
            return 0;
        }
        let q = &mut self.queues[qi];
        let total = q.thin_carry + left * budget;
        let admitted = (total / demand).min(left);
        q.thin_carry = total % demand;
        let dropped = left - admitted;
        if dropped > 0 {
            self.ring_drop(qi, dropped);
        }
        dropped
    }

    /// What all of flow `f`'s packets of this tick share, read once: nothing a step does
    /// changes it. The NIC's filters change only between flows (ice's service task writes
    /// between them, mlx5's work at the tick's end, ATR before the flows), a queue's IRQ CPU,
    /// a thread's CPU and tc's filters only between ticks.
    #[inline]
    fn burst(&self, f: usize, reader: u32) -> Burst {
        let (q, rule) = self.rx_queue(f);
        let irq = self.queues[usize::from(q)].irq_cpu;
        let reader_cpu = self.threads.get(reader as usize).map(|t| t.cpu);
        let rc = reader_cpu.unwrap_or(irq);
        Burst {
            f,
            reader,
            hash: self.flows[f].skb_hash,
            q,
            rule,
            irq,
            reader_cpu,
            rc,
            wakeable: reader_cpu.is_some() && self.reader_sleeps(f),
            sleeps: self.reader_sleeps(f),
        }
    }

    /// `enqueue_to_backlog`'s test on `cpu`'s backlog now (net/core/dev.c): packets are taken
    /// while `qlen <= netdev_max_backlog` (qlen before each, of `input_pkt_queue` alone:
    /// [`crate::backlog::Backlog::qlen`]); from `qlen >= max / 2` on,
    /// `skb_flow_limit` samples each packet when the enqueuing CPU `irq` has a flow-limit
    /// table. Dequeues what the time has processed.
    #[inline]
    fn backlog_admit(&mut self, cpu: u16, b: &Burst) -> Admit {
        // Below `free_below` every packet is simply taken. The queue as last dequeued is an
        // upper bound of the queue now: when even that is below the mark, the run may go on
        // that far (a shorter run than the exact room gives the same results; only where the
        // limit lies must be exact).
        let free_below = self.queues[usize::from(b.q)].free_below;
        let stale = self.cpus[usize::from(cpu)].backlog.qlen();
        if stale < free_below {
            return Admit {
                room: free_below - stale,
                sample: false,
            };
        }
        self.backlog_admit_now(cpu, b)
    }

    /// [`Sim::backlog_admit`] when the queue as last dequeued is at or past the mark: the
    /// queue now decides.
    #[inline(never)]
    fn backlog_admit_now(&mut self, cpu: u16, b: &Burst) -> Admit {
        self.head_now(cpu);
        let rxq = &self.queues[usize::from(b.q)];
        let qlen = self.cpus[usize::from(cpu)].backlog.qlen();
        if qlen < rxq.free_below {
            return Admit {
                room: rxq.free_below - qlen,
                sample: false,
            };
        }
        Admit {
            room: (u64::from(self.cfg.netdev_max_backlog) + 1).saturating_sub(qlen),
            sample: rxq.flow_limited,
        }
    }

    /// `enqueue_to_backlog` of `m` packets on CPU `c` from the IRQ CPU `irq`: the backlog's
    /// tail is stamped into the flow's `rps_dev_flow` (`stamp`, when RFS chose it), and a
    /// backlog that was idle is woken from `irq` when that is another CPU (`rps_ipi_queued`).
    #[inline(always)]
    fn enqueue_backlog(&mut self, irq: u16, c: u16, m: u64, stamp: Option<EntryAt>) {
        let ci = usize::from(c);
        let Enqueued { tail, woke } = self.cpus[ci].backlog.enqueue(self.elapsed, m);
        if let Some(at) = stamp {
            self.entry_mut(at).last_qtail = tail;
        }
        if c != irq && woke {
            self.wake_backlog(irq, ci);
        }
        self.charge(c, Stage::RpsEnqueue, m);
    }

    /// A remote backlog scheduled again by CPU `irq`'s poll (later packets find it busy):
    /// `rps_ipi_queued`, then `net_rps_send_ipi` at the end of the poll calls
    /// `smp_call_function_single_async` for it (net/core/dev.c). Its function,
    /// `rps_trigger_softirq`, runs on the target and counts softnet_stat's `received_rps`
    /// either way; the interrupt itself is sent only when the target's idle task is not
    /// polling: `__smp_call_single_queue` -> `send_call_function_single_ipi` asks
    /// `call_function_single_prep_ipi` (kernel/sched/core.c), which sets `TIF_NEED_RESCHED`
    /// on a polling idle CPU instead (`set_nr_if_polling`) and that CPU runs the queue as it
    /// leaves idle (`flush_smp_call_function_queue`). So with `host.idle = poll` the wake-up
    /// costs no IPI. Departs from the kernel (FIDELITY.md, `backlog-ipi-idle-target`): a CPU
    /// whose backlog is idle is taken to be idle (the sandbox has no run queues), as for a
    /// reader's wake-up ([`Sim::remote_wakes`]), so a target busy running its reader gets no
    /// interrupt under `host.idle = poll`, where the kernel would send one.
    #[inline(never)]
    fn wake_backlog(&mut self, irq: u16, target: usize) {
        self.counters.backlog_wakes += 1;
        self.cpus[target].stats.received_rps += 1;
        if self.cfg.idle == Idle::Halt {
            self.counters.ipis += 1;
            self.charge(irq, Stage::Ipi, 1);
        }
    }

    /// `skb_flow_limit` on the enqueuing CPU `irq` for one packet of flow `f`: true = dropped.
    #[inline(never)]
    fn flow_limited(&mut self, irq: u16, f: usize) -> bool {
        let hash = self.flows[f].skb_hash;
        self.cpus[usize::from(irq)]
            .flow_limit
            .as_mut()
            .is_some_and(|fl| fl.sample(hash))
    }

    /// Up to `want` packets of the burst's flow along one path; returns the step and how many
    /// packets took it. The path is decided before anything changes, and the run is cut where
    /// the next packet could take another: where the ring or the target backlog fills, and
    /// after one packet when the planned `set_rps_cpu` changes state other than counters and
    /// stamps (a call the driver skips repeats as it is). Packet mode asks for one packet at a
    /// time; both modes give the same counters and digest (tested).
    #[inline]
    fn steer(&mut self, b: &Burst, want: u64) -> (Step, u64) {
        // The block's decision for this flow; filter hit counters are booked only for packets
        // that reach the point where each part runs (the NIC's filters now, software later).
        let tc = if self.tc.is_some() { self.tc_classify(b.f) } else { None };
        if let Some(c) = tc.filter(|c| c.sw == SwResult::DroppedInHw) {
            return self.tc_hw_drop(&c, want);
        }
        let (f, q, irq) = (b.f, b.q, b.irq);
        let qi = usize::from(q);
        let ring = self.queues[qi].budget;
        if ring == 0 {
            return self.ring_drop(qi, want);
        }
        // An XDP verdict other than XDP_PASS ends the path in the driver, before RPS.
        let rps = if self.xdp.as_ref().is_none_or(|(p, _)| p.action == XdpAction::Pass) {
            self.get_rps_cpu(q, f, b.hash)
        } else {
            RpsChoice::INLINE
        };
        let plan = rps
            .switch
            .map(|(next_cpu, from)| self.plan_set_rps_cpu(from, next_cpu, f, b.hash));
        let mut m = want.min(ring);
        if plan.is_some_and(|p| p.structural) {
            m = 1;
        }
        // enqueue_to_backlog's limits as they stand at this instant: the run stops where the
        // queue would pass netdev_max_backlog, or reach the flow limit's half-full mark.
        let admit = rps.cpu.map(|c| self.backlog_admit(c, b));
        if let Some(a) = admit {
            if a.sample {
                m = 1;
            } else if a.room > 0 {
                m = m.min(a.room);
            }
        }
        let rxq = &mut self.queues[qi];
        rxq.budget -= m;
        rxq.stats.packets += m;
        self.charge(irq, Stage::DriverRx, m);
        if self.xdp.is_some() {
            if let Some(fate) = self.run_xdp(irq, q, m) {
                return (
                    Step {
                        fate,
                        structural: false,
                    },
                    m,
                );
            }
        }
        let (target, stamp, structural) = self.apply_rps(m, rps, plan);
        // tc ingress runs in __netif_receive_skb_core on the processing CPU, after the packet
        // got into that CPU's backlog (a full backlog drops it first, below). Simplification:
        // the sandbox classifies when the packet is steered, so a packet tc drops never takes
        // a backlog slot.
        let backlog_drop = match admit {
            Some(a) if a.room == 0 => true,
            Some(a) if a.sample => self.flow_limited(irq, f),
            _ => false,
        };
        if let (Some(c), false) = (tc, backlog_drop) {
            let tc_cpu = target.unwrap_or(irq);
            if self.tc_ingress(c, tc_cpu, m) {
                return (
                    Step {
                        fate: Fate::TcDrop { queue: q, cpu: tc_cpu },
                        structural,
                    },
                    m,
                );
            }
        }
        let (cpu, fate, more) = match target {
            None => {
                self.counters.delivered += m;
                (irq, Fate::Inline { queue: q }, 0)
            }
            Some(c) => {
                let ci = usize::from(c);
                if backlog_drop {
                    // enqueue_to_backlog: qlen > netdev_max_backlog, or the flow limit.
                    self.counters.backlog_full += m;
                    self.cpus[ci].stats.dropped += m;
                    return (
                        Step {
                            fate: Fate::BacklogDrop { queue: q, cpu: c },
                            structural,
                        },
                        m,
                    );
                }
                // The packets after an add take the same path to the same backlog and entry:
                // counted first, they are enqueued and accounted with the add's packet, at
                // once (an enqueue of `m + more` at one instant is one of `m` and one of `more`,
                // and `deliver` is linear in its packets).
                let more = match (structural && want > m, plan) {
                    (true, Some(p)) => self.follow_add(b, want - m, m, rps, p, c),
                    _ => 0,
                };
                self.enqueue_backlog(irq, c, m + more, stamp);
                (c, Fate::Backlog { queue: q, cpu: c }, more)
            }
        };
        self.deliver(b, cpu, m + more);
        (Step { fate, structural }, m + more)
    }

    /// The packets after a structural step whose `set_rps_cpu` call added an entry in the
    /// driver, up to `want` of them, taken at once (returns how many; 0 leaves them to the
    /// next step). Their path is known without deciding it again: the sock table is as it was
    /// (no read in between: `want` stops at the read), so `get_rps_cpu` finds the same entry
    /// and switches again (the add re-pointed the target queue's entry, not this one; its
    /// look at the old CPU's head is done at this instant), and the driver now finds the new
    /// entry: `Skip` ([`crate::arfs::Arfs::after_add`]). That call changes nothing, and the target entry
    /// already holds the CPU and the filter, so the step is not structural: what `steer`
    /// would do for them as one step. Not under 6.18, whose active-flow check reads the stamp
    /// the add left; not when the add's entry is the one switched (then there is no switch).
    /// The caller enqueues them on `c` with the add's `first` packets, not enqueued yet, and
    /// books their processing (`deliver`).
    // Out of line natively, inlined in wasm: see `plan_set_rps_cpu`.
    #[cfg_attr(target_arch = "wasm32", inline(always))]
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    fn follow_add(&mut self, b: &Burst, want: u64, first: u64, rps: RpsChoice, plan: Switch, c: u16) -> u64 {
        let Some((req, added)) = plan.call else {
            return 0;
        };
        if self.tc.is_some() || self.xdp.is_some() || self.cfg.kernel.active_flow_check() || plan.loc == plan.from {
            return 0;
        }
        let Some(skip) = self.arfs.after_add(&req, &added) else {
            return 0;
        };
        let (q, irq) = (b.q, b.irq);
        let (qi, ci) = (usize::from(q), usize::from(c));
        let (ring, free_below) = (self.queues[qi].budget, self.queues[qi].free_below);
        // The queue as its last dequeue left it, with the add's packets in it.
        let stale = self.cpus[ci].backlog.qlen_at(self.elapsed) + first;
        if ring == 0 || stale >= free_below {
            return 0;
        }
        let m = want.min(ring).min(free_below - stale);
        let plan = Switch {
            call: Some((req, skip)),
            structural: false,
            ..plan
        };
        debug_assert!({
            let again = self.plan_set_rps_cpu(plan.from, plan.next_cpu, b.f, b.hash);
            let answer = |p: &Switch| p.call.map(|(_, d)| d.answer);
            (again.loc, again.structural, answer(&again)) == (plan.loc, false, answer(&plan))
        });
        let rxq = &mut self.queues[qi];
        rxq.budget -= m;
        rxq.stats.packets += m;
        self.charge(irq, Stage::DriverRx, m);
        // `set_rps_cpu` with the driver's `Skip`, without its general path: the call changes
        // only counters (`carry_out` of a skip), the old entry no longer holds the filter, the
        // target entry already holds the CPU and the filter, and its `last_qtail` is the
        // enqueue's below; the target backlog was dequeued to this instant by the add's call.
        debug_assert!({
            let e = self.entry(plan.loc);
            (e.cpu, Some(e.filter)) == (plan.next_cpu, skip.answer.filter())
                && Some(self.entry(plan.from).filter) != skip.answer.filter()
                && plan.from.queue == q
        });
        self.counters.cpu_switches += m;
        self.count_arfs_calls(irq, m);
        self.arfs.count_skips(m);
        // The caller's enqueue stamps the entry `set_rps_cpu` left: `plan.loc`.
        debug_assert!(rps.stamp.is_none() || self.entry(plan.loc).cpu == c);
        m
    }

    /// Most bursts, whole in one step of [`Sim::steer`]'s: all `m` packets to one backlog,
    /// chosen by RPS or RFS without a switch, with room for them all, and no tc or XDP on the
    /// way. This is `steer`'s path for them with its general cases left out. Returns false
    /// when the burst is not of that kind, having done only what `steer` does again with the
    /// same result (`get_rps_cpu`'s look at a backlog head dequeues what the time has
    /// processed, which a second look at the same instant finds done).
    #[inline(always)]
    fn steady_burst(&mut self, b: &Burst, m: u64) -> bool {
        if self.tc.is_some() || self.xdp.is_some() {
            return false;
        }
        // The queue and the CPU records stay borrowed for the whole burst ([`Sim::rps_parts`]).
        let sock_ent = self.sock_ent(b.f);
        let (rfs, rxq, mut heads) = self.rps_parts(b.q);
        if rxq.budget < m {
            return false;
        }
        let rps = decide_rps(&rfs, rxq, b.q, b.hash, sock_ent, |c| heads.at(c));
        let (Some(c), None) = (rps.cpu, rps.switch) else {
            return false;
        };
        let ci = usize::from(c);
        let free_below = rxq.free_below;
        let cpus = heads.cpus;
        let stale = cpus[ci].backlog.qlen();
        if stale >= free_below || free_below - stale < m {
            return false;
        }
        rxq.budget -= m;
        rxq.stats.packets += m;
        cpus[usize::from(b.irq)].work.add(Stage::DriverRx, m);
        // `enqueue_backlog`'s work, on the borrowed records: calling it here, through `self`,
        // cost 1 % more instructions in seed 000 (cachegrind).
        let target = &mut cpus[ci];
        let Enqueued { tail, woke } = target.backlog.enqueue(heads.elapsed, m);
        target.work.add(Stage::RpsEnqueue, m);
        // Without a switch, `get_rps_cpu` stamps the entry it found in this queue's table.
        debug_assert!(rps.stamp.is_none_or(|at| at.queue == b.q));
        if let (Some(at), Some(t)) = (rps.stamp, rxq.table.as_mut()) {
            t.flows[at.slot as usize].last_qtail = tail;
        }
        if c != b.irq && woke {
            self.wake_backlog(b.irq, ci);
        }
        self.deliver(b, c, m);
        true
    }

    /// The accounting of `m` packets of the burst processed on `cpu`: where they went
    /// against the reader's CPU, NUMA crossings, the reader's wake-ups.
    #[inline(always)]
    fn deliver(&mut self, b: &Burst, cpu: u16, m: u64) {
        let (q, irq, rc) = (b.q, b.irq, b.rc);
        if irq != rc {
            // Seed 000's measure: the NIC put the packet on a queue whose CPU is not the reader's.
            self.counters.wrong_queue += m;
            if b.rule == QueueRule::Arfs && b.reader_cpu.is_some() && self.rmap[usize::from(rc)] != q {
                self.counters.arfs_missteered += m;
            }
        }
        let node = |c: u16| self.nodes[usize::from(c)];
        let crossings = u64::from(node(irq) != node(cpu)) + u64::from(node(cpu) != node(rc));
        // A reader that sleeps between its packets is woken by the first packet of each NAPI
        // poll that carries its data (`sk_data_ready` -> `sock_def_readable` ->
        // `try_to_wake_up`; the poll's later packets find it awake and `ttwu_state_match`
        // returns early). From another CPU, see [`Sim::remote_wakes`].
        let wakes = if cpu != rc && b.wakeable {
            self.remote_wakes(b.f, m)
        } else {
            0
        };
        let c = &mut self.cpus[usize::from(cpu)];
        c.stats.packets += m;
        let row = &mut c.work;
        row.add(Stage::StackRx, m);
        if cpu == rc {
            self.counters.local += m;
        } else {
            self.counters.remote += m;
            row.add(Stage::RemotePenalty, m);
        }
        if wakes > 0 {
            self.counters.remote_wakeups += wakes;
            if self.cfg.idle == Idle::Halt {
                self.counters.wake_ipis += wakes;
                row.add(Stage::WakeIpi, wakes);
            }
        }
        if crossings > 0 {
            row.add(Stage::CrossNuma, crossings * m);
            self.counters.cross_numa_bytes += crossings * u64::from(self.flows[b.f].bytes) * m;
        }
        // `last_queue` and `last_cpu` are read only by the views, never by the path: setting
        // them is not structural.
        let flow = &mut self.flows[b.f];
        flow.last_queue = q;
        flow.last_cpu = cpu;
    }

    /// The tc block's decision for flow `f` (it depends on the tuple and the filters).
    #[inline(never)]
    fn tc_classify(&self, f: usize) -> Option<Classify> {
        self.tc.as_ref().map(|t| t.classify(&self.info[f].key))
    }

    /// An offloaded tc filter (in_hw) dropped the packets in the NIC: no queue, no CPU.
    #[cold]
    #[inline(never)]
    fn tc_hw_drop(&mut self, c: &Classify, m: u64) -> (Step, u64) {
        if let Some(b) = self.tc.as_mut() {
            b.count(c, m);
        }
        self.counters.tc_drop += m;
        self.counters.tc_hw_drop += m;
        let fate = Fate::TcHwDrop;
        (
            Step {
                fate,
                structural: false,
            },
            m,
        )
    }

    /// The ring is full: the NIC drops (rx_missed / rx_dropped), nothing else runs.
    #[cold]
    #[inline(never)]
    fn ring_drop(&mut self, qi: usize, m: u64) -> (Step, u64) {
        self.counters.ring_full += m;
        self.queues[qi].stats.drops += m;
        let fate = Fate::RingDrop;
        (
            Step {
                fate,
                structural: false,
            },
            m,
        )
    }

    /// The flow entry at `at`.
    #[inline]
    pub(super) fn entry(&self, at: EntryAt) -> DevFlow {
        self.queues[usize::from(at.queue)]
            .table
            .as_ref()
            .expect("entries live in a table")
            .flows[at.slot as usize]
    }

    #[inline]
    pub(super) fn entry_mut(&mut self, at: EntryAt) -> &mut DevFlow {
        &mut self.table_mut(at.queue).flows[at.slot as usize]
    }

    /// Queue `q`'s flow table, which an entry being stamped or steered lives in.
    #[inline]
    pub(super) fn table_mut(&mut self, q: u16) -> &mut DevFlowTable {
        self.queues[usize::from(q)]
            .table
            .as_mut()
            .expect("stamped entries live in a table")
    }
}

/// What all of a flow's packets of a tick share ([`Sim::burst`]), read once before its first
/// step.
#[derive(Clone, Copy, Debug)]
pub(super) struct Burst {
    pub(super) f: usize,
    /// The reading thread of this tick (`u32::MAX` when none).
    pub(super) reader: u32,
    /// `skb_get_hash`.
    pub(super) hash: u32,
    /// The RX queue the NIC picks, and why.
    pub(super) q: u16,
    pub(super) rule: QueueRule,
    /// The queue's IRQ CPU (the driver's poll).
    pub(super) irq: u16,
    /// The reader's CPU, if the socket has a reader.
    pub(super) reader_cpu: Option<u16>,
    /// The reader's CPU, else the IRQ CPU: packets processed there count as local.
    pub(super) rc: u16,
    /// The reader sleeps between its packets ([`Sim::reader_sleeps`]).
    pub(super) sleeps: bool,
    /// It has a reader and that reader sleeps: packets processed elsewhere wake it.
    pub(super) wakeable: bool,
}
