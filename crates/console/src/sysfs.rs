//! `sysctl`, and `echo VALUE > FILE` / `echo VALUE | tee FILE` / `cat FILE` of the steering files
//! in sysfs, /proc/sys and /proc/irq (queue vectors' affinity, kernel/irq/proc.c), plus the
//! listing of the queue tree and of /proc/irq that the shell's globs match.
//!
//! Kernel sources of the files: net/core/net-sysfs.c (`store_rps_map` / `show_rps_map`,
//! `store_rps_dev_flow_table_cnt` / `show_rps_dev_flow_table_cnt`, `xps_cpus_store` /
//! `xps_cpus_show`, `xps_rxqs_store` / `xps_rxqs_show`) and net/core/sysctl_net_core.c
//! (`rps_sock_flow_sysctl`: a read shows the table size in force, rounded up to a power of
//! two). Masks print as the kernel's `%*pb`: 32-bit groups of hex separated by commas, most
//! significant first, as wide as the bitmap (CPUs for `rps_cpus`/`xps_cpus`, RX queues for
//! `xps_rxqs`); `rps_flow_cnt` is read with `kstrtoul(.., 0)`. Errors are bash's for a missing
//! file or a refused write (`bash: echo: write error: Invalid argument`), tee's, cat's, and procps
//! sysctl's (sysctl.c: `name = value` lines, `sysctl: cannot stat /proc/sys/...`,
//! `sysctl: setting key "..."`).

use steerlab_engine::{CoreSysctl, CpuSet, Setting, Sim};

use crate::procfs::IRQ_BASE;
use crate::{hinted, parse_c_u64, quotef, DEVICE};

/// The accepted forms of `sysctl`.
pub(crate) const SYSCTL_FORMS: &str = "sysctl [-n] net.core.NAME   (NAME: rps_sock_flow_entries, netdev_max_backlog, netdev_budget, netdev_budget_usecs, dev_weight, rmem_default, rmem_max, flow_limit_cpu_bitmap, flow_limit_table_len)\n\
sysctl -w net.core.rps_sock_flow_entries=N\n\
sysctl -w net.core.netdev_max_backlog=N   (and netdev_budget, netdev_budget_usecs, dev_weight, rmem_default, rmem_max)\n\
sysctl -w net.core.flow_limit_cpu_bitmap=MASK\n\
sysctl -w net.core.flow_limit_table_len=N\n\
sysctl -a";

/// The accepted forms of `echo`.
pub(crate) const ECHO_FORMS: &str = "echo MASK > /sys/class/net/DEV/queues/rx-N/rps_cpus\n\
echo N > /sys/class/net/DEV/queues/rx-N/rps_flow_cnt\n\
echo MASK > /sys/class/net/DEV/queues/tx-N/xps_cpus\n\
echo MASK > /sys/class/net/DEV/queues/tx-N/xps_rxqs\n\
echo N > /proc/sys/net/core/rps_sock_flow_entries   (and netdev_max_backlog, netdev_budget, netdev_budget_usecs, dev_weight, rmem_default, rmem_max)\n\
echo MASK > /proc/sys/net/core/flow_limit_cpu_bitmap\n\
echo N > /proc/sys/net/core/flow_limit_table_len\n\
echo CPUS > /proc/irq/N/smp_affinity_list   (N: a queue's IRQ, see cat /proc/interrupts)\n\
echo VALUE | tee /sys/class/net/DEV/queues/rx-*/FILE   (every RX queue; tx-* every TX queue)\n\
for q in /sys/class/net/DEV/queues/rx-*; do echo VALUE > $q/FILE; done";

const SOCK_FLOW: &str = "net.core.rps_sock_flow_entries";
/// The sysctls steerlab models, in `sysctl -a`'s order (alphabetical).
const SYSCTLS: [&str; 9] = [
    "net.core.dev_weight",
    "net.core.flow_limit_cpu_bitmap",
    "net.core.flow_limit_table_len",
    "net.core.netdev_budget",
    "net.core.netdev_budget_usecs",
    "net.core.netdev_max_backlog",
    "net.core.rmem_default",
    "net.core.rmem_max",
    SOCK_FLOW,
];

/// A steering file of the host.
#[derive(Clone, Copy)]
enum File {
    RpsCpus(u16),
    RpsFlowCnt(u16),
    XpsCpus(u16),
    XpsRxqs(u16),
    SockFlow,
    /// A `net.core` number the engine reads afresh (`netdev_max_backlog`, the budgets, …).
    Core(CoreSysctl),
    FlowLimitCpus,
    FlowLimitLen,
    /// `/proc/irq/N/smp_affinity_list` of queue q's vector.
    IrqList(u16),
    /// `/proc/irq/N/smp_affinity`.
    IrqMask(u16),
    /// `/proc/irq/N/effective_affinity_list` (read only).
    IrqEffective(u16),
    /// `/sys/class/net/DEV/device/numa_node`, `local_cpulist`, `local_cpus` (read only).
    Device(DeviceFile),
}

/// The NIC's PCI device files that say where it sits (drivers/pci/pci-sysfs.c
/// `numa_node_show`, `local_cpulist_show`, `local_cpus_show`: the CPUs of the device's node,
/// `cpumask_of_node(dev_to_node(dev))`). The sandbox's NIC sits on node 0 (irqbalance.rs
/// places its vectors there first).
#[derive(Clone, Copy)]
enum DeviceFile {
    NumaNode,
    LocalCpulist,
    LocalCpus,
}

/// The files of an IRQ's directory that steerlab models (kernel/irq/proc.c `register_irq_proc`).
const IRQ_FILES: [&str; 3] = ["effective_affinity_list", "smp_affinity", "smp_affinity_list"];

/// The queue whose vector is IRQ `text` (procfs.rs numbers them from `IRQ_BASE`).
fn irq_queue(sim: &Sim, text: &str) -> Option<u16> {
    let irq: u32 = text.parse().ok().filter(|n: &u32| n.to_string() == text)?;
    let q = irq.checked_sub(IRQ_BASE)?;
    (q < u32::from(sim.config().rx_queues)).then_some(q as u16)
}

/// The file at `path`, if the host has it (queues beyond the device's count do not exist).
fn file(sim: &Sim, path: &str) -> Option<File> {
    match path {
        "/proc/sys/net/core/rps_sock_flow_entries" => return Some(File::SockFlow),
        "/proc/sys/net/core/flow_limit_cpu_bitmap" => return Some(File::FlowLimitCpus),
        "/proc/sys/net/core/flow_limit_table_len" => return Some(File::FlowLimitLen),
        _ => {}
    }
    if let Some(name) = path.strip_prefix("/proc/sys/net/core/") {
        return CoreSysctl::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|&(c, _)| File::Core(c));
    }
    if let Some(rest) = path.strip_prefix("/proc/irq/") {
        let (irq, name) = rest.split_once('/')?;
        let q = irq_queue(sim, irq)?;
        return match name {
            "smp_affinity_list" => Some(File::IrqList(q)),
            "smp_affinity" => Some(File::IrqMask(q)),
            "effective_affinity_list" => Some(File::IrqEffective(q)),
            _ => None,
        };
    }
    let dev = path.strip_prefix("/sys/class/net/")?.strip_prefix(DEVICE)?;
    if let Some(name) = dev.strip_prefix("/device/") {
        return match name {
            "numa_node" => Some(File::Device(DeviceFile::NumaNode)),
            "local_cpulist" => Some(File::Device(DeviceFile::LocalCpulist)),
            "local_cpus" => Some(File::Device(DeviceFile::LocalCpus)),
            _ => None,
        };
    }
    let rest = dev.strip_prefix("/queues/")?;
    let (dir, name) = rest.split_once('/')?;
    let (rx, q) = match dir.strip_prefix("rx-") {
        Some(q) => (true, q),
        None => (false, dir.strip_prefix("tx-")?),
    };
    let q: u16 = q.parse().ok().filter(|n: &u16| n.to_string() == q)?;
    let cfg = sim.config();
    match (rx, name) {
        (true, "rps_cpus") if q < cfg.rx_queues => Some(File::RpsCpus(q)),
        (true, "rps_flow_cnt") if q < cfg.rx_queues => Some(File::RpsFlowCnt(q)),
        (false, "xps_cpus") if q < cfg.tx_queues => Some(File::XpsCpus(q)),
        (false, "xps_rxqs") if q < cfg.tx_queues => Some(File::XpsRxqs(q)),
        _ => None,
    }
}

/// The files a write or a read may name on this host.
pub(crate) fn files_hint(sim: &Sim) -> String {
    let c = sim.config();
    format!(
        "{ECHO_FORMS}\n(this host: rx-0..rx-{}, tx-0..tx-{}, device {DEVICE})",
        c.rx_queues - 1,
        c.tx_queues - 1
    )
}

/// Who writes a file: bash for `echo VALUE > FILE`, GNU tee for `echo VALUE | tee FILE`. They
/// word the same refusal differently: bash's `bash: FILE: No such file or directory` and
/// `bash: echo: write error: Invalid argument` (builtins/echo.def, the error of the flush),
/// coreutils' `tee: FILE: No such file or directory` and `tee: FILE: Invalid argument`
/// (tee.c: `error (0, errno, "%s", quotef (files[i]))` on open and on write).
#[derive(Clone, Copy)]
pub(crate) enum Writer {
    Echo,
    Tee,
    /// `sysctl -w NAME=VALUE` (procps-ng words its refusals `sysctl: setting key "NAME": …`).
    Sysctl,
}

/// Checks `echo VALUE > PATH` (or tee's or sysctl's write of it) against the host without
/// changing it: the value as the kernel's store function parses it, then the engine's own check
/// of the setting ([`Sim::check_setting`]); the error is `writer`'s text and a `hint:` line. A
/// line of many writes checks them all before the first is applied (lib.rs: a failing command
/// changes nothing; settings.rs in the engine says why that is sound).
pub(crate) fn check_write(sim: &Sim, path: &str, value: &str, writer: Writer) -> Result<Setting, String> {
    let Some(f) = file(sim, path) else {
        let name = match writer {
            Writer::Echo => format!("bash: {path}"),
            Writer::Tee => format!("tee: {}", quotef(path)),
            Writer::Sysctl => format!("sysctl: cannot stat {path}"),
        };
        return Err(hinted(format!("{name}: No such file or directory"), &files_hint(sim)));
    };
    let werr = |errno: &str, why: String| {
        let message = match writer {
            Writer::Echo => format!("bash: echo: write error: {errno}"),
            Writer::Tee => format!("tee: {}: {errno}", quotef(path)),
            Writer::Sysctl => format!("sysctl: setting key \"{}\": {errno}", sysctl_name(path)),
        };
        hinted(message, &why)
    };
    let invalid = |why: String| werr("Invalid argument", why);
    // `bitmap_parse(buf, len, bits, nbits)` (lib/bitmap-str.c), which store_rps_map,
    // xps_cpus_store, xps_rxqs_store and the IRQ and flow-limit masks call with the host's CPU
    // (or RX queue) count as `nbits`: a bit at or above it is -EOVERFLOW, before any other check.
    let within = |what: &str, set: CpuSet, n: u16, of: &str| {
        if set.end() > n {
            Err(werr(
                "Value too large for defined data type",
                format!(
                    "{what}: the mask names {of} {} and this host has {of}s 0-{}",
                    set.end() - 1,
                    n - 1
                ),
            ))
        } else {
            Ok(set)
        }
    };
    let cpus = sim.config().cpus;
    // xps_cpus_store / xps_rxqs_store (net/core/net-sysfs.c) refuse a device with one TX
    // queue (`!netif_is_multiqueue(dev)`: -ENOENT) before they parse the mask.
    if matches!(f, File::XpsCpus(_) | File::XpsRxqs(_)) && sim.config().tx_queues == 1 {
        return Err(werr(
            "No such file or directory",
            "a device with one TX queue has no XPS: xps_cpus_store answers -ENOENT (netif_is_multiqueue)".into(),
        ));
    }
    let mask = |what: &str| {
        CpuSet::parse_hex(value)
            .map_err(|e| invalid(format!("{what} takes a hex mask: {e}")))
            .and_then(|set| within(what, set, cpus, "CPU"))
    };
    let setting = match f {
        File::RpsCpus(queue) => Setting::RpsCpus {
            queue,
            cpus: mask("rps_cpus")?,
        },
        File::XpsCpus(queue) => Setting::XpsCpus {
            queue,
            cpus: mask("xps_cpus")?,
        },
        File::XpsRxqs(queue) => Setting::XpsRxqs {
            queue,
            rx_queues: CpuSet::parse_hex(value)
                .map_err(|e| invalid(format!("xps_rxqs takes a hex mask: {e}")))
                .and_then(|set| within("xps_rxqs", set, sim.config().rx_queues, "RX queue"))?,
        },
        File::RpsFlowCnt(queue) => {
            let n = parse_c_u64(value.trim()).filter(|&n| n <= u64::from(u32::MAX));
            let count = n.ok_or_else(|| invalid(format!("rps_flow_cnt takes a count, not {value:?}")))? as u32;
            Setting::FlowCnt { queue, count }
        }
        File::SockFlow => Setting::SockFlowEntries(
            dointvec(value).ok_or_else(|| invalid(format!("{SOCK_FLOW} takes a count, not {value:?}")))?,
        ),
        // proc_dointvec (netdev_max_backlog, netdev_budget) or proc_dointvec_minmax
        // (netdev_budget_usecs >= 0, dev_weight >= 1, rmem_* >= SOCK_MIN_RCVBUF): the engine's
        // check holds the ranges (net/core/sysctl_net_core.c).
        File::Core(which) => Setting::Core(
            which,
            dointvec(value).ok_or_else(|| invalid(format!("{} takes a count, not {value:?}", sysctl_name(path))))?,
        ),
        // kernel/irq/proc.c `write_irq_affinity`: cpulist_parse or cpumask_parse, then EINVAL
        // for a mask with no online CPU (the engine's check).
        File::IrqList(queue) => Setting::IrqAffinity {
            queue,
            cpus: CpuSet::parse_list(value.trim())
                .map_err(|e| invalid(format!("smp_affinity_list takes a CPU list: {e}")))?,
        },
        File::IrqMask(queue) => Setting::IrqAffinity {
            queue,
            cpus: mask("smp_affinity")?,
        },
        File::IrqEffective(_) => {
            return Err(werr(
                "Permission denied",
                "effective_affinity_list is read only: write smp_affinity_list".into(),
            ))
        }
        File::Device(_) => {
            return Err(werr(
                "Permission denied",
                "the device's NUMA files say where the NIC sits: steerlab does not move it".into(),
            ))
        }
        File::FlowLimitCpus => Setting::FlowLimitCpus(mask("flow_limit_cpu_bitmap")?),
        // proc_dointvec; flow_limit_table_len_sysctl (net/core/sysctl_net_core.c) then puts back
        // a length that is not a power of two and fails with EINVAL (the engine's check).
        File::FlowLimitLen => Setting::FlowLimitTableLen(
            dointvec(value).ok_or_else(|| invalid(format!("flow_limit_table_len takes a count, not {value:?}")))?,
        ),
    };
    sim.check_setting(&setting).map_err(|e| invalid(e.to_string()))?;
    Ok(setting)
}

/// Applies a checked write. The engine's error is returned rather than unwrapped, but
/// [`check_write`] asked the engine's check, so none is expected.
pub(crate) fn apply(sim: &mut Sim, setting: &Setting) -> Result<(), String> {
    sim.apply_setting(setting)
        .map_err(|e| hinted("bash: echo: write error: Invalid argument", &e.to_string()))
}

/// The entries of a directory of the queue tree, `/sys/class/net/DEV/queues` (`rx-N` and
/// `tx-N`, as net-sysfs.c `net_rx_queue_update_kobjects` / `netdev_queue_update_kobjects`
/// make them) or one queue's directory (the files steerlab models: every file of an RX
/// queue, `xps_cpus` and `xps_rxqs` of a TX queue), in no particular order; `None` when `dir`
/// is not such a directory. The shell's globs match against this.
pub(crate) fn list_dir(sim: &Sim, dir: &str) -> Option<Vec<String>> {
    let cfg = sim.config();
    if dir == format!("/sys/class/net/{DEVICE}/queues") {
        let rx = (0..cfg.rx_queues).map(|q| format!("rx-{q}"));
        return Some(rx.chain((0..cfg.tx_queues).map(|q| format!("tx-{q}"))).collect());
    }
    if dir == format!("/sys/class/net/{DEVICE}/device") {
        return Some(
            ["local_cpulist", "local_cpus", "numa_node"]
                .map(str::to_string)
                .to_vec(),
        );
    }
    if dir == "/proc/irq" {
        return Some(
            (0..u32::from(cfg.rx_queues))
                .map(|q| (IRQ_BASE + q).to_string())
                .collect(),
        );
    }
    if dir
        .strip_prefix("/proc/irq/")
        .is_some_and(|irq| irq_queue(sim, irq).is_some())
    {
        return Some(IRQ_FILES.iter().map(|f| f.to_string()).collect());
    }
    let names = ["rps_cpus", "rps_flow_cnt", "xps_cpus", "xps_rxqs"].into_iter();
    let entries: Vec<String> = names
        .filter(|n| file(sim, &format!("{dir}/{n}")).is_some())
        .map(str::to_string)
        .collect();
    (!entries.is_empty()).then_some(entries)
}

/// What `proc_dointvec` accepts for the sysctls steerlab writes (`rps_sock_flow_entries`,
/// `flow_limit_table_len`): a non-negative decimal int.
fn dointvec(text: &str) -> Option<u32> {
    text.trim().parse::<u32>().ok().filter(|&n| n <= i32::MAX as u32)
}

/// The text of a steering file, if the host has it.
pub(crate) fn read(sim: &Sim, path: &str) -> Option<String> {
    let cfg = sim.config();
    let text = match file(sim, path) {
        None => return None,
        Some(File::RpsCpus(q)) => sim.rps_cpus(q).to_hex(cfg.cpus),
        Some(File::RpsFlowCnt(q)) => sim.flow_cnt(q).to_string(),
        // xps_cpus_show / xps_rxqs_show: -ENOENT on a device with one TX queue
        // (`netif_is_multiqueue`), though the files are listed.
        Some(File::XpsCpus(_) | File::XpsRxqs(_)) if cfg.tx_queues == 1 => return None,
        Some(File::XpsCpus(q)) => sim.xps_cpus(q).unwrap_or_default().to_hex(cfg.cpus),
        Some(File::XpsRxqs(q)) => sim.xps_rxqs(q).unwrap_or_default().to_hex(cfg.rx_queues),
        Some(File::SockFlow) => sim.sock_flow_entries().to_string(),
        Some(File::Core(which)) => sim.core_sysctl(which).to_string(),
        Some(File::FlowLimitCpus) => sim.flow_limit_cpus().to_hex(cfg.cpus),
        Some(File::FlowLimitLen) => cfg.flow_limit_table_len.to_string(),
        Some(File::IrqList(q)) => sim.irq_affinity(q).unwrap_or_default().to_list(),
        Some(File::IrqMask(q)) => sim.irq_affinity(q).unwrap_or_default().to_hex(cfg.cpus),
        Some(File::IrqEffective(q)) => sim.irq_effective_cpu(q).map_or_else(String::new, |c| c.to_string()),
        Some(File::Device(d)) => {
            let node0 = CpuSet::range(0, cfg.cpus / cfg.numa_nodes);
            match d {
                DeviceFile::NumaNode => "0".to_string(),
                DeviceFile::LocalCpulist => node0.to_list(),
                DeviceFile::LocalCpus => node0.to_hex(cfg.cpus),
            }
        }
    };
    Some(format!("{text}\n"))
}

/// `net.core.x` for `/proc/sys/net/core/x`.
fn sysctl_name(path: &str) -> String {
    path.trim_start_matches("/proc/sys/").replace('/', ".")
}

/// `sysctl [-n] [-q] [-w] NAME[=VALUE]... | -a` (procps-ng; a `=` makes a write even without
/// `-w`). A key is its file under /proc/sys: reads are that file's `cat`, writes its checked
/// write, so the sysctl and the echo forms accept and refuse the same values.
pub(crate) fn sysctl(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let (mut values_only, mut quiet, mut specs) = (false, false, Vec::new());
    let mut all = false;
    for &a in args {
        match a {
            "-w" | "--write" => {}
            "-n" | "--values" => values_only = true,
            "-q" | "--quiet" => quiet = true,
            "-a" | "-A" | "-X" | "--all" => all = true,
            o if o.starts_with('-') => {
                return Err(hinted(
                    format!("sysctl: option {o} is not supported in steerlab"),
                    SYSCTL_FORMS,
                ))
            }
            spec => specs.push(spec),
        }
    }
    if all {
        specs = SYSCTLS.to_vec();
    }
    if specs.is_empty() {
        return Err(hinted("sysctl: no variables specified", SYSCTL_FORMS));
    }
    let writes = specs.iter().filter(|s| s.contains('=')).count();
    if writes > 0 && specs.len() > 1 {
        return Err(hinted("sysctl: steerlab writes one key per command", SYSCTL_FORMS));
    }
    let line = |name: &str, v: &str| {
        if values_only {
            format!("{v}\n")
        } else {
            format!("{name} = {v}\n")
        }
    };
    let mut out = String::new();
    for spec in specs {
        let (key, value) = match spec.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (spec, None),
        };
        let name = key.replace('/', ".");
        let path = format!("/proc/sys/{}", name.replace('.', "/"));
        if key.is_empty() || !SYSCTLS.contains(&name.as_str()) {
            return Err(hinted(
                format!("sysctl: cannot stat {path}: No such file or directory"),
                SYSCTL_FORMS,
            ));
        }
        match value {
            None => out += &line(&name, crate::cat(sim, &[&path])?.trim_end()),
            Some(v) => {
                let write = check_write(sim, &path, v, Writer::Sysctl)?;
                apply(sim, &write)?;
                if !quiet {
                    out += &line(&name, v);
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use steerlab_engine::HostConfig;

    use super::*;

    /// `check_write` is what lets a loop check every write before the first: it must refuse
    /// exactly what the engine's setters refuse, and what it passes must apply.
    #[test]
    fn checks_refuse_what_the_engine_refuses() {
        let sim = Sim::new(HostConfig {
            cpus: 8,
            rx_queues: 4,
            tx_queues: 4,
            reta_size: 16,
            ..HostConfig::default()
        })
        .unwrap();
        let q = "/sys/class/net/eth0/queues";
        for m in [
            "0",
            "1",
            "f",
            "80",
            "ff",
            "100",
            "1ff",
            "f0",
            "8",
            "10",
            "1,00000000",
            "ffffffff,ffffffff",
        ] {
            let set = CpuSet::parse_hex(m).unwrap();
            let engine = [
                (
                    format!("{q}/rx-1/rps_cpus"),
                    sim.clone().set_rps_cpus(Some(1), set).is_ok(),
                ),
                (format!("{q}/tx-1/xps_cpus"), sim.clone().set_xps_cpus(1, set).is_ok()),
                (format!("{q}/tx-1/xps_rxqs"), sim.clone().set_xps_rxqs(1, set).is_ok()),
            ];
            for (path, accepted) in engine {
                assert_eq!(
                    check_write(&sim, &path, m, Writer::Echo).is_ok(),
                    accepted,
                    "{path} {m}"
                );
            }
        }
        for n in [
            0,
            1,
            300,
            65535,
            65536,
            65537,
            1 << 22,
            (1 << 22) + 1,
            i32::MAX as u32,
            u32::MAX,
        ] {
            let path = format!("{q}/rx-3/rps_flow_cnt");
            assert_eq!(
                check_write(&sim, &path, &n.to_string(), Writer::Tee).is_ok(),
                sim.clone().set_flow_cnt(Some(3), n).is_ok(),
                "{n}"
            );
            let sock = check_write(
                &sim,
                "/proc/sys/net/core/rps_sock_flow_entries",
                &n.to_string(),
                Writer::Echo,
            );
            assert_eq!(sock.is_ok(), sim.clone().set_sock_flow_entries(n).is_ok(), "{n}");
        }
        let mut s = sim.clone();
        let w = check_write(&s, &format!("{q}/rx-2/rps_cpus"), "f0", Writer::Echo).unwrap();
        apply(&mut s, &w).unwrap();
        assert_eq!(s.rps_cpus(2).to_list(), "4-7");
    }

    /// The queue tree lists the host's queues and each queue's modelled files; a queue beyond
    /// the device's count is no directory.
    #[test]
    fn the_queue_tree_lists_the_hosts_queues() {
        let sim = Sim::new(HostConfig {
            cpus: 8,
            rx_queues: 2,
            tx_queues: 3,
            reta_size: 16,
            ..HostConfig::default()
        })
        .unwrap();
        let q = "/sys/class/net/eth0/queues";
        assert_eq!(list_dir(&sim, q).unwrap(), ["rx-0", "rx-1", "tx-0", "tx-1", "tx-2"]);
        assert_eq!(
            list_dir(&sim, &format!("{q}/rx-1")).unwrap(),
            ["rps_cpus", "rps_flow_cnt"]
        );
        assert_eq!(list_dir(&sim, &format!("{q}/tx-2")).unwrap(), ["xps_cpus", "xps_rxqs"]);
        assert!(list_dir(&sim, &format!("{q}/rx-2")).is_none());
        assert!(list_dir(&sim, "/sys/class/net/eth1/queues").is_none());
    }
}
