//! Completion of command names, ethtool options, the device name, XDP program names and
//! sysfs/procfs paths (up to the file name, queue 0 standing for any), for the page's Tab.

use steerlab_engine::xdp::PROGRAMS;

use crate::{COMMANDS, DEVICE};

/// Files `echo`/`cat` know, with `N` standing for a queue number.
const PATHS: &[&str] = &[
    "/sys/class/net/DEV/queues/rx-N/rps_cpus",
    "/sys/class/net/DEV/queues/rx-N/rps_flow_cnt",
    "/sys/class/net/DEV/queues/tx-N/xps_cpus",
    "/sys/class/net/DEV/queues/tx-N/xps_rxqs",
    "/proc/sys/net/core/rps_sock_flow_entries",
    "/proc/net/softnet_stat",
    "/proc/interrupts",
];

/// ethtool's options the sandbox has.
const ETHTOOL_OPTIONS: &[&str] = &["-l", "-L", "-x", "-X", "-n", "-N", "-K", "-S"];

/// Whole-line completions of `line`: the first word from the command table, a device after
/// `dev` or an ethtool option, a path for `cat`/`echo ... >`. Lines are returned with the
/// completed word and a trailing space (or `/` inside a path).
pub fn complete(line: &str) -> Vec<String> {
    let (head, word) = match line.rfind(' ') {
        Some(i) => (&line[..=i], &line[i + 1..]),
        None => ("", line),
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    let candidates: Vec<String> = match words.as_slice() {
        [] => COMMANDS.iter().map(|(c, _)| format!("{c} ")).collect(),
        ["ethtool"] => ETHTOOL_OPTIONS.iter().map(|o| format!("{o} ")).collect(),
        [.., "dev"] | ["ethtool", _] => vec![format!("{DEVICE} ")],
        ["xdp"] => vec!["strategy ".to_string(), "programs ".to_string()],
        ["xdp", "strategy"] => ["call ", "query ", "inline "].iter().map(|s| s.to_string()).collect(),
        [.., "xdp" | "xdpdrv", "obj"] => PROGRAMS.iter().map(|p| format!("{} ", p.0)).collect(),
        [.., "xdp" | "xdpdrv"] => vec!["obj ".to_string(), "off ".to_string()],
        ["help"] => COMMANDS.iter().map(|(c, _)| format!("{c} ")).collect(),
        ["cat"] | [.., ">"] => PATHS.iter().map(|p| p.replace("DEV", DEVICE)).filter(|p| !p.contains("-N/")).chain(
            PATHS.iter().filter(|p| p.contains("-N/")).map(|p| p.replace("DEV", DEVICE).replace("-N/", "-0/")),
        ).collect(),
        _ => Vec::new(),
    };
    candidates.into_iter().filter(|c| c.starts_with(word)).map(|c| format!("{head}{c}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_commands_devices_and_paths() {
        assert_eq!(complete("eth"), vec!["ethtool ".to_string()]);
        assert_eq!(complete("ethtool -x e"), vec!["ethtool -x eth0 ".to_string()]);
        assert_eq!(complete("tc filter show dev "), vec!["tc filter show dev eth0 ".to_string()]);
        assert!(complete("cat /proc/n").contains(&"cat /proc/net/softnet_stat".to_string()));
        assert!(complete("echo 40 > /sys/class/net/eth0/queues/tx").contains(&"echo 40 > /sys/class/net/eth0/queues/tx-0/xps_cpus".to_string()));
        assert!(complete("zzz").is_empty());
    }
}
