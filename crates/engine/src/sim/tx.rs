//! The transmit path of a socket (kernel-semantics §5): the sending thread's CPU, then
//! `netdev_pick_tx` (cached queue, XPS, or `skb_tx_hash`), then, on ixgbe, ATR sampling that
//! programs a Flow Director filter so the replies come back on the queue of the sending CPU.
//!
//! Simplifications: a socket's messages of one tick are sent together from its thread's CPU
//! at the start of the tick; TCP's `ooo_okay` (nothing of the socket left in host queues) is
//! taken to hold at the first message of each tick and not after, while other sockets never
//! set it (v6.18, `__tcp_transmit_skb`); the transmit hash is the flow's `skb_get_hash`
//! (a local TCP socket really uses its random `sk_txhash`). A sender "as fast as possible"
//! (netperf UDP_STREAM) owns its CPU's whole tick.

use alloc::vec::Vec;

use super::event::Event;
use super::{range_err, Sim, SimError};
use crate::config::{HostConfig, XpsMap};
use crate::cpuset::CpuSet;
use crate::driver::Driver;
use crate::flow::Proto;
use crate::ledger::Stage;
use crate::time::Nanos;
use crate::xps::{pick_tx, Pick, TxSkb, Xps};

/// What a socket sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxSpec {
    /// Messages per second; 0 = as fast as the sending CPU allows (netperf UDP_STREAM).
    pub rate_pps: u64,
    /// Bytes per message (1..=65535).
    pub bytes: u32,
    /// The socket has a cached route (connected): `netdev_pick_tx` caches its queue.
    pub connected: bool,
}

impl TxSpec {
    pub(super) fn validate(&self) -> Result<(), SimError> {
        if self.rate_pps > 100_000_000 {
            return Err(range_err(
                "flow.tx.rate_pps",
                "0..=100000000 (0: as fast as the CPU allows)",
            ));
        }
        if !(1..=65_535).contains(&self.bytes) {
            return Err(range_err("flow.tx.bytes", "1..=65535"));
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct TxState {
    spec: TxSpec,
    since: Option<Nanos>,
    sent: u64,
    /// `sk_tx_queue_mapping`.
    cached: Option<u16>,
    /// Unused CPU time of a saturating sender, carried to the next tick.
    carry_ns: u64,
    /// The queue and how most of the last tick's messages picked it (the views'; never read
    /// by the path).
    last: Option<(u16, Pick)>,
}

impl TxState {
    pub(super) fn new(spec: TxSpec) -> TxState {
        TxState {
            spec,
            since: None,
            sent: 0,
            cached: None,
            carry_ns: 0,
            last: None,
        }
    }

    /// The device's queues changed: the cached queue may not exist any more.
    pub(super) fn forget_queue(&mut self) {
        self.cached = None;
    }
}

/// A sending socket now: its thread's CPU, what it has sent, and its last pick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SenderView {
    /// The flow.
    pub flow: u32,
    /// Its sending thread's CPU.
    pub cpu: u16,
    /// Messages sent so far.
    pub sent: u64,
    /// The TX queue and how most messages of the last tick picked it (`None` before any).
    pub last: Option<(u16, Pick)>,
}

/// The XPS maps a host starts with (`xps.map`).
pub(super) fn initial_xps(cfg: &HostConfig) -> Xps {
    let mut xps = Xps::new(cfg.cpus, cfg.rx_queues);
    let ntx = cfg.tx_queues;
    for q in 0..ntx {
        let mut set = CpuSet::EMPTY;
        match cfg.xps_map {
            XpsMap::None => {}
            XpsMap::Irq => {
                if q < cfg.cpus {
                    set.insert(q);
                }
            }
            XpsMap::All => (q..cfg.cpus).step_by(usize::from(ntx)).for_each(|c| set.insert(c)),
        }
        xps.set_cpus(q, set);
    }
    xps
}

impl Sim {
    /// Every sending socket's messages of the tick ending at `t1`.
    pub(super) fn transmit(&mut self, t1: Nanos) {
        for i in 0..self.senders.len() {
            self.transmit_flow(self.senders[i] as usize, t1);
        }
    }

    fn transmit_flow(&mut self, f: usize, t1: Nanos) {
        let costs = self.cfg.costs;
        let flow = &self.flows[f];
        let Some(mut st) = self.info[f].tx else { return };
        let Some(sender) = self.threads.get(flow.first_reader as usize) else {
            return;
        };
        let cpu = sender.cpu;
        let tcp = self.info[f].key.proto() == Proto::Tcp;
        let sk_rx_queue = (flow.rate_pps > 0).then_some(flow.last_queue);
        let hash = flow.skb_hash;
        let ntx = self.cfg.tx_queues;
        // The first message of the tick may re-select (ooo_okay for TCP); the rest repeat the
        // steady state: the cached queue for a connected socket, else the same pick again.
        let (q, first, cached) = pick_tx(
            &self.xps,
            &TxSkb {
                cached: st.cached,
                ooo_okay: tcp,
                connected: st.spec.connected,
                sender_cpu: cpu,
                sk_rx_queue,
                hash,
            },
            ntx,
        );
        let (q_steady, steady, _) = pick_tx(
            &self.xps,
            &TxSkb {
                cached,
                ooo_okay: false,
                connected: st.spec.connected,
                sender_cpu: cpu,
                sk_rx_queue,
                hash,
            },
            ntx,
        );
        let pick_ns = |p: Pick| match p {
            Pick::Hash => costs.tx_pick_hash_ns,
            Pick::Map => costs.tx_pick_xps_ns,
            Pick::Cached => 0,
        };
        let (c1, c2) = (costs.tx_send_ns + pick_ns(first), costs.tx_send_ns + pick_ns(steady));
        let since = *st.since.get_or_insert(self.now);
        let n = if st.spec.rate_pps == 0 {
            let budget = st.carry_ns + self.cfg.tick_ns;
            let (c1, c2) = (c1.max(1), c2.max(1));
            let n = if budget < c1 { 0 } else { 1 + (budget - c1) / c2 };
            st.carry_ns = budget - if n == 0 { 0 } else { c1 + (n - 1) * c2 };
            n
        } else {
            let due = crate::time::mul_div(t1.0 - since.0, st.spec.rate_pps, 1_000_000_000);
            due - st.sent
        };
        if n == 0 {
            self.info[f].tx = Some(st);
            return;
        }
        let picks = |p: Pick, k: u64, c: &mut crate::metrics::Counters| match p {
            Pick::Hash => c.xps_hash_picks += k,
            Pick::Map => c.xps_map_picks += k,
            Pick::Cached => c.tx_cached_picks += k,
        };
        picks(first, 1, &mut self.counters);
        picks(steady, n - 1, &mut self.counters);
        if st.cached.is_some() && cached != st.cached {
            self.counters.tx_queue_changes += 1;
        }
        self.counters.tx_messages += n;
        self.txq_packets[usize::from(q)] += n;
        self.charge(cpu, Stage::TxSend, n);
        let pick_total = pick_ns(first) + pick_ns(steady) * (n - 1);
        self.charge(
            cpu,
            if first == Pick::Hash {
                Stage::TxPickHash
            } else {
                Stage::TxPickXps
            },
            pick_total,
        );
        // ixgbe ATR (ixgbe_atr): every SYN and every atr_sample_rate-th TCP packet writes a
        // signature filter for the reverse direction, to the RX queue of the TX ring's index.
        // Departs from ixgbe (FIDELITY.md, `xps-ixgbe-atr-sample-counter`): the kernel counts
        // the packets of a TX ring (`ring->atr_count`), the sandbox those of a flow, so flows
        // that share a ring are each sampled at the full rate.
        if self.cfg.driver == Driver::Ixgbe && !self.cfg.ntuple && tcp && self.cfg.rx_queues > 1 {
            let r = u64::from(self.cfg.atr_sample_rate);
            let samples = (st.sent + n) / r - st.sent / r + u64::from(st.sent == 0 && r != 1);
            if samples > 0 {
                self.counters.atr_samples += samples;
                self.charge(cpu, Stage::Atr, samples);
                let target = (q < self.cfg.rx_queues).then_some(q);
                if target.is_some() && self.flows[f].atr_queue != target {
                    self.flows[f].atr_queue = target;
                    self.record(Event::AtrFilter { flow: f, queue: q });
                }
            }
        }
        if cached != st.cached {
            self.record(Event::TxQueueCached { flow: f, queue: q });
        }
        // `inet_sendmsg` -> `inet_send_prepare` -> `sock_rps_record_flow` (net/ipv4/af_inet.c):
        // a send records the sender's CPU as a read does, once the socket has a flow hash
        // (`sk_rxhash`, saved from its first received packet). The tick's later sends from
        // the same CPU find the entry as the first left it.
        if self.flows[f].sent > 0 {
            let tid = self.flows[f].first_reader as usize;
            self.record_flow(f, tid, cpu);
        }
        st.sent += n;
        st.cached = cached;
        st.last = Some(if n > 1 { (q_steady, steady) } else { (q, first) });
        self.info[f].tx = Some(st);
    }

    /// Every sending socket as the transmit picture draws it, in flow order.
    pub fn senders_view(&self) -> Vec<SenderView> {
        self.senders
            .iter()
            .filter_map(|&f| {
                let st = self.info[f as usize].tx?;
                let cpu = self.threads.get(self.flows[f as usize].first_reader as usize)?.cpu;
                Some(SenderView {
                    flow: f,
                    cpu,
                    sent: st.sent,
                    last: st.last,
                })
            })
            .collect()
    }

    /// `echo MASK > /sys/class/net/DEV/queues/tx-Q/xps_cpus`.
    pub fn set_xps_cpus(&mut self, txq: u16, cpus: CpuSet) -> Result<(), SimError> {
        self.check_xps_cpus(txq, cpus)?;
        self.xps.set_cpus(txq, cpus);
        Ok(())
    }

    pub(super) fn check_xps_cpus(&self, txq: u16, cpus: CpuSet) -> Result<(), SimError> {
        self.check_txq(txq)?;
        if cpus.end() > self.cfg.cpus {
            return Err(range_err("xps_cpus", "CPUs of this host"));
        }
        Ok(())
    }

    /// `echo MASK > .../tx-Q/xps_rxqs` (bit i = RX queue i).
    pub fn set_xps_rxqs(&mut self, txq: u16, rxqs: CpuSet) -> Result<(), SimError> {
        self.check_xps_rxqs(txq, rxqs)?;
        self.xps.set_rxqs(txq, rxqs);
        Ok(())
    }

    pub(super) fn check_xps_rxqs(&self, txq: u16, rxqs: CpuSet) -> Result<(), SimError> {
        self.check_txq(txq)?;
        if rxqs.end() > self.cfg.rx_queues {
            return Err(range_err("xps_rxqs", "RX queues of this device"));
        }
        Ok(())
    }

    /// `cat .../tx-Q/xps_cpus`.
    pub fn xps_cpus(&self, txq: u16) -> Option<CpuSet> {
        (txq < self.cfg.tx_queues).then(|| self.xps.cpus_of(txq))
    }

    /// `cat .../tx-Q/xps_rxqs`.
    pub fn xps_rxqs(&self, txq: u16) -> Option<CpuSet> {
        (txq < self.cfg.tx_queues).then(|| self.xps.rxqs_of(txq))
    }

    /// `xps_cpus` and `xps_rxqs` of the first `n` TX queues (at most the device's), read at once.
    pub fn xps_maps(&self, n: u16) -> Vec<(CpuSet, CpuSet)> {
        self.xps.holders_of_first(n.min(self.cfg.tx_queues))
    }

    fn check_txq(&self, txq: u16) -> Result<(), SimError> {
        if txq >= self.cfg.tx_queues {
            return Err(range_err("queue", "a TX queue of this device"));
        }
        Ok(())
    }
}
