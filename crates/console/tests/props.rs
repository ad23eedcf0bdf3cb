//! Property: whatever line is typed, the console never panics, and a line it refuses leaves
//! the host exactly as it was (snapshot, configuration and every other observable table).
//! Lines are random, or valid lines mutated: words dropped, duplicated, swapped, replaced by
//! numbers or random text, random characters inserted, the line cut short.

mod common;

use common::{fingerprint, host};
use proptest::prelude::*;
use steerlab_console::execute;

/// Valid lines of every command form (the mutation seeds).
const VALID: &[&str] = &[
    "ethtool -l eth0",
    "ethtool -L eth0 combined 2",
    "ethtool -L eth0 rx 0 combined 6",
    "ethtool -x eth0",
    "ethtool -X eth0 equal 2 start 1",
    "ethtool -X eth0 weight 1 2 3 4",
    "ethtool -X eth0 default",
    "ethtool -X eth0 hkey 6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa",
    "ethtool -n eth0",
    "ethtool -n eth0 rule 1023",
    "ethtool -n eth0 rx-flow-hash tcp4",
    "ethtool -N eth0 flow-type tcp4 src-ip 10.0.0.1 dst-ip 10.0.0.2 src-port 40000 dst-port 80 action 1 loc 5",
    "ethtool -N eth0 flow-type udp6 src-ip 2001:db8::1 m :: dst-port 53 action 2",
    "ethtool -N eth0 flow-type tcp4 dst-port 80 queue 3",
    "ethtool -N eth0 delete 1023",
    "ethtool -N eth0 rx-flow-hash udp4 sdfn",
    "ethtool -K eth0 ntuple on",
    "ethtool -K eth0 ntuple off",
    "ethtool -S eth0",
    "sysctl net.core.rps_sock_flow_entries",
    "sysctl -w net.core.rps_sock_flow_entries=32768",
    "sysctl -n net.core.netdev_max_backlog",
    "echo f0 > /sys/class/net/eth0/queues/rx-1/rps_cpus",
    "echo 256 > /sys/class/net/eth0/queues/rx-0/rps_flow_cnt",
    "echo 0c > /sys/class/net/eth0/queues/tx-2/xps_cpus",
    "echo 3 > /sys/class/net/eth0/queues/tx-1/xps_rxqs",
    "echo 1024 > /proc/sys/net/core/rps_sock_flow_entries",
    "cat /sys/class/net/eth0/queues/rx-1/rps_cpus",
    "cat /sys/class/net/eth0/queues/rx-*/rps_flow_cnt",
    "echo 2048 | sudo tee /sys/class/net/eth0/queues/rx-*/rps_flow_cnt > /dev/null",
    "for q in /sys/class/net/eth0/queues/rx-*; do echo f0 > $q/rps_cpus; done",
    "for q in 0 1 2; do echo 3 > /sys/class/net/eth0/queues/tx-$q/xps_rxqs; cat /sys/class/net/eth0/queues/tx-${q}/xps_rxqs; done",
    "echo 1 > /sys/class/net/eth0/queues/tx-0/xps_rxqs; echo 2 > /sys/class/net/eth0/queues/tx-1/xps_rxqs",
    "cat /sys/class/net/eth0/queues/tx-2/xps_cpus",
    "cat /proc/net/softnet_stat",
    "cat /proc/interrupts",
    "ip link show dev eth0",
    "ip link set dev eth0 xdp obj xdp_meta_drop",
    "ip -force link set dev eth0 xdpdrv obj xdp_pass.o sec xdp",
    "ip link set dev eth0 xdp off",
    "xdp strategy query",
    "xdp programs",
    "taskset -pc 2-3 0",
    "taskset -p f0 1",
    "flow add tcp 10.0.0.9:1234 10.0.0.2:80 rate 500 readers 0,1",
    "flow add udp [2001:db8::1]:53 [2001:db8::2]:5353 bytes 512",
    "flow list",
    "flow close 1",
    "thread add 3 cpuset 2-5 migrate 10",
    "thread migrate 0 6",
    "thread list",
    "nic driver mlx5",
    "kernel 6.14",
    "rfs record cpuset",
    "tc qdisc add dev eth0 ingress",
    "tc filter add dev eth0 ingress prio 1 flower skip_sw ip_proto tcp dst_port 80 action drop",
    "tc -s filter show dev eth0 ingress",
    "help ethtool",
];

/// Setups that open more paths (rules present, a program attached, more threads).
const SETUPS: &[&[&str]] = &[
    &[],
    &[
        "ethtool -K eth0 ntuple on",
        "ethtool -N eth0 flow-type tcp4 dst-port 80 action 3",
    ],
    &["ip link set dev eth0 xdp obj xdp_hints_pass", "nic driver ice"],
    &[
        "ethtool -X eth0 equal 3",
        "nic driver mlx5",
        "tc qdisc add dev eth0 ingress",
        "thread add 7 cpuset 6-7",
    ],
];

#[derive(Clone, Debug)]
enum Edit {
    Drop(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Number(usize, String),
    Text(usize, String),
    Insert(usize, String),
    Cut(usize),
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("0x".to_string()),
        Just("4294967296".to_string()),
        Just("18446744073709551616".to_string()),
        Just("1023".to_string()),
        Just("1024".to_string()),
        Just("65536".to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<u16>().prop_map(|n| n.to_string()),
        (0u8..16).prop_map(|n| n.to_string()),
        any::<u32>().prop_map(|n| format!("{n:x}")),
        any::<i64>().prop_map(|n| n.to_string()),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(any::<char>(), 0..8).prop_map(|c| c.into_iter().collect()),
        proptest::collection::vec(
            proptest::sample::select(vec![
                '>', '"', '\'', ' ', ':', ',', '-', '[', ']', '/', '=', '.', 'x', '\t', '#', '*', ';', '|', '$', '{',
                '}', '\\'
            ]),
            1..4
        )
        .prop_map(|c| c.into_iter().collect()),
        proptest::sample::select(vec![
            "eth0", "eth1", "dev", "m", "loc", "action", "on", "off", "xdp", "obj", ">", "rx-0", "::", "10.0.0.1",
            "-force", "-w", "do", "done", ";", "|", "tee", "sudo", "$q", "rx-*", "for"
        ])
        .prop_map(str::to_string),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    let i = || 0usize..24;
    prop_oneof![
        i().prop_map(Edit::Drop),
        i().prop_map(Edit::Duplicate),
        (i(), i()).prop_map(|(a, b)| Edit::Swap(a, b)),
        (i(), number()).prop_map(|(a, n)| Edit::Number(a, n)),
        (i(), text()).prop_map(|(a, t)| Edit::Text(a, t)),
        (i(), text()).prop_map(|(a, t)| Edit::Insert(a, t)),
        (0usize..200).prop_map(Edit::Cut),
    ]
}

fn mutate(line: &str, edits: &[Edit]) -> String {
    let mut w: Vec<String> = line.split(' ').map(str::to_string).collect();
    for e in edits {
        let n = w.len().max(1);
        match e {
            Edit::Drop(i) if !w.is_empty() => {
                w.remove(i % n);
            }
            Edit::Duplicate(i) if !w.is_empty() => {
                let x = w[i % n].clone();
                w.insert(i % n, x);
            }
            Edit::Swap(a, b) if !w.is_empty() => w.swap(a % n, b % n),
            Edit::Number(i, s) | Edit::Text(i, s) if !w.is_empty() => w[i % n] = s.clone(),
            Edit::Insert(i, s) => w.insert(i % (w.len() + 1), s.clone()),
            Edit::Cut(at) => {
                let joined = w.join(" ");
                let cut: String = joined.chars().take(*at).collect();
                w = cut.split(' ').map(str::to_string).collect();
            }
            _ => {}
        }
    }
    w.join(" ")
}

/// Runs `line` on a host prepared by `setup`; checks the two properties.
fn check(setup: usize, line: &str) -> Result<(), TestCaseError> {
    let mut sim = host();
    for l in SETUPS[setup % SETUPS.len()] {
        execute(&mut sim, l).map_err(|e| TestCaseError::fail(format!("setup {l:?}: {e}")))?;
    }
    let before = fingerprint(&sim);
    match execute(&mut sim, line) {
        Err(e) => {
            prop_assert!(!e.is_empty(), "{line:?}: an empty error");
            prop_assert_eq!(
                fingerprint(&sim),
                before,
                "{:?} failed ({}) but changed the host",
                line,
                e
            );
        }
        Ok(_) => {
            // Whatever the console accepted, the engine runs on.
            sim.run_ticks(2);
            prop_assert!(sim.conserved(), "{:?}: packets not conserved after it", line);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_valid_lines(setup in 0usize..4, seed in proptest::sample::select(VALID), edits in proptest::collection::vec(edit(), 1..4)) {
        check(setup, &mutate(seed, &edits))?;
    }

    #[test]
    fn random_lines(setup in 0usize..4, line in proptest::collection::vec(any::<char>(), 0..60).prop_map(|c| c.into_iter().collect::<String>())) {
        check(setup, &line)?;
    }

    #[test]
    fn random_word_salad(setup in 0usize..4, words in proptest::collection::vec(prop_oneof![text(), number(), proptest::sample::select(VALID).prop_map(|l| l.split(' ').next().unwrap_or("").to_string())], 0..10)) {
        check(setup, &words.join(" "))?;
    }
}

/// Every seed line is valid after one of the setups, so the mutations start from the console's
/// real grammar.
#[test]
fn seeds_are_valid() {
    for line in VALID {
        let accepted = SETUPS.iter().any(|setup| {
            let mut sim = host();
            setup.iter().for_each(|l| drop(execute(&mut sim, l)));
            execute(&mut sim, line).is_ok()
        });
        assert!(accepted, "{line}");
    }
}
