//! The outputs that show where packets drop and who takes the interrupts, line by line into
//! the capture's facts: `ethtool -g` (netlink/rings.c `rings_reply_cb`: `Pre-set maximums:`,
//! `Current hardware settings:`, `RX:\t\t\t4096`), `ethtool -c` (netlink/coalesce.c
//! `coalesce_reply_cb`: `Adaptive RX: on  TX: off`, `rx-usecs:\t50`), `ethtool -S` (ethtool.c
//! `do_gnicstats`: `NIC statistics:`, then `"     %s: %llu"`), `/proc/net/softnet_stat`
//! (net/core/net-procfs.c `softnet_seq_show`: `%08x` columns per online CPU), `nstat`
//! (iproute2 misc/nstat.c `dump_kern_db`: `#kernel`, then `%-32s%-16llu%6.1f`), the pairs of
//! `/proc/net/snmp` and `/proc/net/netstat` (net/ipv4/proc.c `snmp_seq_show`, `netstat_seq_show`:
//! `Udp: InDatagrams …` then `Udp: 1 …`) and `mpstat -P ALL` (sysstat mpstat.c
//! `write_plain_cpu_stats`: a header naming `CPU` and `%soft`, a row per CPU, `Average:`).

use steerlab_engine::cpuset::MAX_CPUS;

use super::{fail, Block, Facts};
use crate::ScenarioError;

/// `NAME: VALUE` of ethtool's `-g`, `-c` and `-S` outputs, split at the last colon (a few
/// drivers' counter names hold one), both trimmed.
fn name_value<'a>(t: &'a str, n: usize, what: &str) -> Result<(&'a str, &'a str), ScenarioError> {
    t.rsplit_once(':')
        .map(|(k, v)| (k.trim(), v.trim()))
        .ok_or_else(|| fail(n, t, what))
}

/// A count as the tools print it (`%llu`), or `None` for ethtool's `n/a`.
fn count(t: &str, n: usize, v: &str, what: &str) -> Result<Option<u64>, ScenarioError> {
    match v {
        "n/a" => Ok(None),
        _ => v.parse().map(Some).map_err(|_| fail(n, t, what)),
    }
}

/// `ethtool -g`: the maximums, then the current settings, whose `RX:` is the ring in use.
pub(super) fn ring_line(f: &mut Facts, t: &str, n: usize, block: &mut Block) -> Result<(), ScenarioError> {
    match t {
        "Pre-set maximums:" => *block = Block::Ring { current: false },
        "Current hardware settings:" => *block = Block::Ring { current: true },
        _ => {
            let (k, v) = name_value(t, n, "ethtool -g lines are 'NAME: VALUE'")?;
            if *block == (Block::Ring { current: true }) && k == "RX" {
                let rx = count(t, n, v, "the RX ring is a number of descriptors")?;
                match rx.map(u32::try_from) {
                    Some(Ok(rx)) => f.ring = Some((rx, n)),
                    Some(Err(_)) => return Err(fail(n, t, "an RX ring of more than 2^32 descriptors")),
                    None => f.say(n, "ethtool -g shows no RX ring size (n/a)"),
                }
            }
        }
    }
    Ok(())
}

/// `ethtool -c`: `Adaptive RX: on  TX: off`, `rx-usecs:` and `rx-frames:`; the other
/// parameters are not modelled.
pub(super) fn coalesce_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    if let Some(rest) = t.strip_prefix("Adaptive RX:") {
        let on = rest.split_whitespace().next() == Some("on");
        f.adaptive_rx = Some((on, n));
        return Ok(());
    }
    let (k, v) = name_value(t, n, "ethtool -c lines are 'NAME: VALUE'")?;
    if k == "rx-usecs" {
        if let Some(us) = count(t, n, v, "rx-usecs is a number of microseconds")? {
            f.rx_usecs = Some((us, n));
        }
    }
    if k == "rx-frames" {
        if let Some(frames) = count(t, n, v, "rx-frames is a number of packets")? {
            f.rx_frames = Some((frames, n));
        }
    }
    Ok(())
}

/// The drop counters each driver names in `ethtool -S` (ixgbe `rx_missed_errors`, mlx5
/// `rx_out_of_buffer`, ice, virtio_net and the netdev stats `rx_dropped`, igb/ixgbe
/// `rx_no_buffer_count`), and `rx_packets` to set them against.
pub(super) const RING_COUNTERS: &[&str] = &[
    "rx_missed_errors",
    "rx_out_of_buffer",
    "rx_dropped",
    "rx_no_buffer_count",
    "rx_packets",
];

/// The queue of a per-queue drop counter: `rx_queue_N_drops` (virtio_net), `rx-N.drops`.
pub(super) fn drop_queue(name: &str) -> Option<u32> {
    let q = name
        .strip_prefix("rx_queue_")
        .and_then(|r| r.strip_suffix("_drops"))
        .or_else(|| name.strip_prefix("rx-").and_then(|r| r.strip_suffix(".drops")))?;
    q.parse().ok()
}

/// `ethtool -S`: `NAME: COUNT`, the drop counters and `rx_packets` kept.
pub(super) fn stats_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let (k, v) = name_value(t, n, "ethtool -S lines are 'NAME: COUNT'")?;
    let v = count(t, n, v, "an ethtool -S counter is a number (cut?)")?;
    if let Some(v) = v.filter(|_| RING_COUNTERS.contains(&k) || drop_queue(k).is_some()) {
        f.nic_stats.push((k.to_string(), v, n));
    }
    Ok(())
}

/// Whether `t` has the shape of a softnet_stat row: at least nine columns of eight hex digits
/// (the kernel's `%08x`; nine since 2.6.x, fifteen in 6.x).
pub(super) fn softnet_row(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    words.len() >= 9
        && words
            .iter()
            .all(|w| w.len() == 8 && w.chars().all(|c| c.is_ascii_hexdigit()))
}

/// A `/proc/net/softnet_stat` row: column 0 processed, 1 dropped (a full backlog), 2
/// time_squeeze, 10 flow_limit_count, 12 the CPU (since 5.10; before it, rows are the online
/// CPUs in order, taken as CPU 0 up).
pub(super) fn softnet_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let cols = t
        .split_whitespace()
        .map(|w| u32::from_str_radix(w, 16).map(u64::from))
        .collect::<Result<Vec<u64>, _>>()
        .map_err(|_| fail(n, t, "a softnet_stat row is hex columns"))?;
    if f.softnet.is_empty() {
        f.softnet_cols = cols.len();
    }
    if cols.len() < 3 || cols.len() < f.softnet_cols {
        return Err(fail(
            n,
            t,
            &format!(
                "{} columns where the first row has {} (cut?)",
                cols.len(),
                f.softnet_cols
            ),
        ));
    }
    let by_order = f.softnet.len();
    let cpu = cols.get(12).map_or(by_order as u64, |&c| c);
    let cpu = u16::try_from(cpu)
        .ok()
        .filter(|&c| c < MAX_CPUS)
        .ok_or_else(|| fail(n, t, &format!("CPU {cpu}; steerlab models CPUs 0..{MAX_CPUS}")))?;
    let flow_limit = cols.get(10).copied().unwrap_or(0);
    f.softnet.push((cpu, [cols[0], cols[1], cols[2], flow_limit], n));
    Ok(())
}

/// The MIB prefixes of `/proc/net/snmp` and `/proc/net/netstat` (net/ipv4/proc.c).
const MIB_PREFIXES: &[&str] = &[
    "Ip", "Icmp", "IcmpMsg", "Tcp", "Udp", "UdpLite", "TcpExt", "IpExt", "MPTcpExt",
];

/// A `/proc/net/snmp` names line, `Udp: InDatagrams NoPorts …`: `true` if `t` is one (its
/// names are kept for the values line that follows).
pub(super) fn snmp_names(f: &mut Facts, t: &str, n: usize) -> bool {
    let Some((prefix, rest)) = t.split_once(':') else {
        return false;
    };
    let names: Vec<&str> = rest.split_whitespace().collect();
    let named = !names.is_empty()
        && names
            .iter()
            .all(|w| w.starts_with(|c: char| c.is_ascii_alphabetic()) && w.chars().all(|c| c.is_ascii_alphanumeric()));
    if !MIB_PREFIXES.contains(&prefix) || !named {
        return false;
    }
    f.mib_names = Some((prefix.to_string(), names.iter().map(|w| w.to_string()).collect(), n));
    true
}

/// A `/proc/net/snmp` values line, `Udp: 1 2 …`, under its names line: each counter kept by
/// nstat's name (`UdpRcvbufErrors`).
pub(super) fn snmp_values(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((prefix, names, _)) = f.mib_names.take() else {
        return Err(fail(n, t, "/proc/net/snmp values without their names line"));
    };
    let values: Vec<&str> = t
        .strip_prefix(prefix.as_str())
        .and_then(|r| r.strip_prefix(':'))
        .ok_or_else(|| fail(n, t, &format!("expected the values of {prefix}:")))?
        .split_whitespace()
        .collect();
    if values.len() < names.len() {
        return Err(fail(
            n,
            t,
            &format!("{} values for {} names (cut?)", values.len(), names.len()),
        ));
    }
    let file = if prefix.ends_with("Ext") {
        "/proc/net/netstat"
    } else {
        "/proc/net/snmp"
    };
    for (name, v) in names.iter().zip(values) {
        // Tcp's MaxConn is -1: signed values are not counters.
        let v = v
            .parse::<i64>()
            .map_err(|_| fail(n, t, &format!("{v:?} is not a number")))?;
        if let Ok(v) = u64::try_from(v) {
            f.mib
                .insert(format!("{prefix}{name}"), (v, n, format!("{file}: {prefix} {name}")));
        }
    }
    Ok(())
}

/// An `nstat` row, `NAME VALUE RATE` (and `/proc/net/snmp6`'s `NAME VALUE`).
pub(super) fn nstat_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let words: Vec<&str> = t.split_whitespace().collect();
    let (name, value) = match words.as_slice() {
        [name, value] | [name, value, _] => (*name, *value),
        _ => return Err(fail(n, t, "nstat rows are 'NAME VALUE RATE'")),
    };
    let v = value
        .parse::<u64>()
        .map_err(|_| fail(n, t, "an nstat counter is a number (cut?)"))?;
    f.mib.insert(name.to_string(), (v, n, format!("nstat: {name}")));
    Ok(())
}

/// sysstat's banner, `Linux 6.8.0-45-generic (host) \t01/02/2026 \t_x86_64_\t(8 CPU)`: the
/// start of an `mpstat` output pasted without its command.
pub(super) fn sysstat_banner(t: &str) -> bool {
    t.starts_with("Linux ") && t.contains(" (") && t.ends_with("CPU)")
}

/// `mpstat`'s header, `TIME CPU %usr … %soft … %idle`: `true` if `t` is one. The columns are
/// counted from the row's end, since the time before them is one word or two (`PM`) and
/// `Average:` one.
pub(super) fn mpstat_header(f: &mut Facts, t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    let at = |w: &str| words.iter().position(|x| *x == w);
    let (Some(cpu), Some(soft)) = (at("CPU"), at("%soft")) else {
        return false;
    };
    if soft < cpu {
        return false;
    }
    f.mpstat_cols = Some((words.len() - 1 - cpu, words.len() - 1 - soft));
    true
}

/// An `mpstat` row: the CPU (`all` skipped) and its `%soft` (a later block, `Average:`,
/// replaces an earlier one). Before the header (the banner, a blank line) nothing is read.
pub(super) fn mpstat_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((cpu_col, soft_col)) = f.mpstat_cols else {
        return Ok(());
    };
    let words: Vec<&str> = t.split_whitespace().collect();
    let cut = || fail(n, t, "an mpstat row with fewer columns than its header (cut?)");
    let cpu = words.len().checked_sub(cpu_col + 1).map(|i| words[i]).ok_or_else(cut)?;
    // Locales with a decimal comma print `12,50`.
    let number = |w: &str| w.replace(',', ".").parse::<f64>().ok();
    if !words[words.len() - cpu_col..].iter().all(|w| number(w).is_some()) {
        return Err(cut());
    }
    if cpu == "all" {
        return Ok(());
    }
    let cpu = cpu.parse::<u16>().ok().filter(|&c| c < MAX_CPUS).ok_or_else(cut)?;
    let soft = number(words[words.len() - 1 - soft_col]).ok_or_else(cut)?;
    f.soft.insert(cpu, (soft, n));
    Ok(())
}
