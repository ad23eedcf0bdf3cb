//! `cat /proc/net/softnet_stat` and `cat /proc/interrupts`, in the kernel's layout, `nproc`
//! and `lscpu`.
//!
//! `/proc/net/softnet_stat` follows net/core/net-procfs.c `softnet_seq_show` as of v6.12 (the
//! same through v6.18, checked in both trees): one row per online CPU of fifteen `%08x`
//! columns, `processed`, `dropped`, `time_squeeze`, `0`, four `0`s (was fastroute), `0` (was
//! `cpu_collision`), `received_rps`, `flow_limit_count`, the backlog length
//! (`input_qlen + process_qlen`), the CPU index, `input_qlen`, `process_qlen`. The values are
//! `unsigned int` in the kernel and wrap likewise. `time_squeeze` is the engine's count of
//! runs that ended with work left (sim/napi.rs); backlogs are empty between ticks (the queue
//! lengths are 0).
//!
//! `/proc/interrupts` follows kernel/irq/proc.c `show_interrupts`: a header of `CPU%-8d` after
//! `prec + 8` spaces, then per IRQ `%*d:` (`prec` = 3 below 1000 IRQs), `" %10u"` per CPU, a
//! space, the chip name as `" %8s"`, the hwirq as `" %*lu"`, `-%-8s` of the flow handler name
//! and `"  %s"` of the action name. Only the NIC's queue vectors are listed (the sandbox has no
//! other devices): MSI-X vector `q + 1` of PCI function 0000:3b:00.0 (vector 0 is the driver's
//! misc/control vector), IRQ number `130 + q`, named as the driver names them (ice:
//! `ice-eth0-TxRx-N`, mlx5: `mlx5_compN@pci:...`, ixgbe and generic: `eth0-TxRx-N`). Each
//! vector's count is on the CPU its interrupts ran on now (the sandbox keeps no per-CPU
//! history: after an affinity change the whole count moves), and is the interrupts the
//! engine counted under moderation and NAPI's masking (sim/napi.rs): fewer than the packets
//! when `rx-usecs` > 0 or the poll is busy.

use core::fmt::Write;

use steerlab_engine::{Driver, Sim};

use crate::DEVICE;

/// First IRQ number of the NIC's queue vectors.
pub(crate) const IRQ_BASE: u32 = 130;
/// Width of the IRQ column (`prec` for fewer than 1000 IRQs: 130 + 512 queues stays below).
const PREC: usize = 3;
/// The NIC's PCI function.
pub(crate) const PCI: &str = "0000:3b:00.0";

pub(crate) const NPROC_FORMS: &str = "nproc [--all]";

/// `nproc [--all]` (coreutils): the CPU count; every CPU of the sandbox is online and allowed.
pub(crate) fn nproc(sim: &Sim, args: &[&str]) -> Result<String, String> {
    match args {
        [] | ["--all"] => Ok(format!("{}\n", sim.config().cpus)),
        _ => Err(crate::hinted(
            format!(
                "nproc: steerlab's nproc takes no operand but --all, not {:?}",
                args.join(" ")
            ),
            NPROC_FORMS,
        )),
    }
}

pub(crate) const LSCPU_FORMS: &str = "lscpu";
pub(crate) const READLINK_FORMS: &str = "readlink [-f] /sys/class/net/DEV/device";

/// `readlink [-f] /sys/class/net/DEV/device`: the NIC's PCI function (the device its
/// `/proc/interrupts` vectors name), under its root port as sysfs places it.
pub(crate) fn readlink(args: &[&str]) -> Result<String, String> {
    let path = match args {
        [p] | ["-f" | "-e" | "-m", p] => *p,
        _ => return Err(crate::hinted("readlink: steerlab reads one link", READLINK_FORMS)),
    };
    let link = format!("/sys/class/net/{}/device", crate::DEVICE);
    if path != link && path != format!("{link}/") {
        return Err(crate::hinted(
            format!("readlink: {path}: not a link steerlab models"),
            READLINK_FORMS,
        ));
    }
    let full = args.len() == 2;
    Ok(if full {
        format!("/sys/devices/pci0000:3a/0000:3a:00.0/{PCI}\n")
    } else {
        format!("../../../{PCI}\n")
    })
}

/// `lscpu` (util-linux): the summary lines of what steerlab models, the CPUs and their NUMA
/// nodes (contiguous blocks), in lscpu's `NAME:` then aligned value layout.
pub(crate) fn lscpu(sim: &Sim, args: &[&str]) -> Result<String, String> {
    if !args.is_empty() {
        return Err(crate::hinted(
            format!("lscpu: steerlab's lscpu takes no options, not {:?}", args.join(" ")),
            LSCPU_FORMS,
        ));
    }
    let c = sim.config();
    let per = c.cpus / c.numa_nodes;
    let list = |lo: u16, n: u16| steerlab_engine::CpuSet::range(lo, lo + n).to_list();
    let mut rows = vec![
        ("CPU(s):".to_string(), c.cpus.to_string()),
        ("On-line CPU(s) list:".to_string(), list(0, c.cpus)),
        ("NUMA node(s):".to_string(), c.numa_nodes.to_string()),
    ];
    rows.extend((0..c.numa_nodes).map(|node| (format!("NUMA node{node} CPU(s):"), list(node * per, per))));
    Ok(rows.iter().map(|(k, v)| format!("{k:<38}{v}\n")).collect())
}

/// `/proc/net/softnet_stat`.
pub(crate) fn softnet_stat(sim: &Sim) -> String {
    let snap = sim.snapshot();
    let mut out = String::new();
    for (cpu, s) in snap.cpus.iter().enumerate() {
        let cols: [u64; 15] = [
            s.packets,
            s.dropped,
            s.time_squeeze,
            0,
            0,
            0,
            0,
            0,
            0,
            s.received_rps,
            s.flow_limit_count,
            0,
            cpu as u64,
            0,
            0,
        ];
        let row: Vec<String> = cols.iter().map(|&v| format!("{:08x}", v as u32)).collect();
        let _ = writeln!(out, "{}", row.join(" "));
    }
    out
}

/// The driver's name for queue `q`'s vector (`request_irq`'s name).
fn vector_name(driver: Driver, q: usize) -> String {
    match driver {
        Driver::Ice | Driver::IceHashMatch => format!("ice-{DEVICE}-TxRx-{q}"),
        Driver::Mlx5 => format!("mlx5_comp{q}@pci:{PCI}"),
        _ => format!("{DEVICE}-TxRx-{q}"),
    }
}

/// `/proc/interrupts`.
pub(crate) fn interrupts(sim: &Sim) -> String {
    let snap = sim.snapshot();
    let ncpus = usize::from(sim.config().cpus);
    let mut out = format!("{:w$}", "", w = PREC + 8);
    for c in 0..ncpus {
        let _ = write!(out, "CPU{c:<8}");
    }
    out.push('\n');
    for q in 0..snap.queues.len() {
        let _ = write!(out, "{:>PREC$}:", IRQ_BASE as usize + q);
        for c in 0..ncpus {
            let _ = write!(out, " {:>10}", sim.irq_interrupts_on(q as u16, c as u16));
        }
        let chip = format!("IR-PCI-MSIX-{PCI}");
        let _ = writeln!(
            out,
            "  {chip:>8} {:>PREC$}-{:<8}  {}",
            q + 1,
            "edge",
            vector_name(sim.config().driver, q)
        );
    }
    out
}
