//! The events the run's digest records: every change of state that can alter later packets'
//! paths, and each tick's totals. Two runs with the same digest took the same paths; the golden
//! file pins the digests of the lessons, natively and in wasm.

use crate::metrics::{Counters, Digest};
use crate::time::Nanos;

use super::{DropPoint, Sim};

/// One step's path, used to decide whether the following packets repeat it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fate {
    RingDrop,
    /// Dropped by an offloaded tc filter in the NIC.
    TcHwDrop,
    /// Dropped by a tc filter in software on the processing CPU.
    TcDrop {
        queue: u16,
        cpu: u16,
    },
    /// XDP_DROP / XDP_ABORTED.
    XdpDrop {
        queue: u16,
    },
    /// XDP_TX / XDP_REDIRECT: the packet leaves through the device (counted delivered).
    XdpOut {
        queue: u16,
    },
    BacklogDrop {
        queue: u16,
        cpu: u16,
    },
    Inline {
        queue: u16,
    },
    Backlog {
        queue: u16,
        cpu: u16,
    },
}

impl Fate {
    /// The fate as one digest word (part of the golden digests: never renumber).
    #[inline]
    pub(super) fn word(self) -> u64 {
        match self {
            Fate::RingDrop => 1,
            Fate::BacklogDrop { queue, cpu } => 2 | u64::from(queue) << 8 | u64::from(cpu) << 24,
            Fate::Inline { queue } => 3 | u64::from(queue) << 8,
            Fate::Backlog { queue, cpu } => 4 | u64::from(queue) << 8 | u64::from(cpu) << 24,
            Fate::XdpDrop { queue } => 5 | u64::from(queue) << 8,
            Fate::XdpOut { queue } => 6 | u64::from(queue) << 8,
            Fate::TcHwDrop => 7,
            Fate::TcDrop { queue, cpu } => 8 | u64::from(queue) << 8 | u64::from(cpu) << 24,
        }
    }

    #[inline]
    pub(super) fn drop_point(self) -> Option<DropPoint> {
        match self {
            Fate::RingDrop => Some(DropPoint::Ring),
            Fate::TcHwDrop => Some(DropPoint::Nic),
            Fate::TcDrop { .. } => Some(DropPoint::Tc),
            Fate::XdpDrop { .. } => Some(DropPoint::Xdp),
            Fate::BacklogDrop { .. } => Some(DropPoint::Backlog),
            Fate::XdpOut { .. } | Fate::Inline { .. } | Fate::Backlog { .. } => None,
        }
    }
}

/// One digest event. Each is folded as its code, the time, then its words.
// Built and folded at once, never stored: the tick's large variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
pub(super) enum Event {
    /// A thread moved (drag, `taskset`, or its own migration timer).
    Migrate { tid: u32, cpu: u16 },
    /// A thread's migration period changed.
    MigrationPeriod { tid: u32, every: Nanos },
    /// A packet's path changed state other than counters (`steer`'s structural step).
    Step { flow: usize, fate: Fate },
    /// The end of a tick: its totals, and where the packets went per queue and per CPU.
    Tick { counters: Counters, queues: u64, cpus: u64 },
    /// A read changed the flow's `rps_sock_flow_table` entry.
    SockRecord { flow: usize, cpu: u16 },
    /// ixgbe ATR programmed a signature filter for the flow's replies.
    AtrFilter { flow: usize, queue: u16 },
    /// The socket's cached TX queue (`sk_tx_queue_mapping`) changed.
    TxQueueCached { flow: usize, queue: u16 },
    /// An XDP program was loaded (kfunc calls, verdict) or removed.
    Xdp { calls: u32, action: u64 },
    /// `ethtool -L`.
    Channels { combined: u16 },
    /// The ingress block's filters were played back to another NIC.
    TcReoffload { offload: bool },
    /// A tc filter was added or deleted.
    TcFilter { prio: u64, handle: u64 },
    /// A queue's vector moved to another CPU (`smp_affinity_list`).
    IrqAffinity { queue: u16, cpu: u16 },
    /// A flow's connection closed.
    FlowClosed { flow: usize },
}

impl Event {
    /// Folds the event into `digest` as its code, the time `now`, then its words. The codes and
    /// words are part of the golden digests: never renumber.
    #[inline(always)]
    fn fold(self, now: Nanos, digest: &mut Digest) {
        let t = now.0;
        match self {
            Event::Migrate { tid, cpu } => digest.event(&[1, t, u64::from(tid), u64::from(cpu)]),
            Event::MigrationPeriod { tid, every } => digest.event(&[1, t, u64::from(tid), every.0 | 1 << 63]),
            Event::Step { flow, fate } => digest.event(&[2, t, flow as u64, fate.word()]),
            Event::Tick {
                counters: c,
                queues,
                cpus,
            } => digest.event(&[
                3,
                t,
                c.offered,
                c.delivered,
                c.dropped(),
                c.local,
                c.remote,
                c.sock_flow_updates,
                c.tx_messages,
                queues,
                cpus,
            ]),
            Event::SockRecord { flow, cpu } => digest.event(&[4, t, flow as u64, u64::from(cpu)]),
            Event::AtrFilter { flow, queue } => digest.event(&[5, t, flow as u64, u64::from(queue)]),
            Event::TxQueueCached { flow, queue } => digest.event(&[5, t, flow as u64, u64::from(queue) | 1 << 32]),
            Event::Xdp { calls, action } => digest.event(&[6, t, u64::from(calls), action]),
            Event::Channels { combined } => digest.event(&[7, t, u64::from(combined)]),
            Event::TcReoffload { offload } => digest.event(&[8, t, u64::from(offload), 0]),
            Event::TcFilter { prio, handle } => digest.event(&[8, t, prio, handle]),
            Event::IrqAffinity { queue, cpu } => digest.event(&[9, t, u64::from(queue), u64::from(cpu)]),
            Event::FlowClosed { flow } => digest.event(&[10, t, flow as u64]),
        }
    }
}

impl Sim {
    /// Folds `event`, at the current time, into the run's digest.
    #[inline(always)]
    pub(super) fn record(&mut self, event: Event) {
        event.fold(self.now, &mut self.digest);
    }

    /// Records a structural step of flow `flow`'s path. Out of line: inlined into the tick
    /// loop, the digest's unrolled byte loop had its words split into bytes ahead of every flow
    /// (loop-invariant code motion), for an event that most steps never record.
    #[inline(never)]
    pub(super) fn record_step(&mut self, flow: usize, fate: Fate) {
        self.record(Event::Step { flow, fate });
    }
}
