//! irqbalance, the daemon that places the NIC's queue vectors (irqbalance 1.9:
//! `irqbalance.c`, `procinterrupts.c`, `placement.c`, `classify.c`), as an agent of the host:
//! started and stopped like its systemd unit, it wakes every 10 s (`SLEEP_INTERVAL`) and
//! writes `/proc/irq/N/smp_affinity`.
//!
//! What it follows:
//! - **Load.** Each pass reads every CPU's interrupt and softirq time since the last
//!   (`/proc/stat`) and splits a CPU's among the vectors that fired there by their share of
//!   its interrupts since the last pass (`/proc/interrupts`: `compute_irq_branch_load_share`).
//!   A vector whose poll never completes fires almost never, so its share of a saturated CPU
//!   is what the counts say, not what the poll costs: irqbalance's known blind spot with NAPI.
//! - **Placement.** A network vector (PCI class ethernet) is balanced at the core level
//!   (`map_class_to_level`: `BALANCE_CORE`). The first pass places every vector, the heaviest
//!   first, on the least loaded CPU of the device's NUMA node not banned
//!   (`IRQBALANCE_BANNED_CPULIST`), each placed vector's load added to its CPU
//!   (`calculate_placement`, `find_best_object`: the lowest load, then the fewest vectors).
//!   Later passes move vectors only off an overloaded CPU (`update_migration_status`).
//!
//! Simplifications: the sandbox has no SMT siblings or cache domains (each CPU is a core, its
//! NUMA node the package); a later pass moves at most one vector, the heaviest of the most
//! loaded CPU, and only when that lowers the highest load (irqbalance's `find_overloaded_objs`
//! compares each object with the average and the standard deviation); the device's node is
//! node 0. A single flow's vector keeps one CPU at its load wherever irqbalance puts it.

use alloc::vec;
use alloc::vec::Vec;

use crate::cpuset::CpuSet;
use crate::ledger::Class;
use crate::time::Nanos;

use super::{Sim, SimError};

/// irqbalance's `SLEEP_INTERVAL`: a pass every 10 s.
pub const IRQBALANCE_INTERVAL: Nanos = Nanos(10_000_000_000);

/// The running daemon: its next pass, what it read at the last one, the CPUs it may not use.
#[derive(Clone, Debug)]
pub(super) struct IrqBalance {
    next: Nanos,
    /// Per CPU, its interrupt and softirq time at the last pass, ns.
    soft_mark: Vec<u64>,
    /// Per queue vector, its interrupts at the last pass.
    irq_mark: Vec<u64>,
    banned: CpuSet,
    placed: bool,
}

impl Sim {
    /// `systemctl start irqbalance` (or stop: `None`): the daemon with the CPUs it may not
    /// use (`IRQBALANCE_BANNED_CPULIST`). Its first pass runs at the next tick's start.
    pub fn set_irqbalance(&mut self, banned: Option<CpuSet>) -> Result<(), SimError> {
        let Some(banned) = banned else {
            self.irqbalance = None;
            return Ok(());
        };
        if banned.end() > self.cfg.cpus {
            return Err(crate::error::range_err(
                "IRQBALANCE_BANNED_CPULIST",
                "CPUs of this host",
            ));
        }
        if self.node_cpus(0).iter().all(|&c| banned.contains(c)) {
            return Err(crate::error::range_err(
                "IRQBALANCE_BANNED_CPULIST",
                "a list that leaves the NIC's NUMA node a CPU",
            ));
        }
        self.irqbalance = Some(IrqBalance {
            next: self.now,
            soft_mark: vec![0; self.cpus.len()],
            irq_mark: vec![0; self.irqs.len()],
            banned,
            placed: false,
        });
        Ok(())
    }

    /// Whether irqbalance runs, and the CPUs it may not use.
    pub fn irqbalance(&self) -> Option<CpuSet> {
        self.irqbalance.as_ref().map(|b| b.banned)
    }

    /// `systemctl set-environment IRQBALANCE_BANNED_CPULIST=LIST` (`None`: `unset-environment`):
    /// the service manager's environment, which irqbalance reads when it next starts
    /// (`systemctl restart`), not while it runs; irqbalance's `IRQBALANCE_BANNED_CPULIST`
    /// (irqbalance.c, `parse_command_line`'s environment). Only CPUs of this host.
    pub fn set_irqbalance_env(&mut self, banned: Option<CpuSet>) -> Result<(), SimError> {
        if banned.is_some_and(|b| b.end() > self.cfg.cpus) {
            return Err(crate::error::range_err(
                "IRQBALANCE_BANNED_CPULIST",
                "CPUs of this host",
            ));
        }
        self.irqbalance_env = banned;
        Ok(())
    }

    /// The `IRQBALANCE_BANNED_CPULIST` irqbalance would start with, if set.
    pub fn irqbalance_env(&self) -> Option<CpuSet> {
        self.irqbalance_env
    }

    /// The CPUs of NUMA node `node`.
    fn node_cpus(&self, node: u16) -> Vec<u16> {
        (0..self.cfg.cpus).filter(|&c| self.cfg.node_of(c) == node).collect()
    }

    /// A pass of irqbalance, if one is due at `now` (the tick's start).
    pub(super) fn irqbalance_due(&mut self, now: Nanos) {
        if self.irqbalance.as_ref().is_some_and(|b| b.next <= now) {
            self.irqbalance_pass(now);
        }
    }

    #[cold]
    fn irqbalance_pass(&mut self, now: Nanos) {
        let Some(mut b) = self.irqbalance.take() else {
            return;
        };
        b.next = now.saturating_add(IRQBALANCE_INTERVAL);
        if b.irq_mark.len() != self.irqs.len() {
            // `ethtool -L` made new vectors: irqbalance sees new IRQs and places them all.
            b.irq_mark = vec![0; self.irqs.len()];
            b.placed = false;
        }
        // Each CPU's interrupt and softirq time since the last pass, split among its
        // vectors by their interrupts.
        let soft: Vec<u64> = self
            .cpus
            .iter()
            .map(|c| self.prices.ledger([&c.work]).class_total(Class::Softirq))
            .collect();
        let fired: Vec<u64> = self
            .irqs
            .iter()
            .zip(&b.irq_mark)
            .map(|(i, m)| i.interrupts - m)
            .collect();
        let mut on_cpu = vec![(0u64, 0u64); self.cpus.len()];
        for (q, rxq) in self.queues.iter().enumerate() {
            let e = &mut on_cpu[usize::from(rxq.vector_cpu())];
            *e = (e.0 + fired[q], e.1 + 1);
        }
        let load: Vec<u64> = self
            .queues
            .iter()
            .enumerate()
            .map(|(q, rxq)| {
                let c = usize::from(rxq.vector_cpu());
                let cpu_load = soft[c] - b.soft_mark[c];
                match on_cpu[c] {
                    (0, n) => cpu_load / n.max(1),
                    (all, _) => crate::time::mul_div(cpu_load, fired[q], all),
                }
            })
            .collect();
        b.soft_mark = soft;
        b.irq_mark = self.irqs.iter().map(|i| i.interrupts).collect();
        let allowed: Vec<u16> = self
            .node_cpus(0)
            .into_iter()
            .filter(|&c| !b.banned.contains(c))
            .collect();
        let moves = if b.placed {
            self.rebalance(&load, &allowed)
        } else {
            b.placed = true;
            place_all(&load, &allowed)
        };
        self.irqbalance = Some(b);
        for (q, cpu) in moves {
            if self.queues[usize::from(q)].vector_cpu() != cpu {
                let mut set = CpuSet::EMPTY;
                set.insert(cpu);
                // A CPU of the host, a queue of the device: the write cannot be refused.
                let _ = self.set_irq_affinity(q, set);
            }
        }
    }

    /// A later pass: the heaviest vector of the most loaded allowed CPU moves to the least
    /// loaded one, when that lowers the highest load.
    fn rebalance(&self, load: &[u64], allowed: &[u16]) -> Vec<(u16, u16)> {
        let mut cpu_load = vec![0u64; self.cpus.len()];
        for (q, rxq) in self.queues.iter().enumerate() {
            cpu_load[usize::from(rxq.vector_cpu())] += load[q];
        }
        // A vector on a CPU it may not use (banned since) moves first.
        let stray = self
            .queues
            .iter()
            .enumerate()
            .filter(|(_, r)| !allowed.contains(&r.vector_cpu()))
            .map(|(q, _)| q)
            .next();
        let least = |cpu_load: &[u64]| allowed.iter().copied().min_by_key(|&c| (cpu_load[usize::from(c)], c));
        if let (Some(q), Some(to)) = (stray, least(&cpu_load)) {
            return vec![(q as u16, to)];
        }
        let (Some(most), Some(to)) = (
            allowed
                .iter()
                .copied()
                .max_by_key(|&c| (cpu_load[usize::from(c)], u16::MAX - c)),
            least(&cpu_load),
        ) else {
            return Vec::new();
        };
        let heaviest = self
            .queues
            .iter()
            .enumerate()
            .filter(|(_, r)| r.vector_cpu() == most)
            .max_by_key(|&(q, _)| (load[q], usize::MAX - q));
        match heaviest {
            Some((q, _))
                if cpu_load[usize::from(to)] + load[q] < cpu_load[usize::from(most)]
                    && self.queues.iter().filter(|r| r.vector_cpu() == most).count() > 1 =>
            {
                vec![(q as u16, to)]
            }
            _ => Vec::new(),
        }
    }
}

/// The first pass: every vector, the heaviest first (then by number), on the allowed CPU with
/// the least load placed so far, then the fewest vectors, then the lowest number.
fn place_all(load: &[u64], allowed: &[u16]) -> Vec<(u16, u16)> {
    let mut order: Vec<usize> = (0..load.len()).collect();
    order.sort_by_key(|&q| (u64::MAX - load[q], q));
    let mut placed: Vec<(u64, u32)> = vec![(0, 0); allowed.len()];
    order
        .into_iter()
        .filter_map(|q| {
            let (i, _) = placed
                .iter()
                .enumerate()
                .min_by_key(|&(i, &(l, n))| (l, n, allowed[i]))?;
            placed[i] = (placed[i].0 + load[q], placed[i].1 + 1);
            Some((q as u16, allowed[i]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With no load yet, four vectors go to four CPUs; the heaviest goes first.
    #[test]
    fn the_first_pass_spreads_the_heaviest_first() {
        assert_eq!(
            place_all(&[0, 0, 0, 0], &[0, 1, 2, 3]),
            [(0, 0), (1, 1), (2, 2), (3, 3)]
        );
        assert_eq!(place_all(&[10, 90, 50], &[4, 5]), [(1, 4), (2, 5), (0, 5)]);
    }
}
