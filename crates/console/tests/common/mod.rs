//! Shared fixtures of the console tests: a small host with threads, flows and traffic, and a
//! fingerprint of everything a command may change.

#![allow(dead_code)]

use steerlab_console::execute;
use steerlab_engine::{CpuSet, FlowKey, FlowSpec, HostConfig, Nanos, Proto, Sim, ThreadSpec};

/// An 8-CPU, 4-queue host (16-entry table) with three threads and four flows, run for 20 ticks.
pub(crate) fn host() -> Sim {
    host_with(HostConfig {
        cpus: 8,
        rx_queues: 4,
        tx_queues: 4,
        reta_size: 16,
        ..HostConfig::default()
    })
}

/// `host()` on another configuration.
pub(crate) fn host_with(cfg: HostConfig) -> Sim {
    let ncpus = cfg.cpus;
    let mut sim = Sim::new(cfg).expect("valid config");
    for cpu in [1, 2, 5].map(|c| c % ncpus) {
        sim.add_thread(ThreadSpec {
            cpu,
            allowed: CpuSet::EMPTY,
            migrate_every: Nanos::ZERO,
        })
        .expect("thread");
    }
    for (i, sport) in [40000u16, 40001, 40002, 40003].into_iter().enumerate() {
        let key = FlowKey::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into(), sport, 80, Proto::Tcp).expect("key");
        let spec = FlowSpec {
            key,
            rate_pps: 100_000,
            bytes: 1500,
            readers: vec![i as u32 % 3],
            tx: None,
        };
        sim.add_flow(spec).expect("flow");
    }
    sim.run_ticks(20);
    sim
}

/// Runs `line`, panicking with the error if it fails.
#[track_caller]
pub(crate) fn ok(sim: &mut Sim, line: &str) -> String {
    execute(sim, line).unwrap_or_else(|e| panic!("{line:?} failed:\n{e}"))
}

/// Runs `line`, panicking with the output if it succeeds.
#[track_caller]
pub(crate) fn err(sim: &mut Sim, line: &str) -> String {
    match execute(sim, line) {
        Ok(out) => panic!("{line:?} should fail, printed:\n{out}"),
        Err(e) => e,
    }
}

/// Everything a console command can change, for "a failing command changes nothing".
pub(crate) fn fingerprint(sim: &Sim) -> Fingerprint {
    let views: String = (0..sim.flow_count())
        .map(|f| format!("{:?} ", sim.flow_view(f)))
        .collect();
    Fingerprint {
        counters: format!("{:?}\n{views}", sim.snapshot()),
        settings: steerlab_console::settings(sim),
    }
}

/// The counters and views as text (what a failed assertion prints), and the settings.
#[derive(PartialEq)]
pub(crate) struct Fingerprint {
    counters: String,
    settings: steerlab_console::Settings,
}

impl std::fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.counters)
    }
}
