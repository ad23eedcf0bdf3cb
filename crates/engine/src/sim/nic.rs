//! The NIC's configuration: hashing (key, fields, the skb hash), the indirection table,
//! ntuple rules, channels, the driver model and aRFS's CPU → queue map, and the NIC's choice of
//! queue for a flow.

use alloc::vec;
use alloc::vec::Vec;

use crate::arfs::Arfs;
use crate::cpuset::CpuSet;
use crate::driver::Driver;
use crate::flow::{FlowKey, FlowType};
use crate::ntuple;
use crate::rng::Rng;
use crate::rps::NO_FILTER;
use crate::rss::{hash_input, HashFields, Reta, RetaError};
use crate::toeplitz::ToeplitzTable;

use super::event::Event;
use super::{range_err, tx, NtupleRule, QueueRule, RxQueue, Sim, SimError};

impl Sim {
    /// The CPU → nearest RX queue map of aRFS (lib/cpu_rmap.c, updated by the vector's affinity
    /// notifier when its affinity is written): a queue's IRQ CPU has distance
    /// 0 (later queues win ties); other CPUs take a queue of their NUMA node (distance 3), else
    /// queue 0. SMT siblings and packages are not modelled.
    pub(super) fn rebuild_rmap(&mut self) {
        let n = usize::from(self.cfg.cpus);
        let mut rmap = vec![u16::MAX; n];
        for (q, rxq) in self.queues.iter().enumerate() {
            rmap[usize::from(rxq.vector_cpu())] = q as u16;
        }
        for (c, slot) in rmap.iter_mut().enumerate() {
            if *slot == u16::MAX {
                let node = self.nodes[c];
                *slot = self
                    .queues
                    .iter()
                    .rposition(|q| self.nodes[usize::from(q.vector_cpu())] == node)
                    .unwrap_or(0) as u16;
            }
        }
        self.rmap = rmap;
    }

    /// The NIC's hash and `skb_get_hash` for a tuple (kernel-semantics §1.7): an L4 NIC hash is
    /// kept; otherwise the stack computes its own. The kernel's software hash is SipHash of the
    /// canonicalised tuple with a boot-random key; the sandbox uses a seeded 64-bit mix of the
    /// same canonical tuple (same properties that matter here: direction-symmetric, never 0).
    pub(super) fn hashes(&self, key: &FlowKey) -> (u32, u32) {
        let fields = self.hash_fields[key.flow_type().index()];
        let (input, len) = hash_input(key, fields);
        let nic = self.toeplitz.hash(&input[..len]);
        if fields.is_l4() && nic != 0 {
            return (nic, nic);
        }
        let (a, b) = (ip_words(key.src()), ip_words(key.dst()));
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let (p, q) = (key.sport().min(key.dport()), key.sport().max(key.dport()));
        let mut h = self.soft_key;
        for w in [
            lo.0,
            lo.1,
            hi.0,
            hi.1,
            (u64::from(p) << 16) | u64::from(q),
            u64::from(key.proto().ip_proto()),
        ] {
            h = Rng::new(h ^ w).next_u64();
        }
        let soft = (h >> 32) as u32;
        (nic, if soft == 0 { 1 } else { soft })
    }

    pub(super) fn ntuple_queue(&self, key: &FlowKey) -> Option<u16> {
        ntuple::queue_for(&self.ntuple, key)
    }

    pub(super) fn refresh_flows(&mut self) {
        self.sync_fdir();
        for i in 0..self.flows.len() {
            let key = self.info[i].key;
            let (nic, skb) = self.hashes(&key);
            let nq = self.ntuple_queue(&key);
            let f = &mut self.flows[i];
            f.nic_hash = nic;
            f.skb_hash = skb;
            f.ntuple_queue = nq;
        }
        self.note_sock_cells();
    }

    /// `ethtool -N DEV flow-type ... action Q [loc L]`; returns the location used. A rule at a
    /// used location replaces it in one step, as ice (`ice_fdir_update_list_entry`) and mlx5
    /// (`mlx5e_ethtool_flow_replace`) do: if the new rule is refused, the old one stays. The
    /// checks run in ice's order (`ice_add_fdir_ethtool`): the feature, the location, the
    /// queue, the shared Flow Director.
    ///
    /// Departs from ice (FIDELITY.md, rules `ice-ntuple-partial-bitmask` and
    /// `ice-ntuple-input-set-per-type`): ice refuses a mask other than all ones or all zeros
    /// per field (`ice_set_fdir_ip4_seg`: -EOPNOTSUPP), a rule whose input set differs from
    /// its flow type's other rules (-EINVAL) and a duplicate at another location
    /// (`ice_fdir_is_dup_fltr`), and a refused partial rule has already turned aRFS off for
    /// its type; the sandbox takes partial bit masks and matches with them, lets a perfect
    /// and a partial rule of one type coexist, and leaves aRFS on after a refused rule.
    pub fn add_ntuple(&mut self, mut rule: NtupleRule) -> Result<u32, SimError> {
        if !self.cfg.ntuple {
            return Err(SimError::NtupleOff);
        }
        let loc = ntuple::place(&self.ntuple, rule.loc)?;
        if rule.queue >= self.cfg.rx_queues {
            return Err(SimError::NtupleQueue {
                queue: rule.queue,
                rx_queues: self.cfg.rx_queues,
            });
        }
        let replaced = self.ntuple.iter().position(|r| r.loc == loc);
        self.ice_fdir_check(&rule, replaced.is_some())?;
        rule.loc = loc;
        match replaced {
            Some(i) => self.ntuple[i] = rule,
            None => self.ntuple.push(rule),
        }
        self.refresh_flows();
        Ok(loc)
    }

    /// ice's Flow Director, which `ethtool -N` rules and aRFS filters share
    /// (drivers/net/ethernet/intel/ice/): a new rule needs a free filter (`ice_add_fdir_ethtool`:
    /// `ice_fdir_num_avail_fltr`, `-ENOSPC`; a replacement reuses its rule's), and a
    /// partial-mask rule changes its flow type's input set, which `ice_fdir_set_hw_fltr_rule`
    /// refuses while aRFS has active filters of that type (`ice_is_arfs_using_perfect_flow`,
    /// `-EINVAL`).
    fn ice_fdir_check(&self, rule: &NtupleRule, replacing: bool) -> Result<(), SimError> {
        if !matches!(self.cfg.driver, Driver::Ice | Driver::IceHashMatch) {
            return Ok(());
        }
        if !replacing && self.arfs.hw_room() == 0 {
            return Err(SimError::FdirFull);
        }
        let arfs_uses = || {
            self.arfs
                .filters()
                .iter()
                .any(|f| !f.pending && self.info[f.flow as usize].key.flow_type() == rule.flow_type)
        };
        if !rule.perfect() && arfs_uses() {
            return Err(SimError::ArfsUsesFlowType(rule.flow_type));
        }
        Ok(())
    }

    /// ice: what the rules leave to aRFS: the room they take in the shared table, and the
    /// flow types whose input set a partial-mask rule changed, for which `ice_rx_flow_steer`
    /// answers `-EOPNOTSUPP` (`ice_arfs_is_perfect_flow_set`, ice_arfs.c: `hw->fdir_perfect_fltr`
    /// is cleared for the type). Simplification: the perfect input set comes back when the
    /// type's last partial rule is deleted.
    pub(super) fn sync_fdir(&mut self) {
        let ice = matches!(self.cfg.driver, Driver::Ice | Driver::IceHashMatch);
        self.arfs.reserve(if ice { self.ntuple.len() as u32 } else { 0 });
        self.partial_input_set = [false; 4];
        if ice {
            for r in self.ntuple.iter().filter(|r| !r.perfect()) {
                self.partial_input_set[r.flow_type.index()] = true;
            }
        }
    }

    /// `ethtool -N DEV delete L`.
    pub fn delete_ntuple(&mut self, loc: u32) -> Result<(), SimError> {
        let i = self
            .ntuple
            .iter()
            .position(|r| r.loc == loc)
            .ok_or(SimError::NoRule(loc))?;
        self.ntuple.remove(i);
        self.refresh_flows();
        Ok(())
    }

    /// The ntuple rules, by location.
    pub fn ntuple_rules(&self) -> Vec<NtupleRule> {
        let mut r = self.ntuple.clone();
        // A location holds one rule: the unstable sort gives the same order (and keeps the
        // stable sort's code out of the page's bundle).
        r.sort_unstable_by_key(|r| r.loc);
        r
    }

    /// `ethtool -N DEV rx-flow-hash TYPE FIELDS`.
    pub fn set_hash_fields(&mut self, ty: FlowType, fields: HashFields) -> Result<(), SimError> {
        if !fields.nic_accepts() {
            return Err(range_err("rx-flow-hash", "sd or sdfn"));
        }
        self.hash_fields[ty.index()] = fields;
        self.refresh_flows();
        Ok(())
    }

    /// The fields hashed for a flow type.
    pub fn hash_fields(&self, ty: FlowType) -> HashFields {
        self.hash_fields[ty.index()]
    }

    /// `ethtool -X DEV hkey ...`: the RSS key (40 bytes).
    pub fn set_rss_key(&mut self, key: &[u8]) -> Result<(), SimError> {
        if key.len() != 40 {
            return Err(range_err("hkey", "exactly 40 bytes"));
        }
        self.toeplitz = ToeplitzTable::new(key);
        self.refresh_flows();
        Ok(())
    }

    /// The RSS key.
    pub fn rss_key(&self) -> &[u8] {
        self.toeplitz.key()
    }

    /// Replaces the indirection table (`ethtool -X`).
    pub fn set_reta(&mut self, reta: Reta) -> Result<(), SimError> {
        if reta.size() != self.reta.size() {
            return Err(range_err("indirection table", "the device's table size"));
        }
        if let Some(&q) = reta.entries().iter().find(|&&q| q >= self.cfg.rx_queues) {
            return Err(SimError::Reta(RetaError::QueueOutOfRange {
                queue: u32::from(q),
                rings: u32::from(self.cfg.rx_queues),
            }));
        }
        self.reta = reta;
        Ok(())
    }

    /// `ethtool -L DEV combined N`: N RX and N TX queues, IRQ of queue q on CPU q % cpus.
    /// As `ethtool_set_channels` (net/ethtool/ioctl.c) does, a user-configured indirection
    /// table that names a queue beyond the new count refuses the change; a default table is
    /// re-filled for the new count (the driver's `ethtool_rxfh_indir_default`); "configured"
    /// is the kernel's IFF_RXFH_CONFIGURED, set by `ethtool -X` and cleared by `-X default`.
    /// Queue tables, RPS maps and XPS maps are rebuilt; aRFS and ATR filters are flushed (the
    /// driver re-initialises its rings).
    /// The checks are `ethnl_set_channels`' (net/ethtool/channels.c), in its order: the count
    /// in force already is no change, and returns before the checks and the driver.
    pub fn set_channels(&mut self, combined: u16) -> Result<(), SimError> {
        if combined == self.cfg.rx_queues && combined == self.cfg.tx_queues {
            return Ok(());
        }
        if combined == 0 {
            return Err(SimError::NoChannels);
        }
        if combined > self.max_channels() {
            return Err(SimError::TooManyChannels {
                max: self.max_channels(),
            });
        }
        let size = self.reta.size();
        let reta = if !self.reta.user_configured() {
            Reta::new_default(size, u32::from(combined)).map_err(SimError::Reta)?
        } else if self.reta.max_queue() >= combined {
            return Err(SimError::RetaUsesQueue(self.reta.max_queue()));
        } else {
            self.reta.clone()
        };
        if let Some(r) = self.ntuple.iter().find(|r| r.queue >= combined) {
            // ethtool_set_channels refuses while a rule steers to a queue that would vanish.
            return Err(SimError::RuleUsesQueue {
                loc: r.loc,
                queue: r.queue,
            });
        }
        let rps_map = self.queues.first().map(|q| q.rps_map.clone()).unwrap_or_default();
        let flow_cnt = self.cfg.flow_cnt;
        self.cfg.rx_queues = combined;
        self.cfg.tx_queues = combined;
        self.reta = reta;
        let ncpus = self.cfg.cpus;
        self.queues = (0..combined)
            .map(|q| RxQueue::new(q % ncpus, rps_map.clone(), flow_cnt))
            .collect();
        self.txq_packets = vec![0; usize::from(combined)];
        self.irqs = vec![super::napi::QueueIrq::default(); usize::from(combined)];
        self.irq_counts = vec![0; usize::from(combined) * usize::from(ncpus)];
        self.xps = tx::initial_xps(&self.cfg);
        self.flows.iter_mut().for_each(|f| f.atr_queue = None);
        self.info
            .iter_mut()
            .filter_map(|i| i.tx.as_mut())
            .for_each(tx::TxState::forget_queue);
        self.rebuild_rmap();
        self.set_driver(self.cfg.driver);
        self.refresh_flows();
        for f in 0..self.flows.len() {
            self.flows[f].last_queue = self.rx_queue(f).0;
        }
        self.record(Event::Channels { combined });
        Ok(())
    }

    /// The most combined channels the NIC offers (`ethtool -l`'s pre-set maximum): one per CPU,
    /// as ice and mlx5 size them, within the sandbox's queue limit, and never fewer than are
    /// configured (a scenario may set more).
    pub fn max_channels(&self) -> u16 {
        self.cfg.cpus.min(crate::config::MAX_QUEUES).max(self.cfg.rx_queues)
    }

    /// `echo CPUS > /proc/irq/N/smp_affinity_list` for queue `q`'s vector: its interrupts, and
    /// so the driver's NAPI poll, move to one CPU of `cpus`. The kernel's x86 vector allocator
    /// picks the CPU of the mask with the fewest vectors allocated (kernel/irq/matrix.c
    /// `matrix_find_best_cpu`, its choice shown in `effective_affinity_list`); the sandbox
    /// counts the NIC's other queue vectors (it has no other devices), the lowest CPU on a tie.
    /// aRFS's CPU → queue map follows (the driver's `irq_cpu_rmap` notifier, lib/cpu_rmap.c).
    ///
    /// The poll follows with the next interrupt, and a poll that never completes masks it: a
    /// queue whose ring its CPU could not drain keeps polling where it is (`polling`) until it
    /// does, "stuck on this cpu", as i40e_txrx.c's comment in `i40e_napi_poll` says. Drivers
    /// that check their vector's affinity in the poll complete it on a CPU no longer theirs
    /// and move at once: mlx5 (`mlx5e_napi_poll`, `mlx5e_channel_no_affinity_change`, counted
    /// as `chN_aff_change`), as i40e and iavf do. ice (`ice_napi_poll`), ixgbe (`ixgbe_poll`)
    /// and virtio_net (`virtnet_poll`) do not check.
    pub fn set_irq_affinity(&mut self, q: u16, cpus: CpuSet) -> Result<(), SimError> {
        self.check_irq_affinity(q, cpus)?;
        let vectors_on = |c: u16| {
            self.queues
                .iter()
                .enumerate()
                .filter(|&(i, r)| i != usize::from(q) && r.vector_cpu() == c)
                .count()
        };
        let cpu = cpus.iter().min_by_key(|&c| (vectors_on(c), c)).unwrap_or(0);
        let checks = self.cfg.driver.polls_check_affinity();
        let rxq = &mut self.queues[usize::from(q)];
        rxq.affinity = cpus;
        let moved = rxq.vector_cpu() != cpu;
        if rxq.irq_cpu == cpu || !rxq.polling {
            (rxq.irq_cpu, rxq.moving_to) = (cpu, None);
        } else if checks {
            (rxq.irq_cpu, rxq.moving_to) = (cpu, None);
            self.irqs[usize::from(q)].aff_change += 1;
        } else {
            rxq.moving_to = Some(cpu);
        }
        if moved {
            self.rebuild_rmap();
        }
        self.record(Event::IrqAffinity { queue: q, cpu });
        Ok(())
    }

    /// Moves the polls of the queues whose vector moved while they polled, once their poll
    /// completed (called at a tick's end, napi.rs).
    pub(super) fn follow_moved_vectors(&mut self) {
        for q in &mut self.queues {
            if let (Some(cpu), false) = (q.moving_to, q.polling) {
                (q.irq_cpu, q.moving_to) = (cpu, None);
            }
        }
    }

    pub(super) fn check_irq_affinity(&self, q: u16, cpus: CpuSet) -> Result<(), SimError> {
        if cpus.is_empty() || cpus.end() > self.cfg.cpus {
            return Err(range_err("smp_affinity_list", "CPUs of this host"));
        }
        if usize::from(q) >= self.queues.len() {
            return Err(range_err("irq", "a queue vector of this device"));
        }
        Ok(())
    }

    /// Queue `q`'s vector's `smp_affinity_list`.
    pub fn irq_affinity(&self, q: u16) -> Option<CpuSet> {
        self.queues.get(usize::from(q)).map(|r| r.affinity)
    }

    /// The indirection table.
    pub fn reta(&self) -> &Reta {
        &self.reta
    }

    /// Switches the driver model; filters of the old driver are gone.
    pub fn set_driver(&mut self, driver: Driver) {
        self.cfg.driver = driver;
        // Another NIC: its rings are its driver's default size, its frame count its own.
        self.cfg.ring_size = None;
        self.cfg.rx_frames = None;
        // The sandbox's aRFS tallies run on across the switch, as every other counter does
        // (a real NIC's `ethtool -S` would start from zero: it is another device).
        let counters = core::mem::take(&mut self.arfs.counters);
        let per_queue = core::mem::take(&mut self.arfs.per_queue);
        self.arfs = Arfs::new(driver, self.cfg.max_hw_filters);
        (self.arfs.counters, self.arfs.per_queue) = (counters, per_queue);
        for i in &self.info {
            self.arfs.track_flow(&i.key);
        }
        self.sync_fdir();
        self.timers.ice_reset();
        self.lock_walks = Default::default();
        // The old driver's filter ids mean nothing to the new one (a different NIC).
        for q in &mut self.queues {
            if let Some(t) = &mut q.table {
                t.flows.iter_mut().for_each(|e| e.filter = NO_FILTER);
            }
        }
        if let Some((p, _)) = self.xdp.take() {
            self.set_xdp(Some(p));
        }
        if driver != Driver::Ixgbe {
            self.flows.iter_mut().for_each(|f| f.atr_queue = None);
        }
        // The ingress block now sits on another NIC: its filters are played back to it.
        if let Some(b) = &mut self.tc {
            if b.reoffload(driver.tc_offload()) > 0 {
                self.record(Event::TcReoffload {
                    offload: driver.tc_offload(),
                });
            }
        }
    }

    /// `ethtool -G DEV rx N`: every RX ring's descriptors, as the driver rounds them
    /// ([`Driver::set_rx_ring`]; `None`: the driver's default). Returns the size in force.
    /// Simplification: the real drivers stop and refill their rings (ice and ixgbe take the
    /// interface down and up); the sandbox resizes them between two ticks, losing nothing.
    pub fn set_rx_ring(&mut self, n: Option<u32>) -> Result<u32, SimError> {
        let size = match n {
            Some(n) => self.cfg.driver.set_rx_ring(n).map_err(|why| range_err("rx", why))?,
            None => self.cfg.driver.rx_ring().0,
        };
        self.cfg.ring_size = n.map(|_| size);
        Ok(size)
    }

    /// `ethtool -C DEV rx-usecs N`: the queues' interrupt moderation (`None`: the driver's
    /// default again, as after a driver switch).
    pub fn set_rx_usecs(&mut self, usecs: Option<u32>) -> Result<(), SimError> {
        if usecs.is_some_and(|u| u > crate::config::MAX_RX_USECS) {
            return Err(range_err("rx-usecs", "0..=10000 in the sandbox"));
        }
        self.cfg.rx_usecs = usecs;
        Ok(())
    }

    /// `ethtool -C DEV rx-frames N`: the packets after which a vector fires before its
    /// `rx-usecs` ends (`None`: the driver's default). Refused on a driver that does not take
    /// the parameter (`ethnl_set_coalesce_validate`: not in `supported_coalesce_params`).
    pub fn set_rx_frames(&mut self, frames: Option<u32>) -> Result<(), SimError> {
        if self.cfg.driver.default_rx_frames().is_none() {
            return Err(range_err("rx-frames", "a driver that counts frames (mlx5, generic)"));
        }
        if frames.is_some_and(|f| f > crate::config::MAX_RX_FRAMES) {
            return Err(range_err("rx-frames", "0..=65535"));
        }
        self.cfg.rx_frames = frames;
        Ok(())
    }

    /// How idle CPUs wait (`host.idle`): whether waking one costs an IPI.
    pub fn set_idle(&mut self, idle: crate::config::Idle) {
        self.cfg.idle = idle;
    }

    /// `ethtool -K DEV ntuple on|off`: off removes every rule and aRFS filter; any change
    /// flushes ixgbe's ATR filters. A feature already in the wanted state is not sent to the
    /// driver (`__netdev_update_features` calls `ndo_set_features` only on a change): no reset,
    /// no flush.
    pub fn set_ntuple(&mut self, on: bool) {
        if on == self.cfg.ntuple {
            return;
        }
        // ixgbe_set_features: switching Flow Director between ATR and perfect filters resets
        // the device, and its ATR signature filters are gone.
        self.flows.iter_mut().for_each(|f| f.atr_queue = None);
        self.cfg.ntuple = on;
        if !on {
            self.ntuple.clear();
            self.set_driver(self.cfg.driver);
            self.refresh_flows();
        }
    }

    /// The NIC's choice (kernel-semantics §0 step 1) and the rule that made it: exact filters
    /// first (ntuple rules, then aRFS filters, then ixgbe ATR's), else `indir[hash & (size-1)]`.
    #[inline]
    pub(super) fn rx_queue(&self, f: usize) -> (u16, QueueRule) {
        let flow = &self.flows[f];
        self.queue_rule(f, flow.nic_hash, flow.ntuple_queue, flow.atr_queue)
    }

    /// [`Sim::rx_queue`] from the flow's fields, read by the caller.
    #[inline]
    pub(super) fn queue_rule(
        &self,
        f: usize,
        nic_hash: u32,
        ntuple_queue: Option<u16>,
        atr_queue: Option<u16>,
    ) -> (u16, QueueRule) {
        match (ntuple_queue, self.arfs.hw_queue(f), atr_queue) {
            (Some(q), _, _) => (q, QueueRule::Ntuple),
            (None, Some(q), _) => (q, QueueRule::Arfs),
            (None, None, Some(q)) => (q, QueueRule::Atr),
            (None, None, None) => (self.reta.queue(nic_hash), QueueRule::Rss),
        }
    }
}

fn ip_words(ip: core::net::IpAddr) -> (u64, u64) {
    match ip {
        core::net::IpAddr::V4(a) => (0, u64::from(u32::from(a))),
        core::net::IpAddr::V6(a) => {
            let v = u128::from(a);
            ((v >> 64) as u64, v as u64)
        }
    }
}
