//! The types of a scenario file (schema 1): every section optional, unknown fields refused.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use steerlab_engine::tc::Counting;
use steerlab_engine::xdp::{Strategy, XdpAction};
use steerlab_engine::{Driver, Idle, Kernel, Mode, NamedEnum, RecordPolicy, XpsMap};

/// A named engine choice in JSON: deserialised by name, with the accepted names in the error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Named<T>(pub T);

impl<'de, T: NamedEnum> Deserialize<'de> for Named<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        T::from_name(&text)
            .map(Named)
            .ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not one of {}", T::accepted_names())))
    }
}

impl<T: NamedEnum> Serialize for Named<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.as_name())
    }
}

/// A named choice in the JSON Schema: a string, one of the engine's names.
#[cfg(feature = "schema")]
impl<T: NamedEnum> schemars::JsonSchema for Named<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Owned(format!(
            "Named_{}",
            std::any::type_name::<T>().rsplit("::").next().unwrap_or("choice")
        ))
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<String> = T::accepted_names().split('|').map(|n| n.trim().to_string()).collect();
        schemars::json_schema!({ "type": "string", "enum": names })
    }
}

/// What the page shows of a lesson.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Lesson {
    /// Short title.
    pub title: String,
    /// What the learner should achieve.
    pub goal: String,
    /// Guided steps.
    pub steps: Vec<Step>,
    /// Kernel source files the lesson is about.
    pub kernel_files: Vec<String>,
    /// Where the effect comes from (a seed, a document).
    pub source: String,
    /// The goal: every check must hold (empty = no goal). One check or an array of them (one
    /// is made an array before typing: [`super::normalize`]).
    pub check: Vec<crate::Check>,
    /// Where each guided step points: a `data-testid` to highlight (same length as `steps`
    /// or empty).
    pub highlight: Vec<String>,
    /// The rows of the seed's own table, as `[label, metric path]`: what
    /// `steerlab run ID --vary ...` prints side by side (empty: every metric).
    pub table: Vec<(String, String)>,
    /// The figures that prove the goal, shown before → now on the lesson screen.
    pub evidence: Vec<Evidence>,
    /// The `data-testid` of the chart or panel the lesson screen shows beside the host (empty:
    /// the locality chart).
    pub chart: String,
    /// Questions asked before key commands, answered by what the engine then does.
    pub predict: Vec<crate::teach::Prediction>,
    /// The challenge form (`?mode=challenge`).
    pub challenge: Option<crate::teach::Challenge>,
    /// What the learner takes away, in two lines: the ending once the goal is met.
    pub learned: String,
    /// The lesson to go on to (an id; empty: none).
    pub next: String,
    /// Known wrong ways to the goal: each must leave it unmet (tested), and the page says
    /// why to a learner who takes one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_solutions: Vec<crate::teach::NotSolution>,
    /// The learner is to find where packets drop: the page keeps each drop place's count
    /// (its panel, the evidence strip, the queues' and the wire's drops) to itself until the
    /// learner has run a command that prints it (`ethtool -S`, `/proc/net/softnet_stat`,
    /// `nstat`: [`crate::reading`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub find_by_reading: bool,
    /// Hosts the lesson can be, one per seed (`sim.seed % variants.len()`, so a learner's own
    /// seed, `?student=NAME`, may be another): where the lesson's answer depends on the
    /// host, its challenge cannot be learned by heart. The first is the file as written
    /// (empty `set` and `lesson`); the lesson's own seed picks it ([`super::apply_variant`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
}

/// One of a lesson's hosts ([`Lesson::variants`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Variant {
    /// What differs, for the lesson's author and `steerlab lesson check` (the page does not
    /// show it: it would tell the answer).
    pub name: String,
    /// Overrides of the host, as `steerlab run --set` takes them (`threads.0.cpus=3`).
    #[serde(default)]
    pub set: Vec<String>,
    /// The lesson's fields that differ, merged into it: an object's keys replace or merge
    /// into the lesson's, and an object given for an array names its elements by index
    /// (`{"steps": {"3": {...}}}`).
    #[serde(default)]
    pub lesson: serde_json::Map<String, serde_json::Value>,
}

/// A guided step: what to read or look at, the exact commands that do it (what a newcomer
/// types; tests type them too), and in words which kernel functions decided what happened.
/// In a file a step is either its text alone or `{"text", "commands", "kernel", "cell",
/// "outcome"}` (the text alone is made the object before typing: [`super::normalize`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// What the learner reads.
    pub text: String,
    /// Console lines that carry the step out, in order (empty: a step to look, not to type).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    /// What happened in the kernel, in words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kernel: String,
    /// A cell of the host matrix the step points at: `[RX queue, CPU]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<[u16; 2]>,
    /// What the step's commands do, to read once they have run: a step's text must not
    /// answer the question asked before its commands (teaching.md: "a question is only a
    /// question if the screen does not answer it").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub outcome: String,
}

/// Which way a lesson's figure moves when the learner succeeds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// Lower is better (an update storm calming).
    Down,
    /// Higher is better (a message rate rising).
    Up,
    /// Neither: a figure to watch (the price of a trade-off, a count of avoided mistakes).
    #[default]
    Watch,
}

/// One figure of the `lesson-evidence` strip.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// What the page calls it (the name the steps use).
    pub label: String,
    /// A report path (`arfs.update`).
    pub metric: String,
    /// `true` (default): a counter shown as its rate per simulated second; `false`: the value.
    #[serde(default = "super::defaults::yes")]
    pub rate: bool,
    /// The unit printed after the value (`/s` for rates when empty).
    #[serde(default)]
    pub unit: String,
    /// The direction that means success.
    #[serde(default)]
    pub better: Better,
}

/// `host.*`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct HostSection {
    /// CPUs.
    pub cpus: u16,
    /// NUMA nodes.
    pub numa_nodes: u16,
    /// How idle CPUs wait: `poll` (MWAIT or the poll state: waking one needs no IPI) or
    /// `halt`.
    pub idle: Named<Idle>,
}

/// `nic.*`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct NicSection {
    /// Driver model.
    pub driver: Named<Driver>,
    /// RX queues.
    pub rx_queues: u16,
    /// TX queues.
    pub tx_queues: u16,
    /// Descriptors per RX ring, `ethtool -G DEV rx N` (absent: the driver's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ring_size: Option<u32>,
    /// Indirection table size.
    pub reta_size: u32,
    /// `ethtool -K ntuple`.
    pub ntuple: bool,
    /// Hardware filter capacity.
    pub max_hw_filters: u32,
    /// Interrupt moderation, `ethtool -C DEV rx-usecs` (absent: the driver's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx_usecs: Option<u32>,
    /// `ethtool -C DEV rx-frames` on the drivers that count frames (mlx5, generic; absent: the
    /// driver's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx_frames: Option<u32>,
    /// The RSS key as `ethtool -x` prints it (`6d:5a:…`, 40 bytes); `""`: the driver's default.
    pub rss_key: String,
    /// The indirection table, one queue per entry (`reta_size` of them); empty: the default
    /// fill `i % rx_queues`. What a real host's `ethtool -x` shows, which `ethtool -X` can set
    /// only when it is an `equal` or `weight` fill.
    pub indir: Vec<u16>,
}

/// `rps.*`
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct RpsSection {
    /// `rps_cpus` of every queue as a CPU list.
    pub cpus: String,
}

/// `rfs.*`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct RfsSection {
    /// `rps_flow_cnt` of every queue.
    pub flow_cnt: u32,
    /// `net.core.rps_sock_flow_entries`.
    pub sock_flow_entries: u32,
    /// Record policy.
    pub record: Named<RecordPolicy>,
}

/// `net.*`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct NetSection {
    /// `net.core.netdev_max_backlog`.
    pub netdev_max_backlog: u32,
    /// `net.core.flow_limit_cpu_bitmap`, as a CPU list (`""`: the flow limit is off).
    pub flow_limit_cpus: String,
    /// `net.core.flow_limit_table_len`.
    pub flow_limit_table_len: u32,
    /// `net.core.netdev_budget`: packets one `net_rx_action` run may take (300).
    pub netdev_budget: u32,
    /// `net.core.netdev_budget_usecs`: the time one run may take (8000 at HZ = 250).
    pub netdev_budget_usecs: u32,
    /// `net.core.dev_weight`: packets one NAPI poll may take (64).
    pub dev_weight: u32,
    /// `net.core.rmem_default`: a new socket's receive buffer, bytes (212992).
    pub rmem_default: u32,
    /// `net.core.rmem_max`: the most `SO_RCVBUF` may ask, bytes (212992).
    pub rmem_max: u32,
}

/// `xps.*`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct XpsSection {
    /// Initial maps: `none | irq | all`.
    pub map: Named<XpsMap>,
    /// ixgbe ATR sample rate (one TX packet in N).
    pub atr_sample_rate: u32,
}

/// `xdp.*`: a native XDP program loaded from the start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct XdpSection {
    /// A named sandbox program (`xdp_drop`, `xdp_meta_drop`, …); `""` = none unless `kfuncs`
    /// is set.
    pub program: String,
    /// Kfunc calls per packet in seed 004's order (overrides the named program's count).
    pub kfuncs: Option<u32>,
    /// `call | query | inline`.
    pub strategy: Named<Strategy>,
    /// Verdict (overrides the named program's).
    pub action: Option<Named<XdpAction>>,
}

/// `tc.*`: the block counters' kernel and the parallel-insertion model's workload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct TcSection {
    /// `legacy` (v6.10-6.13 filtercnt/skipswcnt) or `usesw` (v6.14+).
    pub counting: Named<Counting>,
    /// Parallel inserters in the insertion model.
    pub insert_threads: u32,
    /// Rules each inserter adds.
    pub insert_rules: u32,
}

/// `sim.*`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct SimSection {
    /// Engine tick, ns.
    pub tick_ns: u64,
    /// `packet` or `aggregate`.
    pub mode: Named<Mode>,
    /// Seed.
    pub seed: u64,
    /// Length of the run, ms.
    pub duration_ms: u64,
}

/// A group of threads: thread `i` starts on the `i`-th CPU of `cpus` (cycling).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct ThreadGroup {
    /// Threads in the group.
    pub count: u32,
    /// CPUs the threads start on, as a list (`0-71`).
    pub cpus: String,
    /// Each thread pinned to its start CPU.
    pub pin: bool,
    /// Otherwise the CPUs they may run on (`""` = every CPU).
    pub cpuset: String,
    /// Migrate to a random CPU of the cpuset this often (0 = never).
    pub migrate_every_ms: u64,
}

/// A group of flows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct FlowGroup {
    /// Flows in the group.
    pub count: u32,
    /// `tcp` or `udp`.
    pub proto: String,
    /// First source address (incremented per flow unless `random`).
    pub src: String,
    /// Destination address (this host).
    pub dst: String,
    /// First source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
    /// Source addresses and ports drawn from the scenario's seed (realistic hash spread).
    pub random: bool,
    /// Packets per second per flow.
    pub rate_pps: u64,
    /// Bytes per packet.
    pub bytes: u32,
    /// Reader threads per flow (0 = none); flow `i` is read by threads `i*k .. i*k+k` (cycling).
    pub readers_per_flow: u32,
    /// The socket also sends, from its first reader's CPU.
    pub tx: Option<TxGroup>,
    /// The reader's own work per datagram, ns (UDP flows with readers): its socket's receive
    /// buffer is then modelled, and a reader slower than its flow drops there
    /// (`RcvbufErrors`). Unset: the reader keeps up.
    pub app_ns: Option<u32>,
    /// `setsockopt(SO_RCVBUF)` of each socket, bytes (doubled, bounded by `rmem_max`); unset:
    /// `rmem_default`. Models the buffer as `app_ns` does.
    pub rcvbuf: Option<u32>,
    /// Readers are threads `reader_base..` only (flow `i` of the group is read by
    /// `base + (i*k + j) % (threads - base)`); unset = continue from the flows before, cycling
    /// over all threads.
    pub reader_base: Option<u32>,
}

/// `flows[i].tx`: what each socket of the group sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct TxGroup {
    /// Messages per second; 0 = as fast as the CPU allows (netperf UDP_STREAM).
    pub rate_pps: u64,
    /// Bytes per message.
    pub bytes: u32,
    /// Connected socket: its TX queue is cached.
    pub connected: bool,
}

/// A console command run at a simulated time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TimedCommand {
    /// When, ms from the start.
    pub at_ms: u64,
    /// The command line (see `help`).
    pub command: String,
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Schema version (1).
    pub schema: u32,
    /// Identifier (a lesson id for built-ins).
    pub id: String,
    /// Lesson text for the page.
    #[serde(default)]
    pub lesson: Lesson,
    /// Kernel generation.
    #[serde(default = "super::defaults::kernel")]
    pub kernel: Named<Kernel>,
    /// Host.
    #[serde(default)]
    pub host: HostSection,
    /// NIC.
    #[serde(default)]
    pub nic: NicSection,
    /// RPS.
    #[serde(default)]
    pub rps: RpsSection,
    /// RFS.
    #[serde(default)]
    pub rfs: RfsSection,
    /// Core networking sysctls.
    #[serde(default)]
    pub net: NetSection,
    /// Engine settings.
    #[serde(default)]
    pub sim: SimSection,
    /// Transmit queue selection.
    #[serde(default)]
    pub xps: XpsSection,
    /// XDP.
    #[serde(default)]
    pub xdp: XdpSection,
    /// tc.
    #[serde(default)]
    pub tc: TcSection,
    /// Cost table overrides (`cost.NAME`).
    #[serde(default)]
    pub cost: BTreeMap<String, u64>,
    /// Threads.
    #[serde(default)]
    pub threads: Vec<ThreadGroup>,
    /// Flows.
    #[serde(default)]
    pub flows: Vec<FlowGroup>,
    /// Commands at given times.
    #[serde(default)]
    pub timeline: Vec<TimedCommand>,
}
