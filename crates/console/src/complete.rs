//! Completion of command names, the device name and sysfs/procfs paths, for the page's Tab.

use crate::{COMMANDS, DEVICE};

/// Files `echo`/`cat` know, with `N` standing for a queue number.
const PATHS: &[&str] = &[
    "/sys/class/net/DEV/queues/rx-N/rps_cpus",
    "/sys/class/net/DEV/queues/rx-N/rps_flow_cnt",
    "/sys/class/net/DEV/queues/tx-N/xps_cpus",
    "/sys/class/net/DEV/queues/tx-N/xps_rxqs",
    "/proc/net/softnet_stat",
    "/proc/interrupts",
];

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
        [.., "dev"] | ["ethtool", _] => vec![format!("{DEVICE} ")],
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
