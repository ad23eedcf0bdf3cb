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

use alloc::vec::Vec;

use core::fmt;
use core::net::IpAddr;

use crate::flow::{FlowKey, Proto};

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

impl Match {
    /// True if the packet of `key` has every field this match names (net/sched/cls_flower.c:
    /// `fl_classify` comparing the masked key).
    pub fn matches(&self, key: &FlowKey) -> bool {
        self.src_ip.is_none_or(|ip| ip == key.src())
            && self.dst_ip.is_none_or(|ip| ip == key.dst())
            && self.src_port.is_none_or(|p| p == key.sport())
            && self.dst_port.is_none_or(|p| p == key.dport())
            && self.ip_proto.is_none_or(|p| p == key.proto())
    }

    /// Which fields are set, and the address family of each address: flower's mask. Filters of
    /// one tp with equal masks share one `fl_flow_mask` and its hash table.
    fn mask(&self) -> u8 {
        let family = |ip: Option<IpAddr>, v4: u8, v6: u8| match ip {
            None => 0,
            Some(IpAddr::V4(_)) => v4,
            Some(IpAddr::V6(_)) => v6,
        };
        family(self.src_ip, 1, 2)
            | family(self.dst_ip, 4, 8)
            | (u8::from(self.src_port.is_some()) << 4)
            | (u8::from(self.dst_port.is_some()) << 5)
            | (u8::from(self.ip_proto.is_some()) << 6)
    }

    /// Refuses what iproute2 or flower would refuse before anything is created.
    fn validate(&self) -> Result<(), TcError> {
        if let (Some(s), Some(d)) = (self.src_ip, self.dst_ip) {
            if s.is_ipv4() != d.is_ipv4() {
                return Err(TcError::MixedFamilies);
            }
        }
        if self.ip_proto.is_none() && (self.src_port.is_some() || self.dst_port.is_some()) {
            return Err(TcError::PortWithoutIpProto);
        }
        Ok(())
    }
}

impl fmt::Display for Match {
    /// The matches as iproute2's flower printer orders them (`ip_proto`, `dst_ip`, `src_ip`,
    /// `dst_port`, `src_port`); an empty match prints nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        let mut item = |f: &mut fmt::Formatter<'_>, name: &str, value: &dyn fmt::Display| {
            let r = write!(f, "{sep}{name} {value}");
            sep = " ";
            r
        };
        if let Some(p) = self.ip_proto {
            item(f, "ip_proto", &p.name())?;
        }
        if let Some(ip) = self.dst_ip {
            item(f, "dst_ip", &ip)?;
        }
        if let Some(ip) = self.src_ip {
            item(f, "src_ip", &ip)?;
        }
        if let Some(p) = self.dst_port {
            item(f, "dst_port", &p)?;
        }
        if let Some(p) = self.src_port {
            item(f, "src_port", &p)?;
        }
        Ok(())
    }
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

impl Filter {
    /// Counted by the legacy `skipswcnt` (`tcf_block_offload_inc` on a SKIP_SW filter).
    fn skipsw_in_hw(&self) -> bool {
        self.skip_sw && self.in_hw
    }
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

impl Tp {
    /// The filters in the order software and hardware meet them: masks in creation order, and
    /// within a mask by handle. A key matches at most one filter per mask, so this linear order
    /// gives `fl_classify`'s verdict.
    fn walk(&self) -> impl Iterator<Item = &Filter> + '_ {
        self.masks
            .iter()
            .flat_map(move |m| self.filters.iter().filter(move |f| f.mask == m.mask))
    }

    /// The lowest free handle from 1 (`idr_alloc_u32(…, &handle = 1, INT_MAX)`).
    fn free_handle(&self) -> Option<u32> {
        let mut want = 1u32;
        for f in &self.filters {
            if f.handle != want {
                break;
            }
            want = want.checked_add(1)?;
        }
        (want <= MAX_HANDLE).then_some(want)
    }
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

impl TcBlock {
    /// An empty ingress block (`tc qdisc add dev DEV ingress`); `hw_offload` is whether the
    /// device accepts tc offload (`ethtool -K DEV hw-tc-offload on` on a capable NIC).
    pub fn new(counting: Counting, hw_offload: bool) -> TcBlock {
        TcBlock {
            counting,
            hw_offload,
            tps: Vec::new(),
            filtercnt: 0,
            skipswcnt: 0,
            bypass_wanted: false,
            useswcnt: 0,
            offloadcnt: 0,
        }
    }

    /// The counting scheme that decides the bypass.
    pub fn counting(&self) -> Counting {
        self.counting
    }

    /// Selects which kernel's counters decide the bypass. Both sets are kept up to date on
    /// every add and delete, so switching shows what the other kernel would do with the same
    /// block right now.
    pub fn set_counting(&mut self, counting: Counting) {
        self.counting = counting;
    }

    /// Whether the device offloads tc filters.
    pub fn hw_offload(&self) -> bool {
        self.hw_offload
    }

    /// `tc filter add` (net/sched/cls_api.c: `tc_new_tfilter`; net/sched/cls_flower.c:
    /// `fl_change`). Without a prio the filter gets a new tp with pref one below the first tp
    /// at or above 32768, or 49152 if there is none (`tcf_auto_prio`): 49152, 49151, … for a
    /// block of automatic filters. With a prio it joins that tp or creates it.
    ///
    /// Counters: legacy — `skipswcnt` +1 if the filter is `skip_sw` and in hardware
    /// (`tcf_block_offload_inc`), then `filtercnt` +1 if the tp was not yet counted, then
    /// `bypass_wanted` recomputed (`tcf_block_filter_cnt_update`); v6.14 — `tp.usesw` set if the
    /// filter is not (`skip_sw` and in hardware) (`tcf_proto_update_usesw`), then the tp counted
    /// in `useswcnt` if it uses software and was not yet counted (`tcf_proto_count_usesw`).
    pub fn add(&mut self, spec: FilterSpec) -> Result<FilterId, TcError> {
        if spec.prio == Some(0) {
            return Err(TcError::PrioZero);
        }
        spec.matches.validate()?;
        let (prio, existing) = match spec.prio {
            Some(p) => (p, self.tps.iter().position(|tp| tp.prio == p)),
            None => (self.auto_prio()?, None),
        };
        if spec.skip_sw && spec.skip_hw {
            return Err(TcError::BothSkipFlags);
        }
        if let Some(t) = existing.and_then(|i| self.tps.get(i)) {
            if let Some(f) = t.filters.iter().find(|f| f.matches == spec.matches) {
                return Err(TcError::Exists { prio, handle: f.handle });
            }
        }
        let in_hw = self.hw_offload && !spec.skip_hw;
        if spec.skip_sw && !in_hw {
            return Err(TcError::SkipSwWithoutOffload);
        }
        let handle = match existing.and_then(|i| self.tps.get(i)) {
            Some(t) => t.free_handle().ok_or(TcError::HandlesExhausted { prio })?,
            None => 1,
        };

        // Accepted: from here on nothing can fail.
        let ti = match existing {
            Some(i) => i,
            None => {
                let at = self.tps.iter().position(|tp| tp.prio > prio).unwrap_or(self.tps.len());
                let tp = Tp {
                    prio,
                    filters: Vec::new(),
                    masks: Vec::new(),
                    legacy_counted: false,
                    // tcf_proto_create: flower has a reoffload op, so usesw starts false.
                    usesw: false,
                    usesw_counted: false,
                };
                self.tps.insert(at, tp);
                at
            }
        };
        let filter = Filter {
            handle,
            matches: spec.matches,
            mask: spec.matches.mask(),
            action: spec.action,
            skip_sw: spec.skip_sw,
            skip_hw: spec.skip_hw,
            in_hw,
            hits_hw: 0,
            hits_sw: 0,
        };
        let Some(tp) = self.tps.get_mut(ti) else {
            return Err(TcError::NoSuchPrio { prio });
        };
        // fl_check_assign_mask: share an equal mask or append a new one.
        match tp.masks.iter_mut().find(|m| m.mask == filter.mask) {
            Some(m) => m.refs += 1,
            None => tp.masks.push(MaskRef {
                mask: filter.mask,
                refs: 1,
            }),
        }
        // fl_hw_replace_filter → tcf_block_offload_inc.
        count_offload(&mut self.offloadcnt, &mut self.skipswcnt, &filter, true);
        // v6.14 fl_change → tcf_proto_update_usesw.
        if !filter.skipsw_in_hw() {
            tp.usesw = true;
        }
        let at = tp
            .filters
            .iter()
            .position(|f| f.handle > handle)
            .unwrap_or(tp.filters.len());
        tp.filters.insert(at, filter);

        // Legacy tc_new_tfilter → tcf_block_filter_cnt_update(block, &tp->counted, true).
        if !tp.legacy_counted {
            tp.legacy_counted = true;
            self.filtercnt += 1;
        }
        // v6.14 tc_new_tfilter → tcf_proto_count_usesw(tp, true).
        if tp.usesw && !tp.usesw_counted {
            tp.usesw_counted = true;
            self.useswcnt += 1;
        }
        self.maintain_bypass();
        Ok(FilterId { prio, handle })
    }

    /// `tc filter del dev DEV ingress [prio P]` (net/sched/cls_api.c: `tc_del_tfilter`): with a
    /// prio, destroys that whole tp with all its filters; without, flushes the chain
    /// (`tcf_chain_flush`), destroying every tp. Returns the number of filters removed; an
    /// empty block flushes to `Ok(0)`.
    pub fn del(&mut self, prio: Option<u16>) -> Result<u32, TcError> {
        match prio {
            Some(p) => {
                let i = self
                    .tps
                    .iter()
                    .position(|tp| tp.prio == p)
                    .ok_or(TcError::NoSuchPrio { prio: p })?;
                let tp = self.tps.remove(i);
                Ok(self.destroy(tp))
            }
            None => {
                let tps = core::mem::take(&mut self.tps);
                Ok(tps.into_iter().map(|tp| self.destroy(tp)).sum())
            }
        }
    }

    /// `tc filter del dev DEV ingress prio P handle H flower` (net/sched/cls_flower.c:
    /// `fl_delete`). Legacy: `skipswcnt` −1 if the filter was `skip_sw` in hardware
    /// (`tcf_block_offload_dec`); `bypass_wanted` is **not** recomputed. v6.14: `tp.usesw` stays
    /// set. When the tp's last filter goes, the tp is destroyed
    /// (`tcf_chain_tp_delete_empty` → `tcf_proto_destroy`): legacy `filtercnt` −1 and
    /// `bypass_wanted` recomputed, v6.14 `useswcnt` −1 if the tp was counted.
    pub fn del_filter(&mut self, prio: u16, handle: u32) -> Result<(), TcError> {
        let ti = self
            .tps
            .iter()
            .position(|tp| tp.prio == prio)
            .ok_or(TcError::NoSuchPrio { prio })?;
        let Some(tp) = self.tps.get_mut(ti) else {
            return Err(TcError::NoSuchPrio { prio });
        };
        let fi = tp
            .filters
            .iter()
            .position(|f| f.handle == handle)
            .ok_or(TcError::NoSuchFilter { prio, handle })?;
        let f = tp.filters.remove(fi);
        // fl_mask_put: the mask goes with its last filter.
        if let Some(mi) = tp.masks.iter().position(|m| m.mask == f.mask) {
            if let Some(m) = tp.masks.get_mut(mi) {
                m.refs = m.refs.saturating_sub(1);
                if m.refs == 0 {
                    tp.masks.remove(mi);
                }
            }
        }
        let empty = tp.filters.is_empty();
        self.unoffload(&f);
        if empty {
            let tp = self.tps.remove(ti);
            self.destroy(tp);
        }
        Ok(())
    }

    /// Whether `tc_run` skips this block (net/core/dev.c: `tc_run`; include/net/pkt_cls.h:
    /// `tcf_block_bypass_sw`). Legacy: `bypass_wanted` (the global key
    /// `tcf_bypass_check_needed_key` is on whenever a block wants bypass). v6.14:
    /// `useswcnt == 0` (covers both the global `tcf_sw_enabled_key` and the block bypass). An
    /// empty block: legacy no, v6.14 yes (nothing to run).
    pub fn bypass_sw(&self) -> bool {
        match self.counting {
            Counting::Legacy => self.bypass_wanted,
            Counting::Usesw => self.useswcnt == 0,
        }
    }

    /// What the NIC and `tc_run` do with a packet of `key`; counters are not touched. The NIC
    /// applies the first in-hardware filter that matches, in priority order; a hardware drop
    /// ends there. Otherwise software either bypasses the block or runs `tcf_classify`: tps in
    /// priority order, the first matching filter that is not `skip_sw` decides
    /// (net/sched/cls_flower.c: `fl_classify` skips `skip_sw` filters it finds).
    ///
    /// Simplification: a filter both in hardware and in software that passes the packet in the
    /// NIC is met again in software, as in the kernel; one that drops it decides in the NIC, so
    /// software never sees the packet.
    pub fn classify(&self, key: &FlowKey) -> Classify {
        self.decide(key).0
    }

    /// [`TcBlock::classify`], and adds `n` packets to the hit counters of the filters that
    /// decided in the NIC and in software (shown by [`TcBlock::filters`]).
    pub fn classify_and_count(&mut self, key: &FlowKey, n: u64) -> Classify {
        let (c, hw, sw) = self.decide(key);
        if let Some(f) = hw.and_then(|at| self.filter_mut(at)) {
            f.hits_hw = f.hits_hw.saturating_add(n);
        }
        if let Some(f) = sw.and_then(|at| self.filter_mut(at)) {
            f.hits_sw = f.hits_sw.saturating_add(n);
        }
        c
    }

    /// Books `n` packets on the filters that decided `c` (a decision from [`TcBlock::classify`]
    /// on this block, unchanged since): the same counts as [`TcBlock::classify_and_count`]
    /// without walking the filters again.
    pub fn count(&mut self, c: &Classify, n: u64) {
        let sw = match c.sw {
            SwResult::Classified { filter, .. } => filter,
            _ => None,
        };
        for (id, hw) in [(c.hw_filter, true), (sw, false)] {
            let Some(id) = id else { continue };
            let found = self
                .tps
                .iter_mut()
                .find(|tp| tp.prio == id.prio)
                .and_then(|tp| tp.filters.iter_mut().find(|f| f.handle == id.handle));
            if let Some(f) = found {
                let hits = if hw { &mut f.hits_hw } else { &mut f.hits_sw };
                *hits = hits.saturating_add(n);
            }
        }
    }

    /// Legacy `block->filtercnt` (tps counted since their first successful add). Maintained
    /// whatever [`Counting`] is selected: the value the v6.10–v6.13 kernel would hold after the
    /// same commands.
    pub fn filtercnt(&self) -> u32 {
        self.filtercnt
    }

    /// Legacy `block->skipswcnt` (`skip_sw` filters in hardware); maintained for both countings.
    pub fn skipswcnt(&self) -> u32 {
        self.skipswcnt
    }

    /// Legacy `block->bypass_wanted` (as last recomputed); maintained for both countings.
    pub fn bypass_wanted(&self) -> bool {
        self.bypass_wanted
    }

    /// v6.14 `block->useswcnt` (tps counted as software users); maintained for both countings:
    /// the value the v6.14 kernel would hold after the same commands.
    pub fn useswcnt(&self) -> u32 {
        self.useswcnt
    }

    /// `block->offloadcnt`: filters flagged IN_HW.
    pub fn offloadcnt(&self) -> u32 {
        self.offloadcnt
    }

    /// Number of filters in the block.
    pub fn len(&self) -> u32 {
        self.tps.iter().map(|tp| tp.filters.len() as u32).sum()
    }

    /// True if the block has no filter.
    pub fn is_empty(&self) -> bool {
        self.tps.is_empty()
    }

    /// The rows of `tc -s filter show dev DEV ingress`: by pref, then handle.
    pub fn filters(&self) -> Vec<FilterRow> {
        self.tps
            .iter()
            .flat_map(|tp| {
                tp.filters.iter().map(move |f| FilterRow {
                    prio: tp.prio,
                    handle: f.handle,
                    matches: f.matches,
                    action: f.action,
                    skip_sw: f.skip_sw,
                    skip_hw: f.skip_hw,
                    in_hw: f.in_hw,
                    hits_hw: f.hits_hw,
                    hits_sw: f.hits_sw,
                })
            })
            .collect()
    }

    /// The tps with their counting state, by pref.
    pub fn tps(&self) -> Vec<TpView> {
        self.tps
            .iter()
            .map(|tp| TpView {
                prio: tp.prio,
                filters: tp.filters.len() as u32,
                skipsw_in_hw: tp.filters.iter().filter(|f| f.skipsw_in_hw()).count() as u32,
                legacy_counted: tp.legacy_counted,
                usesw: tp.usesw,
                usesw_counted: tp.usesw_counted,
            })
            .collect()
    }

    /// `tcf_auto_prio(tcf_chain_tp_prev(...))` after `tcf_chain_tp_find(…, 0x8000, true)`.
    fn auto_prio(&self) -> Result<u16, TcError> {
        match self.tps.iter().find(|tp| tp.prio >= AUTO_PRIO_FLOOR) {
            None => Ok(AUTO_PRIO_FIRST),
            Some(tp) if tp.prio == AUTO_PRIO_FLOOR => Err(TcError::AutoPrioTaken),
            Some(tp) => Ok(tp.prio - 1),
        }
    }

    /// Legacy `tcf_maintain_bypass`.
    fn maintain_bypass(&mut self) {
        self.bypass_wanted = self.filtercnt > 0 && self.filtercnt == self.skipswcnt;
    }

    /// The block's device changed (a NIC with or without tc offload): every filter that may be
    /// in hardware is played back to it (net/sched/cls_api.c: `tcf_block_playback_offloads` →
    /// net/sched/cls_flower.c: `fl_reoffload`, which skips `skip_hw` filters). A filter taken by
    /// the new device is flagged IN_HW (`tcf_block_offload_inc`: `offloadcnt` +1, legacy
    /// `skipswcnt` +1 for `skip_sw`); one the old device held and the new cannot is unflagged
    /// (`tcf_block_offload_dec`). Neither path recomputes legacy `bypass_wanted` nor v6.14
    /// `usesw` (both are updated only when filters or tps come and go), so a `skip_sw` filter
    /// left `not_in_hw` matches nothing anywhere, as on a real host. Returns how many filters
    /// changed.
    pub fn reoffload(&mut self, hw_offload: bool) -> u32 {
        if hw_offload == self.hw_offload {
            return 0;
        }
        self.hw_offload = hw_offload;
        let mut changed = 0;
        let (offloadcnt, skipswcnt) = (&mut self.offloadcnt, &mut self.skipswcnt);
        for f in self
            .tps
            .iter_mut()
            .flat_map(|tp| tp.filters.iter_mut())
            .filter(|f| !f.skip_hw && f.in_hw != hw_offload)
        {
            changed += 1;
            if hw_offload {
                f.in_hw = true;
                count_offload(offloadcnt, skipswcnt, f, true);
            } else {
                count_offload(offloadcnt, skipswcnt, f, false);
                f.in_hw = false;
            }
        }
        changed
    }

    /// A filter leaves hardware (`fl_hw_destroy_filter` → `tcf_block_offload_dec`).
    fn unoffload(&mut self, f: &Filter) {
        count_offload(&mut self.offloadcnt, &mut self.skipswcnt, f, false);
    }

    /// `tcf_proto_destroy` of a tp already unlinked from the chain: its filters leave hardware
    /// (`fl_destroy`), then legacy `tcf_block_filter_cnt_update(…, false)` and v6.14
    /// `tcf_proto_count_usesw(tp, false)`. Returns the number of filters it held.
    fn destroy(&mut self, tp: Tp) -> u32 {
        for f in &tp.filters {
            self.unoffload(f);
        }
        if tp.legacy_counted {
            self.filtercnt = self.filtercnt.saturating_sub(1);
        }
        self.maintain_bypass();
        if tp.usesw && tp.usesw_counted {
            self.useswcnt = self.useswcnt.saturating_sub(1);
        }
        tp.filters.len() as u32
    }

    /// Walks the block for one side: `hw` = in-hardware filters (the NIC), otherwise the
    /// software filters (not `skip_sw`).
    fn walk(&self, key: &FlowKey, hw: bool) -> Walk {
        let mut w = Walk {
            hit: None,
            walked: 0,
            lookups: 0,
        };
        for (ti, tp) in self.tps.iter().enumerate() {
            w.lookups += tp.masks.len() as u32;
            for f in tp.walk() {
                let runs = if hw { f.in_hw } else { !f.skip_sw };
                if !runs {
                    continue;
                }
                w.walked += 1;
                if f.matches.matches(key) {
                    // Only the masks up to this filter's were probed.
                    let probed = tp.masks.iter().position(|m| m.mask == f.mask).map_or(0, |i| i + 1);
                    w.lookups = w.lookups - tp.masks.len() as u32 + probed as u32;
                    let fi = tp.filters.iter().position(|g| g.handle == f.handle).unwrap_or(0);
                    w.hit = Some((ti, fi));
                    return w;
                }
            }
        }
        w
    }

    fn filter_mut(&mut self, at: (usize, usize)) -> Option<&mut Filter> {
        self.tps.get_mut(at.0)?.filters.get_mut(at.1)
    }

    fn filter_at(&self, at: (usize, usize)) -> Option<(FilterId, Action)> {
        let tp = self.tps.get(at.0)?;
        let f = tp.filters.get(at.1)?;
        Some((
            FilterId {
                prio: tp.prio,
                handle: f.handle,
            },
            f.action,
        ))
    }

    /// The packet's fate and the positions of the filters that decided it (hardware, software).
    #[allow(clippy::type_complexity)]
    fn decide(&self, key: &FlowKey) -> (Classify, Option<(usize, usize)>, Option<(usize, usize)>) {
        let hw = self.walk(key, true).hit;
        let hw_hit = hw.and_then(|at| self.filter_at(at));
        let hw_action = hw_hit.map(|(_, a)| a);
        let hw_filter = hw_hit.map(|(id, _)| id);
        if hw_action == Some(Action::Drop) {
            return (
                Classify {
                    hw: hw_action,
                    hw_filter,
                    sw: SwResult::DroppedInHw,
                },
                hw,
                None,
            );
        }
        let sw = self.walk(key, false);
        if self.bypass_sw() {
            let sw_result = SwResult::Bypassed {
                missed: sw.hit.is_some(),
            };
            return (
                Classify {
                    hw: hw_action,
                    hw_filter,
                    sw: sw_result,
                },
                hw,
                None,
            );
        }
        let sw_hit = sw.hit.and_then(|at| self.filter_at(at));
        let sw_result = SwResult::Classified {
            action: sw_hit.map(|(_, a)| a),
            filter: sw_hit.map(|(id, _)| id),
            walked: sw.walked,
            lookups: sw.lookups,
        };
        (
            Classify {
                hw: hw_action,
                hw_filter,
                sw: sw_result,
            },
            hw,
            sw.hit,
        )
    }
}

/// Per-rule time of the device-serialised part of a filter insert, in ns: seed 001 after the
/// fix, 16 inserters × 100,000 rules in 17.718 s real. With the counting lock gone the
/// inserters overlap except in a section every insert still passes one at a time (the driver's
/// offload path), so the wall time is that section's total: 17.7 s / 1,600,000 = 11,062.5 ns,
/// rounded to 11,063.
pub const INSERT_SERIAL_NS: u64 = 11_063;

/// Per-rule time of the part of an insert that runs in parallel, in ns: seed 001 before the fix
/// took 50.780 s real because every insert took `block->cb_lock` for write
/// (`tcf_block_filter_cnt_update`), which waits for and blocks every offload holding it for
/// read, so whole inserts ran one at a time: 50.8 s / 1,600,000 = 31,750 ns per insert, of
/// which 31,750 − 11,063 = 20,687 ns is not device-serialised.
pub const INSERT_PARALLEL_NS: u64 = 20_687;

/// Wall time, in ns, for `inserters` processes each adding `rules_each` filters in parallel to
/// one block (seed 001's `tc -b rules_$i.txt &` × 16). Legacy: every insert is serialised
/// behind the write lock, `N·R·(serial+parallel)`. v6.14: Amdahl — the device-serialised
/// sections of all inserts run back to back while each inserter also needs its own `R` whole
/// inserts, so `max(N·R·serial, R·(serial+parallel))`. Saturates instead of overflowing.
///
/// Simplification: a two-part model fitted to the seed's two wall-clock times; user and sys
/// time (23.6 s / 4 m 13 s before, 7.8 s / 3 m 45 s after) are not modelled.
pub fn insertion_ns(inserters: u32, rules_each: u32, counting: Counting, serial_ns: u64, parallel_ns: u64) -> u64 {
    let rules = u64::from(inserters).saturating_mul(u64::from(rules_each));
    let whole = serial_ns.saturating_add(parallel_ns);
    match counting {
        Counting::Legacy => rules.saturating_mul(whole),
        Counting::Usesw => {
            if inserters == 0 {
                return 0;
            }
            rules
                .saturating_mul(serial_ns)
                .max(u64::from(rules_each).saturating_mul(whole))
        }
    }
}

/// `tcf_block_offload_inc` (`up`) / `tcf_block_offload_dec`: a filter flagged IN_HW counts in
/// `offloadcnt`, and in legacy `skipswcnt` when it is also `skip_sw`.
fn count_offload(offloadcnt: &mut u32, skipswcnt: &mut u32, f: &Filter, up: bool) {
    let (hw, skipsw) = (u32::from(f.in_hw), u32::from(f.skipsw_in_hw()));
    if up {
        *offloadcnt += hw;
        *skipswcnt += skipsw;
    } else {
        *offloadcnt = offloadcnt.saturating_sub(hw);
        *skipswcnt = skipswcnt.saturating_sub(skipsw);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::ToString;
    use core::net::Ipv4Addr;

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
}
