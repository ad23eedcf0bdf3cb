//! Which drop counters a console command prints. A lesson that asks the learner to find where
//! packets drop ([`crate::Lesson::find_by_reading`]) has the page keep each place's count to
//! itself until the learner has run a command that prints it, as on a real host, where the
//! only way to see a counter is to read it.

/// Each place's figure (a report path), and the command that prints its counter.
pub const PLACES: [(&str, &str); 8] = [
    ("packets.dropped.ring_full", "ethtool -S eth0"),
    ("packets.dropped.xdp", "ethtool -S eth0"),
    ("tc.hw_drop", "tc -s filter show dev eth0 ingress"),
    ("packets.dropped.tc", "tc -s filter show dev eth0 ingress"),
    ("packets.dropped.backlog_full", "cat /proc/net/softnet_stat"),
    ("backlog.flow_limit_count", "cat /proc/net/softnet_stat"),
    ("napi.time_squeeze", "cat /proc/net/softnet_stat"),
    ("packets.dropped.socket", "nstat -az Udp*"),
];

/// The counters' sources a command line reads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Source {
    /// The driver's counters: `ethtool -S` (ring drops, XDP's).
    Nic,
    /// `/proc/net/softnet_stat`: backlog drops, flow limit, time_squeeze.
    Softnet,
    /// The SNMP MIBs: `nstat`, `netstat -s`, `/proc/net/snmp` (the socket's RcvbufErrors).
    Snmp,
    /// tc's per-filter statistics: `tc -s filter show`.
    Tc,
}

/// What `line` reads, if it prints any drop counter: the words after a leading `sudo`,
/// whatever their order (`ethtool --statistics eth0`, `netstat -su`, `grep . /proc/net/snmp`).
fn source(line: &str) -> Option<Source> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    if words.first() == Some(&"sudo") {
        words.remove(0);
    }
    let has = |w: &[&str]| words.iter().any(|x| w.contains(x));
    let short = |c: char| {
        words
            .iter()
            .any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains(c))
    };
    if line.contains("/proc/net/softnet_stat") {
        return Some(Source::Softnet);
    }
    if line.contains("/proc/net/snmp") {
        return Some(Source::Snmp);
    }
    match *words.first()? {
        "ethtool" if has(&["-S", "--statistics"]) => Some(Source::Nic),
        "nstat" => Some(Source::Snmp),
        "netstat" if short('s') || has(&["--statistics"]) => Some(Source::Snmp),
        // tc takes any prefix of a word (`tc -s f show`: iproute2's `matches`).
        "tc" if has(&["-s", "-stats", "-statistics"]) && words[1..].iter().any(|w| "filter".starts_with(w)) => {
            Some(Source::Tc)
        }
        _ => None,
    }
}

/// The figures whose counters `line` prints (empty for any other command).
pub fn shown_by(line: &str) -> Vec<&'static str> {
    let Some(s) = source(line) else {
        return Vec::new();
    };
    PLACES
        .iter()
        .filter(|(_, command)| source(command) == Some(s))
        .map(|(metric, _)| *metric)
        .collect()
}

/// The command that prints `metric`'s counter, if it is a drop place's.
pub fn command_for(metric: &str) -> Option<&'static str> {
    PLACES.iter().find(|(m, _)| *m == metric).map(|(_, c)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_place_is_shown_by_its_own_command_and_the_usual_spellings() {
        for (metric, command) in PLACES {
            assert!(shown_by(command).contains(&metric), "{command} shows {metric}");
        }
        let socket = ["packets.dropped.socket"];
        for line in [
            "nstat",
            "sudo nstat -az",
            "netstat -su",
            "netstat -s",
            "netstat --statistics",
            "cat /proc/net/snmp",
        ] {
            assert_eq!(shown_by(line), socket, "{line}");
        }
        assert_eq!(
            shown_by("ethtool --statistics eth0"),
            ["packets.dropped.ring_full", "packets.dropped.xdp"]
        );
        assert_eq!(shown_by("grep . /proc/net/softnet_stat").len(), 3);
        assert_eq!(shown_by("tc -s f show dev eth0 ingress").len(), 2);
        for other in [
            "ethtool -g eth0",
            "netstat -tn",
            "tc filter show dev eth0 ingress",
            "mpstat -P ALL",
            "",
            "sudo",
        ] {
            assert!(shown_by(other).is_empty(), "{other}");
        }
        assert_eq!(command_for("packets.dropped.socket"), Some("nstat -az Udp*"));
        assert_eq!(command_for("packets.delivered"), None);
    }
}
