//! Run totals under the names of the CLI JSON contract (product brief §4), a stable digest of
//! the run, and the per-queue and per-CPU series the charts draw.

use alloc::vec::Vec;

/// Counters over the whole run. Conservation: `offered == delivered + in_flight + drops`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Packets the flows sent to the NIC.
    pub offered: u64,
    /// Packets processed by the stack and queued to their socket.
    pub delivered: u64,
    /// Dropped because the RX ring was full.
    pub ring_full: u64,
    /// Dropped by `enqueue_to_backlog` (`netdev_max_backlog`, or the flow limit): softnet_stat's
    /// `dropped`.
    pub backlog_full: u64,
    /// Of those, dropped by the flow limit (softnet_stat's `flow_limit_count`).
    pub flow_limit: u64,
    /// Dropped by an XDP program (drop or aborted).
    pub xdp_drop: u64,
    /// Dropped by a tc action.
    pub tc_drop: u64,
    /// Dropped at a full socket receive buffer (`__udp_enqueue_schedule_skb`: UDP's
    /// `RcvbufErrors`, also counted in `InErrors`).
    pub socket_drop: u64,
    /// UDP datagrams read by their readers (`UDP_MIB_INDATAGRAMS`, counted by `udp_recvmsg`).
    pub udp_in_datagrams: u64,
    /// Hardware interrupts of the RX queues' vectors (`/proc/interrupts`), after moderation
    /// (napi.rs [`crate::sim`]).
    pub interrupts: u64,
    /// `net_rx_action` runs that ended with work left, on every CPU (softnet_stat's
    /// `time_squeeze`).
    pub time_squeeze: u64,
    /// Protocol processing ran on the CPU where the flow's reader runs (brief §4: `steering.local`).
    pub local: u64,
    /// Protocol processing ran on another CPU: the remote-cache penalty applies.
    pub remote: u64,
    /// Packets that arrived on a queue whose IRQ CPU is not the reader's CPU (seed 000's
    /// "bad queues"), whether or not RPS/RFS then moved them to the reader.
    pub wrong_queue: u64,
    /// Packets an aRFS hardware filter sent to a queue other than the one nearest their
    /// reader's CPU: a filter pointing the wrong way (seed 000's hash-only match re-points
    /// another flow's filter; a stale filter after the reader moved).
    pub arfs_missteered: u64,
    /// Writes to `rps_sock_flow_table` that changed an entry.
    pub sock_flow_updates: u64,
    /// `rps_sock_flow_table` entries a socket's close cleared (`sock_rps_delete_flow`, 6.16+).
    pub sock_flow_deletes: u64,
    /// Writes avoided by `rfs.record = cpuset`.
    pub sock_flow_skipped: u64,
    /// `set_rps_cpu` moved a flow to a new CPU.
    pub cpu_switches: u64,
    /// Remote backlogs scheduled again from another CPU's poll (softnet_stat `received_rps`,
    /// summed over the CPUs).
    pub backlog_wakes: u64,
    /// Of those, the ones that sent an IPI: the target's idle CPU was not polling
    /// (`host.idle = halt`).
    pub ipis: u64,
    /// Wake-ups of a sleeping reader from the CPU that processed its data, when that is not
    /// the reader's CPU (`try_to_wake_up` across CPUs): one per NAPI poll carrying its data.
    pub remote_wakeups: u64,
    /// Of those, the ones that sent an IPI: the reader's idle CPU was not polling
    /// (`host.idle = halt`).
    pub wake_ipis: u64,
    /// `ndo_rx_flow_steer` calls.
    pub arfs_calls: u64,
    /// Time spent waiting for mlx5's `arfs_lock`.
    pub arfs_lock_wait_ns: u64,
    /// Thread migrations.
    pub migrations: u64,
    /// User time, ns.
    pub user_ns: u64,
    /// System time, ns.
    pub sys_ns: u64,
    /// Softirq time, ns.
    pub softirq_ns: u64,
    /// Bytes that crossed a NUMA node between the IRQ CPU, the processing CPU and the reader.
    pub cross_numa_bytes: u64,
    /// XDP_TX verdicts (counted in `delivered`: the packet left through the device).
    pub xdp_tx: u64,
    /// XDP_REDIRECT verdicts (counted in `delivered`).
    pub xdp_redirect: u64,
    /// XDP metadata kfunc calls made.
    pub xdp_kfunc_calls: u64,
    /// Kfunc calls or probes that answered "not supported" (the program's fallback ran).
    pub xdp_unsupported: u64,
    /// Packets tc ingress classified in software.
    pub tc_sw_classified: u64,
    /// Packets that skipped software classification because the block bypassed it.
    pub tc_bypassed: u64,
    /// Bypassed packets that a software filter would have matched (seed 001's flaw).
    pub tc_sw_missed: u64,
    /// Packets dropped by an offloaded (in_hw) filter in the NIC.
    pub tc_hw_drop: u64,
    /// Messages sent by sockets.
    pub tx_messages: u64,
    /// TX queue picks through `skb_tx_hash`.
    pub xps_hash_picks: u64,
    /// TX queue picks through an XPS map.
    pub xps_map_picks: u64,
    /// Sends that used the socket's cached TX queue.
    pub tx_cached_picks: u64,
    /// TX queue changes of a socket (each needs `ooo_okay` or reorders).
    pub tx_queue_changes: u64,
    /// ixgbe ATR samples (signature filters written).
    pub atr_samples: u64,
}

impl Counters {
    /// All drops.
    pub fn dropped(&self) -> u64 {
        self.ring_full + self.backlog_full + self.xdp_drop + self.tc_drop + self.socket_drop
    }
}

/// Per RX queue totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Packets accepted into the ring.
    pub packets: u64,
    /// Packets dropped because the ring was full.
    pub drops: u64,
    /// Interrupts its vector raised (interrupt moderation and NAPI's masking decide: napi.rs).
    pub interrupts: u64,
}

/// Per CPU totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuStats {
    /// Packets whose protocol processing ran here.
    pub packets: u64,
    /// Softirq time, ns.
    pub softirq_ns: u64,
    /// System time, ns.
    pub sys_ns: u64,
    /// User time, ns.
    pub user_ns: u64,
    /// Backlog drops (`/proc/net/softnet_stat` column 2).
    pub dropped: u64,
    /// Times the CPU's backlog was woken by another CPU (softnet_stat `received_rps`).
    pub received_rps: u64,
    /// Packets its flow-limit table dropped (softnet_stat `flow_limit_count`; 0 without a
    /// table, and forgotten when the table is freed, as in the kernel).
    pub flow_limit_count: u64,
    /// Its `net_rx_action` runs that ended with work left (softnet_stat `time_squeeze`).
    pub time_squeeze: u64,
}

/// FNV-1a (64 bit) over 64-bit words: a stable digest of the run's events, identical on every
/// target (no `usize`, no pointer, no iteration order from hashing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }
}

/// The FNV-1a 64-bit prime.
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// `FNV_PRIME` to the powers 0 to 8: a zero byte only multiplies (`(h ^ 0) · p`), so a word's
/// high zero bytes are one multiply by `p^k`.
const FNV_POWERS: [u64; 9] = {
    let mut p = [1u64; 9];
    let mut i = 1;
    while i < 9 {
        p[i] = p[i - 1].wrapping_mul(FNV_PRIME);
        i += 1;
    }
    p
};

impl Digest {
    /// Adds one event of words: each word's 8 bytes, little-endian, byte by byte (its high zero
    /// bytes folded at once, the same value).
    pub fn event(&mut self, words: &[u64]) {
        for &w in words {
            let bytes = 8 - (w.leading_zeros() / 8) as usize;
            let mut h = self.0;
            for b in &w.to_le_bytes()[..bytes] {
                h = (h ^ u64::from(*b)).wrapping_mul(FNV_PRIME);
            }
            self.0 = h.wrapping_mul(FNV_POWERS[8 - bytes]);
        }
    }

    /// The digest as 16 hex digits.
    pub fn hex(&self) -> alloc::string::String {
        alloc::format!("{:016x}", self.0)
    }

    /// The raw value.
    pub fn value(&self) -> u64 {
        self.0
    }
}

/// A bounded series of per-interval samples (for the page's charts).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Series {
    /// Simulated time of each sample, ns.
    pub t: Vec<u64>,
    /// One value per sample.
    pub v: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Folding a word's high zero bytes at once gives FNV-1a byte by byte.
    #[test]
    fn the_digest_is_fnv_1a_over_every_byte() {
        let words = [
            0,
            1,
            0xff,
            0x100,
            0x1234_5678,
            1 << 40,
            u64::MAX,
            0x9e37_79b9_7f4a_7c15,
            1 << 63,
        ];
        let mut reference = 0xcbf2_9ce4_8422_2325u64;
        for w in words {
            for b in w.to_le_bytes() {
                reference = (reference ^ u64::from(b)).wrapping_mul(FNV_PRIME);
            }
        }
        let mut d = Digest::default();
        d.event(&words[..4]);
        d.event(&words[4..]);
        assert_eq!(d.value(), reference);
    }
}
