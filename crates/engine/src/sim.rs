//! The simulator: one host's receive path, tick by tick, in the kernel's order
//! (kernel-semantics.md §0): NIC filters or RSS pick the queue, the queue's IRQ CPU runs the
//! driver poll, `get_rps_cpu` may move the packet to another CPU's backlog, the backlog is
//! processed, the application reads and records its CPU for RFS.
//!
//! Time advances in ticks of `tick_ns`. In a tick: timers (thread migrations, the ice service
//! task), the sockets' sends (sim/tx.rs), then every flow's packets of the tick in flow order,
//! its reader's read (`sock_rps_record_flow`) in the middle of them, then every backlog is
//! drained (`process_backlog`) and mlx5's work runs.
//! Simplification: a flow's packets of one tick arrive together, at the flow's place in the
//! tick (flows are spread evenly over it, in flow order). A CPU processes its backlog in order
//! at the stack's per-packet cost, so `input_queue_head` advances as simulated time passes within
//! the tick and the in-order test of `get_rps_cpu` sees what is really still queued; every
//! backlog is empty at the end of the tick. Ring and backlog capacities are per tick.
//!
//! Aggregate mode: a packet's path is decided before anything changes (`get_rps_cpu`, and
//! `set_rps_cpu` planned with the driver's answer). When it would change nothing but counters,
//! queue tails and `last_qtail` stamps, the next packets of the same flow in the tick take
//! exactly the same path until a capacity runs out, so they are applied together. Packet mode
//! applies them one by one; the tests check that both give the same counters and digest.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::backlog::{Backlog, Enqueued};
use crate::arfs::{Arfs, ArfsCounters, Decision, ExpiryOracle, FilterView, SteerRequest, ICE_SERVICE_PERIOD};
use crate::config::{ConfigError, Driver, HostConfig, Kernel, Mode, RecordPolicy, MAX_FLOWS, MAX_THREADS};
use crate::cpuset::CpuSet;
use crate::flow::{FlowKey, FlowType, Proto};
use crate::ledger::{Class, Ledger, Prices, Stage, Work};
use crate::tc::{Classify, FilterId, FilterSpec, SwResult, TcBlock, TcError};
use crate::xdp::{XdpAction, XdpCost, XdpProgram};
use crate::xps::Xps;
use crate::metrics::{Counters, CpuStats, Digest, QueueStats};
use crate::rng::Rng;
use crate::rps::{active_window, cpu_mask, reciprocal_scale, rfs_slot, DevFlow, DevFlowTable, SockFlowTable, NO_CPU, NO_FILTER};
use crate::rss::{hash_input, HashFields, Reta, RetaError};
use crate::time::Nanos;
use crate::toeplitz::{ToeplitzTable, MS_VERIFICATION_KEY};

mod trace;
mod tx;

pub use trace::FlowTrace;
pub use tx::TxSpec;

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

/// Why a command was refused. The state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// A value is out of range.
    Config(ConfigError),
    /// The indirection table could not be set.
    Reta(RetaError),
    /// Something named does not exist or already exists.
    Invalid(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Config(e) => e.fmt(f),
            SimError::Reta(e) => e.fmt(f),
            SimError::Invalid(s) => f.write_str(s),
        }
    }
}

impl From<ConfigError> for SimError {
    fn from(e: ConfigError) -> Self {
        SimError::Config(e)
    }
}

fn range_err(field: &str, accepted: &str) -> SimError {
    SimError::Config(ConfigError { field: field.into(), accepted: accepted.into() })
}

/// What the tick loop reads and writes for every flow, in one cache line. The loop streams
/// through all of them every tick while it looks up `rps_sock_flow_table` and the queues'
/// flow tables at random; what it rarely needs lives in [`FlowInfo`], so that the tables stay
/// in the cache (a flow was 176 bytes when it held everything).
#[derive(Clone, Debug)]
struct Flow {
    /// Hash the NIC computed (Toeplitz over the configured fields).
    nic_hash: u32,
    /// `skb_get_hash`: the NIC hash when it covered the ports, else the software hash.
    skb_hash: u32,
    rate_pps: u64,
    since: Nanos,
    sent: u64,
    bytes: u32,
    /// Threads reading the socket: how many, and the first (`u32::MAX` when none); the others
    /// are in [`FlowInfo::readers`].
    readers: u32,
    first_reader: u32,
    /// Reader of the current tick (index into `threads`), `u32::MAX` when none.
    reader: u32,
    ntuple_queue: Option<u16>,
    /// ixgbe ATR's signature filter for this flow's receive direction.
    atr_queue: Option<u16>,
    last_queue: u16,
    last_cpu: u16,
    /// Where its last packet was dropped, if it was.
    last_drop: Option<DropPoint>,
    /// A UDP flow (ice expires its filters after a fixed time).
    udp: bool,
}

/// The parts of a flow the tick loop rarely reads: its tuple (tc, UDP expiry, views), every
/// reader, and its sender.
#[derive(Clone, Debug)]
struct FlowInfo {
    key: FlowKey,
    readers: Vec<u32>,
    tx: Option<tx::TxState>,
}

#[derive(Clone, Debug)]
struct Thread {
    cpu: u16,
    allowed: CpuSet,
    every: Nanos,
    next_migration: Nanos,
}

#[derive(Clone, Debug)]
struct RxQueue {
    irq_cpu: u16,
    rps_map: Vec<u16>,
    table: Option<DevFlowTable>,
    /// Packets the ring and its NAPI poll still take this tick.
    budget: u64,
    stats: QueueStats,
}

impl RxQueue {
    /// A queue with its IRQ on `irq_cpu`, an `rps_cpus` map and a flow table of `flow_cnt`
    /// entries (none when 0); its counters start at zero.
    fn new(irq_cpu: u16, rps_map: Vec<u16>, flow_cnt: u32) -> RxQueue {
        RxQueue { irq_cpu, rps_map, table: (flow_cnt > 0).then(|| DevFlowTable::new(flow_cnt)), budget: 0, stats: QueueStats::default() }
    }
}

#[derive(Clone, Debug, Default)]
struct Cpu {
    /// `ndo_rx_flow_steer` calls from this CPU this tick (mlx5 lock contention).
    arfs_calls: u64,
    /// Its RPS backlog (`softnet_data`).
    backlog: Backlog,
    /// Packets, drops and IPIs (the user, sys and softirq times are priced from `work`).
    stats: CpuStats,
    /// The work charged to it, per stage.
    work: Work,
}

/// An exact-match NIC rule (`ethtool -N DEV flow-type ... action Q loc L`); absent fields match
/// anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NtupleRule {
    /// Location in the rule table (lower wins).
    pub loc: u32,
    /// Flow type.
    pub flow_type: FlowType,
    /// Source address.
    pub src: Option<core::net::IpAddr>,
    /// Destination address.
    pub dst: Option<core::net::IpAddr>,
    /// Source port.
    pub sport: Option<u16>,
    /// Destination port.
    pub dport: Option<u16>,
    /// Target RX queue.
    pub queue: u16,
}

impl NtupleRule {
    fn matches(&self, k: &FlowKey) -> bool {
        self.flow_type == k.flow_type()
            && self.src.is_none_or(|a| a == k.src())
            && self.dst.is_none_or(|a| a == k.dst())
            && self.sport.is_none_or(|p| p == k.sport())
            && self.dport.is_none_or(|p| p == k.dport())
    }
}

/// One step's path, used to decide whether the following packets repeat it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    RingDrop,
    /// Dropped by an offloaded tc filter in the NIC.
    TcHwDrop,
    /// Dropped by a tc filter in software on the processing CPU.
    TcDrop { queue: u16, cpu: u16 },
    /// XDP_DROP / XDP_ABORTED.
    XdpDrop { queue: u16 },
    /// XDP_TX / XDP_REDIRECT: the packet leaves through the device (counted delivered).
    XdpOut { queue: u16 },
    BacklogDrop { queue: u16, cpu: u16 },
    Inline { queue: u16 },
    Backlog { queue: u16, cpu: u16 },
}

impl Fate {
    fn drop_point(self) -> Option<DropPoint> {
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

#[derive(Clone, Copy, Debug)]
struct Step {
    fate: Fate,
    /// State other than counters, tails and stamps changed: the next packet may differ.
    structural: bool,
}

/// `get_rps_cpu`'s decision for the next packet, taken before anything changes.
#[derive(Clone, Copy, Debug)]
struct RpsChoice {
    /// The CPU whose backlog gets the packet (`None`: processed inline on the IRQ CPU).
    cpu: Option<u16>,
    /// The flow entry stamped with the backlog's tail: (queue, slot).
    stamp: Option<(u16, u32)>,
    /// `set_rps_cpu` runs: the reader's CPU and the entry `get_rps_cpu` found, (queue, slot).
    /// [`Sim::plan_set_rps_cpu`] plans it; a packet that does not switch carries no plan.
    switch: Option<(u16, (u16, u32))>,
}

impl RpsChoice {
    /// Processed on the IRQ CPU, nothing stamped, nothing switched.
    const INLINE: RpsChoice = RpsChoice { cpu: None, stamp: None, switch: None };
}

/// What `set_rps_cpu` will do ([`Sim::plan_set_rps_cpu`]).
#[derive(Clone, Copy, Debug)]
struct Switch {
    /// The entry `get_rps_cpu` found: (queue, slot).
    from: (u16, u32),
    /// The reader's CPU, where the flow moves.
    next_cpu: u16,
    /// `ndo_rx_flow_steer` is called (aRFS on, another queue, not refused by 6.18's check):
    /// the request (for one packet) and the driver's decision.
    call: Option<(SteerRequest, Decision)>,
    /// The entry that represents the flow afterwards.
    loc: (u16, u32),
    /// State other than counters and stamps changes: the next packet may take another path.
    structural: bool,
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
    /// Number of flows.
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
    /// reader.
    pub fn by_wrong_filter(&self) -> bool {
        self.rule == QueueRule::Arfs && self.reader_cpu != NO_CPU && self.reader_queue != self.queue
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

/// A simulated host.
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
    flows: Vec<Flow>,
    /// `flows[i]`'s tuple, readers and sender.
    info: Vec<FlowInfo>,
    /// Flows that send, in flow order.
    senders: Vec<u32>,
    by_key: BTreeMap<FlowKey, u32>,
    threads: Vec<Thread>,
    ntuple: Vec<NtupleRule>,
    arfs: Arfs,
    next_service: Nanos,
    xdp: Option<(XdpProgram, XdpCost)>,
    /// The ingress qdisc's filter block (`tc qdisc add dev DEV ingress`), if any.
    tc: Option<TcBlock>,
    xps: Xps,
    txq_packets: Vec<u64>,
    /// The price of each stage's unit of work.
    prices: Prices,
    /// Time within the current tick of the flow being processed (ns from the tick's start).
    elapsed: u64,
    /// A tick in progress: its end, its flow count, the next flow to run.
    partial: Option<(Nanos, u32, u32)>,
    counters: Counters,
    digest: Digest,
}

/// The stack's view used by drivers for `rps_may_expire_flow`.
struct ExpiryView<'a> {
    kernel: Kernel,
    queues: &'a [RxQueue],
    cpus: &'a [Cpu],
}

impl ExpiryOracle for ExpiryView<'_> {
    /// `rps_may_expire_flow` (net/core/dev.c): keep only if the slot still holds this filter
    /// and its CPU has dequeued fewer than the activity window since the flow's last enqueue.
    fn may_expire(&self, rxq: u16, flow_id: u32, filter_id: u16) -> bool {
        let Some(t) = self.queues.get(usize::from(rxq)).and_then(|q| q.table.as_ref()) else { return true };
        let Some(r) = t.flows.get(flow_id as usize) else { return true };
        if r.filter != filter_id || usize::from(r.cpu) >= self.cpus.len() {
            return true;
        }
        let since = self.cpus[usize::from(r.cpu)].backlog.head().wrapping_sub(r.last_qtail) as i32;
        since >= active_window(self.kernel, t.log)
    }
}

const EV_MIGRATE: u64 = 1;
const EV_STEP: u64 = 2;
const EV_TICK: u64 = 3;
const EV_SOCK: u64 = 4;
const EV_TX: u64 = 5;
const EV_XDP: u64 = 6;
const EV_CHANNELS: u64 = 7;
const EV_TC: u64 = 8;

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
            CpuSet::parse_list(&cfg.rps_cpus).map(|s| s.iter().collect()).unwrap_or_default()
        };
        let queues = (0..cfg.rx_queues)
            .map(|q| RxQueue::new(q % cfg.cpus, rps_map.clone(), cfg.flow_cnt))
            .collect();
        let cpus = vec![Cpu::default(); usize::from(cfg.cpus)];
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
            flows: Vec::new(),
            info: Vec::new(),
            senders: Vec::new(),
            by_key: BTreeMap::new(),
            threads: Vec::new(),
            ntuple: Vec::new(),
            arfs: Arfs::new(cfg.driver, cfg.max_hw_filters),
            next_service: ICE_SERVICE_PERIOD,
            xdp: None,
            tc: None,
            xps: tx::initial_xps(&cfg),
            txq_packets: vec![0; usize::from(cfg.tx_queues)],
            prices: Prices::new(&cfg.costs),
            elapsed: 0,
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

    /// The CPU → nearest RX queue map of aRFS (lib/cpu_rmap.c): a queue's IRQ CPU has distance
    /// 0 (later queues win ties); other CPUs take a queue of their NUMA node (distance 3), else
    /// queue 0. SMT siblings and packages are not modelled.
    fn rebuild_rmap(&mut self) {
        let n = usize::from(self.cfg.cpus);
        let mut rmap = vec![u16::MAX; n];
        for (q, rxq) in self.queues.iter().enumerate() {
            rmap[usize::from(rxq.irq_cpu)] = q as u16;
        }
        for (c, slot) in rmap.iter_mut().enumerate() {
            if *slot == u16::MAX {
                let node = self.nodes[c];
                *slot = self.queues.iter().rposition(|q| self.nodes[usize::from(q.irq_cpu)] == node).unwrap_or(0) as u16;
            }
        }
        self.rmap = rmap;
    }

    // ---------------------------------------------------------------- commands

    /// Adds a thread; returns its id.
    pub fn add_thread(&mut self, spec: ThreadSpec) -> Result<u32, SimError> {
        let n = self.cfg.cpus;
        if self.threads.len() as u32 >= MAX_THREADS {
            return Err(range_err("threads", "at most 65536 threads"));
        }
        let allowed = if spec.allowed.is_empty() { CpuSet::range(0, n) } else { spec.allowed };
        if allowed.end() > n {
            return Err(range_err("thread.cpuset", "CPUs of this host"));
        }
        if !allowed.contains(spec.cpu) {
            return Err(range_err("thread.cpu", "a CPU of the thread's cpuset"));
        }
        let next_migration = if spec.migrate_every == Nanos::ZERO { Nanos(u64::MAX) } else { self.now.saturating_add(spec.migrate_every) };
        self.threads.push(Thread { cpu: spec.cpu, allowed, every: spec.migrate_every, next_migration });
        Ok(self.threads.len() as u32 - 1)
    }

    /// Moves thread `tid` to `cpu` (what dragging it does; `taskset` changes the cpuset).
    pub fn migrate_thread(&mut self, tid: u32, cpu: u16) -> Result<(), SimError> {
        let t = self.threads.get(tid as usize).ok_or_else(|| SimError::Invalid(alloc::format!("no thread {tid}")))?;
        if !t.allowed.contains(cpu) {
            return Err(SimError::Invalid(alloc::format!("CPU {cpu} is not in thread {tid}'s cpuset {}", t.allowed.to_list())));
        }
        self.threads[tid as usize].cpu = cpu;
        self.counters.migrations += 1;
        self.digest.event(&[EV_MIGRATE, self.now.0, u64::from(tid), u64::from(cpu)]);
        Ok(())
    }

    /// Sets how often thread `tid` migrates to a random CPU of its cpuset (zero: never).
    pub fn set_thread_migration(&mut self, tid: u32, every: Nanos) -> Result<(), SimError> {
        if every.0 > 86_400_000_000_000 {
            return Err(range_err("migrate_every", "0..=86400000 ms"));
        }
        let now = self.now;
        let t = self.threads.get_mut(tid as usize).ok_or_else(|| SimError::Invalid(alloc::format!("no thread {tid}")))?;
        t.every = every;
        t.next_migration = if every == Nanos::ZERO { Nanos(u64::MAX) } else { now.saturating_add(every) };
        self.digest.event(&[EV_MIGRATE, now.0, u64::from(tid), every.0 | 1 << 63]);
        Ok(())
    }

    /// A thread's migration period (zero: it stays where it is put).
    pub fn thread_migration(&self, tid: u32) -> Option<Nanos> {
        self.threads.get(tid as usize).map(|t| t.every)
    }

    /// The flow table of RX queue `q` (`rps_flow_cnt` entries), if RFS is on there.
    pub fn dev_flow_table(&self, q: u16) -> Option<&DevFlowTable> {
        self.queues.get(usize::from(q))?.table.as_ref()
    }

    /// The global `rps_sock_flow_table`, if RFS is on.
    pub fn sock_flow_table(&self) -> Option<&SockFlowTable> {
        self.sock.as_ref()
    }

    /// `taskset -pc LIST TID`: sets the cpuset; a thread outside it moves to its first CPU.
    pub fn set_thread_cpuset(&mut self, tid: u32, allowed: CpuSet) -> Result<(), SimError> {
        let n = self.cfg.cpus;
        let t = self.threads.get(tid as usize).ok_or_else(|| SimError::Invalid(alloc::format!("no thread {tid}")))?;
        if allowed.is_empty() || allowed.end() > n {
            return Err(range_err("cpuset", "a non-empty set of this host's CPUs"));
        }
        let cpu = if allowed.contains(t.cpu) { t.cpu } else { allowed.nth(0).unwrap_or(0) };
        self.threads[tid as usize].allowed = allowed;
        if cpu != self.threads[tid as usize].cpu {
            self.migrate_thread(tid, cpu)?;
        }
        Ok(())
    }

    /// Adds a flow; returns its index.
    pub fn add_flow(&mut self, spec: FlowSpec) -> Result<u32, SimError> {
        if self.flows.len() as u32 >= MAX_FLOWS {
            return Err(range_err("flows", "at most 1000000 flows"));
        }
        self.check_flow(&spec)?;
        Ok(self.insert_flow(spec))
    }

    /// Adds several flows, all or none: every one is checked (also against the others of the
    /// batch) before the first is added.
    pub fn add_flows(&mut self, specs: Vec<FlowSpec>) -> Result<core::ops::Range<u32>, SimError> {
        if self.flows.len() + specs.len() > MAX_FLOWS as usize {
            return Err(range_err("flows", "at most 1000000 flows"));
        }
        let mut batch = alloc::collections::BTreeSet::new();
        for spec in &specs {
            self.check_flow(spec)?;
            if !batch.insert(spec.key) {
                return Err(SimError::Invalid(alloc::format!("flow {} is given twice", spec.key)));
            }
        }
        let first = self.flows.len() as u32;
        for spec in specs {
            self.insert_flow(spec);
        }
        Ok(first..self.flows.len() as u32)
    }

    /// Whether `spec` may be added: ranges, its readers, a new tuple.
    fn check_flow(&self, spec: &FlowSpec) -> Result<(), SimError> {
        let rx_min = u64::from(spec.tx.is_none());
        if !(rx_min..=100_000_000).contains(&spec.rate_pps) {
            return Err(range_err("flow.rate_pps", if rx_min == 1 { "1..=100000000" } else { "0..=100000000 (0: send only)" }));
        }
        if let Some(t) = &spec.tx {
            t.validate()?;
            if spec.readers.is_empty() {
                return Err(SimError::Invalid("a sending flow needs a thread: its first reader sends".into()));
            }
        }
        if !(64..=65_535).contains(&spec.bytes) {
            return Err(range_err("flow.bytes", "64..=65535"));
        }
        if let Some(&r) = spec.readers.iter().find(|&&r| r as usize >= self.threads.len()) {
            return Err(SimError::Invalid(alloc::format!("flow reader: no thread {r}")));
        }
        if self.by_key.contains_key(&spec.key) {
            return Err(SimError::Invalid(alloc::format!("flow {} already exists", spec.key)));
        }
        Ok(())
    }

    /// Adds a checked flow; returns its index.
    fn insert_flow(&mut self, spec: FlowSpec) -> u32 {
        let id = self.flows.len() as u32;
        let (nic_hash, skb_hash) = self.hashes(&spec.key);
        let ntuple_queue = self.ntuple_queue(&spec.key);
        let queue = ntuple_queue.unwrap_or_else(|| self.reta.queue(nic_hash));
        self.flows.push(Flow {
            nic_hash,
            skb_hash,
            rate_pps: spec.rate_pps,
            since: self.now,
            sent: 0,
            bytes: spec.bytes,
            readers: spec.readers.len() as u32,
            first_reader: spec.readers.first().copied().unwrap_or(u32::MAX),
            reader: u32::MAX,
            ntuple_queue,
            atr_queue: None,
            last_queue: queue,
            last_cpu: self.queues[usize::from(queue)].irq_cpu,
            last_drop: None,
            udp: spec.key.proto() == Proto::Udp,
        });
        if spec.tx.is_some() {
            self.senders.push(id);
        }
        self.info.push(FlowInfo { key: spec.key, readers: spec.readers, tx: spec.tx.map(tx::TxState::new) });
        self.by_key.insert(spec.key, id);
        self.arfs.track_flows(self.flows.len());
        id
    }

    /// Whether a flow with this tuple exists.
    pub fn has_flow(&self, key: &FlowKey) -> bool {
        self.by_key.contains_key(key)
    }

    /// The NIC's hash and `skb_get_hash` for a tuple (kernel-semantics §1.7): an L4 NIC hash is
    /// kept; otherwise the stack computes its own. The kernel's software hash is SipHash of the
    /// canonicalised tuple with a boot-random key; the sandbox uses a seeded 64-bit mix of the
    /// same canonical tuple (same properties that matter here: direction-symmetric, never 0).
    fn hashes(&self, key: &FlowKey) -> (u32, u32) {
        let fields = self.hash_fields[key.flow_type().index()];
        let (input, len) = hash_input(key, fields);
        let nic = self.toeplitz.hash(&input[..len]);
        if fields.is_l4() && nic != 0 {
            return (nic, nic);
        }
        let (a, b) = (ip_words(key.src()), ip_words(key.dst()));
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let (p, q) = (key.sport().min(key.dport()), key.sport().max(key.dport()));
        let mut h = self.soft_key;
        for w in [lo.0, lo.1, hi.0, hi.1, (u64::from(p) << 16) | u64::from(q), u64::from(key.proto().ip_proto())] {
            h = Rng::new(h ^ w).next_u64();
        }
        let soft = (h >> 32) as u32;
        (nic, if soft == 0 { 1 } else { soft })
    }

    fn ntuple_queue(&self, key: &FlowKey) -> Option<u16> {
        self.ntuple.iter().filter(|r| r.matches(key)).min_by_key(|r| r.loc).map(|r| r.queue)
    }

    fn refresh_flows(&mut self) {
        for i in 0..self.flows.len() {
            let key = self.info[i].key;
            let (nic, skb) = self.hashes(&key);
            let nq = self.ntuple_queue(&key);
            let f = &mut self.flows[i];
            f.nic_hash = nic;
            f.skb_hash = skb;
            f.ntuple_queue = nq;
        }
    }

    /// `ethtool -N DEV flow-type ... action Q [loc L]`; returns the location used.
    pub fn add_ntuple(&mut self, mut rule: NtupleRule) -> Result<u32, SimError> {
        if rule.queue >= self.cfg.rx_queues {
            return Err(range_err("action", "an RX queue of this device"));
        }
        if !self.cfg.ntuple {
            return Err(SimError::Invalid("ntuple filters are off (ethtool -K DEV ntuple on)".into()));
        }
        if rule.loc == u32::MAX {
            // ethtool picks the highest free location (rmgr_find_empty_slot).
            let free = (0..=1023u32).rev().find(|l| !self.ntuple.iter().any(|r| r.loc == *l));
            rule.loc = free.ok_or_else(|| SimError::Invalid("rmgr: Cannot find appropriate slot to insert rule".into()))?;
        } else if rule.loc > 1023 || self.ntuple.iter().any(|r| r.loc == rule.loc) {
            return Err(range_err("loc", "a free location in 0..=1023"));
        }
        let loc = rule.loc;
        self.ntuple.push(rule);
        self.refresh_flows();
        Ok(loc)
    }

    /// `ethtool -N DEV delete L`.
    pub fn delete_ntuple(&mut self, loc: u32) -> Result<(), SimError> {
        let i = self.ntuple.iter().position(|r| r.loc == loc).ok_or_else(|| SimError::Invalid(alloc::format!("no rule at location {loc}")))?;
        self.ntuple.remove(i);
        self.refresh_flows();
        Ok(())
    }

    /// The ntuple rules, by location.
    pub fn ntuple_rules(&self) -> Vec<NtupleRule> {
        let mut r = self.ntuple.clone();
        r.sort_by_key(|r| r.loc);
        r
    }

    /// `ethtool -N DEV rx-flow-hash TYPE FIELDS`.
    pub fn set_hash_fields(&mut self, ty: FlowType, fields: HashFields) -> Result<(), SimError> {
        if !(fields.src_ip && fields.dst_ip) || fields.src_port != fields.dst_port {
            return Err(range_err("rx-flow-hash", "sd or sdfn"));
        }
        self.hash_fields[ty.index()] = fields;
        self.refresh_flows();
        Ok(())
    }

    /// The fields hashed for a flow type.
    pub fn hash_fields(&self, ty: FlowType) -> HashFields {
        self.hash_fields[ty.index()]
    }

    /// `ethtool -X DEV hkey ...`: the RSS key (40 bytes).
    pub fn set_rss_key(&mut self, key: &[u8]) -> Result<(), SimError> {
        if key.len() != 40 {
            return Err(range_err("hkey", "exactly 40 bytes"));
        }
        self.toeplitz = ToeplitzTable::new(key);
        self.refresh_flows();
        Ok(())
    }

    /// The RSS key.
    pub fn rss_key(&self) -> &[u8] {
        self.toeplitz.key()
    }

    /// Replaces the indirection table (`ethtool -X`).
    pub fn set_reta(&mut self, reta: Reta) -> Result<(), SimError> {
        if reta.size() != self.reta.size() {
            return Err(range_err("indirection table", "the device's table size"));
        }
        if let Some(&q) = reta.entries().iter().find(|&&q| q >= self.cfg.rx_queues) {
            return Err(SimError::Reta(RetaError::QueueOutOfRange { queue: u32::from(q), rings: u32::from(self.cfg.rx_queues) }));
        }
        self.reta = reta;
        Ok(())
    }

    /// `ethtool -L DEV combined N`: N RX and N TX queues, IRQ of queue q on CPU q % cpus.
    /// As `ethtool_set_channels` (net/ethtool/ioctl.c) does, a user-configured indirection
    /// table that names a queue beyond the new count refuses the change; a default table is
    /// re-filled for the new count (the driver's `ethtool_rxfh_indir_default`); "configured"
    /// is the kernel's IFF_RXFH_CONFIGURED, set by `ethtool -X` and cleared by `-X default`.
    /// Queue tables, RPS maps and XPS maps are rebuilt; aRFS and ATR filters are flushed (the
    /// driver re-initialises its rings).
    pub fn set_channels(&mut self, combined: u16) -> Result<(), SimError> {
        if !(1..=crate::config::MAX_QUEUES).contains(&combined) {
            return Err(range_err("combined", "1..=512"));
        }
        let size = self.reta.size();
        let reta = if !self.reta.user_configured() {
            Reta::new_default(size, u32::from(combined)).map_err(SimError::Reta)?
        } else if let Some(&q) = self.reta.entries().iter().find(|&&q| q >= combined) {
            return Err(SimError::Invalid(alloc::format!("the indirection table uses queue {q}: reset it first (ethtool -X eth0 default)")));
        } else {
            self.reta.clone()
        };
        if let Some(r) = self.ntuple.iter().find(|r| r.queue >= combined) {
            // ethtool_set_channels refuses while a rule steers to a queue that would vanish.
            return Err(SimError::Invalid(alloc::format!("ntuple rule {} sends to queue {}: delete it first", r.loc, r.queue)));
        }
        let rps_map = self.queues.first().map(|q| q.rps_map.clone()).unwrap_or_default();
        let flow_cnt = self.cfg.flow_cnt;
        self.cfg.rx_queues = combined;
        self.cfg.tx_queues = combined;
        self.reta = reta;
        let ncpus = self.cfg.cpus;
        self.queues = (0..combined)
            .map(|q| RxQueue::new(q % ncpus, rps_map.clone(), flow_cnt))
            .collect();
        self.txq_packets = vec![0; usize::from(combined)];
        self.xps = tx::initial_xps(&self.cfg);
        self.flows.iter_mut().for_each(|f| f.atr_queue = None);
        self.info.iter_mut().filter_map(|i| i.tx.as_mut()).for_each(tx::TxState::forget_queue);
        self.rebuild_rmap();
        self.set_driver(self.cfg.driver);
        self.refresh_flows();
        for f in 0..self.flows.len() {
            self.flows[f].last_queue = self.rx_queue(f).0;
        }
        self.digest.event(&[EV_CHANNELS, self.now.0, u64::from(combined)]);
        Ok(())
    }

    /// The indirection table.
    pub fn reta(&self) -> &Reta {
        &self.reta
    }

    /// `echo N > /sys/class/net/DEV/queues/rx-Q/rps_flow_cnt` (queue `None` = every queue).
    pub fn set_flow_cnt(&mut self, queue: Option<u16>, count: u32) -> Result<(), SimError> {
        if count > crate::rps::MAX_FLOW_CNT {
            return Err(range_err("rps_flow_cnt", "0..=65536"));
        }
        let qs = self.queue_range(queue)?;
        for q in qs {
            self.queues[q].table = (count > 0).then(|| DevFlowTable::new(count));
        }
        if queue.is_none() {
            self.cfg.flow_cnt = count;
        }
        Ok(())
    }

    /// `rps_flow_cnt` of a queue (0 when off).
    pub fn flow_cnt(&self, queue: u16) -> u32 {
        self.queues.get(usize::from(queue)).and_then(|q| q.table.as_ref()).map_or(0, DevFlowTable::size)
    }

    /// `echo MASK > .../rx-Q/rps_cpus` (queue `None` = every queue); empty = RPS off.
    pub fn set_rps_cpus(&mut self, queue: Option<u16>, cpus: CpuSet) -> Result<(), SimError> {
        if cpus.end() > self.cfg.cpus {
            return Err(range_err("rps_cpus", "CPUs of this host"));
        }
        for q in self.queue_range(queue)? {
            self.queues[q].rps_map = cpus.iter().collect();
        }
        Ok(())
    }

    /// `rps_cpus` of a queue.
    pub fn rps_cpus(&self, queue: u16) -> CpuSet {
        let mut s = CpuSet::EMPTY;
        if let Some(q) = self.queues.get(usize::from(queue)) {
            q.rps_map.iter().for_each(|&c| s.insert(c));
        }
        s
    }

    fn queue_range(&self, queue: Option<u16>) -> Result<core::ops::Range<usize>, SimError> {
        match queue {
            None => Ok(0..self.queues.len()),
            Some(q) if q < self.cfg.rx_queues => Ok(usize::from(q)..usize::from(q) + 1),
            Some(_) => Err(range_err("queue", "an RX queue of this device")),
        }
    }

    /// `sysctl -w net.core.rps_sock_flow_entries=N`: every write resets the table.
    pub fn set_sock_flow_entries(&mut self, n: u32) -> Result<(), SimError> {
        if n > crate::rps::MAX_SOCK_FLOW_ENTRIES {
            return Err(range_err("net.core.rps_sock_flow_entries", "0..=4194304 in the sandbox (kernel: 2^29)"));
        }
        self.sock = (n > 0).then(|| SockFlowTable::new(n));
        self.cfg.sock_flow_entries = n;
        Ok(())
    }

    /// `rps_sock_flow_entries` in force (rounded), 0 when off.
    pub fn sock_flow_entries(&self) -> u32 {
        self.sock.as_ref().map_or(0, |s| s.mask + 1)
    }

    /// Switches the driver model; filters of the old driver are gone.
    pub fn set_driver(&mut self, driver: Driver) {
        self.cfg.driver = driver;
        // The sandbox's aRFS tallies run on across the switch, as every other counter does
        // (a real NIC's `ethtool -S` would start from zero: it is another device).
        let counters = core::mem::take(&mut self.arfs.counters);
        let per_queue = core::mem::take(&mut self.arfs.per_queue);
        self.arfs = Arfs::new(driver, self.cfg.max_hw_filters);
        (self.arfs.counters, self.arfs.per_queue) = (counters, per_queue);
        self.arfs.track_flows(self.flows.len());
        // The old driver's filter ids mean nothing to the new one (a different NIC).
        for q in &mut self.queues {
            if let Some(t) = &mut q.table {
                t.flows.iter_mut().for_each(|e| e.filter = NO_FILTER);
            }
        }
        if let Some((p, _)) = self.xdp.take() {
            self.set_xdp(Some(p));
        }
        if driver != Driver::Ixgbe {
            self.flows.iter_mut().for_each(|f| f.atr_queue = None);
        }
        // The ingress block now sits on another NIC: its filters are played back to it.
        if let Some(b) = &mut self.tc {
            if b.reoffload(driver.tc_offload()) > 0 {
                self.digest.event(&[EV_TC, self.now.0, u64::from(driver.tc_offload()), 0]);
            }
        }
    }

    /// `ethtool -K DEV ntuple on|off`: off removes every rule and aRFS filter; any change
    /// flushes ixgbe's ATR filters.
    pub fn set_ntuple(&mut self, on: bool) {
        if on != self.cfg.ntuple {
            // ixgbe_set_features: switching Flow Director between ATR and perfect filters
            // resets the device, and its ATR signature filters are gone.
            self.flows.iter_mut().for_each(|f| f.atr_queue = None);
        }
        self.cfg.ntuple = on;
        if !on {
            self.ntuple.clear();
            self.set_driver(self.cfg.driver);
            self.refresh_flows();
        }
    }

    /// Selects the kernel generation's rules.
    pub fn set_kernel(&mut self, kernel: Kernel) {
        self.cfg.kernel = kernel;
    }

    /// Selects the RFS record policy.
    pub fn set_record(&mut self, record: RecordPolicy) {
        self.cfg.record = record;
    }

    /// Switches packet/aggregate mode (results are the same; only speed differs).
    pub fn set_mode(&mut self, mode: Mode) {
        self.cfg.mode = mode;
    }

    /// `ip link set dev DEV xdp obj PROGRAM` (`None` = `xdp off`). Native XDP only: every
    /// driver model here has it; kfuncs the driver lacks answer "not supported".
    pub fn set_xdp(&mut self, program: Option<XdpProgram>) {
        let costs = self.cfg.costs;
        self.xdp = program.map(|p| {
            let c = crate::xdp::cost(&p, self.cfg.driver, costs.xdp_kfunc_call_ps, costs.xdp_fallback_ps);
            (p, c)
        });
        let words = self.xdp.as_ref().map_or([0, 0], |(p, c)| [u64::from(c.calls) + 1, p.action as u64]);
        self.digest.event(&[EV_XDP, self.now.0, words[0], words[1]]);
    }

    /// `tc qdisc add dev DEV ingress|clsact`: an empty filter block. The NIC accepts tc
    /// offload (flower in hardware) on ice and mlx5, not on the generic and ixgbe models.
    pub fn tc_add_qdisc(&mut self) -> Result<(), SimError> {
        if self.tc.is_some() {
            return Err(SimError::Invalid("Exclusivity flag on, cannot modify.".into()));
        }
        self.tc = Some(TcBlock::new(self.cfg.tc_counting, self.cfg.driver.tc_offload()));
        Ok(())
    }

    /// `tc qdisc del dev DEV ingress`: the block and its filters are gone.
    pub fn tc_del_qdisc(&mut self) -> Result<(), SimError> {
        self.tc.take().map(drop).ok_or_else(|| SimError::Invalid("Cannot find specified qdisc on specified device.".into()))
    }

    /// `tc filter add dev DEV ingress ...`.
    pub fn tc_add(&mut self, spec: FilterSpec) -> Result<FilterId, SimError> {
        let block = self.tc.as_mut().ok_or_else(|| SimError::Invalid("no ingress qdisc (tc qdisc add dev DEV ingress)".into()))?;
        let id = block.add(spec).map_err(tc_err)?;
        self.digest.event(&[EV_TC, self.now.0, u64::from(id.prio), u64::from(id.handle)]);
        Ok(id)
    }

    /// `tc filter del dev DEV ingress [prio P]`; returns the filters removed.
    pub fn tc_del(&mut self, prio: Option<u16>) -> Result<u32, SimError> {
        let block = self.tc.as_mut().ok_or_else(|| SimError::Invalid("no ingress qdisc".into()))?;
        let n = block.del(prio).map_err(tc_err)?;
        self.digest.event(&[EV_TC, self.now.0, u64::from(prio.unwrap_or(0)), u64::MAX]);
        Ok(n)
    }

    /// `tc filter del dev DEV ingress prio P handle H flower`.
    pub fn tc_del_filter(&mut self, prio: u16, handle: u32) -> Result<(), SimError> {
        let block = self.tc.as_mut().ok_or_else(|| SimError::Invalid("no ingress qdisc".into()))?;
        block.del_filter(prio, handle).map_err(tc_err)?;
        self.digest.event(&[EV_TC, self.now.0, u64::from(prio), u64::from(handle)]);
        Ok(())
    }

    /// The ingress block.
    pub fn tc_block(&self) -> Option<&TcBlock> {
        self.tc.as_ref()
    }

    /// Selects which kernel's block counters decide the bypass (`tc.counting`).
    pub fn set_tc_counting(&mut self, counting: crate::tc::Counting) {
        self.cfg.tc_counting = counting;
        if let Some(b) = &mut self.tc {
            b.set_counting(counting);
        }
    }

    /// The loaded XDP program.
    pub fn xdp(&self) -> Option<&XdpProgram> {
        self.xdp.as_ref().map(|(p, _)| p)
    }

    // ---------------------------------------------------------------- time

    /// Runs whole ticks until `until` (rounded down to a tick boundary).
    pub fn advance_to(&mut self, until: Nanos) {
        self.finish_tick();
        while self.now.0.saturating_add(self.cfg.tick_ns) <= until.0 {
            self.tick();
        }
    }

    /// Runs `n` ticks.
    pub fn run_ticks(&mut self, n: u64) {
        self.finish_tick();
        for _ in 0..n {
            self.tick();
        }
    }

    /// One tick of `tick_ns`.
    pub fn tick(&mut self) {
        while !self.tick_part(u32::MAX) {}
    }

    /// Finishes a tick that [`Sim::tick_part`] left in progress (a no-op between ticks).
    /// Commands are applied between ticks: callers that split ticks finish them first.
    pub fn finish_tick(&mut self) {
        if self.partial.is_some() {
            self.tick();
        }
    }

    /// Whether a tick is in progress.
    pub fn in_tick(&self) -> bool {
        self.partial.is_some()
    }

    /// Runs part of a tick: its start if none is in progress, then up to `max_flows` flows,
    /// then its end once every flow ran. Returns true when the tick completed. Splitting a
    /// tick never changes results (the flows run in the same order at the same instants); the
    /// page uses it to keep frames short with 16,384 flows.
    pub fn tick_part(&mut self, max_flows: u32) -> bool {
        let (t1, n, first) = match self.partial {
            Some(p) => p,
            None => {
                let t1 = self.begin_tick();
                (t1, self.flows.len() as u32, 0)
            }
        };
        let last = first.saturating_add(max_flows).min(n);
        // Flows arrive spread over the tick, in flow order: flow f at tick_ns * f / n, stepped
        // without a division per flow. tick_ns <= 1e9 and f < 1e6: the products fit in u64.
        let (tick, count) = (self.cfg.tick_ns, u64::from(n.max(1)));
        let (mut at, mut frac) = (tick * u64::from(first) / count, tick * u64::from(first) % count);
        for f in first..last {
            self.elapsed = at;
            self.service_task_due();
            self.run_flow(f as usize, t1);
            (at, frac) = (at + tick / count, frac + tick % count);
            if frac >= count {
                (at, frac) = (at + 1, frac - count);
            }
        }
        if last < n {
            self.partial = Some((t1, n, last));
            return false;
        }
        self.elapsed = self.cfg.tick_ns;
        self.service_task_due();
        self.partial = None;
        self.end_tick(t1);
        true
    }

    /// The start of a tick: timers, transmissions, capacities. Returns the tick's end.
    fn begin_tick(&mut self) -> Nanos {
        let t0 = self.now;
        let t1 = Nanos(t0.0 + self.cfg.tick_ns);
        self.timers(t0);
        // The sockets' sends of the tick come first, so that an ATR filter they program
        // steers this tick's replies.
        self.transmit(t1);
        let costs = self.cfg.costs;
        // What the queue's NAPI poll can take in a tick: the ring plus what its CPU processes
        // meanwhile, at the per-packet cost of the path (an XDP verdict ends the path early).
        let per_pkt_ps = match &self.xdp {
            Some((p, c)) if p.action != XdpAction::Pass => costs.driver_rx_ps + c.kfunc_ps,
            Some((_, c)) => costs.driver_rx_ps + c.kfunc_ps + costs.stack_rx_ns * 1000,
            None => costs.driver_rx_ps + costs.stack_rx_ns * 1000,
        };
        let ring_budget = u64::from(self.cfg.ring_size) + self.cfg.tick_ns * 1000 / per_pkt_ps.max(1);
        for q in &mut self.queues {
            q.budget = ring_budget;
        }
        let backlog_budget = u64::from(self.cfg.netdev_max_backlog) + self.cfg.tick_ns / costs.stack_rx_ns.max(1);
        for c in &mut self.cpus {
            c.backlog.set_room(backlog_budget);
        }
        t1
    }

    /// The end of a tick: backlogs drain, mlx5 works, time moves, the digest records it.
    fn end_tick(&mut self, t1: Nanos) {
        self.end_of_tick();
        self.now = t1;
        let c = &self.counters;
        // Where the packets went, per queue and per CPU, folded into two words.
        let mix = |h: u64, (i, n): (usize, u64)| (h.rotate_left(7) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15 ^ i as u64);
        let qmix = self.queues.iter().map(|q| q.stats.packets.wrapping_add(q.stats.drops.rotate_left(32))).enumerate().fold(0, |h, (i, n)| mix(h, (i, n)));
        let cmix = self.cpus.iter().map(|c| c.stats.packets).enumerate().fold(0, |h, (i, n)| mix(h, (i, n)));
        self.digest.event(&[EV_TICK, t1.0, c.offered, c.delivered, c.dropped(), c.local, c.remote, c.sock_flow_updates, c.tx_messages, qmix, cmix]);
    }

    /// Thread migrations and the ice service task due at the start of the tick.
    fn timers(&mut self, now: Nanos) {
        for tid in 0..self.threads.len() {
            let t = &self.threads[tid];
            if t.next_migration > now {
                continue;
            }
            let cpu = t.allowed.nth(self.rng.below(t.allowed.len())).unwrap_or(t.cpu);
            let every = t.every;
            self.threads[tid].next_migration = t.next_migration.saturating_add(every);
            if cpu != self.threads[tid].cpu {
                self.threads[tid].cpu = cpu;
                self.counters.migrations += 1;
                self.digest.event(&[EV_MIGRATE, now.0, tid as u64, u64::from(cpu)]);
            }
        }
        let ice = matches!(self.cfg.driver, Driver::Ice | Driver::IceHashMatch);
        let timer = now >= self.next_service;
        if timer {
            self.next_service = self.next_service.saturating_add(ICE_SERVICE_PERIOD);
        }
        // The service task runs on its 1 s timer and whenever ice_rx_flow_steer scheduled it
        // (ice_service_task_schedule). The programming of a scheduled run happens at once
        // (Arfs::ice_program_scheduled); simplification: its expiry scan is coalesced into one
        // pass at the start of the next tick.
        if ice && (timer || self.arfs.service_scheduled) {
            let writes = self.arfs.counters.hw_writes;
            let view = ExpiryView { kernel: self.cfg.kernel, queues: &self.queues, cpus: &self.cpus };
            self.arfs.ice_service(now, &view);
            self.charge_service(writes);
        }
    }

    /// ice: a service task run scheduled by `ice_rx_flow_steer` whose time has come programs
    /// the pending filters.
    fn service_task_due(&mut self) {
        let now = Nanos(self.now.0 + self.elapsed);
        if self.arfs.service_due.is_some_and(|due| due <= now) {
            let writes = self.arfs.counters.hw_writes;
            self.arfs.ice_program_pending(now);
            self.charge_service(writes);
        }
    }

    /// The service task / work runs in a kworker: charged as system time on CPU 0.
    fn charge_service(&mut self, writes_before: u64) {
        self.charge(0, Stage::ArfsHw, self.arfs.counters.hw_writes - writes_before);
    }

    /// The flow's packets of this tick, and its reader's `recvmsg` in the middle of them.
    ///
    /// Simplification: a flow's packets of a tick arrive in one burst at its place in the tick.
    /// On a real host they are spread over the tick and interleaved with every other flow's
    /// packets and reads, so two flows that share an `rps_sock_flow_table` entry each find
    /// their own record for about half of their packets. The sandbox gets the same share by
    /// placing the reader's read (`sock_rps_record_flow`) after the first half of the burst:
    /// the first half sees whoever read last, the second half sees this reader.
    fn run_flow(&mut self, f: usize, t1: Nanos) {
        let flow = &self.flows[f];
        let span = t1.0 - flow.since.0;
        let due = match span.checked_mul(flow.rate_pps) {
            Some(p) => p / 1_000_000_000,
            None => (u128::from(span) * u128::from(flow.rate_pps) / 1_000_000_000) as u64,
        };
        let mut left = due - flow.sent;
        if left == 0 {
            return;
        }
        self.flows[f].sent = due;
        self.counters.offered += left;
        let reader = match self.flows[f].readers {
            0 | 1 => self.flows[f].first_reader,
            n => self.info[f].readers[self.rng.below(n) as usize],
        };
        self.flows[f].reader = reader;
        let reader_cpu = self.threads.get(reader as usize).map(|t| t.cpu);
        let aggregate = self.cfg.mode == Mode::Aggregate;
        // Packets before the read, and whether any packet of the burst reached the socket and
        // has not been read yet. When the read cannot change the sock table (the entry already
        // holds this reader's CPU, or there is no table or reader), where it falls in the
        // burst changes nothing: the burst runs whole and the read follows it.
        let mut before_read = if self.read_changes_nothing(f, reader_cpu) { 0 } else { left - left / 2 };
        let (mut unread, mut last) = (false, Fate::RingDrop);
        while left > 0 {
            let cap = if before_read > 0 { before_read } else { left };
            let (step, m) = self.steer(f, if aggregate { cap } else { 1 }, reader_cpu);
            last = step.fate;
            if step.structural {
                self.digest.event(&[EV_STEP, self.now.0, f as u64, fate_word(step.fate)]);
            }
            unread |= matches!(step.fate, Fate::Inline { .. } | Fate::Backlog { .. });
            left -= m;
            if before_read > 0 {
                before_read -= m;
                if before_read == 0 && unread {
                    unread = false;
                    self.recvmsg(f);
                }
            }
        }
        self.flows[f].last_drop = last.drop_point();
        if unread {
            self.recvmsg(f);
        }
    }

    /// Whether the reader's read of flow `f` would leave `rps_sock_flow_table` as it is.
    fn read_changes_nothing(&self, f: usize, reader_cpu: Option<u16>) -> bool {
        let (Some(sock), Some(cpu)) = (&self.sock, reader_cpu) else { return true };
        let hash = self.flows[f].skb_hash;
        sock.ents[sock.index(hash)] == SockFlowTable::value(hash, cpu, self.cpu_mask)
    }

    /// The reader's `recvmsg` of flow `f`'s delivered packets: user and sys time, and
    /// `sock_rps_record_flow` -> `rps_record_sock_flow` (include/net/rps.h), or under
    /// `rfs.record = cpuset` seed 002's rule.
    fn recvmsg(&mut self, f: usize) {
        let reader = self.flows[f].reader as usize;
        let Some(cpu) = self.threads.get(reader).map(|t| t.cpu) else { return };
        self.charge(cpu, Stage::AppRead, 1);
        self.charge(cpu, Stage::SysRead, 1);
        let hash = self.flows[f].skb_hash;
        let Some(sock) = self.sock.as_mut() else { return };
        let idx = sock.index(hash);
        let val = SockFlowTable::value(hash, cpu, self.cpu_mask);
        let old = sock.ents[idx];
        if old == val {
            return;
        }
        if self.cfg.record == RecordPolicy::Cpuset && (old ^ hash) & !self.cpu_mask == 0 && self.threads[reader].allowed.contains((old & self.cpu_mask) as u16) {
            self.counters.sock_flow_skipped += 1;
            return;
        }
        sock.ents[idx] = val;
        self.counters.sock_flow_updates += 1;
        self.charge(cpu, Stage::SockRecord, 1);
        self.digest.event(&[EV_SOCK, self.now.0, f as u64, u64::from(cpu)]);
    }

    /// Charges `units` of `stage`'s work (the unit its doc names) to `cpu`; the snapshot prices them.
    fn charge(&mut self, cpu: u16, stage: Stage, units: u64) {
        self.cpus[usize::from(cpu)].work.add(stage, units);
    }

    /// The NIC's choice (kernel-semantics §0 step 1) and the rule that made it: exact filters
    /// first (ntuple rules, then aRFS filters, then ixgbe ATR's), else `indir[hash & (size-1)]`.
    fn rx_queue(&self, f: usize) -> (u16, QueueRule) {
        let flow = &self.flows[f];
        match (flow.ntuple_queue, self.arfs.hw_queue(f), flow.atr_queue) {
            (Some(q), _, _) => (q, QueueRule::Ntuple),
            (None, Some(q), _) => (q, QueueRule::Arfs),
            (None, None, Some(q)) => (q, QueueRule::Atr),
            (None, None, None) => (self.reta.queue(flow.nic_hash), QueueRule::Rss),
        }
    }

    /// Up to `want` packets of flow `f` along one path; returns the step and how many packets
    /// took it. The path is decided before anything changes, and the run is cut where the
    /// next packet could take another: where the ring or the target backlog fills, and after
    /// one packet when the planned `set_rps_cpu` changes state other than counters and stamps
    /// (a call the driver skips repeats as it is). Packet mode asks for one packet at a time;
    /// both modes give the same counters and digest (tested).
    fn steer(&mut self, f: usize, want: u64, reader_cpu: Option<u16>) -> (Step, u64) {
        // The block's decision for this flow; filter hit counters are booked only for packets
        // that reach the point where each part runs (the NIC's filters now, software later).
        let tc = self.tc.as_ref().map(|b| b.classify(&self.info[f].key));
        if let Some(Classify { sw: SwResult::DroppedInHw, .. }) = tc {
            let m = want;
            // An offloaded filter (in_hw) dropped the packet in the NIC: no queue, no CPU.
            if let (Some(b), Some(c)) = (self.tc.as_mut(), &tc) {
                b.count(c, m);
            }
            self.counters.tc_drop += m;
            self.counters.tc_hw_drop += m;
            return (Step { fate: Fate::TcHwDrop, structural: false }, m);
        }
        let (q, rule) = self.rx_queue(f);
        let qi = usize::from(q);
        let ring = self.queues[qi].budget;
        if ring == 0 {
            // The ring is full: the NIC drops (rx_missed / rx_dropped), nothing else runs.
            let m = want;
            self.counters.ring_full += m;
            self.queues[qi].stats.drops += m;
            return (Step { fate: Fate::RingDrop, structural: false }, m);
        }
        // An XDP verdict other than XDP_PASS ends the path in the driver, before RPS.
        let rps = if self.xdp.as_ref().is_none_or(|(p, _)| p.action == XdpAction::Pass) { self.get_rps_cpu(q, f) } else { RpsChoice::INLINE };
        let plan = rps.switch.map(|(next_cpu, from)| self.plan_set_rps_cpu(from, next_cpu, f));
        let mut m = want.min(ring);
        if plan.is_some_and(|p| p.structural) {
            m = 1;
        }
        if let Some(c) = rps.cpu {
            let room = self.cpus[usize::from(c)].backlog.room();
            if room > 0 {
                m = m.min(room);
            }
        }
        let rxq = &mut self.queues[qi];
        rxq.budget -= m;
        rxq.stats.packets += m;
        let irq = rxq.irq_cpu;
        self.charge(irq, Stage::DriverRx, m);
        if self.xdp.is_some() {
            if let Some(fate) = self.run_xdp(irq, q, m) {
                return (Step { fate, structural: false }, m);
            }
        }
        let (target, stamp, structural) = self.apply_rps(m, rps, plan);
        // tc ingress runs in __netif_receive_skb_core on the processing CPU, after the packet
        // got into that CPU's backlog (a full backlog drops it first, below). Simplification:
        // the sandbox classifies when the packet is steered, so a packet tc drops never takes
        // a backlog slot.
        let backlog_full = target.is_some_and(|c| self.cpus[usize::from(c)].backlog.room() < m);
        if let (Some(c), false) = (tc, backlog_full) {
            let tc_cpu = target.unwrap_or(irq);
            if self.tc_ingress(c, tc_cpu, m) {
                return (Step { fate: Fate::TcDrop { queue: q, cpu: tc_cpu }, structural }, m);
            }
        }
        let (cpu, fate) = match target {
            None => (irq, Fate::Inline { queue: q }),
            Some(c) => {
                let ci = usize::from(c);
                // The same test as `backlog_full`, read again: reusing the flag measured 2-3 %
                // more instructions (cachegrind), the optimiser keeps fewer values live this way.
                if self.cpus[ci].backlog.room() < m {
                    // enqueue_to_backlog: qlen > netdev_max_backlog.
                    self.counters.backlog_full += m;
                    self.cpus[ci].stats.dropped += m;
                    return (Step { fate: Fate::BacklogDrop { queue: q, cpu: c }, structural }, m);
                }
                let (elapsed, each) = (self.elapsed, self.backlog_ns());
                let Enqueued { tail, woke } = self.cpus[ci].backlog.enqueue(elapsed, each, m);
                if let Some(at) = stamp {
                    self.entry_mut(at).last_qtail = tail;
                }
                if c != irq && woke {
                    // A remote backlog scheduled again: one IPI (rps_ipi_queued, sent by
                    // net_rps_send_ipi at the end of the poll). Later packets find it busy.
                    self.counters.ipis += 1;
                    self.cpus[ci].stats.received_rps += 1;
                    self.charge(irq, Stage::Ipi, 1);
                }
                self.charge(c, Stage::RpsEnqueue, m);
                (c, Fate::Backlog { queue: q, cpu: c })
            }
        };
        if matches!(fate, Fate::Inline { .. }) {
            self.counters.delivered += m;
        }
        let rc = reader_cpu.unwrap_or(irq);
        if irq != rc {
            // Seed 000's measure: the NIC put the packet on a queue whose CPU is not the reader's.
            self.counters.wrong_queue += m;
            if rule == QueueRule::Arfs && reader_cpu.is_some() && self.rmap[usize::from(rc)] != q {
                self.counters.arfs_missteered += m;
            }
        }
        let node = |c: u16| self.nodes[usize::from(c)];
        let crossings = u64::from(node(irq) != node(cpu)) + u64::from(node(cpu) != node(rc));
        let c = &mut self.cpus[usize::from(cpu)];
        c.stats.packets += m;
        let row = &mut c.work;
        row.add(Stage::StackRx, m);
        if cpu == rc {
            self.counters.local += m;
        } else {
            self.counters.remote += m;
            row.add(Stage::RemotePenalty, m);
        }
        if crossings > 0 {
            row.add(Stage::CrossNuma, crossings * m);
            self.counters.cross_numa_bytes += crossings * u64::from(self.flows[f].bytes) * m;
        }
        // `last_queue` and `last_cpu` are read only by the views, never by the path: setting
        // them is not structural.
        let flow = &mut self.flows[f];
        flow.last_queue = q;
        flow.last_cpu = cpu;
        (Step { fate, structural }, m)
    }

    /// Native XDP, in the driver's poll before the skb and before RPS, for `m` packets on
    /// queue `q`: kfunc calls and costs, and the fate of a verdict that ends the path there.
    /// Out of line: the steering path of a host without XDP stays small.
    #[inline(never)]
    fn run_xdp(&mut self, irq: u16, q: u16, m: u64) -> Option<Fate> {
        let (action, cost) = self.xdp.as_ref().map(|(p, c)| (p.action, *c))?;
        self.counters.xdp_kfunc_calls += u64::from(cost.calls) * m;
        self.counters.xdp_unsupported += u64::from(cost.unsupported) * m;
        self.charge(irq, Stage::XdpKfunc, cost.kfunc_ps * m);
        match action {
            XdpAction::Pass => None,
            XdpAction::Drop | XdpAction::Aborted => {
                self.counters.xdp_drop += m;
                Some(Fate::XdpDrop { queue: q })
            }
            XdpAction::Tx | XdpAction::Redirect => {
                if action == XdpAction::Tx { self.counters.xdp_tx += m } else { self.counters.xdp_redirect += m }
                self.counters.delivered += m;
                Some(Fate::XdpOut { queue: q })
            }
        }
    }

    /// tc ingress in software for `m` packets on `cpu`, with the block's decision `c`: hit
    /// counters, the bypass counters and the classification cost. Returns whether a tc action
    /// dropped them. Out of line, like [`Sim::run_xdp`].
    #[inline(never)]
    fn tc_ingress(&mut self, c: Classify, cpu: u16, m: u64) -> bool {
        if let Some(b) = self.tc.as_mut() {
            b.count(&c, m);
        }
        match c.sw {
            SwResult::Bypassed { missed } => {
                self.counters.tc_bypassed += m;
                if missed {
                    self.counters.tc_sw_missed += m;
                }
            }
            SwResult::Classified { action, lookups, .. } => {
                self.counters.tc_sw_classified += m;
                self.charge(cpu, Stage::TcClassify, u64::from(lookups) * m);
                if action == Some(crate::tc::Action::Drop) {
                    self.counters.tc_drop += m;
                    return true;
                }
            }
            SwResult::DroppedInHw => {}
        }
        false
    }

    /// The flow entry at (queue, slot).
    fn entry(&self, (q, slot): (u16, u32)) -> DevFlow {
        self.queues[usize::from(q)].table.as_ref().expect("entries live in a table").flows[slot as usize]
    }

    fn entry_mut(&mut self, (q, slot): (u16, u32)) -> &mut DevFlow {
        &mut self.queues[usize::from(q)].table.as_mut().expect("stamped entries live in a table").flows[slot as usize]
    }

    /// `get_rps_cpu` (net/core/dev.c, kernel-semantics §2.4), decided before anything changes:
    /// the CPU whose backlog gets the packet, the flow entry to stamp, and whether
    /// `set_rps_cpu` runs (planned by [`Sim::plan_set_rps_cpu`], applied by [`Sim::apply_rps`]). Only `head_now` moves, and it only
    /// dequeues what the time already processed.
    fn get_rps_cpu(&mut self, q: u16, f: usize) -> RpsChoice {
        let hash = self.flows[f].skb_hash;
        let ncpus = self.cfg.cpus;
        let rxq = &self.queues[usize::from(q)];
        if (rxq.table.is_none() && rxq.rps_map.is_empty()) || hash == 0 {
            return RpsChoice::INLINE;
        }
        // Plain RPS: the high bits of the hash pick a CPU of the map; no entry is stamped.
        let plain = |map: &[u16]| (!map.is_empty()).then(|| map[reciprocal_scale(hash, map.len() as u32) as usize]);
        let owner = match (&rxq.table, &self.sock) {
            (Some(ft), Some(sock)) => {
                let ident = sock.ents[sock.index(hash)];
                ((ident ^ hash) & !self.cpu_mask == 0).then(|| {
                    let slot = rfs_slot(self.cfg.kernel, hash, ft.log);
                    ((ident & self.cpu_mask) as u16, slot, ft.flows[slot as usize])
                })
            }
            _ => None,
        };
        let Some((next_cpu, slot, rflow)) = owner else {
            return RpsChoice { cpu: plain(&rxq.rps_map), ..RpsChoice::INLINE };
        };
        // The in-order rule: move only once the old CPU has dequeued every packet this flow
        // enqueued there (head has passed last_qtail), or the old CPU is unset.
        let tcpu = rflow.cpu;
        let switch = tcpu != next_cpu && (tcpu >= ncpus || self.head_now(tcpu).wrapping_sub(rflow.last_qtail) as i32 >= 0);
        let (tcpu, switch) = if switch { (next_cpu, Some((next_cpu, (q, slot)))) } else { (tcpu, None) };
        if tcpu < ncpus {
            return RpsChoice { cpu: Some(tcpu), stamp: Some((q, slot)), switch };
        }
        RpsChoice { cpu: plain(&self.queues[usize::from(q)].rps_map), stamp: None, switch }
    }

    /// Carries out `get_rps_cpu`'s choice for `m` packets: `set_rps_cpu` if it switches, whose
    /// entry is then the one stamped. Returns the target CPU, the entry to stamp, and whether
    /// state other than counters changed.
    fn apply_rps(&mut self, m: u64, choice: RpsChoice, plan: Option<Switch>) -> (Option<u16>, Option<(u16, u32)>, bool) {
        let Some(plan) = plan else { return (choice.cpu, choice.stamp, false) };
        let loc = self.set_rps_cpu(plan, m);
        (choice.cpu, choice.stamp.map(|_| loc), plan.structural)
    }

    /// `rps_flow_is_active` (6.18): the entry's CPU dequeued less than the window since its
    /// last enqueue.
    fn flow_is_active(&mut self, e: &DevFlow, log: u32) -> bool {
        usize::from(e.cpu) < self.cpus.len() && (self.head_now(e.cpu).wrapping_sub(e.last_qtail) as i32) < active_window(self.cfg.kernel, log)
    }

    /// The stack's per-packet time in a backlog (`process_backlog`), at least 1 ns.
    fn backlog_ns(&self) -> u64 {
        self.cfg.costs.stack_rx_ns.max(1)
    }

    /// `input_queue_head` of `cpu` at the current time within the tick: the runs whose
    /// processing has ended are dequeued (`process_backlog`) and delivered.
    fn head_now(&mut self, cpu: u16) -> u32 {
        let (now, each) = (self.elapsed, self.backlog_ns());
        let (head, dequeued) = self.cpus[usize::from(cpu)].backlog.head_at(now, each);
        self.counters.delivered += dequeued;
        head
    }

    /// `set_rps_cpu` (net/core/dev.c, kernel-semantics §2.5), planned before anything
    /// changes: with aRFS, the driver is asked to steer the flow to the queue nearest
    /// `next_cpu` (its answer decided, [`Arfs::decide`]), and the entry that will represent the flow is the
    /// target queue's after a successful steer. [`Sim::set_rps_cpu`] carries the plan out.
    // Out of line, like `set_rps_cpu`: inlined into `steer`, they cost the steady path more
    // instructions (measured with cachegrind) than the call costs a switch.
    #[inline(never)]
    fn plan_set_rps_cpu(&mut self, from: (u16, u32), next_cpu: u16, f: usize) -> Switch {
        let kernel = self.cfg.kernel;
        let hash = self.flows[f].skb_hash;
        let q = from.0;
        let mut plan = Switch { from, next_cpu, call: None, loc: from, structural: false };
        if usize::from(next_cpu) < self.cpus.len() {
            let rxq_index = self.rmap[usize::from(next_cpu)];
            let arfs_on = self.cfg.ntuple && self.arfs.supported();
            if let (true, true, Some(t)) = (arfs_on, rxq_index != q, self.queues[usize::from(rxq_index)].table.as_ref()) {
                let flow_id = rfs_slot(kernel, hash, t.log);
                let (tmp, log) = (t.flows[flow_id as usize], t.log);
                // 6.18: do not overwrite a slot another live flow owns, nor re-steer in place.
                let skip = kernel.active_flow_check()
                    && tmp.filter != NO_FILTER
                    && self.flow_is_active(&tmp, log)
                    && (hash != tmp.hash || next_cpu == tmp.cpu);
                if !skip {
                    let req = SteerRequest { flow: f as u32, hash, rxq: rxq_index, flow_id, udp: self.flows[f].udp, calls: 1 };
                    let decision = self.arfs.decide(&req);
                    plan.structural |= decision.changes_state();
                    if let Some(rc) = decision.answer.filter() {
                        // The old entry lets go of the filter; the target entry takes it.
                        plan.structural |= self.entry(from).filter == rc;
                        let new_hash = if kernel.active_flow_check() { hash } else { tmp.hash };
                        plan.structural |= tmp.filter != rc || tmp.hash != new_hash;
                        plan.loc = (rxq_index, flow_id);
                    }
                    plan.call = Some((req, decision));
                }
            }
            // 6.18: the target entry's stamp now feeds `rps_flow_is_active` in the next call,
            // so the next packet may take another path.
            plan.structural |= kernel.active_flow_check() && plan.loc != from;
        }
        plan.structural |= self.entry(plan.loc).cpu != next_cpu;
        plan
    }

    /// Carries out a [`Sim::plan_set_rps_cpu`] plan for `m` packets; returns the entry that now
    /// represents the flow.
    #[inline(never)]
    fn set_rps_cpu(&mut self, plan: Switch, m: u64) -> (u16, u32) {
        let (from, loc, next_cpu) = (plan.from, plan.loc, plan.next_cpu);
        self.counters.cpu_switches += m;
        if let Some((req, decision)) = plan.call {
            let irq = self.queues[usize::from(from.0)].irq_cpu;
            self.counters.arfs_calls += m;
            self.cpus[usize::from(irq)].arfs_calls += m;
            self.charge(irq, Stage::ArfsSteer, m);
            // Nothing the driver reads changed since the plan.
            let (result, changed) = self.arfs.carry_out(SteerRequest { calls: m, ..req }, decision);
            if changed {
                let delay = Nanos(self.cfg.costs.ice_service_delay_ns);
                self.arfs.ice_schedule(Nanos(self.now.0 + self.elapsed), delay);
            }
            if let Some(rc) = result.filter() {
                let old = self.entry_mut(from);
                if old.filter == rc {
                    old.filter = NO_FILTER;
                }
                let active_check = self.cfg.kernel.active_flow_check();
                let e = self.entry_mut(loc);
                e.filter = rc;
                if active_check {
                    e.hash = req.hash;
                }
            }
        }
        let head = (usize::from(next_cpu) < self.cpus.len()).then(|| self.head_now(next_cpu));
        let e = self.entry_mut(loc);
        if let Some(head) = head {
            e.last_qtail = head;
        }
        e.cpu = next_cpu;
        loc
    }

    /// Backlogs drained, mlx5's work runs.
    fn end_of_tick(&mut self) {
        // process_backlog: input_queue_head advances by what was processed.
        for c in &mut self.cpus {
            self.counters.delivered += c.backlog.drain();
        }
        if self.cfg.driver == Driver::Mlx5 {
            self.mlx5_lock();
            let writes = self.arfs.counters.hw_writes;
            let view = ExpiryView { kernel: self.cfg.kernel, queues: &self.queues, cpus: &self.cpus };
            self.arfs.mlx5_work(&view);
            self.charge_service(writes);
        }
    }

    /// mlx5's `arfs_lock`: every `mlx5e_rx_flow_steer` holds it for `mlx5_lock_hold_ns`. The
    /// calls of a tick queue behind each other; the mean wait per call is the M/D/1 queue's
    /// `W = ρ·S / (2(1-ρ))` with `ρ = calls·S / tick` (capped at ρ = 0.95), charged as
    /// softirq time spinning on the CPU that called.
    fn mlx5_lock(&mut self) {
        let hold = self.cfg.costs.mlx5_lock_hold_ns;
        let calls: u64 = self.cpus.iter().map(|c| c.arfs_calls).sum();
        if calls == 0 {
            return;
        }
        let tick = u128::from(self.cfg.tick_ns);
        let busy = (u128::from(calls) * u128::from(hold)).min(tick * 95 / 100);
        let wait = (u128::from(hold) * busy / (2 * (tick - busy))) as u64;
        for c in 0..self.cpus.len() {
            let n = core::mem::take(&mut self.cpus[c].arfs_calls);
            if n > 0 {
                self.counters.arfs_lock_wait_ns += n * wait;
                self.charge(c as u16, Stage::ArfsLock, n * (hold + wait));
            }
        }
    }

    // ---------------------------------------------------------------- views

    /// Totals and per-queue / per-CPU figures now.
    pub fn snapshot(&self) -> Snapshot {
        // Each CPU's work priced once: its accounts, and its share of the run's ledger.
        let mut ledger = Ledger::default();
        let cpus = self
            .cpus
            .iter()
            .map(|c| {
                let own = self.prices.ledger([&c.work]);
                own.iter().for_each(|(stage, ns)| ledger.book(stage, ns));
                CpuStats { user_ns: own.class_total(Class::User), sys_ns: own.class_total(Class::Sys), softirq_ns: own.class_total(Class::Softirq), ..c.stats }
            })
            .collect();
        let counters = Counters {
            user_ns: ledger.class_total(Class::User),
            sys_ns: ledger.class_total(Class::Sys),
            softirq_ns: ledger.class_total(Class::Softirq),
            ..self.counters
        };
        Snapshot {
            now: self.now,
            counters,
            in_flight: self.cpus.iter().map(|c| c.backlog.in_flight()).sum(),
            arfs: self.arfs.counters,
            arfs_active: self.arfs.active(),
            queues: self.queues.iter().map(|q| q.stats).collect(),
            cpus,
            txq: self.txq_packets.clone(),
            ledger,
            xdp_ps: self.xdp.as_ref().map(|(_, c)| self.cfg.costs.driver_rx_ps + c.kfunc_ps),
            flows: self.flows.len() as u32,
            digest: self.digest,
        }
    }

    /// Number of flows.
    pub fn flow_count(&self) -> u32 {
        self.flows.len() as u32
    }

    /// Number of threads.
    pub fn thread_count(&self) -> u32 {
        self.threads.len() as u32
    }

    /// A thread's CPU and cpuset.
    pub fn thread(&self, tid: u32) -> Option<(u16, CpuSet)> {
        self.threads.get(tid as usize).map(|t| (t.cpu, t.allowed))
    }

    /// A flow's tuple.
    pub fn flow_key(&self, f: u32) -> Option<FlowKey> {
        self.info.get(f as usize).map(|i| i.key)
    }

    /// Where flow `f` goes now.
    pub fn flow_view(&self, f: u32) -> Option<FlowView> {
        let fl = self.flows.get(f as usize)?;
        let reader_cpu = self.threads.get(fl.first_reader as usize).map_or(NO_CPU, |t| t.cpu);
        let (_, rule) = self.rx_queue(f as usize);
        let reader_queue = self.rmap.get(usize::from(reader_cpu)).copied().unwrap_or(u16::MAX);
        Some(FlowView { queue: fl.last_queue, cpu: fl.last_cpu, reader_cpu, reader_queue, hash: fl.nic_hash, rule, packets: fl.sent, dropped: fl.last_drop })
    }

    /// Packets each flow has offered so far, in flow order (cheaper than a view per flow:
    /// the page samples it to draw rates per queue and CPU).
    pub fn flows_sent(&self) -> impl Iterator<Item = u64> + '_ {
        self.flows.iter().map(|f| f.sent)
    }

    /// The queue the NIC would pick for flow `f` now.
    pub fn flow_queue_now(&self, f: u32) -> Option<u16> {
        (f < self.flow_count()).then(|| self.rx_queue(f as usize).0)
    }

    /// aRFS adds, re-points and expiries per RX queue since the start (index = queue; queues
    /// without any are absent at the end).
    pub fn arfs_per_queue(&self) -> &[crate::arfs::QueueTally] {
        &self.arfs.per_queue
    }

    /// The live aRFS filters, with the flows they match.
    pub fn arfs_filters(&self) -> Vec<FilterView> {
        self.arfs.filters()
    }

    /// IRQ CPU of an RX queue.
    pub fn irq_cpu(&self, q: u16) -> Option<u16> {
        self.queues.get(usize::from(q)).map(|r| r.irq_cpu)
    }

    /// NUMA node of a CPU.
    pub fn node_of(&self, cpu: u16) -> u16 {
        self.nodes.get(usize::from(cpu)).copied().unwrap_or(0)
    }

    /// Checks the conservation law: every offered packet is delivered, dropped or in flight.
    pub fn conserved(&self) -> bool {
        let s = self.snapshot();
        s.counters.offered == s.counters.delivered + s.in_flight + s.counters.dropped()
    }
}

fn tc_err(e: TcError) -> SimError {
    SimError::Invalid(alloc::format!("{e}"))
}

fn ip_words(ip: core::net::IpAddr) -> (u64, u64) {
    match ip {
        core::net::IpAddr::V4(a) => (0, u64::from(u32::from(a))),
        core::net::IpAddr::V6(a) => {
            let v = u128::from(a);
            ((v >> 64) as u64, v as u64)
        }
    }
}

fn fate_word(f: Fate) -> u64 {
    match f {
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

#[cfg(test)]
mod tests {
    /// The tick loop streams through every flow: its per-tick part stays within a cache line.
    #[test]
    fn a_flow_fits_a_cache_line() {
        assert!(core::mem::size_of::<super::Flow>() <= 64, "{}", core::mem::size_of::<super::Flow>());
    }
}
