//! steerlab-console: the command lines of a real host, applied to a simulated one.
//!
//! One command layer for the page's console, `steerlab shell`, scenario timelines and the
//! embedding API. Grammar: product brief §4 and kernel-semantics.md §7 (ethtool.8, sysctl,
//! sysfs files of net/core/net-sysfs.c, taskset). Output and error texts follow the real tools.
//! A command that fails changes nothing: every value is parsed and validated before the engine
//! is touched, and the engine itself refuses bad values without side effects.

#![warn(missing_docs)]

mod complete;
mod ethtool;
mod sysfs;
mod tc;

pub use complete::complete;

use steerlab_engine::{CpuSet, Driver, Kernel, NamedEnum, RecordPolicy, Sim};

/// The sandbox's one NIC.
pub const DEVICE: &str = "eth0";

/// The first word of every supported command, for completion and `help`.
pub const COMMANDS: &[(&str, &str)] = &[
    ("ethtool", "ethtool -l|-x|-n|-S DEV, -X DEV equal N|weight W..|default, -N DEV flow-type ..., -K DEV ntuple on|off"),
    ("sysctl", "sysctl [-w] net.core.rps_sock_flow_entries[=N] | net.core.netdev_max_backlog"),
    ("echo", "echo VALUE > /sys/class/net/DEV/queues/rx-N/{rps_cpus,rps_flow_cnt}"),
    ("cat", "cat /sys/class/net/DEV/queues/rx-N/{rps_cpus,rps_flow_cnt} | /proc/net/softnet_stat | /proc/interrupts"),
    ("taskset", "taskset -pc CPULIST TID"),
    ("tc", "tc qdisc add|del dev DEV ingress, tc filter add|del|show dev DEV ingress [prio P] flower ..., tc counting legacy|usesw"),
    ("thread", "thread migrate TID CPU | thread list"),
    ("nic", "nic driver generic|ice-hash-match|ice|mlx5|ixgbe (steerlab: the driver model)"),
    ("kernel", "kernel 6.14|6.18 (steerlab: which kernel's RPS/RFS rules)"),
    ("rfs", "rfs record always|cpuset (steerlab: seed 002's record rule)"),
    ("help", "help [COMMAND]"),
];

/// Runs one command line against `sim`; returns its output (possibly empty) or the error
/// text the real tool would print, plus a hint of the accepted form.
pub fn execute(sim: &mut Sim, line: &str) -> Result<String, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&first) = words.first() else { return Ok(String::new()) };
    match first {
        "help" => help(words.get(1).copied()),
        "ethtool" => ethtool::run(sim, &words[1..]),
        "sysctl" => sysfs::sysctl(sim, &words[1..]),
        "echo" => sysfs::echo(sim, &words[1..]),
        "cat" => sysfs::cat(sim, &words[1..]),
        "taskset" => taskset(sim, &words[1..]),
        "tc" => tc::run(sim, &words[1..]),
        "thread" => thread(sim, &words[1..]),
        "nic" => match words.get(1..) {
            Some(["driver", name]) => {
                let d = parse_named::<Driver>("driver", name)?;
                sim.set_driver(d);
                Ok(String::new())
            }
            _ => Err(usage("nic")),
        },
        "kernel" => match words.get(1..) {
            Some([v]) => {
                sim.set_kernel(parse_named::<Kernel>("kernel", v)?);
                Ok(String::new())
            }
            _ => Err(usage("kernel")),
        },
        "rfs" => match words.get(1..) {
            Some(["record", v]) => {
                sim.set_record(parse_named::<RecordPolicy>("rfs record", v)?);
                Ok(String::new())
            }
            _ => Err(usage("rfs")),
        },
        other => Err(format!("{other}: command not found (try `help`)")),
    }
}

/// Parses a named choice, naming what is accepted.
pub fn parse_named<T: NamedEnum>(what: &str, text: &str) -> Result<T, String> {
    T::from_name(text).ok_or_else(|| format!("{what}: {text:?} is not one of {}", T::accepted_names()))
}

fn usage(cmd: &str) -> String {
    let form = COMMANDS.iter().find(|(c, _)| *c == cmd).map_or("", |(_, f)| f);
    format!("{cmd}: bad arguments\nusage: {form}")
}

fn help(cmd: Option<&str>) -> Result<String, String> {
    match cmd {
        None => Ok(COMMANDS.iter().map(|(c, f)| format!("{c:<8} {f}\n")).collect()),
        Some(c) => COMMANDS.iter().find(|(n, _)| *n == c).map(|(_, f)| format!("{f}\n")).ok_or_else(|| format!("help: no help for {c:?}")),
    }
}

fn parse_num<T: core::str::FromStr>(what: &str, text: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("{what}: {text:?} is not a number"))
}

/// `taskset -pc CPULIST TID` (util-linux): prints the old and new affinity lists.
fn taskset(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let ["-pc", list, tid] = args else { return Err(usage("taskset")) };
    let tid: u32 = parse_num("taskset: pid", tid)?;
    let set = CpuSet::parse_list(list).map_err(|e| format!("taskset: failed to parse CPU list: {list}\n{e}"))?;
    let (_, old) = sim.thread(tid).ok_or_else(|| format!("taskset: failed to get pid {tid}'s affinity: No such process"))?;
    sim.set_thread_cpuset(tid, set).map_err(|e| format!("taskset: failed to set pid {tid}'s affinity: Invalid argument ({e})"))?;
    Ok(format!(
        "pid {tid}'s current affinity list: {}\npid {tid}'s new affinity list: {}\n",
        old.to_list(),
        set.to_list()
    ))
}

fn thread(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    match args {
        ["migrate", tid, cpu] => {
            let tid = parse_num("thread migrate: TID", tid)?;
            let cpu = parse_num("thread migrate: CPU", cpu)?;
            sim.migrate_thread(tid, cpu).map_err(|e| format!("thread migrate: {e}"))?;
            Ok(String::new())
        }
        ["list"] => Ok((0..sim.thread_count())
            .filter_map(|t| sim.thread(t).map(|(cpu, set)| format!("thread {t}: cpu {cpu} cpuset {}\n", set.to_list())))
            .collect()),
        _ => Err(usage("thread")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use steerlab_engine::HostConfig;

    fn sim() -> Sim {
        let mut s = Sim::new(HostConfig { cpus: 8, rx_queues: 4, ..HostConfig::default() }).unwrap();
        s.add_thread(steerlab_engine::ThreadSpec { cpu: 1, allowed: CpuSet::EMPTY, migrate_every: steerlab_engine::Nanos::ZERO }).unwrap();
        s
    }

    #[test]
    fn steerlab_commands_change_the_host() {
        let mut s = sim();
        execute(&mut s, "nic driver mlx5").unwrap();
        assert_eq!(s.config().driver, Driver::Mlx5);
        execute(&mut s, "kernel 6.14").unwrap();
        execute(&mut s, "rfs record cpuset").unwrap();
        assert_eq!((s.config().kernel, s.config().record), (Kernel::V6_14, RecordPolicy::Cpuset));
        execute(&mut s, "thread migrate 0 5").unwrap();
        assert_eq!(s.thread(0).unwrap().0, 5);
    }

    #[test]
    fn taskset_prints_like_util_linux() {
        let mut s = sim();
        let out = execute(&mut s, "taskset -pc 2-3 0").unwrap();
        assert_eq!(out, "pid 0's current affinity list: 0-7\npid 0's new affinity list: 2-3\n");
        assert_eq!(s.thread(0).unwrap().0, 2);
    }

    #[test]
    fn errors_name_what_is_accepted_and_change_nothing() {
        let mut s = sim();
        let e = execute(&mut s, "nic driver e1000").unwrap_err();
        assert!(e.contains("generic | ice-hash-match | ice | mlx5 | ixgbe"), "{e}");
        assert!(execute(&mut s, "thread migrate 0 99").is_err());
        assert!(execute(&mut s, "frob").unwrap_err().contains("command not found"));
        assert_eq!(s.thread(0).unwrap().0, 1);
        assert_eq!(s.config().driver, Driver::Generic);
    }
}
