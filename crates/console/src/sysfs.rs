//! `sysctl`, and `echo VALUE > FILE` / `cat FILE` of the steering files in sysfs and /proc/sys.
//!
//! Kernel sources of the files: net/core/net-sysfs.c (`store_rps_map` / `show_rps_map`,
//! `store_rps_dev_flow_table_cnt` / `show_rps_dev_flow_table_cnt`, `xps_cpus_store` /
//! `xps_cpus_show`, `xps_rxqs_store` / `xps_rxqs_show`) and net/core/sysctl_net_core.c
//! (`rps_sock_flow_sysctl`: a read shows the table size in force, rounded up to a power of
//! two). Masks print as the kernel's `%*pb`: 32-bit groups of hex separated by commas, most
//! significant first, as wide as the bitmap (CPUs for `rps_cpus`/`xps_cpus`, RX queues for
//! `xps_rxqs`); `rps_flow_cnt` is read with `kstrtoul(.., 0)`. Errors are bash's for a missing
//! file or a refused write (`bash: echo: write error: Invalid argument`), cat's, and procps
//! sysctl's (sysctl.c: `name = value` lines, `sysctl: cannot stat /proc/sys/...`,
//! `sysctl: setting key "..."`).

use steerlab_engine::{CpuSet, Sim};

use crate::{hinted, parse_c_u64, DEVICE};

/// The accepted forms of `sysctl`.
pub(crate) const SYSCTL_FORMS: &str = "sysctl [-n] net.core.rps_sock_flow_entries | net.core.netdev_max_backlog\n\
sysctl -w net.core.rps_sock_flow_entries=N\n\
sysctl -a";

/// The accepted forms of `echo`.
pub(crate) const ECHO_FORMS: &str = "echo MASK > /sys/class/net/DEV/queues/rx-N/rps_cpus\n\
echo N > /sys/class/net/DEV/queues/rx-N/rps_flow_cnt\n\
echo MASK > /sys/class/net/DEV/queues/tx-N/xps_cpus\n\
echo MASK > /sys/class/net/DEV/queues/tx-N/xps_rxqs\n\
echo N > /proc/sys/net/core/rps_sock_flow_entries";

const SOCK_FLOW: &str = "net.core.rps_sock_flow_entries";
const BACKLOG: &str = "net.core.netdev_max_backlog";

/// A steering file of the host.
#[derive(Clone, Copy)]
enum File {
    RpsCpus(u16),
    RpsFlowCnt(u16),
    XpsCpus(u16),
    XpsRxqs(u16),
    SockFlow,
    Backlog,
}

/// The file at `path`, if the host has it (queues beyond the device's count do not exist).
fn file(sim: &Sim, path: &str) -> Option<File> {
    match path {
        "/proc/sys/net/core/rps_sock_flow_entries" => return Some(File::SockFlow),
        "/proc/sys/net/core/netdev_max_backlog" => return Some(File::Backlog),
        _ => {}
    }
    let rest = path.strip_prefix("/sys/class/net/")?.strip_prefix(DEVICE)?.strip_prefix("/queues/")?;
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

fn files_hint(sim: &Sim) -> String {
    let c = sim.config();
    format!("{ECHO_FORMS}\n(this host: rx-0..rx-{}, tx-0..tx-{}, device {DEVICE})", c.rx_queues - 1, c.tx_queues - 1)
}

/// `echo VALUE > FILE` (without a redirection, echo prints its words).
pub(crate) fn echo(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let Some(pos) = args.iter().position(|&w| w == ">") else { return Ok(format!("{}\n", args.join(" "))) };
    let path = match &args[pos + 1..] {
        [path] if *path != ">" => *path,
        [] => return Err(hinted("bash: syntax error near unexpected token `newline'", ECHO_FORMS)),
        _ => return Err(hinted("bash: steerlab's echo writes one value to one file", ECHO_FORMS)),
    };
    let value = args[..pos].join(" ");
    let Some(f) = file(sim, path) else { return Err(hinted(format!("bash: {path}: No such file or directory"), &files_hint(sim))) };
    let werr = |errno: &str, why: String| hinted(format!("bash: echo: write error: {errno}"), &why);
    let mask = |what: &str| CpuSet::parse_hex(&value).map_err(|e| werr("Invalid argument", format!("{what} takes a hex mask: {e}")));
    match f {
        File::RpsCpus(q) => {
            let set = mask("rps_cpus")?;
            sim.set_rps_cpus(Some(q), set).map_err(|e| werr("Invalid argument", e.to_string()))?;
        }
        File::RpsFlowCnt(q) => {
            let n = parse_c_u64(value.trim()).filter(|&n| n <= u64::from(u32::MAX));
            let n = n.ok_or_else(|| werr("Invalid argument", format!("rps_flow_cnt takes a count, not {value:?}")))?;
            sim.set_flow_cnt(Some(q), n as u32).map_err(|e| werr("Invalid argument", e.to_string()))?;
        }
        File::XpsCpus(q) => {
            let set = mask("xps_cpus")?;
            sim.set_xps_cpus(q, set).map_err(|e| werr("Invalid argument", e.to_string()))?;
        }
        File::XpsRxqs(q) => {
            let set = mask("xps_rxqs")?;
            sim.set_xps_rxqs(q, set).map_err(|e| werr("Invalid argument", e.to_string()))?;
        }
        File::SockFlow => {
            let n = sock_flow_value(&value).ok_or_else(|| werr("Invalid argument", format!("{SOCK_FLOW} takes a count, not {value:?}")))?;
            sim.set_sock_flow_entries(n).map_err(|e| werr("Invalid argument", e.to_string()))?;
        }
        File::Backlog => return Err(werr("Operation not supported", format!("{BACKLOG} is fixed by the scenario in steerlab"))),
    }
    Ok(String::new())
}

/// What `proc_dointvec` accepts for `rps_sock_flow_entries`: a non-negative decimal int.
fn sock_flow_value(text: &str) -> Option<u32> {
    text.trim().parse::<u32>().ok().filter(|&n| n <= i32::MAX as u32)
}

/// `cat FILE` of a steering file.
pub(crate) fn cat(sim: &Sim, path: &str) -> Result<String, String> {
    let cfg = sim.config();
    let text = match file(sim, path) {
        None => return Err(hinted(format!("cat: {path}: No such file or directory"), &files_hint(sim))),
        Some(File::RpsCpus(q)) => sim.rps_cpus(q).to_hex(cfg.cpus),
        Some(File::RpsFlowCnt(q)) => sim.flow_cnt(q).to_string(),
        Some(File::XpsCpus(q)) => sim.xps_cpus(q).unwrap_or_default().to_hex(cfg.cpus),
        Some(File::XpsRxqs(q)) => sim.xps_rxqs(q).unwrap_or_default().to_hex(cfg.rx_queues),
        Some(File::SockFlow) => sim.sock_flow_entries().to_string(),
        Some(File::Backlog) => cfg.netdev_max_backlog.to_string(),
    };
    Ok(format!("{text}\n"))
}

/// `sysctl [-n] [-q] [-w] NAME[=VALUE]... | -a` (procps-ng; a `=` makes a write even without `-w`).
pub(crate) fn sysctl(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let (mut values_only, mut quiet, mut specs) = (false, false, Vec::new());
    for &a in args {
        match a {
            "-w" | "--write" => {}
            "-n" | "--values" => values_only = true,
            "-q" | "--quiet" => quiet = true,
            "-a" | "-A" | "-X" | "--all" => {
                return Ok(format!("{BACKLOG} = {}\n{SOCK_FLOW} = {}\n", sim.config().netdev_max_backlog, sim.sock_flow_entries()))
            }
            o if o.starts_with('-') => return Err(hinted(format!("sysctl: option {o} is not supported in steerlab"), SYSCTL_FORMS)),
            spec => specs.push(spec),
        }
    }
    if specs.is_empty() {
        return Err(hinted("sysctl: no variables specified", SYSCTL_FORMS));
    }
    let writes = specs.iter().filter(|s| s.contains('=')).count();
    if writes > 0 && specs.len() > 1 {
        return Err(hinted("sysctl: steerlab writes one key per command", SYSCTL_FORMS));
    }
    let line = |name: &str, v: &dyn core::fmt::Display| if values_only { format!("{v}\n") } else { format!("{name} = {v}\n") };
    let mut out = String::new();
    for spec in specs {
        let (key, value) = match spec.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (spec, None),
        };
        let name = key.replace('/', ".");
        let known = name == SOCK_FLOW || name == BACKLOG;
        if !known || key.is_empty() {
            return Err(hinted(format!("sysctl: cannot stat /proc/sys/{}: No such file or directory", name.replace('.', "/")), SYSCTL_FORMS));
        }
        match value {
            None if name == SOCK_FLOW => out += &line(&name, &sim.sock_flow_entries()),
            None => out += &line(&name, &sim.config().netdev_max_backlog),
            Some(_) if name == BACKLOG => {
                return Err(hinted(format!("sysctl: setting key \"{name}\": Operation not supported"), "netdev_max_backlog is fixed by the scenario in steerlab"))
            }
            Some(v) => {
                let invalid = |why: String| hinted(format!("sysctl: setting key \"{name}\": Invalid argument"), &why);
                let n = sock_flow_value(v).ok_or_else(|| invalid(format!("{SOCK_FLOW} takes a count, not {v:?}")))?;
                sim.set_sock_flow_entries(n).map_err(|e| invalid(e.to_string()))?;
                if !quiet {
                    out += &line(&name, &v);
                }
            }
        }
    }
    Ok(out)
}
