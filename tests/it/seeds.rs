//! The seeds' measured effects, reproduced from their own setups (issue 5). Each test runs a
//! built-in lesson with the contract's `--set` overrides and checks direction and order of
//! magnitude against the figures the seed reports.

use steerlab_scenario::{load, Report};

fn run(lesson: &str, sets: &[&str]) -> Report {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scenario = load(lesson, &sets).unwrap_or_else(|e| panic!("{lesson} {sets:?}: {e}"));
    let sim = scenario.run().unwrap_or_else(|e| panic!("{lesson}: {e}"));
    let report = Report::new(&scenario, &sim);
    // No packet is silently lost.
    let (offered, delivered, in_flight) = (
        report.int("packets.offered"),
        report.int("packets.delivered"),
        report.int("packets.in_flight"),
    );
    let dropped: u64 = ["ring_full", "backlog_full", "xdp", "tc"]
        .iter()
        .map(|k| report.int(&format!("packets.dropped.{k}")))
        .sum();
    assert_eq!(offered, delivered + dropped + in_flight, "{lesson}: conservation");
    report
}

/// Seed 000 at full scale (144 CPUs and queues, 16,384 flows, 180 s, clients on CPUs 0–71,
/// `rps_sock_flow_entries` = 144 × `rps_flow_cnt`, the 6.15 slot hash). The seed's table,
/// original vs patched: rps_flow_cnt 512 → aRFS update 533,973 vs 59, add 6,078,551 vs
/// 6,126,286, skip 82M vs 77M, avoided wrong programming 0 vs 310,826; rps_flow_cnt 2048 →
/// update 521,264 vs 32, skip 7.2M vs 4.5M, avoided 0 vs 30,145.
///
/// The seed's "good:bad queue" ratio (214 vs 822K) is not asserted: its 77M skips are 77M
/// calls from packets that arrived on a queue other than their reader's, which no count of
/// packets per queue can square with 822K:1. The sandbox asserts what a wrong match does: the
/// packets a re-pointed filter sends to another flow's queue (`arfs.missteered`).
#[test]
fn seed_000_arfs_hash_only_match_versus_full_tuple() {
    // (rps_flow_cnt, seed's avoided, seed's skips with the bug, seed's updates with the bug,
    // seed's adds with the fix where it gives them)
    let total = |r: &Report| {
        ["user_ns", "sys_ns", "softirq_ns"]
            .iter()
            .map(|k| r.int(&format!("cpu.{k}")))
            .sum::<u64>()
    };
    // Total CPU with the bug over total with the fix, in thousandths, per table size.
    let mut overhead = Vec::new();
    for (flow_cnt, seed_avoided, seed_skip, seed_update, seed_add) in [
        (512u64, 310_826, 82_000_000, 533_973, Some(6_126_286)),
        (2048, 30_145, 7_200_000, 521_264, None),
    ] {
        let sets = |driver: &str| {
            [
                format!("nic.driver={driver}"),
                format!("rfs.flow_cnt={flow_cnt}"),
                format!("rfs.sock_flow_entries={}", 144 * flow_cnt),
            ]
        };
        let bad_sets = sets("ice-hash-match");
        let good_sets = sets("ice");
        let bad = run(
            "arfs-collision",
            &bad_sets.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let good = run(
            "arfs-collision",
            &good_sets.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert_eq!(
            bad.get("sim_seconds").and_then(|v| v.as_f64()),
            Some(180.0),
            "the full 180 s ran"
        );
        let within_10x = |got: u64, seed: u64| got * 10 >= seed && got <= seed * 10;
        // The update storm: hundreds of thousands, against (near) zero.
        let update = bad.int("arfs.update");
        assert!(
            within_10x(update, seed_update),
            "flow_cnt {flow_cnt}: hash-only updates {update} (seed {seed_update})"
        );
        assert!(
            good.int("arfs.update") < 100,
            "flow_cnt {flow_cnt}: full-tuple updates {}",
            good.int("arfs.update")
        );
        assert_eq!(bad.int("arfs.misprogram_avoided"), 0);
        let avoided = good.int("arfs.misprogram_avoided");
        assert!(
            within_10x(avoided, seed_avoided),
            "flow_cnt {flow_cnt}: avoided {avoided} (seed {seed_avoided})"
        );
        // Adds and expiries churn the same with and without the fix (seed, at 512: 6.08M vs
        // 6.13M). The seed gives no adds at 2048, where the hash-only driver's stolen filters
        // expire and come back more often in the sandbox: not held to a figure there.
        let (ba, ga) = (bad.int("arfs.add"), good.int("arfs.add"));
        if let Some(seed_add) = seed_add {
            assert!(
                ba * 10 > ga * 8 && ga * 10 > ba * 8,
                "flow_cnt {flow_cnt}: adds {ba} vs {ga}"
            );
            assert!(
                within_10x(ga, seed_add),
                "flow_cnt {flow_cnt}: adds {ga} (seed {seed_add})"
            );
        }
        // Skips: calls while a filter waits for the service task, more with the bug.
        let (bs, gs) = (bad.int("arfs.skip"), good.int("arfs.skip"));
        assert!(
            within_10x(bs, seed_skip) && bs > gs,
            "flow_cnt {flow_cnt}: skips {bs} vs {gs} (seed {seed_skip})"
        );
        // A re-pointed filter sends its flow to another flow's queue; the fixed driver never
        // does (readers are pinned): orders of magnitude.
        assert!(
            bad.int("arfs.missteered") > 100_000,
            "flow_cnt {flow_cnt}: missteered {}",
            bad.int("arfs.missteered")
        );
        assert_eq!(good.int("arfs.missteered"), 0);
        assert!(bad.int("steering.wrong_queue") > good.int("steering.wrong_queue"));
        // More driver calls and wrong queues: more softirq time (seed: 1245 vs 920).
        assert!(bad.int("cpu.softirq_ns") > good.int("cpu.softirq_ns"));
        if flow_cnt == 512 {
            // The seed's CPU rows move one way: total 29 vs 22.7 (+28 %), system 1441 vs 1171,
            // softirq 1245 vs 920, user 216 vs 183. The sandbox's mechanisms (the service
            // task's runs and writes, the driver calls, arfs_lock held by the task's walk,
            // readers woken from another CPU) give about +7 % in total, softirq and system
            // moving the seed's way; user time has no mechanism in the sandbox and stays level
            // (README, "Seed 000's CPU rows").
            assert!(
                total(&bad) * 100 >= total(&good) * 105,
                "total CPU {} vs {}: at least +5 %",
                total(&bad),
                total(&good)
            );
            assert!(
                bad.int("cpu.sys_ns") > good.int("cpu.sys_ns") && bad.int("cpu.user_ns") >= good.int("cpu.user_ns")
            );
        }
        overhead.push(total(&bad) * 1000 / total(&good));
    }
    // The bug costs CPU at both table sizes. The seed's bigger table hurts less (29 vs 22.7 at
    // 512, 29 vs 24.9 at 2048); the sandbox's does not (about +7 % and +11 %): a departure,
    // stated in the README. (Before issue 51 it did, on spins that let one CPU's calls land
    // in the same walk many times over, spinning longer than the walk lasted.)
    assert!(
        overhead.iter().all(|&o| o > 1030),
        "CPU with the bug / without, in thousandths, at 512 and 2048: {overhead:?}"
    );
}

/// Seed 002 (bRPC): several epoll readers per socket migrating inside a two-node host, mlx5.
/// Seed: with the cpuset rule, sock flow table writes and aRFS updates fall several-fold,
/// `arfs_lock` contention goes, and cross-NUMA traffic falls from 13 GB to 9 GB.
///
/// Re-measured after issue 51 gave mlx5 its one ordered worker (`mlx5e_arfs`): recording on
/// every read asks for 4.0 M socket-table writes in 10 s; the worker, on CPU 0 at about 14 us
/// an item (a 5 us hardware write and a walk of 512 rules at 18 ns), runs some 58 k updates a
/// second and falls behind (about 200 items queued at the end), and while a rule's item waits
/// its flow's requests are skipped (`work_busy`): about 580 k updates, 390 k skips, 2.4 s of
/// lock spin, CPU 0 full. (Before, the work ran without bound: 3.95 M updates, no skip, 5.37 s
/// of lock wait, CPU 0 booked 317 %.) With the cpuset rule: 31 k updates, no backlog.
#[test]
fn seed_002_rfs_churn_falls_with_the_cpuset_rule() {
    let always = run("rfs-thread-churn", &["rfs.record=always", "nic.driver=mlx5"]);
    let cpuset = run("rfs-thread-churn", &["rfs.record=cpuset", "nic.driver=mlx5"]);
    assert!(always.int("rfs.sock_flow_updates") > 5 * cpuset.int("rfs.sock_flow_updates"));
    assert!(cpuset.int("rfs.sock_flow_skipped") > 0);
    assert_eq!(always.int("rfs.sock_flow_skipped"), 0);
    assert!(always.int("arfs.update") > 5 * cpuset.int("arfs.update"));
    assert!(always.int("arfs.lock_wait_ns") > 5 * cpuset.int("arfs.lock_wait_ns"));
    // The worker cannot keep up with every read's move: its items back up, the flows whose
    // item waits are answered without a new one, and it holds CPU 0 (all but 1 %).
    let cpu0 = |r: &Report| {
        ["softirq_ns", "sys_ns", "user_ns"]
            .iter()
            .map(|k| r.int(&format!("cpus.0.{k}")))
            .sum::<u64>()
    };
    assert!(always.int("arfs.work_queued") > 50, "a backlog of work items");
    assert!(
        always.int("arfs.skip") > 100_000,
        "requests coalesce behind waiting items"
    );
    assert!(
        always.int("rfs.sock_flow_updates") > 5 * always.int("arfs.update"),
        "the updates are bounded by the worker, not by the moves asked"
    );
    assert!(
        cpu0(&always) > 9_900_000_000 && cpu0(&always) <= 10_000_000_000,
        "CPU 0 full: {}",
        cpu0(&always)
    );
    assert_eq!(cpuset.int("arfs.work_queued"), 0, "the worker keeps up");
    assert!(cpu0(&cpuset) < 5_000_000_000);
    let (a, c) = (always.int("cpu.cross_numa_bytes"), cpuset.int("cpu.cross_numa_bytes"));
    assert!(a > c * 12 / 10, "cross-NUMA bytes {a} vs {c}");
}

/// Seed 003 (ixgbe XPS): a sender on a CPU without an XPS map hashes every message
/// (`__netdev_pick_tx` 7.55 % of cycles); with a map it does not (0.85 %) and netperf UDP_STREAM
/// sends ~10 % more messages (11,497,225 → 12,736,058 in 10 s).
#[test]
fn seed_003_xps_map_removes_the_hash_pick() {
    let none = run("xps-pick-tx", &["xps.map=none"]);
    let all = run("xps-pick-tx", &["xps.map=all"]);
    assert!(none.int("xps.hash_picks") > 1_000_000);
    assert_eq!(all.int("xps.hash_picks"), 0);
    assert!(all.int("xps.map_picks") > 1_000_000);
    // The pick is a visible share of the sender's time without a map, small with one.
    let sender_sys = |r: &Report| {
        r.get("cpus")
            .and_then(|c| c.as_array())
            .map(|c| c[6]["sys_ns"].as_u64().unwrap_or(0))
            .unwrap_or(0)
    };
    let hash_share = none.int("ledger.tx_pick_hash_ns") as f64 / (sender_sys(&none) as f64).max(1.0);
    assert!(
        (0.06..0.09).contains(&hash_share),
        "skb_tx_hash share of the sender's sys time {hash_share}"
    );
    let xps_share = all.int("ledger.tx_pick_xps_ns") as f64 / (sender_sys(&all) as f64).max(1.0);
    assert!(xps_share < 0.012, "XPS pick share {xps_share}");
    let gain = all.int("xps.msgs_per_sec") as f64 / none.int("xps.msgs_per_sec") as f64;
    assert!((1.05..1.15).contains(&gain), "UDP_STREAM message rate gain {gain}");
}

/// Seed 004 (XDP metadata kfuncs on mlx5): XDP_DROP 38.94 ns/pkt, 25,678,262 pps; with three
/// kfunc calls 41.80 ns/pkt, 23,924,109 pps. Within 1 %, and the ring overflows more when the
/// core is slower.
#[test]
fn seed_004_xdp_kfunc_cost_calibration() {
    let f = |r: &Report, k: &str| r.get(k).and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
    let base = run("xdp-kfunc-cost", &["xdp.kfuncs=0"]);
    let meta = run("xdp-kfunc-cost", &["xdp.kfuncs=3"]);
    let close = |x: f64, want: f64| (x - want).abs() / want < 0.01;
    assert!(
        close(f(&base, "xdp.ns_per_pkt"), 38.94),
        "{}",
        f(&base, "xdp.ns_per_pkt")
    );
    assert!(
        close(f(&meta, "xdp.ns_per_pkt"), 41.80),
        "{}",
        f(&meta, "xdp.ns_per_pkt")
    );
    assert!(close(f(&base, "xdp.mpps_per_core"), 25.678262));
    assert!(close(f(&meta, "xdp.mpps_per_core"), 23.924109));
    assert!(meta.int("packets.dropped.ring_full") > base.int("packets.dropped.ring_full"));
    // Strategies: the feature query saves the probes, inlining every call.
    let query = run("xdp-kfunc-cost", &["xdp.strategy=query"]);
    let inline = run("xdp-kfunc-cost", &["xdp.strategy=inline"]);
    assert!(f(&query, "xdp.ns_per_pkt") < f(&meta, "xdp.ns_per_pkt"));
    assert!(close(f(&inline, "xdp.ns_per_pkt"), 38.94));
    // A driver without metadata kfuncs: "not supported", the program's fallback runs.
    let ixgbe = run("xdp-kfunc-cost", &["nic.driver=ixgbe"]);
    assert!(ixgbe.int("xdp.unsupported") > 0);
    assert!(f(&ixgbe, "xdp.ns_per_pkt") > f(&meta, "xdp.ns_per_pkt"));
}

/// Seed 001 (tc software bypass): one tcf_proto holding a skip_sw filter and a software-only
/// filter. The v6.10-6.13 counters (filtercnt counts tps, skipswcnt filters: 1 == 1) bypass
/// software and the second filter never runs; v6.14's usesw does not. Parallel insertion of
/// 16 x 100,000 rules: 50.8 s under the block-wide lock, 17.7 s after.
#[test]
fn seed_001_tc_bypass_legacy_versus_usesw() {
    let legacy = run("tc-bypass", &["tc.counting=legacy"]);
    let usesw = run("tc-bypass", &["tc.counting=usesw"]);
    assert_eq!(legacy.get("tc.bypass_sw"), Some(&serde_json::Value::Bool(true)));
    assert_eq!(usesw.get("tc.bypass_sw"), Some(&serde_json::Value::Bool(false)));
    assert!(legacy.int("tc.sw_missed") > 0);
    assert_eq!(usesw.int("tc.sw_missed"), 0);
    assert_eq!((legacy.int("tc.filtercnt"), legacy.int("tc.skipswcnt")), (1, 1));
    assert!(
        usesw.int("packets.dropped.tc") > legacy.int("packets.dropped.tc"),
        "the DNS filter drops again"
    );
    let secs = |r: &Report| r.get("tc.insert_seconds").and_then(|v| v.as_f64()).unwrap();
    assert!(
        (secs(&legacy) - 50.8).abs() < 0.5 && (secs(&usesw) - 17.7).abs() < 0.3,
        "{} {}",
        secs(&legacy),
        secs(&usesw)
    );
}
