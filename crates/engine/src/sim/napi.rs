//! The NAPI polls' share of their CPU: how many packets each RX queue's poll can take in a
//! tick. `net_rx_action` (net/core/dev.c) polls the CPU's queues with pending work in turn,
//! each for at most its weight (`napi_poll`, 64 packets) per round, until the softirq's budget
//! or time runs out; the packets a ring cannot hold meanwhile the NIC drops (`rx_missed`).
//! Over a tick that gives each queue of a busy CPU an equal share of its time, and a queue
//! that needs less than its share leaves the rest to the others: a max-min fair split.
//!
//! Simplifications: a tick's demand is not known before its flows run, so the split uses
//! each queue's demand in the last tick (what it was offered: taken and dropped), and what
//! that leaves is spread evenly as headroom; a queue idle in the last tick whose CPU was full
//! then drops its first tick's packets beyond that headroom. The ring's depth is not
//! modelled: under a steady overload a ring fills within a tick (1,024 packets in 0.17 ms at
//! xdp-kfunc-cost's 6 Mpps of excess). The polls' share does not yield to the CPU's other
//! work (its RPS backlog, its threads).

use alloc::vec;
use alloc::vec::Vec;

use super::Sim;
use crate::xdp::XdpAction;

impl Sim {
    /// Sets each queue's poll budget for the tick starting now ([`super::RxQueue::budget`]).
    pub(super) fn share_polls(&mut self) {
        let costs = self.cfg.costs;
        // What a CPU's polls take in a tick, at the per-packet cost of the path (an XDP
        // verdict ends the path early).
        let per_pkt_ps = match &self.xdp {
            Some((p, c)) if p.action != XdpAction::Pass => costs.driver_rx_ps + c.kfunc_ps,
            Some((_, c)) => costs.driver_rx_ps + c.kfunc_ps + costs.stack_rx_ns * 1000,
            None => costs.driver_rx_ps + costs.stack_rx_ns * 1000,
        };
        let capacity = self.cfg.tick_ns * 1000 / per_pkt_ps.max(1);
        self.cpus.iter_mut().for_each(|c| c.polled_queues = 0);
        for q in &self.queues {
            self.cpus[usize::from(q.irq_cpu)].polled_queues += 1;
        }
        let mut shared = false;
        for q in &mut self.queues {
            let offered = q.stats.packets + q.stats.drops;
            q.demand = offered - q.offered_mark;
            q.offered_mark = offered;
            q.budget = capacity;
            shared |= self.cpus[usize::from(q.irq_cpu)].polled_queues > 1;
        }
        if shared {
            self.share_busy_cpus(capacity);
        }
    }

    /// The max-min fair split of `capacity` on every CPU that polls more than one queue.
    #[cold]
    fn share_busy_cpus(&mut self, capacity: u64) {
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
                fair_split(capacity, group, &mut self.queues);
            }
        }
    }
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
