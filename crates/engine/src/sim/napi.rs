//! The NAPI polls' share of their CPU: how many packets each RX queue's poll can take in a
//! tick. `net_rx_action` (net/core/dev.c) polls the CPU's queues with pending work in turn,
//! each for at most its weight (`napi_poll`, 64 packets) per round, until the softirq's budget
//! or time runs out; the packets a ring cannot hold meanwhile the NIC drops (`rx_missed`).
//! Over a tick that gives each queue of a busy CPU an equal share of its time, and a queue
//! that needs less than its share leaves the rest to the others: a max-min fair split.
//!
//! At the tick's end the runs of `net_rx_action` are counted ([`Sim::count_softirq`]): the
//! interrupts each queue's vector raised under its moderation, and the runs that spent their
//! budget (`time_squeeze`).
//!
//! Simplifications: a tick's demand is not known before its flows run, so the split uses
//! each queue's demand in the last tick (what it was offered: taken and dropped), and what
//! that leaves is spread evenly as headroom; a queue idle in the last tick whose CPU was full
//! then drops its first tick's packets beyond that headroom. The ring's depth is not
//! modelled: under a steady overload a ring fills within a tick (1,024 packets in 0.17 ms at
//! xdp-kfunc-cost's 6 Mpps of excess). The polls' share yields to the CPU's other softirq
//! work of the last tick (its RPS backlog, the remote penalty, aRFS calls: [`Sim::share_polls`]),
//! not to its threads (softirq preempts them).

use alloc::vec;
use alloc::vec::Vec;

use super::Sim;
use crate::config::HZ;
use crate::ledger::{Class, Stage, Work};
use crate::xdp::XdpAction;

/// One RX queue's interrupts (napi.rs), apart from its hot record: read once a tick.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct QueueIrq {
    /// Its packets before this tick.
    packets_mark: u64,
    /// Interrupts not yet whole, in thousandths.
    carry: u64,
    /// Interrupts its vector raised.
    pub(super) interrupts: u64,
    /// Polls that completed because the vector had moved to another CPU (mlx5's
    /// `chN_aff_change`; nic.rs `set_irq_affinity`).
    pub(super) aff_change: u64,
    /// Packets it took this tick, and whether its ring dropped (counted at the tick's end).
    taken: u64,
    /// This tick's packets and interrupts (latency.rs reads them).
    pub(super) tick: (u64, u64),
}

/// One CPU's softirq in the tick under way: what [`Sim::count_softirq`] counts its runs from.
/// Kept apart from the CPU's record, which a burst touches and is kept small.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SoftirqTick {
    /// Packets enqueued to its backlog before this tick: counted as work of the tick they
    /// came in (`process_backlog`, a NAPI poll of its own; what the tick could not process
    /// waits in the backlog, backlog.rs `end_tick`).
    enq_mark: u64,
    /// Its `received_rps` before this tick.
    rps_mark: u64,
    /// Packets of its saturated runs not yet a whole run's worth (`time_squeeze`'s remainder).
    carry: u64,
    /// The share of the last tick its softirqs took, in millionths: what a reader on it had
    /// left (socket.rs).
    pub(super) busy_ppm: u32,
    /// Its runs that spent their budget or time (softnet_stat's `time_squeeze`).
    pub(super) time_squeeze: u64,
    /// This tick: packets its polls took, whether a poll ran out of time (its ring dropped),
    /// the interrupts that started its runs, and its softirq time in ps (from the ledger).
    polled: u64,
    saturated: bool,
    runs: u64,
    busy_ps: u64,
    /// Its work as of the last tick's end (the ledger's units), and the last tick's packets
    /// polled and softirq time (ps).
    work_mark: Work,
    last: (u64, u64),
    /// This tick's softirq time per packet (ps), and whether its polls ran out of time
    /// (latency.rs reads them).
    pub(super) pkt_ps: u64,
    pub(super) full: bool,
    /// What a backlog packet cost it this tick, ns ([`backlog_pace`]; `None`: no packet ran
    /// the stack here).
    pub(super) backlog_ns: Option<u64>,
    /// Packets enqueued to its backlog this tick (latency.rs reads it).
    pub(super) enqueued: u64,
}

impl Sim {
    /// What one packet's poll costs its IRQ CPU, in ps: the driver, the program's kfuncs,
    /// and the stack unless an XDP verdict ended the path.
    fn poll_pkt_ps(&self) -> u64 {
        let costs = self.cfg.costs;
        let ps = match &self.xdp {
            Some((p, c)) if p.action != XdpAction::Pass => costs.driver_rx_ps + c.kfunc_ps,
            Some((_, c)) => costs.driver_rx_ps + c.kfunc_ps + costs.stack_rx_ns * 1000,
            None => costs.driver_rx_ps + costs.stack_rx_ns * 1000,
        };
        ps.max(1)
    }

    /// Sets each queue's poll budget for the tick starting now ([`super::RxQueue::budget`]).
    ///
    /// What a CPU's polls may take in a tick: what they took in the last tick, plus what its
    /// softirqs left idle of it at the path's per-packet cost (driver, XDP, stack); or, where
    /// the last tick's softirqs took more than the tick (the remote penalty, other queues'
    /// packets in its RPS backlog, aRFS calls and their lock), the last tick's packets scaled
    /// down to fit. So the polls leave the CPU's other softirq work its time and no CPU is
    /// booked past the clock, and where RPS took the stack's work elsewhere the polls take
    /// more. (Before any packet: the tick at the path's cost.)
    pub(super) fn share_polls(&mut self) {
        let path_ps = self.poll_pkt_ps();
        let tick_ps = self.cfg.tick_ns * 1000;
        let capacity = tick_ps / path_ps;
        self.cpus.iter_mut().for_each(|c| c.polled_queues = 0);
        for q in &self.queues {
            self.cpus[usize::from(q.irq_cpu)].polled_queues += 1;
        }
        let mut shared = false;
        for q in &mut self.queues {
            let offered = q.stats.packets + q.stats.drops;
            q.demand = offered - q.offered_mark;
            q.offered_mark = offered;
            let (polled, busy) = self.softirq[usize::from(q.irq_cpu)].last;
            q.budget = match busy {
                0 => capacity,
                b if b <= tick_ps => polled + (tick_ps - b) / path_ps,
                b => crate::time::mul_div(polled, tick_ps, b),
            };
            shared |= self.cpus[usize::from(q.irq_cpu)].polled_queues > 1;
        }
        if shared {
            self.share_busy_cpus();
        }
        self.hold_to_rings();
    }

    /// Caps each queue's budget at what its ring keeps while its vector waits out its
    /// moderation ([`ring_keeps`]); marks the queues whose cap binds (`ring_bound`).
    fn hold_to_rings(&mut self) {
        let ring = u64::from(self.cfg.ring_size());
        for q in &mut self.queues {
            let busy = self.softirq[usize::from(q.irq_cpu)].busy_ppm;
            let interval = self.cfg.moderation_ns(q.demand);
            let keeps = ring_keeps(q.demand, self.cfg.tick_ns, interval, ring, busy).unwrap_or(u64::MAX);
            q.ring_bound = keeps < q.budget;
            q.budget = q.budget.min(keeps);
            q.thin = (q.demand > q.budget).then_some((q.budget, q.demand));
        }
    }

    /// The tick's `net_rx_action` runs, counted at its end (after the backlogs drained):
    ///
    /// - **Interrupts.** A vector fires when its moderation interval (`rx-usecs`, cut short by
    ///   `rx-frames` where the driver counts them: `HostConfig::moderation_ns`; the
    ///   driver's ITR) has passed since the first packet NAPI has not seen, and not while its
    ///   poll runs: the driver masks it until `napi_complete_done` (net/core/dev.c), when the
    ///   ring is empty. So a cycle is the interval (or the gap to the next packet, if longer)
    ///   plus the poll that drains what came meanwhile and what comes while it drains: at a
    ///   load `ρ` of the IRQ CPU's time that is `max(rx-usecs, gap) / (1 - ρ)`, and a queue
    ///   raises `tick · (1 - ρ) / max(rx-usecs, gap)` interrupts a tick, at most one a packet.
    ///   On a CPU whose polls ran out of time (ring drops) the poll never completes and no
    ///   interrupt fires; a queue idle in the last tick raises at least one.
    /// - **`time_squeeze`.** `net_rx_action` polls the CPU's NAPI instances (its queues and
    ///   its backlog), each for up to `dev_weight` packets, until `netdev_budget` is spent
    ///   (`budget -= napi_poll(...)`, stopping at `budget <= 0`: so a run takes whole polls,
    ///   `ceil(budget / weight)` of them) or its time is up (`netdev_budget_usecs`, as
    ///   jiffies: `time_after_eq(jiffies, time_limit)`, on average half a jiffy early);
    ///   a run that stops there counts `sd->time_squeeze` (even when its last poll emptied
    ///   the queues) and raises the softirq again. A run starts with an interrupt or an RPS
    ///   IPI ([`squeezes`]); on a CPU whose polls ran out of time every run takes its limit.
    ///
    /// Simplifications: `ρ` is the CPU's softirq time in the tick (the ledger's); a CPU's
    /// runs are taken to find equal work; adaptive moderation keeps the interval it starts
    /// from. The softirqs restarted on IRQ exit or in `ksoftirqd` are not told apart (both are
    /// softirq time here).
    pub(super) fn count_softirq(&mut self) {
        let (tick, weight) = (self.cfg.tick_ns, u64::from(self.cfg.dev_weight));
        // A run's packets by budget: whole polls until the budget is spent.
        let budget = u64::from(self.cfg.netdev_budget);
        let by_budget = budget.div_ceil(weight).max(1) * weight;
        // A run's time: its jiffies (usecs_to_jiffies rounds up) less half a jiffy on average.
        let jiffy_ps = 1_000_000_000_000 / u64::from(HZ);
        let jiffies = (u64::from(self.cfg.netdev_budget_usecs) * u64::from(HZ)).div_ceil(1_000_000);
        let run_ps = (jiffies * jiffy_ps).saturating_sub(jiffy_ps / 2);
        for (q, irq) in self.queues.iter_mut().zip(&mut self.irqs) {
            let n = q.stats.packets - irq.packets_mark;
            irq.taken = n;
            let s = &mut self.softirq[usize::from(q.irq_cpu)];
            s.polled += n;
            // Drops of a ring too shallow for its moderation leave the poll completing.
            q.polling = q.stats.packets + q.stats.drops - q.offered_mark > n && !q.ring_bound;
            s.saturated |= q.polling;
        }
        // Each CPU's softirq time this tick (the ledger's), as a share of the tick.
        for (cpu, s) in self.cpus.iter().zip(&mut self.softirq) {
            s.busy_ps = self.prices.class_ps_since(&cpu.work, &s.work_mark, Class::Softirq);
            s.backlog_ns = backlog_pace(&self.prices, &cpu.work, &s.work_mark);
            s.work_mark = cpu.work;
            s.last = (s.polled, s.busy_ps);
            s.busy_ppm = if s.saturated {
                1_000_000
            } else {
                (s.busy_ps * 1000 / tick).min(1_000_000) as u32
            };
        }
        let cpus = self.cpus.len();
        for (qi, (q, irq)) in self.queues.iter().zip(&mut self.irqs).enumerate() {
            let n = core::mem::take(&mut irq.taken);
            irq.packets_mark = q.stats.packets;
            irq.tick = (n, 0);
            if n == 0 {
                continue;
            }
            let s = &mut self.softirq[usize::from(q.irq_cpu)];
            let interval = self.cfg.moderation_ns(n).max(tick / n).max(1);
            // Thousandths of an interrupt: tick · (1 - ρ) / interval, at most one a packet.
            let milli = (tick * (1_000_000 - u64::from(s.busy_ppm)) / 1000 / interval).min(n * 1000);
            let total = irq.carry + milli;
            let mut whole = total / 1000;
            irq.carry = total % 1000;
            if whole == 0 && q.demand == 0 {
                (whole, irq.carry) = (1, 0);
            }
            irq.interrupts += whole;
            self.irq_counts[qi * cpus + usize::from(q.irq_cpu)] += whole;
            irq.tick.1 = whole;
            self.counters.interrupts += whole;
            s.runs += whole;
        }
        for (cpu, s) in self.cpus.iter().zip(&mut self.softirq) {
            let enq = cpu.work.get(Stage::RpsEnqueue);
            let work = s.polled + (enq - s.enq_mark);
            let runs = (s.runs + cpu.stats.received_rps - s.rps_mark).max(1);
            let saturated = s.saturated;
            s.full = saturated;
            s.pkt_ps = s.busy_ps / work.max(1);
            s.enqueued = enq - s.enq_mark;
            s.enq_mark = enq;
            s.rps_mark = cpu.stats.received_rps;
            (s.polled, s.saturated, s.runs) = (0, false, 0);
            if work == 0 {
                s.carry = 0;
                continue;
            }
            let per_pkt_ps = (s.busy_ps / work).max(1);
            let by_time = (run_ps / per_pkt_ps).max(weight.min(by_budget));
            let limit = by_budget.min(by_time).max(1);
            let squeezed = if saturated {
                // Every run takes its limit and stops with work left.
                let total = s.carry + work;
                s.carry = total % limit;
                total / limit
            } else {
                // `runs` runs find the work in equal parts (`rem` of them one packet more).
                s.carry = 0;
                let spent = budget.min(limit);
                let (each, rem) = (work / runs, work % runs);
                (runs - rem) * squeezes(each, limit, spent) + rem * squeezes(each + 1, limit, spent)
            };
            s.time_squeeze += squeezed;
            self.counters.time_squeeze += squeezed;
        }
        self.follow_moved_vectors();
    }

    /// The max-min fair split of each CPU's capacity (its queues' budget as set) on every
    /// CPU that polls more than one queue.
    #[cold]
    fn share_busy_cpus(&mut self) {
        // The queues grouped by CPU (a counting sort: each CPU's first place, then its queues).
        let mut start = vec![0u32; self.cpus.len() + 1];
        for (c, cpu) in self.cpus.iter().enumerate() {
            start[c + 1] = start[c] + u32::from(cpu.polled_queues);
        }
        let mut next = start.clone();
        let mut order = vec![0u16; self.queues.len()];
        for (i, q) in self.queues.iter().enumerate() {
            let at = &mut next[usize::from(q.irq_cpu)];
            order[*at as usize] = i as u16;
            *at += 1;
        }
        for (c, cpu) in self.cpus.iter().enumerate() {
            if cpu.polled_queues > 1 {
                let group = &order[start[c] as usize..start[c + 1] as usize];
                let capacity = self.queues[usize::from(group[0])].budget;
                fair_split(capacity, group, &mut self.queues);
            }
        }
    }
}

/// What one backlog packet costs its CPU over a tick whose work went from `before` to `now`,
/// ns: `process_backlog` runs the stack for it there (`__netif_receive_skb`), after its
/// dequeue, and a packet processed away from its reader's CPU, or across a NUMA node, costs
/// that CPU more (the socket's cache lines). So a backlog drains at what the ledger books its
/// CPU per packet, and an RPS target fed more than its CPU processes backs up until
/// `enqueue_to_backlog` drops. The penalties are averaged over the CPU's stack packets of the
/// tick (those of its own polls, processed inline, included). `None` when none ran here.
fn backlog_pace(prices: &crate::ledger::Prices, now: &Work, before: &Work) -> Option<u64> {
    let units = |s: Stage| now.get(s) - before.get(s);
    let stack = units(Stage::StackRx);
    if stack == 0 {
        return None;
    }
    let penalties = units(Stage::RemotePenalty) * prices.ps(Stage::RemotePenalty)
        + units(Stage::CrossNuma) * prices.ps(Stage::CrossNuma);
    let ps = prices.ps(Stage::StackRx) + prices.ps(Stage::RpsEnqueue) + penalties / stack;
    Some((ps / 1000).max(1))
}

/// The squeezes of a run that finds `found` packets: each time it has taken `limit` (its
/// whole polls, or its time) it stops with work left, and what remains, if it reaches the
/// budget's packets (`spent`: `budget -= napi_poll(...)` ends at `budget <= 0` even when the
/// last poll emptied the queues), stops once more. So a run of one packet squeezes under
/// `netdev_budget = 1` (as veth's one-packet runs do on 6.18: kernel-check.sh).
fn squeezes(found: u64, limit: u64, spent: u64) -> u64 {
    let rest = found % limit;
    found / limit + u64::from(rest > 0 && rest >= spent)
}

/// The packets a ring of `ring` descriptors keeps in a tick of `tick` ns when it is offered
/// `demand` of them and its vector waits `interval` ns between interrupts (`rx-usecs`),
/// its CPU's softirqs taking `busy_ppm` millionths of the tick. The driver re-enables the
/// interrupt when its poll finds the ring empty (`napi_complete_done`), and the NIC holds
/// it back for the moderation interval (ice_txrx.c `ice_set_wb_on_itr`, ixgbe's EITR): what
/// arrives meanwhile waits in the ring, and what the ring cannot hold the NIC drops
/// (`rx_missed_errors`, `rx_out_of_buffer`). So each of the `tick · (1 − ρ) / interval`
/// waits keeps at most `ring` packets of the `demand · interval / tick` that arrive in it,
/// and the packets that arrive while the poll runs (`ρ · demand`) are all taken.
///
/// Simplifications: arrivals are even over the tick (no burst: a real burst overflows a
/// ring this keeps whole); the CPU's whole softirq share is taken as the poll's; with no
/// moderation (`rx-usecs 0`) the interrupt's own latency is not a wait.
/// `None` when a wait's arrivals fit the ring: then the ring takes no part in the budget.
fn ring_keeps(demand: u64, tick: u64, interval: u64, ring: u64, busy_ppm: u32) -> Option<u64> {
    if interval == 0 || demand * interval <= ring * tick {
        return None;
    }
    let rho = u64::from(busy_ppm.min(1_000_000));
    let waiting = crate::time::mul_div(tick, 1_000_000 - rho, 1_000_000);
    let in_waits = crate::time::mul_div(waiting, ring, interval);
    let in_polls = crate::time::mul_div(demand, rho, 1_000_000);
    Some((in_waits + in_polls).min(demand))
}

/// Water-filling: every queue of `group` is given its last demand if that is within an equal
/// share of what the others' smaller demands leave, else that share; what the demands leave
/// is spread evenly over all as headroom. The budgets add up to `capacity` at most.
fn fair_split(capacity: u64, group: &[u16], queues: &mut [super::RxQueue]) {
    let mut left = capacity;
    let mut open: Vec<u16> = group.to_vec();
    // Each pass gives the queues whose demand fits the share their demand; the rest share.
    loop {
        let share = left / open.len().max(1) as u64;
        let before = open.len();
        open.retain(|&q| {
            let q = &mut queues[usize::from(q)];
            let fits = q.demand <= share;
            if fits {
                q.budget = q.demand;
                left -= q.demand;
            }
            !fits
        });
        if open.len() == before || open.is_empty() {
            for &q in &open {
                queues[usize::from(q)].budget = share;
            }
            left -= share * open.len() as u64;
            break;
        }
    }
    // What the demands leave, evenly, as every queue's headroom.
    let n = group.len() as u64;
    let (each, extra) = (left / n, left % n);
    for (k, &q) in group.iter().enumerate() {
        queues[usize::from(q)].budget += each + u64::from((k as u64) < extra);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::RxQueue;

    fn split(capacity: u64, demands: &[u64]) -> Vec<u64> {
        let mut queues: Vec<RxQueue> = demands
            .iter()
            .map(|&d| {
                let mut q = RxQueue::new(0, Vec::new(), 0);
                q.demand = d;
                q
            })
            .collect();
        let group: Vec<u16> = (0..demands.len() as u16).collect();
        fair_split(capacity, &group, &mut queues);
        queues.iter().map(|q| q.budget).collect()
    }

    /// A ring holds what arrives while its interrupt waits: 1,000 a ms at 500 us is 500 a
    /// wait, which 512 descriptors keep and 256 do not (half dropped while the CPU is idle).
    #[test]
    fn a_ring_keeps_what_arrives_while_its_interrupt_waits() {
        let ms = 1_000_000;
        assert_eq!(ring_keeps(1000, ms, 500_000, 512, 0), None, "fits");
        assert_eq!(ring_keeps(1000, ms, 500_000, 256, 0), Some(512));
        assert_eq!(ring_keeps(1000, ms, 0, 64, 0), None, "every packet interrupts");
        // Polling a quarter of the time: a quarter taken as it comes, and 0.75 ms of waits.
        assert_eq!(ring_keeps(1000, ms, 500_000, 256, 250_000), Some(250 + 384));
        assert_eq!(
            ring_keeps(1000, ms, 500_000, 256, 1_000_000),
            Some(1000),
            "a poll that never ends"
        );
    }

    /// A busy CPU's polls: a light queue keeps what it needs, the busy ones share the rest
    /// evenly, and nothing is given beyond the CPU's time.
    #[test]
    fn a_cpus_time_is_split_max_min_fair() {
        assert_eq!(split(1000, &[100, 5000, 5000]), [100, 450, 450]);
        assert_eq!(split(1000, &[5000, 5000]), [500, 500]);
        // Demands within the time: each its demand, and what is left as headroom for all.
        assert_eq!(split(1000, &[100, 200, 0]), [334, 433, 233]);
        assert_eq!(split(1000, &[0, 0]), [500, 500], "idle queues share it all");
        for d in [[1u64, 999, 3000], [400, 400, 400], [0, 1000, 0]] {
            assert!(split(1000, &d).iter().sum::<u64>() <= 1000, "{d:?}");
        }
    }
}
