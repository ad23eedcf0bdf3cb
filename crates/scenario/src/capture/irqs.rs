//! Where the queues' interrupts run, and the software steering around them: each queue's
//! vector found by its name (`vectors.rs`), its CPU from the effective affinity, where it fired,
//! or its allowed list; RPS, RFS and XPS as the files say. Every choice is said.

use std::collections::BTreeMap;

use steerlab_engine::{CpuSet, XpsMap};

use super::Out;
use super::{vectors, Assumption, Facts, SANDBOX_IRQ_BASE};
use crate::spec::Named;
use crate::{Scenario, ScenarioError};

/// The captured interface's RX queue vectors, queue → IRQ, and the driver their names give.
pub(super) struct Vectors {
    pub by_queue: BTreeMap<u16, u32>,
    pub driver: Option<(&'static str, usize)>,
}

/// The vectors of the captured interface among `/proc/interrupts`' rows: those named after it
/// or its bus device; when the capture names neither, or no vector matches, the owner of the
/// first queue vector, said (two ports, or a virtio device, whose names do not carry the
/// interface).
pub(super) fn vectors(f: &Facts, out: &mut Out) -> Vectors {
    let iface = f.iface.as_ref().map(|(i, _)| i.as_str());
    let mut driver = None;
    // The owner taken: the interface's or its device's, else the first one named.
    let mut owner: Option<(String, usize)> = None;
    let mut others: Vec<String> = Vec::new();
    for (name, _, line) in f.irqs.values() {
        let Some(v) = vectors::parse(name) else { continue };
        driver = driver.or(v.driver.map(|d| (d, *line)));
        let mine = vectors::owned_by(&v.owner, iface, f.device.as_deref());
        match &owner {
            Some((o, _)) if *o == v.owner => {}
            Some((o, _)) if mine && !vectors::owned_by(o, iface, f.device.as_deref()) => {
                others.push(owner.replace((v.owner, *line)).map(|(o, _)| o).unwrap_or_default());
            }
            Some(_) => {
                if !others.contains(&v.owner) {
                    others.push(v.owner);
                }
            }
            None => owner = Some((v.owner, *line)),
        }
    }
    let mut by_queue = BTreeMap::new();
    let Some((owner, line)) = owner else {
        return Vectors { by_queue, driver };
    };
    if !vectors::owned_by(&owner, iface, f.device.as_deref()) {
        let why = match (others.is_empty(), iface) {
            (false, _) => format!(
                "vectors of {owner} and {}: {owner}'s are taken (ethtool -i's bus-info says which)",
                others.join(", ")
            ),
            (true, Some(i)) => format!("the queue vectors are {owner}'s, taken as {i}'s"),
            (true, None) => format!("the queue vectors are {owner}'s"),
        };
        out.push(Assumption::at(line, &why));
    }
    // gve: RX queue q is on notification block blocks/2 + q (gve_rx_idx_to_ntfy).
    let mine = || {
        f.irqs
            .iter()
            .filter_map(|(&irq, (name, ..))| vectors::parse(name).filter(|v| v.owner == owner).map(|v| (irq, v)))
    };
    let blocks = mine().filter(|(_, v)| v.gve_block).count() as u16;
    for (irq, v) in mine() {
        let q = if v.gve_block {
            v.index.checked_sub(blocks / 2)
        } else {
            Some(v.index)
        };
        if let Some(q) = q {
            by_queue.entry(q).or_insert(irq);
        }
    }
    Vectors { by_queue, driver }
}

/// Each RX queue's IRQ CPU, written as `echo … > /proc/irq/N/smp_affinity_list` where it is
/// not the sandbox's start (queue q on CPU q).
pub(super) fn irq_cpus(f: &Facts, vectors: &Vectors, cpus: u16, rx: u32, out: &mut Out) -> Result<(), ScenarioError> {
    let mut known = 0;
    let mut chosen = 0;
    for q in 0..rx as u16 {
        let Some(&irq) = vectors.by_queue.get(&q) else { continue };
        let Some((set, row)) = irq_cpu(f, irq, q, out) else {
            continue;
        };
        if set.end() > cpus {
            return Err(ScenarioError(format!(
                "line {row}: IRQ {irq} on CPU {}, but the host has {cpus} CPUs",
                set.end() - 1
            )));
        }
        known += 1;
        chosen += usize::from(set.len() > 1);
        if set != CpuSet::range(q % cpus, q % cpus + 1) {
            out.cmds.push(format!(
                "echo {} > /proc/irq/{}/smp_affinity_list",
                set.to_list(),
                SANDBOX_IRQ_BASE + u32::from(q)
            ));
        }
    }
    if chosen > 0 {
        out.push(Assumption::new(&format!(
            "{chosen} queues' IRQ CPUs picked from their smp_affinity_list by the fewest vectors"
        )));
    }
    if known < rx {
        out.push(Assumption::new(&format!(
            "{} of {rx} queues' IRQ CPUs not in the capture: queue q on CPU q mod {cpus}",
            rx - known
        )));
    }
    Ok(())
}

/// One vector's CPUs, and the line they came from: the effective affinity; else where it
/// fired most within its allowed list (irqbalance moves vectors: counts on several CPUs are
/// history, said); else the allowed list whole, for the engine's allocator to pick from.
fn irq_cpu(f: &Facts, irq: u32, q: u16, out: &mut Out) -> Option<(CpuSet, usize)> {
    let single = |c: u16| CpuSet::range(c, c + 1);
    if let Some(&(set, line)) = f.effective.get(&irq) {
        let cpu = set.iter().next()?;
        // The allowed list is where the IRQ may run; the effective one is where the interrupt
        // controller delivers it (kernel/irq/proc.c `irq_effective_aff_list_proc_show`).
        if let Some((allowed, at)) = f.smp_affinity.get(&irq).filter(|(a, _)| *a != set) {
            out.push(Assumption::at(
                line,
                &format!(
                    "IRQ {irq} (rx-{q}) may run on CPUs {} (line {at}) but fires on CPU {cpu} (effective_affinity_list): CPU {cpu} taken",
                    allowed.to_list()
                ),
            ));
        }
        return Some((single(cpu), line));
    }
    let allowed = f.smp_affinity.get(&irq).copied();
    if let Some((_, counts, row)) = f.irqs.get(&irq) {
        let fired: Vec<(u16, u64)> = counts
            .iter()
            .zip(&f.irq_cpus)
            .filter(|&(&c, &cpu)| c > 0 && allowed.is_none_or(|(s, _)| s.contains(cpu)))
            .map(|(&c, &cpu)| (cpu, c))
            .collect();
        let most = fired.iter().max_by_key(|&&(cpu, c)| (c, std::cmp::Reverse(cpu)));
        if let Some(&(cpu, _)) = most {
            if fired.len() > 1 {
                let list: Vec<String> = fired.iter().map(|(c, _)| c.to_string()).collect();
                out.push(Assumption::at(
                    *row,
                    &format!(
                        "IRQ {irq} (rx-{q}) fired on CPUs {}: taken on CPU {cpu}, where it fired most",
                        list.join(",")
                    ),
                ));
            }
            return Some((single(cpu), *row));
        }
    }
    allowed
}

/// RPS, RFS and XPS: one scenario field when every queue has the same setting, else a command
/// per queue.
pub(super) fn rps_rfs_xps(
    f: &Facts,
    sc: &mut Scenario,
    cpus: u16,
    rx: u32,
    tx: u32,
    out: &mut Out,
) -> Result<(), ScenarioError> {
    let lines = |m: &mut dyn Iterator<Item = (u16, usize)>| m.collect::<Vec<_>>();
    let rx_lines = lines(
        &mut f
            .rps_cpus
            .iter()
            .map(|(&q, &(_, l))| (q, l))
            .chain(f.flow_cnt.iter().map(|(&q, &(_, l))| (q, l))),
    );
    let tx_lines = lines(&mut f.xps_cpus.iter().map(|(&q, &(_, l))| (q, l)));
    for (what, lines, total) in [("rx", rx_lines, rx), ("tx", tx_lines, tx)] {
        if let Some((q, line)) = lines.into_iter().find(|&(q, _)| u32::from(q) >= total) {
            return Err(ScenarioError(format!(
                "line {line}: {what}-{q}, but the NIC has {total} {} queues",
                what.to_uppercase()
            )));
        }
    }
    let missing = |known: usize, total: u32, what: &str, value: &str, out: &mut Out| {
        if known < total as usize {
            out.push(Assumption::new(&format!(
                "{} of {total} queues' {what} not in the capture: {value}",
                total as usize - known
            )));
        }
    };
    missing(f.rps_cpus.len(), rx, "rps_cpus", "none", out);
    let rps: Vec<CpuSet> = (0..rx as u16)
        .map(|q| f.rps_cpus.get(&q).map_or(CpuSet::EMPTY, |e| e.0))
        .collect();
    if rps.iter().all(|s| *s == rps[0]) {
        sc.rps.cpus = rps[0].to_list();
    } else {
        for (q, set) in rps.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
            out.cmds.push(format!(
                "echo {} > /sys/class/net/eth0/queues/rx-{q}/rps_cpus",
                set.to_hex(cpus)
            ));
        }
    }
    missing(f.flow_cnt.len(), rx, "rps_flow_cnt", "0", out);
    let cnts: Vec<u32> = (0..rx as u16).map(|q| f.flow_cnt.get(&q).map_or(0, |e| e.0)).collect();
    if cnts.iter().all(|&c| c == cnts[0]) {
        sc.rfs.flow_cnt = cnts[0];
    } else {
        sc.rfs.flow_cnt = 0;
        for (q, cnt) in cnts.iter().enumerate().filter(|(_, &c)| c > 0) {
            out.cmds
                .push(format!("echo {cnt} > /sys/class/net/eth0/queues/rx-{q}/rps_flow_cnt"));
        }
    }
    match f.sock_flow_entries {
        Some(n) => sc.rfs.sock_flow_entries = n,
        None => {
            out.push(Assumption::new("rps_sock_flow_entries 0: RFS off (no sysctl)").set("rfs.sock_flow_entries", "0"))
        }
    }
    if let Some(n) = f.netdev_max_backlog {
        sc.net.netdev_max_backlog = n;
    }
    for (name, &v) in &f.core {
        match name.as_str() {
            "net.core.netdev_budget" => sc.net.netdev_budget = v,
            "net.core.netdev_budget_usecs" => sc.net.netdev_budget_usecs = v,
            "net.core.dev_weight" => sc.net.dev_weight = v,
            "net.core.rmem_default" => sc.net.rmem_default = v,
            "net.core.rmem_max" => sc.net.rmem_max = v,
            _ => {}
        }
    }
    xps(f, sc, cpus, tx, out);
    Ok(())
}

fn xps(f: &Facts, sc: &mut Scenario, cpus: u16, tx: u32, out: &mut Out) {
    if f.xps_cpus.is_empty() {
        out.push(Assumption::new("XPS maps as the driver sets them (no xps_cpus)").set("xps.map", sc.xps.map.0.name()));
        return;
    }
    if f.xps_cpus.len() < tx as usize {
        out.push(Assumption::new(&format!(
            "{} of {tx} queues' xps_cpus not in the capture: none",
            tx as usize - f.xps_cpus.len()
        )));
    }
    let maps: Vec<CpuSet> = (0..tx as u16)
        .map(|q| f.xps_cpus.get(&q).map_or(CpuSet::EMPTY, |e| e.0))
        .collect();
    // The engine's starting maps (config.rs XpsMap): `irq`, CPU q on TX queue q; `all`, CPU c
    // on TX queue c mod tx.
    let start = |m: XpsMap| -> Vec<CpuSet> {
        (0..tx)
            .map(|q| {
                let mut set = CpuSet::EMPTY;
                (0..cpus)
                    .filter(|&c| match m {
                        XpsMap::None => false,
                        XpsMap::Irq => u32::from(c) == q,
                        XpsMap::All => u32::from(c) % tx == q,
                    })
                    .for_each(|c| set.insert(c));
                set
            })
            .collect()
    };
    match [XpsMap::None, XpsMap::Irq, XpsMap::All]
        .into_iter()
        .find(|&m| start(m) == maps)
    {
        Some(m) => sc.xps.map = Named(m),
        None => {
            sc.xps.map = Named(XpsMap::None);
            for (q, set) in maps.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
                out.cmds.push(format!(
                    "echo {} > /sys/class/net/eth0/queues/tx-{q}/xps_cpus",
                    set.to_hex(cpus)
                ));
            }
        }
    }
}
