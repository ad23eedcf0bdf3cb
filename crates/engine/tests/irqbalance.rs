//! irqbalance as an agent (crates/engine/src/sim/irqbalance.rs): its first pass spreads the
//! queue vectors over the CPUs it may use; it keeps off banned CPUs; a single flow's vector
//! keeps one CPU busy wherever it goes; a saturated poll follows its moved vector at once on
//! a driver that checks (mlx5), and only once it completes on one that does not (ixgbe).

use std::net::{IpAddr, Ipv4Addr};

use steerlab_engine::{
    CpuSet, Driver, FlowKey, FlowSpec, HostConfig, Nanos, Proto, Sim, ThreadSpec, IRQBALANCE_INTERVAL,
};

fn host(flows: &[(u32, u64)]) -> Sim {
    host_with(Driver::Generic, flows)
}

fn host_with(driver: Driver, flows: &[(u32, u64)]) -> Sim {
    let mut sim = Sim::new(HostConfig {
        cpus: 8,
        rx_queues: 4,
        tx_queues: 4,
        driver,
        ..HostConfig::default()
    })
    .unwrap();
    sim.add_thread(ThreadSpec {
        cpu: 7,
        allowed: CpuSet::EMPTY,
        migrate_every: Nanos::ZERO,
    })
    .unwrap();
    for &(i, rate) in flows {
        let key = FlowKey::new(
            IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i)),
            IpAddr::V4(Ipv4Addr::new(192, 168, 0, 1)),
            20_000 + i as u16,
            9000,
            Proto::Udp,
        )
        .unwrap();
        sim.add_flow(FlowSpec {
            key,
            rate_pps: rate,
            bytes: 512,
            readers: vec![0],
            tx: None,
        })
        .unwrap();
    }
    // Every vector on CPU 0, as a host without irqbalance may have them.
    for q in 0..4 {
        let mut zero = CpuSet::EMPTY;
        zero.insert(0);
        sim.set_irq_affinity(q, zero).unwrap();
    }
    sim
}

fn irq_cpus(sim: &Sim) -> Vec<u16> {
    (0..4).map(|q| sim.irq_cpu(q).unwrap()).collect()
}

fn distinct(mut cpus: Vec<u16>) -> usize {
    cpus.sort_unstable();
    cpus.dedup();
    cpus.len()
}

/// On mlx5 a poll that runs on a CPU its vector left completes (`mlx5e_napi_poll`), so
/// irqbalance's first pass takes the saturated queues' polls with it, counted as aff_change.
#[test]
fn its_first_pass_spreads_the_vectors_and_the_drops_stop() {
    let flows: Vec<(u32, u64)> = (0..32).map(|i| (i, 60_000)).collect();
    let mut sim = host_with(Driver::Mlx5, &flows);
    sim.advance_to(Nanos::from_ms(1000));
    assert!(sim.snapshot().counters.ring_full > 0, "1.9 Mpps on CPU 0's polls");
    sim.set_irqbalance(Some(CpuSet::EMPTY)).unwrap();
    sim.advance_to(Nanos::from_ms(1100));
    assert_eq!(distinct(irq_cpus(&sim)), 4, "one CPU each: {:?}", irq_cpus(&sim));
    let moved: u64 = (0..4).map(|q| sim.irq_aff_changes(q)).sum();
    assert_eq!(moved, 3, "three saturated polls left CPU 0 on purpose");
    let before = sim.snapshot().counters.ring_full;
    sim.advance_to(Nanos::from_ms(2100));
    assert_eq!(sim.snapshot().counters.ring_full, before, "no drop once spread");
}

/// ixgbe's poll does not check its affinity: a queue whose ring CPU 0 cannot drain keeps
/// polling there, its interrupt masked, whatever `smp_affinity_list` says (i40e_txrx.c's
/// comment: "polling will never exit while traffic continues"). The vector's effective
/// affinity and the aRFS map move at once; the poll follows when the load lets it complete.
#[test]
fn a_saturated_poll_stays_on_its_cpu_until_it_completes_where_the_driver_does_not_check() {
    let flows: Vec<(u32, u64)> = (0..32).map(|i| (i, 60_000)).collect();
    let mut sim = host_with(Driver::Ixgbe, &flows);
    sim.advance_to(Nanos::from_ms(1000));
    let one = CpuSet::parse_list("1").unwrap();
    sim.set_irq_affinity(1, one).unwrap();
    assert_eq!((sim.irq_effective_cpu(1), sim.irq_cpu(1)), (Some(1), Some(0)));
    assert!(sim.irq_move_pending(1));
    let (drops, irqs) = (sim.snapshot().counters.ring_full, sim.irq_interrupts_on(1, 1));
    sim.advance_to(Nanos::from_ms(3000));
    assert_eq!(irq_cpus(&sim), vec![0; 4], "every poll still on CPU 0");
    assert!(sim.snapshot().counters.ring_full > drops, "the drops go on");
    assert_eq!((sim.irq_interrupts_on(1, 1), irqs), (0, 0), "no interrupt on CPU 1");
    assert_eq!(sim.irq_aff_changes(1), 0);
    // Half the flows end: CPU 0's polls drain their rings, complete, and rx-1's moves.
    for f in 0..16 {
        sim.close_flow(f, false).unwrap();
    }
    sim.advance_to(Nanos::from_ms(4000));
    assert_eq!(sim.irq_cpu(1), Some(1), "the poll followed once it completed");
    assert!(!sim.irq_move_pending(1));
    sim.advance_to(Nanos::from_ms(5000));
    assert!(
        sim.irq_interrupts_on(1, 1) > 0,
        "interrupts now counted in CPU 1's column"
    );
    assert!(sim.irq_interrupts_on(1, 0) > 0, "the old ones stay in CPU 0's");
    // Moving back before the poll followed cancels the move: nothing pending.
    let mut idle = host_with(Driver::Ixgbe, &flows);
    idle.advance_to(Nanos::from_ms(500));
    idle.set_irq_affinity(2, one).unwrap();
    idle.set_irq_affinity(2, CpuSet::parse_list("0").unwrap()).unwrap();
    assert!(!idle.irq_move_pending(2));
    assert!(sim.conserved() && idle.conserved());
}

#[test]
fn banned_cpus_take_no_vector_and_a_pass_comes_every_ten_seconds() {
    let flows: Vec<(u32, u64)> = (0..32).map(|i| (i, 10_000)).collect();
    let mut sim = host(&flows);
    let banned = CpuSet::parse_list("0-3").unwrap();
    sim.set_irqbalance(Some(banned)).unwrap();
    sim.run_ticks(1);
    assert!(irq_cpus(&sim).iter().all(|&c| c >= 4), "{:?}", irq_cpus(&sim));
    // A vector moved by hand onto a banned CPU goes back at the next pass, not before.
    let mut zero = CpuSet::EMPTY;
    zero.insert(0);
    sim.set_irq_affinity(2, zero).unwrap();
    sim.advance_to(Nanos(IRQBALANCE_INTERVAL.0 - 1_000_000));
    assert_eq!(sim.irq_cpu(2), Some(0));
    sim.advance_to(Nanos(IRQBALANCE_INTERVAL.0 + 1_000_000));
    assert!(sim.irq_cpu(2).unwrap() >= 4);
    assert!(
        sim.set_irqbalance(Some(CpuSet::parse_list("0-7").unwrap())).is_err(),
        "no CPU left"
    );
}

#[test]
fn an_elephant_keeps_one_cpu_full_wherever_irqbalance_puts_it() {
    let mut sim = host(&[(1, 3_000_000), (2, 1000), (3, 1000), (4, 1000)]);
    sim.set_irqbalance(Some(CpuSet::EMPTY)).unwrap();
    sim.advance_to(Nanos::from_ms(25_000));
    let s = sim.snapshot();
    let before = s.counters.ring_full;
    sim.advance_to(Nanos::from_ms(26_000));
    assert!(
        sim.snapshot().counters.ring_full > before,
        "one queue's poll cannot take 3 Mpps on any CPU"
    );
}
