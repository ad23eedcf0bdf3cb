//! The kernel's own files and tools around them: `lscpu` and `lscpu -p`, `/proc/interrupts`
//! (kernel/irq/proc.c `show_interrupts`, with its header or its rows alone), `grep -H .` or
//! `cat` of `/proc/irq/*/…affinity…` and of the queues' RPS, RFS and XPS files
//! (net/core/net-sysfs.c, `%*pb` masks), `sysctl`, and the queue counts of `ip -d link` and
//! `ls /sys/class/net/IF/queues/`.

use steerlab_engine::cpuset::MAX_CPUS;
use steerlab_engine::{CoreSysctl, CpuSet};

use super::{cpu_count, fail, iface, Facts};
use crate::ScenarioError;

pub(super) fn lscpu_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((k, v)) = t.split_once(':') else { return Ok(()) };
    let v = v.trim();
    match k.trim() {
        "CPU(s)" => {
            f.lscpu_cpus = Some((
                cpu_count(v.parse().map_err(|_| fail(n, t, "CPU(s): takes a number"))?, n, t)?,
                n,
            ))
        }
        "NUMA node(s)" => f.numa_nodes = Some((v.parse().map_err(|_| fail(n, t, "NUMA node(s): takes a number"))?, n)),
        _ => {}
    }
    Ok(())
}

/// The `/proc/interrupts` header, `CPU0 CPU1 …` (the online CPUs' columns): `true` if `t` is one.
pub(super) fn interrupts_header(f: &mut Facts, t: &str, n: usize) -> Result<bool, ScenarioError> {
    let cpu = |w: &str| w.strip_prefix("CPU").and_then(|c| c.parse::<u16>().ok());
    if !t.starts_with("CPU") || !t.split_whitespace().all(|w| cpu(w).is_some()) {
        return Ok(false);
    }
    f.irq_cpus = t
        .split_whitespace()
        .map(|w| cpu(w).filter(|&c| c < MAX_CPUS))
        .collect::<Option<Vec<u16>>>()
        .ok_or_else(|| fail(n, t, &format!("the /proc/interrupts header names CPUs 0..{MAX_CPUS}")))?;
    f.irq_header = true;
    f.irqs.clear();
    Ok(true)
}

/// Whether `t` has the shape of a `/proc/interrupts` row of a device: `IRQ:`, counts, then
/// the chip and the name (an indirection-table row has numbers only).
pub(super) fn interrupt_row(t: &str) -> bool {
    let Some((irq, rest)) = t.split_once(':') else {
        return false;
    };
    let mut words = rest.split_whitespace();
    irq.trim().parse::<u32>().is_ok()
        && words.next().is_some_and(|w| w.parse::<u64>().is_ok())
        && words.any(|w| w.parse::<u64>().is_err())
}

/// A row of `/proc/interrupts`: `IRQ:`, a count per CPU column, then the chip, the hwirq and
/// the name. Rows of other devices are kept too: the vectors are found by name afterwards.
/// Without the header (rows pasted alone, or `| grep`), the columns are as many as a row's
/// leading counts, CPUs 0 up.
pub(super) fn interrupts_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((irq, rest)) = t.split_once(':') else {
        return Err(fail(n, t, "a /proc/interrupts row starts with 'IRQ:'"));
    };
    let Ok(irq) = irq.trim().parse::<u32>() else {
        return Ok(()); // NMI:, LOC:, ERR:, MIS: … rows of the architecture
    };
    let words: Vec<&str> = rest.split_whitespace().collect();
    let counted = words.iter().take_while(|w| w.parse::<u64>().is_ok()).count();
    if !f.irq_header {
        let known = f.irq_cpus.len();
        if known == 0 || counted > known {
            let cols = u16::try_from(counted).ok().filter(|&c| (1..=MAX_CPUS).contains(&c));
            let cols = cols.ok_or_else(|| {
                fail(
                    n,
                    t,
                    &format!("a row with {counted} counts; steerlab models 1..={MAX_CPUS} CPUs"),
                )
            })?;
            f.irq_cpus = (0..cols).collect();
            f.irq_cols_line = n;
        }
    }
    let ncols = f.irq_cpus.len();
    if words.len() < ncols + 1 || counted < ncols {
        if !f.irq_header {
            f.say(
                n,
                &format!("a row with {counted} counts where others have {ncols}: not read"),
            );
            return Ok(());
        }
        return Err(fail(
            n,
            t,
            &format!("{counted} counts, fewer than the header's {ncols} CPUs and a name (truncated?)"),
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

/// `lscpu -p` rows: `CPU,Core,Socket,Node,,L1d,L1i,L2,L3` (lscpu.c, `--parse`); the CPUs and
/// the node each is on.
pub(super) fn lscpu_parse_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let fields: Vec<&str> = t.split(',').collect();
    let cpu = fields
        .first()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|&c| c < MAX_CPUS);
    let Some(cpu) = cpu else {
        return Err(fail(n, t, "an lscpu -p row is CPU,Core,Socket,Node,…"));
    };
    let node = fields.get(3).and_then(|v| v.trim().parse::<u16>().ok()).unwrap_or(0);
    f.parse_cpus = f.parse_cpus.max(cpu + 1);
    if !f.parse_nodes.contains(&node) {
        f.parse_nodes.push(node);
    }
    f.parse_line = n;
    Ok(())
}

/// Queue counts: `ip -d link`'s `numtxqueues N numrxqueues N` (the queues allocated) and the
/// `rx-N`/`tx-N` directories `ls /sys/class/net/IF/queues/` lists (the queues in use, one a
/// line or several); `true` if `t` gave some.
pub(super) fn queues_line(f: &mut Facts, t: &str, n: usize) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
            .and_then(|v| v.parse::<u32>().ok())
    };
    if let (Some(tx), Some(rx)) = (after("numtxqueues"), after("numrxqueues")) {
        f.ip_queues = Some(((rx, tx), n));
        return true;
    }
    let queue = |w: &str, dir: &str| w.strip_prefix(dir).and_then(|q| q.parse::<u32>().ok());
    let listed: Vec<&str> = match words.last() {
        // `ls -l`: the name is the last word.
        Some(last) if words.len() > 2 && words[0].starts_with(['d', 'l']) => vec![*last],
        _ => words.clone(),
    };
    if listed.is_empty()
        || !listed
            .iter()
            .all(|w| queue(w, "rx-").is_some() || queue(w, "tx-").is_some())
    {
        return false;
    }
    let (mut rx, mut tx) = f.sys_queues.map_or((0, 0), |(q, _)| q);
    for w in listed {
        rx = rx.max(queue(w, "rx-").map_or(0, |q| q + 1));
        tx = tx.max(queue(w, "tx-").map_or(0, |q| q + 1));
    }
    f.sys_queues = Some(((rx, tx), n));
    true
}

/// `FILE:VALUE` lines of `grep .`, and `NAME = VALUE` lines of `sysctl`; `true` if `t` is one.
pub(super) fn file_line(f: &mut Facts, t: &str, n: usize) -> Result<bool, ScenarioError> {
    // `cat /proc/sys/net/core/NAME` or `grep -H .` of it: the sysctl's file.
    if let Some((name, value)) = t.strip_prefix("/proc/sys/net/core/").and_then(|r| r.split_once(':')) {
        return file_line(f, &format!("net.core.{name} = {value}"), n);
    }
    if let Some((name, value)) = t.split_once(" = ") {
        return sysctl_line(f, t, n, name, value);
    }
    let Some((path, value)) = t.split_once(':').filter(|(p, _)| p.starts_with('/')) else {
        return Ok(false);
    };
    let value = value.trim();
    let mask = |v: &str| CpuSet::parse_hex(v).map_err(|e| fail(n, t, &format!("a CPU mask: {e}")));
    // A list file of a vector that is not started reads empty.
    let list = |v: &str| {
        if v.is_empty() {
            Ok(CpuSet::EMPTY)
        } else {
            CpuSet::parse_list(v).map_err(|e| fail(n, t, &format!("a CPU list: {e}")))
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
                f.say(n, &format!("/proc/irq/{irq}/{file} is not read"));
                return Ok(true);
            }
        };
        if set.is_empty() {
            // The kernel refuses to write an empty affinity, but reads one for a vector that is
            // not started (`effective_affinity` 0): it says nothing of where the vector runs.
            f.say(n, &format!("/proc/irq/{irq}/{file} names no CPU: not read"));
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
                        &format!(
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
            _ => f.say(n, &format!("{file} of {queue} is not read")),
        }
        return Ok(true);
    }
    Ok(false)
}

/// A `NAME = VALUE` line of `sysctl`: `true` if it is one of the `net.core` numbers read (a
/// `net.` name not read is said; another line is not a sysctl's).
fn sysctl_line(f: &mut Facts, t: &str, n: usize, name: &str, value: &str) -> Result<bool, ScenarioError> {
    let value = value.trim();
    let number = || {
        value
            .parse::<u32>()
            .map_err(|_| fail(n, t, &format!("{name} takes a number")))
    };
    // The other `net.core` numbers the engine models (`netdev_budget`, `rmem_max`, …).
    let core = name
        .strip_prefix("net.core.")
        .and_then(|c| CoreSysctl::ALL.iter().find(|(_, k)| *k == c))
        .map(|(w, _)| *w);
    match name {
        "net.core.rps_sock_flow_entries" => {
            let v = number()?;
            if v > steerlab_engine::rps::MAX_SOCK_FLOW_ENTRIES {
                return Err(fail(
                    n,
                    t,
                    &format!(
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
        _ if core.is_some() => {
            let v = number()?;
            // The kernel's ranges, checked as the engine checks them (its configuration).
            let probe = steerlab_engine::Sim::new(steerlab_engine::HostConfig::default())
                .map_err(|e| fail(n, t, &e.to_string()))?;
            if let Some(which) = core {
                probe
                    .check_setting(&steerlab_engine::Setting::Core(which, v))
                    .map_err(|e| fail(n, t, &e.to_string()))?;
            }
            f.core.insert(name.to_string(), v);
        }
        _ if name.starts_with("net.") => f.say(n, &format!("sysctl {name} is not read")),
        _ => return Ok(false),
    }
    Ok(true)
}
