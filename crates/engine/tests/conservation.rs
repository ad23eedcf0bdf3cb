//! Property tests: random hosts and random command sequences never lose a packet, packet and
//! aggregate modes agree, and the cost ledger's stages add up to the CPUs' accounts.

use std::net::{IpAddr, Ipv4Addr};

use proptest::prelude::*;
use steerlab_engine::xdp::{Strategy as XdpStrategy, XdpProgram, PROGRAMS};
use steerlab_engine::{
    CpuSet, Driver, FlowKey, FlowSpec, HostConfig, Kernel, Mode, Nanos, Proto, Sim, ThreadSpec, TxSpec,
};

#[derive(Clone, Debug)]
enum Cmd {
    AddFlow {
        src: u32,
        dport: u16,
        rate: u64,
        udp: bool,
        reader: u8,
        tx: u8,
    },
    Xdp(u8),
    Xps {
        txq: u16,
        mask: u16,
    },
    Migrate {
        tid: u8,
        cpu: u16,
    },
    FlowCnt(u32),
    SockEntries(u32),
    Driver(u8),
    Rps(u16),
    Run(u8),
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        4 => (any::<u32>(), any::<u16>(), 1u64..300_000, any::<bool>(), any::<u8>(), any::<u8>())
            .prop_map(|(src, dport, rate, udp, reader, tx)| Cmd::AddFlow { src, dport, rate, udp, reader, tx }),
        1 => any::<u8>().prop_map(Cmd::Xdp),
        1 => (0u16..5, any::<u16>()).prop_map(|(txq, mask)| Cmd::Xps { txq, mask }),
        2 => (any::<u8>(), 0u16..20).prop_map(|(tid, cpu)| Cmd::Migrate { tid, cpu }),
        1 => (0u32..5000).prop_map(Cmd::FlowCnt),
        1 => (0u32..70_000).prop_map(Cmd::SockEntries),
        1 => (0u8..5).prop_map(Cmd::Driver),
        1 => (0u16..300).prop_map(Cmd::Rps),
        4 => (1u8..8).prop_map(Cmd::Run),
    ]
}

fn apply(sim: &mut Sim, c: &Cmd) {
    match *c {
        Cmd::AddFlow {
            src,
            dport,
            rate,
            udp,
            reader,
            tx,
        } => {
            let proto = if udp { Proto::Udp } else { Proto::Tcp };
            let key = FlowKey::new(
                IpAddr::V4(Ipv4Addr::from(src)),
                IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
                1000,
                dport,
                proto,
            )
            .unwrap();
            let readers = if reader % 4 == 0 {
                vec![]
            } else {
                vec![
                    u32::from(reader) % sim.thread_count(),
                    u32::from(reader / 3) % sim.thread_count(),
                ]
            };
            // One flow in three also sends: rate-limited or saturating, connected or not.
            let tx = (tx % 3 == 0 && !readers.is_empty()).then_some(TxSpec {
                rate_pps: if tx % 2 == 0 { 0 } else { rate },
                bytes: 100,
                connected: tx % 4 == 0,
            });
            let _ = sim.add_flow(FlowSpec {
                key,
                rate_pps: rate,
                bytes: 1000,
                readers,
                tx,
            });
        }
        Cmd::Migrate { tid, cpu } => {
            let _ = sim.migrate_thread(u32::from(tid % 6), cpu);
        }
        Cmd::FlowCnt(n) => {
            let _ = sim.set_flow_cnt(None, n);
        }
        Cmd::SockEntries(n) => {
            let _ = sim.set_sock_flow_entries(n);
        }
        Cmd::Driver(d) => sim.set_driver(Driver::ALL[usize::from(d) % Driver::ALL.len()]),
        Cmd::Rps(mask) => {
            let mut s = CpuSet::EMPTY;
            (0..12).filter(|b| mask & (1 << b) != 0).for_each(|b| s.insert(b));
            let _ = sim.set_rps_cpus(None, s);
        }
        Cmd::Xdp(k) => {
            let prog = (k % 6 != 0).then(|| {
                let strategy = XdpStrategy::ALL[usize::from(k / 6) % 3];
                XdpProgram::named(PROGRAMS[usize::from(k) % PROGRAMS.len()].0, strategy).unwrap()
            });
            sim.set_xdp(prog);
        }
        Cmd::Xps { txq, mask } => {
            let mut s = CpuSet::EMPTY;
            (0..12).filter(|b| mask & (1 << b) != 0).for_each(|b| s.insert(b));
            let _ = sim.set_xps_cpus(txq, s);
        }
        Cmd::Run(n) => sim.run_ticks(u64::from(n)),
    }
}

fn host(mode: Mode, kernel: Kernel) -> Sim {
    let cfg = HostConfig {
        cpus: 12,
        numa_nodes: 2,
        rx_queues: 6,
        tx_queues: 4,
        ntuple: true,
        flow_cnt: 64,
        sock_flow_entries: 1024,
        ring_size: Some(64),
        netdev_max_backlog: 100,
        tick_ns: 50_000,
        max_hw_filters: 20,
        kernel,
        mode,
        ..HostConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    for c in 0..6 {
        sim.add_thread(ThreadSpec {
            cpu: c * 2,
            allowed: CpuSet::range(0, 12),
            migrate_every: Nanos::from_us(170 * u64::from(c + 1)),
        })
        .unwrap();
    }
    sim
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn packets_are_conserved_and_modes_agree(cmds in proptest::collection::vec(cmd(), 1..40), v618 in any::<bool>()) {
        let kernel = if v618 { Kernel::V6_18 } else { Kernel::V6_10 };
        let mut a = host(Mode::Aggregate, kernel);
        let mut p = host(Mode::Packet, kernel);
        for c in &cmds {
            apply(&mut a, c);
            apply(&mut p, c);
            prop_assert!(a.conserved(), "after {:?}", c);
            let snap = a.snapshot();
            let accounts: u64 = snap.cpus.iter().map(|c| c.user_ns + c.sys_ns + c.softirq_ns).sum();
            let stages: u64 = snap.ledger.iter().map(|(_, ns)| ns).sum();
            prop_assert_eq!(accounts, stages, "ledger after {:?}", c);
            prop_assert_eq!(snap.counters.user_ns + snap.counters.sys_ns + snap.counters.softirq_ns, stages);
            prop_assert_eq!(a.snapshot(), p.snapshot(), "after {:?}", c);
        }
    }
}
