//! The simulator: one host's receive path, tick by tick, in the kernel's order
//! (kernel-semantics.md §0): NIC filters or RSS pick the queue, the queue's IRQ CPU runs the
//! driver poll, `get_rps_cpu` may move the packet to another CPU's backlog, the backlog is
//! processed, the application reads and records its CPU for RFS.
//!
//! The tick's order and its simplifications are in `tick.rs`.
//!
//! Its parts, one per stage, each an `impl Sim` block:
//!
//! | file | holds |
//! |---|---|
//! | `api.rs` | what callers hand in and read back (flows, threads, rules, snapshot, views) |
//! | `records.rs` | the simulator's own records: the per-flow line, threads, queues, CPUs, plans |
//! | `nic.rs` | NIC configuration: hashing, indirection table, ntuple rules, channels, IRQ affinity, driver |
//! | `workload.rs` | threads and flows |
//! | `rps_config.rs` | `rps_cpus`, `rps_flow_cnt`, `rps_sock_flow_entries`, the flow limit, kernel, record policy |
//! | `settings.rs` | one knob's write ([`Setting`]) checked by its setter's rule before it is made |
//! | `hooks.rs` | XDP and tc ingress: commands and their run on the path |
//! | `irqbalance.rs` | the irqbalance daemon as an agent: a pass every 10 s places the queue vectors |
//! | `timers.rs` | the one timer table: thread migrations, ice's service timer and its scheduled task |
//! | `tick.rs` | the tick, in order: timers, sends, flows, its end (backlogs drain, mlx5's work) |
//! | `napi.rs` | the NAPI polls' share of their CPU, and the tick's interrupts and `time_squeeze` |
//! | `receive.rs` | one flow's packets of a tick: queue, ring, XDP, RPS, tc, backlog |
//! | `read.rs` | the flow's reader: whether it sleeps, its wake-ups, `recvmsg` and `sock_rps_record_flow` |
//! | `latency.rs` | arrival-to-read latency: moderation, the poll's queue, a full ring, a backlog or socket that backs up; p50 and p99 of the recent past |
//! | `socket.rs` | a UDP socket's receive buffer, for a reader with work of its own: `RcvbufErrors` |
//! | `rfs.rs` | `get_rps_cpu`, `set_rps_cpu` and the aRFS call |
//! | `tx.rs` | the sockets' sends: XPS, `skb_tx_hash`, ixgbe ATR |
//! | `event.rs` | the digest's events: one enum, folded in one place |
//! | `views.rs`, `trace.rs`, `predict.rs` | what the page and the CLI read (`predict`: a tuple before any packet, for a real host) |

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use crate::arfs::Arfs;
use crate::config::HostConfig;
use crate::cpuset::CpuSet;
use crate::flow::FlowKey;
use crate::flow_limit::FlowLimit;
use crate::ledger::{Prices, Stage};
use crate::metrics::{Counters, Digest};
use crate::rng::Rng;
use crate::rps::{cpu_mask, SockFlowTable};
use crate::rss::{HashFields, Reta};
use crate::tc::TcBlock;
use crate::time::Nanos;
use crate::toeplitz::{ToeplitzTable, MS_VERIFICATION_KEY};
use crate::xdp::{XdpCost, XdpProgram};
use crate::xps::Xps;

mod api;
mod event;
mod hooks;
mod irqbalance;
mod latency;
mod napi;
mod nic;
mod predict;
mod read;
mod receive;
mod records;
mod rfs;
mod rps_config;
mod settings;
mod socket;
mod tick;
mod timers;
mod trace;
mod tx;
mod views;
mod workload;

pub use api::{DropPoint, FlowSpec, FlowView, QueueRule, Snapshot, ThreadSpec};
pub use irqbalance::IRQBALANCE_INTERVAL;
pub use predict::{History, Prediction, RpsPrediction};
pub use settings::{CoreSysctl, Setting};
pub use socket::{truesize, SocketView};
pub use trace::FlowTrace;
pub use tx::{SenderView, TxSpec};

use crate::error::{range_err, SimError};
use crate::ntuple::NtupleRule;
use records::{Cpu, Flow, FlowInfo, RxQueue, Thread};

/// A simulated host: a pure state machine its caller drives. Build it with [`Sim::new`] (or
/// a scenario's `build`) and add its threads and flows; then alternate two kinds of call:
/// - time: whole ticks ([`Sim::tick`], [`Sim::run_ticks`], [`Sim::advance_to`]) or a tick a
///   slice of flows at a time ([`Sim::tick_part`], the page's slices, any split giving the same
///   state; [`Sim::finish_tick`] ends one in progress);
/// - changes, only between ticks ([`Sim::in_tick`] false; checked in debug builds at the
///   console's entry): commands, settings ([`Sim::check_setting`] then
///   [`Sim::apply_setting`]), flows, threads, the driver, the kernel generation.
///
/// Reads are allowed at any time ([`Sim::snapshot`], [`Sim::flow_view`], [`Sim::trace_flow`],
/// [`Sim::predict`]). Nothing else runs: no clock, no I/O, one seeded generator; the same calls
/// in the same order give the same state and digest, natively and in wasm.
#[derive(Clone, Debug)]
pub struct Sim {
    cfg: HostConfig,
    now: Nanos,
    rng: Rng,
    toeplitz: ToeplitzTable,
    soft_key: u64,
    reta: Reta,
    hash_fields: [HashFields; 4],
    cpu_mask: u32,
    queues: Vec<RxQueue>,
    cpus: Vec<Cpu>,
    /// The NUMA node of each CPU.
    nodes: Vec<u16>,
    rmap: Vec<u16>,
    sock: Option<SockFlowTable>,
    /// Each flow's cell in `sock` ([`SockFlowTable::cell`]; `u32::MAX` without a table),
    /// noted when the flow, its hash or the table changes: the tick loop reads a flow's entry
    /// through it, in flow order.
    sock_cells: Vec<u32>,
    flows: Vec<Flow>,
    /// `flows[i]`'s tuple, readers and sender.
    info: Vec<FlowInfo>,
    /// Flows that send, in flow order.
    senders: Vec<u32>,
    /// Flows whose socket buffer is modelled (socket.rs), in flow order.
    bounded: Vec<u32>,
    /// Each CPU's softirq runs and each RX queue's interrupts (napi.rs): counted once a tick,
    /// kept apart from the records a burst touches.
    softirq: Vec<napi::SoftirqTick>,
    irqs: Vec<napi::QueueIrq>,
    /// Each queue vector's interrupts per CPU (`irq_counts[q * cpus + c]`): the columns of
    /// `/proc/interrupts` (the kernel's per-CPU `kstat_irqs`), so a moved vector's old count
    /// stays in its old CPU's column.
    irq_counts: Vec<u64>,
    /// irqbalance, while it runs (irqbalance.rs).
    irqbalance: Option<irqbalance::IrqBalance>,
    /// The `IRQBALANCE_BANNED_CPULIST` the service manager hands irqbalance when it starts
    /// (`systemctl set-environment`), if set.
    irqbalance_env: Option<CpuSet>,
    /// Recent packet latencies (latency.rs).
    latency: latency::Latency,
    /// Each tuple's flow, open or closed. Shared with the host's snapshots (the page keeps a
    /// dozen, and seed 000's 16,384 tuples were most of what a snapshot copied): a snapshot
    /// copies it only when a flow is added after it.
    by_key: Arc<BTreeMap<FlowKey, u32>>,
    /// Flows closed so far (their ids stay).
    closed_flows: u32,
    threads: Vec<Thread>,
    ntuple: Vec<NtupleRule>,
    /// ice: per flow type ([`crate::flow::FlowType::index`]), a partial-mask ntuple rule
    /// changed its input set, so aRFS refuses flows of that type.
    partial_input_set: [bool; 4],
    arfs: Arfs,
    /// Every deadline (thread migrations, ice's service task).
    timers: timers::Timers,
    /// The walks under `arfs_lock` this tick's calls can land in (ice: this tick's service
    /// task; mlx5: its work at the end of the last tick).
    lock_walks: tick::LockWalks,
    /// The drivers' kworker: its CPU's time (ice's service task, mlx5's one worker).
    worker: tick::Kworker,
    xdp: Option<(XdpProgram, XdpCost)>,
    /// The ingress qdisc's filter block (`tc qdisc add dev DEV ingress`), if any.
    tc: Option<TcBlock>,
    xps: Xps,
    txq_packets: Vec<u64>,
    /// The price of each stage's unit of work.
    prices: Prices,
    /// Time within the current tick of the flow being processed (ns from the tick's start).
    elapsed: u64,
    /// Room for each CPU's head during an expiry walk (`tick.rs`, `ExpiryView`).
    expiry_heads: Vec<u32>,
    /// A tick in progress: its end, its flow count, the next flow to run.
    partial: Option<(Nanos, u32, u32)>,
    counters: Counters,
    digest: Digest,
}

impl Sim {
    /// A host built from `cfg` (validated), with no flows and no threads.
    pub fn new(cfg: HostConfig) -> Result<Sim, SimError> {
        cfg.validate()?;
        let rng = Rng::new(cfg.seed);
        let soft_key = rng.fork("flow_dissector").next_u64();
        let reta = Reta::new_default(cfg.reta_size, u32::from(cfg.rx_queues)).map_err(SimError::Reta)?;
        let rps_map: Vec<u16> = if cfg.rps_cpus.is_empty() {
            Vec::new()
        } else {
            CpuSet::parse_list(&cfg.rps_cpus)
                .map(|s| s.iter().collect())
                .unwrap_or_default()
        };
        let queues = (0..cfg.rx_queues)
            .map(|q| RxQueue::new(q % cfg.cpus, rps_map.clone(), cfg.flow_cnt))
            .collect();
        // A backlog drains at the stack's and the dequeue's price until a tick has measured
        // what its packets cost that CPU (napi.rs, `backlog_pace`).
        let each = cfg.costs.stack_rx_ns + cfg.costs.rps_enqueue_ns;
        let cpu = Cpu {
            backlog: crate::backlog::Backlog::with_each(each),
            ..Cpu::default()
        };
        let mut cpus = vec![cpu; usize::from(cfg.cpus)];
        if let Ok(set) = CpuSet::parse_list(&cfg.flow_limit_cpus) {
            set.iter().for_each(|c| {
                cpus[usize::from(c)].flow_limit = Some(Box::new(FlowLimit::new(cfg.flow_limit_table_len)))
            });
        }
        let mut sim = Sim {
            now: Nanos::ZERO,
            rng: rng.fork("sim"),
            toeplitz: ToeplitzTable::new(&MS_VERIFICATION_KEY),
            soft_key,
            reta,
            hash_fields: [HashFields::FOUR_TUPLE; 4],
            cpu_mask: cpu_mask(cfg.cpus),
            queues,
            cpus,
            nodes: (0..cfg.cpus).map(|c| cfg.node_of(c)).collect(),
            rmap: Vec::new(),
            sock: (cfg.sock_flow_entries > 0).then(|| SockFlowTable::new(cfg.sock_flow_entries)),
            sock_cells: Vec::new(),
            flows: Vec::new(),
            info: Vec::new(),
            senders: Vec::new(),
            bounded: Vec::new(),
            softirq: vec![napi::SoftirqTick::default(); usize::from(cfg.cpus)],
            irqs: vec![napi::QueueIrq::default(); usize::from(cfg.rx_queues)],
            irq_counts: vec![0; usize::from(cfg.rx_queues) * usize::from(cfg.cpus)],
            irqbalance: None,
            irqbalance_env: None,
            latency: latency::Latency::default(),
            by_key: Arc::default(),
            closed_flows: 0,
            threads: Vec::new(),
            ntuple: Vec::new(),
            partial_input_set: [false; 4],
            arfs: Arfs::new(cfg.driver, cfg.max_hw_filters),
            timers: timers::Timers::new(),
            lock_walks: tick::LockWalks::default(),
            worker: tick::Kworker::default(),
            xdp: None,
            tc: None,
            xps: tx::initial_xps(&cfg),
            txq_packets: vec![0; usize::from(cfg.tx_queues)],
            prices: Prices::new(&cfg.costs),
            elapsed: 0,
            expiry_heads: Vec::new(),
            partial: None,
            counters: Counters::default(),
            digest: Digest::default(),
            cfg,
        };
        sim.rebuild_rmap();
        Ok(sim)
    }

    /// The configuration in force.
    pub fn config(&self) -> &HostConfig {
        &self.cfg
    }

    /// Simulated time.
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Charges `units` of `stage`'s work (the unit its doc names) to `cpu`; the snapshot prices them.
    #[inline]
    fn charge(&mut self, cpu: u16, stage: Stage, units: u64) {
        self.cpus[usize::from(cpu)].work.add(stage, units);
    }
}

#[cfg(test)]
mod tests {
    /// The tick loop streams through every flow: its per-tick part stays within a cache line.
    #[test]
    fn a_flow_fits_a_cache_line() {
        assert!(
            core::mem::size_of::<super::Flow>() <= 64,
            "{}",
            core::mem::size_of::<super::Flow>()
        );
    }
}
