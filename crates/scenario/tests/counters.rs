//! The outputs that show where packets drop and who takes the interrupts (`ethtool -g`, `-c`,
//! `-S`, `/proc/net/softnet_stat`, `nstat`, `/proc/net/snmp`, `mpstat`, and `/proc/interrupts`'
//! counts): each read pasted alone, after a prompt and inside a full capture; a cut one refused
//! naming the line; and the round trip: a sandbox host with a ring, a fixed `rx-usecs` and
//! drops, captured with the console's own outputs, imports back to the same ring and interval
//! with the observations of its drops.

mod common;

use common::said;
use steerlab_scenario::capture::{import, Imported};

const ICE: &str = include_str!("fixtures/capture-ice.txt");

/// Every observation, one a line, `PLACE: TEXT`.
fn observed(imported: &Imported) -> String {
    imported
        .observed
        .iter()
        .map(|o| format!("{}: {}", o.place, o.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `output` pasted alone (the interface unnamed elsewhere), after a root prompt with `cmd`,
/// and as the last command of the ICE capture (ens1f0, ice) with one after it; `check` gets
/// each import, the line `output` starts at, and whether the driver is ice.
fn three_ways(cmd: &str, output: &str, check: impl Fn(&Imported, usize, bool)) {
    for (prefix, ice) in [
        (String::new(), false),
        (format!("[root@dut ~]# {cmd}\n"), false),
        (format!("{ICE}\n$ {cmd}\n"), true),
    ] {
        let text = format!("{prefix}{output}\n$ uname -r\n6.8.0-45-generic\n");
        let at = prefix.lines().count() + 1;
        let imported = import(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        check(&imported, at, ice);
    }
}

fn says(imported: &Imported, what: &str) {
    let all = said(imported);
    assert!(all.contains(what), "{what:?} not said in\n{all}");
}

fn shows(imported: &Imported, what: &str) {
    let all = observed(imported);
    assert!(all.contains(what), "{what:?} not observed in\n{all}");
}

/// ethtool 6.x's `ethtool -g` (netlink/rings.c), with the current ring `rx`.
fn rings(rx: u32) -> String {
    format!(
        "Ring parameters for ens1f0:\nPre-set maximums:\nRX:\t\t\t8160\nRX Mini:\t\tn/a\nRX Jumbo:\t\tn/a\nTX:\t\t\t8160\n\
Current hardware settings:\nRX:\t\t\t{rx}\nRX Mini:\t\tn/a\nRX Jumbo:\t\tn/a\nTX:\t\t\t2048\nRX Buf Len:\t\tn/a\n\
CQE Size:\t\tn/a\nTX Push:\t\toff\nTCP data split:\t\tn/a"
    )
}

#[test]
fn the_current_rx_ring_sets_the_ring_when_the_model_takes_it() {
    three_ways("ethtool -g ens1f0", &rings(1024), |imported, _, _| {
        assert_eq!(imported.scenario.nic.ring_size, Some(1024));
        assert_eq!(imported.json["nic"]["ring_size"], 1024);
    });
    // ice rounds 1000 up to 1024; the generic model takes powers of two up to 1024.
    three_ways("ethtool -g ens1f0", &rings(1000), |imported, at, ice| {
        assert_eq!(imported.scenario.nic.ring_size, None);
        let want = if ice {
            format!("line {}: an RX ring of 1000: the ice model rounds it to 1024, so its default 2048 is kept [--set nic.ring_size=1024]", at + 7)
        } else {
            format!("line {}: an RX ring of 1000: the generic model refuses it (Invalid argument), so its default 256 is kept [--set nic.ring_size=256]", at + 7)
        };
        says(imported, &want);
    });
    let imported = import(&rings(4096)).unwrap();
    says(
        &imported,
        "line 8: an RX ring of 4096: the generic model refuses it (requested ring size exceeds maximum)",
    );
    let imported = import(ICE).unwrap();
    says(
        &imported,
        "the ice model's RX ring, 2048 descriptors (no ethtool -g) [--set nic.ring_size=2048]",
    );
}

/// `ethtool -c` as netlink/coalesce.c prints it (blank lines between its groups).
fn coalesce(adaptive: &str, usecs: &str) -> String {
    format!(
        "Coalesce parameters for ens1f0:\nAdaptive RX: {adaptive}  TX: off\nstats-block-usecs:\tn/a\nsample-interval:\tn/a\n\n\
rx-usecs:\t{usecs}\nrx-frames:\tn/a\nrx-usecs-irq:\tn/a\n\ntx-usecs:\t{usecs}\ntx-frames:\tn/a"
    )
}

#[test]
fn rx_usecs_is_set_when_adaptive_moderation_is_off() {
    three_ways("ethtool -c ens1f0", &coalesce("off", "50"), |imported, _, _| {
        assert_eq!(imported.scenario.nic.rx_usecs, Some(50));
        assert_eq!(imported.json["nic"]["rx_usecs"], 50);
    });
    three_ways("ethtool -c ens1f0", &coalesce("on", "50"), |imported, at, ice| {
        assert_eq!(imported.scenario.nic.rx_usecs, None);
        let (model, us) = if ice { ("ice", 50) } else { ("generic", 0) };
        says(
            imported,
            &format!("line {}: adaptive RX moderation, which steerlab does not model: the {model} model's starting interval, {us} us [--set nic.rx_usecs={us}]", at + 1),
        );
    });
    let imported = import(&coalesce("off", "20000")).unwrap();
    assert_eq!(imported.scenario.nic.rx_usecs, None);
    says(&imported, "line 6: rx-usecs 20000: steerlab models 0..=10000");
    // The correction the assumption names is taken.
    let imported = steerlab_scenario::capture::import_with(&coalesce("on", "8"), &["nic.rx_usecs=8".into()]).unwrap();
    assert_eq!(imported.scenario.nic.rx_usecs, Some(8));
}

#[test]
fn ring_drop_counters_are_observed_with_their_line() {
    let stats = "NIC statistics:\n     rx_packets: 2249565\n     tx_packets: 0\n     rx_missed_errors: 12345\n     rx_no_buffer_count: 0\n     rx_queue_0_packets: 1124625\n     rx_queue_3_drops: 7\n     rx-1.drops: 0";
    three_ways("ethtool -S ens1f0", stats, |imported, at, _| {
        shows(
            imported,
            &format!(
                "ring: line {}: the NIC dropped 12,345 packets at its rings (ethtool -S: rx_missed_errors)",
                at + 3
            ),
        );
        shows(
            imported,
            &format!(
                "ring: line {}: rx-3's ring dropped 7 packets (ethtool -S: rx_queue_3_drops)",
                at + 6
            ),
        );
        assert_eq!(imported.observed.len(), 2, "{}", observed(imported));
    });
}

#[test]
fn softnet_stat_rows_name_the_cpus_that_dropped_and_squeezed() {
    // 6.x's fifteen columns: processed, dropped, time_squeeze, …, flow_limit_count (10), …, the CPU (12).
    let rows = "\
0001e240 00000000 00000002 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000
00000010 000004d2 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000001 00000000 00000000
00000010 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000003 00000000 00000000
00000010 00000037 0000000c 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000028 00000000 00000005 00000000 00000000";
    three_ways("cat /proc/net/softnet_stat", rows, |imported, at, _| {
        shows(imported, &format!("backlog: line {}: packets dropped at a full backlog on CPUs 1 (1,234), 5 (55) (/proc/net/softnet_stat's 2nd column, dropped", at + 1));
        shows(
            imported,
            &format!(
                "backlog: line {}: packets dropped by the RPS flow limit on CPU 5 (40)",
                at + 3
            ),
        );
        shows(
            imported,
            &format!("squeeze: line {at}: softirq runs out of budget with packets left on CPUs 0 (2), 5 (12)"),
        );
    });
    // Before 5.10 a row has no CPU column: rows are the online CPUs in order.
    let old = "00000010 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n00000010 00000002 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000";
    shows(&import(old).unwrap(), "on CPUs 0 (1), 1 (2)");
}

#[test]
fn socket_drops_from_nstat_and_proc_net_snmp() {
    let nstat = "#kernel\nIpInReceives                    4006               0.0\nUdpInDatagrams                  32467              0.0\nUdpInErrors                     17367              0.0\nUdpRcvbufErrors                 17321              0.0\nTcpExtListenDrops               0                  0.0";
    three_ways("nstat -az", nstat, |imported, at, _| {
        shows(imported, &format!("socket: line {}: UDP sockets dropped 17,321 datagrams at a full receive buffer (nstat: UdpRcvbufErrors)", at + 4));
        shows(
            imported,
            &format!("socket: line {}: UDP dropped 17,367 datagrams on receive", at + 3),
        );
        assert_eq!(imported.observed.len(), 2);
    });
    let snmp = "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens\nTcp: 1 200 120000 -1 5\n\
Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors\n\
Udp: 1000 2 30 400 25 0 5 0 0";
    three_ways("cat /proc/net/snmp", snmp, |imported, at, _| {
        shows(imported, &format!("socket: line {}: UDP sockets dropped 25 datagrams at a full receive buffer (/proc/net/snmp: Udp RcvbufErrors)", at + 3));
        shows(imported, "UDP dropped 30 datagrams on receive");
    });
}

/// sysstat's `mpstat -P ALL 1 1` (12-hour time, an `Average:` block after the interval's).
const MPSTAT: &str = "\
Linux 6.8.0-45-generic (dut) \t03/02/2026 \t_x86_64_\t(4 CPU)

09:16:10 PM  CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
09:16:11 PM  all    2.00    0.00    3.00    0.00    0.00   40.00    0.00    0.00    0.00   55.00
09:16:11 PM    0    1.00    0.00    2.00    0.00    0.00   96.00    0.00    0.00    0.00    1.00
09:16:11 PM    1    1.00    0.00    2.00    0.00    0.00   12.00    0.00    0.00    0.00   85.00

Average:     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
Average:     all    2.00    0.00    3.00    0.00    0.00   40.00    0.00    0.00    0.00   55.00
Average:       0    1.00    0.00    2.00    0.00    0.00   97.50    0.00    0.00    0.00    0.50
Average:       1    1.00    0.00    2.00    0.00    0.00   12.00    0.00    0.00    0.00   85.00";

#[test]
fn mpstat_names_the_cpus_busy_in_softirq() {
    three_ways("mpstat -P ALL 1 1", MPSTAT, |imported, at, _| {
        shows(
            imported,
            &format!(
                "softirq: line {}: CPU 0 (97.50%) spent more than half their time in softirq (mpstat: %soft)",
                at + 9
            ),
        );
        assert_eq!(imported.observed.len(), 1);
    });
}

#[test]
fn one_cpu_taking_the_queue_interrupts_is_observed() {
    let rows = "\
 45:    9000000          0          0          0  IR-PCI-MSIX-0000:3b:00.0 1-edge      eth0-TxRx-0
 46:    8000000          0          0          0  IR-PCI-MSIX-0000:3b:00.0 2-edge      eth0-TxRx-1
 47:    7000000          0          0          0  IR-PCI-MSIX-0000:3b:00.0 3-edge      eth0-TxRx-2
 48:    6000000          0         10          0  IR-PCI-MSIX-0000:3b:00.0 4-edge      eth0-TxRx-3";
    let imported = import(rows).unwrap();
    shows(&imported, "softirq: line 1: 99% of eth0's 4 queue vectors' interrupts since boot (30,000,000 of 30,000,010) fired on CPU 0 (/proc/interrupts)");
    // Without counts, the effective affinity says where they fire; where it differs from the
    // allowed list, the effective one is taken and said.
    let lists = "\
$ grep -H . /proc/irq/4[5-8]/*affinity_list
/proc/irq/45/smp_affinity_list:0-3
/proc/irq/45/effective_affinity_list:2
/proc/irq/46/effective_affinity_list:2
$ ls /sys/class/net/eth0/queues/
rx-0  rx-1  tx-0  tx-1
$ grep eth0 /proc/interrupts
 45:          0          0          0          0  IR-PCI-MSIX-0000:3b:00.0 1-edge      eth0-TxRx-0
 46:          0          0          0          0  IR-PCI-MSIX-0000:3b:00.0 2-edge      eth0-TxRx-1";
    let imported = import(lists).unwrap();
    says(
        &imported,
        "line 3: IRQ 45 (rx-0) may run on CPUs 0-3 (line 2) but fires on CPU 2 (effective_affinity_list): CPU 2 taken",
    );
    shows(
        &imported,
        "softirq: line 3: all 2 of eth0's queue vectors fire on CPU 2 (effective_affinity_list)",
    );
}

#[test]
fn cut_outputs_are_refused_naming_the_line() {
    for (text, want) in [
        ("NIC statistics:\n     rx_packets: 10\n     rx_missed_errors:\n     tx_packets: 1", "line 3: an ethtool -S counter is a number (cut?)"),
        (
            "00000010 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n00000010 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
            "line 2: 11 columns where the first row has 13 (cut?)",
        ),
        ("Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors\nUdp: 1000 2 30", "line 2: 3 values for 5 names (cut?)"),
        ("#kernel\nUdpInErrors                     17367              0.0\nUdpRcvbufErrors", "line 3: nstat rows are 'NAME VALUE RATE'"),
        (&MPSTAT.replace("Average:       0    1.00    0.00    2.00    0.00    0.00   97.50", "Average:       0    1.00    0.00"), "line 10: an mpstat row with fewer columns than its header (cut?)"),
        (&rings(1024).replace("RX:\t\t\t1024", "RX:"), "line 8: the RX ring is a number of descriptors"),
    ] {
        let err = import(text).expect_err(text);
        assert!(err.0.starts_with(want), "{err}\nwanted {want}");
    }
}

/// An ixgbe host with a ring of 1024, a fixed 100 us interval and more traffic than its two
/// queues' CPUs can poll, plus a UDP reader too slow for its flow.
fn busy_ixgbe() -> steerlab_engine::Sim {
    let sc = steerlab_scenario::parse(
        r#"{"schema": 1, "id": "t", "host": {"cpus": 4, "numa_nodes": 1},
        "nic": {"driver": "ixgbe", "rx_queues": 2, "tx_queues": 2, "reta_size": 128},
        "sim": {"tick_ns": 1000000, "mode": "aggregate", "seed": 2, "duration_ms": 2000},
        "threads": [{"count": 1, "cpus": "2", "pin": true}, {"count": 1, "cpus": "3", "pin": true}],
        "flows": [{"count": 1, "proto": "udp", "src": "10.5.0.1", "dst": "192.168.0.1", "sport": 40000, "dport": 5353, "rate_pps": 50000, "bytes": 512, "readers_per_flow": 1, "reader_base": 0, "app_ns": 30000},
                  {"count": 8, "proto": "tcp", "src": "10.6.0.0", "dst": "192.168.0.1", "dport": 443, "random": true, "rate_pps": 400000, "bytes": 1500, "readers_per_flow": 1, "reader_base": 1}]}"#,
        &[],
    )
    .unwrap();
    let mut sim = sc.build().unwrap();
    sc.apply_due(&mut sim).unwrap();
    for cmd in [
        "ethtool -G eth0 rx 1024",
        "ethtool -C eth0 adaptive-rx off rx-usecs 100",
    ] {
        steerlab_console::execute(&mut sim, cmd).unwrap_or_else(|e| panic!("{cmd}: {e}"));
    }
    sim.run_ticks(1000);
    sim
}

#[test]
fn a_sandbox_host_with_drops_imports_back_with_its_ring_interval_and_drops() {
    let mut sim = busy_ixgbe();
    let snap = sim.snapshot();
    let ring_drops: u64 = snap.queues.iter().map(|q| q.drops).sum();
    let socket_drops = snap.counters.socket_drop;
    let squeezed: Vec<u16> = (0..4).filter(|&c| snap.cpus[usize::from(c)].time_squeeze > 0).collect();
    assert!(
        ring_drops > 0 && socket_drops > 0 && !squeezed.is_empty(),
        "the host drops"
    );
    let text = common::transcript(
        &mut sim,
        &[
            "ethtool -i eth0",
            "ethtool -g eth0",
            "ethtool -c eth0",
            "ethtool -S eth0",
            "cat /proc/net/softnet_stat",
            "nstat -asz",
            "mpstat -P ALL",
            "cat /proc/interrupts",
        ],
    );
    let imported = import(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let nic = &imported.scenario.nic;
    assert_eq!(
        (nic.driver.0.name(), nic.ring_size, nic.rx_usecs),
        ("ixgbe", Some(1024), Some(100))
    );
    let thousands = |v: u64| {
        let s = v.to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    shows(
        &imported,
        &format!(
            "the NIC dropped {} packets at its rings (ethtool -S: rx_missed_errors)",
            thousands(ring_drops)
        ),
    );
    shows(
        &imported,
        &format!(
            "UDP sockets dropped {} datagrams at a full receive buffer (nstat: UdpRcvbufErrors)",
            thousands(socket_drops)
        ),
    );
    let cpus: Vec<String> = squeezed
        .iter()
        .map(|&c| format!("{c} ({})", thousands(snap.cpus[usize::from(c)].time_squeeze)))
        .collect();
    shows(
        &imported,
        &format!(
            "softirq runs out of budget with packets left on CPUs {}",
            cpus.join(", ")
        ),
    );
    shows(&imported, "softirq: ");
    // Each observation names its line, and the line is the counter's.
    for o in &imported.observed {
        assert!(o.text.starts_with(&format!("line {}: ", o.line)), "{}", o.text);
        let line = text.lines().nth(o.line - 1).unwrap();
        assert!(!line.trim().is_empty() && !line.starts_with('$'), "{}: {line}", o.text);
    }
}

/// An mlx5 sandbox host with a fixed interval and a frame count imports back with both
/// (`ethtool -c`'s `rx-frames`); a driver that counts none prints `n/a` and keeps nothing.
#[test]
fn rx_frames_round_trips_on_a_driver_that_counts_frames() {
    let cfg = steerlab_engine::HostConfig {
        cpus: 4,
        rx_queues: 2,
        tx_queues: 2,
        reta_size: 16,
        ..Default::default()
    };
    let mut sim = steerlab_engine::Sim::new(cfg).unwrap();
    for cmd in [
        "nic driver mlx5",
        "ethtool -C eth0 adaptive-rx off rx-usecs 64 rx-frames 16",
    ] {
        steerlab_console::execute(&mut sim, cmd).unwrap_or_else(|e| panic!("{cmd}: {e}"));
    }
    let text = common::transcript(&mut sim, &["ethtool -i eth0", "ethtool -c eth0"]);
    let imported = import(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let nic = &imported.scenario.nic;
    assert_eq!((nic.rx_usecs, nic.rx_frames), (Some(64), Some(16)), "{text}");
    assert_eq!(imported.json["nic"]["rx_frames"], 16);
    steerlab_console::execute(&mut sim, "nic driver ixgbe").unwrap();
    let text = common::transcript(&mut sim, &["ethtool -i eth0", "ethtool -c eth0"]);
    assert_eq!(import(&text).unwrap().scenario.nic.rx_frames, None);
}
