//! steerlab's word after a command that succeeded but did not do what a learner likely meant
//! (issue 48, "near-misses"): the real tool prints nothing (or its usual table), the kernel
//! quietly does something else, and the learner sees "→ —" or no change. Each note says, in
//! the kernel's terms, why, and what would. The page shows it under the command's output,
//! as steerlab's remark, never as the tool's.

use steerlab_engine::{HostConfig, QueueRule, Sim};

/// The note for `line`, which has just succeeded on `sim`; `before` is the host's
/// configuration before it ran. `None` when the command did what it says.
pub fn note(before: &HostConfig, sim: &Sim, line: &str) -> Option<String> {
    let now = sim.config();
    let words: Vec<&str> = line.split_whitespace().collect();
    let writes = line.contains('>') || words.iter().any(|w| *w == "tee" || *w == "-w");
    // Set to what it was already.
    let same = |what: &str| Some(format!("{what} was already so: nothing changed"));
    match words.as_slice() {
        ["nic", "driver", d] if before.driver == now.driver => return same(&format!("the driver model {d}")),
        ["rfs", "record", r] if before.record == now.record => return same(&format!("rfs record {r}")),
        ["tc", "counting", _] if sim.tc_block().is_none() => {
            return Some("no ingress block on eth0: the counting decides a bypass only once filters are added (tc qdisc add dev eth0 ingress)".into())
        }
        ["tc", "counting", c] if before.tc_counting == now.tc_counting => {
            return same(&format!("tc counting {c}"))
        }
        ["kernel", k] if before.kernel == now.kernel => return same(&format!("kernel {k}")),
        _ => {}
    }
    // RFS takes both tables: get_rps_cpu looks at a queue's rps_dev_flow_table only while the
    // global rps_sock_flow_table exists (net/core/dev.c), and the other way round.
    if writes && (line.contains("rps_flow_cnt") || line.contains("rps_sock_flow_entries")) {
        let flow_cnt_min = (0..now.rx_queues).map(|q| sim.flow_cnt(q)).min().unwrap_or(0);
        let sock = sim.sock_flow_entries();
        if sock == 0 && flow_cnt_min > 0 {
            return Some("RFS is still off: net.core.rps_sock_flow_entries is 0, and get_rps_cpu reads a queue's flow table only with a socket table (sysctl -w net.core.rps_sock_flow_entries=32768)".into());
        }
        if sock > 0 && (0..now.rx_queues).all(|q| sim.flow_cnt(q) == 0) {
            return Some("RFS is still off: every RX queue's rps_flow_cnt is 0, so get_rps_cpu has no flow table to steer with (echo 2048 | tee /sys/class/net/eth0/queues/rx-*/rps_flow_cnt)".into());
        }
    }
    // Channels: queues gone, with their IRQs.
    if words.first() == Some(&"ethtool") && words.contains(&"-L") && now.rx_queues < before.rx_queues {
        return Some(format!(
            "rx-{}..rx-{} are gone with their interrupts: the driver spread its default table over the {} left (ethtool_rxfh_indir_default); their figures now read —",
            now.rx_queues,
            before.rx_queues - 1,
            now.rx_queues
        ));
    }
    // The indirection table decides only for flows no exact filter matches.
    if words.first() == Some(&"ethtool") && words.contains(&"-X") {
        let steered = (0..sim.flow_count())
            .filter_map(|f| sim.flow_view(f))
            .filter(|v| v.rule != QueueRule::Rss)
            .count();
        if steered > 0 {
            return Some(format!(
                "{steered} of {} open flows are steered by exact filters (aRFS, ntuple, ATR), which the NIC matches before the indirection table: the new table moves only the others",
                sim.open_flow_count()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(lesson_like: &str) -> Sim {
        let cfg = HostConfig {
            rx_queues: 4,
            cpus: 4,
            ..HostConfig::default()
        };
        let mut sim = Sim::new(cfg).expect("a host");
        for line in lesson_like.lines().filter(|l| !l.trim().is_empty()) {
            crate::execute(&mut sim, line).expect(line);
        }
        sim
    }

    fn after(sim: &mut Sim, line: &str) -> Option<String> {
        let before = sim.config().clone();
        crate::execute(sim, line).expect(line);
        note(&before, sim, line)
    }

    #[test]
    fn a_command_that_does_not_do_what_it_seems_says_why() {
        let mut sim = host("");
        let n = after(&mut sim, "echo 2048 | tee /sys/class/net/eth0/queues/rx-*/rps_flow_cnt").unwrap();
        assert!(n.contains("rps_sock_flow_entries is 0"), "{n}");
        assert_eq!(
            after(&mut sim, "sysctl -w net.core.rps_sock_flow_entries=32768"),
            None,
            "RFS on now"
        );
        let n = after(&mut sim, "ethtool -L eth0 combined 2").unwrap();
        assert!(n.starts_with("rx-2..rx-3 are gone"), "{n}");
        let n = after(&mut sim, "nic driver generic").unwrap();
        assert!(n.contains("already so"), "{n}");
        let n = after(&mut sim, "tc counting usesw").unwrap();
        assert!(n.contains("no ingress block"), "{n}");
        assert_eq!(after(&mut sim, "ethtool -X eth0 equal 2"), None, "no flows, no filters");
    }
}
