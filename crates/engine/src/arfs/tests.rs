//! The drivers' rules, each against the kernel behaviour it follows.

use super::*;

struct Never;
impl ExpiryOracle for Never {
    fn may_expire(&self, _: u16, _: u32, _: u16) -> bool {
        false
    }
}
struct Always;
impl ExpiryOracle for Always {
    fn may_expire(&self, _: u16, _: u32, _: u16) -> bool {
        true
    }
}

/// `driver`'s state with room for `limit` rules and `n` flows whose tuples differ.
fn tracked(driver: Driver, limit: u32, n: u32) -> Arfs {
    let mut a = Arfs::new(driver, limit);
    for f in 0..n {
        let ip = core::net::IpAddr::V4(core::net::Ipv4Addr::from(0x0a00_0000 + f));
        a.track_flow(
            &FlowKey::new(
                ip,
                core::net::IpAddr::V4(core::net::Ipv4Addr::new(10, 0, 0, 1)),
                1000 + f as u16,
                80,
                crate::flow::Proto::Tcp,
            )
            .unwrap(),
        );
    }
    a
}

/// A whole ice service run: the walk (with its expiry half) and its writes.
fn service(a: &mut Arfs, now: Nanos, oracle: &impl ExpiryOracle) {
    a.ice_sync(now, oracle, true);
    a.ice_writes_done();
}

fn req(flow: u32, hash: u32, rxq: u16, flow_id: u32) -> SteerRequest {
    SteerRequest {
        flow,
        hash,
        rxq,
        flow_id,
        udp: false,
        calls: 1,
    }
}

/// Seed 000's scenario: flow 1 at q10, then flow 2 with the same hash wants q20. Hash-only
/// matching re-points flow 1's filter (flow 1 mis-steered, flow 2 never programmed).
#[test]
fn ice_hash_only_match_reprograms_the_wrong_filter() {
    let mut a = tracked(Driver::IceHashMatch, 100, 2);
    assert!(matches!(a.rx_flow_steer(req(0, 0xabc, 10, 7)), (Steer::Add(1), true)));
    service(&mut a, Nanos::ZERO, &Never);
    assert_eq!(a.hw_queue(0), Some(10));
    assert!(matches!(
        a.rx_flow_steer(req(1, 0xabc, 20, 7)),
        (Steer::Update(1), true)
    ));
    service(&mut a, Nanos::from_secs(1), &Never);
    assert_eq!(a.hw_queue(0), Some(20), "flow 0 now lands on flow 1's queue");
    assert_eq!(a.hw_queue(1), None, "flow 1 never gets a filter");
    assert_eq!(
        (a.counters.add, a.counters.update, a.counters.misprogram_avoided),
        (1, 1, 0)
    );
}

#[test]
fn ice_full_tuple_match_adds_a_second_filter_and_counts_the_avoided_match() {
    let mut a = tracked(Driver::Ice, 100, 2);
    a.rx_flow_steer(req(0, 0xabc, 10, 7));
    service(&mut a, Nanos::ZERO, &Never);
    assert!(matches!(a.rx_flow_steer(req(1, 0xabc, 20, 7)), (Steer::Add(2), true)));
    service(&mut a, Nanos::from_secs(1), &Never);
    assert_eq!((a.hw_queue(0), a.hw_queue(1)), (Some(10), Some(20)));
    assert_eq!((a.counters.update, a.counters.misprogram_avoided), (0, 1));
    // Same queue again: skip, repeatable, nothing changes.
    assert!(matches!(a.rx_flow_steer(req(1, 0xabc, 20, 7)), (Steer::Skip(2), false)));
    assert_eq!(
        a.counters.misprogram_avoided, 1,
        "flow 1's entry is the bucket head: found first"
    );
    // Flow 0 walks past flow 1's entry (same flow_id, other tuple) to its own.
    assert!(matches!(a.rx_flow_steer(req(0, 0xabc, 10, 7)), (Steer::Skip(1), false)));
    assert_eq!(a.counters.misprogram_avoided, 2);
}

#[test]
fn ice_skips_while_inactive_and_expires_in_the_service_task() {
    let mut a = tracked(Driver::Ice, 100, 1);
    a.rx_flow_steer(req(0, 5, 3, 5));
    assert!(
        matches!(a.rx_flow_steer(req(0, 5, 4, 5)), (Steer::Skip(1), false)),
        "INACTIVE: skip"
    );
    service(&mut a, Nanos::ZERO, &Always);
    assert_eq!(a.hw_queue(0), Some(3), "programmed, not expired in the same pass");
    service(&mut a, Nanos::from_secs(1), &Always);
    assert_eq!((a.hw_queue(0), a.active(), a.counters.expire), (None, 0, 1));
}

#[test]
fn ice_udp_filters_expire_by_age() {
    let mut a = tracked(Driver::Ice, 100, 1);
    a.rx_flow_steer(SteerRequest {
        udp: true,
        ..req(0, 5, 3, 5)
    });
    service(&mut a, Nanos::from_secs(1), &Never);
    service(&mut a, Nanos::from_secs(5), &Never);
    assert_eq!(a.active(), 1);
    service(&mut a, Nanos::from_secs(6), &Never);
    assert_eq!(a.active(), 0);
}

/// Neither driver refuses `ndo_rx_flow_steer` for lack of room: both flows get an entry,
/// the second one's hardware write fails, and the entry stays without a rule (its packets
/// keep their RSS queue); a call for the same queue is a skip, not a retry. Once the first
/// rule expires, the table has room again.
#[test]
fn a_full_table_keeps_the_entry_without_a_rule() {
    for driver in [Driver::Ice, Driver::Mlx5] {
        let mut a = tracked(driver, 1, 2);
        assert!(matches!(a.rx_flow_steer(req(0, 1, 1, 1)).0, Steer::Add(_)));
        assert!(
            matches!(a.rx_flow_steer(req(1, 2, 1, 2)).0, Steer::Add(_)),
            "{driver}: no refusal"
        );
        let sync = |a: &mut Arfs| {
            if driver == Driver::Mlx5 {
                unbounded(a, &Never);
            } else {
                service(a, Nanos::ZERO, &Never)
            }
        };
        sync(&mut a);
        assert_eq!(
            (a.hw_queue(0), a.hw_queue(1), a.counters.full, a.active()),
            (Some(1), None, 1, 2),
            "{driver}"
        );
        assert!(
            matches!(a.rx_flow_steer(req(1, 2, 1, 2)), (Steer::Skip(_), false)),
            "{driver}: no retry"
        );
    }
}

/// `arfs_may_expire_flow` runs after every work item: 100 expirable rules in one chain
/// (same ports, other addresses) lose 62 to the first item's pass and the rest to the
/// second's.
#[test]
fn mlx5_expires_after_each_work_item() {
    // `n` rules in one chain (same ports, other addresses), the last `late` of them
    // pending: then one batch with every rule expirable.
    let expired = |n: u32, late: u32| {
        let mut a = Arfs::new(Driver::Mlx5, 1000);
        for f in 0..n {
            let ip = core::net::IpAddr::V4(core::net::Ipv4Addr::from(0x0a00_0000 + f));
            a.track_flow(
                &FlowKey::new(
                    ip,
                    core::net::IpAddr::V4(core::net::Ipv4Addr::new(10, 0, 0, 1)),
                    5000,
                    80,
                    crate::flow::Proto::Tcp,
                )
                .unwrap(),
            );
        }
        for f in 0..n - late {
            a.rx_flow_steer(req(f, f, 1, f));
        }
        unbounded(&mut a, &Never);
        for f in n - late..n {
            a.rx_flow_steer(req(f, f, 1, f));
        }
        assert!(unbounded(&mut a, &Always).passes > 0);
        a.counters.expire
    };
    assert_eq!(
        expired(101, 1),
        62,
        "one work item, one pass: the chain's walk stops at 62"
    );
    assert_eq!(
        expired(102, 2),
        102,
        "62 after the first item, the other 40 after the second"
    );
}

/// mlx5 rules match the full tuple and are written by their work item; each work item's
/// expiry pass takes every expirable rule of a chain up to 62 (`quota++ > 60`), then one
/// from each later chain.
#[test]
fn mlx5_matches_full_tuple_programs_in_work_and_expires_by_quota() {
    let mut a = tracked(Driver::Mlx5, 1000, 100);
    for f in 0..100 {
        a.rx_flow_steer(req(f, 7, 1, 7)); // same hash, distinct tuples: distinct rules
    }
    assert_eq!(a.counters.add, 100);
    assert!(
        matches!(a.rx_flow_steer(req(3, 7, 2, 7)).0, Steer::Skip(_)),
        "work pending: skip"
    );
    let walks = unbounded(&mut a, &Never);
    // 100 work items, each followed by a pass over all 100 rules under arfs_lock.
    assert_eq!(
        (walks.passes, walks.entries, walks.lengths),
        (100, 100 * 100, vec![(100, 100)])
    );
    assert_eq!(a.hw_queue(99), Some(1));
    assert!(matches!(a.rx_flow_steer(req(3, 7, 2, 7)).0, Steer::Update(_)));
    assert!(unbounded(&mut a, &Always).passes > 0);
    // One work item, one pass: 62 rules, then the first rule of every later chain.
    let chains_after_62 = {
        let Model::Mlx5 { chain, .. } = &a.model else {
            unreachable!()
        };
        let mut order: Vec<(u16, core::cmp::Reverse<u32>)> = (0..100u32)
            .map(|f| (chain[f as usize], core::cmp::Reverse(f + 1)))
            .collect();
        order.sort_unstable();
        let cut = order[61].0;
        order
            .iter()
            .filter(|o| o.0 > cut)
            .map(|o| o.0)
            .collect::<alloc::collections::BTreeSet<_>>()
            .len() as u64
    };
    assert_eq!(a.counters.expire, 62 + chains_after_62);
    // The per-queue tallies add up to the driver's counters.
    let sum = |f: fn(&QueueTally) -> u64| a.per_queue.iter().map(f).sum::<u64>();
    assert_eq!(
        (sum(|t| t.add), sum(|t| t.update), sum(|t| t.expire)),
        (a.counters.add, a.counters.update, a.counters.expire)
    );
    assert_eq!(unbounded(&mut a, &Always).passes, 0, "no work, no expiry");
}

/// Prices of the worker's parts for the tests: a write 5 µs, a rule walked 10 ns.
const PRICES: WorkPrices = WorkPrices {
    write_ns: 5000,
    entry_ns: 10,
};

/// mlx5's work with all the time it needs.
fn unbounded(a: &mut Arfs, oracle: &impl ExpiryOracle) -> Walks {
    a.mlx5_work(oracle, u64::MAX, PRICES).0
}

/// mlx5's one ordered worker: the items it has no time for wait in order for its next turn,
/// an item begun is finished, and a flow whose item waits is answered without a new one
/// (`work_busy`): requests coalesce while the backlog is there.
#[test]
fn mlx5_worker_runs_in_order_for_its_time_and_requests_coalesce() {
    let mut a = tracked(Driver::Mlx5, 1000, 10);
    for f in 0..10 {
        a.rx_flow_steer(req(f, f, 1, f));
    }
    assert_eq!(a.work_queued(), 10);
    // Each item: a write (5000 ns) and a walk of the 10 live rules (100 ns).
    let (walks, used) = a.mlx5_work(&Never, 3 * 5100 - 1, PRICES);
    assert_eq!(
        (walks.passes, used, a.work_queued()),
        (3, 3 * 5100, 7),
        "the third item is finished"
    );
    assert_eq!(
        (0..10).map(|f| a.hw_queue(f).is_some()).collect::<Vec<_>>(),
        [true, true, true, false, false, false, false, false, false, false],
        "in the order queued"
    );
    let before = a.counters;
    assert!(
        matches!(a.rx_flow_steer(req(5, 5, 2, 5)), (Steer::Skip(_), false)),
        "its item waits: nothing queued"
    );
    assert_eq!((a.counters.skip, a.work_queued()), (before.skip + 1, 7));
    assert!(
        matches!(a.rx_flow_steer(req(1, 1, 2, 1)).0, Steer::Update(_)),
        "a rule whose item ran moves"
    );
    assert_eq!(a.work_queued(), 8);
    assert_eq!(
        a.mlx5_work(&Never, 0, PRICES),
        (Walks::default(), 0),
        "no time, no work"
    );
    let (walks, _) = a.mlx5_work(&Never, u64::MAX, PRICES);
    assert_eq!((walks.passes, a.work_queued(), a.hw_queue(1)), (8, 0, Some(2)));
}
