//! What the page and the CLI read: the snapshot and per-flow, per-queue views.

use alloc::vec::Vec;

use crate::arfs::FilterView;
use crate::cpuset::CpuSet;
use crate::flow::FlowKey;
use crate::ledger::{Class, Ledger};
use crate::metrics::{Counters, CpuStats, QueueStats};
use crate::rps::NO_CPU;
use crate::time::Nanos;

use super::{FlowView, Sim, Snapshot};

impl Sim {
    /// Totals and per-queue / per-CPU figures now.
    pub fn snapshot(&self) -> Snapshot {
        // Each CPU's work priced once: its accounts, and its share of the run's ledger.
        let mut ledger = Ledger::default();
        let cpus = self
            .cpus
            .iter()
            .zip(&self.softirq)
            .map(|(c, s)| {
                let own = self.prices.ledger([&c.work]);
                own.iter().for_each(|(stage, ns)| ledger.book(stage, ns));
                CpuStats {
                    user_ns: own.class_total(Class::User),
                    sys_ns: own.class_total(Class::Sys),
                    softirq_ns: own.class_total(Class::Softirq),
                    flow_limit_count: c.flow_limit.as_ref().map_or(0, |fl| fl.count),
                    time_squeeze: s.time_squeeze,
                    ..c.stats
                }
            })
            .collect();
        let counters = Counters {
            flow_limit: self.counters.flow_limit
                + self
                    .cpus
                    .iter()
                    .filter_map(|c| c.flow_limit.as_ref())
                    .map(|fl| fl.count)
                    .sum::<u64>(),
            user_ns: ledger.class_total(Class::User),
            sys_ns: ledger.class_total(Class::Sys),
            softirq_ns: ledger.class_total(Class::Softirq),
            ..self.counters
        };
        Snapshot {
            now: self.now,
            counters,
            in_flight: self.cpus.iter().map(|c| c.backlog.in_flight()).sum(),
            arfs: self.arfs.counters,
            arfs_active: self.arfs.active(),
            arfs_work_queued: self.arfs.work_queued(),
            queues: self
                .queues
                .iter()
                .zip(&self.irqs)
                .map(|(q, i)| QueueStats {
                    interrupts: i.interrupts,
                    ..q.stats
                })
                .collect(),
            cpus,
            txq: self.txq_packets.clone(),
            ledger,
            xdp_ps: self.xdp.as_ref().map(|(_, c)| self.cfg.costs.driver_rx_ps + c.kfunc_ps),
            flows: self.open_flow_count(),
            digest: self.digest,
        }
    }

    /// One CPU's booked time so far, per stage (`None` past the host's CPUs).
    pub fn cpu_ledger(&self, cpu: u16) -> Option<Ledger> {
        self.cpus.get(usize::from(cpu)).map(|c| self.prices.ledger([&c.work]))
    }

    /// Number of flows.
    pub fn flow_count(&self) -> u32 {
        self.flows.len() as u32
    }

    /// Number of open flows (what the snapshot's `flows` says).
    pub fn open_flow_count(&self) -> u32 {
        self.flows.len() as u32 - self.closed_flows
    }

    /// Number of threads.
    pub fn thread_count(&self) -> u32 {
        self.threads.len() as u32
    }

    /// A thread's CPU and cpuset.
    pub fn thread(&self, tid: u32) -> Option<(u16, CpuSet)> {
        self.threads.get(tid as usize).map(|t| (t.cpu, t.allowed))
    }

    /// A flow's tuple.
    pub fn flow_key(&self, f: u32) -> Option<FlowKey> {
        self.info.get(f as usize).map(|i| i.key)
    }

    /// Where flow `f` goes now (none for a closed flow: it has no path).
    pub fn flow_view(&self, f: u32) -> Option<FlowView> {
        let fl = self.flows.get(f as usize).filter(|fl| !fl.closed)?;
        let reader_cpu = self.threads.get(fl.first_reader as usize).map_or(NO_CPU, |t| t.cpu);
        let (rule_queue, rule) = self.rx_queue(f as usize);
        let reader_queue = self.rmap.get(usize::from(reader_cpu)).copied().unwrap_or(u16::MAX);
        Some(FlowView {
            queue: fl.last_queue,
            cpu: fl.last_cpu,
            reader_cpu,
            reader_queue,
            hash: fl.nic_hash,
            rule,
            rule_queue,
            packets: fl.sent,
            dropped: fl.last_drop,
        })
    }

    /// Packets each flow has offered so far, in flow order.
    pub fn flows_sent(&self) -> impl Iterator<Item = u64> + '_ {
        self.flows.iter().map(|f| f.sent)
    }

    /// The packets open flow `f` had offered at `t`, the end of a tick (what
    /// [`Sim::flows_sent`] gave then), worked out from its start and rate rather than kept:
    /// after each tick its count is `rate × (t − start)` rounded down (receive.rs `run_flow`),
    /// 0 before it started. `None` for a closed flow (its rate is gone) or none. The page's
    /// rates per queue and CPU over the last second take what each flow offered then from
    /// this, instead of copying 16,384 counts every 100 ms.
    pub fn flow_sent_at(&self, f: u32, t: Nanos) -> Option<u64> {
        let fl = self.flows.get(f as usize).filter(|fl| !fl.closed)?;
        let span = t.0.saturating_sub(fl.since.0);
        Some(crate::time::mul_div(span, fl.rate_pps, 1_000_000_000))
    }

    /// Writes to `rps_sock_flow_table` that changed an entry, so far (the snapshot's
    /// `sock_flow_updates`, without pricing every CPU's work to get it).
    pub fn sock_flow_updates(&self) -> u64 {
        self.counters.sock_flow_updates
    }

    /// The queue the NIC would pick for flow `f` now.
    pub fn flow_queue_now(&self, f: u32) -> Option<u16> {
        (f < self.flow_count() && !self.flow_closed(f)).then(|| self.rx_queue(f as usize).0)
    }

    /// aRFS adds, re-points and expiries per RX queue since the start (index = queue; queues
    /// without any are absent at the end).
    pub fn arfs_per_queue(&self) -> &[crate::arfs::QueueTally] {
        &self.arfs.per_queue
    }

    /// The live aRFS filters, with the flows they match.
    pub fn arfs_filters(&self) -> Vec<FilterView> {
        self.arfs.filters()
    }

    /// The CPU an RX queue's NAPI polls on: where its vector's last interrupt ran.
    pub fn irq_cpu(&self, q: u16) -> Option<u16> {
        self.queues.get(usize::from(q)).map(|r| r.irq_cpu)
    }

    /// The CPU an RX queue's vector fires on next (`effective_affinity_list`): its poll's CPU
    /// unless the vector was moved while the poll kept running (nic.rs `set_irq_affinity`).
    pub fn irq_effective_cpu(&self, q: u16) -> Option<u16> {
        self.queues.get(usize::from(q)).map(|r| r.vector_cpu())
    }

    /// The share of an RX queue's packets its full ring drops this tick, in thousandths: what
    /// its demand has beyond what its ring and poll take (receive.rs `ring_share`); 0 when
    /// the ring keeps up.
    pub fn ring_drop_permille(&self, q: u16) -> u32 {
        self.queues
            .get(usize::from(q))
            .and_then(|r| r.thin)
            .map_or(0, |(budget, demand)| {
                (1000 - budget.min(demand) * 1000 / demand.max(1)) as u32
            })
    }

    /// Whether an RX queue's vector was moved and its poll has not yet followed.
    pub fn irq_move_pending(&self, q: u16) -> bool {
        self.queues.get(usize::from(q)).is_some_and(|r| r.moving_to.is_some())
    }

    /// An RX queue vector's interrupts on CPU `cpu` (a `/proc/interrupts` column).
    pub fn irq_interrupts_on(&self, q: u16, cpu: u16) -> u64 {
        let at = usize::from(q) * self.cpus.len() + usize::from(cpu);
        self.irq_counts.get(at).copied().unwrap_or(0)
    }

    /// Polls of an RX queue that completed because its vector moved (mlx5's `chN_aff_change`).
    pub fn irq_aff_changes(&self, q: u16) -> u64 {
        self.irqs.get(usize::from(q)).map_or(0, |i| i.aff_change)
    }

    /// NUMA node of a CPU.
    pub fn node_of(&self, cpu: u16) -> u16 {
        self.nodes.get(usize::from(cpu)).copied().unwrap_or(0)
    }

    /// Checks the conservation law: every offered packet is delivered, dropped or in flight.
    pub fn conserved(&self) -> bool {
        let s = self.snapshot();
        s.counters.offered == s.counters.delivered + s.in_flight + s.counters.dropped()
    }
}
