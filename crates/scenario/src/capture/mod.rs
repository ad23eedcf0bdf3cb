//! A real host's capture read into a scenario: the transcript `scripts/capture-host.sh` prints,
//! or what people paste of it (any outputs, alone or in part, after any prompt). Commands are
//! told from outputs by `commands.rs` (a prompt before them, or a known command); every output
//! is read in the real tool's own format, recognised by its own lines wherever it stands:
//!
//! | output | recognised by | gives |
//! |---|---|---|
//! | `ethtool -i` | `driver: NAME` | the driver, its bus device, the kernel release (`version:`, when it is one) |
//! | `uname -r`, `/proc/version` | the command, `Linux version X` | the kernel release |
//! | `nproc`, `lscpu`, `lscpu -p` | the command, `CPU(s):`, `CPU,Core,Socket,Node` rows | CPUs, NUMA nodes |
//! | `ethtool -l` | `Channel parameters for IF:` | RX and TX queues (current settings) |
//! | `ip -d link show`, `ls …/queues/` | `numrxqueues N`, `rx-N` `tx-N` | RX and TX queues |
//! | `ethtool -x` | `RX flow hash indirection table …`, `RSS hash key:`, `RSS hash function:` | the table, the key |
//! | `ethtool -n [rule N]` | `N RX rings available`, `Total N rules`, `Filter: N` | ntuple rules with their masks |
//! | `ethtool -n IF rx-flow-hash T` | `TCP over IPV4 flows use these fields …` | hashed fields per flow type |
//! | `ethtool -k` | `Features for IF:` | `ntuple-filters` |
//! | `readlink -f /sys/class/net/IF/device` | the command | the NIC's bus device |
//! | `/proc/interrupts` | the `CPU0 CPU1 …` header, or its `IRQ: COUNTS… NAME` rows alone | which IRQ is which queue's vector; where it fired |
//! | `grep -H . FILES`, `cat FILE` | `/proc/irq/N/FILE:VALUE`, the value after `cat` | each vector's CPUs; RPS, RFS and XPS maps |
//! | `sysctl net.core.…` | `net.core.NAME = VALUE` | `rps_sock_flow_entries`, `netdev_max_backlog`, `netdev_budget`, `netdev_budget_usecs`, `dev_weight`, `rmem_default`, `rmem_max` |
//! | `ethtool -g` | `Ring parameters for IF:` | the RX ring (current settings), when the driver model takes it as it is |
//! | `ethtool -c` | `Coalesce parameters for IF:` | `rx-usecs` and `rx-frames` when `Adaptive RX` is off (adaptive: the driver's default, said) |
//! | `ethtool -S` | `NIC statistics:` | observed: the drivers' ring drop counters (`rx_missed_errors`, `rx_out_of_buffer`, `rx_dropped`, `rx_no_buffer_count`, `rx_queue_N_drops`, `rx-N.drops`) |
//! | `/proc/net/softnet_stat` | the command, or rows of 8-digit hex columns | observed: per CPU, backlog drops, `time_squeeze`, the RPS flow limit's drops |
//! | `nstat`, `/proc/net/snmp`, `/proc/net/netstat` | `#kernel`, `Udp: InDatagrams …` name lines | observed: `UdpRcvbufErrors`, `UdpInErrors` (and Udp6's), `TcpExtListenDrops`, `TcpExtTCPBacklogDrop` |
//! | `mpstat -P ALL` | the header with `CPU` and `%soft`, sysstat's `Linux …` banner | observed: CPUs over 50 % `%soft` |
//!
//! Besides the host, an import gives what the capture shows of where packets drop and who takes
//! the interrupts ([`Observation`]: counters since boot as printed, never a rate), and where the
//! queue vectors' interrupts fire (`/proc/interrupts`' counts, `effective_affinity_list`).
//!
//! Formats: ethtool.c `dump_drvinfo`, `channels_reply_cb`, `print_indir_table`,
//! `print_rss_hkey`, `dump_rxfhash`, `do_gnicstats`; netlink/rings.c `rings_reply_cb`,
//! netlink/coalesce.c `coalesce_reply_cb`; rxclass.c `rxclass_print_nfc_rule`;
//! kernel/irq/proc.c `show_interrupts`; net/core/net-sysfs.c (`%*pb` masks);
//! net/core/net-procfs.c `softnet_seq_show`; net/ipv4/proc.c `snmp_seq_show`; iproute2
//! misc/nstat.c `dump_kern_db`; sysstat mpstat.c `write_plain_cpu_stats`. The console prints the same formats,
//! so a capture of a sandbox host imports back into the same host.
//!
//! What the capture does not say is taken from the driver's defaults or steerlab's, and every
//! such choice is an [`Assumption`] naming the line it came from and, where a scenario field
//! holds it, the `--set` that corrects it. A command that printed an error (ethtool missing, an
//! option the driver lacks, `rxclass: Unknown flow type`) is said, not blamed on the next line.
//! Only an output that says it is cut (`[...snip...]`, `...`, a table shorter than its size, a
//! row with fewer columns than its header) or a hash steerlab cannot model is refused, naming
//! the line.
//! The scenario sets what JSON fields hold (CPUs, queues, driver, table, key, sysctls) and the
//! rest as console commands at time 0 (`ethtool -N` rules and `rx-flow-hash`, `echo` to the
//! IRQ, RPS, RFS and XPS files), so it shows a learner how to set such a host by hand.

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde::{Deserialize, Serialize};
use steerlab_engine::cpuset::MAX_CPUS;
use steerlab_engine::rss::HashFields;
use steerlab_engine::{CpuSet, FlowType};

use crate::{Scenario, ScenarioError};

mod commands;
mod counters;
mod defaults;
mod ethtool;
mod host;
mod irqs;
mod kernel_files;
mod lines;
mod observe;
mod vectors;

/// What building a scenario from the facts adds (host.rs and irqs.rs): assumptions, and
/// console commands at time 0.
#[derive(Default)]
struct Out {
    assume: Vec<Assumption>,
    cmds: Vec<String>,
}

impl Out {
    /// Not inlined: one push for the dozens of assumptions (the page's bundle is budgeted).
    #[inline(never)]
    fn push(&mut self, a: Assumption) {
        self.assume.push(a);
    }
}

/// Largest capture read (a 1024-CPU host's `/proc/interrupts` is a few megabytes; the queue
/// vectors' rows are what matter).
pub const MAX_CAPTURE_BYTES: usize = 16 << 20;

/// The suggested length of an imported host's run (the page pauses there; Play goes on).
const YOUR_HOST_MS: u64 = 60_000;

/// The first IRQ number the console gives the sandbox NIC's vectors (console procfs.rs).
const SANDBOX_IRQ_BASE: u32 = 130;

/// No field hashed (`dump_rxfhash` prints `None`).
const NO_FIELDS: HashFields = HashFields {
    src_ip: false,
    dst_ip: false,
    src_port: false,
    dst_port: false,
};

/// A capture read: the scenario of that host and what had to be assumed.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The host, as a scenario (no flows: `predict` and the page add them).
    pub scenario: Scenario,
    /// The same as JSON, only the fields the capture set.
    pub json: serde_json::Value,
    /// What the capture did not say and what steerlab chose, one sentence each.
    pub assumptions: Vec<Assumption>,
    /// The captured interface's name (the sandbox calls it eth0).
    pub iface: String,
    /// What the capture's counters show of where packets drop and who takes the interrupts.
    pub observed: Vec<Observation>,
}

/// One thing the capture shows: a counter that is not zero, or a CPU that takes the load.
/// Counters since boot, as the tool printed them: an observation never invents a rate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// Where on the path: `ring`, `backlog`, `socket`, `squeeze` or `softirq`.
    pub place: String,
    /// One sentence starting `line N: `, with the counter, its value and the command that
    /// shows it.
    pub text: String,
    /// The capture's line (1-based).
    pub line: usize,
}

impl std::fmt::Display for Observation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// One thing the importer assumed or chose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assumption {
    /// The sentence, starting `line N: ` when a line of the capture led to it.
    pub text: String,
    /// `FIELD=VALUE`, the scenario field that holds the choice and its value now, when one
    /// does: the correction is `--set FIELD=VALUE` (on `import` and `predict`, and in the
    /// page's list).
    pub set: Option<String>,
}

impl Assumption {
    // Not generic and not inlined: one copy of each in the page's bundle.
    #[inline(never)]
    fn new(text: &str) -> Assumption {
        Assumption {
            text: text.to_string(),
            set: None,
        }
    }

    #[inline(never)]
    fn at(line: usize, text: &str) -> Assumption {
        Assumption::new(&format!("line {line}: {text}"))
    }

    #[inline(never)]
    fn set(mut self, field: &str, value: &str) -> Assumption {
        self.set = Some(format!("{field}={value}"));
        self
    }
}

impl std::fmt::Display for Assumption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)?;
        match &self.set {
            Some(set) => write!(f, " [--set {set}]"),
            None => Ok(()),
        }
    }
}

/// Which output the current line belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    /// Before any output, or between outputs.
    None,
    /// The output of a command steerlab does not read, or of one that failed: skipped.
    Skip,
    /// After a command whose output has a header of its own: its header, or an error.
    Awaiting,
    /// After `readlink -f /sys/class/net/IF/device`: the device's path.
    Device,
    /// After `uname`: the release (`-r`), or `Linux HOST RELEASE …` (`-a`).
    Uname,
    /// After `cat FILE` of one file (or `grep . FILE`): its value, without its name (the
    /// file is `Facts::value_path`).
    Value,
    Info,
    Nproc,
    Lscpu,
    /// `lscpu -p` rows: `CPU,Core,Socket,Node,…`.
    LscpuP,
    /// `ip -d link show` (queue counts on its `numtxqueues` line) and `ls …/queues`.
    Queues,
    Channels {
        current: bool,
    },
    Indir,
    Key,
    HashFunction,
    Rules,
    Fields(FlowType),
    /// A `rx-flow-hash` dump of a flow type steerlab does not model (sctp4, …).
    OtherFields,
    Features,
    Interrupts,
    /// After `grep -H …`: `FILE:VALUE` lines.
    Grep,
    /// `ethtool -g`, in its maximums or its current settings.
    Ring {
        current: bool,
    },
    /// `ethtool -c` (blank lines inside).
    Coalesce,
    /// `ethtool -S`: `NAME: COUNT` lines.
    Stats,
    /// `/proc/net/softnet_stat`: a row of hex columns per CPU.
    Softnet,
    /// `nstat` (and `/proc/net/snmp6`): `NAME VALUE [RATE]` rows.
    Nstat,
    /// `/proc/net/snmp`, `/proc/net/netstat`: a line of names, then one of values.
    Snmp,
    /// `mpstat`: its banner, its header, rows per CPU (blank lines inside).
    Mpstat,
}

/// An ntuple rule being read: its location and line, its fields, and why it cannot be modelled.
#[derive(Default)]
struct RuleText {
    line: usize,
    loc: u32,
    flow_type: Option<FlowType>,
    src: Option<(IpAddr, u128)>,
    dst: Option<(IpAddr, u128)>,
    sport: Option<(u16, u16)>,
    dport: Option<(u16, u16)>,
    queue: Option<u16>,
    unsupported: Option<String>,
}

/// A value the capture gave, with the line it came from.
type At<T> = Option<(T, usize)>;

/// What the capture said, each fact with the line it came from.
#[derive(Default)]
struct Facts {
    iface: At<String>,
    driver: At<String>,
    /// The NIC's bus device (`0000:3b:00.0`, `virtio2`): whose vectors are its queues'.
    device: Option<String>,
    /// `ethtool -i`'s `version:`.
    version: At<String>,
    /// The file whose value `cat` printed next, without its name.
    value_path: String,
    /// The kernel release from `uname` or `/proc/version`.
    release: At<String>,
    nproc: At<u16>,
    lscpu_cpus: At<u16>,
    numa_nodes: At<u16>,
    /// `lscpu -p`: one past the highest CPU its rows name, and the nodes they name.
    parse_cpus: u16,
    parse_nodes: Vec<u16>,
    parse_line: usize,
    channels: BTreeMap<&'static str, u32>,
    rings: At<u32>,
    /// `ip -d link`'s `numrxqueues`/`numtxqueues`.
    ip_queues: At<(u32, u32)>,
    /// `ls …/queues/`: the rx-N and tx-N directories.
    sys_queues: At<(u32, u32)>,
    indir: Vec<u16>,
    indir_line: usize,
    key: Option<Vec<u8>>,
    key_line: usize,
    rules: Vec<RuleText>,
    rules_total: At<usize>,
    rules_seen: bool,
    /// Rules ethtool could not print (`rxclass: Unknown flow type`).
    rules_unprintable: usize,
    fields: BTreeMap<usize, (FlowType, HashFields)>,
    ntuple: At<bool>,
    /// `/proc/interrupts`: the CPU of each column (from its header, or as many as the rows
    /// have counts), and per IRQ its vector name, counts and line.
    irq_cpus: Vec<u16>,
    irq_header: bool,
    /// Without the header: the row whose counts gave the columns.
    irq_cols_line: usize,
    irqs: BTreeMap<u32, (String, Vec<u64>, usize)>,
    smp_affinity: BTreeMap<u32, (CpuSet, usize)>,
    effective: BTreeMap<u32, (CpuSet, usize)>,
    rps_cpus: BTreeMap<u16, (CpuSet, usize)>,
    flow_cnt: BTreeMap<u16, (u32, usize)>,
    xps_cpus: BTreeMap<u16, (CpuSet, usize)>,
    sock_flow_entries: Option<u32>,
    netdev_max_backlog: Option<u32>,
    /// The other `net.core` numbers the engine models (`netdev_budget`, `rmem_max`, …), by
    /// their sysctl names.
    core: BTreeMap<String, u32>,
    /// What was said while reading: commands not read, errors printed, lines skipped.
    said: Vec<Assumption>,
    /// One past the highest CPU a mask or list names, and its line.
    max_cpu_seen: u16,
    max_cpu_line: usize,
    /// The line of `ethtool -l`'s current settings, and of `ethtool -n`'s header.
    channels_line: usize,
    rules_line: usize,
    /// `ethtool -g`: its header's line, and the current RX ring.
    ring_header: usize,
    ring: At<u32>,
    /// `ethtool -c`: `Adaptive RX: on|off` and `rx-usecs` (checked when the host is built).
    coalesce_header: usize,
    adaptive_rx: At<bool>,
    rx_usecs: At<u64>,
    /// `ethtool -c`'s `rx-frames` (`n/a` on drivers that count none: not kept).
    rx_frames: At<u64>,
    /// `ethtool -S`: the counters read (drops, `rx_packets`), with their lines.
    nic_stats: Vec<(String, u64, usize)>,
    /// `/proc/net/softnet_stat`: per row its CPU, `[processed, dropped, time_squeeze,
    /// flow_limit_count]` and line.
    softnet: Vec<(u16, [u64; 4], usize)>,
    /// The first softnet row's column count: a shorter row after it was cut.
    softnet_cols: usize,
    /// MIB counters by nstat's name (`UdpRcvbufErrors`): value, line, and how the capture
    /// showed it (`nstat: UdpRcvbufErrors`, `/proc/net/snmp: Udp RcvbufErrors`).
    mib: BTreeMap<String, (u64, usize, String)>,
    /// A `/proc/net/snmp` names line waiting for its values: prefix, names, line.
    mib_names: Option<(String, Vec<String>, usize)>,
    /// `mpstat`'s header: the CPU's and `%soft`'s columns counted from the row's end, and the
    /// header's word count.
    mpstat_cols: Option<(usize, usize)>,
    /// `mpstat`: each CPU's `%soft` (the last block printed: `Average:` when there is one).
    soft: BTreeMap<u16, (f64, usize)>,
}

impl Facts {
    #[inline(never)]
    fn say(&mut self, line: usize, text: &str) {
        self.said.push(Assumption::at(line, text));
    }
}

#[cold]
#[inline(never)]
fn fail(line: usize, text: &str, why: &str) -> ScenarioError {
    let shown: String = text.chars().take(80).collect();
    ScenarioError(format!("line {line}: {why} (the line: {shown:?})"))
}

/// Reads a capture (see the module) into a scenario of that host.
pub fn import(text: &str) -> Result<Imported, ScenarioError> {
    import_with(text, &[])
}

/// [`import`], then `overrides` (`FIELD=VALUE`, as `--set`) applied to the scenario: the
/// learner's corrections of what was assumed.
pub fn import_with(text: &str, overrides: &[String]) -> Result<Imported, ScenarioError> {
    if text.len() > MAX_CAPTURE_BYTES {
        return Err(ScenarioError(format!(
            "the capture is {} bytes; at most {MAX_CAPTURE_BYTES} accepted",
            text.len()
        )));
    }
    let mut f = Facts::default();
    lines::read(&mut f, text)?;
    host::build(f, overrides).map_err(|e| quote(e, text))
}

/// An error naming a line (`line N: …`) from the host built, with the line quoted.
fn quote(e: ScenarioError, text: &str) -> ScenarioError {
    let Some(n) =
        e.0.strip_prefix("line ")
            .and_then(|r| r.split(':').next())
            .and_then(|n| n.parse::<usize>().ok())
    else {
        return e;
    };
    match text.lines().nth(n.wrapping_sub(1)) {
        Some(line) if !e.0.contains("(the line:") => {
            let shown: String = line.trim().chars().take(80).collect();
            ScenarioError(format!("{} (the line: {shown:?})", e.0))
        }
        _ => e,
    }
}

/// Records the interface a header names; a capture is of one interface.
fn iface(f: &mut Facts, name: &str, n: usize, t: &str) -> Result<(), ScenarioError> {
    match &f.iface {
        Some((known, at)) if known != name => Err(fail(
            n,
            t,
            &format!("names {name}, but line {at} is of {known}: one interface"),
        )),
        Some(_) => Ok(()),
        None => {
            f.iface = Some((name.to_string(), n));
            Ok(())
        }
    }
}

fn cpu_count(cpus: u32, n: usize, t: &str) -> Result<u16, ScenarioError> {
    match u16::try_from(cpus) {
        Ok(c) if (1..=MAX_CPUS).contains(&c) => Ok(c),
        _ => Err(fail(n, t, &format!("{cpus} CPUs; steerlab models 1..={MAX_CPUS}"))),
    }
}
