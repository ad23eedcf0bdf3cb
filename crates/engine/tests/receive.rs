//! The receive path against the kernel rules it mirrors (kernel-semantics.md §1–§3).

use std::net::{IpAddr, Ipv4Addr};

use steerlab_engine::FlowKey;
use steerlab_engine::{CpuSet, Driver, FlowSpec, HostConfig, Idle, Kernel, Mode, Nanos, Proto, Sim, ThreadSpec};

fn key(i: u32, dport: u16) -> FlowKey {
    let src = IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i));
    FlowKey::new(
        src,
        IpAddr::V4(Ipv4Addr::new(192, 168, 0, 1)),
        10_000 + (i % 50_000) as u16,
        dport,
        Proto::Tcp,
    )
    .unwrap()
}

fn flow(k: FlowKey, readers: Vec<u32>) -> FlowSpec {
    FlowSpec {
        key: k,
        rate_pps: 10_000,
        bytes: 1500,
        readers,
        tx: None,
    }
}

fn pinned(cpu: u16) -> ThreadSpec {
    ThreadSpec {
        cpu,
        allowed: CpuSet::EMPTY,
        migrate_every: Nanos::ZERO,
    }
}

fn rfs_host(cpus: u16, driver: Driver) -> HostConfig {
    HostConfig {
        cpus,
        rx_queues: cpus,
        driver,
        ntuple: true,
        flow_cnt: 256,
        sock_flow_entries: 4096,
        ..HostConfig::default()
    }
}

#[test]
fn rss_only_sends_each_flow_to_its_table_queue_and_conserves_packets() {
    let mut sim = Sim::new(HostConfig::default()).unwrap();
    for i in 0..32 {
        sim.add_flow(flow(key(i, 80), vec![])).unwrap();
    }
    sim.advance_to(Nanos::from_ms(10));
    let s = sim.snapshot();
    assert_eq!(s.counters.offered, 32 * 100);
    assert_eq!(s.counters.delivered, s.counters.offered);
    assert!(sim.conserved());
    for f in 0..32 {
        let v = sim.flow_view(f).unwrap();
        assert_eq!(v.queue, sim.reta().queue(v.hash));
        assert_eq!(v.cpu, v.queue % 4, "no RPS: processed on the IRQ CPU");
    }
    assert_eq!(s.queues.iter().map(|q| q.packets).sum::<u64>(), 3200);
}

#[test]
fn rps_picks_the_cpu_with_the_high_bits_of_the_hash() {
    let cfg = HostConfig {
        rps_cpus: "0-3".into(),
        ..HostConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    for i in 0..16 {
        sim.add_flow(flow(key(i, 80), vec![])).unwrap();
    }
    sim.run_ticks(2);
    for f in 0..16 {
        let v = sim.flow_view(f).unwrap();
        assert_eq!(
            u32::from(v.cpu),
            ((u64::from(v.hash) * 4) >> 32) as u32,
            "reciprocal_scale(hash, 4)"
        );
    }
    assert!(sim.conserved());
}

#[test]
fn rfs_follows_the_reader_and_a_migration_one_tick_later() {
    let mut sim = Sim::new(rfs_host(8, Driver::Generic)).unwrap();
    let t = sim.add_thread(pinned(5)).unwrap();
    sim.add_flow(flow(key(1, 80), vec![t])).unwrap();
    sim.run_ticks(1); // first read records CPU 5
    sim.run_ticks(1);
    assert_eq!(sim.flow_view(0).unwrap().cpu, 5);
    sim.migrate_thread(t, 2).unwrap();
    sim.run_ticks(1); // still steered to 5 while the table says 5; the read records 2
    assert_eq!(sim.flow_view(0).unwrap().cpu, 5);
    sim.run_ticks(1);
    assert_eq!(sim.flow_view(0).unwrap().cpu, 2);
    assert!(sim.snapshot().counters.cpu_switches >= 2);
}

/// The in-order rule of get_rps_cpu: two flows sharing the one slot of the queue's flow table.
/// Flow 0 (1 Mpps) fills CPU 1's backlog with 600 µs of work at the start of each 1 ms tick;
/// flow 1 arrives half-way through the tick, finds the slot's last packets still queued on
/// CPU 1 and must follow it there. When flow 0 is light its packets are long processed by
/// then, and flow 1 moves the slot to its own reader's CPU.
#[test]
fn in_order_rule_blocks_a_switch_while_packets_are_in_flight() {
    let run = |rate_pps| {
        let cfg = HostConfig {
            cpus: 4,
            rx_queues: 1,
            flow_cnt: 1,
            sock_flow_entries: 4096,
            kernel: Kernel::V6_10,
            ..HostConfig::default()
        };
        let mut sim = Sim::new(cfg).unwrap();
        let a = sim.add_thread(pinned(1)).unwrap();
        let b = sim.add_thread(pinned(2)).unwrap();
        sim.add_flow(FlowSpec {
            rate_pps,
            ..flow(key(1, 80), vec![a])
        })
        .unwrap();
        sim.add_flow(flow(key(2, 80), vec![b])).unwrap();
        sim.run_ticks(3);
        assert!(sim.conserved());
        sim
    };
    let mut busy = run(1_000_000);
    assert_eq!(busy.flow_view(0).unwrap().cpu, 1);
    assert_eq!(
        busy.flow_view(1).unwrap().cpu,
        1,
        "flow 1 cannot switch the shared slot"
    );
    let light = run(10_000);
    assert_eq!(
        light.flow_view(1).unwrap().cpu,
        2,
        "flow 0's packets were processed: the slot moves"
    );
    // With a table big enough for both, each goes to its reader even under load.
    busy.set_flow_cnt(None, 4096).unwrap();
    busy.run_ticks(2);
    assert_eq!((busy.flow_view(0).unwrap().cpu, busy.flow_view(1).unwrap().cpu), (1, 2));
}

/// Seed 000 in miniature: more flows than ice's 1024 buckets, so flows share a bucket and a
/// flow_id. Hash-only matching re-points other flows' filters (an update storm, packets on
/// wrong queues); the full-tuple match does not, and counts the wrong matches it avoided.
#[test]
fn ice_hash_match_storm_versus_full_tuple_match() {
    for kernel in [Kernel::V6_10, Kernel::V6_15] {
        ice_storm(kernel);
    }
}

fn ice_storm(kernel: Kernel) {
    let run = |driver| {
        // Seed 000's proportions: readers on half the CPUs, ~0.44 flows per slot of a target
        // queue's table, many flows per ice bucket.
        let cfg = HostConfig {
            flow_cnt: 512,
            sock_flow_entries: 64 * 512,
            kernel,
            tick_ns: 10_000_000,
            ..rfs_host(64, driver)
        };
        let mut sim = Sim::new(cfg).unwrap();
        for c in 0..32 {
            sim.add_thread(pinned(c)).unwrap();
        }
        for i in 0..7264 {
            sim.add_flow(FlowSpec {
                rate_pps: 200,
                ..flow(key(i, 80), vec![i % 32])
            })
            .unwrap();
        }
        sim.advance_to(Nanos::from_secs(10));
        assert!(sim.conserved());
        sim.snapshot()
    };
    let bad = run(Driver::IceHashMatch);
    let good = run(Driver::Ice);
    assert!(
        bad.arfs.update > 50 * (good.arfs.update + 1),
        "{kernel}: updates {} vs {}",
        bad.arfs.update,
        good.arfs.update
    );
    assert_eq!(bad.arfs.misprogram_avoided, 0);
    assert!(good.arfs.misprogram_avoided > 0);
    // A re-pointed filter sends its flow to another flow's queue; pinned readers never make a
    // correct filter point the wrong way.
    assert!(
        bad.counters.arfs_missteered > 1000,
        "{kernel}: missteered {}",
        bad.counters.arfs_missteered
    );
    assert_eq!(good.counters.arfs_missteered, 0);
    if kernel == Kernel::V6_15 {
        // hash_32 slots: only the flows of a bucket that also share a slot collide.
        return;
    }
    // Seed 000's measure: packets on queues whose CPU runs no reader ("bad" queues 32-63).
    let on_bad_queues = |s: &steerlab_engine::Snapshot| s.queues[32..].iter().map(|q| q.packets).sum::<u64>();
    let (b, g) = (on_bad_queues(&bad), on_bad_queues(&good));
    assert!(b > 2 * g, "packets on reader-less queues {b} vs {g}");
    assert!(
        bad.counters.remote > 3 * good.counters.remote / 2,
        "remote {} vs {}",
        bad.counters.remote,
        good.counters.remote
    );
}

fn churn(mode: Mode, seed: u64, driver: Driver, kernel: Kernel) -> Sim {
    let cfg = HostConfig {
        cpus: 8,
        numa_nodes: 2,
        rx_queues: 8,
        driver,
        kernel,
        ntuple: true,
        flow_cnt: 32,
        sock_flow_entries: 256,
        rps_cpus: "0-7".into(),
        netdev_max_backlog: 50,
        ring_size: Some(64),
        tick_ns: 100_000,
        mode,
        seed,
        ..HostConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    for c in 0..6 {
        let every = Nanos::from_us(300 + 100 * u64::from(c));
        sim.add_thread(ThreadSpec {
            cpu: c,
            allowed: CpuSet::range(0, 8),
            migrate_every: every,
        })
        .unwrap();
    }
    for i in 0..60 {
        let rate = 20_000 + u64::from(i) * 7_000;
        sim.add_flow(FlowSpec {
            key: key(i, 443),
            rate_pps: rate,
            bytes: 800,
            readers: vec![i % 6, (i + 1) % 6],
            tx: None,
        })
        .unwrap();
    }
    sim
}

#[test]
fn packet_and_aggregate_modes_give_the_same_counters_and_digest() {
    for (driver, kernel) in [
        (Driver::IceHashMatch, Kernel::V6_10),
        (Driver::Ice, Kernel::V6_18),
        (Driver::Mlx5, Kernel::V6_18),
        (Driver::Generic, Kernel::V6_10),
    ] {
        let mut a = churn(Mode::Packet, 7, driver, kernel);
        let mut b = churn(Mode::Aggregate, 7, driver, kernel);
        for _ in 0..40 {
            a.run_ticks(5);
            b.run_ticks(5);
            assert_eq!(a.snapshot(), b.snapshot(), "{driver} {kernel} at {}", a.now());
        }
        let s = b.snapshot();
        assert!(
            s.counters.backlog_full + s.counters.ring_full > 0,
            "{driver}: the scenario exercises drops"
        );
        assert!(s.counters.cpu_switches > 0);
    }
}

#[test]
fn same_seed_same_digest_other_seed_other_digest() {
    let run = |seed| {
        let mut s = churn(Mode::Aggregate, seed, Driver::Mlx5, Kernel::V6_18);
        s.run_ticks(100);
        s.snapshot().digest
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
}

#[test]
fn refused_commands_change_nothing() {
    let mut sim = churn(Mode::Aggregate, 1, Driver::Ice, Kernel::V6_18);
    sim.run_ticks(3);
    let before = sim.snapshot();
    assert!(sim
        .add_flow(FlowSpec {
            rate_pps: 0,
            ..flow(key(999, 1), vec![])
        })
        .is_err());
    assert!(sim.add_flow(flow(key(0, 443), vec![])).is_err(), "duplicate tuple");
    assert!(sim.add_flow(flow(key(1000, 1), vec![77])).is_err(), "unknown reader");
    assert!(sim.migrate_thread(0, 8).is_err());
    assert!(sim.migrate_thread(99, 0).is_err());
    assert!(sim.set_flow_cnt(Some(8), 16).is_err());
    assert!(sim.set_flow_cnt(None, 1 << 20).is_err());
    assert!(sim.set_sock_flow_entries(1 << 30).is_err());
    assert!(sim.set_rps_cpus(None, CpuSet::range(0, 9)).is_err());
    assert_eq!(sim.snapshot(), before);
    assert_eq!(sim.flow_count(), 60);
}

#[test]
fn configs_out_of_range_name_the_field() {
    for (cfg, field) in [
        (
            HostConfig {
                cpus: 0,
                ..HostConfig::default()
            },
            "host.cpus",
        ),
        (
            HostConfig {
                cpus: 1025,
                ..HostConfig::default()
            },
            "host.cpus",
        ),
        (
            HostConfig {
                rx_queues: 513,
                ..HostConfig::default()
            },
            "nic.rx_queues",
        ),
        (
            HostConfig {
                reta_size: 100,
                ..HostConfig::default()
            },
            "nic.reta_size",
        ),
        (
            HostConfig {
                flow_cnt: 2_000_000,
                ..HostConfig::default()
            },
            "rfs.flow_cnt",
        ),
        (
            HostConfig {
                numa_nodes: 3,
                ..HostConfig::default()
            },
            "host.numa_nodes",
        ),
        (
            HostConfig {
                rps_cpus: "0-9".into(),
                ..HostConfig::default()
            },
            "rps.cpus",
        ),
    ] {
        let err = Sim::new(cfg).unwrap_err().to_string();
        assert!(err.starts_with(field), "{err}");
    }
}

/// The page splits heavy ticks across frames: any split gives the same results.
#[test]
fn split_ticks_give_the_same_results() {
    let mut a = churn(Mode::Aggregate, 5, Driver::Mlx5, Kernel::V6_18);
    let mut b = churn(Mode::Aggregate, 5, Driver::Mlx5, Kernel::V6_18);
    for i in 0..30u32 {
        a.tick();
        let mut parts = 0;
        while !b.tick_part(1 + i % 7) {
            parts += 1;
            assert!(b.in_tick());
        }
        assert!(parts > 0 && !b.in_tick());
        assert_eq!(a.snapshot(), b.snapshot(), "tick {i}");
    }
}

/// The trace explains the path the engine takes, without changing anything.
#[test]
fn flow_trace_explains_the_path_and_changes_nothing() {
    let mut sim = Sim::new(rfs_host(8, Driver::Generic)).unwrap();
    let t = sim.add_thread(pinned(5)).unwrap();
    sim.add_flow(flow(key(1, 80), vec![t])).unwrap();
    let tr = sim.trace_flow(0).unwrap();
    assert_eq!(
        tr.hash,
        steerlab_engine::toeplitz::toeplitz_bitwise(sim.rss_key(), &tr.hash_input)
    );
    assert_eq!((tr.fields.as_str(), tr.hash_input.len()), ("sdfn", 12));
    assert_eq!(tr.queue, tr.reta_queue);
    assert!(tr.queue_why.starts_with("RSS"), "{}", tr.queue_why);
    sim.run_ticks(2);
    let before = sim.snapshot();
    let tr = sim.trace_flow(0).unwrap();
    assert_eq!((tr.rps_cpu, tr.reader_cpu), (Some(5), Some(5)));
    assert!(tr.rps_why.starts_with("RFS"), "{}", tr.rps_why);
    assert_eq!(sim.snapshot(), before);
    assert!(sim.trace_flow(1).is_none());
}

#[test]
fn a_full_ntuple_table_and_channel_changes_are_refused_cleanly() {
    let mut sim = Sim::new(HostConfig {
        ntuple: true,
        ..HostConfig::default()
    })
    .unwrap();
    for i in 0..1024 {
        let rule = steerlab_engine::NtupleRule {
            loc: u32::MAX,
            flow_type: steerlab_engine::FlowType::Tcp4,
            src: None,
            dst: None,
            sport: Some(i as u16),
            dport: None,
            queue: 3,
            masks: Default::default(),
        };
        sim.add_ntuple(rule).unwrap();
    }
    let rule = steerlab_engine::NtupleRule {
        loc: u32::MAX,
        flow_type: steerlab_engine::FlowType::Tcp4,
        src: None,
        dst: None,
        sport: Some(5000),
        dport: None,
        queue: 1,
        masks: Default::default(),
    };
    assert!(sim
        .add_ntuple(rule)
        .unwrap_err()
        .to_string()
        .contains("Cannot find appropriate slot"));
    let before = sim.snapshot();
    assert!(sim.set_channels(2).unwrap_err().to_string().contains("delete it first"));
    assert_eq!(sim.snapshot(), before);
    assert_eq!(sim.config().rx_queues, 4);
}

/// A flow table without the socket table (RFS half-configured) neither panics nor pretends.
#[test]
fn trace_with_a_flow_table_but_no_sock_table() {
    let cfg = HostConfig {
        flow_cnt: 256,
        sock_flow_entries: 0,
        ..HostConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.add_flow(flow(key(3, 80), vec![])).unwrap();
    sim.run_ticks(1);
    let tr = sim.trace_flow(0).unwrap();
    assert_eq!(tr.rps_cpu, None);
    assert!(tr.rps_why.contains("RFS is off"), "{}", tr.rps_why);
    assert_eq!(sim.flow_view(0).unwrap().cpu, tr.irq_cpu);
}

/// `ice_rx_flow_steer` schedules the service task, which runs at once: its walk makes the entry
/// ACTIVE and its hardware write lands `arfs_hw_update_ns` later. Until then the flow still
/// arrives on its RSS queue, RFS moves each packet to the reader, and every further call is a
/// "skip" (up to 6.17.7).
#[test]
fn an_ice_filter_steers_only_once_the_service_task_wrote_it() {
    // A flow whose RSS queue is not 6 (the host's own choice, asked of a probe host).
    let mut probe = Sim::new(rfs_host(8, Driver::Ice)).unwrap();
    let k = (0..)
        .map(|i| key(i, 80))
        .find(|&k| {
            let id = probe.add_flow(flow(k, vec![])).unwrap();
            probe.flow_queue_now(id) != Some(6)
        })
        .unwrap();
    for kernel in [Kernel::V6_15, Kernel::V6_18] {
        let cfg = HostConfig {
            tick_ns: 1_000_000,
            kernel,
            ..rfs_host(8, Driver::Ice)
        };
        let mut sim = Sim::new(cfg).unwrap();
        let t = sim.add_thread(pinned(6)).unwrap();
        sim.add_flow(flow(k, vec![t])).unwrap();
        sim.run_ticks(1); // the read records CPU 6; the second half calls the driver: add
        let s = sim.snapshot();
        assert_eq!(s.arfs.add, 1);
        if kernel == Kernel::V6_15 {
            // The RSS queue's entry never learns the CPU (set_rps_cpu returned the target
            // queue's entry): every later packet calls the driver again and skips.
            assert!(s.arfs.skip > 0, "packets after the add, before the service task: skips");
        } else {
            // 6.18: the target slot holds this flow's live filter: no call at all.
            assert_eq!(s.arfs.skip, 0, "the active-flow check avoids the calls");
        }
        assert_ne!(sim.flow_view(0).unwrap().queue, 6, "{kernel}: not programmed yet");
        assert_eq!(
            sim.flow_view(0).unwrap().cpu,
            6,
            "RFS already moves the packets to the reader"
        );
        // The run starts at the next point the tick checks (its end: one flow), writes for
        // 5 us, and the hardware steers from the tick after.
        sim.run_ticks(2);
        assert_eq!(
            sim.flow_view(0).unwrap().queue,
            6,
            "{kernel}: written by the service task, no 10 ms wait"
        );
        let calls = sim.snapshot().arfs;
        sim.run_ticks(3);
        assert_eq!(sim.snapshot().arfs, calls, "on its reader's queue: no more calls");
        assert!(sim.conserved());
    }
}

/// Two flows whose hashes share one `rps_sock_flow_table` entry: on a host their reads
/// interleave, so each finds its own record for about half of its packets. The reader's read
/// falls in the middle of each flow's burst: the first half sees the other flow's record (no
/// RFS, processed on the IRQ CPU), the second half its own (steered to the reader).
#[test]
fn flows_sharing_a_sock_entry_each_get_rfs_for_half_their_packets() {
    let cfg = HostConfig {
        cpus: 4,
        rx_queues: 1,
        flow_cnt: 1024,
        sock_flow_entries: 1,
        ..HostConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    let a = sim.add_thread(pinned(2)).unwrap();
    let b = sim.add_thread(pinned(3)).unwrap();
    sim.add_flow(flow(key(1, 80), vec![a])).unwrap();
    sim.add_flow(flow(key(2, 80), vec![b])).unwrap();
    sim.run_ticks(1);
    let before = sim.snapshot().counters;
    let ticks = 10;
    sim.run_ticks(ticks);
    let c = sim.snapshot().counters;
    let (local, remote) = (c.local - before.local, c.remote - before.remote);
    assert_eq!(
        local, remote,
        "half of each burst on the reader's CPU, half on the IRQ CPU (0)"
    );
    assert_eq!(
        c.sock_flow_updates - before.sock_flow_updates,
        2 * ticks,
        "the entry changes hands at every read of each flow"
    );
    assert!(sim.conserved());
}

/// `enqueue_to_backlog` schedules a remote backlog, and so sends an IPI, only when that CPU
/// had emptied its backlog (NAPI_STATE_SCHED cleared by `process_backlog`): two flows steered
/// to CPU 2 half a tick apart cost two IPIs when the first one's packets are long processed,
/// one when they are still queued.
#[test]
fn an_ipi_only_wakes_an_idle_remote_backlog() {
    let ipis_per_tick = |rate_pps| {
        let cfg = HostConfig {
            cpus: 4,
            rx_queues: 1,
            flow_cnt: 1024,
            sock_flow_entries: 4096,
            tick_ns: 1_000_000,
            ..HostConfig::default()
        };
        let mut sim = Sim::new(cfg).unwrap();
        let t = sim.add_thread(pinned(2)).unwrap();
        sim.add_flow(FlowSpec {
            rate_pps,
            ..flow(key(1, 80), vec![t])
        })
        .unwrap();
        sim.add_flow(FlowSpec {
            rate_pps: 10_000,
            ..flow(key(2, 80), vec![t])
        })
        .unwrap();
        sim.run_ticks(2); // both steered to CPU 2 by RFS
        let before = sim.snapshot().counters.backlog_wakes;
        sim.run_ticks(10);
        assert!(sim.conserved());
        (sim.snapshot().counters.backlog_wakes - before) / 10
    };
    // 10 packets at 600 ns each are done long before the second flow arrives half a tick later.
    assert_eq!(ipis_per_tick(10_000), 2);
    // 1,000 packets (600 µs of work) are still queued at half a tick: the backlog is awake.
    assert_eq!(ipis_per_tick(1_000_000), 1);
}

/// A remote backlog woken by RPS counts `received_rps` on its CPU either way, but the wake-up
/// is an IPI (and costs one) only when idle CPUs halt: `call_function_single_prep_ipi` sends
/// none to a polling idle CPU (kernel/sched/core.c).
#[test]
fn a_backlog_wakeup_sends_an_ipi_only_to_a_halted_cpu() {
    let run = |idle: Idle| {
        let mut sim = Sim::new(HostConfig {
            cpus: 4,
            rx_queues: 1,
            rps_cpus: "2".into(),
            idle,
            ..HostConfig::default()
        })
        .unwrap();
        sim.add_flow(flow(key(1, 80), vec![])).unwrap();
        sim.run_ticks(20);
        sim.snapshot()
    };
    let (poll, halt) = (run(Idle::Poll), run(Idle::Halt));
    for s in [&poll, &halt] {
        assert!(s.counters.backlog_wakes > 0);
        assert_eq!(s.cpus[2].received_rps, s.counters.backlog_wakes);
    }
    assert_eq!(poll.counters.backlog_wakes, halt.counters.backlog_wakes);
    assert_eq!((poll.counters.ipis, stage_ns(&poll, "ipi")), (0, 0));
    assert_eq!(halt.counters.ipis, halt.counters.backlog_wakes);
    assert_eq!(stage_ns(&halt, "ipi"), halt.counters.ipis * 1500);
}

/// A batch of flows is added whole or not at all.
#[test]
fn add_flows_is_all_or_nothing() {
    let mut sim = Sim::new(HostConfig::default()).unwrap();
    sim.add_flow(flow(key(1, 80), vec![])).unwrap();
    let before = sim.snapshot();
    for bad in [
        vec![flow(key(2, 80), vec![]), flow(key(2, 80), vec![])],
        vec![flow(key(3, 80), vec![]), flow(key(1, 80), vec![])],
        vec![flow(key(4, 80), vec![7])],
    ] {
        assert!(sim.add_flows(bad).is_err());
        assert_eq!(
            (sim.flow_count(), sim.snapshot()),
            (1, before.clone()),
            "refused: nothing added"
        );
    }
    assert_eq!(
        sim.add_flows(vec![flow(key(2, 80), vec![]), flow(key(3, 80), vec![])])
            .unwrap(),
        1..3
    );
    assert!(sim.has_flow(&key(3, 80)) && !sim.has_flow(&key(4, 80)));
}

/// A snapshot (a clone, as the page's history keeps) shares the tuple index with its host
/// until one of them adds a flow: each then sees only its own flows.
#[test]
fn a_snapshot_and_its_host_add_flows_apart() {
    let mut sim = Sim::new(HostConfig::default()).unwrap();
    sim.add_flow(flow(key(1, 80), vec![])).unwrap();
    let mut snap = sim.clone();
    sim.add_flow(flow(key(2, 80), vec![])).unwrap();
    snap.add_flow(flow(key(3, 80), vec![])).unwrap();
    assert!(sim.has_flow(&key(1, 80)) && sim.has_flow(&key(2, 80)) && !sim.has_flow(&key(3, 80)));
    assert!(snap.has_flow(&key(1, 80)) && snap.has_flow(&key(3, 80)) && !snap.has_flow(&key(2, 80)));
    assert!(sim.add_flow(flow(key(2, 80), vec![])).is_err() && snap.add_flow(flow(key(2, 80), vec![])).is_ok());
}

/// `_sock_rps_record_flow` (include/net/rps.h) records only a socket in `TCP_ESTABLISHED`: a TCP
/// connection or a connected UDP socket. An unconnected UDP server socket never writes
/// `rps_sock_flow_table`, so RFS cannot follow its reader; a connected one is followed.
#[test]
fn rfs_records_only_established_sockets() {
    let udp = |i: u32| {
        FlowKey::new(
            IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i)),
            IpAddr::V4(Ipv4Addr::new(192, 168, 0, 1)),
            5000,
            53,
            Proto::Udp,
        )
        .unwrap()
    };
    let run = |spec: FlowSpec| {
        let mut sim = Sim::new(HostConfig {
            driver: Driver::Generic,
            ..rfs_host(4, Driver::Generic)
        })
        .unwrap();
        sim.add_thread(pinned(3)).unwrap();
        sim.add_flow(spec).unwrap();
        sim.run_ticks(20);
        (sim.snapshot().counters.sock_flow_updates, sim.flow_view(0).unwrap())
    };
    let (updates, view) = run(flow(udp(1), vec![0]));
    assert_eq!(updates, 0, "an unconnected UDP socket is not recorded");
    assert_eq!(
        view.cpu,
        view.queue % 4,
        "no record, no RPS map: processed on the IRQ CPU"
    );
    let connected = steerlab_engine::TxSpec {
        rate_pps: 1,
        bytes: 100,
        connected: true,
    };
    let (updates, view) = run(FlowSpec {
        tx: Some(connected),
        ..flow(udp(1), vec![0])
    });
    assert!(updates > 0, "a connected UDP socket is recorded");
    assert_eq!(view.cpu, 3, "RFS follows its reader");
    let (updates, view) = run(flow(key(1, 80), vec![0]));
    assert!(updates > 0 && view.cpu == 3, "TCP is recorded and followed");
}

/// `enqueue_to_backlog` (net/core/dev.c) takes a packet while the target backlog's `qlen <=
/// netdev_max_backlog`, counted at the enqueue: a burst into an idle backlog is taken up to
/// `netdev_max_backlog + 1` packets and the rest dropped. (The sandbox's flows deliver a
/// tick's packets together, so a flow faster than that per tick overflows on its own.)
#[test]
fn a_backlog_takes_packets_while_qlen_is_at_most_netdev_max_backlog() {
    let cfg = HostConfig {
        cpus: 2,
        rx_queues: 1,
        rps_cpus: "1".into(),
        netdev_max_backlog: 100,
        ..HostConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.add_flow(FlowSpec {
        rate_pps: 300_000,
        ..flow(key(1, 80), vec![])
    })
    .unwrap();
    sim.run_ticks(1);
    let c = sim.snapshot().counters;
    assert_eq!((c.offered, c.backlog_full, c.flow_limit), (300, 199, 0));
    assert!(sim.conserved());
}

/// `skb_flow_limit`: from half full on, the enqueuing CPU (the queue's IRQ CPU, when it is in
/// `flow_limit_cpu_bitmap`) drops the packets of a flow holding more than 64 of its last 128
/// samples. A heavy flow sharing a backlog with light ones loses packets; the light ones do not.
#[test]
fn the_flow_limit_drops_the_heavy_flow_not_the_light_ones() {
    let run = |limit: &str| {
        let cfg = HostConfig {
            cpus: 2,
            rx_queues: 1,
            rps_cpus: "1".into(),
            netdev_max_backlog: 100,
            flow_limit_cpus: limit.into(),
            ..HostConfig::default()
        };
        let mut sim = Sim::new(cfg).unwrap();
        sim.add_flow(FlowSpec {
            rate_pps: 90_000,
            ..flow(key(0, 80), vec![])
        })
        .unwrap();
        for i in 1..40 {
            sim.add_flow(FlowSpec {
                rate_pps: 1_000,
                ..flow(key(i, 80), vec![])
            })
            .unwrap();
        }
        sim.run_ticks(20);
        assert!(sim.conserved());
        let light_dropped = (1..40).filter(|&f| sim.flow_view(f).unwrap().dropped.is_some()).count();
        (sim.snapshot(), light_dropped)
    };
    let (off, _) = run("");
    assert_eq!(off.counters.flow_limit, 0);
    let (on, light_dropped) = run("0");
    assert!(on.counters.flow_limit > 0, "the heavy flow is limited");
    assert_eq!(
        on.cpus[0].flow_limit_count, on.counters.flow_limit,
        "counted on the enqueuing CPU"
    );
    assert_eq!(
        on.cpus[1].dropped, on.counters.backlog_full,
        "and as drops of the target backlog"
    );
    assert_eq!(light_dropped, 0, "light flows keep every packet");
}

/// ice's `arfs_lock`: the service task holds it for its whole walk of the list, and every
/// `ice_rx_flow_steer` takes it, so calls that land during a walk spin (softirq time). A host
/// with no walk long enough to matter (a cost of 0 per entry) books no wait at all.
#[test]
fn ice_calls_wait_behind_the_service_tasks_walk() {
    let run = |entry_ns: u64| {
        let mut cfg = HostConfig {
            tick_ns: 100_000,
            ..rfs_host(8, Driver::IceHashMatch)
        };
        cfg.costs.ice_sync_entry_ns = entry_ns;
        let mut sim = Sim::new(cfg).unwrap();
        for c in 0..8 {
            sim.add_thread(ThreadSpec {
                cpu: c,
                allowed: CpuSet::range(0, 8),
                migrate_every: Nanos::from_us(300),
            })
            .unwrap();
        }
        for i in 0..400 {
            sim.add_flow(flow(key(i, 443), vec![i % 8])).unwrap();
        }
        sim.run_ticks(200);
        sim.snapshot()
    };
    let (none, some) = (run(0), run(200));
    assert_eq!(none.counters.arfs_lock_wait_ns, 0);
    assert!(
        some.arfs.add + some.arfs.update > 0 && some.counters.arfs_lock_wait_ns > 0,
        "calls met walks"
    );
    let lock = some
        .ledger
        .iter()
        .find(|(s, _)| s.name() == "arfs_lock")
        .map_or(0, |(_, ns)| ns);
    assert_eq!(
        lock, some.counters.arfs_lock_wait_ns,
        "the wait is booked as the arfs_lock stage"
    );
}

/// A slow flow's last packet may predate its filter: "sent by a wrong filter" is about the
/// queue the filter picks, not where the last packet landed.
#[test]
fn a_fresh_filter_on_the_readers_queue_is_not_a_wrong_one() {
    let mut probe = Sim::new(rfs_host(8, Driver::Ice)).unwrap();
    let k = (0..).map(|i| key(i, 80)).find(|&k| {
        let id = probe.add_flow(flow(k, vec![])).unwrap();
        probe.flow_queue_now(id) != Some(6)
    });
    let mut sim = Sim::new(rfs_host(8, Driver::Ice)).unwrap();
    let t = sim.add_thread(pinned(6)).unwrap();
    sim.add_flow(FlowSpec {
        rate_pps: 200,
        ..flow(k.unwrap(), vec![t])
    })
    .unwrap();
    let mut checked = false;
    for _ in 0..40 {
        sim.run_ticks(1);
        let v = sim.flow_view(0).unwrap();
        if v.rule == steerlab_engine::QueueRule::Arfs && v.queue != 6 {
            assert_eq!(v.rule_queue, 6);
            assert!(!v.by_wrong_filter(), "the filter points at the reader's queue");
            checked = true;
        }
    }
    assert!(
        checked,
        "a tick came between the filter's write and the flow's next packet"
    );
}

/// `smp_affinity_list`: a queue's packets are polled on the CPU its vector moved to, and a
/// refused mask changes nothing.
#[test]
fn an_irq_moved_takes_its_queues_poll_with_it() {
    let mut sim = Sim::new(HostConfig {
        cpus: 8,
        ..HostConfig::default()
    })
    .unwrap();
    for i in 0..32 {
        sim.add_flow(flow(key(i, 80), vec![])).unwrap();
    }
    sim.set_irq_affinity(1, CpuSet::parse_list("6-7").unwrap()).unwrap();
    assert_eq!(
        (sim.irq_cpu(1), sim.irq_affinity(1).unwrap().to_list()),
        (Some(6), "6-7".to_string())
    );
    sim.run_ticks(2);
    for f in 0..32 {
        let v = sim.flow_view(f).unwrap();
        assert_eq!(
            v.cpu,
            if v.queue == 1 { 6 } else { v.queue },
            "flow {f} on queue {}",
            v.queue
        );
    }
    // A mask of several CPUs: the one with the fewest of the NIC's vectors (CPUs 0, 2, 3 hold
    // queues 0, 2, 3; queue 1's own vector does not count), as matrix_find_best_cpu picks.
    sim.set_irq_affinity(1, CpuSet::parse_list("0-3").unwrap()).unwrap();
    assert_eq!(sim.irq_cpu(1), Some(1));
    sim.set_irq_affinity(1, CpuSet::parse_list("6-7").unwrap()).unwrap();
    let before = sim.snapshot();
    assert!(sim.set_irq_affinity(1, CpuSet::parse_list("9").unwrap()).is_err());
    assert!(sim.set_irq_affinity(1, CpuSet::EMPTY).is_err());
    assert!(sim.set_irq_affinity(4, CpuSet::parse_list("1").unwrap()).is_err());
    assert_eq!((sim.snapshot(), sim.irq_cpu(1)), (before, Some(6)));
    assert!(sim.conserved());
}

/// A closed connection offers nothing more, but what the kernel keeps of it stays: its aRFS
/// filter lingers until the driver's expiry finds its slot gone quiet (`rps_may_expire_flow`
/// once 10 × mask packets went through the CPU's backlog since its last one). Its tuple stays
/// taken (TIME_WAIT); a second close, or a flow that does not exist, changes nothing.
#[test]
fn a_closed_flow_stops_and_its_filter_expires_in_the_kernel_s_own_time() {
    let cfg = HostConfig {
        tick_ns: 1_000_000,
        ..rfs_host(8, Driver::Ice)
    };
    let mut sim = Sim::new(cfg).unwrap();
    let t = sim.add_thread(pinned(6)).unwrap();
    let (a, b) = (key(1, 80), key(2, 80));
    sim.add_flow(flow(a, vec![t])).unwrap();
    sim.add_flow(flow(b, vec![t])).unwrap();
    sim.run_ticks(5);
    let on_queue_6 = |sim: &Sim| sim.arfs_filters().iter().filter(|f| f.queue == 6).count();
    assert_eq!(on_queue_6(&sim), 2, "both flows steered to their reader's queue");
    sim.close_flow(0, false).unwrap();
    assert!(sim.flow_closed(0) && sim.has_flow(&a));
    let sent = sim.flows_sent().next().unwrap();
    let expired = sim.snapshot().arfs.expire;
    sim.run_ticks(20);
    assert_eq!(sim.flows_sent().next(), Some(sent), "a closed flow offers nothing");
    assert_eq!(
        on_queue_6(&sim),
        2,
        "20 ms on, its filter is still there: 200 packets are not 10 x 255"
    );
    sim.run_ticks(2_000);
    assert!(sim.snapshot().arfs.expire > expired, "expired once its slot went quiet");
    assert_eq!(on_queue_6(&sim), 1, "only the open flow's filter is left");
    assert!(sim.conserved());
    // Refused, and nothing changes.
    let before = sim.snapshot();
    assert!(sim
        .close_flow(0, false)
        .unwrap_err()
        .to_string()
        .contains("already closed"));
    assert!(sim.close_flow(9, false).unwrap_err().to_string().contains("no flow 9"));
    assert!(sim.snapshot() == before);
    assert!(sim
        .add_flow(flow(a, vec![t]))
        .unwrap_err()
        .to_string()
        .contains("TIME_WAIT"));
    assert!(sim.snapshot() == before);
}

/// The ledger's nanoseconds of stage `name`.
fn stage_ns(s: &steerlab_engine::Snapshot, name: &str) -> u64 {
    s.ledger
        .iter()
        .find(|(st, _)| st.name() == name)
        .map_or(0, |(_, ns)| ns)
}

/// A reader that sleeps between its packets wakes for each one when its packets come further
/// apart than the queue's interrupts (the sandbox's generic NIC has no moderation), whatever
/// the tick length. A wake-up from another CPU costs that CPU an IPI only when the reader's
/// idle CPU does not poll (`host.idle = halt`): `call_function_single_prep_ipi` sends none to
/// a polling CPU.
#[test]
fn a_sleeping_reader_wakes_once_a_poll_and_an_ipi_only_reaches_a_halted_cpu() {
    let run = |tick_ns: u64, idle: Idle| {
        let mut sim = Sim::new(HostConfig {
            tick_ns,
            idle,
            ..HostConfig::default()
        })
        .unwrap();
        for c in 0..4 {
            sim.add_thread(pinned(c)).unwrap();
        }
        for i in 0..32 {
            sim.add_flow(flow(key(i, 80), vec![i % 4])).unwrap();
        }
        sim.advance_to(Nanos::from_ms(200));
        sim.snapshot()
    };
    let costs = steerlab_engine::costs::Costs::default();
    let (fine, coarse) = (run(1_000_000, Idle::Halt), run(100_000_000, Idle::Halt));
    for s in [&fine, &coarse] {
        let c = &s.counters;
        assert_eq!(c.delivered, 32 * 10_000 / 5, "10,000 pps for 200 ms");
        assert!(
            c.remote > 0 && c.local > 0,
            "RSS puts some flows on their reader's CPU, some not"
        );
        assert_eq!(
            c.remote_wakeups, c.remote,
            "every packet processed away from its reader is in a poll of its own and wakes it"
        );
        assert_eq!(c.wake_ipis, c.remote_wakeups, "a halted CPU needs an IPI for each");
        assert_eq!(stage_ns(s, "wake_ipi"), c.wake_ipis * costs.ipi_ns);
        assert_eq!(
            stage_ns(s, "app_read") + stage_ns(s, "sys_read"),
            c.delivered * costs.app_read_ns,
            "a read a packet"
        );
    }
    assert_eq!(
        fine.counters.remote_wakeups, coarse.counters.remote_wakeups,
        "reads do not depend on the tick"
    );
    assert_eq!(stage_ns(&fine, "app_read"), stage_ns(&coarse, "app_read"));
    let polled = run(1_000_000, Idle::Poll);
    assert_eq!(polled.counters.remote_wakeups, fine.counters.remote_wakeups);
    assert_eq!(
        (polled.counters.wake_ipis, stage_ns(&polled, "wake_ipi")),
        (0, 0),
        "a polling idle CPU sees its wake-up without an IPI"
    );
}

/// A flow faster than its queue's interrupts shares each poll's wake-up: with `rx-usecs` 50
/// (20,000 polls a second) a 40,000 pps flow wakes its sleeping reader 20,000 times a second,
/// in packet and aggregate modes and at any tick alike.
#[test]
fn interrupt_moderation_batches_the_wake_ups_of_a_fast_flow() {
    let run = |tick_ns: u64, mode: Mode, rx_usecs: Option<u32>| {
        let mut sim = Sim::new(HostConfig {
            tick_ns,
            mode,
            rx_usecs,
            idle: Idle::Halt,
            ..HostConfig::default()
        })
        .unwrap();
        sim.add_thread(pinned(0)).unwrap();
        let i = (0..64)
            .find(|&i| {
                let mut probe = Sim::new(HostConfig::default()).unwrap();
                probe.add_flow(flow(key(i, 80), vec![])).unwrap();
                probe.run_ticks(1);
                probe.flow_view(0).unwrap().cpu != 0
            })
            .expect("a tuple that RSS sends away from CPU 0");
        sim.add_flow(FlowSpec {
            rate_pps: 40_000,
            ..flow(key(i, 80), vec![0])
        })
        .unwrap();
        sim.advance_to(Nanos::from_ms(100));
        sim.snapshot().counters
    };
    let every = run(1_000_000, Mode::Aggregate, Some(0));
    assert_eq!(
        (every.remote, every.remote_wakeups),
        (4_000, 4_000),
        "no moderation: a poll a packet"
    );
    let batched = run(1_000_000, Mode::Aggregate, Some(50));
    assert_eq!(batched.remote_wakeups, 2_000, "20,000 polls a second for 100 ms");
    assert_eq!(batched.wake_ipis, batched.remote_wakeups);
    assert_eq!(
        run(100_000, Mode::Packet, Some(50)),
        batched,
        "packet mode, 100 us ticks"
    );
    assert_eq!(run(100_000_000, Mode::Aggregate, Some(50)), batched, "one 100 ms tick");
    // 30 us: 33,333 polls a second do not divide 40,000 pps; the remainder is carried.
    assert_eq!(run(1_000_000, Mode::Aggregate, Some(30)).remote_wakeups, 3_333);
}

/// A reader whose packets come faster than it reads never sleeps: no wakeups, and its reads
/// take at most its time.
#[test]
fn a_reader_busier_than_its_packets_never_sleeps() {
    // A stack of 200 ns a packet, so that one queue's poll takes 4 Mpps (at the default
    // 600 ns it takes about 1.56 Mpps, and drops the rest).
    let mut cfg = HostConfig::default();
    cfg.costs.stack_rx_ns = 200;
    let mut sim = Sim::new(cfg).unwrap();
    sim.add_thread(pinned(0)).unwrap();
    // 2 Mpps against 800 ns a read: 1.6 s of reading a second if each packet were a read.
    let f = (0..64).find(|&i| {
        let mut probe = Sim::new(HostConfig::default()).unwrap();
        probe.add_flow(flow(key(i, 80), vec![])).unwrap();
        probe.run_ticks(1);
        probe.flow_view(0).unwrap().cpu != 0
    });
    let i = f.expect("a tuple that RSS sends away from CPU 0");
    sim.add_flow(FlowSpec {
        rate_pps: 2_000_000,
        ..flow(key(i, 80), vec![0])
    })
    .unwrap();
    sim.advance_to(Nanos::from_ms(100));
    let s = sim.snapshot();
    assert_eq!(s.counters.remote, s.counters.delivered, "processed on another CPU");
    assert_eq!(s.counters.delivered, s.counters.offered, "the poll keeps up");
    assert_eq!(s.counters.remote_wakeups, 0, "nothing wakes a reader that never sleeps");
    let reading = stage_ns(&s, "app_read") + stage_ns(&s, "sys_read");
    assert!(
        reading <= 100_000_000 && reading > 99_000_000,
        "the reader reads all of its 100 ms: {reading} ns"
    );
}

/// A flow that moves to a queue whose flow table slot was never used: the trace says the slot
/// holds no CPU, not the sentinel's number.
#[test]
fn trace_of_a_flow_on_an_unused_slot_names_no_cpu() {
    let mut sim = Sim::new(rfs_host(8, Driver::Generic)).unwrap();
    let t = sim.add_thread(pinned(5)).unwrap();
    sim.add_flow(flow(key(1, 80), vec![t])).unwrap();
    sim.run_ticks(2);
    let q = sim.trace_flow(0).unwrap().queue;
    // Every indirection entry to another queue: the flow's next packet finds that queue's
    // table, where its slot is empty.
    let other = (q + 1) % 8;
    let reta = sim.reta().equal(1, u32::from(other), 8).unwrap();
    sim.set_reta(reta).unwrap();
    let tr = sim.trace_flow(0).unwrap();
    assert_eq!(tr.queue, other);
    assert!(
        tr.rps_why.contains("holds no CPU yet") && !tr.rps_why.contains("65535"),
        "{}",
        tr.rps_why
    );
    assert_eq!(tr.rps_cpu, Some(5));
}

/// Since 6.16 a socket's close clears its `rps_sock_flow_table` entry (`sock_rps_delete_flow`
/// from `inet_unhash` / `udp_lib_unhash`), whoever wrote it last, but not on the side that
/// enters TIME_WAIT (TCP's active close); before 6.16 the entry stays. An unconnected UDP
/// socket has no flow hash and clears nothing.
#[test]
fn a_close_clears_the_sock_entry_from_6_16_except_into_time_wait() {
    let run = |kernel: Kernel, proto: Proto, active: bool| {
        let mut sim = Sim::new(HostConfig {
            kernel,
            ..rfs_host(4, Driver::Generic)
        })
        .unwrap();
        let t = sim.add_thread(pinned(3)).unwrap();
        let k = FlowKey::new(
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
            40000,
            80,
            proto,
        )
        .unwrap();
        sim.add_flow(flow(k, vec![t])).unwrap();
        sim.run_ticks(5);
        let set = sim.sock_flow_table().map_or(0, |t| t.used());
        sim.close_flow(0, active).unwrap();
        let left = sim.sock_flow_table().map_or(0, |t| t.used());
        (set, left, sim.snapshot().counters.sock_flow_deletes)
    };
    assert_eq!(
        run(Kernel::V6_18, Proto::Tcp, false),
        (1, 0, 1),
        "passive close: cleared"
    );
    assert_eq!(run(Kernel::V6_16, Proto::Tcp, false), (1, 0, 1));
    assert_eq!(run(Kernel::V6_18, Proto::Tcp, true), (1, 1, 0), "TIME_WAIT side: kept");
    assert_eq!(run(Kernel::V6_15, Proto::Tcp, false), (1, 1, 0), "before 6.16: kept");
    assert_eq!(
        run(Kernel::V6_18, Proto::Udp, false),
        (0, 0, 0),
        "unconnected UDP: no entry"
    );
}

/// ice: `ethtool -N` rules and aRFS share the Flow Director. A rule takes a filter of the
/// shared space (a full space refuses the rule, and aRFS's writes fail once rules took the
/// room); a partial-mask rule changes its flow type's input set, which aRFS cannot use
/// (`ice_arfs_is_perfect_flow_set`: `ice_rx_flow_steer` answers -EOPNOTSUPP), and which
/// `ice_fdir_set_hw_fltr_rule` refuses to change while aRFS has active filters of that type.
#[test]
fn ice_ntuple_rules_share_the_filter_space_and_a_partial_rule_excludes_arfs() {
    let rule = |ft: steerlab_engine::FlowType, dport: u16, exact: bool| steerlab_engine::NtupleRule {
        loc: u32::MAX,
        flow_type: ft,
        src: exact.then(|| IpAddr::V4(Ipv4Addr::new(10, 9, 9, 9))),
        dst: exact.then(|| IpAddr::V4(Ipv4Addr::new(10, 9, 9, 8))),
        sport: exact.then_some(1),
        dport: Some(dport),
        queue: 1,
        masks: Default::default(),
    };
    let (tcp4, udp4) = (steerlab_engine::FlowType::Tcp4, steerlab_engine::FlowType::Udp4);
    let host = |max_hw_filters: u32| {
        let mut sim = Sim::new(HostConfig {
            max_hw_filters,
            ..rfs_host(8, Driver::Ice)
        })
        .unwrap();
        let t = sim.add_thread(pinned(6)).unwrap();
        (sim, t)
    };
    // A partial tcp4 rule first: tcp4 flows get no aRFS filter, the calls are refused.
    let (mut sim, t) = host(8192);
    sim.add_ntuple(rule(tcp4, 9999, false)).unwrap();
    sim.add_flow(flow(key(1, 80), vec![t])).unwrap();
    sim.run_ticks(5);
    assert!(sim.arfs_filters().is_empty());
    assert!(sim.snapshot().counters.arfs_calls > 0, "asked, and refused");
    // A perfect rule leaves aRFS alone.
    let (mut sim, t) = host(8192);
    sim.add_ntuple(rule(tcp4, 9999, true)).unwrap();
    sim.add_flow(flow(key(1, 80), vec![t])).unwrap();
    sim.run_ticks(5);
    assert_eq!(sim.arfs_filters().len(), 1);
    // With a tcp4 aRFS filter active, a partial tcp4 rule is refused, a partial udp4 is not.
    let before = sim.ntuple_rules().len();
    let err = sim.add_ntuple(rule(tcp4, 7, false)).unwrap_err().to_string();
    assert!(err.contains("aRFS using perfect flow type tcp4"), "{err}");
    assert_eq!(sim.ntuple_rules().len(), before);
    // Replacing the perfect rule by a partial one is the same refusal, and the old rule stays
    // (one step, as ice_fdir_update_list_entry: not a delete that the add may not follow).
    let old = sim.ntuple_rules()[0].clone();
    let partial_at_old = steerlab_engine::NtupleRule {
        loc: old.loc,
        ..rule(tcp4, 7, false)
    };
    assert_eq!(
        sim.add_ntuple(partial_at_old),
        Err(steerlab_engine::SimError::ArfsUsesFlowType(tcp4))
    );
    assert_eq!(sim.ntuple_rules(), [old]);
    sim.add_ntuple(rule(udp4, 7, false)).unwrap();
    // Two filters in all: two rules leave aRFS no room, and a third rule is refused.
    let (mut sim, t) = host(2);
    sim.add_ntuple(rule(tcp4, 1, true)).unwrap();
    sim.add_ntuple(rule(tcp4, 2, true)).unwrap();
    let err = sim.add_ntuple(rule(tcp4, 3, true)).unwrap_err().to_string();
    assert!(err.contains("No space left on device"), "{err}");
    // A rule written to a used location reuses its filter: a full space does not refuse it.
    let loc = sim.ntuple_rules()[0].loc;
    assert_eq!(
        sim.add_ntuple(steerlab_engine::NtupleRule {
            loc,
            ..rule(tcp4, 3, true)
        }),
        Ok(loc)
    );
    assert_eq!(sim.ntuple_rules().len(), 2);
    assert_eq!(sim.ntuple_rules()[0].dport, Some(3));
    sim.add_flow(flow(key(1, 80), vec![t])).unwrap();
    sim.run_ticks(1100);
    let s = sim.snapshot();
    assert!(s.arfs.full > 0, "aRFS adds whose hardware write failed: {:?}", s.arfs);
}

/// `flow_limit_table_len_sysctl` (net/core/sysctl_net_core.c) answers EINVAL and keeps the
/// old length unless the new one is a power of two; a scenario must give one too.
#[test]
fn the_flow_limit_table_length_is_a_power_of_two() {
    let mut sim = Sim::new(HostConfig::default()).unwrap();
    assert!(sim.set_flow_limit_table_len(3000).is_err());
    assert_eq!(sim.config().flow_limit_table_len, 4096);
    sim.set_flow_limit_table_len(2048).unwrap();
    assert_eq!(sim.config().flow_limit_table_len, 2048);
    let bad = HostConfig {
        flow_limit_table_len: 3000,
        ..HostConfig::default()
    };
    assert_eq!(bad.validate().unwrap_err().field, "net.flow_limit_table_len");
}

/// What an open flow had offered at the end of any past tick, worked out from its start and
/// rate (`flow_sent_at`), is what `flows_sent` said then: flows added at different ticks, at
/// rates that do not divide a second evenly, ticks split, one flow closed (no answer then).
#[test]
fn a_flow_s_past_count_is_worked_out_exactly() {
    let cfg = HostConfig {
        tick_ns: 7_000_000,
        ..rfs_host(8, Driver::Ice)
    };
    let mut sim = Sim::new(cfg).unwrap();
    let t = sim.add_thread(pinned(3)).unwrap();
    let mut seen: Vec<(Nanos, Vec<u64>)> = Vec::new();
    for (i, rate) in [10_000u64, 33_333, 1_234_567, 999, 7].into_iter().enumerate() {
        sim.add_flow(FlowSpec {
            rate_pps: rate,
            ..flow(key(i as u32 + 1, 80), vec![t])
        })
        .unwrap();
        for _ in 0..(3 + i) {
            while !sim.tick_part(3) {}
            seen.push((sim.now(), sim.flows_sent().collect()));
        }
    }
    sim.close_flow(1, false).unwrap();
    sim.run_ticks(4);
    for (at, sent) in &seen {
        for f in 0..sim.flow_count() {
            let then = sent.get(f as usize).copied().unwrap_or(0);
            let worked_out = sim.flow_sent_at(f, *at);
            if f == 1 {
                assert_eq!(worked_out, None, "a closed flow's rate is gone");
            } else {
                assert_eq!(worked_out, Some(then), "flow {f} at {at:?}");
            }
        }
    }
    assert!(sim.flows_sent().nth(2).unwrap() > 0);
}

/// The socket table keeps the kernel's entries through what moves flows to other entries: a
/// new RSS key re-hashes the flows, and their old entries keep what they held (the kernel's
/// table is indexed by hash; nothing clears them), while a write of
/// `rps_sock_flow_entries` resets every entry. (The sandbox stores only the entries flows
/// select, each flow reading its own through a noted cell: this checks the cells against the
/// kernel's index.)
#[test]
fn sock_entries_follow_rehashes_and_reset_with_the_table() {
    use steerlab_engine::rps::{cpu_mask, SockFlowTable};
    let mut sim = Sim::new(rfs_host(4, Driver::Generic)).unwrap();
    let readers = [1u16, 2];
    for (i, cpu) in readers.into_iter().enumerate() {
        let t = sim.add_thread(pinned(cpu)).unwrap();
        sim.add_flow(flow(key(1 + i as u32, 80), vec![t])).unwrap();
    }
    let hashes = |sim: &Sim| [0, 1].map(|f| sim.flow_view(f).unwrap().hash);
    let holds = |sim: &Sim, hs: [u32; 2]| {
        let table = sim.sock_flow_table().unwrap();
        hs.iter()
            .zip(readers)
            .all(|(&h, cpu)| table.entry(h) == SockFlowTable::value(h, cpu, cpu_mask(4)))
    };
    let used = |sim: &Sim| sim.sock_flow_table().unwrap().used();
    sim.run_ticks(3);
    let before = hashes(&sim);
    assert!(holds(&sim, before), "each reader's CPU is in its flow's entry");
    assert_eq!(used(&sim), 2);

    let new_key: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37).wrapping_add(11)).collect();
    sim.set_rss_key(&new_key).unwrap();
    let after = hashes(&sim);
    let mask = sim.sock_flow_table().unwrap().mask;
    let slots: Vec<u32> = [before, after].concat().iter().map(|h| h & mask).collect();
    assert!(
        (0..4).all(|i| (0..i).all(|j| slots[i] != slots[j])),
        "the new key moves both flows to entries of their own: {slots:?}"
    );
    sim.run_ticks(3);
    assert!(holds(&sim, after), "the reads set the new entries");
    assert!(holds(&sim, before), "the old entries keep what they held");
    assert_eq!(used(&sim), 4);

    sim.set_sock_flow_entries(8192).unwrap();
    assert_eq!(used(&sim), 0, "a write of the sysctl resets the table");
    sim.run_ticks(3);
    assert!(holds(&sim, after));
    assert_eq!(used(&sim), 2);
}
