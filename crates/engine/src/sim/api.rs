//! What callers hand the host and read back: flows and threads to add, NIC rules, the
//! snapshot and the per-flow view.

use alloc::vec::Vec;

use crate::arfs::ArfsCounters;
use crate::cpuset::CpuSet;
use crate::flow::FlowKey;
use crate::ledger::Ledger;
use crate::metrics::{Counters, CpuStats, Digest, QueueStats};
use crate::rps::NO_CPU;
use crate::time::Nanos;

use super::TxSpec;

/// A flow to add: its tuple, rate, packet size and the threads that read its socket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    /// The 5-tuple as received.
    pub key: FlowKey,
    /// Packets per second (1..=100,000,000).
    pub rate_pps: u64,
    /// Bytes per packet (64..=65535).
    pub bytes: u32,
    /// Threads reading the socket (several = the epoll pattern of seed 002); empty = consumed
    /// in softirq, no RFS record.
    pub readers: Vec<u32>,
    /// The socket also sends (from its first reader's CPU): the transmit path of seed 003.
    pub tx: Option<TxSpec>,
}

/// A thread to add.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadSpec {
    /// CPU it starts on.
    pub cpu: u16,
    /// CPUs it may run on (`sched_setaffinity`); empty = every CPU.
    pub allowed: CpuSet,
    /// Migrates to a random allowed CPU this often; zero = stays where it is put.
    pub migrate_every: Nanos,
}

/// Where a packet was dropped (brief §4: `packets.dropped.*`).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropPoint {
    /// In the NIC, by an offloaded tc filter (`in_hw`).
    Nic,
    /// The RX ring was full.
    Ring,
    /// By the XDP program.
    Xdp,
    /// The target CPU's backlog was full (`netdev_max_backlog`).
    Backlog,
    /// By a tc filter in software.
    Tc,
}

/// What the page and the CLI read: totals, per-queue and per-CPU figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// Simulated time.
    pub now: Nanos,
    /// Run totals.
    pub counters: Counters,
    /// Packets in backlogs (0 between ticks).
    pub in_flight: u64,
    /// Driver counters.
    pub arfs: ArfsCounters,
    /// Live aRFS filters.
    pub arfs_active: u32,
    /// mlx5: work items queued and not yet run by its one worker.
    pub arfs_work_queued: u32,
    /// Per RX queue.
    pub queues: Vec<QueueStats>,
    /// Per CPU.
    pub cpus: Vec<CpuStats>,
    /// Packets sent per TX queue.
    pub txq: Vec<u64>,
    /// Nanoseconds per pipeline stage; the per-CPU user, sys and softirq totals add up to it.
    pub ledger: Ledger,
    /// The loaded XDP program's per-packet cost (picoseconds, driver base included), if any.
    pub xdp_ps: Option<u64>,
    /// Number of open flows (closed ones keep their ids: `Sim::flow_count` counts them).
    pub flows: u32,
    /// Digest of every event so far.
    pub digest: Digest,
}

/// Where one flow's packets go now, for the page.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowView {
    /// RX queue of its last packet.
    pub queue: u16,
    /// CPU that processed its last packet.
    pub cpu: u16,
    /// CPU of its reader (`NO_CPU` when none).
    pub reader_cpu: u16,
    /// The RX queue aRFS would steer it to: its reader's CPU through the CPU → queue map
    /// (`u16::MAX` when it has no reader).
    pub reader_queue: u16,
    /// The NIC's hash.
    pub hash: u32,
    /// What picks its RX queue now: an exact-match filter or the indirection table.
    pub rule: QueueRule,
    /// The RX queue that rule picks now (its next packet's; `queue` was its last packet's).
    pub rule_queue: u16,
    /// Packets it has offered so far.
    pub packets: u64,
    /// Where its last packet was dropped, if it was.
    pub dropped: Option<DropPoint>,
}

impl FlowView {
    /// Its last packet was processed on a CPU other than its reader's (`steering.remote`).
    pub fn away_from_reader(&self) -> bool {
        self.reader_cpu != NO_CPU && self.reader_cpu != self.cpu
    }

    /// An aRFS filter sends it to a queue that is not its reader's (`arfs.missteered`): the
    /// filter was re-pointed by another flow (ice before the fix) or not yet moved after its
    /// reader. The filter's own queue counts, not the last packet's: a slow flow's last packet
    /// may predate its filter.
    pub fn by_wrong_filter(&self) -> bool {
        self.rule == QueueRule::Arfs && self.reader_cpu != NO_CPU && self.reader_queue != self.rule_queue
    }
}

/// The NIC's rule that picks a flow's RX queue (kernel-semantics §0: exact filters before RSS).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueRule {
    /// `indir[hash & (size - 1)]`.
    Rss,
    /// An `ethtool -N` rule.
    Ntuple,
    /// An aRFS filter programmed by the driver.
    Arfs,
    /// An ixgbe ATR signature filter.
    Atr,
}
