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
//! items run at the end of the tick, in the order they were queued, each followed by its
//! expiry pass, for as long as its one worker has time ([`Arfs::mlx5_work`]).

use alloc::vec;
use alloc::vec::Vec;

use crate::driver::Driver;
use crate::flow::FlowKey;

mod ice;
mod mlx5;

use crate::time::Nanos;
use mlx5::mlx5_chain;

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

/// ice: the bucket of a flow hash (`hash & (ICE_MAX_ARFS_LIST - 1)`).
fn ice_bucket(hash: u32) -> usize {
    (hash & (ICE_BUCKETS - 1)) as usize
}

/// ice: an entry's `flow_id` in its bucket's summary (`Model::Ice::ids`): one of 64 bits.
fn ice_id_bit(flow_id: u32) -> u64 {
    1 << (flow_id % 64)
}

/// ice: bits of an entry's name that give its place in its bucket.
const ICE_PLACE_BITS: u32 = 22;

/// ice: the name of the entry at `place` in bucket `b` (never `NONE`: the last place of the
/// last bucket is not used). It holds until an expiry walk removes entries (adds go to a
/// bucket's end), and that walk first forgets the names it had (`pending`); decisions are
/// carried out before anything else changes.
fn ice_handle(b: usize, place: usize) -> u32 {
    debug_assert!(place < (1 << ICE_PLACE_BITS) - 1);
    ((b as u32) << ICE_PLACE_BITS) | place as u32
}

/// ice: the bucket and place an [`ice_handle`] names.
fn ice_place(handle: u32) -> (usize, usize) {
    (
        (handle >> ICE_PLACE_BITS) as usize,
        (handle & ((1 << ICE_PLACE_BITS) - 1)) as usize,
    )
}

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
    /// Expired in the walk under way ([`Arfs::ice_sync`]), which then drops the bucket's
    /// expired entries in one pass: never seen outside the walk.
    Gone,
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
    /// The flow's entry (ice: [`ice_handle`]) or rule (mlx5: its index), `NONE` when it has
    /// none.
    entry: u32,
    /// ice full-tuple match: another flow's entry was passed over (`misprogram_avoided`).
    avoided: bool,
}

impl Decision {
    /// The driver refuses the request before looking at its entries (ice's `-EOPNOTSUPP`
    /// when a flow type's input set is not the perfect 4-tuple).
    pub fn refused() -> Decision {
        Decision {
            answer: Steer::NotSupported,
            entry: NONE,
            avoided: false,
        }
    }

    /// Acting on it changes the driver's state (an add or an update), not only its counters.
    pub fn changes_state(&self) -> bool {
        matches!(self.answer, Steer::Add(_) | Steer::Update(_))
    }
}

#[derive(Clone, Debug)]
enum Model {
    None,
    /// Each bucket holds its entries, oldest first (`hlist_add_head` adds at the kernel's
    /// head: the end here), as the kernel's hlist holds them: the service task's walk reads
    /// each bucket's entries in a row, and a decision finds the flow's among them without a
    /// visit elsewhere. An entry is named by its bucket and place ([`ice_handle`]).
    Ice {
        hash_match_only: bool,
        buckets: Vec<Vec<IceEntry>>,
        /// Per bucket, the `flow_id`s its entries hold, as bits ([`ice_id_bit`]): a lookup
        /// whose bit is clear has no entry to find there and need not walk the bucket. (In
        /// seed 000, 78 % of lookups find none: the flows whose filters the last expiry walk
        /// dropped, re-added after a walk of their whole bucket, 13 entries on average.) An
        /// add sets its bit; each expiry walk, which visits every entry, makes them exact.
        ids: Vec<u64>,
    },
    Mlx5 {
        rules: Vec<Option<Mlx5Rule>>,
        by_flow: Vec<u32>,
        pending: Vec<u32>,
        chain: Vec<u16>,
        seq: u32,
    },
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
    /// ice: a run's adds while it walks (they follow its deletes); kept to reuse its room.
    adds: Vec<(u32, Option<u16>)>,
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
    /// Room taken by other users of the same space (ice: `ethtool -N` rules).
    reserved: u32,
}

impl HwTable {
    /// Writes (or re-points) `flow`'s rule; a new rule fails when the table is full.
    fn write(&mut self, flow: u32, q: u16, counters: &mut ArfsCounters) {
        counters.hw_writes += 1;
        let slot = &mut self.queue[flow as usize];
        if slot.is_none() {
            if self.len + self.reserved >= self.limit {
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

/// The walks of a driver's list under its lock: how many ran and how many entries each
/// visited (the lock's hold is the walk's length).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Walks {
    /// Walks that ran.
    pub passes: u64,
    /// Entries visited, summed over the walks.
    pub entries: u64,
    /// Each walk's entries, in order, with how many walks in a row had that many.
    pub lengths: Vec<(u32, u64)>,
}

impl Walks {
    /// One more walk of `entries` entries.
    pub fn add(&mut self, entries: u32) {
        self.passes += 1;
        self.entries += u64::from(entries);
        match self.lengths.last_mut() {
            Some((e, n)) if *e == entries => *n += 1,
            _ => self.lengths.push((entries, 1)),
        }
    }
}

/// What mlx5's worker spends on one item's parts (the cost table's `arfs_hw_update_ns` and
/// `mlx5_expiry_entry_ns`).
#[derive(Clone, Copy, Debug)]
pub struct WorkPrices {
    /// One hardware write: a rule programmed, re-pointed or removed.
    pub write_ns: u64,
    /// One rule visited by an expiry pass.
    pub entry_ns: u64,
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
                ids: vec![0; ICE_BUCKETS as usize],
            },
            Driver::Mlx5 => Model::Mlx5 {
                rules: Vec::new(),
                by_flow: Vec::new(),
                pending: Vec::new(),
                chain: Vec::new(),
                seq: 0,
            },
        };
        // ice: `fltr_id = (++last_fltr_id) % 0xffff` (first id 1); mlx5:
        // `filter_id = last_filter_id++ % RPS_NO_FILTER` (first id 0).
        let last_id = if driver == Driver::Mlx5 { FILTER_ID_SPACE - 1 } else { 0 };
        Arfs {
            model,
            free: Vec::new(),
            live: 0,
            hw: HwTable {
                queue: Vec::new(),
                len: 0,
                limit,
                reserved: 0,
            },
            last_id,
            pending: Vec::new(),
            writes: Vec::new(),
            adds: Vec::new(),
            counters: ArfsCounters::default(),
            per_queue: Vec::new(),
        }
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

    /// ice: `n` ntuple rules take room in the Flow Director space aRFS writes into
    /// (ice.rst, aRFS: the two share it).
    pub fn reserve(&mut self, n: u32) {
        self.hw.reserved = n;
    }

    /// Rules the NIC's table can still take.
    pub fn hw_room(&self) -> u32 {
        self.hw.limit.saturating_sub(self.hw.len + self.hw.reserved)
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
    // Inlined into the stack's callers (`plan_set_rps_cpu`, `set_rps_cpu`, `follow_add` in
    // sim/): see `plan_set_rps_cpu` (sim/rfs.rs).
    #[inline(always)]
    pub fn decide(&self, req: &SteerRequest) -> Decision {
        // The id an add would take; committed only when the add happens.
        let add_id = ((self.last_id + 1) % FILTER_ID_SPACE) as u16;
        let (answer, entry, avoided) = match &self.model {
            Model::None => (Steer::NotSupported, NONE, false),
            Model::Ice {
                hash_match_only,
                buckets,
                ids,
            } => {
                let mut avoided = false;
                let mut found = None;
                let b = ice_bucket(req.hash);
                // No entry of the bucket holds the flow_id: nothing to walk.
                let may_hold = ids[b] & ice_id_bit(req.flow_id) != 0;
                debug_assert!(
                    may_hold || buckets[b].iter().all(|e| e.flow_id != req.flow_id),
                    "ice: bucket {b}'s summary lacks a flow_id it holds"
                );
                let walk = if may_hold { &buckets[b][..] } else { &[] };
                // The bucket's head is the end of the vector (hlist_add_head).
                for (place, entry) in walk.iter().enumerate().rev() {
                    if entry.flow_id != req.flow_id {
                        continue;
                    }
                    let e = ice_handle(b, place);
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

    /// What [`Arfs::decide`] answers `req` again right after `d`, its answer, was carried
    /// out, when `d` added an entry: the driver finds that entry (ice puts it at its bucket's
    /// head, INACTIVE until the service task programs it; mlx5's rule is pending until its
    /// work runs) and has nothing to do, `Skip` with the new filter id. `None` for any other
    /// answer. (Checked against `decide` in debug builds.)
    // Inlined into the stack's callers (`plan_set_rps_cpu`, `set_rps_cpu`, `follow_add` in
    // sim/): see `plan_set_rps_cpu` (sim/rfs.rs).
    #[inline(always)]
    pub fn after_add(&self, req: &SteerRequest, d: &Decision) -> Option<Decision> {
        let Steer::Add(id) = d.answer else {
            return None;
        };
        let skip = Decision {
            answer: Steer::Skip(id),
            entry: NONE,
            avoided: false,
        };
        debug_assert!({
            let again = self.decide(req);
            again.answer == skip.answer && !again.avoided
        });
        Some(skip)
    }

    /// `m` calls that [`Arfs::after_add`] answered `Skip`: carrying them out only counts them.
    pub fn count_skips(&mut self, m: u64) {
        self.counters.skip += m;
    }

    /// `ndo_rx_flow_steer`. Returns the outcome and whether any state other than counters
    /// changed (identical calls that change nothing may be applied together).
    pub fn rx_flow_steer(&mut self, req: SteerRequest) -> (Steer, bool) {
        let d = self.decide(&req);
        self.carry_out(req, d)
    }

    /// Acts on [`Arfs::decide`]'s decision for `req`, taken since with nothing changed in
    /// between: what [`Arfs::rx_flow_steer`] does after deciding.
    // Inlined into the stack's callers (`plan_set_rps_cpu`, `set_rps_cpu`, `follow_add` in
    // sim/): see `plan_set_rps_cpu` (sim/rfs.rs).
    #[inline(always)]
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
            (Steer::Update(_), Model::Ice { buckets, .. }) => {
                let (b, place) = ice_place(d.entry);
                let entry = &mut buckets[b][place];
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
            (Steer::Add(id), Model::Ice { buckets, ids, .. }) => {
                let entry = IceEntry {
                    flow: req.flow,
                    flow_id: req.flow_id,
                    q_index: req.rxq,
                    fltr_id: id,
                    state: IceState::Inactive,
                    udp: req.udp,
                    activated: Nanos::ZERO,
                };
                let b = ice_bucket(req.hash);
                buckets[b].push(entry);
                ids[b] |= ice_id_bit(req.flow_id);
                self.pending.push(ice_handle(b, buckets[b].len() - 1));
            }
            (
                Steer::Add(id),
                Model::Mlx5 {
                    rules,
                    by_flow,
                    pending,
                    seq,
                    ..
                },
            ) => {
                *seq += 1;
                let rule = Mlx5Rule {
                    flow: req.flow,
                    flow_id: req.flow_id,
                    rxq: req.rxq,
                    filter_id: id,
                    pending: true,
                    seq: *seq,
                    waiting: false,
                };
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

    /// The tally of queue `q`, grown to hold it.
    fn tally(per_queue: &mut Vec<QueueTally>, q: u16) -> &mut QueueTally {
        let i = usize::from(q);
        if per_queue.len() <= i {
            per_queue.resize(i + 1, QueueTally::default());
        }
        &mut per_queue[i]
    }

    /// The live filters, bucket/rule order.
    pub fn filters(&self) -> Vec<FilterView> {
        match &self.model {
            Model::None => Vec::new(),
            Model::Ice { buckets, .. } => buckets
                .iter()
                .flat_map(|b| b.iter().rev())
                .map(|e| FilterView {
                    flow: e.flow,
                    flow_id: e.flow_id,
                    queue: e.q_index,
                    id: e.fltr_id,
                    pending: e.state == IceState::Inactive,
                })
                .collect(),
            Model::Mlx5 { rules, .. } => rules
                .iter()
                .flatten()
                .map(|r| FilterView {
                    flow: r.flow,
                    flow_id: r.flow_id,
                    queue: r.rxq,
                    id: r.filter_id,
                    pending: r.pending,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests;
