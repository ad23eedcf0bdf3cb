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
use steerlab_engine::ntuple::{ip_bits, RULE_SLOTS};
use steerlab_engine::rss::HashFields;
use steerlab_engine::{CpuSet, Driver, FlowType, Kernel, XpsMap};

use crate::spec::Named;
use crate::{Scenario, ScenarioError};

/// Largest capture read (a 1024-CPU host's `/proc/interrupts` is a few megabytes; the queue
/// vectors' rows are what matter).
pub const MAX_CAPTURE_BYTES: usize = 16 << 20;

/// The suggested length of an imported host's run (the page pauses there; Play goes on).
const YOUR_HOST_MS: u64 = 60_000;

/// The first IRQ number the console gives the sandbox NIC's vectors (console procfs.rs).
const SANDBOX_IRQ_BASE: u32 = 130;

/// No field hashed (`dump_rxfhash` prints `None`).
const NO_FIELDS: HashFields = HashFields { src_ip: false, dst_ip: false, src_port: false, dst_port: false };

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
    /// After a command whose output has a header of its own (the command's line): its header,
    /// or an error.
    Awaiting(usize),
    /// After `$ readlink -f /sys/class/net/IF/device`: the device's path.
    Device,
    Info,
    Nproc,
    Lscpu,
    Channels { current: bool },
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
        return Err(ScenarioError(format!("the capture is {} bytes; at most {MAX_CAPTURE_BYTES} accepted", text.len())));
    }
    let mut f = Facts::default();
    let mut block = Block::None;
    let mut rule: Option<RuleText> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end_matches('\r');
        let t = line.trim();
        // A command of the transcript: what follows is its output.
        if let Some(cmd) = line.strip_prefix("$ ") {
            finish_rule(&mut f, &mut rule);
            block = command_block(&mut f, cmd.trim(), n);
            continue;
        }
        if t.is_empty() {
            // A blank line ends a rule and a hash-field list; tables and key have none inside.
            finish_rule(&mut f, &mut rule);
            if matches!(block, Block::Fields(_) | Block::OtherFields | Block::Key | Block::HashFunction) {
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
            Block::Awaiting(at) => {
                let cmd = text.lines().nth(at - 1).unwrap_or_default().trim_start_matches("$ ").trim();
                f.unreadable.push(format!("line {n}: `{cmd}` printed {t:?} instead of its output"));
                block = Block::Skip;
            }
            Block::Device => {
                f.device = t.rsplit('/').next().map(str::to_string);
                block = Block::None;
            }
            Block::None => return Err(fail(n, t, "not part of any output steerlab reads (see steerlab import --help for the commands it reads)")),
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
                    f.unreadable.push(format!("line {n}: the driver does not report its RSS key"));
                } else {
                    f.key = Some(parse_key(t).ok_or_else(|| fail(n, t, "the RSS key is hex bytes separated by colons"))?);
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
            Block::Grep => return Err(fail(n, t, "grep printed a value without its file's name (one file matched?): capture with grep -H . FILES")),
        }
    }
    finish_rule(&mut f, &mut rule);
    build(f)
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
        Some("ethtool" | "cat" | "sysctl") => Block::Awaiting(n),
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
        let (name, rings) = rest.split_once(" with ").ok_or_else(|| fail(n, t, "expected 'for IF with N RX ring(s):'"))?;
        iface(f, name, n, t)?;
        let rings = rings.strip_suffix(" RX ring(s):").and_then(|r| r.parse().ok()).ok_or_else(|| fail(n, t, "expected 'with N RX ring(s):'"))?;
        f.rings = Some(rings);
        f.indir.clear();
        f.indir_line = n;
        return Ok(Some(Block::Indir));
    }
    if let Some(rings) = t.strip_suffix(" RX rings available") {
        let rings = rings.parse().map_err(|_| fail(n, t, "expected 'N RX rings available'"))?;
        f.rings.get_or_insert(rings);
        f.rules_seen = true;
        f.rules_line = n;
        return Ok(Some(Block::Rules));
    }
    if t.starts_with("rxclass: Cannot get RX class rule count") {
        f.unreadable.push(format!("line {n}: the driver refused to list ntuple rules (ntuple off, or not supported)"));
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
    if t.starts_with("CPU0") || (t.starts_with("CPU") && t.split_whitespace().all(|w| w.strip_prefix("CPU").is_some_and(|c| c.parse::<u16>().is_ok()))) {
        f.irq_cpus = t
            .split_whitespace()
            .map(|w| w.strip_prefix("CPU").and_then(|c| c.parse::<u16>().ok()).filter(|&c| c < MAX_CPUS))
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
        Some((known, at)) if known != name => Err(fail(n, t, format!("names interface {name}, but line {at} is of {known}: capture one interface"))),
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

fn info_line(f: &mut Facts, t: &str) {
    if let Some(v) = t.strip_prefix("version:") {
        f.version = Some(v.trim().to_string());
    }
}

fn lscpu_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((k, v)) = t.split_once(':') else { return Ok(()) };
    let v = v.trim();
    match k.trim() {
        "CPU(s)" => f.lscpu_cpus = Some(cpu_count(v.parse().map_err(|_| fail(n, t, "CPU(s): takes a number"))?, n, t)?),
        "NUMA node(s)" => f.numa_nodes = Some(v.parse().map_err(|_| fail(n, t, "NUMA node(s): takes a number"))?),
        _ => {}
    }
    Ok(())
}

/// `ethtool -l`: `Pre-set maximums:` then `Current hardware settings:`, each with `RX:`, `TX:`,
/// `Other:`, `Combined:` (`n/a` for a count the driver does not report).
fn channels_line(f: &mut Facts, t: &str, n: usize, current: bool, block: &mut Block) -> Result<(), ScenarioError> {
    match t {
        "Pre-set maximums:" => *block = Block::Channels { current: false },
        "Current hardware settings:" => *block = Block::Channels { current: true },
        _ => {
            let (k, v) = t.split_once(':').ok_or_else(|| fail(n, t, "ethtool -l lines are 'NAME: COUNT'"))?;
            let v = v.trim();
            let count = if v == "n/a" { 0 } else { v.parse().map_err(|_| fail(n, t, "a channel count is a number or n/a"))? };
            let key = match k {
                "RX" => "rx",
                "TX" => "tx",
                "Other" => "other",
                "Combined" => "combined",
                // ethtool 6.x adds lines such as "TCP data split:" after the counts.
                _ => return Ok(()),
            };
            if current {
                f.channels.insert(key, count);
                f.channels_line = n;
            }
        }
    }
    Ok(())
}

/// `ethtool -x`: rows `%5u: ` + `" %5u"` per entry, then `RSS hash key:` and the key, then the
/// hash function and input transformation.
fn indir_line(f: &mut Facts, t: &str, n: usize, block: &mut Block) -> Result<(), ScenarioError> {
    match t {
        "RSS hash key:" => *block = Block::Key,
        "RSS hash function:" | "RSS input transformation:" => *block = Block::HashFunction,
        _ if t.starts_with("Operation not supported") => f.unreadable.push(format!("line {n}: the driver does not report its indirection table")),
        _ => {
            let (index, entries) = t.split_once(':').ok_or_else(|| fail(n, t, "an indirection table row is 'INDEX: Q Q Q …'"))?;
            let index: usize = index.trim().parse().map_err(|_| fail(n, t, "a row starts with its first index"))?;
            if index != f.indir.len() {
                return Err(fail(n, t, format!("the row starts at index {index}, but {} entries came before it (truncated?)", f.indir.len())));
            }
            for e in entries.split_whitespace() {
                let q = e.parse::<u16>().map_err(|_| fail(n, t, format!("{e:?} is not a queue number")))?;
                if f.indir.len() >= 1 << 16 {
                    return Err(fail(n, t, "more than 65536 table entries"));
                }
                f.indir.push(q);
            }
        }
    }
    Ok(())
}

/// The hash function and input transformation: steerlab hashes with Toeplitz, untransformed.
fn hash_function_line(t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((name, state)) = t.split_once(':') else { return Err(fail(n, t, "expected 'NAME: on|off'")) };
    let on = state.trim() == "on";
    match name.trim() {
        "toeplitz" => Ok(()),
        other if on => Err(fail(n, t, format!("the NIC hashes with {other}; steerlab models Toeplitz without input transformation only"))),
        _ => Ok(()),
    }
}

fn parse_key(t: &str) -> Option<Vec<u8>> {
    t.split(':').map(|b| if b.len() == 2 { u8::from_str_radix(b, 16).ok() } else { None }).collect()
}

/// `ethtool -n`: `Total N rules`, then per rule `Filter: L` and tab-indented fields.
fn rule_line<'a>(f: &mut Facts, rule: &mut Option<RuleText>, t: &'a str, n: usize) -> Result<(), ScenarioError> {
    if let Some(total) = t.strip_prefix("Total ").and_then(|r| r.strip_suffix(" rules")) {
        f.rules_total = Some((total.parse().map_err(|_| fail(n, t, "expected 'Total N rules'"))?, n));
        return Ok(());
    }
    if let Some(loc) = t.strip_prefix("Filter: ") {
        finish_rule(f, rule);
        let loc = loc.parse::<u32>().ok().filter(|&l| l < RULE_SLOTS).ok_or_else(|| fail(n, t, format!("a rule location is 0..={}", RULE_SLOTS - 1)))?;
        *rule = Some(RuleText { line: n, loc, ..RuleText::default() });
        return Ok(());
    }
    let r = rule.as_mut().ok_or_else(|| fail(n, t, "a rule's field before its 'Filter: L' line"))?;
    let (k, v) = t.split_once(": ").ok_or_else(|| fail(n, t, "a rule's lines are 'NAME: VALUE'"))?;
    let v6 = r.flow_type.is_some_and(FlowType::is_ipv6);
    // "VALUE mask: MASK", the mask shown as ethtool shows it (its set bits ignored).
    fn split_mask(v: &str) -> Option<(&str, &str)> {
        v.split_once(" mask: ")
    }
    let masked = |v: &'a str| split_mask(v).ok_or_else(|| fail(n, t, "expected 'VALUE mask: MASK'"));
    let port = |v: &'a str| -> Result<(u16, u16), ScenarioError> {
        let (p, m) = masked(v)?;
        let p = p.parse::<u16>().map_err(|_| fail(n, t, "a port is 0..=65535"))?;
        let m = m.strip_prefix("0x").and_then(|m| u16::from_str_radix(m, 16).ok()).ok_or_else(|| fail(n, t, "a port mask is 0x0..=0xffff"))?;
        Ok((p, m))
    };
    let ip = |v: &'a str| -> Result<(IpAddr, u128), ScenarioError> {
        let (a, m) = masked(v)?;
        let a: IpAddr = a.parse().map_err(|_| fail(n, t, "not an IP address"))?;
        let m: IpAddr = m.parse().map_err(|_| fail(n, t, "not an IP mask"))?;
        if a.is_ipv6() != v6 || m.is_ipv6() != v6 {
            return Err(fail(n, t, "the address family differs from the rule type"));
        }
        Ok((a, ip_bits(m)))
    };
    let all_ones = |v: &str| v.rsplit_once("mask: ").is_some_and(|(_, m)| m.trim_start_matches("0x").chars().all(|c| c == 'f') && !m.trim_start_matches("0x").is_empty());
    match k {
        "Rule Type" | "Flow Type" => {
            r.flow_type = match v {
                "TCP over IPv4" => Some(FlowType::Tcp4),
                "UDP over IPv4" => Some(FlowType::Udp4),
                "TCP over IPv6" => Some(FlowType::Tcp6),
                "UDP over IPv6" => Some(FlowType::Udp6),
                other => {
                    r.unsupported.get_or_insert(format!("its type is {other}"));
                    None
                }
            };
        }
        _ if r.flow_type.is_none() => {} // the fields of a rule type steerlab skips
        "Src IP addr" => r.src = Some(ip(v)?),
        "Dest IP addr" => r.dst = Some(ip(v)?),
        "Src port" => r.sport = Some(port(v)?),
        "Dest port" => r.dport = Some(port(v)?),
        "Action" => match v.strip_prefix("Direct to queue ") {
            Some(q) => r.queue = Some(q.parse().map_err(|_| fail(n, t, "a queue number"))?),
            None => {
                r.unsupported.get_or_insert(format!("its action is {v}"));
                r.queue = Some(0);
            }
        },
        "RSS Context ID" => {
            r.unsupported.get_or_insert(format!("it spreads over RSS context {v}"));
        }
        // Fields that only matter when compared (mask not all ones).
        _ if all_ones(v) => {}
        other => {
            r.unsupported.get_or_insert(format!("it matches on {other}"));
        }
    }
    Ok(())
}

fn finish_rule(f: &mut Facts, rule: &mut Option<RuleText>) {
    if let Some(r) = rule.take() {
        f.rules.push(r);
    }
}

/// One line of `dump_rxfhash`, added to the dump whose header came last.
fn field_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((_, (_, fields))) = f.fields.range_mut(..=n).next_back() else { return Err(fail(n, t, "a hashed field before its header")) };
    match t {
        "IP SA" => fields.src_ip = true,
        "IP DA" => fields.dst_ip = true,
        "L4 bytes 0 & 1 [TCP/UDP src port]" => fields.src_port = true,
        "L4 bytes 2 & 3 [TCP/UDP dst port]" => fields.dst_port = true,
        "None" => {}
        "L2DA" | "VLAN tag" | "L3 proto" | "IPv6 Flow Label" | "GTP TEID" => {
            return Err(fail(n, t, "the NIC hashes a field steerlab does not model (it hashes IP SA, IP DA and the L4 ports)"));
        }
        _ => return Err(fail(n, t, "not a hashed field of ethtool -n rx-flow-hash")),
    }
    Ok(())
}

/// A row of `/proc/interrupts`: `IRQ:`, a count per CPU column, then the chip, the hwirq and
/// the name. Rows of other devices are kept too: the vectors are found by name afterwards.
fn interrupts_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((irq, rest)) = t.split_once(':') else { return Err(fail(n, t, "a /proc/interrupts row starts with 'IRQ:'")) };
    let Ok(irq) = irq.trim().parse::<u32>() else {
        return Ok(()); // NMI:, LOC:, ERR:, MIS: … rows of the architecture
    };
    let words: Vec<&str> = rest.split_whitespace().collect();
    let ncols = f.irq_cpus.len();
    if words.len() < ncols + 1 {
        return Err(fail(n, t, format!("{} columns, fewer than the header's {ncols} CPUs and a name (truncated?)", words.len())));
    }
    let counts = words[..ncols].iter().map(|w| w.parse::<u64>()).collect::<Result<Vec<u64>, _>>().map_err(|_| fail(n, t, "a count per CPU"))?;
    let name = words.last().copied().unwrap_or_default().to_string();
    f.irqs.insert(irq, (name, counts, n));
    Ok(())
}

/// `FILE:VALUE` lines of `grep .`, and `NAME = VALUE` lines of `sysctl`; `true` if `t` is one.
fn file_line(f: &mut Facts, t: &str, n: usize) -> Result<bool, ScenarioError> {
    if let Some(rest) = t.strip_prefix("grep: ") {
        f.unreadable.push(format!("line {n}: {rest}"));
        return Ok(true);
    }
    if let Some((name, value)) = t.split_once(" = ") {
        let value = value.trim();
        let number = || value.parse::<u32>().map_err(|_| fail(n, t, format!("{name} takes a number")));
        match name {
            "net.core.rps_sock_flow_entries" => {
                let v = number()?;
                if v > steerlab_engine::rps::MAX_SOCK_FLOW_ENTRIES {
                    return Err(fail(n, t, format!("steerlab models rps_sock_flow_entries up to {}", steerlab_engine::rps::MAX_SOCK_FLOW_ENTRIES)));
                }
                f.sock_flow_entries = Some(v);
            }
            "net.core.netdev_max_backlog" => {
                let v = number()?;
                if !(1..=1_000_000).contains(&v) {
                    return Err(fail(n, t, "steerlab models netdev_max_backlog 1..=1000000"));
                }
                f.netdev_max_backlog = Some(v);
            }
            _ if name.starts_with("net.") => f.skipped.push(format!("line {n}: sysctl {name} is not read")),
            _ => return Ok(false),
        }
        return Ok(true);
    }
    let Some((path, value)) = t.split_once(':').filter(|(p, _)| p.starts_with('/')) else { return Ok(false) };
    let value = value.trim();
    let mask = |v: &str| CpuSet::parse_hex(v).map_err(|e| fail(n, t, format!("a CPU mask: {e}")));
    let list = |v: &str| CpuSet::parse_list(v).map_err(|e| fail(n, t, format!("a CPU list: {e}")));
    let saw = |f: &mut Facts, set: CpuSet| {
        if set.end() > f.max_cpu_seen {
            (f.max_cpu_seen, f.max_cpu_line) = (set.end(), n);
        }
    };
    if let Some(rest) = path.strip_prefix("/proc/irq/") {
        let Some((irq, file)) = rest.split_once('/') else { return Err(fail(n, t, "expected /proc/irq/N/FILE:VALUE")) };
        let irq: u32 = irq.parse().map_err(|_| fail(n, t, "an IRQ number"))?;
        // The list and the mask say the same; a list read wins over a mask.
        let (set, effective, is_list) = match file {
            "smp_affinity_list" => (list(value)?, false, true),
            "smp_affinity" => (mask(value)?, false, false),
            "effective_affinity_list" => (list(value)?, true, true),
            "effective_affinity" => (mask(value)?, true, false),
            _ => {
                f.skipped.push(format!("line {n}: /proc/irq/{irq}/{file} is not read"));
                return Ok(true);
            }
        };
        saw(f, set);
        let map = if effective { &mut f.effective } else { &mut f.smp_affinity };
        if is_list || !map.contains_key(&irq) {
            map.insert(irq, (set, n));
        }
        return Ok(true);
    }
    if let Some(rest) = path.strip_prefix("/sys/class/net/") {
        let parts: Vec<&str> = rest.split('/').collect();
        let [name, "queues", queue, file] = parts.as_slice() else { return Err(fail(n, t, "expected /sys/class/net/IF/queues/rx-N/FILE:VALUE")) };
        iface(f, name, n, t)?;
        let (rx, q) = match (queue.strip_prefix("rx-"), queue.strip_prefix("tx-")) {
            (Some(q), _) => (true, q),
            (_, Some(q)) => (false, q),
            _ => return Err(fail(n, t, "a queue directory is rx-N or tx-N")),
        };
        let q: u16 = q.parse().map_err(|_| fail(n, t, "a queue number"))?;
        match (rx, *file) {
            (true, "rps_cpus") => {
                let s = mask(value)?;
                saw(f, s);
                f.rps_cpus.insert(q, (s, n));
            }
            (true, "rps_flow_cnt") => {
                let cnt = value.parse().ok().filter(|&c| c <= steerlab_engine::rps::MAX_FLOW_CNT);
                let cnt = cnt.ok_or_else(|| fail(n, t, format!("rps_flow_cnt is a number, at most {} in steerlab", steerlab_engine::rps::MAX_FLOW_CNT)))?;
                f.flow_cnt.insert(q, (cnt, n));
            }
            (false, "xps_cpus") => {
                let s = mask(value)?;
                saw(f, s);
                f.xps_cpus.insert(q, (s, n));
            }
            _ => f.skipped.push(format!("line {n}: {file} of {queue} is not read")),
        }
        return Ok(true);
    }
    Ok(false)
}

/// The queue a vector's name says it serves: `ice-IF-TxRx-N`, `IF-TxRx-N` (ixgbe, i40e, bnxt),
/// `IF-rx-N`, `mlx5_compN@pci:DEVICE`, virtio_net's `DEVICE-input.N`; only the captured
/// interface's or device's (mlx5's and virtio's names carry the device, not the interface).
fn vector_queue(name: &str, iface: Option<&str>, device: Option<&str>) -> Option<u16> {
    if let Some(rest) = name.strip_prefix("mlx5_comp") {
        let (q, dev) = rest.split_once("@pci:").unwrap_or((rest, ""));
        return device.is_none_or(|d| d == dev).then(|| q.parse().ok()).flatten();
    }
    if let Some((dev, q)) = name.split_once("-input.") {
        return (dev.starts_with("virtio") && device.is_none_or(|d| d == dev)).then(|| q.parse().ok()).flatten();
    }
    let (head, q) = name.rsplit_once('-')?;
    let q = q.parse().ok()?;
    let head = head.strip_suffix("-TxRx").or_else(|| head.strip_suffix("-rx"))?;
    match iface {
        Some(i) => (head == i || head.ends_with(&format!("-{i}"))).then_some(q),
        None => Some(q),
    }
}

/// The kernel generation of an in-tree driver's `version:` (the kernel release).
fn kernel_of(version: &str) -> Option<Kernel> {
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let (major, minor): (u32, u32) = (parts.next()?.parse().ok()?, parts.next()?.parse().ok()?);
    let patch: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some(match (major, minor) {
        (0..=5, _) | (6, 0..=14) => Kernel::V6_14,
        (6, 17) if patch >= 8 => Kernel::V6_18,
        (6, 15..=17) => Kernel::V6_15,
        _ => Kernel::V6_18,
    })
}

/// The facts as a scenario, with the assumptions made.
fn build(f: Facts) -> Result<Imported, ScenarioError> {
    let mut assume: Vec<String> = Vec::new();
    let mut sc = crate::parse(r#"{"schema": 1, "id": "your-host"}"#, &[]).map_err(|e| ScenarioError(format!("internal: {e}")))?;
    let iface = f.iface.as_ref().map_or_else(|| "eth0".to_string(), |(i, _)| i.clone());
    if f.iface.is_none() {
        assume.push("the capture names no interface: it is eth0".into());
    } else if iface != "eth0" {
        assume.push(format!("{iface} is eth0 in the sandbox (its commands name eth0)"));
    }

    // Driver and kernel.
    let name = f.driver.as_ref().map(|(d, _)| d.as_str());
    let driver = match (name, name.and_then(Driver::of_module)) {
        (_, Some(d)) => d,
        (Some(other), None) => {
            assume.push(format!("driver {other} is modelled as steerlab's generic NIC (RSS and ntuple rules, no aRFS or ATR)"));
            Driver::Generic
        }
        (None, None) => {
            assume.push("no ethtool -i: the generic NIC model (no aRFS, no ATR)".into());
            Driver::Generic
        }
    };
    if driver == Driver::Ice {
        assume.push("ice is modelled with the full-tuple aRFS match (\"net: ice: Perform accurate aRFS flow match\"); older kernels match on the hash only: --set nic.driver=ice-hash-match".into());
    }
    sc.nic.driver = Named(driver);
    match f.version.as_deref().and_then(kernel_of) {
        Some(k) => sc.kernel = Named(k),
        None => assume.push(format!("kernel rules of {} (no kernel release in ethtool -i)", steerlab_engine::NamedEnum::as_name(sc.kernel.0))),
    }

    // CPUs.
    let header_cpus = f.irq_cpus.iter().max().map(|&c| c + 1);
    let cpus = match (f.nproc, f.lscpu_cpus, header_cpus) {
        (Some(c), _, _) | (None, Some(c), _) => c,
        (None, None, Some(c)) => {
            assume.push(format!("{c} CPUs, from /proc/interrupts' header (online CPUs only; capture nproc --all)"));
            c
        }
        _ if f.max_cpu_seen > 0 => {
            assume.push(format!("{} CPUs, the highest CPU the masks name (capture nproc --all)", f.max_cpu_seen));
            f.max_cpu_seen
        }
        _ => {
            assume.push(format!("{} CPUs (no nproc, lscpu or /proc/interrupts)", sc.host.cpus));
            sc.host.cpus
        }
    };
    if f.max_cpu_seen > cpus {
        return Err(ScenarioError(format!("line {}: names CPU {}, but the host has {cpus} CPUs", f.max_cpu_line, f.max_cpu_seen - 1)));
    }
    sc.host.cpus = cpus;
    sc.host.numa_nodes = match f.numa_nodes {
        Some(nodes) if nodes >= 1 && nodes <= cpus && cpus % nodes == 0 => nodes,
        Some(nodes) => {
            assume.push(format!("{nodes} NUMA nodes do not split {cpus} CPUs evenly: 1 node"));
            1
        }
        None => {
            assume.push("1 NUMA node (capture lscpu for the node count)".into());
            1
        }
    };

    // Queues.
    let ch = |k: &str| f.channels.get(k).copied();
    let (rx, tx) = match (ch("combined"), ch("rx"), ch("tx")) {
        (None, None, None) => {
            let rx = f.rings.or_else(|| f.rps_cpus.keys().max().map(|&q| u32::from(q) + 1));
            let rx = rx.unwrap_or_else(|| u32::from(sc.nic.rx_queues));
            let tx = f.xps_cpus.keys().max().map_or(rx, |&q| u32::from(q) + 1);
            assume.push(format!("{rx} RX and {tx} TX queues (no ethtool -l)"));
            (rx, tx)
        }
        (c, r, t) => (c.unwrap_or(0) + r.unwrap_or(0), c.unwrap_or(0) + t.unwrap_or(0)),
    };
    let max_q = u32::from(steerlab_engine::config::MAX_QUEUES);
    if !(1..=max_q).contains(&rx) || !(1..=max_q).contains(&tx) {
        return Err(ScenarioError(format!("line {}: {rx} RX and {tx} TX queues; steerlab models 1..={max_q} of each", f.channels_line)));
    }
    sc.nic.rx_queues = rx as u16;
    sc.nic.tx_queues = tx as u16;

    // The indirection table and key.
    if f.indir.is_empty() {
        assume.push(format!("the default indirection table of {} entries (no ethtool -x)", sc.nic.reta_size));
    } else {
        let size = f.indir.len() as u32;
        if !size.is_power_of_two() || !(8..=steerlab_engine::rss::Reta::MAX_SIZE).contains(&size) {
            return Err(ScenarioError(format!("line {}: an indirection table of {size} entries; steerlab models a power of two in 8..=2048 (truncated?)", f.indir_line)));
        }
        if let Some(q) = f.indir.iter().find(|&&q| u32::from(q) >= rx) {
            return Err(ScenarioError(format!("line {}: the table names queue {q}, but the NIC has {rx} RX queues", f.indir_line)));
        }
        sc.nic.reta_size = size;
        if steerlab_engine::rss::Reta::from_entries(&f.indir, rx).is_ok_and(|r| r.user_configured()) {
            sc.nic.indir = f.indir.clone();
        }
    }
    match &f.key {
        Some(k) if k.len() >= 40 => {
            if k.len() > 40 {
                assume.push(format!("the key's first 40 of {} bytes: the Toeplitz hash of a TCP or UDP tuple (36 bytes at most) reads no further", k.len()));
            }
            let hex: Vec<String> = k[..40].iter().map(|b| format!("{b:02x}")).collect();
            sc.nic.rss_key = hex.join(":");
        }
        Some(k) => return Err(ScenarioError(format!("line {}: a {}-byte RSS key; the IPv6 tuple needs 40", f.key_line, k.len()))),
        None => assume.push("the Microsoft verification key (no RSS key in the capture)".into()),
    }

    // Commands at time 0 for the rest.
    let mut cmds: Vec<String> = Vec::new();
    let mut hashed = [false; 4];
    for (&line, &(ty, fields)) in &f.fields {
        if !fields.nic_accepts() {
            let shown = if fields == NO_FIELDS { "no field".to_string() } else { fields.to_string() };
            return Err(ScenarioError(format!("line {line}: {} flows are hashed on {shown}; steerlab's NIC hashes sd (addresses) or sdfn (addresses and ports)", ty.name())));
        }
        hashed[ty.index()] = true;
        if fields != HashFields::FOUR_TUPLE {
            cmds.push(format!("ethtool -N eth0 rx-flow-hash {} {fields}", ty.name()));
        }
    }
    let unhashed: Vec<&str> = FlowType::ALL.iter().filter(|t| !hashed[t.index()]).map(|t| t.name()).collect();
    if !unhashed.is_empty() {
        assume.push(format!("{} hash addresses and ports, sdfn (no ethtool -n IF rx-flow-hash for them)", unhashed.join(", ")));
    }

    sc.nic.ntuple = f.ntuple.unwrap_or(!f.rules.is_empty());
    if f.ntuple.is_none() {
        assume.push(format!("ntuple filters {} (no ethtool -k)", if sc.nic.ntuple { "on, since rules are listed" } else { "off" }));
    }
    if let Some((total, line)) = f.rules_total {
        if total != f.rules.len() {
            return Err(ScenarioError(format!("line {line}: ethtool -n says {total} rules but {} follow (truncated?)", f.rules.len())));
        }
    }
    if !f.rules_seen {
        assume.push("no ntuple rules (no ethtool -n)".into());
    }
    for r in &f.rules {
        if let Some(why) = &r.unsupported {
            assume.push(format!("line {}: rule {} is left out: {why}, which steerlab does not model; flows it matches are predicted without it", r.line, r.loc));
            continue;
        }
        let (Some(ty), Some(q)) = (r.flow_type, r.queue) else {
            return Err(ScenarioError(format!("line {}: rule {} has no Rule Type or no Action line (truncated?)", r.line, r.loc)));
        };
        if u32::from(q) >= rx {
            return Err(ScenarioError(format!("line {}: rule {} sends to queue {q}, but the NIC has {rx} RX queues", r.line, r.loc)));
        }
        cmds.push(rule_command(ty, r, q));
    }
    if !f.rules.is_empty() && !sc.nic.ntuple {
        return Err(ScenarioError(format!("line {}: ethtool -n lists rules, but ethtool -k says ntuple-filters off", f.rules_line)));
    }

    // IRQ CPUs: the effective affinity, else the first CPU of smp_affinity, else where the
    // vector fired most; the vectors are found by name in /proc/interrupts.
    let own_iface = f.iface.as_ref().map(|(i, _)| i.as_str());
    let mut vectors: BTreeMap<u16, u32> = BTreeMap::new();
    for (&irq, (name, _, _)) in &f.irqs {
        if let Some(q) = vector_queue(name, own_iface, f.device.as_deref()) {
            vectors.entry(q).or_insert(irq);
        }
    }
    let mut irq_known = 0;
    for q in 0..rx as u16 {
        let Some(&irq) = vectors.get(&q) else { continue };
        let row = f.irqs.get(&irq).map_or(0, |r| r.2);
        let fired = f.irqs.get(&irq).and_then(|(_, counts, _)| {
            let (col, &most) = counts.iter().enumerate().max_by_key(|&(i, c)| (c, std::cmp::Reverse(i)))?;
            (most > 0).then(|| f.irq_cpus[col])
        });
        let cpu = f.effective.get(&irq).and_then(|(s, _)| s.iter().next()).or_else(|| f.smp_affinity.get(&irq).and_then(|(s, _)| s.iter().next())).or(fired);
        let Some(cpu) = cpu else { continue };
        if cpu >= cpus {
            return Err(ScenarioError(format!("line {row}: IRQ {irq} (rx-{q}) fired most on CPU {cpu}, but the host has {cpus} CPUs")));
        }
        irq_known += 1;
        if cpu != q % cpus {
            cmds.push(format!("echo {cpu} > /proc/irq/{}/smp_affinity_list", SANDBOX_IRQ_BASE + u32::from(q)));
        }
    }
    if irq_known < rx {
        assume.push(format!(
            "{} of {rx} queues' IRQ CPUs not in the capture: queue q on CPU q mod {cpus} (capture /proc/interrupts and /proc/irq/*/effective_affinity_list)",
            rx - irq_known
        ));
    }

    // RPS, RFS, XPS: one scenario field when every queue has the same setting, else a command
    // per queue.
    let known = |keys: &mut dyn Iterator<Item = u16>, total: u32| keys.filter(|&q| u32::from(q) < total).count();
    for (what, lines, total) in [
        ("rx", f.rps_cpus.iter().map(|(&q, &(_, l))| (q, l)).chain(f.flow_cnt.iter().map(|(&q, &(_, l))| (q, l))).collect::<Vec<_>>(), rx),
        ("tx", f.xps_cpus.iter().map(|(&q, &(_, l))| (q, l)).collect(), tx),
    ] {
        if let Some((q, line)) = lines.into_iter().find(|&(q, _)| u32::from(q) >= total) {
            return Err(ScenarioError(format!("line {line}: {what}-{q}, but the NIC has {total} {} queues", what.to_uppercase())));
        }
    }
    let rps_known = known(&mut f.rps_cpus.keys().copied(), rx);
    if rps_known < rx as usize {
        assume.push(format!("{} of {rx} queues' rps_cpus not in the capture: none", rx as usize - rps_known));
    }
    let rps: Vec<CpuSet> = (0..rx as u16).map(|q| f.rps_cpus.get(&q).map_or(CpuSet::EMPTY, |e| e.0)).collect();
    if rps.iter().all(|s| *s == rps[0]) {
        sc.rps.cpus = rps[0].to_list();
    } else {
        for (q, set) in rps.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
            cmds.push(format!("echo {} > /sys/class/net/eth0/queues/rx-{q}/rps_cpus", set.to_hex(cpus)));
        }
    }
    let cnt_known = known(&mut f.flow_cnt.keys().copied(), rx);
    if cnt_known < rx as usize {
        assume.push(format!("{} of {rx} queues' rps_flow_cnt not in the capture: 0", rx as usize - cnt_known));
    }
    let cnts: Vec<u32> = (0..rx as u16).map(|q| f.flow_cnt.get(&q).map_or(0, |e| e.0)).collect();
    if cnts.iter().all(|&c| c == cnts[0]) {
        sc.rfs.flow_cnt = cnts[0];
    } else {
        sc.rfs.flow_cnt = 0;
        for (q, cnt) in cnts.iter().enumerate().filter(|(_, &c)| c > 0) {
            cmds.push(format!("echo {cnt} > /sys/class/net/eth0/queues/rx-{q}/rps_flow_cnt"));
        }
    }
    match f.sock_flow_entries {
        Some(n) => sc.rfs.sock_flow_entries = n,
        None => assume.push("net.core.rps_sock_flow_entries 0: RFS off (no sysctl in the capture)".into()),
    }
    if let Some(n) = f.netdev_max_backlog {
        sc.net.netdev_max_backlog = n;
    }
    if f.xps_cpus.is_empty() {
        assume.push("XPS maps as the driver sets them from IRQ affinity (no xps_cpus in the capture)".into());
    } else {
        let xps_known = known(&mut f.xps_cpus.keys().copied(), tx);
        if xps_known < tx as usize {
            assume.push(format!("{} of {tx} queues' xps_cpus not in the capture: none", tx as usize - xps_known));
        }
        let maps: Vec<CpuSet> = (0..tx as u16).map(|q| f.xps_cpus.get(&q).map_or(CpuSet::EMPTY, |e| e.0)).collect();
        // The engine's starting maps (config.rs XpsMap): `irq`, CPU q on TX queue q; `all`,
        // CPU c on TX queue c mod tx.
        let start = |m: XpsMap| -> Vec<CpuSet> {
            (0..tx).map(|q| {
                let mut set = CpuSet::EMPTY;
                (0..cpus).filter(|&c| match m {
                    XpsMap::None => false,
                    XpsMap::Irq => u32::from(c) == q,
                    XpsMap::All => u32::from(c) % tx == q,
                }).for_each(|c| set.insert(c));
                set
            }).collect()
        };
        match [XpsMap::None, XpsMap::Irq, XpsMap::All].into_iter().find(|&m| start(m) == maps) {
            Some(m) => sc.xps.map = Named(m),
            None => {
                sc.xps.map = Named(XpsMap::None);
                for (q, set) in maps.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
                    cmds.push(format!("echo {} > /sys/class/net/eth0/queues/tx-{q}/xps_cpus", set.to_hex(cpus)));
                }
            }
        }
    }
    assume.extend(f.skipped);
    assume.extend(f.unreadable);

    sc.lesson.title = format!("Your host: {iface}, {} queues, {cpus} CPUs", rx);
    sc.lesson.source = format!("imported from a capture of {iface}");
    sc.timeline = cmds.into_iter().map(|command| crate::TimedCommand { at_ms: 0, command }).collect();
    let json = to_json(&sc);
    let sc = crate::parse(&json.to_string(), &[])?;
    // Every command must apply: a host the console refuses is no import.
    let mut sim = sc.build()?;
    sc.apply_due(&mut sim)?;
    Ok(Imported { scenario: sc, json, assumptions: assume, iface })
}

/// The fields the importer sets, as scenario JSON: the rest are the defaults. Written out
/// rather than serialised whole, so that the file says only what the capture said (and the
/// page's bundle needs no serialiser for every scenario type).
fn to_json(sc: &Scenario) -> serde_json::Value {
    use serde_json::json;
    let mut nic = json!({
        "driver": sc.nic.driver.0.name(),
        "rx_queues": sc.nic.rx_queues,
        "tx_queues": sc.nic.tx_queues,
        "reta_size": sc.nic.reta_size,
        "ntuple": sc.nic.ntuple,
    });
    if !sc.nic.rss_key.is_empty() {
        nic["rss_key"] = json!(sc.nic.rss_key);
    }
    if !sc.nic.indir.is_empty() {
        nic["indir"] = json!(sc.nic.indir);
    }
    json!({
        "schema": crate::SCHEMA,
        "id": sc.id,
        "lesson": { "title": sc.lesson.title, "source": sc.lesson.source },
        "kernel": sc.kernel.0.name(),
        "host": { "cpus": sc.host.cpus, "numa_nodes": sc.host.numa_nodes },
        "nic": nic,
        "rps": { "cpus": sc.rps.cpus },
        "rfs": { "flow_cnt": sc.rfs.flow_cnt, "sock_flow_entries": sc.rfs.sock_flow_entries },
        "net": { "netdev_max_backlog": sc.net.netdev_max_backlog },
        "xps": { "map": sc.xps.map.0.name() },
        // A host to play flows on, not a lesson with an end: a minute before time pauses.
        "sim": { "duration_ms": YOUR_HOST_MS },
        "timeline": sc.timeline.iter().map(|c| json!({ "at_ms": c.at_ms, "command": c.command })).collect::<Vec<_>>(),
    })
}

/// The `ethtool -N` line of a rule, with its masks as ethtool takes them.
fn rule_command(ty: FlowType, r: &RuleText, q: u16) -> String {
    let mut cmd = format!("ethtool -N eth0 flow-type {}", ty.name());
    let full = if ty.is_ipv6() { u128::MAX } else { u128::from(u32::MAX) };
    let mask_ip = |m: u128| -> IpAddr {
        if ty.is_ipv6() {
            std::net::Ipv6Addr::from(m).into()
        } else {
            std::net::Ipv4Addr::from(m as u32).into()
        }
    };
    for (name, v) in [("src-ip", r.src), ("dst-ip", r.dst)] {
        match v {
            Some((_, m)) if m == full => {}
            Some((a, 0)) => cmd += &format!(" {name} {a}"),
            Some((a, m)) => cmd += &format!(" {name} {a} m {}", mask_ip(m)),
            None => {}
        }
    }
    for (name, v) in [("src-port", r.sport), ("dst-port", r.dport)] {
        match v {
            Some((_, 0xffff)) | None => {}
            Some((p, 0)) => cmd += &format!(" {name} {p}"),
            Some((p, m)) => cmd += &format!(" {name} {p} m {m:#x}"),
        }
    }
    cmd + &format!(" action {q} loc {}", r.loc)
}
