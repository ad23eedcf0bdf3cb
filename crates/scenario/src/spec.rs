//! The scenario's sections, their defaults, how `--set` edits them, and how a scenario becomes
//! a running [`Sim`].

use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use steerlab_engine::config::{MAX_FLOWS, MAX_THREADS};
use steerlab_engine::rng::Rng;
use steerlab_engine::tc::Counting;
use steerlab_engine::xdp::{Strategy, XdpAction, XdpProgram};
use steerlab_engine::{
    CpuSet, Driver, FlowKey, FlowSpec, HostConfig, Idle, Kernel, Mode, NamedEnum, Nanos, Proto, RecordPolicy, Sim,
    ThreadSpec, TxSpec, XpsMap,
};

use crate::{ScenarioError, SCHEMA};

/// Most readers of one socket (the epoll pattern of seed 002 uses a handful).
pub(crate) const MAX_READERS_PER_FLOW: u32 = 64;

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

/// What the page shows of a lesson.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// The goal: every check must hold (empty = no goal). One check or an array of them.
    #[serde(deserialize_with = "one_or_many")]
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
}

/// A guided step: what to read or look at, the exact commands that do it (what a newcomer
/// types; tests type them too), and in words which kernel functions decided what happened.
/// In a file a step is either its text alone or `{"text", "commands", "kernel", "cell"}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Step {
    /// What the learner reads.
    pub text: String,
    /// Console lines that carry the step out, in order (empty: a step to look, not to type).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    /// What happened in the kernel, in words.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kernel: String,
    /// A cell of the host matrix the step points at: `[RX queue, CPU]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<[u16; 2]>,
}

/// The object spelling of a [`Step`] in a scenario file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepFields {
    text: String,
    #[serde(default)]
    commands: Vec<String>,
    #[serde(default)]
    kernel: String,
    #[serde(default)]
    cell: Option<[u16; 2]>,
}

/// Reads a step from its text or its object. A visitor rather than `#[serde(untagged)]`:
/// untagged enums buffer the input in serde's `Content` type, which cost the page's bundle
/// kilobytes, and their error names no field.
impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Step;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a step: its text, or {\"text\", \"commands\": [...], \"kernel\", \"cell\": [queue, cpu]}")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Step, E> {
                Ok(Step {
                    text: text.to_string(),
                    ..Step::default()
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, m: A) -> Result<Step, A::Error> {
                let f = StepFields::deserialize(serde::de::value::MapAccessDeserializer::new(m))?;
                Ok(Step {
                    text: f.text,
                    commands: f.commands,
                    kernel: f.kernel,
                    cell: f.cell,
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// Which way a lesson's figure moves when the learner succeeds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// What the page calls it (the name the steps use).
    pub label: String,
    /// A report path (`arfs.update`).
    pub metric: String,
    /// `true` (default): a counter shown as its rate per simulated second; `false`: the value.
    #[serde(default = "yes")]
    pub rate: bool,
    /// The unit printed after the value (`/s` for rates when empty).
    #[serde(default)]
    pub unit: String,
    /// The direction that means success.
    #[serde(default)]
    pub better: Better,
}

fn yes() -> bool {
    true
}

/// One check, or an array of them (a visitor, as for [`Step`]).
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<crate::Check>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Vec<crate::Check>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a check {\"metric\", \"over_ms\", \"op\", \"value\"} or an array of them")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, m: A) -> Result<Self::Value, A::Error> {
            Ok(vec![crate::Check::deserialize(
                serde::de::value::MapAccessDeserializer::new(m),
            )?])
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, s: A) -> Result<Self::Value, A::Error> {
            Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(s))
        }
    }
    d.deserialize_any(V)
}

/// `host.*`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[serde(deny_unknown_fields, default)]
pub struct NicSection {
    /// Driver model.
    pub driver: Named<Driver>,
    /// RX queues.
    pub rx_queues: u16,
    /// TX queues.
    pub tx_queues: u16,
    /// Descriptors per RX ring.
    pub ring_size: u32,
    /// Indirection table size.
    pub reta_size: u32,
    /// `ethtool -K ntuple`.
    pub ntuple: bool,
    /// Hardware filter capacity.
    pub max_hw_filters: u32,
    /// Interrupt moderation, `ethtool -C DEV rx-usecs` (absent: the driver's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx_usecs: Option<u32>,
    /// The RSS key as `ethtool -x` prints it (`6d:5a:…`, 40 bytes); `""`: the driver's default.
    pub rss_key: String,
    /// The indirection table, one queue per entry (`reta_size` of them); empty: the default
    /// fill `i % rx_queues`. What a real host's `ethtool -x` shows, which `ethtool -X` can set
    /// only when it is an `equal` or `weight` fill.
    pub indir: Vec<u16>,
}

/// `rps.*`
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RpsSection {
    /// `rps_cpus` of every queue as a CPU list.
    pub cpus: String,
}

/// `rfs.*`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[serde(deny_unknown_fields, default)]
pub struct NetSection {
    /// `net.core.netdev_max_backlog`.
    pub netdev_max_backlog: u32,
    /// `net.core.flow_limit_cpu_bitmap`, as a CPU list (`""`: the flow limit is off).
    pub flow_limit_cpus: String,
    /// `net.core.flow_limit_table_len`.
    pub flow_limit_table_len: u32,
}

/// `xps.*`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct XpsSection {
    /// Initial maps: `none | irq | all`.
    pub map: Named<XpsMap>,
    /// ixgbe ATR sample rate (one TX packet in N).
    pub atr_sample_rate: u32,
}

/// `xdp.*`: a native XDP program loaded from the start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[serde(deny_unknown_fields, default)]
pub struct TcSection {
    /// `legacy` (v6.10-6.13 filtercnt/skipswcnt) or `usesw` (v6.14+).
    pub counting: Named<Counting>,
    /// Parallel inserters in the insertion model.
    pub insert_threads: u32,
    /// Rules each inserter adds.
    pub insert_rules: u32,
}

impl Default for TcSection {
    fn default() -> Self {
        TcSection {
            counting: Named(d().tc_counting),
            insert_threads: 16,
            insert_rules: 100_000,
        }
    }
}

/// `sim.*`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Readers are threads `reader_base..` only (flow `i` of the group is read by
    /// `base + (i*k + j) % (threads - base)`); unset = continue from the flows before, cycling
    /// over all threads.
    pub reader_base: Option<u32>,
}

/// `flows[i].tx`: what each socket of the group sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TxGroup {
    /// Messages per second; 0 = as fast as the CPU allows (netperf UDP_STREAM).
    pub rate_pps: u64,
    /// Bytes per message.
    pub bytes: u32,
    /// Connected socket: its TX queue is cached.
    pub connected: bool,
}

impl Default for TxGroup {
    fn default() -> Self {
        TxGroup {
            rate_pps: 0,
            bytes: 1,
            connected: false,
        }
    }
}

/// A console command run at a simulated time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimedCommand {
    /// When, ms from the start.
    pub at_ms: u64,
    /// The command line (see `help`).
    pub command: String,
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    #[serde(default = "default_kernel")]
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

fn d() -> HostConfig {
    HostConfig::default()
}
fn default_kernel() -> Named<Kernel> {
    Named(d().kernel)
}
impl Default for HostSection {
    fn default() -> Self {
        HostSection {
            cpus: d().cpus,
            numa_nodes: d().numa_nodes,
            idle: Named(d().idle),
        }
    }
}
impl Default for NicSection {
    fn default() -> Self {
        let c = d();
        NicSection {
            driver: Named(c.driver),
            rx_queues: c.rx_queues,
            tx_queues: c.tx_queues,
            ring_size: c.ring_size,
            reta_size: c.reta_size,
            ntuple: c.ntuple,
            max_hw_filters: c.max_hw_filters,
            rx_usecs: c.rx_usecs,
            rss_key: String::new(),
            indir: Vec::new(),
        }
    }
}
impl Default for RfsSection {
    fn default() -> Self {
        RfsSection {
            flow_cnt: d().flow_cnt,
            sock_flow_entries: d().sock_flow_entries,
            record: Named(d().record),
        }
    }
}
impl Default for NetSection {
    fn default() -> Self {
        NetSection {
            netdev_max_backlog: d().netdev_max_backlog,
            flow_limit_cpus: d().flow_limit_cpus,
            flow_limit_table_len: d().flow_limit_table_len,
        }
    }
}
impl Default for XpsSection {
    fn default() -> Self {
        XpsSection {
            map: Named(d().xps_map),
            atr_sample_rate: d().atr_sample_rate,
        }
    }
}
impl Default for XdpSection {
    fn default() -> Self {
        XdpSection {
            program: String::new(),
            kfuncs: None,
            strategy: Named(Strategy::Call),
            action: None,
        }
    }
}
impl Default for SimSection {
    fn default() -> Self {
        SimSection {
            tick_ns: d().tick_ns,
            mode: Named(d().mode),
            seed: d().seed,
            duration_ms: 1000,
        }
    }
}
impl Default for ThreadGroup {
    fn default() -> Self {
        ThreadGroup {
            count: 1,
            cpus: "0".into(),
            pin: false,
            cpuset: String::new(),
            migrate_every_ms: 0,
        }
    }
}
impl Default for FlowGroup {
    fn default() -> Self {
        FlowGroup {
            count: 1,
            proto: "tcp".into(),
            src: "10.0.0.1".into(),
            dst: "192.168.0.1".into(),
            sport: 40000,
            dport: 80,
            random: false,
            rate_pps: 1000,
            bytes: 1500,
            readers_per_flow: 0,
            tx: None,
            reader_base: None,
        }
    }
}

fn err(path: &str, msg: impl fmt::Display) -> ScenarioError {
    ScenarioError(format!("{path}: {msg}"))
}
/// `--set a.b=value`: sets a field of the JSON tree before it is typed. The value keeps the
/// type of the field it replaces (so `kernel=6.14` stays a string); new fields take JSON
/// (number, bool) or else a string. Typing then rejects unknown fields by path.
pub(crate) fn apply_override(root: &mut serde_json::Value, spec: &str) -> Result<(), ScenarioError> {
    let (path, text) = spec
        .split_once('=')
        .ok_or_else(|| ScenarioError(format!("--set {spec:?}: expected KEY=VALUE")))?;
    let keys: Vec<&str> = path.split('.').collect();
    if keys.iter().any(|k| k.is_empty()) {
        return Err(ScenarioError(format!("--set {spec:?}: empty key in {path:?}")));
    }
    let mut node = root;
    for k in &keys[..keys.len() - 1] {
        let obj = node.as_object_mut().ok_or_else(|| err(path, "is not an object"))?;
        node = obj
            .entry((*k).to_string())
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
    }
    let obj = node.as_object_mut().ok_or_else(|| err(path, "is not an object"))?;
    let last = keys[keys.len() - 1];
    let value = match obj.get(last) {
        Some(serde_json::Value::String(_)) => serde_json::Value::String(text.into()),
        Some(serde_json::Value::Number(_)) => serde_json::from_str::<serde_json::Number>(text)
            .map(serde_json::Value::Number)
            .map_err(|_| err(path, format!("{text:?} is not a number")))?,
        Some(serde_json::Value::Bool(_)) => serde_json::Value::Bool(
            text.parse()
                .map_err(|_| err(path, format!("{text:?} is not true or false")))?,
        ),
        _ => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_))) => {
                // Fields that hold names take strings even when the name looks like a number.
                // (`host.cpus` is a count; `rps.cpus` and a thread group's `cpus` are lists.)
                let list = last == "cpus" && keys[0] != "host";
                if list
                    || matches!(
                        last,
                        "kernel"
                            | "driver"
                            | "record"
                            | "mode"
                            | "cpuset"
                            | "proto"
                            | "src"
                            | "dst"
                            | "map"
                            | "program"
                            | "strategy"
                            | "action"
                            | "counting"
                            | "flow_limit_cpus"
                            | "idle"
                    )
                {
                    serde_json::Value::String(text.into())
                } else {
                    v
                }
            }
            _ => serde_json::Value::String(text.into()),
        },
    };
    obj.insert(last.to_string(), value);
    Ok(())
}

/// Whether `name` has the shape of the page's `data-testid` names (1 to 64 of `a-z`, `0-9`,
/// `-`): what a guided step may point at, and what the page may put in a style rule.
pub fn is_testid(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl Scenario {
    /// The engine configuration this scenario describes.
    pub fn host_config(&self) -> Result<HostConfig, ScenarioError> {
        let mut costs = steerlab_engine::costs::Costs::default();
        for (name, &v) in &self.cost {
            costs.set(name, v).map_err(|e| ScenarioError(e.to_string()))?;
        }
        Ok(HostConfig {
            kernel: self.kernel.0,
            cpus: self.host.cpus,
            numa_nodes: self.host.numa_nodes,
            rx_queues: self.nic.rx_queues,
            tx_queues: self.nic.tx_queues,
            ring_size: self.nic.ring_size,
            reta_size: self.nic.reta_size,
            driver: self.nic.driver.0,
            ntuple: self.nic.ntuple,
            rps_cpus: self.rps.cpus.clone(),
            flow_cnt: self.rfs.flow_cnt,
            sock_flow_entries: self.rfs.sock_flow_entries,
            record: self.rfs.record.0,
            netdev_max_backlog: self.net.netdev_max_backlog,
            flow_limit_cpus: self.net.flow_limit_cpus.clone(),
            flow_limit_table_len: self.net.flow_limit_table_len,
            max_hw_filters: self.nic.max_hw_filters,
            rx_usecs: self.nic.rx_usecs,
            idle: self.host.idle.0,
            tick_ns: self.sim.tick_ns,
            xps_map: self.xps.map.0,
            atr_sample_rate: self.xps.atr_sample_rate,
            tc_counting: self.tc.counting.0,
            mode: self.sim.mode.0,
            seed: self.sim.seed,
            costs,
        })
    }

    /// Checks everything that typing cannot: schema, ranges, group sizes, addresses.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.schema == 0 || self.schema > SCHEMA {
            return Err(err(
                "schema",
                format!("{} is not a known version (accepted: 1..={SCHEMA})", self.schema),
            ));
        }
        if self.id.is_empty() || self.id.len() > 64 {
            return Err(err("id", "1 to 64 characters"));
        }
        let cfg = self.host_config()?;
        cfg.validate().map_err(|e| ScenarioError(e.to_string()))?;
        if !(1..=86_400_000).contains(&self.sim.duration_ms) {
            return Err(err("sim.duration_ms", "out of range (accepted: 1..=86400000)"));
        }
        self.xdp_program()?;
        self.rss_key()?;
        self.indir()?;
        if self.tc.insert_threads > 4096 || self.tc.insert_rules > 10_000_000 {
            return Err(err("tc", "insert_threads 0..=4096, insert_rules 0..=10000000"));
        }
        let threads: u64 = self.threads.iter().map(|t| u64::from(t.count)).sum();
        if threads > u64::from(MAX_THREADS) {
            return Err(err("threads", format!("{threads} threads; at most {MAX_THREADS}")));
        }
        const DAY_MS: u64 = 86_400_000;
        for (i, c) in self.timeline.iter().enumerate() {
            if c.at_ms > DAY_MS {
                return Err(err(
                    &format!("timeline[{i}].at_ms"),
                    format!("{} is out of range (accepted: 0..={DAY_MS})", c.at_ms),
                ));
            }
        }
        for (i, h) in self.lesson.highlight.iter().enumerate() {
            // A step may point at nothing (""); a name is a page's data-testid.
            if !h.is_empty() && !is_testid(h) {
                return Err(err(
                    &format!("lesson.highlight[{i}]"),
                    format!("{h:?} is not a data-testid name (accepted: up to 64 of a-z, 0-9, -)"),
                ));
            }
        }
        for (i, step) in self.lesson.steps.iter().enumerate() {
            if let Some([q, c]) = step.cell {
                if q >= cfg.rx_queues || c >= cfg.cpus {
                    return Err(err(
                        &format!("lesson.steps[{i}].cell"),
                        format!(
                            "[{q}, {c}] is not a cell of this host (RX queues 0..{}, CPUs 0..{})",
                            cfg.rx_queues, cfg.cpus
                        ),
                    ));
                }
            }
        }
        if !self.lesson.chart.is_empty() && !is_testid(&self.lesson.chart) {
            return Err(err(
                "lesson.chart",
                format!(
                    "{:?} is not a data-testid name (accepted: up to 64 of a-z, 0-9, -)",
                    self.lesson.chart
                ),
            ));
        }
        crate::teach::validate(&self.lesson)?;
        for (i, c) in self.lesson.check.iter().enumerate() {
            if c.over_ms > DAY_MS {
                return Err(err(
                    &format!("lesson.check[{i}].over_ms"),
                    format!("out of range (accepted: 0..={DAY_MS})"),
                ));
            }
        }
        for (i, t) in self.threads.iter().enumerate() {
            if t.migrate_every_ms > DAY_MS {
                return Err(err(
                    &format!("threads[{i}].migrate_every_ms"),
                    format!("out of range (accepted: 0..={DAY_MS})"),
                ));
            }
            let p = format!("threads[{i}]");
            let cpus = CpuSet::parse_list(&t.cpus).map_err(|e| err(&format!("{p}.cpus"), e))?;
            if cpus.end() > cfg.cpus {
                return Err(err(&format!("{p}.cpus"), "names CPUs this host does not have"));
            }
            if !t.cpuset.is_empty() {
                let set = CpuSet::parse_list(&t.cpuset).map_err(|e| err(&format!("{p}.cpuset"), e))?;
                if set.end() > cfg.cpus || cpus.iter().any(|c| !set.contains(c)) {
                    return Err(err(
                        &format!("{p}.cpuset"),
                        "must hold the group's start CPUs and only this host's CPUs",
                    ));
                }
            }
        }
        let flows: u64 = self.flows.iter().map(|f| u64::from(f.count)).sum();
        if flows > u64::from(MAX_FLOWS) {
            return Err(err("flows", format!("{flows} flows; at most {MAX_FLOWS}")));
        }
        for (i, f) in self.flows.iter().enumerate() {
            let p = format!("flows[{i}]");
            if f.proto != "tcp" && f.proto != "udp" {
                return Err(err(
                    &format!("{p}.proto"),
                    format!("{:?} is not one of tcp | udp", f.proto),
                ));
            }
            let src: IpAddr = f
                .src
                .parse()
                .map_err(|_| err(&format!("{p}.src"), "not an IPv4 or IPv6 address"))?;
            let dst: IpAddr = f
                .dst
                .parse()
                .map_err(|_| err(&format!("{p}.dst"), "not an IPv4 or IPv6 address"))?;
            if src.is_ipv4() != dst.is_ipv4() {
                return Err(err(&format!("{p}.dst"), "must be of the same family as src"));
            }
            if f.readers_per_flow > 0 && threads == 0 {
                return Err(err(&format!("{p}.readers_per_flow"), "needs threads"));
            }
            if f.tx.is_some() && f.readers_per_flow == 0 {
                return Err(err(
                    &format!("{p}.tx"),
                    "a sending socket needs readers_per_flow >= 1 (its first reader sends)",
                ));
            }
            if f.readers_per_flow > MAX_READERS_PER_FLOW {
                return Err(err(
                    &format!("{p}.readers_per_flow"),
                    format!(
                        "{} is out of range (accepted: 0..={MAX_READERS_PER_FLOW})",
                        f.readers_per_flow
                    ),
                ));
            }
            if f.reader_base.is_some_and(|b| u64::from(b) >= threads) {
                return Err(err(
                    &format!("{p}.reader_base"),
                    format!("must name a thread (0..{threads})"),
                ));
            }
            if u64::from(f.readers_per_flow) > threads.max(1) {
                return Err(err(
                    &format!("{p}.readers_per_flow"),
                    format!("at most the number of threads ({threads})"),
                ));
            }
        }
        Ok(())
    }

    /// A host with the scenario's threads and flows, at time 0.
    pub fn build(&self) -> Result<Sim, ScenarioError> {
        let cfg = self.host_config()?;
        let ncpus = cfg.cpus;
        let mut rng = Rng::new(cfg.seed).fork("workload");
        let mut sim = Sim::new(cfg).map_err(|e| ScenarioError(e.to_string()))?;
        if let Some(key) = self.rss_key()? {
            sim.set_rss_key(&key).map_err(|e| err("nic.rss_key", e))?;
        }
        if let Some(reta) = self.indir()? {
            sim.set_reta(reta).map_err(|e| err("nic.indir", e))?;
        }
        for (i, g) in self.threads.iter().enumerate() {
            let cpus: Vec<u16> = CpuSet::parse_list(&g.cpus)
                .map_err(|e| err(&format!("threads[{i}].cpus"), e))?
                .iter()
                .collect();
            for n in 0..g.count {
                let cpu = cpus[n as usize % cpus.len()];
                let allowed = if g.pin {
                    let mut s = CpuSet::EMPTY;
                    s.insert(cpu);
                    s
                } else if g.cpuset.is_empty() {
                    CpuSet::range(0, ncpus)
                } else {
                    CpuSet::parse_list(&g.cpuset).map_err(|e| err(&format!("threads[{i}].cpuset"), e))?
                };
                let spec = ThreadSpec {
                    cpu,
                    allowed,
                    migrate_every: Nanos::from_ms(g.migrate_every_ms),
                };
                sim.add_thread(spec).map_err(|e| err(&format!("threads[{i}]"), e))?;
            }
        }
        sim.set_xdp(self.xdp_program()?);
        let nthreads = sim.thread_count();
        let mut flow_index = 0u32;
        for (i, g) in self.flows.iter().enumerate() {
            let p = format!("flows[{i}]");
            let proto = if g.proto == "udp" { Proto::Udp } else { Proto::Tcp };
            let base: IpAddr = g.src.parse().map_err(|_| err(&format!("{p}.src"), "not an address"))?;
            let dst: IpAddr = g.dst.parse().map_err(|_| err(&format!("{p}.dst"), "not an address"))?;
            for n in 0..g.count {
                let (src, sport) = if g.random {
                    (
                        offset(base, rng.next_u32() & 0x00ff_ffff),
                        1024 + (rng.below(64_512) as u16),
                    )
                } else {
                    (offset(base, n), g.sport.wrapping_add(n as u16))
                };
                let key = FlowKey::new(src, dst, sport, g.dport, proto).map_err(|e| err(&p, e))?;
                let k = g.readers_per_flow;
                let (k64, n64) = (u64::from(k), u64::from(n));
                let readers = match g.reader_base {
                    // Threads base.. (cycling within them).
                    Some(b) => (0..k64)
                        .map(|j| b + ((n64 * k64 + j) % u64::from((nthreads - b).max(1))) as u32)
                        .collect(),
                    None => (0..k64)
                        .map(|j| ((u64::from(flow_index) * k64 + j) % u64::from(nthreads.max(1))) as u32)
                        .collect(),
                };
                let tx = g.tx.as_ref().map(|t| TxSpec {
                    rate_pps: t.rate_pps,
                    bytes: t.bytes,
                    connected: t.connected,
                });
                let spec = FlowSpec {
                    key,
                    rate_pps: g.rate_pps,
                    bytes: g.bytes,
                    readers,
                    tx,
                };
                match sim.add_flow(spec) {
                    Ok(_) => {}
                    // Random tuples may repeat: draw again is not possible without changing
                    // the sequence, so a duplicate is skipped (and counted by the flow total).
                    Err(steerlab_engine::SimError::FlowExists(_)) if g.random => {}
                    Err(e) => return Err(err(&p, e)),
                }
                flow_index += 1;
            }
        }
        Ok(sim)
    }

    /// `nic.rss_key` as bytes (`None`: the default key).
    pub fn rss_key(&self) -> Result<Option<Vec<u8>>, ScenarioError> {
        if self.nic.rss_key.is_empty() {
            return Ok(None);
        }
        let key = self
            .nic
            .rss_key
            .split(':')
            .map(|b| {
                if b.len() == 2 {
                    u8::from_str_radix(b, 16).ok()
                } else {
                    None
                }
            })
            .collect::<Option<Vec<u8>>>();
        match key {
            Some(k) if k.len() == 40 => Ok(Some(k)),
            _ => Err(err(
                "nic.rss_key",
                "40 hex bytes separated by colons, as ethtool -x prints them (6d:5a:56:…)",
            )),
        }
    }

    /// `nic.indir` as a table (`None`: the default fill).
    pub fn indir(&self) -> Result<Option<steerlab_engine::rss::Reta>, ScenarioError> {
        if self.nic.indir.is_empty() {
            return Ok(None);
        }
        if self.nic.indir.len() != self.nic.reta_size as usize {
            return Err(err(
                "nic.indir",
                format!(
                    "{} entries; nic.reta_size is {}",
                    self.nic.indir.len(),
                    self.nic.reta_size
                ),
            ));
        }
        steerlab_engine::rss::Reta::from_entries(&self.nic.indir, u32::from(self.nic.rx_queues))
            .map(Some)
            .map_err(|e| err("nic.indir", e))
    }

    /// The XDP program the `xdp` section describes.
    pub fn xdp_program(&self) -> Result<Option<XdpProgram>, ScenarioError> {
        let x = &self.xdp;
        let strategy = x.strategy.0;
        let mut prog = match (x.program.as_str(), x.kfuncs) {
            ("", None) => return Ok(None),
            ("", Some(k)) => XdpProgram::with_kfuncs("custom", k, XdpAction::Drop, strategy),
            (name, k) => XdpProgram::named(name, strategy).and_then(|p| match k {
                Some(k) => XdpProgram::with_kfuncs(&p.name, k, p.action, strategy),
                None => Ok(p),
            }),
        }
        .map_err(|e| err("xdp", e))?;
        if let Some(a) = x.action {
            prog.action = a.0;
        }
        Ok(Some(prog))
    }

    /// Runs the scenario to its end, applying timeline commands at their time (a failing
    /// command is an error naming it).
    pub fn run(&self) -> Result<Sim, ScenarioError> {
        let mut sim = self.build()?;
        self.run_from(&mut sim, Nanos::from_ms(self.sim.duration_ms))?;
        Ok(sim)
    }

    /// Advances `sim` to `until`, applying the timeline commands due on the way. A command at
    /// `at_ms` applies at the start of the tick that contains it ([`Scenario::tick_start`]), before
    /// that tick runs; calls that split a run anywhere apply each command exactly once.
    pub fn run_from(&self, sim: &mut Sim, until: Nanos) -> Result<(), ScenarioError> {
        let end = Self::tick_start(sim, until);
        for (i, c) in self.timeline_sorted() {
            let at = Self::tick_start(sim, Nanos::from_ms(c.at_ms));
            if at < sim.now().0 || at >= end {
                continue;
            }
            sim.advance_to(Nanos(at));
            Self::apply(sim, i, c)?;
        }
        sim.advance_to(until);
        Ok(())
    }

    /// Applies the timeline commands due at the start of the tick beginning now (for callers
    /// that run ticks themselves, in parts).
    pub fn apply_due(&self, sim: &mut Sim) -> Result<(), ScenarioError> {
        for (i, c) in self.timeline_sorted() {
            if Self::tick_start(sim, Nanos::from_ms(c.at_ms)) == sim.now().0 {
                Self::apply(sim, i, c)?;
            }
        }
        Ok(())
    }

    /// The start of the tick that contains `at`: where a command at that time applies.
    fn tick_start(sim: &Sim, at: Nanos) -> u64 {
        let tick = sim.config().tick_ns;
        at.0 / tick * tick
    }

    /// Runs timeline command `i`; a failure names it.
    fn apply(sim: &mut Sim, i: usize, c: &TimedCommand) -> Result<(), ScenarioError> {
        steerlab_console::execute(sim, &c.command)
            .map(drop)
            .map_err(|e| err(&format!("timeline[{i}] {:?}", c.command), e))
    }

    fn timeline_sorted(&self) -> Vec<(usize, &TimedCommand)> {
        let mut cmds: Vec<(usize, &TimedCommand)> = self.timeline.iter().enumerate().collect();
        cmds.sort_by_key(|(i, c)| (c.at_ms, *i));
        cmds
    }
}

/// `base + n` for addresses.
fn offset(base: IpAddr, n: u32) -> IpAddr {
    match base {
        IpAddr::V4(a) => IpAddr::V4(u32::from(a).wrapping_add(n).into()),
        IpAddr::V6(a) => IpAddr::V6(u128::from(a).wrapping_add(u128::from(n)).into()),
    }
}
