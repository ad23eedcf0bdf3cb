//! A real host's capture read into a scenario: the transcript `scripts/capture-host.sh` prints
//! (each command as `$ command`, then its output), or any of those outputs pasted alone. Every
//! output is read in the real tool's own format, recognised by its header line:
//!
//! | output | recognised by | gives |
//! |---|---|---|
//! | `ethtool -i` | `driver: NAME` | the driver model, the kernel generation (`version:`) |
//! | `nproc --all`, `lscpu` | `$ nproc`, `CPU(s):` | CPUs (`NUMA node(s):` too) |
//! | `ethtool -l` | `Channel parameters for IF:` | RX and TX queues (current settings) |
//! | `ethtool -x` | `RX flow hash indirection table for IF with N RX ring(s):` | the table, the key |
//! | `ethtool -n` | `N RX rings available` | ntuple rules with their masks |
//! | `ethtool -n IF rx-flow-hash T` | `TCP over IPV4 flows use these fields …` | hashed fields per flow type |
//! | `ethtool -k` | `Features for IF:` | `ntuple-filters` |
//! | `readlink -f /sys/class/net/IF/device` | `$ readlink` | the NIC's device (names mlx5's and virtio's vectors) |
//! | `cat /proc/interrupts` | the `CPU0 CPU1 …` header | which IRQ is which queue's vector; where it fired |
//! | `grep . /proc/irq/*/…affinity_list` | `/proc/irq/N/FILE:VALUE` | each vector's CPU |
//! | `grep . …/queues/rx-*/rps_cpus` etc. | `/sys/class/net/IF/queues/Q/FILE:VALUE` | RPS, RFS and XPS maps |
//! | `sysctl net.core.…` | `net.core.NAME = VALUE` | `rps_sock_flow_entries`, `netdev_max_backlog` |
//!
//! Formats: ethtool.c `dump_drvinfo`, `channels_reply_cb`, `print_indir_table`,
//! `print_rss_hkey`, `dump_rxfhash`; rxclass.c `rxclass_print_nfc_rule`; kernel/irq/proc.c
//! `show_interrupts`; net/core/net-sysfs.c (`%*pb` masks). The console prints the same formats,
//! so a capture of a sandbox host imports back into the same host.
//!
//! What the capture does not say is taken from the defaults and listed as an assumption.
//! A line that belongs to no output steerlab reads, or that breaks the format of the output it
//! is in, is an error naming the line; a command steerlab does not read, or one that printed an
//! error instead of its output (ethtool missing, an option the driver lacks), is skipped and
//! said.
//! The scenario sets what JSON fields hold (CPUs, queues, driver, table, key, sysctls) and the
//! rest as console commands at time 0 (`ethtool -N` rules and `rx-flow-hash`, `echo` to the
//! IRQ, RPS, RFS and XPS files), so it shows a learner how to set such a host by hand.

use std::collections::BTreeMap;
use std::net::IpAddr;

use steerlab_engine::cpuset::MAX_CPUS;
use steerlab_engine::rss::HashFields;
use steerlab_engine::{CpuSet, FlowType};

use crate::{Scenario, ScenarioError};

mod ethtool;
mod host;
mod kernel_files;

use ethtool::{
    channels_line, field_line, finish_rule, hash_function_line, indir_line, info_line, parse_key, rule_line,
};
use kernel_files::{file_line, interrupts_line, lscpu_line};

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
    /// What the capture did not say, one sentence each.
    pub assumptions: Vec<String>,
    /// The captured interface's name (the sandbox calls it eth0).
    pub iface: String,
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
    /// After `$ readlink -f /sys/class/net/IF/device`: the device's path.
    Device,
    Info,
    Nproc,
    Lscpu,
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
    /// After `$ grep …`: only `FILE:VALUE` lines.
    Grep,
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

/// What the capture said, each fact with the line it came from.
#[derive(Default)]
struct Facts {
    iface: Option<(String, usize)>,
    driver: Option<(String, usize)>,
    /// The NIC's bus device (`0000:3b:00.0`, `virtio2`): whose vectors are its queues'.
    device: Option<String>,
    version: Option<String>,
    nproc: Option<u16>,
    lscpu_cpus: Option<u16>,
    numa_nodes: Option<u16>,
    channels: BTreeMap<&'static str, u32>,
    rings: Option<u32>,
    indir: Vec<u16>,
    indir_line: usize,
    key: Option<Vec<u8>>,
    key_line: usize,
    rules: Vec<RuleText>,
    rules_total: Option<(usize, usize)>,
    rules_seen: bool,
    fields: BTreeMap<usize, (FlowType, HashFields)>,
    ntuple: Option<bool>,
    /// `/proc/interrupts`: the CPU of each column, and per IRQ its vector name and counts.
    irq_cpus: Vec<u16>,
    irqs: BTreeMap<u32, (String, Vec<u64>, usize)>,
    smp_affinity: BTreeMap<u32, (CpuSet, usize)>,
    effective: BTreeMap<u32, (CpuSet, usize)>,
    rps_cpus: BTreeMap<u16, (CpuSet, usize)>,
    flow_cnt: BTreeMap<u16, (u32, usize)>,
    xps_cpus: BTreeMap<u16, (CpuSet, usize)>,
    sock_flow_entries: Option<u32>,
    netdev_max_backlog: Option<u32>,
    skipped: Vec<String>,
    unreadable: Vec<String>,
    /// One past the highest CPU a mask or list names, and its line.
    max_cpu_seen: u16,
    max_cpu_line: usize,
    /// The line of `ethtool -l`'s current settings, and of `ethtool -n`'s header.
    channels_line: usize,
    rules_line: usize,
}

fn fail(line: usize, text: &str, why: impl std::fmt::Display) -> ScenarioError {
    let shown: String = text.chars().take(80).collect();
    ScenarioError(format!("line {line}: {why} (the line: {shown:?})"))
}

/// Reads a capture (see the module) into a scenario of that host.
pub fn import(text: &str) -> Result<Imported, ScenarioError> {
    if text.len() > MAX_CAPTURE_BYTES {
        return Err(ScenarioError(format!(
            "the capture is {} bytes; at most {MAX_CAPTURE_BYTES} accepted",
            text.len()
        )));
    }
    let mut f = Facts::default();
    let mut block = Block::None;
    let mut rule: Option<RuleText> = None;
    // The transcript's last command, named when it printed an error instead of its output.
    let mut last_cmd = "";
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end_matches('\r');
        let t = line.trim();
        // A command of the transcript: what follows is its output.
        if let Some(cmd) = line.strip_prefix("$ ") {
            finish_rule(&mut f, &mut rule);
            last_cmd = cmd.trim();
            block = command_block(&mut f, last_cmd, n);
            continue;
        }
        if t.is_empty() {
            // A blank line ends a rule and a hash-field list; tables and key have none inside.
            finish_rule(&mut f, &mut rule);
            if matches!(
                block,
                Block::Fields(_) | Block::OtherFields | Block::Key | Block::HashFunction
            ) {
                block = Block::None;
            }
            continue;
        }
        if t.starts_with("# ") || t == "#" {
            continue; // the capture script's own comments
        }
        // Lines that say what they are, wherever they appear.
        if let Some(b) = header(&mut f, t, n)? {
            finish_rule(&mut f, &mut rule);
            block = b;
            continue;
        }
        if file_line(&mut f, t, n)? {
            continue;
        }
        match block {
            Block::Skip => {}
            // A command that printed no header printed an error (ethtool not installed, an
            // option the driver does not support): said, and its lines skipped.
            Block::Awaiting => {
                f.unreadable
                    .push(format!("line {n}: `{last_cmd}` printed {t:?} instead of its output"));
                block = Block::Skip;
            }
            Block::Device => {
                f.device = t.rsplit('/').next().map(str::to_string);
                block = Block::None;
            }
            Block::None => {
                return Err(fail(
                    n,
                    t,
                    "not part of any output steerlab reads (scripts/capture-host.sh lists the commands it reads)",
                ))
            }
            Block::Info => info_line(&mut f, t),
            Block::Nproc => {
                let cpus = t.parse::<u32>().map_err(|_| fail(n, t, "nproc prints one number"))?;
                f.nproc = Some(cpu_count(cpus, n, t)?);
                block = Block::None;
            }
            Block::Lscpu => lscpu_line(&mut f, t, n)?,
            Block::Channels { current } => channels_line(&mut f, t, n, current, &mut block)?,
            Block::Indir => indir_line(&mut f, t, n, &mut block)?,
            Block::Key => {
                if t.starts_with("Operation not supported") {
                    f.unreadable
                        .push(format!("line {n}: the driver does not report its RSS key"));
                } else {
                    f.key =
                        Some(parse_key(t).ok_or_else(|| fail(n, t, "the RSS key is hex bytes separated by colons"))?);
                    f.key_line = n;
                }
                block = Block::Indir;
            }
            Block::HashFunction => hash_function_line(t, n)?,
            Block::Rules => rule_line(&mut f, &mut rule, t, n)?,
            Block::Fields(_) => field_line(&mut f, t, n)?,
            Block::OtherFields => {}
            Block::Features => {
                if let Some(v) = t.strip_prefix("ntuple-filters:") {
                    f.ntuple = Some(v.trim().starts_with("on"));
                }
            }
            Block::Interrupts => interrupts_line(&mut f, t, n)?,
            Block::Grep => {
                return Err(fail(
                    n,
                    t,
                    "grep printed a value without its file's name (one file matched?): capture with grep -H . FILES",
                ))
            }
        }
    }
    finish_rule(&mut f, &mut rule);
    host::build(f)
}

/// The block a transcript command's output is in, when its output has no header of its own.
fn command_block(f: &mut Facts, cmd: &str, n: usize) -> Block {
    let words: Vec<&str> = cmd.split_whitespace().filter(|w| *w != "sudo").collect();
    if let ["ethtool", _, iface, ..] = words.as_slice() {
        if !iface.starts_with('-') && f.iface.is_none() {
            f.iface = Some((iface.to_string(), n));
        }
    }
    match words.first().copied() {
        Some("nproc") => Block::Nproc,
        Some("lscpu") => Block::Lscpu,
        // Outputs with a header line of their own, and the grep and sysctl lines, are
        // recognised by their lines.
        Some("grep") => Block::Grep,
        Some("readlink") => Block::Device,
        Some("ethtool" | "cat" | "sysctl") => Block::Awaiting,
        _ => {
            f.skipped.push(format!("line {n}: the output of `{cmd}` is not read"));
            Block::Skip
        }
    }
}

/// Header lines: each starts an output.
fn header(f: &mut Facts, t: &str, n: usize) -> Result<Option<Block>, ScenarioError> {
    if let Some(d) = t.strip_prefix("driver:") {
        f.driver = Some((d.trim().to_string(), n));
        return Ok(Some(Block::Info));
    }
    if let Some(rest) = t.strip_prefix("Channel parameters for ") {
        iface(f, rest.trim_end_matches(':'), n, t)?;
        return Ok(Some(Block::Channels { current: false }));
    }
    if let Some(rest) = t.strip_prefix("RX flow hash indirection table for ") {
        // "IF with N RX ring(s):"
        let (name, rings) = rest
            .split_once(" with ")
            .ok_or_else(|| fail(n, t, "expected 'for IF with N RX ring(s):'"))?;
        iface(f, name, n, t)?;
        let rings = rings
            .strip_suffix(" RX ring(s):")
            .and_then(|r| r.parse().ok())
            .ok_or_else(|| fail(n, t, "expected 'with N RX ring(s):'"))?;
        f.rings = Some(rings);
        f.indir.clear();
        f.indir_line = n;
        return Ok(Some(Block::Indir));
    }
    if let Some(rings) = t.strip_suffix(" RX rings available") {
        let rings = rings
            .parse()
            .map_err(|_| fail(n, t, "expected 'N RX rings available'"))?;
        f.rings.get_or_insert(rings);
        f.rules_seen = true;
        f.rules_line = n;
        return Ok(Some(Block::Rules));
    }
    if t.starts_with("rxclass: Cannot get RX class rule count") {
        f.unreadable.push(format!(
            "line {n}: the driver refused to list ntuple rules (ntuple off, or not supported)"
        ));
        return Ok(Some(Block::None));
    }
    if let Some(ty) = t.strip_suffix(" flows use these fields for computing Hash flow key:") {
        let block = match ty {
            "TCP over IPV4" => Block::Fields(FlowType::Tcp4),
            "UDP over IPV4" => Block::Fields(FlowType::Udp4),
            "TCP over IPV6" => Block::Fields(FlowType::Tcp6),
            "UDP over IPV6" => Block::Fields(FlowType::Udp6),
            _ => Block::OtherFields,
        };
        if let Block::Fields(ty) = block {
            f.fields.insert(n, (ty, NO_FIELDS));
        }
        return Ok(Some(block));
    }
    if let Some(rest) = t.strip_prefix("Features for ") {
        iface(f, rest.trim_end_matches(':'), n, t)?;
        return Ok(Some(Block::Features));
    }
    if t.starts_with("CPU0")
        || (t.starts_with("CPU")
            && t.split_whitespace()
                .all(|w| w.strip_prefix("CPU").is_some_and(|c| c.parse::<u16>().is_ok())))
    {
        f.irq_cpus = t
            .split_whitespace()
            .map(|w| {
                w.strip_prefix("CPU")
                    .and_then(|c| c.parse::<u16>().ok())
                    .filter(|&c| c < MAX_CPUS)
            })
            .collect::<Option<Vec<u16>>>()
            .ok_or_else(|| fail(n, t, "the /proc/interrupts header is CPU0 CPU1 …"))?;
        f.irqs.clear();
        return Ok(Some(Block::Interrupts));
    }
    Ok(None)
}

/// Records the interface a header names; a capture is of one interface.
fn iface(f: &mut Facts, name: &str, n: usize, t: &str) -> Result<(), ScenarioError> {
    match &f.iface {
        Some((known, at)) if known != name => Err(fail(
            n,
            t,
            format!("names interface {name}, but line {at} is of {known}: capture one interface"),
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
        _ => Err(fail(n, t, format!("{cpus} CPUs; steerlab models 1..={MAX_CPUS}"))),
    }
}
