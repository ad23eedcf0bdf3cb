//! `sysctl` and the sysfs/procfs files of RPS/RFS (net/core/net-sysfs.c:
//! `store_rps_map`, `store_rps_dev_flow_table_cnt`; net/core/sysctl_net_core.c).

use steerlab_engine::{CpuSet, Sim};

use crate::DEVICE;

const SOCK_FLOW: &str = "net.core.rps_sock_flow_entries";

/// `sysctl [-w] NAME[=VALUE]`.
pub(crate) fn sysctl(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let spec = match args {
        ["-w", spec] => *spec,
        [spec] => *spec,
        _ => return Err("usage: sysctl [-w] net.core.rps_sock_flow_entries[=N]".into()),
    };
    let (name, value) = match spec.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (spec, None),
    };
    if name != SOCK_FLOW {
        return Err(format!(
            "sysctl: cannot stat /proc/sys/{}: No such file or directory (steerlab models {SOCK_FLOW})",
            name.replace('.', "/")
        ));
    }
    match value {
        None => Ok(format!("{SOCK_FLOW} = {}\n", sim.sock_flow_entries())),
        Some(v) => {
            let n: u32 = v.parse().map_err(|_| format!("sysctl: setting key \"{SOCK_FLOW}\": Invalid argument"))?;
            sim.set_sock_flow_entries(n).map_err(|e| format!("sysctl: setting key \"{SOCK_FLOW}\": Invalid argument ({e})"))?;
            Ok(format!("{SOCK_FLOW} = {n}\n"))
        }
    }
}

enum File {
    RpsCpus(u16),
    RpsFlowCnt(u16),
}

fn file(path: &str) -> Result<File, String> {
    let bad = || format!("{path}: No such file or directory");
    let rest = path.strip_prefix("/sys/class/net/").ok_or_else(bad)?;
    let (dev, rest) = rest.split_once('/').ok_or_else(bad)?;
    if dev != DEVICE {
        return Err(bad());
    }
    let rest = rest.strip_prefix("queues/rx-").ok_or_else(bad)?;
    let (q, name) = rest.split_once('/').ok_or_else(bad)?;
    let q: u16 = q.parse().map_err(|_| bad())?;
    match name {
        "rps_cpus" => Ok(File::RpsCpus(q)),
        "rps_flow_cnt" => Ok(File::RpsFlowCnt(q)),
        _ => Err(bad()),
    }
}

/// `echo VALUE > FILE`.
pub(crate) fn echo(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let [value, ">", path] = args else { return Err("usage: echo VALUE > /sys/class/net/DEV/queues/rx-N/rps_cpus|rps_flow_cnt".into()) };
    let werr = |e: String| format!("bash: echo: write error: Invalid argument ({e})");
    match file(path).map_err(|e| format!("bash: {e}"))? {
        File::RpsCpus(q) => {
            let set = CpuSet::parse_hex(value).map_err(|e| werr(e.0))?;
            sim.set_rps_cpus(Some(q), set).map_err(|e| werr(e.to_string()))?;
        }
        File::RpsFlowCnt(q) => {
            let n: u32 = value.parse().map_err(|_| werr(format!("{value:?} is not a number")))?;
            sim.set_flow_cnt(Some(q), n).map_err(|e| werr(e.to_string()))?;
        }
    }
    Ok(String::new())
}

/// `cat FILE`.
pub(crate) fn cat(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let [path] = args else { return Err("usage: cat FILE".into()) };
    let rx = |q: u16| if q < sim.config().rx_queues { Ok(q) } else { Err(format!("cat: {path}: No such file or directory")) };
    match file(path).map_err(|e| format!("cat: {e}"))? {
        File::RpsCpus(q) => Ok(format!("{}\n", sim.rps_cpus(rx(q)?).to_hex(sim.config().cpus))),
        File::RpsFlowCnt(q) => Ok(format!("{}\n", sim.flow_cnt(rx(q)?))),
    }
}

#[cfg(test)]
mod tests {
    use crate::execute;
    use steerlab_engine::{HostConfig, Sim};

    #[test]
    fn rps_files_round_up_and_print_like_sysfs() {
        let mut s = Sim::new(HostConfig { cpus: 40, rx_queues: 4, ..HostConfig::default() }).unwrap();
        execute(&mut s, "echo 300 > /sys/class/net/eth0/queues/rx-1/rps_flow_cnt").unwrap();
        assert_eq!(execute(&mut s, "cat /sys/class/net/eth0/queues/rx-1/rps_flow_cnt").unwrap(), "512\n");
        execute(&mut s, "echo f0 > /sys/class/net/eth0/queues/rx-0/rps_cpus").unwrap();
        assert_eq!(execute(&mut s, "cat /sys/class/net/eth0/queues/rx-0/rps_cpus").unwrap(), "00,000000f0\n");
        assert_eq!(execute(&mut s, "sysctl -w net.core.rps_sock_flow_entries=1000").unwrap(), "net.core.rps_sock_flow_entries = 1000\n");
        assert_eq!(execute(&mut s, "sysctl net.core.rps_sock_flow_entries").unwrap(), "net.core.rps_sock_flow_entries = 1024\n");
    }

    #[test]
    fn bad_writes_fail_like_bash_and_change_nothing() {
        let mut s = Sim::new(HostConfig::default()).unwrap();
        for bad in [
            "echo zz > /sys/class/net/eth0/queues/rx-0/rps_cpus",
            "echo f0 > /sys/class/net/eth0/queues/rx-0/rps_cpus",
            "echo 1 > /sys/class/net/eth0/queues/rx-9/rps_flow_cnt",
            "echo 1 > /sys/class/net/eth1/queues/rx-0/rps_flow_cnt",
            "sysctl -w net.core.rps_sock_flow_entries=-1",
            "sysctl -w net.core.somaxconn=5",
        ] {
            assert!(execute(&mut s, bad).is_err(), "{bad}");
        }
        assert_eq!(s.rps_cpus(0).len(), 0);
        assert_eq!(s.flow_cnt(0), 0);
        assert_eq!(s.sock_flow_entries(), 0);
    }
}
