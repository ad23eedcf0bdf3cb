//! What the walk-cost examples share: a seeded generator, the stack's per-flow stamps and
//! per-CPU heads a walk reads (`rps_may_expire_flow`: the flow's `rps_dev_flow.last_qtail`
//! and its CPU's `softnet_data.input_queue_head`), and a writer thread that keeps rewriting
//! them, as the softirqs of other CPUs do while the driver walks.
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

/// xorshift64: the examples' only randomness, seeded.
pub(crate) fn rng(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// A random permutation of `0..n`.
pub(crate) fn shuffled(n: usize, seed: &mut u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (rng(seed) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// The stack's side of an expiry check: each flow's `rps_dev_flow` (two words: the CPU and
/// `last_qtail`) and each CPU's `input_queue_head`, a cache line apart.
pub(crate) struct Stack {
    flows: Arc<Vec<AtomicU32>>,
    heads: Arc<Vec<AtomicU32>>,
    cpus: usize,
}

impl Stack {
    pub(crate) fn new(flows: usize, cpus: usize) -> Stack {
        Stack {
            flows: Arc::new((0..flows * 2).map(|_| AtomicU32::new(0)).collect()),
            heads: Arc::new((0..cpus * 16).map(|_| AtomicU32::new(0)).collect()),
            cpus,
        }
    }

    /// `rps_may_expire_flow`'s test for `flow` on `cpu`: its backlog has moved past the
    /// flow's last enqueue by more than ten times the table.
    #[inline(always)]
    pub(crate) fn may_expire(&self, flow: usize, cpu: usize, table: u32) -> bool {
        let qtail = self.flows[flow * 2 + 1].load(Ordering::Relaxed);
        let head = self.heads[cpu * 16].load(Ordering::Relaxed);
        (head.wrapping_sub(qtail) as i32) >= (10 * table) as i32
    }

    /// Runs `walk` while another thread rewrites random stamps and heads, and returns its
    /// result.
    pub(crate) fn with_writer<T>(&self, walk: impl FnOnce() -> T) -> T {
        let stop = Arc::new(AtomicBool::new(false));
        let (flows, heads, s2, cpus) = (self.flows.clone(), self.heads.clone(), stop.clone(), self.cpus);
        let writer = std::thread::spawn(move || {
            let mut s = 99u64;
            let mut n = 0u32;
            let nflows = flows.len() / 2;
            while !s2.load(Ordering::Relaxed) {
                let f = (rng(&mut s) % nflows as u64) as usize;
                flows[f * 2 + 1].store(n, Ordering::Relaxed);
                heads[(n as usize % cpus) * 16].store(n, Ordering::Relaxed);
                n = n.wrapping_add(1);
            }
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        let out = walk();
        stop.store(true, Ordering::Relaxed);
        writer.join().expect("the writer thread ends");
        out
    }
}
