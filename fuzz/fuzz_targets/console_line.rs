//! Console lines on four hosts: the first byte picks the host, the rest are lines. A refused
//! line leaves the host exactly as it was; after the lines, a tick conserves every packet.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use steerlab_engine::{CpuSet, Driver, FlowKey, FlowSpec, HostConfig, Nanos, Proto, Sim, ThreadSpec, XpsMap};

/// Four small hosts of the driver models: console lines act on their configuration, so a
/// small host tests the same parsing and checks as a lesson's big one, many times faster.
fn hosts() -> &'static [Sim] {
    static HOSTS: OnceLock<Vec<Sim>> = OnceLock::new();
    HOSTS.get_or_init(|| {
        let base = HostConfig {
            cpus: 8,
            rx_queues: 4,
            tx_queues: 4,
            reta_size: 16,
            ..HostConfig::default()
        };
        [
            base.clone(),
            HostConfig {
                driver: Driver::Ice,
                ntuple: true,
                flow_cnt: 64,
                sock_flow_entries: 256,
                rps_cpus: "0-7".into(),
                ..base.clone()
            },
            HostConfig {
                driver: Driver::Mlx5,
                ntuple: true,
                flow_cnt: 64,
                sock_flow_entries: 256,
                numa_nodes: 2,
                ..base.clone()
            },
            HostConfig {
                driver: Driver::Ixgbe,
                xps_map: XpsMap::All,
                ..base
            },
        ]
        .into_iter()
        .map(|cfg| {
            let mut sim = Sim::new(cfg).expect("valid config");
            for cpu in [1, 2, 5] {
                sim.add_thread(ThreadSpec {
                    cpu,
                    allowed: CpuSet::EMPTY,
                    migrate_every: Nanos::ZERO,
                })
                .expect("thread");
            }
            for (i, sport) in (40000u16..40006).enumerate() {
                let key = FlowKey::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into(), sport, 80, Proto::Tcp).expect("key");
                sim.add_flow(FlowSpec {
                    key,
                    rate_pps: 100_000,
                    bytes: 1500,
                    readers: vec![i as u32 % 3],
                    tx: None,
                })
                .expect("flow");
            }
            sim.run_ticks(5);
            sim
        })
        .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let hosts = hosts();
    let mut sim = hosts[usize::from(pick) % hosts.len()].clone();
    let text = String::from_utf8_lossy(rest);
    for line in text.lines().take(8) {
        let (snap, cfg) = (sim.snapshot(), sim.config().clone());
        if steerlab_console::execute(&mut sim, line).is_err() {
            assert!(
                sim.snapshot() == snap && *sim.config() == cfg,
                "a refused line changed the host: {line:?}"
            );
        }
    }
    sim.run_ticks(1);
    assert!(sim.conserved(), "packets lost");
});
