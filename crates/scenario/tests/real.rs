//! Real outputs people posted from their own machines (tests/fixtures/real: the source URL on
//! the first line, the text verbatim after it), each imported and checked against what the
//! snippet itself shows: table, key, queues, rules, IRQ CPUs, CPU count, and what had to be
//! said. A snippet is refused only where it says it is cut.

mod common;

use common::said;
use std::collections::BTreeSet;

use steerlab_engine::{NamedEnum, Sim};
use steerlab_scenario::capture::import;
use steerlab_scenario::predict::{self, parse_flow};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/real");

/// The snippet's text, after its source line.
fn snippet(name: &str) -> String {
    let text = std::fs::read_to_string(format!("{DIR}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (url, body) = text.split_once('\n').unwrap_or_default();
    assert!(
        url.starts_with("https://"),
        "{name}: the first line is the source's URL"
    );
    body.to_string()
}

/// What was expected of one snippet; `None` checks nothing.
#[derive(Default)]
struct Expect {
    cpus: Option<u16>,
    queues: Option<(u16, u16)>,
    /// The table's size and its first entries.
    table: Option<(u32, &'static [u16])>,
    key: Option<&'static str>,
    driver: Option<&'static str>,
    kernel: Option<&'static str>,
    /// A flow, the queue it lands on (when the snippet says it) and what decides it.
    flows: &'static [(&'static str, Option<u16>, &'static str)],
    /// A flow and the fields its hash reads (`sd`, `sdfn`).
    fields: &'static [(&'static str, &'static str)],
    /// RX queue → IRQ CPU.
    irq_cpus: &'static [(u16, u16)],
    /// Words each of which an assumption says.
    said: &'static [&'static str],
    /// The RX ring taken.
    ring: Option<u32>,
    /// Words each of which an observation says (`PLACE: TEXT`).
    observed: &'static [&'static str],
}

fn check(name: &str, e: &Expect) {
    let text = snippet(name);
    let imported = import(&text).unwrap_or_else(|err| panic!("{name}: {err}"));
    let sc = &imported.scenario;
    let sim: Sim = predict::host(&text).unwrap().0;
    let all = said(&imported);
    if let Some(c) = e.cpus {
        assert_eq!(sim.config().cpus, c, "{name}: CPUs\n{all}");
    }
    if let Some((rx, tx)) = e.queues {
        assert_eq!(
            (sim.config().rx_queues, sim.config().tx_queues),
            (rx, tx),
            "{name}: queues\n{all}"
        );
    }
    if let Some((size, first)) = e.table {
        assert_eq!(sim.reta().size(), size, "{name}: table size");
        assert_eq!(&sim.reta().entries()[..first.len()], first, "{name}: table");
    }
    if let Some(k) = e.key {
        assert_eq!(sc.nic.rss_key, k, "{name}: key");
    }
    if let Some(d) = e.driver {
        assert_eq!(sc.nic.driver.0.module(), d, "{name}: driver model");
    }
    if let Some(k) = e.kernel {
        assert_eq!(sc.kernel.0.as_name(), k, "{name}: kernel generation");
    }
    for &(flow, queue, by) in e.flows {
        let p = predict::predict(&sim, &parse_flow(flow).unwrap());
        assert_eq!(
            (p.queue, p.decided_by.as_str()),
            (queue.unwrap_or(p.queue), by),
            "{name}: {flow}"
        );
    }
    for &(flow, fields) in e.fields {
        let p = predict::predict(&sim, &parse_flow(flow).unwrap());
        assert_eq!(p.fields, fields, "{name}: {flow}'s hashed fields");
    }
    for &(q, cpu) in e.irq_cpus {
        assert_eq!(sim.irq_cpu(q), Some(cpu), "{name}: rx-{q}'s IRQ CPU\n{all}");
    }
    for w in e.said {
        assert!(all.contains(w), "{name}: {w:?} not said in\n{all}");
    }
    if let Some(r) = e.ring {
        assert_eq!(sc.nic.ring_size, Some(r), "{name}: RX ring\n{all}");
    }
    let seen: Vec<String> = imported
        .observed
        .iter()
        .map(|o| format!("{}: {}", o.place, o.text))
        .collect();
    for w in e.observed {
        assert!(
            seen.iter().any(|o| o.contains(w)),
            "{name}: {w:?} not observed in\n{seen:#?}"
        );
    }
}

/// Every snippet of the corpus with what it shows.
fn corpus() -> Vec<(&'static str, Expect)> {
    vec![
        ("ena-info-github-driver.txt", Expect {
            driver: Some("steerlab"),
            table: Some((128, &[0, 1, 2, 3])),
            key: Some("be:ac:01:fa:6a:42:b7:3b:80:30:f2:0c:77:cb:2d:a3:ae:7b:30:b4:d0:ca:2b:cb:43:a3:8f:b0:41:67:25:3d:25:5b:0e:c2:6d:5a:56:da"),
            said: &["line 3: version: 2.2.10g is the driver's own version", "predictions for ENA are not exact", "driver ena is modelled"],
            ..Expect::default()
        }),
        ("ena-info-kernel-6.10.txt", Expect {
            kernel: Some("6.10"),
            said: &["line 3: ethtool -i's version 6.10.2-1-ec2", "enp39s0 is eth0"],
            ..Expect::default()
        }),
        ("ena-info-rhel8-grep.txt", Expect {
            kernel: Some("6.10"),
            said: &["`ethtool -i eth0 | grep version`: read for what `grep version` keeps"],
            ..Expect::default()
        }),
        ("ena-show-rxfh-refused.txt", Expect {
            said: &["line 2: `sudo ethtool --show-rxfh ens3` printed \"Cannot get RX flow hash indir size", "ens3 is eth0"],
            ..Expect::default()
        }),
        ("gve-interrupts.txt", Expect {
            cpus: Some(2),
            queues: Some((1, 1)),
            irq_cpus: &[(0, 0)],
            said: &["the driver is gve", "line 2: IRQ 25 (rx-0) fired on CPUs 0,1", "2 CPUs, from the counts of a /proc/interrupts row"],
            ..Expect::default()
        }),
        ("hv_netvsc-rx-flow-hash-udp.txt", Expect {
            fields: &[("udp 192.0.2.1:5000 10.0.0.2:53", "sdfn"), ("udp [2001:db8::1]:5000 [2001:db8::2]:53", "sdfn")],
            said: &["tcp4, tcp6 hash addresses and ports"],
            ..Expect::default()
        }),
        ("i40e-channels-14.txt", Expect { queues: Some((14, 14)), said: &["ens2f1 is eth0"], ..Expect::default() }),
        ("i40e-info-out-of-tree.txt", Expect {
            kernel: Some("6.18"),
            said: &["line 3: version: 2.4.6 is the driver's own version", "driver i40e is modelled"],
            ..Expect::default()
        }),
        ("i40e-rules-7422.txt", Expect {
            // Both rules ignore every address bit (mask all ones): every TCP/IPv4 flow goes to
            // queue 1 by the first, moved from 7422 to the sandbox's 1022.
            flows: &[("tcp 198.51.100.1:4000 192.168.1.212:80", Some(1), "ntuple:1022"), ("tcp 192.168.1.212:80 10.0.0.9:5000", Some(1), "ntuple:1022")],
            said: &["line 2: rule 7422 is rule 1022 in the sandbox", "line 11: rule 7423 is rule 1023"],
            ..Expect::default()
        }),
        ("i40e-vfio-interrupts.txt", Expect {
            cpus: Some(4),
            queues: Some((3, 3)),
            irq_cpus: &[(0, 0)],
            said: &["the queue vectors are enP1s15's", "the driver is i40e", "2 of 3 queues' IRQ CPUs not in the capture"],
            ..Expect::default()
        }),
        ("ice-hash-function-alone.txt", Expect { queues: Some((4, 4)), ..Expect::default() }),
        ("ice-no-rules.txt", Expect { queues: Some((36, 36)), flows: &[("tcp 192.0.2.1:1 10.0.0.2:2", None, "rss")], ..Expect::default() }),
        ("ice-set-hfunc-refused.txt", Expect {
            said: &["line 6: the output of `ethtool -X ens802f0 hfunc xor` is not read", "line 7: `ethtool -X ens802f0 hfunc xor` printed \"Cannot set RX flow hash configuration"],
            ..Expect::default()
        }),
        ("idpf-rules-unknown-flow-type.txt", Expect {
            queues: Some((2, 2)),
            flows: &[("tcp 10.0.0.1:1 10.0.0.2:2", None, "rss")],
            said: &["line 5: ethtool could not print a rule", "line 6: ethtool could not print a rule"],
            ..Expect::default()
        }),
        ("idpf-rules.txt", Expect {
            queues: Some((2, 2)),
            flows: &[("tcp 10.0.0.1:1234 10.9.9.9:80", Some(0), "ntuple:0"), ("udp 10.0.0.1:53 10.9.9.9:53", Some(0), "ntuple:1"), ("tcp 10.0.0.7:1234 10.9.9.9:80", None, "rss")],
            ..Expect::default()
        }),
        ("ixgbe-82599-63-rings.txt", Expect {
            queues: Some((63, 63)),
            table: Some((128, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1])),
            said: &["no RSS key in the capture"],
            ..Expect::default()
        }),
        ("ixgbe-info-out-of-tree.txt", Expect {
            driver: Some("ixgbe"),
            table: Some((128, &[0, 1, 2, 3, 0])),
            fields: &[("udp 192.0.2.1:5000 10.0.0.2:53", "sd"), ("tcp 192.0.2.1:5000 10.0.0.2:53", "sdfn")],
            said: &["line 2: version: 5.3.7 is the driver's own version", "udp4, udp6 hash the addresses only, sd: ixgbe's default"],
            ..Expect::default()
        }),
        // An Intel gigabit port's counters (e1000e/igb names): both ring counters, as printed.
        ("intel1g-stats-missed.txt", Expect {
            observed: &[
                "ring: line 19: the NIC found no free buffer on a ring 527 times (ethtool -S: rx_no_buffer_count)",
                "ring: line 20: the NIC dropped 4,954 packets at its rings (ethtool -S: rx_missed_errors)",
            ],
            ..Expect::default()
        }),
        // Red Hat insights-core's sample of the file (13 columns: the CPU in the last): every
        // CPU dropped at its backlog, CPU 4 ran out of budget once.
        ("insights-softnet-drops.txt", Expect {
            observed: &[
                "backlog: line 1: packets dropped at a full backlog on CPUs 0 (25,219), 1 (1,094), 2 (19,399), 3 (32,302), 4 (187,284)",
                "squeeze: line 5: softirq runs out of budget with packets left on CPU 4 (1)",
            ],
            ..Expect::default()
        }),
        // A ring of 256 of 4096 (ethtool's old ioctl layout, spaces for tabs): the ring taken.
        ("nic-ring-256.txt", Expect { ring: Some(256), ..Expect::default() }),
        ("r8125-queues-ls.txt", Expect { queues: Some((3, 2)), said: &["from the queue directories listed"], ..Expect::default() }),
        ("sfc-channels-na.txt", Expect { queues: Some((4, 4)), said: &["enp2s0f0 is eth0"], ..Expect::default() }),
        ("sfc-rx-flow-hash-udp4-sd.txt", Expect {
            fields: &[("udp 192.168.254.30:4321 192.168.254.1:4321", "sd")],
            said: &["tcp4, tcp6, udp6 hash addresses and ports"],
            ..Expect::default()
        }),
        ("virtio-interrupts-rows.txt", Expect {
            cpus: Some(16),
            queues: Some((4, 4)),
            irq_cpus: &[(1, 1), (2, 2), (3, 3)],
            said: &["the queue vectors are virtio5's", "the driver is virtio_net", "1 of 4 queues' IRQ CPUs not in the capture"],
            ..Expect::default()
        }),
    ]
}

/// Snippets that say they are cut, and the line the refusal names.
const REFUSED: &[(&str, &str)] = &[
    ("sfc-table-elided.txt", "line 10: the output is cut here"),
    ("rpc-softnet-elided.txt", "line 4: the output is cut here"),
];

#[test]
fn every_real_snippet_is_read_as_it_shows() {
    for (name, e) in corpus() {
        check(name, &e);
    }
}

#[test]
fn a_snippet_that_says_it_is_cut_is_refused_naming_the_line() {
    for (name, want) in REFUSED {
        let err = import(&snippet(name)).unwrap_err();
        assert!(err.0.starts_with(want), "{name}: {err}");
    }
}

#[test]
fn the_corpus_is_whole_and_spans_the_drivers() {
    let files: BTreeSet<String> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let checked: BTreeSet<String> = corpus()
        .iter()
        .map(|(n, _)| n.to_string())
        .chain(REFUSED.iter().map(|(n, _)| n.to_string()))
        .collect();
    assert_eq!(files, checked, "every snippet in fixtures/real has its check");
    assert!(files.len() >= 20, "{} snippets", files.len());
    let drivers: BTreeSet<&str> = files.iter().filter_map(|f| f.split(['-', '.']).next()).collect();
    assert!(drivers.len() >= 8, "{drivers:?}");
}
