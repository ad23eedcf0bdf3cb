//! The facts of a capture as a scenario: what the capture said in fields and in console
//! commands at time 0, what it did not say from the defaults, each such choice an assumption.

use std::collections::BTreeMap;
use std::net::IpAddr;

use steerlab_engine::rss::HashFields;
use steerlab_engine::{CpuSet, Driver, FlowType, Kernel, XpsMap};

use super::kernel_files::vector_queue;
use super::{Facts, Imported, RuleText, NO_FIELDS, SANDBOX_IRQ_BASE, YOUR_HOST_MS};
use crate::spec::Named;
use crate::{Scenario, ScenarioError};

/// The kernel generation of an in-tree driver's `version:` (the kernel release).
pub(super) fn kernel_of(version: &str) -> Option<Kernel> {
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let (major, minor): (u32, u32) = (parts.next()?.parse().ok()?, parts.next()?.parse().ok()?);
    let patch: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some(match (major, minor) {
        (0..=5, _) | (6, 0..=14) => Kernel::V6_10,
        (6, 17) if patch >= 8 => Kernel::V6_18,
        (6, 15..=17) => Kernel::V6_15,
        _ => Kernel::V6_18,
    })
}

/// The facts as a scenario, with the assumptions made.
pub(super) fn build(f: Facts) -> Result<Imported, ScenarioError> {
    let mut assume: Vec<String> = Vec::new();
    let mut sc = crate::parse(r#"{"schema": 1, "id": "your-host"}"#, &[])
        .map_err(|e| ScenarioError(format!("internal: {e}")))?;
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
            assume.push(format!(
                "driver {other} is modelled as steerlab's generic NIC (RSS and ntuple rules, no aRFS or ATR)"
            ));
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
        None => assume.push(format!(
            "kernel rules of {} (no kernel release in ethtool -i)",
            steerlab_engine::NamedEnum::as_name(sc.kernel.0)
        )),
    }

    // CPUs.
    let header_cpus = f.irq_cpus.iter().max().map(|&c| c + 1);
    let cpus = match (f.nproc, f.lscpu_cpus, header_cpus) {
        (Some(c), _, _) | (None, Some(c), _) => c,
        (None, None, Some(c)) => {
            assume.push(format!(
                "{c} CPUs, from /proc/interrupts' header (online CPUs only; capture nproc --all)"
            ));
            c
        }
        _ if f.max_cpu_seen > 0 => {
            assume.push(format!(
                "{} CPUs, the highest CPU the masks name (capture nproc --all)",
                f.max_cpu_seen
            ));
            f.max_cpu_seen
        }
        _ => {
            assume.push(format!("{} CPUs (no nproc, lscpu or /proc/interrupts)", sc.host.cpus));
            sc.host.cpus
        }
    };
    if f.max_cpu_seen > cpus {
        return Err(ScenarioError(format!(
            "line {}: names CPU {}, but the host has {cpus} CPUs",
            f.max_cpu_line,
            f.max_cpu_seen - 1
        )));
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
        return Err(ScenarioError(format!(
            "line {}: {rx} RX and {tx} TX queues; steerlab models 1..={max_q} of each",
            f.channels_line
        )));
    }
    sc.nic.rx_queues = rx as u16;
    sc.nic.tx_queues = tx as u16;

    // The indirection table and key.
    if f.indir.is_empty() {
        assume.push(format!(
            "the default indirection table of {} entries (no ethtool -x)",
            sc.nic.reta_size
        ));
    } else {
        // The engine's own checks: a power-of-two size, entries below the queue count.
        let reta = steerlab_engine::rss::Reta::from_entries(&f.indir, rx)
            .map_err(|e| ScenarioError(format!("line {}: {e} (truncated?)", f.indir_line)))?;
        sc.nic.reta_size = reta.size();
        if reta.user_configured() {
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
        Some(k) => {
            return Err(ScenarioError(format!(
                "line {}: a {}-byte RSS key; the IPv6 tuple needs 40",
                f.key_line,
                k.len()
            )))
        }
        None => assume.push("the Microsoft verification key (no RSS key in the capture)".into()),
    }

    // Commands at time 0 for the rest.
    let mut cmds: Vec<String> = Vec::new();
    let mut hashed = [false; 4];
    for (&line, &(ty, fields)) in &f.fields {
        if !fields.nic_accepts() {
            let shown = if fields == NO_FIELDS {
                "no field".to_string()
            } else {
                fields.to_string()
            };
            return Err(ScenarioError(format!("line {line}: {} flows are hashed on {shown}; steerlab's NIC hashes sd (addresses) or sdfn (addresses and ports)", ty.name())));
        }
        hashed[ty.index()] = true;
        if fields != HashFields::FOUR_TUPLE {
            cmds.push(format!("ethtool -N eth0 rx-flow-hash {} {fields}", ty.name()));
        }
    }
    let unhashed: Vec<&str> = FlowType::ALL
        .iter()
        .filter(|t| !hashed[t.index()])
        .map(|t| t.name())
        .collect();
    if !unhashed.is_empty() {
        assume.push(format!(
            "{} hash addresses and ports, sdfn (no ethtool -n IF rx-flow-hash for them)",
            unhashed.join(", ")
        ));
    }

    sc.nic.ntuple = f.ntuple.unwrap_or(!f.rules.is_empty());
    if f.ntuple.is_none() {
        assume.push(format!(
            "ntuple filters {} (no ethtool -k)",
            if sc.nic.ntuple {
                "on, since rules are listed"
            } else {
                "off"
            }
        ));
    }
    if let Some((total, line)) = f.rules_total {
        if total != f.rules.len() {
            return Err(ScenarioError(format!(
                "line {line}: ethtool -n says {total} rules but {} follow (truncated?)",
                f.rules.len()
            )));
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
            return Err(ScenarioError(format!(
                "line {}: rule {} has no Rule Type or no Action line (truncated?)",
                r.line, r.loc
            )));
        };
        if u32::from(q) >= rx {
            return Err(ScenarioError(format!(
                "line {}: rule {} sends to queue {q}, but the NIC has {rx} RX queues",
                r.line, r.loc
            )));
        }
        cmds.push(rule_command(ty, r, q));
    }
    if !f.rules.is_empty() && !sc.nic.ntuple {
        return Err(ScenarioError(format!(
            "line {}: ethtool -n lists rules, but ethtool -k says ntuple-filters off",
            f.rules_line
        )));
    }

    // IRQ CPUs: the effective affinity, else where the vector fired most, else its
    // smp_affinity_list written whole (the engine then picks as the kernel's vector allocator
    // does); the vectors are found by name in /proc/interrupts.
    let own_iface = f.iface.as_ref().map(|(i, _)| i.as_str());
    let mut vectors: BTreeMap<u16, u32> = BTreeMap::new();
    for (&irq, (name, _, _)) in &f.irqs {
        if let Some(q) = vector_queue(name, own_iface, f.device.as_deref()) {
            vectors.entry(q).or_insert(irq);
        }
    }
    let (mut irq_known, mut chosen) = (0, 0);
    for q in 0..rx as u16 {
        let Some(&irq) = vectors.get(&q) else { continue };
        let row = f.irqs.get(&irq).map_or(0, |r| r.2);
        let fired = f.irqs.get(&irq).and_then(|(_, counts, _)| {
            let (col, &most) = counts
                .iter()
                .enumerate()
                .max_by_key(|&(i, c)| (c, std::cmp::Reverse(i)))?;
            (most > 0).then(|| f.irq_cpus[col])
        });
        let single = |c: u16| CpuSet::range(c, c + 1);
        let Some(set) = f
            .effective
            .get(&irq)
            .and_then(|(s, _)| s.iter().next())
            .or(fired)
            .map(single)
            .or_else(|| f.smp_affinity.get(&irq).map(|e| e.0))
        else {
            continue;
        };
        if set.end() > cpus {
            return Err(ScenarioError(format!(
                "line {row}: IRQ {irq} (rx-{q}) fired most on CPU {}, but the host has {cpus} CPUs",
                set.end() - 1
            )));
        }
        irq_known += 1;
        chosen += usize::from(set.len() > 1);
        if set != single(q % cpus) {
            cmds.push(format!(
                "echo {} > /proc/irq/{}/smp_affinity_list",
                set.to_list(),
                SANDBOX_IRQ_BASE + u32::from(q)
            ));
        }
    }
    if chosen > 0 {
        assume.push(format!("{chosen} queues' IRQ CPUs chosen from their smp_affinity_list as the kernel's allocator would, by the fewest vectors (no effective_affinity_list or interrupt counts for them)"));
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
        (
            "rx",
            f.rps_cpus
                .iter()
                .map(|(&q, &(_, l))| (q, l))
                .chain(f.flow_cnt.iter().map(|(&q, &(_, l))| (q, l)))
                .collect::<Vec<_>>(),
            rx,
        ),
        ("tx", f.xps_cpus.iter().map(|(&q, &(_, l))| (q, l)).collect(), tx),
    ] {
        if let Some((q, line)) = lines.into_iter().find(|&(q, _)| u32::from(q) >= total) {
            return Err(ScenarioError(format!(
                "line {line}: {what}-{q}, but the NIC has {total} {} queues",
                what.to_uppercase()
            )));
        }
    }
    let rps_known = known(&mut f.rps_cpus.keys().copied(), rx);
    if rps_known < rx as usize {
        assume.push(format!(
            "{} of {rx} queues' rps_cpus not in the capture: none",
            rx as usize - rps_known
        ));
    }
    let rps: Vec<CpuSet> = (0..rx as u16)
        .map(|q| f.rps_cpus.get(&q).map_or(CpuSet::EMPTY, |e| e.0))
        .collect();
    if rps.iter().all(|s| *s == rps[0]) {
        sc.rps.cpus = rps[0].to_list();
    } else {
        for (q, set) in rps.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
            cmds.push(format!(
                "echo {} > /sys/class/net/eth0/queues/rx-{q}/rps_cpus",
                set.to_hex(cpus)
            ));
        }
    }
    let cnt_known = known(&mut f.flow_cnt.keys().copied(), rx);
    if cnt_known < rx as usize {
        assume.push(format!(
            "{} of {rx} queues' rps_flow_cnt not in the capture: 0",
            rx as usize - cnt_known
        ));
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
            assume.push(format!(
                "{} of {tx} queues' xps_cpus not in the capture: none",
                tx as usize - xps_known
            ));
        }
        let maps: Vec<CpuSet> = (0..tx as u16)
            .map(|q| f.xps_cpus.get(&q).map_or(CpuSet::EMPTY, |e| e.0))
            .collect();
        // The engine's starting maps (config.rs XpsMap): `irq`, CPU q on TX queue q; `all`,
        // CPU c on TX queue c mod tx.
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
                    cmds.push(format!(
                        "echo {} > /sys/class/net/eth0/queues/tx-{q}/xps_cpus",
                        set.to_hex(cpus)
                    ));
                }
            }
        }
    }
    assume.extend(f.skipped);
    assume.extend(f.unreadable);

    sc.lesson.title = format!("Your host: {iface}, {} queues, {cpus} CPUs", rx);
    sc.lesson.source = format!("imported from a capture of {iface}");
    sc.timeline = cmds
        .into_iter()
        .map(|command| crate::TimedCommand { at_ms: 0, command })
        .collect();
    let json = to_json(&sc);
    let sc = crate::parse(&json.to_string(), &[])?;
    // Every command must apply: a host the console refuses is no import.
    let mut sim = sc.build()?;
    sc.apply_due(&mut sim)?;
    Ok(Imported {
        scenario: sc,
        json,
        assumptions: assume,
        iface,
    })
}

/// The fields the importer sets, as scenario JSON: the rest are the defaults. Written out
/// rather than serialised whole, so that the file says only what the capture said (and the
/// page's bundle needs no serialiser for every scenario type).
pub(super) fn to_json(sc: &Scenario) -> serde_json::Value {
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
pub(super) fn rule_command(ty: FlowType, r: &RuleText, q: u16) -> String {
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
