//! Speed targets as benchmarks (not timed unit tests): the Toeplitz hash (table-driven against
//! the bitwise reference), steering per packet in packet and aggregate modes, and one simulated
//! second of seed 000's host (144 CPUs, 16,384 flows), and `Sim::predict` over 100,000 tuples. Run: `cargo bench -p steerlab-engine`.

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use steerlab_engine::toeplitz::{toeplitz_bitwise, ToeplitzTable, MS_VERIFICATION_KEY};
use steerlab_engine::{CpuSet, Driver, FlowKey, FlowSpec, HostConfig, Kernel, Mode, Nanos, Proto, Sim, ThreadSpec};

fn toeplitz(c: &mut Criterion) {
    let input = [66u8, 9, 149, 187, 161, 142, 100, 80, 10, 234, 6, 230];
    let table = ToeplitzTable::new(&MS_VERIFICATION_KEY);
    let mut g = c.benchmark_group("toeplitz_4tuple_v4");
    g.throughput(Throughput::Elements(1));
    g.bench_function("bitwise", |b| {
        b.iter(|| toeplitz_bitwise(&MS_VERIFICATION_KEY, black_box(&input)))
    });
    g.bench_function("table", |b| b.iter(|| table.hash(black_box(&input))));
    g.finish();
}

/// Seed 000's host at `flows` flows (readers pinned to the first half of the CPUs).
fn seed000(cpus: u16, flows: u32, mode: Mode, driver: Driver) -> Sim {
    let cfg = HostConfig {
        cpus,
        numa_nodes: 2,
        rx_queues: cpus,
        tx_queues: cpus,
        driver,
        ntuple: true,
        flow_cnt: 512,
        sock_flow_entries: u32::from(cpus) * 512,
        kernel: Kernel::V6_10,
        tick_ns: 100_000_000,
        mode,
        ..HostConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    for c in 0..cpus / 2 {
        sim.add_thread(ThreadSpec {
            cpu: c,
            allowed: CpuSet::EMPTY,
            migrate_every: Nanos::ZERO,
        })
        .unwrap();
    }
    for i in 0..flows {
        let src = IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i * 7919));
        let key = FlowKey::new(
            src,
            IpAddr::V4(Ipv4Addr::new(192, 168, 0, 1)),
            1024 + (i % 60_000) as u16,
            12865,
            Proto::Tcp,
        )
        .unwrap();
        sim.add_flow(FlowSpec {
            key,
            rate_pps: 200,
            bytes: 1500,
            readers: vec![i % u32::from(cpus / 2)],
            tx: None,
        })
        .unwrap();
    }
    sim
}

fn steering(c: &mut Criterion) {
    let mut g = c.benchmark_group("steer_one_second_1024_flows");
    g.sample_size(10);
    // 1,024 flows x 200 pps = 204,800 packets per simulated second.
    g.throughput(Throughput::Elements(204_800));
    for (name, mode) in [("packet", Mode::Packet), ("aggregate", Mode::Aggregate)] {
        g.bench_function(name, |b| {
            b.iter_batched(
                || seed000(16, 1024, mode, Driver::Ice),
                |mut s| s.advance_to(Nanos::from_secs(1)),
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
    let mut g = c.benchmark_group("seed000_full_scale_one_second");
    g.sample_size(10);
    for driver in [Driver::IceHashMatch, Driver::Ice] {
        g.bench_function(driver.name(), |b| {
            b.iter_batched(
                || {
                    let mut s = seed000(144, 16_384, Mode::Aggregate, driver);
                    s.advance_to(Nanos::from_secs(2)); // past the first filter programming
                    s
                },
                |mut s| s.advance_to(Nanos::from_secs(3)),
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

/// `steerlab predict` for a real host: 100,000 tuples on seed 000's host (target: well under a
/// second; the CLI adds parsing and printing, 0.2 s in all for 100,000 flows).
fn predict(c: &mut Criterion) {
    let sim = seed000(144, 0, Mode::Aggregate, Driver::Ice);
    let keys: Vec<FlowKey> = (0..100_000u32)
        .map(|i| {
            FlowKey::new(
                IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i * 7919)),
                IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
                (i % 60_000) as u16 + 1024,
                443,
                Proto::Tcp,
            )
            .unwrap()
        })
        .collect();
    let mut g = c.benchmark_group("predict");
    g.throughput(Throughput::Elements(keys.len() as u64));
    g.sample_size(20);
    g.bench_function("100k_flows_144_cpus", |b| {
        b.iter(|| keys.iter().map(|k| sim.predict(black_box(k)).queue as u64).sum::<u64>())
    });
    g.finish();
}

criterion_group!(benches, toeplitz, steering, predict);
criterion_main!(benches);
