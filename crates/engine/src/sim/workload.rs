//! The workload: threads (placement, cpusets, migrations) and flows (their checks and records).

use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::config::{MAX_FLOWS, MAX_THREADS};
use crate::cpuset::CpuSet;
use crate::flow::{FlowKey, Proto};
use crate::time::Nanos;

use super::event::Event;
use super::{range_err, tx, Flow, FlowInfo, FlowSpec, Sim, SimError, Thread, ThreadSpec};

impl Sim {
    /// Adds a thread; returns its id.
    pub fn add_thread(&mut self, spec: ThreadSpec) -> Result<u32, SimError> {
        let n = self.cfg.cpus;
        if self.threads.len() as u32 >= MAX_THREADS {
            return Err(range_err("threads", "at most 65536 threads"));
        }
        let allowed = if spec.allowed.is_empty() {
            CpuSet::range(0, n)
        } else {
            spec.allowed
        };
        if allowed.end() > n {
            return Err(range_err("thread.cpuset", "CPUs of this host"));
        }
        if !allowed.contains(spec.cpu) {
            return Err(range_err("thread.cpu", "a CPU of the thread's cpuset"));
        }
        self.timers
            .set_migration(self.threads.len(), self.now, spec.migrate_every);
        self.threads.push(Thread {
            cpu: spec.cpu,
            allowed,
            every: spec.migrate_every,
        });
        Ok(self.threads.len() as u32 - 1)
    }

    /// Moves thread `tid` to `cpu` (what dragging it does; `taskset` changes the cpuset).
    pub fn migrate_thread(&mut self, tid: u32, cpu: u16) -> Result<(), SimError> {
        let t = self.threads.get(tid as usize).ok_or(SimError::NoThread(tid))?;
        if !t.allowed.contains(cpu) {
            return Err(SimError::NotInCpuset {
                tid,
                cpu,
                cpuset: t.allowed.to_list(),
            });
        }
        self.threads[tid as usize].cpu = cpu;
        self.counters.migrations += 1;
        self.record(Event::Migrate { tid, cpu });
        Ok(())
    }

    /// Sets how often thread `tid` migrates to a random CPU of its cpuset (zero: never).
    pub fn set_thread_migration(&mut self, tid: u32, every: Nanos) -> Result<(), SimError> {
        check_migration(every)?;
        let now = self.now;
        let t = self.threads.get_mut(tid as usize).ok_or(SimError::NoThread(tid))?;
        t.every = every;
        self.timers.set_migration(tid as usize, now, every);
        self.record(Event::MigrationPeriod { tid, every });
        Ok(())
    }

    /// A thread's migration period (zero: it stays where it is put).
    pub fn thread_migration(&self, tid: u32) -> Option<Nanos> {
        self.threads.get(tid as usize).map(|t| t.every)
    }

    /// `taskset -pc LIST TID`: sets the cpuset; a thread outside it moves to its first CPU.
    pub fn set_thread_cpuset(&mut self, tid: u32, allowed: CpuSet) -> Result<(), SimError> {
        self.check_thread_cpuset(tid, allowed)?;
        let t = &mut self.threads[tid as usize];
        let cpu = if allowed.contains(t.cpu) {
            t.cpu
        } else {
            allowed.nth(0).unwrap_or(0)
        };
        t.allowed = allowed;
        if cpu != t.cpu {
            self.migrate_thread(tid, cpu)?;
        }
        Ok(())
    }

    fn check_thread_cpuset(&self, tid: u32, allowed: CpuSet) -> Result<(), SimError> {
        if tid as usize >= self.threads.len() {
            return Err(SimError::NoThread(tid));
        }
        if allowed.is_empty() || allowed.end() > self.cfg.cpus {
            return Err(range_err("cpuset", "a non-empty set of this host's CPUs"));
        }
        Ok(())
    }

    /// steerlab's per-thread policy (`thread policy`) in one step: the cpuset, as
    /// [`Sim::set_thread_cpuset`], and the migration period, as [`Sim::set_thread_migration`].
    /// On `Err` neither changed.
    pub fn set_thread_policy(&mut self, tid: u32, allowed: CpuSet, every: Nanos) -> Result<(), SimError> {
        self.check_thread_cpuset(tid, allowed)?;
        check_migration(every)?;
        self.set_thread_cpuset(tid, allowed)?;
        self.set_thread_migration(tid, every)
    }

    /// Adds a flow; returns its index.
    pub fn add_flow(&mut self, spec: FlowSpec) -> Result<u32, SimError> {
        if self.flows.len() as u32 >= MAX_FLOWS {
            return Err(range_err("flows", "at most 1000000 flows"));
        }
        self.check_flow(&spec)?;
        Ok(self.insert_flow(spec))
    }

    /// Adds several flows, all or none: every one is checked (also against the others of the
    /// batch) before the first is added.
    pub fn add_flows(&mut self, specs: Vec<FlowSpec>) -> Result<core::ops::Range<u32>, SimError> {
        if self.flows.len() + specs.len() > MAX_FLOWS as usize {
            return Err(range_err("flows", "at most 1000000 flows"));
        }
        let mut batch = alloc::collections::BTreeSet::new();
        for spec in &specs {
            self.check_flow(spec)?;
            if !batch.insert(spec.key) {
                return Err(SimError::FlowGivenTwice(spec.key));
            }
        }
        let first = self.flows.len() as u32;
        for spec in specs {
            self.insert_flow(spec);
        }
        Ok(first..self.flows.len() as u32)
    }

    /// Whether `spec` may be added: ranges, its readers, a new tuple.
    pub(super) fn check_flow(&self, spec: &FlowSpec) -> Result<(), SimError> {
        let rx_min = u64::from(spec.tx.is_none());
        if !(rx_min..=100_000_000).contains(&spec.rate_pps) {
            return Err(range_err(
                "flow.rate_pps",
                if rx_min == 1 {
                    "1..=100000000"
                } else {
                    "0..=100000000 (0: send only)"
                },
            ));
        }
        if let Some(t) = &spec.tx {
            t.validate()?;
            if spec.readers.is_empty() {
                return Err(SimError::SenderWithoutThread);
            }
        }
        if !(64..=65_535).contains(&spec.bytes) {
            return Err(range_err("flow.bytes", "64..=65535"));
        }
        if let Some(&r) = spec.readers.iter().find(|&&r| r as usize >= self.threads.len()) {
            return Err(SimError::NoReader(r));
        }
        match self.by_key.get(&spec.key) {
            Some(&id) if self.flows[id as usize].closed => return Err(SimError::TimeWait(spec.key)),
            Some(_) => return Err(SimError::FlowExists(spec.key)),
            None => {}
        }
        Ok(())
    }

    /// Adds a checked flow; returns its index.
    pub(super) fn insert_flow(&mut self, spec: FlowSpec) -> u32 {
        let id = self.flows.len() as u32;
        let (nic_hash, skb_hash) = self.hashes(&spec.key);
        let ntuple_queue = self.ntuple_queue(&spec.key);
        let queue = ntuple_queue.unwrap_or_else(|| self.reta.queue(nic_hash));
        self.flows.push(Flow {
            nic_hash,
            skb_hash,
            rate_pps: spec.rate_pps,
            since: self.now,
            sent: 0,
            bytes: spec.bytes,
            readers: spec.readers.len() as u32,
            first_reader: spec.readers.first().copied().unwrap_or(u32::MAX),
            reader: u32::MAX,
            ntuple_queue,
            atr_queue: None,
            last_queue: queue,
            last_cpu: self.queues[usize::from(queue)].irq_cpu,
            last_drop: None,
            udp: spec.key.proto() == Proto::Udp,
            // A UDP socket that receives from one peer and sends to it is connected when its
            // sends say so (`connect(2)`); a receive-only UDP socket is a bound server socket.
            established: spec.key.proto() == Proto::Tcp || spec.tx.is_some_and(|t| t.connected),
            closed: false,
        });
        let cell = self.sock.as_mut().map_or(u32::MAX, |s| s.cell(skb_hash));
        self.sock_cells.push(cell);
        if spec.tx.is_some() {
            self.senders.push(id);
        }
        self.arfs.track_flow(&spec.key);
        self.info.push(FlowInfo {
            key: spec.key,
            // One reader lives in `Flow` (`first_reader`); the list is read only to pick among
            // several, and a host's snapshot (a clone) allocates nothing for the others.
            readers: if spec.readers.len() > 1 {
                spec.readers
            } else {
                Vec::new()
            },
            tx: spec.tx.map(tx::TxState::new),
            wake_carry: 0,
            sock: None,
        });
        Arc::make_mut(&mut self.by_key).insert(spec.key, id);
        id
    }

    /// Closes flow `id`'s connection (`close(2)` at both ends): its sender stops, it offers no
    /// more packets, and its socket and readers are gone. Its id stays, so that counts per flow
    /// keep their meaning, and so does its tuple: a new flow may not take it (TIME_WAIT holds
    /// it on a real host; and the drivers match aRFS filters by tuple, so a new connection on
    /// it would find the old one's). `active`: this host closes first (`flow close ID
    /// active`); otherwise the peer does and this host's socket closes passively.
    ///
    /// The socket's `rps_sock_flow_table` entry: since 6.16 unhashing the socket clears it,
    /// whoever wrote it last (`sock_rps_delete_flow`, include/net/rps.h, called from
    /// `inet_unhash`, net/ipv4/inet_hashtables.c, and `udp_lib_unhash`, net/ipv4/udp.c), if the
    /// socket has a flow hash (`sk_rxhash`: a TCP connection or a connected UDP socket that
    /// has received). Not on the side that enters TIME_WAIT: `inet_twsk_hashdance_schedule`
    /// swaps the socket out of the hash for its timewait socket, and the later `inet_unhash`
    /// finds it unhashed and returns first. Before 6.16 nothing clears the entry until another
    /// flow's read overwrites it. What else the kernel keeps stays, and that is what there is
    /// to see:
    /// - the queues' `rps_dev_flow` slots, and an aRFS filter until the driver's expiry asks
    ///   `rps_may_expire_flow` (net/core/dev.c) and the slot has moved on;
    /// - ntuple rules and ATR filters, which know no connections.
    ///
    /// Its packets already in a ring or a backlog are still processed: the stack then finds
    /// no socket (TCP answers with a reset); the sandbox counts them delivered.
    pub fn close_flow(&mut self, id: u32, active: bool) -> Result<(), SimError> {
        let (Some(info), Some(flow)) = (self.info.get_mut(id as usize), self.flows.get_mut(id as usize)) else {
            return Err(SimError::NoFlow(id));
        };
        if flow.closed {
            return Err(SimError::FlowClosed(id));
        }
        flow.closed = true;
        info.readers.clear();
        info.tx = None;
        self.closed_flows += 1;
        self.senders.retain(|&s| s != id);
        let flow = &mut self.flows[id as usize];
        let time_wait = active && !flow.udp;
        let has_rxhash = flow.established && flow.sent > 0;
        (flow.rate_pps, flow.readers, flow.first_reader, flow.reader) = (0, 0, u32::MAX, u32::MAX);
        let hash = flow.skb_hash;
        if self.cfg.kernel.close_clears_sock_entry() && has_rxhash && !time_wait {
            if let Some(sock) = self.sock.as_mut() {
                let cell = self.sock_cells[id as usize];
                debug_assert_eq!(sock.get(cell), sock.entry(hash));
                if sock.get(cell) != u32::from(crate::rps::NO_CPU) {
                    sock.set(cell, u32::from(crate::rps::NO_CPU));
                    self.counters.sock_flow_deletes += 1;
                }
            }
        }
        self.record(Event::FlowClosed { flow: id as usize });
        Ok(())
    }

    /// Whether flow `id`'s connection was closed.
    pub fn flow_closed(&self, id: u32) -> bool {
        self.flows.get(id as usize).is_some_and(|f| f.closed)
    }

    /// Whether a flow, open or closed, has this tuple.
    pub fn has_flow(&self, key: &FlowKey) -> bool {
        self.by_key.contains_key(key)
    }
}

/// A migration period of at most a day.
fn check_migration(every: Nanos) -> Result<(), SimError> {
    if every.0 > 86_400_000_000_000 {
        return Err(range_err("migrate_every", "0..=86400000 ms"));
    }
    Ok(())
}
