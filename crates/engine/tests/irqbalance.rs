//! irqbalance as an agent (crates/engine/src/sim/irqbalance.rs): its first pass spreads the
//! queue vectors over the CPUs it may use; it keeps off banned CPUs; a single flow's vector
//! keeps one CPU busy wherever it goes.

use std::net::{IpAddr, Ipv4Addr};

use steerlab_engine::{CpuSet, FlowKey, FlowSpec, HostConfig, Nanos, Proto, Sim, ThreadSpec, IRQBALANCE_INTERVAL};

fn host(flows: &[(u32, u64)]) -> Sim {
    let mut sim = Sim::new(HostConfig {
        cpus: 8,
        rx_queues: 4,
        tx_queues: 4,
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

#[test]
fn its_first_pass_spreads_the_vectors_and_the_drops_stop() {
    let flows: Vec<(u32, u64)> = (0..32).map(|i| (i, 60_000)).collect();
    let mut sim = host(&flows);
    sim.advance_to(Nanos::from_ms(1000));
    assert!(sim.snapshot().counters.ring_full > 0, "1.9 Mpps on CPU 0's polls");
    sim.set_irqbalance(Some(CpuSet::EMPTY)).unwrap();
    sim.advance_to(Nanos::from_ms(1100));
    let mut cpus = irq_cpus(&sim);
    cpus.sort_unstable();
    cpus.dedup();
    assert_eq!(cpus.len(), 4, "one CPU each: {:?}", irq_cpus(&sim));
    let before = sim.snapshot().counters.ring_full;
    sim.advance_to(Nanos::from_ms(2100));
    assert_eq!(sim.snapshot().counters.ring_full, before, "no drop once spread");
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
