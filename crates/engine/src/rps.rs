//! RPS and RFS state: the global `rps_sock_flow_table`, the per-queue `rps_dev_flow_table`, and
//! the kernel's small hash helpers (include/net/rps.h, include/linux/hash.h,
//! include/linux/math.h). The decision functions `get_rps_cpu` / `set_rps_cpu` live in
//! `sim/rfs.rs`, where the host owns every table they touch.

use alloc::vec;
use alloc::vec::Vec;

use crate::kernel::Kernel;

/// `RPS_NO_CPU`: an unset CPU in a flow entry.
pub const NO_CPU: u16 = 0xffff;
/// `RPS_NO_FILTER`: no aRFS filter installed for a flow entry.
pub const NO_FILTER: u16 = 0xffff;
/// Largest `rps_sock_flow_entries` the kernel accepts (2^29); the sandbox caps it lower.
pub const MAX_SOCK_FLOW_ENTRIES: u32 = 1 << 22;
/// Largest `rps_flow_cnt` per queue in the sandbox (the kernel takes whatever `vmalloc`
/// gives; 2^20 entries are 12 MB in the sandbox).
pub const MAX_FLOW_CNT: u32 = 1 << 20;
/// Most flow-table entries over all of a host's queues in the sandbox (48 MB): a page must
/// not run out of memory for a learner's `echo 1048576 | tee rx-*/rps_flow_cnt`.
pub const MAX_FLOW_ENTRIES: u64 = 1 << 22;

/// `hash_32(val, bits)` (include/linux/hash.h): multiply by `GOLDEN_RATIO_32`, keep the top
/// bits. `bits == 0` would shift by 32 in C; the sandbox returns slot 0 (kernel-semantics §2.2).
pub const fn hash_32(val: u32, bits: u32) -> u32 {
    if bits == 0 {
        return 0;
    }
    val.wrapping_mul(0x61C8_8647) >> (32 - bits)
}

/// `hash_64(val, bits)` (include/linux/hash.h, 64-bit `hash_long`): multiply by
/// `GOLDEN_RATIO_64`, keep the top bits (`bits` in 1..=64).
pub const fn hash_64(val: u64, bits: u32) -> u64 {
    val.wrapping_mul(0x61C8_8646_80B5_83EB) >> (64 - bits)
}

/// `reciprocal_scale(val, n)` (include/linux/math.h): the high bits of `val` pick in `0..n`.
pub const fn reciprocal_scale(val: u32, n: u32) -> u32 {
    ((val as u64 * n as u64) >> 32) as u32
}

/// The slot of a flow in a per-queue flow table: `rfs_slot` (net/core/dev.c) hashes with
/// `hash_32` since 6.15; up to 6.14 it was `hash & (size - 1)`.
pub const fn rfs_slot(kernel: Kernel, hash: u32, log: u32) -> u32 {
    if kernel.hashed_slots() {
        hash_32(hash, log)
    } else {
        hash & ((1u32 << log) - 1)
    }
}

/// The activity window of `rps_may_expire_flow` / `rps_flow_is_active`: `10 << log` since
/// 6.15, `10 * mask` = 10 × (size − 1) before.
pub const fn active_window(kernel: Kernel, log: u32) -> i32 {
    if kernel.hashed_slots() {
        10 << log
    } else {
        10 * ((1i32 << log) - 1)
    }
}

/// `rps_cpu_mask`: `roundup_pow_of_two(nr_cpu_ids) - 1`.
pub const fn cpu_mask(ncpus: u16) -> u32 {
    (ncpus as u32).next_power_of_two() - 1
}

/// One `rps_dev_flow`, but for the flow hash 6.18 stores with the filter
/// ([`DevFlowTable::hashes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevFlow {
    /// CPU the flow was last steered to, or [`NO_CPU`].
    pub cpu: u16,
    /// aRFS filter id, or [`NO_FILTER`].
    pub filter: u16,
    /// The target CPU's `input_queue_tail` after this flow's last enqueue.
    pub last_qtail: u32,
}

impl DevFlow {
    const EMPTY: DevFlow = DevFlow {
        cpu: NO_CPU,
        filter: NO_FILTER,
        last_qtail: 0,
    };
}

/// A queue's `rps_dev_flow_table` of `2^log` entries (`rps_flow_cnt`).
///
/// The kernel's entry holds the flow hash too (`rps_dev_flow::hash`, 6.18 only). Here it is
/// kept apart, in [`DevFlowTable::hashes`]: every packet reads an entry at random, and the
/// expiry walks read one per filter, so 8-byte entries rather than 12 leave a third more of
/// the tables in the cache (seed 000's 144 tables: 576 KiB instead of 864), while the hashes
/// stay untouched before 6.18.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DevFlowTable {
    /// log2 of the size.
    pub log: u32,
    /// The entries.
    pub flows: Vec<DevFlow>,
    /// Each entry's flow hash, stored with its filter (6.18 only; 0 before).
    pub hashes: Vec<u32>,
}

impl DevFlowTable {
    /// `store_rps_dev_flow_table_cnt`: the count rounded up to a power of two, entries reset.
    pub fn new(count: u32) -> DevFlowTable {
        let size = count.max(1).next_power_of_two();
        DevFlowTable {
            log: size.trailing_zeros(),
            flows: vec![DevFlow::EMPTY; size as usize],
            hashes: vec![0; size as usize],
        }
    }

    /// Number of entries (`2^log`).
    pub fn size(&self) -> u32 {
        1 << self.log
    }
}

/// The global `rps_sock_flow_table`: the CPU where each flow's application last ran.
///
/// Stored compacted: only the entries some flow's hash selects are kept, in `ents`, in the
/// order flows first selected them ([`SockFlowTable::cell`]); every other entry is unset, as no
/// socket can write it. The kernel reads an entry at random per packet (`hash & mask`); the
/// sandbox reads flow `f`'s entry through the place it noted for the flow (its cell), and since
/// flows run in order their cells are read in order: seed 000's 16,384 flows read 64 KiB front
/// to back instead of a 512 KiB table at random. Same entries, same values, same sharing
/// between flows whose hashes select the same entry.
#[derive(Clone, Debug)]
pub struct SockFlowTable {
    /// `entries - 1`.
    pub mask: u32,
    /// The entries some flow selects: `(hash & !rps_cpu_mask) | cpu`, or [`NO_CPU`] when unset.
    ents: Vec<u32>,
    /// For each of the kernel's `mask + 1` entries, its place in `ents` plus one (0: no flow has
    /// selected it). Read and written only when flows or hashes change, never per packet.
    place: Vec<u32>,
}

impl SockFlowTable {
    /// `rps_sock_flow_sysctl`: size rounded up to a power of two, every entry reset.
    pub fn new(entries: u32) -> SockFlowTable {
        let size = entries.max(1).next_power_of_two();
        SockFlowTable {
            mask: size - 1,
            ents: Vec::new(),
            place: vec![0; size as usize],
        }
    }

    /// Entries some socket's read has set (not [`NO_CPU`]).
    pub fn used(&self) -> u32 {
        self.ents.iter().filter(|&&e| e != u32::from(NO_CPU)).count() as u32
    }

    /// The entry a hash uses: `hash & mask`.
    pub fn index(&self, hash: u32) -> usize {
        (hash & self.mask) as usize
    }

    /// The cell of the entry `hash` selects, given one the first time it is asked (unset): a
    /// flow's cell, noted when the flow or its hash changes.
    pub fn cell(&mut self, hash: u32) -> u32 {
        let i = self.index(hash);
        if self.place[i] == 0 {
            self.ents.push(u32::from(NO_CPU));
            self.place[i] = self.ents.len() as u32;
        }
        self.place[i] - 1
    }

    /// The entry in `cell` ([`SockFlowTable::cell`]).
    #[inline(always)]
    pub fn get(&self, cell: u32) -> u32 {
        self.ents[cell as usize]
    }

    /// Writes the entry in `cell`.
    #[inline(always)]
    pub fn set(&mut self, cell: u32, value: u32) {
        self.ents[cell as usize] = value;
    }

    /// The entry `hash` selects, by the kernel's index ([`NO_CPU`] when no flow selected it).
    pub fn entry(&self, hash: u32) -> u32 {
        self.at_index(self.index(hash))
    }

    /// The entry at the kernel's index `i`.
    fn at_index(&self, i: usize) -> u32 {
        match self.place[i] {
            0 => u32::from(NO_CPU),
            p => self.ents[p as usize - 1],
        }
    }

    /// What `rps_record_sock_flow` stores for a flow read on `cpu`: the hash's high bits and
    /// the CPU (`rps_cpu_mask` = `cpu_mask`).
    pub const fn value(hash: u32, cpu: u16, cpu_mask: u32) -> u32 {
        (hash & !cpu_mask) | cpu as u32
    }
}

/// Two tables are equal when every entry is, whatever order their cells were given in.
impl PartialEq for SockFlowTable {
    fn eq(&self, other: &SockFlowTable) -> bool {
        self.mask == other.mask && (0..self.place.len()).all(|i| self.at_index(i) == other.at_index(i))
    }
}

impl Eq for SockFlowTable {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived values of kernel-semantics.md §1.3 for the published 4-tuple hashes.
    #[test]
    fn kernel_helpers_match_the_documented_values() {
        let rows = [
            (0x51ccc178u32, 1u32, 491u32, 16760u32),
            (0xc626b0ea, 3, 88, 12522),
            (0x5c2b394a, 1, 1007, 14666),
            (0xafc7327f, 2, 603, 12927),
            (0x10e828a2, 0, 344, 10402),
            (0x40207d3d, 1, 764, 32061),
            (0xdde51bbf, 3, 525, 7103),
            (0x02d1feef, 0, 437, 32495),
        ];
        for (h, rps, slot, sock) in rows {
            assert_eq!(reciprocal_scale(h, 4), rps, "{h:#x}");
            assert_eq!(rfs_slot(Kernel::V6_18, h, 10), slot, "{h:#x}");
            assert_eq!(rfs_slot(Kernel::V6_15, h, 10), slot, "{h:#x}");
            assert_eq!(rfs_slot(Kernel::V6_10, h, 10), h & 1023, "{h:#x}");
            assert_eq!(SockFlowTable::new(32768).index(h) as u32, sock, "{h:#x}");
        }
    }

    /// A flow-table entry stays 8 bytes: its hash lives apart ([`DevFlowTable::hashes`]).
    #[test]
    fn an_entry_is_eight_bytes() {
        assert_eq!(core::mem::size_of::<DevFlow>(), 8);
        let t = DevFlowTable::new(300);
        assert_eq!((t.flows.len(), t.hashes.len()), (512, 512));
    }

    /// The compacted table answers as the kernel's: hashes that select the same entry share
    /// it, an entry no flow selected reads unset, and only set entries count as used.
    #[test]
    fn sock_table_cells_are_the_kernel_entries() {
        let mut t = SockFlowTable::new(8);
        let unset = u32::from(NO_CPU);
        let (a, b, c) = (t.cell(0x13), t.cell(0x2b), t.cell(0x05));
        assert_eq!((a, b, c), (0, 0, 1), "0x13 and 0x2b both select entry 3");
        assert_eq!((t.entry(0x13), t.entry(0x06), t.used()), (unset, unset, 0));
        t.set(a, SockFlowTable::value(0x13, 2, 0x3));
        assert_eq!(t.entry(0x0b), 0x12, "any hash of entry 3 reads what was written");
        assert_eq!((t.entry(0x05), t.entry(0x06), t.used()), (unset, unset, 1));
        assert_eq!(t.cell(0x13), a, "a cell once given stays");
        let mut u = SockFlowTable::new(8);
        u.cell(0x05);
        let b = u.cell(0x0b);
        assert_ne!(u, t, "entry 3 unset in u");
        u.set(b, SockFlowTable::value(0x13, 2, 0x3));
        assert_eq!(u, t, "the same entries in cells given in another order");
    }

    #[test]
    fn sizes_round_up_and_windows_follow_the_kernel() {
        assert_eq!(DevFlowTable::new(300).size(), 512);
        assert_eq!(DevFlowTable::new(1).log, 0);
        assert_eq!(hash_32(0xdead_beef, 0), 0);
        assert_eq!(SockFlowTable::new(1000).mask, 1023);
        assert_eq!(cpu_mask(144), 0xff);
        assert_eq!(cpu_mask(64), 0x3f);
        assert_eq!(active_window(Kernel::V6_10, 9), 5110);
        assert_eq!(active_window(Kernel::V6_15, 9), 5120);
        assert_eq!(active_window(Kernel::V6_18, 9), 5120);
    }
}
