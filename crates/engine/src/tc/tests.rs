//! The block's counters in both kernels, its priorities, handles and verdicts, its refusals and
//! seed 001's insertion model.

use alloc::format;
use alloc::string::ToString;
use core::net::Ipv4Addr;

use super::*;
use crate::flow::FlowKey;

const BOTH: [Counting; 2] = [Counting::Legacy, Counting::Usesw];

fn ip(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 0, last))
}

/// A TCP flow from 10.0.0.`src` to 10.0.0.1:`dport`.
fn key(src: u8, dport: u16) -> FlowKey {
    FlowKey::new(ip(src), ip(1), 40_000, dport, Proto::Tcp).unwrap()
}

/// Matches packets from 10.0.0.`src`.
fn from(src: u8) -> Match {
    Match {
        src_ip: Some(ip(src)),
        ..Match::default()
    }
}

/// S: `skip_sw`, in hardware, drop.
fn s(prio: Option<u16>, src: u8) -> FilterSpec {
    FilterSpec {
        prio,
        skip_sw: true,
        ..FilterSpec::new(from(src), Action::Drop)
    }
}

/// N: a normal software filter. `skip_hw`, so that the NIC does not act on it and the
/// software verdict is visible.
fn n(prio: Option<u16>, src: u8) -> FilterSpec {
    FilterSpec {
        prio,
        skip_hw: true,
        ..FilterSpec::new(from(src), Action::Drop)
    }
}

fn block(c: Counting) -> TcBlock {
    TcBlock::new(c, true)
}

fn expect(c: Counting, legacy: bool, usesw: bool) -> bool {
    match c {
        Counting::Legacy => legacy,
        Counting::Usesw => usesw,
    }
}

// --- §4.3 worked cases, both countings -------------------------------------------------

#[test]
fn row_tp1_s() {
    for c in BOTH {
        let mut b = block(c);
        b.add(s(Some(1), 2)).unwrap();
        assert!(b.bypass_sw(), "{c}");
        assert_eq!((b.filtercnt(), b.skipswcnt(), b.useswcnt()), (1, 1, 0));
        // The NIC drops what S matches; other packets pass through a bypassed block.
        assert_eq!(b.classify(&key(2, 80)).sw, SwResult::DroppedInHw);
        assert_eq!(b.classify(&key(3, 80)).sw, SwResult::Bypassed { missed: false });
    }
}

#[test]
fn row_tp1_s_s() {
    for c in BOTH {
        let mut b = block(c);
        b.add(s(Some(1), 2)).unwrap();
        b.add(s(Some(1), 3)).unwrap();
        assert_eq!(b.bypass_sw(), expect(c, false, true), "{c}");
        assert_eq!((b.filtercnt(), b.skipswcnt(), b.useswcnt()), (1, 2, 0));
        let sw = b.classify(&key(4, 80)).sw;
        match c {
            // Missed optimisation: the block is walked although nothing runs in software.
            Counting::Legacy => assert!(matches!(
                sw,
                SwResult::Classified {
                    action: None,
                    walked: 0,
                    ..
                }
            )),
            Counting::Usesw => assert_eq!(sw, SwResult::Bypassed { missed: false }),
        }
    }
}

#[test]
fn row_tp1_s_n_is_the_seed_001_bug() {
    for c in BOTH {
        let mut b = block(c);
        b.add(s(Some(1), 2)).unwrap();
        b.add(n(Some(1), 3)).unwrap();
        assert_eq!(b.bypass_sw(), expect(c, true, false), "{c}");
        assert_eq!((b.filtercnt(), b.skipswcnt(), b.useswcnt()), (1, 1, 1));
        let r = b.classify(&key(3, 80));
        assert_eq!(r.hw, None);
        match c {
            Counting::Legacy => assert_eq!(r.sw, SwResult::Bypassed { missed: true }),
            Counting::Usesw => assert_eq!(
                r.sw,
                SwResult::Classified {
                    action: Some(Action::Drop),
                    filter: Some(FilterId { prio: 1, handle: 2 }),
                    walked: 1,
                    lookups: 1,
                }
            ),
        }
    }
}

#[test]
fn row_tp1_s_tp2_n() {
    for c in BOTH {
        let mut b = block(c);
        b.add(s(Some(1), 2)).unwrap();
        b.add(n(Some(2), 3)).unwrap();
        assert!(!b.bypass_sw(), "{c}");
        assert_eq!((b.filtercnt(), b.skipswcnt(), b.useswcnt()), (2, 1, 1));
        assert!(matches!(
            b.classify(&key(3, 80)).sw,
            SwResult::Classified {
                action: Some(Action::Drop),
                ..
            }
        ));
    }
}

#[test]
fn row_tp1_s_n_then_delete_n_sticky_usesw() {
    for c in BOTH {
        let mut b = block(c);
        b.add(s(Some(1), 2)).unwrap();
        let nid = b.add(n(Some(1), 3)).unwrap();
        b.del_filter(nid.prio, nid.handle).unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b.bypass_sw(), expect(c, true, false), "{c}");
        let tp = b.tps()[0];
        assert!(tp.usesw && tp.usesw_counted, "usesw is sticky");
        assert_eq!(b.useswcnt(), 1);
        // Destroying the tp does decrement.
        b.del(Some(1)).unwrap();
        assert_eq!(b.useswcnt(), 0);
    }
}

#[test]
fn row_tp1_s_s_tp2_s_then_delete_one_s() {
    for c in BOTH {
        let mut b = block(c);
        b.add(s(Some(1), 2)).unwrap();
        let gone = b.add(s(Some(1), 3)).unwrap();
        b.add(s(Some(2), 4)).unwrap();
        assert_eq!(b.bypass_sw(), expect(c, false, true), "{c}");
        b.del_filter(gone.prio, gone.handle).unwrap();
        // Legacy: 2 == 2 now, but bypass_wanted is not recomputed by a filter delete.
        assert_eq!((b.filtercnt(), b.skipswcnt()), (2, 2));
        assert_eq!(b.bypass_sw(), expect(c, false, true), "{c}");
        // The next successful add recomputes it.
        b.add(s(Some(3), 5)).unwrap();
        assert_eq!((b.filtercnt(), b.skipswcnt()), (3, 3));
        assert!(b.bypass_sw(), "{c}");
    }
}

#[test]
fn row_empty_block() {
    for c in BOTH {
        let b = block(c);
        assert_eq!(b.bypass_sw(), expect(c, false, true), "{c}");
        assert!(b.is_empty());
        let sw = b.classify(&key(2, 80)).sw;
        match c {
            Counting::Legacy => {
                assert_eq!(
                    sw,
                    SwResult::Classified {
                        action: None,
                        filter: None,
                        walked: 0,
                        lookups: 0
                    }
                )
            }
            Counting::Usesw => assert_eq!(sw, SwResult::Bypassed { missed: false }),
        }
    }
}

#[test]
fn a_new_device_takes_or_drops_the_offloaded_filters() {
    for c in BOTH {
        let mut b = block(c);
        let hw = b
            .add(FilterSpec {
                skip_sw: true,
                ..FilterSpec::new(from(1), Action::Drop)
            })
            .unwrap();
        b.add(FilterSpec {
            prio: Some(hw.prio),
            ..FilterSpec::new(from(2), Action::Pass)
        })
        .unwrap();
        b.add(FilterSpec {
            skip_hw: true,
            ..FilterSpec::new(from(3), Action::Drop)
        })
        .unwrap();
        let (bypass, usesw) = (b.bypass_sw(), b.useswcnt());
        assert_eq!((b.offloadcnt(), b.skipswcnt()), (2, 1));
        // A device without tc offload: the two in-hardware filters leave it.
        assert_eq!(b.reoffload(false), 2);
        assert_eq!((b.offloadcnt(), b.skipswcnt()), (0, 0));
        assert!(b.filters().iter().all(|f| !f.in_hw));
        assert_eq!(
            (b.bypass_sw(), b.useswcnt()),
            (bypass, usesw),
            "{c:?}: decided only when filters come and go"
        );
        // The skip_sw filter now matches nowhere: neither in the NIC nor in software.
        let v = b.classify(&key(1, 80));
        assert_eq!(v.hw, None, "{c:?}");
        assert!(
            !matches!(
                v.sw,
                SwResult::Classified { action: Some(_), .. } | SwResult::DroppedInHw
            ),
            "{c:?}: {v:?}"
        );
        // Back on an offloading device: both are taken again; skip_hw stays in software.
        assert_eq!(b.reoffload(true), 2);
        assert_eq!((b.offloadcnt(), b.skipswcnt()), (2, 1));
        assert_eq!(b.reoffload(true), 0);
    }
}

#[test]
fn destroying_the_last_tp_resets_every_counter() {
    for c in BOTH {
        let mut b = block(c);
        b.add(s(None, 2)).unwrap();
        b.add(n(None, 3)).unwrap();
        b.add(FilterSpec::new(from(4), Action::Pass)).unwrap();
        assert_eq!(b.offloadcnt(), 2);
        assert_eq!(b.del(None), Ok(3));
        assert_eq!(
            (b.filtercnt(), b.skipswcnt(), b.useswcnt(), b.offloadcnt()),
            (0, 0, 0, 0)
        );
        assert!(!b.bypass_wanted());
        assert_eq!(b, block(c));
        assert_eq!(b.del(None), Ok(0));
    }
}

#[test]
fn deleting_the_last_filter_destroys_the_tp() {
    let mut b = block(Counting::Legacy);
    let a = b.add(s(Some(7), 2)).unwrap();
    b.add(n(Some(9), 3)).unwrap();
    assert!(!b.bypass_sw());
    let last = b.filters()[1];
    b.del_filter(last.prio, last.handle).unwrap();
    // tp 9 destroyed: filtercnt 1 == skipswcnt 1, recomputed on destroy.
    assert_eq!(b.tps().len(), 1);
    assert!(b.bypass_sw());
    b.del_filter(a.prio, a.handle).unwrap();
    assert!(b.is_empty() && !b.bypass_sw());
}

// --- priorities and handles -------------------------------------------------------------

#[test]
fn automatic_priorities_count_down_from_49152() {
    let mut b = block(Counting::Usesw);
    let got: Vec<FilterId> = (2..6)
        .map(|i| b.add(FilterSpec::new(from(i), Action::Pass)).unwrap())
        .collect();
    let prios: Vec<u16> = got.iter().map(|id| id.prio).collect();
    assert_eq!(prios, [49_152, 49_151, 49_150, 49_149]);
    assert!(
        got.iter().all(|id| id.handle == 1),
        "each automatic filter has its own tp"
    );
    assert_eq!(b.tps().len(), 4);
    // A tp below 32768 does not influence the choice; one above does.
    b.add(FilterSpec {
        prio: Some(10),
        ..FilterSpec::new(from(9), Action::Pass)
    })
    .unwrap();
    assert_eq!(b.add(FilterSpec::new(from(10), Action::Pass)).unwrap().prio, 49_148);
    let mut b = block(Counting::Usesw);
    b.add(FilterSpec {
        prio: Some(40_000),
        ..FilterSpec::new(from(9), Action::Pass)
    })
    .unwrap();
    assert_eq!(b.add(FilterSpec::new(from(10), Action::Pass)).unwrap().prio, 39_999);
    // A tp at exactly 32768 blocks automatic priorities.
    let mut b = block(Counting::Usesw);
    b.add(FilterSpec {
        prio: Some(32_768),
        ..FilterSpec::new(from(9), Action::Pass)
    })
    .unwrap();
    let before = b.clone();
    assert_eq!(
        b.add(FilterSpec::new(from(10), Action::Pass)),
        Err(TcError::AutoPrioTaken)
    );
    assert_eq!(b, before);
}

#[test]
fn explicit_prio_shares_a_tp_and_handles_reuse_the_lowest_free() {
    let mut b = block(Counting::Usesw);
    for i in 2..5 {
        assert_eq!(
            b.add(n(Some(5), i)).unwrap(),
            FilterId {
                prio: 5,
                handle: u32::from(i) - 1
            }
        );
    }
    assert_eq!(b.tps().len(), 1);
    b.del_filter(5, 2).unwrap();
    assert_eq!(b.add(n(Some(5), 9)).unwrap().handle, 2);
    let handles: Vec<u32> = b.filters().iter().map(|r| r.handle).collect();
    assert_eq!(handles, [1, 2, 3]);
}

#[test]
fn classification_follows_priority_order() {
    let mut b = TcBlock::new(Counting::Usesw, false);
    b.add(FilterSpec {
        prio: Some(20),
        ..FilterSpec::new(from(2), Action::Drop)
    })
    .unwrap();
    b.add(FilterSpec {
        prio: Some(10),
        ..FilterSpec::new(from(3), Action::Drop)
    })
    .unwrap();
    b.add(FilterSpec {
        prio: Some(15),
        ..FilterSpec::new(from(2), Action::Pass)
    })
    .unwrap();
    let rows: Vec<u16> = b.filters().iter().map(|r| r.prio).collect();
    assert_eq!(rows, [10, 15, 20]);
    assert!(b.filters().iter().all(|r| !r.in_hw));
    let r = b.classify(&key(2, 80));
    assert_eq!(r.hw, None);
    assert_eq!(
        r.sw,
        SwResult::Classified {
            action: Some(Action::Pass),
            filter: Some(FilterId { prio: 15, handle: 1 }),
            walked: 2,
            lookups: 2,
        }
    );
    let r = b.classify(&key(7, 80));
    assert_eq!(
        r.sw,
        SwResult::Classified {
            action: None,
            filter: None,
            walked: 3,
            lookups: 3
        }
    );
}

#[test]
fn within_a_tp_masks_are_probed_in_creation_order() {
    let mut b = TcBlock::new(Counting::Usesw, false);
    let tcp = |dport| Match {
        ip_proto: Some(Proto::Tcp),
        dst_port: Some(dport),
        ..Match::default()
    };
    b.add(FilterSpec {
        prio: Some(1),
        ..FilterSpec::new(from(2), Action::Pass)
    })
    .unwrap(); // mask A
    b.add(FilterSpec {
        prio: Some(1),
        ..FilterSpec::new(tcp(80), Action::Drop)
    })
    .unwrap(); // mask B
    b.add(FilterSpec {
        prio: Some(1),
        ..FilterSpec::new(from(3), Action::Drop)
    })
    .unwrap(); // mask A
               // 10.0.0.3 → :80 matches handle 2 (mask B) and handle 3 (mask A): mask A is probed first.
    let r = b.classify(&key(3, 80));
    assert_eq!(
        r.sw,
        SwResult::Classified {
            action: Some(Action::Drop),
            filter: Some(FilterId { prio: 1, handle: 3 }),
            walked: 2,
            lookups: 1,
        }
    );
    // A skip_sw filter's mask is probed in software but the filter is not run.
    let mut b = block(Counting::Legacy);
    b.add(s(Some(1), 2)).unwrap();
    b.add(FilterSpec {
        prio: Some(2),
        skip_hw: true,
        ..FilterSpec::new(tcp(80), Action::Pass)
    })
    .unwrap();
    assert!(!b.bypass_sw());
    let r = b.classify(&key(9, 80));
    assert!(matches!(
        r.sw,
        SwResult::Classified {
            action: Some(Action::Pass),
            walked: 1,
            lookups: 2,
            ..
        }
    ));
}

#[test]
fn hardware_verdicts() {
    let mut b = block(Counting::Usesw);
    // An ordinary filter is offloaded too: the NIC drops before software.
    b.add(FilterSpec {
        prio: Some(1),
        ..FilterSpec::new(from(2), Action::Drop)
    })
    .unwrap();
    // A pass in hardware is met again in software.
    b.add(FilterSpec {
        prio: Some(2),
        ..FilterSpec::new(from(3), Action::Pass)
    })
    .unwrap();
    let r = b.classify(&key(2, 80));
    let dropped_by = |prio| {
        (
            Some(Action::Drop),
            Some(FilterId { prio, handle: 1 }),
            SwResult::DroppedInHw,
        )
    };
    assert_eq!((r.hw, r.hw_filter, r.sw), dropped_by(1));
    let r = b.classify(&key(3, 80));
    assert_eq!(r.hw, Some(Action::Pass));
    assert!(matches!(
        r.sw,
        SwResult::Classified {
            action: Some(Action::Pass),
            ..
        }
    ));
    // The NIC does not know a higher-priority software-only filter: it drops what software
    // would have passed.
    b.add(FilterSpec {
        prio: Some(0x100),
        ..FilterSpec::new(from(4), Action::Drop)
    })
    .unwrap();
    b.add(FilterSpec {
        prio: Some(3),
        skip_hw: true,
        ..FilterSpec::new(from(4), Action::Pass)
    })
    .unwrap();
    let row = b.filters().into_iter().find(|r| r.prio == 3).unwrap();
    assert!(!row.in_hw && row.skip_hw);
    let r = b.classify(&key(4, 80));
    assert_eq!((r.hw, r.hw_filter, r.sw), dropped_by(0x100));
}

#[test]
fn hits_are_counted_per_side() {
    let mut b = block(Counting::Usesw);
    let a = b
        .add(FilterSpec {
            prio: Some(1),
            ..FilterSpec::new(from(2), Action::Pass)
        })
        .unwrap();
    let d = b.add(s(Some(2), 3)).unwrap();
    b.classify_and_count(&key(2, 80), 5);
    b.classify_and_count(&key(3, 80), 7);
    b.classify_and_count(&key(9, 80), 11);
    let rows = b.filters();
    let row = |id: FilterId| {
        rows.iter()
            .find(|r| r.prio == id.prio && r.handle == id.handle)
            .copied()
            .unwrap()
    };
    assert_eq!((row(a).hits_hw, row(a).hits_sw), (5, 5));
    assert_eq!((row(d).hits_hw, row(d).hits_sw), (7, 0));
    // classify does not count.
    b.classify(&key(2, 80));
    assert_eq!(b.filters()[0].hits_sw, 5);
    // Bypassed packets are not counted in software.
    let mut b = block(Counting::Legacy);
    b.add(s(Some(1), 2)).unwrap();
    let nid = b.add(n(Some(1), 3)).unwrap();
    assert_eq!(
        b.classify_and_count(&key(3, 80), 4).sw,
        SwResult::Bypassed { missed: true }
    );
    assert!(b.filters().iter().all(|r| r.hits_sw == 0 && r.hits_hw == 0));
    assert_eq!(nid, FilterId { prio: 1, handle: 2 });
}

// --- refusals -----------------------------------------------------------------------------

fn refused(b: &mut TcBlock, spec: FilterSpec, want: TcError) {
    let before = b.clone();
    assert_eq!(b.add(spec), Err(want));
    assert_eq!(*b, before, "a refused add changes nothing");
    assert!(!want.to_string().is_empty());
}

#[test]
fn skip_sw_without_offload_is_refused() {
    for c in BOTH {
        let mut b = TcBlock::new(c, false);
        b.add(n(Some(1), 2)).unwrap();
        refused(&mut b, s(None, 3), TcError::SkipSwWithoutOffload);
        refused(&mut b, s(Some(1), 3), TcError::SkipSwWithoutOffload);
        assert!(TcError::SkipSwWithoutOffload.to_string().contains("skip_sw"));
    }
}

#[test]
fn skip_sw_with_skip_hw_is_refused() {
    for c in BOTH {
        for offload in [false, true] {
            let mut b = TcBlock::new(c, offload);
            let both = FilterSpec {
                skip_hw: true,
                ..s(None, 2)
            };
            refused(&mut b, both, TcError::BothSkipFlags);
            refused(&mut b, FilterSpec { prio: Some(4), ..both }, TcError::BothSkipFlags);
            assert!(b.is_empty());
        }
    }
}

#[test]
fn other_refusals_leave_the_block_unchanged() {
    // A stale legacy bypass_wanted stays stale through refusals.
    let mut b = block(Counting::Legacy);
    b.add(s(Some(1), 2)).unwrap();
    let gone = b.add(s(Some(1), 3)).unwrap();
    b.add(s(Some(2), 4)).unwrap();
    b.del_filter(gone.prio, gone.handle).unwrap();
    assert!(!b.bypass_sw());
    refused(
        &mut b,
        FilterSpec {
            skip_hw: true,
            ..s(None, 9)
        },
        TcError::BothSkipFlags,
    );
    refused(&mut b, s(Some(1), 2), TcError::Exists { prio: 1, handle: 1 });
    refused(&mut b, n(Some(1), 2), TcError::Exists { prio: 1, handle: 1 });
    refused(&mut b, s(Some(0), 5), TcError::PrioZero);
    let port = Match {
        dst_port: Some(80),
        ..Match::default()
    };
    refused(&mut b, FilterSpec::new(port, Action::Drop), TcError::PortWithoutIpProto);
    let v6: IpAddr = "2001:db8::1".parse().unwrap();
    let mixed = Match {
        src_ip: Some(ip(2)),
        dst_ip: Some(v6),
        ..Match::default()
    };
    refused(&mut b, FilterSpec::new(mixed, Action::Drop), TcError::MixedFamilies);
    assert!(!b.bypass_sw());
    let before = b.clone();
    assert_eq!(b.del(Some(99)), Err(TcError::NoSuchPrio { prio: 99 }));
    assert_eq!(b.del_filter(99, 1), Err(TcError::NoSuchPrio { prio: 99 }));
    assert_eq!(b.del_filter(1, 7), Err(TcError::NoSuchFilter { prio: 1, handle: 7 }));
    assert_eq!(b, before);
    // The same key at another prio is a different tp and accepted.
    b.add(s(Some(3), 2)).unwrap();
}

#[test]
fn messages_say_what_is_accepted() {
    assert!(TcError::PrioZero.to_string().contains("1..=65535"));
    assert!(TcError::BothSkipFlags.to_string().contains("at most one"));
    assert!(TcError::PortWithoutIpProto.to_string().contains("ip_proto tcp"));
    assert!(TcError::NoSuchFilter { prio: 3, handle: 9 }
        .to_string()
        .contains("prio 3"));
}

// --- names and display ----------------------------------------------------------------

#[test]
fn names() {
    assert_eq!(Counting::parse("legacy"), Some(Counting::Legacy));
    assert_eq!(Counting::parse("usesw"), Some(Counting::Usesw));
    assert_eq!(Counting::parse("6.14"), None);
    assert_eq!(Counting::accepted(), "legacy | usesw");
    assert_eq!(
        <Action as crate::names::NamedEnum>::from_name("drop"),
        Some(Action::Drop)
    );
    let m = Match {
        src_ip: Some(ip(2)),
        dst_port: Some(80),
        ip_proto: Some(Proto::Tcp),
        ..Match::default()
    };
    assert_eq!(format!("{m}"), "ip_proto tcp src_ip 10.0.0.2 dst_port 80");
    assert_eq!(format!("{}", Match::default()), "");
}

// --- seed 001 insertion model -----------------------------------------------------------

fn within(got: u64, want: u64, permille: u64) -> bool {
    got.abs_diff(want) * 1000 <= want * permille
}

#[test]
fn insertion_model_reproduces_seed_001() {
    assert_eq!(INSERT_SERIAL_NS + INSERT_PARALLEL_NS, 31_750);
    let old = insertion_ns(16, 100_000, Counting::Legacy, INSERT_SERIAL_NS, INSERT_PARALLEL_NS);
    let new = insertion_ns(16, 100_000, Counting::Usesw, INSERT_SERIAL_NS, INSERT_PARALLEL_NS);
    assert!(within(old, 50_780_000_000, 5), "{old}");
    assert!(within(new, 17_718_000_000, 5), "{new}");
    assert!(within(old, 50_800_000_000, 5) && within(new, 17_700_000_000, 5));
    assert_eq!(old, 50_800_000_000);
    // One inserter: no contention either way.
    let one = |c| insertion_ns(1, 1000, c, INSERT_SERIAL_NS, INSERT_PARALLEL_NS);
    assert_eq!(one(Counting::Legacy), one(Counting::Usesw));
    // Two inserters: the parallel parts overlap.
    assert_eq!(
        insertion_ns(2, 1000, Counting::Usesw, INSERT_SERIAL_NS, INSERT_PARALLEL_NS),
        31_750_000
    );
    assert_eq!(insertion_ns(0, 1000, Counting::Usesw, 1, 1), 0);
    assert_eq!(insertion_ns(0, 1000, Counting::Legacy, 1, 1), 0);
    assert_eq!(
        insertion_ns(u32::MAX, u32::MAX, Counting::Legacy, u64::MAX, 1),
        u64::MAX
    );
    assert_eq!(insertion_ns(u32::MAX, u32::MAX, Counting::Usesw, u64::MAX, 1), u64::MAX);
}

/// `count` books a decision exactly as `classify_and_count` would.
#[test]
fn count_books_like_classify_and_count() {
    let mut a = block(Counting::Usesw);
    a.add(s(Some(1), 2)).unwrap();
    a.add(n(Some(2), 3)).unwrap();
    let mut b = a.clone();
    for src in [2, 3, 4] {
        let k = key(src, 80);
        a.classify_and_count(&k, 5);
        let c = b.classify(&k);
        b.count(&c, 5);
    }
    assert_eq!(a.filters(), b.filters());
    assert!(a.filters().iter().any(|f| f.hits_hw == 5) && a.filters().iter().any(|f| f.hits_sw == 5));
}
