//! The import loop: each line is a command (`commands.rs`: what output follows), a line that
//! says what it is wherever it stands (a header, a tool's error, `FILE:VALUE`), or a line of
//! the output it stands in.

use steerlab_engine::FlowType;

use super::commands::{self, Command};
use super::counters::{self, coalesce_line, mpstat_line, nstat_line, ring_line, snmp_values, softnet_line, stats_line};
use super::ethtool::{
    channels_line, field_line, finish_rule, hash_function_line, indir_line, info_line, parse_key, rule_line,
};
use super::kernel_files::{file_line, interrupt_row, interrupts_line, lscpu_line, lscpu_parse_line, queues_line};
use super::{cpu_count, fail, iface, Block, Facts, RuleText, NO_FIELDS};
use crate::ScenarioError;

/// Reads every line of `text` into `f`.
pub(super) fn read(f: &mut Facts, text: &str) -> Result<(), ScenarioError> {
    let mut block = Block::None;
    let mut rule: Option<RuleText> = None;
    // The capture's last command, named when it printed an error instead of its output.
    let mut last_cmd = String::new();
    // The line after a command: when it is not of the output expected, the command printed
    // something else (an error steerlab does not know the words of), said rather than refused.
    let mut first = false;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let t = raw.trim_end_matches('\r').trim();
        // Blank lines, markdown fences and `grep -A`'s group separator end a rule, a value and
        // a field list; tables and the key have none inside.
        if t.is_empty() || t.starts_with("```") || t == "--" {
            finish_rule(f, &mut rule);
            if !matches!(
                block,
                Block::Skip
                    | Block::Indir
                    | Block::Interrupts
                    | Block::Grep
                    | Block::LscpuP
                    | Block::Queues
                    | Block::Rules
                    | Block::Coalesce
                    | Block::Mpstat
            ) {
                block = Block::None;
            }
            continue;
        }
        if t.starts_with("# CPU,Core,Socket,Node") {
            block = Block::LscpuP; // lscpu -p's own header comment
            continue;
        }
        if t == "#kernel" {
            block = Block::Nstat; // nstat's own header
            continue;
        }
        if let Some(cmd) = commands::command(t) {
            finish_rule(f, &mut rule);
            last_cmd.clone_from(&cmd.text);
            block = command_block(f, &cmd, n);
            first = true;
            continue;
        }
        if t.starts_with('#') {
            continue; // a comment (the capture script's own header)
        }
        if cut_marker(t) {
            if !matches!(block, Block::None | Block::Skip) {
                return Err(fail(n, t, "the output is cut here: paste it whole"));
            }
            f.say(n, &format!("{t:?} between outputs: what it left out is not read"));
            continue;
        }
        if let Some(b) = header(f, t, n)? {
            finish_rule(f, &mut rule);
            block = b;
            continue;
        }
        if tool_error(t) {
            tool_said(f, &mut block, t, n, &last_cmd);
            continue;
        }
        if (t.starts_with("Filter: ") || t.starts_with("Total ")) && block != Block::Rules {
            f.rules_seen = true;
            f.rules_line = n;
            block = Block::Rules; // `ethtool -n IF rule N`, or a rule list pasted alone
        }
        if block != Block::Rules && file_line(f, t, n)? {
            continue;
        }
        if matches!(block, Block::None | Block::Awaiting) && interrupt_row(t) {
            block = Block::Interrupts; // /proc/interrupts rows pasted alone, or grep'd
        }
        if matches!(block, Block::None | Block::Awaiting) && counters::softnet_row(t) {
            block = Block::Softnet; // softnet_stat rows pasted alone
        }
        if block == Block::None && indir_first_row(t) {
            block = Block::Indir; // an indirection table pasted without its header
        }
        if block == Block::None && queues_line(f, t, n) {
            continue; // `ls …/queues/` or `ip -d link`'s queue counts pasted alone
        }
        let after_command = std::mem::take(&mut first);
        if let Err(e) = output_line(f, &mut block, &mut rule, t, n, &last_cmd) {
            if !after_command || block == Block::None {
                return Err(e);
            }
            f.say(n, &format!("`{last_cmd}` printed {t:?}, not its output"));
            block = Block::Skip;
        }
    }
    finish_rule(f, &mut rule);
    Ok(())
}

/// A line of the output `block` stands in.
fn output_line(
    f: &mut Facts,
    block: &mut Block,
    rule: &mut Option<RuleText>,
    t: &str,
    n: usize,
    last_cmd: &str,
) -> Result<(), ScenarioError> {
    match block {
        Block::Queues => {
            queues_line(f, t, n);
        }
        Block::Skip | Block::OtherFields => {}
        // A command whose output has a header printed something else: said, and skipped.
        Block::Awaiting => {
            f.say(n, &format!("`{last_cmd}` printed {t:?}, not read"));
            *block = Block::Skip;
        }
        Block::Device => {
            f.device = t.rsplit('/').next().map(str::to_string);
            *block = Block::None;
        }
        Block::Uname => {
            // `uname -r`: the release; `uname -a`: `Linux HOST RELEASE …`; /proc/version:
            // `Linux version RELEASE …`.
            let words: Vec<&str> = t.split_whitespace().collect();
            let release = match words.as_slice() {
                ["Linux", "version", r, ..] | ["Linux", _, r, ..] => r,
                [r, ..] => r,
                [] => "",
            };
            f.release = Some((release.to_string(), n));
            *block = Block::None;
        }
        Block::Value => {
            let path = std::mem::take(&mut f.value_path);
            if !file_line(f, &format!("{path}:{t}"), n)? {
                f.say(n, &format!("{path} is not read"));
            }
            *block = Block::None;
        }
        Block::None => return Err(fail(n, t, "not part of any output steerlab reads")),
        Block::Info => info_line(f, t, n),
        Block::Nproc => {
            let cpus = t.parse::<u32>().map_err(|_| fail(n, t, "nproc prints one number"))?;
            f.nproc = Some((cpu_count(cpus, n, t)?, n));
            *block = Block::None;
        }
        Block::Lscpu => lscpu_line(f, t, n)?,
        Block::LscpuP => lscpu_parse_line(f, t, n)?,
        Block::Channels { current } => {
            let current = *current;
            channels_line(f, t, n, current, block)?;
        }
        Block::Indir => indir_line(f, t, n, block)?,
        Block::Key => {
            f.key = Some(parse_key(t).ok_or_else(|| fail(n, t, "the RSS key is hex bytes separated by colons"))?);
            f.key_line = n;
            *block = Block::Indir;
        }
        Block::HashFunction => hash_function_line(t, n)?,
        Block::Rules => rule_line(f, rule, t, n)?,
        Block::Fields(_) => field_line(f, t, n)?,
        Block::Features => {
            if let Some(v) = t.strip_prefix("ntuple-filters:") {
                f.ntuple = Some((v.trim().starts_with("on"), n));
            }
        }
        Block::Interrupts => interrupts_line(f, t, n)?,
        Block::Ring { .. } => ring_line(f, t, n, block)?,
        Block::Coalesce => coalesce_line(f, t, n)?,
        Block::Stats => stats_line(f, t, n)?,
        Block::Softnet => softnet_line(f, t, n)?,
        Block::Nstat => nstat_line(f, t, n)?,
        Block::Snmp => snmp_values(f, t, n)?,
        Block::Mpstat => mpstat_line(f, t, n)?,
        Block::Grep => {
            return Err(fail(
                n,
                t,
                "a value without its file's name: capture with grep -H . FILES",
            ))
        }
    }
    Ok(())
}

/// The first row of an indirection table, `0: Q Q …` (numbers only, unlike an interrupt row).
fn indir_first_row(t: &str) -> bool {
    t.split_once(':').is_some_and(|(i, rest)| {
        i.trim() == "0" && !rest.trim().is_empty() && rest.split_whitespace().all(|w| w.parse::<u16>().is_ok())
    })
}

/// A line that says the output around it was cut by whoever pasted it.
fn cut_marker(t: &str) -> bool {
    matches!(t, "..." | "…" | "[...]" | "[…]") || (t.starts_with('[') && t.to_ascii_lowercase().contains("snip"))
}

/// A line a tool prints instead of (or inside) its output: an error, said where it stands.
fn tool_error(t: &str) -> bool {
    // Shells' and tools' own prefixes (`bash: x: command not found`, `cat: f: No such file…`)
    // are caught by the endings below.
    const STARTS: &[&str] = &[
        "Cannot ",
        "cannot ",
        "rxclass:",
        "rmgr:",
        "netlink error",
        "ethtool:",
        "Operation not",
        "No data available",
        "Permission denied",
        "No such",
        "no stats available",
        "bad command line argument",
    ];
    const HAS: &[&str] = &[
        ": No such file or directory",
        ": Operation not supported",
        ": Operation not permitted",
        ": Permission denied",
        ": No such device",
        ": Invalid argument",
        "command not found",
        ": not found",
    ];
    STARTS.iter().any(|s| t.starts_with(s)) || HAS.iter().any(|s| t.contains(s))
}

/// Says a tool's error line: the output it stands for is not there.
fn tool_said(f: &mut Facts, block: &mut Block, t: &str, n: usize, last_cmd: &str) {
    let what = match block {
        Block::Rules if t.starts_with("rxclass: Unknown flow type") => {
            f.rules_unprintable += 1;
            "ethtool could not print a rule: it is left out".to_string()
        }
        Block::Rules | Block::Awaiting | Block::None if t.starts_with("rxclass: Cannot get RX class rule count") => {
            f.rules_seen = false;
            "no ntuple rules listed (ntuple off, or not supported)".to_string()
        }
        _ if last_cmd.is_empty() => format!("{t:?}: not read"),
        _ => {
            // No list: the rules are unknown, not absent.
            f.rules_seen &= *block != Block::Rules;
            format!("`{last_cmd}` printed {t:?} instead of its output")
        }
    };

    f.say(n, &what);
    if matches!(
        block,
        Block::Awaiting | Block::Value | Block::Nproc | Block::Uname | Block::Device
    ) {
        *block = Block::Skip;
    }
}

/// The block a command's output is in.
fn command_block(f: &mut Facts, cmd: &Command, n: usize) -> Block {
    let w: Vec<&str> = cmd.words.iter().map(String::as_str).collect();
    let Some(&program) = w.first() else {
        return Block::None; // a prompt alone
    };
    let block = match program {
        "ethtool" => ethtool_block(f, &w, n),
        "nproc" => Block::Nproc,
        "lscpu" if w.iter().any(|a| a.starts_with("-p") || a.starts_with("--parse")) => Block::LscpuP,
        "lscpu" => Block::Lscpu,
        "uname" => Block::Uname,
        "readlink" => Block::Device,
        "sysctl" => Block::Awaiting,
        "nstat" => Block::Nstat,
        "mpstat" => {
            f.mpstat_cols = None;
            Block::Mpstat
        }
        "ip" => Block::Queues,
        "ls" if w.iter().any(|a| a.contains("/queues")) => Block::Queues,
        "cat" | "head" | "tail" | "less" | "more" | "grep" | "egrep" => file_block(f, &w),
        _ => Block::Skip,
    };
    match (&block, &cmd.filter) {
        (Block::Skip, _) => f.say(n, &format!("the output of `{}` is not read", cmd.text)),
        (_, Some(filter)) => f.say(n, &format!("`{}`: read for what `{filter}` keeps", cmd.text)),
        _ => {}
    }
    block
}

/// `ethtool OPTION IF …`: the block of its output; a command that changes the NIC prints
/// nothing steerlab reads.
fn ethtool_block(f: &mut Facts, w: &[&str], n: usize) -> Block {
    if let Some(dev) = w.get(2).filter(|d| !d.starts_with('-')) {
        if f.iface.is_none() {
            f.iface = Some((dev.to_string(), n));
        }
    }
    match w.get(1).copied().unwrap_or_default() {
        "-i" | "--driver" => Block::Info,
        "-l" | "--show-channels" => Block::Channels { current: false },
        "-x" | "--show-rxfh-indir" | "--show-rxfh" => Block::Indir,
        "-n" | "-u" | "--show-nfc" | "--show-ntuple" if w.contains(&"rx-flow-hash") => Block::Awaiting,
        "-n" | "-u" | "--show-nfc" | "--show-ntuple" => {
            f.rules_seen = true;
            f.rules_line = n;
            if w.contains(&"rule") {
                f.say(n, "one rule listed: others, if any, are not in the capture");
            }
            Block::Rules
        }
        "-k" | "--show-features" | "--show-offload" => Block::Features,
        "-g" | "--show-ring" => Block::Ring { current: false },
        "-c" | "--show-coalesce" => Block::Coalesce,
        "-S" | "--statistics" => Block::Stats,
        _ => Block::Skip,
    }
}

/// `cat FILE`, `grep PATTERN FILE…`: the block of what they print.
fn file_block(f: &mut Facts, w: &[&str]) -> Block {
    let grep = w[0].ends_with("grep");
    let named = w.iter().any(|a| *a == "-H" || a.starts_with("--with-filename"));
    let files: Vec<&str> = w[1..].iter().copied().filter(|a| a.starts_with('/')).collect();
    let several = files.len() > 1 || files.iter().any(|p| p.contains(['*', '?', '{', '[']));
    match files.as_slice() {
        ["/proc/interrupts"] => Block::Interrupts,
        ["/proc/version"] => Block::Uname,
        ["/proc/net/softnet_stat"] => Block::Softnet,
        ["/proc/net/snmp" | "/proc/net/netstat"] => Block::Snmp,
        ["/proc/net/snmp6"] => Block::Nstat,
        _ if grep && (named || several) => Block::Grep,
        [one]
            if !several
                && ["/proc/irq/", "/sys/class/net/", "/proc/sys/net/core/"]
                    .iter()
                    .any(|p| one.starts_with(p)) =>
        {
            f.value_path = one.to_string();
            Block::Value
        }
        _ => Block::Skip,
    }
}

/// Header lines: each starts an output, wherever it stands.
fn header(f: &mut Facts, t: &str, n: usize) -> Result<Option<Block>, ScenarioError> {
    if let Some(d) = t.strip_prefix("driver:") {
        f.driver = Some((d.trim().to_string(), n));
        return Ok(Some(Block::Info));
    }
    // ethtool's `… for IF:` headers.
    for (prefix, block) in [
        ("Channel parameters for ", Block::Channels { current: false }),
        ("Ring parameters for ", Block::Ring { current: false }),
        ("Coalesce parameters for ", Block::Coalesce),
        ("Features for ", Block::Features),
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            iface(f, rest.trim_end_matches(':'), n, t)?;
            match block {
                Block::Ring { .. } => f.ring_header = n,
                Block::Coalesce => f.coalesce_header = n,
                _ => {}
            }
            return Ok(Some(block));
        }
    }
    if t == "NIC statistics:" {
        return Ok(Some(Block::Stats));
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
        f.rings = Some((rings, n));
        f.indir.clear();
        f.indir_line = n;
        return Ok(Some(Block::Indir));
    }
    if let Some(key) = t.strip_prefix("RSS hash key:").map(str::trim).filter(|k| !k.is_empty()) {
        // The key on the header's line, as some documentation prints it.
        f.key = Some(parse_key(key).ok_or_else(|| fail(n, t, "the RSS key is hex bytes separated by colons"))?);
        f.key_line = n;
        return Ok(Some(Block::Indir));
    }
    match t {
        "RSS hash key:" => return Ok(Some(Block::Key)),
        "RSS hash function:" | "RSS input transformation:" => return Ok(Some(Block::HashFunction)),
        _ => {}
    }
    if let Some(rings) = t.strip_suffix(" RX rings available") {
        let rings = rings
            .parse()
            .map_err(|_| fail(n, t, "expected 'N RX rings available'"))?;
        f.rings.get_or_insert((rings, n));
        f.rules_seen = true;
        f.rules_line = n;
        return Ok(Some(Block::Rules));
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
    if let Some(rest) = t.strip_prefix("Linux version ") {
        f.release = Some((rest.split_whitespace().next().unwrap_or_default().to_string(), n));
        return Ok(Some(Block::None));
    }
    if counters::sysstat_banner(t) {
        f.mpstat_cols = None;
        return Ok(Some(Block::Mpstat));
    }
    if counters::mpstat_header(f, t) {
        return Ok(Some(Block::Mpstat));
    }
    if counters::snmp_names(f, t, n) {
        return Ok(Some(Block::Snmp));
    }
    // `ip link`'s first line of an interface: `2: eth0: <BROADCAST,…> mtu …`.
    if t.split_whitespace().nth(2).is_some_and(|w| w.starts_with('<')) && t.contains(": <") {
        return Ok(Some(Block::Queues));
    }
    if super::kernel_files::interrupts_header(f, t, n)? {
        return Ok(Some(Block::Interrupts));
    }
    Ok(None)
}
