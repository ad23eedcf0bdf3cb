//! Completion of command names, ethtool options, the device name, XDP program names, the
//! engine's named choices (driver models, kernel generations, XDP strategies, record policies) and
//! sysfs/procfs paths (up to the file name, queue 0 standing for any, `rx-*`/`tx-*` for every
//! queue where a glob works), and the shell forms that write many queues (`echo … | tee`,
//! `for q in …; do …; done`), for the page's Tab.

use steerlab_engine::xdp::{Strategy, PROGRAMS};
use steerlab_engine::{Driver, Kernel, RecordPolicy};

use crate::procfs::IRQ_BASE;
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
const ETHTOOL_OPTIONS: &[&str] = &["-l", "-L", "-x", "-X", "-n", "-N", "-K", "-c", "-C", "-S"];

/// Whole-line completions of `line`: the first word from the command table, a device after
/// `dev` or an ethtool option, a path for `cat`/`tee`/`echo ... >`, `tee` after `|`, the queue
/// globs after `for q in`. A command starts the line, or follows `;`, `|`, `do` or `sudo`.
/// Lines are returned with the completed word and a trailing space (or `/` inside a path).
pub fn complete(line: &str) -> Vec<String> {
    let (head, word) = match line.rfind(' ') {
        Some(i) => (&line[..=i], &line[i + 1..]),
        None => ("", line),
    };
    let sep = head.rfind([';', '|']).map(|i| &head[i..=i]);
    let mut words: Vec<&str> = head[head.rfind([';', '|']).map_or(0, |i| i + 1)..]
        .split_whitespace()
        .collect();
    while let Some(&("do" | "sudo")) = words.first() {
        words.remove(0);
    }
    let loop_var = match head.split_whitespace().collect::<Vec<_>>().as_slice() {
        ["for", var, "in", ..] => Some(var.to_string()),
        _ => None,
    };
    let candidates: Vec<String> = match words.as_slice() {
        [] if sep == Some("|") => vec!["tee ".to_string()],
        [] if sep == Some(";") && loop_var.is_some() => {
            ["do ", "done", "echo ", "cat "].iter().map(|s| s.to_string()).collect()
        }
        [] => COMMANDS.iter().map(|(c, _)| format!("{c} ")).collect(),
        ["ethtool"] => ETHTOOL_OPTIONS.iter().map(|o| format!("{o} ")).collect(),
        [.., "dev"] | ["ethtool", _] => vec![format!("{DEVICE} ")],
        ["xdp"] => vec!["strategy ".to_string(), "programs ".to_string()],
        ["xdp", "strategy"] => names(Strategy::ALL.iter().map(|s| s.name())),
        ["nic"] => vec!["driver ".to_string()],
        ["nic", "driver"] => names(Driver::ALL.iter().map(|d| d.name())),
        ["rfs"] => vec!["record ".to_string()],
        ["rfs", "record"] => names(RecordPolicy::ALL.iter().map(|r| r.name())),
        ["kernel"] => names(Kernel::ALL.iter().map(|k| k.name())),
        [.., "xdp" | "xdpdrv", "obj"] => PROGRAMS.iter().map(|p| format!("{} ", p.0)).collect(),
        [.., "xdp" | "xdpdrv"] => vec!["obj ".to_string(), "off ".to_string()],
        ["help"] => COMMANDS.iter().map(|(c, _)| format!("{c} ")).collect(),
        ["for", _, "in", ..] if sep.is_none() => ["rx", "tx"]
            .iter()
            .map(|d| format!("/sys/class/net/{DEVICE}/queues/{d}-*; do "))
            .collect(),
        // A redirection takes one file: no globs (bash: ambiguous redirect); in a loop, its variable.
        [.., ">"] => loop_var
            .iter()
            .flat_map(|v| FILES.iter().map(move |f| format!("${v}/{f}")))
            .chain(paths(false))
            .collect(),
        ["cat", ..] | ["grep", ..] | ["tee", ..] => paths(true),
        _ => Vec::new(),
    };
    candidates
        .into_iter()
        .filter(|c| c.starts_with(word))
        .map(|c| format!("{head}{c}"))
        .collect()
}

/// Words to complete, each followed by a space: the engine's own lists of names (a new driver
/// model or policy is completed without an edit here).
fn names<'a>(all: impl Iterator<Item = &'a str>) -> Vec<String> {
    all.map(|n| format!("{n} ")).collect()
}

/// The files of a queue directory.
const FILES: &[&str] = &["rps_cpus", "rps_flow_cnt", "xps_cpus", "xps_rxqs"];

/// `PATHS` on this host: the fixed files, each queue file for queue 0, and with `globs` for
/// every queue (`rx-*`, `tx-*`: what `cat` and `tee` take).
fn paths(globs: bool) -> Vec<String> {
    let (queue, fixed): (Vec<&str>, Vec<&str>) = PATHS.iter().partition(|p| p.contains("-N/"));
    let fixed = fixed.into_iter().map(|p| p.replace("DEV", DEVICE));
    let any = queue.iter().map(|p| p.replace("DEV", DEVICE).replace("-N/", "-0/"));
    let every = queue
        .iter()
        .filter(move |_| globs)
        .map(|p| p.replace("DEV", DEVICE).replace("-N/", "-*/"));
    // The first queue's vector, and with `globs` every vector.
    let irq = [IRQ_BASE.to_string()]
        .into_iter()
        .chain(globs.then(|| "*".to_string()))
        .map(|n| format!("/proc/irq/{n}/smp_affinity_list"));
    fixed.chain(any).chain(every).chain(irq).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_commands_devices_and_paths() {
        assert_eq!(complete("eth"), vec!["ethtool ".to_string()]);
        assert_eq!(complete("ethtool -x e"), vec!["ethtool -x eth0 ".to_string()]);
        assert_eq!(
            complete("tc filter show dev "),
            vec!["tc filter show dev eth0 ".to_string()]
        );
        assert!(complete("cat /proc/n").contains(&"cat /proc/net/softnet_stat".to_string()));
        assert!(complete("echo 40 > /sys/class/net/eth0/queues/tx")
            .contains(&"echo 40 > /sys/class/net/eth0/queues/tx-0/xps_cpus".to_string()));
        assert!(complete("zzz").is_empty());
        assert!(complete("echo 3 > /proc/i").contains(&"echo 3 > /proc/irq/130/smp_affinity_list".to_string()));
        assert!(complete("grep . /proc/i").contains(&"grep . /proc/irq/*/smp_affinity_list".to_string()));
    }

    /// The named choices come from the engine's lists: every driver model, and nothing else.
    #[test]
    fn completes_the_engines_named_choices() {
        let drivers: Vec<String> = Driver::ALL
            .iter()
            .map(|d| format!("nic driver {} ", d.name()))
            .collect();
        assert_eq!(complete("nic driver "), drivers);
        assert_eq!(complete("nic driver ml"), vec!["nic driver mlx5 ".to_string()]);
        assert_eq!(complete("rfs record c"), vec!["rfs record cpuset ".to_string()]);
        assert!(complete("kernel 6.1").contains(&"kernel 6.18 ".to_string()));
        assert_eq!(complete("xdp strategy q"), vec!["xdp strategy query ".to_string()]);
        assert!(crate::own::help(&["nic"]).is_ok_and(|h| Driver::ALL.iter().all(|d| h.contains(d.name()))));
    }

    /// The many-queue forms: `tee` after a pipe, globs for `tee` and `cat` but not for `>`
    /// (ambiguous there), the queue globs after `for q in`, and `$q/FILE` in the loop's body.
    #[test]
    fn completes_the_many_queue_forms() {
        let every_rx = "/sys/class/net/eth0/queues/rx-*/rps_flow_cnt";
        assert_eq!(complete("echo 2048 | t"), ["echo 2048 | tee "]);
        assert_eq!(complete("echo 2048 | sudo t"), ["echo 2048 | sudo tee "]);
        assert!(
            complete("echo 2048 | tee /sys/class/net/eth0/queues/rx").contains(&format!("echo 2048 | tee {every_rx}"))
        );
        assert!(complete("cat /sys/class/net/eth0/queues/rx-*").contains(&format!("cat {every_rx}")));
        assert!(!complete("echo 2048 > /sys/class/net/eth0/queues/rx")
            .iter()
            .any(|c| c.contains('*')));
        assert_eq!(
            complete("for q in /sys/class/net/eth0/queues/r"),
            ["for q in /sys/class/net/eth0/queues/rx-*; do "]
        );
        assert_eq!(
            complete("for q in /sys/class/net/eth0/queues/rx-*; do e"),
            ["for q in /sys/class/net/eth0/queues/rx-*; do echo "]
        );
        assert_eq!(
            complete("for q in /sys/class/net/eth0/queues/rx-*; do echo 2048 > $q/rps_f"),
            ["for q in /sys/class/net/eth0/queues/rx-*; do echo 2048 > $q/rps_flow_cnt"]
        );
        assert_eq!(
            complete("for q in 0 1; do echo 1 > $q/x; d"),
            [
                "for q in 0 1; do echo 1 > $q/x; do ",
                "for q in 0 1; do echo 1 > $q/x; done"
            ]
        );
        assert_eq!(complete("sudo et"), ["sudo ethtool "]);
        assert_eq!(complete("f"), ["for ", "flow "]);
    }
}
