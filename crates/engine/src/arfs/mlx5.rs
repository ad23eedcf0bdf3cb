//! mlx5 (drivers/net/ethernet/mellanox/mlx5/core/en_arfs.c): where a rule sits in the driver's
//! hash tables, and the work that writes rules and expires them.

use alloc::vec::Vec;

use super::{Arfs, ExpiryOracle, Mlx5Rule, Model, Walks, WorkPrices, MLX5_EXPIRY_QUOTA, MLX5_HASH_SHIFT, NONE};
use crate::flow::{FlowKey, FlowType};
use crate::rps::hash_64;

/// mlx5's chain of a flow's rule: its table (`enum arfs_type`: IPv4 TCP, IPv6 TCP, IPv4 UDP,
/// IPv6 UDP) and `arfs_hash_bucket`'s `hash_long(sport | dport << 2, ARFS_HASH_SHIFT)` of the
/// big-endian ports as the CPU reads them (little-endian x86: byte-swapped).
pub(super) fn mlx5_chain(key: &FlowKey) -> u16 {
    let table = match key.flow_type() {
        FlowType::Tcp4 => 0,
        FlowType::Tcp6 => 1,
        FlowType::Udp4 => 2,
        FlowType::Udp6 => 3,
    };
    let ports = u64::from(key.sport().swap_bytes()) | u64::from(key.dport().swap_bytes()) << 2;
    (table << MLX5_HASH_SHIFT) | hash_64(ports, MLX5_HASH_SHIFT) as u16
}

impl Arfs {
    /// mlx5's work, run by its one worker for at most `time_ns` (what is left when it would
    /// start another item waits, in order, for the worker's next turn): each queued
    /// `arfs_handle_work` programs its rule, then runs `arfs_may_expire_flow`. Returns the
    /// expiry passes that ran, how many rules each walked, and the worker's time they took
    /// (an item begun is finished, so it may pass `time_ns` by one item).
    ///
    /// The work items are queued on `create_singlethread_workqueue("mlx5e_arfs")`, an ordered
    /// workqueue: one item runs at a time, in the order queued. While a rule's item waits or
    /// runs, `mlx5e_rx_flow_steer` answers its flow with the rule's filter id and queues
    /// nothing (`work_busy`, [`Arfs::decide`]): requests coalesce, and a backlog of items
    /// ([`Arfs::work_queued`]) is how far the rules lag the stack's wishes.
    ///
    /// `arfs_may_expire_flow` takes `arfs_lock` (`spin_lock_bh`) and visits every rule of the
    /// four tables (`mlx5e_for_each_arfs_rule`), asking `rps_may_expire_flow` for each one
    /// without pending work, before it frees the expired ones outside the lock
    /// (drivers/net/ethernet/mellanox/mlx5/core/en_arfs.c). Simplification: a pass is counted
    /// as walking every rule live at its start; the quota's early stops (the rest of a chain
    /// after its 62nd removal, or after its first in a later chain) are not subtracted, which
    /// overstates only passes that remove more than 61 rules.
    ///
    /// The passes of one batch see the same stack (no packet runs between them), so the rules
    /// `rps_may_expire_flow` would let go are found once and kept in the walk's order (table,
    /// chain, newest first); a pending one joins them when its work is done.
    pub fn mlx5_work(&mut self, oracle: &impl ExpiryOracle, time_ns: u64, prices: WorkPrices) -> (Walks, u64) {
        let Model::Mlx5 {
            rules,
            by_flow,
            pending,
            chain,
            ..
        } = &mut self.model
        else {
            return (Walks::default(), 0);
        };
        let mut walks = Walks::default();
        if pending.is_empty() || time_ns == 0 {
            return (walks, 0);
        }
        // (chain, newest first, rule): the walk's order.
        let key = |i: u32, r: &Mlx5Rule| (chain[r.flow as usize], core::cmp::Reverse(r.seq), i);
        let mut ready = Vec::new();
        for (i, slot) in rules.iter_mut().enumerate() {
            if let Some(r) = slot.as_mut() {
                if oracle.may_expire(r.rxq, r.flow_id, r.filter_id) {
                    // A pending rule is passed over (`work_pending`) until its work is done.
                    r.waiting = r.pending;
                    if !r.pending {
                        ready.push(key(i as u32, r));
                    }
                }
            }
        }
        ready.sort_unstable();
        let mut used = 0u64;
        let mut done = 0;
        while done < pending.len() && used < time_ns {
            let idx = pending[done];
            done += 1;
            let Some(rule) = rules[idx as usize].as_mut() else {
                continue;
            };
            let writes = self.counters.hw_writes;
            if rule.pending {
                // A failed add leaves the rule without hardware (`rule == NULL`, `arfs_err`);
                // it is tried again only if it moves.
                rule.pending = false;
                self.hw.write(rule.flow, rule.rxq, &mut self.counters);
                if core::mem::take(&mut rule.waiting) {
                    let k = key(idx, rule);
                    let at = ready.partition_point(|e| *e < k);
                    ready.insert(at, k);
                }
            }
            walks.add(self.live);
            used += u64::from(self.live) * prices.entry_ns;
            let mut quota = 0u32;
            let mut k = 0;
            while k < ready.len() {
                let this = ready[k].0;
                let end = k + ready[k..].iter().take_while(|e| e.0 == this).count();
                for &(_, _, i) in &ready[k..end] {
                    let Some(rule) = rules[i as usize].take() else { continue };
                    Self::tally(&mut self.per_queue, rule.rxq).expire += 1;
                    self.hw.remove(rule.flow, &mut self.counters);
                    by_flow[rule.flow as usize] = NONE;
                    self.free.push(i);
                    self.live -= 1;
                    self.counters.expire += 1;
                    quota += 1;
                    if quota - 1 > MLX5_EXPIRY_QUOTA {
                        break;
                    }
                }
                k = end;
            }
            // What the quota left for the next pass.
            if quota > 0 {
                ready.retain(|e| rules[e.2 as usize].is_some());
            }
            used += (self.counters.hw_writes - writes) * prices.write_ns;
        }
        pending.drain(..done);
        (walks, used)
    }

    /// mlx5: work items queued and not yet run (each a rule waiting for its hardware write).
    pub fn work_queued(&self) -> u32 {
        match &self.model {
            Model::Mlx5 { pending, .. } => pending.len() as u32,
            _ => 0,
        }
    }
}
