//! The RPS flow limit (`skb_flow_limit`, net/core/dev.c; Documentation/networking/scaling.rst
//! "Per-flow rate limitation"): when a backlog is at least half full, the CPU that enqueues
//! samples each packet's flow into a history of the last [`HISTORY`] samples and drops a packet
//! whose flow holds more than half of them, so one heavy flow cannot fill a backlog that many
//! small flows share. Off unless the enqueuing CPU is in `net.core.flow_limit_cpu_bitmap`.

use alloc::vec;
use alloc::vec::Vec;

use crate::rps::hash_32;

/// `FLOW_LIMIT_HISTORY` (net/core/dev.h: `1 << 7`).
pub const HISTORY: usize = 128;
/// `netdev_flow_limit_table_len`'s default (`1 << 12`).
pub const DEFAULT_TABLE_LEN: u32 = 4096;
/// The largest table the sandbox allocates.
pub const MAX_TABLE_LEN: u32 = 1 << 20;

/// One CPU's `sd_flow_limit`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowLimit {
    /// log2 of the bucket count (`log_buckets`).
    log: u32,
    /// The bucket of each of the last `HISTORY` sampled packets (a ring).
    history: [u16; HISTORY],
    head: usize,
    /// Samples per bucket among the history.
    buckets: Vec<u8>,
    /// Packets it dropped (`fl->count`, softnet_stat's `flow_limit_count`).
    pub count: u64,
}

impl FlowLimit {
    /// A table of `table_len` buckets (rounded down to a power of two, at least 1), as
    /// `flow_limit_cpu_sysctl` allocates it: the history starts as bucket 0 samples whose counts
    /// are not held (`kzalloc`: every `buckets[0]` decrement finds 0 and is skipped).
    pub fn new(table_len: u32) -> FlowLimit {
        let log = table_len.max(1).ilog2();
        FlowLimit {
            log,
            history: [0; HISTORY],
            head: 0,
            buckets: vec![0; 1 << log],
            count: 0,
        }
    }

    /// Samples one packet of flow `hash` (the backlog is at least half full); true when the
    /// flow holds more than half of the history and the packet is dropped.
    pub fn sample(&mut self, hash: u32) -> bool {
        let new = hash_32(hash, self.log) as u16;
        let old = core::mem::replace(&mut self.history[self.head], new);
        self.head = (self.head + 1) % HISTORY;
        let b = &mut self.buckets[usize::from(old)];
        *b = b.saturating_sub(1);
        let n = &mut self.buckets[usize::from(new)];
        *n = n.saturating_add(1);
        let drop = usize::from(*n) > HISTORY / 2;
        if drop {
            self.count += 1;
        }
        drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One flow alone holds every sample: from its 65th sampled packet on (more than 64 of the
    /// last 128) each of its packets is dropped; a mix of 3 flows is never dropped.
    #[test]
    fn a_flow_with_more_than_half_the_history_is_dropped() {
        let mut fl = FlowLimit::new(DEFAULT_TABLE_LEN);
        let drops: Vec<bool> = (0..70).map(|_| fl.sample(0xdead_beef)).collect();
        assert!(
            drops[..64].iter().all(|d| !d) && drops[64..].iter().all(|&d| d),
            "{drops:?}"
        );
        assert_eq!(fl.count, 6);
        let mut fl = FlowLimit::new(DEFAULT_TABLE_LEN);
        assert!((0..3000u32).all(|i| !fl.sample([0x1111_1111, 0x2222_2222, 0x3333_3333][i as usize % 3])));
    }
}
