//! The facts of a capture as a scenario: what the capture said in fields and in console
//! commands at time 0, what it did not say from the driver's defaults or steerlab's, each such
//! choice an [`Assumption`] with its line and, where a field holds it, its `--set`.

use std::net::IpAddr;

use steerlab_engine::ntuple::RULE_SLOTS;
use steerlab_engine::rss::HashFields;
use steerlab_engine::{Driver, FlowType, NamedEnum};

use super::defaults::{self, DriverDefaults};
use super::irqs::{self, Vectors};
use super::observe;
use super::{Assumption, Facts, Imported, Observation, Out, RuleText, NO_FIELDS, YOUR_HOST_MS};
use crate::spec::Named;
use crate::{Scenario, ScenarioError};

/// The facts as a scenario, with the assumptions made, then `overrides` (`--set`) applied.
pub(super) fn build(f: Facts, overrides: &[String]) -> Result<Imported, ScenarioError> {
    let mut out = Out::default();
    let mut sc = crate::parse(r#"{"schema": 1, "id": "your-host"}"#, &[])
        .map_err(|e| ScenarioError(format!("internal: {e}")))?;
    let iface = match &f.iface {
        None => {
            out.push(Assumption::new("the capture names no interface: it is eth0"));
            "eth0".to_string()
        }
        Some((i, line)) => {
            if i != "eth0" {
                out.push(Assumption::at(
                    *line,
                    &format!("{i} is eth0 in the sandbox (its commands name eth0)"),
                ));
            }
            i.clone()
        }
    };
    let vectors = irqs::vectors(&f, &mut out);
    let module = driver(&f, &vectors, &mut sc, &mut out);
    let dflt = module.as_deref().map(defaults::of).unwrap_or_default();
    observe::ring_and_moderation(&f, &mut sc, &mut out);
    kernel(&f, &mut sc, &mut out);
    let cpus = cpus(&f, &mut sc, &mut out)?;
    let (rx, tx) = queues(&f, &vectors, &mut sc, &mut out)?;
    table_and_key(&f, &dflt, module.as_deref(), rx, &mut sc, &mut out)?;
    hash_fields(&f, &dflt, &mut out)?;
    rules(&f, rx, &mut sc, &mut out)?;
    irqs::irq_cpus(&f, &vectors, cpus, rx, &mut out)?;
    irqs::rps_rfs_xps(&f, &mut sc, cpus, rx, tx, &mut out)?;
    let observed = observe::observations(&f, &vectors, &iface);
    out.assume.extend(f.said);
    sc.lesson.title = format!("Your host: {iface}, {rx} queues, {cpus} CPUs");
    sc.lesson.source = format!("imported from a capture of {iface}");
    sc.timeline = out
        .cmds
        .into_iter()
        .map(|command| crate::TimedCommand { at_ms: 0, command })
        .collect();
    finish(&sc, (out.assume, observed), iface, overrides)
}

/// The scenario with the learner's corrections applied (`--set FIELD=VALUE` on the fields the
/// assumptions name), as JSON, checked by building it: every command must apply (a host the
/// console refuses is no import).
fn finish(
    sc: &Scenario,
    (mut assume, observed): (Vec<Assumption>, Vec<Observation>),
    iface: String,
    overrides: &[String],
) -> Result<Imported, ScenarioError> {
    let mut sc = sc.clone();
    for o in overrides {
        let (field, value) = o
            .split_once('=')
            .ok_or_else(|| ScenarioError(format!("--set {o:?}: expected FIELD=VALUE")))?;
        correct(&mut sc, field, value)?;
        let same = |s: &String| s.split('=').next() == Some(field);
        for a in assume.iter_mut().filter(|a| a.set.as_ref().is_some_and(same)) {
            a.text += &format!(" (corrected: {o})");
            a.set = Some(o.clone());
        }
    }
    // The title names what the corrections made of the host.
    sc.lesson.title = format!("Your host: {iface}, {} queues, {} CPUs", sc.nic.rx_queues, sc.host.cpus);
    let json = to_json(&sc);
    let sc = crate::parse(&json.to_string(), &[])?;
    let mut sim = sc.build()?;
    sc.apply_due(&mut sim)?;
    Ok(Imported {
        scenario: sc,
        json,
        assumptions: assume,
        iface,
        observed,
    })
}

/// One correction, typed: the fields an import chooses (what its assumptions name), checked
/// again when the scenario is parsed. Typed rather than through the scenario's generic
/// `--set`, whose JSON paths the page's bundle would carry only for these fields.
fn correct(sc: &mut Scenario, field: &str, value: &str) -> Result<(), ScenarioError> {
    let bad = || ScenarioError(format!("--set {field}={value}: not a value of {field}"));
    let count = || value.parse::<u16>().map_err(|_| bad());
    let num = || value.parse::<u32>().map_err(|_| bad());
    fn name<T: NamedEnum>(v: &str, bad: impl Fn() -> ScenarioError) -> Result<Named<T>, ScenarioError> {
        T::from_name(v).map(Named).ok_or_else(bad)
    }
    match field {
        "host.cpus" => sc.host.cpus = count()?,
        "host.numa_nodes" => sc.host.numa_nodes = count()?,
        "nic.rx_queues" => sc.nic.rx_queues = count()?,
        "nic.tx_queues" => sc.nic.tx_queues = count()?,
        "nic.reta_size" => sc.nic.reta_size = num()?,
        "nic.ring_size" => sc.nic.ring_size = Some(num()?),
        "nic.rx_usecs" => sc.nic.rx_usecs = Some(num()?),
        "nic.rx_frames" => sc.nic.rx_frames = Some(num()?),
        "rfs.sock_flow_entries" => sc.rfs.sock_flow_entries = num()?,
        "nic.ntuple" => sc.nic.ntuple = value.parse().map_err(|_| bad())?,
        "nic.rss_key" => sc.nic.rss_key = value.to_string(),
        "nic.driver" => sc.nic.driver = name(value, bad)?,
        "kernel" => sc.kernel = name(value, bad)?,
        "xps.map" => sc.xps.map = name(value, bad)?,
        _ => return Err(ScenarioError(format!("--set {field}: not a field an import assumes"))),
    }
    Ok(())
}

/// The driver model, from `ethtool -i`, else from its vectors' names; its module name.
fn driver(f: &Facts, vectors: &Vectors, sc: &mut Scenario, out: &mut Out) -> Option<String> {
    let (module, line) = match (&f.driver, vectors.driver) {
        (Some((d, line)), _) => (d.clone(), *line),
        (None, Some((d, line))) => {
            out.push(Assumption::at(
                line,
                &format!("no ethtool -i: the driver is {d} (its vectors' names)"),
            ));
            (d.to_string(), line)
        }
        (None, None) => {
            out.push(Assumption::new("no ethtool -i: the generic NIC model").set("nic.driver", "generic"));
            return None;
        }
    };
    let model = Driver::of_module(&module).unwrap_or(Driver::Generic);
    if model == Driver::Generic {
        out.push(
            Assumption::at(line, &format!("driver {module} is modelled as the generic NIC"))
                .set("nic.driver", "generic"),
        );
    }
    if model == Driver::Ice {
        out.push(
            Assumption::at(
                line,
                "ice with its full-tuple aRFS match (older kernels: ice-hash-match)",
            )
            .set("nic.driver", "ice"),
        );
    }
    sc.nic.driver = Named(model);
    Some(module)
}

/// The kernel generation: from the release `uname -r` or `/proc/version` gives, else from
/// `ethtool -i`'s `version:` when it is a kernel release (an out-of-tree driver's own version
/// is not), else the default, each said.
fn kernel(f: &Facts, sc: &mut Scenario, out: &mut Out) {
    let (release, line, from) = match (&f.release, &f.version) {
        (Some((r, line)), _) => (Some(r.as_str()), *line, "Linux"),
        (None, Some((v, line))) if defaults::kernel_release(v) => (Some(v.as_str()), *line, "ethtool -i's version"),
        (None, Some((v, line))) => {
            out.push(Assumption::at(
                *line,
                &format!("version: {v} is the driver's own version, not a kernel release"),
            ));
            (None, 0, "")
        }
        (None, None) => (None, 0, ""),
    };
    match release.and_then(defaults::release_numbers) {
        Some((major, minor, patch)) => {
            sc.kernel = Named(defaults::kernel_of(major, minor, patch));
            let g = sc.kernel.0.as_name();
            out.push(
                Assumption::at(
                    line,
                    &format!("{from} {}: the RPS/RFS rules of {g}", release.unwrap_or_default()),
                )
                .set("kernel", g),
            );
        }
        None => {
            let g = sc.kernel.0.as_name();
            out.push(
                Assumption::new(&format!("kernel rules of {g} (no kernel release: capture uname -r)")).set("kernel", g),
            );
        }
    }
}

/// The CPUs: `nproc`, `lscpu`, `lscpu -p`, else what `/proc/interrupts` shows, else the masks;
/// the NUMA nodes from `lscpu` or `lscpu -p`.
fn cpus(f: &Facts, sc: &mut Scenario, out: &mut Out) -> Result<u16, ScenarioError> {
    let parsed = (f.parse_cpus > 0).then_some(f.parse_cpus);
    let columns = f.irq_cpus.iter().max().map(|&c| c + 1);
    let cpus = match (f.nproc, f.lscpu_cpus, parsed, columns) {
        (Some((c, _)), ..) | (None, Some((c, _)), ..) | (None, None, Some(c), _) => c,
        (None, None, None, Some(c)) => {
            let (line, from) = match f.irq_header {
                true => (None, "/proc/interrupts' header (online CPUs only)".to_string()),
                false => (
                    Some(f.irq_cols_line),
                    "the counts of a /proc/interrupts row (one per online CPU)".to_string(),
                ),
            };
            let text = format!("{c} CPUs, from {from}; capture nproc --all");
            out.push(
                line.map_or_else(|| Assumption::new(&text), |l| Assumption::at(l, &text))
                    .set("host.cpus", &c.to_string()),
            );
            c
        }
        _ if f.max_cpu_seen > 0 => {
            let c = f.max_cpu_seen;
            out.push(
                Assumption::at(f.max_cpu_line, &format!("{c} CPUs, the highest the masks name"))
                    .set("host.cpus", &c.to_string()),
            );
            c
        }
        _ => {
            let c = sc.host.cpus;
            out.push(
                Assumption::new(&format!("{c} CPUs (no nproc, lscpu or /proc/interrupts)"))
                    .set("host.cpus", &c.to_string()),
            );
            c
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
    let parsed_nodes = (!f.parse_nodes.is_empty()).then_some((f.parse_nodes.len() as u16, f.parse_line));
    sc.host.numa_nodes = match f.numa_nodes.or(parsed_nodes) {
        Some((nodes, _)) if nodes >= 1 && nodes <= cpus && cpus % nodes == 0 => nodes,
        Some((nodes, line)) => {
            out.push(
                Assumption::at(
                    line,
                    &format!("{nodes} NUMA nodes do not split {cpus} CPUs evenly: 1 node"),
                )
                .set("host.numa_nodes", "1"),
            );
            1
        }
        None => {
            out.push(Assumption::new("1 NUMA node (capture lscpu for the node count)").set("host.numa_nodes", "1"));
            1
        }
    };
    Ok(cpus)
}

/// The RX and TX queues: `ethtool -l`'s current settings, else the queue directories, else
/// `ip -d link`'s allocation, else what the table, the rules, the maps or the vectors show.
fn queues(f: &Facts, vectors: &Vectors, sc: &mut Scenario, out: &mut Out) -> Result<(u32, u32), ScenarioError> {
    let ch = |k: &str| f.channels.get(k).copied();
    let (rx, tx, line) = match (ch("combined"), ch("rx"), ch("tx")) {
        (None, None, None) => {
            let (rx, tx, line, from) = if let Some(((rx, tx), line)) = f.sys_queues {
                (rx, tx.max(1), Some(line), "the queue directories listed")
            } else if let Some(((rx, tx), line)) = f.ip_queues {
                (
                    rx,
                    tx,
                    Some(line),
                    "ip -d link's numrxqueues (allocated, maybe not in use)",
                )
            } else if let Some((rings, line)) = f.rings {
                (rings, rings, Some(line), "the rings ethtool counts")
            } else if let Some(q) = f.rps_cpus.keys().max().or(vectors.by_queue.keys().max()) {
                (
                    u32::from(*q) + 1,
                    u32::from(*q) + 1,
                    None,
                    "the highest queue the capture names",
                )
            } else {
                let q = u32::from(sc.nic.rx_queues);
                (q, q, None, "steerlab's default")
            };
            let tx = f.xps_cpus.keys().max().map_or(tx, |&q| tx.max(u32::from(q) + 1));
            let text = format!("{rx} RX and {tx} TX queues, from {from} (no ethtool -l)");
            out.push(
                line.map_or_else(|| Assumption::new(&text), |l| Assumption::at(l, &text))
                    .set("nic.rx_queues", &rx.to_string()),
            );
            (rx, tx, line.unwrap_or(0))
        }
        (c, r, t) => (
            c.unwrap_or(0) + r.unwrap_or(0),
            c.unwrap_or(0) + t.unwrap_or(0),
            f.channels_line,
        ),
    };
    let max_q = u32::from(steerlab_engine::config::MAX_QUEUES);
    if !(1..=max_q).contains(&rx) || !(1..=max_q).contains(&tx) {
        return Err(ScenarioError(format!(
            "line {line}: {rx} RX and {tx} TX queues; steerlab models 1..={max_q} of each"
        )));
    }
    sc.nic.rx_queues = rx as u16;
    sc.nic.tx_queues = tx as u16;
    Ok((rx, tx))
}

/// The indirection table and the key: as read, else the driver's, else steerlab's, said.
fn table_and_key(
    f: &Facts,
    dflt: &DriverDefaults,
    module: Option<&str>,
    rx: u32,
    sc: &mut Scenario,
    out: &mut Out,
) -> Result<(), ScenarioError> {
    if f.indir.is_empty() {
        let (size, from) = dflt.table_size.unwrap_or((sc.nic.reta_size, "steerlab's default"));
        sc.nic.reta_size = size;
        out.push(
            Assumption::new(&format!("the default indirection table of {size} entries, {from}"))
                .set("nic.reta_size", &size.to_string()),
        );
    } else {
        // The engine's own checks: a power-of-two size, entries below the queue count.
        let reta = steerlab_engine::rss::Reta::from_entries(&f.indir, rx)
            .map_err(|e| ScenarioError(format!("line {}: {e} (truncated?)", f.indir_line)))?;
        sc.nic.reta_size = reta.size();
        if reta.user_configured() {
            sc.nic.indir = f.indir.clone();
        }
    }
    let hex = |k: &[u8]| k[..40].iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":");
    match &f.key {
        Some(k) if k.len() >= 40 => {
            if k.len() > 40 {
                out.push(Assumption::at(
                    f.key_line,
                    &format!(
                        "the key's first 40 of {} bytes (a tuple's hash reads no further)",
                        k.len()
                    ),
                ));
            }
            sc.nic.rss_key = hex(k);
        }
        Some(k) => {
            return Err(ScenarioError(format!(
                "line {}: a {}-byte RSS key; the IPv6 tuple needs 40",
                f.key_line,
                k.len()
            )))
        }
        None => {
            let (key, from): (&[u8], String) = match (dflt.key, module) {
                (Some((k, from)), _) => (k, from.to_string()),
                (None, Some(m)) => (
                    &steerlab_engine::toeplitz::MS_VERIFICATION_KEY,
                    format!("Microsoft's key stands in for the random one {m} sets at boot"),
                ),
                (None, None) => (
                    &steerlab_engine::toeplitz::MS_VERIFICATION_KEY,
                    "Microsoft's key stands in (most drivers set a random one at boot)".to_string(),
                ),
            };
            sc.nic.rss_key = hex(key);
            out.push(Assumption::new(&format!("no RSS key in the capture: {from}")).set("nic.rss_key", &hex(key)));
        }
    }
    if module == Some("ena") {
        out.push(Assumption::new(
            "ENA is not standard Toeplitz (Amazon's ena-toeplitz): predictions for ENA are not exact",
        ));
    }
    Ok(())
}

/// The fields hashed per flow type: as `rx-flow-hash` printed them, else the driver's default.
fn hash_fields(f: &Facts, dflt: &DriverDefaults, out: &mut Out) -> Result<(), ScenarioError> {
    let mut hashed = [false; 4];
    for (&line, &(ty, fields)) in &f.fields {
        if !fields.nic_accepts() {
            let shown = if fields == NO_FIELDS {
                "no field".to_string()
            } else {
                fields.to_string()
            };
            return Err(ScenarioError(format!(
                "line {line}: {} flows are hashed on {shown}; steerlab models sd or sdfn",
                ty.name()
            )));
        }
        hashed[ty.index()] = true;
        if fields != HashFields::FOUR_TUPLE {
            out.cmds
                .push(format!("ethtool -N eth0 rx-flow-hash {} {fields}", ty.name()));
        }
    }
    // The flow types the capture did not show: the driver's UDP default, else addresses and
    // ports (names joined as they come).
    let (mut sd, mut sdfn) = (String::new(), String::new());
    for t in FlowType::ALL.iter().filter(|t| !hashed[t.index()]) {
        let udp = matches!(t, FlowType::Udp4 | FlowType::Udp6);
        let list = if udp && dflt.udp_addresses_only.is_some() {
            out.cmds.push(format!("ethtool -N eth0 rx-flow-hash {} sd", t.name()));
            &mut sd
        } else {
            &mut sdfn
        };
        if !list.is_empty() {
            list.push_str(", ");
        }
        list.push_str(t.name());
    }
    if let (Some(from), false) = (dflt.udp_addresses_only, sd.is_empty()) {
        out.push(Assumption::new(&format!("{sd} hash the addresses only, sd: {from}")));
    }
    if !sdfn.is_empty() {
        out.push(Assumption::new(&format!(
            "{sdfn} hash addresses and ports, sdfn (no rx-flow-hash)"
        )));
    }
    Ok(())
}

/// The ntuple rules, as `ethtool -N` commands; locations past the sandbox's table moved, in
/// order, to the highest free ones.
fn rules(f: &Facts, rx: u32, sc: &mut Scenario, out: &mut Out) -> Result<(), ScenarioError> {
    sc.nic.ntuple = f.ntuple.map_or(!f.rules.is_empty(), |(on, _)| on);
    if f.ntuple.is_none() {
        let state = if sc.nic.ntuple {
            "on, since rules are listed"
        } else {
            "off"
        };
        out.push(
            Assumption::new(&format!("ntuple filters {state} (no ethtool -k)"))
                .set("nic.ntuple", &sc.nic.ntuple.to_string()),
        );
    }
    if let Some((total, line)) = f.rules_total {
        if total != f.rules.len() + f.rules_unprintable {
            return Err(ScenarioError(format!(
                "line {line}: ethtool -n says {total} rules but {} follow (truncated?)",
                f.rules.len() + f.rules_unprintable
            )));
        }
    }
    if !f.rules_seen {
        out.push(Assumption::new("no ntuple rules (no ethtool -n)"));
    }
    let big: Vec<&RuleText> = f.rules.iter().filter(|r| r.loc >= RULE_SLOTS).collect();
    let mut free = (0..RULE_SLOTS).rev().filter(|l| !f.rules.iter().any(|r| r.loc == *l));
    let mut moved: Vec<(u32, u32)> = big
        .iter()
        .rev()
        .filter_map(|r| free.next().map(|l| (r.loc, l)))
        .collect();
    moved.reverse();
    for r in &f.rules {
        if let Some(why) = &r.unsupported {
            out.push(Assumption::at(
                r.line,
                &format!("rule {} is left out: {why}, not modelled", r.loc),
            ));
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
        let loc = match moved.iter().find(|(from, _)| *from == r.loc) {
            Some(&(_, to)) => {
                out.push(Assumption::at(
                    r.line,
                    &format!(
                        "rule {} is rule {to} in the sandbox (1024 locations, order kept)",
                        r.loc
                    ),
                ));
                to
            }
            None if r.loc >= RULE_SLOTS => {
                return Err(ScenarioError(format!(
                    "line {}: more rules than the sandbox's {RULE_SLOTS} locations",
                    r.line
                )))
            }
            None => r.loc,
        };
        out.cmds.push(rule_command(ty, r, q, loc));
    }
    if !f.rules.is_empty() && !sc.nic.ntuple {
        return Err(ScenarioError(format!(
            "line {}: ethtool -n lists rules, but ethtool -k says ntuple-filters off",
            f.rules_line
        )));
    }
    Ok(())
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
    if let Some(ring) = sc.nic.ring_size {
        nic["ring_size"] = json!(ring);
    }
    if let Some(us) = sc.nic.rx_usecs {
        nic["rx_usecs"] = json!(us);
    }
    if let Some(frames) = sc.nic.rx_frames {
        nic["rx_frames"] = json!(frames);
    }
    // The net.core numbers the capture said, where they differ from the kernel's defaults.
    let mut net = json!({ "netdev_max_backlog": sc.net.netdev_max_backlog });
    let d = crate::spec::NetSection::default();
    for (key, v, default) in [
        ("netdev_budget", sc.net.netdev_budget, d.netdev_budget),
        ("netdev_budget_usecs", sc.net.netdev_budget_usecs, d.netdev_budget_usecs),
        ("dev_weight", sc.net.dev_weight, d.dev_weight),
        ("rmem_default", sc.net.rmem_default, d.rmem_default),
        ("rmem_max", sc.net.rmem_max, d.rmem_max),
    ] {
        if v != default {
            net[key] = json!(v);
        }
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
        "net": net,
        "xps": { "map": sc.xps.map.0.name() },
        // A host to play flows on, not a lesson with an end: a minute before time pauses.
        "sim": { "duration_ms": YOUR_HOST_MS },
        "timeline": sc.timeline.iter().map(|c| json!({ "at_ms": c.at_ms, "command": c.command })).collect::<Vec<_>>(),
    })
}

/// The `ethtool -N` line of a rule, with its masks as ethtool takes them.
pub(super) fn rule_command(ty: FlowType, r: &RuleText, q: u16, loc: u32) -> String {
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
    cmd + &format!(" action {q} loc {loc}")
}
