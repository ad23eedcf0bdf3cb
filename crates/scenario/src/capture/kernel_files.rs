//! The kernel's own files and tools around them: `lscpu`, `/proc/interrupts`
//! (kernel/irq/proc.c `show_interrupts`), `grep -H .` of `/proc/irq/*/…affinity…` and of the
//! queues' RPS, RFS and XPS files (net/core/net-sysfs.c, `%*pb` masks), `sysctl`, and which
//! interrupt vector is which queue's.

use steerlab_engine::CpuSet;

use super::{cpu_count, fail, iface, Facts};
use crate::ScenarioError;

pub(super) fn lscpu_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((k, v)) = t.split_once(':') else { return Ok(()) };
    let v = v.trim();
    match k.trim() {
        "CPU(s)" => {
            f.lscpu_cpus = Some(cpu_count(
                v.parse().map_err(|_| fail(n, t, "CPU(s): takes a number"))?,
                n,
                t,
            )?)
        }
        "NUMA node(s)" => f.numa_nodes = Some(v.parse().map_err(|_| fail(n, t, "NUMA node(s): takes a number"))?),
        _ => {}
    }
    Ok(())
}

/// A row of `/proc/interrupts`: `IRQ:`, a count per CPU column, then the chip, the hwirq and
/// the name. Rows of other devices are kept too: the vectors are found by name afterwards.
pub(super) fn interrupts_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((irq, rest)) = t.split_once(':') else {
        return Err(fail(n, t, "a /proc/interrupts row starts with 'IRQ:'"));
    };
    let Ok(irq) = irq.trim().parse::<u32>() else {
        return Ok(()); // NMI:, LOC:, ERR:, MIS: … rows of the architecture
    };
    let words: Vec<&str> = rest.split_whitespace().collect();
    let ncols = f.irq_cpus.len();
    if words.len() < ncols + 1 {
        return Err(fail(
            n,
            t,
            format!(
                "{} columns, fewer than the header's {ncols} CPUs and a name (truncated?)",
                words.len()
            ),
        ));
    }
    let counts = words[..ncols]
        .iter()
        .map(|w| w.parse::<u64>())
        .collect::<Result<Vec<u64>, _>>()
        .map_err(|_| fail(n, t, "a count per CPU"))?;
    let name = words.last().copied().unwrap_or_default().to_string();
    f.irqs.insert(irq, (name, counts, n));
    Ok(())
}

/// `FILE:VALUE` lines of `grep .`, and `NAME = VALUE` lines of `sysctl`; `true` if `t` is one.
pub(super) fn file_line(f: &mut Facts, t: &str, n: usize) -> Result<bool, ScenarioError> {
    if let Some(rest) = t.strip_prefix("grep: ") {
        f.unreadable.push(format!("line {n}: {rest}"));
        return Ok(true);
    }
    if let Some((name, value)) = t.split_once(" = ") {
        let value = value.trim();
        let number = || {
            value
                .parse::<u32>()
                .map_err(|_| fail(n, t, format!("{name} takes a number")))
        };
        match name {
            "net.core.rps_sock_flow_entries" => {
                let v = number()?;
                if v > steerlab_engine::rps::MAX_SOCK_FLOW_ENTRIES {
                    return Err(fail(
                        n,
                        t,
                        format!(
                            "steerlab models rps_sock_flow_entries up to {}",
                            steerlab_engine::rps::MAX_SOCK_FLOW_ENTRIES
                        ),
                    ));
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
    let Some((path, value)) = t.split_once(':').filter(|(p, _)| p.starts_with('/')) else {
        return Ok(false);
    };
    let value = value.trim();
    let mask = |v: &str| CpuSet::parse_hex(v).map_err(|e| fail(n, t, format!("a CPU mask: {e}")));
    // A list file of a vector that is not started reads empty.
    let list = |v: &str| {
        if v.is_empty() {
            Ok(CpuSet::EMPTY)
        } else {
            CpuSet::parse_list(v).map_err(|e| fail(n, t, format!("a CPU list: {e}")))
        }
    };
    let saw = |f: &mut Facts, set: CpuSet| {
        if set.end() > f.max_cpu_seen {
            (f.max_cpu_seen, f.max_cpu_line) = (set.end(), n);
        }
    };
    if let Some(rest) = path.strip_prefix("/proc/irq/") {
        let Some((irq, file)) = rest.split_once('/') else {
            return Err(fail(n, t, "expected /proc/irq/N/FILE:VALUE"));
        };
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
        if set.is_empty() {
            // The kernel refuses to write an empty affinity, but reads one for a vector that is
            // not started (`effective_affinity` 0): it says nothing of where the vector runs.
            f.skipped.push(format!(
                "line {n}: /proc/irq/{irq}/{file} names no CPU (a vector not started?): not read"
            ));
            return Ok(true);
        }
        saw(f, set);
        let map = if effective {
            &mut f.effective
        } else {
            &mut f.smp_affinity
        };
        if is_list || !map.contains_key(&irq) {
            map.insert(irq, (set, n));
        }
        return Ok(true);
    }
    if let Some(rest) = path.strip_prefix("/sys/class/net/") {
        let parts: Vec<&str> = rest.split('/').collect();
        let [name, "queues", queue, file] = parts.as_slice() else {
            return Err(fail(n, t, "expected /sys/class/net/IF/queues/rx-N/FILE:VALUE"));
        };
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
                let cnt = cnt.ok_or_else(|| {
                    fail(
                        n,
                        t,
                        format!(
                            "rps_flow_cnt is a number, at most {} in steerlab",
                            steerlab_engine::rps::MAX_FLOW_CNT
                        ),
                    )
                })?;
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
pub(super) fn vector_queue(name: &str, iface: Option<&str>, device: Option<&str>) -> Option<u16> {
    if let Some(rest) = name.strip_prefix("mlx5_comp") {
        let (q, dev) = rest.split_once("@pci:").unwrap_or((rest, ""));
        return device.is_none_or(|d| d == dev).then(|| q.parse().ok()).flatten();
    }
    if let Some((dev, q)) = name.split_once("-input.") {
        return (dev.starts_with("virtio") && device.is_none_or(|d| d == dev))
            .then(|| q.parse().ok())
            .flatten();
    }
    let (head, q) = name.rsplit_once('-')?;
    let q = q.parse().ok()?;
    let head = head.strip_suffix("-TxRx").or_else(|| head.strip_suffix("-rx"))?;
    match iface {
        Some(i) => (head == i || head.ends_with(&format!("-{i}"))).then_some(q),
        None => Some(q),
    }
}
