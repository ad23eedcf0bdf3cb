//! The events the run's digest records: every change of state that can alter later packets'
//! paths, and each tick's totals. Two runs with the same digest took the same paths; the golden
//! file pins the digests of the lessons, natively and in wasm.

use crate::metrics::Counters;
use crate::time::Nanos;

use super::records::Fate;
use super::Sim;

/// One digest event. Each is folded as its code, the time, then its words.
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
}

impl Event {
    /// The event's code and words (the code is part of the golden digests: never renumber).
    fn words(self) -> (u64, [u64; 9], usize) {
        let mut w = [0u64; 9];
        let (code, n) = match self {
            Event::Migrate { tid, cpu } => {
                (w[0], w[1]) = (u64::from(tid), u64::from(cpu));
                (1, 2)
            }
            Event::MigrationPeriod { tid, every } => {
                (w[0], w[1]) = (u64::from(tid), every.0 | 1 << 63);
                (1, 2)
            }
            Event::Step { flow, fate } => {
                (w[0], w[1]) = (flow as u64, fate.word());
                (2, 2)
            }
            Event::Tick { counters: c, queues, cpus } => {
                w = [c.offered, c.delivered, c.dropped(), c.local, c.remote, c.sock_flow_updates, c.tx_messages, queues, cpus];
                (3, 9)
            }
            Event::SockRecord { flow, cpu } => {
                (w[0], w[1]) = (flow as u64, u64::from(cpu));
                (4, 2)
            }
            Event::AtrFilter { flow, queue } => {
                (w[0], w[1]) = (flow as u64, u64::from(queue));
                (5, 2)
            }
            Event::TxQueueCached { flow, queue } => {
                (w[0], w[1]) = (flow as u64, u64::from(queue) | 1 << 32);
                (5, 2)
            }
            Event::Xdp { calls, action } => {
                (w[0], w[1]) = (u64::from(calls), action);
                (6, 2)
            }
            Event::Channels { combined } => {
                w[0] = u64::from(combined);
                (7, 1)
            }
            Event::TcReoffload { offload } => {
                (w[0], w[1]) = (u64::from(offload), 0);
                (8, 2)
            }
            Event::TcFilter { prio, handle } => {
                (w[0], w[1]) = (prio, handle);
                (8, 2)
            }
        };
        (code, w, n)
    }
}

impl Sim {
    /// Folds `event`, at the current time, into the run's digest.
    pub(super) fn record(&mut self, event: Event) {
        let (code, w, n) = event.words();
        let mut words = [0u64; 11];
        words[0] = code;
        words[1] = self.now.0;
        words[2..2 + n].copy_from_slice(&w[..n]);
        self.digest.event(&words[..2 + n]);
    }
}
