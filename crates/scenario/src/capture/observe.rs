//! What the capture shows of the receive path's depth and load: the RX ring and interrupt
//! moderation it sets (`ethtool -g`, `ethtool -c`, checked as the engine checks them), and the
//! [`Observation`]s of its counters: drops at the rings (`ethtool -S`), at the backlogs and the
//! softirq's budget (`/proc/net/softnet_stat`), at the sockets (`nstat`, `/proc/net/snmp`), and
//! the CPUs that take the softirq load (`mpstat`, `/proc/interrupts`). The counters are since
//! boot (or over mpstat's interval), said as printed: no rate is made up from them.

use steerlab_engine::config::MAX_RX_USECS;

use super::counters::drop_queue;
use super::irqs::Vectors;
use super::{Assumption, Facts, Observation, Out};
use crate::compare::thousands;
use crate::Scenario;

/// `nic.ring_size`, `nic.rx_usecs` and `nic.rx_frames` from `ethtool -g` and `ethtool -c`, when the modelled
/// driver takes them as they are (`Driver::set_rx_ring`, `MAX_RX_USECS`); otherwise its
/// defaults, said with their `--set`.
pub(super) fn ring_and_moderation(f: &Facts, sc: &mut Scenario, out: &mut Out) {
    let driver = sc.nic.driver.0;
    let model = driver.name();
    let (ring_default, _) = driver.rx_ring();
    match f.ring {
        Some((n, line)) => match driver.set_rx_ring(n) {
            Ok(m) if m == n => sc.nic.ring_size = Some(n),
            Ok(m) => out.push(
                Assumption::at(
                    line,
                    &format!(
                        "an RX ring of {n}: the {model} model rounds it to {m}, so its default {ring_default} is kept"
                    ),
                )
                .set("nic.ring_size", &m.to_string()),
            ),
            Err(why) => out.push(
                Assumption::at(
                    line,
                    &format!("an RX ring of {n}: the {model} model refuses it ({why}), so its default {ring_default} is kept"),
                )
                .set("nic.ring_size", &ring_default.to_string()),
            ),
        },
        None => {
            let text = format!("the {model} model's RX ring, {ring_default} descriptors (no ethtool -g)");
            let a = match f.ring_header {
                0 => Assumption::new(&text),
                l => Assumption::at(l, &text),
            };
            out.push(a.set("nic.ring_size", &ring_default.to_string()));
        }
    }
    rx_frames(f, driver, sc, out);
    let usecs_default = driver.default_rx_usecs();
    let dflt = usecs_default.to_string();
    match (f.adaptive_rx, f.rx_usecs) {
        (Some((true, line)), _) => out.push(
            Assumption::at(
                line,
                &format!(
                    "adaptive RX moderation, which steerlab does not model: the {model} model's starting interval, {usecs_default} us"
                ),
            )
            .set("nic.rx_usecs", &dflt),
        ),
        (_, Some((us, _))) if us <= u64::from(MAX_RX_USECS) => sc.nic.rx_usecs = Some(us as u32),
        (_, Some((us, line))) => out.push(
            Assumption::at(
                line,
                &format!("rx-usecs {us}: steerlab models 0..={MAX_RX_USECS}; the {model} model's {usecs_default} us"),
            )
            .set("nic.rx_usecs", &dflt),
        ),
        (_, None) => {
            let text = format!("the {model} model's interrupt moderation, {usecs_default} us (no ethtool -c rx-usecs)");
            let a = match f.coalesce_header {
                0 => Assumption::new(&text),
                l => Assumption::at(l, &text),
            };
            out.push(a.set("nic.rx_usecs", &dflt));
        }
    }
}

/// `nic.rx_frames` from `ethtool -c`'s `rx-frames`, on a fixed moderation of a driver that
/// counts frames (under adaptive moderation the driver moves it, and the model's start stays).
fn rx_frames(f: &Facts, driver: steerlab_engine::Driver, sc: &mut Scenario, out: &mut Out) {
    let (Some((frames, line)), Some(default)) = (f.rx_frames, driver.default_rx_frames()) else {
        return;
    };
    if f.adaptive_rx.is_some_and(|(on, _)| on) {
        return;
    }
    match u32::try_from(frames) {
        Ok(n) if n <= steerlab_engine::config::MAX_RX_FRAMES => sc.nic.rx_frames = Some(n),
        _ => out.push(
            Assumption::at(
                line,
                &format!("rx-frames {frames}: steerlab models 0..=65535; the model's {default}"),
            )
            .set("nic.rx_frames", &default.to_string()),
        ),
    }
}

/// CPUs with their counts: `CPU 3 (1,234)`, `CPUs 0 (12), 3 (4)`; past eight, the rest counted.
fn per_cpu(list: &[(u16, String)]) -> String {
    let shown: Vec<String> = list.iter().take(8).map(|(c, v)| format!("{c} ({v})")).collect();
    let more = match list.len() {
        0..=8 => String::new(),
        n => format!(" and {} more", n - 8),
    };
    let s = if list.len() == 1 { "" } else { "s" };
    format!("CPU{s} {}{more}", shown.join(", "))
}

#[inline(never)]
fn observe(seen: &mut Vec<Observation>, place: &str, line: usize, text: &str) {
    seen.push(Observation {
        place: place.to_string(),
        text: format!("line {line}: {text}"),
        line,
    });
}

/// Every observation the capture's counters give, in the order of the path: rings, backlogs,
/// the softirq's budget, sockets, then who takes the softirq load.
pub(super) fn observations(f: &Facts, vectors: &Vectors, iface: &str) -> Vec<Observation> {
    let mut seen = Vec::new();
    rings(f, &mut seen);
    softnet(f, &mut seen);
    sockets(f, &mut seen);
    softirq(f, vectors, iface, &mut seen);
    seen
}

/// `ethtool -S`'s nonzero drop counters, each in the words of what the driver counts.
fn rings(f: &Facts, seen: &mut Vec<Observation>) {
    for (name, v, line) in f.nic_stats.iter().filter(|(_, v, _)| *v > 0) {
        let v = thousands(*v);
        let what = match (name.as_str(), drop_queue(name)) {
            (_, Some(q)) => format!("rx-{q}'s ring dropped {v} packets"),
            ("rx_packets", _) => continue,
            ("rx_no_buffer_count", _) => format!("the NIC found no free buffer on a ring {v} times"),
            ("rx_dropped", _) => {
                format!("the driver dropped {v} received packets (at the rings on ice and virtio_net; other drivers count the stack's drops here too)")
            }
            _ => format!("the NIC dropped {v} packets at its rings"),
        };
        observe(seen, "ring", *line, &format!("{what} (ethtool -S: {name})"));
    }
}

/// softnet_stat's CPUs with a nonzero dropped, flow_limit_count or time_squeeze column.
fn softnet(f: &Facts, seen: &mut Vec<Observation>) {
    for (col, place, what, shown) in [
        (
            1,
            "backlog",
            "packets dropped at a full backlog",
            "2nd column, dropped: net.core.netdev_max_backlog",
        ),
        (
            3,
            "backlog",
            "packets dropped by the RPS flow limit",
            "11th column, flow_limit_count",
        ),
        (
            2,
            "squeeze",
            "softirq runs out of budget with packets left",
            "3rd column, time_squeeze: net.core.netdev_budget, netdev_budget_usecs",
        ),
    ] {
        let rows: Vec<&(u16, [u64; 4], usize)> = f.softnet.iter().filter(|(_, c, _)| c[col] > 0).collect();
        let Some(first) = rows.first() else { continue };
        let list: Vec<(u16, String)> = rows.iter().map(|(cpu, c, _)| (*cpu, thousands(c[col]))).collect();
        let text = format!("{what} on {} (/proc/net/softnet_stat's {shown})", per_cpu(&list));
        observe(seen, place, first.2, &text);
    }
}

/// The sockets' drop counters nstat and /proc/net/snmp print, when not zero.
fn sockets(f: &Facts, seen: &mut Vec<Observation>) {
    for (name, what) in [
        (
            "UdpRcvbufErrors",
            "UDP sockets dropped {} datagrams at a full receive buffer",
        ),
        (
            "UdpInErrors",
            "UDP dropped {} datagrams on receive, full buffers and bad checksums alike",
        ),
        (
            "Udp6RcvbufErrors",
            "UDP over IPv6 dropped {} datagrams at a full receive buffer",
        ),
        ("Udp6InErrors", "UDP over IPv6 dropped {} datagrams on receive"),
        (
            "TcpExtListenDrops",
            "listening TCP sockets dropped {} connection requests",
        ),
        (
            "TcpExtTCPBacklogDrop",
            "TCP dropped {} segments at a socket's full backlog",
        ),
    ] {
        if let Some((v, line, shown)) = f.mib.get(name).filter(|(v, ..)| *v > 0) {
            let text = what.replace("{}", &thousands(*v));
            observe(seen, "socket", *line, &format!("{text} ({shown})"));
        }
    }
}

/// The CPUs over half their time in softirq (mpstat), and a CPU that takes most of the queue
/// vectors' interrupts (/proc/interrupts' counts, else their effective affinity: where the
/// IRQ fires, which smp_affinity_list only allows).
fn softirq(f: &Facts, vectors: &Vectors, iface: &str, seen: &mut Vec<Observation>) {
    let busy: Vec<(u16, f64, usize)> = f
        .soft
        .iter()
        .filter(|(_, (soft, _))| *soft > 50.0)
        .map(|(&c, &(soft, line))| (c, soft, line))
        .collect();
    if let Some(&(_, _, line)) = busy.first() {
        let list: Vec<(u16, String)> = busy.iter().map(|&(c, s, _)| (c, format!("{s:.2}%"))).collect();
        observe(
            seen,
            "softirq",
            line,
            &format!(
                "{} spent more than half their time in softirq (mpstat: %soft)",
                per_cpu(&list)
            ),
        );
    }
    let irqs: Vec<u32> = vectors.by_queue.values().copied().collect();
    if irqs.len() < 2 {
        return;
    }
    // Sums in u128: a pasted count may be any u64.
    let mut per_cpu_counts = vec![0u128; f.irq_cpus.len()];
    let mut first_line = None;
    for irq in &irqs {
        if let Some((_, counts, line)) = f.irqs.get(irq) {
            first_line.get_or_insert(*line);
            per_cpu_counts
                .iter_mut()
                .zip(counts)
                .for_each(|(t, &c)| *t += u128::from(c));
        }
    }
    let total: u128 = per_cpu_counts.iter().sum();
    let top = per_cpu_counts
        .iter()
        .enumerate()
        .max_by_key(|&(i, c)| (*c, std::cmp::Reverse(i)));
    if let (Some(line), Some((i, &most))) = (first_line, top) {
        if per_cpu_counts.len() > 1 && total > 0 && most * 2 > total {
            let cpu = f.irq_cpus[i];
            let share = if most == total {
                "all".to_string()
            } else {
                format!("{}%", most * 100 / total)
            };
            observe(
                seen,
                "softirq",
                line,
                &format!(
                    "{share} of {iface}'s {} queue vectors' interrupts since boot ({} of {}) fired on CPU {cpu} (/proc/interrupts)",
                    irqs.len(),
                    thousands(most),
                    thousands(total)
                ),
            );
            return;
        }
    }
    let effective: Vec<(u16, usize)> = irqs
        .iter()
        .filter_map(|irq| f.effective.get(irq))
        .filter_map(|(set, line)| set.iter().next().map(|c| (c, *line)))
        .collect();
    if effective.len() == irqs.len() && effective.iter().all(|(c, _)| *c == effective[0].0) {
        observe(
            seen,
            "softirq",
            effective[0].1,
            &format!(
                "all {} of {iface}'s queue vectors fire on CPU {} (effective_affinity_list)",
                irqs.len(),
                effective[0].0
            ),
        );
    }
}
