//! tc ingress filters on one block, and when the kernel skips running them in software
//! (kernel-semantics §4).
//!
//! Why this module exists: `skip_sw` filters live only in the NIC, yet before v6.10 the kernel
//! still walked every block in software, so the CPU cost of `tc_run` grew with the number of
//! offloaded rules. The series "make skip_sw actually skip software" (v6.10) let a block be
//! bypassed when all of it is in hardware, but counted the wrong things: `filtercnt` counts tps
//! (`tcf_proto` objects) and `skipswcnt` counts filters, so a tp holding one `skip_sw` filter and
//! one ordinary filter looks "all offloaded" and the ordinary filter is never run (seed 001, Xin
//! Long's "net: sched: refine software bypass handling in tc_run", v6.14). The fix counts, per
//! block, the tps that hold a software user (`useswcnt`); it also dropped the write lock that
//! serialised parallel inserts (50.8 s → 17.7 s for 16 × 100,000 mlx5 rules).
//!
//! A [`TcBlock`] keeps flower filters grouped in tps ordered by priority, maintains the counters
//! of **both** kernels side by side (the commands and their acceptance are identical, so each
//! set holds exactly what that kernel would hold after the same commands) and answers, per
//! packet, what the NIC and what `tc_run` do ([`TcBlock::classify`]). [`insertion_ns`] models the
//! insert-time side of seed 001.
//!
//! Simplifications:
//! * One block, one chain (0), one classifier kind (flower) and one protocol: the per-protocol
//!   tp split and the "different protocol at an existing prio" refusal (`tcf_chain_tp_find`) are
//!   not modelled. Matches are exact (no prefix lengths, masks or port ranges).
//! * Hardware offload has no capacity limit and never fails for a filter that does not ask for
//!   `skip_hw`; `in_hw_count` is 1 for an offloaded filter.
//! * A refused command leaves the block untouched. The v6.10–v6.13 kernel differs in one corner:
//!   a refused add that had created a fresh tp destroys it again, and `tcf_proto_destroy`
//!   recomputes `bypass_wanted`, so a stale value can be refreshed by a failed command.
//! * tc statistics are packet counts only; software and hardware hits are kept apart instead of
//!   being summed as `tc -s` prints them.
//!
//! Its parts, as in `sim/` and `arfs/`:
//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | the types: what a command asks ([`FilterSpec`]), its refusal ([`TcError`]), the block and its tps, what a packet met ([`Classify`]) |
//! | `flower.rs` | flower's side: a match, its mask, a tp's walk order and handles |
//! | `block.rs` | the commands (add, delete, re-offload) and both kernels' counters |
//! | `classify.rs` | what the NIC and `tc_run` do with a packet, and its hit counts |
//! | `insertion.rs` | seed 001's parallel-insertion model |

mod block;
mod classify;
mod flower;
mod insertion;
#[cfg(test)]
mod tests;

pub use insertion::{insertion_ns, INSERT_PARALLEL_NS, INSERT_SERIAL_NS};

use alloc::vec::Vec;

use core::fmt;
use core::net::IpAddr;

use crate::flow::Proto;

/// `tcf_auto_prio`: the pref given to the first filter added without one (`0xC000`).
pub const AUTO_PRIO_FIRST: u16 = 49_152;
/// `tc_new_tfilter` looks for the insertion point of an automatic priority at this pref
/// (`TC_H_MAKE(0x80000000U, 0U)`); tps below it do not influence the automatic choice.
pub const AUTO_PRIO_FLOOR: u16 = 32_768;
/// Flower allocates handles from 1 up to `INT_MAX` (`fl_change`: `idr_alloc_u32`).
pub const MAX_HANDLE: u32 = 0x7fff_ffff;

crate::names::named_enum! {
    /// Which kernel's block counters decide the software bypass (kernel-semantics §4.2–4.3).
    Counting {
        /// v6.10 – v6.13.1 (6.12.y before 6.12.13): `filtercnt` (tps), `skipswcnt`
        /// (filters), `bypass_wanted` (net/sched/cls_api.c: `tcf_block_filter_cnt_update`,
        /// `tcf_maintain_bypass`).
        Legacy = "legacy",
        /// v6.14+, stable 6.13.2+ and 6.12.13+ (a12c76a03386): `tp->usesw`, `tp->counted`,
        /// `block->useswcnt` (net/sched/cls_api.c: `tcf_proto_count_usesw`;
        /// include/net/pkt_cls.h: `tcf_proto_update_usesw`).
        Usesw = "usesw",
    }
}

impl Counting {
    /// Which real kernels count this way: what the console says where the choice is made.
    pub const fn covers(self) -> &'static str {
        match self {
            Counting::Legacy => {
                "6.10 to 6.13.1, and 6.12.y before 6.12.13: filtercnt, skipswcnt and bypass_wanted decide the bypass"
            }
            Counting::Usesw => {
                "6.14+, and stable 6.13.2+ and 6.12.13+ (commit a12c76a03386): tp->usesw and block->useswcnt decide the bypass"
            }
        }
    }
}

crate::names::named_enum! {
    /// The filter's action (iproute2 `action drop` / `action pass`, gact `TC_ACT_SHOT` /
    /// `TC_ACT_OK`). Both end classification.
    Action {
        /// `TC_ACT_SHOT`: the packet is dropped.
        Drop = "drop",
        /// `TC_ACT_OK`: the packet continues up the stack.
        Pass = "pass",
    }
}

/// Flower matches (tc-flower(8): `src_ip`, `dst_ip`, `src_port`, `dst_port`, `ip_proto`); an
/// absent field matches anything. Exact values only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Match {
    /// `src_ip ADDR`: the sender's address.
    pub src_ip: Option<IpAddr>,
    /// `dst_ip ADDR`: the receiver's address.
    pub dst_ip: Option<IpAddr>,
    /// `src_port N` (needs `ip_proto`).
    pub src_port: Option<u16>,
    /// `dst_port N` (needs `ip_proto`).
    pub dst_port: Option<u16>,
    /// `ip_proto tcp|udp`.
    pub ip_proto: Option<Proto>,
}

/// What `tc filter add dev DEV ingress [prio P] flower [skip_sw|skip_hw] MATCH… action A` asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FilterSpec {
    /// `prio`/`pref` (1..=65535); `None` lets the kernel pick one (`tcf_auto_prio`).
    pub prio: Option<u16>,
    /// The flower matches.
    pub matches: Match,
    /// The action.
    pub action: Action,
    /// `skip_sw` (`TCA_CLS_FLAGS_SKIP_SW`): hardware only.
    pub skip_sw: bool,
    /// `skip_hw` (`TCA_CLS_FLAGS_SKIP_HW`): software only.
    pub skip_hw: bool,
}

impl FilterSpec {
    /// An ordinary filter (neither flag) with an automatic priority.
    pub const fn new(matches: Match, action: Action) -> FilterSpec {
        FilterSpec {
            prio: None,
            matches,
            action,
            skip_sw: false,
            skip_hw: false,
        }
    }
}

/// Where a filter lives: its tp's priority and its handle inside that tp. Flower handles are
/// per tp, so both are needed to name a filter (`tc filter del … prio P handle H flower`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FilterId {
    /// The tp's pref.
    pub prio: u16,
    /// The filter's handle (1, 2, … in its tp).
    pub handle: u32,
}

/// A refused tc command. The block is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcError {
    /// `skip_sw` and `skip_hw` together (include/net/pkt_cls.h: `tc_flags_valid`, -EINVAL).
    BothSkipFlags,
    /// `skip_sw` on a device without tc offload: no driver took the filter
    /// (net/sched/cls_flower.c: `fl_hw_replace_filter`, -EINVAL).
    SkipSwWithoutOffload,
    /// An explicit prio of 0.
    PrioZero,
    /// `src_port`/`dst_port` without `ip_proto` (iproute2 refuses).
    PortWithoutIpProto,
    /// `src_ip` and `dst_ip` of different address families.
    MixedFamilies,
    /// A filter with the same matches already exists in that tp (flower: one filter per key
    /// and mask, `fl_ht_insert_unique`, -EEXIST).
    Exists {
        /// The tp's pref.
        prio: u16,
        /// The existing filter's handle.
        handle: u32,
    },
    /// No automatic priority can be chosen: the first tp at or above pref 32768 has pref
    /// 32768 (`tcf_chain_tp_find` with `prio_allocate`, -EINVAL).
    AutoPrioTaken,
    /// The tp has no free handle left (`idr_alloc_u32`, -ENOSPC).
    HandlesExhausted {
        /// The tp's pref.
        prio: u16,
    },
    /// No tp with this pref (`tc_del_tfilter`, -ENOENT).
    NoSuchPrio {
        /// The pref asked for.
        prio: u16,
    },
    /// No filter with this handle in the tp of this pref (-ENOENT).
    NoSuchFilter {
        /// The tp's pref.
        prio: u16,
        /// The handle asked for.
        handle: u32,
    },
}

impl fmt::Display for TcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TcError::BothSkipFlags => {
                f.write_str("skip_sw and skip_hw are exclusive (tc_flags_valid: -EINVAL); give at most one of them")
            }
            TcError::SkipSwWithoutOffload => f.write_str(
                "skip_sw needs the filter in hardware, but this device has no tc offload \
                 (fl_hw_replace_filter: -EINVAL); drop skip_sw, or use a device with hw-tc-offload on",
            ),
            TcError::PrioZero => {
                f.write_str("prio 0 is not a priority; accepted: 1..=65535, or no prio for an automatic one")
            }
            TcError::PortWithoutIpProto => {
                f.write_str("src_port/dst_port need a transport protocol; add ip_proto tcp or ip_proto udp")
            }
            TcError::MixedFamilies => f.write_str("src_ip and dst_ip must both be IPv4 or both be IPv6"),
            TcError::Exists { prio, handle } => write!(
                f,
                "a filter with the same matches already exists at prio {prio} (handle {handle}; \
                 flower: -EEXIST); change a match or use another prio"
            ),
            TcError::AutoPrioTaken => f.write_str(
                "no automatic priority is free: the lowest tp at or above pref 32768 is 32768 \
                 (tcf_chain_tp_find: -EINVAL); give an explicit prio",
            ),
            TcError::HandlesExhausted { prio } => write!(
                f,
                "prio {prio} has no free handle left (accepted handles: 1..=2147483647); use another prio"
            ),
            TcError::NoSuchPrio { prio } => write!(
                f,
                "no filter has prio {prio} (-ENOENT); `tc filter show` lists the priorities in use"
            ),
            TcError::NoSuchFilter { prio, handle } => write!(
                f,
                "prio {prio} has no filter with handle {handle} (-ENOENT); `tc filter show` lists the handles"
            ),
        }
    }
}

/// One flower filter (`struct cls_fl_filter`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Filter {
    handle: u32,
    matches: Match,
    mask: u8,
    action: Action,
    skip_sw: bool,
    skip_hw: bool,
    /// `TCA_CLS_FLAGS_IN_HW`; otherwise the filter shows `not_in_hw`.
    in_hw: bool,
    hits_hw: u64,
    hits_sw: u64,
}

/// A flower mask of one tp and how many filters use it (`struct fl_flow_mask`, `refcnt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct MaskRef {
    mask: u8,
    refs: u32,
}

/// One `struct tcf_proto`: the filters of one priority.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Tp {
    prio: u16,
    /// By handle.
    filters: Vec<Filter>,
    /// In creation order (`fl_create_new_mask` appends to `head->masks`): the order in which
    /// `fl_classify` probes them.
    masks: Vec<MaskRef>,
    /// Legacy `tp->counted`: counted in `filtercnt`.
    legacy_counted: bool,
    /// v6.14 `tp->usesw`: some filter ever added here runs in software (sticky).
    usesw: bool,
    /// v6.14 `tp->counted`: counted in `useswcnt`.
    usesw_counted: bool,
}

/// One row of `tc -s filter show dev DEV ingress`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilterRow {
    /// `pref`.
    pub prio: u16,
    /// `handle 0x…`.
    pub handle: u32,
    /// The flower matches.
    pub matches: Match,
    /// `action order 1: gact action …`.
    pub action: Action,
    /// `skip_sw` shown.
    pub skip_sw: bool,
    /// `skip_hw` shown.
    pub skip_hw: bool,
    /// `in_hw in_hw_count 1` if true, `not_in_hw` otherwise.
    pub in_hw: bool,
    /// Packets this filter decided in the NIC.
    pub hits_hw: u64,
    /// Packets this filter decided in software (`tc_run`).
    pub hits_sw: u64,
}

/// One tp and its counting state, for explaining a bypass decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TpView {
    /// `pref`.
    pub prio: u16,
    /// Filters in the tp.
    pub filters: u32,
    /// Of them, `skip_sw` and in hardware.
    pub skipsw_in_hw: u32,
    /// Legacy `tp->counted` (counted in `filtercnt`).
    pub legacy_counted: bool,
    /// v6.14 `tp->usesw` (sticky).
    pub usesw: bool,
    /// v6.14 `tp->counted` (counted in `useswcnt`).
    pub usesw_counted: bool,
}

/// What software (`tc_run`, net/core/dev.c) did with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwResult {
    /// The NIC dropped the packet; software never saw it.
    DroppedInHw,
    /// The block was bypassed (`TC_ACT_UNSPEC` without classifying).
    Bypassed {
        /// Software classification would have given a verdict: a filter that runs in software
        /// (not `skip_sw`) matches and was not run — seed 001's bug when it is a drop. For a
        /// filter that is also in hardware and passed the packet there, the miss is harmless.
        missed: bool,
    },
    /// `tcf_classify` ran.
    Classified {
        /// The first matching software filter's action (`None`: no filter matched,
        /// `TC_ACT_UNSPEC`).
        action: Option<Action>,
        /// That filter.
        filter: Option<FilterId>,
        /// Software filters (not `skip_sw`) examined, in priority order, up to and including
        /// the match (all of them without one): the cost model's linear walk.
        walked: u32,
        /// Flower mask lookups done (`fl_classify` probes each mask of each tp visited, and a
        /// `skip_sw` filter's mask is probed too): the kernel's own measure of the walk.
        lookups: u32,
    },
}

/// What happened to one packet at the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Classify {
    /// The NIC's verdict: the first in-hardware filter in priority order that matches.
    pub hw: Option<Action>,
    /// The filter that gave it.
    pub hw_filter: Option<FilterId>,
    /// What software did.
    pub sw: SwResult,
}

/// The result of walking one side (hardware or software) of the block.
struct Walk {
    hit: Option<(usize, usize)>,
    walked: u32,
    lookups: u32,
}

/// An ingress block (`struct tcf_block`) of one device: its tps in priority order and the
/// counters of both kernels.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TcBlock {
    counting: Counting,
    hw_offload: bool,
    /// By pref, lowest (first to run) first.
    tps: Vec<Tp>,
    /// Legacy `block->filtercnt`: counted tps.
    filtercnt: u32,
    /// Legacy `block->skipswcnt`: `skip_sw` filters in hardware.
    skipswcnt: u32,
    /// Legacy `block->bypass_wanted`.
    bypass_wanted: bool,
    /// v6.14 `block->useswcnt`: tps counted as software users.
    useswcnt: u32,
    /// `block->offloadcnt`: filters flagged IN_HW.
    offloadcnt: u32,
}
