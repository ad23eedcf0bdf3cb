//! The host's own records, private to the simulator: the per-flow line the tick loop streams
//! through, threads, queues, CPUs, and the plans a packet's path is decided with.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::arfs::{Decision, SteerRequest};
use crate::backlog::Backlog;
use crate::cpuset::CpuSet;
use crate::flow::FlowKey;
use crate::flow_limit::FlowLimit;
use crate::ledger::Work;
use crate::metrics::{CpuStats, QueueStats};
use crate::rps::DevFlowTable;
use crate::time::Nanos;

use super::event::Fate;
use super::{tx, DropPoint};

/// What the tick loop reads and writes for every flow, in one cache line. The loop streams
/// through all of them every tick (and through their `rps_sock_flow_table` cells) while it
/// looks up the queues' flow tables at random; what it rarely needs lives in [`FlowInfo`], so
/// that the tables stay in the cache (a flow was 176 bytes when it held everything).
#[derive(Clone, Debug)]
pub(super) struct Flow {
    /// Hash the NIC computed (Toeplitz over the configured fields).
    pub(super) nic_hash: u32,
    /// `skb_get_hash`: the NIC hash when it covered the ports, else the software hash.
    pub(super) skb_hash: u32,
    pub(super) rate_pps: u64,
    pub(super) since: Nanos,
    pub(super) sent: u64,
    pub(super) bytes: u32,
    /// Threads reading the socket: how many, and the first (`u32::MAX` when none); the others
    /// are in [`FlowInfo::readers`].
    pub(super) readers: u32,
    pub(super) first_reader: u32,
    /// Reader of the current tick (index into `threads`), `u32::MAX` when none.
    pub(super) reader: u32,
    pub(super) ntuple_queue: Option<u16>,
    /// ixgbe ATR's signature filter for this flow's receive direction.
    pub(super) atr_queue: Option<u16>,
    pub(super) last_queue: u16,
    pub(super) last_cpu: u16,
    /// Where its last packet was dropped, if it was.
    pub(super) last_drop: Option<DropPoint>,
    /// A UDP flow (ice expires its filters after a fixed time).
    pub(super) udp: bool,
    /// Its socket is `TCP_ESTABLISHED`: a TCP connection, or a connected UDP socket. Only
    /// those record their reader's CPU (`sock_rps_record_flow`).
    pub(super) established: bool,
    /// Its connection was closed ([`super::Sim::close_flow`]): it offers nothing more. Here
    /// rather than in [`FlowInfo`] because the views ask it of every flow each frame, and
    /// the record has a byte left.
    pub(super) closed: bool,
}

/// The parts of a flow the tick loop rarely reads: its tuple (tc, UDP expiry, views), its
/// readers when it has several, and its sender.
#[derive(Clone, Debug)]
pub(super) struct FlowInfo {
    pub(super) key: FlowKey,
    /// Its readers when it has more than one (else empty: `Flow::first_reader` is the one).
    pub(super) readers: Vec<u32>,
    pub(super) tx: Option<tx::TxState>,
    /// Wake-ups of its reader not yet whole (`remote_wakes`: packets × polls a second, modulo
    /// its rate), for a flow faster than its queue's interrupts.
    pub(super) wake_carry: u64,
    /// Its socket's receive buffer, when its reader has a cost of its own (socket.rs); none
    /// for a reader that keeps up, whose socket never holds a tick's packets.
    pub(super) sock: Option<super::socket::SockBuf>,
}

#[derive(Clone, Debug)]
pub(super) struct Thread {
    pub(super) cpu: u16,
    pub(super) allowed: CpuSet,
    pub(super) every: Nanos,
}

#[derive(Clone, Debug)]
pub(super) struct RxQueue {
    /// The CPU its NAPI polls on: where its vector's last interrupt ran (`napi_schedule`
    /// queues the poll on the CPU that took the interrupt).
    pub(super) irq_cpu: u16,
    /// The CPU its vector was moved to while its poll kept running ([`RxQueue::vector_cpu`]):
    /// the next interrupt runs there, and none comes until the poll completes (napi.rs).
    pub(super) moving_to: Option<u16>,
    /// Whether its last tick's poll never completed: it took its whole share and its ring
    /// still dropped, so the driver kept polling with the interrupt masked.
    pub(super) polling: bool,
    /// Its vector's `smp_affinity_list`, as written.
    pub(super) affinity: CpuSet,
    pub(super) rps_map: Vec<u16>,
    pub(super) table: Option<DevFlowTable>,
    /// Packets the ring and its NAPI poll still take this tick (napi.rs).
    pub(super) budget: u64,
    /// Packets offered to it (taken and dropped) in the last tick, and in all before this one.
    pub(super) demand: u64,
    pub(super) offered_mark: u64,
    /// `enqueue_to_backlog` from this queue's poll (as of the tick's start): a backlog takes
    /// every packet while its queue is shorter than this (`Sim::backlog_admit`), and whether
    /// the IRQ CPU has a flow-limit table.
    pub(super) free_below: u64,
    pub(super) flow_limited: bool,
    /// Whether this tick's budget is its ring's depth under moderation, not its CPU's time
    /// (napi.rs, `ring_keeps`): its drops then leave the poll completing and interrupting.
    pub(super) ring_bound: bool,
    /// This tick's budget and last tick's demand when the demand is more than the ring and its
    /// poll take (napi.rs): every flow's burst then loses its share at the ring, as packets
    /// of all flows arriving interleaved find it full alike; and the share's remainder.
    pub(super) thin: Option<(u64, u64)>,
    pub(super) thin_carry: u64,
    pub(super) stats: QueueStats,
}

impl RxQueue {
    /// The CPU its vector's next interrupt runs on (`effective_affinity_list`).
    pub(super) fn vector_cpu(&self) -> u16 {
        self.moving_to.unwrap_or(self.irq_cpu)
    }

    /// A queue with its IRQ on `irq_cpu`, an `rps_cpus` map and a flow table of `flow_cnt`
    /// entries (none when 0); its counters start at zero.
    pub(super) fn new(irq_cpu: u16, rps_map: Vec<u16>, flow_cnt: u32) -> RxQueue {
        RxQueue {
            irq_cpu,
            moving_to: None,
            polling: false,
            affinity: CpuSet::range(irq_cpu, irq_cpu + 1),
            rps_map,
            table: (flow_cnt > 0).then(|| DevFlowTable::new(flow_cnt)),
            budget: 0,
            demand: 0,
            offered_mark: 0,
            free_below: 0,
            flow_limited: false,
            ring_bound: false,
            thin: None,
            thin_carry: 0,
            stats: QueueStats::default(),
        }
    }
}

/// One CPU's record. A burst touches three CPUs' records (the IRQ CPU's poll, the target's
/// backlog and stack, the reader's read) at random among up to 144, so the record is kept
/// small: the stages a packet's path books are next to each other in [`Work`], and the
/// flow-limit table (five cache lines, rarely on) is behind a pointer. (Measured with
/// cachegrind on seed 000: 8 % fewer L1 data misses; aligning the record to a cache line
/// missed 6 % less again but cost 2 % more instructions.)
#[derive(Clone, Debug, Default)]
pub(super) struct Cpu {
    /// Its RPS backlog (`softnet_data`).
    pub(super) backlog: Backlog,
    /// `ndo_rx_flow_steer` calls from this CPU this tick (mlx5 lock contention).
    pub(super) arfs_calls: u64,
    /// The work charged to it, per stage.
    pub(super) work: Work,
    /// Packets, drops and IPIs (the user, sys and softirq times are priced from `work`).
    pub(super) stats: CpuStats,
    /// Its flow-limit table, when it is in `net.core.flow_limit_cpu_bitmap`.
    pub(super) flow_limit: Option<Box<FlowLimit>>,
    /// RX queues whose IRQ it takes (counted at each tick's start): their NAPI polls share
    /// its time.
    pub(super) polled_queues: u16,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Step {
    pub(super) fate: Fate,
    /// State other than counters, tails and stamps changed: the next packet may differ.
    pub(super) structural: bool,
}

/// What `enqueue_to_backlog` admits on a backlog now (`Sim::backlog_admit`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Admit {
    /// Packets that may be queued before the run must stop (0: the next is dropped).
    pub(super) room: u64,
    /// The flow limit samples each packet: one at a time.
    pub(super) sample: bool,
}

/// Where an `rps_dev_flow` entry lives: its RX queue's flow table and the slot in it (the
/// kernel's `&rflow->...` into `rxqueue->rps_flow_table`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct EntryAt {
    /// The RX queue whose table holds it.
    pub(super) queue: u16,
    /// Its slot in that table (`rfs_slot`).
    pub(super) slot: u32,
}

/// `get_rps_cpu`'s decision for the next packet, taken before anything changes.
#[derive(Clone, Copy, Debug)]
pub(super) struct RpsChoice {
    /// The CPU whose backlog gets the packet (`None`: processed inline on the IRQ CPU).
    pub(super) cpu: Option<u16>,
    /// The flow entry stamped with the backlog's tail.
    pub(super) stamp: Option<EntryAt>,
    /// `set_rps_cpu` runs: the reader's CPU and the entry `get_rps_cpu` found.
    /// [`Sim::plan_set_rps_cpu`] plans it; a packet that does not switch carries no plan.
    pub(super) switch: Option<(u16, EntryAt)>,
    /// Which of `get_rps_cpu`'s branches decided (the trace explains it).
    pub(super) why: RpsWhy,
}

impl RpsChoice {
    /// Processed on the IRQ CPU, nothing stamped, nothing switched.
    pub(super) const INLINE: RpsChoice = RpsChoice {
        cpu: None,
        stamp: None,
        switch: None,
        why: RpsWhy::Off,
    };
}

/// `get_rps_cpu`'s branch, in the order of its tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RpsWhy {
    /// The queue has neither an RPS map nor an RFS table.
    Off,
    /// The packet has no flow hash.
    NoHash,
    /// No RFS table on the queue: plain RPS (or the IRQ CPU when the map is empty).
    RpsOnly,
    /// The queue has a table but `rps_sock_flow_entries` is 0.
    RfsOff,
    /// `rps_sock_flow_table` holds another flow's entry (or none) for this hash.
    NotRecorded,
    /// The socket's reader recorded CPU `next`; the queue's entry `slot` said CPU `was`.
    Recorded { slot: u32, was: u16, next: u16 },
}

/// What `set_rps_cpu` will do ([`Sim::plan_set_rps_cpu`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Switch {
    /// The entry `get_rps_cpu` found.
    pub(super) from: EntryAt,
    /// The reader's CPU, where the flow moves.
    pub(super) next_cpu: u16,
    /// `ndo_rx_flow_steer` is called (aRFS on, another queue, not refused by 6.18's check):
    /// the request (for one packet) and the driver's decision.
    pub(super) call: Option<(SteerRequest, Decision)>,
    /// The entry that represents the flow afterwards.
    pub(super) loc: EntryAt,
    /// State other than counters and stamps changes: the next packet may take another path.
    pub(super) structural: bool,
}
