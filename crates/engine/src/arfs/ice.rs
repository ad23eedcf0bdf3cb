//! ice (drivers/net/ethernet/intel/ice/ice_arfs.c): the service task's walk of the aRFS list
//! (`ice_sync_arfs_fltrs`) and the hardware writes it queues.

use alloc::vec::Vec;

use super::{ice_id_bit, ice_place, Arfs, ExpiryOracle, IceEntry, IceState, Model, ICE_UDP_EXPIRY};
use crate::time::Nanos;

impl Arfs {
    /// ice: entries an add or update left INACTIVE wait for the service task (it is to be
    /// scheduled: `ice_service_task_schedule`).
    pub fn ice_work_pending(&self) -> bool {
        !self.pending.is_empty()
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
        let Model::Ice { buckets, ids, .. } = &mut self.model else {
            return 0;
        };
        let mut adds = core::mem::take(&mut self.adds);
        if !expire {
            // Only INACTIVE entries change: those an add or update left since the last walk.
            for handle in self.pending.drain(..) {
                let (b, place) = ice_place(handle);
                if let Some(e) = buckets[b].get_mut(place) {
                    if e.state == IceState::Inactive {
                        Self::program(&mut adds, e, now);
                    }
                }
            }
        } else {
            self.pending.clear();
            for (bucket, held) in buckets.iter_mut().zip(ids.iter_mut()) {
                // Head first (a bucket's head is its end). Expired entries are marked, then
                // dropped in one pass that keeps the others' order: removing each as found
                // moved the bucket's tail once per removal, a `memory.copy` call apiece in wasm
                // (seed 000's engine in node: 0.986-0.991 of the time; natively 0.3 % fewer
                // instructions, the same time).
                let mut gone = 0;
                for e in bucket.iter_mut().rev() {
                    match e.state {
                        IceState::Inactive => Self::program(&mut adds, e, now),
                        IceState::Active => {
                            let expired = oracle.may_expire(e.q_index, e.flow_id, e.fltr_id)
                                || (e.udp && now.saturating_sub(e.activated) >= ICE_UDP_EXPIRY);
                            if expired {
                                Self::tally(&mut self.per_queue, e.q_index).expire += 1;
                                self.writes.push((e.flow, None));
                                e.state = IceState::Gone;
                                gone += 1;
                            }
                        }
                        IceState::Gone => {} // only this walk marks
                    }
                }
                if gone > 0 {
                    bucket.retain(|e| e.state != IceState::Gone);
                    self.live -= gone;
                    self.counters.expire += u64::from(gone);
                }
                // The bucket's summary made exact again, from the entries it still holds.
                *held = bucket.iter().fold(0, |bits, e| bits | ice_id_bit(e.flow_id));
            }
        }
        // ice_arfs_del_flow_rules, then ice_arfs_add_flow_rules.
        self.writes.append(&mut adds);
        self.adds = adds;
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
}
