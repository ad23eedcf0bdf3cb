//! The transmit path against kernel-semantics §5: netdev_pick_tx, XPS, ooo_okay, ixgbe ATR.

use std::net::{IpAddr, Ipv4Addr};

use steerlab_engine::{CpuSet, Driver, FlowKey, FlowSpec, HostConfig, Nanos, Proto, Sim, ThreadSpec, TxSpec, XpsMap};

fn key(i: u32, proto: Proto) -> FlowKey {
    FlowKey::new(
        IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i)),
        IpAddr::V4(Ipv4Addr::new(192, 168, 0, 1)),
        30_000 + i as u16,
        5201,
        proto,
    )
    .unwrap()
}

fn host(driver: Driver, xps_map: XpsMap) -> Sim {
    let cfg = HostConfig {
        cpus: 8,
        rx_queues: 4,
        tx_queues: 4,
        driver,
        xps_map,
        ..HostConfig::default()
    };
    Sim::new(cfg).unwrap()
}

fn thread(sim: &mut Sim, cpu: u16) -> u32 {
    sim.add_thread(ThreadSpec {
        cpu,
        allowed: CpuSet::EMPTY,
        migrate_every: Nanos::ZERO,
    })
    .unwrap()
}

#[test]
fn atr_steers_replies_to_the_queue_of_the_tx_ring() {
    let mut sim = host(Driver::Ixgbe, XpsMap::Irq);
    let t = thread(&mut sim, 3);
    let tx = Some(TxSpec {
        rate_pps: 10_000,
        bytes: 100,
        connected: true,
    });
    for i in 0..8 {
        sim.add_flow(FlowSpec {
            key: key(i, Proto::Tcp),
            rate_pps: 10_000,
            bytes: 1500,
            readers: vec![t],
            tx,
        })
        .unwrap();
    }
    sim.run_ticks(3);
    for f in 0..8 {
        // CPU 3's XPS map says TX queue 3; ATR programs RX queue 3 for the reverse direction.
        assert_eq!(sim.flow_view(f).unwrap().queue, 3, "flow {f}");
    }
    let s = sim.snapshot();
    assert_eq!(s.counters.xps_hash_picks, 0);
    assert!(s.counters.atr_samples >= 8, "the SYN of each flow is sampled");
    assert_eq!(s.counters.remote, 0);
    // ntuple off while off is no change: nothing reaches the driver, ATR's filters stay.
    sim.set_ntuple(false);
    sim.run_ticks(1);
    assert!((0..8).all(|f| sim.flow_view(f).unwrap().queue == 3));
    // ntuple on disables ATR (ixgbe_set_features): packets return to their RSS queues.
    sim.set_ntuple(true);
    sim.run_ticks(1);
    assert!((0..8).any(|f| sim.flow_view(f).unwrap().queue != 3));
}

#[test]
fn a_tcp_socket_moves_its_tx_queue_only_at_ooo_okay_and_udp_keeps_it() {
    let mut sim = host(Driver::Generic, XpsMap::All);
    let t = thread(&mut sim, 1);
    let tx = Some(TxSpec {
        rate_pps: 1000,
        bytes: 100,
        connected: true,
    });
    sim.add_flow(FlowSpec {
        key: key(1, Proto::Tcp),
        rate_pps: 0,
        bytes: 64,
        readers: vec![t],
        tx,
    })
    .unwrap();
    sim.add_flow(FlowSpec {
        key: key(2, Proto::Udp),
        rate_pps: 0,
        bytes: 64,
        readers: vec![t],
        tx,
    })
    .unwrap();
    sim.run_ticks(2);
    assert_eq!(
        sim.snapshot().txq[1],
        4,
        "CPU 1 maps to TX queue 1 (two sockets, two ticks)"
    );
    sim.migrate_thread(t, 2).unwrap();
    sim.run_ticks(2);
    let s = sim.snapshot();
    // TCP re-selected with the new CPU at its next ooo_okay; connected UDP never sets ooo_okay.
    assert_eq!(s.txq[2], 2);
    assert_eq!(s.txq[1], 6);
    assert_eq!(s.counters.tx_queue_changes, 1);
}

#[test]
fn a_saturating_sender_is_bounded_by_its_cpu_and_bad_tx_specs_are_refused() {
    let mut sim = host(Driver::Generic, XpsMap::None);
    let t = thread(&mut sim, 6);
    let spec = |tx| FlowSpec {
        key: key(9, Proto::Udp),
        rate_pps: 0,
        bytes: 64,
        readers: vec![t],
        tx,
    };
    assert!(sim.add_flow(spec(None)).is_err(), "no RX and no TX");
    assert!(sim
        .add_flow(spec(Some(TxSpec {
            rate_pps: 0,
            bytes: 0,
            connected: false
        })))
        .is_err());
    assert!(sim
        .add_flow(FlowSpec {
            readers: vec![],
            ..spec(Some(TxSpec {
                rate_pps: 0,
                bytes: 1,
                connected: false
            }))
        })
        .is_err());
    sim.add_flow(spec(Some(TxSpec {
        rate_pps: 0,
        bytes: 1,
        connected: false,
    })))
    .unwrap();
    sim.advance_to(Nanos::from_ms(100));
    let s = sim.snapshot();
    let c = sim.config().costs;
    let per_msg = c.tx_send_ns + c.tx_pick_hash_ns;
    assert_eq!(
        s.counters.tx_messages,
        100_000_000 / per_msg,
        "one message per {per_msg} ns of CPU 6"
    );
    assert_eq!(s.counters.xps_hash_picks, s.counters.tx_messages);
    assert_eq!(s.cpus[6].sys_ns, s.counters.tx_messages * per_msg);
}

/// A send records the flow as a read does (`inet_sendmsg` -> `inet_send_prepare` ->
/// `sock_rps_record_flow`, net/ipv4/af_inet.c), once the socket has received (it has a flow
/// hash): a socket written from one thread's CPU and read from another's flips its
/// `rps_sock_flow_table` entry back and forth, which reads alone do only when the reader
/// changes.
#[test]
fn a_send_records_the_flow_so_a_socket_written_and_read_on_two_cpus_flips() {
    let run = |tx: Option<TxSpec>, rate_pps: u64| {
        let mut sim = Sim::new(HostConfig {
            cpus: 8,
            rx_queues: 4,
            tx_queues: 4,
            flow_cnt: 256,
            sock_flow_entries: 4096,
            ..HostConfig::default()
        })
        .unwrap();
        // The socket's first thread sends (from CPU 1); each tick's read is by one of the two.
        let (writer, reader) = (thread(&mut sim, 1), thread(&mut sim, 5));
        sim.add_flow(FlowSpec {
            key: key(1, Proto::Tcp),
            rate_pps,
            bytes: 1500,
            readers: vec![writer, reader],
            tx,
        })
        .unwrap();
        sim.run_ticks(100);
        sim.snapshot().counters.sock_flow_updates
    };
    let tx = Some(TxSpec {
        rate_pps: 1000,
        bytes: 100,
        connected: true,
    });
    let (reads_only, with_sends) = (run(None, 10_000), run(tx, 10_000));
    // Reads alone: a write when the tick's reader differs from the last (about half the
    // ticks); with sends, two in every tick the other thread reads (about 100).
    assert!(
        reads_only < 70 && with_sends > 80 && with_sends > reads_only + 30,
        "{reads_only} vs {with_sends}"
    );
    // A send-only socket never received: no flow hash, nothing recorded.
    assert_eq!(run(tx, 0), 0);
}
