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
pub(crate) fn fingerprint(sim: &Sim) -> String {
    let c = sim.config();
    let mut s = format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n",
        sim.snapshot(),
        c,
        sim.reta(),
        sim.rss_key(),
        sim.ntuple_rules()
    );
    s += &format!("{:?}\n{:?}\n{}\n", sim.xdp(), sim.tc_block(), sim.sock_flow_entries());
    s += &format!("{:?} {:?}\n", sim.irqbalance(), sim.irqbalance_env());
    for ty in steerlab_engine::FlowType::ALL {
        s += &format!("{:?} ", sim.hash_fields(ty));
    }
    for q in 0..c.rx_queues {
        s += &format!("rx{q} {:?} {} ", sim.rps_cpus(q), sim.flow_cnt(q));
    }
    for q in 0..c.tx_queues {
        s += &format!("tx{q} {:?} {:?} ", sim.xps_cpus(q), sim.xps_rxqs(q));
    }
    for t in 0..sim.thread_count() {
        s += &format!("t{t} {:?} ", sim.thread(t));
    }
    for f in 0..sim.flow_count() {
        s += &format!("f{f} {:?} {:?} ", sim.flow_key(f), sim.flow_view(f));
    }
    s
}
