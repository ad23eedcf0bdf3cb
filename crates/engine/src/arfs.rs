//! Accelerated RFS: the drivers' `ndo_rx_flow_steer` and how they expire filters.
//!
//! * ice (drivers/net/ethernet/intel/ice/ice_arfs.c): 1024 buckets by `hash & 1023`, new entries
//!   at the bucket head, states INACTIVE/ACTIVE/TODEL, a service task every second that
//!   programs and expires entries (`ice_sync_arfs_fltrs`). [`Driver::IceHashMatch`] matches an
//!   entry by `flow_id` alone, as before "net: ice: Perform accurate aRFS flow match" (seed 000);
//!   [`Driver::Ice`] also compares the tuple (`ice_arfs_cmp`) and counts the wrong matches it
//!   avoided.
//! * mlx5 (drivers/net/ethernet/mellanox/mlx5/core/en_arfs.c): full-tuple rules in four
//!   tables (TCP/UDP × IPv4/IPv6) of 256 hash chains, every call under one `arfs_lock`, a work
//!   item per changed rule, and after each work item an expiry pass (`arfs_may_expire_flow`)
//!   whose quota stops a chain's walk after 62 removals, then one more per later chain.
//!
//! ice's service task runs as soon as it is scheduled (sim/timers.rs): one run walks the list
//! under `arfs_lock`, makes INACTIVE entries ACTIVE and drops expired ones at once, and the
//! hardware sees the deletes, then the adds, when the run's writes end ([`Arfs::ice_sync`],
//! [`Arfs::ice_writes_done`]). Simplifications: the expiry half of a run looks at the entries
//! at most once per tick (later runs in the same tick program only; an entry whose flow
//! stopped expires up to a tick later than on a real host);
//! a rule belongs to exactly one flow (tuples are unique in the sandbox); mlx5's per-rule work
//! items run together at the end of the tick, in the order they were queued, each followed
//! by its expiry pass.

use alloc::vec;
use alloc::vec::Vec;

use crate::driver::Driver;
use crate::flow::{FlowKey, FlowType};
use crate::rps::hash_64;
use crate::time::Nanos;

/// Filter ids wrap below `RPS_NO_FILTER` (`% 0xffff` in both drivers).
const FILTER_ID_SPACE: u32 = 0xffff;
/// ice: `ICE_MAX_ARFS_LIST`.
const ICE_BUCKETS: u32 = 1024;
/// ice: service timer period (`pf->serv_tmr_period = HZ`).
pub const ICE_SERVICE_PERIOD: Nanos = Nanos::from_secs(1);
/// ice: `ICE_ARFS_TIME_DELTA_EXPIRATION`, UDP filters only.
const ICE_UDP_EXPIRY: Nanos = Nanos::from_ms(5000);
/// mlx5: `MLX5E_ARFS_EXPIRY_QUOTA`; `if (quota++ > 60) break;` ends a chain's walk after its
/// 62nd removal of the pass, and after the first removal in every later chain.
const MLX5_EXPIRY_QUOTA: u32 = 60;
/// mlx5: `ARFS_HASH_SHIFT` (`BITS_PER_BYTE`): 256 chains per table.
const MLX5_HASH_SHIFT: u32 = 8;
const NONE: u32 = u32::MAX;

/// What the stack can tell a driver about a flow it steers.
#[derive(Clone, Copy, Debug)]
pub struct SteerRequest {
    /// Flow index (its tuple is unique, so equal index = equal tuple).
    pub flow: u32,
    /// The flow hash (`skb_get_hash_raw`).
    pub hash: u32,
    /// Target RX queue.
    pub rxq: u16,
    /// Slot in the target queue's flow table (`rfs_slot`).
    pub flow_id: u32,
    /// UDP flows expire by age on ice.
    pub udp: bool,
    /// Calls made (identical calls are applied together in aggregate mode).
    pub calls: u64,
}

/// The outcome of `ndo_rx_flow_steer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steer {
    /// A new filter (id) was queued for programming.
    Add(u16),
    /// An existing filter (id) was re-pointed to the target queue.
    Update(u16),
    /// Nothing to do: the filter (id) already points there or has pending work.
    Skip(u16),
    /// The device has no `ndo_rx_flow_steer` (the stack never calls it then).
    NotSupported,
}

impl Steer {
    /// The filter id returned to `set_rps_cpu` (`rc >= 0`).
    pub fn filter(self) -> Option<u16> {
        match self {
            Steer::Add(id) | Steer::Update(id) | Steer::Skip(id) => Some(id),
            Steer::NotSupported => None,
        }
    }
}

/// Driver counters (seed 000's instrumentation and mlx5's `rx_arfs_*` statistics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArfsCounters {
    /// New filters.
    pub add: u64,
    /// Filters re-pointed to another queue.
    pub update: u64,
    /// Calls with nothing to do.
    pub skip: u64,
    /// Filters removed by expiry.
    pub expire: u64,
    /// ice with the fix: a flow_id match with another tuple that the old code would have taken.
    pub misprogram_avoided: u64,
    /// Hardware adds that failed because the table was full (mlx5's `rx_arfs_err`; ice only
    /// logs them with `dev_dbg`). The driver keeps its entry without a rule behind it, so the
    /// flow's packets go on arriving where RSS sends them.
    pub full: u64,
    /// Hardware writes (program, re-program, remove) done by the service task or work.
    pub hw_writes: u64,
}

/// What happened to the filters of one RX queue (the page's aRFS strip per queue).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueTally {
    /// Filters added towards this queue.
    pub add: u64,
    /// Filters re-pointed to this queue.
    pub update: u64,
    /// Filters on this queue removed by expiry.
    pub expire: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IceState {
    Inactive,
    Active,
}

#[derive(Clone, Copy, Debug)]
struct IceEntry {
    flow: u32,
    flow_id: u32,
    q_index: u16,
    fltr_id: u16,
    state: IceState,
    udp: bool,
    activated: Nanos,
}

#[derive(Clone, Copy, Debug)]
struct Mlx5Rule {
    flow: u32,
    flow_id: u32,
    rxq: u16,
    filter_id: u16,
    pending: bool,
    /// Insertion order: a chain lists its newest rule first (`hlist_add_head`).
    seq: u32,
    /// Expirable but its work is pending: the expiry passes of this batch take it once done.
    waiting: bool,
}

/// mlx5's chain of a flow's rule: its table (`enum arfs_type`: IPv4 TCP, IPv6 TCP, IPv4 UDP,
/// IPv6 UDP) and `arfs_hash_bucket`'s `hash_long(sport | dport << 2, ARFS_HASH_SHIFT)` of the
/// big-endian ports as the CPU reads them (little-endian x86: byte-swapped).
fn mlx5_chain(key: &FlowKey) -> u16 {
    let table = match key.flow_type() {
        FlowType::Tcp4 => 0,
        FlowType::Tcp6 => 1,
        FlowType::Udp4 => 2,
        FlowType::Udp6 => 3,
    };
    let ports = u64::from(key.sport().swap_bytes()) | u64::from(key.dport().swap_bytes()) << 2;
    (table << MLX5_HASH_SHIFT) | hash_64(ports, MLX5_HASH_SHIFT) as u16
}

/// One live filter, for the page's aRFS table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilterView {
    /// The flow whose tuple the filter matches.
    pub flow: u32,
    /// The slot it was created for.
    pub flow_id: u32,
    /// Queue it sends to once programmed.
    pub queue: u16,
    /// Filter id.
    pub id: u16,
    /// Waiting for the service task or work.
    pub pending: bool,
}

/// `ndo_rx_flow_steer`'s answer to a request, before it acts on it.
#[derive(Clone, Copy, Debug)]
pub struct Decision {
    /// What the driver answers.
    pub answer: Steer,
    /// Index of the flow's entry or rule, `NONE` when it has none.
    entry: u32,
    /// ice full-tuple match: another flow's entry was passed over (`misprogram_avoided`).
    avoided: bool,
}

impl Decision {
    /// Acting on it changes the driver's state (an add or an update), not only its counters.
    pub fn changes_state(&self) -> bool {
        matches!(self.answer, Steer::Add(_) | Steer::Update(_))
    }
}

#[derive(Clone, Debug)]
enum Model {
    None,
    /// Each bucket lists `(flow_id, entry)`: the walk compares the flow_id first, and keeping
    /// it beside the index spares a visit to every entry that does not match (the kernel's
    /// hlist holds the entries themselves).
    Ice { hash_match_only: bool, buckets: Vec<Vec<(u32, u32)>>, entries: Vec<Option<IceEntry>> },
    Mlx5 { rules: Vec<Option<Mlx5Rule>>, by_flow: Vec<u32>, pending: Vec<u32>, chain: Vec<u16>, seq: u32 },
}

/// The NIC's aRFS state for one driver model.
#[derive(Clone, Debug)]
pub struct Arfs {
    model: Model,
    free: Vec<u32>,
    /// The driver's entries (ice's list, mlx5's rules): never limited by the hardware.
    live: u32,
    /// The NIC's rule table.
    hw: HwTable,
    last_id: u32,
    /// ice: entries an add/update left INACTIVE since the last pass.
    pending: Vec<u32>,
    /// ice: the hardware writes of the run in progress, deletes first: (flow, queue or
    /// `None` for a delete).
    writes: Vec<(u32, Option<u16>)>,
    /// Driver counters.
    pub counters: ArfsCounters,
    /// The same per RX queue (grown on first use; counters only, never read by the model).
    pub per_queue: Vec<QueueTally>,
}

/// The NIC's table of aRFS rules: the queue each flow's rule sends it to, and how many rules
/// it holds of its capacity (`nic.max_hw_filters`).
#[derive(Clone, Debug)]
struct HwTable {
    queue: Vec<Option<u16>>,
    len: u32,
    limit: u32,
}

impl HwTable {
    /// Writes (or re-points) `flow`'s rule; a new rule fails when the table is full.
    fn write(&mut self, flow: u32, q: u16, counters: &mut ArfsCounters) {
        counters.hw_writes += 1;
        let slot = &mut self.queue[flow as usize];
        if slot.is_none() {
            if self.len >= self.limit {
                counters.full += 1;
                return;
            }
            self.len += 1;
        }
        *slot = Some(q);
    }

    /// Removes `flow`'s rule (a delete is written even for an entry whose add had failed).
    fn remove(&mut self, flow: u32, counters: &mut ArfsCounters) {
        counters.hw_writes += 1;
        if self.queue[flow as usize].take().is_some() {
            self.len -= 1;
        }
    }
}

/// The stack's answer to `rps_may_expire_flow(dev, rxq, flow_id, filter_id)`.
pub trait ExpiryOracle {
    /// True when the filter may be removed.
    fn may_expire(&self, rxq: u16, flow_id: u32, filter_id: u16) -> bool;
}

impl Arfs {
    /// The aRFS state of `driver` with room for `limit` filters.
    pub fn new(driver: Driver, limit: u32) -> Arfs {
        let model = match driver {
            Driver::Generic | Driver::Ixgbe => Model::None,
            Driver::IceHashMatch | Driver::Ice => Model::Ice {
                hash_match_only: driver == Driver::IceHashMatch,
                buckets: vec![Vec::new(); ICE_BUCKETS as usize],
                entries: Vec::new(),
            },
            Driver::Mlx5 => Model::Mlx5 { rules: Vec::new(), by_flow: Vec::new(), pending: Vec::new(), chain: Vec::new(), seq: 0 },
        };
        // ice: `fltr_id = (++last_fltr_id) % 0xffff` (first id 1); mlx5:
        // `filter_id = last_filter_id++ % RPS_NO_FILTER` (first id 0).
        let last_id = if driver == Driver::Mlx5 { FILTER_ID_SPACE - 1 } else { 0 };
        Arfs { model, free: Vec::new(), live: 0, hw: HwTable { queue: Vec::new(), len: 0, limit }, last_id, pending: Vec::new(), writes: Vec::new(), counters: ArfsCounters::default(), per_queue: Vec::new() }
    }

    /// Whether the driver implements `ndo_rx_flow_steer`.
    pub fn supported(&self) -> bool {
        !matches!(self.model, Model::None)
    }

    /// Makes room for the next flow (flows are tracked in index order), with its tuple.
    pub fn track_flow(&mut self, key: &FlowKey) {
        self.hw.queue.push(None);
        if let Model::Mlx5 { by_flow, chain, .. } = &mut self.model {
            by_flow.push(NONE);
            chain.push(mlx5_chain(key));
        }
    }

    /// The queue a programmed filter sends `flow` to.
    pub fn hw_queue(&self, flow: usize) -> Option<u16> {
        self.hw.queue.get(flow).copied().flatten()
    }

    /// Live filters (programmed or pending).
    pub fn active(&self) -> u32 {
        self.live
    }

    fn next_id(&mut self) -> u16 {
        self.last_id = (self.last_id + 1) % FILTER_ID_SPACE;
        self.last_id as u16
    }

    fn alloc<T>(free: &mut Vec<u32>, slab: &mut Vec<Option<T>>, value: T) -> u32 {
        match free.pop() {
            Some(i) => {
                slab[i as usize] = Some(value);
                i
            }
            None => {
                slab.push(Some(value));
                slab.len() as u32 - 1
            }
        }
    }

    /// What `ndo_rx_flow_steer` answers a request, found before anything changes: the
    /// driver's entry for the flow (`NONE` when it has none) and whether ice's full-tuple
    /// compare passed over another flow's entry the hash-only code would have re-pointed.
    /// Neither driver refuses for lack of room: the entry is added, and only its hardware
    /// write may fail later ([`ArfsCounters::full`]).
    pub fn decide(&self, req: &SteerRequest) -> Decision {
        // The id an add would take; committed only when the add happens.
        let add_id = ((self.last_id + 1) % FILTER_ID_SPACE) as u16;
        let (answer, entry, avoided) = match &self.model {
            Model::None => (Steer::NotSupported, NONE, false),
            Model::Ice { hash_match_only, buckets, entries } => {
                let mut avoided = false;
                let mut found = None;
                // The bucket's head is the end of the vector (hlist_add_head).
                for &(flow_id, e) in buckets[(req.hash & (ICE_BUCKETS - 1)) as usize].iter().rev() {
                    if flow_id != req.flow_id {
                        continue;
                    }
                    let entry = entries[e as usize].as_ref().expect("bucket holds live entries");
                    if !*hash_match_only && entry.flow != req.flow {
                        // ice_arfs_cmp: another flow with the same flow_id. Counted only where
                        // the hash-only code would have re-pointed it (seed 000's "avoid wrong
                        // aRFS programming"), not where it would have skipped.
                        avoided |= entry.q_index != req.rxq && entry.state == IceState::Active;
                        continue;
                    }
                    found = Some((e, entry));
                    break;
                }
                let answer = match found {
                    Some((_, e)) if e.q_index == req.rxq || e.state != IceState::Active => Steer::Skip(e.fltr_id),
                    Some((_, e)) => Steer::Update(e.fltr_id),
                    None => Steer::Add(add_id),
                };
                (answer, found.map_or(NONE, |(e, _)| e), avoided)
            }
            Model::Mlx5 { rules, by_flow, .. } => {
                let existing = by_flow[req.flow as usize];
                let answer = match rules.get(existing as usize).and_then(Option::as_ref) {
                    Some(r) if r.rxq == req.rxq || r.pending => Steer::Skip(r.filter_id),
                    Some(r) => Steer::Update(r.filter_id),
                    None => Steer::Add(add_id),
                };
                (answer, existing, false)
            }
        };
        Decision { answer, entry, avoided }
    }

    /// `ndo_rx_flow_steer`. Returns the outcome and whether any state other than counters
    /// changed (identical calls that change nothing may be applied together).
    pub fn rx_flow_steer(&mut self, req: SteerRequest) -> (Steer, bool) {
        let d = self.decide(&req);
        self.carry_out(req, d)
    }

    /// Acts on [`Arfs::decide`]'s decision for `req`, taken since with nothing changed in
    /// between: what [`Arfs::rx_flow_steer`] does after deciding.
    pub fn carry_out(&mut self, req: SteerRequest, d: Decision) -> (Steer, bool) {
        if d.avoided {
            self.counters.misprogram_avoided += req.calls;
        }
        match (d.answer, &mut self.model) {
            (_, Model::None) => return (d.answer, false),
            (Steer::Skip(_), _) => {
                self.counters.skip += req.calls;
                return (d.answer, false);
            }
            (Steer::NotSupported, _) => return (d.answer, false),
            (Steer::Update(_), Model::Ice { entries, .. }) => {
                let entry = entries[d.entry as usize].as_mut().expect("live");
                entry.q_index = req.rxq;
                entry.state = IceState::Inactive;
                self.pending.push(d.entry);
            }
            (Steer::Update(_), Model::Mlx5 { rules, pending, .. }) => {
                let rule = rules[d.entry as usize].as_mut().expect("live");
                rule.rxq = req.rxq;
                rule.pending = true;
                pending.push(d.entry);
            }
            (Steer::Add(id), Model::Ice { buckets, entries, .. }) => {
                let entry = IceEntry { flow: req.flow, flow_id: req.flow_id, q_index: req.rxq, fltr_id: id, state: IceState::Inactive, udp: req.udp, activated: Nanos::ZERO };
                let idx = Self::alloc(&mut self.free, entries, entry);
                buckets[(req.hash & (ICE_BUCKETS - 1)) as usize].push((req.flow_id, idx));
                self.pending.push(idx);
            }
            (Steer::Add(id), Model::Mlx5 { rules, by_flow, pending, seq, .. }) => {
                *seq += 1;
                let rule = Mlx5Rule { flow: req.flow, flow_id: req.flow_id, rxq: req.rxq, filter_id: id, pending: true, seq: *seq, waiting: false };
                let idx = Self::alloc(&mut self.free, rules, rule);
                by_flow[req.flow as usize] = idx;
                pending.push(idx);
            }
        }
        let added = matches!(d.answer, Steer::Add(_));
        if added {
            self.next_id();
            self.live += 1;
            self.counters.add += 1;
        } else {
            self.counters.update += 1;
        }
        let q = Self::tally(&mut self.per_queue, req.rxq);
        if added {
            q.add += 1;
        } else {
            q.update += 1;
        }
        (d.answer, d.changes_state())
    }

    /// ice: entries an add or update left INACTIVE wait for the service task (it is to be
    /// scheduled: `ice_service_task_schedule`).
    pub fn ice_work_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The tally of queue `q`, grown to hold it.
    fn tally(per_queue: &mut Vec<QueueTally>, q: u16) -> &mut QueueTally {
        let i = usize::from(q);
        if per_queue.len() <= i {
            per_queue.resize(i + 1, QueueTally::default());
        }
        &mut per_queue[i]
    }

    /// ice: an INACTIVE entry becomes ACTIVE and is queued for its hardware write, which may
    /// fail (the entry stays ACTIVE: `ice_arfs_add_flow_rules` only logs the failure).
    fn program(adds: &mut Vec<(u32, Option<u16>)>, e: &mut IceEntry, now: Nanos) {
        e.state = IceState::Active;
        if e.udp {
            e.activated = now;
        }
        adds.push((e.flow, Some(e.q_index)));
    }

    /// One run of ice's service task (`ice_sync_arfs_fltrs`), on its 1 s timer or scheduled by
    /// `ice_rx_flow_steer`: under `arfs_lock`, INACTIVE entries become ACTIVE (queued for an
    /// add) and, when `expire`, ACTIVE ones that expired leave the list (queued for a delete).
    /// Returns how many entries the kernel's walk visits (every one: its cost, whatever the
    /// sandbox skips). The hardware changes when [`Arfs::ice_writes_done`] says the writes ended.
    pub fn ice_sync(&mut self, now: Nanos, oracle: &impl ExpiryOracle, expire: bool) -> u32 {
        let walked = self.live;
        let Model::Ice { buckets, entries, .. } = &mut self.model else { return 0 };
        let mut adds = Vec::new();
        if !expire {
            // Only INACTIVE entries change: those an add or update left since the last walk.
            for i in self.pending.drain(..) {
                if let Some(e) = entries[i as usize].as_mut() {
                    if e.state == IceState::Inactive {
                        Self::program(&mut adds, e, now);
                    }
                }
            }
        } else {
            self.pending.clear();
            for bucket in buckets.iter_mut() {
                let mut i = bucket.len();
                while i > 0 {
                    i -= 1; // head first
                    let (_, idx) = bucket[i];
                    let e = entries[idx as usize].as_mut().expect("live");
                    match e.state {
                        IceState::Inactive => Self::program(&mut adds, e, now),
                        IceState::Active => {
                            let expired = oracle.may_expire(e.q_index, e.flow_id, e.fltr_id)
                                || (e.udp && now.saturating_sub(e.activated) >= ICE_UDP_EXPIRY);
                            if expired {
                                Self::tally(&mut self.per_queue, e.q_index).expire += 1;
                                self.writes.push((e.flow, None));
                                entries[idx as usize] = None;
                                bucket.remove(i);
                                self.free.push(idx);
                                self.live -= 1;
                                self.counters.expire += 1;
                            }
                        }
                    }
                }
            }
        }
        // ice_arfs_del_flow_rules, then ice_arfs_add_flow_rules.
        self.writes.append(&mut adds);
        walked
    }

    /// The hardware writes queued by runs whose writes have not ended yet.
    pub fn ice_writes_queued(&self) -> u32 {
        self.writes.len() as u32
    }

    /// The run's writes have ended: the hardware now holds its deletes and its adds.
    pub fn ice_writes_done(&mut self) {
        for (flow, q) in self.writes.drain(..) {
            match q {
                Some(q) => self.hw.write(flow, q, &mut self.counters),
                None => self.hw.remove(flow, &mut self.counters),
            }
        }
    }

    /// mlx5's work: each queued `arfs_handle_work` programs its rule, then runs
    /// `arfs_may_expire_flow`. Returns whether work ran.
    ///
    /// The passes of one batch see the same stack (no packet runs between them), so the rules
    /// `rps_may_expire_flow` would let go are found once and kept in the walk's order (table,
    /// chain, newest first); a pending one joins them when its work is done.
    pub fn mlx5_work(&mut self, oracle: &impl ExpiryOracle) -> bool {
        let Model::Mlx5 { rules, by_flow, pending, chain, .. } = &mut self.model else { return false };
        if pending.is_empty() {
            return false;
        }
        // (chain, newest first, rule): the walk's order.
        let key = |i: u32, r: &Mlx5Rule| (chain[r.flow as usize], core::cmp::Reverse(r.seq), i);
        let mut ready = Vec::new();
        for (i, slot) in rules.iter_mut().enumerate() {
            if let Some(r) = slot.as_mut() {
                if oracle.may_expire(r.rxq, r.flow_id, r.filter_id) {
                    // A pending rule is passed over (`work_pending`) until its work is done.
                    r.waiting = r.pending;
                    if !r.pending {
                        ready.push(key(i as u32, r));
                    }
                }
            }
        }
        ready.sort_unstable();
        for idx in core::mem::take(pending) {
            let Some(rule) = rules[idx as usize].as_mut() else { continue };
            if rule.pending {
                // A failed add leaves the rule without hardware (`rule == NULL`, `arfs_err`);
                // it is tried again only if it moves.
                rule.pending = false;
                self.hw.write(rule.flow, rule.rxq, &mut self.counters);
                if core::mem::take(&mut rule.waiting) {
                    let k = key(idx, rule);
                    let at = ready.partition_point(|e| *e < k);
                    ready.insert(at, k);
                }
            }
            let mut quota = 0u32;
            let mut k = 0;
            while k < ready.len() {
                let this = ready[k].0;
                let end = k + ready[k..].iter().take_while(|e| e.0 == this).count();
                for &(_, _, i) in &ready[k..end] {
                    let Some(rule) = rules[i as usize].take() else { continue };
                    Self::tally(&mut self.per_queue, rule.rxq).expire += 1;
                    self.hw.remove(rule.flow, &mut self.counters);
                    by_flow[rule.flow as usize] = NONE;
                    self.free.push(i);
                    self.live -= 1;
                    self.counters.expire += 1;
                    quota += 1;
                    if quota - 1 > MLX5_EXPIRY_QUOTA {
                        break;
                    }
                }
                k = end;
            }
            // What the quota left for the next pass.
            if quota > 0 {
                ready.retain(|e| rules[e.2 as usize].is_some());
            }
        }
        true
    }

    /// The live filters, bucket/rule order.
    pub fn filters(&self) -> Vec<FilterView> {
        match &self.model {
            Model::None => Vec::new(),
            Model::Ice { buckets, entries, .. } => buckets
                .iter()
                .flat_map(|b| b.iter().rev())
                .filter_map(|&(_, i)| entries[i as usize].as_ref())
                .map(|e| FilterView { flow: e.flow, flow_id: e.flow_id, queue: e.q_index, id: e.fltr_id, pending: e.state == IceState::Inactive })
                .collect(),
            Model::Mlx5 { rules, .. } => rules
                .iter()
                .flatten()
                .map(|r| FilterView { flow: r.flow, flow_id: r.flow_id, queue: r.rxq, id: r.filter_id, pending: r.pending })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
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
            a.track_flow(&FlowKey::new(ip, core::net::IpAddr::V4(core::net::Ipv4Addr::new(10, 0, 0, 1)), 1000 + f as u16, 80, crate::flow::Proto::Tcp).unwrap());
        }
        a
    }

    /// A whole ice service run: the walk (with its expiry half) and its writes.
    fn service(a: &mut Arfs, now: Nanos, oracle: &impl ExpiryOracle) {
        a.ice_sync(now, oracle, true);
        a.ice_writes_done();
    }

    fn req(flow: u32, hash: u32, rxq: u16, flow_id: u32) -> SteerRequest {
        SteerRequest { flow, hash, rxq, flow_id, udp: false, calls: 1 }
    }

    /// Seed 000's scenario: flow 1 at q10, then flow 2 with the same hash wants q20. Hash-only
    /// matching re-points flow 1's filter (flow 1 mis-steered, flow 2 never programmed).
    #[test]
    fn ice_hash_only_match_reprograms_the_wrong_filter() {
        let mut a = tracked(Driver::IceHashMatch, 100, 2);
        assert!(matches!(a.rx_flow_steer(req(0, 0xabc, 10, 7)), (Steer::Add(1), true)));
        service(&mut a, Nanos::ZERO, &Never);
        assert_eq!(a.hw_queue(0), Some(10));
        assert!(matches!(a.rx_flow_steer(req(1, 0xabc, 20, 7)), (Steer::Update(1), true)));
        service(&mut a, Nanos::from_secs(1), &Never);
        assert_eq!(a.hw_queue(0), Some(20), "flow 0 now lands on flow 1's queue");
        assert_eq!(a.hw_queue(1), None, "flow 1 never gets a filter");
        assert_eq!((a.counters.add, a.counters.update, a.counters.misprogram_avoided), (1, 1, 0));
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
        assert_eq!(a.counters.misprogram_avoided, 1, "flow 1's entry is the bucket head: found first");
        // Flow 0 walks past flow 1's entry (same flow_id, other tuple) to its own.
        assert!(matches!(a.rx_flow_steer(req(0, 0xabc, 10, 7)), (Steer::Skip(1), false)));
        assert_eq!(a.counters.misprogram_avoided, 2);
    }

    #[test]
    fn ice_skips_while_inactive_and_expires_in_the_service_task() {
        let mut a = tracked(Driver::Ice, 100, 1);
        a.rx_flow_steer(req(0, 5, 3, 5));
        assert!(matches!(a.rx_flow_steer(req(0, 5, 4, 5)), (Steer::Skip(1), false)), "INACTIVE: skip");
        service(&mut a, Nanos::ZERO, &Always);
        assert_eq!(a.hw_queue(0), Some(3), "programmed, not expired in the same pass");
        service(&mut a, Nanos::from_secs(1), &Always);
        assert_eq!((a.hw_queue(0), a.active(), a.counters.expire), (None, 0, 1));
    }

    #[test]
    fn ice_udp_filters_expire_by_age() {
        let mut a = tracked(Driver::Ice, 100, 1);
        a.rx_flow_steer(SteerRequest { udp: true, ..req(0, 5, 3, 5) });
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
            assert!(matches!(a.rx_flow_steer(req(1, 2, 1, 2)).0, Steer::Add(_)), "{driver}: no refusal");
            let sync = |a: &mut Arfs| if driver == Driver::Mlx5 { a.mlx5_work(&Never); } else { service(a, Nanos::ZERO, &Never) };
            sync(&mut a);
            assert_eq!((a.hw_queue(0), a.hw_queue(1), a.counters.full, a.active()), (Some(1), None, 1, 2), "{driver}");
            assert!(matches!(a.rx_flow_steer(req(1, 2, 1, 2)), (Steer::Skip(_), false)), "{driver}: no retry");
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
                a.track_flow(&FlowKey::new(ip, core::net::IpAddr::V4(core::net::Ipv4Addr::new(10, 0, 0, 1)), 5000, 80, crate::flow::Proto::Tcp).unwrap());
            }
            for f in 0..n - late {
                a.rx_flow_steer(req(f, f, 1, f));
            }
            a.mlx5_work(&Never);
            for f in n - late..n {
                a.rx_flow_steer(req(f, f, 1, f));
            }
            assert!(a.mlx5_work(&Always));
            a.counters.expire
        };
        assert_eq!(expired(101, 1), 62, "one work item, one pass: the chain's walk stops at 62");
        assert_eq!(expired(102, 2), 102, "62 after the first item, the other 40 after the second");
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
        assert!(matches!(a.rx_flow_steer(req(3, 7, 2, 7)).0, Steer::Skip(_)), "work pending: skip");
        assert!(a.mlx5_work(&Never));
        assert_eq!(a.hw_queue(99), Some(1));
        assert!(matches!(a.rx_flow_steer(req(3, 7, 2, 7)).0, Steer::Update(_)));
        assert!(a.mlx5_work(&Always));
        // One work item, one pass: 62 rules, then the first rule of every later chain.
        let chains_after_62 = {
            let Model::Mlx5 { chain, .. } = &a.model else { unreachable!() };
            let mut order: Vec<(u16, core::cmp::Reverse<u32>)> = (0..100u32).map(|f| (chain[f as usize], core::cmp::Reverse(f + 1))).collect();
            order.sort_unstable();
            let cut = order[61].0;
            order.iter().filter(|o| o.0 > cut).map(|o| o.0).collect::<alloc::collections::BTreeSet<_>>().len() as u64
        };
        assert_eq!(a.counters.expire, 62 + chains_after_62);
        // The per-queue tallies add up to the driver's counters.
        let sum = |f: fn(&QueueTally) -> u64| a.per_queue.iter().map(f).sum::<u64>();
        assert_eq!((sum(|t| t.add), sum(|t| t.update), sum(|t| t.expire)), (a.counters.add, a.counters.update, a.counters.expire));
        assert!(!a.mlx5_work(&Always), "no work, no expiry");
    }
}
